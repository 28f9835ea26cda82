//! Pretty-printed JSON documents: a record that spans lines (Gemini's json mode, an HTTP
//! response body saved as it came), collected line by line until its braces balance.
//!
//! This file owns where a multi-line document ends. It must not parse the document (the
//! adapter does) nor decide where one starts (the framing that uses it does).

use super::record::{Frame, Record};
use crate::normalize::tools::too_large;
use crate::normalize::{Diagnostic, DiagnosticKind, Source};

/// A pretty-printed, multi-line JSON document (Gemini's json mode, an OpenAI response body)
/// collected record by record until its braces balance. Memory is bounded by the record
/// limit: past it the bytes are dropped and only counted, and the whole document is reported
/// as one record too large.
#[derive(Debug)]
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

    /// The complete document as one record, spanning its lines; the diagnostic instead when
    /// it was over the limit.
    pub(crate) fn record(&self) -> Result<Record<'_>, Diagnostic> {
        if self.over_limit {
            return Err(too_large(self.line, self.offset, self.size, true));
        }
        Ok(self.whole())
    }

    /// The bytes collected as one record spanning the document's lines.
    fn whole(&self) -> Record<'_> {
        Record {
            span: Source {
                line: self.line,
                end_line: self.end_line,
                offset: self.offset,
            },
            ..Record::line(&self.bytes, self.line, self.offset, true)
        }
    }

    /// The complete document as a frame: its record, or too large.
    pub(crate) fn frame(&self) -> Frame<'_> {
        if self.over_limit {
            return Frame::TooLarge {
                line: self.line,
                offset: self.offset,
                size: self.size,
                terminated: true,
            };
        }
        Frame::Record(self.whole())
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
#[derive(Debug, Default)]
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

    #[test]
    fn brace_depth_skips_strings() {
        let mut depth = BraceDepth::default();
        depth.feed(b"{\n  \"a\": \"}}\\\"{\",\n  \"b\": [1, {\"c\": 2}]\n");
        assert!(!depth.closed());
        depth.feed(b"}");
        assert!(depth.closed());
    }
}
