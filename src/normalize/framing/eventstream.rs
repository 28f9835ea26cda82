//! AWS event streams (`application/vnd.amazon.eventstream`): the binary framing of Bedrock's
//! `ConverseStream` and `InvokeModelWithResponseStream`, and of every other AWS streaming API.
//!
//! A message is a 12-byte prelude (total length, headers length, the prelude's CRC32, all
//! big-endian), typed headers (`:message-type`, `:event-type`, `:exception-type`,
//! `:error-code`, `:error-message`, `:content-type`, ...), the payload, and the whole
//! message's CRC32. Both checksums are checked: a message whose CRC does not match is skipped
//! and reported (`bad-checksum`) and the next one read, since the prelude's length still says
//! where it ends; a prelude whose own CRC does not match (or whose lengths cannot be) says
//! nothing trustworthy, so the bytes are searched for the next valid prelude, reported once.
//! A message over the record limit is skipped by its length and reported as too large; an
//! input that ends inside a message is reported as cut.
//!
//! Each message is handed on as a record *made* from it, in the JSON form the AWS SDKs give
//! the same event once decoded (a union keyed by the event's name), so that one adapter reads
//! a binary capture and a decoded one alike:
//!
//! * an event `T` with payload `P` is `{"T": P}` (`{"messageStart": {"role": "assistant"}}`);
//! * an exception (`:message-type exception`, `:exception-type T`) is `{"T": P}` too
//!   (`{"throttlingException": {"message": "..."}}`);
//! * an error (`:message-type error`) is `{"<:error-code>": {"message": "<:error-message>"}}`;
//! * a `chunk` event (Bedrock's `PayloadPart`, whose `bytes` is the model's own event,
//!   base64-encoded: Anthropic's `message_start`, ...) is that event, decoded, as SSE's
//!   `data:` is the event it carries. A `chunk` whose `bytes` cannot be decoded is kept in
//!   the union form, for its adapter to report.
//!
//! Positions are the input's: a record is placed at its message's first byte, on the line
//! that byte is on (lines counted by the LF bytes before it, as any text tool shows the
//! file), and names its event in `Record::event`.
//!
//! This file owns the binary format. Beyond the one field of a `PayloadPart` it does not
//! parse JSON (the JSON door does that: `normalize::json::string_field`), and it
//! knows no provider.

use base64::Engine as _;
use memchr::memchr_iter;

use super::record::{Frame, Record};
use crate::normalize::json::string_field;
use crate::normalize::{Diagnostic, DiagnosticKind, Source};

/// Prelude: total length, headers length, prelude CRC.
const PRELUDE: usize = 12;
/// The prelude and the message CRC: the smallest message.
const OVERHEAD: usize = PRELUDE + 4;

/// The decoder of one AWS event stream (see the module docs).
#[derive(Debug)]
pub(crate) struct EventStream {
    max_record_bytes: usize,
    /// Bytes read and not yet handed on: at most a message being collected, or the bytes a
    /// search for a valid prelude still looks at.
    pending: Vec<u8>,
    /// Stream offset and line of `pending[0]`.
    offset: u64,
    line: u64,
    /// Bytes of a message over the limit still to skip.
    skip: u64,
    /// A prelude was bad: searching for the next valid one.
    searching: bool,
    /// The record made of the current message.
    made: Vec<u8>,
    /// The last message handed on: its line and the byte after it.
    last: (u64, u64),
}

impl EventStream {
    /// A decoder whose first byte is at `offset` of the input, on `line`.
    pub(crate) fn new(max_record_bytes: usize, line: u64, offset: u64) -> Self {
        EventStream {
            max_record_bytes,
            pending: Vec::new(),
            offset,
            line,
            skip: 0,
            searching: false,
            made: Vec::new(),
            last: (0, 0),
        }
    }

    /// Whether `head` starts like an event stream: its first byte is 0, as a message's length
    /// (big-endian, at most 16 MiB) has, and a JSON or SSE body never does.
    pub(crate) fn starts(head: &[u8]) -> bool {
        head.first() == Some(&0)
    }

    /// The next bytes, split anywhere: every message they complete, in order.
    pub(crate) fn push(&mut self, mut bytes: &[u8], each: &mut dyn FnMut(Frame<'_>)) {
        if self.skip > 0 {
            let skipped = bytes
                .len()
                .min(usize::try_from(self.skip).unwrap_or(usize::MAX));
            self.advance_over(&bytes[..skipped]);
            self.skip -= skipped as u64;
            bytes = &bytes[skipped..];
        }
        if bytes.is_empty() {
            return;
        }
        self.pending.extend_from_slice(bytes);
        let mut at = 0;
        while let Some(used) = self.step(at, each) {
            at += used;
            if self.skip > 0 {
                break;
            }
        }
        self.consume(at);
    }

    /// The input has ended: a message it ended inside is reported as cut.
    pub(crate) fn finish(&mut self, each: &mut dyn FnMut(Frame<'_>)) {
        if self.pending.is_empty() || self.searching {
            return;
        }
        let total = match prelude(&self.pending) {
            Some(Ok((total, _))) => format!(" ({} of its {total} bytes came)", self.pending.len()),
            _ => format!(" ({} bytes of its prelude came)", self.pending.len()),
        };
        each(Frame::Cut(Diagnostic::new(
            DiagnosticKind::Truncated,
            self.line,
            self.offset,
            format!("input ends inside the event-stream message that starts here{total}"),
        )));
    }

    /// Where the input read so far ends: its line and the byte after it.
    pub(crate) fn end(&self) -> (u64, u64) {
        let line = self.line + memchr_iter(b'\n', &self.pending).count() as u64;
        (line, self.offset + self.pending.len() as u64)
    }

    /// The last message handed on: its line and the byte after it.
    pub(crate) fn last(&self) -> (u64, u64) {
        self.last
    }

    /// One step over `pending[at..]`: the bytes it used, `None` when it needs more.
    fn step(&mut self, at: usize, each: &mut dyn FnMut(Frame<'_>)) -> Option<usize> {
        let rest = &self.pending[at..];
        if self.searching {
            return self.search(at);
        }
        let (total, headers) = match prelude(rest)? {
            Ok(lengths) => lengths,
            Err(why) => {
                let (line, offset) = self.position(at);
                each(Frame::Cut(Diagnostic::new(
                    why.kind(),
                    line,
                    offset,
                    format!(
                        "{}; the bytes up to the next valid message are skipped",
                        why.describe()
                    ),
                )));
                self.searching = true;
                return Some(1);
            }
        };
        if total - OVERHEAD - headers > self.max_record_bytes {
            let (line, offset) = self.position(at);
            each(Frame::TooLarge {
                line,
                offset,
                size: total as u64,
                terminated: true,
            });
            if rest.len() >= total {
                return Some(total);
            }
            self.skip = (total - rest.len()) as u64;
            return Some(rest.len());
        }
        if rest.len() < total {
            return None;
        }
        let message = &rest[..total];
        let (line, offset) = self.position(at);
        let crc = u32::from_be_bytes(message[total - 4..].try_into().expect("4 bytes"));
        if crc32fast::hash(&message[..total - 4]) != crc {
            each(Frame::Cut(Diagnostic::new(
                DiagnosticKind::BadChecksum,
                line,
                offset,
                format!(
                    "the CRC of this event-stream message ({total} bytes) does not match its \
                     bytes; the message is skipped"
                ),
            )));
            return Some(total);
        }
        let end_line = line + memchr_iter(b'\n', message).count() as u64;
        let headers = match Headers::read(&message[PRELUDE..PRELUDE + headers]) {
            Ok(headers) => headers,
            Err(why) => {
                each(Frame::Cut(Diagnostic::new(
                    DiagnosticKind::MalformedFrame,
                    line,
                    offset,
                    format!(
                        "the headers of this event-stream message cannot be read ({why}); the message is skipped"
                    ),
                )));
                return Some(total);
            }
        };
        let payload = &message[PRELUDE + headers.len..total - 4];
        let end = offset + total as u64;
        let event = made_record(&headers, payload, &mut self.made);
        self.last = (end_line, end);
        each(Frame::Record(Record {
            span: Source {
                line,
                end_line,
                offset,
            },
            event: Some(event.as_bytes()),
            made: Some(end),
            ..Record::line(&self.made, line, offset, true)
        }));
        Some(total)
    }

    /// Searches `pending[at..]` for the next valid prelude: the bytes before it are used.
    fn search(&mut self, at: usize) -> Option<usize> {
        let rest = &self.pending[at..];
        let found = (0..rest.len().saturating_sub(PRELUDE - 1))
            .find(|&start| matches!(prelude(&rest[start..]), Some(Ok(_))));
        match found {
            Some(start) => {
                self.searching = false;
                Some(start)
            }
            // Keep the last bytes, which may begin a prelude.
            None => Some(rest.len().saturating_sub(PRELUDE - 1)).filter(|used| *used > 0),
        }
    }

    /// The line and offset of `pending[at]`.
    fn position(&self, at: usize) -> (u64, u64) {
        let line = self.line + memchr_iter(b'\n', &self.pending[..at]).count() as u64;
        (line, self.offset + at as u64)
    }

    /// Drops the first `used` pending bytes, moving the position past them.
    fn consume(&mut self, used: usize) {
        let used = used.min(self.pending.len());
        self.line += memchr_iter(b'\n', &self.pending[..used]).count() as u64;
        self.offset += used as u64;
        self.pending.drain(..used);
    }

    /// Moves the position past bytes skipped without keeping them.
    fn advance_over(&mut self, bytes: &[u8]) {
        self.line += memchr_iter(b'\n', bytes).count() as u64;
        self.offset += bytes.len() as u64;
    }
}

/// Why a prelude is not one.
#[derive(Clone, Copy, Debug, PartialEq)]
enum BadPrelude {
    Checksum,
    Lengths(usize, usize),
}

impl BadPrelude {
    fn kind(self) -> DiagnosticKind {
        match self {
            BadPrelude::Checksum => DiagnosticKind::BadChecksum,
            BadPrelude::Lengths(..) => DiagnosticKind::MalformedFrame,
        }
    }

    fn describe(self) -> String {
        match self {
            BadPrelude::Checksum => {
                "the prelude CRC of the event-stream message here does not match its bytes"
                    .to_owned()
            }
            BadPrelude::Lengths(total, headers) => format!(
                "the event-stream prelude here gives impossible lengths (message {total} bytes, \
                 headers {headers})"
            ),
        }
    }
}

/// The message's total and headers lengths from its prelude; `None` before 12 bytes.
fn prelude(bytes: &[u8]) -> Option<Result<(usize, usize), BadPrelude>> {
    let prelude = bytes.get(..PRELUDE)?;
    let word = |at: usize| u32::from_be_bytes(prelude[at..at + 4].try_into().expect("4 bytes"));
    if crc32fast::hash(&prelude[..8]) != word(8) {
        return Some(Err(BadPrelude::Checksum));
    }
    let (total, headers) = (word(0) as usize, word(4) as usize);
    if total < OVERHEAD || headers > total - OVERHEAD {
        return Some(Err(BadPrelude::Lengths(total, headers)));
    }
    Some(Ok((total, headers)))
}

/// The headers a record is made from.
#[derive(Default)]
struct Headers<'a> {
    /// The headers' length in bytes.
    len: usize,
    message_type: Option<&'a str>,
    event_type: Option<&'a str>,
    exception_type: Option<&'a str>,
    error_code: Option<&'a str>,
    error_message: Option<&'a str>,
}

impl<'a> Headers<'a> {
    /// Reads every header (name length, name, value type, value); keeps the string ones the
    /// record is made from.
    fn read(mut bytes: &'a [u8]) -> Result<Headers<'a>, String> {
        let mut headers = Headers {
            len: bytes.len(),
            ..Headers::default()
        };
        while let Some((&name_len, rest)) = bytes.split_first() {
            let (name, rest) = rest
                .split_at_checked(usize::from(name_len))
                .ok_or("a header name runs past the headers")?;
            let (&kind, rest) = rest.split_first().ok_or("a header has no value type")?;
            let (value, rest) = match kind {
                0 | 1 => (&rest[..0], rest),
                2 => split(rest, 1)?,
                3 => split(rest, 2)?,
                4 => split(rest, 4)?,
                5 | 8 => split(rest, 8)?,
                9 => split(rest, 16)?,
                6 | 7 => {
                    let (len, rest) = split(rest, 2)?;
                    split(rest, usize::from(u16::from_be_bytes([len[0], len[1]])))?
                }
                other => return Err(format!("unknown header value type {other}")),
            };
            bytes = rest;
            if kind != 7 {
                continue;
            }
            let text = std::str::from_utf8(value).map_err(|_| "a header string is not UTF-8")?;
            let slot = match name {
                b":message-type" => &mut headers.message_type,
                b":event-type" => &mut headers.event_type,
                b":exception-type" => &mut headers.exception_type,
                b":error-code" => &mut headers.error_code,
                b":error-message" => &mut headers.error_message,
                _ => continue,
            };
            *slot = Some(text);
        }
        Ok(headers)
    }
}

fn split(bytes: &[u8], len: usize) -> Result<(&[u8], &[u8]), String> {
    bytes
        .split_at_checked(len)
        .ok_or_else(|| "a header value runs past the headers".to_owned())
}

/// Writes the record a message stands for into `made` (see the module docs); returns the
/// event's name.
fn made_record<'h>(headers: &Headers<'h>, payload: &[u8], made: &mut Vec<u8>) -> &'h str {
    made.clear();
    match headers.message_type.unwrap_or("event") {
        "exception" => {
            let name = headers.exception_type.unwrap_or("exception");
            union(name, payload, made);
            name
        }
        "error" => {
            let name = headers.error_code.unwrap_or("error");
            made.extend_from_slice(b"{");
            json_string(name, made);
            made.extend_from_slice(b":{\"message\":");
            json_string(headers.error_message.unwrap_or(""), made);
            made.extend_from_slice(b"}}");
            name
        }
        _ => {
            let name = headers.event_type.unwrap_or("event");
            let decoded = (name == "chunk")
                .then(|| string_field(payload, "bytes"))
                .flatten()
                .and_then(|text| {
                    base64::engine::general_purpose::STANDARD
                        .decode(text.as_bytes())
                        .ok()
                });
            match decoded {
                Some(event) => *made = event,
                None => union(name, payload, made),
            }
            name
        }
    }
}

/// `{"name": payload}` (an empty payload as `{}`).
fn union(name: &str, payload: &[u8], made: &mut Vec<u8>) {
    made.extend_from_slice(b"{");
    json_string(name, made);
    made.push(b':');
    if payload.trim_ascii().is_empty() {
        made.extend_from_slice(b"{}");
    } else {
        made.extend_from_slice(payload);
    }
    made.push(b'}');
}

fn json_string(text: &str, out: &mut Vec<u8>) {
    // Writing a string to a Vec cannot fail.
    serde_json::to_writer(&mut *out, text).expect("a string serializes");
}

/// The event-stream framing alone, for the `eventstream_framer` fuzz target: bytes in, in
/// any pieces, every frame out, owned. Not part of axt's API (the module is public, and
/// hidden, for it alone).
#[doc(hidden)]
#[derive(Debug)]
pub struct EventStreamSplitter {
    stream: EventStream,
    frames: Vec<EventStreamOwned>,
}

/// One frame an [`EventStreamSplitter`] handed on. Hidden, see there.
#[doc(hidden)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventStreamOwned {
    /// `record`, `too-large`, or the kind of the diagnostic a cut or a bad message made.
    pub what: String,
    /// A record's event name.
    pub event: Option<Vec<u8>>,
    /// A record's bytes (made from its message), or a diagnostic's message.
    pub bytes: Vec<u8>,
    pub line: u64,
    pub offset: u64,
    /// A record's end in the input (the byte after its message); a skipped message's size.
    pub end: Option<u64>,
}

impl EventStreamSplitter {
    /// A splitter with `max_bytes` as the record limit.
    pub fn new(max_bytes: usize) -> Self {
        EventStreamSplitter {
            stream: EventStream::new(max_bytes, 1, 0),
            frames: Vec::new(),
        }
    }

    /// The next bytes of the stream.
    pub fn push(&mut self, bytes: &[u8]) {
        let frames = &mut self.frames;
        self.stream
            .push(bytes, &mut |frame| frames.push(EventStreamOwned::of(frame)));
    }

    /// The end of the stream: every frame handed on, in order.
    pub fn finish(mut self) -> Vec<EventStreamOwned> {
        let frames = &mut self.frames;
        self.stream
            .finish(&mut |frame| frames.push(EventStreamOwned::of(frame)));
        self.frames
    }
}

impl EventStreamOwned {
    fn of(frame: Frame<'_>) -> EventStreamOwned {
        match frame {
            Frame::Record(record) => EventStreamOwned {
                what: "record".to_owned(),
                event: record.event.map(<[u8]>::to_vec),
                bytes: record.bytes.to_vec(),
                line: record.line,
                offset: record.offset,
                end: record.made,
            },
            Frame::TooLarge {
                line, offset, size, ..
            } => EventStreamOwned {
                what: "too-large".to_owned(),
                event: None,
                bytes: Vec::new(),
                line,
                offset,
                end: Some(size),
            },
            Frame::Cut(diagnostic) => EventStreamOwned {
                what: diagnostic.kind.as_str().to_owned(),
                event: None,
                bytes: diagnostic.message.into_bytes(),
                line: diagnostic.line,
                offset: diagnostic.offset,
                end: None,
            },
        }
    }
}

/// An event-stream message, for tests and the corpus's generator: the headers (name, string
/// value) and the payload, with both CRCs.
#[cfg(test)]
pub(crate) fn encode(headers: &[(&str, &str)], payload: &[u8]) -> Vec<u8> {
    let mut head = Vec::new();
    for (name, value) in headers {
        head.push(name.len() as u8);
        head.extend_from_slice(name.as_bytes());
        head.push(7);
        head.extend_from_slice(&(value.len() as u16).to_be_bytes());
        head.extend_from_slice(value.as_bytes());
    }
    let total = (OVERHEAD + head.len() + payload.len()) as u32;
    let mut message = Vec::new();
    message.extend_from_slice(&total.to_be_bytes());
    message.extend_from_slice(&(head.len() as u32).to_be_bytes());
    let crc = crc32fast::hash(&message);
    message.extend_from_slice(&crc.to_be_bytes());
    message.extend_from_slice(&head);
    message.extend_from_slice(payload);
    let crc = crc32fast::hash(&message);
    message.extend_from_slice(&crc.to_be_bytes());
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(kind: &str, payload: &str) -> Vec<u8> {
        encode(
            &[
                (":event-type", kind),
                (":content-type", "application/json"),
                (":message-type", "event"),
            ],
            payload.as_bytes(),
        )
    }

    /// (what, text, line, offset, event) of every frame, `input` pushed in pieces.
    fn frames(input: &[u8], max: usize, chunk: usize) -> Vec<(String, String, u64, u64)> {
        let mut stream = EventStream::new(max, 1, 0);
        let mut seen = Vec::new();
        let mut each = |frame: Frame<'_>| {
            seen.push(match frame {
                Frame::Record(r) => (
                    String::from_utf8_lossy(r.event.unwrap_or(b"-")).into_owned(),
                    String::from_utf8_lossy(r.bytes).into_owned(),
                    r.line,
                    r.offset,
                ),
                Frame::TooLarge {
                    line, offset, size, ..
                } => ("too large".into(), size.to_string(), line, offset),
                Frame::Cut(d) => (d.kind.as_str().into(), d.message, d.line, d.offset),
            })
        };
        for piece in input.chunks(chunk) {
            stream.push(piece, &mut each);
        }
        stream.finish(&mut each);
        seen
    }

    #[test]
    fn events_exceptions_errors_and_chunks_become_their_decoded_form() {
        let mut input = event("messageStart", "{\"role\":\"assistant\",\"p\":\"abc\"}");
        let start = input.len() as u64;
        input.extend(encode(
            &[
                (":message-type", "exception"),
                (":exception-type", "throttlingException"),
            ],
            b"{\"message\":\"slow down\"}",
        ));
        let second = input.len() as u64;
        input.extend(encode(
            &[
                (":message-type", "error"),
                (":error-code", "Internal"),
                (":error-message", "a \"b\""),
            ],
            b"",
        ));
        let third = input.len() as u64;
        // `{"type":"ping"}`, base64.
        input.extend(event(
            "chunk",
            "{\"bytes\":\"eyJ0eXBlIjoicGluZyJ9\",\"p\":\"ab\"}",
        ));
        let fourth = input.len() as u64;
        input.extend(event("chunk", "{\"bytes\":\"not base64!\"}"));
        let expected = vec![
            (
                "messageStart".into(),
                "{\"messageStart\":{\"role\":\"assistant\",\"p\":\"abc\"}}".into(),
                1,
                0,
            ),
            (
                "throttlingException".into(),
                "{\"throttlingException\":{\"message\":\"slow down\"}}".into(),
                1,
                start,
            ),
            (
                "Internal".into(),
                "{\"Internal\":{\"message\":\"a \\\"b\\\"\"}}".into(),
                1,
                second,
            ),
            ("chunk".into(), "{\"type\":\"ping\"}".into(), 1, third),
            (
                "chunk".into(),
                "{\"chunk\":{\"bytes\":\"not base64!\"}}".into(),
                1,
                fourth,
            ),
        ];
        for chunk in [1, 2, 5, 13, input.len()] {
            let mut seen = frames(&input, 1 << 20, chunk);
            for frame in &mut seen {
                // Lines count the LF bytes the binary happens to hold.
                frame.2 = 1;
            }
            assert_eq!(seen, expected, "chunk {chunk}");
        }
    }

    #[test]
    fn a_bad_message_crc_skips_that_message_and_a_bad_prelude_searches_for_the_next() {
        let mut input = event("a", "{}");
        let bad_message = input.len();
        input.extend(event("b", "{}"));
        let last = input.len() - 1;
        input[last] ^= 0xff; // the message CRC of `b`
        let bad_prelude = input.len();
        let mut c = event("c", "{}");
        c[9] ^= 0x01; // the prelude CRC of `c`
        input.extend(c);
        let d = input.len();
        input.extend(event("d", "{\"x\":1}"));
        for chunk in [1, 3, 7, input.len()] {
            let seen: Vec<(String, u64)> = frames(&input, 1 << 20, chunk)
                .into_iter()
                .map(|(what, _, _, offset)| (what, offset))
                .collect();
            assert_eq!(
                seen,
                [
                    ("a".to_owned(), 0),
                    ("bad-checksum".into(), bad_message as u64),
                    ("bad-checksum".into(), bad_prelude as u64),
                    ("d".into(), d as u64),
                ],
                "chunk {chunk}"
            );
        }
    }

    #[test]
    fn an_over_long_message_is_skipped_by_its_length_and_a_cut_one_reported() {
        let long = format!("{{\"x\":\"{}\"}}", "y".repeat(100));
        let mut input = event("big", &long);
        let next = input.len() as u64;
        input.extend(event("small", "{}"));
        let cut = input.len() as u64;
        let tail = event("cut", "{}");
        input.extend(&tail[..tail.len() - 3]);
        for chunk in [1, 4, input.len()] {
            let seen: Vec<(String, u64)> = frames(&input, 64, chunk)
                .into_iter()
                .map(|(what, _, _, offset)| (what, offset))
                .collect();
            assert_eq!(
                seen,
                [
                    ("too large".to_owned(), 0),
                    ("small".into(), next),
                    ("truncated".into(), cut)
                ],
                "chunk {chunk}"
            );
        }
    }
}
