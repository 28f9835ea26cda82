//! The input report: what an adapter saw in a provider's output and what it did with it.
//!
//! Providers add record types and fields without a version marker; an adapter that does not
//! know one keeps the record as passthrough or drops the field, and the run looks fine. The
//! report makes that visible: every run's metadata ([`RunMeta::report`]) counts the records
//! by type (the adapter's *type key*: `type`, or `type/subtype` where a provider has
//! subtypes or nests its payload), and for each type how many were mapped into blocks or run
//! metadata, kept verbatim as passthrough, ignored on purpose (ephemeral copies that a
//! consolidated record repeats), or skipped as unusable; plus the records that could not be
//! read at all (each has an error diagnostic).
//!
//! **Fields it does not know.** For the record types it maps, an adapter names the fields it
//! knows: those it reads and those the provider documents that it leaves out on purpose. The
//! fields of each record of those types (the top-level keys, or those of the object that
//! holds the payload, such as Copilot's `data`) not in that set are counted by name. Only
//! mapped types are checked: a passthrough record is kept whole, so none of its fields is
//! lost. The check reads the keys from the parser's tape, which the record was parsed into
//! anyway: no second parse, a few comparisons per key.
//!
//! The counting lives here and in the shared parser and driver; an adapter only says each
//! record's type key and what became of it (mapped, passthrough, ignored, skipped).
//! Memory is bounded however odd the input: at most [`MAX_TYPES`] type keys and
//! [`MAX_FIELDS`] unknown field names per type are named; the rest are counted under
//! [`OTHER`].
//!
//! The report itself ([`InputReport`], [`RecordCounts`]) is wire format, in `axt::model`;
//! this module keeps the running count behind it.
//!
//! [`RunMeta::report`]: super::RunMeta::report

use std::collections::BTreeMap;

pub use crate::model::{InputReport, RecordCounts};

/// What became of one record the adapter read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fate {
    /// Read into blocks or run metadata (it may also be kept verbatim).
    Mapped,
    /// Not read; kept verbatim as passthrough metadata.
    Passthrough,
    /// Read and dropped on purpose: an ephemeral copy another record repeats.
    Ignored,
    /// Read but unusable; a diagnostic says why.
    Skipped,
}

/// A record's type key: its type and, where the provider has one, its subtype.
pub(crate) type Kind<'a> = (&'a str, Option<&'a str>);

/// Where a record type's own fields are, and which of them the adapter knows.
#[derive(Clone, Copy)]
pub(crate) struct Fields {
    /// The member that holds them (`data`, `item`, `msg`), or `None` for the record itself.
    pub(crate) within: Option<&'static str>,
    /// Whether a field name is one the adapter knows for this type.
    pub(crate) known: fn(&str) -> bool,
}

/// How many record type keys a report names; further types are counted under [`OTHER`].
pub const MAX_TYPES: usize = 256;
/// How many unknown field names a report names per type; further ones go under [`OTHER`].
pub const MAX_FIELDS: usize = 32;
/// The key that counts what is past the limits (and names longer than [`MAX_NAME`] bytes).
pub const OTHER: &str = "(other)";
/// The longest type key or field name a report names.
pub const MAX_NAME: usize = 128;

/// One type key's counts while the input is read.
struct TypeTally {
    kind: String,
    subtype: Option<String>,
    counts: RecordCounts,
}

/// The running count behind an [`InputReport`]: kept by the parser, filled record by record.
#[derive(Default)]
pub(crate) struct Tally {
    /// Type keys in the order first seen: a run has a handful, so a scan beats hashing.
    types: Vec<TypeTally>,
    unreadable: u64,
    /// The fate of the last record read, for the driver's checks after it.
    last: Option<Fate>,
    /// The slot of the last record seen: looked at first, as records of a type come in
    /// runs (a stream's deltas).
    last_slot: usize,
}

impl Tally {
    /// The slot of a record's type key, counting the record as seen.
    pub(crate) fn see(&mut self, (kind, subtype): Kind<'_>) -> usize {
        self.last = None;
        let is = |t: &TypeTally| t.kind == kind && t.subtype.as_deref() == subtype;
        let found = match self.types.get(self.last_slot) {
            Some(last) if is(last) => Some(self.last_slot),
            _ => self.types.iter().position(is),
        };
        let at = match found {
            Some(at) => at,
            None if self.types.len() >= MAX_TYPES
                || kind.len() + subtype.map_or(0, str::len) > MAX_NAME =>
            {
                self.other()
            }
            None => {
                self.types.push(TypeTally {
                    kind: kind.to_owned(),
                    subtype: subtype.map(str::to_owned),
                    counts: RecordCounts::default(),
                });
                self.types.len() - 1
            }
        };
        self.types[at].counts.seen += 1;
        self.last_slot = at;
        at
    }

    fn other(&mut self) -> usize {
        match self.types.iter().position(|t| t.kind == OTHER) {
            Some(at) => at,
            None => {
                self.types.push(TypeTally {
                    kind: OTHER.to_owned(),
                    subtype: None,
                    counts: RecordCounts::default(),
                });
                self.types.len() - 1
            }
        }
    }

    /// What became of the record counted in `slot`.
    pub(crate) fn fate(&mut self, slot: usize, fate: Fate) {
        let counts = &mut self.types[slot].counts;
        match fate {
            Fate::Mapped => counts.mapped += 1,
            Fate::Passthrough => counts.passthrough += 1,
            Fate::Ignored => counts.ignored += 1,
            Fate::Skipped => counts.skipped += 1,
        }
        self.last = Some(fate);
    }

    /// Counts the fields of `object` that `fields` does not know, for the type in `slot`.
    ///
    /// Tried and measured as no better (callgrind, the normalize bench's 21 MB Claude
    /// stream): remembering each type's last all-known key sequence and comparing the next
    /// record's keys with it, so as not to ask `known` key by key: 10.2M -> 10.5M
    /// instructions here. Walking the tape's keys costs as much as the known-field match.
    pub(crate) fn check_fields<'i>(
        &mut self,
        slot: usize,
        keys: impl Iterator<Item = &'i str>,
        fields: Fields,
    ) {
        for key in keys {
            if (fields.known)(key) {
                continue;
            }
            let unknown = &mut self.types[slot].counts.unknown_fields;
            if let Some(count) = unknown.get_mut(key) {
                *count += 1;
            } else if unknown.len() >= MAX_FIELDS || key.len() > MAX_NAME {
                *unknown.entry(OTHER.to_owned()).or_default() += 1;
            } else {
                unknown.insert(key.to_owned(), 1);
            }
        }
    }

    /// A record that could not be read at all.
    pub(crate) fn unreadable(&mut self) {
        self.unreadable += 1;
        self.last = None;
    }

    /// The fate of the last record read; `None` when it could not be read.
    pub(crate) fn last(&self) -> Option<Fate> {
        self.last
    }

    /// The report so far.
    pub(crate) fn report(&self) -> InputReport {
        let mut records = BTreeMap::new();
        for tally in &self.types {
            let key = match &tally.subtype {
                Some(subtype) => format!("{}/{subtype}", tally.kind),
                None => tally.kind.clone(),
            };
            let entry: &mut RecordCounts = records.entry(key).or_default();
            entry.seen += tally.counts.seen;
            entry.mapped += tally.counts.mapped;
            entry.passthrough += tally.counts.passthrough;
            entry.ignored += tally.counts.ignored;
            entry.skipped += tally.counts.skipped;
            for (field, count) in &tally.counts.unknown_fields {
                *entry.unknown_fields.entry(field.clone()).or_default() += count;
            }
        }
        InputReport {
            records,
            unreadable: self.unreadable,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(field: &str) -> bool {
        matches!(field, "type" | "data")
    }

    #[test]
    fn records_are_counted_by_type_and_fate() {
        let mut tally = Tally::default();
        let a = tally.see(("assistant", None));
        tally.fate(a, Fate::Mapped);
        let b = tally.see(("system", Some("hook")));
        tally.fate(b, Fate::Passthrough);
        let a2 = tally.see(("assistant", None));
        assert_eq!(a, a2);
        tally.fate(a2, Fate::Ignored);
        tally.unreadable();
        let fields = Fields {
            within: None,
            known,
        };
        tally.check_fields(a, ["type", "data", "novel"].into_iter(), fields);
        tally.check_fields(a, ["novel"].into_iter(), fields);
        let report = tally.report();
        assert_eq!(report.total(), 4);
        assert_eq!(report.mapped(), 1);
        let assistant = &report.records["assistant"];
        assert_eq!(
            (assistant.seen, assistant.mapped, assistant.ignored),
            (2, 1, 1)
        );
        assert_eq!(assistant.unknown_fields["novel"], 2);
        assert_eq!(report.records["system/hook"].passthrough, 1);
        assert_eq!(
            serde_json::to_value(&report).unwrap(),
            serde_json::json!({
                "records": {
                    "assistant": {"seen": 2, "mapped": 1, "ignored": 1,
                                  "unknown_fields": {"novel": 2}},
                    "system/hook": {"seen": 1, "passthrough": 1}
                },
                "unreadable": 1
            })
        );
    }

    #[test]
    fn a_run_of_one_type_and_a_return_to_another_find_their_slots() {
        let mut tally = Tally::default();
        let kinds = [
            ("stream_event", Some("content_block_delta")),
            ("stream_event", Some("content_block_delta")),
            ("stream_event", Some("content_block_stop")),
            ("stream_event", None),
            ("stream_event", Some("content_block_delta")),
            ("assistant", None),
            ("assistant", None),
        ];
        let slots: Vec<usize> = kinds.iter().map(|&kind| tally.see(kind)).collect();
        assert_eq!(slots, [0, 0, 1, 2, 0, 3, 3]);
        let report = tally.report();
        let seen = |key: &str| report.records[key].seen;
        assert_eq!(
            (
                seen("stream_event/content_block_delta"),
                seen("stream_event/content_block_stop"),
                seen("stream_event"),
                seen("assistant")
            ),
            (3, 1, 1, 2)
        );
    }

    #[test]
    fn odd_input_cannot_grow_the_report_without_bound() {
        let mut tally = Tally::default();
        for n in 0..MAX_TYPES + 10 {
            let slot = tally.see((&format!("type-{n}"), None));
            tally.fate(slot, Fate::Passthrough);
        }
        let long = "x".repeat(MAX_NAME + 1);
        let slot = tally.see((&long, None));
        let names: Vec<String> = (0..MAX_FIELDS + 5).map(|n| format!("f{n}")).collect();
        let fields = Fields {
            within: None,
            known,
        };
        tally.check_fields(slot, names.iter().map(String::as_str), fields);
        let report = tally.report();
        assert_eq!(report.records.len(), MAX_TYPES + 1);
        let other = &report.records[OTHER];
        assert_eq!(other.seen, 11);
        assert_eq!(other.unknown_fields.len(), MAX_FIELDS + 1);
        assert_eq!(other.unknown_fields[OTHER], 5);
    }

    #[test]
    fn the_table_names_every_type_and_unknown_field() {
        let mut tally = Tally::default();
        let slot = tally.see(("result", Some("success")));
        tally.fate(slot, Fate::Mapped);
        let fields = Fields {
            within: None,
            known,
        };
        tally.check_fields(slot, ["ttft_ms"].into_iter(), fields);
        tally.unreadable();
        insta::assert_snapshot!(tally.report().to_string(), @r"
        record type        seen   mapped  passthrough  ignored  skipped
        result/success        1        1            0        0        0
        (unreadable)          1
        unknown fields:
          result/success: ttft_ms (1)
        ");
    }
}
