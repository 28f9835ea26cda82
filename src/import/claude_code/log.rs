//! Reading entries: a log file's skeleton (every entry's graph fields and byte range, not
//! its content), whether the file is a session log at all and in which format, and reading
//! an entry's bytes back by its range.
//!
//! This file owns the entry fields the importer needs and the first pass over a file; it
//! decides nothing about threads.

use std::borrow::Cow;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::import::entries::scan;
use crate::import::session::ImportError;
use crate::model::Timestamp;
use crate::model::tools::{ToolClass, classify, subagent_name};

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
    /// The call a user entry belongs to without answering it (a skill's body, 2.1.x).
    #[serde(rename = "sourceToolUseID", borrow, default)]
    source_tool: Option<Cow<'a, str>>,
    /// Raw, so that a `message` of an unexpected shape does not cost the entry its graph
    /// fields.
    #[serde(borrow, default)]
    message: Option<&'a serde_json::value::RawValue>,
}

/// One entry of a log: where it is and the graph fields.
#[derive(Clone, Debug, Default)]
pub(super) struct Entry {
    pub(super) line: u64,
    pub(super) range: Range<usize>,
    /// Parsed as JSON at all.
    pub(super) json: bool,
    pub(super) kind: String,
    pub(super) subtype: Option<String>,
    pub(super) uuid: Option<String>,
    pub(super) parent: Option<String>,
    pub(super) logical_parent: Option<String>,
    pub(super) sidechain: bool,
    pub(super) agent_id: Option<String>,
    pub(super) session_id: Option<String>,
    /// Has `session_id` (snake case), as stream-json records do.
    pub(super) stream_session: bool,
    pub(super) timestamp: Option<Timestamp>,
    pub(super) compact_summary: bool,
    pub(super) cwd: Option<String>,
    pub(super) version: Option<String>,
    pub(super) git_branch: Option<String>,
    pub(super) role: bool,
    /// `toolUseResult.agentId`: the sub-agent a Task result came from.
    pub(super) result_agent: Option<String>,
    /// `isMeta: true` (user entries).
    pub(super) meta: bool,
    /// `message.id` (assistant entries): the entries of one API response share it.
    pub(super) message_id: Option<String>,
    /// A hash of `message.content` (assistant entries): two entries of one message with the
    /// same content are one entry written twice.
    pub(super) content_hash: Option<u128>,
    /// `sourceToolUseID` (user entries): the call whose result this entry belongs to (a
    /// skill's body, written after the call's `tool_result`).
    pub(super) source_tool: Option<String>,
    /// The ids of the `tool_use` blocks (assistant entries).
    pub(super) tool_uses: Vec<String>,
    /// The `Task` / `Agent` calls among the tool blocks (assistant entries).
    pub(super) tasks: Vec<Task>,
    /// The `tool_use_id`s of the `tool_result` blocks (user entries).
    pub(super) tool_results: Vec<String>,
    /// The hash of the entry's prompt text (user entries), for linking by prompt.
    pub(super) prompt: Option<u128>,
}

/// A `Task` / `Agent` call: what linking a sub-agent to it needs.
#[derive(Clone, Debug, Default)]
pub(super) struct Task {
    pub(super) id: String,
    pub(super) subagent_type: Option<String>,
    /// The hash of `input.prompt`.
    pub(super) prompt: Option<u128>,
}

impl Entry {
    pub(super) fn is_message(&self) -> bool {
        matches!(self.kind.as_str(), "user" | "assistant")
    }

    /// A message the model or the user wrote (not a hook's `isMeta` user entry).
    pub(super) fn is_written(&self) -> bool {
        self.kind == "assistant" || (self.kind == "user" && !self.meta)
    }
}

/// A log file's skeleton: every entry's graph fields and where its bytes are, not its
/// content (that is read again, entry by entry, when the run is transcribed).
pub(super) struct Log {
    pub(super) path: PathBuf,
    pub(super) entries: Vec<Entry>,
    /// The file's size in bytes.
    pub(super) size: usize,
}

impl Log {
    /// Reads the skeleton, line by line by the rules every reader of JSON Lines shares
    /// ([`crate::model::lines`]). A line over the limit is not held: it stays an entry by
    /// its byte range alone (no graph fields), and the transcription reports it as too
    /// large when it reads it back.
    pub(super) fn read(path: &Path) -> Result<Log, ImportError> {
        let mut entries = Vec::new();
        let scanned = scan(path, |line| {
            entries.push(entry(line.number, line.range, line.bytes));
        })?;
        Ok(Log {
            path: path.to_owned(),
            entries,
            size: scanned.size as usize,
        })
    }
}

/// Refuses a log that is no session log at all: importing it would "succeed" with a run of
/// nothing, or of every record taken for a rewind.
pub(super) fn check(log: &Log) -> Result<(), ImportError> {
    let refuse = |entry: Option<&Entry>, reason: String| ImportError::NotASession {
        format: "Claude Code session log",
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
pub(super) fn is_simplified(log: &Log) -> bool {
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
    #[derive(Deserialize)]
    struct Message<'a> {
        id: Option<String>,
        #[serde(borrow)]
        content: Option<&'a serde_json::value::RawValue>,
    }
    let message = head
        .message
        .filter(|_| head.kind.as_deref() == Some("assistant"))
        .and_then(|raw| serde_json::from_str::<Message<'_>>(raw.get()).ok());
    let (message_id, content_hash) = match message {
        Some(message) => (
            message.id,
            message
                .content
                .map(|content| bytes_hash(content.get().as_bytes())),
        ),
        None => (None, None),
    };
    let user = head.kind.as_deref() == Some("user");
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
        content_hash,
        source_tool: owned(head.source_tool).filter(|_| user),
        ..Entry::default()
    };
    content(&mut entry, bytes);
    entry
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
pub(super) fn tasks(blocks: &[Value]) -> Vec<Task> {
    blocks
        .iter()
        .filter(|b| {
            matches!(
                b.get("type").and_then(Value::as_str),
                Some("tool_use" | "server_tool_use")
            ) && b.get("name").and_then(Value::as_str).and_then(classify)
                == Some(ToolClass::SubAgent)
        })
        .map(|b| {
            let input = |key: &str| b.get("input")?.get(key)?.as_str();
            let name = b.get("name").and_then(Value::as_str).unwrap_or("");
            let subagent = b.get("input").and_then(|i| subagent_name(name, i));
            Task {
                id: b.get("id").and_then(Value::as_str).unwrap_or("").to_owned(),
                subagent_type: subagent.map(str::to_owned),
                prompt: input("prompt").map(text_hash),
            }
        })
        .collect()
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

/// A hash of a prompt text: linking by prompt compares these instead of keeping every
/// prompt (128 bits: a collision between two different prompts is not a practical risk).
pub(super) fn text_hash(text: &str) -> u128 {
    bytes_hash(text.as_bytes())
}

/// 128 bits of std's hasher over `bytes`: compared within one import only, never stored.
fn bytes_hash(bytes: &[u8]) -> u128 {
    use std::hash::{Hash, Hasher};
    let half = |salt: u8| {
        let mut hasher = std::hash::DefaultHasher::new();
        salt.hash(&mut hasher);
        bytes.hash(&mut hasher);
        hasher.finish()
    };
    (u128::from(half(0)) << 64) | u128::from(half(1))
}

/// The working directory a session ran in: the first `cwd` its first entries name.
pub(crate) fn cwd(path: &Path) -> Option<PathBuf> {
    #[derive(Deserialize)]
    struct Cwd {
        cwd: Option<String>,
    }
    let file = std::fs::File::open(path).ok()?;
    std::io::BufRead::lines(std::io::BufReader::new(file))
        .take(64)
        .map_while(Result::ok)
        .find_map(|line| serde_json::from_str::<Cwd>(&line).ok()?.cwd)
        .map(PathBuf::from)
}
