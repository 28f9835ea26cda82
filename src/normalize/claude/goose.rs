//! Goose in the family: `goose run --output-format stream-json`, one record a line.
//!
//! The shapes are Goose 1.20's (`crates/goose-cli/src/session/mod.rs`, its `StreamEvent`;
//! the message content of `crates/goose/src/conversation/message.rs` and the tool results of
//! `tool_result_serde.rs`):
//!
//! * `message {message: {id, role, created, content[], metadata}}`: a whole message, or,
//!   when the model streams, one chunk of it: the chunks of one message share its `id` and
//!   each carries a piece of text (or thinking). Pieces of one message and kind in a row are
//!   one block. Content items: `text`; `thinking` (`thinking`, `signature`);
//!   `redactedThinking` (`data`); `toolRequest` (`id`, `toolCall`: `{status: success,
//!   value: {name, arguments}}` or `{status: error, error}`, a call the model got wrong,
//!   kept as a call with no name and the error as its input); `toolResponse` (`id`,
//!   `toolResult`: `{status: success, value: {content[], isError}}`, the value a bare content
//!   list before Goose kept MCP's whole result, or `{status: error, error}`), in a `user`
//!   message. Any other item (`image`, `toolConfirmationRequest`, `actionRequired`,
//!   `frontendToolRequest`, `systemNotification`) is kept in the run's metadata.
//! * `model_change {model, mode}`: the first names the run's model; all are kept.
//! * `notification {extension_id, log | progress}`: an extension's MCP notification, kept.
//! * `error {error}`: the run failed (a fatal run error).
//! * `complete {total_tokens}`: the run's end; Goose reports no split of the tokens, so the
//!   count is the run's raw usage, and its usage stays unknown.
//!
//! This file hands out the blocks of those records; the family's accumulation of text is
//! `family`'s.

use serde_json::{Value, json};

use super::State;
use crate::model::{Block, Role};
use crate::normalize::framing::Record;
use crate::normalize::json::to_value;
use crate::normalize::messages_api::{made, tool_blocks};
use crate::normalize::report::Fate;
use crate::normalize::{Diagnostic, Item, RunError, RunStatus, Source};

/// The agent's name in the run's metadata.
const GOOSE: &str = "goose";

impl State {
    /// A Goose `message` record (see the module docs).
    pub(super) fn goose_message(
        &mut self,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Fate {
        self.saw_agent(GOOSE, None);
        let raw = to_value(record.bytes);
        let message = raw.get("message").unwrap_or(&Value::Null);
        let text = |value: &Value, name: &str| {
            value
                .get(name)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        };
        let role = match message.get("role").and_then(Value::as_str) {
            Some("assistant") => Role::Assistant,
            Some("user") => Role::User,
            _ => {
                self.flush_family(items, diagnostics);
                diagnostics.push(super::shape(
                    record,
                    "a message record whose `role` is neither user nor assistant",
                ));
                return Fate::Skipped;
            }
        };
        let id = message.get("id").and_then(Value::as_str).map(str::to_owned);
        // Chunks without a message id are not known to continue each other.
        let message_key = id
            .clone()
            .unwrap_or_else(|| format!("line {}", record.line));
        let source = Source::record(record.line, record.offset);
        let content = message.get("content").and_then(Value::as_array);
        for item in content.into_iter().flatten() {
            let kind = item.get("type").and_then(Value::as_str).unwrap_or("");
            match kind {
                "text" if role == Role::User => {
                    self.flush_family(items, diagnostics);
                    let said = made(kind.to_owned(), None, vec![Block::text(text(item, kind))]);
                    self.deliver(said, Role::User, &id, &None, source, items, diagnostics);
                    continue;
                }
                "text" | "thinking" => {
                    let thinking = kind == "thinking";
                    let key = format!("goose {kind} {message_key}");
                    if !self.continues(Some(&key)) {
                        self.flush_family(items, diagnostics);
                    }
                    self.accumulate(key, thinking, &text(item, kind), record);
                    if thinking {
                        self.sign_family(&text(item, "signature"));
                    }
                    continue;
                }
                _ => self.flush_family(items, diagnostics),
            }
            let (canonical, role) = match kind {
                "redactedThinking" => {
                    let block = Block::Thinking {
                        thinking: String::new(),
                        signature: Some(text(item, "data")),
                        redacted: true,
                    };
                    (made(kind.to_owned(), None, vec![block]), role.clone())
                }
                "toolRequest" => {
                    let tool_id = text(item, "id");
                    let call = item.get("toolCall").unwrap_or(&Value::Null);
                    let (name, input) = match call.get("value") {
                        Some(value) => (
                            text(value, "name"),
                            value.get("arguments").cloned().unwrap_or(json!({})),
                        ),
                        None => (String::new(), json!({"error": text(call, "error")})),
                    };
                    let blocks = tool_blocks(name, tool_id.clone(), input, false, false);
                    (
                        made(kind.to_owned(), Some(tool_id), blocks),
                        Role::Assistant,
                    )
                }
                "toolResponse" => {
                    let result = item.get("toolResult").unwrap_or(&Value::Null);
                    let block = goose_result(text(item, "id"), result);
                    (made(kind.to_owned(), None, vec![block]), Role::User)
                }
                _ => {
                    self.meta
                        .keep(record.line, "content block", || item.clone());
                    continue;
                }
            };
            self.deliver(canonical, role, &id, &None, source, items, diagnostics);
        }
        Fate::Mapped
    }

    /// Goose's other records: `model_change`, `notification`, `error`, `complete`.
    pub(super) fn goose_event(&mut self, kind: &str, record: Record<'_>) -> Fate {
        let raw = to_value(record.bytes);
        // Other agents write a `notification` too; Goose's names its extension.
        if kind != "notification" || raw.get("extension_id").is_some() {
            self.saw_agent(GOOSE, None);
        }
        match kind {
            "model_change" => {
                if self.meta.model.is_none() {
                    self.meta.model = raw.get("model").and_then(Value::as_str).map(str::to_owned);
                }
            }
            "error" => {
                self.meta.status = RunStatus::Failed;
                self.meta.errors.push(RunError {
                    message: raw
                        .get("error")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                    fatal: true,
                    line: record.line,
                });
            }
            "complete" => {
                self.saw_result = true;
                if self.meta.status != RunStatus::Failed {
                    self.meta.status = RunStatus::Completed;
                }
                if let Some(total) = raw.get("total_tokens").filter(|t| !t.is_null()) {
                    self.meta.raw_usage = Some(json!({"total_tokens": total}));
                }
                return Fate::Mapped;
            }
            _ => {
                self.keep(record, kind, raw);
                return Fate::Passthrough;
            }
        }
        self.keep(record, kind, raw);
        Fate::Mapped
    }
}

/// A `toolResponse`'s `toolResult` as a `tool_result`: the text of its content items (the
/// items themselves when any is not text), failed by `isError` or an `error` status.
fn goose_result(tool_id: String, result: &Value) -> Block {
    let error = result.get("error").and_then(Value::as_str);
    let value = result.get("value").unwrap_or(&Value::Null);
    // Goose before 1.1x wrote the content list as the value itself.
    let content = match value {
        Value::Array(_) => value,
        _ => value.get("content").unwrap_or(&Value::Null),
    };
    let texts: Option<Vec<&str>> = content.as_array().map(|items| {
        items
            .iter()
            .map_while(|item| match item.get("type").and_then(Value::as_str) {
                Some("text") => item.get("text").and_then(Value::as_str),
                _ => None,
            })
            .collect()
    });
    let all_text = texts
        .as_ref()
        .zip(content.as_array())
        .is_some_and(|(texts, items)| texts.len() == items.len());
    let tool_content = match (error, all_text, texts) {
        (Some(error), _, _) => Value::String(error.to_owned()),
        (None, true, Some(texts)) => Value::String(texts.concat()),
        _ => content.clone(),
    };
    let is_error = error.is_some() || value.get("isError").and_then(Value::as_bool) == Some(true);
    Block::ToolResult {
        tool_id,
        tool_content: tool_content.into(),
        is_error,
        exit_code: None,
    }
}
