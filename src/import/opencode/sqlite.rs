//! OpenCode's database (1.2 and later): `opencode.db`, tables `session`, `message` and
//! `part` (`packages/opencode/src/session/session.sql.ts`), the message's and part's JSON in
//! their `data` column without the ids the columns hold.
//!
//! Read-only (`SQLITE_OPEN_READ_ONLY`, not `immutable`: OpenCode may be writing it, in WAL
//! mode), one read transaction per session tree, so a session is read as one snapshot of
//! the database, never half of a write; a writer's lock is waited on (5 s) rather than
//! failed. This room owns the queries; nothing is written to the database.

use std::collections::HashSet;
use std::io;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};
use serde_json::Value;

use super::stored::{Found, Piece, Pieces, Stored};
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

/// One row of what a session tree is read from.
enum Row<'a> {
    Session(Head),
    Message {
        id: &'a str,
        data: &'a [u8],
    },
    Part {
        message: &'a str,
        id: &'a str,
        data: &'a [u8],
    },
}

/// Walks a session tree in one read transaction: each session (parents first), then its
/// messages and their parts, in id order.
fn walk(db: &Path, id: &str, mut each: impl FnMut(Row<'_>)) -> rusqlite::Result<()> {
    let mut connection = open(db)?;
    let transaction = connection.transaction()?;
    let sessions: Vec<Head> = {
        let mut statement = transaction.prepare(&format!(
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
    let mut messages =
        transaction.prepare("SELECT id, data FROM message WHERE session_id = ?1 ORDER BY id")?;
    let mut parts = transaction.prepare(
        "SELECT message_id, id, data FROM part WHERE session_id = ?1 ORDER BY message_id, id",
    )?;
    for head in ordered {
        let session = head.id.clone();
        each(Row::Session(head));
        let mut message_rows = messages.query(params![session])?;
        let mut part_rows = parts.query(params![session])?;
        let mut pending: Option<(String, String, Vec<u8>)> = None;
        while let Some(row) = message_rows.next()? {
            let message: String = row.get(0)?;
            let data = text_bytes(row, 1)?;
            each(Row::Message {
                id: &message,
                data: &data,
            });
            // Its parts: those of the part rows, in message order, that name it.
            loop {
                if pending.is_none() {
                    pending = match part_rows.next()? {
                        Some(row) => Some((row.get(0)?, row.get(1)?, text_bytes(row, 2)?)),
                        None => None,
                    };
                }
                match &pending {
                    Some((of, part, data)) if *of == message => {
                        each(Row::Part {
                            message: of,
                            id: part,
                            data,
                        });
                        pending = None;
                    }
                    // A part of an earlier message the table no longer has: never shown.
                    Some((of, ..)) if *of < message => pending = None,
                    _ => break,
                }
            }
        }
    }
    Ok(())
}

/// A text column's bytes (a JSON document).
fn text_bytes(row: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<Vec<u8>> {
    Ok(match row.get_ref(at)? {
        rusqlite::types::ValueRef::Text(bytes) | rusqlite::types::ValueRef::Blob(bytes) => {
            bytes.to_vec()
        }
        _ => Vec::new(),
    })
}

/// The hash of every row a session tree is read from.
pub(super) fn content_hash(db: &Path, id: &str) -> Result<String, ImportError> {
    let mut hash = ContentHash::new();
    walk(db, id, |row| match row {
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
        Row::Message { id, data } | Row::Part { id, data, .. } => {
            hash.write(id.as_bytes());
            hash.write(data);
            hash.write(&(data.len() as u64).to_le_bytes());
        }
    })
    .map_err(|e| failed(db, e))?;
    Ok(hash.finish())
}

/// A message read, whose parts are still to come: its id, its info, its parts, and the
/// rows of its parts that are no JSON (fed after it).
type Open = (String, Value, Vec<Value>, Vec<Piece>);

/// Adds the message read last, its parts all read, to the session it is in.
fn close(sessions: &mut [Stored], open: &mut Option<Open>) {
    if let (Some((_, info, parts, rows)), Some(session)) = (open.take(), sessions.last_mut()) {
        session.pieces.push(Piece::Message {
            info,
            parts,
            file: None,
        });
        rows.into_iter().for_each(|row| session.pieces.push(row));
    }
}

/// Reads a session tree: root first, each session after the one that spawned it. Each
/// message is made into its record once its parts are read, so a session is never held
/// as parsed JSON.
pub(super) fn read(db: &Path, id: &str) -> Result<Vec<Stored>, ImportError> {
    let mut sessions: Vec<Stored> = Vec::new();
    let mut open: Option<Open> = None;
    walk(db, id, |row| match row {
        Row::Session(head) => {
            close(&mut sessions, &mut open);
            sessions.push(Stored {
                id: head.id,
                parent: head.parent,
                directory: head.directory,
                version: head.version,
                title: head.title,
                source: db.to_owned(),
                pieces: Pieces::default(),
            });
        }
        Row::Message { id, data } => {
            close(&mut sessions, &mut open);
            let session = sessions.last_mut().expect("a message's session came first");
            match serde_json::from_slice::<Value>(data) {
                Ok(mut info @ Value::Object(_)) => {
                    info["id"] = id.into();
                    info["sessionID"] = session.id.clone().into();
                    open = Some((id.to_owned(), info, Vec::new(), Vec::new()));
                }
                _ => session.pieces.push(Piece::Row(data.to_vec())),
            }
        }
        Row::Part {
            message: of,
            id,
            data,
        } => {
            let session = sessions.last_mut().expect("a part's session came first");
            let Some((message, _, parts, rows)) = open.as_mut() else {
                // Its message's row is no JSON: fed beside it, as it is.
                session.pieces.push(Piece::Row(data.to_vec()));
                return;
            };
            match serde_json::from_slice::<Value>(data) {
                Ok(mut part @ Value::Object(_)) if message == of => {
                    part["id"] = id.into();
                    part["messageID"] = of.into();
                    part["sessionID"] = session.id.clone().into();
                    parts.push(part);
                }
                _ => rows.push(Piece::Row(data.to_vec())),
            }
        }
    })
    .map_err(|e| failed(db, e))?;
    close(&mut sessions, &mut open);
    if sessions.is_empty() {
        return Err(ImportError::NotASession {
            format: "OpenCode session",
            path: db.to_owned(),
            line: 0,
            offset: 0,
            reason: format!("the database has no session {id:?}"),
        });
    }
    Ok(sessions)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::feed::What;

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
        let sessions = read(&db, "ses_a").unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let fed: Vec<(u64, Value)> = sessions[0]
            .pieces
            .fed
            .iter()
            .map(|feed| match &feed.what {
                What::Made(bytes) => (
                    feed.line,
                    serde_json::from_slice(bytes).unwrap_or_else(|_| {
                        Value::String(String::from_utf8_lossy(bytes).into_owned())
                    }),
                ),
                _ => panic!("a database's records are made"),
            })
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
}
