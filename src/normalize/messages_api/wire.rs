//! The Messages API's record shapes, shared by every dialect that carries them (Claude Code
//! lines, the API's bodies and streams): only the fields the adapters read, borrowed where
//! possible.
//!
//! This file owns the wire's vocabulary. It holds no state and hands out nothing.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde_json::Value;

use crate::model::{StopKind, Usage};
use crate::normalize::json::{Borrowed, Lent};

/// A message: a response body, `message_start`'s message, a Claude Code line's `message`,
/// or one of a request's `messages`.
#[derive(Deserialize)]
pub(crate) struct Message<'a> {
    #[serde(borrow, default)]
    pub(crate) id: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(crate) role: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(crate) model: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(crate) content: Option<MessageContent<'a>>,
    #[serde(default)]
    pub(crate) usage: Option<MessageUsage>,
}

/// `message.content`: a string or an array of blocks.
pub(crate) enum MessageContent<'a> {
    Text(Cow<'a, str>),
    Blocks(Vec<RawBlock<'a>>),
}

impl<'de: 'a, 'a> Deserialize<'de> for MessageContent<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ContentVisitor;
        impl<'de> Visitor<'de> for ContentVisitor {
            type Value = MessageContent<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an array of content blocks")
            }
            fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(MessageContent::Text(Cow::Borrowed(text)))
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
                Ok(MessageContent::Text(Cow::Owned(text.to_owned())))
            }
            fn visit_string<E: de::Error>(self, text: String) -> Result<Self::Value, E> {
                Ok(MessageContent::Text(Cow::Owned(text)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut blocks = Vec::with_capacity(seq.size_hint().unwrap_or(1));
                while let Some(block) = seq.next_element()? {
                    blocks.push(block);
                }
                Ok(MessageContent::Blocks(blocks))
            }
        }
        deserializer.deserialize_any(ContentVisitor)
    }
}

/// One content block, every type's fields side by side.
#[derive(Deserialize)]
pub(crate) struct RawBlock<'a> {
    #[serde(rename = "type", borrow)]
    pub(crate) kind: Cow<'a, str>,
    #[serde(borrow, default)]
    pub(crate) text: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(crate) thinking: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(crate) signature: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(crate) data: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(crate) id: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(crate) name: Option<Borrowed<'a>>,
    #[serde(default)]
    pub(crate) input: Option<Value>,
    #[serde(borrow, default)]
    pub(crate) tool_use_id: Option<Borrowed<'a>>,
    /// A result's content: a string kept as the parse lent it (an adapter that only
    /// passes it on holds it as the record escaped it, `Lent::output`).
    #[serde(borrow, default)]
    pub(crate) content: Option<Lent<'a>>,
    #[serde(default)]
    pub(crate) is_error: Option<bool>,
    #[serde(default)]
    pub(crate) citations: Option<Value>,
    /// An MCP connector call's server (`mcp_tool_use`).
    #[serde(borrow, default)]
    pub(crate) server_name: Option<Borrowed<'a>>,
}

/// A message's `usage`: a snapshot of its counts so far (`message_start`'s, then
/// `message_delta`'s, whose counts are cumulative).
#[derive(Deserialize, Clone, Copy, Default)]
pub(crate) struct MessageUsage {
    #[serde(default)]
    pub(crate) input_tokens: Option<u64>,
    #[serde(default)]
    pub(crate) output_tokens: Option<u64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
}

impl MessageUsage {
    pub(crate) fn to_usage(self) -> Usage {
        Usage {
            input_tokens: self.input_tokens.unwrap_or(0),
            output_tokens: self.output_tokens.unwrap_or(0),
            cache_read_tokens: self.cache_read_input_tokens.unwrap_or(0),
            cache_write_tokens: self.cache_creation_input_tokens.unwrap_or(0),
            reasoning_tokens: 0,
        }
    }

    /// A later snapshot of the same message: fields it carries replace earlier ones.
    pub(crate) fn update(&mut self, later: MessageUsage) {
        let keep = |old: &mut Option<u64>, new: Option<u64>| {
            if new.is_some() {
                *old = new;
            }
        };
        keep(&mut self.input_tokens, later.input_tokens);
        keep(&mut self.output_tokens, later.output_tokens);
        keep(
            &mut self.cache_creation_input_tokens,
            later.cache_creation_input_tokens,
        );
        keep(
            &mut self.cache_read_input_tokens,
            later.cache_read_input_tokens,
        );
    }
}

/// One stream event: `message_start`, `content_block_start` / `_delta` / `_stop`,
/// `message_delta`, `message_stop`, `ping`, `error`.
///
/// The members only one event in many carries (`message_start`'s message, a block's start,
/// an error) are boxed: the deltas are most lines of a partial-messages stream, and the
/// record struct is copied whole each time it moves on its way to the adapter (800 bytes a
/// copy with them inline, 280 boxed, 224 with the usage boxed too).
#[derive(Deserialize)]
pub(crate) struct StreamEvent<'a> {
    #[serde(rename = "type", borrow)]
    pub(crate) kind: Cow<'a, str>,
    #[serde(default)]
    pub(crate) index: Option<u64>,
    #[serde(borrow, default)]
    pub(crate) message: Option<Box<Message<'a>>>,
    #[serde(borrow, default)]
    pub(crate) content_block: Option<Box<RawBlock<'a>>>,
    #[serde(borrow, default)]
    pub(crate) delta: Option<Delta<'a>>,
    /// `message_delta`'s alone: boxed like the members above (72 bytes inline).
    #[serde(default)]
    pub(crate) usage: Option<Box<MessageUsage>>,
    /// On an `error` event: the API's error object (`{type, message}`).
    #[serde(default)]
    pub(crate) error: Option<Box<Value>>,
}

/// A `content_block_delta`'s delta (`text_delta`, `thinking_delta`, `signature_delta`,
/// `input_json_delta`, `citations_delta`), or a `message_delta`'s (`stop_reason`).
#[derive(Deserialize)]
pub(crate) struct Delta<'a> {
    #[serde(rename = "type", borrow, default)]
    pub(crate) kind: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(crate) text: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(crate) thinking: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(crate) signature: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(crate) partial_json: Option<Borrowed<'a>>,
    /// `citations_delta`: one citation of the text block.
    #[serde(default)]
    pub(crate) citation: Option<Box<Value>>,
    /// `message_delta`: why the message ended.
    #[serde(borrow, default)]
    pub(crate) stop_reason: Option<Borrowed<'a>>,
}

/// A `stop_reason` of the Messages API, normalized.
pub(crate) fn stop_kind(raw: &str) -> StopKind {
    match raw {
        "end_turn" => StopKind::EndTurn,
        "tool_use" => StopKind::ToolUse,
        "max_tokens" | "model_context_window_exceeded" => StopKind::MaxTokens,
        "stop_sequence" => StopKind::StopSequence,
        "refusal" => StopKind::Refusal,
        // `pause_turn`: a server tool loop paused, to be continued by another request.
        _ => StopKind::Other,
    }
}
