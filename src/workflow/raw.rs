//! An agent's raw output file (`<run-id>.raw` for a capture): the bytes of its stdout,
//! kept beside the transcript so that a diagnostic's line and byte can be looked up, and so
//! that nothing read is lost if normalizing fails.
//!
//! Created new, mode 0600, never through a symbolic link. Appended through the recorder's
//! [`Appender`]: a failed write leaves nothing of the chunk behind, so a later chunk never
//! continues a fragment. A chunk the disk refuses is kept and written first, in order, as
//! soon as the disk takes it again (retried on the next chunk once the backoff has passed,
//! and for up to [`WriteRetry::at_end`] when the output ends); past
//! [`WriteRetry::max_bytes`] kept, new output is given up on and its byte range in the
//! agent's output recorded ([`RawOut::missing`]), never dropped silently. With a mask (the
//! recorder's [`RawMask`]: a [`mask_raw`](crate::record::RecorderOptions::mask_raw) of the
//! caller's, applied a line at a time, or the credential redactor of `redact_credentials`),
//! the output goes through a [`RawMasker`] first: line numbers still match the output's,
//! byte offsets within a masked line do not, and what the masker holds back (a line until
//! its LF, a streamed message until it ends; never more than the transcript's line limit)
//! is lost from the raw file if the process crashes (never from the agent's own output,
//! which the transcript still normalizes).

use std::collections::VecDeque;
use std::fs::File;
use std::io;
use std::ops::Range;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::backlog::{Backoff, WriteRetry, retry_for};
use crate::record::{Appender, RawMask, RawMasker, create_private};

/// Creates the file an agent's raw output is kept in: new (never an existing file, nor a
/// symbolic link), mode 0600, append-only.
pub(crate) fn open_raw(path: &Path) -> io::Result<File> {
    create_private(path)
}

/// The raw output file being written.
#[derive(Debug)]
pub(crate) struct RawOut {
    out: Appender,
    mask: Option<RawMasker>,
    /// What the masker let out, reused from chunk to chunk.
    masked: Vec<u8>,
    retry: WriteRetry,
    /// How many bytes of the agent's output have been taken in.
    taken: u64,
    /// Chunks the disk refused, with the range of the output each stands for.
    waiting: VecDeque<(Vec<u8>, Range<u64>)>,
    waiting_bytes: usize,
    /// Ranges of the output given up on, merged.
    missing: Vec<Range<u64>>,
    backoff: Backoff,
    /// The first and the last failure.
    errors: (Option<io::Error>, Option<io::Error>),
}

impl RawOut {
    /// Takes `file`, just created at `path`.
    pub(crate) fn new(
        file: File,
        path: PathBuf,
        mask: Option<RawMask>,
        retry: WriteRetry,
    ) -> RawOut {
        RawOut {
            out: Appender::new(file, path, 0),
            mask: mask.map(|mask| mask.masker()),
            masked: Vec::new(),
            backoff: Backoff::new(&retry),
            retry,
            taken: 0,
            waiting: VecDeque::new(),
            waiting_bytes: 0,
            missing: Vec::new(),
            errors: (None, None),
        }
    }

    pub(crate) fn path(&self) -> &Path {
        self.out.path()
    }

    /// Takes the next bytes of the output (through the masker when there is one) and
    /// appends them, or keeps them while the disk refuses. Never fails: what cannot be kept
    /// is recorded in [`missing`](RawOut::missing).
    pub(crate) fn write(&mut self, bytes: &[u8]) {
        let from = self.taken;
        self.taken += bytes.len() as u64;
        let Some(masker) = &mut self.mask else {
            return self.append(bytes, from..self.taken);
        };
        let released = masker.released();
        let mut masked = std::mem::take(&mut self.masked);
        masked.clear();
        masker.push(bytes, &mut masked);
        let range = released..masker.released();
        if !masked.is_empty() {
            self.append(&masked, range);
        }
        self.masked = masked;
    }

    /// Writes what the masker still holds (masked), once the output has ended, and
    /// retries what the disk refused for up to [`WriteRetry::at_end`]. Fails when any of
    /// the output is missing from the file, saying which bytes.
    pub(crate) fn finish(&mut self) -> io::Result<()> {
        if let Some(masker) = &mut self.mask {
            let released = masker.released();
            let mut masked = std::mem::take(&mut self.masked);
            masked.clear();
            masker.finish(&mut masked);
            let range = released..masker.released();
            if !masked.is_empty() {
                self.append(&masked, range);
            }
        }
        retry_for(self.retry.at_end, || {
            self.flush();
            (!self.waiting.is_empty()).then(|| self.backoff.next_try())
        });
        while let Some((_, range)) = self.waiting.pop_front() {
            self.give_up(range);
        }
        self.waiting_bytes = 0;
        let settled = self.out.settle();
        if self
            .out
            .file()
            .metadata()
            .is_ok_and(|meta| meta.nlink() == 0)
        {
            // Written into a file whose name (or directory) was removed meanwhile: nobody
            // can open it again. The transcript is written back by its recorder; these
            // bytes cannot be read back from an append-only file, so they are said lost.
            return Err(io::Error::other(format!(
                "the file was removed while the output was written to it (its directory \
                 deleted?): the raw copy of the output ({} bytes) is lost",
                self.taken
            )));
        }
        match self.missing() {
            None => settled,
            Some(missing) => Err(io::Error::other(missing)),
        }
    }

    /// Which bytes of the output are not in the file, in words; `None` when none.
    pub(super) fn missing(&self) -> Option<String> {
        if self.missing.is_empty() {
            return None;
        }
        let total: u64 = self
            .missing
            .iter()
            .map(|range| range.end - range.start)
            .sum();
        let ranges: Vec<String> = self
            .missing
            .iter()
            .map(|range| format!("{}..{}", range.start, range.end))
            .collect();
        let error = self.errors.1.as_ref().or(self.errors.0.as_ref());
        Some(format!(
            "{total} bytes of the agent's output are missing (output bytes {}){}",
            ranges.join(", "),
            error.map_or(String::new(), |error| format!(": {error}"))
        ))
    }

    /// The first failure to write, if any.
    pub(super) fn first_error(&self) -> Option<&io::Error> {
        self.errors.0.as_ref()
    }

    /// Whether bytes are waiting for the disk.
    pub(super) fn is_waiting(&self) -> bool {
        !self.waiting.is_empty()
    }

    /// Appends `bytes` (standing for `range` of the output) behind whatever waits.
    fn append(&mut self, bytes: &[u8], range: Range<u64>) {
        if !self.waiting.is_empty() && self.backoff.due() {
            self.flush();
        }
        if self.waiting.is_empty() {
            match self.out.append(bytes) {
                Ok(()) => return,
                Err(error) => self.failed(error),
            }
        }
        if self.waiting_bytes + bytes.len() > self.retry.max_bytes {
            return self.give_up(range);
        }
        self.waiting_bytes += bytes.len();
        self.waiting.push_back((bytes.to_vec(), range));
    }

    /// Writes what waits, in order, until the disk refuses again.
    pub(super) fn flush(&mut self) {
        while let Some((bytes, range)) = self.waiting.pop_front() {
            if let Err(error) = self.out.append(&bytes) {
                self.failed(error);
                self.waiting.push_front((bytes, range));
                return;
            }
            self.waiting_bytes -= bytes.len();
            self.backoff.succeeded();
        }
    }

    fn failed(&mut self, error: io::Error) {
        if self.errors.0.is_none() {
            self.errors.0 = Some(error);
        } else {
            self.errors.1 = Some(error);
        }
        self.backoff.failed();
    }

    fn give_up(&mut self, range: Range<u64>) {
        match self.missing.last_mut() {
            Some(last) if last.end == range.start => last.end = range.end,
            _ => self.missing.push(range),
        }
    }
}
