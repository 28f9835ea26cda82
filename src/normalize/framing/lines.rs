//! JSON Lines: splitting a byte stream into line records, the framing of every agent CLI's
//! output and the base every other framing stands on.
//!
//! The line rules (LF found in the raw bytes, one CR dropped, a BOM at the start dropped,
//! blank lines skipped, over-long lines skipped and reported) are the ones every reader of
//! JSON Lines uses, in [`crate::model::lines`]; blank records are handed on instead when the
//! reader asks for them (SSE dispatches on blank lines, see [`super::sse`]). This file
//! numbers the records and places them (line, byte offset).
//!
//! It knows nothing of JSON; it hands each record to the adapter with its line number and
//! byte offset. For HTTP bodies, whose binary part (an AWS event stream) starts at a line
//! that starts with a 0 byte, it can stop there (`push_text`) and leave the rest to the
//! caller.

use super::record::{Frame, Framing, Record};
use crate::model::lines::{self, LineSplitter, Piece};

#[derive(Debug)]
pub(crate) struct Lines {
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
    /// The last record that was not blank: its line and the byte after it.
    last: (u64, u64),
}

impl Lines {
    /// A framer that hands blank records on as empty records, for formats where a blank
    /// line means something.
    pub(crate) fn keeping_blank_lines(max_record_bytes: usize) -> Self {
        Lines {
            keep_blank: true,
            ..Lines::new(max_record_bytes)
        }
    }
}

impl Lines {
    /// Whether the next byte pushed starts a line (nothing of a line is pending).
    pub(crate) fn at_line_start(&self) -> bool {
        self.position == self.record_offset
    }

    /// The line and offset of the next byte pushed.
    pub(crate) fn next_position(&self) -> (u64, u64) {
        (self.line, self.position)
    }

    /// Pushes `bytes` up to the first line that starts with a 0 byte (where a binary stream
    /// starts, see `http.rs`), which it does not take: how many bytes it took. Looking at
    /// the first byte of each line as it starts costs nothing beside the search for its
    /// end, where a search of every chunk for a 0 byte would read the input twice.
    pub(crate) fn push_text(&mut self, bytes: &[u8], each: &mut dyn FnMut(Frame<'_>)) -> usize {
        self.push_lines(bytes, true, each)
    }

    /// The records `bytes` complete; with `stop_at_nul`, up to a line that starts with a 0
    /// byte. How many bytes it took.
    fn push_lines(
        &mut self,
        mut bytes: &[u8],
        stop_at_nul: bool,
        each: &mut dyn FnMut(Frame<'_>),
    ) -> usize {
        let total = bytes.len();
        while !bytes.is_empty() {
            if stop_at_nul && bytes[0] == 0 && self.at_line_start() {
                break;
            }
            let (used, piece) = self.lines.feed(bytes);
            let Some(piece) = piece else {
                self.position += used as u64;
                return total;
            };
            let at = (self.line, self.record_offset);
            let made = self.made.take();
            hand_on(piece, at, true, self.keep_blank, made, &mut self.last, each);
            self.position += used as u64;
            self.record_offset = self.position;
            self.line += 1;
            bytes = &bytes[used..];
        }
        total - bytes.len()
    }
}

impl Framing for Lines {
    fn new(max_record_bytes: usize) -> Self {
        Lines {
            lines: LineSplitter::new(max_record_bytes),
            keep_blank: false,
            line: 1,
            record_offset: 0,
            position: 0,
            made: None,
            last: (0, 0),
        }
    }

    fn push(&mut self, bytes: &[u8], each: &mut dyn FnMut(Frame<'_>)) {
        self.push_lines(bytes, false, each);
    }

    /// A record with nothing of a line pending before it and no LF in it is the line,
    /// handed on from the caller's bytes: fed to the splitter, it was copied into the
    /// splitter's buffer to wait for its LF (`axt import claude-code` of 100 sessions of
    /// 2 MiB: 188M of its 3,697M instructions were that copy). The frame is the one the
    /// splitter would have made, line and offsets alike.
    fn push_record(&mut self, bytes: &[u8], each: &mut dyn FnMut(Frame<'_>)) {
        if !(self.lines.is_idle() && memchr::memchr(b'\n', bytes).is_none()) {
            self.push(bytes, each);
            self.push(b"\n", each);
            return;
        }
        let piece = self.lines.whole(bytes);
        let at = (self.line, self.record_offset);
        let made = self.made.take();
        hand_on(piece, at, true, self.keep_blank, made, &mut self.last, each);
        self.position += bytes.len() as u64 + 1;
        self.record_offset = self.position;
        self.line += 1;
    }

    /// The end of the input: a last record without LF is still a record.
    fn finish(&mut self, each: &mut dyn FnMut(Frame<'_>)) {
        let at = (self.line, self.record_offset);
        if let Some(piece) = self.lines.finish() {
            let made = self.made.take();
            hand_on(
                piece,
                at,
                false,
                self.keep_blank,
                made,
                &mut self.last,
                each,
            );
        }
    }

    /// For a caller that hands over whole records picked out of a larger file (an importer),
    /// so that every position the adapter reports is the file's.
    fn seek(&mut self, line: u64, offset: u64, made: Option<u64>) {
        self.line = line;
        self.record_offset = offset;
        self.position = offset;
        self.made = made;
    }

    fn end(&self) -> (u64, u64) {
        let line = if self.position > self.record_offset {
            self.line // an unterminated last line
        } else {
            self.line.saturating_sub(1).max(1)
        };
        (line, self.position)
    }

    fn last(&self) -> (u64, u64) {
        self.last
    }
}

/// A line of the splitter as a frame: a record (its body; a blank one only when asked for,
/// and only with its LF) or a record too large, at `(line, offset)`. A record that is not
/// blank becomes the `last` one.
fn hand_on(
    piece: Piece<'_>,
    (line, offset): (u64, u64),
    terminated: bool,
    keep_blank: bool,
    made: Option<u64>,
    last: &mut (u64, u64),
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
    let record = Record {
        made,
        ..Record::line(bytes, line, offset, terminated)
    };
    if !bytes.is_empty() {
        *last = (line, record.end());
    }
    each(Frame::Record(record));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    enum Seen {
        Record(String, u64, u64, bool),
        TooLarge(u64, u64, u64, bool),
        Cut,
    }

    fn frame(input: &[u8], max: usize, chunk: usize) -> Vec<Seen> {
        let mut framer = Lines::new(max);
        let mut seen = Vec::new();
        let mut each = |frame: Frame<'_>| seen.push(self::seen(frame));
        for piece in input.chunks(chunk.max(1)) {
            framer.push(piece, &mut each);
        }
        framer.finish(&mut each);
        seen
    }

    /// A whole record handed over as a caller that picked it out of a file hands it
    /// ([`Framing::push_record`]) is framed as its bytes and a line feed pushed are, the
    /// framer's state after it alike: a blank record, one with a CR or a byte order mark,
    /// one over the limit, one holding a line feed, one after a line left pending, in both
    /// framers, each record placed by `seek` or following the one before.
    #[test]
    fn a_whole_record_is_framed_as_its_bytes_and_a_line_feed_are() {
        let records: [&[u8]; 9] = [
            b"{\"a\":1}",
            b"",
            b"  ",
            b"{\"b\":2}\r",
            b"\xEF\xBB\xBF{\"c\":3}",
            b"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx{}",
            b"{\"d\":4}\n{\"e\":5}",
            b"{\"f\":",
            b"{\"g\":7}",
        ];
        for keep_blank in [false, true] {
            for pending in [&b""[..], b"{\"p\":", b"\n"] {
                for seek in [false, true] {
                    let framer = || {
                        let mut framer = match keep_blank {
                            true => Lines::keeping_blank_lines(40),
                            false => Lines::new(40),
                        };
                        framer.push(pending, &mut |_| {});
                        framer
                    };
                    let (mut whole, mut pushed) = (framer(), framer());
                    let (mut a, mut b) = (Vec::new(), Vec::new());
                    for (at, record) in records.iter().enumerate() {
                        if seek {
                            whole.seek(at as u64 * 3 + 1, at as u64 * 100, None);
                            pushed.seek(at as u64 * 3 + 1, at as u64 * 100, None);
                        }
                        whole.push_record(record, &mut |f| a.push(seen(f)));
                        pushed.push(record, &mut |f| b.push(seen(f)));
                        pushed.push(b"\n", &mut |f| b.push(seen(f)));
                        assert_eq!(a, b, "{keep_blank} {pending:?} {seek}");
                        assert_eq!(whole.end(), pushed.end());
                        assert_eq!(whole.last(), pushed.last());
                        assert_eq!(whole.next_position(), pushed.next_position());
                    }
                    whole.finish(&mut |f| a.push(seen(f)));
                    pushed.finish(&mut |f| b.push(seen(f)));
                    assert_eq!(a, b, "{keep_blank} {pending:?} {seek}");
                }
            }
        }
    }

    fn seen(frame: Frame<'_>) -> Seen {
        match frame {
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
            Frame::Cut(_) => Seen::Cut,
        }
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
    fn the_last_record_is_the_last_line_not_blank() {
        let mut framer = Lines::new(1 << 20);
        assert_eq!(framer.last(), (0, 0));
        framer.push(b"{\"a\":1}\r\n\n  \n", &mut |_| {});
        assert_eq!(framer.last(), (1, 7));
        assert_eq!(framer.end(), (3, 13));
        framer.push(b"{\"b\":2}", &mut |_| {});
        framer.finish(&mut |_| {});
        assert_eq!(framer.last(), (4, 20));
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
        let mut framer = Lines::new(50);
        framer.push(long.as_bytes(), &mut |_| {});
        framer.push(long.as_bytes(), &mut |_| {});
        assert_eq!(
            framer.lines.kept(),
            0,
            "nothing of a skipped record is kept"
        );
    }

    /// `push_text` takes every line up to one that starts with a 0 byte, in whatever chunks
    /// the input comes, and nothing of it: a 0 byte inside a line, or after a partial line
    /// at a chunk's start, is text.
    #[test]
    fn text_stops_where_a_line_starts_with_a_zero_byte() {
        let input = b"{\"a\":\"x\0y\"}\n{\"b\":1}\n\0\0\0\x10binary\nmore\n";
        let stop = 20;
        assert_eq!(input[stop], 0);
        for chunk in [1, 2, 3, 7, 12, 19, 20, 21, input.len()] {
            let mut framer = Lines::new(1 << 20);
            let mut seen = Vec::new();
            let mut taken = 0;
            for piece in input.chunks(chunk) {
                let used = framer.push_text(piece, &mut |frame| {
                    if let Frame::Record(r) = frame {
                        seen.push((String::from_utf8_lossy(r.bytes).into_owned(), r.offset));
                    }
                });
                taken += used;
                if used < piece.len() {
                    break;
                }
            }
            assert_eq!(taken, stop, "chunk {chunk}");
            assert_eq!(
                seen,
                [
                    ("{\"a\":\"x\0y\"}".to_owned(), 0),
                    ("{\"b\":1}".to_owned(), 12)
                ],
                "chunk {chunk}"
            );
            assert_eq!(framer.next_position(), (3, stop as u64), "chunk {chunk}");
        }
    }

    #[test]
    fn a_record_exactly_at_the_limit_is_kept() {
        let input = format!("{}\n", "y".repeat(50));
        assert_eq!(
            frame(input.as_bytes(), 50, 3),
            vec![record(&"y".repeat(50), 1, 0)]
        );
    }
}
