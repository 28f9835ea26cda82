//! The record shapes: only the fields the normalizer reads, borrowed where possible, and
//! the tables of the fields it knows and leaves out on purpose (the rest are reported).
//!
//! This room owns the wire's vocabulary. It holds no state and hands out nothing.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde_json::Value;

use crate::normalize::Usage;
use crate::normalize::json::{Present, RecordShape};
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
fn known_field(field: &str) -> bool {
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

fn known_user_field(field: &str) -> bool {
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

#[derive(Deserialize)]
pub(super) struct Line<'a> {
    /// Absent only on the seed format's `{role, content}` lines.
    #[serde(rename = "type", borrow, default)]
    pub(super) kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) subtype: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) session_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) parent_tool_use_id: Option<Cow<'a, str>>,
    // A session-log entry dates itself; stream-json spells its fields in snake case, so an
    // entry is known by `parentUuid` (every message entry has it) or `sessionId`.
    #[serde(rename = "parentUuid", default)]
    pub(super) parent_uuid: Present,
    #[serde(rename = "sessionId", borrow, default)]
    pub(super) log_session_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) timestamp: Option<Cow<'a, str>>,
    /// Cursor's partial output: an assistant line with it is a delta (see `family`).
    #[serde(default)]
    pub(super) timestamp_ms: Present,
    /// Every line's own id: a line sent twice is recognised by it.
    #[serde(borrow, default)]
    pub(super) uuid: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) message: Option<Message<'a>>,
    #[serde(borrow, default)]
    pub(super) event: Option<StreamEvent<'a>>,
    // system/init
    #[serde(borrow, default)]
    pub(super) model: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) claude_code_version: Option<Cow<'a, str>>,
    // result; `error` also on assistant lines of failed API calls
    #[serde(default)]
    pub(super) is_error: Option<bool>,
    #[serde(default)]
    pub(super) result: Option<Value>,
    // Result-line numbers are read leniently (older CLIs wrote `num_turns: -1`): a surprising
    // value must not cost the whole record.
    #[serde(default)]
    pub(super) duration_ms: Option<Value>,
    #[serde(default)]
    pub(super) num_turns: Option<Value>,
    #[serde(default)]
    pub(super) total_cost_usd: Option<Value>,
    #[serde(default)]
    pub(super) usage: Option<Value>,
    #[serde(borrow, default)]
    pub(super) stop_reason: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) terminal_reason: Option<Cow<'a, str>>,
    #[serde(default)]
    pub(super) errors: Option<Value>,
    #[serde(default)]
    pub(super) api_error_status: Option<Value>,
    #[serde(default)]
    pub(super) error: Option<Value>,
    // The seed's simplified format (module docs): `{role, content}` lines, and the
    // `success` flag of its `stop` and `result` lines.
    #[serde(borrow, default)]
    pub(super) role: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) content: Option<MessageContent<'a>>,
    #[serde(default)]
    pub(super) success: Option<bool>,
    /// On an assistant line: the `uuid`s of earlier lines it replaces (refusal fallback).
    #[serde(default)]
    pub(super) supersedes: Option<Value>,
}

#[derive(Deserialize)]
pub(super) struct Message<'a> {
    #[serde(borrow, default)]
    pub(super) id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) model: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) content: Option<MessageContent<'a>>,
    #[serde(default)]
    pub(super) usage: Option<MessageUsage>,
}

/// `message.content`: a string or an array of blocks.
pub(super) enum MessageContent<'a> {
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

/// One Anthropic content block, every type's fields side by side.
#[derive(Deserialize)]
pub(super) struct RawBlock<'a> {
    #[serde(rename = "type", borrow)]
    pub(super) kind: Cow<'a, str>,
    #[serde(borrow, default)]
    pub(super) text: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) thinking: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) signature: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) data: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) name: Option<Cow<'a, str>>,
    #[serde(default)]
    pub(super) input: Option<Value>,
    #[serde(borrow, default)]
    pub(super) tool_use_id: Option<Cow<'a, str>>,
    #[serde(default)]
    pub(super) content: Option<Value>,
    #[serde(default)]
    pub(super) is_error: Option<bool>,
    #[serde(default)]
    pub(super) citations: Option<Value>,
}

#[derive(Deserialize, Clone, Copy, Default)]
pub(super) struct MessageUsage {
    // The camel-case names are Cursor's `result.usage`; `prompt_tokens` and
    // `completion_tokens` Letta Code's (see `family`).
    #[serde(default, alias = "inputTokens", alias = "prompt_tokens")]
    pub(super) input_tokens: Option<u64>,
    #[serde(default, alias = "outputTokens", alias = "completion_tokens")]
    pub(super) output_tokens: Option<u64>,
    #[serde(default, alias = "cacheWriteTokens")]
    cache_creation_input_tokens: Option<u64>,
    #[serde(default, alias = "cacheReadTokens")]
    cache_read_input_tokens: Option<u64>,
}

impl MessageUsage {
    pub(super) fn to_usage(self) -> Usage {
        Usage {
            input_tokens: self.input_tokens.unwrap_or(0),
            output_tokens: self.output_tokens.unwrap_or(0),
            cache_read_tokens: self.cache_read_input_tokens.unwrap_or(0),
            cache_write_tokens: self.cache_creation_input_tokens.unwrap_or(0),
            reasoning_tokens: 0,
        }
    }

    /// A later snapshot of the same message: fields it carries replace earlier ones.
    pub(super) fn update(&mut self, later: MessageUsage) {
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

#[derive(Deserialize)]
pub(super) struct StreamEvent<'a> {
    #[serde(rename = "type", borrow)]
    pub(super) kind: Cow<'a, str>,
    #[serde(default)]
    pub(super) index: Option<u64>,
    #[serde(borrow, default)]
    pub(super) message: Option<Message<'a>>,
    #[serde(borrow, default)]
    pub(super) content_block: Option<RawBlock<'a>>,
    #[serde(borrow, default)]
    pub(super) delta: Option<Delta<'a>>,
    #[serde(default)]
    pub(super) usage: Option<MessageUsage>,
    /// On an `error` event: the API's error object (`{type, message}`).
    #[serde(default)]
    pub(super) error: Option<Value>,
}

#[derive(Deserialize)]
pub(super) struct Delta<'a> {
    #[serde(rename = "type", borrow, default)]
    pub(super) kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) text: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) thinking: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) signature: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) partial_json: Option<Cow<'a, str>>,
    /// `citations_delta`: one citation of the text block.
    #[serde(default)]
    pub(super) citation: Option<Value>,
}
