//! Codex's session files, `~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`: one record a line,
//! `{"timestamp", "type", "payload"}`, every record's `timestamp` its source time.
//!
//! * `session_meta`: the thread's id (the run's session), the CLI's version, its working
//!   directory, source and model provider; kept as passthrough.
//! * `response_item`: the conversation itself, as Responses API items (`message`,
//!   `reasoning`, `function_call` and its `function_call_output`, `custom_tool_call` and
//!   its output, `local_shell_call`, `web_search_call`, ...), read by the OpenAI adapter's
//!   reading of Responses items, so an item means the same wherever it is kept. Codex's own
//!   kinds (`ghost_snapshot`, its undo point; `compaction`) are kept as passthrough.
//! * `event_msg`: what the UI was told. `token_count` carries the thread's running total
//!   (`info.total_token_usage`): each replaces the last; a total lower than the one before
//!   starts a new leg (a process that did not carry the total on), added to the legs
//!   before, so a session is counted once. `error` and `stream_error` are non-fatal run
//!   errors. `user_message`, `agent_message` and `agent_reasoning` repeat the
//!   `response_item`s beside them and are not read again (ignored, counted); every other
//!   event (turn markers, command and patch ends, review mode, compaction notices) is kept
//!   as passthrough.
//! * `turn_context`: the model of the turn (the run's model is the last one); passthrough.
//! * `compacted`: a compaction's summary, kept as passthrough; what came before it stays in
//!   the run.
//!
//! A session file has no terminal record: a file that ends is complete as far as it goes
//! (an importer says so), and a `response_item` call without its output is reported.
//!
//! This room owns the rollout's record types; the state of an `exec --json` stream is the
//! adapter's, the meaning of a Responses item the OpenAI adapter's.

use serde_json::Value;

use super::wire::TokenUsage;
use crate::normalize::framing::Record;
use crate::normalize::openai::ResponsesItems;
use crate::normalize::report::Fate;
use crate::normalize::{Diagnostic, Item, RunMeta, Usage};

mod skim;

pub(super) use skim::{CallOutput, skim};

/// Whether a record's `type` is a rollout record's.
pub(super) fn is_rollout(kind: &str) -> bool {
    matches!(
        kind,
        "session_meta" | "response_item" | "event_msg" | "turn_context" | "compacted"
    )
}

/// A rollout record's envelope: its `type`, `payload` and `timestamp`.
pub(super) struct RolloutLine<'a> {
    pub(super) kind: &'a str,
    pub(super) payload: &'a Value,
    pub(super) timestamp: Option<&'a str>,
}

/// The state a rollout needs between records.
pub(super) struct Rollout {
    items: ResponsesItems,
    /// The running total of the current leg, and the legs before it added up.
    total: Option<Usage>,
    legs: Usage,
    seen: bool,
}

impl Rollout {
    pub(super) fn new() -> Self {
        Rollout {
            items: ResponsesItems::new(),
            total: None,
            legs: Usage::default(),
            seen: false,
        }
    }

    /// Whether any rollout record was read.
    pub(super) fn seen(&self) -> bool {
        self.seen
    }

    /// One rollout record.
    pub(super) fn record(
        &mut self,
        line: RolloutLine<'_>,
        record: Record<'_>,
        meta: &mut RunMeta,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Fate {
        let RolloutLine {
            kind,
            payload,
            timestamp,
        } = line;
        self.seen = true;
        if let Some(timestamp) = timestamp {
            meta.saw_time(timestamp);
        }
        let payload_kind = payload.get("type").and_then(Value::as_str).unwrap_or("");
        match kind {
            "session_meta" => {
                let text = |key: &str| payload.get(key).and_then(Value::as_str).map(str::to_owned);
                if meta.session_id.is_none() {
                    meta.session_id = text("id");
                }
                if meta.provider_version.is_none() {
                    meta.provider_version = text("cli_version");
                }
                keep(meta, record, "session_meta", payload);
                Fate::Mapped
            }
            "response_item" => match payload_kind {
                "ghost_snapshot" | "compaction" | "compaction_summary" => {
                    keep(
                        meta,
                        record,
                        &format!("response_item/{payload_kind}"),
                        payload,
                    );
                    Fate::Passthrough
                }
                _ => match self.items.item(payload, record, meta, items, diagnostics) {
                    true => Fate::Mapped,
                    false => Fate::Skipped,
                },
            },
            "event_msg" => self.event(payload_kind, payload, record, meta),
            "turn_context" => {
                if let Some(model) = payload.get("model").and_then(Value::as_str) {
                    meta.model = Some(model.to_owned());
                }
                keep(meta, record, "turn_context", payload);
                Fate::Mapped
            }
            _ => {
                // `compacted`: the summary a compaction made; the history before it stays.
                keep(meta, record, kind, payload);
                Fate::Passthrough
            }
        }
    }

    /// A call's output record read by [`skim`]: what [`Rollout::record`] makes of it.
    pub(super) fn call_output(
        &mut self,
        output: CallOutput<'_>,
        record: Record<'_>,
        meta: &mut RunMeta,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Fate {
        let CallOutput {
            timestamp,
            call_id,
            output,
            ..
        } = output;
        self.seen = true;
        meta.saw_time(timestamp);
        self.items
            .call_output(call_id, output, record, items, diagnostics);
        Fate::Mapped
    }

    fn event(
        &mut self,
        kind: &str,
        payload: &Value,
        record: Record<'_>,
        meta: &mut RunMeta,
    ) -> Fate {
        match kind {
            "token_count" => {
                // Two lookups, not `Value::pointer`: it splits its path and builds a string
                // of each part (~2,600 instructions a call, 96.7M of a 100-session import).
                let total = payload
                    .get("info")
                    .and_then(|info| info.get("total_token_usage"));
                if let Some(usage) = total
                    && let Some(total) = TokenUsage::read(usage)
                {
                    self.count(total, meta);
                    meta.raw_usage = Some(usage.clone());
                }
                Fate::Mapped
            }
            "error" | "stream_error" => {
                let message = payload
                    .get("message")
                    .and_then(Value::as_str)
                    .map_or_else(|| format!("{kind} without a message"), str::to_owned);
                meta.errors.push(crate::model::RunError {
                    message,
                    line: record.line,
                    fatal: false,
                });
                Fate::Mapped
            }
            // The response items beside them say the same.
            "user_message"
            | "agent_message"
            | "agent_reasoning"
            | "agent_reasoning_raw_content" => Fate::Ignored,
            _ => {
                keep(meta, record, &format!("event_msg/{kind}"), payload);
                Fate::Passthrough
            }
        }
    }

    /// A running total: it replaces the last, unless it went down (a new leg).
    fn count(&mut self, total: Usage, meta: &mut RunMeta) {
        if let Some(last) = self.total
            && (total.input_tokens < last.input_tokens
                || total.output_tokens < last.output_tokens
                || total.cache_read_tokens < last.cache_read_tokens)
        {
            self.legs.add(&last);
        }
        self.total = Some(total);
        let mut usage = self.legs;
        usage.add(&total);
        meta.usage = usage;
    }

    /// The input has ended: calls without their output are reported.
    pub(super) fn finish(&mut self, diagnostics: &mut Vec<Diagnostic>) {
        self.items.finish(diagnostics);
    }
}

fn keep(meta: &mut RunMeta, record: Record<'_>, kind: &str, payload: &Value) {
    meta.keep(record.line, kind, || payload.clone());
}
