//! The two sinks that write a transcript, side by side because each numbers `seq` its own
//! way: [`RecordingSink`] through a [`Recorder`] (which alone allocates `seq` for a run file,
//! and resumes it after a crash), [`JsonlSink`] from 1 on any `Write` (stdout, a buffer),
//! where there is no recorder. No other code in the crate assigns `seq`. The [`EventSink`]
//! trait they implement is here too, beside them.

use std::io::{self, Write};
use std::path::PathBuf;

use crate::model::{EncodeError, ExchangeEvent, encode_fitted};
use crate::normalize::Diagnostic;
use crate::record::{RecordError, Recorder, RecorderOptions};

/// Where a [`Transcriber`](super::Transcriber) delivers what it makes.
pub trait EventSink {
    /// Why the sink failed: its own error, handed back to the caller unchanged.
    type Error;
    /// A transcript event, `seq` 0: the sink numbers it (a recorder, or [`JsonlSink`]).
    fn event(&mut self, event: ExchangeEvent) -> Result<(), Self::Error>;
    /// A problem found in the input.
    fn diagnostic(&mut self, diagnostic: Diagnostic) -> Result<(), Self::Error>;
    /// Hands on whatever the sink buffers: called when the input pauses, so that a live
    /// reader sees each event as soon as its input record is complete. A sink that writes
    /// each event through (a recorder) has nothing to do.
    fn flush(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

impl<S: EventSink + ?Sized> EventSink for &mut S {
    type Error = S::Error;
    fn event(&mut self, event: ExchangeEvent) -> Result<(), Self::Error> {
        (**self).event(event)
    }
    fn diagnostic(&mut self, diagnostic: Diagnostic) -> Result<(), Self::Error> {
        (**self).diagnostic(diagnostic)
    }
    fn flush(&mut self) -> Result<(), Self::Error> {
        (**self).flush()
    }
}

/// Numbers events from 1 and writes them as JSONL: a transcript on any `Write`.
/// Diagnostics are handed to a callback.
pub struct JsonlSink<W: Write, D: FnMut(Diagnostic) -> io::Result<()>> {
    out: W,
    on_diagnostic: D,
    seq: u64,
    line: Vec<u8>,
}

impl<W: Write, D: FnMut(Diagnostic) -> io::Result<()>> JsonlSink<W, D> {
    /// A sink writing to `out`.
    pub fn new(out: W, on_diagnostic: D) -> Self {
        JsonlSink {
            out,
            on_diagnostic,
            seq: 0,
            line: Vec::with_capacity(4096),
        }
    }

    /// How many events were written.
    pub fn written(&self) -> u64 {
        self.seq
    }

    /// The writer, to take what was written so far (a caller that hands the transcript on
    /// in pieces, as the Python binding's incremental normalizer does).
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.out
    }

    /// The writer back.
    pub fn into_inner(self) -> W {
        self.out
    }
}

impl<W: Write, D: FnMut(Diagnostic) -> io::Result<()>> EventSink for JsonlSink<W, D> {
    type Error = io::Error;

    fn event(&mut self, mut event: ExchangeEvent) -> io::Result<()> {
        self.seq += 1;
        event.seq = self.seq;
        self.line.clear();
        // A transcriber fitted the event already (and said so); an event from elsewhere is
        // fitted here rather than written as a line no reader takes.
        let cuts = encode_fitted(&mut event, &mut self.line).map_err(|error: EncodeError| {
            // The mapper only makes events the vocabulary allows; this is a bug in axt.
            io::Error::other(format!("axt made an event it cannot write: {error}"))
        })?;
        crate::record::report_cuts(&event.run_id, self.seq, &cuts);
        self.line.push(b'\n');
        self.out.write_all(&self.line)
    }

    fn diagnostic(&mut self, diagnostic: Diagnostic) -> io::Result<()> {
        (self.on_diagnostic)(diagnostic)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// What a [`RecordingSink`] does when its run already has a file in the directory: the
/// recorder's policy ([`RecorderOptions::if_exists`]), decided under the run's lock;
/// [`IfExists::Refuse`] fails with [`RecordingError::Exists`] naming the file.
pub use crate::record::IfExists;

/// An [`EventSink`] that records: the recorder is
/// created in `dir` when the first event arrives, named after that event's run id (which a
/// transcriber settles only then: it may be the provider's session id). Diagnostics go to
/// a callback.
pub struct RecordingSink<D: FnMut(Diagnostic) -> io::Result<()>> {
    dir: PathBuf,
    options: Option<RecorderOptions>,
    recorder: Option<Recorder>,
    if_exists: IfExists,
    on_diagnostic: D,
}

impl<D: FnMut(Diagnostic) -> io::Result<()>> RecordingSink<D> {
    /// A sink that will record into `dir` with `options`.
    pub fn new(dir: impl Into<PathBuf>, options: RecorderOptions, on_diagnostic: D) -> Self {
        RecordingSink {
            dir: dir.into(),
            options: Some(options),
            recorder: None,
            if_exists: IfExists::Continue,
            on_diagnostic,
        }
    }

    /// What to do when the run's file already exists (default: continue it).
    pub fn if_exists(mut self, policy: IfExists) -> Self {
        self.if_exists = policy;
        self
    }

    /// The recorder, once the first event has created it.
    pub fn recorder(&self) -> Option<&Recorder> {
        self.recorder.as_ref()
    }
}

impl<D: FnMut(Diagnostic) -> io::Result<()>> EventSink for RecordingSink<D> {
    type Error = RecordingError;

    fn event(&mut self, event: ExchangeEvent) -> Result<(), RecordingError> {
        if self.recorder.is_none() {
            // Refusing and replacing are the recorder's, under the run's lock: a file
            // removed here, before the lock, could be a run another process is recording.
            let options = self
                .options
                .take()
                .unwrap_or_default()
                .if_exists(self.if_exists);
            let recorder = match Recorder::create(&self.dir, &event.run_id, options) {
                Ok(recorder) => recorder,
                Err(RecordError::Exists { path }) => {
                    return Err(RecordingError::Exists {
                        path,
                        run_id: event.run_id,
                    });
                }
                Err(error) => return Err(error.into()),
            };
            self.recorder = Some(recorder);
        }
        let recorder = self.recorder.as_ref().expect("created above");
        recorder.record(event).map(drop)?;
        Ok(())
    }

    fn diagnostic(&mut self, diagnostic: Diagnostic) -> Result<(), RecordingError> {
        (self.on_diagnostic)(diagnostic).map_err(RecordingError::Diagnostic)
    }
}

/// Why a [`RecordingSink`] failed.
#[derive(Debug, thiserror::Error)]
pub enum RecordingError {
    /// The recorder failed (or refused the run id).
    #[error(transparent)]
    Record(#[from] RecordError),
    /// The run already has a file and [`IfExists::Refuse`] was asked for; nothing was
    /// written.
    #[error("{}: run {run_id} already exists", path.display())]
    Exists {
        /// The run's file.
        path: PathBuf,
        /// The run.
        run_id: String,
    },
    /// The diagnostic callback failed.
    #[error(transparent)]
    Diagnostic(io::Error),
}

impl From<RecordingError> for io::Error {
    /// An I/O error of the same text; [`RecordingError::Exists`] is of kind
    /// [`io::ErrorKind::AlreadyExists`].
    fn from(error: RecordingError) -> io::Error {
        match error {
            RecordingError::Diagnostic(error) => error,
            RecordingError::Exists { .. } => io::Error::new(io::ErrorKind::AlreadyExists, error),
            RecordingError::Record(error) => io::Error::other(error),
        }
    }
}
