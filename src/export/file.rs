//! Writing an export to a file (`axt export -o FILE`): whole or not at all, private, and
//! never through a symbolic link.
//!
//! A regular file (or a missing one) is written to a new temporary file beside it (mode
//! 0600, `O_EXCL | O_NOFOLLOW`), synced, and renamed over the target: a failed write (a full
//! disk, an I/O error, a sync that fails) leaves the old file as it was and no partial
//! document, and is an error, never a truncated file that looks finished. A symbolic link
//! at the path is refused (the document would land wherever it points). A device or FIFO
//! (`/dev/null`, a named pipe) is written in place, since it cannot be replaced; its errors
//! are errors too (`/dev/full` fails with ENOSPC).

use std::fs;
use std::io::{self, ErrorKind, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::record::{create_private, private_options};

/// Writes `bytes` as the whole content of `path`, or fails and leaves `path` as it was.
///
/// A regular file (or a missing one) is written to a new temporary file beside it (mode
/// 0600, `O_EXCL | O_NOFOLLOW`), synced, and renamed over the target: a failed write (a full
/// disk, an I/O error, a sync that fails) is an error, never a truncated document that
/// looks finished. A symbolic link at `path` is refused. A device or FIFO (`/dev/null`, a
/// named pipe) is written in place; its errors are errors too (`/dev/full`: ENOSPC). The
/// error does not name `path`: the caller, who chose it, does.
pub fn write_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_file_with(path, |file| file.write_all(bytes))
}

/// [`write_file`] of what `write` writes, for a document too large to hold in memory first
/// (an HTML page of a large run): the same guarantees, whole or not at all. `write` gets the
/// file unbuffered; what it returns is returned once the file is in place.
pub fn write_file_with<T>(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<T>,
) -> io::Result<T> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            return Err(io::Error::new(
                ErrorKind::InvalidInput,
                "is a symbolic link; axt does not write through one",
            ));
        }
        Ok(meta) if !meta.is_file() => {
            // O_NOFOLLOW still: a link swapped in since the look is refused (ELOOP).
            let mut file = private_options().write(true).open(path)?;
            let written = write(&mut file)?;
            return file.flush().map(|()| written);
        }
        Ok(_) => {}
        Err(error) if error.kind() == ErrorKind::NotFound => {}
        Err(error) => return Err(error),
    }
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(ErrorKind::InvalidInput, "names no file"))?;
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let temp = dir.join(format!(
        ".{}.axt-{}-{}.tmp",
        name.to_string_lossy(),
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let written = create_private(&temp).and_then(|mut file| {
        let written = write(&mut file)?;
        // Some file systems report a full disk or an I/O error only here (NFS, delayed
        // allocation): a document is not written until it is synced.
        file.sync_all()?;
        // rename(2) replaces a link at the path rather than follow it.
        fs::rename(&temp, path).map(|()| written)
    });
    if written.is_err() {
        let _ = fs::remove_file(&temp);
    }
    written
}
