//! Adding up what runs spent: the tokens and cost of run metadata (the `usage` and
//! `cost_usd` a `run.completed` or an agent step's `step.completed` carries, and the
//! [`Cost`] the price table estimates where the provider reported none), with a provider
//! session's running total counted once however many runs hold it.
//!
//! A run's metadata says what its usage spans (`usage_scope`, see
//! [`UsageScope`](crate::model::UsageScope)): a run's own spending (the field absent)
//! adds up; a session's running total (`"session"`, Claude Code 2.1.277 and later, whose
//! resumed runs carry the session's earlier runs) does not: of the runs with one
//! `session_id`, the largest total stands for the session (a running total only grows),
//! and the others are counted in [`Spend::repeated`]. Both [`Stats`](super::Stats) and the
//! AgentLog export add runs up this way.
//!
//! This file owns that rule; it reads only the metadata it is given.

use std::collections::BTreeMap;

use serde::Serialize;

use super::cost::Cost;
use super::prices::Prices;
use crate::model::{RunMeta, Usage, UsageScope};

/// Tokens by kind, as in the run metadata's `usage`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tokens {
    /// Uncached input tokens.
    pub input: u64,
    /// Output tokens, reasoning included.
    pub output: u64,
    /// Input tokens read from the prompt cache.
    pub cache_read: u64,
    /// Input tokens written to the prompt cache.
    pub cache_write: u64,
    /// Output tokens spent on reasoning.
    pub reasoning: u64,
}

impl Tokens {
    /// The `usage` of run metadata.
    pub fn of(usage: &Usage) -> Tokens {
        Tokens {
            input: usage.input_tokens,
            output: usage.output_tokens,
            cache_read: usage.cache_read_tokens,
            cache_write: usage.cache_write_tokens,
            reasoning: usage.reasoning_tokens,
        }
    }

    /// Adds another count to this one.
    pub fn add(&mut self, other: &Tokens) {
        self.input += other.input;
        self.output += other.output;
        self.cache_read += other.cache_read;
        self.cache_write += other.cache_write;
        self.reasoning += other.reasoning;
    }

    /// Takes back tokens added before (never below zero).
    fn take(&mut self, other: &Tokens) {
        self.input = self.input.saturating_sub(other.input);
        self.output = self.output.saturating_sub(other.output);
        self.cache_read = self.cache_read.saturating_sub(other.cache_read);
        self.cache_write = self.cache_write.saturating_sub(other.cache_write);
        self.reasoning = self.reasoning.saturating_sub(other.reasoning);
    }

    /// Every token billed (reasoning is part of the output).
    fn billed(&self) -> u64 {
        self.input + self.output + self.cache_read + self.cache_write
    }

    /// The whole prompt: uncached input, cache reads and cache writes. This is what the
    /// OpenTelemetry GenAI conventions call `gen_ai.usage.input_tokens`, and what `axt
    /// stats`, `axt ls` and `axt show` print as input.
    pub fn prompt(&self) -> u64 {
        self.input + self.cache_read + self.cache_write
    }

    /// Every token counted: the whole prompt and the output.
    pub fn total(&self) -> u64 {
        self.prompt() + self.output
    }

    /// Whether nothing was counted.
    pub fn is_zero(&self) -> bool {
        *self == Tokens::default()
    }
}

/// One run's spending as its metadata states it.
#[derive(Clone, Debug, Default, PartialEq)]
struct Spent {
    tokens: Tokens,
    cost_usd: Option<f64>,
    /// Reported, else estimated, else unknown.
    cost: Cost,
}

impl Spent {
    /// Whether this running total of a session is further along than `other`.
    fn beyond(&self, other: &Spent) -> bool {
        let key = |s: &Spent| (s.tokens.billed(), s.cost_usd.unwrap_or(0.0));
        key(self) > key(other)
    }
}

/// Runs' tokens and cost added up, each provider session's running total once.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Spend {
    /// Tokens by kind.
    pub tokens: Tokens,
    /// Cost in US dollars, over the runs that report one; `None` when none does.
    pub cost_usd: Option<f64>,
    /// Cost reported where the provider reported one, else estimated from the price
    /// table, else unknown, the three apart ([`Cost`]).
    pub cost: Cost,
    /// Runs whose usage is the running total of a session another run held too (a resumed
    /// session): counted once, by the session's largest total.
    pub repeated: u64,
    /// Per session whose running totals were added: the one standing for it.
    sessions: BTreeMap<String, Spent>,
}

impl Spend {
    /// Adds the spending of run metadata (`usage`, `cost_usd`, `usage_scope`, `session_id`),
    /// estimated at the shipped prices where it reports no cost.
    pub fn add(&mut self, meta: &RunMeta) {
        self.add_priced(meta, Prices::builtin());
    }

    /// [`Spend::add`] with `prices` for the estimates (a user's table laid over the shipped
    /// one: [`Prices::load`]).
    pub fn add_priced(&mut self, meta: &RunMeta, prices: &Prices) {
        let spent = Spent {
            tokens: Tokens::of(&meta.usage),
            cost_usd: meta.cost_usd,
            cost: Cost::of(meta, prices),
        };
        match (meta.usage_scope, meta.session_id.as_deref()) {
            (UsageScope::Session, Some(session)) => self.hold(session, spent),
            _ => self.count(&spent),
        }
    }

    /// Adds another sum to this one; a session both hold is counted once.
    pub fn merge(&mut self, other: &Spend) {
        self.tokens.add(&other.tokens);
        if let Some(cost) = other.cost_usd {
            *self.cost_usd.get_or_insert(0.0) += cost;
        }
        self.cost.add(&other.cost);
        self.repeated += other.repeated;
        for (session, theirs) in &other.sessions {
            match self.sessions.get_mut(session) {
                None => {
                    self.sessions.insert(session.clone(), theirs.clone());
                }
                Some(mine) => {
                    // Both were counted: take back the smaller.
                    self.repeated += 1;
                    let (keep, drop) = match theirs.beyond(mine) {
                        true => (theirs.clone(), mine.clone()),
                        false => (mine.clone(), theirs.clone()),
                    };
                    *mine = keep;
                    uncount(&mut self.tokens, &mut self.cost_usd, &mut self.cost, &drop);
                }
            }
        }
    }

    /// A session's running total: it stands for the session if it is the largest yet.
    fn hold(&mut self, session: &str, spent: Spent) {
        let Some(held) = self.sessions.get(session).cloned() else {
            self.count(&spent);
            self.sessions.insert(session.to_owned(), spent);
            return;
        };
        self.repeated += 1;
        if spent.beyond(&held) {
            uncount(&mut self.tokens, &mut self.cost_usd, &mut self.cost, &held);
            self.count(&spent);
            self.sessions.insert(session.to_owned(), spent);
        }
    }

    fn count(&mut self, spent: &Spent) {
        self.tokens.add(&spent.tokens);
        if let Some(cost) = spent.cost_usd {
            *self.cost_usd.get_or_insert(0.0) += cost;
        }
        self.cost.add(&spent.cost);
    }
}

fn uncount(tokens: &mut Tokens, cost_usd: &mut Option<f64>, cost: &mut Cost, spent: &Spent) {
    tokens.take(&spent.tokens);
    if let (Some(total), Some(reported)) = (cost_usd.as_mut(), spent.cost_usd) {
        *total -= reported;
    }
    cost.take(&spent.cost);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Provider;

    fn meta(session: &str, scope: Option<&str>, output: u64, cost: f64) -> RunMeta {
        let mut meta = RunMeta::new(Provider::Claude);
        meta.session_id = Some(session.to_owned());
        meta.cost_usd = Some(cost);
        meta.usage.input_tokens = 10;
        meta.usage.output_tokens = output;
        if scope == Some("session") {
            meta.usage_scope = UsageScope::Session;
        }
        meta
    }

    /// A session resumed twice (its running total 100, then 150, then 180 output tokens)
    /// is counted once, by its largest total, in whatever order or split the runs come.
    #[test]
    fn a_sessions_running_total_is_counted_once_by_its_largest() {
        let runs = [
            meta("s", Some("session"), 100, 1.0),
            meta("s", Some("session"), 150, 1.5),
            meta("s", Some("session"), 180, 1.75),
            meta("t", None, 7, 0.25),
        ];
        let mut whole = Spend::default();
        for run in runs.iter().rev() {
            whole.add(run);
        }
        assert_eq!(whole.tokens.output, 187);
        assert_eq!(whole.tokens.input, 20);
        assert_eq!(whole.cost_usd, Some(2.0));
        assert_eq!(whole.repeated, 2);
        // Split over two sums and merged: the same.
        let (mut a, mut b) = (Spend::default(), Spend::default());
        a.add(&runs[2]);
        a.add(&runs[3]);
        b.add(&runs[0]);
        b.add(&runs[1]);
        b.merge(&a);
        assert_eq!(b, whole);
    }

    /// Runs of scope `run` add up even when they name one session: each started from zero.
    #[test]
    fn runs_of_their_own_scope_add_up() {
        let mut spend = Spend::default();
        spend.add(&meta("s", None, 100, 1.0));
        spend.add(&meta("s", None, 50, 0.5));
        assert_eq!(spend.tokens.output, 150);
        assert_eq!(spend.cost_usd, Some(1.5));
        assert_eq!(spend.repeated, 0);
    }
}
