//! Codex's session files: `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl`
//! (and `archived_sessions/`), one thread each, every record
//! `{"timestamp", "type", "payload"}` (Codex 0.44 and later; the shape in
//! `../shared/captures/codex-rollout/`, 0.66.0).
//!
//! # What a session becomes
//!
//! A thread is a run, its run id the thread's id (its first `session_meta`'s `id`), its
//! records read by the Codex adapter ([`normalize::codex`](crate::normalize::codex), which
//! hands the conversation's Responses items to the OpenAI adapter's reading of them). A
//! thread another spawned (`session_meta.source` is `{"subagent": ...}`: a spawned agent
//! `thread_spawn` naming its `parent_thread_id`, a `review`, a `compact`, ...; newer CLIs
//! also say `parent_thread_id` beside it) is a child run of the session whose root thread
//! it descends from, `<root>.agent-<thread id>`, linked both ways: its events carry
//! `parent_run_id`, and its parent run records `step.call_workflow.started` and
//! `.completed` around the call whose output names the child's thread id (a
//! `spawn_agent` call), or, when no call names it (a review Codex started itself), before
//! the parent closes. So one session is its root thread's file and every file below it.
//!
//! * **Resumed** sessions are the same file, appended to: one run, every leg in it; their
//!   token counts are one running total (a total that went down starts a new leg, added).
//! * **Inherited history.** A sub-agent or a fork starts with a copy of its parent's
//!   conversation (its `session_meta` says where its own records start:
//!   `subagent_history_start_ordinal`, or `history_base.end_ordinal_exclusive`, or
//!   `forked_from_ordinal_exclusive`, the 0-based index of its first own record): the copy
//!   is not fed again (it is the parent's run), only counted, in `import.kept_out.inherited`
//!   and a note, so that no message or token is counted twice.
//! * **A sub-agent whose file is missing.** A `spawn_agent` call whose output names a thread
//!   no file of the session has stays an ordinary call, and a `missing-subagent` warning
//!   names it. A child whose root's file is missing is its own session (the root named by
//!   its `parent_thread_id`), with an `orphan-subagent-file` warning.
//! * **Compaction** (`compacted`, a `compaction` item) and ghost snapshots are passthrough;
//!   what came before stays in the run.
//!
//! The run's `import` account: `format` (`codex-rollout`), `source`, `entries` (the file's
//! records), `thread` (those fed), `kept_out` (`inherited`), and when known `cwd`,
//! `originator`, `agent_source` (the `source` value), `parent_thread_id`,
//! `forked_from_id`, `agent_nickname`, `agent_role`.
//!
//! This folder owns the rollout files' layout and the links between threads; the records'
//! meaning is the adapters'.

mod discover;
mod plan;

pub(crate) use discover::discover;
pub(crate) use plan::plan;

use std::path::{Path, PathBuf};

/// The working directory a thread ran in, from its `session_meta`.
pub(crate) fn cwd(path: &Path) -> Option<PathBuf> {
    discover::head(path)?.cwd.map(PathBuf::from)
}
