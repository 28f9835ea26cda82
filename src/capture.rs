//! Live capture: an agent's output recorded as a canonical transcript while the agent runs.
//!
//! This is the executor's seam. A [`Capture`] ties a [`Transcriber`] (provider bytes in,
//! events out, incrementally) to a [`Recorder`] (the run file and its live fan-out) for one
//! run of an agent process whose stdout the executor reads:
//!
//! ```text
//! child stdout -> Capture::feed -> <run-id>.raw.jsonl          (the bytes, first)
//!                               -> Transcriber -> Recorder -> <run-id>.jsonl, subscribers
//! ```
//!
//! * [`Capture::new`] creates `<dir>/<run-id>.jsonl` and `<dir>/<run-id>.raw.jsonl` (both
//!   0600; the run id is the caller's or a fresh UUID v4, known before the agent starts).
//!   Subscribe now ([`Capture::subscribe`]) to see every event of the run.
//! * [`Capture::start`] (or the first feed) records `run.started`, `step.started` and, when
//!   the caller supplies them, a `message.user` with the resolved prompt and then the system
//!   prompt (flagged `system_prompt: true`) as `text` blocks of fidelity `router` (the
//!   executor supplied them, not the agent).
//! * [`Capture::feed`] (or [`Capture::run`] over any [`Read`]) appends the bytes to the raw
//!   file *before* normalizing them, so a crash of axt never loses output it had read, and
//!   records every event those bytes complete: a subscriber sees a message, tool call or
//!   tool result as soon as the agent has written its last byte.
//! * [`Capture::finish`] ends the run with how the process ended ([`ProcessEnd`]): a clean
//!   exit leaves the transcript exactly what `axt normalize` makes of the same bytes (same
//!   run id), apart from timestamps and the prompt; anything else (an exit code, a signal,
//!   an agent killed because it kept running after closing its stdout) makes the run failed
//!   with the reason in `run.completed` (`payload.error`, and `payload.result.process`).
//!
//! The capture does not run processes: the caller (an executor, or `axt exec`) spawns,
//! waits and kills. An async caller reads its stream and hands each chunk to
//! [`Capture::feed`], which does only file appends and in-memory work.
//!
//! # Cost
//!
//! Measured on a 2-CPU VM (release build): `axt exec -p claude -- cat` of a 100 MB Claude
//! stream takes 0.57-0.61 s against 0.54-0.61 s for `axt normalize --out` of the same file,
//! while also writing the 100 MB raw copy; peak memory 12.5 MB. From the agent's write of a
//! record's last byte to a subscriber holding its event (pipe, reader thread, normalize,
//! append, fan-out), over 2,000 single-record messages: median 8-27 µs, p99 28-58 µs.
//!
//! Whatever ends the run, the transcript stays valid: every line is whole (the recorder's
//! guarantee), and `run.completed` is written unless the process running the capture itself
//! dies, in which case a reader sees a run without its terminal event, and the raw file
//! still has every byte read.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use crate::model::{Block, ContentBlock, ExchangeEvent, Fidelity, Timestamp};
use crate::normalize::{Diagnostic, Options, Provider, RunMeta};
use crate::record::{RecordError, Recorder, RecorderOptions, Subscription};
use crate::transcribe::{Clock, EventOptions, EventSink, Transcriber, new_run_id};

// How the agent's process ended is the executor's to say; it is found here, at its seam
// (the type itself is part of the run's metadata, so it is defined with it).
pub use crate::normalize::ProcessEnd;

/// What a diagnostic callback receives: a problem found in the agent's output.
pub type OnDiagnostic = Box<dyn FnMut(&Diagnostic) + Send>;

/// How a [`Capture`] records.
pub struct CaptureOptions {
    /// The run id (default: a fresh UUID v4). It names the files.
    pub run_id: Option<String>,
    /// The resolved prompt the agent was given, recorded as `message.user`.
    pub prompt: Option<String>,
    /// The composed system prompt, recorded after the prompt in the same `message.user`.
    pub system_prompt: Option<String>,
    /// How the transcript is written (durability, subscriber buffers, masking).
    pub recorder: RecorderOptions,
    /// The largest output record accepted, in bytes; longer ones are skipped and reported.
    pub max_record_bytes: usize,
    /// Whether to keep the raw output in `<run-id>.raw.jsonl` (default: yes).
    pub keep_raw: bool,
    /// The timestamp source; `Timestamp::now` by default.
    pub clock: Clock,
    /// Called with every problem found in the output (default: none).
    pub on_diagnostic: Option<OnDiagnostic>,
}

impl Default for CaptureOptions {
    fn default() -> Self {
        CaptureOptions {
            run_id: None,
            prompt: None,
            system_prompt: None,
            recorder: RecorderOptions::default(),
            max_record_bytes: Options::default().max_record_bytes,
            keep_raw: true,
            clock: Box::new(Timestamp::now),
            on_diagnostic: None,
        }
    }
}

impl std::fmt::Debug for CaptureOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CaptureOptions")
            .field("run_id", &self.run_id)
            .field("recorder", &self.recorder)
            .field("max_record_bytes", &self.max_record_bytes)
            .field("keep_raw", &self.keep_raw)
            .finish_non_exhaustive()
    }
}

/// Why capturing failed.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    /// The transcript could not be written.
    #[error(transparent)]
    Record(#[from] RecordError),
    /// The raw output file could not be created or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
    /// Reading the agent's output failed.
    #[error("reading the agent's output: {0}")]
    Read(io::Error),
    /// The run already has a transcript: a capture records a run from its start.
    #[error("{}: the run is already recorded", path.display())]
    Exists {
        /// The existing transcript.
        path: PathBuf,
    },
}

/// One agent run being recorded live. See the [module documentation](self).
pub struct Capture {
    transcriber: Transcriber,
    sink: Sink,
    raw: Option<(File, PathBuf)>,
    /// The prompt blocks, until the opening events are recorded.
    opening: Option<Vec<ContentBlock>>,
}

/// The capture's [`EventSink`]: the recorder, and the caller's diagnostic callback.
struct Sink {
    recorder: Recorder,
    on_diagnostic: Option<OnDiagnostic>,
}

impl EventSink for Sink {
    type Error = RecordError;

    fn event(&mut self, event: ExchangeEvent) -> Result<(), RecordError> {
        self.recorder.record(event).map(drop)
    }

    fn diagnostic(&mut self, diagnostic: Diagnostic) -> Result<(), RecordError> {
        if let Some(callback) = &mut self.on_diagnostic {
            callback(&diagnostic);
        }
        Ok(())
    }
}

impl Capture {
    /// Starts recording a run of `provider` in `dir` (created, mode 0700, when missing):
    /// creates the transcript and the raw output file; nothing is recorded yet, so that
    /// subscribers can see the opening events. Fails with [`CaptureError::Exists`] when the run already has a transcript.
    pub fn new(
        provider: Provider,
        dir: impl AsRef<Path>,
        options: CaptureOptions,
    ) -> Result<Capture, CaptureError> {
        let dir = dir.as_ref();
        let run_id = options.run_id.unwrap_or_else(new_run_id);
        // The recorder checks that the run id is a safe file name before anything is named
        // after it.
        let recorder = Recorder::create(dir, &run_id, options.recorder)?;
        if recorder.last_seq() > 0 {
            return Err(CaptureError::Exists {
                path: recorder.path().to_owned(),
            });
        }
        let raw = if options.keep_raw {
            let path = dir.join(format!("{run_id}.raw.jsonl"));
            let file = open_raw(&path).map_err(|source| CaptureError::Io {
                path: path.clone(),
                source,
            })?;
            Some((file, path))
        } else {
            None
        };
        let normalize = Options {
            max_record_bytes: options.max_record_bytes,
        };
        let events = EventOptions {
            run_id: Some(run_id),
            clock: options.clock,
        };
        let prompt = options.prompt.map(Block::text);
        let system = options.system_prompt.map(Block::system_prompt);
        let user: Vec<ContentBlock> = [prompt, system]
            .into_iter()
            .flatten()
            .filter(|block| !matches!(block, Block::Text { text, .. } if text.is_empty()))
            .map(|block| ContentBlock::new(Fidelity::Router, block))
            .collect();
        Ok(Capture {
            transcriber: Transcriber::new(provider, normalize, events),
            sink: Sink {
                recorder,
                on_diagnostic: options.on_diagnostic,
            },
            raw,
            opening: Some(user),
        })
    }

    /// Records the run's opening events: `run.started`, `step.started` and the prompt's
    /// `message.user`. The first [`feed`](Capture::feed) or [`finish`](Capture::finish) does
    /// it when the caller has not; later calls do nothing.
    pub fn start(&mut self) -> Result<(), CaptureError> {
        let Some(user) = self.opening.take() else {
            return Ok(());
        };
        self.transcriber
            .start(user, &mut self.sink)
            .map_err(CaptureError::Record)
    }

    /// The run id, which names `<run-id>.jsonl` and `<run-id>.raw.jsonl`.
    pub fn run_id(&self) -> &str {
        self.sink.recorder.run_id()
    }

    /// The transcript file.
    pub fn path(&self) -> &Path {
        self.sink.recorder.path()
    }

    /// The raw output file, when it is kept.
    pub fn raw_path(&self) -> Option<&Path> {
        self.raw.as_ref().map(|(_, path)| path.as_path())
    }

    /// The recorder, for its statistics or more subscriptions.
    pub fn recorder(&self) -> &Recorder {
        &self.sink.recorder
    }

    /// A live view of the events recorded from now on: subscribe before
    /// [`start`](Capture::start) to see the whole run. See the recorder's
    /// [fan-out](crate::record#live-fan-out) for buffering and drops.
    pub fn subscribe(&self) -> Subscription {
        self.sink.recorder.subscribe()
    }

    /// The run's metadata as the output has told it so far.
    pub fn meta(&self) -> &RunMeta {
        self.transcriber.meta()
    }

    /// Feeds the next bytes of the agent's stdout, split anywhere: they go to the raw file,
    /// then every event they complete is recorded before this returns.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), CaptureError> {
        self.start()?;
        if let Some((file, path)) = &mut self.raw {
            file.write_all(bytes).map_err(|source| CaptureError::Io {
                path: path.clone(),
                source,
            })?;
        }
        self.transcriber
            .push(bytes, &mut self.sink)
            .map_err(CaptureError::Record)
    }

    /// Feeds everything `reader` yields until its end (the agent closed its stdout).
    pub fn run(&mut self, reader: impl Read) -> Result<(), CaptureError> {
        read_chunks(reader, |chunk| self.feed(chunk), CaptureError::Read)
    }

    /// Ends the run: the output ended, and the agent's process ended as `end`. Records the
    /// closing events (`step.completed`, `run.completed` with the run metadata and, unless
    /// the process exited cleanly, the reason it failed), closes the transcript (ending
    /// every subscription) and returns the final metadata.
    pub fn finish(mut self, end: ProcessEnd) -> Result<RunMeta, CaptureError> {
        self.start()?;
        let meta = self
            .transcriber
            .finish_process(end, &mut self.sink)
            .map_err(CaptureError::Record)?;
        self.sink.recorder.close()?;
        Ok(meta)
    }
}

/// Creates the file an agent's raw output is kept in: new (never an existing file), mode
/// 0600, append-only.
pub(crate) fn open_raw(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .append(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
}

/// Hands `feed` every chunk `reader` yields until its end; a read error becomes `failed`.
pub(crate) fn read_chunks<E>(
    mut reader: impl Read,
    mut feed: impl FnMut(&[u8]) -> Result<(), E>,
    failed: impl Fn(io::Error) -> E,
) -> Result<(), E> {
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let read = match reader.read(&mut buffer) {
            Ok(0) => return Ok(()),
            Ok(read) => read,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(failed(error)),
        };
        feed(&buffer[..read])?;
    }
}

impl ProcessEnd {
    /// How a process ended, from its wait status. Here, at the executor's seam, because
    /// reading a wait status is the executor's business; the normalizer only records the
    /// result.
    pub fn from_status(status: std::process::ExitStatus) -> Self {
        let signal = std::os::unix::process::ExitStatusExt::signal(&status);
        ProcessEnd {
            exit_code: status.code(),
            signal,
            note: None,
        }
    }
}

impl std::fmt::Debug for Capture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Capture")
            .field("run_id", &self.run_id())
            .field("path", &self.path())
            .field("raw_path", &self.raw_path())
            .finish_non_exhaustive()
    }
}
