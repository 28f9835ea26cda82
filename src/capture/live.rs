//! The `live` room: an agent's output recorded as a canonical transcript while the agent runs.
//!
//! A [`Capture`] records one run of an agent process whose stdout the caller reads, as a run
//! of its own: a [`Run`] of kind `agent` with one [`AgentStep`] at path `agent` (the
//! [`workflow`](crate::workflow) seam's scopes; an executor recording a whole workflow uses
//! those directly, with the agent as one of its steps). `axt exec` stands on it:
//!
//! ```text
//! child stdout -> Capture::feed -> <run-id>.raw          (the bytes, first)
//!                               -> Transcriber -> Recorder -> <run-id>.jsonl, subscribers
//! ```
//!
//! * [`Capture::new`] creates `<dir>/<run-id>.jsonl` and `<dir>/<run-id>.raw` (both
//!   0600, new, never through a symbolic link; the run id is the caller's or a fresh UUID
//!   v4, known before the agent starts). When the recorder masks
//!   ([`RecorderOptions::redact_credentials`], or a [`mask`](RecorderOptions::mask) with its
//!   [`mask_raw`](RecorderOptions::mask_raw)), the raw file holds the output masked
//!   ([`RawMask`](crate::record::RawMask)), not the bytes as read.
//!   Subscribe now ([`Capture::subscribe`]) to see every event of the run.
//!   [`Capture::detect`] is the same for an output whose provider its first records tell
//!   (`axt exec --provider auto`): nothing is recorded until they do, and an output that is
//!   no provider's is kept in the raw file, its run recorded as failed.
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
//! A disk that refuses writes (full, an I/O error) delays the transcript and the raw copy
//! rather than end them: what waits is kept and written as soon as the disk has room (see
//! [when the disk refuses a write](crate::workflow#when-the-disk-refuses-a-write)), and
//! what is never written is said exactly ([`CaptureError::Lost`]). No method panics,
//! whatever an I/O error left the capture in.
//!
//! Whatever ends the run, the transcript stays valid: every line is whole (the recorder's
//! guarantee), and `run.completed` is written, by [`Capture::finish`] or, failed, when the
//! capture is dropped unfinished, unless the process running the capture itself dies, in
//! which case a reader sees a run without its terminal event, and the raw file still has
//! every byte read.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::model::files::raw_name;
use crate::model::{EventType, Provider, RunMeta, StepKind, Timestamp};
use crate::normalize::{Detection, Options, detect_head};
use crate::record::{RecordError, Recorder, RecorderOptions, RunRecorder, Subscription};
use crate::transcribe::{AGENT_PATH, Clock, new_run_id};
use crate::workflow::{
    AgentOptions, AgentStep, RawOut, RouterTools, Run, RunError, WriteReport, WriteRetry, open_raw,
    read_chunks, user,
};

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
    /// Whether to keep the raw output in `<run-id>.raw` (default: yes).
    pub keep_raw: bool,
    /// The timestamp source; `Timestamp::now` by default.
    pub clock: Clock,
    /// Called with every problem found in the output (default: none).
    pub on_diagnostic: Option<OnDiagnostic>,
    /// How writes the disk refuses are retried, in the transcript and the raw file.
    pub write_retry: WriteRetry,
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
            write_retry: WriteRetry::default(),
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
    /// The run ended, but part of it could not be written even after retrying: events
    /// ([`RunError::Unwritten`]) or bytes of the raw output ([`RunError::Raw`]).
    #[error("{0}")]
    Lost(String),
    /// A capture that was to detect its provider ([`Capture::detect`]) found none in the
    /// output: the run is recorded as failed, the output kept in the raw file only.
    #[error(
        "cannot detect the provider of the agent's output ({0}); the run is recorded as \
         failed (pass --provider to name it)"
    )]
    Unrecognized(String),
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
    /// `None` while the output has not said whose it is ([`Capture::detect`]).
    provider: Option<Provider>,
    max_record_bytes: usize,
    recorder: Arc<Recorder>,
    raw_path: Option<PathBuf>,
    write_retry: WriteRetry,
    state: State,
}

/// The run and its one agent step.
struct Live {
    agent: AgentStep,
    run: Run,
}

/// Where the capture is. Every method is defined in every state: an I/O error can leave
/// the capture anywhere, and no call after it may panic.
enum State {
    /// Nothing recorded yet: the agent step's options.
    Pending(Box<AgentOptions>),
    /// The provider is to be detected: the output read so far, until its first records
    /// say whose it is (nothing is recorded before, not even the raw copy).
    Detecting {
        options: Box<AgentOptions>,
        head: Vec<u8>,
    },
    /// The output is no provider's: it goes to the raw file only, and the run is
    /// recorded as failed when it ends.
    Unrecognized {
        options: Box<AgentOptions>,
        raw: Option<Box<RawOut>>,
        reason: String,
    },
    /// The run and its one agent step.
    Live(Box<Live>),
    /// Starting the run failed (the error was returned then), or it ended.
    Over,
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
        Capture::create(Some(provider), dir.as_ref(), options)
    }

    /// As [`new`](Capture::new), for an output whose provider is detected from its first
    /// records, as `axt normalize --provider auto` does. Nothing is recorded until it is
    /// known (the output read meanwhile, at most the record size limit plus 1 MiB, is
    /// kept in memory). An output that is no provider's is kept in the raw file, and the
    /// run recorded as failed, saying so; [`finish`](Capture::finish) then returns
    /// [`CaptureError::Unrecognized`].
    pub fn detect(dir: impl AsRef<Path>, options: CaptureOptions) -> Result<Capture, CaptureError> {
        Capture::create(None, dir.as_ref(), options)
    }

    fn create(
        provider: Option<Provider>,
        dir: &Path,
        options: CaptureOptions,
    ) -> Result<Capture, CaptureError> {
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
            let path = dir.join(raw_name(&run_id));
            let file = open_raw(&path).map_err(|source| CaptureError::Io {
                path: path.clone(),
                source,
            })?;
            raw_path = Some(path.clone());
            agent = agent.raw_opened(file, path);
        }
        let agent = Box::new(agent.write_retry(options.write_retry.clone()));
        let state = match provider {
            Some(_) => State::Pending(agent),
            None => State::Detecting {
                options: agent,
                head: Vec::new(),
            },
        };
        Ok(Capture {
            provider,
            max_record_bytes: options.max_record_bytes,
            recorder: Arc::new(recorder),
            raw_path,
            write_retry: options.write_retry,
            state,
        })
    }

    /// Records the run's opening events: `run.started`, `step.started` and the prompt's
    /// `message.user`. The first [`feed`](Capture::feed) or [`finish`](Capture::finish) does
    /// it when the caller has not; later calls do nothing.
    ///
    /// A disk that refuses the writes is no error here: the events wait and are written
    /// as soon as it takes them ([`write_report`](Capture::write_report)). When starting
    /// fails all the same (the run was recorded by another process, the recorder is
    /// closed), the error is returned once and the capture records nothing more: later
    /// calls fail with [`RunError::RunEnded`].
    ///
    /// A capture detecting its provider records nothing before the provider is known.
    pub fn start(&mut self) -> Result<(), CaptureError> {
        let Some(provider) = self.provider else {
            return Ok(());
        };
        let options = match std::mem::replace(&mut self.state, State::Over) {
            State::Pending(options) => *options,
            other => {
                self.state = other;
                return Ok(());
            }
        };
        let recorder: Arc<dyn RunRecorder> = self.recorder.clone();
        let run = Run::start_shared(recorder, provider.as_str(), StepKind::Agent)?;
        run.set_write_retry(self.write_retry.clone());
        let agent = run
            .step(AGENT_PATH, StepKind::Agent)?
            .agent(provider, options)?;
        self.state = State::Live(Box::new(Live { agent, run }));
        Ok(())
    }

    /// The live agent step, or why there is none.
    fn live(&self) -> Result<&AgentStep, CaptureError> {
        match &self.state {
            State::Live(live) => Ok(&live.agent),
            _ => Err(self.ended()),
        }
    }

    /// The provider: the one given, or the one detected so far.
    pub fn provider(&self) -> Option<Provider> {
        self.provider
    }

    /// Asks the output read so far whose it is (`at_end`: the output has ended): starts
    /// the run once it is known, keeps the output in the raw file only once it is clear
    /// that it is no provider's.
    fn detect_now(&mut self, at_end: bool) -> Result<(), CaptureError> {
        let State::Detecting { head, .. } = &self.state else {
            return Ok(());
        };
        let reason = match detect_head(head, at_end, self.max_record_bytes) {
            Detection::NeedMore => return Ok(()),
            Detection::Found(provider) => {
                let State::Detecting { options, head } =
                    std::mem::replace(&mut self.state, State::Pending(Box::default()))
                else {
                    return Ok(());
                };
                self.provider = Some(provider);
                self.state = State::Pending(options);
                self.start()?;
                return Ok(self.live()?.feed(&head)?);
            }
            Detection::Empty => "the agent wrote nothing".to_owned(),
            Detection::RecordTooLong => {
                "its first record is longer than the record size limit".to_owned()
            }
            Detection::Undetected(why) => why.to_owned(),
        };
        let State::Detecting { mut options, head } =
            std::mem::replace(&mut self.state, State::Over)
        else {
            return Ok(());
        };
        let mask = self.recorder.raw_mask()?;
        let mut raw = options
            .take_raw_opened()
            .map(|(file, path)| Box::new(RawOut::new(file, path, mask, options.raw_retry())));
        if let Some(raw) = &mut raw {
            raw.write(&head);
        }
        self.state = State::Unrecognized {
            options,
            raw,
            reason,
        };
        Ok(())
    }

    /// Records the run of an output that was no provider's: its prompt, and its failure,
    /// saying why and where the output is. Returns the error [`finish`](Capture::finish)
    /// reports.
    fn end_unrecognized(
        &mut self,
        options: &AgentOptions,
        raw: Option<Box<RawOut>>,
        reason: &str,
        end: &ProcessEnd,
    ) -> CaptureError {
        let mut lost = Vec::new();
        let kept = match raw {
            Some(mut raw) => {
                if let Err(error) = raw.finish() {
                    lost.push(format!("{}: {error}", raw.path().display()));
                }
                format!("; the output is kept in {}", raw.path().display())
            }
            None => String::new(),
        };
        let error = format!(
            "axt could not tell which agent wrote the output ({reason}){kept}{}",
            end.failure()
                .map_or(String::new(), |failure| format!("; {failure}"))
        );
        let recorder: Arc<dyn RunRecorder> = self.recorder.clone();
        let recorded = Run::start_shared(recorder, "unknown", StepKind::Agent).and_then(|run| {
            run.set_write_retry(self.write_retry.clone());
            let step = run.step(AGENT_PATH, StepKind::Agent)?;
            let blocks = options.opening_blocks();
            if !blocks.is_empty() {
                step.message(EventType::MessageUser, user(blocks))?;
            }
            step.fail(&error)?;
            let mut result = serde_json::json!({ "status": "failed", "unrecognized": reason });
            if end.failure().is_some() {
                result["process"] = serde_json::to_value(end).unwrap_or_default();
            }
            run.end(Some(error.clone()), result)
        });
        if let Err(failure) = recorded {
            lost.push(failure.to_string());
        }
        if lost.is_empty() {
            CaptureError::Unrecognized(reason.to_owned())
        } else {
            CaptureError::Lost(format!(
                "{}; {}",
                CaptureError::Unrecognized(reason.to_owned()),
                lost.join("; ")
            ))
        }
    }

    fn ended(&self) -> CaptureError {
        CaptureError::Ended(RunError::RunEnded {
            run_id: self.run_id().to_owned(),
        })
    }

    /// The run id, which names `<run-id>.jsonl` and `<run-id>.raw`.
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
        match &self.state {
            State::Live(live) => live.agent.meta(),
            _ => RunMeta::new(self.provider.unwrap_or(Provider::Claude)),
        }
    }

    /// What the transcript's writes met so far: events waiting for the disk, written
    /// late, lost.
    pub fn write_report(&self) -> WriteReport {
        match &self.state {
            State::Live(live) => live.run.write_report(),
            _ => WriteReport::default(),
        }
    }

    /// The first error writing the raw output file and whether bytes still wait for the
    /// disk; `None` while every byte went in at once.
    pub fn raw_error(&self) -> Option<(String, bool)> {
        match &self.state {
            State::Live(live) => live.agent.raw_error(),
            _ => None,
        }
    }

    /// Writes what waits for the disk (events, raw bytes) if its retry is due: a caller's
    /// tick while the agent is quiet (feeding retries too).
    pub fn retry_writes(&self) {
        if let State::Live(live) = &self.state {
            live.agent.retry_writes();
        }
    }

    /// Keeps `raw` as passthrough of `kind` in the run's metadata, at the output's `line`
    /// ([`AgentStep::keep`]): what the caller knows of the run that is no record of the
    /// output. Nothing is kept before the run has started (a capture still detecting its
    /// provider): call it after the first [`feed`](Capture::feed) or [`start`](Capture::start).
    pub fn keep(&self, line: u64, kind: &str, raw: serde_json::Value) -> bool {
        match &self.state {
            State::Live(live) => {
                live.agent.keep(line, kind, raw);
                true
            }
            _ => false,
        }
    }

    /// Feeds the next bytes of the agent's stdout, split anywhere: they go to the raw file,
    /// then every event they complete is recorded before this returns.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), CaptureError> {
        match &mut self.state {
            State::Detecting { head, .. } => {
                head.extend_from_slice(bytes);
                return self.detect_now(false);
            }
            State::Unrecognized { raw, .. } => {
                if let Some(raw) = raw {
                    raw.write(bytes);
                }
                return Ok(());
            }
            _ => {}
        }
        self.start()?;
        Ok(self.live()?.feed(bytes)?)
    }

    /// Feeds everything `reader` yields until its end (the agent closed its stdout).
    pub fn run(&mut self, reader: impl Read) -> Result<(), CaptureError> {
        read_chunks(reader, |chunk| self.feed(chunk), CaptureError::Read)
    }

    /// Ends the run: the output ended, and the agent's process ended as `end`. Records the
    /// closing events (`step.completed`, `run.completed` with the run metadata and, unless
    /// the process exited cleanly, the reason it failed), closes the transcript (ending
    /// every subscription) and returns the final metadata.
    ///
    /// What the disk refused is retried for up to [`WriteRetry::at_end`]; what it still
    /// refuses then is lost, and this returns [`CaptureError::Lost`] saying exactly what
    /// (the events by type, the raw output's byte ranges), after ending the run.
    pub fn finish(mut self, end: ProcessEnd) -> Result<RunMeta, CaptureError> {
        self.detect_now(true)?;
        if matches!(self.state, State::Unrecognized { .. }) {
            let State::Unrecognized {
                options,
                raw,
                reason,
            } = std::mem::replace(&mut self.state, State::Over)
            else {
                return Err(self.ended());
            };
            return Err(self.end_unrecognized(&options, raw, &reason, &end));
        }
        self.start()?;
        let State::Live(live) = std::mem::replace(&mut self.state, State::Over) else {
            return Err(self.ended());
        };
        let Live { agent, run } = *live;
        let ended = agent.finish_run(end)?;
        let run_ended = run.end(ended.error, ended.result);
        let mut lost = Vec::new();
        match run_ended {
            Ok(()) => {}
            Err(RunError::Unwritten { loss, .. }) => {
                lost.push(format!("{}: {loss}", self.path().display()));
            }
            // Whatever else ending the run met, the raw copy's state is said with it.
            Err(other) => lost.push(other.to_string()),
        }
        if let Some(missing) = ended.raw_missing {
            lost.push(missing.to_string());
        }
        if lost.is_empty() {
            Ok(ended.meta)
        } else {
            Err(CaptureError::Lost(lost.join("; ")))
        }
    }
}

impl Drop for Capture {
    /// A capture dropped unfinished ends its run as failed: what the output held is
    /// recorded, and `run.completed` carries the metadata so far and the reason.
    fn drop(&mut self) {
        let note = if std::thread::panicking() {
            "the capture was unwound by a panic before the agent's output ended"
        } else {
            "the capture was dropped before the agent's output ended"
        };
        let end = ProcessEnd {
            note: Some(note.to_owned()),
            ..ProcessEnd::default()
        };
        // An output still being looked at is decided now, so that its run is recorded too.
        if let Err(error) = self.detect_now(true) {
            tracing::warn!(run_id = self.recorder.run_id(), %error, "ending a dropped capture failed");
        }
        let live = match std::mem::replace(&mut self.state, State::Over) {
            State::Live(live) => live,
            State::Unrecognized {
                options,
                raw,
                reason,
            } => {
                let error = self.end_unrecognized(&options, raw, &reason, &end);
                if let CaptureError::Lost(_) = error {
                    tracing::warn!(run_id = self.recorder.run_id(), %error, "ending a dropped capture failed");
                }
                return;
            }
            _ => return,
        };
        let Live { agent, run } = *live;
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

/// The capture under disk faults, injected through the recorder's seam (`record/faults.rs`):
/// a disk that refuses the first writes, or some writes mid-run, and frees again.
#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::{Path, PathBuf};
    use std::time::Duration;

    use super::{Capture, CaptureError, CaptureOptions, ProcessEnd};
    use crate::model::decode_event;
    use crate::normalize::Provider;
    use crate::record::faults::{Fault, inject};
    use crate::workflow::WriteRetry;

    const ENOSPC: i32 = libc::ENOSPC;
    const FIXTURE: &str = "corpus/normalize/claude/ok/shared-scenario-shell-command.jsonl";

    fn dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("axt-capture-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    fn quick_retry() -> WriteRetry {
        WriteRetry {
            first_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(4),
            at_end: Duration::from_secs(5),
            ..WriteRetry::default()
        }
    }

    fn capture(dir: &Path, retry: WriteRetry) -> Capture {
        let options = CaptureOptions {
            run_id: Some("r".into()),
            write_retry: retry,
            ..CaptureOptions::default()
        };
        Capture::new(Provider::Claude, dir, options).unwrap()
    }

    /// Each line's event type, path and payload, in file order, after checking that `seq`
    /// counts from 1 by 1: what two recordings of the same output share.
    fn events(path: &Path) -> Vec<String> {
        let bytes = fs::read(path).unwrap();
        assert!(bytes.ends_with(b"\n"));
        bytes
            .split(|b| *b == b'\n')
            .filter(|line| !line.is_empty())
            .enumerate()
            .map(|(at, line)| {
                let event = decode_event(line).unwrap();
                assert_eq!(event.seq, at as u64 + 1);
                let mut payload = serde_json::to_value(&event.payload).unwrap();
                if let Some(fields) = payload.as_object_mut() {
                    fields.remove("duration_ms");
                }
                format!("{} {} {payload}", event.event_type, event.path)
            })
            .collect()
    }

    /// Records the fixture in chunks of 100 bytes; `between` runs after the first chunk.
    fn record(mut capture: Capture, between: impl FnOnce(&Capture)) -> Result<(), CaptureError> {
        let bytes = fs::read(FIXTURE).unwrap();
        let mut chunks = bytes.chunks(100);
        capture.feed(chunks.next().unwrap())?;
        between(&capture);
        for chunk in chunks {
            capture.feed(chunk)?;
        }
        capture.finish(ProcessEnd::exited(0)).map(drop)
    }

    fn reference() -> Vec<String> {
        let dir = dir("reference");
        let clean = capture(&dir, WriteRetry::default());
        record(clean, |_| {}).unwrap();
        let events = events(&dir.join("r.jsonl"));
        fs::remove_dir_all(&dir).unwrap();
        events
    }

    /// Issue 23, item 4: the first write of the transcript fails (a full disk at start).
    /// It used to leave the capture without its run, and the next feed panicked on an
    /// `expect`; now the opening events wait for the disk and the run is whole.
    #[test]
    fn fault_injector_a_full_disk_at_start_delays_the_run_and_panics_nothing() {
        let dir = dir("full-at-start");
        let capture = capture(&dir, quick_retry());
        inject(&dir.join("r.jsonl"), [Fault::Write(ENOSPC); 3]);
        record(capture, |capture| {
            let report = capture.write_report();
            assert!(report.waiting > 0, "{report:?}");
            assert!(
                report
                    .first_error
                    .as_deref()
                    .unwrap()
                    .contains("os error 28")
            );
        })
        .unwrap();
        assert_eq!(events(&dir.join("r.jsonl")), reference());
        assert_eq!(
            fs::read(dir.join("r.raw")).unwrap(),
            fs::read(FIXTURE).unwrap()
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    /// Issue 23, item 5: a disk that refuses writes for a while mid-run, in the transcript
    /// and in the raw file. Everything is written once it has room, in order, `seq`
    /// continuous; nothing is lost and nothing doubled.
    #[test]
    fn fault_injector_a_disk_full_for_a_while_loses_nothing() {
        let dir = dir("full-mid-run");
        let capture = capture(&dir, quick_retry());
        record(capture, |capture| {
            inject(capture.path(), [Fault::Write(ENOSPC); 6]);
            let raw = capture.raw_path().unwrap().to_owned();
            inject(
                &raw,
                [Fault::Short(7), Fault::Write(ENOSPC), Fault::Write(ENOSPC)],
            );
        })
        .unwrap();
        assert_eq!(events(&dir.join("r.jsonl")), reference());
        assert_eq!(
            fs::read(dir.join("r.raw")).unwrap(),
            fs::read(FIXTURE).unwrap()
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    /// A disk that never frees: the capture gives up after the end's retries and says
    /// exactly what is missing, instead of ending as if the run were whole.
    #[test]
    fn fault_injector_a_disk_that_never_frees_says_what_was_lost() {
        let dir = dir("full-for-good");
        let retry = WriteRetry {
            at_end: Duration::from_millis(50),
            ..quick_retry()
        };
        let capture = capture(&dir, retry);
        let outcome = record(capture, |capture| {
            inject(
                capture.path(),
                std::iter::repeat_n(Fault::Write(ENOSPC), 100_000),
            );
            let raw = capture.raw_path().unwrap().to_owned();
            inject(&raw, std::iter::repeat_n(Fault::Write(ENOSPC), 100_000));
        });
        let Err(CaptureError::Lost(lost)) = outcome else {
            panic!("{outcome:?}");
        };
        let bytes = fs::read(FIXTURE).unwrap().len();
        assert!(
            lost.contains("events could not be written (")
                && lost.contains("No space left on device")
                && lost.contains(&format!(
                    "{} bytes of the agent's output are missing (output bytes 100..{bytes})",
                    bytes - 100
                )),
            "{lost}"
        );
        // What did reach the file is whole: the opening events.
        assert_eq!(events(&dir.join("r.jsonl")).len(), 2);
        fs::remove_dir_all(&dir).unwrap();
    }
}
