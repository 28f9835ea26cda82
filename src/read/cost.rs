//! What runs cost: the provider's reported cost where it gave one, else an estimate from
//! the [price table](super::Prices), else unknown, kept apart and always said which.
//!
//! A cost is counted per agent (a run normalized from an agent's output, or each agent
//! step of a workflow run: wherever [`agent_meta`](super::meta::agent_meta) finds an
//! agent's metadata), and summed over the agents of a run and over runs by the rule of
//! [`Spend`](super::Spend) (a provider session's running total once). A reported cost
//! always wins over an estimate; an agent with neither is counted as unknown, never as
//! `$0`. What this file owns is that rule and how a cost is written for a person
//! ([`Cost::label`]); the prices are the table's.

use std::fmt::Write as _;

use serde::Serialize;

use super::prices::Prices;
use crate::model::RunMeta;

/// The cost of one or more agents, reported and estimated apart.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Cost {
    /// US dollars the providers reported, summed.
    pub reported_usd: f64,
    /// US dollars estimated from the price table for the agents whose provider reported
    /// none, summed.
    pub estimated_usd: f64,
    /// Agents whose cost was reported.
    pub reported: u64,
    /// Agents whose cost was estimated.
    pub estimated: u64,
    /// Agents whose cost is unknown: no cost reported, and a model the price table does not
    /// know (or none named).
    pub unknown: u64,
    /// The price table entries the estimates used, each once (`claude-sonnet-4-5`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub priced_as: Vec<String>,
}

impl Cost {
    /// One agent's cost: the reported one, else the estimate from `prices`, else unknown.
    pub fn of(meta: &RunMeta, prices: &Prices) -> Cost {
        if let Some(usd) = meta.cost_usd {
            return Cost {
                reported_usd: usd,
                reported: 1,
                ..Cost::default()
            };
        }
        match Cost::estimate(meta, prices) {
            Some((entry, usd)) => Cost {
                estimated_usd: usd,
                estimated: 1,
                priced_as: vec![entry.to_owned()],
                ..Cost::default()
            },
            None => Cost {
                unknown: 1,
                ..Cost::default()
            },
        }
    }

    /// What one agent's tokens cost at `prices`, whether or not its provider reported a
    /// cost (so that the two can be compared), with the price table entry used; `None` when
    /// it names no model the table knows. [`Cost::of`] uses it only where none was
    /// reported.
    pub fn estimate<'p>(meta: &RunMeta, prices: &'p Prices) -> Option<(&'p str, f64)> {
        let model = meta.model.as_deref().filter(|m| !m.is_empty())?;
        let (entry, price) = prices.lookup(model)?;
        Some((entry, price.cost(&meta.usage)))
    }

    /// Adds another cost to this one.
    pub fn add(&mut self, other: &Cost) {
        self.reported_usd += other.reported_usd;
        self.estimated_usd += other.estimated_usd;
        self.reported += other.reported;
        self.estimated += other.estimated;
        self.unknown += other.unknown;
        for entry in &other.priced_as {
            if !self.priced_as.contains(entry) {
                self.priced_as.push(entry.clone());
            }
        }
    }

    /// Takes back a cost added before (a session's smaller running total, see
    /// [`Spend`](super::Spend)); the price table entries it used stay listed.
    pub fn take(&mut self, other: &Cost) {
        self.reported_usd -= other.reported_usd;
        self.estimated_usd -= other.estimated_usd;
        self.reported = self.reported.saturating_sub(other.reported);
        self.estimated = self.estimated.saturating_sub(other.estimated);
        self.unknown = self.unknown.saturating_sub(other.unknown);
    }

    /// Agents counted.
    pub fn agents(&self) -> u64 {
        self.reported + self.estimated + self.unknown
    }

    /// The known part, reported and estimated, when any part is known.
    pub fn known_usd(&self) -> Option<f64> {
        (self.reported + self.estimated > 0).then_some(self.reported_usd + self.estimated_usd)
    }

    /// The cost as a person reads it: `$0.0413` (reported), `$0.61 est.` (estimated, in
    /// whole or in part), `unknown`, `$0.61 est. + unknown` (some agents unknown), or `-`
    /// when no agent ran (a workflow of commands).
    pub fn label(&self) -> String {
        let Some(usd) = self.known_usd() else {
            return if self.unknown > 0 { "unknown" } else { "-" }.to_owned();
        };
        let mut label = dollars(usd);
        if self.estimated > 0 {
            label.push_str(" est.");
        }
        if self.unknown > 0 {
            label.push_str(" + unknown");
        }
        label
    }

    /// [`Cost::label`] with how it is made up, for a report: `$0.65 est. ($0.04 reported
    /// for 1 agent, $0.61 estimated for 2 at claude-sonnet-4-5 prices; 1 unknown)`.
    pub fn explained(&self) -> String {
        let mut parts = Vec::new();
        if self.reported > 0 {
            parts.push(format!(
                "{} reported for {}",
                dollars(self.reported_usd),
                agents(self.reported)
            ));
        }
        if self.estimated > 0 {
            let mut part = format!(
                "{} estimated for {}",
                dollars(self.estimated_usd),
                agents(self.estimated)
            );
            if !self.priced_as.is_empty() {
                let _ = write!(part, " at {} prices", self.priced_as.join(", "));
            }
            parts.push(part);
        }
        if self.unknown > 0 && !parts.is_empty() {
            parts.push(format!("{} unknown", agents(self.unknown)));
        }
        // A reported cost alone, or unknown alone, says all in its label; an estimate
        // always says what it priced the tokens as.
        if self.estimated == 0 && parts.len() <= 1 && (self.unknown == 0 || parts.is_empty()) {
            return self.label();
        }
        format!("{} ({})", self.label(), parts.join("; "))
    }
}

fn agents(count: u64) -> String {
    if count == 1 {
        "1 agent".to_owned()
    } else {
        format!("{count} agents")
    }
}

/// US dollars: to the cent from 10 cents up, else to a hundredth of a cent (trailing
/// zeros after the cents dropped), so a small run does not show as `$0.00`.
pub fn dollars(usd: f64) -> String {
    if usd >= 0.1 || usd == 0.0 {
        return format!("${usd:.2}");
    }
    let mut text = format!("{usd:.4}");
    while text.ends_with('0') && text.len() > "0.00".len() {
        text.pop();
    }
    format!("${text}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{StepKind, StepPayload};
    use serde_json::{Value, json};

    fn cost(result: Value) -> Cost {
        let step = StepPayload {
            result,
            ..StepPayload::new("claude", StepKind::Agent)
        };
        Cost::of(&RunMeta::of(&step).unwrap(), Prices::builtin())
    }

    #[test]
    fn reported_wins_then_the_estimate_then_unknown_never_zero() {
        let usage = json!({"input_tokens": 1000, "output_tokens": 2000, "cache_read_tokens": 100_000, "cache_write_tokens": 10_000});
        let reported = cost(
            json!({"provider": "claude", "model": "claude-sonnet-4-6", "cost_usd": 0.0413, "usage": usage}),
        );
        assert_eq!(
            (reported.label(), reported.reported),
            ("$0.0413".to_owned(), 1)
        );
        let estimated =
            cost(json!({"provider": "claude", "model": "claude-sonnet-4-6", "usage": usage}));
        // 1000 x 3 + 2000 x 15 + 100000 x 0.3 + 10000 x 3.75 per million = $0.1005.
        assert_eq!(estimated.label(), "$0.10 est.");
        assert_eq!(estimated.priced_as, ["claude-sonnet-4-6"]);
        let unknown = cost(json!({"provider": "openai", "model": "test-model", "usage": usage}));
        assert_eq!(
            (unknown.label(), unknown.unknown),
            ("unknown".to_owned(), 1)
        );
        assert_eq!(cost(json!({"provider": "codex"})).label(), "unknown");
        assert_eq!(Cost::default().label(), "-");
    }

    #[test]
    fn a_sum_says_what_it_is_made_of() {
        let mut total = cost(json!({"provider": "claude", "cost_usd": 0.04}));
        total.add(&cost(
            json!({"provider": "codex", "model": "gpt-5.1-codex-max",
            "usage": {"input_tokens": 400_000, "output_tokens": 10_000}}),
        ));
        total.add(&cost(json!({"provider": "gemini"})));
        assert_eq!(total.label(), "$0.64 est. + unknown");
        assert_eq!(
            total.explained(),
            "$0.64 est. + unknown ($0.04 reported for 1 agent; $0.60 estimated for 1 agent at gpt-5.1-codex-max prices; 1 agent unknown)"
        );
        assert_eq!(dollars(0.0), "$0.00");
        assert_eq!(dollars(0.00412), "$0.0041");
        assert_eq!(dollars(0.0413257), "$0.0413");
        assert_eq!(dollars(0.04), "$0.04");
        assert_eq!(dollars(12.346), "$12.35");
    }
}
