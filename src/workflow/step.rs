//! [`Step`]: a step scope. It writes `step.started` when opened and exactly one
//! `step.completed` when it ends, however it ends.

use std::fmt;
use std::sync::Arc;

use serde_json::Value;

use super::core::{RunCore, StepInfo, error_text};
use super::error::RunError;
use super::tool::ToolCall;
use crate::model::{EventType, Payload, StepKind};

/// A step in flight. Open one with [`Run::step`](super::Run::step) or, nested, [`Step::step`]; end it with
/// [`complete`](Step::complete), [`done`](Step::done) or [`fail`](Step::fail). A step
/// dropped without being ended (an early return, `?`, a panic) is completed as failed, with
/// the reason; a step still open when its parent step or its run ends is completed by them,
/// failed, first. So every `step.started` has exactly one `step.completed`.
///
/// `Send`, `Sync` and `'static`: open branches of a parallel step from several threads at
/// once (`&Step` is enough), or move a step into the thread or task that runs it.
#[must_use = "a step records its completion when ended; dropping it records a failure"]
pub struct Step {
    pub(super) core: Arc<RunCore>,
    /// Shared with its open step and its tool calls' scopes: a router call takes one
    /// reference, not a copy of the step's path, name and kind.
    pub(super) info: Arc<StepInfo>,
    pub(super) ended: bool,
}

impl Step {
    /// This step's path: its parent's path, a `.`, and its name.
    pub fn path(&self) -> &str {
        &self.info.path
    }

    /// Its loop or retry iteration (inherited from its parent unless given).
    pub fn iteration(&self) -> u64 {
        self.info.iteration
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.info.name
    }

    /// Its kind.
    pub fn kind(&self) -> &StepKind {
        &self.info.kind
    }

    /// The run it belongs to.
    pub fn run_id(&self) -> &str {
        self.core.run_id()
    }

    /// Whether it is still open (not ended by itself, its parent or its run).
    pub fn is_open(&self) -> bool {
        !self.ended && self.core.is_open(&self.info)
    }

    /// Opens a child step `name` (no `.` in it): path `<this path>.<name>`, this step's
    /// iteration.
    pub fn step(&self, name: &str, kind: StepKind) -> Result<Step, RunError> {
        self.open(name, kind, None)
    }

    /// Opens a child step at `iteration`: a loop body's step (`for_each`, `while`) or a
    /// retry. Steps under it inherit the iteration.
    pub fn step_at(&self, name: &str, kind: StepKind, iteration: u64) -> Result<Step, RunError> {
        self.open(name, kind, Some(iteration))
    }

    fn open(&self, name: &str, kind: StepKind, iteration: Option<u64>) -> Result<Step, RunError> {
        let info = self
            .core
            .open_step(Some(&self.info), name, kind, iteration)?;
        Ok(Step {
            core: Arc::clone(&self.core),
            info,
            ended: false,
        })
    }

    /// Opens a tool call captured at the executor's router (fidelity `router`): writes its
    /// `tool.call` now, its `tool.result` when the returned scope ends. `call_id` is the
    /// id the router knows the call by; give the agent's id for the call when the router
    /// has it, so that the agent's own report of the call is recognised at once (see
    /// [calls seen on both channels](crate::model#calls-seen-on-both-channels)).
    pub fn tool(
        &self,
        name: impl AsRef<str>,
        call_id: impl AsRef<str>,
        input: Value,
    ) -> Result<ToolCall, RunError> {
        ToolCall::open(
            Arc::clone(&self.core),
            Arc::clone(&self.info),
            name.as_ref(),
            call_id.as_ref(),
            input,
        )
    }

    /// Records a message in this step: a `message.user` (say, a prompt the executor sent
    /// a model itself) or a `message.assistant` (its reply). Lifecycle and tool events are
    /// the scopes' to write: anything else is refused. Returns the event's `seq`, or `None`
    /// when the disk refused it and it waits to be written ([`Run::write_report`](super::Run::write_report)).
    pub fn message(
        &self,
        event_type: EventType,
        payload: Payload,
    ) -> Result<Option<u64>, RunError> {
        if !matches!(
            event_type,
            EventType::MessageUser | EventType::MessageAssistant
        ) {
            return Err(RunError::Reserved {
                event_type: event_type.to_string(),
            });
        }
        self.core
            .with_step(&self.info, |ctx| ctx.write(event_type, payload, None))
    }

    /// Completes the step with `result` (`Value::Null` for none).
    pub fn complete(mut self, result: Value) -> Result<(), RunError> {
        self.ended = true;
        self.core.complete_step(&self.info, None, result)
    }

    /// Completes the step with no result.
    pub fn done(self) -> Result<(), RunError> {
        self.complete(Value::Null)
    }

    /// Completes the step as failed with `error`.
    pub fn fail(mut self, error: impl fmt::Display) -> Result<(), RunError> {
        self.ended = true;
        let error = error_text(error, "the step failed");
        self.core
            .complete_step(&self.info, Some(error), Value::Null)
    }

    /// Completes the step from an outcome: its value as the result, or its error.
    pub fn finish<T: serde::Serialize, E: fmt::Display>(
        self,
        outcome: &Result<T, E>,
    ) -> Result<(), RunError> {
        match outcome {
            Ok(value) => self.complete(serde_json::to_value(value).unwrap_or(Value::Null)),
            Err(error) => self.fail(error),
        }
    }
}

impl Drop for Step {
    fn drop(&mut self) {
        if self.ended {
            return;
        }
        let reason = if std::thread::panicking() {
            "the step was unwound by a panic"
        } else {
            "the step was dropped without being completed"
        };
        match self
            .core
            .complete_step(&self.info, Some(reason.to_owned()), Value::Null)
        {
            Ok(()) | Err(RunError::StepEnded { .. }) => {}
            Err(failure) => {
                tracing::warn!(path = &*self.info.path, %failure, "completing a dropped step failed");
            }
        }
    }
}

impl fmt::Debug for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Step")
            .field("run_id", &self.run_id())
            .field("path", &self.path())
            .field("iteration", &self.iteration())
            .field("kind", &self.kind())
            .finish_non_exhaustive()
    }
}
