//! The driver every line-based adapter shares.
//!
//! An adapter keeps only its own state between records ([`LineAdapter`]); the driver owns the
//! framer and the JSON parser, hands the adapter each framed record, and keeps the
//! [`Normalizer`] contract (nothing is read after `finish`, and `finish` runs once).

use std::fmt;

use super::framing::{Frame, LineFramer};
use super::json::JsonParser;
use super::{Normalizer, Options, Output, Provider, RunMeta};

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
}

/// A [`Normalizer`] made of the shared framing and parsing around a [`LineAdapter`].
pub(crate) struct LineNormalizer<A> {
    framer: LineFramer,
    parser: JsonParser,
    adapter: A,
    finished: bool,
}

impl<A: LineAdapter> LineNormalizer<A> {
    pub(crate) fn new(options: &Options, adapter: A) -> Self {
        LineNormalizer {
            framer: LineFramer::new(options.max_record_bytes),
            parser: JsonParser::default(),
            adapter,
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
            ..
        } = self;
        framer.push(bytes, &mut |frame| adapter.frame(parser, frame, out));
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
            ..
        } = self;
        framer.finish(&mut |frame| adapter.frame(parser, frame, out));
        let first = out.diagnostics.len();
        adapter.finish(out);
        framer.place_at_end(&mut out.diagnostics, first);
    }

    fn meta(&self) -> &RunMeta {
        self.adapter.meta()
    }
}
