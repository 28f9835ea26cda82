//! ATIF v1.8 (the Agent Trajectory Interchange Format, Harbor's RFC 0001): one trajectory
//! document for a run, its sub-runs embedded as sub-agent trajectories, as the evaluation
//! and RL world exchanges them.
//!
//! [`export`] reads the root transcript, follows every `child_run_id` of its
//! `step.call_workflow.started` events to `<dir>/<child>.jsonl` (to any depth), and maps:
//!
//! | transcript | ATIF |
//! |---|---|
//! | the run | `Trajectory`: `trajectory_id` the run id, `session_id` the provider's session (else the run id), `agent` from the run metadata (`name` the product, `Claude Code`, or the workflow's name; `version` the CLI's, `unknown` when it does not say, as the format requires one; `model_name`; `tool_definitions` where the output names the tools: Claude Code's `system/init`, names only) |
//! | the system prompt of a `message.user` (its `system_prompt` text) | a step with `source: "system"` |
//! | the prompt of a `message.user` | a step with `source: "user"` |
//! | one model response (consecutive `message.assistant` events of one message id; the `tool.call` events and the sub-runs they start between them belong to it) | **one** step with `source: "agent"`, `llm_call_count: 1`: `message` its texts, `reasoning_content` its thinking, `tool_calls` its `tool_use` blocks, `model_name` the run's (a workflow's agent step's) |
//! | `tool.result`, a `tool_result` block (in a `message.user`, or a server tool's in the assistant message) | a result in the `observation` of the step that made the call (`source_call_id`), once per call; error, exit code and duration in its `extra.axt` |
//! | a `tool.call` outside any model response (the executor's router) | an agent step with `llm_call_count: 0` (a deterministic dispatch) holding the call |
//! | a call seen on both channels | one call, the agent's `tool_use`; the router's id names it too ([`Calls`](crate::read::Calls) decides) |
//! | `step.call_workflow.started` (a sub-run) | the child's trajectory in `subagent_trajectories`, referenced (`subagent_trajectory_ref`) from the result of the call that delegated (the step path's last segment is its call id, as the importer writes it), else from a system step of its own |
//! | usage and cost in the run metadata | `final_metrics` in ATIF's terms: `total_prompt_tokens` = uncached + cache read + cache write, `total_completion_tokens` = output (reasoning included), `total_cached_tokens` = cache read; cache-write and reasoning tokens in its `extra`. A run with one model response gives that step the same `metrics` |
//! | what ATIF has no field for | `extra.axt`: run and parent ids, status, stop reason, the run's answer, provider errors, retractions, failed workflow steps, seq, path and message id of each step |
//!
//! Transcripts record usage per run, not per model call, so a run of several model
//! responses has `final_metrics` and no per-step `metrics` (`notes` says so). With
//! `redact`, every event goes through the recorder's credential redactor first.
//!
//! This module reads canonical transcripts only, never a provider's dialect. Its files:
//! `wire.rs` (the document's types) and `map.rs` (the mapping).

mod map;
pub mod wire;

use std::collections::HashSet;
use std::io::Read;
use std::path::Path;

use crate::read::tree::TreeProblem;

pub use wire::{SCHEMA_VERSION, Trajectory};

/// A trajectory, and the problems met making it (lines that are no events, missing
/// children, results without their call), located.
#[derive(Clone, Debug)]
pub struct Exported {
    /// The document.
    pub trajectory: Trajectory,
    /// The problems.
    pub problems: Vec<TreeProblem>,
}

/// The trajectory of the root run read from `input` (`name` stands for it in problems),
/// its child runs looked up in `dir`; `Err` with the problems when it holds no event.
pub fn export(
    input: impl Read,
    name: &Path,
    dir: &Path,
    redact: bool,
) -> Result<Exported, Vec<TreeProblem>> {
    let mut problems = Vec::new();
    let Some(run) = map::load(input, name, redact, &mut problems) else {
        return Err(problems);
    };
    let mut mapper = map::Mapper {
        dir: dir.to_owned(),
        redact,
        visited: HashSet::new(),
        problems,
    };
    let trajectory = mapper.trajectory(&run);
    Ok(Exported {
        trajectory,
        problems: mapper.problems,
    })
}
