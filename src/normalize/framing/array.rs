//! JSON array streams: a body that is one JSON array sent element by element, as Gemini's
//! `streamGenerateContent` sends its chunks without `alt=sse` (and Vertex AI its errors):
//! `[{...}\n,\r\n{...}\n]`, each element pretty-printed or not, on as many lines as it likes.
//!
//! Fed the body's lines as the line framing splits them, it tracks strings and nesting
//! byte by byte and hands on each element as a record as soon as it closes, spanning its
//! lines, placed at its first byte: the stream is read live, never as one document. Memory
//! is bounded by the record limit: an element over it is dropped and only counted, and
//! reported as one record too large. Commas, whitespace and the closing `]` are framing;
//! after the `]` the array is over, and the lines that follow are the body's again.
//!
//! This file owns where an element of the array ends. It must not parse an element (the
//! adapter does) nor decide where an array starts (the HTTP framing does: [`opens`]).

use super::record::{Frame, Record};
use crate::normalize::{Diagnostic, DiagnosticKind, Source};

/// Whether a line (framed, terminator stripped) opens an array stream: `[` then an object,
/// the array's end, or nothing more on the line. (`[DONE]` is no array: a record.)
pub(crate) fn opens(line: &[u8]) -> bool {
    let Some(rest) = line.trim_ascii_start().strip_prefix(b"[") else {
        return false;
    };
    matches!(rest.trim_ascii_start().first(), None | Some(b'{' | b']'))
}

/// An array stream being read (see the module docs).
#[derive(Debug)]
pub(crate) struct ArrayStream {
    max_record_bytes: usize,
    /// The `[` was seen.
    opened: bool,
    /// The `]` was seen: the array is over.
    closed: bool,
    /// The element being collected, if one is open.
    element: Option<Element>,
}

#[derive(Debug)]
struct Element {
    bytes: Vec<u8>,
    line: u64,
    offset: u64,
    end_line: u64,
    size: u64,
    over_limit: bool,
    depth: u32,
    in_string: bool,
    escaped: bool,
    /// A number, string or literal rather than an object or array: it ends at a comma,
    /// whitespace or the `]` outside a string.
    scalar: bool,
    /// Its last byte was read.
    complete: bool,
}

impl ArrayStream {
    pub(crate) fn new(max_record_bytes: usize) -> Self {
        ArrayStream {
            max_record_bytes,
            opened: false,
            closed: false,
            element: None,
        }
    }

    /// Whether the array's `]` was read: the lines after it are no longer the array's.
    pub(crate) fn is_closed(&self) -> bool {
        self.closed
    }

    /// One line of the body: the elements it completes, in order.
    pub(crate) fn line(&mut self, record: Record<'_>, each: &mut dyn FnMut(Frame<'_>)) {
        let bytes = record.bytes;
        let mut at = 0;
        while at < bytes.len() && !self.closed {
            if let Some(element) = &mut self.element {
                let used = element.feed(&bytes[at..], self.max_record_bytes);
                element.end_line = record.line;
                at += used;
                if element.complete {
                    let element = self.element.take().expect("open above");
                    each(element.frame());
                }
                continue;
            }
            match bytes[at] {
                b' ' | b'\t' | b'\r' | b',' => at += 1,
                b'[' if !self.opened => {
                    self.opened = true;
                    at += 1;
                }
                b']' => {
                    self.closed = true;
                    at += 1;
                }
                first => {
                    self.element = Some(Element {
                        bytes: Vec::new(),
                        line: record.line,
                        offset: record.at(at),
                        end_line: record.line,
                        size: 0,
                        over_limit: false,
                        depth: 0,
                        in_string: false,
                        escaped: false,
                        scalar: !matches!(first, b'{' | b'['),
                        complete: false,
                    });
                }
            }
        }
        // The line's terminator belongs to an element still open.
        if let Some(element) = &mut self.element {
            if element.scalar && !element.in_string && element.depth == 0 {
                let element = self.element.take().expect("open above");
                each(element.frame());
            } else {
                element.keep(b"\n", self.max_record_bytes);
            }
        }
    }

    /// A line of the body was over the limit and skipped: the element it was in is too large.
    pub(crate) fn skipped(&mut self, line: u64, offset: u64, size: u64) {
        let element = self.element.get_or_insert_with(|| Element {
            bytes: Vec::new(),
            line,
            offset,
            end_line: line,
            size: 0,
            over_limit: false,
            depth: 0,
            in_string: false,
            escaped: false,
            scalar: false,
            complete: false,
        });
        element.over_limit = true;
        element.bytes = Vec::new();
        element.size += size;
        element.end_line = line;
    }

    /// The input has ended: an element it ended inside is reported as cut.
    pub(crate) fn finish(&mut self, each: &mut dyn FnMut(Frame<'_>)) {
        if let Some(element) = self.element.take() {
            each(Frame::Cut(Diagnostic::new(
                DiagnosticKind::Truncated,
                element.line,
                element.offset,
                format!(
                    "input ends inside the element of the JSON array stream that starts here \
                     (lines {}-{})",
                    element.line, element.end_line
                ),
            )));
        }
    }
}

impl Element {
    /// Takes bytes up to the element's end; returns how many it used.
    fn feed(&mut self, bytes: &[u8], max: usize) -> usize {
        let mut end = None;
        for (at, &byte) in bytes.iter().enumerate() {
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if byte == b'\\' {
                    self.escaped = true;
                } else if byte == b'"' {
                    self.in_string = false;
                }
                continue;
            }
            match byte {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' if self.depth > 0 => {
                    self.depth -= 1;
                    if self.depth == 0 && !self.scalar {
                        end = Some(at + 1);
                        break;
                    }
                }
                b',' | b']' | b' ' | b'\t' | b'\r' if self.scalar && self.depth == 0 => {
                    end = Some(at);
                    break;
                }
                _ => {}
            }
        }
        let used = end.unwrap_or(bytes.len());
        self.keep(&bytes[..used], max);
        self.complete = end.is_some();
        used
    }

    fn keep(&mut self, bytes: &[u8], max: usize) {
        self.size += bytes.len() as u64;
        if self.size > max as u64 {
            self.over_limit = true;
            self.bytes = Vec::new();
        } else if !self.over_limit {
            self.bytes.extend_from_slice(bytes);
        }
    }

    fn frame(&self) -> Frame<'_> {
        if self.over_limit {
            return Frame::TooLarge {
                line: self.line,
                offset: self.offset,
                size: self.size,
                terminated: true,
            };
        }
        Frame::Record(Record {
            span: Source {
                line: self.line,
                end_line: self.end_line,
                offset: self.offset,
            },
            ..Record::line(&self.bytes, self.line, self.offset, true)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::framing::{Framing, Lines};

    /// (what, text, line, end_line, offset) of every frame, `input` pushed in pieces.
    fn frames(input: &[u8], max: usize, chunk: usize) -> Vec<(String, String, u64, u64, u64)> {
        let mut lines = Lines::keeping_blank_lines(1 << 20);
        let mut array = ArrayStream::new(max);
        let mut seen = Vec::new();
        let mut on = |frame: Frame<'_>| {
            seen.push(match frame {
                Frame::Record(r) => (
                    "record".to_owned(),
                    String::from_utf8_lossy(r.bytes).into_owned(),
                    r.span.line,
                    r.span.end_line,
                    r.offset,
                ),
                Frame::TooLarge {
                    line, offset, size, ..
                } => ("too large".into(), size.to_string(), line, line, offset),
                Frame::Cut(d) => ("cut".into(), d.message, d.line, d.line, d.offset),
            })
        };
        let mut each = |frame: Frame<'_>| match frame {
            Frame::Record(record) => array.line(record, &mut on),
            Frame::TooLarge {
                line, offset, size, ..
            } => array.skipped(line, offset, size),
            Frame::Cut(_) => {}
        };
        for piece in input.chunks(chunk) {
            lines.push(piece, &mut each);
        }
        lines.finish(&mut each);
        array.finish(&mut on);
        seen
    }

    #[test]
    fn elements_pretty_or_compact_whatever_the_chunking() {
        let input = b"[{\n  \"a\": \"}],\"\n}\n,\r\n{\"b\": [1, {\"c\": 2}]}, 3 ,\"x\"\n]\n";
        let record = |text: &str, line, end, offset| {
            ("record".to_owned(), text.to_owned(), line, end, offset)
        };
        let expected = vec![
            record("{\n  \"a\": \"}],\"\n}", 1, 3, 1),
            record("{\"b\": [1, {\"c\": 2}]}", 5, 5, 21),
            record("3", 5, 5, 43),
            record("\"x\"", 5, 5, 46),
        ];
        for chunk in [1, 2, 5, input.len()] {
            assert_eq!(frames(input, 1 << 20, chunk), expected, "chunk {chunk}");
        }
    }

    #[test]
    fn an_element_over_the_limit_is_skipped_and_a_cut_one_reported() {
        let long = "y".repeat(80);
        let input = format!("[{{\"a\": \"{long}\"}},\n{{\"b\": 1}},\n{{\"c\":\n");
        let seen: Vec<(String, u64)> = frames(input.as_bytes(), 40, 3)
            .into_iter()
            .map(|f| (f.0, f.2))
            .collect();
        assert_eq!(
            seen,
            [
                ("too large".to_owned(), 1),
                ("record".into(), 2),
                ("cut".into(), 3)
            ]
        );
    }

    #[test]
    fn what_opens_an_array() {
        for line in [&b"["[..], b"[{", b"  [ {\"a\":1}", b"[]"] {
            assert!(opens(line), "{line:?}");
        }
        for line in [&b"[DONE]"[..], b"{\"a\":[1]}", b"data: [{"] {
            assert!(!opens(line), "{line:?}");
        }
    }
}
