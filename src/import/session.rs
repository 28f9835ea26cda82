//! What an import gives back: the public vocabulary of every importer. The files of a
//! session, its runs (in memory or written), the notes about its graph, the adapter's
//! diagnostics mapped to the file, and why a session could not be imported.
//!
//! This file owns these types and how they are displayed; it reads and decides nothing.

use std::collections::BTreeMap;
use std::io;
use std::path::PathBuf;

use serde::Serialize;

use crate::model::ExchangeEvent;
use crate::normalize::{Diagnostic, Severity};
use crate::record::RecordError;

/// The files of one session: its log and its agents' logs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionFiles {
    /// The session log (`<session>.jsonl`); `None` for a session known only by its agents'
    /// logs: the seed's layout `<session>/transcripts/<agent>.jsonl`, or sub-agent logs
    /// whose session log is missing.
    pub main: Option<PathBuf>,
    /// Every `.jsonl` under `<session>/subagents/` (or, without a session log, every
    /// `<session>/transcripts/*.jsonl`), sorted; those not named `agent-*.jsonl` are noted
    /// and not imported.
    pub subagents: Vec<PathBuf>,
}

impl SessionFiles {
    /// A session of one file, with no agents' files beside it.
    pub(crate) fn alone(main: PathBuf) -> SessionFiles {
        SessionFiles {
            main: Some(main),
            subagents: Vec::new(),
        }
    }
}

/// One run of an imported session, events in order (`seq` still 0).
#[derive(Clone, Debug)]
pub struct ImportedRun {
    /// The run id.
    pub run_id: String,
    /// The run that spawned it.
    pub parent_run_id: Option<String>,
    /// The file its entries came from.
    pub source: PathBuf,
    /// The events.
    pub events: Vec<ExchangeEvent>,
}

/// A converted session: its runs (root first), notes and diagnostics; the runs are
/// [`ImportedRun`]s with their events, or the [`WrittenRun`]s of an [`Imported`] session.
#[derive(Clone, Debug)]
pub struct Session<R = ImportedRun> {
    /// The session id (the root run's id).
    pub session_id: String,
    /// Root run first, then sub-agents in the order their logs were read.
    pub runs: Vec<R>,
    /// What the graph showed.
    pub notes: Vec<Note>,
    /// What the adapter found in the entries.
    pub diagnostics: Vec<FileDiagnostic>,
    /// How many entries of the session's logs were kept out of its runs' threads (in their
    /// metadata instead), by reason: `rewound`, `side-branch`, `duplicate`.
    pub kept_out: BTreeMap<&'static str, u64>,
}

impl<R> Session<R> {
    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.diagnostic.severity() == Severity::Error)
    }
}

/// A run an import wrote ([`claude_code::import_session`](super::claude_code::import_session), [`incremental::import`](super::incremental::import)).
#[derive(Clone, Debug)]
pub struct WrittenRun {
    /// The run id.
    pub run_id: String,
    /// The run that spawned it.
    pub parent_run_id: Option<String>,
    /// The file its entries came from.
    pub source: PathBuf,
    /// The transcript written.
    pub path: PathBuf,
    /// How many events it holds.
    pub events: usize,
    /// What writing it did to the run's file.
    pub change: RunChange,
}

/// What importing a run did to its file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunChange {
    /// The run had no file: every event written.
    Created,
    /// The file held exactly these events already: nothing written.
    Unchanged,
    /// The file's first `kept` lines were still right and stayed as they were; the `cut`
    /// lines after them (its closing events, when the source only grew) were cut and the
    /// rest written after the kept ones.
    Updated {
        /// Lines kept.
        kept: usize,
        /// Lines cut.
        cut: usize,
    },
    /// The file was written anew (`--replace`).
    Replaced,
}

/// A session [`claude_code::import_session`](super::claude_code::import_session) wrote: what [`Session`] says,
/// without the events.
pub type Imported = Session<WrittenRun>;

/// Something the importer observed about the session graph.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Note {
    /// The file.
    pub file: PathBuf,
    /// 1-based line, 0 when the note is about the whole file.
    pub line: u64,
    /// What kind.
    pub kind: NoteKind,
    /// What exactly.
    pub message: String,
}

impl Note {
    /// Whether the note deserves the user's attention (data could not be placed as the log
    /// meant it), as opposed to a structural fact.
    pub fn is_warning(&self) -> bool {
        self.kind.is_warning()
    }
}

/// What a [`Note`] is about. Written (displayed and serialized) by its name, the
/// kebab-case word after each variant below.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum NoteKind {
    /// `kept-out`: entries of a thread's group were kept out of it, as off-chain metadata;
    /// the message says how many, why, and what they hold.
    KeptOut,
    /// `compaction`: a compact boundary; what came before the compaction stays in the run.
    Compaction,
    /// `compaction-fallback`: a compaction's `logicalParentUuid` names no entry of the file;
    /// the thread goes on in file order. A warning.
    CompactionFallback,
    /// `missing-parent`: a `parentUuid` names no entry of the file; the thread goes on in
    /// file order. A warning.
    MissingParent,
    /// `duplicate-uuid`: a uuid appears again; the later entry is the one linked. A warning.
    DuplicateUuid,
    /// `unlinked-subagent`: no call names the sub-agent or sent its prompt; it is linked to
    /// the session's end. A warning.
    UnlinkedSubagent,
    /// `orphan-subagent-file`: a sub-agent log without its session log; the session is made
    /// of its agents' logs. A warning.
    OrphanSubagentFile,
    /// `not-an-agent-log`: a file in `subagents/` not named `agent-<id>.jsonl`, not
    /// imported. A warning.
    NotAnAgentLog,
    /// `simplified-format`: the log was read as the seed's simplified event format.
    SimplifiedFormat,
    /// `missing-subagent`: a call spawned a sub-agent whose file the session does not
    /// have; the call stays an ordinary call. A warning.
    MissingSubagent,
    /// `unfinished-workflow`: a workflow's journal has no end (no snapshot: still running,
    /// or its process died); its run is incomplete. A warning.
    UnfinishedWorkflow,
}

impl NoteKind {
    /// The kind's name: `kept-out`, `compaction-fallback`, ...
    pub fn as_str(self) -> &'static str {
        match self {
            NoteKind::KeptOut => "kept-out",
            NoteKind::Compaction => "compaction",
            NoteKind::CompactionFallback => "compaction-fallback",
            NoteKind::MissingParent => "missing-parent",
            NoteKind::DuplicateUuid => "duplicate-uuid",
            NoteKind::UnlinkedSubagent => "unlinked-subagent",
            NoteKind::OrphanSubagentFile => "orphan-subagent-file",
            NoteKind::NotAnAgentLog => "not-an-agent-log",
            NoteKind::SimplifiedFormat => "simplified-format",
            NoteKind::MissingSubagent => "missing-subagent",
            NoteKind::UnfinishedWorkflow => "unfinished-workflow",
        }
    }

    /// Whether notes of this kind deserve the user's attention (data could not be placed as
    /// the log meant it), as opposed to a structural fact.
    pub fn is_warning(self) -> bool {
        match self {
            NoteKind::CompactionFallback
            | NoteKind::MissingParent
            | NoteKind::DuplicateUuid
            | NoteKind::UnlinkedSubagent
            | NoteKind::OrphanSubagentFile
            | NoteKind::NotAnAgentLog
            | NoteKind::MissingSubagent
            | NoteKind::UnfinishedWorkflow => true,
            NoteKind::KeptOut | NoteKind::Compaction | NoteKind::SimplifiedFormat => false,
        }
    }
}

impl std::fmt::Display for NoteKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for NoteKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}: {}: {}",
            self.file.display(),
            self.line,
            self.kind,
            self.message
        )
    }
}

/// A normalizer diagnostic, its line mapped back to the session file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileDiagnostic {
    /// The file.
    pub file: PathBuf,
    /// The diagnostic, `line` and `offset` in that file.
    pub diagnostic: Diagnostic,
}

impl std::fmt::Display for FileDiagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let d = &self.diagnostic;
        let severity = match d.severity() {
            Severity::Warning => "warning",
            Severity::Error => "error",
        };
        write!(
            f,
            "{}:{}: byte {}: {severity}[{}]: {}",
            self.file.display(),
            d.line,
            d.offset,
            d.kind.as_str(),
            d.message
        )
    }
}

/// Why a session could not be imported.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// A file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
    /// The run's file exists and replacing was not asked for.
    #[error("{}: run {run_id} already exists; pass --replace to overwrite it", path.display())]
    Exists {
        /// The run.
        run_id: String,
        /// Its file.
        path: PathBuf,
    },
    /// The file is not a session log of the store's (empty, or another tool's output):
    /// nothing of the session is written.
    #[error("{}:{line}: byte {offset}: not a {format}: {reason}", path.display())]
    NotASession {
        /// What the file should have been: `Claude Code session log`, `Codex rollout`, ...
        format: &'static str,
        /// The file.
        path: PathBuf,
        /// 1-based line of the entry that shows it, 0 for the whole file.
        line: u64,
        /// That entry's byte offset.
        offset: u64,
        /// What it is instead.
        reason: String,
    },
    /// The recorder failed.
    #[error(transparent)]
    Record(#[from] RecordError),
}

/// How [`claude_code::import`](super::claude_code::import) works.
#[derive(Clone, Debug, Default)]
pub struct ImportOptions {
    /// Overwrite runs that exist in the output directory.
    pub replace: bool,
    /// Worker threads; 0 for one per core.
    pub jobs: usize,
}

/// What happened to one session.
#[derive(Debug)]
pub struct SessionOutcome {
    /// Its files.
    pub files: SessionFiles,
    /// The session written, or why not.
    pub result: Result<Imported, ImportError>,
}
