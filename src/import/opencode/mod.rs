//! OpenCode's sessions, in either of the two shapes its versions keep them under its data
//! directory (`$XDG_DATA_HOME/opencode`, default `~/.local/share/opencode`):
//!
//! * **JSON files** (OpenCode 0.5 to 1.1; `packages/opencode/src/storage/storage.ts`):
//!   `storage/session/<project>/<session>.json` (the session: `id`, `parentID`,
//!   `directory`, `version`, `title`, `time`), `storage/message/<session>/<message>.json`
//!   (a message's `info`: `role`, `time`, `modelID`, `tokens`, `cost`, `error`, ...) and
//!   `storage/part/<message>/<part>.json` (its parts: `text`, `reasoning`, `tool`,
//!   `step-finish`, ...). Read by the `files` room.
//! * **SQLite** (OpenCode 1.2 and later, which migrate the files into it on first run and
//!   leave them): `opencode.db` (`opencode-<channel>.db` for another release channel), tables
//!   `session` (`id`, `parent_id`, `directory`, `version`, `title`, `time_updated`),
//!   `message` (`id`, `session_id`, `data`: the info without its ids) and `part` (`id`,
//!   `message_id`, `session_id`, `data`). Read by the `sqlite` room, read-only, while
//!   OpenCode may be writing it (feature `import-sqlite`, which the command line has; a
//!   library built without it finds the files only). A session the database holds is read
//!   from it, never from the files it was migrated from, so it is imported once.
//!
//! # What a session becomes
//!
//! A session with no `parentID` is a run, its run id the session's id. A session another
//! spawned (OpenCode's `task` tool makes one, `parentID` its caller's) is a child run
//! `<root>.agent-<session id>`, at any depth, linked both ways to the `task` call whose
//! `state.metadata.sessionId` names it (the first, when a later call resumed it with
//! `task_id`); one no call names is linked before its parent closes, with an
//! `unlinked-subagent` note; a call naming a session the store does not have leaves a
//! `missing-subagent` note (the call and its result stay in the parent). Each session counts its own tokens: OpenCode's sessions never
//! hold another's, so nothing is counted twice.
//!
//! Each message, with its parts in id order (OpenCode's ids ascend in time), is fed to the
//! OpenCode adapter as one `message` record ([`normalize::opencode`](crate::normalize::opencode),
//! the same mapping of a part as `opencode run --format json`'s), messages in id order. A
//! message or part file that is no JSON (cut mid-write) is fed as it is, for the adapter to
//! report at that file; a part whose message is gone is never read (OpenCode shows none
//! either). Diagnostics name the message's file, or for the database the database and the
//! message's place in its session (line 1 is its first message).
//!
//! The run's `import` account: `format` (`opencode-storage` or `opencode-db`), `source`,
//! `entries` (the messages read, with the part files that could not be read: for the
//! database, over the whole session tree, whose runs share the file), `thread` (those fed to
//! this run), `kept_out` (none), `session_id`, and when known `cwd`, `title`, `version`
//! (OpenCode's), `parent_session` for a child.
//!
//! This folder owns the two layouts and the session tree; a part's meaning is the adapter's.
//! Its rooms: `files` (the JSON layout), `sqlite` (the database), `stored` (the session
//! tree either gives, which this file plans runs of).

mod files;
// `axt usage opencode` walks the JSON layout as the importer does.
pub(crate) use files::json_files;
#[cfg(feature = "import-sqlite")]
mod scan;
#[cfg(feature = "import-sqlite")]
mod sqlite;
mod stored;

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use self::stored::{Found, Piece, Pieces, Stored};
use super::feed::{self, Feed, RunPlan, SessionPlan, Spawn, What};
use super::ids::{self, sanitize};
use super::session::{ImportError, Note, NoteKind, SessionFiles};
use super::state::Stamp;
use crate::model::tools::{ToolClass, classify, subagent_name};
use crate::model::{Provider, Timestamp};

/// The sessions under `path` (the data directory, `storage/`, a session file or a
/// database), root sessions only, each with the database id it has there (`None` for the
/// files). Sorted; the database's first.
pub(crate) fn discover(path: &Path) -> io::Result<Found> {
    let meta = std::fs::metadata(path)?;
    let databases: Vec<PathBuf> = if meta.is_file() {
        vec![path.to_owned()]
            .into_iter()
            .filter(|p| is_database(p))
            .collect()
    } else {
        let mut dbs: Vec<PathBuf> = std::fs::read_dir(path)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file() && is_database(p))
            .collect();
        dbs.sort();
        dbs
    };
    #[cfg(feature = "import-sqlite")]
    let (mut found, in_database) = sqlite::discover(&databases)?;
    // Without SQLite, the files only (and what was migrated from them).
    #[cfg(not(feature = "import-sqlite"))]
    let (mut found, in_database) = {
        let _ = databases;
        (Vec::new(), std::collections::HashSet::new())
    };
    if meta.is_file() && !is_database(path) {
        found.extend(files::discover_file(path)?.into_iter().map(|f| (f, None)));
    } else if meta.is_dir() {
        let storage = [path.join("storage"), path.to_owned()]
            .into_iter()
            .find(|dir| dir.join("session").is_dir());
        if let Some(storage) = storage {
            let sessions = files::discover(&storage, &in_database)?;
            found.extend(sessions.into_iter().map(|f| (f, None)));
        }
    }
    Ok(found)
}

/// An OpenCode database: `opencode.db`, or a channel's `opencode-<channel>.db`.
fn is_database(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name.starts_with("opencode") && name.ends_with(".db")
}

/// Every file a session of the JSON layout is read from now (its sessions', messages' and
/// parts' files), or the database and its write-ahead log.
pub(crate) fn paths(files: &SessionFiles, row: Option<&str>) -> Vec<PathBuf> {
    match (row, &files.main) {
        (Some(_), Some(db)) => vec![db.clone(), wal(db)],
        _ => files::paths(files),
    }
}

/// The stamps of what a session is read from now: its files'; for a database whose
/// write-ahead log is there (OpenCode running), also what the log has published to readers.
/// A writer appends a transaction to the log, syncs it, and only then publishes it in the
/// log's index: a stamp of the log taken in between already counts a transaction the read
/// after it does not see, and an import stamped so would never read that transaction.
pub(crate) fn stamps(files: &SessionFiles, row: Option<&str>) -> Vec<Stamp> {
    let paths = paths(files, row);
    let stamps = super::state::stamps(&paths);
    #[cfg(feature = "import-sqlite")]
    if let (Some(_), Some(db)) = (row, &files.main)
        && paths.get(1).is_some_and(|wal| wal.exists())
    {
        return stamps.into_iter().chain([sqlite::published(db)]).collect();
    }
    stamps
}

/// A database's write-ahead log, where what was written last is until it is checkpointed.
fn wal(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push("-wal");
    PathBuf::from(name)
}

/// The content hash of what a session is read from: its files', or its rows'.
pub(crate) fn content_hash(files: &SessionFiles, row: Option<&str>) -> Result<String, ImportError> {
    match (row, &files.main) {
        #[cfg(feature = "import-sqlite")]
        (Some(id), Some(db)) => sqlite::content_hash(db, id),
        _ => super::state::content_hash(&paths(files, row)).map_err(|source| ImportError::Io {
            path: files.main.clone().unwrap_or_default(),
            source,
        }),
    }
}

/// When a session last changed: the database's `time_updated`, or its files' times.
pub(crate) fn modified(files: &SessionFiles, row: Option<&str>) -> Option<std::time::SystemTime> {
    match (row, &files.main) {
        #[cfg(feature = "import-sqlite")]
        (Some(id), Some(db)) => sqlite::updated(db, id),
        _ => None,
    }
}

/// The working directory a session ran in: its `directory`.
pub(crate) fn cwd(files: &SessionFiles, row: Option<&str>) -> Option<PathBuf> {
    match (row, &files.main) {
        #[cfg(feature = "import-sqlite")]
        (Some(id), Some(db)) => sqlite::directory(db, id).map(PathBuf::from),
        (None, Some(main)) => files::directory(main).map(PathBuf::from),
        _ => None,
    }
}

/// Reads a session (and the sessions it spawned) and decides its runs.
pub(crate) fn plan(files: &SessionFiles, row: Option<&str>) -> Result<SessionPlan, ImportError> {
    let (sessions, format) = match (row, &files.main) {
        #[cfg(feature = "import-sqlite")]
        (Some(id), Some(db)) => {
            let (sessions, rows) = sqlite::read(db, id)?;
            let mut plan = plan_sessions(sessions, "opencode-db")?;
            let rows: std::rc::Rc<dyn feed::Records> = std::rc::Rc::new(rows);
            for run in &mut plan.runs {
                run.records = Some(rows.clone());
            }
            return Ok(plan);
        }
        #[cfg(not(feature = "import-sqlite"))]
        (Some(_), Some(db)) => {
            return Err(ImportError::NotASession {
                format: "OpenCode store this build can read",
                path: db.clone(),
                line: 0,
                offset: 0,
                reason: "an OpenCode database needs the `import-sqlite` feature".into(),
            });
        }
        _ => (files::read(files)?, "opencode-storage"),
    };
    plan_sessions(sessions, format)
}

/// The runs of a session tree, root first, each parent before the sessions it spawned.
fn plan_sessions(
    mut sessions: Vec<Stored>,
    format: &'static str,
) -> Result<SessionPlan, ImportError> {
    let root = sanitize(&sessions[0].id);
    let shared = format == "opencode-db";
    let total: u64 = sessions.iter().map(|s| s.pieces.fed.len() as u64).sum();
    let index: BTreeMap<&str, usize> = sessions
        .iter()
        .enumerate()
        .map(|(at, s)| (s.id.as_str(), at))
        .collect();
    // The task call that spawned each session, by the session's id: the first call naming it.
    let mut calls: BTreeMap<String, (usize, String, String)> = BTreeMap::new();
    for (at, session) in sessions.iter().enumerate() {
        for (child, call, name) in &session.pieces.calls {
            calls
                .entry(child.clone())
                .or_insert_with(|| (at, call.clone(), name.clone()));
        }
    }
    let mut runs = Vec::with_capacity(sessions.len());
    let mut parents = vec![None; sessions.len()];
    let mut notes = Vec::new();
    for (child, (by, call, _)) in &calls {
        if !index.contains_key(child.as_str()) {
            notes.push(Note {
                file: sessions[*by].source.clone(),
                line: 0,
                kind: NoteKind::MissingSubagent,
                message: format!(
                    "task call {call:?} spawned session {child:?}, which the store does not have"
                ),
            });
        }
    }
    for (at, session) in sessions.iter().enumerate() {
        let run_id = match at {
            0 => root.clone(),
            _ => format!("{root}.agent-{}", sanitize(&session.id)),
        };
        let mut run = RunPlan::new(run_id, Provider::OpenCode, session.source.clone());
        let thread = session.pieces.fed.len() as u64;
        let entries = if shared { total } else { thread };
        run.import = feed::account(format, &session.source, entries, thread);
        run.import.insert("kept_out".into(), json!({}));
        run.import
            .insert("session_id".into(), session.id.clone().into());
        for (key, value) in [
            ("cwd", &session.directory),
            ("title", &session.title),
            ("version", &session.version),
        ] {
            if let Some(value) = value {
                run.import.insert(key.into(), value.clone().into());
            }
        }
        if let Some(parent) = &session.parent {
            run.import
                .insert("parent_session".into(), parent.clone().into());
        }
        run.session_id = Some(session.id.clone());
        run.version.clone_from(&session.version);
        runs.push(run);
        if at > 0 {
            parents[at] = session
                .parent
                .as_deref()
                .and_then(|p| index.get(p).copied());
        }
    }
    for (run, session) in runs.iter_mut().zip(&mut sessions) {
        *run.feed_mut() = std::mem::take(&mut session.pieces.fed);
    }
    ids::unique(runs.iter_mut().map(|r| &mut r.run_id));
    let mut spawns: Vec<Vec<Spawn>> = runs.iter().map(|_| Vec::new()).collect();
    for (at, session) in sessions.iter().enumerate().skip(1) {
        let parent = parents[at].unwrap_or(0);
        parents[at] = Some(parent);
        let call = calls.get(&session.id).filter(|(by, ..)| *by == parent);
        if call.is_none() {
            notes.push(Note {
                file: sessions[parent].source.clone(),
                line: 0,
                kind: NoteKind::UnlinkedSubagent,
                message: format!(
                    "session {:?}: no task call of its parent names it; linked to the parent's end",
                    session.id
                ),
            });
        }
        spawns[parent].push(Spawn {
            call: call.map(|(_, call, _)| call.clone()),
            child: runs[at].run_id.clone(),
            name: call.map_or_else(|| "subagent".to_owned(), |(_, _, name)| name.clone()),
        });
    }
    Ok(SessionPlan {
        session_id: runs[0].run_id.clone(),
        runs,
        parents,
        spawns,
        notes,
    })
}

impl Pieces {
    /// Adds a session's next piece: the record it feeds, and its task calls that name the
    /// session they spawned.
    pub(super) fn push(&mut self, piece: Piece) {
        if let Piece::Message { parts, .. } = &piece {
            for part in parts {
                let tool = part.get("tool").and_then(Value::as_str).unwrap_or_default();
                self.call(tool, part);
            }
        }
        let n = self.fed.len();
        self.fed.push(fed(&piece, n));
    }

    /// Notes a part's task call that names the session it spawned.
    fn call(&mut self, tool: &str, part: &Value) {
        if classify(tool) != Some(ToolClass::SubAgent) {
            return;
        }
        let child = part
            .pointer("/state/metadata/sessionId")
            .and_then(Value::as_str);
        let call = part.get("callID").and_then(Value::as_str);
        if let (Some(child), Some(call)) = (child, call) {
            let input = part.pointer("/state/input").unwrap_or(&Value::Null);
            let name = subagent_name(tool, input).unwrap_or(tool);
            self.calls
                .push((child.to_owned(), call.to_owned(), name.to_owned()));
        }
    }

    /// A part (a JSON object) of the message being read, whose `tool` is `tool`: read whole
    /// only when that is a sub-agent's, for its call.
    #[cfg(feature = "import-sqlite")]
    pub(super) fn part(&mut self, tool: &str, data: &[u8]) {
        if classify(tool) == Some(ToolClass::SubAgent)
            && let Ok(part) = serde_json::from_slice::<Value>(data)
        {
            self.call(tool, &part);
        }
    }

    /// A message the `n`th record of the session's rows makes as it is fed, from its time.
    #[cfg(feature = "import-sqlite")]
    pub(super) fn fetched(&mut self, n: usize, created: Option<i64>) {
        let line = self.fed.len() as u64 + 1;
        let mut feed = Feed::at(What::Fetched(n), line, 0..0);
        feed.timestamp = created.map(|ms| Timestamp::from_unix_nanos(i128::from(ms) * 1_000_000));
        self.fed.push(feed);
    }

    /// A database row whose `data` is no JSON object: fed as it is, for the adapter to
    /// report (its parts, which have no message to go in, with it).
    #[cfg(feature = "import-sqlite")]
    pub(super) fn row(&mut self, bytes: Vec<u8>) {
        let line = self.fed.len() as u64 + 1;
        self.fed.push(Feed::at(What::Made(bytes), line, 0..0));
    }
}

/// What one piece feeds the adapter: the `message` record made of it, or the unreadable
/// file as it is. `n` is its place in the session, from 0.
fn fed(piece: &Piece, n: usize) -> Feed {
    match piece {
        Piece::Message { info, parts, file } => {
            let created = info.pointer("/time/created").and_then(Value::as_i64);
            let record = json!({
                "type": "message",
                "timestamp": created,
                "sessionID": info.get("sessionID"),
                "info": info,
                "parts": parts,
            });
            let (line, size) = match file {
                Some((_, size)) => (1, *size),
                None => (n as u64 + 1, 0),
            };
            let mut feed = Feed::made(&record, line, 0..size);
            feed.file = file.as_ref().map(|(path, _)| path.clone());
            feed.timestamp =
                created.map(|ms| Timestamp::from_unix_nanos(i128::from(ms) * 1_000_000));
            feed
        }
        Piece::Unreadable { file, bytes } => {
            // OpenCode writes its files indented: as one record, its line ends are the
            // spaces they stand for in JSON, so the adapter reports the file once.
            let one: Vec<u8> = bytes
                .iter()
                .map(|&b| if matches!(b, b'\n' | b'\r') { b' ' } else { b })
                .collect();
            let mut feed = Feed::at(What::Made(one), 1, 0..bytes.len());
            feed.file = Some(file.clone());
            feed
        }
    }
}
