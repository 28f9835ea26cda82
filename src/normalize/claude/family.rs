//! The Claude-compatible family: other agents that write Claude Code's stream-json, and the
//! records some of them add.
//!
//! Which agent wrote a stream is told by its `system/init` record (the quirk table,
//! [`agent_of_init`]), or by the first record only that agent writes: its name and version
//! go into the run's metadata (`agent`, `provider_version`). The Claude Agent SDK's message
//! stream is Claude Code's own and needs no entry.
//!
//! | agent | told by its init | what it adds or changes |
//! |---|---|---|
//! | Qwen Code (`qwen -p --output-format stream-json`) | `qwen_code_version` | nothing: Claude Code's records |
//! | Amp (`amp -x --stream-json`) | a thread id `T-...` as `session_id` | `max_tokens` and `service_tier` in a message's usage |
//! | Letta Code (`letta -p --output-format stream-json`) | `agent_id` or `conversation_id` | `message` records by `message_type`: `assistant_message` (text), `reasoning_message` (thinking), `tool_call_message` and `approval_request_message` (a call; `arguments` a JSON string), `tool_return_message` (its result; `status` `error` fails it), `stop_reason`, `usage_statistics` (`prompt_tokens`, `completion_tokens`); records of one message (`otid`) and kind in a row are one block |
//! | Kimi CLI (`kimi --print --output-format stream-json`) | no init record: its `think` blocks | whole chat messages in OpenAI's shape, one a line, without `type`: `content` a string or `text` and `think` blocks (thinking, `encrypted` its signature), `tool_calls` (`function` with JSON-string `arguments`), `tool` messages (`tool_call_id`) as results; no terminal record, so the run stays incomplete |
//! | Factory Droid (`droid exec --output-format stream-json`) | `tools` without `apiKeySource` and `permissionMode`, or `reasoning_effort` | whole `message` records (`role`, `id`, `text`); `tool_call` (`id`, `messageId`, `toolName`, `parameters`) and `tool_result` (`id`, `value`, or `error{type, message}` with `isError`; a release without `id` is paired with the oldest waiting call, first in first out); `completion` (`finalText`, `numTurns`, `durationMs`, `usage` in Claude's names) ends the run |
//! | Cursor CLI (`cursor-agent -p --output-format stream-json [--stream-partial-output]`) | no `tools` and no `claude_code_version` beside `apiKeySource` | `tool_call` records (`started`: the call, named by its kind's key without `ToolCall`, `readToolCall` -> `read`, or a `function`'s name; `completed`: its `result`, `success` or an error for `error` and `rejected`: the `content`, a shell's `stdout` (and `stderr`), its `exitCode`); `thinking` records (`delta`s accumulated, `completed` ends the block); with partial output, `assistant` lines with `timestamp_ms` and without `model_call_id` are deltas of one text block; the whole text repeated (without `timestamp_ms`, or with `model_call_id`: before a tool call, or after its `started`, and at the end) is dropped (a copy that differs is kept and reported, `stream-mismatch`); `result.usage` in camel case |
//! | Goose (`goose run --output-format stream-json`) | a `message` record wrapping a whole `message`, or `model_change` | its own records, read in `goose`: `message` (Goose's content items; streamed chunks of one message share its `id`), `model_change`, `notification`, `error` (fails the run), `complete` (`total_tokens` only, the raw usage) |
//! | Cline CLI 3.x (`cline --json`) | `run_start`, or a record led by `ts` | its own records, read in `cline`: `agent_event` (text and reasoning deltas, their whole copies after both kinds, tool calls and results, usage totals, errors), `run_result` (the end), `run_aborted` |
//!
//! This room hands out blocks of the family's own records; Claude Code's records are the
//! other rooms'.

use serde_json::{Map, Value};

use super::State;
use crate::model::{Block, Role};
use crate::normalize::framing::Record;
use crate::normalize::json::to_value;
use crate::normalize::messages_api::{Canonical, MessageUsage, made, tool_blocks};
use crate::normalize::report::Fate;
use crate::normalize::{
    Diagnostic, DiagnosticKind, Item, RunStatus, Source, StopKind, StopReason, Usage,
};

/// The agent of a Claude-compatible stream, by its `system/init` record: its name and
/// version, `None` for Claude Code itself.
pub(super) fn agent_of_init(init: &Value) -> Option<(&'static str, Option<String>)> {
    let has = |field: &str| init.get(field).is_some();
    let text = |field: &str| init.get(field).and_then(Value::as_str).map(str::to_owned);
    if has("qwen_code_version") {
        return Some(("qwen-code", text("qwen_code_version")));
    }
    if has("agent_id") || has("conversation_id") {
        return Some(("letta-code", text("letta_code_version")));
    }
    if text("session_id").is_some_and(|id| id.starts_with("T-")) {
        return Some(("amp", None));
    }
    if has("apiKeySource") && !has("tools") && !has("claude_code_version") {
        return Some(("cursor-agent", None));
    }
    // Claude Code's init always has its `apiKeySource` and `permissionMode`.
    if has("reasoning_effort") || (has("tools") && !has("apiKeySource") && !has("permissionMode")) {
        return Some(("factory-droid", None));
    }
    None
}

/// A terminal record's `usage` in a family agent's own names: Cursor's camel case
/// (`inputTokens`, `outputTokens`, `cacheReadTokens`, `cacheWriteTokens`) or Letta Code's
/// `prompt_tokens` and `completion_tokens`, read as Claude Code's; `None` for a usage in
/// Claude Code's names.
pub(super) fn result_usage(usage: &Value) -> Option<Usage> {
    let count = |name: &str| usage.get(name).and_then(Value::as_u64);
    if let (Some(input), Some(output)) = (count("inputTokens"), count("outputTokens")) {
        return Some(Usage {
            input_tokens: input,
            output_tokens: output,
            cache_read_tokens: count("cacheReadTokens").unwrap_or(0),
            cache_write_tokens: count("cacheWriteTokens").unwrap_or(0),
            reasoning_tokens: 0,
        });
    }
    let (input, output) = (count("prompt_tokens")?, count("completion_tokens")?);
    Some(Usage {
        input_tokens: input,
        output_tokens: output,
        ..Usage::default()
    })
}

/// The continuation key of Cursor's assistant deltas.
pub(super) const CURSOR_TEXT: &str = "cursor assistant";

/// How many closed texts wait for their whole copy (the kinds of deltas an agent interleaves
/// are few: Cline's text and reasoning).
const CLOSED_TEXTS: usize = 4;

/// Which of Factory Droid's records a line is.
pub(super) enum DroidRecord {
    Message,
    ToolCall,
    ToolResult,
    Completion,
}

/// Text or thinking accumulated from a family's delta records.
pub(super) struct FamilyText {
    /// What continues it: the kind of record and its message.
    key: String,
    thinking: bool,
    text: String,
    /// A thinking block's signature, when one of its records carried it.
    signature: Option<String>,
    source: Source,
}

impl State {
    /// Notes the agent of a stream once: from its init record, or the first record only one
    /// agent writes.
    pub(super) fn saw_agent(&mut self, name: &'static str, version: Option<String>) {
        if self.meta.agent.is_none() {
            self.meta.agent = Some(name.to_owned());
            if version.is_some() {
                self.meta.provider_version = version;
            }
        }
    }

    /// Whether a record continues the text being accumulated (`key` its continuation key).
    pub(super) fn continues(&self, key: Option<&str>) -> bool {
        matches!((&self.family_text, key), (Some(open), Some(key)) if open.key == key)
    }

    /// Hands out the text being accumulated, if any.
    pub(super) fn flush_family(
        &mut self,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let Some(open) = self.family_text.take() else {
            return;
        };
        if self.family_closed.len() == CLOSED_TEXTS {
            self.family_closed.remove(0);
        }
        self.family_closed
            .push((open.key.clone(), open.text.clone()));
        let block = if open.thinking {
            Block::Thinking {
                thinking: open.text,
                signature: open.signature,
                redacted: false,
            }
        } else {
            Block::text(open.text)
        };
        let kind = if open.thinking { "thinking" } else { "text" };
        let canonical = made(kind.to_owned(), None, vec![block]);
        self.deliver(
            canonical,
            Role::Assistant,
            &None,
            &None,
            open.source,
            items,
            diagnostics,
        );
    }

    /// Adds a piece to the text being accumulated if `key` continues it, else starts a new
    /// one (the caller has handed out the old one with [`Self::flush_family`]).
    pub(super) fn accumulate(
        &mut self,
        key: String,
        thinking: bool,
        piece: &str,
        record: Record<'_>,
    ) {
        match &mut self.family_text {
            Some(open) if open.key == key => {
                open.text.push_str(piece);
                open.source.end_line = record.line;
            }
            _ => {
                self.family_text = Some(FamilyText {
                    key,
                    thinking,
                    text: piece.to_owned(),
                    signature: None,
                    source: Source::record(record.line, record.offset),
                });
            }
        }
    }

    /// Hands out a block of a family record that names no message and no sub-agent.
    pub(super) fn say(
        &mut self,
        block: Canonical,
        role: Role,
        source: Source,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        self.deliver(block, role, &None, &None, source, items, diagnostics);
    }

    /// Signs the thinking being accumulated (the last signature given stands).
    pub(super) fn sign_family(&mut self, signature: &str) {
        if let Some(open) = &mut self.family_text
            && !signature.is_empty()
        {
            open.signature = Some(signature.to_owned());
        }
    }

    /// Cursor's partial output: an `assistant` line with `timestamp_ms` is a delta.
    pub(super) fn cursor_delta(&mut self, record: Record<'_>) -> Fate {
        self.saw_agent("cursor-agent", None);
        if !self.continues(Some(CURSOR_TEXT)) {
            // A new segment: the last one's repeat is no longer awaited.
            self.family_closed.retain(|(key, _)| key != CURSOR_TEXT);
        }
        let raw = to_value(record.bytes);
        let piece = message_text(&raw);
        self.accumulate(CURSOR_TEXT.into(), false, &piece, record);
        Fate::Mapped
    }

    /// Whether an assistant line is the whole-text repeat of the segment of Cursor deltas a
    /// tool call closed (Cursor can write the repeat after the call's `started`); it is
    /// then dropped, and no longer awaited.
    pub(super) fn cursor_replays_closed(&mut self, record: Record<'_>) -> bool {
        self.meta.agent.as_deref() == Some("cursor-agent")
            && self.replays_closed(CURSOR_TEXT, &message_text(&to_value(record.bytes)))
    }

    /// Cursor's whole text after its deltas (see [`Self::whole_after_deltas`]).
    pub(super) fn cursor_final(
        &mut self,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> bool {
        let whole = message_text(&to_value(record.bytes));
        self.whole_after_deltas(CURSOR_TEXT, &whole, record, items, diagnostics)
    }

    /// A whole copy of the text a family agent's deltas (continued by `key`) made: while
    /// the deltas are open, they are handed out, and the copy is dropped when it repeats them,
    /// else kept beside them with the difference reported; after they were closed, the copy
    /// is dropped when it repeats the last text closed. `true` when it was dropped.
    pub(super) fn whole_after_deltas(
        &mut self,
        key: &str,
        whole: &str,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> bool {
        if !self.continues(Some(key)) {
            return self.replays_closed(key, whole);
        }
        let repeats = self
            .family_text
            .as_ref()
            .is_some_and(|open| open.text == whole);
        if !repeats {
            diagnostics.push(Diagnostic::new(
                DiagnosticKind::StreamMismatch,
                record.line,
                record.offset,
                "the assistant's whole text differs from its partial-output deltas; both kept",
            ));
        }
        self.flush_family(items, diagnostics);
        if repeats {
            self.family_closed.pop();
        }
        repeats
    }

    /// Whether `whole` repeats the last text closed under `key`; it is then no longer awaited.
    fn replays_closed(&mut self, key: &str, whole: &str) -> bool {
        let last = self
            .family_closed
            .iter()
            .rposition(|(closed_key, _)| closed_key == key);
        match last {
            Some(at) if self.family_closed[at].1 == whole => {
                self.family_closed.remove(at);
                true
            }
            _ => false,
        }
    }

    /// Cursor's `thinking` records: deltas, then `completed`.
    pub(super) fn cursor_thinking(
        &mut self,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Fate {
        self.saw_agent("cursor-agent", None);
        let raw = to_value(record.bytes);
        if let Some(piece) = raw.get("text").and_then(Value::as_str) {
            self.accumulate("cursor thinking".into(), true, piece, record);
        }
        if raw.get("subtype").and_then(Value::as_str) == Some("completed") {
            self.flush_family(items, diagnostics);
        }
        Fate::Mapped
    }

    /// Cursor's `tool_call` records.
    pub(super) fn cursor_tool_call(
        &mut self,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Fate {
        self.saw_agent("cursor-agent", None);
        let raw = to_value(record.bytes);
        let source = Source::record(record.line, record.offset);
        let id = raw
            .get("call_id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let Some((key, call)) = raw
            .get("tool_call")
            .and_then(Value::as_object)
            .and_then(|call| call.iter().next())
        else {
            diagnostics.push(super::shape(
                record,
                "a tool_call record without its `tool_call`",
            ));
            return Fate::Skipped;
        };
        let (name, input) = match (key.as_str(), call.get("name")) {
            ("function", Some(Value::String(name))) => {
                let arguments = call.get("arguments").cloned().unwrap_or(Value::Null);
                (name.clone(), parse_arguments(arguments))
            }
            _ => {
                let name = key.strip_suffix("ToolCall").unwrap_or(key).to_owned();
                (
                    name,
                    call.get("args")
                        .cloned()
                        .unwrap_or(Value::Object(Map::new())),
                )
            }
        };
        match raw.get("subtype").and_then(Value::as_str) {
            Some("started") => {
                let blocks = tool_blocks(name, id.clone(), input, false, false);
                let call = made("tool_call".into(), Some(id), blocks);
                self.deliver(
                    call,
                    Role::Assistant,
                    &None,
                    &None,
                    source,
                    items,
                    diagnostics,
                );
            }
            Some("completed") => {
                let result = call.get("result").cloned().unwrap_or(Value::Null);
                let block = cursor_result(id, &result);
                let result = made("tool_call".into(), None, vec![block]);
                self.deliver(result, Role::User, &None, &None, source, items, diagnostics);
            }
            _ => {
                self.passthrough(record, "tool_call");
                return Fate::Passthrough;
            }
        }
        Fate::Mapped
    }

    /// Factory Droid's records (see the table above).
    pub(super) fn droid(
        &mut self,
        which: DroidRecord,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Fate {
        self.saw_agent("factory-droid", None);
        self.flush_family(items, diagnostics);
        let raw = to_value(record.bytes);
        let source = Source::record(record.line, record.offset);
        let text = |name: &str| raw.get(name).and_then(Value::as_str).map(str::to_owned);
        match which {
            DroidRecord::Message => {
                let said = text("text").unwrap_or_default();
                let role = match raw.get("role").and_then(Value::as_str) {
                    Some("assistant") => Role::Assistant,
                    Some("user") => Role::User,
                    _ => {
                        diagnostics.push(super::shape(
                            record,
                            "a message record whose `role` is neither user nor assistant",
                        ));
                        return Fate::Skipped;
                    }
                };
                if said.is_empty() {
                    return Fate::Mapped;
                }
                let message = made("text".into(), None, vec![Block::text(said)]);
                let id = text("id");
                self.deliver(message, role, &id, &None, source, items, diagnostics);
            }
            DroidRecord::ToolCall => {
                let (id, name) = (text("id").unwrap_or_default(), text("toolName"));
                let input = raw.get("parameters").cloned().unwrap_or(Value::Null);
                let blocks = tool_blocks(name.unwrap_or_default(), id.clone(), input, false, false);
                let call = made("tool_call".into(), Some(id), blocks);
                let message = text("messageId");
                self.deliver(
                    call,
                    Role::Assistant,
                    &message,
                    &None,
                    source,
                    items,
                    diagnostics,
                );
            }
            DroidRecord::ToolResult => {
                let Some(id) = text("id").or_else(|| self.tools.oldest_waiting()) else {
                    diagnostics.push(super::shape(
                        record,
                        "a tool_result without `id`, and no call waiting for it",
                    ));
                    return Fate::Skipped;
                };
                let error = raw.get("error").filter(|e| !e.is_null());
                let is_error =
                    raw.get("isError").and_then(Value::as_bool) == Some(true) || error.is_some();
                let content = match error {
                    Some(error) => error.get("message").cloned().unwrap_or(error.clone()),
                    None => raw.get("value").cloned().unwrap_or(Value::Null),
                };
                let block = Block::ToolResult {
                    tool_id: id,
                    tool_content: content.into(),
                    is_error,
                    exit_code: None,
                };
                let result = made("tool_result".into(), None, vec![block]);
                self.deliver(result, Role::User, &None, &None, source, items, diagnostics);
            }
            DroidRecord::Completion => {
                self.saw_result = true;
                if self.meta.status != RunStatus::Failed {
                    self.meta.status = RunStatus::Completed;
                }
                self.meta.answer = text("finalText").filter(|t| !t.is_empty());
                if let Some(turns) = raw.get("numTurns").and_then(Value::as_i64) {
                    self.meta.num_turns = Some(turns);
                }
                if let Some(ms) = raw.get("durationMs").and_then(Value::as_u64) {
                    self.meta.duration_ms = Some(ms);
                }
                if let Some(usage) = raw.get("usage")
                    && let Ok(usage) = serde_json::from_value::<MessageUsage>(usage.clone())
                {
                    self.family_usage = Some(usage.to_usage());
                }
            }
        }
        Fate::Mapped
    }

    /// A chat-message line in OpenAI's shape (Kimi CLI's `--print --output-format
    /// stream-json`): `tool_calls`, a `tool` message, or `think` blocks. `None` for a line
    /// the seed's `{role, content}` reading takes as it is.
    pub(super) fn chat_message(
        &mut self,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Option<Fate> {
        let raw = to_value(record.bytes);
        let role = raw.get("role").and_then(Value::as_str);
        let blocks = raw.get("content").and_then(Value::as_array);
        let thinks = blocks.is_some_and(|blocks| {
            blocks
                .iter()
                .any(|b| b.get("type").and_then(Value::as_str) == Some("think"))
        });
        let calls = raw.get("tool_calls").and_then(Value::as_array);
        if !(thinks || calls.is_some() || role == Some("tool")) {
            return None;
        }
        if thinks {
            self.saw_agent("kimi-cli", None);
        }
        let source = Source::record(record.line, record.offset);
        if role == Some("tool") {
            let block = Block::ToolResult {
                tool_id: (raw.get("tool_call_id").and_then(Value::as_str))
                    .unwrap_or_default()
                    .to_owned(),
                tool_content: match raw.get("content") {
                    Some(Value::Array(_)) => Value::String(letta_content(raw.get("content"))),
                    Some(other) => other.clone(),
                    None => Value::Null,
                }
                .into(),
                is_error: false,
                exit_code: None,
            };
            let result = made("tool".into(), None, vec![block]);
            self.deliver(result, Role::User, &None, &None, source, items, diagnostics);
            return Some(Fate::Mapped);
        }
        let mut said = Vec::new();
        match raw.get("content") {
            Some(Value::String(text)) if !text.is_empty() => said.push(Block::text(text.clone())),
            Some(Value::Array(blocks)) => {
                for block in blocks {
                    let field = |name: &str| block.get(name).and_then(Value::as_str);
                    match field("type") {
                        Some("think") => said.push(Block::Thinking {
                            thinking: field("think").unwrap_or_default().to_owned(),
                            signature: field("encrypted").map(str::to_owned),
                            redacted: false,
                        }),
                        Some("text") => said.push(Block::text(field("text").unwrap_or_default())),
                        _ => self
                            .meta
                            .keep(record.line, "content block", || block.clone()),
                    }
                }
            }
            _ => {}
        }
        if !said.is_empty() {
            let message = made("message".into(), None, said);
            self.deliver(
                message,
                Role::Assistant,
                &None,
                &None,
                source,
                items,
                diagnostics,
            );
        }
        for call in calls.into_iter().flatten() {
            let text = |pointer: &str| call.pointer(pointer).and_then(Value::as_str).unwrap_or("");
            let id = text("/id").to_owned();
            let input = parse_arguments(
                call.pointer("/function/arguments")
                    .cloned()
                    .unwrap_or(Value::Null),
            );
            let blocks = tool_blocks(
                text("/function/name").to_owned(),
                id.clone(),
                input,
                false,
                false,
            );
            let call = made("tool_call".into(), Some(id), blocks);
            self.deliver(
                call,
                Role::Assistant,
                &None,
                &None,
                source,
                items,
                diagnostics,
            );
        }
        Some(Fate::Mapped)
    }

    /// Letta Code's `message` records.
    pub(super) fn letta_message(
        &mut self,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Fate {
        self.saw_agent("letta-code", None);
        let raw = to_value(record.bytes);
        let source = Source::record(record.line, record.offset);
        let field = |name: &str| raw.get(name).and_then(Value::as_str);
        let kind = field("message_type").unwrap_or("");
        match kind {
            "assistant_message" | "reasoning_message" => {
                let thinking = kind == "reasoning_message";
                let piece = if thinking {
                    field("reasoning").unwrap_or("").to_owned()
                } else {
                    letta_content(raw.get("content"))
                };
                let key = letta_key(&raw);
                if !self.continues(Some(&key)) {
                    self.flush_family(items, diagnostics);
                }
                self.accumulate(key, thinking, &piece, record);
            }
            "tool_call_message" | "approval_request_message" => {
                self.flush_family(items, diagnostics);
                let call = raw.get("tool_call").unwrap_or(&Value::Null);
                let text = |name: &str| call.get(name).and_then(Value::as_str).unwrap_or("");
                let id = text("tool_call_id").to_owned();
                let input = parse_arguments(call.get("arguments").cloned().unwrap_or(Value::Null));
                let blocks = tool_blocks(text("name").to_owned(), id.clone(), input, false, false);
                let call = made("tool_call".into(), Some(id), blocks);
                self.deliver(
                    call,
                    Role::Assistant,
                    &None,
                    &None,
                    source,
                    items,
                    diagnostics,
                );
            }
            "tool_return_message" => {
                self.flush_family(items, diagnostics);
                let block = Block::ToolResult {
                    tool_id: field("tool_call_id").unwrap_or("").to_owned(),
                    tool_content: raw
                        .get("tool_return")
                        .cloned()
                        .unwrap_or(Value::Null)
                        .into(),
                    is_error: field("status") == Some("error"),
                    exit_code: None,
                };
                let result = made("tool_return".into(), None, vec![block]);
                self.deliver(result, Role::User, &None, &None, source, items, diagnostics);
            }
            "stop_reason" => {
                self.flush_family(items, diagnostics);
                if let Some(raw) = field("stop_reason") {
                    let kind = match raw {
                        "end_turn" => StopKind::EndTurn,
                        "max_steps" => StopKind::MaxTurns,
                        "error" | "llm_api_error" | "invalid_llm_response" => StopKind::Error,
                        "cancelled" => StopKind::Aborted,
                        _ => StopKind::Other,
                    };
                    self.meta.stop_reason = Some(StopReason {
                        kind,
                        raw: raw.to_owned(),
                    });
                }
            }
            "usage_statistics" => {
                self.flush_family(items, diagnostics);
                let count = |name: &str| raw.get(name).and_then(Value::as_u64).unwrap_or(0);
                self.family_usage
                    .get_or_insert_with(Usage::default)
                    .add(&Usage {
                        input_tokens: count("prompt_tokens"),
                        output_tokens: count("completion_tokens"),
                        ..Usage::default()
                    });
            }
            other => {
                self.flush_family(items, diagnostics);
                self.passthrough(record, &format!("message/{other}"));
                return Fate::Passthrough;
            }
        }
        Fate::Mapped
    }
}

/// The text of a record's `message.content` (a string, or text blocks).
fn message_text(raw: &Value) -> String {
    letta_content(raw.pointer("/message/content"))
}

/// A content that is a string, or a list of blocks whose `text` is joined.
fn letta_content(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|block| block.get("text").and_then(Value::as_str))
            .collect(),
        _ => String::new(),
    }
}

/// What continues a Letta text or thought: its kind and message (`otid`, else `id`).
fn letta_key(raw: &Value) -> String {
    let field = |name: &str| raw.get(name).and_then(Value::as_str).unwrap_or("");
    let message = [field("otid"), field("id")]
        .into_iter()
        .find(|id| !id.is_empty())
        .unwrap_or("");
    format!("letta {} {message}", field("message_type"))
}

/// Arguments as a JSON string are parsed; a string that is not JSON stays as it is.
fn parse_arguments(arguments: Value) -> Value {
    match arguments {
        Value::String(text) => serde_json::from_str(&text).unwrap_or(Value::String(text)),
        other => other,
    }
}

/// A Cursor tool call's `result` as a `tool_result` (see the module docs).
fn cursor_result(tool_id: String, result: &Value) -> Block {
    let (outcome, body) = result
        .as_object()
        .and_then(|result| result.iter().next())
        .map_or(("", &Value::Null), |(key, body)| (key.as_str(), body));
    let text = |name: &str| {
        body.get(name)
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
    };
    let content = match (text("content"), text("stdout"), text("stderr")) {
        (Some(content), _, _) => Value::String(content.to_owned()),
        (None, Some(stdout), None) => Value::String(stdout.to_owned()),
        (None, Some(stdout), Some(stderr)) => Value::String(format!("{stdout}{stderr}")),
        (None, None, Some(stderr)) => Value::String(stderr.to_owned()),
        (None, None, None) => body.clone(),
    };
    Block::ToolResult {
        tool_id,
        tool_content: content.into(),
        is_error: outcome != "success",
        exit_code: body.get("exitCode").and_then(Value::as_i64),
    }
}
