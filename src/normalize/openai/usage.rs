//! Token usage and cost of either API, in axt's convention (see [`Usage`]): per response
//! the last report wins, and responses add up.
//!
//! This file owns the arithmetic from the provider's counts (cached tokens inside the
//! input, reasoning inside or beside the output) to axt's; the provider's record itself is
//! kept verbatim as `raw_usage`.

use serde_json::Value;

use super::State;
use crate::normalize::Usage;

impl State {
    pub(super) fn usage(&mut self, raw: Option<Value>) {
        let Some(raw) = raw.filter(Value::is_object) else {
            return;
        };
        let mut usage = self.usage_before;
        usage.add(&usage_of(&raw, self.meta.model.as_deref()));
        self.meta.usage = usage;
        // A cost in dollars: OpenRouter's `cost` (credits are dollars), Perplexity's
        // `cost.total_cost`.
        let cost = raw.get("cost").and_then(|cost| {
            cost.as_f64()
                .or_else(|| cost.get("total_cost").and_then(Value::as_f64))
        });
        if let Some(cost) = cost {
            self.meta.cost_usd = Some(self.cost_before.unwrap_or(0.0) + cost);
        }
        self.meta.raw_usage = Some(raw);
    }
}

/// Usage of either API, in axt's convention (see [`Usage`]): cached input taken out of the
/// input, reasoning counted in the output.
///
/// OpenAI, Groq, DeepSeek and most compatible servers count reasoning inside
/// `completion_tokens` (`output_tokens`); xAI counts it beside it, so that its
/// `total_tokens` is prompt + completion + reasoning. The arithmetic of the record decides:
/// when `total_tokens` is that sum (and not prompt + completion), the reasoning is added to
/// the output. A record without `total_tokens` is taken as xAI's when `model` is a Grok
/// model (`grok-*`, also behind a `vendor/` prefix), else as OpenAI's.
fn usage_of(raw: &Value, model: Option<&str>) -> Usage {
    let count = |path: &[&str]| {
        path.iter()
            .try_fold(raw, |value, key| value.get(*key))
            .and_then(Value::as_u64)
    };
    let input = count(&["prompt_tokens"])
        .or(count(&["input_tokens"]))
        .unwrap_or(0);
    let cached = count(&["prompt_tokens_details", "cached_tokens"])
        .or(count(&["input_tokens_details", "cached_tokens"]))
        .or(count(&["prompt_cache_hit_tokens"]))
        .unwrap_or(0);
    let output = count(&["completion_tokens"])
        .or(count(&["output_tokens"]))
        .unwrap_or(0);
    let reasoning = count(&["completion_tokens_details", "reasoning_tokens"])
        .or(count(&["output_tokens_details", "reasoning_tokens"]))
        .unwrap_or(0);
    let reasoning_beside_output = match count(&["total_tokens"]) {
        Some(total) if reasoning > 0 && total == input + output + reasoning => true,
        Some(total) if total == input + output => false,
        _ => model.is_some_and(is_grok),
    };
    Usage {
        input_tokens: input.saturating_sub(cached),
        output_tokens: if reasoning_beside_output {
            output + reasoning
        } else {
            output
        },
        cache_read_tokens: cached,
        cache_write_tokens: 0,
        reasoning_tokens: reasoning,
    }
}

/// Whether a model name is xAI's Grok (`grok-4`, `xai/grok-4.1-fast-reasoning`).
fn is_grok(model: &str) -> bool {
    let name = model.rsplit('/').next().unwrap_or(model);
    name.get(..4)
        .is_some_and(|prefix| prefix.eq_ignore_ascii_case("grok"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn usage_takes_cached_tokens_out_of_the_input() {
        let chat = json!({"prompt_tokens": 2006, "completion_tokens": 300,
            "prompt_tokens_details": {"cached_tokens": 1920},
            "completion_tokens_details": {"reasoning_tokens": 128}});
        assert_eq!(
            usage_of(&chat, None),
            Usage {
                input_tokens: 86,
                output_tokens: 300,
                cache_read_tokens: 1920,
                cache_write_tokens: 0,
                reasoning_tokens: 128
            }
        );
        let deepseek = json!({"prompt_tokens": 100, "completion_tokens": 5,
            "prompt_cache_hit_tokens": 64, "prompt_cache_miss_tokens": 36});
        assert_eq!(usage_of(&deepseek, None).input_tokens, 36);
        let responses = json!({"input_tokens": 50, "output_tokens": 9,
            "input_tokens_details": {"cached_tokens": 10},
            "output_tokens_details": {"reasoning_tokens": 4}});
        assert_eq!(usage_of(&responses, None).cache_read_tokens, 10);
        assert_eq!(usage_of(&responses, None).reasoning_tokens, 4);
    }

    #[test]
    fn reasoning_counted_beside_the_output_is_added_to_it() {
        // xAI: total = prompt + completion + reasoning.
        let xai = json!({"prompt_tokens": 32, "completion_tokens": 9, "total_tokens": 135,
            "prompt_tokens_details": {"cached_tokens": 6},
            "completion_tokens_details": {"reasoning_tokens": 94}});
        let usage = usage_of(&xai, Some("grok-4-0709"));
        assert_eq!((usage.output_tokens, usage.reasoning_tokens), (103, 94));
        // The arithmetic decides over the name: OpenAI's total has the reasoning inside.
        let openai = json!({"prompt_tokens": 32, "completion_tokens": 103, "total_tokens": 135,
            "completion_tokens_details": {"reasoning_tokens": 94}});
        assert_eq!(usage_of(&openai, Some("grok-4")).output_tokens, 103);
        // Without a total, the model name.
        let bare = json!({"prompt_tokens": 32, "completion_tokens": 9,
            "completion_tokens_details": {"reasoning_tokens": 94}});
        assert_eq!(
            usage_of(&bare, Some("xai/grok-4.1-fast-reasoning")).output_tokens,
            103
        );
        assert_eq!(usage_of(&bare, Some("gpt-5")).output_tokens, 9);
    }
}
