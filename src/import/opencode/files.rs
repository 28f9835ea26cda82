//! OpenCode's JSON files (0.5 to 1.1): `storage/session/<project>/<session>.json`,
//! `storage/message/<session>/<message>.json`, `storage/part/<message>/<part>.json`.
//!
//! This room owns finding the session trees among the session files and reading a tree's
//! messages and parts; what they mean is the folder's and the adapter's.

use std::collections::{BTreeMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::stored::{Piece, Pieces, Stored};
use crate::import::session::{ImportError, SessionFiles};

/// A session file's id (its name) and `parentID`.
fn head(path: &Path) -> (String, Option<String>) {
    let id = path
        .file_stem()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    let parent = read_json(path)
        .ok()
        .and_then(|v| v.get("parentID").and_then(Value::as_str).map(str::to_owned));
    (id, parent)
}

fn read_json(path: &Path) -> io::Result<Value> {
    let bytes = std::fs::read(path)?;
    serde_json::from_slice(&bytes).map_err(io::Error::other)
}

/// The JSON files of one directory, sorted by name (OpenCode's ids ascend in time).
pub(crate) fn json_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json") && p.is_file())
        .collect();
    files.sort();
    files
}

/// The session trees of `storage/`: each root session (one without a `parentID`, or whose
/// parent is not there) with every session below it; those `skip` names (in a database)
/// left out.
pub(super) fn discover(storage: &Path, skip: &HashSet<String>) -> io::Result<Vec<SessionFiles>> {
    let mut heads = Vec::new();
    for project in std::fs::read_dir(storage.join("session"))? {
        let project = project?.path();
        if project.is_dir() {
            for file in json_files(&project) {
                let (id, parent) = head(&file);
                if !skip.contains(&id) {
                    heads.push((file, id, parent));
                }
            }
        }
    }
    Ok(trees(heads))
}

/// The session tree a session file roots (a spawned session's file: its tree from it down).
pub(super) fn discover_file(path: &Path) -> io::Result<Vec<SessionFiles>> {
    std::fs::metadata(path)?;
    let sessions = path
        .parent()
        .and_then(Path::parent)
        .unwrap_or(Path::new(""));
    let mut heads = Vec::new();
    for project in std::fs::read_dir(sessions)? {
        for file in json_files(&project?.path()) {
            let (id, parent) = head(&file);
            let parent = parent.filter(|_| file != path);
            heads.push((file, id, parent));
        }
    }
    let mut found = trees(heads);
    found.retain(|tree| tree.main.as_deref() == Some(path));
    Ok(found)
}

/// Groups session heads into trees: `main` the root's file, `subagents` every descendant's,
/// sorted.
fn trees(heads: Vec<(PathBuf, String, Option<String>)>) -> Vec<SessionFiles> {
    let ids: HashSet<&str> = heads.iter().map(|(_, id, _)| id.as_str()).collect();
    let mut children: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    let mut roots = Vec::new();
    for (at, (_, _, parent)) in heads.iter().enumerate() {
        match parent.as_deref().filter(|p| ids.contains(p)) {
            Some(parent) => children.entry(parent).or_default().push(at),
            None => roots.push(at),
        }
    }
    let mut found: Vec<SessionFiles> = roots
        .into_iter()
        .map(|root| {
            let mut below = Vec::new();
            let mut todo = vec![root];
            let mut seen = HashSet::from([root]);
            while let Some(at) = todo.pop() {
                for &child in children.get(heads[at].1.as_str()).into_iter().flatten() {
                    if seen.insert(child) {
                        below.push(heads[child].0.clone());
                        todo.push(child);
                    }
                }
            }
            below.sort();
            SessionFiles {
                main: Some(heads[root].0.clone()),
                subagents: below,
            }
        })
        .collect();
    found.sort_by(|a, b| a.main.cmp(&b.main));
    found
}

/// `storage/` of a session file (`storage/session/<project>/<id>.json`).
fn storage_of(session_file: &Path) -> PathBuf {
    session_file
        .ancestors()
        .nth(3)
        .map(Path::to_owned)
        .unwrap_or_default()
}

/// Every file a session tree is read from now.
pub(super) fn paths(files: &SessionFiles) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    for session in files.main.iter().chain(&files.subagents) {
        paths.push(session.clone());
        let storage = storage_of(session);
        let id = session.file_stem().unwrap_or_default();
        for message in json_files(&storage.join("message").join(id)) {
            let parts = json_files(
                &storage
                    .join("part")
                    .join(message.file_stem().unwrap_or_default()),
            );
            paths.push(message);
            paths.extend(parts);
        }
    }
    paths
}

/// A session file's `directory`.
pub(super) fn directory(session_file: &Path) -> Option<String> {
    read_json(session_file)
        .ok()?
        .get("directory")?
        .as_str()
        .map(str::to_owned)
}

/// Reads a session tree, root first, each parent before the sessions it spawned.
pub(super) fn read(files: &SessionFiles) -> Result<Vec<Stored>, ImportError> {
    let main = files.main.as_deref().unwrap_or(Path::new(""));
    let root = read_session(main, true)?;
    let mut sessions = vec![root];
    let mut rest = Vec::new();
    for file in &files.subagents {
        rest.push(read_session(file, false)?);
    }
    // Parents first: a session goes after the one that spawned it.
    while !rest.is_empty() {
        let known: HashSet<String> = sessions.iter().map(|s| s.id.clone()).collect();
        let (ready, later): (Vec<Stored>, Vec<Stored>) = rest
            .into_iter()
            .partition(|s| s.parent.as_ref().is_none_or(|p| known.contains(p)));
        if ready.is_empty() {
            sessions.extend(later);
            break;
        }
        sessions.extend(ready);
        rest = later;
    }
    Ok(sessions)
}

/// One session file and its messages and parts.
fn read_session(file: &Path, root: bool) -> Result<Stored, ImportError> {
    let io = |source| ImportError::Io {
        path: file.to_owned(),
        source,
    };
    let bytes = std::fs::read(file).map_err(io)?;
    let session: Value = match serde_json::from_slice(&bytes) {
        Ok(value @ Value::Object(_)) => value,
        _ if root => {
            return Err(ImportError::NotASession {
                format: "OpenCode session file",
                path: file.to_owned(),
                line: 0,
                offset: 0,
                reason: match bytes.len() {
                    0 => "the file is empty".into(),
                    _ => "the file is no JSON object".into(),
                },
            });
        }
        _ => Value::Null,
    };
    let text = |key: &str| session.get(key).and_then(Value::as_str).map(str::to_owned);
    let id = file
        .file_stem()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    let storage = storage_of(file);
    let mut pieces = Pieces::default();
    for message in json_files(&storage.join("message").join(&id)) {
        let bytes = std::fs::read(&message).map_err(|source| ImportError::Io {
            path: message.clone(),
            source,
        })?;
        let Ok(mut info @ Value::Object(_)) = serde_json::from_slice::<Value>(&bytes) else {
            pieces.push(Piece::Unreadable {
                file: message,
                bytes,
            });
            continue;
        };
        let message_id = message
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        // The ids are the files' names (OpenCode's own migration reads them so).
        info["id"] = message_id.clone().into();
        info["sessionID"] = id.clone().into();
        let mut parts = Vec::new();
        let mut unreadable = Vec::new();
        for part in json_files(&storage.join("part").join(&message_id)) {
            let bytes = std::fs::read(&part).map_err(|source| ImportError::Io {
                path: part.clone(),
                source,
            })?;
            match serde_json::from_slice::<Value>(&bytes) {
                Ok(value @ Value::Object(_)) => parts.push(value),
                _ => unreadable.push(Piece::Unreadable { file: part, bytes }),
            }
        }
        pieces.push(Piece::Message {
            info,
            parts,
            file: Some((message, bytes.len())),
        });
        unreadable.into_iter().for_each(|piece| pieces.push(piece));
    }
    Ok(Stored {
        parent: text("parentID"),
        directory: text("directory"),
        version: text("version"),
        title: text("title"),
        id,
        source: file.to_owned(),
        pieces,
    })
}
