//! Reading entries: a log file's skeleton (every entry's graph fields and byte range, not
//! its content), whether the file is a session log at all and in which format, and reading
//! an entry's bytes back by its range.
//!
//! This file owns the entry fields the importer needs and the first pass over a file; it
//! decides nothing about threads.

use std::num::NonZeroU32;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use super::head::{Content, Head, Message, skim_head};
use crate::import::entries::scan;
use crate::import::session::ImportError;
use crate::model::Timestamp;
use crate::model::tools::{ToolClass, classify, subagent_name};

/// One entry of a log: where it is and the graph fields. Its strings are the log's
/// ([`Str`], [`Ids`]: read through [`Strings`]), so that an entry is a few hundred bytes
/// and no allocation of its own: with a `String` a field it was ~480 bytes and eight
/// allocations (~860 bytes a line), 23 MiB of the 40 MiB peak of importing a session of
/// 198 MiB (28,765 entries).
#[derive(Clone, Debug, Default)]
pub(super) struct Entry {
    pub(super) line: u64,
    pub(super) range: Range<usize>,
    pub(super) timestamp: Option<Timestamp>,
    /// A hash of `message.content` (assistant entries: two entries of one message with the
    /// same content are one entry written twice), or of the entry's prompt text (user
    /// entries, for linking by prompt): [`Entry::content_hash`], [`Entry::prompt`].
    hash: Option<u128>,
    pub(super) kind: Kind,
    pub(super) subtype: Option<Str>,
    pub(super) uuid: Option<Str>,
    pub(super) parent: Option<Str>,
    pub(super) logical_parent: Option<Str>,
    pub(super) agent_id: Option<Str>,
    pub(super) session_id: Option<Str>,
    pub(super) cwd: Option<Str>,
    pub(super) version: Option<Str>,
    pub(super) git_branch: Option<Str>,
    /// `toolUseResult.agentId`: the sub-agent a Task result came from.
    pub(super) result_agent: Option<Str>,
    /// `message.id` (assistant entries): the entries of one API response share it.
    pub(super) message_id: Option<Str>,
    /// `sourceToolUseID` (user entries): the call whose result this entry belongs to (a
    /// skill's body, written after the call's `tool_result`).
    pub(super) source_tool: Option<Str>,
    /// The ids of the `tool_use` blocks (assistant entries).
    pub(super) tool_uses: Ids,
    /// The `Task` / `Agent` calls among the tool blocks (assistant entries).
    pub(super) tasks: Ids,
    /// The `tool_use_id`s of the `tool_result` blocks (user entries).
    pub(super) tool_results: Ids,
    /// Parsed as JSON at all.
    pub(super) json: bool,
    pub(super) sidechain: bool,
    /// Has `session_id` (snake case), as stream-json records do.
    pub(super) stream_session: bool,
    pub(super) compact_summary: bool,
    pub(super) role: bool,
    /// `isMeta: true` (user entries).
    pub(super) meta: bool,
}

/// An entry's `type`: the ones the graph asks about by name, or another (its text in the
/// log's strings).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum Kind {
    /// No `type` (or an empty one, or not a string).
    #[default]
    None,
    User,
    Assistant,
    System,
    Summary,
    FileHistorySnapshot,
    Other(Str),
}

/// A string of a log's entries: where it is in the log's text ([`Strings`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Str {
    /// Never 0 (the text starts with a byte no string is cut from), so that an
    /// `Option<Str>` is 8 bytes.
    start: NonZeroU32,
    len: u32,
}

/// A list of an entry's ids (or `Task` calls): where it is in the log's lists.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Ids {
    start: u32,
    len: u32,
}

impl Ids {
    pub(super) fn len(self) -> usize {
        self.len as usize
    }

    pub(super) fn is_empty(self) -> bool {
        self.len == 0
    }

    fn range(self) -> Range<usize> {
        self.start as usize..self.start as usize + self.len as usize
    }
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
        matches!(self.kind, Kind::User | Kind::Assistant)
    }

    /// A message the model or the user wrote (not a hook's `isMeta` user entry).
    pub(super) fn is_written(&self) -> bool {
        self.kind == Kind::Assistant || (self.kind == Kind::User && !self.meta)
    }

    /// A hash of `message.content` (assistant entries).
    pub(super) fn content_hash(&self) -> Option<u128> {
        self.hash.filter(|_| self.kind == Kind::Assistant)
    }

    /// The hash of the entry's prompt text (user entries), for linking by prompt.
    pub(super) fn prompt(&self) -> Option<u128> {
        self.hash.filter(|_| self.kind == Kind::User)
    }
}

/// The strings of a log's entries, which their fields point into: one text for all (a
/// value the entry before has in the same field, as the session id, working directory,
/// version and branch mostly are, or a `parentUuid` naming the entry before, is not
/// written again), and the lists of ids and `Task` calls.
pub(super) struct Strings {
    text: String,
    ids: Vec<Str>,
    tasks: Vec<Task>,
}

/// A log's strings outgrew the 4 GiB their offsets reach (only a log larger than that).
#[derive(Debug)]
pub(super) struct TooMany;

impl Default for Strings {
    fn default() -> Self {
        Strings {
            // No string starts at 0 (see `Str::start`).
            text: String::from("\0"),
            ids: Vec::new(),
            tasks: Vec::new(),
        }
    }
}

impl Strings {
    /// The text of a string.
    pub(super) fn get(&self, s: Str) -> &str {
        let start = s.start.get() as usize;
        // Every `Str` was cut from this text at a string's bounds.
        self.text.get(start..start + s.len as usize).unwrap_or("")
    }

    /// The text of a field, when the entry has it.
    pub(super) fn of(&self, s: Option<Str>) -> Option<&str> {
        s.map(|s| self.get(s))
    }

    /// An entry's `type` as written.
    pub(super) fn kind(&self, kind: Kind) -> &str {
        match kind {
            Kind::None => "",
            Kind::User => "user",
            Kind::Assistant => "assistant",
            Kind::System => "system",
            Kind::Summary => "summary",
            Kind::FileHistorySnapshot => "file-history-snapshot",
            Kind::Other(s) => self.get(s),
        }
    }

    /// The ids of a list.
    pub(super) fn ids(&self, ids: Ids) -> impl Iterator<Item = &str> + '_ {
        self.ids
            .get(ids.range())
            .unwrap_or_default()
            .iter()
            .map(|s| self.get(*s))
    }

    /// The `Task` calls of a list.
    pub(super) fn tasks(&self, tasks: Ids) -> &[Task] {
        self.tasks.get(tasks.range()).unwrap_or_default()
    }

    /// `text` kept, `None` when it is empty (an empty field is no field, as it always
    /// was); a string of `like` when it says the same.
    fn add(&mut self, text: Option<&str>, like: &[Option<Str>]) -> Result<Option<Str>, TooMany> {
        let Some(text) = text.filter(|t| !t.is_empty()) else {
            return Ok(None);
        };
        if let Some(same) = like.iter().flatten().find(|s| self.get(**s) == text) {
            return Ok(Some(*same));
        }
        self.push(text).map(Some)
    }

    fn push(&mut self, text: &str) -> Result<Str, TooMany> {
        let start = u32::try_from(self.text.len()).map_err(|_| TooMany)?;
        let start = NonZeroU32::new(start).ok_or(TooMany)?;
        let len = u32::try_from(text.len()).map_err(|_| TooMany)?;
        start.checked_add(len).ok_or(TooMany)?;
        self.text.push_str(text);
        Ok(Str { start, len })
    }

    fn kind_of(&mut self, text: Option<&str>, like: Kind) -> Result<Kind, TooMany> {
        Ok(match text.unwrap_or("") {
            "" => Kind::None,
            "user" => Kind::User,
            "assistant" => Kind::Assistant,
            "system" => Kind::System,
            "summary" => Kind::Summary,
            "file-history-snapshot" => Kind::FileHistorySnapshot,
            other => {
                let like = match like {
                    Kind::Other(s) => Some(s),
                    _ => None,
                };
                match self.add(Some(other), &[like])? {
                    Some(s) => Kind::Other(s),
                    None => Kind::None,
                }
            }
        })
    }

    fn id_list<'a>(&mut self, ids: impl Iterator<Item = &'a str>) -> Result<Ids, TooMany> {
        let start = u32::try_from(self.ids.len()).map_err(|_| TooMany)?;
        for id in ids {
            let id = self.push(id)?;
            self.ids.push(id);
        }
        let len = u32::try_from(self.ids.len() - start as usize).map_err(|_| TooMany)?;
        Ok(Ids { start, len })
    }

    fn task_list(&mut self, tasks: impl Iterator<Item = Task>) -> Result<Ids, TooMany> {
        let start = u32::try_from(self.tasks.len()).map_err(|_| TooMany)?;
        self.tasks.extend(tasks);
        let len = u32::try_from(self.tasks.len() - start as usize).map_err(|_| TooMany)?;
        Ok(Ids { start, len })
    }
}

/// A log file's skeleton: every entry's graph fields and where its bytes are, not its
/// content (that is read again, entry by entry, when the run is transcribed).
pub(super) struct Log {
    pub(super) path: PathBuf,
    pub(super) entries: Vec<Entry>,
    /// The entries' strings.
    pub(super) strings: Strings,
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
        let mut strings = Strings::default();
        let mut full = false;
        let scanned = scan(path, |line| {
            let before = entries.last();
            match read_entry(
                line.number,
                line.range,
                line.bytes,
                true,
                &mut strings,
                before,
            ) {
                Ok(entry) => entries.push(entry),
                Err(TooMany) => full = true,
            }
        })?;
        if full {
            return Err(ImportError::Io {
                path: path.to_owned(),
                source: std::io::Error::new(
                    std::io::ErrorKind::FileTooLarge,
                    "the session log's ids and graph fields pass 4 GiB",
                ),
            });
        }
        Ok(Log {
            path: path.to_owned(),
            entries,
            strings,
            size: scanned.size as usize,
        })
    }

    /// The text of a field of an entry, when it has it.
    pub(super) fn of(&self, s: Option<Str>) -> Option<&str> {
        self.strings.of(s)
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
        e.session_id.is_some() || matches!(e.kind, Kind::Summary | Kind::FileHistorySnapshot)
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
                    log.strings.kind(first.kind),
                    "tool_use" | "tool_result" | "text" | "error" | "stop" | "result"
                ))
    })
}

/// An entry read by the skim where it can (`skim`), else by serde_json (the tests read
/// every entry both ways and compare), its strings kept in `strings` (those it shares with
/// the entry `before` it once).
fn read_entry(
    line: u64,
    range: Range<usize>,
    bytes: &[u8],
    skim: bool,
    strings: &mut Strings,
    before: Option<&Entry>,
) -> Result<Entry, TooMany> {
    let skimmed = skim.then(|| skim_head(bytes)).flatten();
    let Some(head) = skimmed
        .map(Ok)
        .unwrap_or_else(|| serde_json::from_slice::<Head<'_>>(bytes))
        .ok()
    else {
        return Ok(Entry {
            line,
            range,
            ..Entry::default()
        });
    };
    let none = Entry::default();
    let before = before.unwrap_or(&none);
    let kind = strings.kind_of(head.kind.as_deref(), before.kind)?;
    let assistant = kind == Kind::Assistant;
    let user = kind == Kind::User;
    let message = head.message.unwrap_or_default();
    // The message's id and a hash of its content (assistant entries), where its fields
    // have the types they should.
    let (message_id, content_hash) = match &message {
        Message {
            typed: true,
            id,
            content,
            ..
        } if assistant => (
            strings.add(id.as_deref(), &[before.message_id])?,
            content.map(|content| bytes_hash(content.as_bytes())),
        ),
        _ => (None, None),
    };
    let mut entry = Entry {
        line,
        range,
        json: true,
        kind,
        subtype: strings.add(head.subtype.as_deref(), &[before.subtype])?,
        uuid: strings.add(head.uuid.as_deref(), &[])?,
        // Mostly the entry before.
        parent: strings.add(head.parent.as_deref(), &[before.uuid, before.parent])?,
        logical_parent: strings.add(head.logical_parent.as_deref(), &[])?,
        sidechain: head.sidechain.unwrap_or(false),
        agent_id: strings.add(head.agent_id.as_deref(), &[before.agent_id])?,
        session_id: strings.add(head.session_id.as_deref(), &[before.session_id])?,
        stream_session: head.stream_session.is_some(),
        timestamp: head
            .timestamp
            .as_deref()
            .and_then(|t| Timestamp::parse(t).ok()),
        compact_summary: head.compact_summary.unwrap_or(false),
        cwd: strings.add(head.cwd.as_deref(), &[before.cwd])?,
        version: strings.add(head.version.as_deref(), &[before.version])?,
        git_branch: strings.add(head.git_branch.as_deref(), &[before.git_branch])?,
        role: head.role.is_some(),
        result_agent: strings.add(head.tool_use_result.flatten().as_deref(), &[])?,
        meta: user && head.meta,
        message_id,
        hash: content_hash,
        source_tool: match user {
            true => strings.add(head.source_tool.as_deref(), &[])?,
            false => None,
        },
        ..Entry::default()
    };
    if let Some(content) = message.content.filter(|_| message.object) {
        blocks(&mut entry, content, message.skimmed, strings)?;
    }
    Ok(entry)
}

/// The content fields linking and thread selection need: the calls and `Task` / `Agent`
/// calls of an assistant entry, the results and prompt of a user entry.
fn blocks(
    entry: &mut Entry,
    content: &str,
    skimmed: Option<Content<'_>>,
    strings: &mut Strings,
) -> Result<(), TooMany> {
    let user = entry.kind == Kind::User;
    let raw = content.as_bytes();
    // Only a block typed `tool_use` or `server_tool_use` is a call: an assistant content
    // without those bytes has none, unless it spells them with an escape (`\u0075`), and
    // every escape of a letter is `\u`. So the blocks are read where either is found.
    let find = |needle: &[u8]| memchr::memmem::find(raw, needle).is_some();
    let tools = entry.kind == Kind::Assistant && (find(b"tool_use") || find(b"\\u"));
    if !user && !tools {
        return Ok(());
    }
    let Ok(content) = skimmed
        .map(Ok)
        .unwrap_or_else(|| serde_json::from_str::<Content<'_>>(content))
    else {
        return Ok(());
    };
    let blocks = match content {
        Content::Text(text) => {
            if user {
                entry.hash = Some(text_hash(&text));
            }
            return Ok(());
        }
        Content::Blocks(blocks) => blocks,
        Content::Other => return Ok(()),
    };
    if tools {
        entry.tool_uses = strings.id_list(
            (blocks.iter())
                .filter(|b| b.kind.as_deref() == Some("tool_use"))
                .filter_map(|b| b.id.as_deref()),
        )?;
        entry.tasks = strings.task_list(
            (blocks.iter())
                .filter(|b| matches!(b.kind.as_deref(), Some("tool_use" | "server_tool_use")))
                .filter_map(|b| {
                    let name = b.name.as_deref()?;
                    let input = b.input.and_then(|raw| serde_json::from_str(raw).ok());
                    task(b.id.as_deref(), name, input.as_ref())
                }),
        )?;
    }
    if user {
        entry.tool_results = strings.id_list(
            (blocks.iter())
                .filter(|b| b.kind.as_deref() == Some("tool_result"))
                .filter_map(|b| b.tool_use_id.as_deref()),
        )?;
        // The first text block's text, when it is a string.
        entry.hash = (blocks.iter())
            .find(|b| b.kind.as_deref() == Some("text"))
            .and_then(|b| serde_json::from_str::<String>(b.text?).ok())
            .map(|text| text_hash(&text));
    }
    Ok(())
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
            )
        })
        .filter_map(|b| {
            let name = b.get("name").and_then(Value::as_str)?;
            task(b.get("id").and_then(Value::as_str), name, b.get("input"))
        })
        .collect()
}

/// A call block as a `Task`, when its tool spawns a sub-agent.
fn task(id: Option<&str>, name: &str, input: Option<&Value>) -> Option<Task> {
    if classify(name) != Some(ToolClass::SubAgent) {
        return None;
    }
    Some(Task {
        id: id.unwrap_or("").to_owned(),
        subagent_type: input
            .and_then(|i| subagent_name(name, i))
            .map(str::to_owned),
        prompt: input.and_then(|i| i.get("prompt")?.as_str()).map(text_hash),
    })
}

/// A hash of a prompt text: linking by prompt compares these instead of keeping every
/// prompt (128 bits: a collision between two different prompts is not a practical risk).
pub(super) fn text_hash(text: &str) -> u128 {
    bytes_hash(text.as_bytes())
}

/// XXH3-128 of `bytes`: compared within one import only, never stored (std's SipHash,
/// twice, was 1.1% of the instructions of importing a 20 MiB session).
fn bytes_hash(bytes: &[u8]) -> u128 {
    twox_hash::XxHash3_128::oneshot(bytes)
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

#[cfg(test)]
mod tests {
    use serde_json::value::RawValue;
    use serde_json::{Value, json};

    use super::*;

    /// What the plan reads of an entry's content, as the JSON tree reads it (the importer
    /// read it so before, but for its `tool_use` / `tool_result` pre-checks, which missed a
    /// type spelled with an escape): the reading the typed one must equal.
    fn by_tree(bytes: &[u8]) -> String {
        let value: Value = serde_json::from_slice(bytes).unwrap();
        let kind = value.get("type").and_then(Value::as_str).unwrap_or("");
        let blocks: &[Value] = match value.pointer("/message/content") {
            Some(Value::Array(blocks)) => blocks,
            _ => &[],
        };
        let typed = |b: &Value, t: &str| b.get("type").and_then(Value::as_str) == Some(t);
        let string = |b: &Value, key: &str| b.get(key).and_then(Value::as_str).map(str::to_owned);
        let mut read = json!({});
        if kind == "assistant" {
            let uses: Vec<_> = (blocks.iter())
                .filter(|b| typed(b, "tool_use"))
                .filter_map(|b| string(b, "id"))
                .collect();
            let tasks: Vec<_> = tasks(blocks).iter().map(describe).collect();
            read = json!({"uses": uses, "tasks": tasks});
            #[derive(Deserialize)]
            struct Message<'a> {
                id: Option<String>,
                #[serde(borrow)]
                content: Option<&'a RawValue>,
            }
            #[derive(Deserialize)]
            struct Line<'a> {
                #[serde(borrow)]
                message: Option<&'a RawValue>,
            }
            let line: Line<'_> = serde_json::from_slice(bytes).unwrap();
            if let Some(message) = line.message
                && let Ok(m) = serde_json::from_str::<Message<'_>>(message.get())
                && (m.id.as_ref().is_some_and(|id| !id.is_empty()) || m.content.is_some())
            {
                read["id"] = json!(m.id.filter(|id| !id.is_empty()));
                read["hashed"] = json!(m.content.is_some());
            }
        }
        if kind == "user" {
            let results: Vec<_> = (blocks.iter())
                .filter(|b| typed(b, "tool_result"))
                .filter_map(|b| string(b, "tool_use_id"))
                .collect();
            let prompt = match value.pointer("/message/content") {
                Some(Value::String(text)) => Some(text.clone()),
                Some(Value::Array(blocks)) => blocks
                    .iter()
                    .find(|b| typed(b, "text"))
                    .and_then(|b| string(b, "text")),
                _ => None,
            };
            read = json!({
                "results": results,
                "prompt": prompt.map(|p| text_hash(&p).to_string()),
                "meta": value.get("isMeta") == Some(&Value::Bool(true)),
            });
        }
        // As a derived struct reads it from the raw value, as the importer read it before.
        #[derive(Deserialize)]
        struct Result<'a> {
            #[serde(rename = "toolUseResult", borrow)]
            raw: Option<&'a RawValue>,
        }
        #[derive(Deserialize)]
        struct AgentResult {
            #[serde(rename = "agentId")]
            agent_id: Option<String>,
        }
        let result: Result<'_> = serde_json::from_slice(bytes).unwrap();
        let agent = result
            .raw
            .and_then(|raw| serde_json::from_str::<AgentResult>(raw.get()).ok())
            .and_then(|r| r.agent_id)
            .filter(|a| !a.is_empty());
        read["agent"] = json!(agent);
        read.to_string()
    }

    fn describe(task: &Task) -> Value {
        json!([
            task.id,
            task.subagent_type,
            task.prompt.map(|p| p.to_string())
        ])
    }

    /// An entry read alone, with its strings.
    fn entry(line: u64, range: Range<usize>, bytes: &[u8]) -> (Entry, Strings) {
        read(line, range, bytes, true)
    }

    fn read(line: u64, range: Range<usize>, bytes: &[u8], skim: bool) -> (Entry, Strings) {
        let mut strings = Strings::default();
        let entry = read_entry(line, range, bytes, skim, &mut strings, None).unwrap();
        (entry, strings)
    }

    /// Every field of an entry, its strings read.
    fn fields(entry: &Entry, strings: &Strings) -> String {
        let text = |s: Option<Str>| strings.of(s).map(str::to_owned);
        format!(
            "{:?}",
            (
                (
                    entry.line,
                    &entry.range,
                    entry.json,
                    strings.kind(entry.kind)
                ),
                (text(entry.subtype), text(entry.uuid), text(entry.parent)),
                (
                    text(entry.logical_parent),
                    text(entry.agent_id),
                    text(entry.session_id)
                ),
                (text(entry.cwd), text(entry.version), text(entry.git_branch)),
                (
                    text(entry.result_agent),
                    text(entry.message_id),
                    text(entry.source_tool)
                ),
                (&entry.timestamp, entry.content_hash(), entry.prompt()),
                strings.ids(entry.tool_uses).collect::<Vec<_>>(),
                strings.tasks(entry.tasks),
                strings.ids(entry.tool_results).collect::<Vec<_>>(),
                (entry.sidechain, entry.stream_session, entry.compact_summary),
                (entry.role, entry.meta),
            )
        )
    }

    /// The same, as the typed reading has it.
    fn typed(bytes: &[u8]) -> String {
        let (entry, strings) = entry(1, 0..bytes.len(), bytes);
        assert!(entry.json, "{}", String::from_utf8_lossy(bytes));
        let text = |s: Option<Str>| strings.of(s).map(str::to_owned);
        let mut read = json!({});
        if entry.kind == Kind::Assistant {
            let tasks: Vec<_> = strings.tasks(entry.tasks).iter().map(describe).collect();
            let uses: Vec<_> = strings.ids(entry.tool_uses).collect();
            read = json!({"uses": uses, "tasks": tasks});
            if entry.message_id.is_some() || entry.content_hash().is_some() {
                read["id"] = json!(text(entry.message_id));
                read["hashed"] = json!(entry.content_hash().is_some());
            }
        }
        if entry.kind == Kind::User {
            let results: Vec<_> = strings.ids(entry.tool_results).collect();
            read = json!({
                "results": results,
                "prompt": entry.prompt().map(|p| p.to_string()),
                "meta": entry.meta,
            });
        }
        read["agent"] = json!(text(entry.result_agent));
        read.to_string()
    }

    /// The typed, borrowed reading of an entry reads what the JSON tree reads, whatever the
    /// spelling: keys and types written with escapes (`\u0074ype`, `tool_\u0075se`), a
    /// member given twice (the last one wins, as in the tree), values of unexpected types.
    #[test]
    fn the_typed_reading_of_an_entry_is_the_trees() {
        let lines = [
            r#"{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}"#,
            r#"{"\u0074ype":"assistant","message":{"id":"m1","content":[{"\u0074ype":"tool_\u0075se","\u0069d":"t1","name":"Bash","input":{}}]}}"#,
            r#"{"type":"assistant","message":{"id":"m1","content":[{"type":"server_tool_use","id":"s1","name":"Task","input":{"prompt":"find \"it\"","subagent_type":"explorer"}}]}}"#,
            r#"{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t2","name":"Agent","input":{"prompt":7}},{"type":"tool_use","name":"Task","input":"x"},{"type":"tool_use","id":5}]}}"#,
            r#"{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"a"},{"type":"tool_use","id":"b","type":"text"},[1],null,"tool_use"]}}"#,
            r#"{"type":"assistant","message":{"id":5,"content":[{"type":"tool_use","id":"t3"}]}}"#,
            r#"{"type":"assistant","message":{"id":"m1","id":"m2","content":[]}}"#,
            r#"{"type":"assistant","message":{"id":"m1","content":[],"content":[{"type":"tool_use","id":"t4"}]}}"#,
            r#"{"type":"assistant","message":{"id":"","content":null}}"#,
            r#"{"type":"assistant","message":["m1",[{"type":"tool_use","id":"t5"}]]}"#,
            r#"{"type":"assistant","message":"text"}"#,
            r#"{"type":"assistant","message":{"content":"just text with tool_use in it"}}"#,
            r#"{"type":"user","message":{"content":"Step 1: fix the test."}}"#,
            r#"{"type":"user","message":{"content":"escaped \u00e9t\u00e9\n"}}"#,
            r#"{"type":"user","message":{"content":[{"type":"text","text":7},{"type":"text","text":"second"}]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"image"},{"type":"text","text":"a","text":"b"}]}}"#,
            r#"{"type":"user","isMeta":true,"message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"},{"type":"tool_r\u0065sult","tool_use_id":"t2"}]}}"#,
            r#"{"type":"user","isMeta":true,"isMeta":false,"message":{"content":"x"}}"#,
            r#"{"type":"user","isMeta":"true","message":{"content":"x"}}"#,
            r#"{"type":"user","isMeta":false,"isMeta":true,"message":{"content":{"text":"x"}}}"#,
            r#"{"type":"user","message":[{"content":"x"}],"toolUseResult":{"agentId":"a1"}}"#,
            r#"{"type":"user","toolUseResult":{"agentId":"a1","agentId":"a2"}}"#,
            r#"{"type":"user","toolUseResult":{"agentId":7}}"#,
            r#"{"type":"user","toolUseResult":{"\u0061gentId":"a3","stdout":"\u001b[32m"}}"#,
            r#"{"type":"user","toolUseResult":"Error: denied"}"#,
            r#"{"type":"user","toolUseResult":null}"#,
            r#"{"type":"user","toolUseResult":["a4"]}"#,
            r#"{"type":"user","toolUseResult":["a4", 1]}"#,
        ];
        for line in lines {
            assert_eq!(typed(line.as_bytes()), by_tree(line.as_bytes()), "{line}");
        }
    }

    /// The graph fields are read as a derived struct reads them: escaped keys too, and a
    /// field given twice or of another type costs the entry its graph fields (it is still
    /// an entry, by its range).
    #[test]
    fn the_graph_fields_are_read_as_a_derived_struct_reads_them() {
        let read = |line: &str| entry(3, 0..line.len(), line.as_bytes());
        let (e, strings) = read(
            r#"{"\u0074ype":"user","uuid":"u\u0031","parentUuid":null,"isSidechain":true,"agentId":"a","sessionId":"s","timestamp":"2026-03-14T09:00:01.001Z","sourceToolUseID":"t","role":null,"session_id":null}"#,
        );
        assert!(e.json);
        assert_eq!(
            (e.kind, strings.of(e.uuid), strings.of(e.parent)),
            (Kind::User, Some("u1"), None)
        );
        assert!(e.sidechain && !e.role && !e.stream_session && e.timestamp.is_some());
        assert_eq!(strings.of(e.source_tool), Some("t"));
        assert!(
            read(r#"{"type":"user","role":"user","session_id":"x"}"#)
                .0
                .role
        );
        // An array is read by position, as a derived struct reads it (the tree does not).
        let (e, strings) = read(r#"{"type":"user","toolUseResult":["a4"]}"#);
        assert_eq!(strings.of(e.result_agent), Some("a4"));
        for refused in [
            r#"{"type":"user","uuid":"a","uuid":"b"}"#,
            r#"{"type":"user","uuid":5}"#,
            r#"{"type":"user","isSidechain":"yes"}"#,
            r#"{"type":"user","message":{},"message":{}}"#,
            r#"["user"]"#,
            "not json",
        ] {
            let (e, _) = read(refused);
            assert!(!e.json && e.kind == Kind::None && e.line == 3, "{refused}");
        }
    }

    /// The skim reads an entry as the serde visitors do, or gives up to them: every line
    /// here, and every line of the store corpus, reads the same both ways.
    #[test]
    fn the_skim_reads_an_entry_as_serde_json_does() {
        let lines = [
            r#"{"type":"assistant","uuid":"u","parentUuid":"p","isSidechain":false,"sessionId":"s","timestamp":"2026-03-14T09:00:01.001Z","cwd":"/x","version":"2","gitBranch":"main","message":{"id":"m","role":"assistant","content":[{"type":"thinking","thinking":"a\nb \"c\" \u001b"},{"type":"tool_use","id":"t","name":"Task","input":{"prompt":"p\n","subagent_type":"x"}}]}}"#,
            r#"{"type":"user","isMeta":true,"sourceToolUseID":"t","message":{"role":"user","content":[{"tool_use_id":"t","type":"tool_result","content":"out\n\\d"},{"type":"text","text":"hi"}]},"toolUseResult":{"stdout":"x\ny","agentId":"a1"}}"#,
            r#"{"type":"user","message":{"content":"plain"},"toolUseResult":"Error: denied"}"#,
            r#"{"type":"user","message":{"content":"esc\n"},"toolUseResult":"Error:\n\ud800"}"#,
            r#"{"type":"user","toolUseResult":"\ud800"}"#,
            r#"{"type":"user","toolUseResult":1e999}"#,
            r#"{"type":"user","toolUseResult":true,"role":{"a":[1]},"session_id":[]}"#,
            r#"{"type":"user","toolUseResult":{"agentId":null,"x":"\ud800"}}"#,
            r#"{"type":"user","toolUseResult":{"agentId":["a"]}}"#,
            r#"{"type":"user","isMeta":1e999}"#,
            r#"{"type":"user","isMeta":"\ud800"}"#,
            r#"{"type":"user","isMeta":null,"isMeta":true}"#,
            r#"{"type":"user","isSidechain":null,"isCompactSummary":true}"#,
            r#"{"type":"user","isCompactSummary":1}"#,
            r#"{"type":"user","uuid":"\u0075"}"#,
            r#"{"type":"user","uuid":null,"uuid":null}"#,
            r#"{"type":"user","other":"\ud800","more":{"\ud800":1e999}}"#,
            r#"{"type":"user","message":null}"#,
            r#"{"type":"user","message":{"content":null}}"#,
            r#"{"type":"user","message":{"content":{"\ud800":1}}}"#,
            r#"{"type":"user","message":{"content":[1e999]}}"#,
            r#"{"type":"user","message":{"content":["\ud800",null,[{"\ud800":1}],true]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"text","text":null},{"type":"text","text":"\u00e9"}]}}"#,
            r#"{"type":"user","message":{"content":[{"type":{"\ud800":1},"tool_use_id":"t"}]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":5}]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"\u0074"}]}}"#,
            r#"{"type":"assistant","message":{"id":null,"content":[{"type":"tool_use","id":"a","id":null}]}}"#,
            r#"{"type":"assistant","message":{"id":"m","content":"\ud800"}}"#,
            r#"{"type":"assistant","message":{"id":{"a":1},"content":[]}}"#,
            r#"{"type":"assistant","message":{"id":"m","content":[]},"message":null}"#,
            r#"{"type":"assistant","message":{"id":"m","content":[],"content":null}}"#,
            "{\"type\":\"user\",\"message\":{\"content\":\"tab\there\"}}",
            "{\"type\":\"user\",\"message\":{\"content\":\"\u{e9}t\u{e9}\"}}",
            "\t{\"type\":\"user\"}\r",
            r#"{"type":"user"} x"#,
            r#"{"type":"user","a":[1,2,]}"#,
            r#"{"type":"user","a":"\x"}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","input":{"a":"\ud800"}}]}}"#,
        ];
        let same = |bytes: &[u8]| {
            let (skimmed, skimmed_strings) = read(1, 0..bytes.len(), bytes, true);
            let (parsed, parsed_strings) = read(1, 0..bytes.len(), bytes, false);
            assert_eq!(
                fields(&skimmed, &skimmed_strings),
                fields(&parsed, &parsed_strings),
                "{}",
                String::from_utf8_lossy(bytes)
            );
        };
        for line in lines {
            same(line.as_bytes());
        }
        // Not UTF-8: in a skipped string, and in the content.
        same(b"{\"type\":\"user\",\"x\":\"\xff\"}");
        same(b"{\"type\":\"user\",\"message\":{\"content\":\"\xff\"}}");
        // In a long content's blocks (past the checker's SIMD blocks), a character cut short
        // and a surrogate's bytes, each against the same content valid.
        for bad in [
            &b"\xe6\x97"[..],
            b"\xed\xa0\x80",
            b"\xc0\xaf",
            "日本".as_bytes(),
        ] {
            for pad in [0, 63, 64, 100] {
                let line = [
                    &br#"{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":""#[..],
                    &vec![b'a'; pad],
                    bad,
                    br#""},{"type":"tool_use","id":"t","name":"Task","input":{}}]}}"#,
                ]
                .concat();
                same(&line);
            }
        }
        let mut lines = 0;
        for file in walk(Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/corpus/import/claude-code"
        ))) {
            // Read in turn as a log is, each entry sharing the strings of the one before:
            // the same fields as read alone.
            let mut strings = Strings::default();
            let mut before: Option<Entry> = None;
            for line in std::fs::read(&file).unwrap().split(|&b| b == b'\n') {
                same(line);
                let range = 0..line.len();
                let entry = read_entry(1, range.clone(), line, true, &mut strings, before.as_ref());
                let entry = entry.unwrap();
                let (alone, alone_strings) = read(1, range, line, true);
                assert_eq!(fields(&entry, &strings), fields(&alone, &alone_strings));
                before = Some(entry);
                lines += 1;
            }
        }
        assert!(lines > 100, "{lines} corpus lines");
    }

    fn walk(dir: &Path) -> Vec<PathBuf> {
        let mut files = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                files.extend(walk(&path));
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                files.push(path);
            }
        }
        files
    }
}
