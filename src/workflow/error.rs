//! [`RunError`]: why a scope could not record what it was asked to.

use crate::model::StepKind;
use crate::record::RecordError;

/// Why a run, step or tool scope could not do what it was asked.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The recorder failed or refused the event.
    #[error(transparent)]
    Record(#[from] RecordError),
    /// The run has already ended (completed, failed, or dropped).
    #[error("run {run_id} has ended")]
    RunEnded {
        /// The run.
        run_id: String,
    },
    /// The step has already ended (completed, failed, dropped, or closed by its parent or
    /// its run).
    #[error("step {path} (iteration {iteration}) has ended")]
    StepEnded {
        /// The step's path.
        path: String,
        /// The step's iteration.
        iteration: u64,
    },
    /// A step with this path and iteration is already running: a tree could not tell the
    /// two apart. Give loop bodies and retries their iteration.
    #[error("step {path} (iteration {iteration}) is already running")]
    StepRunning {
        /// The path.
        path: String,
        /// The iteration.
        iteration: u64,
    },
    /// A step name is empty or has a `.` (the path separator) or a control character.
    #[error("invalid step name {name:?}: {reason}")]
    InvalidName {
        /// The name given.
        name: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The operation needs a step of another kind (`agent` for live capture,
    /// `call_workflow` for a sub-run).
    #[error(
        "step {path} is a `{found}` step; only {} `{expected}` step can do this",
        article(expected)
    )]
    WrongKind {
        /// The step's path.
        path: String,
        /// The kind the operation needs.
        expected: StepKind,
        /// The step's kind.
        found: StepKind,
    },
    /// The `call_workflow` step has already invoked its sub-run.
    #[error("step {path} has already invoked a sub-workflow")]
    AlreadyCalled {
        /// The step's path.
        path: String,
    },
    /// The run already has a router tool call with this id: a call id names one call in
    /// a run (readers pair `tool.call` and `tool.result` by it). Give a retry its own id.
    #[error("run {run_id} already has a tool call {call_id}")]
    CallIdUsed {
        /// The run.
        run_id: String,
        /// The call id.
        call_id: String,
    },
    /// The event type is written by a scope, not by hand (`run.*`, `step.*`, tool events).
    #[error("{event_type} is written by the scopes; record messages only")]
    Reserved {
        /// The type refused.
        event_type: String,
    },
    /// The agent's raw output file could not be created or written.
    #[error("{}: {source}", path.display())]
    Raw {
        /// The file.
        path: std::path::PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// Reading the agent's output failed.
    #[error("reading the agent's output: {0}")]
    Read(std::io::Error),
    /// The run was started by another process: this is a forked child's copy of its
    /// scopes, which must not write into the parent's run.
    #[error(
        "the run is recorded by process {owner}; a forked child cannot write to it (start a run of its own)"
    )]
    OtherProcess {
        /// The process that started the run.
        owner: u32,
    },
    /// The run's file already has events: a run is recorded from its start, once.
    #[error("{}: run {run_id} is already recorded", path.display())]
    AlreadyRecorded {
        /// The run.
        run_id: String,
        /// Its transcript, or the recorder's name for it.
        path: std::path::PathBuf,
    },
    /// The run ended, but events the disk refused could not be written even after
    /// retrying: the transcript lacks them ([`WriteReport`](super::WriteReport) says
    /// which).
    #[error("run {run_id}: {loss}")]
    Unwritten {
        /// The run.
        run_id: String,
        /// What was lost, in words.
        loss: String,
    },
}

fn article(kind: &StepKind) -> &'static str {
    match kind.as_str().chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u') => "an",
        _ => "a",
    }
}
