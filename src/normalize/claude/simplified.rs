//! The seed's simplified format (`claude-code-transcript-format.txt`): bare `text`,
//! `tool_use`, `tool_result`, `error` and `stop` lines.
//!
//! Rare and small, so read from the record's JSON tree; the blocks go out through
//! `State::deliver` as any other.

use serde_json::Value;

use super::State;
use super::result::stop_reason;
use crate::model::{Block, Role};
use crate::normalize::framing::Record;
use crate::normalize::json::to_value;
use crate::normalize::messages_api::{made, tool_blocks};
use crate::normalize::{Diagnostic, Item, RunError, RunStatus, Source};

impl State {
    /// A line of the seed's simplified format: `text`, `tool_use`, `tool_result` (its
    /// `output`; without `tool_use_id` it answers the oldest call waiting), `error` (kept as
    /// a run error) and `stop` (a terminal record: the run completed, or failed when it says
    /// `success: false`). Rare and small, so read from the record's JSON tree.
    pub(super) fn simplified(
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
                let text = vec![Block::text(text.to_owned())];
                (made(kind.to_owned(), None, text).printed(), Role::Assistant)
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
                    made(kind.to_owned(), Some(tool_id), blocks).printed(),
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
                        .unwrap_or(Value::Null)
                        .into(),
                    is_error: raw
                        .get("is_error")
                        .and_then(Value::as_bool)
                        .unwrap_or(false),
                    exit_code: None,
                }];
                (made(kind.to_owned(), None, result).printed(), Role::User)
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
}
