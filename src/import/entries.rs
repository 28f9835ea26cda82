//! Reading a store's JSON Lines: one pass over a file that hands each line on with its
//! number and byte range (by the rules every reader of lines shares,
//! [`crate::model::lines`]), and reading an entry back by its range once the plan has
//! decided which entries a run holds. Two passes, so that memory follows a session's
//! structure, not its content.
//!
//! This room owns those two reads, walking a store's directories, and the hash that names
//! what was read; it knows no store's fields. (Not [`crate::read::Reader`], which reads transcripts.)

use std::io::{self, BufRead, Read, Seek, SeekFrom};
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::session::ImportError;
use crate::model::lines::{self, LineSplitter, Piece};

/// One line of a file, as [`scan`] hands it on.
pub(crate) struct Line<'a> {
    /// 1-based.
    pub(crate) number: u64,
    /// Its bytes in the file, without the line end (and a CR before it).
    pub(crate) range: Range<usize>,
    /// Those bytes; empty for a line over the limit (read it back by its range to report
    /// it).
    pub(crate) bytes: &'a [u8],
}

/// What [`scan`] read.
pub(crate) struct Scanned {
    /// The bytes read: the file's size when it was read.
    pub(crate) size: u64,
}

/// The refusal of a file [`scan`] found no entry in: empty, or only blank lines.
pub(crate) fn no_entries(format: &'static str, path: &Path, scanned: &Scanned) -> ImportError {
    ImportError::NotASession {
        format,
        path: path.to_owned(),
        line: 0,
        offset: 0,
        reason: match scanned.size {
            0 => "the file is empty".into(),
            _ => "the file has only blank lines".into(),
        },
    }
}

/// The string at `pointer` in the first of a file's first `lines` lines that has one (a
/// session's working directory, read without reading the session).
pub(crate) fn first_string(path: &Path, lines: usize, pointer: &str) -> Option<String> {
    let file = std::fs::File::open(path).ok()?;
    io::BufReader::new(file)
        .lines()
        .take(lines)
        .map_while(Result::ok)
        .find_map(|line| {
            let value: Value = serde_json::from_str(&line).ok()?;
            value.pointer(pointer)?.as_str().map(str::to_owned)
        })
}

/// Reads `path` line by line, handing every line that is not blank to `each`.
pub(crate) fn scan(path: &Path, mut each: impl FnMut(Line<'_>)) -> Result<Scanned, ImportError> {
    let failed = |source| ImportError::Io {
        path: path.to_owned(),
        source,
    };
    let file = std::fs::File::open(path).map_err(failed)?;
    let mut reader = io::BufReader::with_capacity(1 << 16, file);
    let mut splitter = LineSplitter::new(lines::DEFAULT_MAX_LINE_BYTES);
    let mut start = 0usize;
    let mut number = 0;
    let mut give = |piece: Piece<'_>, number: u64, start: usize| -> usize {
        match piece {
            Piece::Line(raw) => {
                let (body, at) = lines::body(raw, start as u64);
                if !lines::is_blank(body) {
                    let at = at as usize;
                    each(Line {
                        number,
                        range: at..at + body.len(),
                        bytes: body,
                    });
                }
                raw.len()
            }
            Piece::TooLong(size) => {
                let size = size as usize;
                each(Line {
                    number,
                    range: start..start + size,
                    bytes: b"",
                });
                size
            }
        }
    };
    loop {
        let buffer = match reader.fill_buf() {
            Ok(buffer) => buffer,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(failed(error)),
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
        start += give(piece, number + 1, start);
    }
    Ok(Scanned { size: start as u64 })
}

/// The regular files under `dir`, depth first; symbolic links are neither followed nor
/// listed (so no loop), and unreadable directories are skipped. (Written with `std::fs`
/// rather than walkdir, which only the binary depends on.)
pub(crate) fn files_under(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => files_under(&entry.path(), found),
            Ok(kind) if kind.is_file() => found.push(entry.path()),
            _ => {}
        }
    }
}

/// Reads entries back from a file by their byte range: the second pass. Entries read in
/// the file's order (as a run's mostly are) come from one read of [`READ_AHEAD`] bytes
/// rather than a seek and a read each: a Codex rollout of 198 MiB took 82,892 `lseek` and
/// 86,877 `read` calls so, 0.18 s and 0.28 s of system time (`strace -c`).
pub(crate) struct EntryReader {
    path: PathBuf,
    file: std::fs::File,
    /// Where the file's cursor is (`u64::MAX`: not known).
    at: u64,
    /// The file's bytes from `start`, the first `len` of `bytes`.
    bytes: Vec<u8>,
    start: u64,
    len: usize,
    /// Where the last entry read ends.
    last_end: u64,
}

/// What one read of entries read in order reads at least.
const READ_AHEAD: usize = 256 << 10;

impl EntryReader {
    pub(crate) fn open(path: &Path) -> Result<EntryReader, ImportError> {
        let file = std::fs::File::open(path).map_err(|source| ImportError::Io {
            path: path.to_owned(),
            source,
        })?;
        Ok(EntryReader {
            path: path.to_owned(),
            file,
            at: 0,
            bytes: Vec::new(),
            start: 0,
            len: 0,
            last_end: 0,
        })
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn raw(&mut self, range: &Range<usize>) -> Result<&[u8], ImportError> {
        let (start, end) = (range.start as u64, range.end as u64);
        let held = start >= self.start && end <= self.start + self.len as u64;
        if !held {
            // In order: the entry starts at the last one's end, or past its line end.
            let in_order = start >= self.last_end && start - self.last_end <= 2;
            let want = if in_order {
                range.len().max(READ_AHEAD)
            } else {
                range.len()
            };
            self.fill(start, want, range.len())
                .map_err(|source| ImportError::Io {
                    path: self.path.clone(),
                    source,
                })?;
        }
        self.last_end = end;
        let from = (start - self.start) as usize;
        Ok(&self.bytes[from..from + range.len()])
    }

    /// Reads up to `want` bytes from `start`, at least `need` (else the error of a read
    /// that could not read them all).
    fn fill(&mut self, start: u64, want: usize, need: usize) -> io::Result<()> {
        self.len = 0;
        if self.at != start {
            self.at = u64::MAX;
            self.file.seek(SeekFrom::Start(start))?;
            self.at = start;
        }
        if self.bytes.len() < want {
            self.bytes.resize(want, 0);
        }
        let mut filled = 0;
        while filled < want {
            match self.file.read(&mut self.bytes[filled..want]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => {
                    self.at = u64::MAX;
                    return Err(error);
                }
            }
        }
        self.at = start + filled as u64;
        if filled < need {
            // The file is shorter than the plan saw: the error read_exact gives.
            self.at = u64::MAX;
            self.file.seek(SeekFrom::Start(start))?;
            self.file.read_exact(&mut self.bytes[..need])?;
            filled = need;
            self.at = start + need as u64;
        }
        self.start = start;
        self.len = filled;
        Ok(())
    }

    pub(crate) fn value(&mut self, range: &Range<usize>) -> Result<Value, ImportError> {
        Ok(serde_json::from_slice(self.raw(range)?).unwrap_or(Value::Null))
    }
}

/// FNV-1a, 64 bits: a hash that is the same on every toolchain and platform, because what
/// it makes outlives the process: a file name a later import must find again (std's
/// `DefaultHasher` may change between Rust releases). Content is hashed with
/// [`ContentHash`](super::state::ContentHash), many times faster over megabytes.
pub(crate) struct Fnv(u64);

impl Fnv {
    pub(crate) fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    pub(crate) fn write(&mut self, bytes: &[u8]) {
        self.0 = bytes.iter().fold(self.0, |hash, &byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
        });
    }

    pub(crate) fn finish(&self) -> u64 {
        self.0
    }
}

/// The FNV-1a hash of `bytes`.
pub(crate) fn fnv1a_64(bytes: &[u8]) -> u64 {
    let mut hash = Fnv::new();
    hash.write(bytes);
    hash.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The published FNV-1a test vectors: if these change, every long run id the importer
    /// ever wrote would be named differently by the next import.
    #[test]
    fn the_hash_is_fnv1a_and_never_changes() {
        assert_eq!(fnv1a_64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a_64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a_64(b"foobar"), 0x8594_4171_f739_67e8);
        let mut split = Fnv::new();
        split.write(b"foo");
        split.write(b"bar");
        assert_eq!(split.finish(), fnv1a_64(b"foobar"));
    }
}
