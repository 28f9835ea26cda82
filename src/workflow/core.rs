//! The state one run's scopes share: which steps are open, and the one lock under which
//! every event of the run is recorded.
//!
//! Every event a scope writes goes through [`RunCore`] under its lock, after a check that
//! its step (or the run) is still open, so an event is never written inside a step after
//! that step's `step.completed`, and a step is completed exactly once however many threads
//! race to complete it (its owner, its parent, the run's end, a `Drop`). The recorder's own
//! lock is taken inside this one, so file order is the order of these checks.
//!
//! **Lock order.** A run's lock may be held while its sub-run's lock is taken (a step that
//! ends while its sub-workflow still runs ends the sub-run too), never the other way
//! round: a sub-run that ends releases its own lock before it tells its parent.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use serde_json::Value;

use super::backlog::{Backlog, WriteReport, WriteRetry, empty_event};
use super::calls::{Ledger, Write};
use super::error::RunError;
use super::ids::CallIds;
use crate::model::{
    EventType, ExchangeEvent, Fidelity, Payload, StepKind, StepPayload, Timestamp, ToolOutput,
    ToolPayload,
};
use crate::record::RunRecorder;

/// A step's id in its run: never reused, so a handle to an ended step stays ended.
pub(super) type StepId = u64;

/// What a step handle knows of its step: enough to name it in errors and events.
#[derive(Clone, Debug)]
pub(super) struct StepInfo {
    pub(super) id: StepId,
    pub(super) path: Arc<str>,
    pub(super) iteration: u64,
    pub(super) name: Arc<str>,
    pub(super) kind: StepKind,
}

impl StepInfo {
    fn ended(&self) -> RunError {
        RunError::StepEnded {
            path: self.path.to_string(),
            iteration: self.iteration,
        }
    }
}

/// One run's shared state; see the module docs.
pub(super) struct RunCore {
    pub(super) recorder: Arc<dyn RunRecorder>,
    name: String,
    kind: StepKind,
    started: Instant,
    parent: Option<ParentLink>,
    state: Mutex<RunState>,
}

/// The `call_workflow` step of the parent run that invoked a sub-run.
struct ParentLink {
    core: Arc<RunCore>,
    step: StepId,
}

struct RunState {
    /// `Some(error)` once `run.completed` is written.
    ended: Option<Option<String>>,
    next_id: StepId,
    steps: BTreeMap<StepId, OpenStep>,
    /// The ids of the run's router calls.
    call_ids: CallIds,
    /// Events the disk refused, waiting to be written in order.
    writes: Backlog,
    /// The event a step's messages and tool calls are written from, filled anew for each:
    /// its path's buffer is reused, and the recorder writes it where it is, so that an
    /// event costs no allocation of its own (see [`StepCtx::write_at`]). After a tool
    /// event it keeps its tool payload, emptied of the caller's values, whose name and
    /// call id buffers the next router tool event is written into
    /// ([`StepCtx::write_router_tool`]).
    scratch: ExchangeEvent,
    /// The name of the last router call opened, shared by the next call of the same tool
    /// ([`StepCtx::tool_name`]).
    tool_name: Option<Arc<str>>,
}

/// A step that has started and not completed.
pub(super) struct OpenStep {
    info: Arc<StepInfo>,
    parent: Option<StepId>,
    started: Instant,
    pub(super) ledger: Ledger,
    /// The sub-run of a `call_workflow` step; `open` until its
    /// `step.call_workflow.completed` is written.
    child: Option<(Arc<RunCore>, bool)>,
}

/// A step held open under the run's lock, for writing its events.
pub(super) struct StepCtx<'a> {
    recorder: &'a dyn RunRecorder,
    writes: &'a mut Backlog,
    pub(super) step: &'a mut OpenStep,
    /// The ids of the run's router calls.
    pub(super) call_ids: &'a mut CallIds,
    scratch: &'a mut ExchangeEvent,
    tool_name: &'a mut Option<Arc<str>>,
}

impl StepCtx<'_> {
    /// Writes an event at the step's path and iteration, stamped `time` (now when `None`):
    /// its `seq`, or `None` when it waits for the disk ([`Backlog`]).
    pub(super) fn write(
        &mut self,
        event_type: EventType,
        payload: Payload,
        time: Option<Timestamp>,
    ) -> Result<Option<u64>, RunError> {
        self.write_at(None, event_type, payload, time)
    }

    /// Writes an event at `path` (a path under the step's; the step's own when `None`),
    /// the step's iteration.
    pub(super) fn write_at(
        &mut self,
        path: Option<&str>,
        event_type: EventType,
        payload: Payload,
        time: Option<Timestamp>,
    ) -> Result<Option<u64>, RunError> {
        self.scratch.payload = payload;
        self.write_scratch(path, event_type, time)
    }

    /// Writes a router tool event (fidelity `router`) of the step, stamped now: its name
    /// and call id are copied into the buffers the last tool event left in the scratch
    /// event, and `fill` sets the rest of its payload there (every field but those three is
    /// empty when it is called). Built in place, a router call's two payloads are neither
    /// allocated nor moved (a `ToolPayload` is over 200 bytes: building one, moving it into
    /// the event and out again copied it three times per event).
    pub(super) fn write_router_tool(
        &mut self,
        event_type: EventType,
        name: &str,
        call_id: &str,
        fill: impl FnOnce(&mut ToolPayload),
    ) -> Result<Option<u64>, RunError> {
        match &mut self.scratch.payload {
            Payload::Tool(tool) => {
                tool.name.clear();
                tool.name.push_str(name);
                tool.call_id.clear();
                tool.call_id.push_str(call_id);
                tool.fidelity = Fidelity::Router;
                fill(tool);
            }
            // The run's first tool event, or one after an event of another kind (or after
            // a write the disk refused: the backlog took the scratch event to keep).
            payload => {
                let mut tool = ToolPayload::call(name, call_id, Value::Null, Fidelity::Router);
                fill(&mut tool);
                *payload = Payload::Tool(tool);
            }
        }
        self.write_scratch(None, event_type, None)
    }

    /// Stamps the scratch event, its payload set, with the step's path (or `path`) and
    /// iteration and `time` (now when `None`), and writes it.
    fn write_scratch(
        &mut self,
        path: Option<&str>,
        event_type: EventType,
        time: Option<Timestamp>,
    ) -> Result<Option<u64>, RunError> {
        let info = &self.step.info;
        let event = &mut *self.scratch;
        event.event_type = event_type;
        event.path.clear();
        event.path.push_str(path.unwrap_or(&info.path));
        event.iteration = info.iteration;
        event.timestamp = time.unwrap_or_else(Timestamp::now);
        let written = self.writes.record_ref(self.recorder, event);
        // The payload was the caller's to hand over: freed now, not kept until the next
        // event (a tool's output can be megabytes); a tool payload's name and id buffers
        // are kept for the next router tool event.
        match &mut event.payload {
            Payload::Tool(tool) => empty_tool(tool),
            payload => *payload = Payload::None,
        }
        written
    }

    /// `name` shared: the last router call's copy when it is the same tool (an executor
    /// calls few tools, many times each), else a new one, kept for the next call.
    pub(super) fn tool_name(&mut self, name: &str) -> Arc<str> {
        match &*self.tool_name {
            Some(last) if **last == *name => Arc::clone(last),
            _ => Arc::clone(self.tool_name.insert(Arc::from(name))),
        }
    }

    /// Writes the tool events the ledger decided on.
    pub(super) fn write_all(&mut self, writes: Vec<Write>) -> Result<(), RunError> {
        for write in writes {
            let payload = Payload::Tool(write.payload);
            self.write_at(write.path.as_deref(), write.event_type, payload, write.time)?;
        }
        Ok(())
    }
}

/// Frees what a tool payload held of its caller's (its input, output, error, ...) and
/// keeps its name and call id buffers. Every field named, so that a field added to the
/// payload cannot be left over from one event to the next.
fn empty_tool(tool: &mut ToolPayload) {
    let ToolPayload {
        name: _,
        call_id: _,
        input,
        output,
        error,
        fidelity: _,
        exit_code,
        duration_ms,
        agent_call_id,
    } = tool;
    *input = Value::Null;
    *output = ToolOutput::default();
    *error = None;
    *exit_code = None;
    *duration_ms = None;
    *agent_call_id = None;
}

fn event(
    event_type: EventType,
    path: &str,
    iteration: u64,
    payload: Payload,
    time: Option<Timestamp>,
) -> ExchangeEvent {
    ExchangeEvent {
        seq: 0,
        run_id: String::new(),
        parent_run_id: None,
        child_run_id: None,
        event_type,
        path: path.to_owned(),
        iteration,
        timestamp: time.unwrap_or_else(Timestamp::now),
        payload,
    }
}

fn elapsed_ms(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// The text of a failure: `error`'s, or `fallback` when that is empty (an error field is
/// never written empty).
pub(super) fn error_text(error: impl std::fmt::Display, fallback: &str) -> String {
    let text = error.to_string();
    if text.is_empty() {
        fallback.to_owned()
    } else {
        text
    }
}

/// Refuses a step name a path could not carry.
pub(super) fn check_name(name: &str) -> Result<(), RunError> {
    let reason = if name.is_empty() {
        "a step needs a name"
    } else if name.contains('.') {
        "`.` separates the steps of a path"
    } else if name.chars().any(char::is_control) {
        "control characters are not allowed"
    } else {
        return Ok(());
    };
    Err(RunError::InvalidName {
        name: name.to_owned(),
        reason,
    })
}

impl RunCore {
    /// Starts a run: writes `run.started`.
    pub(super) fn start(
        recorder: Arc<dyn RunRecorder>,
        name: String,
        kind: StepKind,
        parent: Option<(Arc<RunCore>, StepId)>,
    ) -> Result<Arc<RunCore>, RunError> {
        let mut writes = Backlog::new();
        let recorded = recorder.last_seq();
        if recorded > 0 {
            return Err(RunError::AlreadyRecorded {
                run_id: recorder.run_id().to_owned(),
                path: recorder.path().map(Path::to_path_buf).unwrap_or_default(),
            });
        }
        let payload = Payload::Step(StepPayload::new(name.clone(), kind.clone()));
        writes.record(
            &*recorder,
            event(EventType::RunStarted, "", 0, payload, None),
        )?;
        Ok(Arc::new(RunCore {
            recorder,
            name,
            kind,
            started: Instant::now(),
            parent: parent.map(|(core, step)| ParentLink { core, step }),
            state: Mutex::new(RunState {
                ended: None,
                next_id: 1,
                steps: BTreeMap::new(),
                call_ids: CallIds::default(),
                writes,
                scratch: empty_event(),
                tool_name: None,
            }),
        }))
    }

    pub(super) fn run_id(&self) -> &str {
        self.recorder.run_id()
    }

    fn lock(&self) -> MutexGuard<'_, RunState> {
        // Nothing under this lock leaves the state half-changed across a panic: each
        // change is one insert or remove after the events it needs are written.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn run_ended(&self) -> RunError {
        RunError::RunEnded {
            run_id: self.run_id().to_owned(),
        }
    }

    /// Opens a step under `parent` (the run when `None`): its path is the parent's plus
    /// `name`, its iteration `iteration` or the parent's. Writes `step.started`.
    pub(super) fn open_step(
        &self,
        parent: Option<&StepInfo>,
        name: &str,
        kind: StepKind,
        iteration: Option<u64>,
    ) -> Result<Arc<StepInfo>, RunError> {
        check_name(name)?;
        let mut state = self.lock();
        if state.ended.is_some() {
            return Err(self.run_ended());
        }
        let (path, iteration) = match parent {
            Some(parent) => {
                if !state.steps.contains_key(&parent.id) {
                    return Err(parent.ended());
                }
                let path = format!("{}.{name}", parent.path);
                (path, iteration.unwrap_or(parent.iteration))
            }
            None => (name.to_owned(), iteration.unwrap_or(0)),
        };
        if state
            .steps
            .values()
            .any(|open| *open.info.path == *path && open.info.iteration == iteration)
        {
            return Err(RunError::StepRunning { path, iteration });
        }
        let payload = Payload::Step(StepPayload::new(name, kind.clone()));
        let started = event(EventType::StepStarted, &path, iteration, payload, None);
        state.writes.record(&*self.recorder, started)?;
        let id = state.next_id;
        state.next_id += 1;
        let info = Arc::new(StepInfo {
            id,
            path: path.into(),
            iteration,
            name: name.into(),
            kind,
        });
        state.steps.insert(
            id,
            OpenStep {
                info: Arc::clone(&info),
                parent: parent.map(|p| p.id),
                started: Instant::now(),
                ledger: Ledger::default(),
                child: None,
            },
        );
        Ok(info)
    }

    /// Runs `f` with the step open, under the run's lock; fails when the step has ended.
    pub(super) fn with_step<R>(
        &self,
        info: &StepInfo,
        f: impl FnOnce(&mut StepCtx<'_>) -> Result<R, RunError>,
    ) -> Result<R, RunError> {
        let mut state = self.lock();
        let state = &mut *state;
        let step = state.steps.get_mut(&info.id).ok_or_else(|| info.ended())?;
        f(&mut StepCtx {
            recorder: &*self.recorder,
            writes: &mut state.writes,
            step,
            call_ids: &mut state.call_ids,
            scratch: &mut state.scratch,
            tool_name: &mut state.tool_name,
        })
    }

    /// Whether the step is still open.
    pub(super) fn is_open(&self, info: &StepInfo) -> bool {
        self.lock().steps.contains_key(&info.id)
    }

    /// Completes a step: every step still open under it first (failed), then its open
    /// router calls, held agent calls and sub-run, then its `step.completed`.
    pub(super) fn complete_step(
        &self,
        info: &StepInfo,
        error: Option<String>,
        result: Value,
    ) -> Result<(), RunError> {
        let mut state = self.lock();
        if !state.steps.contains_key(&info.id) {
            return Err(info.ended());
        }
        self.close(&mut state, info.id, error, result)
    }

    /// Ends the run: every open step (failed), then `run.completed`; closes the recorder
    /// and, for a sub-run, writes the parent's `step.call_workflow.completed`.
    pub(super) fn end(&self, error: Option<String>, result: Value) -> Result<(), RunError> {
        let outcome = {
            let mut state = self.lock();
            // A forked child's copy ends nothing: the run is its parent's.
            state.writes.check_owner_exactly()?;
            if state.ended.is_some() {
                return Err(self.run_ended());
            }
            self.end_locked(&mut state, error.clone(), result)
        };
        if let Some(parent) = &self.parent {
            parent.core.sub_run_ended(parent.step, self, error);
        }
        outcome
    }

    /// Ends the run from its parent, which holds its own lock: returns how the run ended.
    fn end_from_parent(&self, reason: &str) -> Option<String> {
        let mut state = self.lock();
        if let Some(error) = &state.ended {
            return error.clone();
        }
        if state.writes.check_owner_exactly().is_err() {
            return Some(reason.to_owned());
        }
        let error = Some(reason.to_owned());
        if let Err(failure) = self.end_locked(&mut state, error.clone(), Value::Null) {
            tracing::warn!(run_id = self.run_id(), %failure, "ending a sub-run failed");
        }
        error
    }

    fn end_locked(
        &self,
        state: &mut RunState,
        error: Option<String>,
        result: Value,
    ) -> Result<(), RunError> {
        let mut first_failure = None;
        let top: Vec<StepId> = state
            .steps
            .iter()
            .filter(|(_, step)| step.parent.is_none())
            .map(|(id, _)| *id)
            .rev()
            .collect();
        for id in top {
            let reason = "the step was still running when the run ended".to_owned();
            if let Err(failure) = self.close(state, id, Some(reason), Value::Null) {
                first_failure.get_or_insert(failure);
            }
        }
        // Events the disk refused and never took are the transcript's loss: the run's end
        // says so, whatever else it says.
        let loss = state.writes.report().loss();
        let recorded_error = match (error.clone(), loss) {
            (None, None) => None,
            (Some(error), None) => Some(error),
            (None, Some(loss)) => Some(format!("the transcript is incomplete: {loss}")),
            (Some(error), Some(loss)) => {
                Some(format!("{error}; the transcript is incomplete: {loss}"))
            }
        };
        let payload = Payload::Step(StepPayload {
            error: recorded_error,
            result,
            duration_ms: Some(elapsed_ms(self.started)),
            ..StepPayload::new(self.name.clone(), self.kind.clone())
        });
        let written = state.writes.record(
            &*self.recorder,
            event(EventType::RunCompleted, "", 0, payload, None),
        );
        state.writes.drain(&*self.recorder);
        state.ended = Some(error);
        let closed = self.recorder.close();
        let unwritten = state
            .writes
            .report()
            .loss()
            .map(|loss| RunError::Unwritten {
                run_id: self.run_id().to_owned(),
                loss,
            });
        match (first_failure, written, closed, unwritten) {
            (Some(failure), ..) => Err(failure),
            (None, Err(failure), ..) => Err(failure),
            (None, Ok(_), _, Some(unwritten)) => Err(unwritten),
            (None, Ok(_), Err(failure), None) => Err(failure.into()),
            (None, Ok(_), Ok(()), None) => Ok(()),
        }
    }

    /// What the run's writes met so far.
    pub(super) fn write_report(&self) -> WriteReport {
        self.lock().writes.report()
    }

    /// Writes the events waiting for the disk, if their retry is due.
    pub(super) fn retry_writes(&self) {
        let mut state = self.lock();
        state.writes.retry_if_due(&*self.recorder);
    }

    /// Sets how the run retries writes the disk refuses.
    pub(super) fn set_write_retry(&self, retry: WriteRetry) {
        self.lock().writes.set_retry(retry);
    }

    /// A sub-run of step `step` ended by itself: writes `step.call_workflow.completed`
    /// unless the step already did when it ended.
    fn sub_run_ended(&self, step: StepId, child: &RunCore, error: Option<String>) {
        let mut state = self.lock();
        let Some(open) = state.steps.get_mut(&step) else {
            return;
        };
        let Some((_, pending @ true)) = &mut open.child else {
            return;
        };
        *pending = false;
        let info = open.info.clone();
        let writes = &mut state.writes;
        if let Err(failure) = self.call_completed(writes, &info, child.run_id(), error) {
            tracing::warn!(run_id = self.run_id(), %failure, "recording a sub-run's end failed");
        }
    }

    fn call_completed(
        &self,
        writes: &mut Backlog,
        info: &StepInfo,
        child_run_id: &str,
        error: Option<String>,
    ) -> Result<Option<u64>, RunError> {
        let payload = Payload::Step(StepPayload {
            error,
            ..StepPayload::new(&*info.name, StepKind::CallWorkflow)
        });
        let mut event = event(
            EventType::CallWorkflowCompleted,
            &info.path,
            info.iteration,
            payload,
            None,
        );
        event.child_run_id = Some(child_run_id.to_owned());
        writes.record(&*self.recorder, event)
    }

    /// Starts the sub-run of a `call_workflow` step: creates its recorder, writes the
    /// step's `step.call_workflow.started` (naming the child) and the child's
    /// `run.started`.
    pub(super) fn call_workflow(
        self: &Arc<Self>,
        info: &StepInfo,
        child_run_id: &str,
        name: String,
    ) -> Result<Arc<RunCore>, RunError> {
        let mut state = self.lock();
        let step = state.steps.get_mut(&info.id).ok_or_else(|| info.ended())?;
        if step.info.kind != StepKind::CallWorkflow {
            return Err(RunError::WrongKind {
                path: info.path.to_string(),
                expected: StepKind::CallWorkflow,
                found: step.info.kind.clone(),
            });
        }
        if step.child.is_some() {
            return Err(RunError::AlreadyCalled {
                path: info.path.to_string(),
            });
        }
        let recorder = self.recorder.create_child(child_run_id)?;
        let payload = Payload::Step(StepPayload::new(&*info.name, StepKind::CallWorkflow));
        let mut started = event(
            EventType::CallWorkflowStarted,
            &info.path,
            info.iteration,
            payload,
            None,
        );
        started.child_run_id = Some(child_run_id.to_owned());
        state.writes.record(&*self.recorder, started)?;
        let step = state.steps.get_mut(&info.id).ok_or_else(|| info.ended())?;
        let child = RunCore::start(
            recorder,
            name,
            StepKind::Workflow,
            Some((Arc::clone(self), info.id)),
        )?;
        step.child = Some((Arc::clone(&child), true));
        Ok(child)
    }

    /// Writes the closing events of step `id` and everything open under it, and forgets
    /// them. Best effort: a failed write is returned, the rest still closes.
    fn close(
        &self,
        state: &mut RunState,
        id: StepId,
        error: Option<String>,
        result: Value,
    ) -> Result<(), RunError> {
        let mut first_failure: Option<RunError> = None;
        let mut note = |outcome: Result<(), RunError>| {
            if let Err(failure) = outcome {
                first_failure.get_or_insert(failure);
            }
        };
        let children: Vec<StepId> = state
            .steps
            .iter()
            .filter(|(_, step)| step.parent == Some(id))
            .map(|(child, _)| *child)
            .rev()
            .collect();
        if !children.is_empty() {
            let path = state.steps[&id].info.path.clone();
            for child in children {
                let reason =
                    format!("the step was still running when its parent step {path} ended");
                note(self.close(state, child, Some(reason), Value::Null));
            }
        }
        let Some(mut step) = state.steps.remove(&id) else {
            return Ok(());
        };
        let mut ctx = StepCtx {
            recorder: &*self.recorder,
            writes: &mut state.writes,
            step: &mut step,
            call_ids: &mut state.call_ids,
            scratch: &mut state.scratch,
            tool_name: &mut state.tool_name,
        };
        for (name, call_id, slot) in ctx.step.ledger.open_router_calls() {
            let agent_call_id = ctx.step.ledger.router_result(&call_id, slot).flatten();
            let mut payload = ToolPayload::call(
                &*name,
                &*call_id,
                Value::Null,
                crate::model::Fidelity::Router,
            );
            payload.input = Value::Null;
            payload.error = Some("the step ended before the tool call returned".into());
            payload.agent_call_id = agent_call_id;
            note(
                ctx.write(EventType::ToolResult, Payload::Tool(payload), None)
                    .map(drop),
            );
        }
        let held = ctx.step.ledger.drain_held();
        note(ctx.write_all(held));
        if let Some((child, true)) = &step.child {
            let child_error = child.end_from_parent(
                "the sub-workflow was still running when its call_workflow step ended",
            );
            note(
                self.call_completed(&mut state.writes, &step.info, child.run_id(), child_error)
                    .map(drop),
            );
        }
        let payload = Payload::Step(StepPayload {
            error,
            result,
            duration_ms: Some(elapsed_ms(step.started)),
            ..StepPayload::new(&*step.info.name, step.info.kind.clone())
        });
        let info = &step.info;
        let completed = event(
            EventType::StepCompleted,
            &info.path,
            info.iteration,
            payload,
            None,
        );
        note(state.writes.record(&*self.recorder, completed).map(drop));
        match first_failure {
            Some(failure) => Err(failure),
            None => Ok(()),
        }
    }

    /// Whether `run.completed` has been written.
    pub(super) fn has_ended(&self) -> bool {
        self.lock().ended.is_some()
    }
}
