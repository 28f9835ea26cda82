//! What an output directory has imported: the state file `DIR/.axt-import-state.json`, so
//! that importing again reads only the sessions that are new or changed.
//!
//! A session is known by its store and its identity there (the path of its main file, or
//! its id in a store's database), and recorded with what its files were when it was read:
//! each file's size and modification time (and for a database's log, what it had
//! published to readers), and one content hash of everything read. A
//! session whose files have the same sizes and times is not read at all; one whose times
//! moved but whose content hash is the same is not imported again either (its times are
//! noted). The file is a cache, never the truth: a run file's own lines decide what an
//! update keeps ([`write`](super::write)), so a lost or stale state file costs reading, not
//! correctness, and two machines importing into one directory each keep their own paths.
//!
//! It is written atomically (a temporary file renamed over it) under an exclusive lock on
//! `DIR/.axt-import.lock`, merged with what is on disk at that moment, so that two imports
//! into one directory lose neither's sessions. This room owns the file, its format and its
//! lock; what to do with a session is its caller's.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};

/// The state file's name in the output directory.
pub const STATE_FILE: &str = ".axt-import-state.json";
/// The lock that serializes writing it.
pub const LOCK_FILE: &str = ".axt-import.lock";

/// What the directory has imported, by session key (`<store>:<identity>`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    /// The format's version.
    pub version: u32,
    /// Every session imported, by key.
    pub sessions: BTreeMap<String, Seen>,
}

/// A session as it was when it was last imported.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seen {
    /// Its files, in order, as they were.
    pub files: Vec<Stamp>,
    /// The hash of their content, in order ([`ContentHash`]).
    pub hash: String,
    /// The session id.
    pub session_id: String,
    /// The runs it made.
    pub runs: Vec<String>,
}

/// A file's size and modification time.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    /// The file.
    pub path: PathBuf,
    /// Its size in bytes.
    pub size: u64,
    /// Its modification time, nanoseconds since the Unix epoch.
    pub mtime_ns: u128,
    /// What a database's write-ahead log has published to its readers, when the file is
    /// its index (`-shm`): a log's own size and time count a transaction before readers
    /// can see it. `None` for every other file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published: Option<String>,
}

impl Stamp {
    /// The stamp of `path` now; a file that is gone has none.
    pub fn of(path: &Path) -> Option<Stamp> {
        let meta = std::fs::metadata(path).ok()?;
        let mtime_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        Some(Stamp {
            path: path.to_owned(),
            size: meta.len(),
            mtime_ns,
            published: None,
        })
    }
}

/// The stamps of `files` now (a file that is gone is left out, which changes the list).
pub fn stamps(files: &[PathBuf]) -> Vec<Stamp> {
    files.iter().filter_map(|f| Stamp::of(f)).collect()
}

/// The hash a session's content is known by: XXH3-64 (a specified hash, the same on every
/// platform and release, at memory speed), written `xxh3:<16 hex digits>`. State files of
/// releases before it hold FNV-1a's bare 16 digits, which no hash of this one equals: such a
/// session whose times moved is read again once (what its runs have is kept, see
/// [`write`](super::write)).
pub struct ContentHash(twox_hash::XxHash3_64);

impl ContentHash {
    /// Nothing hashed yet.
    pub fn new() -> ContentHash {
        ContentHash(twox_hash::XxHash3_64::with_seed(0))
    }

    /// Hashes `bytes` after what was hashed before.
    pub fn write(&mut self, bytes: &[u8]) {
        std::hash::Hasher::write(&mut self.0, bytes);
    }

    /// The hash as [`Seen::hash`] keeps it.
    pub fn finish(&self) -> String {
        format!("xxh3:{:016x}", std::hash::Hasher::finish(&self.0))
    }
}

impl Default for ContentHash {
    fn default() -> ContentHash {
        ContentHash::new()
    }
}

/// The content hash of `files`, in order, each with its length: what [`Seen::hash`] holds.
pub fn content_hash(files: &[PathBuf]) -> io::Result<String> {
    let mut hash = ContentHash::new();
    let mut buffer = vec![0; 256 << 10];
    for path in files {
        let mut file = match File::open(path) {
            Ok(file) => file,
            Err(error) if error.kind() == io::ErrorKind::NotFound => continue,
            Err(error) => return Err(error),
        };
        let mut len = 0u64;
        loop {
            let n = io::Read::read(&mut file, &mut buffer)?;
            if n == 0 {
                break;
            }
            hash.write(&buffer[..n]);
            len += n as u64;
        }
        hash.write(&len.to_le_bytes());
    }
    Ok(hash.finish())
}

/// The content hash of files read whole, in order: [`content_hash`] of their paths.
pub(crate) fn content_hash_of<'a>(files: impl IntoIterator<Item = &'a [u8]>) -> String {
    let mut hash = ContentHash::new();
    for bytes in files {
        hash.write(bytes);
        hash.write(&(bytes.len() as u64).to_le_bytes());
    }
    hash.finish()
}

impl State {
    /// The state `dir` holds; empty when it has none, or one that cannot be read (it is a
    /// cache: the run files decide).
    pub fn load(dir: &Path) -> State {
        std::fs::read(dir.join(STATE_FILE))
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }

    /// Records `sessions` into the directory's state file: under the lock, the file on disk
    /// read again, these sessions put in (replacing what it had of them), and the whole
    /// written to a temporary file and renamed over it.
    pub fn save(dir: &Path, sessions: &BTreeMap<String, Seen>) -> io::Result<()> {
        std::fs::create_dir_all(dir)?;
        // Both files are private, as every file axt writes: the state names the user's
        // sessions.
        let lock = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .open(dir.join(LOCK_FILE))?;
        lock.lock()?;
        let mut state = State::load(dir);
        state.version = 1;
        for (key, seen) in sessions {
            state.sessions.insert(key.clone(), seen.clone());
        }
        let bytes = serde_json::to_vec_pretty(&state).map_err(io::Error::other)?;
        let temporary = dir.join(format!("{STATE_FILE}.{}", std::process::id()));
        let written = (|| {
            let mut file = File::options()
                .create(true)
                .truncate(true)
                .write(true)
                .mode(0o600)
                .open(&temporary)?;
            file.write_all(&bytes)?;
            file.write_all(b"\n")?;
            file.sync_all()?;
            std::fs::rename(&temporary, dir.join(STATE_FILE))
        })();
        if written.is_err() {
            let _ = std::fs::remove_file(&temporary);
        }
        drop(lock);
        written
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// XXH3-64's published value for no input (seed 0), and a hash written in pieces is the
    /// hash of the whole: if this changes, every session a state file keeps would look
    /// changed to the next import once its times moved.
    #[test]
    fn the_content_hash_is_xxh3_and_never_changes() {
        assert_eq!(ContentHash::new().finish(), "xxh3:2d06800538d394c2");
        let mut whole = ContentHash::new();
        whole.write(b"foobar");
        let mut split = ContentHash::new();
        split.write(b"foo");
        split.write(b"bar");
        assert_eq!(whole.finish(), split.finish());
        assert_ne!(whole.finish(), ContentHash::new().finish());
    }

    /// A file's bytes and its length are what is hashed: a change of the same length, or the
    /// same bytes cut between two files otherwise, is a different hash.
    #[test]
    fn content_hash_sees_every_byte_and_where_files_end() {
        let dir = std::env::temp_dir().join(format!("axt-content-hash-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b) = (dir.join("a.jsonl"), dir.join("b.jsonl"));
        let hash = |first: &str, second: &str| {
            std::fs::write(&a, first).unwrap();
            std::fs::write(&b, second).unwrap();
            content_hash(&[a.clone(), b.clone()]).unwrap()
        };
        let before = hash("{\"n\":1}\n", "{\"n\":2}\n");
        assert_eq!(before, hash("{\"n\":1}\n", "{\"n\":2}\n"));
        assert_ne!(before, hash("{\"n\":1}\n", "{\"n\":3}\n"));
        assert_ne!(before, hash("{\"n\":1}\n{", "\"n\":2}\n"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
