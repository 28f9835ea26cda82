//! A Codex session's plan: each thread's records (its own, not a copy of its parent's),
//! its run id, and the call that spawned each child thread.
//!
//! This room owns reading a rollout's skeleton (every record's type, time and place, the
//! calls' ids and which outputs name a child thread) and the session's runs; the records'
//! content is read again when the runs are transcribed.

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::path::{Path, PathBuf};

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::discover::{Head, head};
use crate::import::entries::scan;
use crate::import::feed::{Feed, RunPlan, SessionPlan, Spawn, What};
use crate::import::ids::{self, sanitize};
use crate::import::session::{ImportError, Note, NoteKind, SessionFiles};
use crate::model::{Provider, Timestamp};
use crate::normalize::skim::{Skim, once};

/// One thread's file, read once.
struct Thread {
    path: PathBuf,
    head: Head,
    records: Vec<Record>,
    /// Records that are a copy of another thread's history, not fed.
    inherited: u64,
    /// Call id -> the child thread its output names, in the order the outputs came.
    spawned: Vec<(String, String)>,
    /// `spawn_agent` calls whose output names a thread that is no child of the session's:
    /// (call, thread, line).
    missing: Vec<(String, String, u64)>,
}

/// One record of a rollout: where it is, and its time.
struct Record {
    line: u64,
    range: Range<usize>,
    timestamp: Option<Timestamp>,
}

#[derive(Deserialize, Default, Debug, PartialEq)]
struct Skeleton<'a> {
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    payload: Option<Payload<'a>>,
}

#[derive(Deserialize, Default, Debug, PartialEq)]
struct Payload<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    call_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
}

/// Reads a session's threads and decides its runs and their links.
pub(crate) fn plan(files: &SessionFiles) -> Result<SessionPlan, ImportError> {
    let mut notes = Vec::new();
    let paths: Vec<&PathBuf> = files.main.iter().chain(&files.subagents).collect();
    let heads: Vec<Head> = paths
        .iter()
        .map(|path| head(path).ok_or_else(|| not_a_rollout(path)))
        .collect::<Result<_, _>>()?;
    let children: Vec<String> = heads.iter().skip(1).map(|h| h.id.clone()).collect();
    let mut threads = Vec::with_capacity(paths.len());
    for (path, head) in paths.iter().zip(heads) {
        threads.push(read(path, head, &children)?);
    }
    // The session's root: the main file's thread, else the top of the chain (whose own
    // parent's file is missing).
    let root_id = match &files.main {
        Some(_) => threads[0].head.id.clone(),
        None => {
            let top = &threads[0].head;
            notes.push(Note {
                file: threads[0].path.clone(),
                line: top.line,
                kind: NoteKind::OrphanSubagentFile,
                message: format!(
                    "sub-agent thread whose parent thread {} has no file here; the session is made of its own",
                    top.parent.as_deref().unwrap_or("(unnamed)")
                ),
            });
            top.parent.clone().unwrap_or_else(|| top.id.clone())
        }
    };
    let session_id = sanitize(&root_id);
    let mut runs: Vec<RunPlan> = threads
        .iter()
        .map(|thread| {
            let run_id = if files.main.is_some() && thread.head.id == root_id {
                session_id.clone()
            } else {
                format!("{session_id}.agent-{}", sanitize(&thread.head.id))
            };
            run_of(thread, run_id, &mut notes)
        })
        .collect();
    ids::unique(runs.iter_mut().map(|r| &mut r.run_id));
    let (parents, spawns) = link(&threads, &runs, &mut notes);
    Ok(SessionPlan {
        session_id: runs[0].run_id.clone(),
        runs,
        parents,
        spawns,
        notes,
    })
}

fn not_a_rollout(path: &Path) -> ImportError {
    let reason = match std::fs::metadata(path) {
        Ok(meta) if meta.len() == 0 => "the file is empty".to_owned(),
        _ => "no `session_meta` record among its first lines".to_owned(),
    };
    ImportError::NotASession {
        format: "Codex rollout",
        path: path.to_owned(),
        line: 0,
        offset: 0,
        reason,
    }
}

/// A thread's skeleton: its records' places and times, its calls, and which outputs name
/// one of `children`.
fn read(path: &Path, head: Head, children: &[String]) -> Result<Thread, ImportError> {
    let mut records = Vec::new();
    let mut inherited = 0;
    let mut spawned = Vec::new();
    let mut spawn_calls = HashMap::new();
    let mut missing = Vec::new();
    let mut ordinal = 0u64;
    scan(path, |line| {
        let at = ordinal;
        ordinal += 1;
        // The copy of the parent's conversation a sub-agent or fork starts with; its own
        // `session_meta` (the first) stays.
        if head.own_from.is_some_and(|own| at < own) && line.number != head.line {
            inherited += 1;
            return;
        }
        let skeleton = skeleton(line.bytes);
        let timestamp = skeleton
            .timestamp
            .as_deref()
            .and_then(|t| Timestamp::parse(t).ok());
        if skeleton.kind.as_deref() == Some("response_item")
            && let Some(payload) = &skeleton.payload
            && let Some(call) = payload.call_id.as_deref()
        {
            match payload.kind.as_deref() {
                Some(kind) if kind.ends_with("_output") => {
                    let before = spawned.len();
                    for child in children {
                        if memchr::memmem::find(line.bytes, child.as_bytes()).is_some() {
                            spawned.push((call.to_owned(), child.clone()));
                        }
                    }
                    if spawned.len() == before
                        && let Some(call_line) = spawn_calls.get(call)
                        && let Some(thread) = thread_id_in(line.bytes)
                    {
                        missing.push((call.to_owned(), thread, *call_line));
                    }
                }
                _ if payload.name.as_deref() == Some("spawn_agent") => {
                    spawn_calls.insert(call.to_owned(), line.number);
                }
                _ => {}
            }
        }
        records.push(Record {
            line: line.number,
            range: line.range,
            timestamp,
        });
    })?;
    Ok(Thread {
        path: path.to_owned(),
        head,
        records,
        inherited,
        spawned,
        missing,
    })
}

/// A record's skeleton: skimmed, else (an escaped key or field, ...) read by serde_json,
/// which skims nothing differently; a record that is no JSON object has none.
fn skeleton(bytes: &[u8]) -> Skeleton<'_> {
    skim_skeleton(bytes).unwrap_or_else(|| serde_json::from_slice(bytes).unwrap_or_default())
}

/// The skeleton, [`skim`](crate::normalize::skim)med: the plan of a 20 MiB rollout took 134M
/// instructions so, 185M read by serde_json (callgrind; most of them skipping the outputs'
/// escaped strings).
fn skim_skeleton(bytes: &[u8]) -> Option<Skeleton<'_>> {
    let mut skim = Skim::new(bytes);
    let (mut timestamp, mut kind, mut payload) = (None, None, None);
    skim.object(|skim, key| match key {
        "timestamp" => once(&mut timestamp, skim.str_or_null()?),
        "type" => once(&mut kind, skim.str_or_null()?),
        "payload" => {
            let read = if skim.null() {
                None
            } else {
                let (mut kind, mut call_id, mut name) = (None, None, None);
                skim.object(|skim, key| match key {
                    "type" => once(&mut kind, skim.str_or_null()?),
                    "call_id" => once(&mut call_id, skim.str_or_null()?),
                    "name" => once(&mut name, skim.str_or_null()?),
                    _ => skim.skip(),
                })?;
                Some(Payload {
                    kind: kind.flatten().map(Cow::Borrowed),
                    call_id: call_id.flatten().map(Cow::Borrowed),
                    name: name.flatten().map(Cow::Borrowed),
                })
            };
            once(&mut payload, read)
        }
        _ => skim.skip(),
    })?;
    skim.end()?;
    Some(Skeleton {
        timestamp: timestamp.flatten().map(Cow::Borrowed),
        kind: kind.flatten().map(Cow::Borrowed),
        payload: payload.flatten(),
    })
}

/// The first thread id (a UUID, as Codex writes them) in an output.
fn thread_id_in(bytes: &[u8]) -> Option<String> {
    const SHAPE: [usize; 5] = [8, 4, 4, 4, 12];
    let hex = |b: &u8| b.is_ascii_hexdigit();
    (0..bytes.len().saturating_sub(35)).find_map(|start| {
        let candidate = &bytes[start..start + 36];
        let mut at = 0;
        for (group, len) in SHAPE.iter().enumerate() {
            if !candidate[at..at + len].iter().all(hex) {
                return None;
            }
            at += len;
            if group < 4 {
                if candidate[at] != b'-' {
                    return None;
                }
                at += 1;
            }
        }
        let edge = |b: Option<&u8>| b.is_none_or(|b| !b.is_ascii_alphanumeric());
        (edge(start.checked_sub(1).and_then(|i| bytes.get(i))) && edge(bytes.get(start + 36)))
            .then(|| String::from_utf8_lossy(candidate).into_owned())
    })
}

/// A thread's run: every own record fed to the Codex adapter, and its account.
fn run_of(thread: &Thread, run_id: String, notes: &mut Vec<Note>) -> RunPlan {
    let head = &thread.head;
    let mut run = RunPlan::new(run_id, Provider::Codex, thread.path.clone());
    for record in &thread.records {
        let mut feed = Feed::at(What::Entry, record.line, record.range.clone());
        feed.timestamp = record.timestamp.clone();
        run.feed_mut().push(feed);
    }
    run.session_id = Some(head.id.clone());
    run.version = head.cli_version.clone();
    let mut import = Map::new();
    import.insert("format".into(), "codex-rollout".into());
    import.insert(
        "source".into(),
        thread
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .into(),
    );
    import.insert(
        "entries".into(),
        (thread.records.len() as u64 + thread.inherited).into(),
    );
    import.insert("thread".into(), thread.records.len().into());
    let mut kept_out = BTreeMap::new();
    if thread.inherited > 0 {
        kept_out.insert("inherited", thread.inherited);
        notes.push(Note {
            file: thread.path.clone(),
            line: head.line,
            kind: NoteKind::KeptOut,
            message: format!(
                "{} {} inherited from the parent thread kept out of this one (they are the parent's run)",
                thread.inherited,
                if thread.inherited == 1 { "record" } else { "records" }
            ),
        });
    }
    import.insert("kept_out".into(), serde_json::json!(kept_out));
    let optional = [
        ("cwd", &head.cwd),
        ("originator", &head.originator),
        ("parent_thread_id", &head.parent),
        ("forked_from_id", &head.forked_from),
        ("agent_nickname", &head.nickname),
        ("agent_role", &head.role),
    ];
    for (key, value) in optional {
        if let Some(value) = value {
            import.insert(key.into(), value.clone().into());
        }
    }
    if !head.source.is_null() {
        import.insert("agent_source".into(), head.source.clone());
    }
    run.import = import;
    run.kept_out = kept_out;
    run
}

/// Who spawned whom: each child thread under its parent thread's run (the root's, when its
/// parent is not in the session), at the call whose output names it.
fn link(
    threads: &[Thread],
    runs: &[RunPlan],
    notes: &mut Vec<Note>,
) -> (Vec<Option<usize>>, Vec<Vec<Spawn>>) {
    let mut parents = vec![None; threads.len()];
    let mut spawns: Vec<Vec<Spawn>> = threads.iter().map(|_| Vec::new()).collect();
    let by_id: HashMap<&str, usize> = threads
        .iter()
        .enumerate()
        .map(|(at, t)| (t.head.id.as_str(), at))
        .collect();
    for (at, thread) in threads.iter().enumerate().skip(1) {
        let parent = thread
            .head
            .parent
            .as_deref()
            .and_then(|p| by_id.get(p).copied())
            .filter(|p| *p != at)
            .unwrap_or(0);
        parents[at] = Some(parent);
        let call = threads[parent]
            .spawned
            .iter()
            .find(|(_, child)| *child == thread.head.id)
            .map(|(call, _)| call.clone());
        let name = thread
            .head
            .role
            .clone()
            .or_else(|| thread.head.nickname.clone())
            .or_else(|| subagent_kind(&thread.head.source))
            .unwrap_or_else(|| "subagent".into());
        spawns[parent].push(Spawn {
            call,
            child: runs[at].run_id.clone(),
            name,
        });
    }
    // A spawn_agent call whose output names a thread the session has no file of.
    for thread in threads {
        for (call, child, line) in &thread.missing {
            notes.push(Note {
                file: thread.path.clone(),
                line: *line,
                kind: NoteKind::MissingSubagent,
                message: format!(
                    "call {call} spawned thread {child}, which has no file here; the call stays a call"
                ),
            });
        }
    }
    (parents, spawns)
}

/// `review`, `compact`, `guardian`: what a sub-agent thread that names no role is.
fn subagent_kind(source: &Value) -> Option<String> {
    match source.get("subagent")? {
        Value::String(kind) => Some(kind.clone()),
        Value::Object(fields) => match fields.get("other") {
            Some(Value::String(other)) => Some(other.clone()),
            _ => fields.keys().next().cloned(),
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINES: [&str; 4] = [
        r#"{"timestamp":"2026-03-14T09:00:01.000Z","type":"response_item","payload":{"type":"function_call","name":"spawn_agent","arguments":"{\"a\":[1,2.5e3,null]}","call_id":"call_1"}}"#,
        r#"{"timestamp":"2026-03-14T09:00:02.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"line\nnext \"q\" \u001b[0m"}}"#,
        r#"{"timestamp":"2026-03-14T09:00:03.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total":{"input_tokens":12,"cached":0}},"rate_limits":null}}"#,
        r#" {"type":"session_meta","payload":null,"timestamp":null,"extra":[true,false,{}]} "#,
    ];

    fn serde(bytes: &[u8]) -> Skeleton<'_> {
        serde_json::from_slice(bytes).unwrap_or_default()
    }

    #[test]
    fn the_skim_reads_the_skeleton_serde_json_reads() {
        for line in LINES {
            let skimmed = skim_skeleton(line.as_bytes());
            assert_eq!(skimmed, Some(serde(line.as_bytes())), "{line}");
        }
        assert_eq!(
            skeleton(LINES[0].as_bytes())
                .payload
                .unwrap()
                .name
                .as_deref(),
            Some("spawn_agent")
        );
    }

    /// An escaped key, an escaped field, a field twice, a payload that is an array or a
    /// number: the skim gives up, and serde_json decides as it always did.
    #[test]
    fn what_the_skim_gives_up_serde_json_reads() {
        let escaped_key = r#"{"timestamp":"2026-03-14T09:00:01Z","\u0074ype":"response_item","payload":{"type":"function_call_output","call_id":"c"}}"#;
        assert_eq!(skim_skeleton(escaped_key.as_bytes()), None);
        let read = skeleton(escaped_key.as_bytes());
        assert_eq!(read.kind.as_deref(), Some("response_item"));
        assert_eq!(read.payload.unwrap().call_id.as_deref(), Some("c"));
        let others = [
            r#"{"timestamp":"2026-03-14T09:00:01\u005a","type":"x"}"#,
            r#"{"timestamp":"a","timestamp":"b"}"#,
            r#"{"payload":{"name":"a","name":"b"},"timestamp":"t"}"#,
            r#"{"payload":["function_call","c","n"],"timestamp":"t"}"#,
            r#"{"payload":5,"timestamp":"t"}"#,
            r#"{"timestamp":5}"#,
            r#"["t","response_item",null]"#,
        ];
        for line in others {
            assert_eq!(skim_skeleton(line.as_bytes()), None, "{line}");
        }
        assert_eq!(
            skeleton(others[0].as_bytes()).timestamp.as_deref(),
            Some("2026-03-14T09:00:01Z")
        );
        assert_eq!(skeleton(others[1].as_bytes()), Skeleton::default());
        assert_eq!(
            skeleton(others[3].as_bytes())
                .payload
                .unwrap()
                .name
                .as_deref(),
            Some("n")
        );
        assert_eq!(
            skeleton(others[6].as_bytes()).kind.as_deref(),
            Some("response_item")
        );
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
                for byte in [b'"', b'\\', b'}', b',', b'0', b'\n', 0x01, b'x'] {
                    changed[at] = byte;
                    for damaged in [&short, &changed] {
                        if let Some(skimmed) = skim_skeleton(damaged) {
                            let read: Result<Skeleton<'_>, _> = serde_json::from_slice(damaged);
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
        assert!(checked > 1000);
    }
}
