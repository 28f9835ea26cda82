//! Cline in the family: `cline --json "..."` (the CLI of Cline 3.x), one record a line.
//!
//! The shapes are Cline CLI 3.0.56's (cline/cline: `apps/cli/src/utils/output.ts`, which
//! writes every record with its `ts`; `apps/cli/src/runtime/run-agent.ts`;
//! `apps/cli/src/utils/events.ts`; the events of `sdk/packages/shared/src/agents/types.ts`
//! as `sdk/packages/core/src/runtime/orchestration/runtime-event-adapter.ts` makes them):
//!
//! * `run_start {providerId, modelId, catalog, thinking, mode, sessionId}`: the run's model
//!   and session.
//! * `agent_event {event}`, by the event's `type`:
//!   * `content_start`: `contentType` `text` or `reasoning`, a delta (`text`, or
//!     `reasoning`), accumulated into one block per kind; `tool`, a call (`toolName`,
//!     `toolCallId`, `input`).
//!   * `content_end`: `text` and `reasoning`, the whole text of the deltas before it (Cline
//!     writes the message's text, then its reasoning, after both kinds of deltas): dropped
//!     when it repeats them, kept (and `stream-mismatch` reported) when it differs, the block
//!     itself when no delta came; `tool`, the call's result (`output`, whose
//!     `{query, result, success}` list is read as the text of its results, and `error`,
//!     which fails it).
//!   * `usage`: the running totals (`totalInputTokens`, `totalOutputTokens`,
//!     `totalCacheReadTokens`, `totalCacheWriteTokens`, `totalCost`); the last stands.
//!   * `error`: a run error (`error.message`); `done`: the agent's stop (`reason`, `text`).
//!   * `content_update` (a tool's progress), `iteration_start`, `iteration_end`, `notice`:
//!     kept.
//! * `run_result {finishReason, iterations, usage, aggregateUsage, durationMs, text, model}`:
//!   the run's end; `completed` completes it, any other reason fails it.
//! * `run_aborted {reason, message}` fails the run; `run_abort_requested`, `team_event`,
//!   `hook_event`, `team_restored` are kept.
//!
//! Errors before the run (no provider configured) go to stderr, not to this stream.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::{Value, json};

use super::State;
use crate::model::{Block, Role};
use crate::normalize::framing::Record;
use crate::normalize::json::{RecordShape, to_value};
use crate::normalize::messages_api::{made, tool_blocks};
use crate::normalize::report::{Fate, Fields, Kind};
use crate::normalize::{
    Diagnostic, Item, RunError, RunStatus, Source, StopKind, StopReason, Usage,
};

/// The agent's name in the run's metadata.
pub(super) const CLINE: &str = "cline";

/// A Cline record's shape: its type and its event's, all the record parser reads. Cline's
/// records are not Claude Code's: their `message` and their event's are strings, where
/// Claude Code's are objects, so they are not read as Claude Code's lines.
pub(super) struct ClineShape;

impl RecordShape for ClineShape {
    type Of<'a> = ClineLine<'a>;

    fn kind<'v>(line: &'v ClineLine<'_>) -> Kind<'v> {
        (&line.kind, line.event.as_ref().map(|event| &*event.kind))
    }

    fn fields(_: Kind<'_>) -> Option<Fields> {
        None
    }
}

#[derive(Deserialize)]
pub(super) struct ClineLine<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    event: Option<ClineEvent<'a>>,
}

#[derive(Deserialize)]
struct ClineEvent<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Cow<'a, str>,
}

/// Whether a record is Cline's: it leads with the `ts` every Cline record is written with,
/// or the stream is known to be Cline's.
pub(super) fn is_cline(state: &State, bytes: &[u8]) -> bool {
    state.meta.agent.as_deref() == Some(CLINE) || bytes.trim_ascii_start().starts_with(b"{\"ts\":")
}

impl State {
    /// A Cline record, by its type.
    pub(super) fn cline_line(
        &mut self,
        line: ClineLine<'_>,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Fate {
        if line.kind == "agent_event" {
            return self.cline_event(record, items, diagnostics);
        }
        self.flush_family(items, diagnostics);
        self.cline_record(&line.kind, record)
    }

    /// A Cline record other than `agent_event`.
    pub(super) fn cline_record(&mut self, kind: &str, record: Record<'_>) -> Fate {
        self.saw_agent(CLINE, None);
        let raw = to_value(record.bytes);
        let text = |name: &str| raw.get(name).and_then(Value::as_str).map(str::to_owned);
        match kind {
            "run_start" => {
                if self.meta.model.is_none() {
                    self.meta.model = text("modelId");
                }
                if self.meta.session_id.is_none() {
                    self.meta.session_id = text("sessionId");
                }
            }
            "run_result" => {
                self.saw_result = true;
                let finish = text("finishReason");
                self.meta.status = match finish.as_deref() {
                    Some("completed") if self.meta.status != RunStatus::Failed => {
                        RunStatus::Completed
                    }
                    _ => RunStatus::Failed,
                };
                if let Some(reason) = finish {
                    self.meta.stop_reason = Some(stop_reason(reason));
                }
                self.meta.answer = text("text").filter(|t| !t.is_empty());
                if let Some(turns) = raw.get("iterations").and_then(Value::as_i64) {
                    self.meta.num_turns = Some(turns);
                }
                if let Some(ms) = raw.get("durationMs").and_then(Value::as_u64) {
                    self.meta.duration_ms = Some(ms);
                }
                // `aggregateUsage` adds the sub-agents' to the lead's.
                let usage = raw.get("aggregateUsage").or_else(|| raw.get("usage"));
                if let Some(usage) = usage {
                    self.family_usage = Some(camel_usage(usage, ""));
                    self.family_cost = usage.get("totalCost").and_then(Value::as_f64);
                    self.meta.raw_usage = Some(usage.clone());
                }
                if self.meta.model.is_none() {
                    self.meta.model = text("model");
                }
                return Fate::Mapped;
            }
            "run_aborted" => {
                self.meta.status = RunStatus::Failed;
                self.meta.errors.push(RunError {
                    message: text("message").or(text("reason")).unwrap_or_default(),
                    fatal: true,
                    line: record.line,
                });
            }
            _ => {
                self.keep(record, kind, raw);
                return Fate::Passthrough;
            }
        }
        self.keep(record, kind, raw);
        Fate::Mapped
    }

    /// A Cline `agent_event` record (see the module docs).
    pub(super) fn cline_event(
        &mut self,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Fate {
        self.saw_agent(CLINE, None);
        let raw = to_value(record.bytes);
        let event = raw.get("event").unwrap_or(&Value::Null);
        let field = |name: &str| event.get(name).and_then(Value::as_str);
        let source = Source::record(record.line, record.offset);
        let kind = field("type").unwrap_or("");
        let content = field("contentType").unwrap_or("");
        // The deltas of a kind are continued by their kind, and by nothing else.
        let key = format!("cline {content}");
        match (kind, content) {
            ("content_start", "text" | "reasoning") => {
                let thinking = content == "reasoning";
                let piece = field(if thinking { "reasoning" } else { "text" }).unwrap_or("");
                if !self.continues(Some(&key)) {
                    self.flush_family(items, diagnostics);
                }
                self.accumulate(key, thinking, piece, record);
            }
            ("content_end", "text" | "reasoning") => {
                let thinking = content == "reasoning";
                let whole = field(if thinking { "reasoning" } else { "text" }).unwrap_or("");
                if self.whole_after_deltas(&key, whole, record, items, diagnostics) {
                    return Fate::Ignored;
                }
                if whole.is_empty() {
                    return Fate::Mapped;
                }
                let block = if thinking {
                    Block::Thinking {
                        thinking: whole.to_owned(),
                        signature: None,
                        redacted: false,
                    }
                } else {
                    Block::text(whole)
                };
                let said = made(content.to_owned(), None, vec![block]);
                self.say(said, Role::Assistant, source, items, diagnostics);
            }
            ("content_start", "tool") => {
                self.flush_family(items, diagnostics);
                let id = field("toolCallId").unwrap_or("").to_owned();
                let input = event.get("input").cloned().unwrap_or(json!({}));
                let blocks = tool_blocks(
                    field("toolName").unwrap_or("").to_owned(),
                    id.clone(),
                    input,
                    false,
                    false,
                );
                let call = made("tool".into(), Some(id), blocks);
                self.say(call, Role::Assistant, source, items, diagnostics);
            }
            ("content_end", "tool") => {
                self.flush_family(items, diagnostics);
                let block = cline_result(field("toolCallId").unwrap_or("").to_owned(), event);
                let result = made("tool".into(), None, vec![block]);
                self.say(result, Role::User, source, items, diagnostics);
            }
            ("usage", _) => {
                self.family_usage = Some(camel_usage(event, "total"));
                if let Some(cost) = event.get("totalCost").and_then(Value::as_f64) {
                    self.family_cost = Some(cost);
                }
            }
            ("error", _) => {
                self.flush_family(items, diagnostics);
                let message = event
                    .pointer("/error/message")
                    .or_else(|| event.get("error"))
                    .map(|e| e.as_str().map_or_else(|| e.to_string(), str::to_owned))
                    .unwrap_or_default();
                let fatal = event.get("recoverable").and_then(Value::as_bool) != Some(true);
                self.meta.errors.push(RunError {
                    message,
                    fatal,
                    line: record.line,
                });
            }
            ("done", _) => {
                self.flush_family(items, diagnostics);
                if let Some(reason) = field("reason") {
                    self.meta.stop_reason = Some(stop_reason(reason.to_owned()));
                }
                self.keep(record, "agent_event/done", raw);
            }
            (other, _) => {
                let other = format!("agent_event/{other}");
                self.keep(record, &other, raw);
                return Fate::Passthrough;
            }
        }
        Fate::Mapped
    }
}

/// Cline's finish reasons as a stop.
fn stop_reason(raw: String) -> StopReason {
    let kind = match raw.as_str() {
        "completed" => StopKind::EndTurn,
        "max_iterations" => StopKind::MaxTurns,
        "aborted" => StopKind::Aborted,
        "error" => StopKind::Error,
        _ => StopKind::Other,
    };
    StopReason { kind, raw }
}

/// A usage in Cline's camel case, its names prefixed by `prefix` (`total` for the running
/// totals: `totalInputTokens`).
fn camel_usage(usage: &Value, prefix: &str) -> Usage {
    let count = |name: &str| {
        let name = if prefix.is_empty() {
            let mut chars = name.chars();
            chars
                .next()
                .map(|first| first.to_ascii_lowercase().to_string() + chars.as_str())
                .unwrap_or_default()
        } else {
            format!("{prefix}{name}")
        };
        usage.get(&name).and_then(Value::as_u64).unwrap_or(0)
    };
    Usage {
        input_tokens: count("InputTokens"),
        output_tokens: count("OutputTokens"),
        cache_read_tokens: count("CacheReadTokens"),
        cache_write_tokens: count("CacheWriteTokens"),
        reasoning_tokens: 0,
    }
}

/// A tool's `content_end` as a `tool_result`: its `error` fails it; an `output` that is a
/// list of `{query, result, success, error}` (what Cline's tools return) is the text of its
/// results (an empty result's error in its place), failed when one did not succeed; any
/// other output is kept as it is.
fn cline_result(tool_id: String, event: &Value) -> Block {
    let error = event.get("error").and_then(Value::as_str);
    let output = event.get("output").unwrap_or(&Value::Null);
    let operations = output.as_array().filter(|results| {
        results
            .iter()
            .all(|result| result.get("result").is_some_and(Value::is_string))
    });
    let (content, failed) = match (error, operations) {
        (Some(error), None) if output.is_null() => (Value::String(error.to_owned()), true),
        (_, Some(results)) => (
            Value::String(results.iter().map(operation_text).collect()),
            results
                .iter()
                .any(|result| result.get("success").and_then(Value::as_bool) == Some(false)),
        ),
        _ => (output.clone(), false),
    };
    Block::ToolResult {
        tool_id,
        tool_content: content.into(),
        is_error: failed || error.is_some(),
        exit_code: None,
    }
}

/// One of a tool's `{query, result, success, error}` results as text: its result, or its
/// error when the result is empty.
fn operation_text(operation: &Value) -> &str {
    let text = |name: &str| operation.get(name).and_then(Value::as_str).unwrap_or("");
    match text("result") {
        "" => text("error"),
        result => result,
    }
}
