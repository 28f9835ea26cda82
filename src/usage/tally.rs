//! What reading a session's usage gives: its tokens by day and model, its time span, and
//! the lines that could not be read.
//!
//! This file owns the sums (a store's reader adds to them); what a record means is its
//! store's, what a token costs the price table's.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::model::Usage;
use crate::normalize::{Diagnostic, DiagnosticKind};

/// One session's usage: every API call of the session and its sub-agents, each once.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SessionUsage {
    /// The session's id (the run id `axt import` gives its root run).
    pub session: String,
    /// The agent (`Claude Code`, `Codex`).
    pub agent: &'static str,
    /// The earliest and latest time an entry of the session was written, as written.
    pub first: Option<String>,
    /// See `first`.
    pub last: Option<String>,
    /// Tokens by (day, model): the day (`2026-05-01`, of the time the call was written;
    /// empty when undated) and the model (empty when none is named).
    pub parts: BTreeMap<(String, String), Usage>,
    /// Tokens spent on branches the conversation left (a rewound reply): spent, but kept
    /// apart, as `axt import` keeps them out of the run's usage (`import.off_chain_usage`).
    pub off_chain: Usage,
    /// Dollars the store reported for a part's calls (OpenCode's `cost`), by the key of
    /// `parts`: a part with an entry costs that, not the price table's estimate, as `axt
    /// stats` takes a run's reported cost over an estimate. Empty for a store that reports
    /// none.
    pub reported_usd: BTreeMap<(String, String), f64>,
    /// The lines that could not be read, in each file's order.
    pub diagnostics: Vec<(PathBuf, Diagnostic)>,
}

impl SessionUsage {
    /// Every token of the session (off-chain tokens apart).
    pub fn total(&self) -> Usage {
        let mut total = Usage::default();
        for usage in self.parts.values() {
            total.add(usage);
        }
        total
    }

    /// The models named, each once, in name order.
    pub fn models(&self) -> Vec<&str> {
        let mut models: Vec<&str> = (self.parts.keys())
            .map(|(_, model)| model.as_str())
            .filter(|m| !m.is_empty())
            .collect();
        models.sort_unstable();
        models.dedup();
        models
    }

    /// Widens the session's span to `time`.
    pub(super) fn saw(&mut self, time: &str) {
        if self.first.as_deref().is_none_or(|first| time < first) {
            self.first = Some(time.to_owned());
        }
        if self.last.as_deref().is_none_or(|last| time > last) {
            self.last = Some(time.to_owned());
        }
    }

    /// Adds `usage` under `model` on the day of `time`.
    pub(super) fn add(&mut self, time: Option<&str>, model: &str, usage: &Usage) {
        let day = time.and_then(|t| t.get(..10)).unwrap_or_default();
        (self.parts.entry((day.to_owned(), model.to_owned())))
            .or_default()
            .add(usage);
    }

    /// What the part of `time`'s day and `model` cost, as its store reported it; `None`
    /// where it reported nothing (the price table then estimates it).
    pub fn reported(&self, day: &str, model: &str) -> Option<f64> {
        (self.reported_usd)
            .get(&(day.to_owned(), model.to_owned()))
            .copied()
    }

    /// Adds `usd`, reported by the store, to the part of `time`'s day and `model`.
    pub(super) fn report(&mut self, time: Option<&str>, model: &str, usd: f64) {
        let day = time.and_then(|t| t.get(..10)).unwrap_or_default();
        *(self.reported_usd)
            .entry((day.to_owned(), model.to_owned()))
            .or_default() += usd;
    }

    /// A line of `file` that could not be read.
    pub(super) fn problem(
        &mut self,
        file: &std::path::Path,
        kind: DiagnosticKind,
        (line, offset): (u64, u64),
        message: String,
    ) {
        (self.diagnostics).push((
            file.to_owned(),
            Diagnostic::new(kind, line, offset, message),
        ));
    }

    /// A line serde_json could not read: cut short ([`json_kind`]) or not JSON.
    pub(super) fn unreadable(
        &mut self,
        file: &std::path::Path,
        place: (u64, u64),
        error: &serde_json::Error,
    ) {
        self.problem(file, json_kind(error), place, error.to_string());
    }

    /// A line over the reader's limit: reported where it is, and not read.
    pub(super) fn line_too_long(&mut self, file: &std::path::Path, (line, offset): (u64, u64)) {
        self.problem(
            file,
            DiagnosticKind::RecordTooLarge,
            (line, offset),
            "a line over the limit, not read".into(),
        );
    }
}

/// What a JSON text serde_json could not read is: one that ends inside its JSON is
/// truncated, any other is not JSON.
pub(super) fn json_kind(error: &serde_json::Error) -> DiagnosticKind {
    match error.is_eof() {
        true => DiagnosticKind::Truncated,
        false => DiagnosticKind::InvalidJson,
    }
}
