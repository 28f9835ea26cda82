//! ATIF v1.8's documents as Rust types, written only: each struct is one of the format's
//! schemas (the RFC's `Trajectory`, `AgentSchema`, `StepObject`, `ToolCallSchema`,
//! `ObservationSchema`, `ObservationResultSchema`, `SubagentTrajectoryRefSchema`,
//! `MetricsSchema`, `FinalMetricsSchema`), field for field, with absent fields left out.
//!
//! This file owns the document's shape. It must not read events (`map.rs` fills these).

use serde::Serialize;
use serde_json::{Map, Value};

/// The `schema_version` written.
pub const SCHEMA_VERSION: &str = "ATIF-v1.8";

/// A trajectory: a run, with its sub-runs embedded.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Trajectory {
    /// `ATIF-v1.8`.
    pub schema_version: &'static str,
    /// The provider's session id, else the run id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The run id: unique within a parent's `subagent_trajectories`.
    pub trajectory_id: String,
    /// The agent system.
    pub agent: Agent,
    /// Every step, in order, `step_id` from 1.
    pub steps: Vec<Step>,
    /// What the format has no field for, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// Totals of the run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub final_metrics: Option<FinalMetrics>,
    /// axt's own fields (`extra.axt`).
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
    /// The sub-runs it invoked.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub subagent_trajectories: Vec<Trajectory>,
}

/// The agent system.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Agent {
    /// Its name (`Claude Code`, a workflow's name).
    pub name: String,
    /// Its version (`unknown` when the output does not say: the format requires one).
    pub version: String,
    /// The model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_name: Option<String>,
    /// The tools it had, where its output names them (OpenAI-style function entries).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_definitions: Option<Vec<Value>>,
    /// axt's own fields.
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

/// Who a step is from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// The system prompt, or an event of the infrastructure.
    System,
    /// The user's prompt.
    User,
    /// One model call (or, with `llm_call_count` 0, a tool call the executor made itself).
    Agent,
}

/// One step.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Step {
    /// Its position, from 1.
    pub step_id: u64,
    /// Its time (RFC 3339, as the transcript has it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    /// Who it is from.
    pub source: Source,
    /// The model (agent steps).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_name: Option<String>,
    /// Its text.
    pub message: String,
    /// The model's reasoning (agent steps).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_content: Option<String>,
    /// The tools it called (agent steps).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Vec<ToolCall>>,
    /// What came back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observation: Option<Observation>,
    /// Tokens and cost (agent steps).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metrics: Option<Metrics>,
    /// axt's own fields.
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
    /// Model calls in the step: 1, or 0 for a call the executor's router made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub llm_call_count: Option<u64>,
}

/// A tool call.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolCall {
    /// The call id.
    pub tool_call_id: String,
    /// The tool.
    pub function_name: String,
    /// Its arguments, an object (`{"value": ...}` around anything else).
    pub arguments: Map<String, Value>,
    /// axt's own fields.
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

/// What came back after a step.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Observation {
    /// One per result.
    pub results: Vec<ObservationResult>,
}

/// One result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ObservationResult {
    /// The call it answers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_call_id: Option<String>,
    /// The output as text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// The sub-run the call delegated to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subagent_trajectory_ref: Option<Vec<SubagentRef>>,
    /// axt's own fields.
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

/// A reference to an embedded sub-run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SubagentRef {
    /// Its `trajectory_id` in `subagent_trajectories`.
    pub trajectory_id: String,
}

/// A step's tokens, as ATIF counts them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Metrics {
    /// Every input token, cached ones included.
    pub prompt_tokens: u64,
    /// Generated tokens, reasoning included.
    pub completion_tokens: u64,
    /// Of `prompt_tokens`, those read from the cache.
    pub cached_tokens: u64,
    /// Cost in US dollars, as the provider reported it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// What ATIF has no field for: cache-write and reasoning tokens.
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

/// The run's totals.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FinalMetrics {
    /// Every input token, cached ones included.
    pub total_prompt_tokens: u64,
    /// Generated tokens, reasoning included.
    pub total_completion_tokens: u64,
    /// Of the prompt tokens, those read from the cache.
    pub total_cached_tokens: u64,
    /// Cost in US dollars, as the providers reported it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_cost_usd: Option<f64>,
    /// Steps in `steps`.
    pub total_steps: u64,
    /// What ATIF has no field for: cache-write and reasoning tokens.
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}
