//! Reading entries: a log file's skeleton (every entry's graph fields and byte range, not
//! its content), whether the file is a session log at all and in which format, and reading
//! an entry's bytes back by its range.
//!
//! This file owns the entry fields the importer needs and the first pass over a file; it
//! decides nothing about threads.

use std::borrow::Cow;
use std::ops::Range;
use std::path::{Path, PathBuf};

use std::fmt;

use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::import::entries::scan;
use crate::import::session::ImportError;
use crate::model::Timestamp;
use crate::model::tools::{ToolClass, classify, subagent_name};
use crate::normalize::lenient::otherwise;

/// The fields of an entry the graph needs, read in one pass over its line, borrowed: the
/// graph fields as a derived struct would read them (a field of the wrong type, or given
/// twice, and the entry has no graph fields), and of the content only what linking and
/// thread selection ask (see [`Message`]). No `serde_json::Value` is built.
#[derive(Default)]
struct Head<'a> {
    kind: Option<Cow<'a, str>>,
    subtype: Option<Cow<'a, str>>,
    uuid: Option<Cow<'a, str>>,
    parent: Option<Cow<'a, str>>,
    logical_parent: Option<Cow<'a, str>>,
    sidechain: Option<bool>,
    agent_id: Option<Cow<'a, str>>,
    session_id: Option<Cow<'a, str>>,
    /// `session_id`, snake case: stream-json output (`claude -p`), not a session log.
    stream_session: Option<IgnoredAny>,
    timestamp: Option<Cow<'a, str>>,
    compact_summary: Option<bool>,
    cwd: Option<Cow<'a, str>>,
    version: Option<Cow<'a, str>>,
    git_branch: Option<Cow<'a, str>>,
    role: Option<IgnoredAny>,
    /// `toolUseResult.agentId`: `Some(None)` when `toolUseResult` names none.
    tool_use_result: Option<Option<String>>,
    /// The call a user entry belongs to without answering it (a skill's body, 2.1.x).
    source_tool: Option<Cow<'a, str>>,
    /// Read leniently, so that a `message` of an unexpected shape does not cost the entry
    /// its graph fields.
    message: Option<Message<'a>>,
    /// `isMeta: true`, as the tree reads it: the last `isMeta` member, exactly `true`.
    meta: bool,
}

impl<'de: 'a, 'a> Deserialize<'de> for Head<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = Head<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a session-log entry")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                fn text<'de, A: MapAccess<'de>>(
                    map: &mut A,
                    slot: &mut Option<Cow<'de, str>>,
                    seen: &mut bool,
                    name: &'static str,
                ) -> Result<(), A::Error> {
                    once(seen, name)?;
                    *slot = map.next_value::<Option<Str<'de>>>()?.map(|s| s.0);
                    Ok(())
                }
                let mut head = Head::default();
                // Which fields were given (a derived struct refuses a field given twice).
                let mut seen = [false; 18];
                while let Some(Str(key)) = map.next_key::<Str<'de>>()? {
                    let map = &mut map;
                    match &*key {
                        "type" => text(map, &mut head.kind, &mut seen[0], "type")?,
                        "subtype" => text(map, &mut head.subtype, &mut seen[1], "subtype")?,
                        "uuid" => text(map, &mut head.uuid, &mut seen[2], "uuid")?,
                        "parentUuid" => text(map, &mut head.parent, &mut seen[3], "parentUuid")?,
                        "logicalParentUuid" => text(
                            map,
                            &mut head.logical_parent,
                            &mut seen[4],
                            "logicalParentUuid",
                        )?,
                        "isSidechain" => {
                            once(&mut seen[5], "isSidechain")?;
                            head.sidechain = map.next_value()?;
                        }
                        "agentId" => text(map, &mut head.agent_id, &mut seen[6], "agentId")?,
                        "sessionId" => {
                            text(map, &mut head.session_id, &mut seen[7], "sessionId")?;
                        }
                        "session_id" => {
                            once(&mut seen[8], "session_id")?;
                            head.stream_session = map.next_value()?;
                        }
                        "timestamp" => {
                            text(map, &mut head.timestamp, &mut seen[9], "timestamp")?;
                        }
                        "isCompactSummary" => {
                            once(&mut seen[10], "isCompactSummary")?;
                            head.compact_summary = map.next_value()?;
                        }
                        "cwd" => text(map, &mut head.cwd, &mut seen[11], "cwd")?,
                        "version" => text(map, &mut head.version, &mut seen[12], "version")?,
                        "gitBranch" => {
                            text(map, &mut head.git_branch, &mut seen[13], "gitBranch")?;
                        }
                        "role" => {
                            once(&mut seen[14], "role")?;
                            head.role = map.next_value()?;
                        }
                        "toolUseResult" => {
                            once(&mut seen[15], "toolUseResult")?;
                            head.tool_use_result =
                                map.next_value::<Option<ResultAgent>>()?.map(|r| r.0);
                        }
                        "sourceToolUseID" => {
                            text(map, &mut head.source_tool, &mut seen[16], "sourceToolUseID")?
                        }
                        "message" => {
                            once(&mut seen[17], "message")?;
                            head.message = map.next_value()?;
                        }
                        "isMeta" => {
                            head.meta = matches!(map.next_value()?, Any::Bool(true));
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(head)
            }
        }
        deserializer.deserialize_map(Visit)
    }
}

/// `toolUseResult.agentId`, as a derived `{agentId: Option<String>}` read it: `None` where
/// `toolUseResult` is not an object holding one string `agentId` (or null), never an error.
struct ResultAgent(Option<String>);

impl<'de> Deserialize<'de> for ResultAgent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = ResultAgent;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let (mut agent, mut read, mut refused) = (None, false, false);
                while let Some(Str(key)) = map.next_key::<Str<'de>>()? {
                    if key != "agentId" {
                        map.next_value::<IgnoredAny>()?;
                        continue;
                    }
                    // Given twice, or not a string: a derived struct refuses it.
                    refused |= read;
                    read = true;
                    match map.next_value::<Any<'de>>()? {
                        Any::Str(text) => agent = Some(text.into_owned()),
                        Any::Null => agent = None,
                        _ => refused = true,
                    }
                }
                Ok(ResultAgent(agent.filter(|_| !refused)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                // A derived struct reads an array by position: `[agentId]`.
                let first = seq.next_element::<Any<'de>>()?;
                let more = seq.next_element::<IgnoredAny>()?.is_some();
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(ResultAgent(match first {
                    Some(Any::Str(text)) if !more => Some(text.into_owned()),
                    _ => None,
                }))
            }
            fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
                Ok(ResultAgent(None))
            }
            otherwise!(ResultAgent(None));
        }
        deserializer.deserialize_any(Visit)
    }
}

/// An entry's `message`, read leniently in the same pass as the entry: its `id` and raw
/// `content` as a derived `{id: Option<String>, content: Option<&RawValue>}` reads them
/// (`typed` is false where that refuses the message: not an object, an `id` that is no
/// string, a member given twice), and the `content` the tree reads (its last member), for
/// the blocks.
#[derive(Default)]
struct Message<'a> {
    typed: bool,
    id: Option<Cow<'a, str>>,
    /// The last `content` member, `None` when null.
    content: Option<&'a RawValue>,
    /// Whether the tree reads a `content` at all (the message is an object).
    object: bool,
}

impl<'de: 'a, 'a> Deserialize<'de> for Message<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = Message<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut message = Message {
                    typed: true,
                    object: true,
                    ..Message::default()
                };
                let (mut ids, mut contents) = (0, 0);
                while let Some(Str(key)) = map.next_key::<Str<'de>>()? {
                    match &*key {
                        "id" => {
                            ids += 1;
                            message.id = match map.next_value::<Any<'de>>()? {
                                Any::Str(text) => Some(text),
                                Any::Null => None,
                                _ => {
                                    message.typed = false;
                                    None
                                }
                            };
                        }
                        "content" => {
                            contents += 1;
                            message.content = map.next_value::<Option<&'de RawValue>>()?;
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                message.typed &= ids <= 1 && contents <= 1;
                Ok(message)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                // A derived struct reads an array by position, `[id, content]`; the tree
                // reads no `content` in an array.
                let mut message = Message::default();
                let id = seq.next_element::<Any<'de>>()?;
                let content = match id {
                    Some(_) => seq.next_element::<Option<&'de RawValue>>()?,
                    None => None,
                };
                let more = seq.next_element::<IgnoredAny>()?.is_some();
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                message.typed =
                    content.is_some() && !more && matches!(id, Some(Any::Str(_) | Any::Null));
                message.id = match id {
                    Some(Any::Str(text)) => Some(text),
                    _ => None,
                };
                message.content = content.flatten();
                Ok(message)
            }
            fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
                Ok(Message::default())
            }
            otherwise!(Message::default());
        }
        deserializer.deserialize_any(Visit)
    }
}

/// A content block, as the tree reads it (the last member of a name wins; a member of
/// another type is none); the text and input raw, read only where they are asked for.
#[derive(Default)]
struct Block<'a> {
    kind: Option<Cow<'a, str>>,
    id: Option<Cow<'a, str>>,
    name: Option<Cow<'a, str>>,
    tool_use_id: Option<Cow<'a, str>>,
    text: Option<&'a RawValue>,
    input: Option<&'a RawValue>,
}

/// A `message.content`: a string, or the blocks (an item that is no object is none).
enum Content<'a> {
    Text(Cow<'a, str>),
    Blocks(Vec<Block<'a>>),
    Other,
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = Content<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Borrowed(text)))
            }
            fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(text.to_owned())))
            }
            fn visit_string<E>(self, text: String) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(text)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut blocks = Vec::new();
                while let Some(block) = seq.next_element::<Option<Item<'de>>>()? {
                    blocks.extend(block.and_then(|b| b.0));
                }
                Ok(Content::Blocks(blocks))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Content::Other)
            }
            otherwise!(Content::Other);
        }
        deserializer.deserialize_any(Visit)
    }
}

/// An item of a content array: a block when it is an object.
struct Item<'a>(Option<Block<'a>>);

impl<'de: 'a, 'a> Deserialize<'de> for Item<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = Item<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut block = Block::default();
                while let Some(Str(key)) = map.next_key::<Str<'de>>()? {
                    let slot = match &*key {
                        "type" => &mut block.kind,
                        "id" => &mut block.id,
                        "name" => &mut block.name,
                        "tool_use_id" => &mut block.tool_use_id,
                        "text" => {
                            block.text = Some(map.next_value()?);
                            continue;
                        }
                        "input" => {
                            block.input = Some(map.next_value()?);
                            continue;
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                            continue;
                        }
                    };
                    *slot = match map.next_value::<Any<'de>>()? {
                        Any::Str(text) => Some(text),
                        _ => None,
                    };
                }
                Ok(Item(Some(block)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Item(None))
            }
            fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
                Ok(Item(None))
            }
            otherwise!(Item(None));
        }
        deserializer.deserialize_any(Visit)
    }
}

/// A JSON value read as the tree (`serde_json::Value`) would see it, without building one:
/// a string (borrowed where it has no escape), `null`, or something else (skipped).
enum Any<'a> {
    Str(Cow<'a, str>),
    Null,
    Bool(bool),
    Other,
}

impl<'de: 'a, 'a> Deserialize<'de> for Any<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = Any<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(Any::Str(Cow::Borrowed(text)))
            }
            fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
                Ok(Any::Str(Cow::Owned(text.to_owned())))
            }
            fn visit_string<E>(self, text: String) -> Result<Self::Value, E> {
                Ok(Any::Str(Cow::Owned(text)))
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(Any::Null)
            }
            fn visit_none<E>(self) -> Result<Self::Value, E> {
                Ok(Any::Null)
            }
            fn visit_bool<E>(self, value: bool) -> Result<Self::Value, E> {
                Ok(Any::Bool(value))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Any::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Any::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Any::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Any::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Any::Other)
            }
        }
        deserializer.deserialize_any(Visit)
    }
}

/// A string borrowed where it has no escape; any other type is an error (as a derived
/// `Cow<str>` field with `#[serde(borrow)]` reads it).
struct Str<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = Str<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(Str(Cow::Borrowed(text)))
            }
            fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
                Ok(Str(Cow::Owned(text.to_owned())))
            }
            fn visit_string<E>(self, text: String) -> Result<Self::Value, E> {
                Ok(Str(Cow::Owned(text)))
            }
        }
        deserializer.deserialize_str(Visit)
    }
}

/// For a hand-written struct visitor: a field given twice is an error, as in a derived
/// `Deserialize`.
fn once<E: serde::de::Error>(seen: &mut bool, name: &'static str) -> Result<(), E> {
    if std::mem::replace(seen, true) {
        return Err(E::duplicate_field(name));
    }
    Ok(())
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
    let assistant = head.kind.as_deref() == Some("assistant");
    let user = head.kind.as_deref() == Some("user");
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
            owned(id.clone()),
            content.map(|content| bytes_hash(content.get().as_bytes())),
        ),
        _ => (None, None),
    };
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
        result_agent: head.tool_use_result.flatten().filter(|a| !a.is_empty()),
        meta: user && head.meta,
        message_id,
        content_hash,
        source_tool: owned(head.source_tool).filter(|_| user),
        ..Entry::default()
    };
    if let Some(content) = message.content.filter(|_| message.object) {
        blocks(&mut entry, content);
    }
    entry
}

/// The content fields linking and thread selection need: the calls and `Task` / `Agent`
/// calls of an assistant entry, the results and prompt of a user entry.
fn blocks(entry: &mut Entry, content: &RawValue) {
    let user = entry.kind == "user";
    let raw = content.get().as_bytes();
    // Only a block typed `tool_use` or `server_tool_use` is a call: an assistant content
    // without those bytes has none, unless it spells them with an escape (`\u0075`), and
    // every escape of a letter is `\u`. So the blocks are read where either is found.
    let find = |needle: &[u8]| memchr::memmem::find(raw, needle).is_some();
    let tools = entry.kind == "assistant" && (find(b"tool_use") || find(b"\\u"));
    if !user && !tools {
        return;
    }
    let Ok(content) = serde_json::from_str::<Content<'_>>(content.get()) else {
        return;
    };
    let blocks = match content {
        Content::Text(text) => {
            if user {
                entry.prompt = Some(text_hash(&text));
            }
            return;
        }
        Content::Blocks(blocks) => blocks,
        Content::Other => return,
    };
    if tools {
        entry.tool_uses = (blocks.iter())
            .filter(|b| b.kind.as_deref() == Some("tool_use"))
            .filter_map(|b| b.id.as_deref().map(str::to_owned))
            .collect();
        entry.tasks = (blocks.iter())
            .filter(|b| matches!(b.kind.as_deref(), Some("tool_use" | "server_tool_use")))
            .filter_map(|b| {
                let name = b.name.as_deref()?;
                let input = b.input.and_then(|raw| serde_json::from_str(raw.get()).ok());
                task(b.id.as_deref(), name, input.as_ref())
            })
            .collect();
    }
    if user {
        entry.tool_results = (blocks.iter())
            .filter(|b| b.kind.as_deref() == Some("tool_result"))
            .filter_map(|b| b.tool_use_id.as_deref().map(str::to_owned))
            .collect();
        // The first text block's text, when it is a string.
        entry.prompt = (blocks.iter())
            .find(|b| b.kind.as_deref() == Some("text"))
            .and_then(|b| serde_json::from_str::<String>(b.text?.get()).ok())
            .map(|text| text_hash(&text));
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

    /// The same, as the typed reading has it.
    fn typed(bytes: &[u8]) -> String {
        let entry = entry(1, 0..bytes.len(), bytes);
        assert!(entry.json, "{}", String::from_utf8_lossy(bytes));
        let mut read = json!({});
        if entry.kind == "assistant" {
            let tasks: Vec<_> = entry.tasks.iter().map(describe).collect();
            read = json!({"uses": entry.tool_uses, "tasks": tasks});
            if entry.message_id.is_some() || entry.content_hash.is_some() {
                read["id"] = json!(entry.message_id);
                read["hashed"] = json!(entry.content_hash.is_some());
            }
        }
        if entry.kind == "user" {
            read = json!({
                "results": entry.tool_results,
                "prompt": entry.prompt.map(|p| p.to_string()),
                "meta": entry.meta,
            });
        }
        read["agent"] = json!(entry.result_agent);
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
        let e = read(
            r#"{"\u0074ype":"user","uuid":"u\u0031","parentUuid":null,"isSidechain":true,"agentId":"a","sessionId":"s","timestamp":"2026-03-14T09:00:01.001Z","sourceToolUseID":"t","role":null,"session_id":null}"#,
        );
        assert!(e.json);
        assert_eq!(
            (e.kind.as_str(), e.uuid.as_deref(), e.parent.as_deref()),
            ("user", Some("u1"), None)
        );
        assert!(e.sidechain && !e.role && !e.stream_session && e.timestamp.is_some());
        assert_eq!(e.source_tool.as_deref(), Some("t"));
        assert!(read(r#"{"type":"user","role":"user","session_id":"x"}"#).role);
        // An array is read by position, as a derived struct reads it (the tree does not).
        let agent = read(r#"{"type":"user","toolUseResult":["a4"]}"#).result_agent;
        assert_eq!(agent.as_deref(), Some("a4"));
        for refused in [
            r#"{"type":"user","uuid":"a","uuid":"b"}"#,
            r#"{"type":"user","uuid":5}"#,
            r#"{"type":"user","isSidechain":"yes"}"#,
            r#"{"type":"user","message":{},"message":{}}"#,
            r#"["user"]"#,
            "not json",
        ] {
            let e = read(refused);
            assert!(!e.json && e.kind.is_empty() && e.line == 3, "{refused}");
        }
    }
}
