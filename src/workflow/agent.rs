//! [`AgentStep`]: an agent step whose output is normalized live, inside the step.

use std::fmt;
use std::fs::File;
use std::io::Read;
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard, PoisonError};

use serde_json::Value;

use super::backlog::WriteRetry;
use super::calls::{RouterTools, Sighting};
use super::core::StepInfo;
use super::error::RunError;
use super::raw::{RawOut, open_raw};
use super::step::Step;
use super::tool::ToolCall;
use crate::model::{
    Block, ContentBlock, EventType, ExchangeEvent, Fidelity, MessagePayload, Payload, ProcessEnd,
    Provider, Role, RunMeta, StepKind,
};
use crate::normalize::{Diagnostic, Options};
use crate::transcribe::{AGENT_PATH, Clock, EventOptions, EventSink, Transcriber};

/// What a diagnostic callback receives: a problem found in the agent's output.
pub type OnDiagnostic = Box<dyn FnMut(&Diagnostic) + Send>;

/// How an [`AgentStep`] records.
pub struct AgentOptions {
    prompt: Option<String>,
    system_prompt: Option<String>,
    router_tools: RouterTools,
    raw: Option<Raw>,
    max_record_bytes: Option<usize>,
    on_diagnostic: Option<OnDiagnostic>,
    clock: Option<Clock>,
    write_retry: WriteRetry,
    /// Where the agent run's metadata goes: the step's result (a step of a workflow), or
    /// the caller's, for the run's own `run.completed` (a run that is one agent's).
    pub(crate) meta_in_step: bool,
}

/// The raw output file: a path to create, or one its caller already created.
enum Raw {
    Create(PathBuf),
    Opened(File, PathBuf),
}

impl Default for AgentOptions {
    fn default() -> Self {
        AgentOptions {
            prompt: None,
            system_prompt: None,
            router_tools: RouterTools::default(),
            raw: None,
            max_record_bytes: None,
            on_diagnostic: None,
            clock: None,
            write_retry: WriteRetry::default(),
            meta_in_step: true,
        }
    }
}

impl AgentOptions {
    /// Options with nothing set: no prompt, every call held for the router (see
    /// [`router_tools`](AgentOptions::router_tools)), no raw copy.
    pub fn new() -> Self {
        AgentOptions::default()
    }

    /// The resolved prompt the agent was given: the first block of the step's
    /// `message.user`.
    pub fn prompt(mut self, prompt: impl Into<String>) -> Self {
        self.prompt = Some(prompt.into());
        self
    }

    /// The composed system prompt: a block of the step's `message.user` flagged
    /// `system_prompt: true` (the [wire format's rule](crate::model#content-blocks)).
    pub fn system_prompt(mut self, system_prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(system_prompt.into());
        self
    }

    /// Which tools the executor's router serves, so that a call the agent reports and the
    /// router captures is recorded once (default: [`RouterTools::All`]). See
    /// [`RouterTools`].
    pub fn router_tools(mut self, tools: RouterTools) -> Self {
        self.router_tools = tools;
        self
    }

    /// Keeps the agent's output byte for byte in `path` (created, mode 0600; it must not
    /// exist, not even as a symbolic link), written before it is normalized. When the run's
    /// recorder masks, the file holds the output masked (see
    /// [`RawMask`](crate::record::RawMask)).
    pub fn raw_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.raw = Some(Raw::Create(path.into()));
        self
    }

    /// Keeps the raw output in `file`, already created at `path` by the caller.
    pub(crate) fn raw_opened(mut self, file: File, path: PathBuf) -> Self {
        self.raw = Some(Raw::Opened(file, path));
        self
    }

    /// Takes back the raw output file the caller created (for a capture that records no
    /// agent step after all: its output was no provider's).
    pub(crate) fn take_raw_opened(&mut self) -> Option<(File, PathBuf)> {
        match self.raw.take() {
            Some(Raw::Opened(file, path)) => Some((file, path)),
            other => {
                self.raw = other;
                None
            }
        }
    }

    /// How the raw output file retries writes.
    pub(crate) fn raw_retry(&self) -> WriteRetry {
        self.write_retry.clone()
    }

    /// The blocks of the step's opening `message.user`: the prompt, then the system
    /// prompt; empty when neither was given.
    pub(crate) fn opening_blocks(&self) -> Vec<ContentBlock> {
        let mut blocks = Vec::with_capacity(2);
        if let Some(prompt) = self.prompt.clone().filter(|p| !p.is_empty()) {
            blocks.push(ContentBlock::new(Fidelity::Router, Block::text(prompt)));
        }
        if let Some(system) = self.system_prompt.clone().filter(|p| !p.is_empty()) {
            blocks.push(ContentBlock::new(
                Fidelity::Router,
                Block::system_prompt(system),
            ));
        }
        blocks
    }

    /// The time of events the agent's output does not date (default: the moment they are
    /// recorded). See [the mapping's times](crate::transcribe::mapper).
    pub fn clock(mut self, clock: Clock) -> Self {
        self.clock = Some(clock);
        self
    }

    /// The largest output record accepted, in bytes; longer ones are skipped and reported.
    pub fn max_record_bytes(mut self, bytes: usize) -> Self {
        self.max_record_bytes = Some(bytes);
        self
    }

    /// How the raw output file retries writes the disk refuses (default:
    /// [`WriteRetry::default`]); the run's own events follow
    /// [`Run::set_write_retry`](super::Run::set_write_retry).
    pub fn write_retry(mut self, retry: WriteRetry) -> Self {
        self.write_retry = retry;
        self
    }

    /// Called with every problem found in the agent's output.
    pub fn on_diagnostic(mut self, callback: impl FnMut(&Diagnostic) + Send + 'static) -> Self {
        self.on_diagnostic = Some(Box::new(callback));
        self
    }
}

impl fmt::Debug for AgentOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentOptions")
            .field("prompt", &self.prompt.as_ref().map(String::len))
            .field(
                "system_prompt",
                &self.system_prompt.as_ref().map(String::len),
            )
            .field("router_tools", &self.router_tools)
            .field(
                "raw",
                &self.raw.as_ref().map(|raw| match raw {
                    Raw::Create(path) | Raw::Opened(_, path) => path,
                }),
            )
            .finish_non_exhaustive()
    }
}

/// An `agent` step capturing its agent's output live ([`Step::agent`]).
///
/// It opens with a `message.user`: the resolved prompt, then the composed system prompt
/// flagged `system_prompt: true`. Then every chunk of the agent's stdout given to
/// [`feed`](AgentStep::feed) (split anywhere) is normalized, and each event it completes
/// is recorded inside the step before `feed` returns: the agent's messages and calls at
/// the step's path and iteration, a sub-agent's under `<path>.<call id>`. The agent's run
/// events become the step's own: [`finish`](AgentStep::finish) completes the step with
/// the agent's run metadata ([`RunMeta`]) as its result, and the run's failure, if any, as
/// its error. The result also has `router`: what the [call ledger](super#calls-seen-on-both-channels)
/// did, when the router captured calls in the step.
///
/// Follow-up turns of a conversation add `message.user` events
/// ([`follow_up`](AgentStep::follow_up)). Tool calls the executor's router runs are opened
/// with [`tool`](AgentStep::tool) and are recorded once even when the agent reports them
/// too.
///
/// `Sync`: one thread may feed the output while others open tool calls. Dropped without
/// `finish`, the step ends as failed with the reason.
pub struct AgentStep {
    step: Step,
    live: Mutex<Live>,
}

struct Live {
    transcriber: Transcriber,
    raw: Option<RawOut>,
    on_diagnostic: Option<OnDiagnostic>,
    /// The agent run's closing `run.completed` payload, once the transcriber wrote it.
    outcome: Option<(Option<String>, Value)>,
    meta_in_step: bool,
}

/// How an agent's run ended, as its `run.completed` would say: the metadata, the failure
/// (if any), and the metadata as the JSON `result`.
pub(crate) struct AgentEnd {
    pub(crate) meta: RunMeta,
    pub(crate) error: Option<String>,
    pub(crate) result: Value,
    /// The raw output file lacks part of the output (the disk refused it): which, and why.
    pub(crate) raw_missing: Option<RunError>,
}

/// Live capture, here beside [`AgentStep`] since it makes one.
impl Step {
    /// Turns this `agent` step into a live capture of the agent's output: records the
    /// prompt and system prompt of `options` as `message.user`, then normalizes whatever
    /// [`AgentStep::feed`] is given, inside this step. See [`AgentStep`].
    pub fn agent(self, provider: Provider, options: AgentOptions) -> Result<AgentStep, RunError> {
        AgentStep::start(self, provider, options)
    }
}

impl AgentStep {
    pub(super) fn start(
        step: Step,
        provider: Provider,
        options: AgentOptions,
    ) -> Result<AgentStep, RunError> {
        if *step.kind() != StepKind::Agent {
            let error = RunError::WrongKind {
                path: step.path().to_owned(),
                expected: StepKind::Agent,
                found: step.kind().clone(),
            };
            step.fail(&error)?;
            return Err(error);
        }
        // The opening message, made before the options are taken apart.
        let blocks = options.opening_blocks();
        let raw = match options.raw {
            None => None,
            Some(raw) => {
                // What the transcript masks, the raw copy masks too; a recorder that
                // masks events but cannot mask the raw output gets no raw copy.
                let opened = step.core.recorder.raw_mask().map_err(RunError::from);
                let opened = opened.and_then(|mask| {
                    let (file, path) = match raw {
                        Raw::Opened(file, path) => (file, path),
                        Raw::Create(path) => match open_raw(&path) {
                            Ok(file) => (file, path),
                            Err(source) => return Err(RunError::Raw { path, source }),
                        },
                    };
                    Ok(RawOut::new(file, path, mask, options.write_retry.clone()))
                });
                match opened {
                    Ok(raw) => Some(raw),
                    Err(error) => {
                        step.fail(&error)?;
                        return Err(error);
                    }
                }
            }
        };
        let hold = options.router_tools;
        step.core.with_step(&step.info, |ctx| {
            ctx.step.ledger.watch_agent(hold);
            Ok(())
        })?;
        if !blocks.is_empty() {
            step.message(EventType::MessageUser, user(blocks))?;
        }
        let normalize = Options {
            max_record_bytes: options
                .max_record_bytes
                .unwrap_or(Options::default().max_record_bytes),
        };
        let mut events = EventOptions {
            run_id: Some(step.run_id().to_owned()),
            ..EventOptions::default()
        };
        if let Some(clock) = options.clock {
            events.clock = clock;
        }
        Ok(AgentStep {
            live: Mutex::new(Live {
                transcriber: Transcriber::new(provider, normalize, events),
                raw,
                on_diagnostic: options.on_diagnostic,
                outcome: None,
                meta_in_step: options.meta_in_step,
            }),
            step,
        })
    }

    /// The step.
    pub fn step(&self) -> &Step {
        &self.step
    }

    /// The raw output file, when one is kept.
    pub fn raw_path(&self) -> Option<PathBuf> {
        self.lock().raw.as_ref().map(|raw| raw.path().to_owned())
    }

    /// Feeds the next bytes of the agent's stdout, split anywhere: they go to the raw
    /// file, then every event they complete is recorded before this returns. What the disk
    /// refuses (in the raw file or the transcript) is kept and written as soon as it can
    /// be; [`Run::write_report`](super::Run::write_report) and
    /// [`raw_error`](AgentStep::raw_error) say when that happens.
    pub fn feed(&self, bytes: &[u8]) -> Result<(), RunError> {
        let mut live = self.lock();
        let live = &mut *live;
        if let Some(raw) = &mut live.raw {
            raw.write(bytes);
        }
        let mut sink = StepSink {
            step: &self.step,
            on_diagnostic: &mut live.on_diagnostic,
            outcome: &mut live.outcome,
        };
        live.transcriber.push(bytes, &mut sink)
    }

    /// Feeds everything `reader` yields until its end (the agent closed its stdout).
    pub fn run(&self, reader: impl Read) -> Result<(), RunError> {
        read_chunks(reader, |chunk| self.feed(chunk), RunError::Read)
    }

    /// Records a follow-up turn of the conversation: a `message.user` with `prompt`. Its
    /// `seq`, or `None` when it waits for the disk (see [`Step::message`]).
    pub fn follow_up(&self, prompt: impl Into<String>) -> Result<Option<u64>, RunError> {
        let block = ContentBlock::new(Fidelity::Router, Block::text(prompt));
        self.step.message(EventType::MessageUser, user(vec![block]))
    }

    /// Keeps `raw` as passthrough of `kind` in the run's metadata, at the output's `line`:
    /// what the caller knows of the run that is no record of the output (a recording
    /// proxy's account of the HTTP exchange). See [`Transcriber::keep`].
    pub fn keep(&self, line: u64, kind: &str, raw: Value) {
        self.lock().transcriber.keep(line, kind, raw);
    }

    /// Opens a tool call captured at the router, inside this step: see [`Step::tool`].
    pub fn tool(
        &self,
        name: impl AsRef<str>,
        call_id: impl AsRef<str>,
        input: Value,
    ) -> Result<ToolCall, RunError> {
        self.step.tool(name, call_id, input)
    }

    /// The first error writing the raw output file, if the disk refused any of it (the
    /// bytes are kept and retried; see [`feed`](AgentStep::feed)), and whether bytes still
    /// wait for it.
    pub fn raw_error(&self) -> Option<(String, bool)> {
        let live = self.lock();
        let raw = live.raw.as_ref()?;
        let error = raw.first_error()?;
        Some((
            format!("{}: {error}", raw.path().display()),
            raw.is_waiting(),
        ))
    }

    /// Writes raw output waiting for the disk, if its retry is due.
    pub fn retry_writes(&self) {
        if let Some(raw) = &mut self.lock().raw {
            raw.flush();
        }
        self.step.core.retry_writes();
    }

    /// The agent run's metadata as its output has told it so far.
    pub fn meta(&self) -> RunMeta {
        self.lock().transcriber.meta().clone()
    }

    /// Ends the step: the output ended, and the agent's process ended as `end`. Records
    /// what the output still held, then completes the step with the run's metadata as its
    /// result (and its failure as its error: a process that did not exit cleanly fails
    /// it), and returns the metadata.
    pub fn finish(mut self, end: ProcessEnd) -> Result<RunMeta, RunError> {
        let ended = self.end(end)?;
        match ended.raw_missing {
            Some(error) => Err(error),
            None => Ok(ended.meta),
        }
    }

    /// As [`finish`](AgentStep::finish), and how the agent's run ended, for a caller that
    /// records the metadata in its run's `run.completed` instead of the step's result.
    pub(crate) fn finish_run(mut self, end: ProcessEnd) -> Result<AgentEnd, RunError> {
        self.end(end)
    }

    fn end(&mut self, end: ProcessEnd) -> Result<AgentEnd, RunError> {
        self.step.ended = true;
        let mut live = self.live.lock().unwrap_or_else(PoisonError::into_inner);
        let live = &mut *live;
        let mut sink = StepSink {
            step: &self.step,
            on_diagnostic: &mut live.on_diagnostic,
            outcome: &mut live.outcome,
        };
        // The metadata as the step records it: the output's, with how the process ended.
        let flushed = live.transcriber.finish_process(end, &mut sink);
        let raw_missing = live.raw.as_mut().and_then(|raw| {
            raw.finish().err().map(|source| RunError::Raw {
                path: raw.path().to_owned(),
                source,
            })
        });
        let meta = match &flushed {
            Ok(meta) => meta.clone(),
            Err(_) => live.transcriber.meta().clone(),
        };
        let (error, mut result) = live
            .outcome
            .take()
            .unwrap_or_else(|| (None, serde_json::to_value(&meta).unwrap_or(Value::Null)));
        let core = &self.step.core;
        let info = &self.step.info;
        let summary = core.with_step(info, |ctx| {
            Ok((!ctx.step.ledger.is_empty()).then(|| ctx.step.ledger.summary()))
        })?;
        if let (Some(summary), Value::Object(fields)) = (summary, &mut result) {
            fields.insert("router".into(), summary);
        }
        // A raw copy with holes says so where the run's result is read.
        if let (Some(missing), Value::Object(fields)) = (&raw_missing, &mut result) {
            fields.insert("raw_missing".into(), Value::String(missing.to_string()));
        }
        let step_result = if live.meta_in_step {
            result.clone()
        } else {
            Value::Null
        };
        let completed = core.complete_step(info, error.clone(), step_result);
        flushed.map(drop)?;
        completed?;
        Ok(AgentEnd {
            meta,
            error,
            result,
            raw_missing,
        })
    }

    fn lock(&self) -> MutexGuard<'_, Live> {
        self.live.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for AgentStep {
    fn drop(&mut self) {
        if self.step.ended {
            return;
        }
        let note = if std::thread::panicking() {
            "the agent step was unwound by a panic"
        } else {
            "the agent step was dropped before it was finished"
        };
        let end = ProcessEnd {
            note: Some(note.to_owned()),
            ..ProcessEnd::default()
        };
        match self.end(end) {
            Ok(_) | Err(RunError::StepEnded { .. }) => {}
            Err(failure) => {
                tracing::warn!(path = self.step.path(), %failure, "ending a dropped agent step failed");
            }
        }
    }
}

impl fmt::Debug for AgentStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentStep")
            .field("step", &self.step)
            .finish_non_exhaustive()
    }
}

/// Hands `feed` every chunk `reader` yields until its end; a read error becomes `failed`.
pub(crate) fn read_chunks<E>(
    mut reader: impl Read,
    mut feed: impl FnMut(&[u8]) -> Result<(), E>,
    failed: impl Fn(std::io::Error) -> E,
) -> Result<(), E> {
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let read = match reader.read(&mut buffer) {
            Ok(0) => return Ok(()),
            Ok(read) => read,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(failed(error)),
        };
        feed(&buffer[..read])?;
    }
}

/// A `message.user` payload of `blocks`.
pub(crate) fn user(blocks: Vec<ContentBlock>) -> Payload {
    Payload::Message(MessagePayload {
        role: Role::User,
        blocks,
        message_id: None,
    })
}

/// The transcriber's events, moved inside the step: the agent run's own lifecycle events
/// become the step's, paths move under the step's, and tool events pass the call ledger.
struct StepSink<'a> {
    step: &'a Step,
    on_diagnostic: &'a mut Option<OnDiagnostic>,
    outcome: &'a mut Option<(Option<String>, Value)>,
}

impl EventSink for StepSink<'_> {
    type Error = RunError;

    fn event(&mut self, event: ExchangeEvent) -> Result<(), RunError> {
        let ExchangeEvent {
            event_type,
            path,
            timestamp,
            payload,
            ..
        } = event;
        match event_type {
            EventType::RunStarted => return Ok(()),
            EventType::RunCompleted => {
                if let Payload::Step(step) = payload {
                    *self.outcome = Some((step.error, step.result));
                }
                return Ok(());
            }
            // The agent's own step is this one: its scope writes both ends.
            EventType::StepStarted | EventType::StepCompleted if path == AGENT_PATH => {
                return Ok(());
            }
            _ => {}
        }
        let info: &StepInfo = &self.step.info;
        let inner = under(&info.path, &path);
        self.step.core.with_step(info, |ctx| {
            let seen = || Sighting {
                time: timestamp.clone(),
                path: inner.clone().unwrap_or_else(|| info.path.to_string()),
            };
            match (event_type, payload) {
                (EventType::ToolCall, Payload::Tool(call)) => {
                    let writes = ctx.step.ledger.agent_call(call, seen());
                    ctx.write_all(writes)
                }
                (EventType::ToolResult, Payload::Tool(result)) => {
                    let writes = ctx.step.ledger.agent_result(result, seen());
                    ctx.write_all(writes)
                }
                (event_type, payload) => ctx
                    .write_at(
                        inner.as_deref(),
                        event_type,
                        payload,
                        Some(timestamp.clone()),
                    )
                    .map(drop),
            }
        })
    }

    fn diagnostic(&mut self, diagnostic: Diagnostic) -> Result<(), RunError> {
        if let Some(callback) = self.on_diagnostic {
            callback(&diagnostic);
        }
        Ok(())
    }
}

/// The path of a transcriber event moved under the step: `agent` is the step itself
/// (`None`), `agent.<id>` becomes `<step path>.<id>`.
fn under(step: &str, path: &str) -> Option<String> {
    path.strip_prefix(AGENT_PATH)
        .and_then(|rest| rest.strip_prefix('.'))
        .map(|rest| format!("{step}.{rest}"))
}

#[cfg(test)]
mod tests {
    use super::{AgentStep, ToolCall, under};
    use crate::workflow::{Run, Step};

    #[test]
    fn a_sub_agent_s_path_moves_under_the_step() {
        assert_eq!(under("review", "agent"), None);
        assert_eq!(under("a.b", "agent.toolu_1"), Some("a.b.toolu_1".into()));
    }

    /// Every scope can be shared between threads and moved into one.
    #[test]
    fn scopes_are_send_sync_and_static() {
        fn shareable<T: Send + Sync + 'static>() {}
        shareable::<Run>();
        shareable::<Step>();
        shareable::<AgentStep>();
        shareable::<ToolCall>();
    }
}
