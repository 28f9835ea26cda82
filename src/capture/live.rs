//! The `live` room: an agent's output recorded as a canonical transcript while the agent runs.
//!
//! A [`Capture`] records one run of an agent process whose stdout the caller reads, as a run
//! of its own: a [`Run`] of kind `agent` with one [`AgentStep`] at path `agent` (the
//! [`workflow`](crate::workflow) seam's scopes; an executor recording a whole workflow uses
//! those directly, with the agent as one of its steps). `axt exec` stands on it:
//!
//! ```text
//! child stdout -> Capture::feed -> <run-id>.raw.jsonl          (the bytes, first)
//!                               -> Transcriber -> Recorder -> <run-id>.jsonl, subscribers
//! ```
//!
//! * [`Capture::new`] creates `<dir>/<run-id>.jsonl` and `<dir>/<run-id>.raw.jsonl` (both
//!   0600, new, never through a symbolic link; the run id is the caller's or a fresh UUID
//!   v4, known before the agent starts). When the recorder masks
//!   ([`RecorderOptions::redact_credentials`], or a [`mask`](RecorderOptions::mask) with its
//!   [`mask_raw`](RecorderOptions::mask_raw)), the raw file holds the output masked line by
//!   line, not the bytes as read.
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
//!   run id), apart from timestamps, the prompt, and the `duration_ms` the scopes measure
//!   on the step's and the run's completion; anything else (an exit code, a signal,
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
//! guarantee), and `run.completed` is written, by [`Capture::finish`] or, failed, when the
//! capture is dropped unfinished, unless the process running the capture itself dies, in
//! which case a reader sees a run without its terminal event, and the raw file still has
//! every byte read.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::model::{Provider, RunMeta, StepKind, Timestamp};
use crate::normalize::Options;
use crate::record::{RecordError, Recorder, RecorderOptions, RunRecorder, Subscription};
use crate::transcribe::{AGENT_PATH, Clock, new_run_id};
use crate::workflow::{AgentOptions, AgentStep, RouterTools, Run, RunError, open_raw, read_chunks};

// How the agent's process ended is the executor's to say; it is found here, at its seam
// (the type itself is part of the run's metadata, so it is defined with it).
pub use crate::model::ProcessEnd;
pub use crate::workflow::OnDiagnostic;

/// How a [`Capture`] records.
pub struct CaptureOptions {
    /// The run id (default: a fresh UUID v4). It names the files.
    pub run_id: Option<String>,
    /// The resolved prompt the agent was given, recorded as `message.user`.
    pub prompt: Option<String>,
    /// The composed system prompt, recorded in the same `message.user`, flagged
    /// `system_prompt: true`.
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
        source: std::io::Error,
    },
    /// Reading the agent's output failed.
    #[error("reading the agent's output: {0}")]
    Read(std::io::Error),
    /// The run already has a transcript: a capture records a run from its start.
    #[error("{}: the run is already recorded", path.display())]
    Exists {
        /// The existing transcript.
        path: PathBuf,
    },
    /// The run or its agent step had already ended.
    #[error(transparent)]
    Ended(RunError),
}

impl From<RunError> for CaptureError {
    fn from(error: RunError) -> Self {
        match error {
            RunError::Record(error) => CaptureError::Record(error),
            RunError::Raw { path, source } => CaptureError::Io { path, source },
            RunError::Read(error) => CaptureError::Read(error),
            other => CaptureError::Ended(other),
        }
    }
}

/// One agent run being recorded live. See the [module documentation](super).
pub struct Capture {
    provider: Provider,
    recorder: Arc<Recorder>,
    raw_path: Option<PathBuf>,
    /// The agent step's options, until the opening events are recorded.
    pending: Option<AgentOptions>,
    live: Option<Live>,
}

/// The run and its one agent step.
struct Live {
    agent: AgentStep,
    run: Run,
}

impl Capture {
    /// Starts recording a run of `provider` in `dir` (created, mode 0700, when missing):
    /// creates the transcript and the raw output file; nothing is recorded yet, so that
    /// subscribers can see the opening events. Fails with [`CaptureError::Exists`] when the
    /// run already has a transcript.
    pub fn new(
        provider: Provider,
        dir: impl AsRef<Path>,
        options: CaptureOptions,
    ) -> Result<Capture, CaptureError> {
        let dir = dir.as_ref();
        let run_id = options.run_id.unwrap_or_else(new_run_id);
        if options.keep_raw {
            // Before any file is made: a raw copy that would leak what the transcript masks
            // is refused (see `RecorderOptions::mask_raw`).
            options.recorder.line_mask(&run_id)?;
        }
        // The recorder checks that the run id is a safe file name before anything is named
        // after it.
        let recorder = Recorder::create(dir, &run_id, options.recorder)?;
        if recorder.last_seq() > 0 {
            return Err(CaptureError::Exists {
                path: recorder.path().to_owned(),
            });
        }
        let mut agent = AgentOptions::new()
            // No router: the agent runs its own tools, and its calls are recorded live.
            .router_tools(RouterTools::None)
            .max_record_bytes(options.max_record_bytes)
            .clock(options.clock);
        agent.meta_in_step = false;
        if let Some(prompt) = options.prompt {
            agent = agent.prompt(prompt);
        }
        if let Some(system_prompt) = options.system_prompt {
            agent = agent.system_prompt(system_prompt);
        }
        if let Some(callback) = options.on_diagnostic {
            agent = agent.on_diagnostic(callback);
        }
        let mut raw_path = None;
        if options.keep_raw {
            let path = dir.join(format!("{run_id}.raw.jsonl"));
            let file = open_raw(&path).map_err(|source| CaptureError::Io {
                path: path.clone(),
                source,
            })?;
            raw_path = Some(path.clone());
            agent = agent.raw_opened(file, path);
        }
        Ok(Capture {
            provider,
            recorder: Arc::new(recorder),
            raw_path,
            pending: Some(agent),
            live: None,
        })
    }

    /// Records the run's opening events: `run.started`, `step.started` and the prompt's
    /// `message.user`. The first [`feed`](Capture::feed) or [`finish`](Capture::finish) does
    /// it when the caller has not; later calls do nothing.
    pub fn start(&mut self) -> Result<(), CaptureError> {
        let Some(options) = self.pending.take() else {
            return Ok(());
        };
        let recorder: Arc<dyn RunRecorder> = self.recorder.clone();
        let run = Run::start_shared(recorder, self.provider.as_str(), StepKind::Agent)?;
        let agent = run
            .step(AGENT_PATH, StepKind::Agent)?
            .agent(self.provider, options)?;
        self.live = Some(Live { agent, run });
        Ok(())
    }

    /// The run id, which names `<run-id>.jsonl` and `<run-id>.raw.jsonl`.
    pub fn run_id(&self) -> &str {
        self.recorder.run_id()
    }

    /// The transcript file.
    pub fn path(&self) -> &Path {
        self.recorder.path()
    }

    /// The raw output file, when it is kept.
    pub fn raw_path(&self) -> Option<&Path> {
        self.raw_path.as_deref()
    }

    /// The recorder, for its statistics or more subscriptions.
    pub fn recorder(&self) -> &Recorder {
        &self.recorder
    }

    /// A live view of the events recorded from now on: subscribe before
    /// [`start`](Capture::start) to see the whole run. See the recorder's
    /// [fan-out](crate::record#live-fan-out) for buffering and drops.
    pub fn subscribe(&self) -> Subscription {
        self.recorder.subscribe()
    }

    /// The run's metadata as the output has told it so far.
    pub fn meta(&self) -> RunMeta {
        match &self.live {
            Some(live) => live.agent.meta(),
            None => RunMeta::new(self.provider),
        }
    }

    /// Feeds the next bytes of the agent's stdout, split anywhere: they go to the raw file,
    /// then every event they complete is recorded before this returns.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), CaptureError> {
        self.start()?;
        let live = self.live.as_ref().expect("started");
        Ok(live.agent.feed(bytes)?)
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
        let Live { agent, run } = self.live.take().expect("started");
        let ended = agent.finish_run(end)?;
        run.end(ended.error, ended.result)?;
        Ok(ended.meta)
    }
}

impl Drop for Capture {
    /// A capture dropped unfinished ends its run as failed: what the output held is
    /// recorded, and `run.completed` carries the metadata so far and the reason.
    fn drop(&mut self) {
        let Some(Live { agent, run }) = self.live.take() else {
            return;
        };
        let note = if std::thread::panicking() {
            "the capture was unwound by a panic before the agent's output ended"
        } else {
            "the capture was dropped before the agent's output ended"
        };
        let end = ProcessEnd {
            note: Some(note.to_owned()),
            ..ProcessEnd::default()
        };
        let ended = agent
            .finish_run(end)
            .map_err(CaptureError::from)
            .and_then(|ended| Ok(run.end(ended.error, ended.result)?));
        if let Err(error) = ended {
            tracing::warn!(run_id = self.recorder.run_id(), %error, "ending a dropped capture failed");
        }
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
