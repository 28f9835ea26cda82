//! Finding sessions: which files under a path are session logs, and which agent logs
//! belong to which session, in the three layouts (in-file sidechains, `subagents/` at any
//! depth, the seed's `transcripts/`).
//!
//! This file owns the layouts, by path alone: it opens no log.

use std::collections::{BTreeMap, HashMap};
use std::io;
use std::path::{Path, PathBuf};

use crate::import::entries::files_under;
use crate::import::session::SessionFiles;

/// Files Claude Code keeps in `~/.claude` beside its session logs that are no session log,
/// by name, and what each is: skipped with a note rather than refused as a failed session.
const NOT_SESSION_LOGS: &[(&str, &str)] = &[(
    "history.jsonl",
    "Claude Code's prompt history (every prompt typed, across sessions), not a session log",
)];

/// A file under the path given that is no session log, known by its name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// The file.
    pub file: PathBuf,
    /// What it is instead.
    pub what: &'static str,
}

/// The sessions under `path`: a session file, a project directory, or the whole projects
/// directory (searched recursively). Sub-agent logs are attached to their session; agent
/// logs without a session log (`<session>/transcripts/*.jsonl`, or `<session>/subagents/`
/// beside no `<session>.jsonl`) make one session per `<session>` directory. Sorted.
pub fn discover(path: &Path) -> io::Result<Vec<SessionFiles>> {
    discover_skipping(path).map(|(sessions, _)| sessions)
}

/// [`discover`], and the files it left out because their names say they are no session
/// log (`~/.claude/history.jsonl`), so that a caller can say so.
pub fn discover_skipping(path: &Path) -> io::Result<(Vec<SessionFiles>, Vec<Skipped>)> {
    let meta = std::fs::metadata(path)?;
    let mut files = Vec::new();
    if meta.is_file() {
        files.push(path.to_owned());
        // A session file given alone still brings its sub-agents.
        let dir = path.with_extension("").join("subagents");
        files.extend(jsonl_under(&dir));
    } else {
        files.extend(jsonl_under(path));
    }
    let mut skipped = Vec::new();
    files.retain(|file| {
        let name = file
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        match NOT_SESSION_LOGS.iter().find(|(known, _)| *known == name) {
            Some((_, what)) => {
                skipped.push(Skipped {
                    file: file.clone(),
                    what,
                });
                false
            }
            None => true,
        }
    });
    let mut sessions: Vec<SessionFiles> = Vec::new();
    let mut by_main: HashMap<PathBuf, usize> = HashMap::new();
    for file in &files {
        if agent_session(file).is_none() {
            by_main.insert(file.clone(), sessions.len());
            sessions.push(SessionFiles {
                main: Some(file.clone()),
                subagents: Vec::new(),
            });
        }
    }
    let mut without_log: BTreeMap<PathBuf, Vec<PathBuf>> = BTreeMap::new();
    for file in files {
        if let Some((session, layout)) = agent_session(&file) {
            let mut main = session.as_os_str().to_owned();
            main.push(".jsonl");
            match by_main.get(Path::new(&main)) {
                Some(at) if layout == "subagents" => sessions[*at].subagents.push(file),
                _ => without_log.entry(session).or_default().push(file),
            }
        }
    }
    for (_, subagents) in without_log {
        sessions.push(SessionFiles {
            main: None,
            subagents,
        });
    }
    for session in &mut sessions {
        session.subagents.sort();
    }
    sessions.sort_by(|a, b| (&a.main, &a.subagents).cmp(&(&b.main, &b.subagents)));
    Ok((sessions, skipped))
}

/// Every `.jsonl` file at or under `dir`, sorted. The root is followed when it is a link;
/// links below it are not (so no loop), and unreadable directories are skipped. (Written
/// with `std::fs` rather than walkdir, which only the binary depends on.)
fn jsonl_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => files_under(dir, &mut found),
        Ok(meta) if meta.is_file() => found.push(dir.to_owned()),
        _ => {}
    }
    found.retain(|path| path.extension().is_some_and(|e| e == "jsonl"));
    found.sort();
    found
}

/// `<dir>/<session>/subagents/agent-x.jsonl` -> (`<dir>/<session>`, `subagents`), at any
/// depth below `subagents/` (`subagents/workflows/<run>/agent-x.jsonl`); and the seed's
/// `<dir>/<session>/transcripts/<agent>.jsonl` -> (`<dir>/<session>`, `transcripts`).
pub(super) fn agent_session(file: &Path) -> Option<(PathBuf, &'static str)> {
    let parent = file.parent()?;
    if parent.file_name()? == "transcripts" {
        return Some((parent.parent()?.to_owned(), "transcripts"));
    }
    let subagents = parent
        .ancestors()
        .find(|dir| dir.file_name() == Some("subagents".as_ref()))?;
    Some((subagents.parent()?.to_owned(), "subagents"))
}

/// The session id of agent logs without a session log: their `<session>` directory's name.
pub(super) fn session_dir_id(file: &Path) -> Option<String> {
    let (session, _) = agent_session(file)?;
    Some(session.file_name()?.to_string_lossy().into_owned())
}
