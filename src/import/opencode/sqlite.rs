//! OpenCode's database (1.2 and later): `opencode.db`, tables `session`, `message` and
//! `part` (`packages/opencode/src/session/session.sql.ts`), the message's and part's JSON in
//! their `data` column without the ids the columns hold.
//!
//! Read-only (`SQLITE_OPEN_READ_ONLY`, not `immutable`: OpenCode may be writing it, in WAL
//! mode), one read transaction per session tree, so a session is read as one snapshot of
//! the database, never half of a write; a writer's lock is waited on (5 s) rather than
//! failed. The plan reads each row once, whole, for what it decides, and keeps the rows'
//! places ([`Rows`]); each message is read again as it is fed, in the same transaction,
//! kept open until the session is written. This room owns the queries; nothing is written
//! to the database.

use std::collections::HashSet;
use std::io;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};

use super::scan;
use super::stored::{Found, Pieces, Stored};
use crate::import::feed::Records;
use crate::import::session::{ImportError, SessionFiles};
use crate::import::state::{ContentHash, Stamp};

fn open(db: &Path) -> rusqlite::Result<Connection> {
    let connection = Connection::open_with_flags(
        db,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    connection.busy_timeout(Duration::from_secs(5))?;
    Ok(connection)
}

/// The version of the write-ahead log's index whose header [`published`] reads (SQLite's
/// since 3.7.0, `walformat.html`).
const WAL_INDEX_VERSION: u32 = 3_007_000;

/// What the write-ahead log of `db` has published to its readers, as the stamp of its
/// index, `db-shm`: the index's header (the log's salts, the number of its frames readers
/// may read and their checksum), which a writer rewrites as a transaction becomes visible
/// (and as the log starts over), never before. Kept twice, the copies written one after the other; a
/// header being rewritten (copies that differ), not initialized or of another version
/// says nothing, and gets a stamp no later one equals, so the session is hashed.
pub(super) fn published(db: &Path) -> Stamp {
    let mut name = db.as_os_str().to_owned();
    name.push("-shm");
    let path = std::path::PathBuf::from(name);
    let mut header = [0u8; 96];
    let read = std::fs::File::open(&path)
        .and_then(|mut file| io::Read::read_exact(&mut file, &mut header))
        .is_ok();
    let (first, second) = header.split_at(48);
    let version = u32::from_ne_bytes([first[0], first[1], first[2], first[3]]);
    let initialized = first[12] != 0;
    let published = if read && first == second && initialized && version == WAL_INDEX_VERSION {
        first.iter().map(|byte| format!("{byte:02x}")).collect()
    } else {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos();
        format!("unknown at {now} in {}", std::process::id())
    };
    Stamp {
        path,
        size: 0,
        mtime_ns: 0,
        published: Some(published),
    }
}

fn failed(db: &Path, error: rusqlite::Error) -> ImportError {
    ImportError::Io {
        path: db.to_owned(),
        source: io::Error::other(error),
    }
}

/// The root sessions of a database (no parent, or one the database does not have), by id;
/// every session's id put into `all`.
fn roots(db: &Path, all: &mut HashSet<String>) -> io::Result<Vec<String>> {
    let mut read = || -> rusqlite::Result<Vec<String>> {
        let connection = open(db)?;
        let mut statement = connection.prepare("SELECT id, parent_id FROM session ORDER BY id")?;
        let rows: Vec<(String, Option<String>)> = statement
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        let ids: HashSet<&str> = rows.iter().map(|(id, _)| id.as_str()).collect();
        let roots = rows
            .iter()
            .filter(|(_, parent)| parent.as_deref().is_none_or(|p| !ids.contains(p)))
            .map(|(id, _)| id.clone())
            .collect();
        all.extend(rows.into_iter().map(|(id, _)| id));
        Ok(roots)
    };
    read().map_err(|e| io::Error::other(format!("{}: {e}", db.display())))
}

/// The root sessions of `databases`, each its database and id, and every session id they
/// hold (whose files, if any are left from before the migration, are not read again).
pub(super) fn discover(databases: &[std::path::PathBuf]) -> io::Result<(Found, HashSet<String>)> {
    let mut found = Vec::new();
    let mut all = HashSet::new();
    for db in databases {
        for id in roots(db, &mut all)? {
            found.push((SessionFiles::alone(db.clone()), Some(id)));
        }
    }
    Ok((found, all))
}

/// A session's `directory`.
pub(super) fn directory(db: &Path, id: &str) -> Option<String> {
    let connection = open(db).ok()?;
    connection
        .query_row("SELECT directory FROM session WHERE id = ?1", [id], |row| {
            row.get(0)
        })
        .optional()
        .ok()
        .flatten()
}

/// When a session tree last changed: the latest `time_updated` of its sessions.
pub(super) fn updated(db: &Path, id: &str) -> Option<SystemTime> {
    let connection = open(db).ok()?;
    let millis: Option<i64> = connection
        .query_row(
            &format!("{TREE} SELECT max(time_updated) FROM session WHERE id IN tree"),
            [id],
            |row| row.get(0),
        )
        .ok()?;
    Some(UNIX_EPOCH + Duration::from_millis(u64::try_from(millis?).ok()?))
}

/// The ids of a session and every session below it.
const TREE: &str = "WITH RECURSIVE tree(id) AS (SELECT id FROM session WHERE id = ?1 \
    UNION SELECT session.id FROM session JOIN tree ON session.parent_id = tree.id)";

/// A session's row: the fields a run takes from it.
struct Head {
    id: String,
    parent: Option<String>,
    directory: Option<String>,
    version: Option<String>,
    title: Option<String>,
}

/// One row of what a session tree is read from, with its `rowid` (where it is read again).
enum Row<'a> {
    Session(Head),
    Message {
        rowid: i64,
        id: &'a str,
        data: &'a [u8],
    },
    Part {
        rowid: i64,
        id: &'a str,
        data: &'a [u8],
    },
}

/// A connection in a read transaction of its own: what it reads is one snapshot of the
/// database, whatever is written meanwhile, until it is dropped.
fn snapshot(db: &Path) -> rusqlite::Result<Connection> {
    let connection = open(db)?;
    connection.execute_batch("BEGIN")?;
    Ok(connection)
}

/// Walks a session tree in the read transaction `connection` is in: each session (parents
/// first), then its messages and their parts, in id order.
fn walk(connection: &Connection, id: &str, mut each: impl FnMut(Row<'_>)) -> rusqlite::Result<()> {
    let sessions: Vec<Head> = {
        let mut statement = connection.prepare(&format!(
            "{TREE} SELECT id, parent_id, directory, version, title FROM session \
             WHERE id IN tree ORDER BY time_created, id"
        ))?;
        statement
            .query_map([id], |row| {
                Ok(Head {
                    id: row.get(0)?,
                    parent: row.get(1)?,
                    directory: row.get(2)?,
                    version: row.get(3)?,
                    title: row.get(4)?,
                })
            })?
            .collect::<rusqlite::Result<_>>()?
    };
    // The root first, whatever its time; then each session after its parent.
    let mut ordered = Vec::with_capacity(sessions.len());
    let mut rest = sessions;
    let mut known = HashSet::new();
    if let Some(at) = rest.iter().position(|s| s.id == id) {
        let root = rest.remove(at);
        known.insert(root.id.clone());
        ordered.push(root);
    }
    while !rest.is_empty() {
        let before = rest.len();
        let mut later = Vec::new();
        for session in rest {
            if session.parent.as_ref().is_some_and(|p| known.contains(p)) {
                known.insert(session.id.clone());
                ordered.push(session);
            } else {
                later.push(session);
            }
        }
        if later.len() == before {
            ordered.extend(later);
            break;
        }
        rest = later;
    }
    let mut messages = connection
        .prepare("SELECT rowid, id, data FROM message WHERE session_id = ?1 ORDER BY id")?;
    // The parts are sorted by their ids alone, their data read by row once placed: SQLite
    // sorts what a query selects, and a session's parts are nearly all of its bytes (sorted
    // with them, they went through its sorter and its temporary files).
    let mut parts = connection.prepare(
        "SELECT rowid, message_id, id FROM part WHERE session_id = ?1 ORDER BY message_id, id",
    )?;
    let mut part_data = connection.prepare("SELECT data FROM part WHERE rowid = ?1")?;
    for head in ordered {
        let session = head.id.clone();
        each(Row::Session(head));
        let mut message_rows = messages.query(params![session])?;
        let mut part_rows = parts.query(params![session])?;
        let mut pending: Option<(i64, String, String)> = None;
        while let Some(row) = message_rows.next()? {
            let message: String = row.get(1)?;
            each(Row::Message {
                rowid: row.get(0)?,
                id: &message,
                data: text_bytes(row, 2)?,
            });
            // Its parts: those of the part rows, in message order, that name it.
            loop {
                if pending.is_none() {
                    pending = match part_rows.next()? {
                        Some(row) => Some((row.get(0)?, row.get(1)?, row.get(2)?)),
                        None => None,
                    };
                }
                match &pending {
                    Some((rowid, of, part)) if *of == message => {
                        part_data.query_row([rowid], |row| {
                            each(Row::Part {
                                rowid: *rowid,
                                id: part,
                                data: text_bytes(row, 0)?,
                            });
                            Ok(())
                        })?;
                        pending = None;
                    }
                    // A part of an earlier message the table no longer has: never shown.
                    Some((_, of, _)) if *of < message => pending = None,
                    _ => break,
                }
            }
        }
    }
    Ok(())
}

/// A text column's bytes (a JSON document).
fn text_bytes<'r>(row: &'r rusqlite::Row<'_>, at: usize) -> rusqlite::Result<&'r [u8]> {
    Ok(match row.get_ref(at)? {
        rusqlite::types::ValueRef::Text(bytes) | rusqlite::types::ValueRef::Blob(bytes) => bytes,
        _ => &[],
    })
}

/// The hash of every row a session tree is read from.
pub(super) fn content_hash(db: &Path, id: &str) -> Result<String, ImportError> {
    let mut hash = ContentHash::new();
    let connection = snapshot(db).map_err(|e| failed(db, e))?;
    walk(&connection, id, |row| match row {
        Row::Session(head) => {
            let Head {
                id,
                parent,
                directory,
                version,
                title,
            } = head;
            for field in [Some(id), parent, directory, version, title] {
                hash.write(field.as_deref().unwrap_or("\u{0}").as_bytes());
                hash.write(&[0]);
            }
        }
        Row::Message { id, data, .. } | Row::Part { id, data, .. } => {
            hash.write(id.as_bytes());
            hash.write(data);
            hash.write(&(data.len() as u64).to_le_bytes());
        }
    })
    .map_err(|e| failed(db, e))?;
    Ok(hash.finish())
}

/// Where a planned session tree's messages are read again, as they are fed: the
/// connection it was planned in, still in that read (so the records are made of the rows
/// the plan saw), and the rows of each message and of its parts.
pub(super) struct Rows {
    db: std::path::PathBuf,
    connection: Connection,
    /// The sessions' ids, by their place in the tree.
    sessions: Vec<String>,
    messages: Vec<Message>,
    /// The rows of the parts that go in their messages, message after message.
    parts: Vec<i64>,
}

/// A message to make into its record: its row, its session, its parts' rows (a range of
/// [`Rows::parts`]) and its time.
struct Message {
    rowid: i64,
    session: usize,
    parts: std::ops::Range<usize>,
    created: Option<i64>,
}

impl Records for Rows {
    /// The `message` record of a message and its parts (OpenCode's `MessageV2.WithParts`):
    /// each row's JSON as it is, the ids its columns hold added as its last members (a
    /// later member of a name wins, as the ids set on the tree did).
    fn fetch(&self, n: usize, out: &mut Vec<u8>) -> Result<(), ImportError> {
        let message = &self.messages[n];
        let session = &self.sessions[message.session];
        out.clear();
        out.extend_from_slice(b"{\"type\":\"message\",\"timestamp\":");
        match message.created {
            Some(ms) => out.extend_from_slice(itoa::Buffer::new().format(ms).as_bytes()),
            None => out.extend_from_slice(b"null"),
        }
        out.extend_from_slice(b",\"sessionID\":");
        string(out, session);
        out.extend_from_slice(b",\"info\":");
        let mut info = self
            .connection
            .prepare("SELECT id, data FROM message WHERE rowid = ?1")
            .map_err(|e| failed(&self.db, e))?;
        info.query_row([message.rowid], |row| {
            let id: String = row.get(0)?;
            object(
                out,
                text_bytes(row, 1)?,
                &[("id", &id), ("sessionID", session)],
            );
            Ok(())
        })
        .map_err(|e| failed(&self.db, e))?;
        out.extend_from_slice(b",\"parts\":[");
        let mut part = self
            .connection
            .prepare("SELECT id, message_id, data FROM part WHERE rowid = ?1")
            .map_err(|e| failed(&self.db, e))?;
        for (at, rowid) in self.parts[message.parts.clone()].iter().enumerate() {
            if at > 0 {
                out.push(b',');
            }
            part.query_row([rowid], |row| {
                let id: String = row.get(0)?;
                let of: String = row.get(1)?;
                let ids = [
                    ("id", id.as_str()),
                    ("messageID", &of),
                    ("sessionID", session),
                ];
                object(out, text_bytes(row, 2)?, &ids);
                Ok(())
            })
            .map_err(|e| failed(&self.db, e))?;
        }
        out.extend_from_slice(b"]}");
        Ok(())
    }
}

/// A JSON object's text (as the plan read it: an object) with `members` added last.
fn object(out: &mut Vec<u8>, data: &[u8], members: &[(&str, &str)]) {
    let json_space = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
    let start = data.iter().position(|b| !json_space(b)).unwrap_or(0);
    let end = data
        .iter()
        .rposition(|b| !json_space(b))
        .map_or(0, |at| at + 1);
    // `{` ... `}`, the closing brace left off.
    let open = &data[start..end.saturating_sub(1).max(start)];
    out.extend_from_slice(open);
    let empty = open.iter().skip(1).all(json_space);
    for (at, (name, value)) in members.iter().enumerate() {
        if at > 0 || !empty {
            out.push(b',');
        }
        string(out, name);
        out.push(b':');
        string(out, value);
    }
    out.push(b'}');
}

/// A JSON string.
fn string(out: &mut Vec<u8>, text: &str) {
    serde_json::to_writer(&mut *out, text).expect("a string serializes into a Vec");
}

/// The message read last, whose parts are still to come: its row, its time, where its
/// parts start in [`Rows::parts`], and the rows of its parts that are no JSON object (fed
/// after it).
struct Open {
    rowid: i64,
    created: Option<i64>,
    parts: usize,
    rows: Vec<Vec<u8>>,
}

/// What a session tree's plan has read so far: its sessions, and the rows its messages
/// are made of.
#[derive(Default)]
struct Planning {
    sessions: Vec<Stored>,
    messages: Vec<Message>,
    parts: Vec<i64>,
    /// The message read last, its parts still to come.
    open: Option<Open>,
}

impl Planning {
    /// Adds the message read last, its parts all read, to the session it is in.
    fn close(&mut self) {
        let at = self.sessions.len().saturating_sub(1);
        if let (Some(open), Some(session)) = (self.open.take(), self.sessions.last_mut()) {
            self.messages.push(Message {
                rowid: open.rowid,
                session: at,
                parts: open.parts..self.parts.len(),
                created: open.created,
            });
            session
                .pieces
                .fetched(self.messages.len() - 1, open.created);
            open.rows
                .into_iter()
                .for_each(|row| session.pieces.row(row));
        }
    }

    fn row(&mut self, row: Row<'_>, db: &Path) {
        match row {
            Row::Session(head) => {
                self.close();
                self.sessions.push(Stored {
                    id: head.id,
                    parent: head.parent,
                    directory: head.directory,
                    version: head.version,
                    title: head.title,
                    source: db.to_owned(),
                    pieces: Pieces::default(),
                });
            }
            Row::Message { rowid, data, .. } => {
                self.close();
                let session = self
                    .sessions
                    .last_mut()
                    .expect("a message's session came first");
                match scan::message(data) {
                    Some(created) => {
                        self.open = Some(Open {
                            rowid,
                            created,
                            parts: self.parts.len(),
                            rows: Vec::new(),
                        });
                    }
                    None => session.pieces.row(data.to_vec()),
                }
            }
            Row::Part { rowid, data, .. } => {
                let session = self
                    .sessions
                    .last_mut()
                    .expect("a part's session came first");
                let Some(open) = self.open.as_mut() else {
                    // Its message's row is no JSON object: fed beside it, as it is.
                    session.pieces.row(data.to_vec());
                    return;
                };
                match scan::part(data) {
                    Some(tool) => {
                        session
                            .pieces
                            .part(tool.as_deref().unwrap_or_default(), data);
                        self.parts.push(rowid);
                    }
                    None => open.rows.push(data.to_vec()),
                }
            }
        }
    }
}

/// Plans a session tree: root first, each session after the one that spawned it. Each
/// message is planned as its place ([`What::Fetched`](crate::import::feed::What::Fetched)),
/// made into its record as it is fed, by the [`Rows`] returned, in the read this plan was
/// made in: what is held is the rows' numbers, not their bytes. The plan reads of each row
/// only whether it is a JSON object, a message's time and a part's tool (a sub-agent's
/// call is read whole).
pub(super) fn read(db: &Path, id: &str) -> Result<(Vec<Stored>, Rows), ImportError> {
    let connection = snapshot(db).map_err(|e| failed(db, e))?;
    let mut planning = Planning::default();
    walk(&connection, id, |row| planning.row(row, db)).map_err(|e| failed(db, e))?;
    planning.close();
    let Planning {
        sessions,
        messages,
        parts,
        ..
    } = planning;
    if sessions.is_empty() {
        return Err(ImportError::NotASession {
            format: "OpenCode session",
            path: db.to_owned(),
            line: 0,
            offset: 0,
            reason: format!("the database has no session {id:?}"),
        });
    }
    let rows = Rows {
        db: db.to_owned(),
        connection,
        sessions: sessions.iter().map(|s| s.id.clone()).collect(),
        messages,
        parts,
    };
    Ok((sessions, rows))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::feed::What;
    use serde_json::Value;

    /// A part row that is no JSON is fed right after its message, whose later parts still
    /// go into it; each message made into its record as its parts end.
    #[test]
    fn a_part_row_that_is_no_json_follows_its_message_whose_later_parts_stay_in_it() {
        let dir = std::env::temp_dir().join(format!("axt-opencode-rows-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let db = dir.join("opencode.db");
        let _ = std::fs::remove_file(&db);
        let connection = Connection::open(&db).unwrap();
        connection
            .execute_batch(
                "CREATE TABLE session (id text, parent_id text, directory text, version text, \
                   title text, time_created integer, time_updated integer);
                 CREATE TABLE message (id text, session_id text, data text);
                 CREATE TABLE part (id text, message_id text, session_id text, data text);
                 INSERT INTO session VALUES ('ses_a', NULL, '/w', '1.2', 't', 1, 2);
                 INSERT INTO message VALUES ('msg_1', 'ses_a', '{\"role\":\"user\"}');
                 INSERT INTO message VALUES ('msg_2', 'ses_a', '{\"role\":\"assistant\"}');
                 INSERT INTO part VALUES ('prt_1', 'msg_1', 'ses_a', '{\"type\":\"text\"}');
                 INSERT INTO part VALUES ('prt_2', 'msg_1', 'ses_a', '{\"type\":');
                 INSERT INTO part VALUES ('prt_3', 'msg_1', 'ses_a', '{\"type\":\"file\"}');
                 INSERT INTO part VALUES ('prt_4', 'msg_2', 'ses_a', '{\"type\":\"text\"}');",
            )
            .unwrap();
        drop(connection);
        let (sessions, rows) = read(&db, "ses_a").unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let fed: Vec<(u64, Value)> = sessions[0]
            .pieces
            .fed
            .iter()
            .map(|feed| (feed.line, record(&rows, &feed.what)))
            .collect();
        let types = |record: &Value| -> Vec<String> {
            record["parts"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p["type"].as_str().unwrap().to_owned())
                .collect()
        };
        assert_eq!(fed.len(), 3);
        assert_eq!(fed[0].0, 1);
        assert_eq!(fed[0].1["info"]["id"], "msg_1");
        assert_eq!(types(&fed[0].1), ["text", "file"]);
        assert_eq!(fed[1], (2, Value::String("{\"type\":".into())));
        assert_eq!(fed[2].0, 3);
        assert_eq!(fed[2].1["info"]["id"], "msg_2");
        assert_eq!(types(&fed[2].1), ["text"]);
    }

    /// What a feed gives the adapter: its record as JSON, or its bytes as a string.
    fn record(rows: &Rows, what: &What) -> Value {
        let bytes = match what {
            What::Made(bytes) => bytes.clone(),
            What::Fetched(n) => {
                let mut out = Vec::new();
                rows.fetch(*n, &mut out).unwrap();
                out
            }
            _ => panic!("a database's records are made or fetched"),
        };
        serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()))
    }

    /// A message's record, made of its rows as they are (the ids added last), is the tree
    /// the importer made before of the same rows (the ids set on each row's tree), whatever
    /// the rows' spacing, escapes, order of members and members named as the ids; and it is
    /// made of the rows as the plan saw them, whatever is written to the database after.
    #[test]
    fn a_message_is_made_of_the_rows_the_plan_read_as_its_tree_was() {
        let dir = std::env::temp_dir().join(format!("axt-opencode-made-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let db = dir.join("opencode.db");
        let _ = std::fs::remove_file(&db);
        let infos = [
            r#"{"role":"user","time":{"created":1700000000000}}"#,
            r#" {"id":"old","sessionID":"x","role":"assistant","time":{"created":1.5}}	"#,
            r#"{}"#,
            "\n{ }\r\n",
            r#"{"r\u006fle":"user","s":"\ud83d\ude00\"\\","n":[1e2,-0,12345678901234567890]}"#,
        ];
        let parts = [
            r#"{"type":"text","text":"a\u00e9\n","id":"x","messageID":"y"}"#,
            r#"{}"#,
            r#" { "type" : "tool", "tool" : "bash", "state" : { "input" : { } } } "#,
        ];
        let connection = Connection::open(&db).unwrap();
        connection
            .execute_batch(
                "PRAGMA journal_mode = WAL;
                 CREATE TABLE session (id text, parent_id text, directory text, version text, \
                   title text, time_created integer, time_updated integer);
                 CREATE TABLE message (id text, session_id text, data text);
                 CREATE TABLE part (id text, message_id text, session_id text, data text);
                 INSERT INTO session VALUES ('ses_a', NULL, '/w', '1.2', 't', 1, 2);",
            )
            .unwrap();
        for (m, info) in infos.iter().enumerate() {
            let message = format!("msg_{m}");
            connection
                .execute(
                    "INSERT INTO message VALUES (?1, 'ses_a', ?2)",
                    params![message, info],
                )
                .unwrap();
            for (p, part) in parts.iter().enumerate() {
                connection
                    .execute(
                        "INSERT INTO part VALUES (?1, ?2, 'ses_a', ?3)",
                        params![format!("prt_{m}_{p}"), message, part],
                    )
                    .unwrap();
            }
        }
        let (sessions, rows) = read(&db, "ses_a").unwrap();
        // Written after the plan: not in what it feeds.
        connection
            .execute_batch(
                "UPDATE part SET data = '{\"type\":\"text\",\"text\":\"later\"}';
                 DELETE FROM message WHERE id = 'msg_1';",
            )
            .unwrap();
        let fed: Vec<Value> = sessions[0]
            .pieces
            .fed
            .iter()
            .map(|feed| record(&rows, &feed.what))
            .collect();
        drop((rows, connection));
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(fed.len(), infos.len());
        for (m, (info, record)) in infos.iter().zip(&fed).enumerate() {
            // The importer's tree before: each row's tree, its ids set.
            let mut info: Value = serde_json::from_slice(info.as_bytes()).unwrap();
            info["id"] = format!("msg_{m}").into();
            info["sessionID"] = "ses_a".into();
            let parts: Vec<Value> = parts
                .iter()
                .enumerate()
                .map(|(p, part)| {
                    let mut part: Value = serde_json::from_str(part).unwrap();
                    part["id"] = format!("prt_{m}_{p}").into();
                    part["messageID"] = format!("msg_{m}").into();
                    part["sessionID"] = "ses_a".into();
                    part
                })
                .collect();
            let created = info.pointer("/time/created").and_then(Value::as_i64);
            let tree = serde_json::json!({
                "type": "message",
                "timestamp": created,
                "sessionID": info.get("sessionID"),
                "info": info,
                "parts": parts,
            });
            assert_eq!(record, &tree);
        }
    }
}
