//! The token counts of a session log's `session.shutdown` records: per model, and across
//! the legs of a resumed session (a running total, or each process alone on older CLIs).

use serde_json::Value;

use super::super::Usage;

/// The token counts of a session log's `session.shutdown` records, per model.
#[derive(Default)]
pub(super) struct ShutdownUsage {
    /// The legs before the current one, added up (older CLIs count each process alone).
    legs_before: Usage,
    /// The latest shutdown's counts, per model.
    last: Vec<(String, Usage)>,
}

impl ShutdownUsage {
    /// The next shutdown's counts: the same leg's running total when no count went down,
    /// else a new leg.
    pub(super) fn add(&mut self, per_model: Vec<(String, Usage)>) {
        let running_total = self.last.iter().all(|(model, before)| {
            per_model
                .iter()
                .find(|(m, _)| m == model)
                .is_some_and(|(_, now)| not_less(now, before))
        });
        if !running_total {
            self.legs_before.add(&sum(&self.last));
        }
        self.last = per_model;
    }

    pub(super) fn total(&self) -> Usage {
        let mut total = self.legs_before;
        total.add(&sum(&self.last));
        total
    }
}

fn sum(per_model: &[(String, Usage)]) -> Usage {
    let mut total = Usage::default();
    for (_, usage) in per_model {
        total.add(usage);
    }
    total
}

fn not_less(now: &Usage, before: &Usage) -> bool {
    now.input_tokens >= before.input_tokens
        && now.output_tokens >= before.output_tokens
        && now.cache_read_tokens >= before.cache_read_tokens
        && now.cache_write_tokens >= before.cache_write_tokens
        && now.reasoning_tokens >= before.reasoning_tokens
}

/// `modelMetrics`: `{<model>: {usage: {inputTokens, outputTokens, cacheReadTokens,
/// cacheWriteTokens, reasoningTokens}, requests}}`, `inputTokens` including the cache. Models
/// without a `usage` object are left out.
pub(crate) fn model_metrics(metrics: &Value) -> Vec<(String, Usage)> {
    let Some(models) = metrics.as_object() else {
        return Vec::new();
    };
    models
        .iter()
        .filter_map(|(model, entry)| {
            let usage = entry.get("usage")?.as_object()?;
            let count = |field: &str| usage.get(field).and_then(Value::as_u64).unwrap_or(0);
            let (cache_read, cache_write) = (count("cacheReadTokens"), count("cacheWriteTokens"));
            let usage = Usage {
                input_tokens: count("inputTokens").saturating_sub(cache_read + cache_write),
                output_tokens: count("outputTokens"),
                cache_read_tokens: cache_read,
                cache_write_tokens: cache_write,
                reasoning_tokens: count("reasoningTokens"),
            };
            Some((model.clone(), usage))
        })
        .collect()
}
