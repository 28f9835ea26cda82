//! Formats agents already keep on disk, turned into canonical transcripts.
//!
//! ```text
//! agent's own files -> store's plan (runs, links, records) -> adapter -> events -> Recorder
//! ```
//!
//! An importer owns reading another tool's files and deciding which of their entries make the
//! run; it reuses the provider adapters of [`normalize`](crate::normalize) for the content
//! itself, so a block means the same whether it came from a live stream or a log file.
//! It must not learn a provider's content dialect itself (that is the adapters'), nor write
//! files other than through the [`Recorder`](crate::record::Recorder), nor change the logs it
//! reads.
//!
//! Importers: [`claude_code`] (Claude Code session logs, `~/.claude/projects`), [`codex`]
//! (Codex session files, `~/.codex/sessions`), `copilot` (Copilot CLI session logs,
//! `~/.copilot/session-state`), `gemini` (Gemini CLI saved sessions and chats,
//! `~/.gemini/tmp`), `qwen` (Qwen Code sessions, `~/.qwen/projects`), `opencode` (OpenCode's
//! sessions, `~/.local/share/opencode`: its SQLite database or its JSON files).
//!
//! # Rooms
//!
//! Each store is a folder; what every store shares sits beside them, each room using only
//! the ones listed after it:
//!
//! * `stores`: the stores by name, where each keeps its sessions, and the dispatch to
//!   their folders.
//! * `incremental`: importing again, reading only the sessions that are new or changed,
//!   on every core (the crate's scheduler, [`batch`](crate::batch)).
//! * `state`: the output directory's record of what it imported.
//! * `write`: a planned session's runs made in memory or written (created, replaced, or
//!   updated: the lines still right kept, the rest appended; [`write::Mode`]).
//! * `stream`: a planned run's records fed to its adapter, straight into a sink, with the
//!   `step.call_workflow.*` events of the runs it spawned.
//! * `feed`: the plan's vocabulary (runs, records, spawns).
//! * `entries`: reading a store's JSON Lines by line and range, and their content hash.
//! * `ids`: the run ids an importer makes.
//! * `session`: the public vocabulary (files, runs, notes, diagnostics, errors).

pub mod claude_code;
pub mod codex;
mod copilot;
mod gemini;
mod opencode;
mod qwen;

pub mod incremental;
pub mod state;
pub mod stores;
pub mod write;

mod entries;
mod feed;
mod ids;
mod session;
mod stream;

pub use session::{
    FileDiagnostic, ImportError, Imported, ImportedRun, Note, NoteKind, RunChange, Session,
    SessionFiles, WrittenRun,
};
pub use stores::{Env, Found, Store};
// What `axt usage` (src/usage/) reads a store by as its importer does.
pub(crate) use copilot::fallback_id as copilot_fallback_id;
pub(crate) use opencode::json_files as opencode_json_files;
pub(crate) use qwen::surrogate_escape;
