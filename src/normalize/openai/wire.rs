//! The record shapes: one struct with every record's fields side by side, borrowed from the
//! input, so a record of any kind is read in one pass without knowing its kind first.
//!
//! This file owns what the records look like and which of their fields axt knows (for the
//! input report); what they mean is read by `chat`, `responses` and `assembly`. Fields a
//! record does not have are `None`, never an error: compatible servers leave out what they
//! like.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{
    self, DeserializeSeed, Deserializer, IgnoredAny, IntoDeserializer, MapAccess, SeqAccess,
    Visitor,
};
use serde_json::{Map, Value};

use crate::normalize::json::{Borrowed, RecordShape};
use crate::normalize::lenient::Integer;
use crate::normalize::report::{Fields, Kind};

pub(super) struct WireShape;
impl RecordShape for WireShape {
    type Of<'a> = Wire<'a>;

    /// `object`, else `type`; else what the record's shape says it is: a chunk or a body
    /// (by `choices`), a request (`request/chat`, `request/responses`), an error.
    fn kind<'v>(wire: &'v Wire<'_>) -> Kind<'v> {
        if let Some(object) = wire.object.as_deref().or(wire.kind.as_deref()) {
            return (object, None);
        }
        let kind = match &wire.choices {
            Some(choices) if choices.iter().any(|c| c.delta.is_some()) => "chat.completion.chunk",
            Some(_) => "chat.completion",
            None if wire.messages.is_some() => return ("request", Some("chat")),
            None if wire.input.is_some() => return ("request", Some("responses")),
            None if wire.error.is_some() => "error",
            None => "record",
        };
        (kind, None)
    }

    /// The fields of chunks, bodies and stream events, as openai-python's types define them.
    fn fields(kind: Kind<'_>) -> Option<Fields> {
        let known: fn(&str) -> bool = match kind {
            ("chat.completion.chunk" | "chat.completion", _) => |f| {
                matches!(
                    f,
                    "id" | "object"
                        | "created"
                        | "model"
                        | "choices"
                        | "usage"
                        | "error"
                        | "system_fingerprint"
                        | "service_tier"
                        // Kept whole as the response's extras (see `Wire::extras`), or read
                        // as its sources (Perplexity's `citations` and `search_results`).
                        | "prompt_filter_results"
                        | "x_groq"
                        | "provider"
                        | "images"
                        | "related_questions"
                        | "tool_usage"
                        | "content_filters"
                        | "citations"
                        | "search_results"
                )
            },
            ("response", _) => |f| {
                matches!(
                    f,
                    "id" | "object"
                        | "created_at"
                        | "status"
                        | "model"
                        | "output"
                        | "usage"
                        | "error"
                        | "incomplete_details"
                        | "instructions"
                        | "max_output_tokens"
                        | "max_tool_calls"
                        | "metadata"
                        | "parallel_tool_calls"
                        | "previous_response_id"
                        | "prompt"
                        | "prompt_cache_key"
                        | "reasoning"
                        | "safety_identifier"
                        | "service_tier"
                        | "store"
                        | "temperature"
                        | "text"
                        | "tool_choice"
                        | "tools"
                        | "top_logprobs"
                        | "top_p"
                        | "truncation"
                        | "user"
                        | "background"
                        | "conversation"
                        | "output_text"
                )
            },
            (kind, _) if kind.starts_with("response.") || kind == "error" => |f| {
                matches!(
                    f,
                    "type"
                        | "sequence_number"
                        | "response"
                        | "item"
                        | "item_id"
                        | "output_index"
                        | "content_index"
                        | "summary_index"
                        | "delta"
                        | "text"
                        | "arguments"
                        | "input"
                        | "part"
                        | "annotation"
                        | "annotation_index"
                        | "logprobs"
                        | "obfuscation"
                        | "refusal"
                        | "code"
                        | "message"
                        | "param"
                        | "name"
                        // An error event's details nested in `error`; vLLM's flat error
                        // object (`"object": "error"`).
                        | "error"
                        | "object"
                        // A partial image event is kept whole (`Assembly::progress`).
                        | "partial_image_b64"
                        | "partial_image_index"
                        | "background"
                        | "output_format"
                        | "quality"
                        | "size"
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

/// Read by hand, not derived (see the `Deserialize` impl below).
#[derive(Default)]
#[cfg_attr(test, derive(Debug))]
pub(super) struct Wire<'a> {
    pub(super) object: Option<Borrowed<'a>>,
    pub(super) kind: Option<Borrowed<'a>>,
    pub(super) id: Option<Borrowed<'a>>,
    pub(super) model: Option<Borrowed<'a>>,
    // Unix seconds: `created` on Chat Completions records, `created_at` on a Responses object.
    pub(super) created: Option<Integer>,
    pub(super) created_at: Option<Integer>,
    // chat.completion(.chunk)
    pub(super) choices: Option<Vec<WireChoice<'a>>>,
    pub(super) usage: Option<Box<Value>>,
    pub(super) error: Option<Box<Value>>,
    // requests
    pub(super) messages: Option<Vec<WireMessage<'a>>>,
    pub(super) input: Option<StrOr<'a, Vec<WireItem<'a>>>>,
    pub(super) previous_response_id: Option<Borrowed<'a>>,
    pub(super) instructions: Option<Box<Value>>,
    /// The tools a request offers the model (Chat Completions and Responses).
    pub(super) request_tools: Option<Box<Value>>,
    // Responses events
    pub(super) item_id: Option<Borrowed<'a>>,
    pub(super) output_index: Option<u64>,
    pub(super) summary_index: Option<u64>,
    pub(super) content_index: Option<u64>,
    pub(super) annotation: Option<Box<Value>>,
    pub(super) delta: Option<StrOr<'a, Value>>,
    pub(super) arguments: Option<StrOr<'a, Value>>,
    // Boxed, as the rare members below are kept small: most records are deltas, which have
    // neither, and a record is moved several times on its way to its handler (see `Wire`).
    pub(super) item: Option<Box<WireItem<'a>>>,
    pub(super) response: Option<Box<WireResponse<'a>>>,
    pub(super) message: Option<StrOr<'a, Value>>,
    pub(super) code: Option<Box<Value>>,
    // a Responses object at the top
    pub(super) output: Option<Vec<WireItem<'a>>>,
    pub(super) status: Option<Borrowed<'a>>,
    pub(super) incomplete_details: Option<Box<Value>>,
    // What compatible servers add to a completion or chunk (kept, see `Extras`)
    pub(super) system_fingerprint: Option<Box<Value>>,
    pub(super) service_tier: Option<Box<Value>>,
    pub(super) prompt_filter_results: Option<Box<Value>>,
    pub(super) x_groq: Option<Box<Value>>,
    pub(super) provider: Option<Box<Value>>,
    pub(super) images: Option<Box<Value>>,
    pub(super) related_questions: Option<Box<Value>>,
    pub(super) tool_usage: Option<Box<Value>>,
    pub(super) content_filters: Option<Box<Value>>,
    /// Perplexity: the sources of the answer, as URLs and as search results.
    pub(super) citations: Option<Box<Value>>,
    pub(super) search_results: Option<Box<Value>>,
}

/// [`Wire`]'s members: each one's number (its bit in the set of members read), the name it
/// has in a record, and its field.
macro_rules! wire_members {
    ($($at:literal $name:literal $field:ident,)*) => {
        /// The member names, by number: the names serde's derive gave, which errors quote.
        const WIRE_MEMBERS: &[&str] = &[$($name),*];

        /// A record's key as a member's number; `None` for a key `Wire` does not read.
        fn wire_member(key: &str) -> Option<u32> {
            match key {
                $($name => Some($at),)*
                _ => None,
            }
        }

        /// Reads member number `at`'s value into its field.
        fn read_member<'de: 'a, 'a, A: MapAccess<'de>>(
            wire: &mut Wire<'a>,
            at: u32,
            map: &mut A,
        ) -> Result<(), A::Error> {
            match at {
                $($at => wire.$field = map.next_value()?,)*
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            Ok(())
        }
    };
}

wire_members! {
    0 "object" object,
    1 "type" kind,
    2 "id" id,
    3 "model" model,
    4 "created" created,
    5 "created_at" created_at,
    6 "choices" choices,
    7 "usage" usage,
    8 "error" error,
    9 "messages" messages,
    10 "input" input,
    11 "previous_response_id" previous_response_id,
    12 "instructions" instructions,
    13 "tools" request_tools,
    14 "item_id" item_id,
    15 "output_index" output_index,
    16 "summary_index" summary_index,
    17 "content_index" content_index,
    18 "annotation" annotation,
    19 "delta" delta,
    20 "arguments" arguments,
    21 "item" item,
    22 "response" response,
    23 "message" message,
    24 "code" code,
    25 "output" output,
    26 "status" status,
    27 "incomplete_details" incomplete_details,
    28 "system_fingerprint" system_fingerprint,
    29 "service_tier" service_tier,
    30 "prompt_filter_results" prompt_filter_results,
    31 "x_groq" x_groq,
    32 "provider" provider,
    33 "images" images,
    34 "related_questions" related_questions,
    35 "tool_usage" tool_usage,
    36 "content_filters" content_filters,
    37 "citations" citations,
    38 "search_results" search_results,
}

/// Read by hand as serde's derive read it (the same fields, each read by its own type's
/// `Deserialize`, `null` as `None`, a member twice refused as `duplicate field`, every other
/// key skipped), without the derive's cost per record: its 39 locals of `Option<Option<T>>`
/// assembled into the record at the end, and the string compare of every key against the
/// names one after another. The members read go into a `Wire::default()`; a `u64` says which
/// were read.
impl<'de: 'a, 'a> Deserialize<'de> for Wire<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit<'a>(PhantomData<Wire<'a>>);
        impl<'de: 'a, 'a> Visitor<'de> for Visit<'a> {
            type Value = Wire<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("struct Wire")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut wire = Wire::default();
                let mut read = 0u64;
                while let Some(member) = map.next_key_seed(MemberKey)? {
                    let Some(at) = member else {
                        map.next_value::<IgnoredAny>()?;
                        continue;
                    };
                    let bit = 1u64 << at;
                    if read & bit != 0 {
                        let name = WIRE_MEMBERS.get(at as usize).copied().unwrap_or("");
                        return Err(de::Error::duplicate_field(name));
                    }
                    read |= bit;
                    read_member(&mut wire, at, &mut map)?;
                }
                Ok(wire)
            }
        }
        deserializer.deserialize_struct("Wire", WIRE_MEMBERS, Visit(PhantomData))
    }
}

/// A key of a [`Wire`] record, as the member's number ([`wire_member`]).
struct MemberKey;

impl<'de> DeserializeSeed<'de> for MemberKey {
    type Value = Option<u32>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl Visitor<'_> for MemberKey {
    type Value = Option<u32>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("field identifier")
    }
    fn visit_str<E: de::Error>(self, key: &str) -> Result<Self::Value, E> {
        Ok(wire_member(key))
    }
    fn visit_bytes<E: de::Error>(self, key: &[u8]) -> Result<Self::Value, E> {
        Ok(std::str::from_utf8(key).ok().and_then(wire_member))
    }
    fn visit_u64<E: de::Error>(self, at: u64) -> Result<Self::Value, E> {
        Ok(u32::try_from(at)
            .ok()
            .filter(|at| (*at as usize) < WIRE_MEMBERS.len()))
    }
}

/// A boxed member of [`Wire`] out of its box. The record's members that few records have
/// are boxed: a record is moved several times on its way to its handler, and each of them
/// unboxed was 24 more bytes to every move of every delta.
pub(super) fn unboxed(member: Option<Box<Value>>) -> Option<Value> {
    member.map(|value| *value)
}

impl Wire<'_> {
    /// The top-level fields kept as extras: Azure's prompt filter results, Groq's `x_groq`,
    /// OpenRouter's `provider`, Perplexity's images and related questions, the backend
    /// fingerprint and service tier, Responses tool usage and content filters.
    pub(super) fn extras(&mut self) -> [(&'static str, Option<Value>); 9] {
        [
            (
                "system_fingerprint",
                unboxed(self.system_fingerprint.take()),
            ),
            ("service_tier", unboxed(self.service_tier.take())),
            (
                "prompt_filter_results",
                unboxed(self.prompt_filter_results.take()),
            ),
            ("x_groq", unboxed(self.x_groq.take())),
            ("provider", unboxed(self.provider.take())),
            ("images", unboxed(self.images.take())),
            ("related_questions", unboxed(self.related_questions.take())),
            ("tool_usage", unboxed(self.tool_usage.take())),
            ("content_filters", unboxed(self.content_filters.take())),
        ]
    }
}

#[derive(Deserialize)]
#[cfg_attr(test, derive(Debug))]
pub(super) struct WireChoice<'a> {
    #[serde(default)]
    pub(super) index: Option<u64>,
    #[serde(borrow, default)]
    pub(super) delta: Option<WireMessage<'a>>,
    #[serde(borrow, default)]
    pub(super) message: Option<WireMessage<'a>>,
    #[serde(borrow, default)]
    pub(super) finish_reason: Option<Borrowed<'a>>,
    // Per choice, what servers add (kept, see `Extras`)
    #[serde(default)]
    pub(super) content_filter_results: Option<Value>,
    #[serde(default)]
    pub(super) content_filter_offsets: Option<Value>,
    #[serde(default)]
    pub(super) native_finish_reason: Option<Value>,
    #[serde(default)]
    pub(super) stop_reason: Option<Value>,
    #[serde(default)]
    pub(super) logprobs: Option<Value>,
}

impl WireChoice<'_> {
    /// The per-choice fields kept as extras: Azure's content filter results and offsets,
    /// OpenRouter's `native_finish_reason`, vLLM's `stop_reason` (the stop string or token
    /// matched), token log probabilities.
    pub(super) fn extras(&mut self) -> [(&'static str, Option<Value>); 5] {
        [
            ("content_filter_results", self.content_filter_results.take()),
            ("content_filter_offsets", self.content_filter_offsets.take()),
            ("native_finish_reason", self.native_finish_reason.take()),
            ("stop_reason", self.stop_reason.take()),
            ("logprobs", self.logprobs.take()),
        ]
    }
}

/// A chat message: a request message, a response `message`, or a chunk's `delta`.
#[derive(Deserialize)]
#[cfg_attr(test, derive(Debug))]
pub(super) struct WireMessage<'a> {
    #[serde(borrow, default)]
    pub(super) role: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) content: Option<StrOr<'a, Value>>,
    #[serde(borrow, default)]
    pub(super) refusal: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) reasoning: Option<StrOr<'a, Value>>,
    #[serde(borrow, default)]
    pub(super) reasoning_content: Option<StrOr<'a, Value>>,
    #[serde(default)]
    pub(super) reasoning_details: Option<Vec<Value>>,
    /// Perplexity: the steps of its reasoning, each with a `thought`.
    #[serde(default)]
    pub(super) reasoning_steps: Option<Vec<Value>>,
    #[serde(borrow, default)]
    pub(super) tool_calls: Option<Vec<WireToolCall<'a>>>,
    #[serde(borrow, default)]
    pub(super) tool_call_id: Option<Borrowed<'a>>,
    #[serde(default)]
    pub(super) annotations: Option<Vec<Value>>,
}

#[derive(Deserialize)]
#[cfg_attr(test, derive(Debug))]
pub(super) struct WireToolCall<'a> {
    #[serde(default)]
    pub(super) index: Option<u64>,
    #[serde(borrow, default)]
    pub(super) id: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) function: Option<WireFunction<'a>>,
}

#[derive(Deserialize)]
#[cfg_attr(test, derive(Debug))]
pub(super) struct WireFunction<'a> {
    #[serde(borrow, default)]
    pub(super) name: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) arguments: Option<StrOr<'a, Value>>,
}

/// A Responses object (`response.completed.response`, or a whole body).
#[derive(Deserialize, Default)]
#[cfg_attr(test, derive(Debug))]
pub(super) struct WireResponse<'a> {
    #[serde(borrow, default)]
    pub(super) id: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) model: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) status: Option<Borrowed<'a>>,
    #[serde(default)]
    pub(super) created_at: Option<Integer>,
    #[serde(default)]
    pub(super) usage: Option<Value>,
    #[serde(borrow, default)]
    pub(super) output: Option<Vec<WireItem<'a>>>,
    #[serde(default)]
    pub(super) error: Option<Value>,
    #[serde(default)]
    pub(super) incomplete_details: Option<Value>,
    #[serde(default)]
    pub(super) service_tier: Option<Value>,
    #[serde(default)]
    pub(super) tool_usage: Option<Value>,
    #[serde(default)]
    pub(super) content_filters: Option<Value>,
}

/// A Responses item: output items, and the request's input items.
#[derive(Deserialize)]
#[cfg_attr(test, derive(Debug))]
pub(super) struct WireItem<'a> {
    #[serde(rename = "type", borrow, default)]
    pub(super) kind: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) id: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) call_id: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) name: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) arguments: Option<StrOr<'a, Value>>,
    #[serde(borrow, default)]
    pub(super) input: Option<StrOr<'a, Value>>,
    #[serde(borrow, default)]
    pub(super) role: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) content: Option<StrOr<'a, Value>>,
    #[serde(default)]
    pub(super) summary: Option<Value>,
    #[serde(borrow, default)]
    pub(super) encrypted_content: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) output: Option<StrOr<'a, Value>>,
    #[serde(default)]
    pub(super) action: Option<Value>,
    #[serde(borrow, default)]
    pub(super) status: Option<Borrowed<'a>>,
    /// Every other field: the inputs and results of the tool items, which differ by kind
    /// and grow with the API, so what is not mapped is kept rather than dropped.
    #[serde(flatten)]
    pub(super) rest: Map<String, Value>,
}

impl WireItem<'_> {
    pub(super) fn kind(&self) -> &str {
        self.kind.as_deref().unwrap_or("message")
    }

    /// The id results name the item by: `call_id`, else the item's `id`.
    pub(super) fn call_id(&self) -> &str {
        self.call_id.as_deref().or(self.id.as_deref()).unwrap_or("")
    }

    pub(super) fn field(&self, name: &str) -> Option<&Value> {
        self.rest.get(name).filter(|value| !value.is_null())
    }

    pub(super) fn text_field(&self, name: &str) -> &str {
        self.field(name).and_then(Value::as_str).unwrap_or("")
    }

    /// An object of the item's fields other than `inputs` (and those read elsewhere): with
    /// the item's `status`, what a server tool produced.
    pub(super) fn result_fields(&self, inputs: &[&str]) -> Map<String, Value> {
        let mut result = Map::new();
        if let Some(status) = &self.status {
            result.insert("status".into(), Value::String(status.to_string()));
        }
        if let Some(output) = &self.output {
            result.insert("output".into(), output.to_value());
        }
        for (name, value) in &self.rest {
            if !inputs.contains(&name.as_str()) && !value.is_null() {
                result.insert(name.clone(), value.clone());
            }
        }
        result
    }
}

/// A field that is usually a string and sometimes something else (content parts, an
/// arguments object): read by a small visitor, so that the common string is borrowed and an
/// unexpected type does not reject the record (an `untagged` enum would buffer it first).
#[cfg_attr(test, derive(Debug))]
pub(super) enum StrOr<'a, T> {
    Str(Cow<'a, str>),
    Else(T),
}

impl<'de: 'a, 'a, T: Deserialize<'de>> Deserialize<'de> for StrOr<'a, T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Either<'a, T>(PhantomData<(&'a (), T)>);
        impl<'de: 'a, 'a, T: Deserialize<'de>> Visitor<'de> for Either<'a, T> {
            type Value = StrOr<'a, T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or another JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(StrOr::Str(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(StrOr::Str(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(StrOr::Str(Cow::Owned(v)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                T::deserialize(SeqAccessDeserializer::new(seq)).map(StrOr::Else)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(StrOr::Else)
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
                T::deserialize(v.into_deserializer()).map(StrOr::Else)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                T::deserialize(v.into_deserializer()).map(StrOr::Else)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                T::deserialize(v.into_deserializer()).map(StrOr::Else)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                T::deserialize(v.into_deserializer()).map(StrOr::Else)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                T::deserialize(().into_deserializer()).map(StrOr::Else)
            }
        }
        deserializer.deserialize_any(Either(PhantomData))
    }
}

impl<'a> StrOr<'a, Value> {
    /// The string, or the text of content parts (`text`, `output_text`, `input_text`,
    /// `summary_text`, `reasoning_text`), joined with `separator`.
    pub(super) fn text(&self, separator: &str) -> String {
        self.text_borrowed(separator).into_owned()
    }

    /// [`text`](Self::text), borrowed when it is a string: a delta is read, not kept.
    pub(super) fn text_borrowed(&self, separator: &str) -> Cow<'_, str> {
        match self {
            StrOr::Str(text) => Cow::Borrowed(text),
            StrOr::Else(value) => Cow::Owned(parts_text(value, separator)),
        }
    }

    pub(super) fn into_value(self) -> Value {
        match self {
            StrOr::Str(text) => Value::String(text.into_owned()),
            StrOr::Else(value) => value,
        }
    }

    pub(super) fn to_value(&self) -> Value {
        match self {
            StrOr::Str(text) => Value::String(text.clone().into_owned()),
            StrOr::Else(value) => value.clone(),
        }
    }
}

/// The text parts of a content array (or one part), joined with `separator`.
pub(super) fn parts_text(value: &Value, separator: &str) -> String {
    let one = |part: &Value| match part {
        Value::String(text) => Some(text.clone()),
        Value::Object(fields) => fields
            .get("text")
            .or_else(|| fields.get("refusal"))
            .and_then(Value::as_str)
            .map(str::to_owned),
        _ => None,
    };
    match value {
        Value::Array(parts) => parts
            .iter()
            .filter_map(one)
            .collect::<Vec<_>>()
            .join(separator),
        other => one(other).unwrap_or_default(),
    }
}

/// The top-level fields of a Responses body, as the object a terminal event carries.
pub(super) fn top_response(wire: Wire<'_>) -> WireResponse<'_> {
    WireResponse {
        id: wire.id,
        model: wire.model,
        status: wire.status,
        created_at: wire.created_at,
        usage: unboxed(wire.usage),
        output: wire.output,
        error: unboxed(wire.error),
        incomplete_details: unboxed(wire.incomplete_details),
        service_tier: unboxed(wire.service_tier),
        tool_usage: unboxed(wire.tool_usage),
        content_filters: unboxed(wire.content_filters),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Wire` as serde's derive read it before the hand-written reading: the same members,
    /// types and attributes.
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)] // read through `Debug` only
    struct Derived<'a> {
        #[serde(borrow, default)]
        object: Option<Borrowed<'a>>,
        #[serde(rename = "type", borrow, default)]
        kind: Option<Borrowed<'a>>,
        #[serde(borrow, default)]
        id: Option<Borrowed<'a>>,
        #[serde(borrow, default)]
        model: Option<Borrowed<'a>>,
        #[serde(default)]
        created: Option<Integer>,
        #[serde(default)]
        created_at: Option<Integer>,
        #[serde(borrow, default)]
        choices: Option<Vec<WireChoice<'a>>>,
        #[serde(default)]
        usage: Option<Box<Value>>,
        #[serde(default)]
        error: Option<Box<Value>>,
        #[serde(borrow, default)]
        messages: Option<Vec<WireMessage<'a>>>,
        #[serde(borrow, default)]
        input: Option<StrOr<'a, Vec<WireItem<'a>>>>,
        #[serde(borrow, default)]
        previous_response_id: Option<Borrowed<'a>>,
        #[serde(default)]
        instructions: Option<Box<Value>>,
        #[serde(rename = "tools", default)]
        request_tools: Option<Box<Value>>,
        #[serde(borrow, default)]
        item_id: Option<Borrowed<'a>>,
        #[serde(default)]
        output_index: Option<u64>,
        #[serde(default)]
        summary_index: Option<u64>,
        #[serde(default)]
        content_index: Option<u64>,
        #[serde(default)]
        annotation: Option<Box<Value>>,
        #[serde(borrow, default)]
        delta: Option<StrOr<'a, Value>>,
        #[serde(borrow, default)]
        arguments: Option<StrOr<'a, Value>>,
        #[serde(borrow, default)]
        item: Option<Box<WireItem<'a>>>,
        #[serde(borrow, default)]
        response: Option<Box<WireResponse<'a>>>,
        #[serde(borrow, default)]
        message: Option<StrOr<'a, Value>>,
        #[serde(default)]
        code: Option<Box<Value>>,
        #[serde(borrow, default)]
        output: Option<Vec<WireItem<'a>>>,
        #[serde(borrow, default)]
        status: Option<Borrowed<'a>>,
        #[serde(default)]
        incomplete_details: Option<Box<Value>>,
        #[serde(default)]
        system_fingerprint: Option<Box<Value>>,
        #[serde(default)]
        service_tier: Option<Box<Value>>,
        #[serde(default)]
        prompt_filter_results: Option<Box<Value>>,
        #[serde(default)]
        x_groq: Option<Box<Value>>,
        #[serde(default)]
        provider: Option<Box<Value>>,
        #[serde(default)]
        images: Option<Box<Value>>,
        #[serde(default)]
        related_questions: Option<Box<Value>>,
        #[serde(default)]
        tool_usage: Option<Box<Value>>,
        #[serde(default)]
        content_filters: Option<Box<Value>>,
        #[serde(default)]
        citations: Option<Box<Value>>,
        #[serde(default)]
        search_results: Option<Box<Value>>,
    }

    /// What a reading gave: the record's fields as `Debug` shows them, or the error's text.
    fn shown<T: fmt::Debug>(read: Result<T, String>) -> String {
        match read {
            Ok(record) => {
                let text = format!("{record:?}");
                let fields = text.find(" {").map_or(&text[..], |at| &text[at..]);
                format!("ok{fields}")
            }
            Err(error) => format!("error: {error}"),
        }
    }

    /// A record read by simd-json from its tape, as `JsonParser` reads it, by `read`.
    fn simd(record: &str, read: impl FnOnce(&mut simd_json::Deserializer<'_>) -> String) -> String {
        let mut bytes = record.as_bytes().to_vec();
        match simd_json::to_tape(&mut bytes) {
            Ok(tape) => read(&mut simd_json::Deserializer::from_tape(tape)),
            Err(error) => format!("not JSON: {error}"),
        }
    }

    /// A record read by serde_json, as `explain` reads a record simd-json refused.
    fn serde<'a, T: Deserialize<'a> + fmt::Debug>(record: &'a str) -> String {
        shown(serde_json::from_str::<T>(record).map_err(|e| e.to_string()))
    }

    /// Every JSON record of the OpenAI corpus (lines and SSE data), and records made to find
    /// where a hand-written reading could part from the derived one: every member twice
    /// (after `null` too), each of another type, escaped and unknown keys, nesting.
    fn records() -> Vec<String> {
        let mut records = Vec::new();
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/normalize/openai");
        for sub in ["ok", "err"] {
            let Ok(entries) = std::fs::read_dir(format!("{dir}/{sub}")) else {
                continue;
            };
            for entry in entries.flatten() {
                let text = std::fs::read(entry.path()).unwrap_or_default();
                let text = String::from_utf8_lossy(&text);
                for line in text.lines() {
                    let line = line.strip_prefix("data:").unwrap_or(line).trim();
                    if line.starts_with('{') {
                        records.push(line.to_owned());
                    }
                }
            }
        }
        assert!(records.len() > 200, "the corpus: {} records", records.len());
        let values = [
            "null",
            "1",
            "-1",
            "1.5",
            "true",
            "\"s\"",
            "\"\"",
            "[]",
            "[1,\"a\"]",
            "{}",
            "{\"type\":\"message\",\"x\":1}",
            "\"\\u00e9\\n\"",
            "18446744073709551616",
        ];
        for name in WIRE_MEMBERS
            .iter()
            .chain(&["sequence_number", "0", "Type", ""])
        {
            for value in values {
                records.push(format!("{{\"{name}\":{value}}}"));
                records.push(format!("{{\"{name}\":null,\"{name}\":{value}}}"));
                records.push(format!("{{\"{name}\":{value},\"id\":\"x\",\"{name}\":1}}"));
            }
        }
        records.extend(
            [
                "{}",
                "{\"\\u0074ype\":\"response.output_text.delta\",\"delta\":\"hi\"}",
                "{\"ty\\u0070e\":\"a\",\"type\":\"b\"}",
                "{\"unknown\":{\"deep\":[1,{\"x\":[2]}]},\"id\":\"a\",\"more\":[{}]}",
                "{\"choices\":[{\"delta\":{\"content\":\"x\"},\"index\":0,\"index\":1}]}",
                "{\"item\":{\"type\":\"function_call\",\"id\":\"a\",\"id\":\"b\"}}",
                "{\"response\":{\"id\":\"r\",\"output\":[{\"type\":\"message\"}]},\"type\":\"x\"}",
                "{\"id\":\"caf\u{e9}\",\"model\":\"\\ud83d\\ude00\",\"cl\u{e9}\":1}",
            ]
            .map(str::to_owned),
        );
        records
    }

    /// The hand-written reading reads every record as the derived one did, and refuses
    /// every record it refused with the same error, through both parsers.
    #[test]
    fn wire_reads_every_record_as_the_derived_reading() {
        for record in records() {
            let hand = simd(&record, |d| {
                shown(Wire::deserialize(d).map_err(|e| e.to_string()))
            });
            let derived = simd(&record, |d| {
                shown(Derived::deserialize(d).map_err(|e| e.to_string()))
            });
            assert_eq!(hand, derived, "simd-json: {record}");
            assert_eq!(
                serde::<Wire<'_>>(&record),
                serde::<Derived<'_>>(&record),
                "serde_json: {record}"
            );
        }
    }

    /// Each member's number is its place in the names, below the 64 bits that count them.
    #[test]
    fn every_member_is_found_by_its_name() {
        assert!(WIRE_MEMBERS.len() <= 64);
        for (at, name) in WIRE_MEMBERS.iter().enumerate() {
            assert_eq!(wire_member(name), Some(at as u32), "{name}");
        }
        assert_eq!(wire_member("sequence_number"), None);
    }
}
