//! The input report's shape: [`InputReport`] and [`RecordCounts`], what an adapter saw in a
//! provider's output and what it did with it, as the run metadata carries it
//! ([`RunMeta::report`](super::RunMeta::report)).
//!
//! This file owns the report's data and its table for people. It must not count anything:
//! the running count behind it is `axt::normalize::report`'s, whose docs say what each count
//! means.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

/// What an adapter saw and did, as the run's metadata carries it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct InputReport {
    /// Records by type key, with what became of them.
    pub records: BTreeMap<String, RecordCounts>,
    /// Records that could not be read at all (not JSON, invalid, too large, cut off, of a
    /// shape no record has): each has an error diagnostic.
    pub unreadable: u64,
}

/// The records of one type key.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct RecordCounts {
    /// How many records of this type the input held.
    pub seen: u64,
    /// Read into blocks or run metadata.
    #[serde(skip_serializing_if = "is_zero")]
    pub mapped: u64,
    /// Kept verbatim as passthrough metadata, not read.
    #[serde(skip_serializing_if = "is_zero")]
    pub passthrough: u64,
    /// Dropped on purpose: ephemeral copies that another record repeats.
    #[serde(skip_serializing_if = "is_zero")]
    pub ignored: u64,
    /// Read but unusable, each with a diagnostic.
    #[serde(skip_serializing_if = "is_zero")]
    pub skipped: u64,
    /// Fields the adapter does not know, by name: in how many records each appeared.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub unknown_fields: BTreeMap<String, u64>,
}

fn is_zero(count: &u64) -> bool {
    *count == 0
}

impl InputReport {
    /// Records the adapter mapped, over every type.
    pub fn mapped(&self) -> u64 {
        self.records.values().map(|counts| counts.mapped).sum()
    }

    /// Records the input held, readable or not.
    pub fn total(&self) -> u64 {
        self.records.values().map(|counts| counts.seen).sum::<u64>() + self.unreadable
    }
}

impl fmt::Display for InputReport {
    /// A table for people: one line per type key, then the fields each type did not know.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = self
            .records
            .keys()
            .map(|key| key.chars().count())
            .chain(["(unreadable)".len()])
            .max()
            .unwrap_or(0);
        writeln!(
            f,
            "{:<width$} {:>8} {:>8} {:>12} {:>8} {:>8}",
            "record type", "seen", "mapped", "passthrough", "ignored", "skipped"
        )?;
        for (key, counts) in &self.records {
            writeln!(
                f,
                "{key:<width$} {:>8} {:>8} {:>12} {:>8} {:>8}",
                counts.seen, counts.mapped, counts.passthrough, counts.ignored, counts.skipped
            )?;
        }
        writeln!(f, "{:<width$} {:>8}", "(unreadable)", self.unreadable)?;
        let unknown: Vec<_> = self
            .records
            .iter()
            .filter(|(_, counts)| !counts.unknown_fields.is_empty())
            .collect();
        if unknown.is_empty() {
            return writeln!(f, "unknown fields: none");
        }
        writeln!(f, "unknown fields:")?;
        for (key, counts) in unknown {
            let fields: Vec<String> = counts
                .unknown_fields
                .iter()
                .map(|(field, n)| format!("{field} ({n})"))
                .collect();
            writeln!(f, "  {key}: {}", fields.join(", "))?;
        }
        Ok(())
    }
}
