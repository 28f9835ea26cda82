//! The terminal `result` record: the run's status, stop reason, usage (from `modelUsage`,
//! else `usage`, else the sum of the messages' last usage snapshots), cost and answer, and
//! what that usage spans ([`UsageScope`]).
//!
//! A `result` restates the running total of its Claude Code process (every turn of a
//! streaming-input run ends in one), so the results of one session are never added up: its
//! latest total stands, unless it is all zero (a crash or start-up error result "may carry
//! zeroed usage", the Agent SDK says) after one that was not. A `/clear` starts a new
//! session, named by the results after it, whose total starts over: the run's usage is the
//! sum of its sessions' latest totals.
//!
//! This file fills the run's metadata; it hands out no block.

use serde_json::Value;

use super::State;
use super::wire::Line;
use crate::normalize::framing::Record;
use crate::normalize::json::to_value;
use crate::normalize::messages_api::{MessageUsage, stop_kind};
use crate::normalize::{RunError, RunStatus, StopKind, StopReason, Usage, UsageScope};

impl State {
    pub(super) fn result(&mut self, line: Line<'_>, record: Record<'_>) {
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
        let number = |value: &Option<Box<Value>>| value.as_deref().and_then(Value::as_f64);
        if let Some(ms) = number(&line.duration_ms).filter(|ms| *ms >= 0.0) {
            self.meta.duration_ms = Some(ms as u64);
        }
        if let Some(turns) = line.num_turns.as_deref().and_then(Value::as_i64) {
            self.meta.num_turns = Some(turns);
        }
        let cost = number(&line.total_cost_usd);
        let mut total = None;
        if let Some(usage) = line.usage.map(|usage| *usage) {
            if let Some(family) = super::family::result_usage(&usage) {
                total = Some(family);
            } else if let Ok(parsed) = serde_json::from_value::<MessageUsage>(usage.clone()) {
                total = Some(parsed.to_usage());
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
        if !failed && let Some(Value::String(text)) = line.result.as_deref() {
            self.meta.answer = Some(text.clone()).filter(|text| !text.is_empty());
        }
        if failed {
            let mut message = match line.result.as_deref() {
                Some(Value::String(text)) if !text.is_empty() => text.clone(),
                _ => String::new(),
            };
            if let Some(Value::Array(errors)) = line.errors.as_deref() {
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
            if let Some(models) = model_usage_total(model_usage) {
                total = Some(models);
            }
            self.keep(record, "result/modelUsage", model_usage.clone());
        }
        let session = line.session_id.as_deref();
        self.totals.record(session, total, cost);
        self.meta.cost_usd = self.totals.cost();
    }

    /// The run's usage and cost from its results, when any said them, and what they span:
    /// from Claude Code 2.1.277 on, a session's running total (see [`UsageScope`]).
    pub(super) fn settle_totals(&mut self) -> Option<Usage> {
        let usage = self.totals.usage();
        self.meta.cost_usd = self.totals.cost();
        if usage.is_some() || self.meta.cost_usd.is_some() {
            let version = self.meta.provider_version.as_deref();
            if version.is_some_and(|v| at_least(v, CARRIES_SESSION_TOTALS)) {
                self.meta.usage_scope = UsageScope::Session;
            }
        }
        usage
    }

    pub(super) fn usage_snapshot(&mut self, message_id: &str, usage: MessageUsage) {
        match self.message_usage.get_mut(message_id) {
            Some(last) => last.update(usage),
            None => {
                self.message_order.push(message_id.to_owned());
                self.message_usage.insert(message_id.to_owned(), usage);
            }
        }
    }
}

/// The first Claude Code version whose results carry a resumed session's earlier totals.
const CARRIES_SESSION_TOTALS: [u64; 3] = [2, 1, 277];

/// Whether a version string (`2.1.280`) is at least `floor`; `false` when it is no version.
fn at_least(version: &str, floor: [u64; 3]) -> bool {
    let mut parts = version.trim().split('.').map(|part| {
        let digits = part.bytes().take_while(u8::is_ascii_digit).count();
        part[..digits].parse::<u64>().ok()
    });
    let mut numbers = [0u64; 3];
    for number in &mut numbers {
        match parts.next() {
            Some(Some(n)) => *number = n,
            _ => return false,
        }
    }
    numbers >= floor
}

/// What the `result` records said, per Claude session: its latest running total.
#[derive(Default)]
pub(super) struct Totals {
    sessions: Vec<SessionTotal>,
}

struct SessionTotal {
    session: Option<String>,
    usage: Option<Usage>,
    cost: Option<f64>,
}

impl Totals {
    /// A result's totals for `session`: they replace the session's earlier ones, unless they
    /// are missing or all zero and the earlier ones are not.
    fn record(&mut self, session: Option<&str>, usage: Option<Usage>, cost: Option<f64>) {
        let at = match self
            .sessions
            .iter()
            .position(|s| s.session.as_deref() == session)
        {
            Some(at) => at,
            None => {
                self.sessions.push(SessionTotal {
                    session: session.map(str::to_owned),
                    usage: None,
                    cost: None,
                });
                self.sessions.len() - 1
            }
        };
        let known = &mut self.sessions[at];
        let zeroed = usage.is_none_or(|u| u == Usage::default()) && cost.is_none_or(|c| c == 0.0);
        let had = known.usage.is_some_and(|u| u != Usage::default())
            || known.cost.is_some_and(|c| c != 0.0);
        if zeroed && had {
            return;
        }
        known.usage = usage.or(known.usage);
        known.cost = cost.or(known.cost);
    }

    fn usage(&self) -> Option<Usage> {
        self.sessions
            .iter()
            .filter_map(|s| s.usage)
            .reduce(|mut total, usage| {
                total.add(&usage);
                total
            })
    }

    fn cost(&self) -> Option<f64> {
        self.sessions
            .iter()
            .filter_map(|s| s.cost)
            .reduce(|total, cost| total + cost)
    }
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

pub(super) fn stop_reason(
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
        return reason(stop_kind(raw), raw);
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
