//! [`Storage`]: the seam every append and sync of a run file or raw output file goes
//! through. The real [`File`] is the library's; the crate's tests put a file that fails on
//! cue in its place (`faults.rs`). A file of its own so that the writer and the faulty file
//! both import it from below.

use std::fmt;
use std::fs::File;
use std::io;
use std::path::Path;

/// What a run file's appends and syncs go through: the real [`File`], or in the crate's
/// tests one that fails on cue. Reading (recovery) uses [`Storage::file`] directly: the
/// faults worth injecting are the writer's.
pub(crate) trait Storage: fmt::Debug + Send + Sized {
    /// Wraps a file just opened at `path`.
    fn wrap(file: File, path: &Path) -> Self;
    /// The file itself, for locking, metadata and reads.
    fn file(&self) -> &File;
    /// One `write(2)`.
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize>;
    /// `ftruncate(2)`.
    fn set_len(&self, len: u64) -> io::Result<()>;
    /// `fdatasync(2)`.
    fn sync_data(&self) -> io::Result<()>;
    /// `fsync(2)`.
    fn sync_all(&self) -> io::Result<()>;
}

impl Storage for File {
    #[inline]
    fn wrap(file: File, _: &Path) -> Self {
        file
    }

    #[inline]
    fn file(&self) -> &File {
        self
    }

    #[inline]
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        io::Write::write(self, bytes)
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        File::set_len(self, len)
    }

    fn sync_data(&self) -> io::Result<()> {
        File::sync_data(self)
    }

    fn sync_all(&self) -> io::Result<()> {
        File::sync_all(self)
    }
}
