//! What a framing hands the driver: [`Frame`]s of [`Record`]s, and the [`Framing`] trait
//! every framing implements.
//!
//! This file owns the vocabulary between framings and the driver. It must not split bytes
//! (the framings do) nor parse a record (the adapters do, through the JSON door).

use crate::normalize::{Diagnostic, Source};

/// One record of provider data, without its framing: a line without its terminator, the
/// joined `data` of an SSE event, a pretty-printed JSON document, an element of a JSON array
/// stream.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Record<'a> {
    pub(crate) bytes: &'a [u8],
    /// 1-based line of the record's first byte.
    pub(crate) line: u64,
    /// Byte offset of the record's first byte in the stream.
    pub(crate) offset: u64,
    /// False for a last record that ended without its terminator (complete or cut off).
    pub(crate) terminated: bool,
    /// `Some(end)` when the caller made this record to stand for its input from `offset` to
    /// `end` (an importer's rewriting of a line; see [`super::super::Normalizer::push_record`]),
    /// or a framing decoded it from what the input holds there: no byte inside it is the
    /// input's, so every position inside it is its start.
    pub(crate) made: Option<u64>,
    /// The input it came from, for the items made of it: an SSE event's fields, a document's
    /// lines (for a line, the line itself).
    pub(crate) span: Source,
    /// The name the framing gave it: an SSE event's `event` field.
    pub(crate) event: Option<&'a [u8]>,
}

impl<'a> Record<'a> {
    /// A record that is a whole line (or stands for one): its span is itself.
    pub(crate) fn line(bytes: &'a [u8], line: u64, offset: u64, terminated: bool) -> Self {
        Record {
            bytes,
            line,
            offset,
            terminated,
            made: None,
            span: Source::record(line, offset),
            event: None,
        }
    }

    /// The input's position of the record's byte `within` (clamped to its end).
    pub(crate) fn at(&self, within: usize) -> u64 {
        match self.made {
            Some(_) => self.offset,
            None => self.offset + within.min(self.bytes.len()) as u64,
        }
    }

    /// The input's position just after the record's bytes (before its line terminator).
    pub(crate) fn end(&self) -> u64 {
        self.made.unwrap_or(self.offset + self.bytes.len() as u64)
    }
}

/// What a framing hands on.
pub(crate) enum Frame<'a> {
    Record(Record<'a>),
    /// A record over the limit was skipped; `size` is its length (so far, if unterminated).
    TooLarge {
        line: u64,
        offset: u64,
        size: u64,
        terminated: bool,
    },
    /// The input ended inside a record the framing was collecting (a JSON document, an
    /// array stream): what it had is not a record.
    Cut(Diagnostic),
}

/// How the driver splits provider bytes into records (vector's `Framer`: the format of a
/// record is the adapter's business, where one record ends is the framing's).
///
/// Every framing numbers lines and places each record (line, byte offset), keeps memory
/// bounded by the record limit it was made with, and hands on what it completes, in order.
/// JSON Lines ([`Lines`](super::Lines)) and HTTP bodies (JSON lines, SSE events, documents,
/// array streams: [`Http`](super::Http)) are the two; a binary framing (AWS event streams)
/// or one that unwraps another's records (base64 payloads) is a third implementation, with
/// no change to the driver or the adapters: a record whose bytes are not the input's is
/// [`Record::made`].
pub(crate) trait Framing: Send {
    /// A framing whose records are at most `max_record_bytes` long.
    fn new(max_record_bytes: usize) -> Self
    where
        Self: Sized;

    /// The next bytes, split anywhere: every frame they complete, in order.
    fn push(&mut self, bytes: &[u8], each: &mut dyn FnMut(Frame<'_>));

    /// One whole record the caller picked out of a larger input, its line end implied: the
    /// frames of `push(bytes)` then `push(b"\n")`. A framing that can hand the caller's
    /// bytes on as they are, rather than gather them into its buffer first, does so.
    fn push_record(&mut self, bytes: &[u8], each: &mut dyn FnMut(Frame<'_>)) {
        self.push(bytes, each);
        self.push(b"\n", each);
    }

    /// The input has ended: what is still pending, then [`Frame::Cut`] for what never
    /// closed.
    fn finish(&mut self, each: &mut dyn FnMut(Frame<'_>));

    /// Places the next record at the caller's `line` and `offset` (an importer's record
    /// picked out of a larger file), and, with `made`, makes it stand for the input up to
    /// `made` (see [`Record::made`]). Only between records.
    fn seek(&mut self, line: u64, offset: u64, made: Option<u64>);

    /// Where the input read so far ends: the last line read (1 for an empty input) and the
    /// byte after it.
    fn end(&self) -> (u64, u64);

    /// The last line that was not blank, and the byte after it (before its terminator):
    /// where a record that never came is reported. `(0, 0)` before any.
    fn last(&self) -> (u64, u64);

    /// Places the diagnostics from `first` on, that an adapter could not place (line 0: no
    /// record was read at all), at the end of the input.
    fn place_at_end(&self, diagnostics: &mut [Diagnostic], first: usize) {
        let (line, offset) = self.end();
        for diagnostic in diagnostics.iter_mut().skip(first) {
            if diagnostic.line == 0 {
                diagnostic.line = line;
                diagnostic.offset = offset;
            }
        }
    }
}
