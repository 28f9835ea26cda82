//! The record shapes of Bedrock's Converse API: a `ConverseStream` event (a union keyed by
//! the event's name, as the event-stream framing makes it of a binary message and as the AWS
//! SDKs give it once decoded), a `Converse` response body, an exception, and a request; the
//! fields the adapter reads, borrowed where possible; and the tables of the fields it knows
//! (the rest are reported).
//!
//! This file owns the wire's vocabulary. It holds no state and hands out nothing.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{MapAccess, Visitor};
use serde_json::{Map, Value};

use crate::model::StopKind;
use crate::normalize::history::{AnyObject, History};
use crate::normalize::json::{Borrowed, RecordShape, Tree, tree_members, tree_object};
use crate::normalize::messages_api::stop_kind;
use crate::normalize::report::{Fields, Kind};

/// The stream's events, by the name that keys them.
pub(super) const EVENTS: [&str; 6] = [
    "messageStart",
    "contentBlockStart",
    "contentBlockDelta",
    "contentBlockStop",
    "messageStop",
    "metadata",
];

pub(super) struct WireShape;
impl RecordShape for WireShape {
    type Of<'a> = Wire<'a>;

    fn kind<'v>(wire: &'v Wire<'_>) -> Kind<'v> {
        (wire.kind(), None)
    }

    fn fields(kind: Kind<'_>) -> Option<Fields> {
        let (within, known): (Option<&'static str>, fn(&str) -> bool) = match kind.0 {
            "messageStart" => (Some("messageStart"), |f| f == "role" || f == "p"),
            "contentBlockStart" => (Some("contentBlockStart"), |f| {
                matches!(f, "contentBlockIndex" | "start" | "p")
            }),
            "contentBlockDelta" => (Some("contentBlockDelta"), |f| {
                matches!(f, "contentBlockIndex" | "delta" | "p")
            }),
            "contentBlockStop" => (Some("contentBlockStop"), |f| {
                matches!(f, "contentBlockIndex" | "p")
            }),
            "messageStop" => (Some("messageStop"), |f| {
                matches!(f, "stopReason" | "additionalModelResponseFields" | "p")
            }),
            "metadata" => (Some("metadata"), |f| {
                matches!(
                    f,
                    "usage" | "metrics" | "trace" | "performanceConfig" | "serviceTier" | "p"
                )
            }),
            // `ConverseResponse`.
            "response" => (None, |f| {
                matches!(
                    f,
                    "output"
                        | "stopReason"
                        | "usage"
                        | "metrics"
                        | "additionalModelResponseFields"
                        | "trace"
                        | "performanceConfig"
                        | "serviceTier"
                        | "ResponseMetadata"
                )
            }),
            // `ConverseRequest`.
            "request" => (None, |f| {
                matches!(
                    f,
                    "modelId"
                        | "messages"
                        | "system"
                        | "toolConfig"
                        | "inferenceConfig"
                        | "guardrailConfig"
                        | "additionalModelRequestFields"
                        | "additionalModelResponseFieldPaths"
                        | "promptVariables"
                        | "requestMetadata"
                        | "performanceConfig"
                        | "serviceTier"
                )
            }),
            _ => return None,
        };
        Some(Fields { within, known })
    }
}

/// One record: a stream event, an exception, a response body or a request, every form's
/// fields side by side.
///
/// Read by serde's derive, `flatten` and all. A hand-written visitor for this and `Delta`
/// (as OpenAI's `Wire` has) measured too little to keep: the read 2,009 -> 1,887
/// instructions a record, the normalize bench's Bedrock process -0.33% (callgrind, 5 MB);
/// its time is the requests' `History`, the deltas' values and simd-json's parse.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Wire<'a> {
    #[serde(default)]
    pub(super) message_start: Option<Value>,
    #[serde(borrow, default)]
    pub(super) content_block_start: Option<BlockStart<'a>>,
    #[serde(borrow, default)]
    pub(super) content_block_delta: Option<BlockDelta<'a>>,
    #[serde(default)]
    pub(super) content_block_stop: Option<BlockStop>,
    #[serde(borrow, default)]
    pub(super) message_stop: Option<MessageStop<'a>>,
    #[serde(default)]
    pub(super) metadata: Option<Metadata>,
    // A response body.
    #[serde(borrow, default)]
    pub(super) output: Option<Output<'a>>,
    #[serde(borrow, default)]
    pub(super) stop_reason: Option<Borrowed<'a>>,
    #[serde(default)]
    pub(super) usage: Option<Value>,
    #[serde(default)]
    pub(super) metrics: Option<Value>,
    // A request. Its messages past the history already read are built, the others only
    // checked (`history`): a request repeats the history, and requests are most of a
    // conversation file's bytes.
    #[serde(borrow, default)]
    pub(super) messages: Option<History<Message<'a>, MessageShape<'a>>>,
    #[serde(default)]
    pub(super) system: Option<Value>,
    #[serde(default)]
    pub(super) tool_config: Option<Value>,
    #[serde(borrow, default)]
    pub(super) model_id: Option<Borrowed<'a>>,
    /// Anything else: an exception (`throttlingException`, ...) or an error the framing made
    /// of an `error` message, each `{"<name>": {"message": ...}}`.
    #[serde(flatten)]
    pub(super) rest: Map<String, Value>,
}

impl Wire<'_> {
    /// The record's kind, for the input report and the dispatch.
    pub(super) fn kind(&self) -> &str {
        let events = [
            self.message_start.is_some(),
            self.content_block_start.is_some(),
            self.content_block_delta.is_some(),
            self.content_block_stop.is_some(),
            self.message_stop.is_some(),
            self.metadata.is_some(),
        ];
        if let Some(at) = events.iter().position(|is| *is) {
            EVENTS[at]
        } else if self.output.is_some() {
            "response"
        } else if self.messages.is_some() {
            "request"
        } else if self.exception().is_some() {
            "exception"
        } else {
            "record"
        }
    }

    /// An exception's name and its object: the record's only key, an object.
    pub(super) fn exception(&self) -> Option<(&str, &Value)> {
        match self.rest.iter().next() {
            Some((name, value)) if self.rest.len() == 1 && value.is_object() => {
                Some((name.as_str(), value))
            }
            _ => None,
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct BlockStart<'a> {
    #[serde(default)]
    pub(super) content_block_index: u64,
    #[serde(borrow, default)]
    pub(super) start: Option<Start<'a>>,
}

/// What a block starts as: a tool call, a server tool's result, or (newer models) an image.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Start<'a> {
    #[serde(borrow, default)]
    pub(super) tool_use: Option<ToolUseStart<'a>>,
    #[serde(default)]
    pub(super) tool_result: Option<Value>,
    #[serde(flatten)]
    pub(super) rest: Map<String, Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ToolUseStart<'a> {
    #[serde(borrow, default)]
    pub(super) tool_use_id: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) name: Option<Borrowed<'a>>,
    /// `server_tool_use` for a tool the service runs (Nova's code interpreter).
    #[serde(borrow, default, rename = "type")]
    pub(super) kind: Option<Borrowed<'a>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct BlockDelta<'a> {
    #[serde(default)]
    pub(super) content_block_index: u64,
    #[serde(borrow, default)]
    pub(super) delta: Option<Delta<'a>>,
}

/// A block's delta: text, a piece of a call's input, reasoning (text, signature, redacted
/// bytes), a server tool's result content, a citation.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Delta<'a> {
    #[serde(borrow, default)]
    pub(super) text: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) tool_use: Option<ToolUseDelta<'a>>,
    #[serde(borrow, default)]
    pub(super) reasoning_content: Option<ReasoningDelta<'a>>,
    #[serde(default)]
    pub(super) tool_result: Option<Value>,
    #[serde(flatten)]
    pub(super) rest: Map<String, Value>,
}

#[derive(Deserialize)]
pub(super) struct ToolUseDelta<'a> {
    #[serde(borrow, default)]
    pub(super) input: Option<Borrowed<'a>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ReasoningDelta<'a> {
    #[serde(borrow, default)]
    pub(super) text: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) signature: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) redacted_content: Option<Borrowed<'a>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct BlockStop {
    #[serde(default)]
    pub(super) content_block_index: u64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct MessageStop<'a> {
    #[serde(borrow, default)]
    pub(super) stop_reason: Option<Borrowed<'a>>,
    #[serde(default)]
    pub(super) additional_model_response_fields: Option<Value>,
}

/// The stream's last event: usage, latency, traces.
#[derive(Deserialize)]
pub(super) struct Metadata {
    #[serde(default)]
    pub(super) usage: Option<Value>,
    #[serde(flatten)]
    pub(super) rest: Map<String, Value>,
}

#[derive(Deserialize)]
pub(super) struct Output<'a> {
    #[serde(borrow, default)]
    pub(super) message: Option<Message<'a>>,
}

/// A message of a body or a request: a role and its content blocks, each a union keyed by
/// its kind (`text`, `toolUse`, `toolResult`, `reasoningContent`, `image`, ...).
#[derive(Deserialize)]
pub(super) struct Message<'a> {
    #[serde(default)]
    pub(super) role: Option<String>,
    #[serde(borrow, default)]
    pub(super) content: Vec<LentBlock<'a>>,
}

/// A content block as the parse lent it: its members in the record's order, each a
/// [`Tree`] (`json::Tree`). A tool's result is nearly every byte a session's requests add, and axt
/// never reads its text: [`LentBlock::lone_result`] finds it borrowed, so that it is held
/// as the record escaped it (`Parsed::output`); any other block is built as `Value` reads
/// it ([`LentBlock::into_map`]). Only an object is a block, as for `Map`.
pub(super) struct LentBlock<'a>(Vec<(Cow<'a, str>, Tree<'a>)>);

/// The result a lone `toolResult` block holds when its content is one `text` item, the
/// usual result: that text, borrowed.
pub(super) struct LoneResult<'a, 'b> {
    pub(super) tool_id: &'b str,
    pub(super) status: &'b str,
    pub(super) text: &'b Cow<'a, str>,
}

impl<'a> LentBlock<'a> {
    /// The block, when it is `{"toolResult": {..., "content": [{"text": "..."}], ...}}`
    /// (its other members as `content::whole` reads them: `toolUseId` and `status` where
    /// they are strings). `None` for any other block, a member given twice included.
    pub(super) fn lone_result(&self) -> Option<LoneResult<'a, '_>> {
        let [(kind, Tree::Object(result))] = self.0.as_slice() else {
            return None;
        };
        if kind != "toolResult" {
            return None;
        }
        let mut members = [None; 3];
        for (name, value) in result {
            let at = match &**name {
                "content" => 0,
                "toolUseId" => 1,
                "status" => 2,
                _ => continue,
            };
            if members[at].replace(value).is_some() {
                return None;
            }
        }
        let [Some(Tree::Array(items)), id, status] = members else {
            return None;
        };
        let [Tree::Object(item)] = items.as_slice() else {
            return None;
        };
        let [(name, Tree::Str(text))] = item.as_slice() else {
            return None;
        };
        fn text_of<'b>(value: Option<&'b Tree<'_>>) -> &'b str {
            match value {
                Some(Tree::Str(text)) => text,
                _ => "",
            }
        }
        (name == "text").then(|| LoneResult {
            tool_id: text_of(id),
            status: text_of(status),
            text,
        })
    }

    /// The block as `Value` reads it.
    pub(super) fn into_map(self) -> Map<String, Value> {
        tree_object(self.0)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for LentBlock<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = LentBlock<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map")
            }
            // As `Map` reads them: `null` is an empty one.
            fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
                Ok(LentBlock(Vec::new()))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                tree_members(map).map(LentBlock)
            }
        }
        deserializer.deserialize_map(Visit)
    }
}

/// A [`Message`] read without building it, accepting exactly what it accepts: a message of
/// the history the adapter already read.
#[derive(Deserialize)]
#[allow(dead_code)] // read for their shape only
pub(super) struct MessageShape<'a> {
    #[serde(borrow, default)]
    role: Option<Borrowed<'a>>,
    #[serde(default)]
    content: Vec<AnyObject>,
}

/// A stop reason of the Converse API: the Messages API's words, and Bedrock's own
/// (`guardrail_intervened`, `content_filtered`: refusals).
pub(super) fn stop(raw: &str) -> StopKind {
    match raw {
        "guardrail_intervened" | "content_filtered" => StopKind::Refusal,
        _ => stop_kind(raw),
    }
}

/// A Converse `usage`, in the one convention of `Usage`: `inputTokens` counts the prompt
/// past the cache (as Anthropic's `input_tokens` does), the cache reads and writes beside it.
pub(super) fn usage(usage: &Value) -> crate::model::Usage {
    let count = |name: &str| usage.get(name).and_then(Value::as_u64).unwrap_or(0);
    crate::model::Usage {
        input_tokens: count("inputTokens"),
        output_tokens: count("outputTokens"),
        cache_read_tokens: count("cacheReadInputTokens"),
        cache_write_tokens: count("cacheWriteInputTokens"),
        reasoning_tokens: 0,
    }
}
