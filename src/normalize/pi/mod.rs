//! Pi (`badlogic/pi-mono`'s coding agent): `pi -p --mode json`, its session's events, one a
//! line.
//!
//! Shapes follow pi 0.45-0.84 (`packages/coding-agent/docs/json.md`: `AgentSessionEvent`,
//! the message types of `packages/ai/src/types.ts`). Pi streams every message three ways
//! (`message_start`, `message_update` deltas, `message_end`), announces each tool run
//! (`tool_execution_*`) and repeats each turn (`turn_end`): the whole `message_end` is the one
//! record a message is read from. How each event is read:
//!
//! * `session` (`id`, `timestamp`, `cwd`; since 0.45.1): the session id.
//! * `message_end` (`message`), by the message's `role`:
//!   - `user`: its `content` (a string, or `text` and `image` blocks) as the user's text.
//!   - `assistant`: `text`, `thinking` (`thinkingSignature` its signature) and `toolCall`
//!     (`id`, `name`, `arguments`) blocks; `model`; `usage` (`input` uncached, `output`,
//!     `cacheRead`, `cacheWrite`, `reasoning` where the provider counts it apart, already in
//!     `output`; `cost.total`) added to the run's; `stopReason` (`stop`, `length`, `toolUse`,
//!     `error` with its `errorMessage`, `aborted`); `responseId` the blocks' message.
//!   - `toolResult` (`toolCallId`, `content`, `isError`): the call's result; all-text content
//!     is its text.
//!   - any other role (`bashExecution`, `custom`, the summaries of compaction and branches):
//!     passthrough.
//! * `turn_end` whose message did not stop for `toolUse`, and `agent_end`: the run's end (in
//!   print mode pi prints no `agent_end`). Its status is the last assistant message's stop:
//!   `error` and `aborted` fail it, anything else completes it. An error followed by another
//!   turn (pi retries, `auto_retry_start`) is kept as a non-fatal run error.
//! * `agent_start`, `turn_start`, `message_start`, `message_update`, `tool_execution_*`:
//!   copies of what `message_end` holds, read and ignored. But a stream cut before a
//!   message's end loses nothing: the last snapshot of the message (`message_start` or
//!   `message_update`'s `message`) and a tool's result (`tool_execution_end`) whose
//!   `toolResult` message never came are delivered at the end, with a warning.
//! * Anything else (`auto_compaction_*`, `auto_retry_*`, later types): passthrough.
//!
//! Pi stamps messages (`timestamp`, Unix milliseconds) but not the other events.

mod wire;

use std::borrow::Cow;

use wire::{Event, EventShape, Payload};

use serde_json::Value;

use super::driver::{Adapter, Driver};
use super::framing::{Lines, Record};
use super::json::{JsonParser, to_value};
use super::messages_api::tool_blocks;
use super::report::Fate;
use super::tools::{PendingTools, missing_terminal};
use super::{
    Diagnostic, DiagnosticKind, Item, Normalizer, Options, Output, Provider, RunError, RunMeta,
    RunStatus, Source, StopKind, StopReason, Usage,
};
use crate::model::{Block, Role, Timestamp};

/// Whether the first record of an output looks like pi's: its `session` header (a numeric
/// `version`, an `id` and a `cwd`), or, before 0.45.1, a bare `{"type":"agent_start"}`.
pub(crate) fn claims(first: &Value) -> bool {
    let Some(object) = first.as_object() else {
        return false;
    };
    match object.get("type").and_then(Value::as_str) {
        Some("session") => {
            object.get("version").is_some_and(Value::is_u64)
                && object.get("id").is_some_and(Value::is_string)
                && object.contains_key("cwd")
        }
        Some("agent_start") => object.len() == 1,
        _ => false,
    }
}

/// The pi normalizer: JSON Lines, driven through this adapter's state.
pub(crate) fn normalizer(options: Options) -> impl Normalizer + Send + use<> {
    Driver::<Lines, State>::new(&options, State::new())
}

/// A payload an event only copies (a message's snapshot, a tool's output), kept until the
/// record that holds it for good comes: as built, or as its record, read again only if
/// that record never comes (see `wire`).
enum Copied {
    Value(Value),
    Record(Vec<u8>),
}

impl Copied {
    fn new(payload: Payload<'_>, record: Record<'_>) -> Self {
        match payload {
            Payload::Whole(value) => Copied::Value(value),
            Payload::Seen { .. } => Copied::Record(record.bytes.to_vec()),
        }
    }

    /// The payload, built: from its record's `field` when it was not.
    fn whole(self, field: &str) -> Value {
        match self {
            Copied::Value(value) => value,
            Copied::Record(bytes) => {
                let mut record = to_value(&bytes);
                record.get_mut(field).map_or(Value::Null, Value::take)
            }
        }
    }
}

/// A tool's result as `tool_execution_end` announced it, until its `toolResult` message.
struct Executed {
    tool_id: String,
    result: Copied,
    is_error: bool,
    source: Source,
}

struct State {
    meta: RunMeta,
    tools: PendingTools,
    usage: Option<Usage>,
    /// The message being streamed: its last snapshot and where it was, until its end.
    streaming: Option<(Copied, Source)>,
    /// Results announced by `tool_execution_end` whose `toolResult` message has not come.
    executed: Vec<Executed>,
    /// A turn that did not stop for tools ended, or `agent_end` came.
    ended: bool,
}

impl Adapter for State {
    const PROVIDER: Provider = Provider::Pi;
    // Messages carry their `timestamp`.
    const STAMPED: bool = true;

    fn record(&mut self, parser: &mut JsonParser, record: Record<'_>, out: &mut Output) {
        let Output { items, diagnostics } = out;
        parser.parse::<EventShape>(record, diagnostics, |event, diagnostics| {
            self.event(event, record, items, diagnostics)
        });
    }

    fn finish(&mut self, last: (u64, u64), out: &mut Output) {
        let Output { items, diagnostics } = out;
        if let Some((message, source)) = self.streaming.take() {
            let message = message.whole("message");
            diagnostics.push(Diagnostic::new(
                DiagnosticKind::IncompleteBlock,
                source.line,
                source.offset,
                "a message cut before its message_end: its last snapshot delivered".to_owned(),
            ));
            self.message(&message, false, source, items, diagnostics);
        }
        for executed in std::mem::take(&mut self.executed) {
            let Executed {
                tool_id,
                result,
                is_error,
                source,
            } = executed;
            diagnostics.push(Diagnostic::new(
                DiagnosticKind::IncompleteBlock,
                source.line,
                source.offset,
                format!(
                    "the result of {tool_id:?} from tool_execution_end: its toolResult message never came"
                ),
            ));
            let result = result.whole("result");
            let content = result.get("content").cloned().unwrap_or(result);
            self.result(tool_id, &content, is_error, source, items, diagnostics);
        }
        self.tools.report_dangling(diagnostics);
        if let Some(usage) = self.usage {
            self.meta.usage = usage;
        }
        if !self.ended {
            let (line, offset) = last;
            diagnostics.push(missing_terminal(
                line,
                offset,
                "a turn_end that does not stop for tool use, or agent_end",
            ));
        }
    }

    fn meta(&self) -> &RunMeta {
        &self.meta
    }

    fn meta_mut(&mut self) -> &mut RunMeta {
        &mut self.meta
    }
}

impl State {
    fn new() -> Self {
        State {
            meta: RunMeta::new(Provider::Pi),
            tools: PendingTools::default(),
            usage: None,
            streaming: None,
            executed: Vec::new(),
            ended: false,
        }
    }

    fn event(
        &mut self,
        event: Event<'_>,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Fate {
        let source = Source::record(record.line, record.offset);
        match &*event.kind {
            "session" => {
                if let Some(Value::String(time)) = &event.timestamp
                    && let Ok(time) = Timestamp::parse(time)
                {
                    self.meta.saw_timestamp(time);
                }
                if self.meta.session_id.is_none() {
                    self.meta.session_id = event.id.map(Cow::into_owned);
                }
                Fate::Mapped
            }
            "message_start" | "message_update" => {
                if let Some(message) = event.message.filter(Payload::is_object) {
                    self.streaming = Some((Copied::new(message, record), source));
                }
                Fate::Ignored
            }
            "message_end" => {
                self.streaming = None;
                let message = (event.message)
                    .map(|message| Copied::new(message, record).whole("message"))
                    .filter(Value::is_object);
                let Some(message) = message else {
                    diagnostics.push(Diagnostic::new(
                        DiagnosticKind::UnexpectedShape,
                        record.line,
                        record.offset,
                        "a message_end without its `message`, skipped".to_owned(),
                    ));
                    return Fate::Skipped;
                };
                if self.message(&message, true, source, items, diagnostics) {
                    Fate::Mapped
                } else {
                    let role = message.get("role").and_then(Value::as_str).unwrap_or("");
                    self.meta
                        .keep(record.line, &format!("message_end/{role}"), || message);
                    Fate::Passthrough
                }
            }
            "tool_execution_end" => {
                if let Some(tool_id) = event.tool_call_id
                    && self.tools.is_waiting(&tool_id)
                {
                    self.executed.push(Executed {
                        tool_id,
                        result: match event.result {
                            Some(result) => Copied::new(result, record),
                            None => Copied::Value(Value::Null),
                        },
                        is_error: event.is_error.unwrap_or(false),
                        source,
                    });
                }
                Fate::Ignored
            }
            "turn_end" => {
                let stop = event.message.as_ref().and_then(Payload::stop_reason);
                if stop.is_some_and(|stop| stop != "toolUse") {
                    self.end();
                }
                Fate::Ignored
            }
            "agent_end" => {
                self.end();
                Fate::Ignored
            }
            "agent_start" | "turn_start" | "tool_execution_start" | "tool_execution_update" => {
                Fate::Ignored
            }
            other => {
                let raw = to_value(record.bytes);
                self.meta.keep(record.line, other, || raw);
                Fate::Passthrough
            }
        }
    }

    /// A message's blocks; false for a role this adapter does not read. A message that is not
    /// `whole` (a snapshot of one being streamed) gives its blocks alone: its usage and stop
    /// reason are still pi's placeholders, and its calls may lack arguments.
    fn message(
        &mut self,
        message: &Value,
        whole: bool,
        source: Source,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> bool {
        if let Some(millis) = message.get("timestamp").and_then(Value::as_i64) {
            let nanos = i128::from(millis) * 1_000_000;
            self.meta.saw_timestamp(Timestamp::from_unix_nanos(nanos));
        }
        let content = message.get("content").unwrap_or(&Value::Null);
        match message.get("role").and_then(Value::as_str) {
            Some("user") => {
                for text in texts(content) {
                    items.push(Item::emitted(Block::text(text), Role::User, None, source));
                }
                // An image the user attached has no block of its own here: kept as read.
                let others = content.as_array().into_iter().flatten();
                for other in
                    others.filter(|b| b.get("type").and_then(Value::as_str) != Some("text"))
                {
                    self.unknown_block(other, source, diagnostics);
                }
            }
            Some("assistant") => {
                self.assistant(message, content, whole, source, items, diagnostics)
            }
            Some("toolResult") => {
                let tool_id = text_of(message, "toolCallId").unwrap_or_default();
                self.executed.retain(|e| e.tool_id != tool_id);
                let is_error = message.get("isError").and_then(Value::as_bool) == Some(true);
                self.result(tool_id, content, is_error, source, items, diagnostics);
            }
            _ => return false,
        }
        true
    }

    fn assistant(
        &mut self,
        message: &Value,
        content: &Value,
        whole: bool,
        source: Source,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        if let Some(model) = text_of(message, "model") {
            self.meta.model = Some(model);
        }
        let message_id = text_of(message, "responseId");
        for block in content.as_array().into_iter().flatten() {
            let kind = block.get("type").and_then(Value::as_str).unwrap_or("");
            let blocks = match kind {
                "text" => match text_of(block, "text") {
                    Some(text) if !text.is_empty() => vec![Block::text(text)],
                    _ => Vec::new(),
                },
                "thinking" => match text_of(block, "thinking") {
                    Some(thinking) if !thinking.is_empty() => vec![Block::Thinking {
                        thinking,
                        signature: text_of(block, "thinkingSignature").filter(|s| !s.is_empty()),
                        redacted: block.get("redacted").and_then(Value::as_bool) == Some(true),
                    }],
                    _ => Vec::new(),
                },
                "toolCall" => {
                    let (id, name) = (text_of(block, "id"), text_of(block, "name"));
                    let (id, name) = (id.unwrap_or_default(), name.unwrap_or_default());
                    self.tools.open(&id, &name, source.line, source.offset);
                    let input = block.get("arguments").cloned().unwrap_or(Value::Null);
                    tool_blocks(name, id, input, false, !whole)
                }
                _ => {
                    self.unknown_block(block, source, diagnostics);
                    Vec::new()
                }
            };
            for block in blocks {
                items.push(Item::emitted(
                    block,
                    Role::Assistant,
                    message_id.clone(),
                    source,
                ));
            }
        }
        if !whole {
            return;
        }
        if let Some(usage) = message.get("usage") {
            let count = |name: &str| usage.get(name).and_then(Value::as_u64).unwrap_or(0);
            self.usage.get_or_insert_with(Usage::default).add(&Usage {
                input_tokens: count("input"),
                output_tokens: count("output"),
                cache_read_tokens: count("cacheRead"),
                cache_write_tokens: count("cacheWrite"),
                reasoning_tokens: count("reasoning"),
            });
            if let Some(cost) = usage.pointer("/cost/total").and_then(Value::as_f64) {
                self.meta.cost_usd = Some(self.meta.cost_usd.unwrap_or(0.0) + cost);
            }
        }
        if self.ended {
            // A turn after the run's end: pi retried (`auto_retry_start`); the earlier end,
            // and its error, did not end the run after all.
            for error in &mut self.meta.errors {
                error.fatal = false;
            }
            self.meta.status = RunStatus::Incomplete;
        }
        if let Some(raw) = text_of(message, "stopReason") {
            let kind = match raw.as_str() {
                "stop" => StopKind::EndTurn,
                "toolUse" => StopKind::ToolUse,
                "length" => StopKind::MaxTokens,
                "error" => StopKind::Error,
                "aborted" => StopKind::Aborted,
                _ => StopKind::Other,
            };
            if matches!(kind, StopKind::Error | StopKind::Aborted) {
                self.meta.errors.push(RunError {
                    message: text_of(message, "errorMessage").unwrap_or_else(|| raw.clone()),
                    fatal: false,
                    line: source.line,
                });
            }
            self.meta.stop_reason = Some(StopReason { kind, raw });
            // A later turn (a retry) opens the run again.
            self.ended = false;
        }
    }

    /// A content block this adapter has no canonical form for: a warning, and the block kept
    /// in the run's metadata.
    fn unknown_block(&mut self, block: &Value, source: Source, diagnostics: &mut Vec<Diagnostic>) {
        let kind = block.get("type").and_then(Value::as_str).unwrap_or("");
        diagnostics.push(Diagnostic::new(
            DiagnosticKind::UnknownBlockType,
            source.line,
            source.offset,
            format!("content block type {kind:?} has no canonical form; kept in the run metadata"),
        ));
        let raw = block.clone();
        self.meta
            .keep(source.line, &format!("block/{kind}"), || raw);
    }

    /// A tool's result: all-text content as its text, else the content as pi gave it.
    fn result(
        &mut self,
        tool_id: String,
        content: &Value,
        is_error: bool,
        source: Source,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        self.tools
            .answer(&tool_id, source.line, source.offset, diagnostics);
        let all_text = content.as_array().is_some_and(|blocks| {
            blocks
                .iter()
                .all(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        });
        let tool_content = match all_text {
            true => Value::String(texts(content).concat()),
            false => content.clone(),
        };
        let block = Block::ToolResult {
            tool_id,
            tool_content: tool_content.into(),
            is_error,
            exit_code: None,
        };
        items.push(Item::emitted(block, Role::User, None, source));
    }

    /// The run ended: its status by the last assistant message's stop.
    fn end(&mut self) {
        self.ended = true;
        let failed = self
            .meta
            .stop_reason
            .as_ref()
            .is_some_and(|stop| matches!(stop.kind, StopKind::Error | StopKind::Aborted));
        if failed {
            if let Some(error) = self.meta.errors.last_mut() {
                error.fatal = true;
            }
            self.meta.status = RunStatus::Failed;
        } else {
            self.meta.status = RunStatus::Completed;
        }
    }
}

/// The texts of a content: a string, or its `text` blocks.
fn texts(content: &Value) -> Vec<String> {
    match content {
        Value::String(text) => vec![text.clone()],
        Value::Array(blocks) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| text_of(b, "text"))
            .collect(),
        _ => Vec::new(),
    }
}

fn text_of(value: &Value, field: &str) -> Option<String> {
    value.get(field).and_then(Value::as_str).map(str::to_owned)
}

#[cfg(test)]
mod tests;
