//! The record shapes of the Messages API as its HTTP bodies and streams carry them: one
//! struct with the fields of every kind of record side by side (a stream event, a response
//! body, an error body, a request body), only those the adapter reads, borrowed where
//! possible; and the tables of the fields it knows and leaves out on purpose (the rest are
//! reported). The message and block shapes are `messages_api`'s.
//!
//! This file owns the wire's vocabulary. It holds no state and hands out nothing.

use serde::Deserialize;
use serde_json::Value;

use crate::normalize::json::{Borrowed, RecordShape};
use crate::normalize::messages_api::{Delta, Message, MessageContent, RawBlock};
use crate::normalize::report::{Fields, Kind};

pub(super) struct WireShape;
impl RecordShape for WireShape {
    type Of<'a> = Wire<'a>;

    /// A record's `type`; a request body has none and is `request`.
    fn kind<'v>(wire: &'v Wire<'_>) -> Kind<'v> {
        (wire.kind.as_deref().unwrap_or("request"), None)
    }

    fn fields(kind: Kind<'_>) -> Option<Fields> {
        let known: fn(&str) -> bool = match kind.0 {
            "message_start" => |f| matches!(f, "type" | "message"),
            "content_block_start" => |f| matches!(f, "type" | "index" | "content_block"),
            "content_block_delta" => |f| matches!(f, "type" | "index" | "delta"),
            "content_block_stop" => |f| matches!(f, "type" | "index"),
            // `context_management`: what the API cleared from the context (beta), not read.
            "message_delta" => |f| matches!(f, "type" | "delta" | "usage" | "context_management"),
            // Bedrock's stream ends with its invocation metrics, kept as passthrough.
            "message_stop" => |f| matches!(f, "type" | "amazon-bedrock-invocationMetrics"),
            "ping" => |f| f == "type",
            "error" => |f| matches!(f, "type" | "error" | "request_id"),
            // The API's `Message`: `stop_sequence` (the matched sequence: the stop reason says
            // a sequence matched), `container` (a code execution container's id and expiry)
            // and `context_management` are left out.
            "message" => |f| {
                matches!(
                    f,
                    "id" | "type"
                        | "role"
                        | "model"
                        | "content"
                        | "stop_reason"
                        | "stop_sequence"
                        | "usage"
                        | "container"
                        | "context_management"
                )
            },
            // The request's parameters: what the model was asked with, not what it said.
            "request" => |f| {
                matches!(
                    f,
                    "model"
                        | "messages"
                        | "system"
                        | "max_tokens"
                        | "tools"
                        | "tool_choice"
                        | "stream"
                        | "temperature"
                        | "top_p"
                        | "top_k"
                        | "stop_sequences"
                        | "metadata"
                        | "thinking"
                        | "service_tier"
                        | "container"
                        | "mcp_servers"
                        | "context_management"
                        | "anthropic_version"
                        | "anthropic_beta"
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

/// One record: a stream event, a response body (`type: "message"`), an error (`type:
/// "error"`, an event or a body), or a request body (no `type`, `messages`).
#[derive(Deserialize)]
pub(super) struct Wire<'a> {
    #[serde(rename = "type", borrow, default)]
    pub(super) kind: Option<Borrowed<'a>>,
    // Stream events.
    #[serde(default)]
    pub(super) index: Option<u64>,
    /// `message_start`'s message.
    #[serde(borrow, default)]
    pub(super) message: Option<Message<'a>>,
    #[serde(borrow, default)]
    pub(super) content_block: Option<RawBlock<'a>>,
    #[serde(borrow, default)]
    pub(super) delta: Option<Delta<'a>>,
    /// `message_delta`'s cumulative usage, or a body's usage.
    #[serde(default)]
    pub(super) usage: Option<Value>,
    /// An `error` event's or body's error object (`{type, message}`).
    #[serde(default)]
    pub(super) error: Option<Value>,
    /// Bedrock's `message_stop` carries the invocation's metrics.
    #[serde(rename = "amazon-bedrock-invocationMetrics", default)]
    pub(super) bedrock_metrics: Option<Value>,
    // A response body: a whole message.
    #[serde(borrow, default)]
    pub(super) id: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) model: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) content: Option<MessageContent<'a>>,
    #[serde(borrow, default)]
    pub(super) stop_reason: Option<Borrowed<'a>>,
    // A request body.
    #[serde(borrow, default)]
    pub(super) messages: Option<Vec<Message<'a>>>,
    #[serde(default)]
    pub(super) system: Option<Value>,
    /// The tools the request offers the model.
    #[serde(default)]
    pub(super) tools: Option<Value>,
}
