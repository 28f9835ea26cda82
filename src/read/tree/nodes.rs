//! What a tree is made of, as [`build`](super::build) and [`forest`](super::forest) hand it
//! out and `axt tree --json` prints it: runs, steps, messages, tool calls, their statuses, and
//! the problems found on the way.
//!
//! This room owns the shapes and their serialization; it reads no file and decides nothing
//! about where a node goes (that is the tree builder's, in the roof).

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::read::duration::DurationSource;
use crate::read::reader::{Problem, ProblemKind};

/// A run and everything under it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Tree {
    /// The root run.
    pub root: Run,
    /// Everything that did not fit, in every file of the tree.
    pub problems: Vec<TreeProblem>,
}

/// One run: one file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Run {
    /// The run's id (of its first event).
    pub run_id: String,
    /// The run that invoked it, as the file says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_run_id: Option<String>,
    /// The file it was read from.
    pub file: PathBuf,
    /// The workflow name of `run.started`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// How it ended.
    pub status: Status,
    /// The failure of `run.completed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Duration, by the rule of the run [summary](crate::read::summary): measured by its
    /// writer, else reported by the provider, else from the provider's stamps, else (a run
    /// that is not an agent's output) between the stamps of `run.started` and
    /// `run.completed`; none for an undated run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// Where `duration_ms` comes from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_source: Option<DurationSource>,
    /// The provider's own figure, when `duration_ms` is another (measured) one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reported_duration_ms: Option<u64>,
    /// Events read.
    pub events: u64,
    /// Top-level steps, messages and tool calls, in order.
    pub children: Vec<Node>,
    /// Steps, messages, tool calls and sub-runs of this run left out of the tree because
    /// it held [`MAX_TREE_NODES`] already (their events were read all the same).
    #[serde(skip_serializing_if = "is_zero")]
    pub elided: u64,
}

/// The most steps, messages and tool calls a tree keeps, over all its runs: enough for any
/// run a person reads as a tree, and a bound on memory (some 30 MB) for the runs no one
/// does (a 2 GB transcript of small steps made a tree of 6 GB).
pub const MAX_TREE_NODES: usize = 100_000;

fn is_zero(count: &u64) -> bool {
    *count == 0
}

/// Something under a run or a step.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "node", rename_all = "snake_case")]
pub enum Node {
    /// A step, with what happened inside it.
    Step(Step),
    /// A message, summarized.
    Message(Message),
    /// A tool call and its outcome.
    Tool(ToolCall),
    /// A sub-run, under the `call_workflow` step that invoked it.
    Run(Run),
}

/// A step.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Step {
    /// Dot-separated path.
    pub path: String,
    /// Loop or retry iteration.
    pub iteration: u64,
    /// Step name.
    pub name: String,
    /// Step kind (`agent`, `command`, `call_workflow`, ...).
    pub kind: String,
    /// How it ended.
    pub status: Status,
    /// The failure of `step.completed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Its `duration_ms` as its writer measured it, else between its start and end events
    /// when those carry times (not in an undated run: see [`Run::duration_ms`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// The sub-run it invoked (`call_workflow` steps).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub child_run_id: Option<String>,
    /// Line of its start event.
    pub line: u64,
    /// Line of the event that completed it (`step.completed`, or the
    /// `step.call_workflow.completed` of a step that event's twin opened); `None` while it
    /// is incomplete. For readers that place a step's events (the HTML view); not in
    /// `axt tree --json`.
    #[serde(skip)]
    pub end_line: Option<u64>,
    /// What happened inside, in order.
    pub children: Vec<Node>,
}

/// A message, summarized: its role and the types of its blocks.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Message {
    /// `user` or `assistant`.
    pub role: String,
    /// Block types in order.
    pub blocks: Vec<String>,
    /// Line of the event.
    pub line: u64,
}

/// A tool call and its result: one node per call, a call seen on both channels (captured
/// by the router, reported by the agent too) included, by the rule of
/// [`Calls`](crate::read::calls::Calls): the router's name, id and outcome, and
/// `sighted_by_agent`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolCall {
    /// Tool name.
    pub name: String,
    /// Correlation id.
    pub call_id: String,
    /// How it ended.
    pub outcome: Outcome,
    /// The failure of `tool.result`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The router captured the call and the agent reported it too: the agent's events
    /// are a sighting of this call, not a call of their own.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub sighted_by_agent: bool,
    /// The id the agent reported the call under, when it differs from `call_id`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_call_id: Option<String>,
    /// Line of its first event (the agent's, when the agent reported it first).
    pub line: u64,
    /// Lines of every event of the call, in file order: its `tool.call` and `tool.result`
    /// and the agent's sightings of it. For readers that show the events of a call
    /// together (the HTML view); not in `axt tree --json`.
    #[serde(skip)]
    pub lines: Vec<u64>,
}

/// How a run or step ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// No end event (still running, or the file was cut).
    Incomplete,
    /// Ended without error.
    Completed,
    /// Ended with an error.
    Failed,
}

/// How a tool call ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// No `tool.result`.
    Pending,
    /// A result without error.
    Ok,
    /// A result with an error.
    Error,
    /// A `tool.result` with no `tool.call` before it.
    NoCall,
}

impl Status {
    /// Lower-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Incomplete => "incomplete",
            Status::Completed => "completed",
            Status::Failed => "failed",
        }
    }
}

impl Outcome {
    /// Lower-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Pending => "pending",
            Outcome::Ok => "ok",
            Outcome::Error => "error",
            Outcome::NoCall => "no-call",
        }
    }
}

/// What kind of tree problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LinkKind {
    /// A problem in one file, found by the [`Reader`](crate::read::Reader).
    Read(ProblemKind),
    /// A `child_run_id` with no file holding that run.
    MissingChild,
    /// A file whose `parent_run_id` names a run that does not invoke it.
    Orphan,
    /// A run that invokes itself or one of its ancestors.
    Cycle,
    /// A child whose `parent_run_id` is not its invoker, or a run invoked twice.
    ParentMismatch,
    /// Events that do not fit the step structure.
    Structure,
}

impl LinkKind {
    /// Short kebab-case name, stable for machine-readable reports.
    pub fn as_str(self) -> &'static str {
        match self {
            LinkKind::Read(kind) => kind.as_str(),
            LinkKind::MissingChild => "missing-child",
            LinkKind::Orphan => "orphan",
            LinkKind::Cycle => "cycle",
            LinkKind::ParentMismatch => "parent-mismatch",
            LinkKind::Structure => "structure",
        }
    }
}

/// A problem in a tree, and where: a problem about a whole file (a run invoked by a parent
/// it does not name, an orphan) is placed at the file's first event, where the run's ids
/// are.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TreeProblem {
    /// The file.
    pub file: PathBuf,
    /// 1-based line.
    pub line: u64,
    /// Byte offset of that line.
    pub offset: u64,
    /// What kind.
    #[serde(serialize_with = "kind_name")]
    pub kind: LinkKind,
    /// What exactly.
    pub message: String,
}

fn kind_name<S: serde::Serializer>(kind: &LinkKind, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(kind.as_str())
}

impl TreeProblem {
    pub(crate) fn read(file: &Path, problem: Problem) -> TreeProblem {
        TreeProblem {
            file: file.to_owned(),
            line: problem.line,
            offset: problem.offset,
            kind: LinkKind::Read(problem.kind),
            message: problem.message,
        }
    }

    pub(crate) fn at(
        file: &Path,
        (line, offset): (u64, u64),
        kind: LinkKind,
        message: String,
    ) -> TreeProblem {
        TreeProblem {
            file: file.to_owned(),
            line,
            offset,
            kind,
            message,
        }
    }
}

impl fmt::Display for TreeProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: byte {}: {}: {}",
            self.file.display(),
            self.line,
            self.offset,
            self.kind.as_str(),
            self.message
        )
    }
}

impl Tree {
    /// Whether the root file held no event at all: there is no run to show.
    pub fn is_empty(&self) -> bool {
        self.root.events == 0
    }

    /// The tree as `axt tree --json` prints it (and the Python package's `axt.tree`
    /// returns it): `{"root": <the root run>}`, `root` null when the file held no event (a
    /// run printed then would be invented). The problems are reported apart.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self.json()).unwrap_or(Value::Null)
    }

    /// Writes [`to_json`](Tree::to_json)'s document, indented, straight from the tree:
    /// no copy of it as a `Value` (which takes several times the tree's memory).
    pub fn write_json(&self, out: impl io::Write) -> serde_json::Result<()> {
        serde_json::to_writer_pretty(out, &self.json())
    }

    fn json(&self) -> TreeJson<'_> {
        TreeJson {
            root: (!self.is_empty()).then_some(&self.root),
        }
    }
}

/// `{"root": ...}`, serialized from the tree itself.
#[derive(Serialize)]
struct TreeJson<'a> {
    root: Option<&'a Run>,
}
