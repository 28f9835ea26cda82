//! HTTP bodies as APIs send them and as people save them: JSON on one line, pretty-printed
//! JSON documents, SSE streams, JSON array streams and AWS event streams, in any mix, one
//! framing for every HTTP adapter.
//!
//! Each line decides what it is: a line that is `{` alone opens a document, collected until
//! its braces balance ([`Document`]); a line starting with `{`, or any line before the input
//! has shown an SSE field, is a record of its own (JSON, or not: the adapter says what is
//! wrong with it); an SSE field line (`data:`, `event:`, `id:`, `retry:`, `:`) starts or
//! continues an event, and once the input has shown one, every line that is not JSON is an
//! SSE line (an unknown field, ignored as the format says). An event's joined data is the
//! record, named by its `event` field and spanning its fields; data-only keep-alives
//! (`data: :ping`, empty data) are not records. A line that is `[` followed by an object
//! (or nothing) opens a JSON array stream (`array.rs`), whose elements are records until its
//! `]`. Over-long lines inside a document, an event or an element make it too large.
//!
//! A line that starts with a 0 byte starts an AWS event stream (`eventstream.rs`): binary
//! from there to the end of the input (a recording proxy writes the request it forwarded as
//! a JSON line before the binary response it got back). Its messages are records made from
//! their payloads.
//!
//! This file owns that dispatch. It must not parse JSON nor know a provider's sentinels
//! (`[DONE]` is a record like any other, for its adapter to recognise).

use super::array::{self, ArrayStream};
use super::document::Document;
use super::eventstream::EventStream;
use super::lines::Lines;
use super::record::{Frame, Framing};
use super::sse::{SseFrame, SseParser};

#[derive(Debug)]
pub(crate) struct Http {
    lines: Lines,
    sse: SseParser,
    document: Option<Document>,
    array: Option<ArrayStream>,
    max_record_bytes: usize,
    /// The input has shown an SSE field line.
    sse_seen: bool,
    /// The rest of the input is an AWS event stream.
    binary: Option<EventStream>,
}

impl Framing for Http {
    fn new(max_record_bytes: usize) -> Self {
        Http {
            lines: Lines::keeping_blank_lines(max_record_bytes),
            sse: SseParser::new(max_record_bytes),
            document: None,
            array: None,
            max_record_bytes,
            sse_seen: false,
            binary: None,
        }
    }

    fn push(&mut self, bytes: &[u8], each: &mut dyn FnMut(Frame<'_>)) {
        if let Some(binary) = &mut self.binary {
            return binary.push(bytes, each);
        }
        // Where a line starts with a 0 byte, the event stream starts: the line framer stops
        // there.
        let Split { lines, mut body } = self.split();
        let text = lines.push_text(bytes, &mut |frame| body.line(frame, each));
        if text < bytes.len() {
            self.close_text(each);
            let (line, offset) = self.lines.next_position();
            let mut binary = EventStream::new(self.max_record_bytes, line, offset);
            binary.push(&bytes[text..], each);
            self.binary = Some(binary);
        }
    }

    fn finish(&mut self, each: &mut dyn FnMut(Frame<'_>)) {
        if let Some(binary) = &mut self.binary {
            return binary.finish(each);
        }
        let Split { lines, mut body } = self.split();
        lines.finish(&mut |frame| body.line(frame, each));
        self.close_text(each);
    }

    fn seek(&mut self, line: u64, offset: u64, made: Option<u64>) {
        self.lines.seek(line, offset, made);
    }

    fn end(&self) -> (u64, u64) {
        match &self.binary {
            Some(binary) => binary.end(),
            None => self.lines.end(),
        }
    }

    fn last(&self) -> (u64, u64) {
        match self.binary.as_ref().map(EventStream::last) {
            Some(last) if last != (0, 0) => last,
            _ => self.lines.last(),
        }
    }
}

impl Http {
    /// The text part of the input is over: what it left open is handed on or reported.
    fn close_text(&mut self, each: &mut dyn FnMut(Frame<'_>)) {
        self.sse.finish(&mut |event| event_frame(event, each));
        if let Some(document) = self.document.take() {
            each(Frame::Cut(document.truncated()));
        }
        if let Some(mut array) = self.array.take() {
            array.finish(each);
        }
    }
}

/// The framing's parts apart from its line splitter, which borrows the bytes it hands on.
struct Body<'h> {
    sse: &'h mut SseParser,
    document: &'h mut Option<Document>,
    array: &'h mut Option<ArrayStream>,
    max_record_bytes: usize,
    sse_seen: &'h mut bool,
}

/// [`Http`] split into its line splitter and the rest.
struct Split<'h> {
    lines: &'h mut Lines,
    body: Body<'h>,
}

impl Http {
    fn split(&mut self) -> Split<'_> {
        Split {
            lines: &mut self.lines,
            body: Body {
                sse: &mut self.sse,
                document: &mut self.document,
                array: &mut self.array,
                max_record_bytes: self.max_record_bytes,
                sse_seen: &mut self.sse_seen,
            },
        }
    }
}

impl Body<'_> {
    /// One line of the input (see the module docs).
    fn line(&mut self, frame: Frame<'_>, each: &mut dyn FnMut(Frame<'_>)) {
        let record = match frame {
            Frame::Record(record) => record,
            Frame::TooLarge {
                line,
                offset,
                size,
                terminated,
            } => {
                if let Some(document) = self.document {
                    document.skipped(size);
                } else if let Some(array) = self.array {
                    array.skipped(line, offset, size);
                } else if *self.sse_seen {
                    self.sse.skipped_line(line, offset, size);
                } else {
                    each(Frame::TooLarge {
                        line,
                        offset,
                        size,
                        terminated,
                    });
                }
                return;
            }
            cut @ Frame::Cut(_) => return each(cut),
        };
        if let Some(document) = self.document {
            if !record.bytes.is_empty() && document.feed(record, self.max_record_bytes) {
                let document = self.document.take().expect("open above");
                each(document.frame());
            }
            return;
        }
        if let Some(array) = self.array {
            array.line(record, each);
            if array.is_closed() {
                *self.array = None;
            }
            return;
        }
        let first = record.bytes.iter().find(|b| !b.is_ascii_whitespace());
        if record.bytes.is_empty() {
            self.sse.line(record, &mut |event| event_frame(event, each));
        } else if !*self.sse_seen && array::opens(record.bytes) {
            let mut array = ArrayStream::new(self.max_record_bytes);
            array.line(record, each);
            if !array.is_closed() {
                *self.array = Some(array);
            }
        } else if record.bytes.trim_ascii() == b"{" {
            let mut document = Document::new(record.line, record.offset);
            document.feed(record, self.max_record_bytes);
            *self.document = Some(document);
        } else if first == Some(&b'{')
            || !(*self.sse_seen || SseParser::is_field_line(record.bytes))
        {
            each(Frame::Record(record));
        } else {
            *self.sse_seen = true;
            self.sse.line(record, &mut |event| event_frame(event, each));
        }
    }
}

/// An SSE event as a frame: its data a record, a keep-alive nothing.
fn event_frame(event: SseFrame<'_>, each: &mut dyn FnMut(Frame<'_>)) {
    match event {
        SseFrame::Event(record) => {
            let data = record.bytes.trim_ascii();
            if !(data.is_empty() || data.starts_with(b":")) {
                each(Frame::Record(record));
            }
        }
        SseFrame::TooLarge {
            line,
            offset,
            size,
            terminated,
        } => each(Frame::TooLarge {
            line,
            offset,
            size,
            terminated,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (what, text, line, end_line, offset, event) of every frame, `whole` pushed in pieces
    /// of `chunk` bytes.
    fn frames(whole: &[u8], chunk: usize) -> Vec<(String, String, u64, u64, u64, String)> {
        let mut http = Http::new(200);
        let mut seen = Vec::new();
        let mut each = |frame: Frame<'_>| {
            seen.push(match frame {
                Frame::Record(r) => (
                    "record".to_owned(),
                    String::from_utf8_lossy(r.bytes).into_owned(),
                    r.span.line,
                    r.span.end_line,
                    r.offset,
                    String::from_utf8_lossy(r.event.unwrap_or(b"-")).into_owned(),
                ),
                Frame::TooLarge {
                    line, offset, size, ..
                } => (
                    "too large".into(),
                    size.to_string(),
                    line,
                    line,
                    offset,
                    "-".into(),
                ),
                Frame::Cut(d) => (
                    "cut".into(),
                    d.message,
                    d.line,
                    d.line,
                    d.offset,
                    "-".into(),
                ),
            })
        };
        for piece in whole.chunks(chunk) {
            http.push(piece, &mut each);
        }
        http.finish(&mut each);
        seen
    }

    #[test]
    fn lines_documents_and_events_in_one_input() {
        let input = b"{\"a\":1}\n{\n  \"b\": \"}\"\n}\nevent: e\ndata: {\"c\":\ndata: 3}\n\ndata: :ping\n\nnot json\n\ndata: [DONE]\n\n{\n";
        let record = |text: &str, line, end, offset, event: &str| {
            let text = text.to_owned();
            (
                "record".to_owned(),
                text,
                line,
                end,
                offset,
                event.to_owned(),
            )
        };
        let expected = vec![
            record("{\"a\":1}", 1, 1, 0, "-"),
            record("{\n  \"b\": \"}\"\n}\n", 2, 4, 8, "-"),
            record("{\"c\":\n3}", 5, 7, 38, "e"),
            // Once SSE was seen, a line that is no JSON is an unknown field, ignored.
            record("[DONE]", 13, 13, 83, "-"),
            (
                "cut".into(),
                "input ends inside the JSON document that starts here (lines 15-15)".into(),
                15,
                15,
                91,
                "-".into(),
            ),
        ];
        for chunk in [1, 2, 5, input.len()] {
            assert_eq!(frames(input, chunk), expected, "chunk {chunk}");
        }
    }

    /// The event stream starts at the first 0 byte that starts a line, in whatever chunks the
    /// input comes; a 0 byte inside a line is text.
    #[test]
    fn the_event_stream_starts_at_a_line_that_starts_with_a_zero_byte() {
        let input = b"{\"a\":\"x\0y\"}\n\0{\"b\":1}\n\0\0\0\x10not a prelude";
        let whole = frames(input, input.len());
        assert_eq!(
            whole[0],
            (
                "record".to_owned(),
                "{\"a\":\"x\0y\"}".to_owned(),
                1,
                1,
                0,
                "-".to_owned()
            )
        );
        // From line 2 on the input is binary: no text record of it.
        assert!(
            whole[1..].iter().all(|f| f.0 != "record" && f.2 >= 2),
            "{whole:?}"
        );
        for chunk in [1, 2, 3, 13, 14] {
            assert_eq!(frames(input, chunk), whole, "chunk {chunk}");
        }
    }

    #[test]
    fn an_over_long_line_skips_its_document_or_event() {
        let long = "x".repeat(300);
        let input = format!("{{\n\"a\": \"{long}\"\n}}\ndata: {long}\n\n{long}\n");
        let seen = frames(input.as_bytes(), 7);
        let kinds: Vec<(&str, u64)> = seen.iter().map(|f| (f.0.as_str(), f.2)).collect();
        // The last line, once SSE was seen, is a field line of an event of its own.
        assert_eq!(
            kinds,
            [("too large", 1), ("too large", 4), ("too large", 6)],
            "{seen:?}"
        );
    }
}
