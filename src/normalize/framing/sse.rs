//! Server-sent events over the line framer: fields in, events out; and what an SSE stream
//! looks like to detection.
//!
//! The framing of the WHATWG `text/event-stream` format, as HTTP APIs stream it: lines (LF or
//! CR LF, split by `Lines` on raw bytes, blank lines kept) are `field:
//! value` pairs, one space after the colon dropped; a line starting with `:` is a comment
//! (`: ping`, `: OPENROUTER PROCESSING`) and ignored; `data` lines accumulate, joined with
//! `\n`; `event` names the event; `id` is remembered across events; `retry` and unknown fields
//! are ignored, as the format says; a blank line dispatches the event, and an event without
//! data is dropped. An event still open when the input ends is dispatched anyway, marked
//! unterminated, so that a cut-off stream still yields what arrived.
//!
//! The joined data of one event is bounded by the record limit: a longer event is skipped up
//! to its dispatch and reported as too large, so memory stays bounded by the limit.
//!
//! This module knows nothing of JSON or of any provider: it hands each event's data on as a
//! `Record` (at the line and offset of its first `data` value, spanning the event's fields,
//! named by its `event` field) for the adapter to parse. Detection asks it for a stream's
//! first event (`first_data`) and asks the adapters whose it is.

use super::lines::Lines;
use super::record::{Frame, Framing, Record};
use crate::normalize::Source;

/// What the parser hands on.
pub(crate) enum SseFrame<'a> {
    /// An event: its joined data, `terminated` false for an event the input ended inside.
    Event(Record<'a>),
    /// An event whose data went over the limit was skipped.
    TooLarge {
        line: u64,
        offset: u64,
        size: u64,
        terminated: bool,
    },
}

#[derive(Debug)]
pub(crate) struct SseParser {
    max_data_bytes: usize,
    event: Vec<u8>,
    has_event: bool,
    data: Vec<u8>,
    /// Data lines of the pending event (0: nothing pending).
    data_lines: usize,
    /// Line and offset of the pending event's first field, and of its first data value.
    first_line: u64,
    first_offset: u64,
    data_line: u64,
    data_offset: u64,
    last_line: u64,
    /// Size of a pending event's data once it went over the limit.
    over: Option<u64>,
    /// The last `id` field, which per the format outlives its event.
    last_id: Vec<u8>,
}

impl SseParser {
    pub(crate) fn new(max_data_bytes: usize) -> Self {
        SseParser {
            max_data_bytes,
            event: Vec::new(),
            has_event: false,
            data: Vec::new(),
            data_lines: 0,
            first_line: 0,
            first_offset: 0,
            data_line: 0,
            data_offset: 0,
            last_line: 0,
            over: None,
            last_id: Vec::new(),
        }
    }

    /// Whether a line (already framed, terminator stripped) is an SSE field or comment line:
    /// `data:`, `event:`, `id:`, `retry:` or `:`. Other lines are fields only to a reader that
    /// already knows it reads SSE.
    pub(crate) fn is_field_line(line: &[u8]) -> bool {
        line.starts_with(b":")
            || [&b"data"[..], b"event", b"id", b"retry"]
                .iter()
                .any(|name| {
                    line.strip_prefix(*name)
                        .is_some_and(|rest| rest.is_empty() || rest[0] == b':')
                })
    }

    /// One line of the stream: a blank line dispatches the pending event.
    pub(crate) fn line(&mut self, record: Record<'_>, each: &mut dyn FnMut(SseFrame<'_>)) {
        let bytes = record.bytes;
        if bytes.is_empty() {
            self.dispatch(true, each);
            return;
        }
        if bytes[0] == b':' {
            return;
        }
        let (name, mut value) = match bytes.iter().position(|b| *b == b':') {
            Some(at) => (&bytes[..at], &bytes[at + 1..]),
            None => (bytes, &bytes[..0]),
        };
        if let Some(rest) = value.strip_prefix(b" ") {
            value = rest;
        }
        let pending = self.data_lines > 0 || self.has_event;
        if !pending {
            self.first_line = record.line;
            self.first_offset = record.offset;
        }
        self.last_line = record.line;
        match name {
            b"data" => {
                if self.data_lines == 0 {
                    self.data_line = record.line;
                    self.data_offset = record.at(bytes.len() - value.len());
                }
                self.data_lines += 1;
                let added = value.len() + usize::from(self.data_lines > 1);
                match &mut self.over {
                    Some(size) => *size += added as u64,
                    None if self.data.len() + added > self.max_data_bytes => {
                        self.over = Some((self.data.len() + added) as u64);
                        self.data = Vec::new();
                    }
                    None => {
                        if self.data_lines > 1 {
                            self.data.push(b'\n');
                        }
                        self.data.extend_from_slice(value);
                    }
                }
            }
            b"event" => {
                self.event.clear();
                self.event.extend_from_slice(value);
                self.has_event = true;
            }
            b"id" if !value.contains(&0) => {
                self.last_id.clear();
                self.last_id.extend_from_slice(value);
            }
            _ => {} // `retry`, unknown fields: ignored, as the format says
        }
    }

    /// The input has ended: an event still pending is dispatched, marked unterminated.
    pub(crate) fn finish(&mut self, each: &mut dyn FnMut(SseFrame<'_>)) {
        self.dispatch(false, each);
    }

    /// A line of the pending event was over the record limit and skipped: the event is
    /// reported as too large when it is dispatched, not read without that line.
    pub(crate) fn skipped_line(&mut self, line: u64, offset: u64, size: u64) {
        if self.data_lines == 0 {
            if !self.has_event {
                self.first_line = line;
                self.first_offset = offset;
            }
            self.data_line = line;
            self.data_offset = offset;
        }
        self.data_lines = self.data_lines.max(1);
        self.last_line = line;
        self.data = Vec::new();
        *self.over.get_or_insert(0) += size;
    }

    /// The last `id` field seen, if any.
    #[allow(dead_code)] // part of the framing; no adapter resumes streams yet
    pub(crate) fn last_id(&self) -> Option<&[u8]> {
        (!self.last_id.is_empty()).then_some(&self.last_id[..])
    }

    fn dispatch(&mut self, terminated: bool, each: &mut dyn FnMut(SseFrame<'_>)) {
        let lines = std::mem::take(&mut self.data_lines);
        let has_event = std::mem::take(&mut self.has_event);
        if let Some(size) = self.over.take() {
            each(SseFrame::TooLarge {
                line: self.data_line,
                offset: self.data_offset,
                size,
                terminated,
            });
        } else if lines > 0 {
            each(SseFrame::Event(Record {
                span: Source {
                    line: self.first_line,
                    end_line: self.last_line,
                    offset: self.first_offset,
                },
                event: has_event.then_some(&self.event[..]),
                ..Record::line(&self.data, self.data_line, self.data_offset, terminated)
            }));
        }
        self.data.clear();
        self.event.clear();
    }
}

/// The first event's data, when `head` (complete lines) is an SSE stream: the value of its
/// first `data` field line, data-only keep-alives (`data: :ping`, empty data) skipped, and
/// comments, other fields and lines that are no field before it too. `None` when no line of
/// `head` is a `data` field. Detection asks the adapters whose data it is.
pub(crate) fn first_data(head: &[u8]) -> Option<&[u8]> {
    for line in head.split(|b| *b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() || !SseParser::is_field_line(line) {
            continue;
        }
        let Some(value) = line.strip_prefix(b"data:") else {
            continue;
        };
        let value = value.trim_ascii();
        if value.is_empty() || value.starts_with(b":") {
            continue; // a data-only keep-alive
        }
        return Some(value);
    }
    None
}

/// The line framer and the SSE parser over a byte stream, owning what they hand on, as the
/// OpenAI adapter drives them (an over-long line skips its event). The seam of the SSE fuzz
/// target (`fuzz/fuzz_targets/sse_framer.rs`) and of its replay on stable: not part of
/// axt's API (the module is public, and hidden, for it alone).
#[doc(hidden)]
#[derive(Debug)]
pub struct SseSplitter {
    framer: Lines,
    parser: SseParser,
    frames: Vec<SseOwned>,
}

/// One event (or skipped event) an [`SseSplitter`] handed on. Hidden, see there.
#[doc(hidden)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SseOwned {
    /// The `event` field; `None` without one (and for a skipped event).
    pub event: Option<Vec<u8>>,
    /// The joined data; empty for a skipped event.
    pub data: Vec<u8>,
    /// Line and offset of the first field (of the first data line, for a skipped event).
    pub line: u64,
    pub offset: u64,
    /// Line of the last field.
    pub end_line: u64,
    /// Line and offset of the first data value.
    pub data_line: u64,
    pub data_offset: u64,
    /// False for an event the input ended inside.
    pub terminated: bool,
    /// For an event skipped as too large, its data's size.
    pub too_large: Option<u64>,
}

impl SseSplitter {
    /// A splitter with `max_bytes` as the record and the event data limit.
    pub fn new(max_bytes: usize) -> Self {
        SseSplitter {
            framer: Lines::keeping_blank_lines(max_bytes),
            parser: SseParser::new(max_bytes),
            frames: Vec::new(),
        }
    }

    /// The next bytes of the stream.
    pub fn push(&mut self, bytes: &[u8]) {
        let SseSplitter {
            framer,
            parser,
            frames,
        } = self;
        framer.push(bytes, &mut |frame| Self::frame(parser, frames, frame));
    }

    /// The end of the stream: every event handed on, in order.
    pub fn finish(mut self) -> Vec<SseOwned> {
        let SseSplitter {
            framer,
            parser,
            frames,
        } = &mut self;
        framer.finish(&mut |frame| Self::frame(parser, frames, frame));
        parser.finish(&mut |event| frames.push(SseOwned::of(event)));
        self.frames
    }

    fn frame(parser: &mut SseParser, frames: &mut Vec<SseOwned>, frame: Frame<'_>) {
        match frame {
            Frame::Record(record) => parser.line(record, &mut |event| {
                frames.push(SseOwned::of(event));
            }),
            Frame::TooLarge {
                line, offset, size, ..
            } => parser.skipped_line(line, offset, size),
            Frame::Cut(_) => {}
        }
    }
}

impl SseOwned {
    fn of(frame: SseFrame<'_>) -> SseOwned {
        match frame {
            SseFrame::Event(record) => SseOwned {
                event: record.event.map(<[u8]>::to_vec),
                data: record.bytes.to_vec(),
                line: record.span.line,
                offset: record.span.offset,
                end_line: record.span.end_line,
                data_line: record.line,
                data_offset: record.offset,
                terminated: record.terminated,
                too_large: None,
            },
            SseFrame::TooLarge {
                line,
                offset,
                size,
                terminated,
            } => SseOwned {
                event: None,
                data: Vec::new(),
                line,
                offset,
                end_line: line,
                data_line: line,
                data_offset: offset,
                terminated,
                too_large: Some(size),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (event, data, line, end_line, offset, terminated), or ("TOO LARGE", size, ...).
    type Seen = (String, String, u64, u64, u64, bool);

    fn events(input: &[u8], max: usize, chunk: usize) -> Vec<Seen> {
        let mut framer = Lines::keeping_blank_lines(1 << 20);
        let mut parser = SseParser::new(max);
        let mut seen = Vec::new();
        let mut on_event = |frame: SseFrame<'_>| {
            seen.push(match frame {
                SseFrame::Event(e) => (
                    String::from_utf8_lossy(e.event.unwrap_or(b"-")).into_owned(),
                    String::from_utf8_lossy(e.bytes).into_owned(),
                    e.span.line,
                    e.span.end_line,
                    e.offset,
                    e.terminated,
                ),
                SseFrame::TooLarge {
                    line,
                    offset,
                    size,
                    terminated,
                } => (
                    "TOO LARGE".into(),
                    size.to_string(),
                    line,
                    line,
                    offset,
                    terminated,
                ),
            })
        };
        let mut each = |frame: Frame<'_>| {
            if let Frame::Record(record) = frame {
                parser.line(record, &mut on_event);
            }
        };
        for piece in input.chunks(chunk) {
            framer.push(piece, &mut each);
        }
        framer.finish(&mut each);
        parser.finish(&mut on_event);
        seen
    }

    fn seen(event: &str, data: &str, line: u64, end: u64, offset: u64, done: bool) -> Seen {
        (event.into(), data.into(), line, end, offset, done)
    }

    #[test]
    fn fields_comments_multi_line_data_and_crlf() {
        let input = b": ping\r\nevent: a\r\ndata: {\"x\":\r\ndata:1}\r\nretry: 5\r\nid: 7\r\n\r\n\r\ndata: [DONE]\n\nevent: only\n\ndata: tail";
        let expected = vec![
            seen("a", "{\"x\":\n1}", 2, 6, 24, true),
            seen("-", "[DONE]", 9, 9, 67, true),
            seen("-", "tail", 13, 13, 94, false),
        ];
        for chunk in [1, 2, 5, input.len()] {
            assert_eq!(events(input, 1 << 20, chunk), expected, "chunk {chunk}");
        }
    }

    #[test]
    fn over_long_event_data_is_skipped_and_reported() {
        let long = "y".repeat(30);
        let input = format!("data: {long}\ndata: {long}\n\ndata: ok\n\n");
        assert_eq!(
            events(input.as_bytes(), 40, 3),
            vec![
                seen("TOO LARGE", "61", 1, 1, 6, true),
                seen("-", "ok", 4, 4, 81, true),
            ]
        );
    }

    #[test]
    fn the_first_data_skips_comments_fields_and_keep_alives() {
        let head =
            b": ping\r\nevent: message_start\r\ndata: :keepalive\n\ndata:\n\ndata: {\"a\":1}\n";
        assert_eq!(first_data(head), Some(&b"{\"a\":1}"[..]));
        assert_eq!(first_data(b"data: [DONE]\n"), Some(&b"[DONE]"[..]));
        assert_eq!(first_data(b"{\"type\":\"init\"}\n"), None);
        assert_eq!(first_data(b"event: ping\n\n"), None);
    }

    #[test]
    fn field_lines_are_recognised() {
        for line in [
            &b"data: x"[..],
            b"data",
            b"event:x",
            b": hi",
            b"id:",
            b"retry: 1",
        ] {
            assert!(SseParser::is_field_line(line), "{line:?}");
        }
        for line in [&b"{\"a\":1}"[..], b"database: x", b"# comment", b""] {
            assert!(!SseParser::is_field_line(line), "{line:?}");
        }
    }
}
