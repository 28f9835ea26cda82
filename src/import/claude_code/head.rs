//! An entry's head: the fields of a session-log line the plan reads ([`Head`]), read by a
//! skim where it can ([`skim_head`]) and by serde visitors where it gives up, both alike
//! (log.rs's tests read every line both ways). This file owns that reading; what the
//! fields mean for the graph is log.rs's.

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;

use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

use crate::normalize::lenient::otherwise;
use crate::normalize::skim::Skim;

/// The fields of an entry the graph needs, read in one pass over its line, borrowed: the
/// graph fields as a derived struct would read them (a field of the wrong type, or given
/// twice, and the entry has no graph fields), and of the content only what linking and
/// thread selection ask (see [`Message`]). No `serde_json::Value` is built.
#[derive(Default)]
pub(super) struct Head<'a> {
    pub(super) kind: Option<Cow<'a, str>>,
    pub(super) subtype: Option<Cow<'a, str>>,
    pub(super) uuid: Option<Cow<'a, str>>,
    pub(super) parent: Option<Cow<'a, str>>,
    pub(super) logical_parent: Option<Cow<'a, str>>,
    pub(super) sidechain: Option<bool>,
    pub(super) agent_id: Option<Cow<'a, str>>,
    pub(super) session_id: Option<Cow<'a, str>>,
    /// `session_id`, snake case: stream-json output (`claude -p`), not a session log.
    pub(super) stream_session: Option<IgnoredAny>,
    pub(super) timestamp: Option<Cow<'a, str>>,
    pub(super) compact_summary: Option<bool>,
    pub(super) cwd: Option<Cow<'a, str>>,
    pub(super) version: Option<Cow<'a, str>>,
    pub(super) git_branch: Option<Cow<'a, str>>,
    pub(super) role: Option<IgnoredAny>,
    /// `toolUseResult.agentId`: `Some(None)` when `toolUseResult` names none.
    pub(super) tool_use_result: Option<Option<String>>,
    /// The call a user entry belongs to without answering it (a skill's body, 2.1.x).
    pub(super) source_tool: Option<Cow<'a, str>>,
    /// Read leniently, so that a `message` of an unexpected shape does not cost the entry
    /// its graph fields.
    pub(super) message: Option<Message<'a>>,
    /// `isMeta: true`, as the tree reads it: the last `isMeta` member, exactly `true`.
    pub(super) meta: bool,
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
pub(super) struct Message<'a> {
    pub(super) typed: bool,
    pub(super) id: Option<Cow<'a, str>>,
    /// The last `content` member (its JSON text), `None` when null.
    pub(super) content: Option<&'a str>,
    /// Whether the tree reads a `content` at all (the message is an object).
    pub(super) object: bool,
    /// `content` as the skim read it with the entry, where it did: then it is not read
    /// again.
    pub(super) skimmed: Option<Content<'a>>,
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
                            message.content = map
                                .next_value::<Option<&'de RawValue>>()?
                                .map(RawValue::get);
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
                message.content = content.flatten().map(RawValue::get);
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
pub(super) struct Block<'a> {
    pub(super) kind: Option<Cow<'a, str>>,
    pub(super) id: Option<Cow<'a, str>>,
    pub(super) name: Option<Cow<'a, str>>,
    pub(super) tool_use_id: Option<Cow<'a, str>>,
    pub(super) text: Option<&'a str>,
    pub(super) input: Option<&'a str>,
}

/// A `message.content`: a string, or the blocks (an item that is no object is none).
pub(super) enum Content<'a> {
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
                            block.text = Some(map.next_value::<&RawValue>()?.get());
                            continue;
                        }
                        "input" => {
                            block.input = Some(map.next_value::<&RawValue>()?.get());
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

/// An entry's [`Head`] skimmed ([`Skim`]: its long strings skipped eight bytes at a time
/// instead of serde_json's byte loop), or `None` where the skim gives up: then the entry is
/// read by `Head`'s serde visitor, which decides everything the skim does not read exactly
/// as it would (an escaped key or field, a field of another type or given twice, a
/// `message` that is no object, a value serde_json would parse as a number). So what the
/// skim returns is what the visitor would.
pub(super) fn skim_head(bytes: &[u8]) -> Option<Head<'_>> {
    fn text<'a>(skim: &mut Skim<'a>) -> Option<Option<Cow<'a, str>>> {
        skim.str_or_null().map(|t| t.map(Cow::Borrowed))
    }
    // Checked as UTF-8 whole, once (SIMD), when it is: its keys and strings are then cut
    // from the text. A line that is not is read string by string, as serde_json reads it
    // (which checks only the strings it reads).
    let mut skim = match simdutf8::basic::from_utf8(bytes) {
        Ok(text) => Skim::checked(text),
        Err(_) => Skim::new(bytes),
    };
    let mut head = Head::default();
    let mut seen = [false; 18];
    // A field given twice: the visitor refuses the entry.
    let first = |seen: &mut [bool; 18], field: usize| {
        (!std::mem::replace(&mut seen[field], true)).then_some(())
    };
    skim.object(|skim, key| {
        match key {
            "type" => {
                first(&mut seen, 0)?;
                head.kind = text(skim)?;
            }
            "subtype" => {
                first(&mut seen, 1)?;
                head.subtype = text(skim)?;
            }
            "uuid" => {
                first(&mut seen, 2)?;
                head.uuid = text(skim)?;
            }
            "parentUuid" => {
                first(&mut seen, 3)?;
                head.parent = text(skim)?;
            }
            "logicalParentUuid" => {
                first(&mut seen, 4)?;
                head.logical_parent = text(skim)?;
            }
            "isSidechain" => {
                first(&mut seen, 5)?;
                head.sidechain = skim.bool_or_null()?;
            }
            "agentId" => {
                first(&mut seen, 6)?;
                head.agent_id = text(skim)?;
            }
            "sessionId" => {
                first(&mut seen, 7)?;
                head.session_id = text(skim)?;
            }
            "session_id" => {
                first(&mut seen, 8)?;
                if !skim.null() {
                    skim.skip()?;
                    head.stream_session = Some(IgnoredAny);
                }
            }
            "timestamp" => {
                first(&mut seen, 9)?;
                head.timestamp = text(skim)?;
            }
            "isCompactSummary" => {
                first(&mut seen, 10)?;
                head.compact_summary = skim.bool_or_null()?;
            }
            "cwd" => {
                first(&mut seen, 11)?;
                head.cwd = text(skim)?;
            }
            "version" => {
                first(&mut seen, 12)?;
                head.version = text(skim)?;
            }
            "gitBranch" => {
                first(&mut seen, 13)?;
                head.git_branch = text(skim)?;
            }
            "role" => {
                first(&mut seen, 14)?;
                if !skim.null() {
                    skim.skip()?;
                    head.role = Some(IgnoredAny);
                }
            }
            "toolUseResult" => {
                first(&mut seen, 15)?;
                head.tool_use_result = skim_result_agent(skim)?;
            }
            "sourceToolUseID" => {
                first(&mut seen, 16)?;
                head.source_tool = text(skim)?;
            }
            "message" => {
                first(&mut seen, 17)?;
                head.message = skim_message(skim)?;
            }
            // `Any` reads a number as serde_json parses it (which may refuse it), a string
            // UTF-8 checked: left to the visitor.
            "isMeta" => head.meta = skim.bool_or_null()? == Some(true),
            _ => skim.skip()?,
        }
        Some(())
    })?;
    skim.end()?;
    Some(head)
}

/// `toolUseResult` skimmed, as `Option<ResultAgent>` reads it; `None` where the skim gives
/// up (an array, read by position, and an `agentId` that is no plain string or null).
fn skim_result_agent(skim: &mut Skim<'_>) -> Option<Option<Option<String>>> {
    match skim.peek()? {
        b'n' => skim.bool_or_null().filter(Option::is_none).map(|_| None),
        b'{' => {
            let (mut agent, mut read) = (None, false);
            skim.object(|skim, key| {
                if key != "agentId" {
                    return skim.skip();
                }
                if std::mem::replace(&mut read, true) {
                    return None;
                }
                agent = skim.str_or_null()?;
                Some(())
            })?;
            Some(Some(agent.map(str::to_owned)))
        }
        // A plain string, `true`, `false`: no agent (`ResultAgent` reads a string UTF-8
        // and surrogate checked, a number as serde_json parses it: left to serde_json).
        b'"' => skim.str_or_null()?.map(|_| Some(None)),
        b't' | b'f' => skim.skip().map(|()| Some(None)),
        _ => None,
    }
}

/// `message` skimmed, as `Option<Message>` reads it; `None` where the skim gives up (a
/// message that is no object or null, an `id` that is no plain string or null, a member
/// given twice, a `content` that is not UTF-8). Its content's blocks are read in the same
/// pass, where the skim can ([`Message::skimmed`]).
fn skim_message<'a>(skim: &mut Skim<'a>) -> Option<Option<Message<'a>>> {
    if skim.null() {
        return Some(None);
    }
    if skim.peek()? != b'{' {
        return None;
    }
    let mut message = Message {
        typed: true,
        object: true,
        ..Message::default()
    };
    let (mut ids, mut contents) = (false, false);
    skim.object(|skim, key| {
        match key {
            "id" => {
                if std::mem::replace(&mut ids, true) {
                    return None;
                }
                message.id = skim.str_or_null()?.map(Cow::Borrowed);
            }
            "content" => {
                if std::mem::replace(&mut contents, true) {
                    return None;
                }
                if skim.null() {
                    return Some(());
                }
                let from = skim.clone();
                skim.peek()?;
                let start = skim.position();
                let read = skim_content(skim);
                if read.is_none() {
                    *skim = from;
                    skim.skip()?;
                }
                // serde_json's `RawValue` is a `str` (checked as std checks it, by SIMD, or
                // cut from the line checked whole).
                let text = skim.text_of(start..skim.position())?;
                message.content = Some(text);
                message.skimmed = read.and_then(|(mut content, spans)| {
                    if let Content::Blocks(blocks) = &mut content {
                        let at = |span: Option<Range<usize>>| match span {
                            Some(span) => text.get(span.start - start..span.end - start).map(Some),
                            None => Some(None),
                        };
                        for (block, [text, input]) in blocks.iter_mut().zip(spans) {
                            block.text = at(text)?;
                            block.input = at(input)?;
                        }
                    }
                    Some(content)
                });
            }
            _ => skim.skip()?,
        }
        Some(())
    })?;
    Some(Some(message))
}

/// Where a content block's `text` and `input` are in the entry's line.
type Spans = [Option<Range<usize>>; 2];

/// A `message.content` skimmed, as [`Content`] reads it, the blocks' `text` and `input`
/// left to fill from their [`Spans`]; `None` where the skim gives up (an escaped string or
/// block field, a number where `Any` would parse one, an object).
fn skim_content<'a>(skim: &mut Skim<'a>) -> Option<(Content<'a>, Vec<Spans>)> {
    let mut spans = Vec::new();
    let content = match skim.peek()? {
        b'"' => Content::Text(Cow::Borrowed(skim.str_or_null()??)),
        b'[' => {
            let mut blocks = Vec::new();
            skim.array(|skim| {
                match skim.peek()? {
                    b'{' => {
                        let (block, span) = skim_block(skim)?;
                        blocks.push(block);
                        spans.push(span);
                    }
                    // `Item` reads a string UTF-8 and surrogate checked: plain ones only.
                    b'"' => {
                        skim.str_or_null()??;
                    }
                    b'n' | b't' | b'f' | b'[' => skim.skip()?,
                    _ => return None,
                }
                Some(())
            })?;
            Content::Blocks(blocks)
        }
        // An object's keys are read as strings (surrogate checked): left to serde_json.
        b'n' | b't' | b'f' => {
            skim.skip()?;
            Content::Other
        }
        _ => return None,
    };
    Some((content, spans))
}

/// A content block skimmed, as [`Item`] reads an object (the last member of a name wins),
/// with where its `text` and `input` are.
fn skim_block<'a>(skim: &mut Skim<'a>) -> Option<(Block<'a>, Spans)> {
    let mut block = Block::default();
    let mut spans = Spans::default();
    skim.object(|skim, key| {
        let slot = match key {
            "type" => &mut block.kind,
            "id" => &mut block.id,
            "name" => &mut block.name,
            "tool_use_id" => &mut block.tool_use_id,
            "text" => {
                spans[0] = Some(skim.raw_range()?);
                return Some(());
            }
            "input" => {
                spans[1] = Some(skim.raw_range()?);
                return Some(());
            }
            _ => return skim.skip(),
        };
        *slot = match skim.peek()? {
            b'"' => Some(Cow::Borrowed(skim.str_or_null()??)),
            b'n' | b't' | b'f' => {
                skim.skip()?;
                None
            }
            _ => return None,
        };
        Some(())
    })?;
    Some((block, spans))
}
