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
        let head: Head<'_> = serde_json::from_slice(line.bytes).unwrap_or_default();
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
        let at = *by_agent.entry(agent.to_string()).or_insert_with(|| {
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
            agents.len() - 1
        });
        feed.what = What::EntryWithout("agentId");
        agents[at].feed.push(feed);
    })?;
    if entries == 0 {
        return Err(no_entries("Copilot session log", path, &scanned));
    }
    let fallback = path
        .parent()
        .filter(|_| path.file_name() == Some("events.jsonl".as_ref()))
        .and_then(Path::file_name)
        .or_else(|| path.file_stem())
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "session".into());
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
