//! AgentLog 0.2.0: one JSON session document for a run and all its linked child runs.
//!
//! [`export`] reads the root transcript, follows every `child_run_id` of its
//! `step.call_workflow.started` events to `<dir>/<child>.jsonl` (to any depth), and maps
//! every event type the canonical data supports, tools by the shared table of tool classes
//! ([`model::tools`](crate::model::tools)):
//!
//! | transcript | AgentLog |
//! |---|---|
//! | `message.*` text blocks | `message` (`role`, the texts joined; their citations in `axt:citations`, offsets counted in the joined text) |
//! | the system prompt of a `message.user` (its `text` block with `system_prompt: true`) | `message` with role `system`, before the prompt's `user` message |
//! | `thinking` blocks | `reasoning` (`rationale` = the text; signature and redaction in `axt:` properties) |
//! | `tool.call` + its `tool.result` | `toolCall` (`output` = the result as text, `status` success / error, `cancelled` when no result came; `durationMs` the result's `duration_ms`, else the time between the two) |
//! | a call seen on both channels (router and agent) | one `toolCall`, the router's, with `axt:sightedByAgent` (and `axt:agentCallId` when the agent's id differs); the agent's `tool.*` events give nothing ([`Calls`](crate::read::Calls)) |
//! | `tool.call` of a server tool + the `tool_result` in its assistant message | `toolCall` as above, `axt:server` |
//! | `command` blocks and shell tools ([`ToolClass::Shell`](crate::model::ToolClass::Shell)) | `terminalCommand` after the call (`stdout`, `exitCode` when known) |
//! | file tools (`FileRead`, `FileWrite`, `FileEdit`, `FilePatch`) that succeeded | `fileOperation` (path relative to the project root, a diff for edits where the input has one) |
//! | search tools (`Search`: Grep, Glob, LS, ...; `WebSearch`) | `search` after the call (`tool`, `query`: the pattern, query or directory) |
//! | fetch tools (`WebFetch`) | `contextLoad` after the call (`source` `web`, `query` the URL, `reason` the call's prompt) |
//! | plan tools (`Plan`: TodoWrite, Codex `update_plan`, Gemini `write_todos`, ExitPlanMode) | `plan` after the call (its items as steps with their status; `active` while any is open, `completed` when none is, `draft` for a plan put up for approval) |
//! | approval tools (`Approval`: the Responses API's `mcp_approval_request`) with their answer | `approval` after the call (`approver` `user`, `decision` approved / denied, the reason as `constraints`) |
//! | calls the provider denied for want of permission (the run metadata's [`denied_calls`](crate::model::RunMeta::denied_calls): Claude Code's `permission_denials`) | `approval` with `approver` `policy`, `decision` `denied`, under the call's `toolCall` |
//! | context compactions in the run metadata ([`compactions`](crate::model::RunMeta::compactions)) | `checkpoint` of type `memory_flush`, not restorable, at the compaction's time (else the run's end) |
//! | a workflow run's steps | one `plan` at the run's start, titled by the workflow, a step per `step.started` (id its path, `#N` for iteration N; `completed`, `failed` or `in_progress`), `completed` / `abandoned` / `active` as the run ended |
//! | a failed step, a failed run, provider errors in the run metadata | `error`, with a `category` read from the message (`permission`, `timeout`, `network`, `resource`, `validation`, `syntax`, `type`, else `runtime`) |
//! | the run's answer (the metadata's `answer`) | `axt:answer` on the last assistant `message` when it says the same, else a `message` of its own |
//! | output the provider withdrew (the metadata's `retracted`) | `axt:retracted` on the messages, reasoning and `toolCall`s it names |
//! | `step.call_workflow.*` | `handoff`, the child run's events after it with `parentId` = the handoff |
//! | `run.completed` metadata of every run | `metrics` (counts, files, tools, token usage with cache read / write, cost, duration; a provider session's running total once however many runs resumed it, [`Spend`](crate::read::Spend), the others counted in `axt:repeatedSessionTotals`), `agent` |
//!
//! What AgentLog has no field for goes in `properties` with an `axt:` prefix (run ids, `seq`,
//! call ids, fidelity, thinking signatures, off-chain usage of imported sessions). The
//! project root is the run's `cwd` (the import's metadata or the `system/init` passthrough),
//! or [`ExportOptions::root`]. With [`ExportOptions::redact`] every event goes through the
//! recorder's credential [`Redactor`](crate::record::Redactor) first and the count is in
//! `redactions`.
//!
//! What the exporter could not map cleanly (a line that is not an event, a child that is
//! missing or does not name its parent, a result without its call) is counted and listed in
//! the document's `axt:readProblems` and `axt:notes`, and [`export_checked`] also returns each
//! one located at its line, for a caller to report.
//!
//! The files: `wire.rs` (the document's types), `load.rs` (a run read back), `events.rs` (the
//! events, one method per kind), `files.rs` (file operations, diffs, outputs as text),
//! `document.rs` (the root object, metrics and relationships).

mod document;
mod events;
mod files;
mod load;
pub mod wire;

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::read::tree::{TreeProblem, dir_of};

pub use load::ExportError;
pub use wire::SPEC_VERSION;

/// How to export.
#[derive(Clone, Debug, Default)]
pub struct ExportOptions {
    /// The project root paths are made relative to, when the run does not say.
    pub root: Option<PathBuf>,
    /// Mask credentials with the recorder's redactor before exporting.
    pub redact: bool,
}

/// A document and what did not fit into it.
#[derive(Clone, Debug)]
pub struct Exported {
    /// The AgentLog document.
    pub document: Value,
    /// Every problem met, in the order met: the reader's problems in each file read, and
    /// what the exporter noted (also in the document's `axt:notes`).
    pub problems: Vec<TreeProblem>,
}

/// Reads the transcript at `root` and its linked child runs and returns the AgentLog
/// document.
pub fn export(root: &Path, options: &ExportOptions) -> Result<Value, ExportError> {
    export_checked(root, options).map(|exported| exported.document)
}

/// [`export`], with every problem met located in its file.
pub fn export_checked(root: &Path, options: &ExportOptions) -> Result<Exported, ExportError> {
    let file = File::open(root).map_err(|source| ExportError::Io {
        path: root.to_owned(),
        source,
    })?;
    export_from(file, root, dir_of(root), options)
}

/// [`export_checked`] of a root run read from `input` (stdin, say): `name` stands for it in
/// problems, and its child runs are looked up in `dir`.
pub fn export_from(
    input: impl Read,
    name: &Path,
    dir: &Path,
    options: &ExportOptions,
) -> Result<Exported, ExportError> {
    let mut redactions = 0;
    let run = load::load_from(input, name, options.redact, &mut redactions)?;
    let root = options
        .root
        .as_ref()
        .map(|p| p.to_string_lossy().into_owned())
        .or_else(|| load::run_cwd(load::run_meta(&run).as_ref()));
    let mut exporter = events::Exporter::new(dir, root, options.redact);
    exporter.redactions += redactions;
    exporter.run(run, None, "agent");
    let problems = std::mem::take(&mut exporter.problems);
    let document = document::document(exporter);
    Ok(Exported {
        document: serde_json::to_value(&document).expect("an AgentLog document is JSON"),
        problems,
    })
}
