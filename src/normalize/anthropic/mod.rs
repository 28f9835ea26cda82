//! Anthropic's Messages API over HTTP: response bodies and SSE streams, as Anthropic serves
//! them (`/v1/messages`), and as Vertex AI (`rawPredict`, `streamRawPredict`) and Bedrock
//! (`InvokeModel`) serve the same API; request bodies too, for the tool results they carry.
//!
//! Shapes follow the API reference and anthropic-sdk-python's generated types
//! (`raw_message_stream_event.py`, `content_block.py`, `stop_reason.py`); the content blocks
//! and their stream assembly are `messages_api`'s, shared with the
//! Claude Code adapter.
//!
//! # Input
//!
//! HTTP bodies (the `Http` framing): one input holds any sequence of these records, JSON on one line,
//! a pretty-printed document, or an SSE event's data (its `event:` name is not needed: every
//! record names its `type`):
//!
//! * stream events: `message_start`, `content_block_start`, `content_block_delta`,
//!   `content_block_stop`, `message_delta`, `message_stop`, `ping`, `error`;
//! * a response body, `{"type": "message", ...}` (Bedrock's ids are `msg_bdrk_...`,
//!   Vertex's `msg_vrtx_...`);
//! * an error, `{"type": "error", "error": {type, message}}`: an event mid-stream, or the
//!   body of a failed request (an HTTP 529 `overloaded_error`, say);
//! * a request body, `{model, max_tokens, system, messages, tools, ...}` (Vertex and
//!   Bedrock put `anthropic_version` where the model is named in the URL).
//!
//! **Conversation files.** As for the OpenAI adapter: the HTTP exchanges in order, each
//! request followed by the response that answered it. A request repeats the history, so only
//! the messages after those already read (the previous request's, plus one assistant message
//! per response since) are read again; the smallest complete form is the final request (the
//! whole history) followed by the final response.
//!
//! # Mapping
//!
//! * Blocks, from a body at once or from a stream at each block's `content_block_stop`:
//!   `text` (its `citations`, and the `citations_delta`s of a stream, as the block's
//!   citations), `thinking` (its `signature`), `redacted_thinking` (a thinking block with
//!   `redacted`, the opaque `data` its signature), `tool_use` (its input the parsed JSON of
//!   the `input_json_delta`s, else the start's `input`; arguments that are not JSON are kept
//!   as a string with an `invalid-tool-input` warning), plus a `command` block for a shell
//!   tool. Server tools (`server_tool_use`, and the MCP connector's `mcp_tool_use`, named
//!   `mcp__<server>__<tool>`) are tool calls with `server`; the results the API reports in
//!   the same message (`web_search_tool_result`, `web_fetch_tool_result`,
//!   `code_execution_tool_result`, `bash_code_execution_tool_result`,
//!   `text_editor_code_execution_tool_result`, `mcp_tool_result`, ...) are assistant-side
//!   `tool_result`s, failed when their content is an `*_error` (or `is_error`), with a code
//!   execution's `return_code` as the exit code (failed when not 0). A block kind axt has no
//!   form for is kept in the metadata (`block/<type>`, an `unknown-block-type` warning).
//!   Every block carries the message's `id` as its message id.
//! * Streams: a block is handed out at its `content_block_stop`. A message whose stream
//!   ends (`message_stop`, an `error`, another `message_start`, the end of the input) before
//!   a block stopped hands that block out as far as it arrived, marked incomplete (an
//!   `incomplete-block` warning); a delta or a stop of a block that is not streaming is
//!   reported (`unexpected-shape`) and skipped. `ping` is ignored.
//! * Requests: the user's text is user text; `tool_result` blocks are user-side
//!   `tool_result`s (content a string or blocks, `is_error`) paired with their calls by
//!   `tool_use_id`; the assistant's messages are assistant blocks, read as a body's; the
//!   system prompt and the tools offered are kept as metadata (`request/system`,
//!   `request/tools`) when they change, and so is every
//!   other part of a user message (`request/part/<type>`: images, documents).
//! * Metadata: `model`; the stop reason from `message_delta`'s or the body's `stop_reason`
//!   (`end_turn`, `tool_use`, `max_tokens` and `model_context_window_exceeded`,
//!   `stop_sequence`, `refusal`; `pause_turn` and later values as `other`), its raw value
//!   kept; usage per message as the last snapshot (`message_start`'s, then each
//!   `message_delta`'s, which are cumulative and may repeat the input and cache counts),
//!   summed over messages: `input_tokens` (already uncached), `cache_read_input_tokens`,
//!   `cache_creation_input_tokens`, `output_tokens` (thinking included), the last usage
//!   record kept verbatim; Bedrock's `amazon-bedrock-invocationMetrics` kept as passthrough.
//!   The API does not stamp its records: events take the clock's time.
//! * Errors: an `error` record is a fatal run error (`overloaded_error: Overloaded`), the
//!   stop reason `error` (raw: the error's type), the run failed; what was streaming is
//!   handed out, marked incomplete.
//!
//! A stream that ends without `message_stop` (or an input with no response at all) hands out
//! what it has and says so with a `missing-terminal` warning.

use std::borrow::Cow;

use serde_json::Value;

use super::driver::{Adapter, Driver};
use super::framing::{Http, Record};
use super::json::{JsonParser, to_value};
use super::messages_api::{
    Assembly, Canonical, Closed, MessageContent, MessageUsage, canonical, hand_out, made, stop_kind,
};
use super::report::Fate;
use super::tools::{PendingTools, missing_terminal};
use super::{
    Diagnostic, DiagnosticKind, Item, Normalizer, Options, Output, Provider, RunError, RunMeta,
    RunStatus, Source, StopKind, StopReason, Usage,
};
use crate::model::{Block, Role};

// The files of the adapter: this one holds detection, the state and the dispatch of a
// record by type; `stream` the stream events; `bodies` response, error and request bodies;
// `wire` the record shapes; `skim` the reading of a text delta without the parser.
mod bodies;
mod skim;
mod stream;
mod wire;

use wire::{Wire, WireShape};

/// Whether a record is the Messages API's: a stream event, a response body, an error of the
/// API's shape, or a request body that says it is one (see [`is_request`]).
pub(crate) fn claims(record: &Value) -> bool {
    let Some(object) = record.as_object() else {
        return false;
    };
    match object.get("type").and_then(Value::as_str) {
        Some(
            "message_start"
            | "content_block_start"
            | "content_block_delta"
            | "content_block_stop"
            | "message_delta"
            | "message_stop",
        ) => true,
        Some("ping") => object.len() == 1,
        Some("message") => {
            object.get("role").and_then(Value::as_str) == Some("assistant")
                && object.get("content").is_some_and(Value::is_array)
        }
        // `{type, error: {type, message}}` and at most the `request_id`: not OpenAI's
        // Responses `error` event, whose error object has `code` and `param`.
        Some("error") => {
            let Some(error) = object.get("error").and_then(Value::as_object) else {
                return false;
            };
            let text = |key: &str| error.get(key).is_some_and(Value::is_string);
            text("type")
                && text("message")
                && !error.contains_key("param")
                && !error.contains_key("code")
                && object
                    .keys()
                    .all(|k| matches!(k.as_str(), "type" | "error" | "request_id"))
        }
        None => is_request(record),
        _ => false,
    }
}

/// Whether a record with `messages` is a Messages API request rather than an OpenAI Chat
/// Completions one, whose shape is alike: it names `anthropic_version` (Vertex, Bedrock), a
/// top-level `system`, `stop_sequences` or a `thinking` configuration, a tool with an
/// `input_schema`, a `claude` model, or a content block only this API has (`tool_use`,
/// `tool_result`, thinking, `image` or `document` with a `source`). A request that is plain
/// text to another model says nothing, and is left to the OpenAI adapter.
fn is_request(record: &Value) -> bool {
    let Some(messages) = record.get("messages").and_then(Value::as_array) else {
        return false;
    };
    let has = |key: &str| record.get(key).is_some_and(|v| !v.is_null());
    let claude = record
        .get("model")
        .and_then(Value::as_str)
        .is_some_and(|model| model.to_ascii_lowercase().contains("claude"));
    let schema = record
        .get("tools")
        .and_then(Value::as_array)
        .is_some_and(|tools| tools.iter().any(|tool| tool.get("input_schema").is_some()));
    let block = |block: &Value| {
        let kind = block.get("type").and_then(Value::as_str).unwrap_or("");
        matches!(
            kind,
            "tool_use" | "tool_result" | "thinking" | "redacted_thinking" | "server_tool_use"
        ) || (matches!(kind, "image" | "document") && block.get("source").is_some())
    };
    let blocks = messages.iter().any(|message| {
        message
            .get("content")
            .and_then(Value::as_array)
            .is_some_and(|content| content.iter().any(block))
    });
    ["anthropic_version", "system", "stop_sequences", "thinking"]
        .iter()
        .any(|key| has(key))
        || claude
        || schema
        || blocks
}

/// The Anthropic normalizer: HTTP bodies, driven through this adapter's state.
pub(crate) fn normalizer(options: Options) -> impl Normalizer + Send + use<> {
    Driver::<Http, State>::new(&options, State::new())
}

/// The message a stream is streaming.
struct Streaming {
    id: Option<String>,
    /// The last usage snapshot (`message_start`'s, updated by each `message_delta`).
    usage: MessageUsage,
    blocks: Assembly,
}

struct State {
    meta: RunMeta,
    tools: PendingTools,
    /// The message being streamed, from its first event to its `message_stop`.
    message: Option<Streaming>,
    /// Usage of the messages that ended.
    usage: Usage,
    /// A response (a body, a stream, an error) was seen.
    saw_response: bool,
    /// Messages of the conversation read so far, for requests that repeat the history.
    history: usize,
    /// The last request's system prompt, kept again only when it changes.
    system: Option<Value>,
    /// The last request's tools, kept again only when they change.
    offered: Option<Value>,
    /// Text and thinking deltas are read by a skim ([`skim::delta`]); off, they are parsed
    /// (the tests' reference the skim is held to).
    skim: bool,
}

impl State {
    fn new() -> Self {
        State {
            meta: RunMeta::new(Provider::Anthropic),
            tools: PendingTools::default(),
            message: None,
            usage: Usage::default(),
            saw_response: false,
            history: 0,
            system: None,
            offered: None,
            skim: true,
        }
    }

    /// One parsed record, whatever its kind.
    fn wire(
        &mut self,
        wire: Wire<'_>,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Fate {
        let Some(kind) = wire.kind.clone() else {
            if wire.messages.is_none() {
                self.keep(record, "record");
                return Fate::Passthrough;
            }
            self.request(wire, record, items, diagnostics);
            return Fate::Mapped;
        };
        match &*kind {
            "message" => self.body(wire, record, items, diagnostics),
            "error" => self.fail(wire.error.as_ref(), record, items, diagnostics),
            "ping" => return Fate::Ignored,
            "message_start"
            | "content_block_start"
            | "content_block_delta"
            | "content_block_stop"
            | "message_delta"
            | "message_stop" => {
                return self.event(&kind, wire, record, items, diagnostics);
            }
            other => {
                self.keep(record, other);
                return Fate::Passthrough;
            }
        }
        Fate::Mapped
    }

    /// The record kept whole as passthrough of `kind`.
    fn keep(&mut self, record: Record<'_>, kind: &str) {
        self.meta
            .keep(record.span.line, kind, || to_value(record.bytes));
    }

    /// A response starts: its model, and a status that its end settles.
    fn begin(&mut self, model: Option<&str>) {
        self.saw_response = true;
        if let Some(model) = model.filter(|m| !m.is_empty()) {
            self.meta.model = Some(model.to_owned());
        }
        if self.meta.status != RunStatus::Failed {
            self.meta.status = RunStatus::Incomplete;
        }
    }

    /// A response ended as the API meant it to (unless the run failed already).
    fn completed(&mut self) {
        if self.meta.status != RunStatus::Failed {
            self.meta.status = RunStatus::Completed;
        }
    }

    /// The stop reason the API gave, normalized, its own word kept.
    fn stop(&mut self, raw: &str) {
        self.meta.stop_reason = Some(StopReason {
            kind: stop_kind(raw),
            raw: raw.to_owned(),
        });
    }

    /// The message being streamed is over (`why` when it ended before every block stopped):
    /// what still streams is handed out as far as it arrived, its usage counted, the
    /// conversation one message longer.
    fn end_message(&mut self, why: &str, items: &mut Vec<Item>, diagnostics: &mut Vec<Diagnostic>) {
        let Some(mut message) = self.message.take() else {
            return;
        };
        for (index, cut) in message.blocks.cut() {
            let what = describe(&cut.block, index, message.id.as_deref());
            diagnostics.push(Diagnostic::new(
                DiagnosticKind::IncompleteBlock,
                cut.source.line,
                cut.source.offset,
                format!("{what} was still streaming when {why}; kept as far as it arrived"),
            ));
            self.deliver(
                cut.block,
                Role::Assistant,
                &message.id,
                cut.source,
                items,
                diagnostics,
            );
        }
        self.usage.add(&message.usage.to_usage());
        self.history += 1;
    }

    /// A fatal error from the API: what was streaming is handed out, marked incomplete.
    fn fail(
        &mut self,
        error: Option<&Value>,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        self.saw_response = true;
        self.end_message("the stream's error ended it", items, diagnostics);
        let field = |name: &str| error.and_then(|e| e.get(name)).and_then(Value::as_str);
        let kind = field("type").unwrap_or("error");
        let message = match field("message") {
            Some(text) => format!("{kind}: {text}"),
            None => error.map_or_else(|| kind.to_owned(), Value::to_string),
        };
        self.meta.status = RunStatus::Failed;
        self.meta.stop_reason = Some(StopReason {
            kind: StopKind::Error,
            raw: kind.to_owned(),
        });
        self.meta.errors.push(RunError {
            message,
            fatal: true,
            line: record.span.line,
        });
    }

    /// A block closed by its stop, handed out (its input said to be no JSON when it is not).
    fn closed(
        &mut self,
        done: Closed,
        index: u64,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let message_id = self.message.as_ref().and_then(|m| m.id.clone());
        if let Some(error) = &done.invalid_input {
            let what = describe(&done.block, index, message_id.as_deref());
            diagnostics.push(Diagnostic::new(
                DiagnosticKind::InvalidToolInput,
                record.span.line,
                record.span.offset,
                format!("{what}: its streamed input is not valid JSON ({error}); kept as a string"),
            ));
        }
        let (block, source) = (done.block, done.source);
        self.deliver(
            block,
            Role::Assistant,
            &message_id,
            source,
            items,
            diagnostics,
        );
    }

    /// Hands out a block of `role`'s message `message_id` (see [`hand_out`]).
    fn deliver(
        &mut self,
        block: Canonical,
        role: Role,
        message_id: &Option<String>,
        source: Source,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let (meta, tools) = (&mut self.meta, &mut self.tools);
        hand_out(block, source, meta, tools, diagnostics, |block| {
            items.push(Item {
                block,
                role: role.clone(),
                message_id: message_id.clone(),
                agent: None,
                subagent: None,
                source,
                time: None,
            });
        });
    }

    /// The blocks of a whole message (a body, a request's assistant message), in order.
    fn deliver_content(
        &mut self,
        content: Option<MessageContent<'_>>,
        pointer: &str,
        record: Record<'_>,
        message_id: &Option<String>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let source = record.span;
        match content {
            Some(MessageContent::Text(text)) => {
                let block = canonical_text(text);
                self.deliver(
                    block,
                    Role::Assistant,
                    message_id,
                    source,
                    items,
                    diagnostics,
                );
            }
            Some(MessageContent::Blocks(blocks)) => {
                for (position, raw) in blocks.into_iter().enumerate() {
                    let whole = || block_value(record, &format!("{pointer}/{position}"));
                    let block = canonical(raw, whole);
                    self.deliver(
                        block,
                        Role::Assistant,
                        message_id,
                        source,
                        items,
                        diagnostics,
                    );
                }
            }
            None => {}
        }
    }
}

/// A text block of a message whose content is a string.
fn canonical_text(text: Cow<'_, str>) -> Canonical {
    made(
        "text".to_owned(),
        None,
        vec![Block::text(text.into_owned())],
    )
}

/// The JSON at `pointer` in a record, for keeping a block axt has no form for.
fn block_value(record: Record<'_>, pointer: &str) -> Value {
    let raw = to_value(record.bytes);
    raw.pointer(pointer).cloned().unwrap_or(raw)
}

/// "text block 1 of message msg_01…", as diagnostics name a streamed block.
fn describe(block: &Canonical, index: u64, message: Option<&str>) -> String {
    match message {
        Some(id) => format!("{} block {index} of message {id}", block.kind),
        None => format!("{} block {index}", block.kind),
    }
}

impl Adapter for State {
    const PROVIDER: Provider = Provider::Anthropic;
    // The API stamps nothing: events take the clock's time.
    const STAMPED: bool = false;

    fn record(&mut self, parser: &mut JsonParser, record: Record<'_>, out: &mut Output) {
        let Output { items, diagnostics } = out;
        // A delta read by the skim goes to the handler the parse would hand it to, counted
        // as the parse counts it (its members are all known ones).
        if self.skim
            && let Some(wire) = skim::delta(record.bytes)
        {
            let slot = parser.tally.see(("content_block_delta", None));
            let fate = self.wire(wire, record, items, diagnostics);
            parser.tally.fate(slot, fate);
            return;
        }
        parser.parse::<WireShape>(record, diagnostics, |wire, diagnostics| {
            self.wire(wire, record, items, diagnostics)
        });
    }

    fn finish(&mut self, last: (u64, u64), out: &mut Output) {
        let streaming = self.message.is_some();
        self.end_message("the input ended", &mut out.items, &mut out.diagnostics);
        self.tools.report_dangling(&mut out.diagnostics);
        self.meta.usage = self.usage;
        if streaming || !self.saw_response {
            let (line, offset) = last;
            let what = if self.saw_response {
                "its message's end (message_stop)"
            } else {
                "a response"
            };
            out.diagnostics.push(missing_terminal(line, offset, what));
        }
    }

    fn meta(&self) -> &RunMeta {
        &self.meta
    }

    fn meta_mut(&mut self) -> &mut RunMeta {
        &mut self.meta
    }
}

#[cfg(test)]
mod tests;
