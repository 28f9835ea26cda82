//! Gemini CLI's saved sessions: `~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl`
//! (Gemini CLI 0.39 and later; before, one JSON document `session-*.json`), its sub-agents'
//! recordings `chats/<session id>/<agent>.jsonl`, and the chats `/chat save <tag>` keeps,
//! `tmp/<project>/checkpoint-<tag>.json` (`{history: Content[]}`, or a bare `Content[]`).
//! The records' meaning is the Gemini adapter's session room
//! ([`normalize::gemini`](crate::normalize::gemini)).
//!
//! # What a session becomes
//!
//! A session file is a run, its run id the session's id (the metadata record's
//! `sessionId`, else the file's name). The CLI writes a message again, whole, each time it
//! grows (its tool calls scheduled, answered, its tokens counted): only a message's last
//! version is fed, in the place of its first, and the earlier ones are counted in
//! `import.kept_out.superseded` (the last holds all they held). A resumed session goes on
//! in the same file: one run.
//!
//! * **Rewind** (`{"$rewindTo": id}`: the user went back to before message `id`): the
//!   messages from `id` on are kept out of the thread as off-chain metadata
//!   (`kept_out.rewound`, a `kept-out` note), their tokens added up apart
//!   (`import.off_chain_usage`), since they were spent.
//! * **`$set`** (metadata changed, or the conversation the model sees replaced by a
//!   compression): passthrough; what was delivered stays in the run.
//! * **Sub-agents**: each file in `chats/<session id>/` is a child run
//!   `<session>.agent-<file stem>`, linked before the parent closes (the recordings name
//!   no call). A directory of sub-agent files without its session file is a session of its
//!   own, with an `orphan-subagent-file` warning.
//! * **The older single document** (`session-*.json`, `{sessionId, ..., messages}`): one
//!   record made of the metadata and one of each message, standing for the file.
//! * **A saved chat** (`checkpoint-<tag>.json`) is a run of its own,
//!   `gemini-<project dir>.checkpoint-<tag>`, one record made of each `Content`.
//!
//! The run's `import` account: `format` (`gemini-session`, `gemini-session-json`,
//! `gemini-checkpoint`), `source`, `entries`, `thread`, `kept_out`, and when known `cwd`.
//!
//! This file owns the layout, the versions of a message and the rewinds; the records'
//! meaning is the adapter's.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::io::{self, BufRead, Read};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::entries::{files_under, no_entries, scan};
use super::feed::{self, Feed, RunPlan, SessionPlan, Spawn, What};
use super::ids::{self, sanitize};
use super::session::{ImportError, Note, NoteKind, SessionFiles};
use crate::model::{Provider, Timestamp, Usage};
use crate::normalize::skim::{Skim, once};

/// The sessions under `path`: a session file (with its sub-agents' directory), a saved
/// chat, a project's directory, or `tmp/` (searched recursively). Sorted.
pub(crate) fn discover(path: &Path) -> io::Result<Vec<SessionFiles>> {
    let meta = std::fs::metadata(path)?;
    let mut files = Vec::new();
    if meta.is_file() {
        files.push(path.to_owned());
        if let Some(id) = session_id_of(path) {
            let dir = path.with_file_name(&id);
            files_under(&dir, &mut files);
        }
    } else {
        files_under(path, &mut files);
    }
    let mut sessions = Vec::new();
    // Sub-agent files by the directory they are in: `chats/<session id>/`.
    let mut agents: BTreeMap<PathBuf, Vec<PathBuf>> = BTreeMap::new();
    for file in files {
        let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let dir = file.parent().unwrap_or(Path::new(""));
        let in_chats = dir.file_name() == Some("chats".as_ref());
        let below_chats = dir.parent().and_then(Path::file_name) == Some("chats".as_ref());
        if in_chats && name.starts_with("session-") && is_json(name) {
            sessions.push((file.clone(), session_id_of(&file)));
        } else if name.starts_with("checkpoint-") && name.ends_with(".json") {
            sessions.push((file.clone(), None));
        } else if below_chats && name.ends_with(".jsonl") {
            agents.entry(dir.to_owned()).or_default().push(file);
        }
    }
    let mut found: Vec<SessionFiles> = sessions
        .into_iter()
        .map(|(main, id)| {
            let subagents = id
                .and_then(|id| agents.remove(&main.with_file_name(id)))
                .unwrap_or_default();
            SessionFiles {
                main: Some(main),
                subagents,
            }
        })
        .collect();
    // Sub-agents whose session file is not here: a session of their own.
    for (_, subagents) in agents {
        found.push(SessionFiles {
            main: None,
            subagents,
        });
    }
    for session in &mut found {
        session.subagents.sort();
    }
    found.sort_by(|a, b| a.main.cmp(&b.main).then(a.subagents.cmp(&b.subagents)));
    Ok(found)
}

fn is_json(name: &str) -> bool {
    name.ends_with(".jsonl") || name.ends_with(".json")
}

/// The first record's `sessionId` (a session file's metadata record).
fn session_id_of(path: &Path) -> Option<String> {
    first_record(path)?
        .get("sessionId")?
        .as_str()
        .map(str::to_owned)
}

fn first_record(path: &Path) -> Option<Value> {
    let file = std::fs::File::open(path).ok()?;
    let mut line = Vec::new();
    io::BufReader::new(file)
        .take(1 << 20)
        .read_until(b'\n', &mut line)
        .ok()?;
    serde_json::from_slice(&line).ok()
}

/// The working directory a session ran in: the metadata's first `directories` entry, else
/// the `.project_root` the CLI keeps in the project's directory under `tmp/`.
pub(crate) fn cwd(path: &Path) -> Option<PathBuf> {
    if let Some(dir) = first_record(path)
        .as_ref()
        .and_then(|first| first.pointer("/directories/0")?.as_str())
    {
        return Some(PathBuf::from(dir));
    }
    let project = path
        .ancestors()
        .find(|dir| dir.parent().and_then(Path::file_name) == Some("tmp".as_ref()))?;
    let root = std::fs::read_to_string(project.join(".project_root")).ok()?;
    Some(PathBuf::from(root.trim())).filter(|p| !p.as_os_str().is_empty())
}

/// What the plan reads of each record of a session file.
#[derive(Deserialize, Default, Debug, PartialEq)]
struct Head<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(default)]
    content: Option<serde::de::IgnoredAny>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(rename = "sessionId", borrow, default)]
    session_id: Option<Cow<'a, str>>,
    #[serde(rename = "$rewindTo", borrow, default)]
    rewind_to: Option<Cow<'a, str>>,
}

/// A record's head: skimmed, else (an escaped key or field, ...) read by serde_json,
/// which skims nothing differently; a record that is no JSON object has none.
fn head(bytes: &[u8]) -> Head<'_> {
    skim_head(bytes).unwrap_or_else(|| serde_json::from_slice(bytes).unwrap_or_default())
}

/// The head, [`skim`](super::skim)med: the messages' content is most of a session's bytes
/// (the plan of a 20 MiB session took 120M instructions so, 165M read by serde_json).
fn skim_head(bytes: &[u8]) -> Option<Head<'_>> {
    let mut skim = Skim::new(bytes);
    let (mut id, mut kind, mut content, mut timestamp, mut session_id, mut rewind_to) =
        (None, None, None, None, None, None);
    skim.object(|skim, key| match key {
        "id" => once(&mut id, skim.str_or_null()?),
        "type" => once(&mut kind, skim.str_or_null()?),
        "content" => {
            let some = !skim.null();
            if some {
                skim.skip()?;
            }
            once(&mut content, some.then_some(serde::de::IgnoredAny))
        }
        "timestamp" => once(&mut timestamp, skim.str_or_null()?),
        "sessionId" => once(&mut session_id, skim.str_or_null()?),
        "$rewindTo" => once(&mut rewind_to, skim.str_or_null()?),
        _ => skim.skip(),
    })?;
    skim.end()?;
    Some(Head {
        id: id.flatten().map(Cow::Borrowed),
        kind: kind.flatten().map(Cow::Borrowed),
        content: content.flatten(),
        timestamp: timestamp.flatten().map(Cow::Borrowed),
        session_id: session_id.flatten().map(Cow::Borrowed),
        rewind_to: rewind_to.flatten().map(Cow::Borrowed),
    })
}

/// Reads a session's files and decides its runs.
pub(crate) fn plan(files: &SessionFiles) -> Result<SessionPlan, ImportError> {
    let mut notes = Vec::new();
    let mut runs = Vec::new();
    // Sub-agents without their session file: the first of them stands for the session.
    let (root, session, agents) = match &files.main {
        Some(main) => {
            let name = main.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let root = if name.starts_with("checkpoint-") {
                checkpoint(main)?
            } else if name.ends_with(".json") && !starts_with_a_line(main) {
                document(main)?
            } else {
                session_file(main, None, &mut notes)?
            };
            let session = root.run_id.clone();
            (root, session, &files.subagents[..])
        }
        None => {
            let session = sanitize_dir(&files.subagents[0]);
            notes.push(Note {
                file: files.subagents[0].clone(),
                line: 0,
                kind: NoteKind::OrphanSubagentFile,
                message: format!(
                    "sub-agent recordings of session {session:?}, whose session file is missing: the session is made of its own"
                ),
            });
            let root = agent(&files.subagents[0], &session, &mut notes)?;
            (root, session, &files.subagents[1..])
        }
    };
    runs.push(root);
    for file in agents {
        runs.push(agent(file, &session, &mut notes)?);
    }
    ids::unique(runs.iter_mut().map(|r| &mut r.run_id));
    let mut parents = vec![None; runs.len()];
    let mut spawns: Vec<Vec<Spawn>> = runs.iter().map(|_| Vec::new()).collect();
    for at in 1..runs.len() {
        parents[at] = Some(0);
        spawns[0].push(Spawn {
            call: None,
            child: runs[at].run_id.clone(),
            name: "subagent".into(),
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

/// A sub-agent's recording: the run `<session>.agent-<file stem>`.
fn agent(file: &Path, session: &str, notes: &mut Vec<Note>) -> Result<RunPlan, ImportError> {
    let stem = file.file_stem().unwrap_or_default().to_string_lossy();
    let id = format!("{session}.agent-{}", sanitize(&stem));
    let mut run = session_file(file, Some(id), notes)?;
    run.import
        .insert("agent_id".into(), stem.into_owned().into());
    Ok(run)
}

/// The session a sub-agent's directory names.
fn sanitize_dir(file: &Path) -> String {
    let dir = file.parent().and_then(Path::file_name).unwrap_or_default();
    sanitize(&dir.to_string_lossy())
}

/// Whether a `.json` file is JSON Lines all the same (its first line a whole record).
fn starts_with_a_line(path: &Path) -> bool {
    first_record(path).is_some_and(|first| first.get("messages").is_none())
}

/// A session file (JSON Lines): the last version of each message, rewound messages off the
/// thread.
fn session_file(
    path: &Path,
    run_id: Option<String>,
    notes: &mut Vec<Note>,
) -> Result<RunPlan, ImportError> {
    let mut placed: Vec<Feed> = Vec::new();
    let mut by_id: HashMap<String, usize> = HashMap::new();
    let mut superseded = 0u64;
    let mut rewound: Vec<usize> = Vec::new();
    // Where the messages not rewound stand, in order.
    let mut live: Vec<(String, usize)> = Vec::new();
    let mut session_id = None;
    let mut first_rewind = None;
    let mut entries = 0u64;
    let scanned = scan(path, |line| {
        entries += 1;
        let head = head(line.bytes);
        let mut feed = Feed::at(What::Entry, line.number, line.range.clone());
        feed.timestamp = head
            .timestamp
            .as_deref()
            .and_then(|t| Timestamp::parse(t).ok());
        if session_id.is_none() && head.kind.is_none() {
            session_id = head.session_id.as_deref().map(str::to_owned);
        }
        if let Some(target) = &head.rewind_to {
            first_rewind.get_or_insert(line.number);
            // The target and every message after it are taken back.
            let from = live.iter().position(|(id, _)| id == target.as_ref());
            for (id, at) in live.drain(from.unwrap_or(live.len())..) {
                by_id.remove(&id);
                rewound.push(at);
            }
        }
        match head.id.filter(|_| head.content.is_some()) {
            Some(id) => match by_id.get(id.as_ref()) {
                Some(&at) => {
                    // A later version of a message: it stands in the first's place.
                    superseded += 1;
                    let first = &mut placed[at];
                    first.line = line.number;
                    first.range = line.range;
                }
                None => {
                    let id = id.into_owned();
                    by_id.insert(id.clone(), placed.len());
                    live.push((id, placed.len()));
                    placed.push(feed);
                }
            },
            None => placed.push(feed),
        }
    })?;
    if entries == 0 {
        return Err(no_entries("Gemini CLI session file", path, &scanned));
    }
    let mut feed = Vec::with_capacity(placed.len());
    let mut off_chain = Vec::new();
    let rewound_at: std::collections::HashSet<usize> = rewound.iter().copied().collect();
    for (at, record) in placed.into_iter().enumerate() {
        if rewound_at.contains(&at) {
            let mut record = record;
            record.what = What::OffChain("rewound");
            // Kept at the end of the run: its time must not move the run's clock back.
            record.timestamp = None;
            off_chain.push(record);
        } else {
            feed.push(record);
        }
    }
    let thread = feed.len() as u64;
    let mut kept_out = BTreeMap::new();
    if superseded > 0 {
        kept_out.insert("superseded", superseded);
    }
    if !off_chain.is_empty() {
        kept_out.insert("rewound", off_chain.len() as u64);
        notes.push(Note {
            file: path.to_owned(),
            line: first_rewind.unwrap_or(0),
            kind: NoteKind::KeptOut,
            message: format!(
                "{} {} taken back by a rewind kept out of the thread, as off-chain metadata (their tokens added up apart)",
                off_chain.len(),
                if off_chain.len() == 1 { "message" } else { "messages" }
            ),
        });
    }
    feed.extend(off_chain);
    let fallback = path.file_stem().unwrap_or_default().to_string_lossy();
    let id = run_id.unwrap_or_else(|| {
        let id = sanitize(session_id.as_deref().unwrap_or(&fallback));
        if id.is_empty() {
            sanitize(&fallback)
        } else {
            id
        }
    });
    let mut run = RunPlan::new(id, Provider::Gemini, path.to_owned());
    run.off_chain_usage = Some(off_chain_usage);
    run.session_id = session_id;
    // `entries` counts every record once: in the thread, superseded, or rewound.
    run.import = account("gemini-session", path, entries, thread, &kept_out);
    if let Some(cwd) = cwd(path) {
        run.import
            .insert("cwd".into(), cwd.display().to_string().into());
    }
    run.kept_out = kept_out;
    *run.feed_mut() = feed;
    Ok(run)
}

/// A rewound message's id and tokens: spent all the same, added up apart.
fn off_chain_usage(record: &Value) -> Option<(String, Usage)> {
    let tokens = record.get("tokens").filter(|t| t.is_object())?;
    let id = record.get("id")?.as_str()?.to_owned();
    let count = |key: &str| tokens.get(key).and_then(Value::as_u64).unwrap_or(0);
    let thoughts = count("thoughts");
    let usage = Usage {
        input_tokens: count("input").saturating_sub(count("cached")) + count("tool"),
        output_tokens: count("output") + thoughts,
        cache_read_tokens: count("cached"),
        cache_write_tokens: 0,
        reasoning_tokens: thoughts,
    };
    Some((id, usage))
}

/// The older single document: the metadata (without its messages) and each message, made
/// records standing for the file.
fn document(path: &Path) -> Result<RunPlan, ImportError> {
    let (mut value, size) = read_json(path, "Gemini CLI session file")?;
    let messages = match value.as_object_mut().and_then(|doc| doc.remove("messages")) {
        Some(Value::Array(messages)) => messages,
        _ => Vec::new(),
    };
    let session_id = value
        .get("sessionId")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let range = 0..size;
    let mut feed = vec![Feed::made(&value, 1, range.clone())];
    for message in &messages {
        let mut record = Feed::made(message, 1, range.clone());
        record.timestamp = message
            .get("timestamp")
            .and_then(Value::as_str)
            .and_then(|t| Timestamp::parse(t).ok());
        feed.push(record);
    }
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    let id = sanitize(session_id.as_deref().unwrap_or(&stem));
    let mut run = made_run(id, "gemini-session-json", path, feed);
    run.session_id = session_id;
    Ok(run)
}

/// A run of records made of a whole JSON file, every one of them fed.
fn made_run(id: String, format: &str, path: &Path, feed: Vec<Feed>) -> RunPlan {
    let mut run = RunPlan::new(id, Provider::Gemini, path.to_owned());
    let records = feed.len() as u64;
    run.import = account(format, path, records, records, &BTreeMap::new());
    if let Some(cwd) = cwd(path) {
        run.import
            .insert("cwd".into(), cwd.display().to_string().into());
    }
    *run.feed_mut() = feed;
    run
}

/// A saved chat: one made record of each `Content` of its history.
fn checkpoint(path: &Path) -> Result<RunPlan, ImportError> {
    let (value, size) = read_json(path, "Gemini CLI saved chat")?;
    let history = match &value {
        Value::Array(history) => history.as_slice(),
        other => other
            .get("history")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice),
    };
    if history.is_empty() && !value.is_array() && value.get("history").is_none() {
        return Err(ImportError::NotASession {
            format: "Gemini CLI saved chat",
            path: path.to_owned(),
            line: 1,
            offset: 0,
            reason: "neither a list of Content nor {history: [...]}".into(),
        });
    }
    let feed: Vec<Feed> = history
        .iter()
        .map(|content| Feed::made(content, 1, 0..size))
        .collect();
    let tag = path.file_stem().unwrap_or_default().to_string_lossy();
    let project = path
        .parent()
        .and_then(Path::file_name)
        .unwrap_or_default()
        .to_string_lossy();
    let id = format!("gemini-{}.{}", sanitize(&project), sanitize(&tag));
    Ok(made_run(id, "gemini-checkpoint", path, feed))
}

/// A whole JSON file and its size; a file that is none, refused naming where.
fn read_json(path: &Path, format: &'static str) -> Result<(Value, usize), ImportError> {
    let bytes = std::fs::read(path).map_err(|source| ImportError::Io {
        path: path.to_owned(),
        source,
    })?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ImportError::NotASession {
            format,
            path: path.to_owned(),
            line: 0,
            offset: 0,
            reason: "the file is empty".into(),
        });
    }
    match serde_json::from_slice(&bytes) {
        Ok(value) => Ok((value, bytes.len())),
        Err(error) => {
            let (line, column) = (error.line() as u64, error.column());
            let offset = bytes
                .split(|b| *b == b'\n')
                .take(line.saturating_sub(1) as usize)
                .map(|l| l.len() + 1)
                .sum::<usize>()
                + column.saturating_sub(1);
            Err(ImportError::NotASession {
                format,
                path: path.to_owned(),
                line,
                offset: offset as u64,
                reason: format!("not one JSON document: {error}"),
            })
        }
    }
}

/// A run's `import` account, with what was kept out.
fn account(
    format: &str,
    path: &Path,
    entries: u64,
    thread: u64,
    kept_out: &BTreeMap<&'static str, u64>,
) -> Map<String, Value> {
    let mut import = feed::account(format, path, entries, thread);
    import.insert("kept_out".into(), json!(kept_out));
    import
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINES: [&str; 5] = [
        r#"{"sessionId":"s-1","projectHash":"ab","startTime":"2026-03-14T09:00:00.000Z","kind":"main","directories":["/w"]}"#,
        r#"{"id":"m1","timestamp":"2026-03-14T09:00:01.000Z","type":"user","content":[{"text":"hi \"there\"\n\u00e9"}]}"#,
        r#"{"id":"m2","timestamp":"2026-03-14T09:00:02.000Z","type":"gemini","content":"ok","toolCalls":[{"id":"t","args":{"n":-1.5e2}}],"tokens":{"input":3,"output":4}}"#,
        r#"{"$rewindTo":"m2"}"#,
        r#"{"$set":{"memoryScratchpad":null},"id":"m3","content":null}"#,
    ];

    #[test]
    fn the_skim_reads_the_head_serde_json_reads() {
        for line in LINES {
            let read: Head<'_> = serde_json::from_str(line).unwrap();
            assert_eq!(skim_head(line.as_bytes()), Some(read), "{line}");
        }
        assert_eq!(head(LINES[4].as_bytes()).content, None);
        assert_eq!(
            head(LINES[2].as_bytes()).content,
            Some(serde::de::IgnoredAny)
        );
    }

    /// An escaped key (`\u0069d` is `id`), an escaped field, a field twice: the skim gives
    /// up, and serde_json decides as it always did.
    #[test]
    fn what_the_skim_gives_up_serde_json_reads() {
        let escaped = [
            r#"{"\u0069d":"m1","type":"user","content":[]}"#,
            r#"{"id":"m\u0031","type":"user","content":[]}"#,
            r#"{"id":"m1","id":"m2","content":[]}"#,
            r#"{"id":"m1","content":[],"content":null}"#,
            r#"{"id":5,"content":[]}"#,
        ];
        for line in escaped {
            assert_eq!(skim_head(line.as_bytes()), None, "{line}");
        }
        assert_eq!(head(escaped[0].as_bytes()).id.as_deref(), Some("m1"));
        assert!(head(escaped[0].as_bytes()).content.is_some());
        assert_eq!(head(escaped[1].as_bytes()).id.as_deref(), Some("m1"));
        assert_eq!(head(escaped[2].as_bytes()), Head::default());
    }

    /// Every line one byte short, or one byte changed: what the skim reads, serde_json
    /// reads the same.
    #[test]
    fn a_damaged_line_is_skimmed_as_serde_json_reads_it_or_not_at_all() {
        let mut checked = 0;
        for line in LINES {
            let bytes = line.as_bytes();
            for at in 0..bytes.len() {
                let mut short = bytes.to_vec();
                short.remove(at);
                let mut changed = bytes.to_vec();
                for byte in [b'"', b'\\', b'}', b']', b',', b'n', b'\t', b'x'] {
                    changed[at] = byte;
                    for damaged in [&short, &changed] {
                        if let Some(skimmed) = skim_head(damaged) {
                            let read: Result<Head<'_>, _> = serde_json::from_slice(damaged);
                            assert_eq!(
                                Some(skimmed),
                                read.ok(),
                                "{}",
                                String::from_utf8_lossy(damaged)
                            );
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert!(checked > 500);
    }
}
