//! Claude Code: `claude -p --output-format stream-json --verbose [--include-partial-messages]`.
//!
//! Shapes follow Claude Code 2.1.x (the CLI's own wire schema lists 42 record types).
//! How each record is read:
//!
//! * `assistant`: each line carries one content block of an Anthropic message; the lines of
//!   one message share `message.id` and repeat its usage so far. Blocks: `text` (its
//!   `citations`, and the `citations_delta`s of partial messages, as the block's citations);
//!   `thinking` (signature kept); `redacted_thinking` (a thinking block with `redacted` and
//!   the opaque data as its signature); `tool_use`, plus a `command` block after it when
//!   the tool is `Bash`; `server_tool_use` (a `tool_use` with `server`) and its `*_tool_result`.
//!   Usage is counted once per message id, from the *last* snapshot (the copies grow as the
//!   message streams; summing them, or keeping the first, miscounts).
//! * `user`: tool results (`tool_result`, content a string or a block array, `is_error`),
//!   each checked against the tool calls seen; string or text content is user text.
//! * `stream_event` (`--include-partial-messages`): text, thinking, signature and
//!   `input_json` deltas are assembled per content block. Every block then arrives twice:
//!   as deltas and in a consolidated `assistant` line. Both orders are seen in the wild: the
//!   line before the block's `content_block_stop` (Claude Code 2.1.27x) and after it; it can
//!   also come after `message_stop`, carry one block (2.x) or the whole message, or be
//!   missing. Each block is handed out once, from whichever channel completes it first: at
//!   its stop from the deltas, or at once from a consolidated copy that fits the deltas so
//!   far. Copies are matched with streamed blocks by tool id, by index (a whole-message
//!   line), else by type and content (`MessageBlocks::reconcile`); a line sent twice
//!   (same `uuid`) adds nothing. A copy that differs from its deltas is reported
//!   (`stream-mismatch`, a warning) and the version handed out first is kept. An `error`
//!   event (the API cut the response) is a run error. A message's state ends when the next
//!   message of its scope starts streaming: a copy arriving after that would not be
//!   recognised (Claude Code writes a message's lines before it asks the model again).
//! * `result`: the run's status (`is_error` is the failure flag: an API error is reported
//!   with subtype `success`), stop reason, usage, cost, duration, turns, errors, and the
//!   final answer (`result`, kept as the run's `answer`). The run's usage is the sum of
//!   `modelUsage` over its models: `usage` counts the main loop only, without sub-agents,
//!   sidechains and auxiliary calls (the captures of 2.1.178 show it; the cost includes
//!   them); `usage` is kept verbatim as the raw usage, and is the run's usage when
//!   `modelUsage` is missing (older CLIs). `permission_denials`, `modelUsage`,
//!   `structured_output` (`--json-schema`) and `deferred_tool_use` are kept as passthrough.
//! * `system/model_refusal_fallback` (`retracted_message_uuids`) and an assistant line's
//!   `supersedes`: Claude Code withdrew records it had delivered (a refused reply, retried
//!   on a fallback model). The transcript is written as records come, so their blocks stay;
//!   the withdrawal is reported (`retracted`, a warning) and listed in the run's
//!   `retracted`, by message and tool ids.
//! * `system/init` gives the session, model and CLI version; every other record
//!   (`system/*`, `rate_limit_event`, types added after this was written) is kept as
//!   passthrough metadata, never an error.
//!
//! Sub-agent traffic is interleaved in the same stream and carries `parent_tool_use_id`;
//! it becomes each item's `agent` scope.
//!
//! Claude Code's session-log entries (`~/.claude/projects/…`, what `axt import` reads) carry
//! the same `message` shapes and are read the same way; an entry is known by its camel-case
//! `parentUuid` or `sessionId`, gives the session id, and its `timestamp` is the source time
//! of what it holds. Stream-json stamps only some `user` lines: those are not used, as a run
//! dated partly by the source and partly by the clock would go backwards.
//!
//! The seed's simplified format (`claude-code-transcript-format.txt`) is read too, line by
//! line, mixed with stream-json or alone: `{role, content}` lines are messages; bare
//! `text` and `tool_use` lines are assistant blocks (a call without `id` gets
//! `axt-tool-<n>`, as `axt import` names it); a `tool_result` line (`output`) answers its
//! `tool_use_id`, or, without one, the oldest call still waiting; `error` is a run error;
//! `stop` ends the run (failed if it says `success: false`) and a `result` line
//! (`result`, `success`) completes it. Such lines carry no `session_id` or `uuid`.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt;
use std::hash::{DefaultHasher, Hasher};

use serde::Deserialize;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde_json::Value;

use super::driver::{LineAdapter, LineNormalizer};
use super::framing::{Frame, Record};
use super::json::{JsonParser, Present, RecordShape, to_value};
use super::report::{Fate, Fields, Kind};
use super::tools::{PendingTools, citation_of, citations_of, missing_terminal};
use super::{
    Diagnostic, DiagnosticKind, Item, Normalizer, Options, Output, Provider, Retraction, RunError,
    RunMeta, RunStatus, Source, StopKind, StopReason, Usage,
};
use crate::model::tools::{shell_commands, subagent_name};
use crate::model::{Block, Citation, ContentBlock, Fidelity, Role};

/// Whether the first record of an output looks like Claude Code stream-json, or like the
/// seed's simplified format. The simplified shapes are told from Gemini's `tool_use`,
/// `tool_result` and `error` lines (`tool_name`, `tool_id`, `severity`) and from the
/// `result` lines of Gemini and Copilot (`status`, `sessionId`) by their own fields.
pub(crate) fn claims(first: &Value) -> bool {
    let has = |field: &str| first.get(field).is_some();
    match first.get("type").and_then(Value::as_str) {
        Some("system" | "assistant" | "user" | "result" | "stream_event")
            if has("session_id") || has("message") =>
        {
            true
        }
        None => {
            !has("type")
                && matches!(
                    first.get("role").and_then(Value::as_str),
                    Some("user" | "assistant")
                )
                && has("content")
        }
        Some("text") => first.get("text").is_some_and(Value::is_string),
        Some("tool_use") => has("name") && !has("tool_name"),
        Some("tool_result") => (has("output") || has("tool_use_id")) && !has("tool_id"),
        Some("error") => first.get("error").is_some_and(Value::is_object) && !has("severity"),
        Some("stop") => has("stop_reason"),
        Some("result") => has("success") && !has("subtype") && !has("status") && !has("sessionId"),
        _ => false,
    }
}

/// The Claude normalizer: the shared line driver around this adapter's state.
pub(crate) fn normalizer(options: Options) -> impl Normalizer + Send + use<> {
    let state = State::new();
    LineNormalizer::new(&options, state)
}

impl LineAdapter for State {
    const PROVIDER: Provider = Provider::Claude;

    fn frame(&mut self, parser: &mut JsonParser, frame: Frame<'_>, out: &mut Output) {
        State::frame(self, parser, frame, out);
    }

    fn finish(&mut self, out: &mut Output) {
        State::finish(self, out);
    }

    fn meta(&self) -> &RunMeta {
        &self.meta
    }

    fn meta_mut(&mut self) -> &mut RunMeta {
        &mut self.meta
    }
}

// ---------------------------------------------------------------------------------------
// The record shapes: only the fields the normalizer reads, borrowed where possible.

struct LineShape;
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
    )
}

#[derive(Deserialize)]
struct Line<'a> {
    /// Absent only on the seed format's `{role, content}` lines.
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    subtype: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    session_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    parent_tool_use_id: Option<Cow<'a, str>>,
    // A session-log entry dates itself; stream-json spells its fields in snake case, so an
    // entry is known by `parentUuid` (every message entry has it) or `sessionId`.
    #[serde(rename = "parentUuid", default)]
    parent_uuid: Present,
    #[serde(rename = "sessionId", borrow, default)]
    log_session_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    /// Every line's own id: a line sent twice is recognised by it.
    #[serde(borrow, default)]
    uuid: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    message: Option<Message<'a>>,
    #[serde(borrow, default)]
    event: Option<StreamEvent<'a>>,
    // system/init
    #[serde(borrow, default)]
    model: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    claude_code_version: Option<Cow<'a, str>>,
    // result; `error` also on assistant lines of failed API calls
    #[serde(default)]
    is_error: Option<bool>,
    #[serde(default)]
    result: Option<Value>,
    // Result-line numbers are read leniently (older CLIs wrote `num_turns: -1`): a surprising
    // value must not cost the whole record.
    #[serde(default)]
    duration_ms: Option<Value>,
    #[serde(default)]
    num_turns: Option<Value>,
    #[serde(default)]
    total_cost_usd: Option<Value>,
    #[serde(default)]
    usage: Option<Value>,
    #[serde(borrow, default)]
    stop_reason: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    terminal_reason: Option<Cow<'a, str>>,
    #[serde(default)]
    errors: Option<Value>,
    #[serde(default)]
    api_error_status: Option<Value>,
    #[serde(default)]
    error: Option<Value>,
    // The seed's simplified format (module docs): `{role, content}` lines, and the
    // `success` flag of its `stop` and `result` lines.
    #[serde(borrow, default)]
    role: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<MessageContent<'a>>,
    #[serde(default)]
    success: Option<bool>,
    /// On an assistant line: the `uuid`s of earlier lines it replaces (refusal fallback).
    #[serde(default)]
    supersedes: Option<Value>,
}

#[derive(Deserialize)]
struct Message<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    model: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<MessageContent<'a>>,
    #[serde(default)]
    usage: Option<MessageUsage>,
}

/// `message.content`: a string or an array of blocks.
enum MessageContent<'a> {
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
struct RawBlock<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    thinking: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    signature: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    data: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(default)]
    input: Option<Value>,
    #[serde(borrow, default)]
    tool_use_id: Option<Cow<'a, str>>,
    #[serde(default)]
    content: Option<Value>,
    #[serde(default)]
    is_error: Option<bool>,
    #[serde(default)]
    citations: Option<Value>,
}

#[derive(Deserialize, Clone, Copy, Default)]
struct MessageUsage {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
}

impl MessageUsage {
    fn to_usage(self) -> Usage {
        Usage {
            input_tokens: self.input_tokens.unwrap_or(0),
            output_tokens: self.output_tokens.unwrap_or(0),
            cache_read_tokens: self.cache_read_input_tokens.unwrap_or(0),
            cache_write_tokens: self.cache_creation_input_tokens.unwrap_or(0),
            reasoning_tokens: 0,
        }
    }

    /// A later snapshot of the same message: fields it carries replace earlier ones.
    fn update(&mut self, later: MessageUsage) {
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
struct StreamEvent<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default)]
    index: Option<u64>,
    #[serde(borrow, default)]
    message: Option<Message<'a>>,
    #[serde(borrow, default)]
    content_block: Option<RawBlock<'a>>,
    #[serde(borrow, default)]
    delta: Option<Delta<'a>>,
    #[serde(default)]
    usage: Option<MessageUsage>,
    /// On an `error` event: the API's error object (`{type, message}`).
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct Delta<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    thinking: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    signature: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    partial_json: Option<Cow<'a, str>>,
    /// `citations_delta`: one citation of the text block.
    #[serde(default)]
    citation: Option<Value>,
}

// ---------------------------------------------------------------------------------------
// The state between records.

/// A content block being assembled from stream deltas.
struct OpenBlock {
    kind: String,
    text: String,
    citations: Vec<Citation>,
    signature: String,
    tool_name: String,
    tool_id: String,
    tool_input: Option<Value>,
    partial_json: String,
    /// The whole `content_block` of a kind that has no deltas (a server tool's result, a
    /// kind axt does not know), read at its stop as a consolidated block would be.
    raw: Option<Value>,
    source: Source,
}

/// One content block in canonical form, read from either channel, before it is handed out.
struct Canonical {
    /// The provider's block type.
    kind: String,
    /// The id that names the block on both channels: a call's `id`, a server tool result's
    /// `tool_use_id`.
    identity: Option<String>,
    /// What it becomes (a Bash call also yields its `command`); empty for an unknown kind.
    blocks: Vec<ContentBlock>,
    /// A hash of the first block, to compare the two channels' copies; `None` for an
    /// unknown kind, whose copies are not compared.
    print: Option<u64>,
    /// The provider's block, for a kind with no canonical form: kept in the run metadata.
    unknown: Option<Value>,
}

/// How a streamed block was handed out.
#[derive(Clone, Copy, PartialEq)]
enum Delivered {
    Not,
    /// From its deltas, at its `content_block_stop`.
    ByStream,
    /// From the consolidated copy (its fingerprint, its line) that arrived before the stop.
    ByCopy(Option<u64>, u64),
}

/// A block of a message as its stream events announce it.
struct Slot {
    index: u64,
    kind: String,
    identity: Option<String>,
    /// The deltas so far; `None` once the block stopped.
    open: Option<OpenBlock>,
    /// The fingerprint of what the deltas assembled, once stopped.
    print: Option<u64>,
    delivered: Delivered,
    /// A consolidated copy has been matched with this block, from this line.
    paired: bool,
    paired_line: u64,
    /// Consolidated copies that fit this block so far but may belong to an earlier one, or
    /// that contradict it: held until this block's stop decides (see
    /// [`MessageBlocks::reconcile`]).
    pending: Vec<Pending>,
}

impl Slot {
    /// The fingerprint of what was handed out for this block.
    fn delivered_print(&self) -> Option<u64> {
        match self.delivered {
            Delivered::ByCopy(print, _) => print,
            _ => self.print,
        }
    }
}

struct Pending {
    copy: Canonical,
    source: Source,
    /// The index of the earlier stopped block of the same kind, still without its copy,
    /// whose (differing) copy this may be instead; `None` when the copy already
    /// contradicts this block's deltas.
    fallback: Option<u64>,
}

/// A block of a consolidated line that no stream block accounted for when it arrived.
struct Copy {
    kind: String,
    identity: Option<String>,
    /// Its index in the message, when its line carried the whole message.
    position: Option<u64>,
    print: Option<u64>,
    /// Matched with a stream block since.
    paired: bool,
    line: u64,
    offset: u64,
}

/// The message a stream event belongs to: the provider's id, or, for events that arrive
/// without a `message_start`, the scope they stream in.
#[derive(Clone, PartialEq, Eq)]
enum MessageKey {
    Id(String),
    Unnamed(Option<String>),
}

/// What is known of one assistant message from its two channels: the blocks its stream
/// events announced and the blocks its consolidated lines carried.
struct MessageBlocks {
    key: MessageKey,
    agent: Option<String>,
    /// Blocks announced by stream events, in index order.
    slots: Vec<Slot>,
    /// Consolidated blocks that arrived before their stream block (or that have none).
    copies: Vec<Copy>,
    /// Each consolidated line's `uuid`, with the fingerprints of its blocks: a line sent
    /// twice is recognised by it.
    records: Vec<(String, Vec<Option<u64>>)>,
    /// Stream events were seen for it.
    streamed: bool,
    /// Its `message_stop` was seen: the stream announced every block.
    stopped: bool,
}

/// What to do with a consolidated block.
enum Verdict {
    /// Hand it out now.
    Deliver(Canonical),
    /// Hand it out, and say that the stream, which has ended, never had it.
    Extra(Canonical),
    /// Its block was handed out already.
    Skip,
    /// Its block was handed out already, and this copy differs (the message says how).
    Differs(String),
    /// Held by a stream block until its stop.
    Hold,
}

impl MessageBlocks {
    fn new(key: MessageKey, agent: Option<String>) -> Self {
        MessageBlocks {
            key,
            agent,
            slots: Vec::new(),
            copies: Vec::new(),
            records: Vec::new(),
            streamed: false,
            stopped: false,
        }
    }

    fn id(&self) -> Option<&str> {
        match &self.key {
            MessageKey::Id(id) => Some(id),
            MessageKey::Unnamed(_) => None,
        }
    }

    fn has_open(&self) -> bool {
        self.slots.iter().any(|slot| slot.open.is_some())
    }

    /// "text block 1 of message msg_01…", as diagnostics name a block.
    fn describe(&self, kind: &str, index: u64) -> String {
        match self.id() {
            Some(id) => format!("{kind} block {index} of message {id}"),
            None => format!("{kind} block {index}"),
        }
    }

    fn slot(&mut self, index: u64) -> Option<&mut Slot> {
        self.slots.iter_mut().find(|slot| slot.index == index)
    }

    /// A block starts streaming. A consolidated copy that arrived before it (a line carrying
    /// the whole message, say) is matched now: by id for a tool call, by index for a block
    /// of a whole-message line, else the first unmatched copy of the same type. Returns the
    /// block this one replaces, if its index was started before.
    fn start(&mut self, index: u64, open: OpenBlock, identity: Option<String>) -> Option<Slot> {
        let mut slot = Slot {
            index,
            kind: open.kind.clone(),
            identity,
            open: Some(open),
            print: None,
            delivered: Delivered::Not,
            paired: false,
            paired_line: 0,
            pending: Vec::new(),
        };
        let fits = |c: &Copy| !c.paired && c.kind == slot.kind && c.identity == slot.identity;
        let found = (self.copies.iter())
            .position(|c| fits(c) && c.position == Some(index))
            .or_else(|| {
                (self.copies.iter())
                    .position(|c| fits(c) && (c.position.is_none() || c.identity.is_some()))
            });
        if let Some(copy) = found.map(|at| &mut self.copies[at]) {
            copy.paired = true;
            slot.paired = true;
            slot.paired_line = copy.line;
            slot.delivered = Delivered::ByCopy(copy.print, copy.line);
        }
        let replaced = match self.slots.iter().position(|s| s.index == index) {
            Some(at) => Some(std::mem::replace(&mut self.slots[at], slot)),
            None => {
                let at = self.slots.partition_point(|s| s.index < index);
                self.slots.insert(at, slot);
                None
            }
        };
        self.streamed = true;
        replaced
    }

    /// Matches a consolidated block with what the stream announced, so that each block is
    /// handed out once, from whichever channel completes it first.
    ///
    /// * A block with an id (a tool call, a server tool's result) pairs with the stream
    ///   block of that id.
    /// * Any other block pairs with a stopped stream block of its type and content, else
    ///   is recognised as a repeat of a block already paired, else pairs with the earliest
    ///   stream block of its type still without a copy. When that block has stopped with
    ///   other content, the copy either differs from it or belongs to a later block of the
    ///   same type still streaming (whose own copy never came): if such a block fits the
    ///   copy so far, the copy is held until that block stops and shows which. A copy that
    ///   contradicts the deltas of a block still streaming is held too, so that the block's
    ///   stop, or a copy that fits it, settles it.
    /// * A block the stream has not announced (yet) is handed out at once and paired when
    ///   its stream block starts.
    ///
    /// `position` is the block's place in its line when the line carries several blocks:
    /// such a line is the whole message (so far), its array the message's, and the block
    /// pairs with the stream block of that index. A line of one block says nothing: Claude
    /// Code 2.x sends one line per block, each array starting again at zero.
    ///
    /// A copy that differs from the block it is matched with is reported in `differs`.
    fn reconcile(
        &mut self,
        copy: Canonical,
        source: Source,
        position: Option<u64>,
        differs: &mut Vec<String>,
    ) -> Verdict {
        if copy.identity.is_some() {
            let same = |kind: &str, identity: &Option<String>| {
                kind == copy.kind && *identity == copy.identity
            };
            if let Some(at) = self.slots.iter().position(|s| same(&s.kind, &s.identity)) {
                return self.pair(at, copy, source.line);
            }
            if let Some(earlier) = self.copies.iter().find(|c| same(&c.kind, &c.identity)) {
                let what = format!(
                    "{} {}",
                    copy.kind,
                    earlier.identity.as_deref().unwrap_or("")
                );
                return repeated(earlier.print, &copy, &what);
            }
            return self.extra(copy, source, position);
        }
        let line = source.line;
        if let Some(position) = position {
            match self.slots.iter().position(|s| s.index == position) {
                Some(at) if self.slots[at].kind == copy.kind => {
                    for held in std::mem::take(&mut self.slots[at].pending) {
                        differs.push(self.settle(at, held, false));
                    }
                    return self.pair(at, copy, line);
                }
                Some(_) => {}
                None => return self.extra(copy, source, Some(position)),
            }
        }
        let kind = copy.kind.as_str();
        if let Some(slot) = self.slots.iter_mut().find(|s| {
            !s.paired
                && s.pending.is_empty()
                && s.open.is_none()
                && s.kind == kind
                && s.print == copy.print
        }) {
            slot.paired = true;
            slot.paired_line = source.line;
            return Verdict::Skip;
        }
        // A later line repeating a block already matched (two equal blocks of one line are
        // two blocks).
        if self.streamed
            && (self.slots.iter().any(|s| {
                s.paired
                    && s.paired_line != line
                    && s.kind == kind
                    && s.delivered_print() == copy.print
                    || s.pending.iter().any(|p| {
                        p.source.line != line && p.copy.kind == kind && p.copy.print == copy.print
                    })
            }) || self
                .copies
                .iter()
                .any(|c| c.line != line && c.kind == kind && c.print == copy.print))
        {
            return Verdict::Skip;
        }
        // A block streaming already holds copies; one that fits it waits with them.
        if let Some(at) = self.slots.iter().position(|s| {
            !s.paired
                && !s.pending.is_empty()
                && s.kind == kind
                && s.open.as_ref().is_some_and(|open| compatible(open, &copy))
        }) {
            let fallback = (self.slots.iter())
                .find(|s| !s.paired && s.pending.is_empty() && s.open.is_none() && s.kind == kind)
                .map(|s| s.index);
            self.slots[at].pending.push(Pending {
                copy,
                source,
                fallback,
            });
            return Verdict::Hold;
        }
        let mut waiting = self
            .slots
            .iter()
            .enumerate()
            .filter(|(_, s)| !s.paired && s.pending.is_empty() && s.kind == kind);
        let Some((earliest, slot)) = waiting.next() else {
            return self.extra(copy, source, None);
        };
        if let Some(open) = &slot.open {
            if compatible(open, &copy) {
                return self.pair(earliest, copy, line);
            }
            self.slots[earliest].pending.push(Pending {
                copy,
                source,
                fallback: None,
            });
            return Verdict::Hold;
        }
        let streaming = waiting
            .find(|(_, s)| s.open.as_ref().is_some_and(|open| compatible(open, &copy)))
            .map(|(at, _)| at);
        match streaming {
            Some(at) => {
                let fallback = Some(self.slots[earliest].index);
                self.slots[at].pending.push(Pending {
                    copy,
                    source,
                    fallback,
                });
                Verdict::Hold
            }
            None => self.pair(earliest, copy, line),
        }
    }

    /// Matches `copy` with the stream block at `at`: hands it out if the block is still
    /// streaming and nothing was handed out for it; else compares it with what was.
    fn pair(&mut self, at: usize, copy: Canonical, line: u64) -> Verdict {
        let what = self.describe(&self.slots[at].kind, self.slots[at].index);
        let slot = &mut self.slots[at];
        if slot.paired {
            return repeated(slot.delivered_print(), &copy, &what);
        }
        slot.paired = true;
        slot.paired_line = line;
        if slot.open.is_some() && slot.delivered == Delivered::Not {
            slot.delivered = Delivered::ByCopy(copy.print, line);
            return Verdict::Deliver(copy);
        }
        if slot.delivered_print() == copy.print {
            Verdict::Skip
        } else {
            Verdict::Differs(format!(
                "{what}: its consolidated copy differs from the streamed deltas; the streamed copy, handed out first, was kept"
            ))
        }
    }

    /// A copy held by block `at` is not to be handed out: it is the differing copy of its
    /// fallback, or, without one, of block `at` itself (which is marked as having its copy
    /// when `pair_self`, that is when no other copy is about to be). Says so.
    fn settle(&mut self, at: usize, held: Pending, pair_self: bool) -> String {
        let fallback = held
            .fallback
            .and_then(|index| self.slots.iter().position(|s| s.index == index));
        let owner = fallback.unwrap_or(at);
        if fallback.is_some() || pair_self {
            let slot = &mut self.slots[owner];
            slot.paired = true;
            slot.paired_line = held.source.line;
        }
        format!(
            "{}: its consolidated copy on line {} differs from the streamed deltas; the streamed copy was kept",
            self.describe(&self.slots[owner].kind, self.slots[owner].index),
            held.source.line
        )
    }

    /// A consolidated block no stream block accounts for: a block still to be streamed, or,
    /// once the message stopped, a block the stream never had, or (a block without id or
    /// position, of a type whose streamed blocks all have their copy) a second copy that
    /// differs.
    fn extra(&mut self, copy: Canonical, source: Source, position: Option<u64>) -> Verdict {
        let second = copy.identity.is_none() && position.is_none();
        if self.stopped && second && self.slots.iter().any(|slot| slot.kind == copy.kind) {
            let id = self.id().unwrap_or("");
            return Verdict::Differs(format!(
                "a consolidated {} block of message {id} matches none of its streamed blocks, which all have their copy; the streamed blocks were kept",
                copy.kind
            ));
        }
        self.copies.push(Copy {
            kind: copy.kind.clone(),
            identity: copy.identity.clone(),
            position,
            print: copy.print,
            paired: false,
            line: source.line,
            offset: source.offset,
        });
        if self.stopped {
            Verdict::Extra(copy)
        } else {
            Verdict::Deliver(copy)
        }
    }
}

/// A copy of a block already handed out: nothing to do if it is the same.
fn repeated(first: Option<u64>, copy: &Canonical, what: &str) -> Verdict {
    if first == copy.print {
        Verdict::Skip
    } else {
        Verdict::Differs(format!(
            "{what}: a second consolidated copy differs from the first; the first was kept"
        ))
    }
}

/// Whether a consolidated block can be the finished form of a block still streaming.
fn compatible(open: &OpenBlock, copy: &Canonical) -> bool {
    match copy.blocks.first().map(|block| &block.block) {
        Some(Block::Text { text, .. }) => text.starts_with(&open.text),
        Some(Block::Thinking {
            thinking,
            signature,
            redacted,
        }) => {
            let signature = signature.as_deref().unwrap_or("");
            (*redacted || thinking.starts_with(&open.text))
                && signature.starts_with(&open.signature)
        }
        Some(Block::ToolUse { tool_id, .. }) => *tool_id == open.tool_id,
        _ => true,
    }
}

struct State {
    meta: RunMeta,
    tools: PendingTools,
    /// The last usage snapshot of each message, in first-seen order.
    message_usage: HashMap<String, MessageUsage>,
    message_order: Vec<String>,
    /// The assistant messages whose blocks are being reconciled: the latest of each scope,
    /// and one still streaming when a consolidated line of another message came.
    messages: Vec<MessageBlocks>,
    /// Per sub-agent scope (`None`: main thread), the message its stream events belong to.
    streaming: HashMap<Option<String>, MessageKey>,
    saw_result: bool,
    /// Line number and end offset of the last record, where a missing terminal is reported.
    last_record: (u64, u64),
    /// Usage from the `result` record, which takes precedence over per-message sums.
    result_usage: Option<Usage>,
    /// Tool call ids made up for simplified-format calls that have none.
    made_ids: u64,
    /// The latest assistant and user records, by `uuid`, for a retraction to name.
    recent: Recent,
    /// The `uuid`s already withdrawn: withdrawing one again is nothing new.
    withdrawn: HashSet<String>,
}

/// How many of the latest records a retraction can name. Claude Code withdraws the refused
/// reply of the turn it is in, a handful of records back.
const RECENT_RECORDS: usize = 4096;

/// An assistant or user record, as a retraction names it.
struct RecordNote {
    line: u64,
    message_id: Option<String>,
    tool_ids: Vec<String>,
}

/// The latest records by `uuid`, at most [`RECENT_RECORDS`] of them.
#[derive(Default)]
struct Recent {
    notes: HashMap<String, RecordNote>,
    order: VecDeque<String>,
}

impl Recent {
    fn remember(&mut self, uuid: &str, note: RecordNote) {
        if self.notes.contains_key(uuid) {
            return;
        }
        if self.order.len() == RECENT_RECORDS
            && let Some(oldest) = self.order.pop_front()
        {
            self.notes.remove(&oldest);
        }
        self.order.push_back(uuid.to_owned());
        self.notes.insert(uuid.to_owned(), note);
    }
}

impl State {
    fn new() -> Self {
        State {
            meta: RunMeta::new(Provider::Claude),
            tools: PendingTools::default(),
            message_usage: HashMap::new(),
            message_order: Vec::new(),
            messages: Vec::new(),
            streaming: HashMap::new(),
            saw_result: false,
            last_record: (0, 0),
            result_usage: None,
            made_ids: 0,
            recent: Recent::default(),
            withdrawn: HashSet::new(),
        }
    }

    fn frame(&mut self, parser: &mut JsonParser, frame: Frame<'_>, out: &mut Output) {
        match frame {
            Frame::Record(record) => {
                self.last_record = (record.line, record.offset + record.bytes.len() as u64);
                let Output { items, diagnostics } = out;
                parser.parse::<LineShape>(record, diagnostics, |line, diagnostics| {
                    self.line(line, record, items, diagnostics)
                });
            }
            too_large => out.diagnostics.extend(too_large.too_large()),
        }
    }

    fn line(
        &mut self,
        line: Line<'_>,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Fate {
        if self.meta.session_id.is_none()
            && let Some(session) = line.session_id.as_ref().or(line.log_session_id.as_ref())
        {
            self.meta.session_id = Some(session.to_string());
        }
        // Stream-json stamps only some `user` lines: a run clocked partly by emission and
        // partly by the source would go backwards, so only session-log entries date events.
        if (line.parent_uuid.0 || line.log_session_id.is_some())
            && let Some(time) = &line.timestamp
        {
            self.meta.saw_time(time);
        }
        let agent = line.parent_tool_use_id.as_deref().map(str::to_owned);
        let Some(kind) = line.kind.as_deref() else {
            // The seed's `{role, content}` line: a message without id, usage or scope.
            let message = Message {
                id: None,
                model: None,
                content: line.content,
                usage: None,
            };
            match line.role.as_deref() {
                Some("assistant") => {
                    self.assistant(Some(message), None, None, None, record, items, diagnostics)
                }
                Some("user") => self.user(Some(message), None, None, record, items, diagnostics),
                _ => {
                    diagnostics.push(shape(
                        record,
                        "a record with no `type` and no `role` of user or assistant",
                    ));
                    return Fate::Skipped;
                }
            }
            return Fate::Mapped;
        };
        match (kind, line.subtype.as_deref()) {
            ("assistant", _) => {
                if let Some(uuids) = &line.supersedes {
                    let by = "the assistant record on this line, which supersedes them,";
                    self.retract(uuids, by, record, diagnostics);
                }
                let uuid = line.uuid.as_deref();
                self.assistant(
                    line.message,
                    line.error,
                    uuid,
                    agent,
                    record,
                    items,
                    diagnostics,
                )
            }
            ("user", _) => {
                let uuid = line.uuid.as_deref();
                self.user(line.message, uuid, agent, record, items, diagnostics)
            }
            ("stream_event", _) => self.stream_event(line, agent, record, items, diagnostics),
            ("result", _) => self.result(line, record),
            ("text" | "tool_use" | "tool_result" | "error" | "stop", None)
                if line.session_id.is_none() && line.uuid.is_none() =>
            {
                self.simplified(
                    kind,
                    line.stop_reason.as_deref(),
                    line.success,
                    record,
                    items,
                    diagnostics,
                )
            }
            ("system", Some("init")) => {
                if let Some(version) = &line.claude_code_version {
                    self.meta.provider_version = Some(version.to_string());
                }
                if self.meta.model.is_none() {
                    self.meta.model = line.model.as_deref().map(str::to_owned);
                }
                self.passthrough(record, "system/init");
                return Fate::Mapped;
            }
            ("system", Some("model_refusal_fallback")) => {
                let raw = to_value(record.bytes);
                let field = |name: &str| raw.get(name).and_then(Value::as_str).unwrap_or("?");
                let mut by = format!(
                    "the model refusal fallback on this line ({} -> {}, {}",
                    field("original_model"),
                    field("fallback_model"),
                    field("direction")
                );
                if let Some(category) = raw.get("api_refusal_category").and_then(Value::as_str) {
                    by.push_str(&format!(", category {category}"));
                }
                by.push(')');
                if let Some(uuids) = raw.get("retracted_message_uuids") {
                    self.retract(uuids, &by, record, diagnostics);
                }
                self.keep(record, "system/model_refusal_fallback", raw);
            }
            ("system", Some("api_retry")) => {
                let raw = to_value(record.bytes);
                let message = match raw.get("error") {
                    Some(Value::String(text)) => format!("API retry: {text}"),
                    Some(other) => format!("API retry: {other}"),
                    None => "API retry".to_owned(),
                };
                self.meta.errors.push(RunError {
                    message,
                    fatal: false,
                    line: record.line,
                });
                self.keep(record, "system/api_retry", raw);
            }
            (kind, subtype) => {
                let kind = match subtype {
                    Some(subtype) => format!("{kind}/{subtype}"),
                    None => kind.to_owned(),
                };
                self.passthrough(record, &kind);
                return Fate::Passthrough;
            }
        }
        Fate::Mapped
    }

    fn passthrough(&mut self, record: Record<'_>, kind: &str) {
        self.keep(record, kind, to_value(record.bytes));
    }

    fn keep(&mut self, record: Record<'_>, kind: &str, raw: Value) {
        self.meta.keep(record.line, kind, || raw);
    }

    /// An assistant message: its `error` (a failed API call) and its line's `uuid` apart.
    #[allow(clippy::too_many_arguments)]
    fn assistant(
        &mut self,
        message: Option<Message<'_>>,
        error: Option<Value>,
        uuid: Option<&str>,
        agent: Option<String>,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let Some(message) = message else {
            diagnostics.push(shape(record, "an assistant record without `message`"));
            return;
        };
        let message_id = message.id.as_deref().map(str::to_owned);
        if let Some(model) = message.model.as_deref().filter(|m| *m != "<synthetic>") {
            self.meta.model = Some(model.to_owned());
        }
        if let (Some(id), Some(usage)) = (&message_id, message.usage) {
            self.usage_snapshot(id, usage);
        }
        let error = error.map(|error| {
            let error = match error {
                Value::String(text) => text,
                other => other.to_string(),
            };
            let text = match &message.content {
                Some(MessageContent::Blocks(blocks)) => {
                    blocks.iter().find_map(|b| b.text.as_deref())
                }
                Some(MessageContent::Text(text)) => Some(&**text),
                None => None,
            };
            match text {
                Some(text) => format!("{error}: {text}"),
                None => error,
            }
        });
        let source = Source::record(record.line, record.offset);
        let blocks: Vec<Canonical> = match message.content {
            Some(MessageContent::Blocks(blocks)) => blocks
                .into_iter()
                .enumerate()
                .map(|(position, raw)| canonical(raw, || content_value(record, position)))
                .collect(),
            Some(MessageContent::Text(text)) => vec![Canonical {
                kind: "text".to_owned(),
                identity: None,
                print: None,
                blocks: vec![ContentBlock::text(Fidelity::AgentEmitted, text)],
                unknown: None,
            }],
            None => Vec::new(),
        };
        if let Some(uuid) = uuid {
            let tool_ids = (blocks.iter())
                .filter(|block| block.kind.ends_with("tool_use"))
                .filter_map(|block| block.identity.clone())
                .collect();
            let note = RecordNote {
                line: record.line,
                message_id: message_id.clone(),
                tool_ids,
            };
            self.recent.remember(uuid, note);
        }
        let Some(id) = message_id.clone() else {
            // Without a message id nothing can be matched with this line: it is all new.
            self.run_error(error, record);
            for block in blocks {
                self.deliver(
                    block,
                    Role::Assistant,
                    &None,
                    &agent,
                    source,
                    items,
                    diagnostics,
                );
            }
            return;
        };
        let at = self.message_at(MessageKey::Id(id), &agent, false, items, diagnostics);
        let message = &mut self.messages[at];
        if let Some(uuid) = uuid {
            if let Some((_, first)) = message.records.iter().find(|(seen, _)| seen == uuid) {
                // The same record again: it adds nothing, unless it differs.
                for block in blocks.iter().filter(|b| !first.contains(&b.print)) {
                    diagnostics.push(Diagnostic::new(
                        DiagnosticKind::StreamMismatch,
                        record.line,
                        record.offset,
                        format!(
                            "record {uuid} of message {} came again with a different {} block; the first copy was kept",
                            message.id().unwrap_or(""),
                            block.kind
                        ),
                    ));
                }
                return;
            }
            let prints = blocks.iter().map(|block| block.print).collect();
            message.records.push((uuid.to_owned(), prints));
        }
        self.run_error(error, record);
        let mut differs = Vec::new();
        let whole = blocks.len() > 1;
        for (position, block) in blocks.into_iter().enumerate() {
            let position = whole.then_some(position as u64);
            let verdict = self.messages[at].reconcile(block, source, position, &mut differs);
            for text in differs.drain(..) {
                diagnostics.push(Diagnostic::new(
                    DiagnosticKind::StreamMismatch,
                    record.line,
                    record.offset,
                    text,
                ));
            }
            match verdict {
                Verdict::Deliver(block) => self.deliver(
                    block,
                    Role::Assistant,
                    &message_id,
                    &agent,
                    source,
                    items,
                    diagnostics,
                ),
                Verdict::Extra(block) => {
                    diagnostics.push(Diagnostic::new(
                        DiagnosticKind::StreamMismatch,
                        record.line,
                        record.offset,
                        format!(
                            "a consolidated {} block of message {} has no streamed counterpart (its stream had ended); kept",
                            block.kind,
                            message_id.as_deref().unwrap_or("")
                        ),
                    ));
                    self.deliver(
                        block,
                        Role::Assistant,
                        &message_id,
                        &agent,
                        source,
                        items,
                        diagnostics,
                    );
                }
                Verdict::Differs(text) => diagnostics.push(Diagnostic::new(
                    DiagnosticKind::StreamMismatch,
                    record.line,
                    record.offset,
                    text,
                )),
                Verdict::Skip | Verdict::Hold => {}
            }
        }
    }

    /// The provider withdrew the records with these `uuid`s, which it had delivered (`by`
    /// says how): they are listed in the run's `retracted` and reported once. Their blocks
    /// stay in the transcript: it was written as they came.
    fn retract(
        &mut self,
        uuids: &Value,
        by: &str,
        record: Record<'_>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let Some(uuids) = uuids.as_array() else {
            return;
        };
        let mut lines = Vec::new();
        let mut ids: Vec<String> = Vec::new();
        let mut unseen = 0;
        for uuid in uuids.iter().filter_map(Value::as_str) {
            if !self.withdrawn.insert(uuid.to_owned()) {
                continue;
            }
            let Some(note) = self.recent.notes.remove(uuid) else {
                unseen += 1;
                continue;
            };
            lines.push(note.line.to_string());
            for id in note.message_id.iter().chain(&note.tool_ids) {
                if !ids.contains(id) {
                    ids.push(id.clone());
                }
            }
            self.meta.retracted.push(Retraction {
                line: note.line,
                by_line: record.line,
                message_id: note.message_id,
                tool_ids: note.tool_ids,
            });
        }
        if lines.is_empty() && unseen == 0 {
            return;
        }
        let mut message = format!("{by} withdraws output already delivered");
        if !lines.is_empty() {
            message.push_str(&format!(
                ": the records on lines {} ({}); their blocks stay in the transcript, listed in the run's `retracted`",
                lines.join(", "),
                ids.join(", ")
            ));
        }
        if unseen > 0 {
            let then = if lines.is_empty() { ": " } else { "; and " };
            message.push_str(&format!("{then}{unseen} record(s) not in this output"));
        }
        diagnostics.push(Diagnostic::new(
            DiagnosticKind::Retracted,
            record.line,
            record.offset,
            message,
        ));
    }

    fn run_error(&mut self, error: Option<String>, record: Record<'_>) {
        if let Some(message) = error {
            self.meta.errors.push(RunError {
                message,
                fatal: false,
                line: record.line,
            });
        }
    }

    /// The state of message `key`, made if new. A message that starts streaming ends the
    /// other messages of its scope (what they still stream is handed out as incomplete); a
    /// consolidated line ends those with nothing streaming. Claude Code writes a message's
    /// consolidated lines before it asks the model again, so an ended message gets none.
    fn message_at(
        &mut self,
        key: MessageKey,
        agent: &Option<String>,
        starts: bool,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> usize {
        let mut at = 0;
        while at < self.messages.len() {
            let message = &self.messages[at];
            if message.key != key && message.agent == *agent && (starts || !message.has_open()) {
                let ended = self.messages.remove(at);
                self.end_message(ended, "its message ended", items, diagnostics);
            } else {
                at += 1;
            }
        }
        match self.messages.iter().position(|m| m.key == key) {
            Some(at) => at,
            None => {
                self.messages.push(MessageBlocks::new(key, agent.clone()));
                self.messages.len() - 1
            }
        }
    }

    /// Hands out a block read from either channel: its items, the tool call it opens or
    /// the server tool call it answers, or, for an unknown kind, a diagnostic and the block
    /// kept in the metadata.
    #[allow(clippy::too_many_arguments)]
    fn deliver(
        &mut self,
        block: Canonical,
        role: Role,
        message_id: &Option<String>,
        agent: &Option<String>,
        source: Source,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        if let Some(raw) = block.unknown {
            diagnostics.push(Diagnostic::new(
                DiagnosticKind::UnknownBlockType,
                source.line,
                source.offset,
                format!(
                    "content block type {:?} has no canonical form; kept in the run metadata",
                    block.kind
                ),
            ));
            self.meta
                .keep(source.line, &format!("block/{}", block.kind), || raw);
            return;
        }
        for content in block.blocks {
            match &content.block {
                Block::ToolUse {
                    tool_id, tool_name, ..
                } => {
                    self.tools
                        .open(tool_id, tool_name, source.line, source.offset);
                }
                Block::ToolResult { tool_id, .. } => {
                    self.tools
                        .answer(tool_id, source.line, source.offset, diagnostics);
                }
                _ => {}
            }
            let subagent = subagent_of(&content);
            items.push(Item {
                block: content,
                role: role.clone(),
                message_id: message_id.clone(),
                agent: agent.clone(),
                subagent,
                source,
                time: None,
            });
        }
    }

    fn user(
        &mut self,
        message: Option<Message<'_>>,
        uuid: Option<&str>,
        agent: Option<String>,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let Some(message) = message else {
            diagnostics.push(shape(record, "a user record without `message`"));
            return;
        };
        if let Some(uuid) = uuid {
            let tool_ids = match &message.content {
                Some(MessageContent::Blocks(blocks)) => (blocks.iter())
                    .filter_map(|block| block.tool_use_id.as_deref().map(str::to_owned))
                    .collect(),
                _ => Vec::new(),
            };
            let note = RecordNote {
                line: record.line,
                message_id: message.id.as_deref().map(str::to_owned),
                tool_ids,
            };
            self.recent.remember(uuid, note);
        }
        let message_id = message.id.as_deref().map(str::to_owned);
        let source = Source::record(record.line, record.offset);
        let blocks = match message.content {
            Some(MessageContent::Text(text)) => {
                let block = ContentBlock::text(Fidelity::AgentEmitted, text);
                items.push(Item {
                    block,
                    role: Role::User,
                    message_id,
                    agent,
                    subagent: None,
                    source,
                    time: None,
                });
                return;
            }
            Some(MessageContent::Blocks(blocks)) => blocks,
            None => Vec::new(),
        };
        for (position, raw) in blocks.into_iter().enumerate() {
            let block = match &*raw.kind {
                "tool_result" => Block::ToolResult {
                    tool_id: raw.tool_use_id.map(Cow::into_owned).unwrap_or_default(),
                    tool_content: raw.content.unwrap_or(Value::Null),
                    is_error: raw.is_error.unwrap_or(false),
                    exit_code: None,
                },
                "text" => Block::Text {
                    text: raw.text.map(Cow::into_owned).unwrap_or_default(),
                    citations: Vec::new(),
                },
                _ => {
                    let kind = raw.kind.into_owned();
                    let unknown = Canonical {
                        unknown: Some(content_value(record, position)),
                        kind,
                        identity: None,
                        blocks: Vec::new(),
                        print: None,
                    };
                    self.deliver(
                        unknown,
                        Role::User,
                        &message_id,
                        &agent,
                        source,
                        items,
                        diagnostics,
                    );
                    continue;
                }
            };
            let block = Canonical {
                kind: String::new(),
                identity: None,
                blocks: vec![ContentBlock::new(Fidelity::AgentEmitted, block)],
                print: None,
                unknown: None,
            };
            self.deliver(
                block,
                Role::User,
                &message_id,
                &agent,
                source,
                items,
                diagnostics,
            );
        }
    }

    fn stream_event(
        &mut self,
        line: Line<'_>,
        agent: Option<String>,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let Some(event) = line.event else {
            diagnostics.push(shape(record, "a stream_event record without `event`"));
            return;
        };
        if event.kind == "message_start" {
            let Some(message) = event.message else { return };
            if let Some(model) = message.model.as_deref().filter(|m| *m != "<synthetic>") {
                self.meta.model = Some(model.to_owned());
            }
            let key = match message.id.as_deref() {
                Some(id) => {
                    if let Some(usage) = message.usage {
                        self.usage_snapshot(id, usage);
                    }
                    MessageKey::Id(id.to_owned())
                }
                None => MessageKey::Unnamed(agent.clone()),
            };
            let at = self.message_at(key.clone(), &agent, true, items, diagnostics);
            self.messages[at].streamed = true;
            self.streaming.insert(agent, key);
            return;
        }
        let key = self
            .streaming
            .get(&agent)
            .cloned()
            .unwrap_or_else(|| MessageKey::Unnamed(agent.clone()));
        let at = match self.messages.iter().position(|m| m.key == key) {
            Some(at) => at,
            None => {
                self.messages
                    .push(MessageBlocks::new(key.clone(), agent.clone()));
                self.messages.len() - 1
            }
        };
        let message_id = self.messages[at].id().map(str::to_owned);
        match &*event.kind {
            "content_block_start" => {
                let (Some(index), Some(raw)) = (event.index, event.content_block) else {
                    return;
                };
                let identity = block_identity(&raw);
                let delta_kind = matches!(
                    &*raw.kind,
                    "text" | "thinking" | "redacted_thinking" | "tool_use" | "server_tool_use"
                );
                let open = OpenBlock {
                    citations: citations_of(raw.citations.as_ref()),
                    kind: raw.kind.into_owned(),
                    text: raw
                        .text
                        .or(raw.thinking)
                        .map(Cow::into_owned)
                        .unwrap_or_default(),
                    signature: raw
                        .signature
                        .or(raw.data)
                        .map(Cow::into_owned)
                        .unwrap_or_default(),
                    tool_name: raw.name.map(Cow::into_owned).unwrap_or_default(),
                    tool_id: raw.id.map(Cow::into_owned).unwrap_or_default(),
                    tool_input: raw.input.filter(|input| !is_empty_object(input)),
                    partial_json: String::new(),
                    raw: (!delta_kind).then(|| {
                        to_value(record.bytes)
                            .pointer("/event/content_block")
                            .cloned()
                            .unwrap_or(Value::Null)
                    }),
                    source: Source::record(record.line, record.offset),
                };
                if let Some(replaced) = self.messages[at].start(index, open, identity) {
                    let message = MessageBlocks {
                        slots: vec![replaced],
                        ..MessageBlocks::new(key, agent)
                    };
                    self.end_message(message, "it was started again", items, diagnostics);
                }
            }
            "content_block_delta" => {
                let (Some(index), Some(delta)) = (event.index, event.delta) else {
                    return;
                };
                let Some(open) = self.messages[at]
                    .slot(index)
                    .and_then(|slot| slot.open.as_mut())
                else {
                    diagnostics.push(shape(
                        record,
                        &format!("a content_block_delta for block {index}, which is not streaming"),
                    ));
                    return;
                };
                open.source.end_line = record.line;
                match delta.kind.as_deref() {
                    Some("text_delta") => open.text.push_str(delta.text.as_deref().unwrap_or("")),
                    Some("thinking_delta") => {
                        open.text.push_str(delta.thinking.as_deref().unwrap_or(""))
                    }
                    Some("signature_delta") => open
                        .signature
                        .push_str(delta.signature.as_deref().unwrap_or("")),
                    Some("input_json_delta") => open
                        .partial_json
                        .push_str(delta.partial_json.as_deref().unwrap_or("")),
                    Some("citations_delta") => {
                        open.citations
                            .extend(delta.citation.as_ref().and_then(|c| citation_of(c, 0)));
                    }
                    _ => {}
                }
            }
            "content_block_stop" => {
                let Some(index) = event.index else { return };
                let message = &mut self.messages[at];
                let Some(slot) = message.slot(index) else {
                    return;
                };
                let Some(mut open) = slot.open.take() else {
                    return;
                };
                open.source.end_line = record.line;
                let source = open.source;
                let (block, invalid_input) = close_block(open, false);
                slot.print = block.print;
                let mut pending = std::mem::take(&mut slot.pending);
                let delivered = slot.delivered;
                let kind = slot.kind.clone();
                let what = message.describe(&kind, index);
                let mut differs = Vec::new();
                let deliver = match delivered {
                    _ if !pending.is_empty() => {
                        // The held copies: the one equal to the deltas is this block's; the
                        // others differ from their fallback, or from this block.
                        let at = (message.slots.iter())
                            .position(|s| s.index == index)
                            .expect("the slot is there");
                        if let Some(equal) =
                            pending.iter().position(|p| p.copy.print == block.print)
                        {
                            let line = pending.remove(equal).source.line;
                            message.slots[at].paired = true;
                            message.slots[at].paired_line = line;
                        }
                        for held in pending {
                            differs.push(message.settle(at, held, true));
                        }
                        true
                    }
                    Delivered::ByCopy(print, line) => {
                        if print != block.print {
                            differs.push(format!(
                                "{what}: the streamed deltas differ from its consolidated copy on line {line}; the consolidated copy, handed out first, was kept"
                            ));
                        }
                        false
                    }
                    _ => true,
                };
                if deliver {
                    let slot = message.slot(index).expect("the slot is there");
                    slot.delivered = Delivered::ByStream;
                    if let Some(error) = invalid_input {
                        diagnostics.push(Diagnostic::new(
                            DiagnosticKind::InvalidJson,
                            record.line,
                            record.offset,
                            format!("{what}: streamed input is not valid JSON ({error}); kept as a string"),
                        ));
                    }
                }
                for text in differs {
                    diagnostics.push(Diagnostic::new(
                        DiagnosticKind::StreamMismatch,
                        record.line,
                        record.offset,
                        text,
                    ));
                }
                if deliver {
                    self.deliver(
                        block,
                        Role::Assistant,
                        &message_id,
                        &agent,
                        source,
                        items,
                        diagnostics,
                    );
                }
            }
            "message_delta" => {
                if let (Some(id), Some(usage)) = (message_id, event.usage) {
                    self.usage_snapshot(&id, usage);
                }
            }
            // The API's `error` event: the response was cut (what it had streamed is handed out
            // when the next message starts, or the input ends).
            "error" => {
                let error = match &event.error {
                    Some(Value::Object(fields)) => {
                        let field = |name| fields.get(name).and_then(Value::as_str);
                        let kind = field("type").unwrap_or("error");
                        format!("stream error: {kind}: {}", field("message").unwrap_or(""))
                    }
                    Some(other) => format!("stream error: {other}"),
                    None => "stream error".to_owned(),
                };
                self.run_error(Some(error), record);
            }
            "message_stop" => {
                let message = &mut self.messages[at];
                message.stopped = true;
                let id = message.id().unwrap_or("").to_owned();
                for copy in message.copies.iter().filter(|c| !c.paired) {
                    diagnostics.push(Diagnostic::new(
                        DiagnosticKind::StreamMismatch,
                        copy.line,
                        copy.offset,
                        format!(
                            "the consolidated {} block of message {id} on line {} has no streamed counterpart; kept",
                            copy.kind, copy.line
                        ),
                    ));
                }
            }
            _ => {}
        }
    }

    /// A message is over (another started in its scope, or the input ended): blocks still
    /// streaming are handed out as far as they arrived, unless a consolidated copy already
    /// gave them whole.
    fn end_message(
        &mut self,
        mut message: MessageBlocks,
        why: &str,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let message_id = message.id().map(str::to_owned);
        for at in 0..message.slots.len() {
            let Some(open) = message.slots[at].open.take() else {
                continue;
            };
            let what = message.describe(&message.slots[at].kind, message.slots[at].index);
            let mut held = std::mem::take(&mut message.slots[at].pending);
            // The stream was cut inside a block that a held copy gives whole.
            let whole = (held.iter().position(|p| compatible(&open, &p.copy)))
                .map(|fits| held.remove(fits));
            for other in held {
                let (line, offset) = (other.source.line, other.source.offset);
                let text = message.settle(at, other, whole.is_none());
                diagnostics.push(Diagnostic::new(
                    DiagnosticKind::StreamMismatch,
                    line,
                    offset,
                    text,
                ));
            }
            if let Some(Pending { copy, source, .. }) = whole {
                let agent = message.agent.clone();
                self.deliver(
                    copy,
                    Role::Assistant,
                    &message_id,
                    &agent,
                    source,
                    items,
                    diagnostics,
                );
                continue;
            }
            if let Delivered::ByCopy(..) = message.slots[at].delivered {
                continue;
            }
            let source = open.source;
            diagnostics.push(Diagnostic::new(
                DiagnosticKind::IncompleteBlock,
                source.line,
                source.offset,
                format!("{what} was still streaming when {why}; kept as far as it arrived"),
            ));
            let (block, _) = close_block(open, true);
            let agent = message.agent.clone();
            self.deliver(
                block,
                Role::Assistant,
                &message_id,
                &agent,
                source,
                items,
                diagnostics,
            );
        }
    }

    /// A line of the seed's simplified format: `text`, `tool_use`, `tool_result` (its
    /// `output`; without `tool_use_id` it answers the oldest call waiting), `error` (kept as
    /// a run error) and `stop` (a terminal record: the run completed, or failed when it says
    /// `success: false`). Rare and small, so read from the record's JSON tree.
    fn simplified(
        &mut self,
        kind: &str,
        stop: Option<&str>,
        success: Option<bool>,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let raw = to_value(record.bytes);
        let source = Source::record(record.line, record.offset);
        let string = |field: &str| {
            raw.get(field)
                .and_then(Value::as_str)
                .filter(|text| !text.is_empty())
                .map(str::to_owned)
        };
        let (block, role) = match kind {
            "text" => {
                let text = raw.get("text").and_then(Value::as_str).unwrap_or("");
                let text = vec![Block::Text {
                    text: text.to_owned(),
                    citations: Vec::new(),
                }];
                (made(kind.to_owned(), None, text), Role::Assistant)
            }
            "tool_use" => {
                let tool_id = string("id").unwrap_or_else(|| {
                    self.made_ids += 1;
                    format!("axt-tool-{}", self.made_ids)
                });
                let input = raw
                    .get("input")
                    .cloned()
                    .unwrap_or_else(|| Value::Object(Default::default()));
                let name = string("name").unwrap_or_default();
                let blocks = tool_blocks(name, tool_id.clone(), input, false, false);
                (
                    made(kind.to_owned(), Some(tool_id), blocks),
                    Role::Assistant,
                )
            }
            "tool_result" => {
                let tool_id = string("tool_use_id")
                    .or_else(|| self.tools.oldest_waiting())
                    .unwrap_or_default();
                let result = vec![Block::ToolResult {
                    tool_id,
                    tool_content: raw
                        .get("output")
                        .or(raw.get("content"))
                        .cloned()
                        .unwrap_or(Value::Null),
                    is_error: raw
                        .get("is_error")
                        .and_then(Value::as_bool)
                        .unwrap_or(false),
                    exit_code: None,
                }];
                (made(kind.to_owned(), None, result), Role::User)
            }
            "error" => {
                let message = match raw.get("error") {
                    Some(Value::Object(fields)) => {
                        let field = |name| fields.get(name).and_then(Value::as_str);
                        format!(
                            "{}: {}",
                            field("type").unwrap_or("error"),
                            field("message").unwrap_or("")
                        )
                    }
                    Some(Value::String(text)) => text.clone(),
                    Some(other) => other.to_string(),
                    None => "error".to_owned(),
                };
                self.run_error(Some(message), record);
                return;
            }
            _ => {
                self.saw_result = true;
                if let Some(reason) = stop_reason("", None, stop, false) {
                    self.meta.stop_reason = Some(reason);
                }
                if success == Some(false) {
                    self.meta.status = RunStatus::Failed;
                    self.meta.errors.push(RunError {
                        message: format!(
                            "the agent stopped ({}) reporting success: false",
                            stop.unwrap_or("no stop reason")
                        ),
                        fatal: true,
                        line: record.line,
                    });
                } else if self.meta.status == RunStatus::Incomplete {
                    self.meta.status = RunStatus::Completed;
                }
                return;
            }
        };
        self.deliver(block, role, &None, &None, source, items, diagnostics);
    }

    fn result(&mut self, line: Line<'_>, record: Record<'_>) {
        self.saw_result = true;
        let subtype = line.subtype.as_deref().unwrap_or("");
        // A simplified-format `stop` with `success: false` before this result failed the run.
        let failed_before = self.meta.status == RunStatus::Failed;
        let failed = line.is_error.unwrap_or(false)
            || (!subtype.is_empty() && subtype != "success")
            || line.success == Some(false)
            || failed_before;
        self.meta.status = if failed {
            RunStatus::Failed
        } else {
            RunStatus::Completed
        };
        if let Some(session) = &line.session_id {
            self.meta.session_id = Some(session.to_string());
        }
        let number = |value: &Option<Value>| value.as_ref().and_then(Value::as_f64);
        if let Some(ms) = number(&line.duration_ms).filter(|ms| *ms >= 0.0) {
            self.meta.duration_ms = Some(ms as u64);
        }
        if let Some(turns) = line.num_turns.as_ref().and_then(Value::as_i64) {
            self.meta.num_turns = Some(turns);
        }
        self.meta.cost_usd = number(&line.total_cost_usd).or(self.meta.cost_usd);
        if let Some(usage) = line.usage {
            if let Ok(parsed) = serde_json::from_value::<MessageUsage>(usage.clone()) {
                self.result_usage = Some(parsed.to_usage());
            }
            self.meta.raw_usage = Some(usage);
        }
        if let Some(reason) = stop_reason(
            subtype,
            line.terminal_reason.as_deref(),
            line.stop_reason.as_deref(),
            failed && line.api_error_status.is_some(),
        ) {
            self.meta.stop_reason = Some(reason);
        }
        if !failed && let Some(Value::String(text)) = &line.result {
            self.meta.answer = Some(text.clone()).filter(|text| !text.is_empty());
        }
        if failed {
            let mut message = match &line.result {
                Some(Value::String(text)) if !text.is_empty() => text.clone(),
                _ => String::new(),
            };
            if let Some(Value::Array(errors)) = &line.errors {
                for error in errors {
                    let error = match error {
                        Value::String(text) => text.clone(),
                        other => other.to_string(),
                    };
                    if !message.is_empty() {
                        message.push_str("; ");
                    }
                    message.push_str(&error);
                }
            }
            if let Some(status) = line.api_error_status.as_ref().filter(|s| !s.is_null()) {
                message = format!("API error status {status}: {message}");
            }
            if message.is_empty() && !subtype.is_empty() {
                message = format!("run ended with {subtype}");
            } else if message.is_empty() && line.success == Some(false) {
                message = "the run reported success: false".to_owned();
            }
            // Empty only when an earlier `stop` line failed the run, and said why.
            if !message.is_empty() {
                self.meta.errors.push(RunError {
                    message: message.trim_end_matches(": ").to_owned(),
                    fatal: true,
                    line: record.line,
                });
            }
        }
        let raw = to_value(record.bytes);
        if let Some(denials) = raw
            .get("permission_denials")
            .filter(|d| d.as_array().is_some_and(|a| !a.is_empty()))
        {
            self.keep(record, "result/permission_denials", denials.clone());
        }
        // The answer of a `--json-schema` run, and the call a run ended on because a hook
        // deferred it: data, not telemetry, and in no other record.
        for field in ["structured_output", "deferred_tool_use"] {
            if let Some(value) = raw.get(field).filter(|value| !value.is_null()) {
                self.keep(record, &format!("result/{field}"), value.clone());
            }
        }
        if let Some(model_usage) = raw.get("modelUsage") {
            if self.meta.model.is_none() {
                self.meta.model = model_usage
                    .as_object()
                    .and_then(|m| m.keys().next().cloned());
            }
            // `usage` counts the main loop only; sub-agents, sidechains and auxiliary
            // calls (all in the cost) are in `modelUsage` alone.
            if let Some(total) = model_usage_total(model_usage) {
                self.result_usage = Some(total);
            }
            self.keep(record, "result/modelUsage", model_usage.clone());
        }
    }

    fn usage_snapshot(&mut self, message_id: &str, usage: MessageUsage) {
        match self.message_usage.get_mut(message_id) {
            Some(last) => last.update(usage),
            None => {
                self.message_order.push(message_id.to_owned());
                self.message_usage.insert(message_id.to_owned(), usage);
            }
        }
    }

    fn finish(&mut self, out: &mut Output) {
        for message in std::mem::take(&mut self.messages) {
            self.end_message(
                message,
                "the input ended",
                &mut out.items,
                &mut out.diagnostics,
            );
        }
        self.tools.report_dangling(&mut out.diagnostics);
        self.meta.usage = match self.result_usage {
            Some(usage) => usage,
            None => {
                let mut total = Usage::default();
                for id in &self.message_order {
                    total.add(&self.message_usage[id].to_usage());
                }
                total
            }
        };
        if !self.saw_result {
            let (line, offset) = self.last_record;
            out.diagnostics
                .push(missing_terminal(line, offset, "a result record"));
        }
    }
}

// ---------------------------------------------------------------------------------------
// Blocks in canonical form: pure, so that a copy can be compared before it is handed out.

/// The id that names a block on both channels: a call's `id`, a server result's
/// `tool_use_id`.
fn block_identity(raw: &RawBlock<'_>) -> Option<String> {
    raw.id
        .as_deref()
        .or(raw.tool_use_id.as_deref())
        .filter(|id| !id.is_empty())
        .map(str::to_owned)
}

/// The content block at `position` of a record's message, for keeping an unknown kind.
fn content_value(record: Record<'_>, position: usize) -> Value {
    let raw = to_value(record.bytes);
    raw.pointer(&format!("/message/content/{position}"))
        .cloned()
        .unwrap_or(raw)
}

/// One Anthropic block in canonical form (a Bash call also yields its command);
/// `unknown` gives the provider's block when its kind has no canonical form.
fn canonical(raw: RawBlock<'_>, unknown: impl FnOnce() -> Value) -> Canonical {
    let owned = |text: Option<Cow<'_, str>>| text.map(Cow::into_owned).unwrap_or_default();
    let identity = block_identity(&raw);
    let kind = raw.kind.into_owned();
    let blocks = match kind.as_str() {
        "text" => vec![Block::Text {
            text: owned(raw.text),
            citations: citations_of(raw.citations.as_ref()),
        }],
        "thinking" => vec![Block::Thinking {
            thinking: owned(raw.thinking),
            signature: raw.signature.map(Cow::into_owned).filter(|s| !s.is_empty()),
            redacted: false,
        }],
        "redacted_thinking" => vec![Block::Thinking {
            thinking: String::new(),
            signature: raw.data.map(Cow::into_owned).filter(|s| !s.is_empty()),
            redacted: true,
        }],
        "tool_use" | "server_tool_use" => tool_blocks(
            owned(raw.name),
            owned(raw.id),
            raw.input.unwrap_or(Value::Null),
            kind == "server_tool_use",
            false,
        ),
        // The results of server tools arrive inside the assistant message
        // (`web_search_tool_result`, `web_fetch_tool_result`, ...).
        result if result.ends_with("_tool_result") && raw.tool_use_id.is_some() => {
            let is_error = raw.is_error.unwrap_or(false) || is_error_content(raw.content.as_ref());
            vec![Block::ToolResult {
                tool_id: owned(raw.tool_use_id),
                tool_content: raw.content.unwrap_or(Value::Null),
                is_error,
                exit_code: None,
            }]
        }
        _ => {
            return Canonical {
                kind,
                identity,
                blocks: Vec::new(),
                print: None,
                unknown: Some(unknown()),
            };
        }
    };
    made(kind, identity, blocks)
}

/// A tool call, and the `command` blocks of a shell call whose arguments are complete.
fn tool_blocks(
    tool_name: String,
    tool_id: String,
    tool_input: Value,
    server: bool,
    incomplete: bool,
) -> Vec<Block> {
    let commands = shell_commands(&tool_name, &tool_input)
        .into_iter()
        .filter(|_| !incomplete)
        .map(|command| Block::Command {
            command,
            tool_id: Some(tool_id.clone()).filter(|id| !id.is_empty()),
        })
        .collect::<Vec<_>>();
    let tool_use = Block::ToolUse {
        tool_name,
        tool_id,
        tool_input,
        server,
        incomplete,
    };
    std::iter::once(tool_use).chain(commands).collect()
}

fn made(kind: String, identity: Option<String>, blocks: Vec<Block>) -> Canonical {
    let blocks: Vec<ContentBlock> = blocks
        .into_iter()
        .map(|block| ContentBlock::new(Fidelity::AgentEmitted, block))
        .collect();
    Canonical {
        print: blocks.first().map(fingerprint),
        kind,
        identity,
        blocks,
        unknown: None,
    }
}

/// A block assembled from its deltas, in canonical form; `cut` when the input ended first.
/// The second value is why streamed tool arguments are not valid JSON, when they are not.
fn close_block(open: OpenBlock, cut: bool) -> (Canonical, Option<String>) {
    let identity = Some(open.tool_id.clone()).filter(|id| !id.is_empty());
    let blocks = match open.kind.as_str() {
        "text" => vec![Block::Text {
            text: open.text,
            citations: open.citations,
        }],
        "thinking" => vec![Block::Thinking {
            thinking: open.text,
            signature: Some(open.signature).filter(|s| !s.is_empty()),
            redacted: false,
        }],
        "redacted_thinking" => vec![Block::Thinking {
            thinking: String::new(),
            signature: Some(open.signature).filter(|s| !s.is_empty()),
            redacted: true,
        }],
        "tool_use" | "server_tool_use" => {
            let mut invalid = None;
            let (tool_input, incomplete) = if open.partial_json.is_empty() {
                let input = open
                    .tool_input
                    .unwrap_or_else(|| Value::Object(Default::default()));
                (input, cut)
            } else {
                match serde_json::from_str::<Value>(&open.partial_json) {
                    Ok(input) => (input, cut),
                    Err(error) => {
                        if !cut {
                            invalid = Some(error.to_string());
                        }
                        (Value::String(open.partial_json), true)
                    }
                }
            };
            let server = open.kind == "server_tool_use";
            let blocks = tool_blocks(open.tool_name, open.tool_id, tool_input, server, incomplete);
            return (made(open.kind, identity, blocks), invalid);
        }
        _ => {
            let raw = open.raw.unwrap_or(Value::Null);
            let block = match RawBlock::deserialize(&raw) {
                Ok(block) => canonical(block, || raw.clone()),
                Err(_) => Canonical {
                    kind: open.kind,
                    identity: None,
                    blocks: Vec::new(),
                    print: None,
                    unknown: Some(raw.clone()),
                },
            };
            return (block, None);
        }
    };
    (made(open.kind, identity, blocks), None)
}

/// The tokens of every model a run called, from `result.modelUsage` (`{model: {inputTokens,
/// outputTokens, cacheReadInputTokens, cacheCreationInputTokens, ...}}`); `None` when it has
/// no model with token counts.
fn model_usage_total(model_usage: &Value) -> Option<Usage> {
    let mut total = None::<Usage>;
    for counts in model_usage.as_object()?.values() {
        let count = |field: &str| counts.get(field).and_then(Value::as_u64);
        let (Some(input), Some(output)) = (count("inputTokens"), count("outputTokens")) else {
            continue;
        };
        total.get_or_insert_with(Usage::default).add(&Usage {
            input_tokens: input,
            output_tokens: output,
            cache_read_tokens: count("cacheReadInputTokens").unwrap_or(0),
            cache_write_tokens: count("cacheCreationInputTokens").unwrap_or(0),
            reasoning_tokens: 0,
        });
    }
    total
}

/// The sub-agent a `Task` / `Agent` call starts, by the name its input gives.
fn subagent_of(content: &ContentBlock) -> Option<String> {
    match &content.block {
        Block::ToolUse {
            tool_name,
            tool_input,
            ..
        } => subagent_name(tool_name, tool_input).map(str::to_owned),
        _ => None,
    }
}

/// A hash of a block's wire form: equal blocks, equal prints.
fn fingerprint(block: &ContentBlock) -> u64 {
    struct Sink(DefaultHasher);
    impl std::io::Write for Sink {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.write(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut sink = Sink(DefaultHasher::new());
    // Serializing a block into a hasher cannot fail: nothing is written anywhere.
    let _ = serde_json::to_writer(&mut sink, block);
    sink.0.finish()
}

fn shape(record: Record<'_>, what: &str) -> Diagnostic {
    Diagnostic::new(
        DiagnosticKind::UnexpectedShape,
        record.line,
        record.offset,
        format!("{what}, skipped"),
    )
}

fn is_empty_object(value: &Value) -> bool {
    value.as_object().is_some_and(|object| object.is_empty())
}

/// Server tool results report failure as content of type `*_error`.
fn is_error_content(content: Option<&Value>) -> bool {
    content
        .and_then(|c| c.get("type"))
        .and_then(Value::as_str)
        .is_some_and(|kind| kind.ends_with("_error"))
}

fn stop_reason(
    subtype: &str,
    terminal_reason: Option<&str>,
    stop_reason: Option<&str>,
    api_error: bool,
) -> Option<StopReason> {
    let reason = |kind, raw: &str| {
        Some(StopReason {
            kind,
            raw: raw.to_owned(),
        })
    };
    if subtype == "error_max_turns" {
        return reason(StopKind::MaxTurns, terminal_reason.unwrap_or(subtype));
    }
    match terminal_reason {
        Some(raw @ "max_turns") => return reason(StopKind::MaxTurns, raw),
        Some(raw) if raw.starts_with("aborted") => return reason(StopKind::Aborted, raw),
        _ => {}
    }
    if api_error {
        return reason(
            StopKind::Error,
            stop_reason.or(terminal_reason).unwrap_or(subtype),
        );
    }
    if let Some(raw) = stop_reason {
        let kind = match raw {
            "end_turn" => StopKind::EndTurn,
            "tool_use" => StopKind::ToolUse,
            "max_tokens" | "model_context_window_exceeded" => StopKind::MaxTokens,
            "stop_sequence" => StopKind::StopSequence,
            "refusal" => StopKind::Refusal,
            _ => StopKind::Other,
        };
        return reason(kind, raw);
    }
    match subtype {
        "" | "success" => terminal_reason.map(|raw| StopReason {
            kind: if raw == "completed" {
                StopKind::EndTurn
            } else {
                StopKind::Other
            },
            raw: raw.to_owned(),
        }),
        "error_during_execution" => reason(StopKind::Error, subtype),
        other => reason(StopKind::Other, other),
    }
}

#[cfg(test)]
mod tests {
    use super::claims;
    use crate::normalize::{Options, Provider, Retraction, normalize_lossy};
    use serde_json::json;

    #[test]
    fn an_assistant_line_that_supersedes_earlier_ones_is_reported_once() {
        let assistant = |id: &str, uuid: &str, text: &str, supersedes: &[&str]| {
            json!({"type": "assistant", "message": {"id": id, "role": "assistant",
                "content": [{"type": "text", "text": text}]},
                "session_id": "s", "uuid": uuid, "supersedes": supersedes})
        };
        let user = json!({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "[withdrawn]"}]},
            "session_id": "s", "uuid": "u-2"});
        let lines = [
            assistant("msg_a", "u-1", "Refused half", &[]),
            user,
            assistant("msg_b", "u-3", "The retry", &["u-1", "u-2", "u-0"]),
            assistant("msg_b", "u-4", "More of the retry", &["u-1"]),
        ];
        let input: String = lines.iter().map(|line| format!("{line}\n")).collect();
        let normalized = normalize_lossy(Provider::Claude, input.as_bytes(), Options::default());
        let reports: Vec<String> = (normalized.diagnostics.iter())
            .filter(|d| d.kind.as_str() == "retracted")
            .map(ToString::to_string)
            .collect();
        let offset = lines[0].to_string().len() + lines[1].to_string().len() + 2;
        assert_eq!(
            reports,
            [format!(
                "line 3 (byte {offset}): warning[retracted]: the assistant record on this line, which supersedes them, withdraws output already delivered: the records on lines 1, 2 (msg_a, toolu_1); their blocks stay in the transcript, listed in the run's `retracted`; and 1 record(s) not in this output"
            )]
        );
        assert_eq!(
            normalized.meta.retracted,
            [
                Retraction {
                    line: 1,
                    by_line: 3,
                    message_id: Some("msg_a".into()),
                    tool_ids: vec![],
                },
                Retraction {
                    line: 2,
                    by_line: 3,
                    message_id: None,
                    tool_ids: vec!["toolu_1".into()],
                },
            ]
        );
    }

    #[test]
    fn the_seed_format_is_claimed_and_its_look_alikes_are_not() {
        let seed = [
            json!({"role": "user", "content": "Fix the bug in auth.ts"}),
            json!({"type": "text", "text": "I'll analyze the auth module..."}),
            json!({"type": "tool_use", "name": "Read", "input": {"file_path": "/src/auth.ts"}}),
            json!({"type": "tool_result", "output": "[file contents]", "is_error": false}),
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
            json!({"type": "stop", "stop_reason": "end_turn"}),
            json!({"type": "result", "result": "Task completed successfully", "success": true}),
        ];
        for line in &seed {
            assert!(claims(line), "{line}");
        }
        let others = [
            // Gemini CLI stream-json
            json!({"type": "tool_use", "timestamp": "2026-01-01T00:00:00Z", "tool_name": "read_file", "tool_id": "t1", "parameters": {}}),
            json!({"type": "tool_result", "timestamp": "2026-01-01T00:00:00Z", "tool_id": "t1", "status": "success", "output": "x"}),
            json!({"type": "error", "timestamp": "2026-01-01T00:00:00Z", "severity": "error", "message": "quota"}),
            json!({"type": "result", "timestamp": "2026-01-01T00:00:00Z", "status": "success"}),
            // Copilot CLI
            json!({"type": "result", "sessionId": "s", "exitCode": 0, "success": true}),
            // Codex exec --json
            json!({"type": "error", "message": "stream disconnected"}),
            // A transcript event
            json!({"seq": 1, "run_id": "r", "type": "run.started", "path": ""}),
        ];
        for line in &others {
            assert!(!claims(line), "{line}");
        }
    }
}
