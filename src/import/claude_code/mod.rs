//! Claude Code session logs: `~/.claude/projects/<project>/<session>.jsonl`, with sub-agents
//! in the same file (`isSidechain`, Claude Code 2.0) or in `<session>/subagents/agent-<id>.jsonl`
//! (newer versions, with an optional `agent-<id>.meta.json` beside them; at any depth below
//! `subagents/`, as `subagents/workflows/<run>/agent-<id>.jsonl`, where a file not named
//! `agent-*.jsonl` is noted `not-an-agent-log` and not imported, but for a dynamic
//! workflow's `journal.jsonl`, which is the workflow's own run, its agents its children:
//! see the `workflow` room); and the seed's
//! layout, `<project>/<session>/transcripts/<agent-id>.jsonl`, every agent a log of its own.
//!
//! # What a session becomes
//!
//! One session is one root run, its run id the session id (the file name's stem when no entry
//! names a session), so importing the same session again names the same files. Every
//! sub-agent is a child run, `<session>.agent-<agentId>` (`<session>.sidechain-<uuid>` when
//! the log has no agent id; a run id another run of the session already has gets `.2`,
//! `.3`, ..., so that every run has a file of its own), linked both ways: its events carry
//! `parent_run_id`, and the run that spawned it records `step.call_workflow.started` right
//! after the `Task` / `Agent` tool call and `step.call_workflow.completed` right after that
//! call's result, both with `child_run_id` and path `agent.<tool call id>`. Sub-agents nest
//! to any depth. The entries of one in-file sidechain are those its `parentUuid` links
//! connect together with those sharing its `agentId` (Claude Code 2.0.46 writes `agentId`
//! on a sidechain's user entries, not on its assistant entries); parts naming different
//! agents are never joined.
//!
//! A session known only by its agents' logs (the seed's `<session>/transcripts/*.jsonl`, or
//! `<session>/subagents/` whose `<session>.jsonl` is gone, noted `orphan-subagent-file`) has
//! no session log to be its root: every agent is a run `<session>.agent-<id>`, `<session>`
//! being the directory's name and `<id>` the file's stem without its `agent-` prefix (so
//! `agent-a.jsonl` of two sessions gives two runs, and a sub-agent's run id does not change
//! when its session log goes missing). Its root is the agent no call of another spawned
//! (by agent id or by prompt), the others are linked to the calls that spawned them.
//!
//! # The graph
//!
//! A session file is a graph, not a list: every entry has a `uuid` and a `parentUuid`.
//! * **The thread.** The run is the chain that ends at the last user or assistant entry of
//!   the file (outside sidechains), followed back through `parentUuid`; a `compact_boundary`
//!   entry (its `parentUuid` is null) continues through its `logicalParentUuid`, so what
//!   happened before a compaction stays in the run. Entries are then read in file order.
//! * **A parent not in the file.** When the chain reaches a `logicalParentUuid` (note
//!   `compaction-fallback`) or `parentUuid` (note `missing-parent`) that names no entry of
//!   the file, it goes on in file order, from the last message before that entry: the history
//!   before a compaction, or before a parent Claude Code never wrote, is never lost. Both
//!   notes are warnings; the entries placed so are counted in `import.rejoined.file-order`.
//! * **What belongs to the thread wherever it hangs.** Claude Code 2.x writes one API
//!   message as a chain of entries, one content block each, sharing `message.id`, and
//!   starts each tool as soon as its block is complete; from 2.1.38 whatever it writes
//!   meanwhile (a hook's `progress` or `attachment` entry, an agent's `agent_progress`, the
//!   result of a sibling call that has finished) can be the parent of the message's next
//!   entry. Each `tool_result` entry hangs off its own call's entry, or off another entry of
//!   the batch, and the conversation goes on from only one of them. So every entry of a
//!   message the thread has is the thread's (`parallel-call`), and so is every entry that
//!   answers a call of the thread that has no result in it yet, or holds the body of a
//!   call's result (a skill's text, naming its call by `sourceToolUseID`): `parallel-result`.
//!   Both are counted in the run's `import.rejoined`; every call and result stays in the
//!   thread, in file order, in the main log and in every agent's log alike. Neither rule
//!   makes a new message the thread's: a message is on it by the chain alone.
//! * **Everything else off the chain is kept, not dropped**, in the run's metadata
//!   (`run.completed` result, `passthrough`, kind `axt-import/off-chain`, with the whole entry
//!   and its `reason`), branch by branch (an entry whose parent is kept out too is in its
//!   parent's branch, wherever the file has it): a branch with a message the user or the
//!   model wrote is `rewound` (the user went back to an earlier prompt and edited it: a
//!   second prompt with the same parent, the first one's branch abandoned, and the log kept
//!   it); a branch of only system, hook or progress entries (hooks forking the chain) is a
//!   `side-branch`; an entry that repeats one of the thread's (the same message and content,
//!   or a result for a call the thread has answered) is a `duplicate`.
//!   Nothing leaves the event stream unannounced: each run's `import.kept_out` counts these
//!   entries by reason, and a `kept-out` note (printed by `axt import`) says how many
//!   messages, tool calls and tool results they hold. The tokens of rewound assistant
//!   messages were spent: they are added up apart, in `import.off_chain_usage`, never mixed
//!   into the run's usage.
//! * **Compaction.** `compact_boundary` entries are passthrough like every `system` entry; the
//!   compaction summary (`isCompactSummary`, a user entry the user never typed) is kept as
//!   passthrough `axt-import/compact-summary` rather than as a user message.
//! * `summary` (`leafUuid`), `file-history-snapshot`, `queue-operation`, `attachment`,
//!   `progress` and every other entry type are passthrough metadata, never an error.
//!
//! # The run's `import` metadata
//!
//! `run.completed`'s result has an `import` object: `format` (`claude-code-session`, or
//! `claude-code-simplified`), `source` (the log's file name), `entries` (the entries of that
//! file), `thread` (those in this run's thread), `off_chain` (those of this run's group kept
//! out of it), `kept_out` (the same by reason: `rewound`, `side-branch`, `duplicate`), `rejoined` (entries
//! off the `parentUuid` chain placed in the thread, by rule: `parallel-call`,
//! `parallel-result`, `file-order`), `compactions`, and when known `cwd`, `git_branch`,
//! `agent_id`, `subagent_meta`, `off_chain_usage`. Over the runs made from one file,
//! `thread` plus `off_chain` adds up to `entries`: every entry is in a thread or counted.
//!
//! # Messages and usage
//!
//! The entries of the thread are read by the Claude Code stream-json adapter
//! ([`normalize::claude`](crate::normalize::claude)): on-disk entries carry the same
//! `message` shapes, one content block per entry. So a message spread over several entries
//! shares its `message_id`, a `Bash` call gets its `command` block, results are paired with
//! calls, and usage is counted once per `message.id`, from its *last* snapshot. The log has
//! no terminal record: the run is closed as completed, its duration the span of the entry
//! timestamps. Diagnostics name the line of the session file.
//!
//! # The seed's simplified format
//!
//! A file whose first record is `{"type":"tool_use"|"tool_result"|"text"|"error"|"stop"|
//! "result"}` or `{"role", "content"}` is read as the simplified event format instead: each
//! line is rewritten into the stream-json line it stands for (a `tool_result` without
//! `tool_use_id` answers the oldest unanswered call; `stop` and `result` make one terminal
//! record). As a session log its run id is the file's stem; as an agent log of the seed's
//! layout, `<session>.agent-<id>` like every agent.
//!
//! # Not a session log
//!
//! A file with no entry, or whose entries are not session-log entries (none names its
//! `sessionId`, none is a `summary` or `file-history-snapshot`: `claude -p` stream-json
//! output, say, which `axt normalize` reads), is refused with
//! [`ImportError::NotASession`], naming the line that shows it; nothing of its session is
//! written. Importing it would "succeed" with an empty run, or one whose every record was
//! taken for a rewind. An agent log of a session that is no session log costs only itself:
//! a `not-an-agent-log` warning names it and the rest of the session is imported (the
//! session is refused only when none of its files could be read).
//!
//! # Writing
//!
//! [`write()`] refuses to touch a run file that exists unless told to replace it: the recorder
//! would continue the old file, and the same id can belong to a transcript made otherwise
//! (`axt normalize` of the same session names its run after the session too). A run is
//! replaced by its recorder, under the run's lock, so a run another process is recording is
//! never replaced ([`RecordError::Busy`](crate::record::RecordError::Busy)).
//!
//! # Memory
//!
//! The thread is known only at the end of the file, so a session is read twice. The first
//! pass keeps a *skeleton* per entry (uuid, parentUuid, type, flags, agent id, the ids of its
//! tool calls and results, a hash of its prompt, and its line and byte range): the threads,
//! and the call that spawned each sub-agent, are decided from that alone, linking through
//! indexes by agent id and by prompt. Then [`import_session`] reads each run's entries
//! again by their byte range and streams them through the adapter into the recorder,
//! putting the `step.call_workflow.*` events in as the spawning calls and their results go
//! by: memory follows the session's structure, not its content (a 50 MB session of 4,000
//! sidechains imports in under 40 MB; `make import-memory`). [`convert`] makes the same
//! events into memory, for tests and callers that want them. Sessions are independent and
//! [`import`] converts them on every core.

use std::io;
use std::path::{Path, PathBuf};

use crate::batch;
use crate::import::write::{self as writing, Mode};

// The files of the importer. This file holds the entry points: converting a session in
// memory, importing one into a directory (streaming), importing every session under a path
// in parallel, and writing. Each file below uses only the files listed after it; the
// shared ones (`import::{feed, stream, write, entries, ids, session}`) are the import's.
//
// A session's plan: its threads, their run ids, who spawned whom.
mod plan;
// Linking sub-agents to the calls that spawned them.
mod link;
// The seed's simplified format, rewritten into stream-json lines.
mod simplified;
// A thread: what is fed to the adapter, its metadata, what was kept out.
mod thread;
// A dynamic workflow's journal and snapshot: its run, its agents linked to it.
mod workflow;
// Choosing a thread's entries from the graph.
mod select;
// An entry's head: the fields the plan reads of a line, skimmed or by serde.
mod head;
// A log's skeleton, read once.
mod log;
// Finding sessions and their agents' logs by path.
mod discover;

pub use crate::import::session::{
    FileDiagnostic, ImportError, ImportOptions, Imported, ImportedRun, Note, NoteKind, RunChange,
    Session, SessionFiles, SessionOutcome, WrittenRun,
};
pub use discover::{Skipped, discover, discover_skipping};

pub(crate) use log::cwd;
pub(crate) use plan::plan;

/// Reads a session's files and makes its runs. Pure: nothing is written. The events are
/// all in memory; [`import`] streams them into the recorder instead.
pub fn convert(files: &SessionFiles) -> Result<Session, ImportError> {
    writing::convert(&plan(files)?)
}

/// Converts a session and writes its runs into `dir`, root first, streaming: each run's
/// entries are read again from the file one by one and their events go straight into the
/// recorder, so memory holds the session's skeleton, not its content. Writes what
/// `write(&convert(files)?, dir, replace)` writes.
pub fn import_session(
    files: &SessionFiles,
    dir: &Path,
    replace: bool,
) -> Result<Imported, ImportError> {
    let mode = if replace { Mode::Replace } else { Mode::Create };
    writing::write_plan(&plan(files)?, dir, mode)
}

/// What [`import`] did: each session's outcome, in the order of [`discover()`], and the
/// files it skipped because their names say they are no session log.
#[derive(Debug)]
pub struct ImportReport {
    /// Each session's outcome.
    pub sessions: Vec<SessionOutcome>,
    /// Files left out by name (`~/.claude/history.jsonl`), with what they are.
    pub skipped: Vec<Skipped>,
}

/// Imports every session under `path` into `dir`, in parallel; `progress(done, total)` is
/// called after each session.
pub fn import(
    path: &Path,
    dir: &Path,
    options: &ImportOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> io::Result<ImportReport> {
    let (found, skipped) = discover_skipping(path)?;
    let mut sessions = Vec::with_capacity(found.len());
    batch::in_order(
        &found,
        batch::workers(options.jobs, found.len()),
        |_, files, send| send(import_session(files, dir, options.replace)),
        |index, result| {
            progress(index + 1, found.len());
            sessions.push(SessionOutcome {
                files: found[index].clone(),
                result,
            });
        },
    );
    Ok(ImportReport { sessions, skipped })
}

/// Writes a converted session's runs into `dir`, root first; returns the files.
pub fn write(session: &Session, dir: &Path, replace: bool) -> Result<Vec<PathBuf>, ImportError> {
    writing::write_session(session, dir, replace)
}

#[cfg(test)]
mod tests {
    use super::{SessionFiles, convert, import_session};
    use crate::record::faults::{Fault, inject};

    /// The import's output goes through the recorder: a write that fails (the disk full
    /// mid-line) is an error naming the run's file, and the file holds whole lines only.
    #[test]
    fn a_failed_write_of_an_imported_run_is_an_error_naming_its_file() {
        let log = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("corpus/import/claude-code/ok/parallel-calls-results-off-their-own-calls.jsonl");
        let files = SessionFiles {
            main: Some(log),
            subagents: Vec::new(),
        };
        let run_id = convert(&files).unwrap().runs[0].run_id.clone();
        let dir = std::env::temp_dir().join(format!("axt-import-fault-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join(format!("{run_id}.jsonl"));
        inject(&path, [Fault::Short(40), Fault::Write(libc::ENOSPC)]);
        let error = import_session(&files, &dir, false).unwrap_err();
        let message = error.to_string();
        assert!(
            message.contains(&path.display().to_string()) && message.contains("No space left"),
            "{message}"
        );
        let written = std::fs::read(&path).unwrap();
        assert!(written.is_empty(), "no fragment of the failed line");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
