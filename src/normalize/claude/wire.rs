//! The record shapes: only the fields the normalizer reads, borrowed where possible, and
//! the tables of the fields it knows and leaves out on purpose (the rest are reported). The
//! messages and stream events the lines wrap are the Messages API's (`messages_api`).
//!
//! This file owns the lines' vocabulary. It holds no state and hands out nothing.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;

use crate::normalize::json::{Borrowed, Present, RecordShape};
use crate::normalize::messages_api::{Message, MessageContent, StreamEvent};
use crate::normalize::report::{Fields, Kind};

pub(super) struct LineShape;
impl RecordShape for LineShape {
    type Of<'a> = Line<'a>;

    fn kind<'v>(line: &'v Line<'_>) -> Kind<'v> {
        let subtype = match &line.event {
            Some(event) => Some(&*event.kind),
            None => line.subtype.as_deref(),
        };
        // The seed format's `{role, content}` lines have no type.
        (line.kind.as_deref().unwrap_or("{role, content}"), subtype)
    }

    fn fields(kind: Kind<'_>) -> Option<Fields> {
        let known: fn(&str) -> bool = match kind {
            ("assistant", _) => |f| known_field(f) || known_assistant_field(f),
            ("user", _) => |f| known_field(f) || known_user_field(f),
            ("result", _) => |f| known_field(f) || known_result_field(f),
            ("stream_event", _) => |f| known_field(f) || matches!(f, "event" | "ttft_ms"),
            ("system", Some("init")) => |f| known_field(f) || known_init_field(f),
            ("system", Some("api_retry")) => |f| {
                known_field(f)
                    || matches!(f, "attempt" | "error" | "error_status" | "max_retries")
                    || f == "retry_delay_ms"
            },
            _ => return None,
        };
        Some(Fields {
            within: None,
            known,
        })
    }
}

// The fields Claude Code writes on the records this adapter reads: the CLI's 2.1.x wire
// schema (42 record types, `shared/captures/claude-stream-json/wire-types-snapshot.txt`) and
// the session-log entry fields of provider-formats.md §1.e. Those not read are metadata the
// adapter leaves out on purpose (uuids, attribution, UI flags, timings).

/// Fields of every record, stream-json and session log.
pub(super) fn known_field(field: &str) -> bool {
    matches!(
        field,
        "type" | "subtype" | "uuid" | "session_id" | "parent_tool_use_id" | "timestamp"
            // Session-log entries.
            | "parentUuid" | "logicalParentUuid" | "isSidechain" | "userType" | "cwd"
            | "sessionId" | "version" | "gitBranch" | "agentId" | "slug" | "entrypoint"
            | "teamName" | "isMeta" | "requestId" | "toolUseResult" | "sourceToolUseID"
            | "isCompactSummary" | "isVisibleInTranscriptOnly" | "thinkingMetadata" | "todos"
            | "isApiErrorMessage" | "level" | "content" | "compactMetadata"
            // The family's (see `family`): Cursor's, Letta Code's.
            | "timestamp_ms" | "model_call_id" | "request_id" | "agent_id" | "conversation_id"
    )
}

fn known_assistant_field(field: &str) -> bool {
    matches!(
        field,
        "message"
            | "request_id"
            | "error"
            | "aborted"
            | "advisor_model"
            | "api_error"
            | "api_error_status"
            | "attribution_agent"
            | "attribution_mcp_server"
            | "attribution_mcp_tool"
            | "attribution_plugin"
            | "attribution_skill"
            | "error_details"
            | "is_api_error_message"
            | "is_meta"
            | "is_virtual"
            | "resumed_from_incomplete_thinking"
            | "subagent_type"
            | "supersedes"
            | "task_description"
            | "tool_use_meta"
    )
}

pub(super) fn known_user_field(field: &str) -> bool {
    matches!(
        field,
        "message"
            | "tool_use_result"
            | "client_platform"
            | "image_paste_ids"
            | "inbound_origin"
            | "interrupted_message_id"
            | "isSynthetic"
            | "is_compact_summary"
            | "is_meta"
            | "is_virtual"
            | "is_visible_in_transcript_only"
            | "mcp_meta"
            | "origin"
            | "permission_mode"
            | "plan_content"
            | "priority"
            | "shouldQuery"
            | "source_tool_assistant_uuid"
            | "source_tool_use_id"
            | "summarize_metadata"
            | "tool_result_meta"
            | "subagent_type"
            | "task_description"
    )
}

fn known_result_field(field: &str) -> bool {
    matches!(
        field,
        "is_error"
            | "result"
            | "duration_ms"
            | "duration_api_ms"
            | "num_turns"
            | "total_cost_usd"
            | "usage"
            | "modelUsage"
            // Which result of its process this is, from 0 (2.1.27x).
            | "result_index"
            | "stop_reason"
            | "terminal_reason"
            | "errors"
            | "api_error_status"
            | "permission_denials"
            | "fast_mode_state"
            | "fast_mode_disabled_reason"
            | "origin"
            | "deferred_tool_use"
            | "request_sent_wall_ms"
            | "structured_output"
            | "time_origin_ms"
            | "time_to_request_from_spawn_ms"
            | "time_to_request_ms"
            | "ttft_ms"
            | "ttft_stream_ms"
            | "user_message_uuid"
            | "warm_spare_claimed"
            | "stop_details"
    )
}

fn known_init_field(field: &str) -> bool {
    matches!(
        field,
        "model"
            | "claude_code_version"
            | "agents"
            | "analytics_disabled"
            | "apiKeySource"
            | "betas"
            | "capabilities"
            | "cwd"
            | "fast_mode_disabled_reason"
            | "fast_mode_state"
            | "mcp_server_errors"
            | "mcp_servers"
            | "memory_paths"
            | "output_style"
            | "permissionMode"
            | "plugin_errors"
            | "plugin_warnings"
            | "plugins"
            | "product_feedback_disabled"
            | "skills"
            | "slash_commands"
            | "tools"
            // The family's (see `family`): Qwen Code's, Letta Code's.
            | "qwen_code_version"
            | "permission_mode"
            | "letta_code_version"
    )
}

/// A record. Its optional strings are `Borrowed`: serde copies an `Option<Cow<str>>`
/// (see [`Borrowed`]), and `type`, `session_id` and `uuid` are on every line, most of them
/// short `stream_event` lines.
///
/// Its JSON values, read only from the few result, error and retraction records, are boxed
/// (8 bytes each, not 32): the struct is copied whole each time it moves, on every line
/// (848 bytes with the stream event's rare members boxed too, 1,584 before; 392 with the
/// message, the seed's content and the stream event boxed as well).
#[derive(Deserialize)]
pub(super) struct Line<'a> {
    /// Absent only on the seed format's `{role, content}` lines.
    #[serde(rename = "type", borrow, default)]
    pub(super) kind: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) subtype: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) session_id: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) parent_tool_use_id: Option<Borrowed<'a>>,
    // A session-log entry dates itself; stream-json spells its fields in snake case, so an
    // entry is known by `parentUuid` (every message entry has it) or `sessionId`.
    #[serde(rename = "parentUuid", default)]
    pub(super) parent_uuid: Present,
    #[serde(rename = "sessionId", borrow, default)]
    pub(super) log_session_id: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) timestamp: Option<Stamp<'a>>,
    /// Cursor's partial output: an assistant line with it is a delta (see `family`).
    #[serde(default)]
    pub(super) timestamp_ms: Present,
    /// Cursor's model call: an assistant line with it is a whole segment repeated, never a
    /// delta, even beside `timestamp_ms` (see `family`).
    #[serde(default)]
    pub(super) model_call_id: Present,
    /// Every line's own id: a line sent twice is recognised by it.
    #[serde(borrow, default)]
    pub(super) uuid: Option<Borrowed<'a>>,
    /// Boxed, as only assistant and user lines have it (168 bytes inline, on every line).
    #[serde(borrow, default)]
    pub(super) message: Option<Box<Message<'a>>>,
    /// Boxed too, though most lines of a partial-messages stream have one: an allocation
    /// costs less than moving its 224 bytes with the line each time the line moves.
    #[serde(borrow, default)]
    pub(super) event: Option<Box<StreamEvent<'a>>>,
    // system/init
    #[serde(borrow, default)]
    pub(super) model: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) claude_code_version: Option<Borrowed<'a>>,
    // result; `error` also on assistant lines of failed API calls
    #[serde(default)]
    pub(super) is_error: Option<bool>,
    #[serde(default)]
    pub(super) result: Option<Box<Value>>,
    // Result-line numbers are read leniently (older CLIs wrote `num_turns: -1`): a surprising
    // value must not cost the whole record.
    #[serde(default)]
    pub(super) duration_ms: Option<Box<Value>>,
    #[serde(default)]
    pub(super) num_turns: Option<Box<Value>>,
    #[serde(default)]
    pub(super) total_cost_usd: Option<Box<Value>>,
    #[serde(default)]
    pub(super) usage: Option<Box<Value>>,
    #[serde(borrow, default)]
    pub(super) stop_reason: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) terminal_reason: Option<Borrowed<'a>>,
    #[serde(default)]
    pub(super) errors: Option<Box<Value>>,
    #[serde(default)]
    pub(super) api_error_status: Option<Box<Value>>,
    #[serde(default)]
    pub(super) error: Option<Box<Value>>,
    // The seed's simplified format (module docs): `{role, content}` lines, and the
    // `success` flag of its `stop` and `result` lines.
    #[serde(borrow, default)]
    pub(super) role: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) content: Option<Box<MessageContent<'a>>>,
    #[serde(default)]
    pub(super) success: Option<bool>,
    /// On an assistant line: the `uuid`s of earlier lines it replaces (refusal fallback).
    #[serde(default)]
    pub(super) supersedes: Option<Box<Value>>,
}

/// A record's `timestamp`: Claude Code's session-log entries write an ISO time, Factory
/// Droid's records Unix milliseconds (see `family`), which stream-json does not date by.
pub(super) enum Stamp<'a> {
    Text(Cow<'a, str>),
    Millis,
}

impl<'de: 'a, 'a> Deserialize<'de> for Stamp<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Stamp<'de>;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a time: a string, or Unix milliseconds")
            }

            fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(Stamp::Text(Cow::Borrowed(text)))
            }

            fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
                Ok(Stamp::Text(Cow::Owned(text.to_owned())))
            }

            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Stamp::Millis)
            }
        }
        deserializer.deserialize_any(Visit)
    }
}
