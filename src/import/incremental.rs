//! Importing a store's sessions into a directory again and again, reading only what is new
//! or changed: what `axt import` does, once or while watching.
//!
//! Each session's files are stamped (size, modification time; for a database being
//! written, also what its log has published to readers) and compared with what the
//! directory's [state file](super::state) says they were when it was last imported: the
//! same stamps, and every run file still there, and the session is not read at all. Else
//! its content is hashed; the same hash (a file touched, not changed), and it is not
//! imported again either. Else it is planned and written by updating its runs
//! ([`Mode::Update`]: the lines still right are kept and the rest appended) or, replacing,
//! anew. The state file is saved once, at the end, with every session imported.
//!
//! Sessions are imported on several workers ([`batch`]), and two of them may write the same
//! run (OpenCode's databases of two release channels hold the same sessions): each claims
//! its run ids once read ([`batch::Claims`]), so such runs are written by one session at a
//! time, in the sessions' order, and the directory ends as one worker leaves it.
//!
//! This room owns that decision and the order of work; reading a store is its folder's,
//! writing a run [`write`](super::write)'s.

use std::collections::BTreeMap;
use std::io;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::batch;

use super::entries::Hashing;
use super::session::{ImportError, Imported};
use super::state::{Seen, State, stamps};
use super::stores::{Found, Store};
use super::write::Mode;

/// How [`import`] works.
#[derive(Clone, Debug)]
pub struct Options {
    /// How a run that has a file is written: [`Mode::Update`] (the default) or
    /// [`Mode::Replace`].
    pub mode: Mode,
    /// Worker threads; 0 for one per core.
    pub jobs: usize,
    /// Only sessions with a file modified at or after this time.
    pub since: Option<SystemTime>,
    /// Only sessions whose files have been still this long ([`settled`]; what watching
    /// imports), judged on the files as they are read: a session whose files are written
    /// while it is read is not written ([`Status::Moving`]).
    pub settle: Option<std::time::Duration>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            mode: Mode::Update,
            jobs: 0,
            since: None,
            settle: None,
        }
    }
}

/// What happened to one session.
#[derive(Debug)]
pub struct Outcome {
    /// The session.
    pub found: Found,
    /// What was done.
    pub status: Status,
}

/// What [`import`] did with a session.
#[derive(Debug)]
pub enum Status {
    /// Its files are as they were when it was last imported (or changed only in their
    /// times), and its runs are there: not read again.
    Unchanged,
    /// Imported: its runs, each created, updated or left as it was.
    Imported(Imported),
    /// It could not be imported.
    Failed(ImportError),
    /// With [`Options::settle`]: its files are being written (not still for the settle
    /// time, or written to while they were read), so nothing of it was written; a later
    /// import reads it again.
    Moving,
}

/// Imports `sessions` into `dir`, in parallel, skipping those unchanged since the last
/// import and those older than `options.since`; `progress(done, total)` after each.
/// Outcomes are in the order of `sessions` (the skipped ones left out); the directory's
/// state file is saved before returning. [`import_each`] hands them over one by one instead.
pub fn import(
    sessions: &[Found],
    dir: &Path,
    options: &Options,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> io::Result<Vec<Outcome>> {
    let mut outcomes = Vec::new();
    import_each(sessions, dir, options, progress, &mut |outcome| {
        outcomes.push(outcome)
    })?;
    Ok(outcomes)
}

/// [`import`], each session's outcome handed to `each` as soon as it and those before it
/// are done, in the order of `sessions`, on the calling thread: the sessions are imported
/// on `options.jobs` workers ([`batch`]), and what is held at once is
/// bounded by the workers, not by the number of sessions. `progress(done, total)` is
/// called before each outcome is handed over.
pub fn import_each(
    sessions: &[Found],
    dir: &Path,
    options: &Options,
    progress: &(dyn Fn(usize, usize) + Sync),
    each: &mut dyn FnMut(Outcome),
) -> io::Result<()> {
    let sessions: Vec<&Found> = sessions
        .iter()
        .filter(|found| options.since.is_none_or(|since| modified(found) >= since))
        .collect();
    let state = State::load(dir);
    let mut seen = BTreeMap::new();
    let workers = batch::workers(options.jobs, sessions.len());
    // Two sessions may write one run (OpenCode's databases of two release channels share
    // their sessions' ids): it goes to them in their order, as with one worker.
    let claims = batch::Claims::new(sessions.len());
    batch::in_order(
        &sessions,
        workers,
        |index, found, send| {
            let _ending = claims.ending(index);
            let claim = &mut |run_ids: &[&str]| claims.claim_all(index, run_ids);
            // Its key once (a canonical path: a `readlink` a directory of it).
            let key = found.key();
            send((one(found, &key, dir, options, &state, claim), key));
        },
        |index, ((status, now), key)| {
            let found = sessions[index];
            if let Some(now) = now {
                seen.insert(key, now);
            }
            progress(index + 1, sessions.len());
            each(Outcome {
                found: found.clone(),
                status,
            });
        },
    );
    if !seen.is_empty() {
        State::save(dir, &seen)?;
    }
    Ok(())
}

/// When a session last changed: the latest modification time of its files (or, for a
/// session in a database, what the database says).
pub fn modified(found: &Found) -> SystemTime {
    if let Some(updated) = found.updated() {
        return updated;
    }
    stamps(&found.paths())
        .iter()
        .map(|s| UNIX_EPOCH + std::time::Duration::from_nanos(s.mtime_ns as u64))
        .max()
        .unwrap_or(UNIX_EPOCH)
}

/// How many times `settle` a file that ends mid-line must be still before it is taken as
/// cut for good (an agent that died mid-write) rather than still being written.
const CUT_LINE_SETTLES: u32 = 10;

/// And never less than this. Agents write a record with one `write(2)`, so a line stays
/// unfinished only while a writer is descheduled between the pieces of a formatted write
/// or is dead; on a loaded machine the first lasts seconds (a test writer paused for over
/// 2 s at load 40 was read torn with `--settle 0.2`), so a short settle time must not make
/// a live writer's half record look abandoned. Half a minute is far beyond any live pause.
const CUT_LINE_FLOOR: std::time::Duration = std::time::Duration::from_secs(30);

/// Whether a session's files have been still for `settle`: one being written waits
/// (watching imports it once it pauses). A file whose last line has no end yet is being
/// written, however long the writer pauses between its halves, so it waits ten times as
/// long, and at least 30 s: a record is imported whole, never torn, unless
/// its writer is gone.
pub fn settled(found: &Found, settle: std::time::Duration, now: SystemTime) -> bool {
    let needed = if found.paths().iter().any(|path| ends_mid_line(path)) {
        (settle * CUT_LINE_SETTLES).max(CUT_LINE_FLOOR)
    } else {
        settle
    };
    now.duration_since(modified(found))
        .is_ok_and(|still| still >= needed)
}

/// Whether a JSON Lines file's last byte is not a line end (an empty file has no line to
/// finish; a JSON document, `.json`, needs none).
fn ends_mid_line(path: &Path) -> bool {
    use std::io::{Read, Seek, SeekFrom};
    if path.extension().is_none_or(|e| e != "jsonl") {
        return false;
    }
    let Ok(mut file) = std::fs::File::open(path) else {
        return false;
    };
    let mut last = [0u8; 1];
    file.seek(SeekFrom::End(-1)).is_ok() && file.read_exact(&mut last).is_ok() && last[0] != b'\n'
}

/// One session: skipped, or imported (`claim` told its run ids before they are written);
/// and what the state file is to say of it.
fn one(
    found: &Found,
    key: &str,
    dir: &Path,
    options: &Options,
    state: &State,
    claim: &mut dyn FnMut(&[&str]),
) -> (Status, Option<Seen>) {
    let mode = options.mode;
    // Stamped before anything is read: a file written after is read again next time.
    let now = found.stamps();
    // Whether the files are still is judged after the stamps, and the files are stamped
    // again once read (below): the same stamps, and what was read is what was judged (a
    // writer appending half a record between a look and the read it allowed would have
    // it read torn).
    if let Some(settle) = options.settle
        && !settled(found, settle, SystemTime::now())
    {
        return (Status::Moving, None);
    }
    let before = state.sessions.get(key).filter(|_| mode == Mode::Update);
    let runs_there = |seen: &Seen| {
        seen.runs
            .iter()
            .all(|run| dir.join(format!("{run}.jsonl")).is_file())
    };
    if let Some(seen) = before
        && seen.files == now
        && runs_there(seen)
    {
        return (Status::Unchanged, None);
    }
    // A session small enough is read from disk once: hashed, planned and transcribed
    // from the same bytes, held by this worker until it is written.
    let held = found.read_whole();
    // A larger one in one file, whose hash is not compared before it is planned, is hashed
    // by the plan's read of it ([`Hashing`]), a read of the file fewer (of 198 MiB, 28 ms
    // of CPU): the same hash, of the same bytes.
    let paths = found.paths();
    let fused = match (&held, before, paths.as_slice()) {
        // (OpenCode's hash is its rows', not its files'.)
        (None, None, [path]) if found.store != Store::OpenCode => Some(path),
        _ => None,
    };
    let hash = match (&held, fused) {
        (Some(held), _) => Ok(Some(held.content_hash())),
        (None, Some(_)) => Ok(None),
        (None, None) => found.content_hash().map(Some),
    };
    let hash = match hash {
        Ok(hash) => hash,
        Err(error) => return (Status::Failed(error), None),
    };
    if let (Some(seen), Some(hash)) = (before, &hash)
        && seen.hash == *hash
        && runs_there(seen)
    {
        let touched = Seen {
            files: now,
            ..seen.clone()
        };
        return (Status::Unchanged, Some(touched));
    }
    let hashing = fused.map(|path| Hashing::start(path));
    let _holding = held.map(|held| held.hold());
    // A database's session is read in one transaction, whatever is written meanwhile; its
    // stamps, which every session of the database shares, are not looked at again.
    let checked = options.settle.is_some() && found.row.is_none();
    let written = found.import_checked(dir, mode, &mut |run_ids| {
        if checked && found.stamps() != now {
            return false;
        }
        claim(run_ids);
        true
    });
    match written {
        Ok(None) => (Status::Moving, None),
        Ok(Some(imported)) => {
            // The plan's read's hash, else (the file was not read by one scan) the file's.
            let hash = match hash.or_else(|| hashing.and_then(Hashing::finish)) {
                Some(hash) => hash,
                None => match found.content_hash() {
                    Ok(hash) => hash,
                    Err(error) => return (Status::Failed(error), None),
                },
            };
            let seen = Seen {
                files: now,
                hash,
                session_id: imported.session_id.clone(),
                runs: imported.runs.iter().map(|r| r.run_id.clone()).collect(),
            };
            (Status::Imported(imported), Some(seen))
        }
        Err(error) => (Status::Failed(error), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::session::SessionFiles;
    use crate::import::stores::Store;
    use std::time::Duration;

    /// A session file and when it was last written, as `settled` sees it.
    fn session(name: &str, text: &str) -> (Found, SystemTime, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("axt-settled-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("session-1.jsonl");
        std::fs::write(&path, text).unwrap();
        let found = Found {
            store: Store::Gemini,
            files: SessionFiles::alone(path.clone()),
            row: None,
        };
        let written = modified(&found);
        (found, written, dir)
    }

    #[test]
    fn a_finished_file_is_settled_once_still_for_the_settle_time() {
        let (found, written, dir) = session("finished", "{\"id\":\"u1\"}\n");
        let settle = Duration::from_millis(200);
        assert!(!settled(
            &found,
            settle,
            written + Duration::from_millis(100)
        ));
        assert!(settled(
            &found,
            settle,
            written + Duration::from_millis(200)
        ));
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// A writer paused mid-record for seconds on a loaded machine is still alive: with a
    /// short settle time its half record must not be taken as cut (the old rule, ten settle
    /// times, gave up after 2 s).
    #[test]
    fn a_half_written_line_waits_at_least_the_floor_whatever_the_settle_time() {
        let (found, written, dir) = session("half", "{\"id\":\"u1\"}\n{\"id\":\"g1\",\"con");
        let settle = Duration::from_millis(200);
        assert!(!settled(&found, settle, written + Duration::from_secs(5)));
        assert!(!settled(&found, settle, written + Duration::from_secs(29)));
        assert!(settled(&found, settle, written + CUT_LINE_FLOOR));
        // A long settle time still counts ten of them.
        let long = Duration::from_secs(10);
        assert!(!settled(&found, long, written + Duration::from_secs(60)));
        assert!(settled(&found, long, written + Duration::from_secs(100)));
        std::fs::remove_dir_all(dir).unwrap();
    }
}
