//! GitHub Copilot CLI's session logs: `~/.copilot/session-state/<session id>/events.jsonl`
//! (older CLIs: `<session id>.jsonl` beside them), the session events `normalize
//! --provider copilot` reads (Copilot CLI 1.0.13 to 1.0.63 in the corpus).
//!
//! # What a session becomes
//!
//! A session log is a run, its run id the session's id (`session.start`'s `sessionId`,
//! else the directory's name), read by the Copilot adapter
//! ([`normalize::copilot`](crate::normalize::copilot)). A resumed session is the same log,
//! appended to (`session.resume`, a `session.shutdown` per process): one run.
//!
//! Sub-agents write into the same log, each event of theirs carrying the envelope's
//! `agentId`: each sub-agent is a child run, `<session>.agent-<agentId>`, made of its
//! events (fed without `agentId`, so that its run is the agent's own, not a scope inside
//! it), linked both ways to the `task` call whose `subagent.started` came last before its
//! first event (the one whose `agentName` its id starts with, when several are open). The
//! root keeps every other event. The session's token counts are `session.shutdown`'s
//! `modelMetrics`, which cover every agent: when the log has one, the root carries them and
//! the sub-agents' runs count none, so that a session is counted once (without one, each
//! run counts its own messages' `outputTokens`, which add).
//!
//! The run's `import` account: `format` (`copilot-session-state`), `source`, `entries`,
//! `thread` (the events fed to this run), and for a sub-agent `agent_id` and, when the
//! root counts its tokens, `usage_in` (the root's run id).
//!
//! This file owns the layout and the split by agent; the events' meaning is the adapter's.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::entries::{files_under, first_string, no_entries, scan};
use super::feed::{self, Feed, RunPlan, SessionPlan, Spawn, What};
use super::ids::{self, sanitize};
use super::session::{ImportError, Note, NoteKind, SessionFiles};
use crate::model::{Provider, Timestamp, Usage};
use crate::normalize::skim::string_end;

/// The sessions under `path`: a session log, a session's directory, or `session-state/`
/// (searched recursively for `events.jsonl`, and for the older `<id>.jsonl` files directly
/// in it whose session has no directory). Sorted.
pub(crate) fn discover(path: &Path) -> io::Result<Vec<SessionFiles>> {
    let meta = std::fs::metadata(path)?;
    let mut logs = Vec::new();
    if meta.is_file() {
        logs.push(path.to_owned());
    } else {
        let mut files = Vec::new();
        files_under(path, &mut files);
        for file in files {
            let name = file.file_name().unwrap_or_default();
            let stem = file.with_extension("");
            let in_state = file.parent().is_some_and(|dir| {
                dir == path || dir.file_name() == Some("session-state".as_ref())
            });
            if name == "events.jsonl"
                || (file.extension().is_some_and(|e| e == "jsonl")
                    && in_state
                    && !stem.join("events.jsonl").exists())
            {
                logs.push(file);
            }
        }
        logs.sort();
    }
    Ok(logs.into_iter().map(SessionFiles::alone).collect())
}

/// The working directory a session ran in: `session.start`'s `context.cwd`.
pub(crate) fn cwd(path: &Path) -> Option<PathBuf> {
    first_string(path, 16, "/data/context/cwd").map(PathBuf::from)
}

#[derive(Deserialize, Default)]
struct Head<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(rename = "agentId", borrow, default)]
    agent: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    data: Option<Data<'a>>,
}

#[derive(Deserialize, Default)]
struct Data<'a> {
    #[serde(rename = "sessionId", borrow, default)]
    session_id: Option<Cow<'a, str>>,
    #[serde(rename = "toolCallId", borrow, default)]
    tool_call: Option<Cow<'a, str>>,
    #[serde(rename = "agentName", borrow, default)]
    agent_name: Option<Cow<'a, str>>,
    #[serde(rename = "modelMetrics", default)]
    model_metrics: Option<serde::de::IgnoredAny>,
}

/// What planning reads of an event. Most of a session log is the `data` of events
/// planning has no use for (messages, tool results), which serde skipped at about 8
/// instructions a byte (an escape every 20 bytes of Copilot's text); [`plain`] reads the
/// envelope and skips such a `data` without serde, and what it cannot vouch for is read
/// by serde as before.
fn head(line: &[u8]) -> Head<'_> {
    match plain(line) {
        Some(head) => head,
        None => serde_json::from_slice(line).unwrap_or_default(),
    }
}

/// The events whose `data` planning reads.
fn data_read(kind: Option<&str>) -> bool {
    matches!(
        kind,
        Some("session.start" | "subagent.started" | "session.shutdown")
    )
}

/// The envelope of an event whose type comes before its `data` and says that planning
/// needs none of it, read without serde; `None` for any other line, and for every line
/// serde might read otherwise: an escaped key or field, a byte under 0x20 (whitespace
/// included), a field twice, `data` not an object, a field of `Data` not a plain string,
/// anything that is not JSON, nesting deeper than 64. What it returns is what serde
/// returns for the line (the test `plain_reads_as_serde` holds it to that), with an
/// empty `data`, since planning reads none of it.
fn plain(line: &[u8]) -> Option<Head<'_>> {
    // No control byte anywhere: none in a string, no whitespace but spaces.
    if line.iter().fold(false, |any, &b| any | (b < 0x20)) {
        return None;
    }
    let mut head = Head::default();
    let (mut kind, mut agent, mut timestamp) = (false, false, false);
    let mut at = object(line, 0)?;
    if *line.get(at)? == b'}' {
        return end(line, at + 1).then_some(head);
    }
    loop {
        let (key, next) = member(line, at)?;
        at = next;
        match key {
            "type" => {
                let (value, next) = text(line, at, &mut kind)?;
                head.kind = value.map(Cow::Borrowed);
                at = next;
            }
            "agentId" => {
                let (value, next) = text(line, at, &mut agent)?;
                head.agent = value.map(Cow::Borrowed);
                at = next;
            }
            "timestamp" => {
                let (value, next) = text(line, at, &mut timestamp)?;
                head.timestamp = value.map(Cow::Borrowed);
                at = next;
            }
            // Skipped only when the type, already read, says planning needs none of it;
            // `head.data` marks it read (a second `data` is serde's error).
            "data" => {
                if !kind || data_read(head.kind.as_deref()) || head.data.is_some() {
                    return None;
                }
                at = data(line, at)?;
                head.data = Some(Data::default());
            }
            _ => at = skip(line, at)?,
        }
        at = spaces(line, at);
        match *line.get(at)? {
            b',' => at = spaces(line, at + 1),
            b'}' => return end(line, at + 1).then_some(head),
            _ => return None,
        }
    }
}

/// Past `{` and spaces at `at`: where the first member (or `}`) starts.
fn object(line: &[u8], at: usize) -> Option<usize> {
    let at = spaces(line, at);
    (*line.get(at)? == b'{').then(|| spaces(line, at + 1))
}

/// Whether only spaces follow `at`.
fn end(line: &[u8], at: usize) -> bool {
    spaces(line, at) == line.len()
}

fn spaces(line: &[u8], mut at: usize) -> usize {
    while line.get(at) == Some(&b' ') {
        at += 1;
    }
    at
}

/// A member's key at `at` (a string without escapes, UTF-8 as serde requires of a
/// field's name), and where its value starts.
fn member(line: &[u8], at: usize) -> Option<(&str, usize)> {
    if *line.get(at)? != b'"' {
        return None;
    }
    let (key, next) = unescaped(line, at + 1)?;
    let next = spaces(line, next);
    (*line.get(next)? == b':').then(|| (key, spaces(line, next + 1)))
}

/// A string without escapes whose contents start at `at`, and where it ends.
fn unescaped(line: &[u8], at: usize) -> Option<(&str, usize)> {
    let close = at + memchr::memchr2(b'"', b'\\', line.get(at..)?)?;
    if line[close] != b'"' {
        return None;
    }
    Some((std::str::from_utf8(&line[at..close]).ok()?, close + 1))
}

/// An optional string field's value at `at` (a string without escapes, or `null`), seen
/// once.
fn text<'a>(line: &'a [u8], at: usize, seen: &mut bool) -> Option<(Option<&'a str>, usize)> {
    if std::mem::replace(seen, true) {
        return None;
    }
    match *line.get(at)? {
        b'"' => unescaped(line, at + 1).map(|(text, next)| (Some(text), next)),
        b'n' => line[at..].starts_with(b"null").then_some((None, at + 4)),
        _ => None,
    }
}

/// Past a `data` object at `at`, checked as serde's `Data` reads it: its fields strings
/// without escapes or `null`, each at most once.
fn data(line: &[u8], at: usize) -> Option<usize> {
    let mut at = object(line, at)?;
    if *line.get(at)? == b'}' {
        return Some(at + 1);
    }
    let mut seen = [false; 4];
    loop {
        let (key, next) = member(line, at)?;
        at = match key {
            "sessionId" => text(line, next, &mut seen[0])?.1,
            "toolCallId" => text(line, next, &mut seen[1])?.1,
            "agentName" => text(line, next, &mut seen[2])?.1,
            "modelMetrics" if std::mem::replace(&mut seen[3], true) => return None,
            _ => skip(line, next)?,
        };
        at = spaces(line, at);
        match *line.get(at)? {
            b',' => at = spaces(line, at + 1),
            b'}' => return Some(at + 1),
            _ => return None,
        }
    }
}

/// Past the JSON value at `at`, as serde's `IgnoredAny` checks it (its strings' escapes,
/// its numbers' grammar), or `None`. Containers nest at most 64 deep (a bit each).
fn skip(line: &[u8], mut at: usize) -> Option<usize> {
    // Bit `depth - 1`: whether that container is an object.
    let mut objects = 0u64;
    let mut depth = 0u32;
    loop {
        // A value at `at`.
        match *line.get(at)? {
            b'"' => at = string(line, at + 1)?,
            b'{' | b'[' => {
                let object = line[at] == b'{';
                if depth == 64 {
                    return None;
                }
                objects = (objects & !(1 << depth)) | (u64::from(object) << depth);
                depth += 1;
                at = spaces(line, at + 1);
                match (*line.get(at)?, object) {
                    (b'}', true) | (b']', false) => {
                        depth -= 1;
                        at += 1;
                    }
                    (b'"', true) => {
                        at = key(line, at)?;
                        continue;
                    }
                    (_, true) => return None,
                    (_, false) => continue,
                }
            }
            b't' => at = literal(line, at, b"true")?,
            b'f' => at = literal(line, at, b"false")?,
            b'n' => at = literal(line, at, b"null")?,
            b'-' | b'0'..=b'9' => at = number(line, at)?,
            _ => return None,
        }
        // After a value: close what ends here, or go on to the next value.
        loop {
            if depth == 0 {
                return Some(at);
            }
            at = spaces(line, at);
            let object = (objects >> (depth - 1)) & 1 == 1;
            match (*line.get(at)?, object) {
                (b',', true) => {
                    at = key(line, spaces(line, at + 1))?;
                    break;
                }
                (b',', false) => {
                    at = spaces(line, at + 1);
                    break;
                }
                (b'}', true) | (b']', false) => {
                    depth -= 1;
                    at += 1;
                }
                _ => return None,
            }
        }
    }
}

/// Past a key at `at` (of an object skipped), its colon and spaces: where its value starts.
fn key(line: &[u8], at: usize) -> Option<usize> {
    if *line.get(at)? != b'"' {
        return None;
    }
    let at = spaces(line, string(line, at + 1)?);
    (*line.get(at)? == b':').then(|| spaces(line, at + 1))
}

/// Past a string whose contents start at `at`: its escapes checked as serde checks them
/// (control bytes were refused for the whole line), by the skims' reading of a string
/// ([`string_end`]: plain runs eight bytes at a time, from the first backslash on 64 bytes
/// a block). Copilot's text has an escape every 20 bytes or so, where finding each quote or
/// backslash apart (eight bytes at a time for the first 32, then `memchr2`) took 801M
/// instructions of an import's 3,568M (100 sessions of 2 MiB, callgrind).
fn string(line: &[u8], at: usize) -> Option<usize> {
    string_end(line, at).map(|(end, _)| end)
}

fn literal(line: &[u8], at: usize, word: &[u8]) -> Option<usize> {
    line[at..].starts_with(word).then_some(at + word.len())
}

/// Past a number at `at`, by JSON's grammar (serde's).
fn number(line: &[u8], mut at: usize) -> Option<usize> {
    let digits = |at: usize| {
        let run = line[at..].iter().take_while(|b| b.is_ascii_digit()).count();
        (run > 0).then_some(at + run)
    };
    if line[at] == b'-' {
        at += 1;
    }
    at = match *line.get(at)? {
        b'0' => at + 1,
        b'1'..=b'9' => digits(at)?,
        _ => return None,
    };
    if line.get(at) == Some(&b'.') {
        at = digits(at + 1)?;
    }
    if matches!(line.get(at), Some(b'e' | b'E')) {
        at += 1;
        if matches!(line.get(at), Some(b'+' | b'-')) {
            at += 1;
        }
        at = digits(at)?;
    }
    // A digit straight after `0` is serde's error, as is any other byte glued on: the
    // caller's next check refuses it.
    Some(at)
}

/// A sub-agent of the session: its events, and the call that started it.
struct Agent {
    id: String,
    name: Option<String>,
    call: Option<String>,
    feed: Vec<Feed>,
}

/// Reads a session log and decides its runs: the session's, and one per sub-agent.
pub(crate) fn plan(files: &SessionFiles) -> Result<SessionPlan, ImportError> {
    let path = files.main.as_deref().unwrap_or(Path::new(""));
    let mut root = Vec::new();
    let mut agents: Vec<Agent> = Vec::new();
    let mut by_agent: BTreeMap<String, usize> = BTreeMap::new();
    // `subagent.started` events not yet claimed by an agent: (call, agent name).
    let mut started: Vec<(String, String)> = Vec::new();
    let mut session_id = None;
    let mut totals = false;
    let mut entries = 0u64;
    let scanned = scan(path, |line| {
        entries += 1;
        let head = head(line.bytes);
        let mut feed = Feed::at(What::Entry, line.number, line.range);
        feed.timestamp = head
            .timestamp
            .as_deref()
            .and_then(|t| Timestamp::parse(t).ok());
        let data = head.data.unwrap_or_default();
        match head.kind.as_deref() {
            Some("session.start") if session_id.is_none() => {
                session_id = data.session_id.map(Cow::into_owned);
            }
            Some("subagent.started") => {
                if let Some(call) = data.tool_call {
                    let name = data.agent_name.map(Cow::into_owned).unwrap_or_default();
                    started.push((call.into_owned(), name));
                }
            }
            Some("session.shutdown") if data.model_metrics.is_some() => totals = true,
            _ => {}
        }
        let Some(agent) = head.agent.filter(|a| !a.is_empty()) else {
            root.push(feed);
            return;
        };
        let known = by_agent.get(agent.as_ref()).copied();
        let at = known.unwrap_or_else(|| {
            // The agent's start: the last one open whose name its id starts with, else
            // the last one open.
            let claim = started
                .iter()
                .rposition(|(_, name)| !name.is_empty() && agent.starts_with(name.as_str()))
                .or(started.len().checked_sub(1));
            let (call, name) = claim.map(|at| started.remove(at)).unzip();
            agents.push(Agent {
                id: agent.to_string(),
                name: name.filter(|n| !n.is_empty()),
                call,
                feed: Vec::new(),
            });
            by_agent.insert(agent.to_string(), agents.len() - 1);
            agents.len() - 1
        });
        feed.what = What::EntryWithout("agentId");
        agents[at].feed.push(feed);
    })?;
    if entries == 0 {
        return Err(no_entries("Copilot session log", path, &scanned));
    }
    let fallback = fallback_id(path);
    let session = sanitize(session_id.as_deref().unwrap_or(&fallback));
    let session = if session.is_empty() {
        sanitize(&fallback)
    } else {
        session
    };
    let account = |fed: usize| feed::account("copilot-session-state", path, entries, fed as u64);
    let mut runs = Vec::with_capacity(1 + agents.len());
    let mut run = RunPlan::new(session.clone(), Provider::Copilot, path.to_owned());
    run.import = account(root.len());
    run.session_id = session_id.clone();
    *run.feed_mut() = root;
    runs.push(run);
    let mut notes = Vec::new();
    for agent in &mut agents {
        let id = format!("{session}.agent-{}", sanitize(&agent.id));
        let mut run = RunPlan::new(id, Provider::Copilot, path.to_owned());
        run.import = account(agent.feed.len());
        run.import
            .insert("agent_id".into(), agent.id.clone().into());
        if totals {
            // The session's shutdown counts every agent's tokens: the root run has them.
            run.usage = Some(Usage::default());
            run.import.insert("usage_in".into(), session.clone().into());
        }
        run.session_id = session_id.clone();
        *run.feed_mut() = std::mem::take(&mut agent.feed);
        if agent.call.is_none() {
            let line = run.feed_mut().first().map_or(0, |f| f.line);
            notes.push(Note {
                file: path.to_owned(),
                line,
                kind: NoteKind::UnlinkedSubagent,
                message: format!(
                    "sub-agent {:?}: no subagent.started before its first event; linked to the session's end",
                    agent.id
                ),
            });
        }
        runs.push(run);
    }
    ids::unique(runs.iter_mut().map(|r| &mut r.run_id));
    let mut parents = vec![None; runs.len()];
    let mut spawns: Vec<Vec<Spawn>> = runs.iter().map(|_| Vec::new()).collect();
    for (at, agent) in agents.into_iter().enumerate() {
        parents[at + 1] = Some(0);
        spawns[0].push(Spawn {
            call: agent.call,
            child: runs[at + 1].run_id.clone(),
            name: agent.name.unwrap_or_else(|| "subagent".into()),
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

/// A session's name when its log gives no id: its directory's name
/// (`<id>/events.jsonl`), else the file's stem (the older `<id>.jsonl`).
pub(crate) fn fallback_id(path: &Path) -> String {
    path.parent()
        .filter(|_| path.file_name() == Some("events.jsonl".as_ref()))
        .and_then(Path::file_name)
        .or_else(|| path.file_stem())
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "session".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What planning takes of a head: type, agent, timestamp, and `Data`'s fields where
    /// the type says it reads them.
    type Taken = [Option<String>; 6];

    fn taken(head: Head<'_>) -> Taken {
        let own = |text: Option<Cow<'_, str>>| text.map(Cow::into_owned);
        let data = match data_read(head.kind.as_deref()) {
            true => head.data.unwrap_or_default(),
            false => Data::default(),
        };
        [
            own(head.kind),
            own(head.agent),
            own(head.timestamp),
            own(data.session_id),
            own(data.tool_call),
            own(data.agent_name).or(data.model_metrics.map(|_| "metrics".into())),
        ]
    }

    fn serde(line: &[u8]) -> Taken {
        taken(serde_json::from_slice(line).unwrap_or_default())
    }

    /// Where `plain` reads a line, it reads what serde reads: lines of the corpora, every
    /// cut of them, and each with bytes put in and changed at every place.
    #[test]
    fn plain_reads_as_serde() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
        let mut files = Vec::new();
        files_under(&root.join("import/copilot"), &mut files);
        files_under(&root.join("normalize/copilot"), &mut files);
        let mut lines: Vec<Vec<u8>> = Vec::new();
        for file in files
            .iter()
            .filter(|f| f.extension().is_some_and(|e| e == "jsonl"))
        {
            let text = std::fs::read(file).unwrap();
            lines.extend(text.split(|&b| b == b'\n').map(<[u8]>::to_vec));
        }
        let mut read = 0;
        let mut check = |line: &[u8]| {
            if let Some(head) = plain(line) {
                read += 1;
                assert_eq!(
                    taken(head),
                    serde(line),
                    "{}",
                    String::from_utf8_lossy(line)
                );
            }
        };
        // Sixty or so of the lines, of every kind (the cuts and changes make them many).
        lines.retain(|line| line.len() < 600);
        lines.sort();
        lines.dedup();
        let step = lines.len().div_ceil(60);
        for line in lines.iter().step_by(step) {
            check(line);
            for cut in 0..line.len() {
                check(&line[..cut]);
                for put in [
                    &b"\""[..],
                    b"\\",
                    b",",
                    b"}",
                    b"]",
                    b"{",
                    b"[",
                    b"0",
                    b" ",
                    b"\xff",
                ] {
                    let mut changed = line[..cut].to_vec();
                    changed.extend_from_slice(put);
                    changed.extend_from_slice(&line[cut..]);
                    check(&changed);
                    let mut swapped = line.clone();
                    swapped[cut] = put[0];
                    check(&swapped);
                }
            }
        }
        assert!(read > 1000, "plain read only {read} lines");
    }

    /// `plain` reads the lines planning needs nothing of, and leaves to serde every line
    /// it could read otherwise; `head` reads both as serde does.
    #[test]
    fn plain_leaves_to_serde_what_it_cannot_vouch_for() {
        let read = [
            r#"{"type":"user.message","data":{"content":"a \"b\"\n\u00e9","attachments":[]},"id":"1","timestamp":"2026-01-01T00:00:00Z","parentId":null}"#,
            r#"{"type":"tool.execution_complete","data":{"toolCallId":"c1","result":{"content":"x"},"n":[1,-0.5e+3,true,false,null,{}]},"agentId":"explore-1"}"#,
            r#" { "type" : "a" , "data" : { } } "#,
            r#"{}"#,
        ];
        for line in read {
            assert!(plain(line.as_bytes()).is_some(), "{line}");
        }
        let left = [
            // Escaped keys and values: serde unescapes them.
            r#"{"\u0074ype":"user.message","data":{},"agentId":"a"}"#,
            r#"{"type":"user.message","data":{},"\u0061gentId":"a"}"#,
            r#"{"type":"user.message","data":{},"agentId":"\u0061"}"#,
            r#"{"type":"user.message","data":{"tool\u0043allId":1}}"#,
            // The events whose data planning reads, and data before the type.
            r#"{"type":"session.start","data":{"sessionId":"s"}}"#,
            r#"{"type":"subagent.started","data":{"toolCallId":"c","agentName":"explore"}}"#,
            r#"{"type":"session.shutdown","data":{"modelMetrics":{}}}"#,
            r#"{"data":{},"type":"user.message"}"#,
            // What serde refuses (the whole head then empty) or reads otherwise.
            "{\"type\":\"user.message\",\t\"data\":{}}",
            r#"{"type":"user.message","type":"x"}"#,
            r#"{"type":"user.message","data":{},"data":{}}"#,
            r#"{"type":"user.message","data":"text"}"#,
            r#"{"type":"user.message","data":null}"#,
            r#"{"type":"user.message","data":{"toolCallId":7}}"#,
            r#"{"type":"user.message","data":{"toolCallId":"a","toolCallId":"b"}}"#,
            r#"{"type":"user.message","data":{"content":"\x"}}"#,
            r#"{"type":"user.message","data":{"n":01}}"#,
            r#"{"type":"user.message","data":{"n":[1,]}}"#,
            r#"{"type":"user.message","data":{}} x"#,
            r#"{"type":"user.message","data":{"content":"cut"#,
            r#"{"type":7}"#,
        ];
        for line in left {
            assert!(plain(line.as_bytes()).is_none(), "{line}");
        }
        let escaped = head(br#"{"type":"user.message","data":{},"\u0061gentId":"a"}"#);
        assert_eq!(escaped.agent.as_deref(), Some("a"));
        let deep = format!(
            r#"{{"type":"a","data":{{"x":{}1{}}}}}"#,
            "[".repeat(70),
            "]".repeat(70)
        );
        assert!(plain(deep.as_bytes()).is_none());
        assert_eq!(head(deep.as_bytes()).kind.as_deref(), Some("a"));
    }
}
