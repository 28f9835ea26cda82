//! An agent's raw output file (`<run-id>.raw.jsonl` for a capture): the bytes of its stdout,
//! kept beside the transcript so that a diagnostic's line and byte can be looked up, and so
//! that nothing read is lost if normalizing fails.
//!
//! Created new, mode 0600, never through a symbolic link. Appended through the recorder's
//! [`Appender`]: a failed write leaves nothing of the chunk behind, so a later chunk never
//! continues a fragment. With a mask (the recorder's
//! [`mask_raw`](crate::record::RecorderOptions::mask_raw), set by `redact_credentials`),
//! output is written a whole line at a time, each line masked: line numbers still match
//! the output's, byte offsets within a masked line do not, and a line is kept in memory
//! until its LF arrives (or the output ends), so a crash of the process loses that partial
//! line from the raw file (never from the agent's own output, which the transcript still
//! normalizes).

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use crate::record::{Appender, LineMask, create_private};

/// Creates the file an agent's raw output is kept in: new (never an existing file, nor a
/// symbolic link), mode 0600, append-only.
pub(crate) fn open_raw(path: &Path) -> io::Result<File> {
    create_private(path)
}

/// The raw output file being written.
#[derive(Debug)]
pub(super) struct RawOut {
    out: Appender,
    mask: Option<Mask>,
}

/// A mask and the line it is waiting to complete.
struct Mask {
    mask: LineMask,
    partial: Vec<u8>,
}

impl std::fmt::Debug for Mask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mask")
            .field("partial", &self.partial.len())
            .finish_non_exhaustive()
    }
}

impl RawOut {
    /// Takes `file`, just created at `path`.
    pub(super) fn new(file: File, path: PathBuf, mask: Option<LineMask>) -> RawOut {
        RawOut {
            out: Appender::new(file, path, 0),
            mask: mask.map(|mask| Mask {
                mask,
                partial: Vec::new(),
            }),
        }
    }

    pub(super) fn path(&self) -> &Path {
        self.out.path()
    }

    /// Appends the next bytes of the output (masked a line at a time when there is a
    /// mask). On failure nothing of them is in the file.
    pub(super) fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        let Some(Mask { mask, partial }) = &mut self.mask else {
            return self.out.append(bytes);
        };
        let Some(last_lf) = memchr::memrchr(b'\n', bytes) else {
            partial.extend_from_slice(bytes);
            return Ok(());
        };
        partial.extend_from_slice(&bytes[..=last_lf]);
        let mut masked = Vec::with_capacity(partial.len());
        for line in partial.split_inclusive(|byte| *byte == b'\n') {
            let mut line = line[..line.len() - 1].to_vec();
            mask(&mut line);
            masked.extend_from_slice(&line);
            masked.push(b'\n');
        }
        partial.clear();
        partial.extend_from_slice(&bytes[last_lf + 1..]);
        self.out.append(&masked)
    }

    /// Writes the last line when it had no LF (masked), once the output has ended.
    pub(super) fn finish(&mut self) -> io::Result<()> {
        if let Some(Mask { mask, partial }) = &mut self.mask
            && !partial.is_empty()
        {
            let mut line = std::mem::take(partial);
            mask(&mut line);
            self.out.append(&line)?;
        }
        self.out.settle()
    }
}
