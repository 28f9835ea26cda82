//! Splitting a byte stream into records, shared by every line-based adapter.
//!
//! The line rules (LF found in the raw bytes, one CR dropped, a BOM at the start dropped,
//! blank lines skipped, over-long lines skipped and reported) are the ones every reader of
//! JSON Lines uses, in [`crate::model::lines`]; blank records are handed on instead when the
//! reader asks for them (SSE dispatches on blank lines, see [`super::sse`]). This module
//! numbers the records, places them (line, byte offset) and collects multi-line JSON
//! documents.
//!
//! The framer knows nothing of JSON; it hands each record to the adapter with its line
//! number and byte offset.

use super::{Diagnostic, DiagnosticKind, Source};
use crate::model::lines::{self, LineSplitter, Piece};

/// One record, without its line terminator.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Record<'a> {
    pub(crate) bytes: &'a [u8],
    /// 1-based line number.
    pub(crate) line: u64,
    /// Byte offset of the record's first byte in the stream.
    pub(crate) offset: u64,
    /// False for a last record that ended without LF (complete or cut off).
    pub(crate) terminated: bool,
    /// `Some(end)` when the caller made this record to stand for its input from `offset` to
    /// `end` (an importer's rewriting of a line; see [`super::Normalizer::push_record`]):
    /// no byte inside it is the input's, so every position inside it is its start.
    pub(crate) made: Option<u64>,
}

impl Record<'_> {
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

/// What the framer hands on.
pub(crate) enum Frame<'a> {
    Record(Record<'a>),
    /// A record over the limit was skipped; `size` is its length (so far, if unterminated).
    TooLarge {
        line: u64,
        offset: u64,
        size: u64,
        terminated: bool,
    },
}

impl Frame<'_> {
    /// The diagnostic for a skipped over-long record; `None` for a record.
    pub(crate) fn too_large(&self) -> Option<Diagnostic> {
        match *self {
            Frame::TooLarge {
                line,
                offset,
                size,
                terminated,
            } => Some(super::tools::too_large(line, offset, size, terminated)),
            Frame::Record(_) => None,
        }
    }
}

#[derive(Debug)]
pub(crate) struct LineFramer {
    lines: LineSplitter,
    /// Hand blank records on too (as empty records) instead of skipping them.
    keep_blank: bool,
    /// Line number of the record being read.
    line: u64,
    /// Stream offset of the record being read.
    record_offset: u64,
    /// Stream offset of the next byte pushed.
    position: u64,
    /// The next record is one the caller made, standing for its input up to here.
    made: Option<u64>,
}

impl LineFramer {
    pub(crate) fn new(max_record_bytes: usize) -> Self {
        LineFramer {
            lines: LineSplitter::new(max_record_bytes),
            keep_blank: false,
            line: 1,
            record_offset: 0,
            position: 0,
            made: None,
        }
    }

    /// A framer that hands blank records on as empty records, for formats where a blank
    /// line means something.
    pub(crate) fn keeping_blank_lines(max_record_bytes: usize) -> Self {
        LineFramer {
            keep_blank: true,
            ..LineFramer::new(max_record_bytes)
        }
    }

    pub(crate) fn push(&mut self, mut bytes: &[u8], each: &mut dyn FnMut(Frame<'_>)) {
        while !bytes.is_empty() {
            let (used, piece) = self.lines.feed(bytes);
            let Some(piece) = piece else {
                self.position += used as u64;
                return;
            };
            let at = (self.line, self.record_offset);
            hand_on(piece, at, true, self.keep_blank, self.made.take(), each);
            self.position += used as u64;
            self.record_offset = self.position;
            self.line += 1;
            bytes = &bytes[used..];
        }
    }

    /// The end of the input: a last record without LF is still a record.
    /// Places the next record at the caller's `line` and `offset`: for a caller that hands
    /// over whole records picked out of a larger file (an importer), so that every position
    /// the adapter reports is the file's. Only between records (nothing of one pending).
    pub(crate) fn seek(&mut self, line: u64, offset: u64) {
        self.line = line;
        self.record_offset = offset;
        self.position = offset;
        self.made = None;
    }

    /// Like [`LineFramer::seek`], for a record the caller made to stand for its input from
    /// `offset` to `end` (before its line terminator): see [`Record::made`].
    pub(crate) fn seek_made(&mut self, line: u64, offset: u64, end: u64) {
        self.seek(line, offset);
        self.made = Some(end);
    }

    pub(crate) fn finish(&mut self, each: &mut dyn FnMut(Frame<'_>)) {
        let at = (self.line, self.record_offset);
        if let Some(piece) = self.lines.finish() {
            hand_on(piece, at, false, self.keep_blank, self.made.take(), each);
        }
    }

    /// Where the input read so far ends: the last line read (1 for an empty input) and the
    /// byte after it. What "never came" (a terminal record) is reported here.
    pub(crate) fn end(&self) -> (u64, u64) {
        let line = if self.position > self.record_offset {
            self.line // an unterminated last line
        } else {
            self.line.saturating_sub(1).max(1)
        };
        (line, self.position)
    }

    /// Places the diagnostics from `first` on, that an adapter could not place (line 0: no
    /// record was read at all), at the end of the input.
    pub(crate) fn place_at_end(&self, diagnostics: &mut [Diagnostic], first: usize) {
        let (line, offset) = self.end();
        for diagnostic in diagnostics.iter_mut().skip(first) {
            if diagnostic.line == 0 {
                diagnostic.line = line;
                diagnostic.offset = offset;
            }
        }
    }
}

/// A line of the splitter as a frame: a record (its body; a blank one only when asked for,
/// and only with its LF) or a record too large, at `(line, offset)`.
fn hand_on(
    piece: Piece<'_>,
    (line, offset): (u64, u64),
    terminated: bool,
    keep_blank: bool,
    made: Option<u64>,
    each: &mut dyn FnMut(Frame<'_>),
) {
    let raw = match piece {
        Piece::TooLong(size) => {
            return each(Frame::TooLarge {
                line,
                offset,
                size,
                terminated,
            });
        }
        Piece::Line(raw) => raw,
    };
    let (mut bytes, offset) = lines::body(raw, offset);
    if lines::is_blank(bytes) {
        if keep_blank && terminated {
            bytes = &bytes[..0];
        } else {
            return;
        }
    }
    each(Frame::Record(Record {
        bytes,
        line,
        offset,
        terminated,
        made,
    }));
}

/// A pretty-printed, multi-line JSON document (Gemini's json mode, an OpenAI response body)
/// collected record by record until its braces balance. Memory is bounded by the record
/// limit: past it the bytes are dropped and only counted, and the whole document is reported
/// as one record too large.
pub(crate) struct Document {
    bytes: Vec<u8>,
    /// Line and offset of the document's first byte; line of its last record so far.
    pub(crate) line: u64,
    pub(crate) offset: u64,
    pub(crate) end_line: u64,
    /// Bytes collected so far, counted on even after the limit was passed.
    size: u64,
    over_limit: bool,
    depth: BraceDepth,
}

impl Document {
    pub(crate) fn new(line: u64, offset: u64) -> Self {
        Document {
            bytes: Vec::new(),
            line,
            offset,
            end_line: line,
            size: 0,
            over_limit: false,
            depth: BraceDepth::default(),
        }
    }

    /// Adds the next record of the document; true when the document is complete.
    pub(crate) fn feed(&mut self, record: Record<'_>, max_bytes: usize) -> bool {
        self.end_line = record.line;
        self.depth.feed(record.bytes);
        self.size += record.bytes.len() as u64 + 1;
        if self.size > max_bytes as u64 {
            self.over_limit = true;
            self.bytes = Vec::new();
        } else if !self.over_limit {
            self.bytes.extend_from_slice(record.bytes);
            self.bytes.push(b'\n');
        }
        self.depth.closed()
    }

    /// A record inside the document was over the limit and skipped by the framer.
    pub(crate) fn skipped(&mut self, size: u64) {
        self.over_limit = true;
        self.bytes = Vec::new();
        self.size += size;
    }

    /// The complete document as one record, and the lines it spans; the diagnostic instead
    /// when it was over the limit.
    pub(crate) fn record(&self) -> Result<(Record<'_>, Source), Diagnostic> {
        if self.over_limit {
            return Err(super::tools::too_large(
                self.line,
                self.offset,
                self.size,
                true,
            ));
        }
        let record = Record {
            bytes: &self.bytes,
            line: self.line,
            offset: self.offset,
            terminated: true,
            made: None,
        };
        let source = Source {
            line: self.line,
            end_line: self.end_line,
            offset: self.offset,
        };
        Ok((record, source))
    }

    /// The diagnostic for an input that ended inside the document.
    pub(crate) fn truncated(&self) -> Diagnostic {
        Diagnostic::new(
            DiagnosticKind::Truncated,
            self.line,
            self.offset,
            format!(
                "input ends inside the JSON document that starts here (lines {}-{})",
                self.line, self.end_line
            ),
        )
    }
}

/// Brace depth of JSON text, strings skipped; fed in pieces. Tells where a pretty-printed,
/// multi-line JSON document (Gemini's json mode, an OpenAI response body) ends.
#[derive(Default)]
struct BraceDepth {
    depth: i64,
    in_string: bool,
    escaped: bool,
}

impl BraceDepth {
    fn feed(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if byte == b'\\' {
                    self.escaped = true;
                } else if byte == b'"' {
                    self.in_string = false;
                }
            } else {
                match byte {
                    b'"' => self.in_string = true,
                    b'{' | b'[' => self.depth += 1,
                    b'}' | b']' => self.depth -= 1,
                    _ => {}
                }
            }
        }
    }

    fn closed(&self) -> bool {
        self.depth <= 0 && !self.in_string
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    enum Seen {
        Record(String, u64, u64, bool),
        TooLarge(u64, u64, u64, bool),
    }

    fn frame(input: &[u8], max: usize, chunk: usize) -> Vec<Seen> {
        let mut framer = LineFramer::new(max);
        let mut seen = Vec::new();
        let mut each = |frame: Frame<'_>| {
            seen.push(match frame {
                Frame::Record(r) => Seen::Record(
                    String::from_utf8_lossy(r.bytes).into_owned(),
                    r.line,
                    r.offset,
                    r.terminated,
                ),
                Frame::TooLarge {
                    line,
                    offset,
                    size,
                    terminated,
                } => Seen::TooLarge(line, offset, size, terminated),
            })
        };
        for piece in input.chunks(chunk.max(1)) {
            framer.push(piece, &mut each);
        }
        framer.finish(&mut each);
        seen
    }

    fn record(text: &str, line: u64, offset: u64) -> Seen {
        Seen::Record(text.to_owned(), line, offset, true)
    }

    #[test]
    fn splits_on_lf_only_whatever_the_chunking() {
        let input = "{\"a\":\"x\u{2028}y→z\"}\r\n\n  \n{\"b\":2}\n{\"c\":3}".as_bytes();
        let expected = vec![
            record("{\"a\":\"x\u{2028}y→z\"}", 1, 0),
            record("{\"b\":2}", 4, 23),
            Seen::Record("{\"c\":3}".into(), 5, 31, false),
        ];
        for chunk in [1, 2, 3, 7, input.len()] {
            assert_eq!(frame(input, 1 << 20, chunk), expected, "chunk {chunk}");
        }
    }

    #[test]
    fn drops_a_bom_only_at_the_start() {
        let input = b"\xEF\xBB\xBF{\"a\":1}\n\xEF\xBB\xBF{\"b\":2}\n";
        let seen = frame(input, 1 << 20, 1);
        assert_eq!(seen[0], record("{\"a\":1}", 1, 3));
        assert_eq!(seen[1], record("\u{FEFF}{\"b\":2}", 2, 11));
    }

    #[test]
    fn skips_and_reports_over_long_records_with_bounded_memory() {
        let long = "x".repeat(100);
        let input = format!("{{\"a\":1}}\n{long}\n{{\"b\":2}}\n{long}");
        for chunk in [1, 5, 64, input.len()] {
            assert_eq!(
                frame(input.as_bytes(), 50, chunk),
                vec![
                    record("{\"a\":1}", 1, 0),
                    Seen::TooLarge(2, 8, 100, true),
                    record("{\"b\":2}", 3, 109),
                    Seen::TooLarge(4, 117, 100, false),
                ],
                "chunk {chunk}"
            );
        }
        let mut framer = LineFramer::new(50);
        framer.push(long.as_bytes(), &mut |_| {});
        framer.push(long.as_bytes(), &mut |_| {});
        assert_eq!(
            framer.lines.kept(),
            0,
            "nothing of a skipped record is kept"
        );
    }

    #[test]
    fn a_record_exactly_at_the_limit_is_kept() {
        let input = format!("{}\n", "y".repeat(50));
        assert_eq!(
            frame(input.as_bytes(), 50, 3),
            vec![record(&"y".repeat(50), 1, 0)]
        );
    }

    #[test]
    fn brace_depth_skips_strings() {
        let mut depth = BraceDepth::default();
        depth.feed(b"{\n  \"a\": \"}}\\\"{\",\n  \"b\": [1, {\"c\": 2}]\n");
        assert!(!depth.closed());
        depth.feed(b"}");
        assert!(depth.closed());
    }
}
