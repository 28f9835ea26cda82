//! [`Run`]: the handle of one workflow run.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use serde_json::Value;

use super::backlog::{WriteReport, WriteRetry};
use super::core::{RunCore, error_text};
use super::error::RunError;
use super::step::Step;
use crate::model::StepKind;
use crate::record::{Recorder, RecorderOptions, RunRecorder, Subscription};

/// A run in flight: `run.started` is written when it starts, `run.completed` exactly once
/// when it ends: by [`complete`](Run::complete), [`done`](Run::done) or
/// [`fail`](Run::fail), or, failed, when the handle is dropped without being ended. Steps
/// still open then are completed first, failed.
///
/// `Send`, `Sync` and `'static`; steps hold the run's state, so a step may outlive the
/// handle (it is then ended with the run).
#[must_use = "a run records its completion when ended; dropping it records a failure"]
pub struct Run {
    core: Arc<RunCore>,
    ended: bool,
}

impl Run {
    /// Starts workflow run `name` on `recorder` (a [`Recorder`] for a file, a
    /// [`MemoryRecorder`](crate::record::MemoryRecorder), or your own [`RunRecorder`]):
    /// writes `run.started` with kind `workflow`.
    pub fn start(
        recorder: impl RunRecorder + 'static,
        name: impl Into<String>,
    ) -> Result<Run, RunError> {
        Run::start_shared(Arc::new(recorder), name, StepKind::Workflow)
    }

    /// As [`start`](Run::start), with a shared recorder and the run's kind (`workflow`,
    /// `agent` for a run that is one agent's, or a custom kind).
    pub fn start_shared(
        recorder: Arc<dyn RunRecorder>,
        name: impl Into<String>,
        kind: StepKind,
    ) -> Result<Run, RunError> {
        let core = RunCore::start(recorder, name.into(), kind, None)?;
        Ok(Run::from_core(core))
    }

    /// Starts workflow run `name` in `<dir>/<run-id>.jsonl` with a fresh UUID v4 run id
    /// and the default recorder options (the directory is created, 0700, when missing).
    pub fn create(dir: impl AsRef<Path>, name: impl Into<String>) -> Result<Run, RunError> {
        let run_id = crate::transcribe::new_run_id();
        let recorder = Recorder::create(dir, &run_id, RecorderOptions::default())?;
        Run::start(recorder, name)
    }

    pub(super) fn from_core(core: Arc<RunCore>) -> Run {
        Run { core, ended: false }
    }

    /// The run id.
    pub fn run_id(&self) -> &str {
        self.core.run_id()
    }

    /// The run that invoked this one, for a sub-workflow.
    pub fn parent_run_id(&self) -> Option<&str> {
        self.core.recorder.parent_run_id()
    }

    /// The transcript file, when the recorder writes one.
    pub fn path(&self) -> Option<&Path> {
        self.core.recorder.path()
    }

    /// The recorder.
    pub fn recorder(&self) -> &Arc<dyn RunRecorder> {
        &self.core.recorder
    }

    /// A live view of the events recorded from now on (see the recorder's
    /// [fan-out](crate::record#live-fan-out)).
    pub fn subscribe(&self) -> Subscription {
        self.core.recorder.subscribe()
    }

    /// Opens top-level step `name` (no `.` in it; its path is its name), iteration 0.
    pub fn step(&self, name: &str, kind: StepKind) -> Result<Step, RunError> {
        self.open(name, kind, 0)
    }

    /// Opens top-level step `name` at `iteration`: a retry of a top-level step.
    pub fn step_at(&self, name: &str, kind: StepKind, iteration: u64) -> Result<Step, RunError> {
        self.open(name, kind, iteration)
    }

    fn open(&self, name: &str, kind: StepKind, iteration: u64) -> Result<Step, RunError> {
        let info = self.core.open_step(None, name, kind, Some(iteration))?;
        Ok(Step {
            core: Arc::clone(&self.core),
            info,
            ended: false,
        })
    }

    /// What the run's writes met so far: events waiting for the disk, written late, or
    /// lost (see [when the disk refuses a write](super#when-the-disk-refuses-a-write)).
    pub fn write_report(&self) -> WriteReport {
        self.core.write_report()
    }

    /// Writes the events waiting for the disk now, if their retry is due (a caller's tick:
    /// otherwise the next event recorded retries them).
    pub fn retry_writes(&self) {
        self.core.retry_writes();
    }

    /// Sets how the run retries writes the disk refuses (default: [`WriteRetry::default`]).
    pub fn set_write_retry(&self, retry: WriteRetry) {
        self.core.set_write_retry(retry);
    }

    /// Ends the run with `result` (`Value::Null` for none).
    pub fn complete(mut self, result: Value) -> Result<(), RunError> {
        self.ended = true;
        self.core.end(None, result)
    }

    /// Ends the run with no result.
    pub fn done(self) -> Result<(), RunError> {
        self.complete(Value::Null)
    }

    /// Ends the run as failed with `error`.
    pub fn fail(mut self, error: impl fmt::Display) -> Result<(), RunError> {
        self.ended = true;
        let error = error_text(error, "the run failed");
        self.core.end(Some(error), Value::Null)
    }

    /// Ends the run with `error` (failed when `Some`) and `result`.
    pub fn end(mut self, error: Option<String>, result: Value) -> Result<(), RunError> {
        self.ended = true;
        self.core.end(error.filter(|e| !e.is_empty()), result)
    }

    /// Whether `run.completed` has been written (by this handle, or by the parent step of
    /// a sub-workflow that ended first).
    pub fn has_ended(&self) -> bool {
        self.core.has_ended()
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        if self.ended {
            return;
        }
        let reason = if std::thread::panicking() {
            "the run was unwound by a panic"
        } else {
            "the run handle was dropped without being ended"
        };
        match self.core.end(Some(reason.to_owned()), Value::Null) {
            Ok(()) | Err(RunError::RunEnded { .. }) => {}
            Err(failure) => {
                tracing::warn!(run_id = self.run_id(), %failure, "ending a dropped run failed");
            }
        }
    }
}

impl fmt::Debug for Run {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Run")
            .field("run_id", &self.run_id())
            .field("parent_run_id", &self.parent_run_id())
            .finish_non_exhaustive()
    }
}

/// Sub-workflows, here beside [`Run`] since they make one.
impl Step {
    /// Starts the sub-workflow `name` of this `call_workflow` step: a run of its own, in
    /// its own file (its recorder made by this run's), with a fresh UUID v4 as its id. The
    /// step records `step.call_workflow.started` with the child's id now, and
    /// `step.call_workflow.completed` when the child run ends (or when this step ends
    /// first, which ends the child run as failed).
    pub fn call_workflow(&self, name: impl Into<String>) -> Result<Run, RunError> {
        self.call_workflow_with_id(&crate::transcribe::new_run_id(), name)
    }

    /// As [`call_workflow`](Step::call_workflow), with the child run's id chosen by the
    /// caller.
    pub fn call_workflow_with_id(
        &self,
        child_run_id: &str,
        name: impl Into<String>,
    ) -> Result<Run, RunError> {
        let child = self
            .core
            .call_workflow(&self.info, child_run_id, name.into())?;
        Ok(Run::from_core(child))
    }
}
