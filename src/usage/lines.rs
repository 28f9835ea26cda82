//! Reading a store's file line by line, as the importers number its lines: every line that
//! is not blank, with its 1-based number and byte offset; a line over the limit handed on
//! empty, so that it can be reported.
//!
//! This file owns only the splitting; what a line means is its store's.

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::Path;

use crate::model::lines::{self, DEFAULT_MAX_LINE_BYTES, LineSplitter, Piece};

/// One line of a file.
pub(super) struct Line<'a> {
    /// 1-based.
    pub(super) number: u64,
    /// The byte offset of its first byte.
    pub(super) offset: u64,
    /// Its content, without LF, CR or byte order mark; empty for a line over the limit.
    pub(super) bytes: &'a [u8],
    /// Over the limit: not read.
    pub(super) too_long: bool,
}

/// Hands every line of `path` that is not blank to `each`, in order.
pub(super) fn scan(path: &Path, mut each: impl FnMut(Line<'_>)) -> io::Result<()> {
    let file = File::open(path)?;
    let mut reader = BufReader::with_capacity(1 << 18, file);
    let mut splitter = LineSplitter::new(DEFAULT_MAX_LINE_BYTES);
    let mut start = 0u64;
    let mut number = 0u64;
    let mut give = |piece: Piece<'_>, number: u64, start: u64| -> u64 {
        match piece {
            Piece::Line(raw) => {
                let (body, at) = lines::body(raw, start);
                if !lines::is_blank(body) {
                    each(Line {
                        number,
                        offset: at,
                        bytes: body,
                        too_long: false,
                    });
                }
                raw.len() as u64
            }
            Piece::TooLong(size) => {
                each(Line {
                    number,
                    offset: start,
                    bytes: b"",
                    too_long: true,
                });
                size
            }
        }
    };
    loop {
        let buffer = match reader.fill_buf() {
            Ok(buffer) => buffer,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        if buffer.is_empty() {
            break;
        }
        let (used, piece) = splitter.feed(buffer);
        if let Some(piece) = piece {
            number += 1;
            start += give(piece, number, start) + 1;
        }
        reader.consume(used);
    }
    if let Some(piece) = splitter.finish() {
        give(piece, number + 1, start);
    }
    Ok(())
}
