//! The one set of rules for splitting JSON Lines, shared by every reader of lines: the
//! normalizers' framer (provider output), the transcript [`Reader`](crate::read::Reader)
//! and the Claude Code importer's log reader.
//!
//! Lines end at LF bytes, found with `memchr` in the raw bytes: never in decoded text, so a
//! chunk boundary inside a multi-byte character, or a raw U+2028 inside a JSON string
//! (which text-based line readers treat as a line break), cannot split a line. One CR
//! before the LF is dropped, a UTF-8 byte order mark at the very start of the input is
//! dropped, and blank lines are skipped (by the caller: SSE dispatches on them). A line
//! longer than the limit is skipped up to its LF and reported, so memory is bounded by the
//! limit, not by the input.
//!
//! This module owns those rules and nothing else: it does not decode, count lines or
//! report. It sits in the model because a transcript is JSON Lines (see the wire format),
//! and so that `read` and `normalize` share it without importing each other.

use memchr::memchr;

/// Default line (record) size limit: the transcript's own line limit,
/// [`MAX_LINE_BYTES`](super::MAX_LINE_BYTES).
pub(crate) const DEFAULT_MAX_LINE_BYTES: usize = super::limits::MAX_LINE_BYTES;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A line as the splitter hands it on, its LF consumed (or, from [`LineSplitter::finish`],
/// a last line without one).
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Piece<'a> {
    /// The line's bytes, without its LF; a CR before it is still there (see [`body`]).
    Line(&'a [u8]),
    /// A line over the limit, skipped; its length without the LF (so far, for a last line
    /// without LF).
    TooLong(u64),
}

/// Splits bytes fed in chunks into lines. Push-style callers feed each chunk until it is
/// used up; pull-style callers feed their reader's buffer and consume what it used.
#[derive(Debug)]
pub(crate) struct LineSplitter {
    max_line_bytes: usize,
    /// The start of a line whose LF has not arrived yet.
    partial: Vec<u8>,
    /// The line in `partial` was handed on: cleared on the next feed, keeping the
    /// allocation for the next long line.
    handed: bool,
    /// Bytes of an over-long line skipped so far, while waiting for its LF.
    skipping: Option<u64>,
}

impl LineSplitter {
    pub(crate) fn new(max_line_bytes: usize) -> Self {
        LineSplitter {
            max_line_bytes,
            partial: Vec::new(),
            handed: false,
            skipping: None,
        }
    }

    /// Feeds the next bytes of the input: how many of them were used, and the line they
    /// ended, if an LF was among them (the bytes used end with it). Without an LF every
    /// byte is used and kept (or counted, past the limit) until the line ends.
    pub(crate) fn feed<'a>(&'a mut self, bytes: &'a [u8]) -> (usize, Option<Piece<'a>>) {
        if self.handed {
            self.partial.clear();
            self.handed = false;
        }
        let Some(at) = memchr(b'\n', bytes) else {
            self.accumulate(bytes);
            return (bytes.len(), None);
        };
        let head = &bytes[..at];
        let piece = if let Some(skipped) = self.skipping.take() {
            Piece::TooLong(skipped + at as u64)
        } else if self.partial.len() + at > self.max_line_bytes {
            let size = (self.partial.len() + at) as u64;
            self.partial.clear();
            Piece::TooLong(size)
        } else if self.partial.is_empty() {
            // The common case: the whole line is in this chunk; no copy.
            Piece::Line(head)
        } else {
            self.partial.extend_from_slice(head);
            self.handed = true;
            Piece::Line(&self.partial)
        };
        (at + 1, Some(piece))
    }

    /// The end of the input: a last line without LF is still a line. `None` when the input
    /// ended with an LF.
    pub(crate) fn finish(&mut self) -> Option<Piece<'_>> {
        if self.handed {
            self.partial.clear();
            self.handed = false;
        }
        if let Some(skipped) = self.skipping.take() {
            return Some(Piece::TooLong(skipped));
        }
        if self.partial.is_empty() {
            return None;
        }
        self.handed = true;
        Some(Piece::Line(&self.partial))
    }

    /// Whether nothing of a line is pending: the next byte fed starts a line.
    pub(crate) fn is_idle(&self) -> bool {
        (self.handed || self.partial.is_empty()) && self.skipping.is_none()
    }

    /// A whole line without its LF, when [`is_idle`](Self::is_idle): the piece feeding it
    /// and then its LF hands on, without keeping it.
    pub(crate) fn whole<'a>(&self, line: &'a [u8]) -> Piece<'a> {
        if line.len() > self.max_line_bytes {
            Piece::TooLong(line.len() as u64)
        } else {
            Piece::Line(line)
        }
    }

    fn accumulate(&mut self, bytes: &[u8]) {
        if let Some(skipped) = &mut self.skipping {
            *skipped += bytes.len() as u64;
        } else if self.partial.len() + bytes.len() > self.max_line_bytes {
            self.skipping = Some((self.partial.len() + bytes.len()) as u64);
            self.partial = Vec::new(); // give the memory back; reported when the line ends
        } else {
            self.partial.extend_from_slice(bytes);
        }
    }

    /// The bytes held for a line not yet ended, allocation included.
    #[cfg(test)]
    pub(crate) fn kept(&self) -> usize {
        self.partial.capacity()
    }
}

/// A line's content: without the CR before its LF, and without a byte order mark when the
/// line starts the input (`offset` 0). Returns the content and its offset in the input.
pub(crate) fn body(line: &[u8], offset: u64) -> (&[u8], u64) {
    let bytes = line.strip_suffix(b"\r").unwrap_or(line);
    match bytes.strip_prefix(BOM) {
        Some(rest) if offset == 0 => (rest, BOM.len() as u64),
        _ => (bytes, offset),
    }
}

/// Whether a line's content is blank (empty or ASCII white space): such lines are skipped.
pub(crate) fn is_blank(bytes: &[u8]) -> bool {
    bytes.iter().all(u8::is_ascii_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every piece of `input` fed in chunks of `chunk` bytes, as text.
    fn split(input: &[u8], max: usize, chunk: usize) -> Vec<String> {
        let mut splitter = LineSplitter::new(max);
        let mut seen = Vec::new();
        let show = |piece: Piece<'_>| match piece {
            Piece::Line(bytes) => String::from_utf8_lossy(bytes).into_owned(),
            Piece::TooLong(size) => format!("<{size}>"),
        };
        for mut piece in input.chunks(chunk.max(1)) {
            while !piece.is_empty() {
                let (used, line) = splitter.feed(piece);
                seen.extend(line.map(show));
                piece = &piece[used..];
            }
        }
        seen.extend(splitter.finish().map(show));
        seen
    }

    #[test]
    fn splits_on_lf_only_whatever_the_chunking() {
        let input = "a\u{2028}→\r\n\nb\nlast".as_bytes();
        for chunk in [1, 2, 3, input.len()] {
            assert_eq!(
                split(input, 1 << 20, chunk),
                ["a\u{2028}→\r", "", "b", "last"],
                "chunk {chunk}"
            );
        }
    }

    #[test]
    fn skips_over_long_lines_with_bounded_memory() {
        let long = "x".repeat(100);
        let input = format!("a\n{long}\nb\n{long}");
        for chunk in [1, 5, 64, input.len()] {
            assert_eq!(
                split(input.as_bytes(), 50, chunk),
                ["a", "<100>", "b", "<100>"],
                "chunk {chunk}"
            );
        }
        let mut splitter = LineSplitter::new(50);
        splitter.feed(long.as_bytes());
        splitter.feed(long.as_bytes());
        assert_eq!(splitter.kept(), 0, "nothing of a skipped line is kept");
    }

    #[test]
    fn a_line_exactly_at_the_limit_is_kept() {
        let line = "y".repeat(50);
        assert_eq!(split(format!("{line}\n").as_bytes(), 50, 3), [line]);
    }

    #[test]
    fn the_body_drops_one_cr_and_a_bom_only_at_the_start() {
        assert_eq!(body(b"\xEF\xBB\xBF{}\r", 0), (&b"{}"[..], 3));
        assert_eq!(body(b"\xEF\xBB\xBF{}", 7), (&b"\xEF\xBB\xBF{}"[..], 7));
        assert_eq!(body(b"{}\r\r", 9), (&b"{}\r"[..], 9));
        assert!(is_blank(b" \t\r") && !is_blank(b" x"));
    }
}
