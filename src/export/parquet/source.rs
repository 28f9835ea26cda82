//! One transcript file surveyed before it is exported: its content hash (what an
//! incremental export compares), its run (the first event's ids and date) and the run
//! metadata of its last line, read from the file's end so that the one pass over its events
//! already knows the model, the provider and the calls the provider denied.
//!
//! This file owns that survey. It must not map events onto rows (`rows.rs` does) nor decide
//! what to export (`dataset.rs` does).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use memchr::memmem;
use sha2::{Digest, Sha256};

use crate::model::{EventType, Payload, RunMeta, Timestamp, decode_event};
use crate::read::{DEFAULT_MAX_LINE_BYTES, ReadItem, Reader};

/// What an export knows of a transcript before reading its events.
#[derive(Clone, Debug)]
pub(crate) struct Source {
    /// The file.
    pub(crate) path: PathBuf,
    /// Its name, without the directory.
    pub(crate) file_name: String,
    /// SHA-256 of its bytes, hex.
    pub(crate) sha256: String,
    /// Its size.
    pub(crate) bytes: u64,
    /// Whether any line may hold a `router` payload: only then can a call be seen on both
    /// channels, and the export settles the calls in a pass of their own first.
    pub(crate) routed: bool,
    /// The run, from its first event; `None` for a file without one.
    pub(crate) run: Option<RunIds>,
    /// The metadata of the file's last line, when it is a `run.completed` that carries it.
    pub(crate) tail: Option<RunMeta>,
}

/// A run's ids and partition date, from its first event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RunIds {
    /// `run_id`.
    pub(crate) run_id: String,
    /// `parent_run_id`.
    pub(crate) parent_run_id: Option<String>,
    /// The UTC date of the first event time that parses, `YYYY-MM-DD`; `1970-01-01` when
    /// none does.
    pub(crate) date: String,
}

impl Source {
    /// The key of its run in the dataset: the run id, or for a file with no event its hash.
    pub(crate) fn key(&self) -> String {
        match &self.run {
            Some(run) => run.run_id.clone(),
            None => format!("sha256:{}", self.sha256),
        }
    }

    /// The partition date.
    pub(crate) fn date(&self) -> &str {
        self.run
            .as_ref()
            .map_or(EPOCH_DATE, |run| run.date.as_str())
    }
}

/// The date of a file whose events have no time that parses.
pub(crate) const EPOCH_DATE: &str = "1970-01-01";

/// Surveys `path`: one pass over its bytes for the hash (and a `router` payload), the
/// first event, and its last line.
pub(crate) fn survey(path: &Path) -> io::Result<Source> {
    let mut file = File::open(path)?;
    let mut hasher = Sha256::new();
    let finder = memmem::Finder::new(b"\"router\"");
    let mut buffer = vec![0u8; 256 << 10];
    let mut bytes = 0u64;
    let mut routed = false;
    // The needle may straddle two reads: keep its length minus one byte of the last.
    let keep = finder.needle().len() - 1;
    let mut carry: Vec<u8> = Vec::new();
    loop {
        let n = match file.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        let chunk = &buffer[..n];
        hasher.update(chunk);
        bytes += n as u64;
        if !routed {
            carry.extend_from_slice(&chunk[..chunk.len().min(keep)]);
            routed = finder.find(&carry).is_some() || finder.find(chunk).is_some();
            carry.clear();
            carry.extend_from_slice(&chunk[chunk.len().saturating_sub(keep)..]);
        }
    }
    let sha256 = hex(&hasher.finalize());
    let run = first_run(path)?;
    let tail = tail_meta(&mut file, bytes)?;
    Ok(Source {
        path: path.to_owned(),
        file_name: path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default(),
        sha256,
        bytes,
        routed,
        run,
        tail,
    })
}

/// Lower-case hex of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut text = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        text.push(DIGITS[usize::from(byte >> 4)] as char);
        text.push(DIGITS[usize::from(byte & 15)] as char);
    }
    text
}

/// SHA-256 of `bytes`, hex.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// The first event's ids, and the date of the first event time that parses.
fn first_run(path: &Path) -> io::Result<Option<RunIds>> {
    let mut run: Option<RunIds> = None;
    for item in Reader::open(path)? {
        let ReadItem::Event { event, .. } = item else {
            continue;
        };
        let run = run.get_or_insert_with(|| RunIds {
            run_id: event.run_id.clone(),
            parent_run_id: event.parent_run_id.clone(),
            date: String::new(),
        });
        if let Ok(nanos) = event.timestamp.unix_nanos() {
            run.date = utc_date(nanos);
            break;
        }
    }
    if let Some(run) = run.as_mut().filter(|run| run.date.is_empty()) {
        run.date = EPOCH_DATE.to_owned();
    }
    Ok(run)
}

/// The UTC date of an instant, `YYYY-MM-DD`.
pub(crate) fn utc_date(nanos: i128) -> String {
    let text = Timestamp::from_unix_nanos(nanos);
    let text = text.as_str();
    text.split('T').next().unwrap_or(text).to_owned()
}

/// The run metadata of the file's last line, when that line is a `run.completed` carrying
/// it: read backwards from the end, at most one line's limit.
fn tail_meta(file: &mut File, size: u64) -> io::Result<Option<RunMeta>> {
    let mut end = size;
    let mut tail: Vec<u8> = Vec::new();
    // Skip the final LF: the line before it is the last line.
    let limit = DEFAULT_MAX_LINE_BYTES as u64 + 1;
    loop {
        let start = end.saturating_sub(64 << 10);
        let mut chunk = vec![0u8; (end - start) as usize];
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(&mut chunk)?;
        chunk.extend_from_slice(&tail);
        tail = chunk;
        let body = tail.strip_suffix(b"\n").unwrap_or(&tail);
        if let Some(at) = memchr::memrchr(b'\n', body) {
            return Ok(meta_of(&body[at + 1..]));
        }
        if start == 0 {
            return Ok(meta_of(body));
        }
        if tail.len() as u64 > limit {
            return Ok(None);
        }
        end = start;
    }
}

fn meta_of(line: &[u8]) -> Option<RunMeta> {
    let event = decode_event(line).ok()?;
    match (&event.event_type, &event.payload) {
        (EventType::RunCompleted, Payload::Step(step)) => RunMeta::of(step),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_is_lower_case_and_two_digits_a_byte() {
        assert_eq!(hex(&[0, 1, 0xab, 0xff]), "0001abff");
    }

    #[test]
    fn the_date_is_the_utc_day() {
        // 2026-06-08T23:30:00-02:00 is the 9th in UTC.
        let nanos = Timestamp::parse("2026-06-08T23:30:00-02:00")
            .unwrap()
            .unix_nanos()
            .unwrap();
        assert_eq!(utc_date(nanos), "2026-06-09");
    }
}
