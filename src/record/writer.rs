//! The append-only run file: creating it privately, reopening it after a crash, and appending
//! one whole line per `write(2)`.
//!
//! This module owns the bytes on disk and nothing else: it does not assign `seq` (the
//! recorder does, and tells it which `seq` the file ends with) and it never rewrites a line
//! that ends in LF. The only bytes it ever removes are a torn tail (a final line without its
//! LF), and only after copying them, synced, to a sidecar file.

use std::fs::{DirBuilder, File, OpenOptions, TryLockError};
use std::io::{self, ErrorKind, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{DirBuilderExt, FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use super::error::RecordError;
use crate::model::decode_event;

/// Longest accepted run id, in bytes: the file name adds `.jsonl` and, for a sidecar,
/// `.torn-<20 digits>.<n>`, and most file systems stop at 255 bytes per name.
const MAX_RUN_ID_LEN: usize = 200;

/// How far back [`RunFile::open`] reads per step while looking for line ends.
const SCAN_CHUNK: u64 = 64 * 1024;

/// Checks that `run_id` can be used as a file name inside the run directory, and nowhere else.
pub(crate) fn check_run_id(run_id: &str) -> Result<(), RecordError> {
    let reason = if run_id.is_empty() {
        Some("it is empty")
    } else if run_id == "." || run_id == ".." {
        Some("it names a directory")
    } else if run_id.contains(['/', '\\']) {
        // `\` is a separator on Windows; refusing it keeps run files portable.
        Some("it contains a path separator")
    } else if run_id.contains('\0') {
        Some("it contains NUL")
    } else if run_id.chars().any(char::is_control) {
        Some("it contains a control character")
    } else if run_id.len() > MAX_RUN_ID_LEN {
        Some("it is longer than 200 bytes")
    } else {
        None
    };
    match reason {
        Some(reason) => Err(RecordError::InvalidRunId {
            run_id: run_id.to_owned(),
            reason,
        }),
        None => Ok(()),
    }
}

/// The path of a run's transcript: `<dir>/<run-id>.jsonl`.
pub(crate) fn run_path(dir: &Path, run_id: &str) -> PathBuf {
    dir.join(format!("{run_id}.jsonl"))
}

/// What [`RunFile::open`] found in an existing file.
#[derive(Debug)]
pub(crate) struct Recovered {
    /// `seq` of the last intact line; 0 for a new or empty file.
    pub(crate) last_seq: u64,
    /// Where a torn final line was moved, if there was one.
    pub(crate) torn: Option<TornTail>,
}

/// A torn final line that opening the run file found and moved aside
/// ([`Recorder::torn_tail`](super::Recorder::torn_tail)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TornTail {
    /// Byte offset in the run file where the torn line started (the file's length now).
    pub offset: u64,
    /// How many bytes were moved.
    pub len: u64,
    /// The sidecar file that holds them, byte for byte.
    pub sidecar: PathBuf,
}

/// An open, locked run file positioned for appending.
#[derive(Debug)]
pub(crate) struct RunFile {
    file: File,
    path: PathBuf,
    /// The file's length as this writer knows it. Exact, because the file is locked for us:
    /// it is where a failed append is cut back to.
    len: u64,
}

impl RunFile {
    /// Opens `<dir>/<run_id>.jsonl` for appending, creating it (0600) and `dir` (0700) when
    /// missing, and recovers an existing file: a torn final line is moved to a sidecar and the
    /// last intact line's `seq` is returned so that numbering continues after it.
    ///
    /// The file is locked (`flock`, exclusive) for as long as the `RunFile` lives: two
    /// writers on one run would each number from the same `seq`. The lock is released by the
    /// kernel when the process dies, so a killed executor never leaves its run locked.
    pub(crate) fn open(
        dir: &Path,
        run_id: &str,
        sync_metadata: bool,
    ) -> Result<(RunFile, Recovered), RecordError> {
        check_run_id(run_id)?;
        let path = run_path(dir, run_id);
        let io_error = |source| RecordError::io(&path, source);
        if !dir.is_dir() {
            DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(|source| RecordError::io(dir, source))?;
        }
        let mut options = OpenOptions::new();
        // Read access only serves recovery (`pread` of the tail); every write goes through
        // O_APPEND, so each line lands at the end of the file whatever the file offset says.
        options.read(true).append(true).mode(0o600);
        let file = match options.clone().create_new(true).open(&path) {
            Ok(file) => file,
            Err(error) if error.kind() == ErrorKind::AlreadyExists => {
                options.open(&path).map_err(io_error)?
            }
            Err(error) => return Err(io_error(error)),
        };
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => return Err(RecordError::Busy { path }),
            Err(TryLockError::Error(error)) => return Err(io_error(error)),
        }
        if sync_metadata {
            // The file's name lives in the directory: without this, a power loss can lose
            // the whole file even though its lines were synced. Also on a reopen, since the
            // file may have been created under a policy that did not sync.
            sync_dir(dir)?;
        }
        let len = file.metadata().map_err(io_error)?.len();
        let mut run_file = RunFile { file, path, len };
        let recovered = run_file.recover(run_id)?;
        Ok((run_file, recovered))
    }

    /// The file's path.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one line (its LF included) with one `write_all`.
    ///
    /// `write_all` issues one `write(2)` and loops only on a short write, which Linux does not
    /// do for regular files short of a full disk or a fatal signal. If the append fails, the
    /// bytes it may have left are cut off again so that the file still ends with a whole
    /// line; the error says whether that worked ([`AppendError::Undone`]) or the file may now
    /// end torn ([`AppendError::Torn`]).
    pub(crate) fn append(&mut self, line: &[u8]) -> Result<(), AppendError> {
        match self.file.write_all(line) {
            Ok(()) => {
                self.len += line.len() as u64;
                Ok(())
            }
            Err(error) => match self.file.set_len(self.len) {
                Ok(()) => Err(AppendError::Undone(error)),
                Err(_) => Err(AppendError::Torn(error)),
            },
        }
    }

    /// `fdatasync(2)`: the data and the metadata needed to read it back (the length).
    pub(crate) fn sync_data(&self) -> io::Result<()> {
        self.file.sync_data()
    }

    /// `fsync(2)`: the data and all metadata.
    pub(crate) fn sync_all(&self) -> io::Result<()> {
        self.file.sync_all()
    }

    fn recover(&mut self, run_id: &str) -> Result<Recovered, RecordError> {
        let last_lf =
            rfind_lf(&self.file, self.len).map_err(|source| RecordError::io(&self.path, source))?;
        let intact_len = last_lf.map_or(0, |at| at + 1);
        let torn = if intact_len < self.len {
            Some(self.move_torn_tail(intact_len)?)
        } else {
            None
        };
        let io_error = |source| RecordError::io(&self.path, source);
        let last_seq = match last_lf {
            None => 0,
            Some(end) => {
                let start = rfind_lf(&self.file, end)
                    .map_err(io_error)?
                    .map_or(0, |at| at + 1);
                let line = read_range(&self.file, start, end).map_err(io_error)?;
                let corrupt = |reason: String| RecordError::Corrupt {
                    path: self.path.clone(),
                    offset: start,
                    reason,
                };
                let event = decode_event(&line).map_err(|error| corrupt(error.to_string()))?;
                if event.run_id != run_id {
                    return Err(corrupt(format!(
                        "the last line belongs to run {:?}",
                        event.run_id
                    )));
                }
                event.seq
            }
        };
        Ok(Recovered { last_seq, torn })
    }

    /// Copies the bytes from `offset` to the end into a new 0600 sidecar, syncs it and its
    /// directory entry, and only then cuts the run file back to `offset`.
    ///
    /// The order makes the recovery itself crash-safe: killed before the cut, the next open
    /// finds the same tail and saves it again (a second sidecar, nothing lost); killed after
    /// it, the sidecar is already durable. The sync costs nothing in the common case, since
    /// recovery only runs after a crash, so it is done whatever the durability policy.
    fn move_torn_tail(&mut self, offset: u64) -> Result<TornTail, RecordError> {
        let len = self.len - offset;
        let name = self
            .path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        let dir = self.path.parent().unwrap_or(Path::new("."));
        // The same offset can tear twice (a restarted executor killed during its first
        // write), so a sidecar is never overwritten: the next free suffix is taken instead.
        let mut attempt = 0u32;
        let (mut sidecar_file, sidecar) = loop {
            let candidate = match attempt {
                0 => dir.join(format!("{name}.torn-{offset}")),
                n => dir.join(format!("{name}.torn-{offset}.{n}")),
            };
            let opened = OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&candidate);
            match opened {
                Ok(file) => break (file, candidate),
                Err(error) if error.kind() == ErrorKind::AlreadyExists => attempt += 1,
                Err(error) => return Err(RecordError::io(&candidate, error)),
            }
        };
        // Streamed, not read whole: after a crash the tail can be anything, of any size. The
        // read offset is free to move, since every write to the run file is O_APPEND.
        (&self.file)
            .seek(SeekFrom::Start(offset))
            .map_err(|source| RecordError::io(&self.path, source))?;
        let copied = io::copy(&mut (&self.file).take(len), &mut sidecar_file)
            .and_then(|copied| sidecar_file.sync_all().map(|()| copied))
            .map_err(|source| RecordError::io(&sidecar, source))?;
        if copied != len {
            let short = io::Error::new(
                ErrorKind::UnexpectedEof,
                "the torn tail shrank while copied",
            );
            return Err(RecordError::io(&self.path, short));
        }
        sync_dir(dir)?;
        self.file
            .set_len(offset)
            .and_then(|()| self.file.sync_all())
            .map_err(|source| RecordError::io(&self.path, source))?;
        self.len = offset;
        Ok(TornTail {
            offset,
            len,
            sidecar,
        })
    }
}

/// Why [`RunFile::append`] failed, and what state it left the file in.
#[derive(Debug)]
pub(crate) enum AppendError {
    /// Nothing of the line remains in the file.
    Undone(io::Error),
    /// Part of the line may remain and could not be cut off.
    Torn(io::Error),
}

/// Syncs a directory, so that the names created in it survive a power loss.
fn sync_dir(dir: &Path) -> Result<(), RecordError> {
    File::open(dir)
        .and_then(|handle| handle.sync_all())
        .map_err(|source| RecordError::io(dir, source))
}

/// Offset of the last LF before `end`, reading backwards in chunks.
fn rfind_lf(file: &File, end: u64) -> io::Result<Option<u64>> {
    let mut chunk = vec![0; SCAN_CHUNK as usize];
    let mut stop = end;
    while stop > 0 {
        let start = stop.saturating_sub(SCAN_CHUNK);
        let buf = &mut chunk[..(stop - start) as usize];
        file.read_exact_at(buf, start)?;
        if let Some(at) = buf.iter().rposition(|byte| *byte == b'\n') {
            return Ok(Some(start + at as u64));
        }
        stop = start;
    }
    Ok(None)
}

fn read_range(file: &File, start: u64, end: u64) -> io::Result<Vec<u8>> {
    let mut bytes = vec![0; (end - start) as usize];
    file.read_exact_at(&mut bytes, start)?;
    Ok(bytes)
}
