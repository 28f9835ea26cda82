//! The driver every line-based adapter shares, and the checks made around every record
//! whatever the adapter.
//!
//! An adapter keeps only its own state between records ([`LineAdapter`]); the driver owns the
//! framer and the JSON parser, hands the adapter each framed record, and keeps the
//! [`Normalizer`] contract (nothing is read after `finish`, and `finish` runs once).
//!
//! Around each record the driver ([`Watch`], which the OpenAI normalizer's own framing uses
//! too) does what does not depend on the dialect:
//!
//! * **Times.** The items a record completed carry the run's latest source time
//!   ([`RunMeta::source_times`]), which the adapter keeps from the records' stamps. For the
//!   providers that stamp their output (Gemini, Copilot, OpenAI) items made before the first
//!   stamp (an OpenAI request before its response, say) are held until it comes and take it:
//!   times stay in order and the same input always gives the same times. Where no stamp ever
//!   comes, they are handed out at the end without a time. Claude Code and Codex are not held
//!   for: their stream-json and `exec --json` output has no stamps, and their items go out as
//!   soon as they are complete.
//! * **The input report.** Records over the size limit are counted as unreadable (the parser
//!   counts every other record, [`super::report`]); at the end the report goes into the run's
//!   metadata.
//! * **Another provider's output.** A record this adapter only kept as passthrough, or could
//!   not read at all, that another provider's detection claims is reported
//!   ([`DiagnosticKind::ForeignRecord`]): records of another tool mixed into a stream are not
//!   passed over in silence. And an input with records of which the adapter read none is an
//!   error ([`DiagnosticKind::UnrecognizedInput`]) that names the provider the input looks
//!   like: `--provider claude` on Codex output is not a clean, empty run.

use std::fmt;
use std::ops::Range;

use super::framing::{Frame, LineFramer, Record};
use super::json::{JsonParser, to_value};
use super::report::Fate;
use super::{Diagnostic, DiagnosticKind, Item, Normalizer, Options, Output, Provider, RunMeta};

/// A provider dialect read record by record: the state between records.
pub(crate) trait LineAdapter: Send {
    /// Whose output this reads.
    const PROVIDER: Provider;

    /// One framed record, or an over-long one the framer skipped.
    fn frame(&mut self, parser: &mut JsonParser, frame: Frame<'_>, out: &mut Output);

    /// The input has ended: emit what is open, settle the run's status.
    fn finish(&mut self, out: &mut Output);

    /// The run's metadata so far.
    fn meta(&self) -> &RunMeta;

    /// The run's metadata, for the driver to complete.
    fn meta_mut(&mut self) -> &mut RunMeta;

    /// The caller says the input is complete without a terminal record
    /// ([`Normalizer::complete`]): an adapter that reports a missing terminal does not.
    fn complete(&mut self) {}
}

/// A [`Normalizer`] made of the shared framing and parsing around a [`LineAdapter`].
pub(crate) struct LineNormalizer<A> {
    framer: LineFramer,
    parser: JsonParser,
    adapter: A,
    watch: Watch,
    finished: bool,
}

impl<A: LineAdapter> LineNormalizer<A> {
    pub(crate) fn new(options: &Options, adapter: A) -> Self {
        LineNormalizer {
            framer: LineFramer::new(options.max_record_bytes),
            parser: JsonParser::default(),
            adapter,
            watch: Watch::new(A::PROVIDER),
            finished: false,
        }
    }
}

impl<A: LineAdapter> fmt::Debug for LineNormalizer<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LineNormalizer")
            .field("provider", &A::PROVIDER)
            .field("finished", &self.finished)
            .finish_non_exhaustive()
    }
}

impl<A: LineAdapter> Normalizer for LineNormalizer<A> {
    fn provider(&self) -> Provider {
        A::PROVIDER
    }

    fn push(&mut self, bytes: &[u8], out: &mut Output) {
        if self.finished {
            return;
        }
        let LineNormalizer {
            framer,
            parser,
            adapter,
            watch,
            ..
        } = self;
        watch.input(bytes);
        framer.push(bytes, &mut |frame| {
            Self::record(watch, parser, adapter, frame, out);
        });
    }

    fn finish(&mut self, out: &mut Output) {
        if self.finished {
            return;
        }
        self.finished = true;
        let LineNormalizer {
            framer,
            parser,
            adapter,
            watch,
            ..
        } = self;
        framer.finish(&mut |frame| {
            Self::record(watch, parser, adapter, frame, out);
        });
        let items = out.items.len();
        let first = out.diagnostics.len();
        adapter.finish(out);
        framer.place_at_end(&mut out.diagnostics, first);
        watch.finish(parser, adapter.meta_mut(), items, out);
    }

    fn meta(&self) -> &RunMeta {
        self.adapter.meta()
    }

    fn push_record(&mut self, bytes: &[u8], line: u64, offset: u64, out: &mut Output) {
        if self.finished {
            return;
        }
        self.framer.seek(line, offset);
        self.push(bytes, out);
        self.push(b"\n", out);
    }

    fn push_made_record(&mut self, bytes: &[u8], line: u64, span: Range<u64>, out: &mut Output) {
        if self.finished {
            return;
        }
        self.framer.seek_made(line, span.start, span.end);
        self.push(bytes, out);
        self.push(b"\n", out);
        // The input read so far ends after the caller's record and its line feed, not the
        // bytes pushed: a record the caller made may be longer than what it stands for.
        self.framer.seek(line + 1, span.end.saturating_add(1));
    }

    fn keep(&mut self, line: u64, kind: &str, raw: serde_json::Value) {
        self.adapter.meta_mut().keep(line, kind, || raw);
    }

    fn complete(&mut self) {
        self.adapter.complete();
    }
}

impl<A: LineAdapter> LineNormalizer<A> {
    fn record(
        watch: &mut Watch,
        parser: &mut JsonParser,
        adapter: &mut A,
        frame: Frame<'_>,
        out: &mut Output,
    ) {
        let (items, diagnostics) = (out.items.len(), out.diagnostics.len());
        let record = match frame {
            Frame::Record(record) => Some(record),
            Frame::TooLarge { line, offset, .. } => {
                parser.tally.unreadable();
                watch.first_record(line, offset);
                None
            }
        };
        adapter.frame(parser, frame, out);
        if let Some(record) = record {
            watch.first_record(record.line, record.offset);
            watch.read(record, parser, diagnostics, out);
        }
        watch.stamp(adapter.meta(), items, out);
    }
}

/// The checks made around every record, whatever the adapter (see the module docs).
pub(crate) struct Watch {
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
    pub(crate) fn new(provider: Provider) -> Self {
        Watch {
            provider,
            sample: Vec::new(),
            first: None,
            foreign: None,
            hold: matches!(
                provider,
                Provider::Gemini | Provider::Copilot | Provider::OpenAi
            ),
            held: Vec::new(),
        }
    }

    /// Bytes as they arrive.
    pub(crate) fn input(&mut self, bytes: &[u8]) {
        let room = SAMPLE_BYTES.saturating_sub(self.sample.len());
        self.sample
            .extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    pub(crate) fn first_record(&mut self, line: u64, offset: u64) {
        self.first.get_or_insert((line, offset));
    }

    /// After the adapter read `record` (whose diagnostics start at `diagnostics`): reports it
    /// when it is another provider's, kept as passthrough or not readable as this one's.
    pub(crate) fn read(
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
    pub(crate) fn stamp(&mut self, meta: &RunMeta, items: usize, out: &mut Output) {
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
    pub(crate) fn finish(
        &mut self,
        parser: &JsonParser,
        meta: &mut RunMeta,
        items: usize,
        out: &mut Output,
    ) {
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
