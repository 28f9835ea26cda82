//! Splitting a byte stream into records, shared by every line-based adapter.
//!
//! Records end at LF bytes, found with `memchr` in the raw bytes: never in decoded text, so
//! a chunk boundary inside a multi-byte character, or a raw U+2028 inside a JSON string
//! (which text-based line readers treat as a line break), cannot split a record. One CR
//! before the LF is dropped, a UTF-8 byte order mark at the start of the stream is dropped,
//! and blank records are skipped (unless the reader asks for them: SSE dispatches on blank
//! lines, see [`super::sse`]). A record longer than the limit is skipped up to its LF and
//! reported, so memory is bounded by the limit, not by the input.
//!
//! The framer knows nothing of JSON; it hands each record to the adapter with its line
//! number and byte offset.

use memchr::memchr;

use super::{Diagnostic, DiagnosticKind, Source};

const BOM: &[u8] = b"\xEF\xBB\xBF";

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
    max_record_bytes: usize,
    /// Hand blank records on too (as empty records) instead of skipping them.
    keep_blank: bool,
    /// The start of a record whose LF has not arrived yet.
    partial: Vec<u8>,
    /// Line number of the record being read.
    line: u64,
    /// Stream offset of the record being read.
    record_offset: u64,
    /// Bytes of an over-long record skipped so far, while waiting for its LF.
    skipping: Option<u64>,
    /// Stream offset of the next byte pushed.
    position: u64,
}

impl LineFramer {
    pub(crate) fn new(max_record_bytes: usize) -> Self {
        LineFramer {
            max_record_bytes,
            keep_blank: false,
            partial: Vec::new(),
            line: 1,
            record_offset: 0,
            skipping: None,
            position: 0,
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
            let Some(at) = memchr(b'\n', bytes) else {
                self.accumulate(bytes);
                self.position += bytes.len() as u64;
                return;
            };
            let (head, rest) = (&bytes[..at], &bytes[at + 1..]);
            if let Some(skipped) = self.skipping.take() {
                each(self.too_large(skipped + head.len() as u64, true));
            } else if self.partial.is_empty() {
                // The common case: the whole record is in this chunk; no copy.
                self.deliver_or_reject(head, true, each);
            } else if self.partial.len() + head.len() > self.max_record_bytes {
                let size = (self.partial.len() + head.len()) as u64;
                self.partial.clear();
                each(self.too_large(size, true));
            } else {
                let mut partial = std::mem::take(&mut self.partial);
                partial.extend_from_slice(head);
                self.deliver_or_reject(&partial, true, each);
                partial.clear();
                self.partial = partial; // keep the allocation for the next long record
            }
            self.position += at as u64 + 1;
            self.record_offset = self.position;
            self.line += 1;
            bytes = rest;
        }
    }

    /// The end of the input: a last record without LF is still a record.
    pub(crate) fn finish(&mut self, each: &mut dyn FnMut(Frame<'_>)) {
        if let Some(skipped) = self.skipping.take() {
            each(self.too_large(skipped, false));
        } else if !self.partial.is_empty() {
            let partial = std::mem::take(&mut self.partial);
            self.deliver_or_reject(&partial, false, each);
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

    fn accumulate(&mut self, bytes: &[u8]) {
        if let Some(skipped) = &mut self.skipping {
            *skipped += bytes.len() as u64;
        } else if self.partial.len() + bytes.len() > self.max_record_bytes {
            self.skipping = Some((self.partial.len() + bytes.len()) as u64);
            self.partial = Vec::new(); // give the memory back; reported when the record ends
        } else {
            self.partial.extend_from_slice(bytes);
        }
    }

    fn too_large(&self, size: u64, terminated: bool) -> Frame<'static> {
        Frame::TooLarge {
            line: self.line,
            offset: self.record_offset,
            size,
            terminated,
        }
    }

    fn deliver_or_reject(&self, record: &[u8], terminated: bool, each: &mut dyn FnMut(Frame<'_>)) {
        if record.len() > self.max_record_bytes {
            each(self.too_large(record.len() as u64, terminated));
            return;
        }
        let mut bytes = record.strip_suffix(b"\r").unwrap_or(record);
        let mut offset = self.record_offset;
        if offset == 0 && bytes.starts_with(BOM) {
            bytes = &bytes[BOM.len()..];
            offset = BOM.len() as u64;
        }
        if bytes.iter().all(u8::is_ascii_whitespace) {
            if self.keep_blank && terminated {
                bytes = &bytes[..0];
            } else {
                return;
            }
        }
        each(Frame::Record(Record {
            bytes,
            line: self.line,
            offset,
            terminated,
        }));
    }
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
            framer.partial.capacity(),
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
