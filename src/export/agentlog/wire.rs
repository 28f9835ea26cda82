//! AgentLog 0.2.0's document as Rust types, written only: the root object, the agent,
//! project, metrics and relationships, and every event type of the specification's section 3
//! with the base fields they share. A field the exporter may leave out is an `Option`
//! skipped when `None`; one the document always carries, possibly `null`, is an `Option`
//! written as `null` (marked below).
//!
//! This file owns the document's shape. It must not read events (`events.rs` fills these).

use serde::Serialize;
use serde_json::{Map, Value};

/// The AgentLog version written.
pub const SPEC_VERSION: &str = "0.2.0";

/// A property bag (`properties`), axt's keys prefixed `axt:`.
pub type Properties = Map<String, Value>;

/// The document.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Document {
    /// `0.2.0`.
    pub spec_version: &'static str,
    /// The root run's id.
    pub id: String,
    /// The root run's first event time.
    pub start_time: String,
    /// Its last event time.
    pub end_time: String,
    /// `completed`, `failed` or `interrupted`.
    pub status: &'static str,
    /// The agent.
    pub agent: AgentInfo,
    /// The project (written as `null` when the run names no root).
    pub project: Option<Project>,
    /// The events, in order.
    pub events: Vec<Event>,
    /// Aggregates.
    pub metrics: Metrics,
    /// Links to other sessions.
    pub relationships: Relationships,
    /// The credentials masked, with `redact`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redactions: Option<Vec<Redaction>>,
    /// axt's own fields.
    pub properties: Properties,
}

/// The agent.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AgentInfo {
    /// Its name (`Claude Code`).
    pub name: String,
    /// Its version (written as `null` when unknown).
    pub version: Option<String>,
    /// The model (written as `null` when unknown).
    pub model: Option<String>,
    /// The vendor, lower case (`anthropic`).
    pub provider: &'static str,
    /// Empty.
    pub properties: Properties,
}

/// The project.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Project {
    /// The root directory's name.
    pub name: String,
    /// The root directory.
    pub working_directory: String,
    /// The git branch an imported session names (written as `null` otherwise).
    pub branch: Option<Value>,
    /// Empty.
    pub properties: Properties,
}

/// Token counts (section 4.1).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenUsage {
    /// Uncached input tokens.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Cache reads.
    pub cache_read_tokens: u64,
    /// Cache writes.
    pub cache_write_tokens: u64,
    /// Reasoning, part of the output.
    pub reasoning_tokens: u64,
}

/// Aggregate metrics (section 4).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Metrics {
    /// `message` events.
    pub message_count: u64,
    /// `toolCall` events.
    pub tool_call_count: u64,
    /// Files in `filesTouched`.
    pub files_touched_count: usize,
    /// Minutes, rounded (written as `null` when unknown).
    pub duration_minutes: Option<u64>,
    /// Every run's tokens.
    pub token_usage: TokenUsage,
    /// The providers' reported cost (written as `null` when none reported one).
    pub estimated_cost_usd: Option<f64>,
    /// Files touched, relative to the project root.
    pub files_touched: Vec<String>,
    /// Tools called.
    pub tools_used: Vec<String>,
    /// Models that answered.
    pub models_used: Vec<String>,
    /// `axt:durationMs`.
    pub properties: Properties,
}

/// Links to other sessions.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Relationships {
    /// The run that invoked the root (written as `null` for none).
    pub parent_session: Option<String>,
    /// The runs the root invoked.
    pub child_sessions: Vec<String>,
    /// Empty.
    pub properties: Properties,
}

/// A redaction count.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Redaction {
    /// `api_key`.
    pub category: &'static str,
    /// How many were masked.
    pub count: u64,
    /// `axt`.
    pub redacted_by: &'static str,
}

/// What every event has.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Base {
    /// Unique in the document: `<run_id>:<seq>`, and a suffix for events one transcript
    /// event makes several of.
    pub id: String,
    /// When.
    pub timestamp: String,
    /// The event it nests under (written as `null` for none).
    pub parent_id: Option<String>,
    /// How long it took.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// axt's own fields.
    pub properties: Properties,
}

/// One event, by its `type`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Event {
    /// A message.
    Message {
        /// Base fields.
        #[serde(flatten)]
        base: Base,
        /// `user`, `assistant` or `system`.
        role: String,
        /// Its text.
        content: String,
    },
    /// A tool call and its outcome.
    ToolCall {
        /// Base fields.
        #[serde(flatten)]
        base: Base,
        /// The tool.
        name: String,
        /// Its input, an object.
        input: Value,
        /// Its output as text (written as `null` until a result came).
        output: Option<String>,
        /// `success`, `error` or `cancelled`.
        status: &'static str,
    },
    /// A file read, created, edited or deleted.
    FileOperation {
        /// Base fields.
        #[serde(flatten)]
        base: Base,
        /// `read`, `create`, `edit` or `delete`.
        operation: &'static str,
        /// The path, relative to the project root.
        path: String,
        /// A unified diff.
        #[serde(flatten)]
        diff: Option<Diff>,
    },
    /// A shell command.
    TerminalCommand {
        /// Base fields.
        #[serde(flatten)]
        base: Base,
        /// The command line.
        command: String,
        /// Where it ran (written as `null` when unknown).
        cwd: Option<String>,
        /// Its output.
        stdout: String,
        /// Its exit code (written as `null` when unknown).
        exit_code: Option<i64>,
    },
    /// A search.
    Search {
        /// Base fields.
        #[serde(flatten)]
        base: Base,
        /// The search tool.
        tool: String,
        /// What it looked for.
        query: String,
    },
    /// The agent's reasoning.
    Reasoning {
        /// Base fields.
        #[serde(flatten)]
        base: Base,
        /// `reasoning`.
        intent: &'static str,
        /// The reasoning text.
        rationale: String,
        /// Whether the provider showed it.
        visible: bool,
    },
    /// An error.
    Error {
        /// Base fields.
        #[serde(flatten)]
        base: Base,
        /// What went wrong.
        message: String,
        /// An error code (a step's, an exit status).
        #[serde(skip_serializing_if = "Option::is_none")]
        code: Option<String>,
        /// One of the specification's categories.
        category: &'static str,
        /// Whether the run went on past it.
        resolved: bool,
    },
    /// A delegation to a sub-run.
    Handoff {
        /// Base fields.
        #[serde(flatten)]
        base: Base,
        /// The delegating agent.
        from_agent: String,
        /// The sub-run's name.
        to_agent: String,
        /// The prompt handed over (written as `null` when unknown).
        context_transferred: Option<String>,
        /// `initiated`, `completed` or `failed`.
        status: &'static str,
    },
    /// A permission decision.
    Approval {
        /// Base fields.
        #[serde(flatten)]
        base: Base,
        /// What needed it.
        action: String,
        /// `user`, `policy` or `system`.
        approver: &'static str,
        /// `approved` or `denied`.
        decision: &'static str,
        /// Why, when said.
        #[serde(skip_serializing_if = "Option::is_none")]
        constraints: Option<String>,
        /// The tool.
        #[serde(skip_serializing_if = "Option::is_none")]
        tool_name: Option<String>,
    },
    /// A plan or to-do list.
    Plan {
        /// Base fields.
        #[serde(flatten)]
        base: Base,
        /// Its title.
        title: String,
        /// Its steps.
        steps: Vec<PlanStep>,
        /// `draft`, `active`, `completed` or `abandoned`.
        status: &'static str,
    },
    /// A state snapshot (a context compaction).
    Checkpoint {
        /// Base fields.
        #[serde(flatten)]
        base: Base,
        /// `memory_flush` for a compaction.
        checkpoint_type: &'static str,
        /// What it was.
        #[serde(skip_serializing_if = "Option::is_none")]
        label: Option<String>,
        /// Whether it can be restored.
        restorable: bool,
    },
    /// Context loaded from outside (a fetched page).
    ContextLoad {
        /// Base fields.
        #[serde(flatten)]
        base: Base,
        /// `web` for a fetch.
        source: &'static str,
        /// What was loaded.
        #[serde(skip_serializing_if = "Option::is_none")]
        query: Option<String>,
        /// Why, when the call said.
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
}

/// A file operation's diff.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Diff {
    /// The diff.
    pub diff: String,
    /// `unified`.
    pub diff_format: &'static str,
    /// `+` lines.
    pub lines_added: u64,
    /// `-` lines.
    pub lines_removed: u64,
}

/// A plan's step.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlanStep {
    /// Its position (or a workflow step's path).
    pub id: String,
    /// What it is.
    pub description: String,
    /// `pending`, `in_progress`, `completed`, `failed` or `skipped`.
    pub status: &'static str,
}

impl Event {
    /// The base fields.
    pub fn base(&self) -> &Base {
        match self {
            Event::Message { base, .. }
            | Event::ToolCall { base, .. }
            | Event::FileOperation { base, .. }
            | Event::TerminalCommand { base, .. }
            | Event::Search { base, .. }
            | Event::Reasoning { base, .. }
            | Event::Error { base, .. }
            | Event::Handoff { base, .. }
            | Event::Approval { base, .. }
            | Event::Plan { base, .. }
            | Event::Checkpoint { base, .. }
            | Event::ContextLoad { base, .. } => base,
        }
    }

    /// The base fields, to change.
    pub fn base_mut(&mut self) -> &mut Base {
        match self {
            Event::Message { base, .. }
            | Event::ToolCall { base, .. }
            | Event::FileOperation { base, .. }
            | Event::TerminalCommand { base, .. }
            | Event::Search { base, .. }
            | Event::Reasoning { base, .. }
            | Event::Error { base, .. }
            | Event::Handoff { base, .. }
            | Event::Approval { base, .. }
            | Event::Plan { base, .. }
            | Event::Checkpoint { base, .. }
            | Event::ContextLoad { base, .. } => base,
        }
    }
}
