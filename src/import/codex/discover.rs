//! Finding Codex sessions: every rollout file under a path, grouped by the thread at the
//! top of its parent chain, so that a session is its root thread and every thread below it.
//!
//! This room owns the layout and the first `session_meta` of each file (where a thread
//! names its parent); it reads nothing else.

use std::collections::{BTreeMap, HashMap};
use std::io::{self, BufRead};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::import::entries::files_under;
use crate::import::session::SessionFiles;

/// What a thread's first `session_meta` says of it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Head {
    pub(crate) id: String,
    pub(crate) parent: Option<String>,
    pub(crate) cwd: Option<String>,
    pub(crate) cli_version: Option<String>,
    pub(crate) originator: Option<String>,
    /// `source`: `cli`, `exec`, `vscode`, `{"subagent": ...}`.
    pub(crate) source: Value,
    pub(crate) forked_from: Option<String>,
    /// The 0-based index of the thread's first own record, when it starts with a copy of
    /// another's.
    pub(crate) own_from: Option<u64>,
    pub(crate) nickname: Option<String>,
    pub(crate) role: Option<String>,
    /// The line of the `session_meta` (1-based).
    pub(crate) line: u64,
}

#[derive(Deserialize)]
struct Line {
    #[serde(rename = "type")]
    kind: Option<String>,
    payload: Option<Meta>,
}

#[derive(Deserialize)]
struct Meta {
    id: Option<String>,
    parent_thread_id: Option<String>,
    cwd: Option<String>,
    cli_version: Option<String>,
    originator: Option<String>,
    #[serde(default)]
    source: Value,
    forked_from_id: Option<String>,
    subagent_history_start_ordinal: Option<u64>,
    forked_from_ordinal_exclusive: Option<u64>,
    #[serde(default)]
    history_base: Value,
    agent_nickname: Option<String>,
    agent_role: Option<String>,
}

/// The first `session_meta` among a file's first lines; `None` for a file that has none
/// (no rollout of a current Codex).
pub(crate) fn head(path: &Path) -> Option<Head> {
    let file = std::fs::File::open(path).ok()?;
    let reader = io::BufReader::new(file);
    for (at, line) in reader.split(b'\n').take(8).enumerate() {
        let line = line.ok()?;
        let Ok(line) = serde_json::from_slice::<Line>(&line) else {
            continue;
        };
        if line.kind.as_deref() != Some("session_meta") {
            continue;
        }
        let meta = line.payload?;
        let spawn = meta.source.pointer("/subagent/thread_spawn");
        let text = |key: &str| spawn.and_then(|s| s.get(key)?.as_str()).map(str::to_owned);
        return Some(Head {
            id: meta.id?,
            parent: meta.parent_thread_id.or_else(|| text("parent_thread_id")),
            cwd: meta.cwd,
            cli_version: meta.cli_version,
            originator: meta.originator,
            forked_from: meta.forked_from_id,
            own_from: meta
                .subagent_history_start_ordinal
                .or_else(|| meta.history_base.get("end_ordinal_exclusive")?.as_u64())
                .or(meta.forked_from_ordinal_exclusive),
            nickname: meta.agent_nickname.or_else(|| text("agent_nickname")),
            role: meta.agent_role.or_else(|| text("agent_role")),
            source: meta.source,
            line: at as u64 + 1,
        });
    }
    None
}

/// The sessions under `path` (a rollout file, or a directory searched recursively): each a
/// root thread's file and its descendants' (`main` is `None` for threads whose root's file
/// is not there). Sorted.
pub(crate) fn discover(path: &Path) -> io::Result<Vec<SessionFiles>> {
    let meta = std::fs::metadata(path)?;
    let mut files = Vec::new();
    if meta.is_file() {
        files.push(path.to_owned());
    } else {
        files_under(path, &mut files);
        files.retain(|f| f.extension().is_some_and(|e| e == "jsonl"));
        files.sort();
    }
    let mut heads: HashMap<String, (PathBuf, Option<String>)> = HashMap::new();
    let mut headless = Vec::new();
    for file in &files {
        match head(file) {
            // A thread id seen twice (a copied file): the first file keeps it.
            Some(head) => {
                heads
                    .entry(head.id)
                    .or_insert_with(|| (file.clone(), head.parent));
            }
            None => headless.push(file.clone()),
        }
    }
    // The top of each thread's parent chain among the files found.
    let top = |id: &str| {
        let mut at = id;
        let mut steps = 0;
        while let Some(parent) = heads.get(at).and_then(|(_, p)| p.as_deref())
            && heads.contains_key(parent)
            && steps < heads.len()
        {
            at = parent;
            steps += 1;
        }
        at.to_owned()
    };
    let mut sessions: BTreeMap<String, SessionFiles> = BTreeMap::new();
    for (id, (file, parent)) in &heads {
        let root = top(id);
        // Threads whose chain ends at a parent with no file here are one session: the
        // missing parent's.
        let key = match heads.get(&root).and_then(|(_, p)| p.clone()) {
            Some(missing) => missing,
            None => root.clone(),
        };
        let session = sessions.entry(key).or_insert(SessionFiles {
            main: None,
            subagents: Vec::new(),
        });
        // The root's file is the session's, unless the root is itself a sub-agent whose
        // parent's file is not here: then every file of the chain is an agent's.
        if *id == root && parent.is_none() {
            session.main = Some(file.clone());
        } else {
            session.subagents.push(file.clone());
        }
    }
    let mut found: Vec<SessionFiles> = sessions.into_values().collect();
    found.extend(headless.into_iter().map(|file| SessionFiles {
        main: Some(file),
        subagents: Vec::new(),
    }));
    for session in &mut found {
        session.subagents.sort();
    }
    found.sort_by(|a, b| (&a.main, &a.subagents).cmp(&(&b.main, &b.subagents)));
    Ok(found)
}
