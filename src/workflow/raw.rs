//! An agent's raw output file (`<run-id>.raw.jsonl` for a capture): the bytes of its stdout,
//! kept beside the transcript so that a diagnostic's line and byte can be looked up, and so
//! that nothing read is lost if normalizing fails.
//!
//! Created new, mode 0600, never through a symbolic link. Appended through the recorder's
//! [`Appender`]: a failed write leaves nothing of the chunk behind, so a later chunk never
//! continues a fragment. With a mask (the recorder's [`RawMask`]: a
//! [`mask_raw`](crate::record::RecorderOptions::mask_raw) of the caller's, applied a line at
//! a time, or the credential redactor of `redact_credentials`), the output goes through a
//! [`RawMasker`](crate::record::RawMasker) first: line numbers still match the output's,
//! byte offsets within a masked line do not, and what the masker holds back (a line until
//! its LF, a streamed message until it ends; never more than the transcript's line limit)
//! is lost from the raw file if the process crashes (never from the agent's own output,
//! which the transcript still normalizes).

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use crate::record::{Appender, RawMask, RawMasker, create_private};

/// Creates the file an agent's raw output is kept in: new (never an existing file, nor a
/// symbolic link), mode 0600, append-only.
pub(crate) fn open_raw(path: &Path) -> io::Result<File> {
    create_private(path)
}

/// The raw output file being written.
#[derive(Debug)]
pub(super) struct RawOut {
    out: Appender,
    mask: Option<RawMasker>,
    /// What the masker let out, reused from chunk to chunk.
    masked: Vec<u8>,
}

impl RawOut {
    /// Takes `file`, just created at `path`.
    pub(super) fn new(file: File, path: PathBuf, mask: Option<RawMask>) -> RawOut {
        RawOut {
            out: Appender::new(file, path, 0),
            mask: mask.map(|mask| mask.masker()),
            masked: Vec::new(),
        }
    }

    pub(super) fn path(&self) -> &Path {
        self.out.path()
    }

    /// Appends the next bytes of the output (through the masker when there is one). On
    /// failure nothing of them is in the file.
    pub(super) fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        let Some(masker) = &mut self.mask else {
            return self.out.append(bytes);
        };
        self.masked.clear();
        masker.push(bytes, &mut self.masked);
        if self.masked.is_empty() {
            return Ok(());
        }
        self.out.append(&self.masked)
    }

    /// Writes what the masker still holds, once the output has ended.
    pub(super) fn finish(&mut self) -> io::Result<()> {
        if let Some(masker) = &mut self.mask {
            self.masked.clear();
            masker.finish(&mut self.masked);
            if !self.masked.is_empty() {
                self.out.append(&self.masked)?;
            }
        }
        self.out.settle()
    }
}
