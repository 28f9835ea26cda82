//! The driver every adapter shares: a framing, the JSON door and an adapter make a
//! [`Normalizer`] (vector's `Decoder { framer, deserializer }`), and the checks made around
//! every record whatever the adapter.
//!
//! An adapter keeps only its own state between records ([`Adapter`]); the driver owns the
//! framing ([`Framing`]: JSON Lines, HTTP bodies, ...) and the JSON parser, hands the adapter
//! each record the framing completes, reports the records the framing skipped (over the size
//! limit) or could not close (a document the input ended inside), and keeps the
//! [`Normalizer`] contract (nothing is read after `finish`, and `finish` runs once). Which
//! framing an adapter reads is its own choice, made where it builds its normalizer
//! (`Driver::<Lines, State>::new`).
//!
//! Around each record the driver (`Watch`) does what does not depend on the dialect:
//!
//! * **Times.** The items a record completed carry the run's latest source time
//!   ([`RunMeta::source_times`]), which the adapter keeps from the records' stamps. For the
//!   providers that stamp their output ([`Adapter::STAMPED`]: Gemini, Copilot, OpenAI) items
//!   made before the first stamp (an OpenAI request before its response, say) are held until
//!   it comes and take it: times stay in order and the same input always gives the same
//!   times. Where no stamp ever comes, they are handed out at the end without a time.
//!   Providers that do not stamp (Claude Code's stream-json, Codex's `exec --json`) are not
//!   held for: their items go out as soon as they are complete.
//! * **The input report.** Records over the size limit are counted as unreadable (the parser
//!   counts every other record, [`super::report`]); at the end the report goes into the run's
//!   metadata.
//! * **Another provider's output.** A record this adapter only kept as passthrough, or could
//!   not read at all, that another provider's detection claims is reported
//!   ([`DiagnosticKind::ForeignRecord`]): records of another tool mixed into a stream are not
//!   passed over in silence (an adapter that knows from the fields it read that a record
//!   is its own says so, [`Adapter::claimed`], sparing the check its parse). And an input
//!   with records of which the adapter read none is an error
//!   ([`DiagnosticKind::UnrecognizedInput`]) that names the provider the input looks like:
//!   `--provider claude` on Codex output is not a clean, empty run.

use std::fmt;
use std::ops::Range;

use super::framing::{Frame, Framing, Record};
use super::json::{JsonParser, to_value};
use super::report::Fate;
use super::tools::too_large;
use super::{Diagnostic, DiagnosticKind, Item, Normalizer, Options, Output, Provider, RunMeta};

/// A provider dialect read record by record: the state between records.
pub(crate) trait Adapter: Send {
    /// Whose output this reads.
    const PROVIDER: Provider;

    /// Whether the provider stamps its records with its own time, so that items made before
    /// the first stamp wait for it (see the module docs).
    const STAMPED: bool;

    /// One record the framing completed. The adapter parses it (through `parser`, which
    /// counts it in the input report) and hands out what it completes.
    fn record(&mut self, parser: &mut JsonParser, record: Record<'_>, out: &mut Output);

    /// The input has ended: emit what is open, settle the run's status. `last` is the line
    /// of the last record (or line) that was not blank and the byte after it, `(0, 0)` when
    /// there was none: where what never came is reported.
    fn finish(&mut self, last: (u64, u64), out: &mut Output);

    /// The run's metadata so far.
    fn meta(&self) -> &RunMeta;

    /// The run's metadata, for the driver to complete.
    fn meta_mut(&mut self) -> &mut RunMeta;

    /// The caller says the input is complete without a terminal record
    /// ([`Normalizer::complete`]): an adapter that reports a missing terminal does not.
    fn complete(&mut self) {}

    /// Whether the record just read is surely one this provider's detection
    /// ([`Provider::claims`]) claims, as the adapter knows from the fields it read: then no
    /// other provider's detection need look at it (see `Watch::read`), which would parse
    /// the record again. `false` (the default) when the adapter cannot tell.
    fn claimed(&self) -> bool {
        false
    }
}

/// A [`Normalizer`] made of a [`Framing`], the JSON door and an [`Adapter`].
pub(crate) struct Driver<F, A> {
    framing: F,
    parser: JsonParser,
    adapter: A,
    watch: Watch,
    finished: bool,
}

impl<F: Framing, A: Adapter> Driver<F, A> {
    pub(crate) fn new(options: &Options, adapter: A) -> Self {
        Driver {
            framing: F::new(options.max_record_bytes),
            parser: JsonParser::default(),
            adapter,
            watch: Watch::new(A::PROVIDER, A::STAMPED),
            finished: false,
        }
    }
}

impl<F, A: Adapter> fmt::Debug for Driver<F, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Driver")
            .field("provider", &A::PROVIDER)
            .field("finished", &self.finished)
            .finish_non_exhaustive()
    }
}

impl<F: Framing, A: Adapter> Normalizer for Driver<F, A> {
    fn provider(&self) -> Provider {
        A::PROVIDER
    }

    fn push(&mut self, bytes: &[u8], out: &mut Output) {
        if self.finished {
            return;
        }
        let Driver {
            framing,
            parser,
            adapter,
            watch,
            ..
        } = self;
        watch.input(bytes);
        framing.push(bytes, &mut |frame| {
            Self::frame(watch, parser, adapter, frame, out);
        });
    }

    fn finish(&mut self, out: &mut Output) {
        if self.finished {
            return;
        }
        self.finished = true;
        let Driver {
            framing,
            parser,
            adapter,
            watch,
            ..
        } = self;
        framing.finish(&mut |frame| {
            Self::frame(watch, parser, adapter, frame, out);
        });
        let items = out.items.len();
        let first = out.diagnostics.len();
        adapter.finish(framing.last(), out);
        framing.place_at_end(&mut out.diagnostics, first);
        watch.finish(parser, adapter.meta_mut(), items, out);
    }

    fn meta(&self) -> &RunMeta {
        self.adapter.meta()
    }

    fn push_record(&mut self, bytes: &[u8], line: u64, offset: u64, out: &mut Output) {
        if self.finished {
            return;
        }
        self.framing.seek(line, offset, None);
        self.push_whole(bytes, out);
    }

    fn push_made_record(&mut self, bytes: &[u8], line: u64, span: Range<u64>, out: &mut Output) {
        if self.finished {
            return;
        }
        self.framing.seek(line, span.start, Some(span.end));
        self.push_whole(bytes, out);
        // The input read so far ends after the caller's record and its line feed, not the
        // bytes pushed: a record the caller made may be longer than what it stands for.
        self.framing
            .seek(line + 1, span.end.saturating_add(1), None);
    }

    fn keep(&mut self, line: u64, kind: &str, raw: serde_json::Value) {
        self.adapter.meta_mut().keep(line, kind, || raw);
    }

    fn complete(&mut self) {
        self.adapter.complete();
    }
}

impl<F: Framing, A: Adapter> Driver<F, A> {
    /// A whole record and its implied line feed, as `push(bytes)` then `push(b"\n")` read
    /// them ([`Framing::push_record`]: not gathered into the framing's buffer).
    fn push_whole(&mut self, bytes: &[u8], out: &mut Output) {
        let Driver {
            framing,
            parser,
            adapter,
            watch,
            ..
        } = self;
        watch.input(bytes);
        watch.input(b"\n");
        framing.push_record(bytes, &mut |frame| {
            Self::frame(watch, parser, adapter, frame, out);
        });
    }

    /// One frame: a record to the adapter, with the checks around it; a record too large or
    /// cut off, reported.
    fn frame(
        watch: &mut Watch,
        parser: &mut JsonParser,
        adapter: &mut A,
        frame: Frame<'_>,
        out: &mut Output,
    ) {
        let (items, diagnostics) = (out.items.len(), out.diagnostics.len());
        match frame {
            Frame::Record(record) => {
                adapter.record(parser, record, out);
                watch.first_record(record.span.line, record.span.offset);
                if !adapter.claimed() {
                    watch.read(record, parser, diagnostics, out);
                }
            }
            Frame::TooLarge {
                line,
                offset,
                size,
                terminated,
            } => {
                parser.tally.unreadable();
                watch.first_record(line, offset);
                out.diagnostics
                    .push(too_large(line, offset, size, terminated));
            }
            Frame::Cut(diagnostic) => out.diagnostics.push(diagnostic),
        }
        watch.stamp(adapter.meta(), items, out);
    }
}

/// The checks made around every record, whatever the adapter (see the module docs).
struct Watch {
    provider: Provider,
    /// The start of the input, for saying at the end what it looks like.
    sample: Vec<u8>,
    /// Line and offset of the first record.
    first: Option<(u64, u64)>,
    /// The first other provider whose records were found.
    foreign: Option<Provider>,
    /// Whether items made before the first stamp wait for it.
    hold: bool,
    held: Vec<Item>,
}

/// How much of the input's start is kept to say what an unrecognized input looks like.
const SAMPLE_BYTES: usize = 64 * 1024;

impl Watch {
    fn new(provider: Provider, hold: bool) -> Self {
        Watch {
            provider,
            sample: Vec::new(),
            first: None,
            foreign: None,
            hold,
            held: Vec::new(),
        }
    }

    /// Bytes as they arrive.
    fn input(&mut self, bytes: &[u8]) {
        let room = SAMPLE_BYTES.saturating_sub(self.sample.len());
        self.sample
            .extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    fn first_record(&mut self, line: u64, offset: u64) {
        self.first.get_or_insert((line, offset));
    }

    /// After the adapter read `record` (whose diagnostics start at `diagnostics`): reports it
    /// when it is another provider's, kept as passthrough or not readable as this one's.
    fn read(
        &mut self,
        record: Record<'_>,
        parser: &JsonParser,
        diagnostics: usize,
        out: &mut Output,
    ) {
        let unreadable = out.diagnostics[diagnostics..]
            .iter()
            .any(|d| d.kind == DiagnosticKind::UnexpectedShape);
        let passthrough = parser.tally.last() == Some(Fate::Passthrough);
        if !(passthrough || unreadable) {
            return;
        }
        let value = to_value(record.bytes);
        if value.is_null() || self.provider.claims(&value) {
            return;
        }
        let Some(other) = Provider::ALL
            .into_iter()
            .find(|p| *p != self.provider && p.claims(&value))
        else {
            return;
        };
        self.foreign.get_or_insert(other);
        let fate = if passthrough {
            "kept as passthrough, not read"
        } else {
            "not read"
        };
        let kind = value
            .get("type")
            .or_else(|| value.pointer("/msg/type"))
            .and_then(|kind| kind.as_str())
            .map_or_else(String::new, |kind| format!(" ({kind})"));
        out.diagnostics.push(Diagnostic::new(
            DiagnosticKind::ForeignRecord,
            record.line,
            record.offset,
            format!("a {other} record{kind} in {} output; {fate}", self.provider),
        ));
    }

    /// Dates the items made since `items` with the run's latest source time, or holds them
    /// until the first stamp (see the module docs).
    fn stamp(&mut self, meta: &RunMeta, items: usize, out: &mut Output) {
        let Some(times) = &meta.source_times else {
            if self.hold {
                self.held.extend(out.items.drain(items..));
            }
            return;
        };
        for item in &mut out.items[items..] {
            item.time.get_or_insert_with(|| times.last.clone());
        }
        if !self.held.is_empty() {
            for item in &mut self.held {
                item.time = Some(times.first.clone());
            }
            out.items.splice(items..items, self.held.drain(..));
        }
    }

    /// The input has ended and the adapter has finished (its items from `items` on): the
    /// report into the metadata, and an input of which nothing was read reported.
    fn finish(&mut self, parser: &JsonParser, meta: &mut RunMeta, items: usize, out: &mut Output) {
        self.stamp(meta, items, out);
        // No stamp ever came: what was held goes out undated, before what finishing made.
        out.items.splice(items..items, self.held.drain(..));
        let report = parser.tally.report();
        if report.mapped() == 0 && report.total() > 0 {
            let (line, offset) = self.first.unwrap_or((1, 0));
            let looks = self.foreign.or_else(|| {
                let mut sample = self.sample.clone();
                sample.push(b'\n');
                Provider::detect(&sample).filter(|p| *p != self.provider)
            });
            let looks = match looks {
                Some(other) => format!("the input looks like {other} output (--provider {other})"),
                None => "the input does not look like any provider's output axt reads".to_owned(),
            };
            out.diagnostics.push(Diagnostic::new(
                DiagnosticKind::UnrecognizedInput,
                line,
                offset,
                match report.total() {
                    1 => format!(
                        "the input's only record is not {} output; {looks}",
                        self.provider
                    ),
                    n => format!(
                        "none of the input's {n} records is {} output; {looks}",
                        self.provider
                    ),
                },
            ));
        }
        meta.report = report;
    }
}
