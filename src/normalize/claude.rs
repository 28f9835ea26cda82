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
//!   `input_json` deltas are assembled per content block and the block is handed out at its
//!   `content_block_stop`, before the consolidated `assistant` line that repeats it; that
//!   line is then recognised (message id and block index) and not delivered twice.
//! * `result`: the run's status (`is_error` is the failure flag: an API error is reported
//!   with subtype `success`), stop reason, usage (authoritative for the run), cost,
//!   duration, turns, errors.
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

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde_json::Value;

use super::driver::{LineAdapter, LineNormalizer};
use super::framing::{Frame, Record};
use super::json::{JsonParser, Present, RecordShape, to_value};
use super::report::{Fate, Fields, Kind};
use super::tools::{PendingTools, citation_of, citations_of, missing_terminal};
use super::{
    Diagnostic, DiagnosticKind, Item, Normalizer, Options, Output, Provider, RunError, RunMeta,
    RunStatus, Source, StopKind, StopReason, Usage,
};
use crate::model::{Block, Citation, ContentBlock, Fidelity, Role};

/// Whether the first record of an output looks like Claude Code stream-json.
pub(crate) fn claims(first: &Value) -> bool {
    let kind = first.get("type").and_then(Value::as_str).unwrap_or("");
    matches!(
        kind,
        "system" | "assistant" | "user" | "result" | "stream_event"
    ) && (first.get("session_id").is_some() || first.get("message").is_some())
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
        (&line.kind, subtype)
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
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
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
    source: Source,
}

/// Which blocks of one message were already handed out from stream deltas, and how many of
/// its consolidated lines have been seen.
#[derive(Default)]
struct StreamedMessage {
    streamed: HashMap<u64, ContentBlock>,
    consolidated: u64,
}

/// One sub-agent scope (or the main thread) of a partial-message stream.
#[derive(Default)]
struct Scope {
    message_id: Option<String>,
    open: HashMap<u64, OpenBlock>,
}

struct State {
    meta: RunMeta,
    tools: PendingTools,
    /// The last usage snapshot of each message, in first-seen order.
    message_usage: HashMap<String, MessageUsage>,
    message_order: Vec<String>,
    /// Per message id, what stream deltas already delivered.
    streamed: HashMap<String, StreamedMessage>,
    /// Per sub-agent scope (`None`: main thread), the blocks being streamed.
    scopes: HashMap<Option<String>, Scope>,
    saw_result: bool,
    /// Line number and end offset of the last record, where a missing terminal is reported.
    last_record: (u64, u64),
    /// Usage from the `result` record, which takes precedence over per-message sums.
    result_usage: Option<Usage>,
}

impl State {
    fn new() -> Self {
        State {
            meta: RunMeta::new(Provider::Claude),
            tools: PendingTools::default(),
            message_usage: HashMap::new(),
            message_order: Vec::new(),
            streamed: HashMap::new(),
            scopes: HashMap::new(),
            saw_result: false,
            last_record: (0, 0),
            result_usage: None,
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
        match (&*line.kind, line.subtype.as_deref()) {
            ("assistant", _) => self.assistant(line, agent, record, items, diagnostics),
            ("user", _) => self.user(line, agent, record, items, diagnostics),
            ("stream_event", _) => self.stream_event(line, agent, record, items, diagnostics),
            ("result", _) => self.result(line, record),
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

    fn assistant(
        &mut self,
        line: Line<'_>,
        agent: Option<String>,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let Some(message) = line.message else {
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
        if let Some(error) = line.error {
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
            let message = match text {
                Some(text) => format!("{error}: {text}"),
                None => error,
            };
            self.meta.errors.push(RunError {
                message,
                fatal: false,
                line: record.line,
            });
        }
        let blocks = match message.content {
            Some(MessageContent::Blocks(blocks)) => blocks,
            Some(MessageContent::Text(text)) => {
                let block = ContentBlock::text(Fidelity::AgentEmitted, text);
                items.push(self.item(block, Role::Assistant, &message_id, &agent, record));
                return;
            }
            None => Vec::new(),
        };
        for (position, raw) in blocks.into_iter().enumerate() {
            // With partial messages, each block was already assembled from its deltas.
            if let Some(id) = &message_id
                && let Some(streamed) = self.streamed.get_mut(id)
            {
                let index = streamed.consolidated;
                streamed.consolidated += 1;
                if let Some(earlier) = streamed.streamed.remove(&index) {
                    let consolidated = self.convert(raw, record, position, diagnostics);
                    if consolidated.first().map(|item| &item.0) != Some(&earlier) {
                        diagnostics.push(Diagnostic::new(
                            DiagnosticKind::StreamMismatch,
                            record.line,
                            record.offset,
                            format!(
                                "block {index} of message {id} differs from its streamed deltas; the streamed copy was kept"
                            ),
                        ));
                    }
                    continue;
                }
            }
            for (block, role) in self.convert(raw, record, position, diagnostics) {
                items.push(self.item(block, role, &message_id, &agent, record));
            }
        }
    }

    /// One Anthropic block to canonical blocks (a Bash call also yields its command).
    fn convert(
        &mut self,
        raw: RawBlock<'_>,
        record: Record<'_>,
        position: usize,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Vec<(ContentBlock, Role)> {
        let fidelity = Fidelity::AgentEmitted;
        let owned = |text: Option<Cow<'_, str>>| text.map(Cow::into_owned).unwrap_or_default();
        let block = match &*raw.kind {
            "text" => Block::Text {
                text: owned(raw.text),
                citations: citations_of(raw.citations.as_ref()),
            },
            "thinking" => Block::Thinking {
                thinking: owned(raw.thinking),
                signature: raw.signature.map(Cow::into_owned).filter(|s| !s.is_empty()),
                redacted: false,
            },
            "redacted_thinking" => Block::Thinking {
                thinking: String::new(),
                signature: raw.data.map(Cow::into_owned).filter(|s| !s.is_empty()),
                redacted: true,
            },
            "tool_use" | "server_tool_use" => {
                let server = raw.kind == "server_tool_use";
                let tool_name = owned(raw.name);
                let tool_id = owned(raw.id);
                let tool_input = raw.input.unwrap_or(Value::Null);
                self.register_tool(&tool_id, &tool_name, record);
                let command =
                    shell_command(&tool_name, &tool_input).map(|command| Block::Command {
                        command,
                        tool_id: Some(tool_id.clone()).filter(|id| !id.is_empty()),
                    });
                let tool_use = Block::ToolUse {
                    tool_name,
                    tool_id,
                    tool_input,
                    server,
                    incomplete: false,
                };
                let mut blocks = vec![(
                    ContentBlock::new(fidelity.clone(), tool_use),
                    Role::Assistant,
                )];
                if let Some(command) = command {
                    blocks.push((ContentBlock::new(fidelity, command), Role::Assistant));
                }
                return blocks;
            }
            // The results of server tools arrive inside the assistant message
            // (`web_search_tool_result`, `web_fetch_tool_result`, ...).
            kind if kind.ends_with("_tool_result") && raw.tool_use_id.is_some() => {
                let tool_id = owned(raw.tool_use_id);
                self.answer_tool(&tool_id, record, diagnostics);
                let is_error =
                    raw.is_error.unwrap_or(false) || is_error_content(raw.content.as_ref());
                Block::ToolResult {
                    tool_id,
                    tool_content: raw.content.unwrap_or(Value::Null),
                    is_error,
                    exit_code: None,
                }
            }
            other => {
                self.unknown_block(other, record, position, diagnostics);
                return Vec::new();
            }
        };
        vec![(ContentBlock::new(fidelity, block), Role::Assistant)]
    }

    fn unknown_block(
        &mut self,
        kind: &str,
        record: Record<'_>,
        position: usize,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        diagnostics.push(Diagnostic::new(
            DiagnosticKind::UnknownBlockType,
            record.line,
            record.offset,
            format!("content block type {kind:?} has no canonical form; kept in the run metadata"),
        ));
        let raw = to_value(record.bytes);
        let block = raw
            .pointer(&format!("/message/content/{position}"))
            .cloned()
            .unwrap_or(raw);
        self.keep(record, &format!("block/{kind}"), block);
    }

    fn user(
        &mut self,
        line: Line<'_>,
        agent: Option<String>,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let Some(message) = line.message else {
            diagnostics.push(shape(record, "a user record without `message`"));
            return;
        };
        let message_id = message.id.as_deref().map(str::to_owned);
        let blocks = match message.content {
            Some(MessageContent::Text(text)) => {
                let block = ContentBlock::text(Fidelity::AgentEmitted, text);
                items.push(self.item(block, Role::User, &message_id, &agent, record));
                return;
            }
            Some(MessageContent::Blocks(blocks)) => blocks,
            None => Vec::new(),
        };
        for (position, raw) in blocks.into_iter().enumerate() {
            let block = match &*raw.kind {
                "tool_result" => {
                    let tool_id = raw.tool_use_id.map(Cow::into_owned).unwrap_or_default();
                    self.answer_tool(&tool_id, record, diagnostics);
                    Block::ToolResult {
                        tool_id,
                        tool_content: raw.content.unwrap_or(Value::Null),
                        is_error: raw.is_error.unwrap_or(false),
                        exit_code: None,
                    }
                }
                "text" => Block::Text {
                    text: raw.text.map(Cow::into_owned).unwrap_or_default(),
                    citations: Vec::new(),
                },
                other => {
                    self.unknown_block(other, record, position, diagnostics);
                    continue;
                }
            };
            let block = ContentBlock::new(Fidelity::AgentEmitted, block);
            items.push(self.item(block, Role::User, &message_id, &agent, record));
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
        let scope = self.scopes.entry(agent.clone()).or_default();
        match &*event.kind {
            "message_start" => {
                let Some(message) = event.message else { return };
                let id = message.id.as_deref().map(str::to_owned);
                if let Some(model) = message.model.as_deref().filter(|m| *m != "<synthetic>") {
                    self.meta.model = Some(model.to_owned());
                }
                scope.message_id = id.clone();
                scope.open.clear();
                if let Some(id) = id {
                    self.streamed.entry(id.clone()).or_default();
                    if let Some(usage) = message.usage {
                        self.usage_snapshot(&id, usage);
                    }
                }
            }
            "content_block_start" => {
                let (Some(index), Some(raw)) = (event.index, event.content_block) else {
                    return;
                };
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
                    source: Source::record(record.line, record.offset),
                };
                scope.open.insert(index, open);
            }
            "content_block_delta" => {
                let (Some(index), Some(delta)) = (event.index, event.delta) else {
                    return;
                };
                let Some(open) = scope.open.get_mut(&index) else {
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
                let Some(mut open) = scope.open.remove(&index) else {
                    return;
                };
                open.source.end_line = record.line;
                let message_id = scope.message_id.clone();
                let blocks = self.close_block(open, false, record, diagnostics);
                if let (Some(id), Some((first, _))) = (&message_id, blocks.first()) {
                    let streamed = self.streamed.entry(id.clone()).or_default();
                    streamed.streamed.insert(index, first.clone());
                }
                for (item_block, source) in blocks {
                    items.push(Item {
                        block: item_block,
                        role: Role::Assistant,
                        message_id: message_id.clone(),
                        agent: agent.clone(),
                        source,
                        time: None,
                    });
                }
            }
            "message_delta" => {
                if let (Some(id), Some(usage)) = (scope.message_id.clone(), event.usage) {
                    self.usage_snapshot(&id, usage);
                }
            }
            _ => {}
        }
    }

    /// Turns an assembled block into canonical blocks; `cut` when the input ended first.
    fn close_block(
        &mut self,
        open: OpenBlock,
        cut: bool,
        record: Record<'_>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Vec<(ContentBlock, Source)> {
        let fidelity = Fidelity::AgentEmitted;
        let source = open.source;
        let block = match open.kind.as_str() {
            "text" => Block::Text {
                text: open.text,
                citations: open.citations,
            },
            "thinking" => Block::Thinking {
                thinking: open.text,
                signature: Some(open.signature).filter(|s| !s.is_empty()),
                redacted: false,
            },
            "redacted_thinking" => Block::Thinking {
                thinking: String::new(),
                signature: Some(open.signature).filter(|s| !s.is_empty()),
                redacted: true,
            },
            "tool_use" | "server_tool_use" => {
                let (tool_input, incomplete) = if open.partial_json.is_empty() {
                    (
                        open.tool_input
                            .unwrap_or_else(|| Value::Object(Default::default())),
                        cut,
                    )
                } else {
                    match serde_json::from_str::<Value>(&open.partial_json) {
                        Ok(input) => (input, cut),
                        Err(error) => {
                            if !cut {
                                diagnostics.push(Diagnostic::new(
                                    DiagnosticKind::InvalidJson,
                                    record.line,
                                    record.offset,
                                    format!(
                                        "tool_use {} ({}): streamed input is not valid JSON ({error}); kept as a string",
                                        open.tool_name, open.tool_id
                                    ),
                                ));
                            }
                            (Value::String(open.partial_json), true)
                        }
                    }
                };
                self.register_tool(
                    &open.tool_id,
                    &open.tool_name,
                    Record {
                        line: source.line,
                        offset: source.offset,
                        ..record
                    },
                );
                let command =
                    shell_command(&open.tool_name, &tool_input).map(|command| Block::Command {
                        command,
                        tool_id: Some(open.tool_id.clone()).filter(|id| !id.is_empty()),
                    });
                let tool_use = Block::ToolUse {
                    tool_name: open.tool_name,
                    tool_id: open.tool_id,
                    tool_input,
                    server: open.kind == "server_tool_use",
                    incomplete,
                };
                let mut blocks = vec![(ContentBlock::new(fidelity.clone(), tool_use), source)];
                if let Some(command) = command.filter(|_| !incomplete) {
                    blocks.push((ContentBlock::new(fidelity, command), source));
                }
                return blocks;
            }
            other => {
                diagnostics.push(Diagnostic::new(
                    DiagnosticKind::UnknownBlockType,
                    source.line,
                    source.offset,
                    format!("streamed content block type {other:?} has no canonical form; its consolidated copy is read instead"),
                ));
                return Vec::new();
            }
        };
        vec![(ContentBlock::new(fidelity, block), source)]
    }

    fn result(&mut self, line: Line<'_>, record: Record<'_>) {
        self.saw_result = true;
        let subtype = line.subtype.as_deref().unwrap_or("");
        let failed =
            line.is_error.unwrap_or(false) || (!subtype.is_empty() && subtype != "success");
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
        self.meta.stop_reason = stop_reason(
            subtype,
            line.terminal_reason.as_deref(),
            line.stop_reason.as_deref(),
            failed && line.api_error_status.is_some(),
        );
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
            if message.is_empty() {
                message = format!("run ended with {subtype}");
            }
            self.meta.errors.push(RunError {
                message: message.trim_end_matches(": ").to_owned(),
                fatal: true,
                line: record.line,
            });
        }
        let raw = to_value(record.bytes);
        if let Some(denials) = raw
            .get("permission_denials")
            .filter(|d| d.as_array().is_some_and(|a| !a.is_empty()))
        {
            self.keep(record, "result/permission_denials", denials.clone());
        }
        if let Some(model_usage) = raw.get("modelUsage") {
            if self.meta.model.is_none() {
                self.meta.model = model_usage
                    .as_object()
                    .and_then(|m| m.keys().next().cloned());
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

    fn register_tool(&mut self, tool_id: &str, name: &str, record: Record<'_>) {
        self.tools.open(tool_id, name, record.line, record.offset);
    }

    fn answer_tool(
        &mut self,
        tool_id: &str,
        record: Record<'_>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        self.tools
            .answer(tool_id, record.line, record.offset, diagnostics);
    }

    fn item(
        &self,
        block: ContentBlock,
        role: Role,
        message_id: &Option<String>,
        agent: &Option<String>,
        record: Record<'_>,
    ) -> Item {
        Item {
            block,
            role,
            message_id: message_id.clone(),
            agent: agent.clone(),
            source: Source::record(record.line, record.offset),
            time: None,
        }
    }

    fn finish(&mut self, out: &mut Output) {
        // Blocks whose deltas never finished: hand out what arrived, marked incomplete.
        let mut scopes: Vec<_> = self.scopes.drain().collect();
        scopes.sort_by(|a, b| a.0.cmp(&b.0));
        for (agent, scope) in scopes {
            let mut open: Vec<_> = scope.open.into_iter().collect();
            open.sort_by_key(|(index, _)| *index);
            for (_, block) in open {
                let source = block.source;
                let record = Record {
                    bytes: b"",
                    line: source.line,
                    offset: source.offset,
                    terminated: true,
                };
                let kind = block.kind.clone();
                out.diagnostics.push(Diagnostic::new(
                    DiagnosticKind::IncompleteBlock,
                    source.line,
                    source.offset,
                    format!("{kind} block still streaming when the input ended; kept as far as it arrived"),
                ));
                for (block, source) in self.close_block(block, true, record, &mut out.diagnostics) {
                    out.items.push(Item {
                        block,
                        role: Role::Assistant,
                        message_id: scope.message_id.clone(),
                        agent: agent.clone(),
                        source,
                        time: None,
                    });
                }
            }
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

fn shape(record: Record<'_>, what: &str) -> Diagnostic {
    Diagnostic::new(
        DiagnosticKind::UnexpectedShape,
        record.line,
        record.offset,
        format!("{what}, skipped"),
    )
}

/// The command line of a shell tool call, for its `command` block.
fn shell_command(tool_name: &str, input: &Value) -> Option<String> {
    if tool_name != "Bash" {
        return None;
    }
    input
        .get("command")
        .and_then(Value::as_str)
        .map(str::to_owned)
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
