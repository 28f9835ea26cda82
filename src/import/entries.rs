//! Reading a store's JSON Lines: one pass over a file that hands each line on with its
//! number and byte range (by the rules every reader of lines shares,
//! [`crate::model::lines`]), and reading an entry back by its range once the plan has
//! decided which entries a run holds. Two passes, so that memory follows a session's
//! structure, not its content.
//!
//! A session no larger than [`HOLD_LIMIT`] is read from disk once ([`Held`]): its
//! content hash, the plan's pass and the reads back all take the same bytes, held by the
//! worker importing it until the session is written.
//!
//! This room owns those two reads, walking a store's directories, and the hash that names
//! what was read; it knows no store's fields. (Not [`crate::read::Reader`], which reads transcripts.)

use std::cell::RefCell;
use std::io::{self, BufRead, Read, Seek, SeekFrom};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use serde_json::Value;

use super::session::ImportError;
use super::state::ContentHash;
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

/// Reads `path` line by line, handing every line that is not blank to `each` (from the
/// bytes [`Held`] when this worker holds the file). A file this worker hashes while it is
/// read ([`Hashing`]) is hashed as its bytes go by.
pub(crate) fn scan(path: &Path, each: impl FnMut(Line<'_>)) -> Result<Scanned, ImportError> {
    if let Some(bytes) = held(path) {
        return scan_from(path, &bytes[..], each, None);
    }
    let file = std::fs::File::open(path).map_err(|source| ImportError::Io {
        path: path.to_owned(),
        source,
    })?;
    let mut hashing = HASHING.with(|hashing| {
        let mut hashing = hashing.borrow_mut();
        match hashing.as_mut() {
            Some(pending) if pending.path == path => pending.take(),
            _ => None,
        }
    });
    let scanned = scan_from(
        path,
        io::BufReader::with_capacity(1 << 16, file),
        each,
        hashing.as_mut(),
    );
    if let (Ok(_), Some(read)) = (&scanned, hashing) {
        HASHING.with(|hashing| {
            if let Some(pending) = hashing.borrow_mut().as_mut() {
                pending.read = Some(read);
            }
        });
    }
    scanned
}

/// [`scan`] of what `reader` reads (from a slice, every line is whole in the first
/// buffer: none is copied), each byte hashed into `hash` too when given.
fn scan_from(
    path: &Path,
    mut reader: impl BufRead,
    mut each: impl FnMut(Line<'_>),
    mut hash: Option<&mut (ContentHash, u64)>,
) -> Result<Scanned, ImportError> {
    let failed = |source| ImportError::Io {
        path: path.to_owned(),
        source,
    };
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
        // Only what the splitter used is consumed: the rest starts the next buffer.
        if let Some((hash, len)) = hash.as_mut() {
            hash.write(&buffer[..used]);
            *len += used as u64;
        }
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

thread_local! {
    /// The file this worker hashes as [`scan`] reads it ([`Hashing`]).
    static HASHING: RefCell<Option<Pending>> = const { RefCell::new(None) };
}

/// A file to hash as it is scanned, and what its scan read.
struct Pending {
    path: PathBuf,
    /// The hash and length so far, taken by the scan that reads it.
    hash: Option<(ContentHash, u64)>,
    /// The first scan's, once it read the file to its end.
    read: Option<(ContentHash, u64)>,
}

impl Pending {
    /// The hash to feed, for the first scan of the file only: a second scan (of what may
    /// have grown meanwhile) spoils what the first read.
    fn take(&mut self) -> Option<(ContentHash, u64)> {
        if self.read.is_some() || self.hash.is_none() {
            self.read = None;
            self.hash = None;
            return None;
        }
        self.hash.take()
    }
}

/// A session's one file hashed by the plan's read of it instead of a read of its own: of
/// a session too large to hold ([`Held`]) whose hash is not wanted before it is planned
/// (it was never imported, or is being replaced), the hash is that of the bytes the plan
/// read, which every other read of the file took in (`axt import claude-code` of a session
/// of 198 MiB read it three times: hashed, planned, transcribed). Until dropped, [`scan`]
/// on this thread hashes that file as it reads it; [`Hashing::finish`] is the hash, as
/// [`content_hash`](super::state::content_hash) would make it of those bytes, when one scan
/// read the whole file and no other scan read it again.
pub(crate) struct Hashing(std::marker::PhantomData<Rc<()>>);

impl Hashing {
    /// Hashes `path` as it is scanned on this thread.
    pub(crate) fn start(path: &Path) -> Hashing {
        HASHING.with(|hashing| {
            *hashing.borrow_mut() = Some(Pending {
                path: path.to_owned(),
                hash: Some((ContentHash::new(), 0)),
                read: None,
            });
        });
        Hashing(std::marker::PhantomData)
    }

    /// The content hash of what one scan read of the file, whole; `None` when no scan read
    /// it, or more than one did (then read the file to hash it).
    pub(crate) fn finish(self) -> Option<String> {
        let (mut hash, len) = HASHING.with(|hashing| hashing.borrow_mut().take()?.read)?;
        hash.write(&len.to_le_bytes());
        Some(hash.finish())
    }
}

impl Drop for Hashing {
    fn drop(&mut self) {
        let _ = HASHING.try_with(|hashing| hashing.borrow_mut().take());
    }
}

/// What a worker holds of a session at most: a session whose files are larger together is
/// read as it goes (the plan's pass, then each run's entries again), so memory stays
/// bounded per worker whatever a session's size.
pub(crate) const HOLD_LIMIT: u64 = 16 << 20;

thread_local! {
    /// The files the session this worker imports is read from ([`Held::hold`]).
    static HELD: RefCell<Vec<(PathBuf, Rc<Vec<u8>>)>> = const { RefCell::new(Vec::new()) };
    /// Buffers of sessions let go, read into again: a fresh one each session cost page
    /// faults and, freed, sat in the allocator (peak RSS 18 -> 34 MB importing 100 logs of
    /// 2 MiB on 2 workers; reused, 19 MB). At most [`HOLD_LIMIT`] bytes of them.
    static SPARE: RefCell<Vec<Vec<u8>>> = const { RefCell::new(Vec::new()) };
}

/// The bytes this worker holds of `path`, if it holds it.
fn held(path: &Path) -> Option<Rc<Vec<u8>>> {
    HELD.with(|held| {
        held.borrow()
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, bytes)| Rc::clone(bytes))
    })
}

/// A session's files read whole, each once: its content hash is theirs, and until this is
/// dropped [`scan`] and [`EntryReader`] on this thread read them from memory instead of
/// the disk (the plan and the transcription see the bytes that were hashed, even when a
/// writer appends meanwhile). On a log of 2 MiB the three reads of a file (hash, plan,
/// entries back) were 13% of `axt import`'s CPU, the kernel's copies most of it.
pub(crate) struct Held {
    /// Each file read, in the order given (a file that is gone left out, as the hash
    /// leaves it).
    files: Vec<(PathBuf, Rc<Vec<u8>>)>,
}

impl Held {
    /// Reads `paths`, when together they are at most [`HOLD_LIMIT`] bytes (else `None`:
    /// read them as they go). A file that cannot be read is `None` too: the usual reads
    /// report it.
    pub(crate) fn read(paths: &[PathBuf]) -> Option<Held> {
        let mut left = HOLD_LIMIT;
        let mut held = Held {
            files: Vec::with_capacity(paths.len()),
        };
        for path in paths {
            let file = match std::fs::File::open(path) {
                Ok(file) => file,
                Err(error) if error.kind() == io::ErrorKind::NotFound => continue,
                Err(_) => return None,
            };
            let size = file.metadata().ok()?.len();
            if size > left {
                return None;
            }
            let mut bytes = SPARE
                .with(|spare| spare.borrow_mut().pop())
                .unwrap_or_default();
            bytes.clear();
            let need = size as usize + 1;
            if bytes.capacity() < need {
                // Room to grow: the next session's slightly larger file fits (a page is
                // resident only once written), and no buffer is moved.
                bytes = Vec::with_capacity(need.next_power_of_two());
            }
            // One more byte than the room left: a file grown past it since is read as it goes.
            let read = file.take(left + 1).read_to_end(&mut bytes);
            held.files.push((path.clone(), Rc::new(bytes)));
            left = left.checked_sub(read.ok()? as u64)?;
        }
        Some(held)
    }

    /// The content hash of the files held: [`content_hash`](super::state::content_hash)
    /// of the same paths, had they been read then.
    pub(crate) fn content_hash(&self) -> String {
        super::state::content_hash_of(self.files.iter().map(|(_, bytes)| &bytes[..]))
    }

    /// Holds the files for this thread's reads until the guard returned is dropped.
    pub(crate) fn hold(mut self) -> Holding {
        let files = std::mem::take(&mut self.files);
        HELD.with(|held| recycle(std::mem::replace(&mut *held.borrow_mut(), files)));
        Holding(std::marker::PhantomData)
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        recycle(std::mem::take(&mut self.files));
    }
}

/// The files of a [`Held`] held by this thread; dropped, they are let go.
pub(crate) struct Holding(std::marker::PhantomData<Rc<()>>);

impl Drop for Holding {
    fn drop(&mut self) {
        recycle(HELD.with(|held| std::mem::take(&mut *held.borrow_mut())));
    }
}

/// Keeps the buffers of files let go for the next session's ([`SPARE`]).
fn recycle(files: Vec<(PathBuf, Rc<Vec<u8>>)>) {
    if files.is_empty() {
        return;
    }
    SPARE.with(|spare| {
        let mut spare = spare.borrow_mut();
        let mut kept: usize = spare.iter().map(Vec::capacity).sum();
        for (_, bytes) in files {
            // A reader still open (none is, once the session is written) keeps its own.
            if let Ok(bytes) = Rc::try_unwrap(bytes)
                && kept + bytes.capacity() <= HOLD_LIMIT as usize
            {
                kept += bytes.capacity();
                spare.push(bytes);
            }
        }
    });
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
    /// Its bytes, when this worker holds the file ([`Held`]): entries are taken from them.
    held: Option<Rc<Vec<u8>>>,
    /// The file, opened unless it is held.
    file: Option<std::fs::File>,
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
        let held = held(path);
        let file = match held {
            Some(_) => None,
            None => Some(std::fs::File::open(path).map_err(|source| ImportError::Io {
                path: path.to_owned(),
                source,
            })?),
        };
        Ok(EntryReader {
            path: path.to_owned(),
            held,
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
        if self.held.is_some() {
            return self.held_raw(range);
        }
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

    /// An entry of the held bytes. The plan read these very bytes: a range past them is
    /// reported as a file shorter than the plan saw, as from the disk.
    fn held_raw(&self, range: &Range<usize>) -> Result<&[u8], ImportError> {
        self.held
            .as_deref()
            .and_then(|bytes| bytes.get(range.clone()))
            .ok_or_else(|| ImportError::Io {
                path: self.path.clone(),
                source: io::ErrorKind::UnexpectedEof.into(),
            })
    }

    /// Reads up to `want` bytes from `start`, at least `need` (else the error of a read
    /// that could not read them all).
    fn fill(&mut self, start: u64, want: usize, need: usize) -> io::Result<()> {
        let file = match &mut self.file {
            Some(file) => file,
            None => self.file.insert(std::fs::File::open(&self.path)?),
        };
        self.len = 0;
        if self.at != start {
            self.at = u64::MAX;
            file.seek(SeekFrom::Start(start))?;
            self.at = start;
        }
        if self.bytes.len() < want {
            self.bytes.resize(want, 0);
        }
        let mut filled = 0;
        while filled < want {
            match file.read(&mut self.bytes[filled..want]) {
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
            file.seek(SeekFrom::Start(start))?;
            file.read_exact(&mut self.bytes[..need])?;
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

    /// A file hashed by the scan that reads it has the hash a read of its own gives: lines
    /// longer than the reader's buffer, one over the limit, blank lines, a last line
    /// without its end. No scan, or a second one, and there is none (the file is read).
    #[test]
    fn a_file_hashed_by_its_scan_has_the_hash_of_a_read_of_its_own() {
        let dir = std::env::temp_dir().join(format!("axt-hashing-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("session.jsonl");
        let long = "x".repeat(200 << 10);
        let over = "y".repeat(lines::DEFAULT_MAX_LINE_BYTES + 10);
        for text in [
            String::new(),
            "{}\n\n  \n{\"a\":1}".to_owned(),
            format!("{{\"a\":\"{long}\"}}\r\n{over}\n{{}}\n"),
        ] {
            std::fs::write(&path, &text).unwrap();
            let expected = super::super::state::content_hash(std::slice::from_ref(&path)).unwrap();
            let hashing = Hashing::start(&path);
            let mut lines = 0;
            scan(&path, |_| lines += 1).unwrap();
            assert_eq!(hashing.finish(), Some(expected), "{}", text.len());
            let hashing = Hashing::start(&path);
            scan(&path, |_| {}).unwrap();
            scan(&path, |_| {}).unwrap();
            assert_eq!(hashing.finish(), None);
            assert_eq!(Hashing::start(&path).finish(), None);
        }
        // Another file's scan is not hashed, nor is one after the guard is gone.
        let other = dir.join("other.jsonl");
        std::fs::write(&other, "{}\n").unwrap();
        let hashing = Hashing::start(&path);
        scan(&other, |_| {}).unwrap();
        assert_eq!(hashing.finish(), None);
        assert!(HASHING.with(|hashing| hashing.borrow().is_none()));
        std::fs::remove_dir_all(&dir).unwrap();
    }

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

    /// Every line `scan` hands on (number, range, bytes).
    type Lines = Vec<(u64, Range<usize>, Vec<u8>)>;

    /// What `scan` hands on, and the size it read.
    fn lines_of(path: &Path) -> (Lines, u64) {
        let mut lines = Vec::new();
        let scanned = scan(path, |line| {
            lines.push((line.number, line.range, line.bytes.to_vec()))
        })
        .unwrap();
        (lines, scanned.size)
    }

    /// A session held is read as from the disk: the same content hash, the same lines
    /// (a BOM, CRs, blank lines, a long line, a last line without LF) and the
    /// same entries read back, and a range past its end is the error a file shorter than
    /// the plan saw gives; let go, the disk is read again.
    #[test]
    fn a_held_session_reads_as_the_disk_does() {
        let dir = std::env::temp_dir().join(format!("axt-held-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (main, agent, gone) = (dir.join("s.jsonl"), dir.join("a.jsonl"), dir.join("g"));
        // Longer than the disk's reads (a line split between two; one over the line limit
        // is over the limit held too).
        let long = "x".repeat(150_000);
        let text = format!(
            "{}{{\"n\":1}}\r\n\n  \n{{\"n\":2}}\n{{\"long\":\"{long}\"}}\n{{\"n\":3}}\r\n{{\"last\":4}}",
            '\u{feff}'
        );
        std::fs::write(&main, &text).unwrap();
        std::fs::write(&agent, "{\"agent\":1}\n").unwrap();
        let paths = [main.clone(), gone, agent.clone()];
        let disk = (lines_of(&main), lines_of(&agent));
        let hash = super::super::state::content_hash(&paths).unwrap();
        let read_back = |path: &Path, lines: &[(u64, Range<usize>, Vec<u8>)]| {
            let mut reader = EntryReader::open(path).unwrap();
            // Backwards too: not only in order.
            let mut all: Vec<Vec<u8>> = lines
                .iter()
                .rev()
                .map(|(_, range, _)| reader.raw(range).unwrap().to_vec())
                .collect();
            all.reverse();
            let past = reader.raw(&(text.len() - 2..text.len() + 5)).unwrap_err();
            assert!(
                matches!(&past, ImportError::Io { source, .. } if source.kind() == io::ErrorKind::UnexpectedEof),
                "{past:?}"
            );
            all
        };
        let from_disk = read_back(&main, &disk.0.0);

        let held = Held::read(&paths).expect("small enough to hold");
        assert_eq!(held.content_hash(), hash);
        let holding = held.hold();
        // What is held is read, not the disk: the files changed now are not seen.
        std::fs::write(&main, "{\"changed\":true}\n").unwrap();
        assert_eq!((lines_of(&main), lines_of(&agent)), disk);
        assert_eq!(read_back(&main, &disk.0.0), from_disk);
        drop(holding);
        assert_eq!(lines_of(&main).0.len(), 1, "let go, the disk is read");

        // Too large together: not held.
        std::fs::write(&main, vec![b' '; HOLD_LIMIT as usize]).unwrap();
        assert!(Held::read(&paths).is_none());
        assert!(Held::read(&paths[..1]).is_some());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
