//! The record shape: pi's event, with only the fields the adapter reads, and its payloads
//! (`message`, `result`) built only where the adapter uses them.
//!
//! Pi repeats the whole message being streamed in every `message_update` (and in
//! `message_start`), again in `turn_end`, and a tool's output in `tool_execution_end` before
//! its `toolResult` message: copies the adapter needs only when the stream is cut before the
//! record that holds them for good. Building each as a value was most of the adapter's time,
//! so for those events the payload is only looked at ([`Payload::Seen`]: whether it is an
//! object, and a message's `stopReason`) when the event's `type` comes before it, as pi writes
//! it; the adapter reads the payload from the record itself in the rare case it needs it whole.
//! An event whose `type` comes after its payload has the payload built, as before.
//!
//! This file owns the vocabulary only: it holds no state and hands out nothing.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;

use crate::normalize::json::{Borrowed, RecordShape};
use crate::normalize::lenient::{Text, once, otherwise, skip_seq};
use crate::normalize::report::{Fields, Kind};

pub(super) struct EventShape;
impl RecordShape for EventShape {
    type Of<'a> = Event<'a>;

    fn kind<'v>(event: &'v Event<'_>) -> Kind<'v> {
        (&event.kind, None)
    }

    fn fields(kind: Kind<'_>) -> Option<Fields> {
        let known: fn(&str) -> bool = match kind.0 {
            "session" => |f| matches!(f, "type" | "version" | "id" | "timestamp" | "cwd"),
            "agent_start" | "turn_start" => |f| f == "type",
            "agent_end" => |f| matches!(f, "type" | "messages"),
            "turn_end" => |f| matches!(f, "type" | "message" | "toolResults"),
            "message_start" | "message_end" => |f| matches!(f, "type" | "message"),
            "message_update" => |f| matches!(f, "type" | "message" | "assistantMessageEvent"),
            "tool_execution_start" | "tool_execution_update" | "tool_execution_end" => |f| {
                matches!(
                    f,
                    "type"
                        | "toolCallId"
                        | "toolName"
                        | "args"
                        | "partialResult"
                        | "result"
                        | "isError"
                )
            },
            _ => return None,
        };
        Some(Fields {
            within: None,
            known,
        })
    }
}

/// One event. Read as a derived `Deserialize` of these fields would read it (the same
/// errors: a missing `type`, a field given twice), except that a payload is [`Payload::Seen`]
/// rather than built for the events that only copy one (see the module docs).
pub(super) struct Event<'a> {
    /// `type`.
    pub(super) kind: Cow<'a, str>,
    pub(super) id: Option<Cow<'a, str>>,
    pub(super) timestamp: Option<Value>,
    /// `None` when absent or null.
    pub(super) message: Option<Payload<'a>>,
    /// `toolCallId`.
    pub(super) tool_call_id: Option<String>,
    /// `None` when absent or null.
    pub(super) result: Option<Payload<'a>>,
    /// `isError`.
    pub(super) is_error: Option<bool>,
}

/// A `message` or `result`: built, or only looked at.
pub(super) enum Payload<'a> {
    Whole(Value),
    /// Not built: whether it is an object, and its `stopReason` when that is a string (as
    /// `Value::as_str` reads it; a message's last one when it has several).
    Seen {
        object: bool,
        stop_reason: Option<Cow<'a, str>>,
    },
}

impl Payload<'_> {
    pub(super) fn is_object(&self) -> bool {
        match self {
            Payload::Whole(value) => value.is_object(),
            Payload::Seen { object, .. } => *object,
        }
    }

    /// A message's `stopReason`, when it is a string.
    pub(super) fn stop_reason(&self) -> Option<&str> {
        match self {
            Payload::Whole(value) => value.get("stopReason").and_then(Value::as_str),
            Payload::Seen { stop_reason, .. } => stop_reason.as_deref(),
        }
    }
}

/// The events whose payload is only a copy, needed whole only if the stream is cut.
fn payload_is_a_copy(kind: &str) -> bool {
    matches!(
        kind,
        "message_start" | "message_update" | "turn_end" | "tool_execution_end"
    )
}

const FIELDS: &[&str] = &[
    "type",
    "id",
    "timestamp",
    "message",
    "toolCallId",
    "result",
    "isError",
];

impl<'de: 'a, 'a> Deserialize<'de> for Event<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_struct("Event", FIELDS, EventVisitor)
    }
}

struct EventVisitor;

impl<'de> Visitor<'de> for EventVisitor {
    type Value = Event<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("struct Event")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Event<'de>, A::Error> {
        let mut kind: Option<Cow<'de, str>> = None;
        let mut id = None;
        let mut timestamp = None;
        let mut message = None;
        let mut tool_call_id = None;
        let mut result = None;
        let mut is_error = None;
        while let Some(key) = map.next_key::<Borrowed<'de>>()? {
            match &*key {
                "type" => {
                    once(&kind, "type")?;
                    kind = Some(map.next_value::<Borrowed<'de>>()?.0);
                }
                "id" => {
                    once(&id, "id")?;
                    id = Some(map.next_value::<Option<Borrowed<'de>>>()?.map(|id| id.0));
                }
                "timestamp" => {
                    once(&timestamp, "timestamp")?;
                    timestamp = Some(map.next_value::<Option<Value>>()?);
                }
                "message" => {
                    once(&message, "message")?;
                    message = Some(payload(&mut map, kind.as_deref())?);
                }
                "toolCallId" => {
                    once(&tool_call_id, "toolCallId")?;
                    tool_call_id = Some(map.next_value::<Option<String>>()?);
                }
                "result" => {
                    once(&result, "result")?;
                    result = Some(payload(&mut map, kind.as_deref())?);
                }
                "isError" => {
                    once(&is_error, "isError")?;
                    is_error = Some(map.next_value::<Option<bool>>()?);
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Event {
            kind: kind.ok_or_else(|| de::Error::missing_field("type"))?,
            id: id.flatten(),
            timestamp: timestamp.flatten(),
            message: message.flatten(),
            tool_call_id: tool_call_id.flatten(),
            result: result.flatten(),
            is_error: is_error.flatten(),
        })
    }
}

/// A payload, built unless the event's type, read already, says it is only a copy; `None`
/// for null, as an `Option` reads it.
fn payload<'de, A: MapAccess<'de>>(
    map: &mut A,
    kind: Option<&str>,
) -> Result<Option<Payload<'de>>, A::Error> {
    if kind.is_some_and(payload_is_a_copy) {
        return map.next_value::<Option<Seen<'de>>>().map(|seen| {
            seen.map(|Seen(object, stop_reason)| Payload::Seen {
                object,
                stop_reason,
            })
        });
    }
    map.next_value::<Option<Value>>()
        .map(|value| value.map(Payload::Whole))
}

/// A payload looked at: whether it is an object, and its `stopReason` when a string.
struct Seen<'a>(bool, Option<Cow<'a, str>>);

impl<'de> Deserialize<'de> for Seen<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Look;
        impl<'de> Visitor<'de> for Look {
            type Value = Seen<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Seen<'de>, A::Error> {
                let mut stop_reason = None;
                while let Some(key) = map.next_key::<Borrowed<'de>>()? {
                    if &*key == "stopReason" {
                        stop_reason = map.next_value::<Text<'de>>()?.0;
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(Seen(true, stop_reason))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<Seen<'de>, A::Error> {
                skip_seq(seq).map(|()| Seen(false, None))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Seen<'de>, E> {
                Ok(Seen(false, None))
            }
            otherwise!(Seen(false, None));
        }
        deserializer.deserialize_any(Look)
    }
}
