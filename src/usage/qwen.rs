//! Qwen Code's usage: each `assistant` record's `usageMetadata`, by the rules `axt import`
//! transcribes a session with (`import::qwen`, then the Gemini adapter's session room).
//!
//! * A record of type `assistant`, `user` or `tool_result` whose `message` has `parts`
//!   stands for a Gemini CLI message (its `uuid` the id): an `assistant` one's
//!   `usageMetadata` (an object) its `tokens` (`promptTokenCount`, cached included,
//!   `cachedContentTokenCount`, `candidatesTokenCount`, `thoughtsTokenCount`,
//!   `toolUsePromptTokenCount`), counted as Gemini CLI's are ([`super::gemini`]): each
//!   message once (a record with the uuid of the one before it is its next version).
//!   Every other record is kept as metadata, and changes nothing here.
//! * A background sub-agent's records (`isSidechain` true, with its `agentId`) are a run
//!   of their own, by the same rules; the model of a message that names none is its run's
//!   last.
//!
//! Every line is read typed and borrowed (the parts skipped unread); a line that is not
//! JSON is a diagnostic.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::io;

use serde::Deserialize;
use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::gemini::{self, Field, Kept, MaybeTokens, Run, Shape, Skipped, TokenKeys};
use super::lines::scan;
use super::tally::SessionUsage;
use crate::import::SessionFiles;
use crate::normalize::lenient::{otherwise, skip_seq};

/// `usageMetadata`'s names.
struct QwenKeys;

impl TokenKeys for QwenKeys {
    const KEYS: [&'static str; 5] = [
        "promptTokenCount",
        "candidatesTokenCount",
        "cachedContentTokenCount",
        "thoughtsTokenCount",
        "toolUsePromptTokenCount",
    ];
}

/// What this reader needs of a record (a later key of a name replaces the earlier, as a
/// JSON value reads it).
#[derive(Default)]
struct Record<'a> {
    session_id: Field<'a>,
    timestamp: Field<'a>,
    agent_id: Field<'a>,
    sidechain: bool,
    kind: Field<'a>,
    /// `message` is an object with `parts`.
    parts: bool,
    uuid: Field<'a>,
    model: Field<'a>,
    tokens: Option<gemini::Tokens>,
}

/// One session's usage: its file's runs, the session's and its sub-agents'.
pub(super) fn read(files: &SessionFiles) -> io::Result<SessionUsage> {
    let mut usage = SessionUsage {
        agent: "Qwen Code",
        ..SessionUsage::default()
    };
    let Some(path) = files.main.as_deref() else {
        return Ok(usage);
    };
    let mut root = Run::default();
    let mut agents: BTreeMap<String, Run> = BTreeMap::new();
    let mut session_id: Option<String> = None;
    scan(path, |line| {
        let unread = || Kept {
            unread: true,
            ..Kept::default()
        };
        if line.too_long {
            usage.line_too_long(path, (line.number, line.offset));
            root.feed.push(unread());
            return;
        }
        let record: Record<'_> = match gemini::parse(line.bytes) {
            Ok(record) => record,
            Err(error) => {
                usage.unreadable(path, (line.number, line.offset), &error);
                root.feed.push(unread());
                return;
            }
        };
        if let Some(time) = record.timestamp.str() {
            usage.saw(time);
        }
        if session_id.is_none() {
            session_id = record.session_id.str().map(str::to_owned);
        }
        let kind = match record.kind.str() {
            Some("assistant") => "gemini",
            Some("user" | "tool_result") => "user",
            _ => return,
        };
        if !record.parts {
            // Kept as metadata: not fed.
            return;
        }
        let kept = Kept {
            unread: false,
            object: true,
            // A made message record always is one: it has an id and a content.
            session_record: true,
            message: record.uuid.str().map(str::to_owned),
            gemini: kind == "gemini",
            tokens: record.tokens,
            model: record.model.str().map(str::to_owned),
            time: record.timestamp.str().map(str::to_owned),
        };
        match record.agent_id.str().filter(|_| record.sidechain) {
            Some(agent) => (agents.entry(agent.to_owned()).or_default().feed).push(kept),
            None => root.feed.push(kept),
        }
    })?;
    gemini::count(&root, &mut usage);
    for run in agents.values() {
        gemini::count(run, &mut usage);
    }
    usage.session = session_id.unwrap_or_else(|| {
        (path.file_stem().unwrap_or_default())
            .to_string_lossy()
            .into_owned()
    });
    Ok(usage)
}

impl<'de: 'a, 'a> Deserialize<'de> for Record<'a> {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Record<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a record")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Record<'a>, M::Error> {
                let mut record = Record::default();
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    match &*key {
                        "sessionId" => record.session_id = map.next_value()?,
                        "timestamp" => record.timestamp = map.next_value()?,
                        "agentId" => record.agent_id = map.next_value()?,
                        "isSidechain" => record.sidechain = map.next_value::<IsTrue>()?.0,
                        "type" => record.kind = map.next_value()?,
                        "uuid" => record.uuid = map.next_value()?,
                        "model" => record.model = map.next_value()?,
                        "message" => record.parts = map.next_value::<Message>()?.0,
                        "usageMetadata" => {
                            record.tokens = map.next_value::<MaybeTokens<QwenKeys>>()?.0
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(record)
            }
            fn visit_seq<S: SeqAccess<'de>>(self, seq: S) -> Result<Record<'a>, S::Error> {
                skip_seq(seq).map(|()| Record::default())
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Record<'a>, E> {
                Ok(Record::default())
            }
            otherwise!(Record::default());
        }
        deserializer.deserialize_any(V(std::marker::PhantomData))
    }
}

/// Whether `message` is an object with `parts` (whatever their value).
struct Message(bool);

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Message;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Message, M::Error> {
                let mut parts = false;
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    let Skipped(shape) = map.next_value()?;
                    parts |= key == "parts" && shape != Shape::Absent;
                }
                Ok(Message(parts))
            }
            fn visit_seq<S: SeqAccess<'de>>(self, seq: S) -> Result<Message, S::Error> {
                skip_seq(seq).map(|()| Message(false))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Message, E> {
                Ok(Message(false))
            }
            otherwise!(Message(false));
        }
        deserializer.deserialize_any(V)
    }
}

/// Whether a value is `true`.
struct IsTrue(bool);

impl<'de> Deserialize<'de> for IsTrue {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = IsTrue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<IsTrue, E> {
                Ok(IsTrue(v))
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<IsTrue, M::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(IsTrue(false))
            }
            fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<IsTrue, S::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(IsTrue(false))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<IsTrue, E> {
                Ok(IsTrue(false))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<IsTrue, E> {
                Ok(IsTrue(false))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<IsTrue, E> {
                Ok(IsTrue(false))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<IsTrue, E> {
                Ok(IsTrue(false))
            }
            fn visit_unit<E: de::Error>(self) -> Result<IsTrue, E> {
                Ok(IsTrue(false))
            }
        }
        deserializer.deserialize_any(V)
    }
}
