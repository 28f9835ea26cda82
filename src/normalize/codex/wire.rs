//! The record shapes of all three generations: only the fields the normalizer reads,
//! borrowed where possible; fields whose type differs between versions are read as
//! `Value`. With them, the tables of the fields the adapter knows and leaves out on purpose
//! (the rest are reported).
//!
//! This file owns the wire's vocabulary. It holds no state and hands out nothing.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;

use crate::normalize::Usage;
use crate::normalize::json::{Borrowed, RecordShape};
use crate::normalize::report::{Fields, Kind};

pub(super) struct LineShape;
impl RecordShape for LineShape {
    type Of<'a> = Line<'a>;

    /// `type`, with the item's type for item events (`item.completed/agent_message`); legacy
    /// events are `msg/<type>`, the legacy config and prompt lines `config` and `prompt`.
    fn kind<'v>(line: &'v Line<'_>) -> Kind<'v> {
        // A rollout record: its type, and its payload's.
        if let (Some(kind), Some(payload)) = (&line.kind, &line.payload) {
            return (kind, payload.get("type").and_then(Value::as_str));
        }
        match (&line.kind, &line.item, &line.msg) {
            (Some(kind), Some(item), _) => {
                (kind, item.kind.as_deref().or(item.item_type.as_deref()))
            }
            (Some(kind), None, _) => (kind, None),
            (None, _, Some(msg)) => ("msg", Some(&msg.kind)),
            (None, _, None) if line.prompt.is_some() => ("prompt", None),
            (None, _, None) if line.model.is_some() => ("config", None),
            (None, _, None) => ("(untyped)", None),
        }
    }

    fn fields(kind: Kind<'_>) -> Option<Fields> {
        let (within, known): (_, fn(&str) -> bool) = match kind {
            // Items of the types read; the others are kept whole.
            (
                "item.started" | "item.updated" | "item.completed",
                Some(
                    "agent_message" | "assistant_message" | "reasoning" | "error"
                    | "command_execution" | "file_change" | "mcp_tool_call" | "collab_tool_call"
                    | "web_search",
                ),
            ) => (Some("item"), known_item_field),
            (
                "thread.started" | "session.created" | "turn.started" | "turn.completed"
                | "turn.failed" | "error",
                _,
            ) => (None, |f| {
                matches!(
                    f,
                    "type"
                        | "thread_id"
                        | "session_id"
                        | "timestamp"
                        | "usage"
                        | "error"
                        | "message"
                        | "turn_id"
                        | "status"
                        | "duration_ms"
                )
            }),
            ("msg", _) => (Some("msg"), known_msg_field),
            // A rollout's envelope; its payloads are Responses items and UI events, read
            // by their own readers.
            ("session_meta" | "response_item" | "event_msg" | "turn_context" | "compacted", _) => {
                (None, |f| matches!(f, "timestamp" | "type" | "payload"))
            }
            ("prompt", _) => (None, |f| f == "prompt"),
            ("config", _) => (None, |f| {
                matches!(
                    f,
                    "model"
                        | "provider"
                        | "sandbox"
                        | "approval"
                        | "reasoning effort"
                        | "reasoning summaries"
                        | "workdir"
                )
            }),
            _ => return None,
        };
        Some(Fields { within, known })
    }
}

// The fields of items and legacy events, from `exec_events.rs` and the legacy protocol as
// provider-formats.md §2 describes them; the ones not read (a running command's status, a
// web search's id, durations) are left out on purpose.

fn known_item_field(field: &str) -> bool {
    matches!(
        field,
        "id" | "type"
            | "item_type"
            | "text"
            | "message"
            | "status"
            | "command"
            | "aggregated_output"
            | "exit_code"
            | "changes"
            | "server"
            | "tool"
            | "arguments"
            | "result"
            | "error"
            | "sender_thread_id"
            | "receiver_thread_ids"
            | "prompt"
            | "agents_states"
            | "query"
            | "action"
            | "results"
    )
}

fn known_msg_field(field: &str) -> bool {
    matches!(
        field,
        "type"
            | "message"
            | "text"
            | "session_id"
            | "model"
            | "call_id"
            | "command"
            | "cwd"
            | "stdout"
            | "stderr"
            | "aggregated_output"
            | "exit_code"
            | "changes"
            | "success"
            | "invocation"
            | "result"
            | "query"
            | "delta"
            | "stream"
            | "chunk"
            | "parsed_cmd"
            | "duration"
            | "formatted_output"
            | "auto_approved"
            | "info"
            | "input_tokens"
            | "cached_input_tokens"
            | "output_tokens"
            | "reasoning_output_tokens"
            | "total_tokens"
            | "rate_limits"
            | "last_agent_message"
            | "history_log_id"
            | "history_entry_count"
            | "unified_diff"
    )
}

/// A record. Optional strings are [`Borrowed`]: serde copies an `Option<Cow<str>>`, and
/// `type`, the item's `id`, `type` and `status` are on nearly every line.
#[derive(Deserialize)]
pub(super) struct Line<'a> {
    #[serde(rename = "type", borrow, default)]
    pub(super) kind: Option<Borrowed<'a>>,
    // session files (rollouts)
    #[serde(borrow, default)]
    pub(super) timestamp: Option<Borrowed<'a>>,
    #[serde(default)]
    pub(super) payload: Option<Value>,
    #[serde(borrow, default)]
    pub(super) thread_id: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) session_id: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) item: Option<RawItem<'a>>,
    #[serde(default)]
    pub(super) usage: Option<Value>,
    #[serde(default)]
    pub(super) error: Option<Value>,
    #[serde(default)]
    pub(super) message: Option<Value>,
    #[serde(default)]
    pub(super) status: Option<Value>,
    #[serde(default)]
    pub(super) duration_ms: Option<Value>,
    // legacy
    #[serde(borrow, default)]
    pub(super) msg: Option<Msg<'a>>,
    #[serde(borrow, default)]
    pub(super) model: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) prompt: Option<Borrowed<'a>>,
}

/// An item of the current and interim formats, every type's fields side by side.
#[derive(Deserialize)]
pub(super) struct RawItem<'a> {
    #[serde(borrow, default)]
    pub(super) id: Option<Borrowed<'a>>,
    #[serde(rename = "type", borrow, default)]
    pub(super) kind: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) item_type: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) text: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) message: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) status: Option<Borrowed<'a>>,
    // command_execution
    #[serde(default)]
    pub(super) command: Option<Value>,
    #[serde(borrow, default)]
    pub(super) aggregated_output: Option<Borrowed<'a>>,
    #[serde(default)]
    pub(super) exit_code: Option<i64>,
    // file_change
    #[serde(default)]
    pub(super) changes: Option<Value>,
    // mcp_tool_call, collab_tool_call
    #[serde(borrow, default)]
    pub(super) server: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) tool: Option<Borrowed<'a>>,
    #[serde(default)]
    pub(super) arguments: Option<Value>,
    #[serde(default)]
    pub(super) result: Option<Value>,
    #[serde(default)]
    pub(super) error: Option<Value>,
    #[serde(default)]
    pub(super) sender_thread_id: Option<Value>,
    #[serde(default)]
    pub(super) receiver_thread_ids: Option<Value>,
    #[serde(default)]
    pub(super) prompt: Option<Value>,
    #[serde(default)]
    pub(super) agents_states: Option<Value>,
    // web_search
    #[serde(default)]
    pub(super) query: Option<Value>,
    #[serde(default)]
    pub(super) action: Option<Value>,
    #[serde(default)]
    pub(super) results: Option<Value>,
}

/// A legacy `msg`, every type's fields side by side.
#[derive(Deserialize)]
pub(super) struct Msg<'a> {
    #[serde(rename = "type", borrow)]
    pub(super) kind: Cow<'a, str>,
    #[serde(borrow, default)]
    pub(super) message: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) text: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) session_id: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) model: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) call_id: Option<Borrowed<'a>>,
    #[serde(default)]
    pub(super) command: Option<Value>,
    #[serde(borrow, default)]
    pub(super) cwd: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) stdout: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) stderr: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) aggregated_output: Option<Borrowed<'a>>,
    #[serde(default)]
    pub(super) exit_code: Option<i64>,
    #[serde(default)]
    pub(super) changes: Option<Value>,
    #[serde(default)]
    pub(super) success: Option<bool>,
    #[serde(default)]
    pub(super) invocation: Option<Value>,
    #[serde(default)]
    pub(super) result: Option<Value>,
    #[serde(default)]
    pub(super) query: Option<Value>,
}

/// Codex token counts: `input_tokens` includes `cached_input_tokens`.
#[derive(Deserialize, Clone, Copy, Default)]
pub(super) struct TokenUsage {
    #[serde(default)]
    pub(super) input_tokens: u64,
    #[serde(default)]
    pub(super) cached_input_tokens: u64,
    #[serde(default)]
    pub(super) output_tokens: u64,
    #[serde(default)]
    pub(super) reasoning_output_tokens: u64,
}

impl TokenUsage {
    pub(super) fn read(value: &Value) -> Option<Usage> {
        let usage = TokenUsage::deserialize(value).ok()?;
        Some(Usage {
            input_tokens: usage.input_tokens.saturating_sub(usage.cached_input_tokens),
            output_tokens: usage.output_tokens,
            cache_read_tokens: usage.cached_input_tokens,
            cache_write_tokens: 0,
            reasoning_tokens: usage.reasoning_output_tokens,
        })
    }
}
