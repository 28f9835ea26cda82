//! What the AgentLog export derives from a tool call's output and from times: a diff's line
//! counts, exit codes from outputs, durations, citations moved into a joined text.
//!
//! This file owns those small derivations. It must not build events (`events.rs`); what a
//! file tool does to files is the exporters' shared reading (`export::file_ops`).

use serde_json::Value;

use crate::model::{Citation, ExchangeEvent};

pub(super) fn millis(from: &ExchangeEvent, to: &ExchangeEvent) -> Option<u64> {
    let a = from.timestamp.unix_nanos().ok()?;
    let b = to.timestamp.unix_nanos().ok()?;
    (b >= a).then(|| ((b - a) / 1_000_000) as u64)
}

/// A text block's citations for a `message` whose `content` joins the texts before it with
/// newlines: their offsets are moved by the characters that precede the block there.
pub(super) fn joined_citations(before: &[String], citations: &[Citation]) -> Vec<Value> {
    let shift = before
        .iter()
        .map(|text| text.chars().count() as u64 + 1)
        .sum::<u64>();
    citations
        .iter()
        .filter_map(|citation| {
            let mut citation = citation.clone();
            citation.start_index = citation.start_index.map(|at| at + shift);
            citation.end_index = citation.end_index.map(|at| at + shift);
            // The reader refused any citation the strict writer would, so this cannot fail.
            serde_json::to_value(&citation).ok()
        })
        .collect()
}

/// Claude Code reports a failed command's status as the first line, `Exit code N`.
pub(super) fn exit_code(output: &str, failed: bool) -> Option<i64> {
    let rest = output.strip_prefix("Exit code ")?;
    let code = rest
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()?;
    (failed || code == 0).then_some(code)
}

pub(super) fn diff_counts(diff: &str) -> (u64, u64) {
    let mut counts = (0, 0);
    for line in diff.lines() {
        if line.starts_with('+') && !line.starts_with("+++") {
            counts.0 += 1;
        } else if line.starts_with('-') && !line.starts_with("---") {
            counts.1 += 1;
        }
    }
    counts
}
