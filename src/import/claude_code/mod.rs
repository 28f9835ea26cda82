//! Claude Code session logs: `~/.claude/projects/<project>/<session>.jsonl`, with sub-agents
//! in the same file (`isSidechain`, Claude Code 2.0) or in `<session>/subagents/agent-<id>.jsonl`
//! (newer versions, with an optional `agent-<id>.meta.json` beside them; at any depth below
//! `subagents/`, as `subagents/workflows/<run>/agent-<id>.jsonl`, where a file not named
//! `agent-*.jsonl` is noted `not-an-agent-log` and not imported); and the seed's
//! layout, `<project>/<session>/transcripts/<agent-id>.jsonl`, every agent a log of its own.
//!
//! # What a session becomes
//!
//! One session is one root run, its run id the session id (the file name's stem when no entry
//! names a session), so importing the same session again names the same files. Every
//! sub-agent is a child run, `<session>.agent-<agentId>` (`<session>.sidechain-<uuid>` when
//! the log has no agent id), linked both ways: its events carry `parent_run_id`, and the run
//! that spawned it records `step.call_workflow.started` right after the `Task` / `Agent` tool
//! call and `step.call_workflow.completed` right after that call's result, both with
//! `child_run_id` and path `agent.<tool call id>`. Sub-agents nest to any depth. The entries
//! of one in-file sidechain are those its `parentUuid` links connect together with those
//! sharing its `agentId` (Claude Code 2.0.46 writes `agentId` on a sidechain's user entries,
//! not on its assistant entries); parts naming different agents are never joined.
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
//! * **Parallel tool use.** Claude Code 2.x writes one message with several tool calls as a
//!   chain of entries, one `tool_use` each, sharing `message.id`; each `tool_result` entry
//!   hangs off its own call's entry, and the conversation goes on from only one of them. So
//!   an assistant entry off the chain whose parent is an entry of the same message is part
//!   of that message (`parallel-call`), and a `tool_result` entry off the chain answering a
//!   call of the thread that has no result in it yet is put back (`parallel-result`). Both
//!   are counted in the run's `import.rejoined`; every call and result stays in the thread,
//!   in file order.
//! * **Everything else off the chain is kept, not dropped**, in the run's metadata
//!   (`run.completed` result, `passthrough`, kind `axt-import/off-chain`, with the whole entry
//!   and its `reason`), branch by branch: a branch with a message the user or the model wrote
//!   is `rewound` (the user went back and the log kept the abandoned branch); a branch of only
//!   system, hook or progress entries (hook messages forking the chain) is a `side-branch`.
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
//! out of it), `kept_out` (the same by reason: `rewound`, `side-branch`), `rejoined` (entries
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
//! taken for a rewind.
//!
//! # Writing
//!
//! [`write()`] refuses to touch a run file that exists unless told to replace it: the recorder
//! would continue the old file, and the same id can belong to a transcript made otherwise
//! (`axt normalize` of the same session names its run after the session too).
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

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{self, BufRead};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde::Deserialize;
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::model::{EventType, ExchangeEvent, Payload, StepPayload, Timestamp};
use crate::normalize::events::{EventOptions, EventSink, Transcriber};
use crate::normalize::{Diagnostic, Options, Provider, Severity};
use crate::record::{RecordError, Recorder, RecorderOptions};

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

/// Something the importer observed about the session graph.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Note {
    /// The file.
    pub file: PathBuf,
    /// 1-based line, 0 when the note is about the whole file.
    pub line: u64,
    /// What kind: `kept-out`, `compaction`, `compaction-fallback`, `unlinked-subagent`,
    /// `missing-parent`, `duplicate-uuid`, `orphan-subagent-file`, `not-an-agent-log`,
    /// `simplified-format`.
    pub kind: &'static str,
    /// What exactly.
    pub message: String,
}

impl Note {
    /// Whether the note deserves the user's attention (data could not be placed as the log
    /// meant it), as opposed to a structural fact.
    pub fn is_warning(&self) -> bool {
        matches!(
            self.kind,
            "unlinked-subagent"
                | "missing-parent"
                | "compaction-fallback"
                | "duplicate-uuid"
                | "orphan-subagent-file"
                | "not-an-agent-log"
        )
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
    /// metadata instead), by reason: `rewound`, `side-branch`.
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
    /// The file is not a Claude Code session log (empty, or another tool's output): nothing
    /// of the session is written.
    #[error("{}:{line}: byte {offset}: not a Claude Code session log: {reason}", path.display())]
    NotASession {
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

// ---------------------------------------------------------------------------------------
// Finding sessions.

/// The sessions under `path`: a session file, a project directory, or the whole projects
/// directory (searched recursively). Sub-agent logs are attached to their session; agent
/// logs without a session log (`<session>/transcripts/*.jsonl`, or `<session>/subagents/`
/// beside no `<session>.jsonl`) make one session per `<session>` directory. Sorted.
pub fn discover(path: &Path) -> io::Result<Vec<SessionFiles>> {
    let meta = std::fs::metadata(path)?;
    let mut files = Vec::new();
    if meta.is_file() {
        files.push(path.to_owned());
        // A session file given alone still brings its sub-agents.
        let dir = path.with_extension("").join("subagents");
        files.extend(jsonl_under(&dir));
    } else {
        files.extend(jsonl_under(path));
    }
    let mut sessions: Vec<SessionFiles> = Vec::new();
    let mut by_main: HashMap<PathBuf, usize> = HashMap::new();
    for file in &files {
        if agent_session(file).is_none() {
            by_main.insert(file.clone(), sessions.len());
            sessions.push(SessionFiles {
                main: Some(file.clone()),
                subagents: Vec::new(),
            });
        }
    }
    let mut without_log: BTreeMap<PathBuf, Vec<PathBuf>> = BTreeMap::new();
    for file in files {
        if let Some((session, layout)) = agent_session(&file) {
            let mut main = session.as_os_str().to_owned();
            main.push(".jsonl");
            match by_main.get(Path::new(&main)) {
                Some(at) if layout == "subagents" => sessions[*at].subagents.push(file),
                _ => without_log.entry(session).or_default().push(file),
            }
        }
    }
    for (_, subagents) in without_log {
        sessions.push(SessionFiles {
            main: None,
            subagents,
        });
    }
    for session in &mut sessions {
        session.subagents.sort();
    }
    sessions.sort_by(|a, b| (&a.main, &a.subagents).cmp(&(&b.main, &b.subagents)));
    Ok(sessions)
}

fn jsonl_under(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_file())
        .map(walkdir::DirEntry::into_path)
        .filter(|path| path.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    found.sort();
    found
}

/// `<dir>/<session>/subagents/agent-x.jsonl` -> (`<dir>/<session>`, `subagents`), at any
/// depth below `subagents/` (`subagents/workflows/<run>/agent-x.jsonl`); and the seed's
/// `<dir>/<session>/transcripts/<agent>.jsonl` -> (`<dir>/<session>`, `transcripts`).
fn agent_session(file: &Path) -> Option<(PathBuf, &'static str)> {
    let parent = file.parent()?;
    if parent.file_name()? == "transcripts" {
        return Some((parent.parent()?.to_owned(), "transcripts"));
    }
    let subagents = parent
        .ancestors()
        .find(|dir| dir.file_name() == Some("subagents".as_ref()))?;
    Some((subagents.parent()?.to_owned(), "subagents"))
}

/// The session id of agent logs without a session log: their `<session>` directory's name.
fn session_dir_id(file: &Path) -> Option<String> {
    let (session, _) = agent_session(file)?;
    Some(session.file_name()?.to_string_lossy().into_owned())
}

// ---------------------------------------------------------------------------------------
// Reading entries.

/// The fields of an entry the graph needs; the content is left to the adapter.
#[derive(Deserialize, Default)]
struct Head<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    subtype: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    uuid: Option<Cow<'a, str>>,
    #[serde(rename = "parentUuid", borrow, default)]
    parent: Option<Cow<'a, str>>,
    #[serde(rename = "logicalParentUuid", borrow, default)]
    logical_parent: Option<Cow<'a, str>>,
    #[serde(rename = "isSidechain", default)]
    sidechain: Option<bool>,
    #[serde(rename = "agentId", borrow, default)]
    agent_id: Option<Cow<'a, str>>,
    #[serde(rename = "sessionId", borrow, default)]
    session_id: Option<Cow<'a, str>>,
    /// `session_id`, snake case: stream-json output (`claude -p`), not a session log.
    #[serde(rename = "session_id", default)]
    stream_session: Option<serde::de::IgnoredAny>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(rename = "isCompactSummary", default)]
    compact_summary: Option<bool>,
    #[serde(borrow, default)]
    cwd: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    version: Option<Cow<'a, str>>,
    #[serde(rename = "gitBranch", borrow, default)]
    git_branch: Option<Cow<'a, str>>,
    #[serde(default)]
    role: Option<Value>,
    #[serde(rename = "toolUseResult", borrow, default)]
    tool_use_result: Option<&'a serde_json::value::RawValue>,
    /// Raw, so that a `message` of an unexpected shape does not cost the entry its graph
    /// fields.
    #[serde(borrow, default)]
    message: Option<&'a serde_json::value::RawValue>,
}

/// One entry of a log: where it is and the graph fields.
#[derive(Clone, Debug, Default)]
struct Entry {
    line: u64,
    range: Range<usize>,
    /// Parsed as JSON at all.
    json: bool,
    kind: String,
    subtype: Option<String>,
    uuid: Option<String>,
    parent: Option<String>,
    logical_parent: Option<String>,
    sidechain: bool,
    agent_id: Option<String>,
    session_id: Option<String>,
    /// Has `session_id` (snake case), as stream-json records do.
    stream_session: bool,
    timestamp: Option<Timestamp>,
    compact_summary: bool,
    cwd: Option<String>,
    version: Option<String>,
    git_branch: Option<String>,
    role: bool,
    /// `toolUseResult.agentId`: the sub-agent a Task result came from.
    result_agent: Option<String>,
    /// `isMeta: true` (user entries).
    meta: bool,
    /// `message.id` (assistant entries): the entries of one API response share it.
    message_id: Option<String>,
    /// The ids of the `tool_use` blocks (assistant entries).
    tool_uses: Vec<String>,
    /// The `Task` / `Agent` calls among the tool blocks (assistant entries).
    tasks: Vec<Task>,
    /// The `tool_use_id`s of the `tool_result` blocks (user entries).
    tool_results: Vec<String>,
    /// The hash of the entry's prompt text (user entries), for linking by prompt.
    prompt: Option<u128>,
}

/// A `Task` / `Agent` call: what linking a sub-agent to it needs.
#[derive(Clone, Debug, Default)]
struct Task {
    id: String,
    subagent_type: Option<String>,
    /// The hash of `input.prompt`.
    prompt: Option<u128>,
}

impl Entry {
    fn is_message(&self) -> bool {
        matches!(self.kind.as_str(), "user" | "assistant")
    }

    /// A message the model or the user wrote (not a hook's `isMeta` user entry).
    fn is_written(&self) -> bool {
        self.kind == "assistant" || (self.kind == "user" && !self.meta)
    }
}

/// A log file's skeleton: every entry's graph fields and where its bytes are, not its
/// content (that is read again, entry by entry, when the run is transcribed).
struct Log {
    path: PathBuf,
    entries: Vec<Entry>,
    /// The file's size in bytes.
    size: usize,
}

impl Log {
    fn read(path: &Path) -> Result<Log, ImportError> {
        let failed = |source| ImportError::Io {
            path: path.to_owned(),
            source,
        };
        let file = std::fs::File::open(path).map_err(failed)?;
        let mut reader = io::BufReader::with_capacity(1 << 16, file);
        let mut entries = Vec::new();
        let mut bytes = Vec::new();
        let mut start = 0;
        let mut line = 0;
        loop {
            bytes.clear();
            let read = reader.read_until(b'\n', &mut bytes).map_err(failed)?;
            if read == 0 {
                break;
            }
            line += 1;
            let mut body = 0..bytes.len();
            if bytes.ends_with(b"\n") {
                body.end -= 1;
            }
            if bytes[body.clone()].ends_with(b"\r") {
                body.end -= 1;
            }
            if line == 1 && bytes[body.clone()].starts_with(b"\xEF\xBB\xBF") {
                body.start += 3;
            }
            if !bytes[body.clone()].iter().all(u8::is_ascii_whitespace) {
                let range = start + body.start..start + body.end;
                entries.push(entry(line, range, &bytes[body]));
            }
            start += read;
        }
        Ok(Log {
            path: path.to_owned(),
            entries,
            size: start,
        })
    }
}

/// Reads entries back from a log file by their byte range.
struct Reader {
    path: PathBuf,
    file: std::fs::File,
    at: u64,
    bytes: Vec<u8>,
}

impl Reader {
    fn open(path: &Path) -> Result<Reader, ImportError> {
        let file = std::fs::File::open(path).map_err(|source| ImportError::Io {
            path: path.to_owned(),
            source,
        })?;
        Ok(Reader {
            path: path.to_owned(),
            file,
            at: 0,
            bytes: Vec::new(),
        })
    }

    fn raw(&mut self, range: &Range<usize>) -> Result<&[u8], ImportError> {
        use std::io::{Read, Seek, SeekFrom};
        let start = range.start as u64;
        let mut read = || {
            if self.at != start {
                self.at = u64::MAX;
                self.file.seek(SeekFrom::Start(start))?;
            }
            self.bytes.resize(range.len(), 0);
            self.file.read_exact(&mut self.bytes)?;
            self.at = range.end as u64;
            Ok(())
        };
        read().map_err(|source| ImportError::Io {
            path: self.path.clone(),
            source,
        })?;
        Ok(&self.bytes)
    }

    fn value(&mut self, range: &Range<usize>) -> Result<Value, ImportError> {
        Ok(serde_json::from_slice(self.raw(range)?).unwrap_or(Value::Null))
    }
}

/// A hash of a prompt text: linking by prompt compares these instead of keeping every
/// prompt (128 bits: a collision between two different prompts is not a practical risk).
fn text_hash(text: &str) -> u128 {
    use std::hash::{Hash, Hasher};
    let half = |salt: u8| {
        let mut hasher = std::hash::DefaultHasher::new();
        salt.hash(&mut hasher);
        text.hash(&mut hasher);
        hasher.finish()
    };
    (u128::from(half(0)) << 64) | u128::from(half(1))
}

/// The content fields linking and thread selection need, read from the entry itself.
fn content(entry: &mut Entry, bytes: &[u8]) {
    let user = entry.kind == "user";
    let tools = entry.kind == "assistant" && memchr::memmem::find(bytes, b"tool_use").is_some();
    if !user && !tools {
        return;
    }
    let value: Value = serde_json::from_slice(bytes).unwrap_or(Value::Null);
    if tools && let Some(Value::Array(blocks)) = value.pointer("/message/content") {
        entry.tool_uses = blocks
            .iter()
            .filter_map(|b| {
                (b.get("type")? == "tool_use")
                    .then(|| b.get("id")?.as_str().map(str::to_owned))
                    .flatten()
            })
            .collect();
        entry.tasks = tasks(blocks);
    }
    if user {
        entry.meta = value.get("isMeta") == Some(&Value::Bool(true));
        if memchr::memmem::find(bytes, b"tool_result").is_some()
            && let Some(Value::Array(blocks)) = value.pointer("/message/content")
        {
            entry.tool_results = blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
                .filter_map(|b| b.get("tool_use_id")?.as_str().map(str::to_owned))
                .collect();
        }
        entry.prompt = user_text(&value).map(|text| text_hash(&text));
    }
}

/// The `Task` / `Agent` calls among an assistant message's blocks (the adapter makes a
/// `tool.call` of every `tool_use` and `server_tool_use` block).
fn tasks(blocks: &[Value]) -> Vec<Task> {
    blocks
        .iter()
        .filter(|b| {
            matches!(
                b.get("type").and_then(Value::as_str),
                Some("tool_use" | "server_tool_use")
            ) && matches!(
                b.get("name").and_then(Value::as_str),
                Some("Task" | "Agent")
            )
        })
        .map(|b| {
            let input = |key: &str| b.get("input")?.get(key)?.as_str();
            Task {
                id: b.get("id").and_then(Value::as_str).unwrap_or("").to_owned(),
                subagent_type: input("subagent_type").map(str::to_owned),
                prompt: input("prompt").map(text_hash),
            }
        })
        .collect()
}

fn entry(line: u64, range: Range<usize>, bytes: &[u8]) -> Entry {
    let owned = |text: Option<Cow<'_, str>>| text.map(Cow::into_owned).filter(|t| !t.is_empty());
    let Ok(head) = serde_json::from_slice::<Head<'_>>(bytes) else {
        return Entry {
            line,
            range,
            ..Entry::default()
        };
    };
    let result_agent = head.tool_use_result.and_then(|raw| {
        #[derive(Deserialize)]
        struct AgentResult {
            #[serde(rename = "agentId")]
            agent_id: Option<String>,
        }
        serde_json::from_str::<AgentResult>(raw.get())
            .ok()
            .and_then(|r| r.agent_id)
    });
    let message_id = head
        .message
        .filter(|_| head.kind.as_deref() == Some("assistant"))
        .and_then(|raw| {
            #[derive(Deserialize)]
            struct Message {
                id: Option<String>,
            }
            serde_json::from_str::<Message>(raw.get()).ok()?.id
        });
    let mut entry = Entry {
        line,
        range,
        json: true,
        kind: owned(head.kind).unwrap_or_default(),
        subtype: owned(head.subtype),
        uuid: owned(head.uuid),
        parent: owned(head.parent),
        logical_parent: owned(head.logical_parent),
        sidechain: head.sidechain.unwrap_or(false),
        agent_id: owned(head.agent_id),
        session_id: owned(head.session_id),
        stream_session: head.stream_session.is_some(),
        timestamp: head
            .timestamp
            .as_deref()
            .and_then(|t| Timestamp::parse(t).ok()),
        compact_summary: head.compact_summary.unwrap_or(false),
        cwd: owned(head.cwd),
        version: owned(head.version),
        git_branch: owned(head.git_branch),
        role: head.role.is_some(),
        result_agent: result_agent.filter(|a| !a.is_empty()),
        message_id: message_id.filter(|id| !id.is_empty()),
        ..Entry::default()
    };
    content(&mut entry, bytes);
    entry
}

/// Refuses a log that is no session log at all: importing it would "succeed" with a run of
/// nothing, or of every record taken for a rewind.
fn check(log: &Log) -> Result<(), ImportError> {
    let refuse = |entry: Option<&Entry>, reason: String| ImportError::NotASession {
        path: log.path.clone(),
        line: entry.map_or(0, |e| e.line),
        offset: entry.map_or(0, |e| e.range.start as u64),
        reason,
    };
    let Some(first) = log.entries.first() else {
        let what = match log.size {
            0 => "the file is empty",
            _ => "the file has only blank lines",
        };
        return Err(refuse(None, what.into()));
    };
    // Every session-log entry but `summary` and `file-history-snapshot` names its session.
    let session = |e: &Entry| {
        e.session_id.is_some() || matches!(e.kind.as_str(), "summary" | "file-history-snapshot")
    };
    if is_simplified(log) || log.entries.iter().any(session) {
        return Ok(());
    }
    Err(match log.entries.iter().find(|e| e.stream_session) {
        Some(entry) => refuse(
            Some(entry),
            "this is stream-json output (`claude -p --output-format stream-json`: `session_id`, no `sessionId` or `parentUuid`); read it with `axt normalize --provider claude`".into(),
        ),
        None => refuse(
            Some(first),
            "no entry has the fields of a session-log entry (`sessionId`, `uuid`, `parentUuid`)"
                .into(),
        ),
    })
}

/// Whether a log is in the seed's simplified event format.
fn is_simplified(log: &Log) -> bool {
    log.entries.iter().find(|e| e.json).is_some_and(|first| {
        first.uuid.is_none()
            && first.session_id.is_none()
            && (first.role
                || matches!(
                    first.kind.as_str(),
                    "tool_use" | "tool_result" | "text" | "error" | "stop" | "result"
                ))
    })
}

// ---------------------------------------------------------------------------------------
// Converting a session.

/// A thread to transcribe: the entries of one run, before linking.
struct Thread {
    run_id: String,
    /// The sub-agent's id, for linking (`None` for the root).
    agent: Option<String>,
    source: PathBuf,
    /// Lines to feed the adapter, with where they came from.
    feed: Vec<Feed>,
    /// Metadata merged into `run.completed`'s result under `import`.
    import: Map<String, Value>,
    /// The sub-agent's name (its `agentType` or the spawning call's `subagent_type`).
    name: Option<String>,
    /// The hash of the first user text, to link by prompt when ids do not say.
    prompt: Option<u128>,
    /// Tool call id -> the agent id its result names.
    spawned: HashMap<String, String>,
    /// The `Task` / `Agent` calls of the thread, in order.
    calls: Vec<Task>,
    /// `(session, version, cwd, branch)` for the run metadata.
    session_id: Option<String>,
    version: Option<String>,
    /// Entries of the thread's group kept out of it, by reason.
    kept_out: BTreeMap<&'static str, u64>,
}

/// What the entries kept out of a thread for one reason hold.
#[derive(Default)]
struct KeptOut {
    entries: u64,
    /// Messages the user or the model wrote.
    messages: u64,
    calls: u64,
    results: u64,
}

impl KeptOut {
    /// `3 (2 messages: 1 tool call, 1 tool result)`.
    fn describe(&self) -> String {
        let plural =
            |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let mut text = self.entries.to_string();
        if self.messages > 0 {
            text.push_str(&format!(
                " ({}",
                plural(self.messages, "message", "messages")
            ));
            let mut tools = Vec::new();
            if self.calls > 0 {
                tools.push(plural(self.calls, "tool call", "tool calls"));
            }
            if self.results > 0 {
                tools.push(plural(self.results, "tool result", "tool results"));
            }
            if !tools.is_empty() {
                text.push_str(&format!(": {}", tools.join(", ")));
            }
            text.push(')');
        }
        text
    }
}

/// What one line fed to the adapter is.
enum What {
    /// The entry itself, read again from the file.
    Entry,
    /// A compaction summary, kept as passthrough.
    CompactSummary,
    /// An entry off the thread (`rewound` or `side-branch`), kept as passthrough.
    OffChain(&'static str),
    /// A line made by the importer.
    Bytes(Vec<u8>),
}

/// One line fed to the adapter.
struct Feed {
    what: What,
    /// The file's line and the entry's bytes.
    line: u64,
    range: Range<usize>,
    timestamp: Option<Timestamp>,
}

impl Feed {
    fn entry(what: What, entry: &Entry) -> Feed {
        Feed {
            what,
            line: entry.line,
            range: entry.range.clone(),
            timestamp: entry.timestamp.clone(),
        }
    }

    fn note(value: Value, entry: &Entry) -> Feed {
        let bytes = serde_json::to_vec(&value).expect("a JSON value serializes");
        Feed::entry(What::Bytes(bytes), entry)
    }

    fn offset(&self) -> u64 {
        self.range.start as u64
    }
}

/// A session decided from the skeletons of its logs: its threads, who spawned whom, and
/// the notes; no event is made yet.
struct Plan {
    session_id: String,
    threads: Vec<Thread>,
    /// Per thread, the thread that spawned it.
    parents: Vec<Option<usize>>,
    /// Per thread, the sub-agents it spawned, in the order they are linked.
    spawns: Vec<Vec<Spawn>>,
    notes: Vec<Note>,
}

impl Plan {
    /// The entries kept out of the threads, by reason, over all of them.
    fn kept_out(&self) -> BTreeMap<&'static str, u64> {
        let mut total = BTreeMap::new();
        for (reason, n) in self.threads.iter().flat_map(|t| &t.kept_out) {
            *total.entry(*reason).or_default() += n;
        }
        total
    }

    fn parent_run_id(&self, at: usize) -> Option<&str> {
        self.parents[at].map(|parent| self.threads[parent].run_id.as_str())
    }
}

/// Reads a session's files and makes its runs. Pure: nothing is written. The events are
/// all in memory; [`import`] streams them into the recorder instead.
pub fn convert(files: &SessionFiles) -> Result<Session, ImportError> {
    let plan = plan(files)?;
    let mut runs = Vec::with_capacity(plan.threads.len());
    let mut diagnostics = Vec::new();
    for (at, thread) in plan.threads.iter().enumerate() {
        let mut events = Vec::new();
        diagnostics.extend(transcribe(&plan, at, &mut |event| {
            events.push(event);
            Ok(())
        })?);
        runs.push(ImportedRun {
            run_id: thread.run_id.clone(),
            parent_run_id: plan.parent_run_id(at).map(str::to_owned),
            source: thread.source.clone(),
            events,
        });
    }
    Ok(Session {
        kept_out: plan.kept_out(),
        session_id: plan.session_id,
        runs,
        notes: plan.notes,
        diagnostics,
    })
}

/// Reads the skeletons of a session's files and decides its runs and their links.
fn plan(files: &SessionFiles) -> Result<Plan, ImportError> {
    let mut notes = Vec::new();
    let mut threads = Vec::new();
    let main_log = files.main.as_deref().map(Log::read).transpose()?;
    if let Some(log) = &main_log {
        check(log)?;
    }
    // Without a session log the session is its `<session>` directory, so that two sessions
    // with an `agent-a.jsonl` each name different runs.
    let fallback_id = match &files.main {
        Some(main) => main.file_stem().map(|s| s.to_string_lossy().into_owned()),
        None => files.subagents.first().and_then(|f| {
            session_dir_id(f).or_else(|| Some(f.file_stem()?.to_string_lossy().into_owned()))
        }),
    }
    .unwrap_or_else(|| "session".to_owned());
    let session_id = main_log
        .as_ref()
        .filter(|log| !is_simplified(log))
        .and_then(|log| log.entries.iter().find_map(|e| e.session_id.clone()))
        .unwrap_or_else(|| fallback_id.clone());
    let session_id = sanitize(&session_id);
    let simplified_note = |log: &Log| Note {
        file: log.path.clone(),
        line: 0,
        kind: "simplified-format",
        message: "read as the simplified event format (tool_use / tool_result / text lines)".into(),
    };

    if let Some(log) = &main_log {
        if is_simplified(log) {
            notes.push(simplified_note(log));
            threads.push(simplified_thread(log, &session_id)?);
        } else {
            threads.extend(session_threads(log, &session_id, &mut notes));
        }
    }
    for file in &files.subagents {
        let layout = agent_session(file).map(|(_, layout)| layout);
        let stem = file.file_stem().unwrap_or_default().to_string_lossy();
        if layout == Some("subagents") && !stem.starts_with("agent-") {
            // Beside the agent logs (a workflow's journal.jsonl, ...): not an agent's log.
            notes.push(Note {
                file: file.clone(),
                line: 0,
                kind: "not-an-agent-log",
                message: "in subagents/ but not named agent-<id>.jsonl; not imported".into(),
            });
            continue;
        }
        let log = Log::read(file)?;
        check(&log)?;
        if main_log.is_none() && layout == Some("subagents") {
            notes.push(Note {
                file: file.clone(),
                line: 0,
                kind: "orphan-subagent-file",
                message:
                    "sub-agent log without its session log; the session is made of its agents' logs"
                        .into(),
            });
        }
        let agent = file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .map(|s| s.strip_prefix("agent-").map(str::to_owned).unwrap_or(s))
            .or_else(|| log.entries.iter().find_map(|e| e.agent_id.clone()))
            .unwrap_or_default();
        let run_id = format!("{session_id}.agent-{}", sanitize(&agent));
        let mut thread = if is_simplified(&log) {
            notes.push(simplified_note(&log));
            let mut thread = simplified_thread(&log, &run_id)?;
            thread
                .import
                .insert("agent_id".into(), agent.clone().into());
            thread.agent = Some(agent);
            thread
        } else {
            let all: Vec<usize> = (0..log.entries.len()).collect();
            let by_uuid = uuid_index(&log, &mut notes);
            let selected = select(&log, &all, &by_uuid, &mut notes);
            thread_from(&log, &selected, run_id, Some(agent), &mut notes)
        };
        let meta_path = file.with_extension("meta.json");
        if let Ok(text) = std::fs::read(&meta_path)
            && let Ok(meta) = serde_json::from_slice::<Value>(&text)
        {
            thread.name = meta
                .get("agentType")
                .and_then(Value::as_str)
                .map(str::to_owned);
            thread.import.insert("subagent_meta".into(), meta);
        }
        threads.push(thread);
    }
    if main_log.is_none() && !threads.is_empty() {
        // No session log: the root is the agent no call spawned.
        let root = root_agent(&threads);
        let thread = threads.remove(root);
        threads.insert(0, thread);
    }

    let mut parents = vec![None; threads.len()];
    let mut spawns: Vec<Vec<Spawn>> = threads.iter().map(|_| Vec::new()).collect();
    for link in link(&threads, &mut notes) {
        parents[link.child] = Some(link.parent);
        spawns[link.parent].push(Spawn {
            call: link.call,
            child: threads[link.child].run_id.clone(),
            name: link.name,
        });
    }
    Ok(Plan {
        session_id,
        threads,
        parents,
        spawns,
        notes,
    })
}

/// Run ids become file names: keep them to a safe alphabet.
fn sanitize(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect::<String>()
        .trim_start_matches('.')
        .to_owned()
}

/// The root thread and the in-file sidechains of a session log.
fn session_threads(log: &Log, session_id: &str, notes: &mut Vec<Note>) -> Vec<Thread> {
    let entries = &log.entries;
    let by_uuid = uuid_index(log, notes);
    let main: Vec<usize> = (0..entries.len())
        .filter(|at| !entries[*at].sidechain)
        .collect();
    let mut threads = Vec::new();
    let chain = select(log, &main, &by_uuid, notes);
    threads.push(thread_from(log, &chain, session_id.to_owned(), None, notes));

    // Sidechains: one sub-agent is the entries its parentUuid links connect, with those that
    // share its agent id. Neither alone makes the group: Claude Code 2.0.46 writes agentId on
    // a sidechain's user entries only, not on its assistant entries. Two parts that name
    // different agents stay apart (a nested sub-agent's root may point into its parent's).
    let mut groups = Groups::new(entries.len());
    let mut by_agent: HashMap<&str, usize> = HashMap::new();
    for (at, entry) in entries.iter().enumerate() {
        if !entry.sidechain {
            continue;
        }
        groups.name(at, entry.agent_id.as_deref());
        if let Some(parent) = entry.parent.as_deref().and_then(|p| by_uuid.get(p))
            && entries[*parent].sidechain
        {
            groups.join(at, *parent);
        }
        if let Some(agent) = entry.agent_id.as_deref() {
            let first = *by_agent.entry(agent).or_insert(at);
            groups.join(at, first);
        }
    }
    let mut members: Vec<Vec<usize>> = Vec::new();
    let mut group_of: HashMap<usize, usize> = HashMap::new();
    for (at, entry) in entries.iter().enumerate() {
        if entry.sidechain {
            let root = groups.find(at);
            let index = *group_of.entry(root).or_insert_with(|| {
                members.push(Vec::new());
                members.len() - 1
            });
            members[index].push(at);
        }
    }
    for members in members {
        let root = groups.find(members[0]);
        let (run_id, agent) = match groups.agent[root] {
            Some(agent) => (
                format!("{session_id}.agent-{}", sanitize(agent)),
                agent.to_owned(),
            ),
            None => {
                let root = sidechain_root(entries, members[0], &by_uuid);
                (
                    format!("{session_id}.sidechain-{}", sanitize(&root)),
                    format!("sidechain-{root}"),
                )
            }
        };
        let chain = select(log, &members, &by_uuid, notes);
        threads.push(thread_from(log, &chain, run_id, Some(agent), notes));
    }
    threads
}

/// Entries joined into groups (union-find), each group named by at most one agent id.
struct Groups<'a> {
    up: Vec<usize>,
    /// Per group root, the agent id its entries name.
    agent: Vec<Option<&'a str>>,
}

impl<'a> Groups<'a> {
    fn new(len: usize) -> Self {
        Groups {
            up: (0..len).collect(),
            agent: vec![None; len],
        }
    }

    fn find(&mut self, mut at: usize) -> usize {
        while self.up[at] != at {
            self.up[at] = self.up[self.up[at]];
            at = self.up[at];
        }
        at
    }

    fn name(&mut self, at: usize, agent: Option<&'a str>) {
        let root = self.find(at);
        if self.agent[root].is_none() {
            self.agent[root] = agent;
        }
    }

    /// Joins the groups of `a` and `b` unless they name different agents.
    fn join(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        if a == b {
            return;
        }
        let agent = match (self.agent[a], self.agent[b]) {
            (Some(x), Some(y)) if x != y => return,
            (x, y) => x.or(y),
        };
        // The earlier entry stays the root, so groups keep the order of their first entry.
        let (root, other) = (a.min(b), a.max(b));
        self.up[other] = root;
        self.agent[root] = agent;
    }
}

/// Entries by uuid; a uuid seen twice is reported, and its later entry is the one linked.
fn uuid_index<'a>(log: &'a Log, notes: &mut Vec<Note>) -> HashMap<&'a str, usize> {
    let mut by_uuid: HashMap<&str, usize> = HashMap::new();
    for (at, entry) in log.entries.iter().enumerate() {
        if let Some(uuid) = &entry.uuid
            && by_uuid.insert(uuid, at).is_some()
        {
            notes.push(Note {
                file: log.path.clone(),
                line: entry.line,
                kind: "duplicate-uuid",
                message: format!("uuid {uuid} appears again; the later entry is the one linked"),
            });
        }
    }
    by_uuid
}

/// The uuid (or line) of the first entry of a sidechain.
fn sidechain_root(entries: &[Entry], mut at: usize, by_uuid: &HashMap<&str, usize>) -> String {
    let mut seen = HashSet::new();
    while let Some(parent) = entries[at].parent.as_deref().and_then(|p| by_uuid.get(p))
        && entries[*parent].sidechain
        && seen.insert(*parent)
    {
        at = *parent;
    }
    entries[at]
        .uuid
        .as_deref()
        .map(|u| u.chars().take(8).collect())
        .unwrap_or_else(|| format!("line{}", entries[at].line))
}

/// The entries of one thread and how they were chosen.
struct Selection {
    /// The thread's entries, in file order.
    entries: Vec<usize>,
    /// Entries off the `parentUuid` chain that were put into the thread, by the rule that
    /// put them there (`parallel-call`, `parallel-result`, `file-order`).
    rejoined: BTreeMap<&'static str, u64>,
    /// The group's other entries, in file order, with why they are not in the thread:
    /// `rewound` (a branch with a message the user or the model wrote: the user went back),
    /// `side-branch` (a branch of only hook, system and progress entries).
    kept_out: Vec<(usize, &'static str)>,
}

/// The entries of one thread, in file order: the chain to the last message, the parallel
/// calls and results forking off it put back, everything else off the chain left for the
/// metadata.
fn select(
    log: &Log,
    members: &[usize],
    by_uuid: &HashMap<&str, usize>,
    notes: &mut Vec<Note>,
) -> Selection {
    let entries = &log.entries;
    let in_group: HashSet<usize> = members.iter().copied().collect();
    let mut rejoined = BTreeMap::new();
    let Some(leaf) = members
        .iter()
        .rev()
        .find(|at| entries[**at].is_message() && entries[**at].uuid.is_some())
        .copied()
    else {
        // No message at all: every entry is metadata, in file order.
        return Selection {
            entries: members.to_vec(),
            rejoined,
            kept_out: Vec::new(),
        };
    };
    let mut chain = HashSet::new();
    // The chain's length at the first fallback to file order.
    let mut fallback = None;
    let mut at = leaf;
    loop {
        if !chain.insert(at) {
            break;
        }
        let entry = &entries[at];
        let parent = entry.parent.as_deref().or(entry.logical_parent.as_deref());
        let Some(parent) = parent else { break };
        match by_uuid.get(parent) {
            Some(next) if in_group.contains(next) => at = *next,
            // A sidechain's root may point into the main thread: that is its spawn point.
            Some(_) => break,
            None => {
                // The parent was never written to this file (a compaction whose logical
                // parent is elsewhere, or a phantom parentUuid): starting the thread here
                // would cost it everything before. Go on in file order instead, from the
                // last message before this entry.
                let (kind, field) = match entry.parent.is_none() {
                    true => ("compaction-fallback", "logicalParentUuid"),
                    false => ("missing-parent", "parentUuid"),
                };
                let before = &members[..members.partition_point(|m| *m < at)];
                let previous = before.iter().rev().copied().find(|m| {
                    let e = &entries[*m];
                    e.is_message() && e.uuid.is_some() && !chain.contains(m)
                });
                let message = match previous {
                    Some(previous) => format!(
                        "{field} {parent} is not in the file; the thread goes on in file order, from line {}",
                        entries[previous].line
                    ),
                    None => format!(
                        "{field} {parent} is not in the file and no message comes before it; the thread starts here"
                    ),
                };
                notes.push(Note {
                    file: log.path.clone(),
                    line: entry.line,
                    kind,
                    message,
                });
                let Some(previous) = previous else { break };
                fallback.get_or_insert(chain.len());
                at = previous;
            }
        }
    }
    // Everything the walk took in after a fallback is on the thread by file order.
    if let Some(from) = fallback {
        rejoined.insert("file-order", (chain.len() - from) as u64);
    }
    // Entries without a uuid (summary, file-history-snapshot, ...) are not part of the
    // graph: they stay, in file order, as metadata.
    for at in members {
        if entries[*at].uuid.is_none() {
            chain.insert(*at);
        }
    }
    // Parallel tool use (Claude Code 2.x): one message is written as a chain of entries, one
    // `tool_use` each, sharing `message.id`; each result hangs off its own call's entry, and
    // the conversation goes on from one of them. The other calls fork off the chain where
    // their message does: an assistant entry whose parent is an entry of the same message
    // is that message, not a rewind.
    let mut children: HashMap<&str, Vec<usize>> = HashMap::new();
    for at in members {
        if let Some(parent) = entries[*at].parent.as_deref() {
            children.entry(parent).or_default().push(*at);
        }
    }
    let mut calls: HashSet<&str> = chain
        .iter()
        .flat_map(|at| entries[*at].tool_uses.iter().map(String::as_str))
        .collect();
    let mut pending: Vec<usize> = chain
        .iter()
        .copied()
        .filter(|at| entries[*at].message_id.is_some())
        .collect();
    while let Some(at) = pending.pop() {
        let (Some(uuid), Some(message)) = (&entries[at].uuid, &entries[at].message_id) else {
            continue;
        };
        for child in children.get(uuid.as_str()).into_iter().flatten() {
            let entry = &entries[*child];
            let same_message =
                entry.kind == "assistant" && entry.message_id.as_ref() == Some(message);
            // A copy of calls the thread has already is no parallel call.
            let new_calls = entry
                .tool_uses
                .iter()
                .all(|id| !calls.contains(id.as_str()));
            if same_message && new_calls && chain.insert(*child) {
                calls.extend(entry.tool_uses.iter().map(String::as_str));
                *rejoined.entry("parallel-call").or_default() += 1;
                pending.push(*child);
            }
        }
    }
    // Tool results off the chain answering calls of the thread that have no result in it
    // yet (each parallel result hangs off its own call); a second result for an answered
    // call stays off the thread, so that no call is answered twice.
    let mut answered: HashSet<&str> = chain
        .iter()
        .flat_map(|at| entries[*at].tool_results.iter().map(String::as_str))
        .collect();
    for at in members {
        let entry = &entries[*at];
        if chain.contains(at) || entry.kind != "user" {
            continue;
        }
        let answers = |id: &String| calls.contains(id.as_str()) && !answered.contains(id.as_str());
        if entry.tool_results.iter().any(answers) {
            chain.insert(*at);
            answered.extend(entry.tool_results.iter().map(String::as_str));
            *rejoined.entry("parallel-result").or_default() += 1;
        }
    }
    // What is left is kept out, branch by branch: an entry whose parent is kept out too is
    // in its parent's branch, and a branch is a rewind when anyone wrote in it.
    let mut branch_of: HashMap<usize, usize> = HashMap::new();
    let mut rewound: HashSet<usize> = HashSet::new();
    for at in members {
        if chain.contains(at) {
            continue;
        }
        let entry = &entries[*at];
        let root = entry
            .parent
            .as_deref()
            .and_then(|parent| branch_of.get(by_uuid.get(parent)?))
            .copied()
            .unwrap_or(*at);
        branch_of.insert(*at, root);
        if entry.is_written() {
            rewound.insert(root);
        }
    }
    let kept_out = members
        .iter()
        .filter_map(|at| {
            let root = branch_of.get(at)?;
            Some((
                *at,
                if rewound.contains(root) {
                    "rewound"
                } else {
                    "side-branch"
                },
            ))
        })
        .collect();
    let mut selected: Vec<usize> = chain.into_iter().collect();
    selected.sort_unstable();
    Selection {
        entries: selected,
        rejoined,
        kept_out,
    }
}

/// The text of a user entry's message, when it is a prompt.
fn user_text(entry: &Value) -> Option<String> {
    match entry.pointer("/message/content")? {
        Value::String(text) => Some(text.clone()),
        Value::Array(blocks) => blocks
            .iter()
            .find(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .and_then(|b| b.get("text")?.as_str().map(str::to_owned)),
        _ => None,
    }
}

/// A thread from the selected entries of a log; the unselected ones of the same group
/// (sidechain entries are their own groups) become off-chain metadata.
fn thread_from(
    log: &Log,
    selection: &Selection,
    run_id: String,
    agent: Option<String>,
    notes: &mut Vec<Note>,
) -> Thread {
    let entries = &log.entries;
    let selected = &selection.entries;
    let sidechain = agent.is_some();
    let mut feed = Vec::with_capacity(selected.len());
    let mut prompt = None;
    let mut spawned = HashMap::new();
    let mut calls = Vec::new();
    let mut session_id = None;
    let mut version = None;
    let mut cwd = None;
    let mut branch = None;
    let mut compactions = 0u64;
    for at in selected {
        let entry = &entries[*at];
        session_id = session_id.or(entry.session_id.clone());
        version = entry.version.clone().or(version);
        cwd = cwd.or(entry.cwd.clone());
        branch = branch.or(entry.git_branch.clone());
        if entry.kind == "system" && entry.subtype.as_deref() == Some("compact_boundary") {
            compactions += 1;
            notes.push(Note {
                file: log.path.clone(),
                line: entry.line,
                kind: "compaction",
                message: "compact boundary: what came before the compaction stays in the run"
                    .into(),
            });
        }
        if entry.compact_summary {
            feed.push(Feed::entry(What::CompactSummary, entry));
            continue;
        }
        if entry.kind == "user" {
            if prompt.is_none() {
                prompt = entry.prompt;
            }
            // A Task result names the sub-agent it came from: `toolUseResult.agentId`, or
            // (Claude Code 2.0) the entry's own `agentId` on the main thread.
            let named = entry
                .result_agent
                .clone()
                .or_else(|| entry.agent_id.clone().filter(|_| !sidechain));
            if let Some(named) = named {
                for id in &entry.tool_results {
                    spawned.insert(id.clone(), named.clone());
                }
            }
        }
        if entry.kind == "assistant" {
            calls.extend(entry.tasks.iter().cloned());
        }
        feed.push(Feed::entry(What::Entry, entry));
    }
    // Entries kept out of the thread go to the run's metadata, and a note says what and how
    // much (their usage is added up apart as they stream).
    let mut kept_out: BTreeMap<&'static str, KeptOut> = BTreeMap::new();
    for (at, reason) in &selection.kept_out {
        let entry = &entries[*at];
        let count = kept_out.entry(reason).or_default();
        count.entries += 1;
        count.messages += u64::from(entry.is_written());
        count.calls += entry.tool_uses.len() as u64;
        count.results += entry.tool_results.len() as u64;
        // Kept at the end of the run, so their times must not move its clock back.
        let mut note = Feed::entry(What::OffChain(reason), entry);
        note.timestamp = None;
        feed.push(note);
    }
    if let Some((first, _)) = selection.kept_out.first() {
        let total = selection.kept_out.len();
        let reasons: Vec<String> = kept_out
            .iter()
            .map(|(reason, count)| format!("{reason} {}", count.describe()))
            .collect();
        notes.push(Note {
            file: log.path.clone(),
            line: entries[*first].line,
            kind: "kept-out",
            message: format!(
                "{total} {} kept out of the thread, as off-chain metadata: {}",
                if total == 1 { "entry" } else { "entries" },
                reasons.join(", ")
            ),
        });
    }
    let mut import = Map::new();
    import.insert("format".into(), "claude-code-session".into());
    import.insert(
        "source".into(),
        log.path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .into(),
    );
    import.insert("entries".into(), entries.len().into());
    import.insert("thread".into(), selected.len().into());
    import.insert("off_chain".into(), selection.kept_out.len().into());
    let counts: BTreeMap<&str, u64> = kept_out.iter().map(|(r, c)| (*r, c.entries)).collect();
    import.insert("kept_out".into(), json!(counts));
    import.insert("rejoined".into(), json!(selection.rejoined));
    import.insert("compactions".into(), compactions.into());
    if let Some(cwd) = cwd {
        import.insert("cwd".into(), cwd.into());
    }
    if let Some(branch) = branch {
        import.insert("git_branch".into(), branch.into());
    }
    if let Some(agent) = &agent {
        import.insert("agent_id".into(), agent.clone().into());
    }
    Thread {
        run_id,
        agent,
        source: log.path.clone(),
        feed,
        import,
        name: None,
        prompt,
        spawned,
        calls,
        session_id,
        version,
        kept_out: kept_out.iter().map(|(r, c)| (*r, c.entries)).collect(),
    }
}

/// The seed's simplified format, rewritten line by line into stream-json lines.
fn simplified_thread(log: &Log, run_id: &str) -> Result<Thread, ImportError> {
    let mut reader = Reader::open(&log.path)?;
    let mut feed = Vec::new();
    let mut calls = Vec::new();
    let mut pending: std::collections::VecDeque<String> = Default::default();
    let mut terminal: Option<(Option<Value>, Option<Value>, bool)> = None;
    let mut prompt = None;
    let mut generated = 0u64;
    for entry in &log.entries {
        let value = reader.value(&entry.range)?;
        let kind = value.get("type").and_then(Value::as_str).unwrap_or("");
        let line = if let Some(role) = value.get("role").and_then(Value::as_str) {
            let content = value.get("content").cloned().unwrap_or(Value::Null);
            if role == "user" && prompt.is_none() {
                prompt = content.as_str().map(text_hash);
            }
            if let Value::Array(blocks) = &content {
                for block in blocks {
                    if block.get("type").and_then(Value::as_str) == Some("tool_use")
                        && let Some(id) = block.get("id").and_then(Value::as_str)
                    {
                        pending.push_back(id.to_owned());
                    }
                }
            }
            let kind = if role == "assistant" {
                "assistant"
            } else {
                "user"
            };
            json!({"type": kind, "message": {"role": role, "content": content}})
        } else {
            match kind {
                "text" => json!({"type": "assistant", "message": {"role": "assistant",
                    "content": [{"type": "text", "text": value.get("text")}]}}),
                "tool_use" => {
                    let id = match value.get("id").and_then(Value::as_str) {
                        Some(id) => id.to_owned(),
                        None => {
                            generated += 1;
                            format!("axt-tool-{generated}")
                        }
                    };
                    pending.push_back(id.clone());
                    json!({"type": "assistant", "message": {"role": "assistant",
                        "content": [{"type": "tool_use", "id": id, "name": value.get("name"),
                            "input": value.get("input").cloned().unwrap_or(json!({}))}]}})
                }
                "tool_result" => {
                    let id = match value.get("tool_use_id").and_then(Value::as_str) {
                        Some(id) => {
                            pending.retain(|p| p != id);
                            id.to_owned()
                        }
                        None => pending.pop_front().unwrap_or_default(),
                    };
                    let content = value
                        .get("output")
                        .or(value.get("content"))
                        .cloned()
                        .unwrap_or(Value::Null);
                    json!({"type": "user", "message": {"role": "user",
                        "content": [{"type": "tool_result", "tool_use_id": id,
                            "content": content, "is_error": value.get("is_error")}]}})
                }
                "error" => {
                    let error = value.get("error").cloned().unwrap_or(Value::Null);
                    let message = match &error {
                        Value::Object(fields) => format!(
                            "{}: {}",
                            fields
                                .get("type")
                                .and_then(Value::as_str)
                                .unwrap_or("error"),
                            fields.get("message").and_then(Value::as_str).unwrap_or("")
                        ),
                        Value::String(text) => text.clone(),
                        other => other.to_string(),
                    };
                    json!({"type": "assistant", "error": message,
                        "message": {"role": "assistant", "content": []}})
                }
                "stop" | "result" => {
                    let slot = terminal.get_or_insert((None, None, true));
                    if kind == "stop" {
                        slot.0 = value.get("stop_reason").cloned();
                    } else {
                        slot.1 = value.get("result").cloned();
                    }
                    if value.get("success") == Some(&Value::Bool(false)) {
                        slot.2 = false;
                    }
                    continue;
                }
                _ => value.clone(),
            }
        };
        if line["type"] == "assistant"
            && let Some(Value::Array(blocks)) = line.pointer("/message/content")
        {
            calls.extend(tasks(blocks));
        }
        feed.push(Feed::note(line, entry));
    }
    let mut thread = Thread {
        run_id: run_id.to_owned(),
        agent: None,
        source: log.path.clone(),
        feed,
        import: Map::new(),
        name: None,
        prompt,
        spawned: HashMap::new(),
        calls,
        session_id: None,
        version: None,
        kept_out: BTreeMap::new(),
    };
    thread
        .import
        .insert("format".into(), "claude-code-simplified".into());
    thread.import.insert(
        "source".into(),
        log.path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .into(),
    );
    if let Some((stop, result, success)) = terminal {
        let last = log.entries.last().cloned().unwrap_or_default();
        let mut record = json!({"type": "result", "subtype": if success { "success" } else { "error_during_execution" },
            "is_error": !success});
        if let Some(stop) = stop {
            record["stop_reason"] = stop;
        }
        if let Some(result) = result {
            record["result"] = result;
        }
        thread.feed.push(Feed::note(record, &last));
        thread.import.insert("terminal".into(), true.into());
    }
    Ok(thread)
}

// ---------------------------------------------------------------------------------------
// Transcribing a thread with the stream-json adapter, straight into a sink.

/// A sub-agent a run spawned: `step.call_workflow.*` events to put into the run.
struct Spawn {
    /// The spawning call (`None`: unlinked, put before the run closes).
    call: Option<String>,
    /// The child run.
    child: String,
    name: String,
}

/// Where a spawn's events are as the run streams.
#[derive(Default)]
struct SpawnState {
    /// The spawning call's `tool.call` went by (its first one).
    call_seen: bool,
    /// The call's `tool.result` went by (its first one), with its error.
    result: Option<Option<String>>,
    started: bool,
    completed: bool,
}

/// The adapter's events on their way to the run's sink: the run's parent stamped on each,
/// `step.call_workflow.started` put right after the spawning call, `.completed` right after
/// its result. The last two events (the closing `step.completed` of `agent` and
/// `run.completed`) are held back: what has no place before them (an unlinked sub-agent, a
/// call that never returned) goes just before them, and `run.completed` gets the import
/// metadata.
struct Stream<'a> {
    parent: Option<&'a str>,
    spawns: &'a [Spawn],
    by_call: HashMap<&'a str, usize>,
    states: Vec<SpawnState>,
    held: std::collections::VecDeque<ExchangeEvent>,
    /// The last event passed on, payload left out: the template of an injected event.
    last: Option<ExchangeEvent>,
    out: &'a mut dyn FnMut(ExchangeEvent) -> Result<(), ImportError>,
    error: Option<ImportError>,
    diagnostics: Vec<Diagnostic>,
}

/// An event's fields without its payload.
fn shell(event: &ExchangeEvent) -> ExchangeEvent {
    ExchangeEvent {
        seq: event.seq,
        run_id: event.run_id.clone(),
        parent_run_id: event.parent_run_id.clone(),
        child_run_id: event.child_run_id.clone(),
        event_type: event.event_type.clone(),
        path: event.path.clone(),
        iteration: event.iteration,
        timestamp: event.timestamp.clone(),
        payload: Payload::Step(StepPayload {
            name: String::new(),
            kind: String::new(),
            error: None,
            result: Value::Null,
        }),
    }
}

impl Stream<'_> {
    fn pass(&mut self, mut event: ExchangeEvent) -> Result<(), ImportError> {
        if let Some(parent) = self.parent {
            event.parent_run_id = Some(parent.to_owned());
        }
        self.last = Some(shell(&event));
        (self.out)(event)
    }

    /// Passes on an event the adapter made, and the spawn events that follow it.
    fn pass_made(&mut self, event: ExchangeEvent) -> Result<(), ImportError> {
        let mut started = None;
        let mut completed = None;
        if let Payload::Tool(tool) = &event.payload
            && let Some(&at) = self.by_call.get(tool.call_id.as_str())
        {
            let state = &mut self.states[at];
            if event.event_type == EventType::ToolCall && !state.call_seen {
                state.call_seen = true;
                if !state.started {
                    started = Some(at);
                }
            } else if event.event_type == EventType::ToolResult && state.result.is_none() {
                state.result = Some(tool.error.clone());
                if state.started && !state.completed {
                    completed = Some(at);
                }
            }
        }
        self.pass(event)?;
        if let Some(at) = started {
            self.inject(at, EventType::CallWorkflowStarted, None)?;
        }
        if let Some(at) = completed {
            let error = self.states[at].result.clone().flatten();
            self.inject(at, EventType::CallWorkflowCompleted, error)?;
        }
        Ok(())
    }

    fn inject(
        &mut self,
        at: usize,
        kind: EventType,
        error: Option<String>,
    ) -> Result<(), ImportError> {
        let spawn = &self.spawns[at];
        let path = format!(
            "agent.{}",
            spawn
                .call
                .as_deref()
                .map_or_else(|| format!("unlinked-{}", spawn.child), str::to_owned)
        );
        let mut event = match &self.last {
            Some(last) => last.clone(),
            None => shell(self.held.front().expect("a run has events")),
        };
        let started = kind == EventType::CallWorkflowStarted;
        event.event_type = kind;
        event.path = path;
        event.child_run_id = Some(spawn.child.clone());
        event.payload = Payload::Step(StepPayload {
            name: spawn.name.clone(),
            kind: "call_workflow".to_owned(),
            error,
            result: Value::Null,
        });
        match started {
            true => self.states[at].started = true,
            false => self.states[at].completed = true,
        }
        self.pass(event)
    }

    /// The end of the run: what is still to inject, then the events held back.
    fn close(&mut self) -> Result<(), ImportError> {
        for at in 0..self.spawns.len() {
            if !self.states[at].started {
                self.inject(at, EventType::CallWorkflowStarted, None)?;
            }
            if !self.states[at].completed {
                let error = match &self.states[at].result {
                    Some(error) => error.clone(),
                    None => self.spawns[at]
                        .call
                        .as_ref()
                        .map(|_| "the spawning call never returned".to_owned()),
                };
                self.inject(at, EventType::CallWorkflowCompleted, error)?;
            }
        }
        while let Some(event) = self.held.pop_front() {
            self.pass(event)?;
        }
        Ok(())
    }
}

impl EventSink for Stream<'_> {
    fn event(&mut self, event: ExchangeEvent) -> io::Result<()> {
        self.held.push_back(event);
        if self.held.len() > 2 {
            let event = self.held.pop_front().expect("held events");
            if let Err(error) = self.pass_made(event) {
                self.error = Some(error);
                return Err(io::Error::other("the run's sink failed"));
            }
        }
        Ok(())
    }
    fn diagnostic(&mut self, diagnostic: Diagnostic) -> io::Result<()> {
        self.diagnostics.push(diagnostic);
        Ok(())
    }
}

/// Transcribes thread `at` of a plan into `out`, entry by entry from its file; returns the
/// diagnostics, their lines those of the file.
fn transcribe(
    plan: &Plan,
    at: usize,
    out: &mut dyn FnMut(ExchangeEvent) -> Result<(), ImportError>,
) -> Result<Vec<FileDiagnostic>, ImportError> {
    let thread = &plan.threads[at];
    let spawns = &plan.spawns[at];
    let first = thread.feed.iter().find_map(|f| f.timestamp.clone());
    let last = thread.feed.iter().rev().find_map(|f| f.timestamp.clone());
    let epoch = || Timestamp::parse("1970-01-01T00:00:00Z").expect("a valid timestamp");
    let now = Arc::new(Mutex::new(first.clone().unwrap_or_else(epoch)));
    let clock_now = Arc::clone(&now);
    let options = EventOptions {
        run_id: Some(thread.run_id.clone()),
        clock: Box::new(move || clock_now.lock().expect("clock lock").clone()),
    };
    let mut transcriber = Transcriber::new(Provider::Claude, Options::default(), options);
    let mut sink = Stream {
        parent: plan.parent_run_id(at),
        spawns,
        by_call: spawns
            .iter()
            .enumerate()
            .rev()
            .filter_map(|(at, spawn)| Some((spawn.call.as_deref()?, at)))
            .collect(),
        states: spawns.iter().map(|_| SpawnState::default()).collect(),
        held: Default::default(),
        last: None,
        out,
        error: None,
        diagnostics: Vec::new(),
    };
    let mut reader = match thread
        .feed
        .iter()
        .any(|f| !matches!(f.what, What::Bytes(_)))
    {
        true => Some(Reader::open(&thread.source)?),
        false => None,
    };
    // Synthetic line n (1-based) came from `lines[n - 1]`: (synthetic offset, line, offset).
    let mut lines = Vec::with_capacity(thread.feed.len() + 1);
    let mut synthetic = 0u64;
    let terminal = thread.import.contains_key("terminal");
    let mut record = Vec::new();
    let mut push = |bytes: &[u8], line: u64, offset: u64, sink: &mut Stream<'_>| {
        lines.push((synthetic, line, offset));
        synthetic += bytes.len() as u64 + 1;
        record.clear();
        record.extend_from_slice(bytes);
        record.push(b'\n');
        let _ = transcriber.push(&record, sink);
        sink.error.take().map_or(Ok(()), Err)
    };
    let mut off_usage: HashMap<String, Value> = HashMap::new();
    for feed in &thread.feed {
        if let Some(ts) = &feed.timestamp {
            *now.lock().expect("clock lock") = ts.clone();
        }
        let note = |value: Value| serde_json::to_vec(&value).expect("a JSON value serializes");
        let reader = reader.as_mut();
        match &feed.what {
            What::Bytes(bytes) => push(bytes, feed.line, feed.offset(), &mut sink)?,
            What::Entry => {
                let bytes = reader.expect("a reader").raw(&feed.range)?;
                push(bytes, feed.line, feed.offset(), &mut sink)?;
            }
            What::CompactSummary => {
                let entry = reader.expect("a reader").value(&feed.range)?;
                let bytes = note(json!({"type": "axt-import", "subtype": "compact-summary",
                    "line": feed.line, "entry": entry}));
                push(&bytes, feed.line, feed.offset(), &mut sink)?;
            }
            What::OffChain(reason) => {
                let entry = reader.expect("a reader").value(&feed.range)?;
                if entry.get("type").and_then(Value::as_str) == Some("assistant")
                    && let (Some(id), Some(usage)) = (
                        entry.pointer("/message/id").and_then(Value::as_str),
                        entry.pointer("/message/usage"),
                    )
                {
                    off_usage.insert(id.to_owned(), usage.clone());
                }
                let bytes = note(json!({"type": "axt-import", "subtype": "off-chain",
                    "reason": reason, "line": feed.line, "entry": entry}));
                push(&bytes, feed.line, feed.offset(), &mut sink)?;
            }
        }
    }
    if !terminal {
        // The log has no terminal record: the run is what the file holds.
        let duration = match (&first, &last) {
            (Some(a), Some(b)) => match (a.unix_nanos(), b.unix_nanos()) {
                (Ok(a), Ok(b)) if b >= a => Some(((b - a) / 1_000_000) as u64),
                _ => None,
            },
            _ => None,
        };
        let mut record = json!({"type": "result", "subtype": "success", "is_error": false});
        if let Some(ms) = duration {
            record["duration_ms"] = ms.into();
        }
        let (line, offset) = thread.feed.last().map_or((0, 0), |f| (f.line, f.offset()));
        let bytes = serde_json::to_vec(&record).expect("a JSON value serializes");
        push(&bytes, line, offset, &mut sink)?;
    }
    let _ = transcriber.finish(&mut sink);
    if let Some(error) = sink.error.take() {
        return Err(error);
    }
    let map = |line: u64, offset: u64| -> (u64, u64) {
        match line.checked_sub(1).and_then(|i| lines.get(i as usize)) {
            Some((start, line, original)) => (*line, original + offset.saturating_sub(*start)),
            None => (0, 0),
        }
    };
    let mut import = thread.import.clone();
    if !off_usage.is_empty() {
        let mut total = json!({"input_tokens": 0, "output_tokens": 0,
            "cache_read_tokens": 0, "cache_write_tokens": 0});
        for usage in off_usage.values() {
            for (to, from) in [
                ("input_tokens", "input_tokens"),
                ("output_tokens", "output_tokens"),
                ("cache_read_tokens", "cache_read_input_tokens"),
                ("cache_write_tokens", "cache_creation_input_tokens"),
            ] {
                let add = usage.get(from).and_then(Value::as_u64).unwrap_or(0);
                total[to] = (total[to].as_u64().unwrap_or(0) + add).into();
            }
        }
        import.insert("off_chain_usage".into(), total);
    }
    if let Some(completed) = sink.held.back_mut()
        && let Payload::Step(step) = &mut completed.payload
        && let Value::Object(result) = &mut step.result
    {
        for key in ["passthrough", "errors"] {
            if let Some(Value::Array(items)) = result.get_mut(key) {
                for item in items {
                    if let Some(line) = item.get("line").and_then(Value::as_u64) {
                        item["line"] = map(line, 0).0.into();
                    }
                }
            }
        }
        if !result.contains_key("session_id")
            && let Some(session) = &thread.session_id
        {
            result.insert("session_id".into(), session.clone().into());
        }
        if !result.contains_key("provider_version")
            && let Some(version) = &thread.version
        {
            result.insert("provider_version".into(), version.clone().into());
        }
        result.insert("import".into(), Value::Object(import));
    }
    sink.close()?;
    Ok(sink
        .diagnostics
        .into_iter()
        .map(|mut diagnostic| {
            (diagnostic.line, diagnostic.offset) = map(diagnostic.line, diagnostic.offset);
            FileDiagnostic {
                file: thread.source.clone(),
                diagnostic,
            }
        })
        .collect())
}

// ---------------------------------------------------------------------------------------
// Linking sub-agents to the calls that spawned them.

/// A sub-agent and the call that spawned it (`None`: none found, linked to the root).
struct Link {
    parent: usize,
    call: Option<String>,
    child: usize,
    name: String,
}

/// Candidates in order; the ones before `next` are claimed (a claim is never undone).
#[derive(Default)]
struct Queue<T> {
    next: usize,
    items: Vec<T>,
}

impl<T> Queue<T> {
    fn first_unclaimed(&mut self, claimed: impl Fn(&T) -> bool) -> Option<&T> {
        while self.items.get(self.next).is_some_and(&claimed) {
            self.next += 1;
        }
        self.items.get(self.next)
    }
}

/// Of agent threads without a session log, the first that no call of another spawned (by
/// agent id or by prompt); the first when every one was spawned.
fn root_agent(threads: &[Thread]) -> usize {
    // Who names each agent id and who sent each prompt.
    let mut naming: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut sending: HashMap<u128, Vec<usize>> = HashMap::new();
    for (at, thread) in threads.iter().enumerate() {
        for agent in thread.spawned.values() {
            naming.entry(agent).or_default().push(at);
        }
        for prompt in thread.calls.iter().filter_map(|c| c.prompt) {
            sending.entry(prompt).or_default().push(at);
        }
    }
    let by_other =
        |by: Option<&Vec<usize>>, at: usize| by.is_some_and(|by| by.iter().any(|b| *b != at));
    (0..threads.len())
        .find(|at| {
            let thread = &threads[*at];
            let named = thread
                .agent
                .as_deref()
                .is_some_and(|a| by_other(naming.get(a), *at));
            let sent = thread
                .prompt
                .is_some_and(|p| by_other(sending.get(&p), *at));
            !named && !sent
        })
        .unwrap_or(0)
}

/// Links every sub-agent thread to the call that spawned it: the call whose result names
/// its agent id, else the first unclaimed `Task` / `Agent` call that sent its prompt. Both
/// are looked up in indexes, so linking is linear in the number of calls and sub-agents.
fn link(threads: &[Thread], notes: &mut Vec<Note>) -> Vec<Link> {
    // Every Task / Agent call of every thread, in order: (thread, call).
    let calls: Vec<(usize, &Task)> = threads
        .iter()
        .enumerate()
        .flat_map(|(at, t)| t.calls.iter().map(move |call| (at, call)))
        .collect();
    let mut kind_of: HashMap<&str, Option<&str>> = HashMap::new();
    let mut by_prompt: HashMap<u128, Queue<usize>> = HashMap::new();
    for (at, (_, call)) in calls.iter().enumerate() {
        kind_of
            .entry(call.id.as_str())
            .or_insert(call.subagent_type.as_deref());
        if let Some(prompt) = call.prompt {
            by_prompt.entry(prompt).or_default().items.push(at);
        }
    }
    // Agent id -> the calls whose results name it: (thread, call id), thread by thread.
    let mut by_agent: HashMap<&str, Queue<(usize, &str)>> = HashMap::new();
    for (at, thread) in threads.iter().enumerate() {
        let mut spawned: Vec<(&String, &String)> = thread.spawned.iter().collect();
        spawned.sort_unstable();
        for (call, agent) in spawned {
            by_agent
                .entry(agent.as_str())
                .or_default()
                .items
                .push((at, call.as_str()));
        }
    }
    let mut claimed: HashSet<String> = HashSet::new();
    let mut links = Vec::new();
    for (child, thread) in threads.iter().enumerate().skip(1) {
        let agent = thread.agent.as_deref().unwrap_or("");
        let by_id = by_agent.get_mut(agent).and_then(|queue| {
            queue
                .first_unclaimed(|(_, call)| claimed.contains(*call))
                .map(|(parent, call)| (*parent, (*call).to_owned()))
        });
        let found = by_id.or_else(|| {
            let queue = by_prompt.get_mut(&thread.prompt?)?;
            let at = *queue.first_unclaimed(|at| claimed.contains(&calls[*at].1.id))?;
            Some((calls[at].0, calls[at].1.id.clone()))
        });
        match found {
            Some((parent, call)) if parent != child => {
                claimed.insert(call.clone());
                let name = thread
                    .name
                    .clone()
                    .or_else(|| {
                        kind_of
                            .get(call.as_str())
                            .copied()
                            .flatten()
                            .map(str::to_owned)
                    })
                    .unwrap_or_else(|| "subagent".into());
                links.push(Link {
                    parent,
                    call: Some(call),
                    child,
                    name,
                });
            }
            _ => {
                notes.push(Note {
                    file: thread.source.clone(),
                    line: 0,
                    kind: "unlinked-subagent",
                    message: format!(
                        "sub-agent {agent:?}: no Task/Agent call names it or sent its prompt; linked to the session's end"
                    ),
                });
                let name = thread.name.clone().unwrap_or_else(|| "subagent".into());
                links.push(Link {
                    parent: 0,
                    call: None,
                    child,
                    name,
                });
            }
        }
    }
    links
}

// ---------------------------------------------------------------------------------------
// Writing.

/// Refuses (or, replacing, removes) the runs' files that exist in `dir`.
fn clear<'a>(
    run_ids: impl Iterator<Item = &'a str>,
    dir: &Path,
    replace: bool,
) -> Result<(), ImportError> {
    for run_id in run_ids {
        let path = dir.join(format!("{run_id}.jsonl"));
        if path.exists() {
            if !replace {
                return Err(ImportError::Exists {
                    run_id: run_id.to_owned(),
                    path,
                });
            }
            std::fs::remove_file(&path).map_err(|source| ImportError::Io {
                path: path.clone(),
                source,
            })?;
        }
    }
    Ok(())
}

/// Writes a converted session's runs into `dir`, root first; returns the files.
pub fn write(session: &Session, dir: &Path, replace: bool) -> Result<Vec<PathBuf>, ImportError> {
    clear(session.runs.iter().map(|r| r.run_id.as_str()), dir, replace)?;
    let mut written = Vec::new();
    for run in &session.runs {
        let mut options = RecorderOptions::default();
        if let Some(parent) = &run.parent_run_id {
            options = options.parent_run_id(parent);
        }
        let recorder = Recorder::create(dir, &run.run_id, options)?;
        for event in &run.events {
            recorder.record(event.clone())?;
        }
        recorder.close()?;
        written.push(recorder.path().to_owned());
    }
    Ok(written)
}

/// A run [`import_session`] wrote.
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
}

/// A session [`import_session`] wrote: what [`Session`] says, without the events.
pub type Imported = Session<WrittenRun>;

/// Converts a session and writes its runs into `dir`, root first, streaming: each run's
/// entries are read again from the file one by one and their events go straight into the
/// recorder, so memory holds the session's skeleton, not its content. Writes what
/// `write(&convert(files)?, dir, replace)` writes.
pub fn import_session(
    files: &SessionFiles,
    dir: &Path,
    replace: bool,
) -> Result<Imported, ImportError> {
    let plan = plan(files)?;
    clear(plan.threads.iter().map(|t| t.run_id.as_str()), dir, replace)?;
    let mut runs = Vec::with_capacity(plan.threads.len());
    let mut diagnostics = Vec::new();
    for (at, thread) in plan.threads.iter().enumerate() {
        let parent_run_id = plan.parent_run_id(at).map(str::to_owned);
        let mut options = RecorderOptions::default();
        if let Some(parent) = &parent_run_id {
            options = options.parent_run_id(parent);
        }
        let recorder = Recorder::create(dir, &thread.run_id, options)?;
        let mut events = 0;
        diagnostics.extend(transcribe(&plan, at, &mut |event| {
            events += 1;
            recorder.record(event)?;
            Ok(())
        })?);
        recorder.close()?;
        runs.push(WrittenRun {
            run_id: thread.run_id.clone(),
            parent_run_id,
            source: thread.source.clone(),
            path: recorder.path().to_owned(),
            events,
        });
    }
    Ok(Imported {
        kept_out: plan.kept_out(),
        session_id: plan.session_id,
        runs,
        notes: plan.notes,
        diagnostics,
    })
}

/// How [`import`] works.
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

/// Imports every session under `path` into `dir`, in parallel; `progress(done, total)` is
/// called after each session. Outcomes are in the order of [`discover`].
pub fn import(
    path: &Path,
    dir: &Path,
    options: &ImportOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> io::Result<Vec<SessionOutcome>> {
    let sessions = discover(path)?;
    let total = sessions.len();
    let jobs = match options.jobs {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
    .min(total.max(1));
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<SessionOutcome>>> =
        Mutex::new((0..total).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                loop {
                    let at = next.fetch_add(1, Ordering::Relaxed);
                    let Some(files) = sessions.get(at) else { break };
                    let result = import_session(files, dir, options.replace);
                    let outcome = SessionOutcome {
                        files: files.clone(),
                        result,
                    };
                    results.lock().expect("results lock")[at] = Some(outcome);
                    progress(done.fetch_add(1, Ordering::Relaxed) + 1, total);
                }
            });
        }
    });
    Ok(results
        .into_inner()
        .expect("results lock")
        .into_iter()
        .flatten()
        .collect())
}
