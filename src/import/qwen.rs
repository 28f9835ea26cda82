//! Qwen Code's sessions: `~/.qwen/projects/<project>/chats/<session id>.jsonl`, one
//! `ChatRecord` a line (`{uuid, parentUuid, sessionId, timestamp, type, message, ...}`,
//! Qwen Code's `chatRecordingService.ts`; the corpus follows 0.13.2).
//!
//! # What a session becomes
//!
//! A session file is a run, its run id the session's id. Qwen Code is a fork of Gemini CLI
//! and its records hold Gemini API `Content`: each `user`, `assistant` and `tool_result`
//! record with a `message` is fed to the Gemini adapter's session room
//! ([`normalize::gemini`](crate::normalize::gemini)) as the Gemini CLI message record it
//! stands for (`{id, timestamp, type, content: parts, tokens, model}`, made by this file:
//! `usageMetadata`'s `promptTokenCount` (cached included), `cachedContentTokenCount`,
//! `candidatesTokenCount`, `thoughtsTokenCount`, `toolUsePromptTokenCount` as Gemini CLI's
//! `tokens`), so that the content is read by one mapping. The run's provider is therefore
//! `gemini`; `import.format` (`qwen-code-session`) says whose file it was.
//!
//! * `system` records (compression checkpoints, slash commands, telemetry, titles,
//!   rewinds, ...) are passthrough: what was delivered stays in the run.
//! * A background sub-agent's records (`isSidechain` with its `agentId`) are a child run
//!   `<session>.agent-<agentId>`, linked before the parent closes.
//! * A line that is no JSON is fed as it is, for the adapter to report.
//!
//! The run's `import` account: `format`, `source`, `entries`, `thread`, `kept_out`, and
//! `cwd`, `version` (Qwen Code's), `agent_id` for a sub-agent.
//!
//! This file owns the layout and the translation of a record into the message it stands
//! for; the content's meaning is the adapter's.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::entries::{files_under, first_string, no_entries, scan};
use super::feed::{self, Feed, RunPlan, SessionPlan, Spawn, What};
use super::ids::{self, sanitize};
use super::session::{ImportError, SessionFiles};
use crate::model::{Provider, Timestamp};

/// The sessions under `path`: a session file, or a directory searched recursively for
/// `chats/*.jsonl`. Sorted.
pub(crate) fn discover(path: &Path) -> io::Result<Vec<SessionFiles>> {
    let meta = std::fs::metadata(path)?;
    let mut files = Vec::new();
    if meta.is_file() {
        files.push(path.to_owned());
    } else {
        files_under(path, &mut files);
        files.retain(|file| {
            file.extension().is_some_and(|e| e == "jsonl")
                && file.parent().and_then(Path::file_name) == Some("chats".as_ref())
        });
        files.sort();
    }
    Ok(files.into_iter().map(SessionFiles::alone).collect())
}

/// The working directory a session ran in: its first record's `cwd`.
pub(crate) fn cwd(path: &Path) -> Option<PathBuf> {
    first_string(path, 8, "/cwd").map(PathBuf::from)
}

/// The records of one run, as they are planned.
#[derive(Default)]
struct Thread {
    feed: Vec<Feed>,
}

/// Reads a session file and decides its runs: the session's, and one per sub-agent.
pub(crate) fn plan(files: &SessionFiles) -> Result<SessionPlan, ImportError> {
    let path = files.main.as_deref().unwrap_or(Path::new(""));
    let mut root = Thread::default();
    let mut agents: BTreeMap<String, Thread> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    let (mut session_id, mut cwd, mut version) = (None, None, None);
    let mut entries = 0u64;
    let scanned = scan(path, |line| {
        entries += 1;
        let Ok(record) = serde_json::from_slice::<Value>(line.bytes) else {
            root.feed
                .push(Feed::at(What::Entry, line.number, line.range.clone()));
            return;
        };
        let text = |key: &str| record.get(key).and_then(Value::as_str).map(str::to_owned);
        session_id = session_id.take().or_else(|| text("sessionId"));
        cwd = cwd.take().or_else(|| text("cwd"));
        version = version.take().or_else(|| text("version"));
        let mut feed = match message_record(&record) {
            Some(made) => Feed::made(&made, line.number, line.range.clone()),
            None => Feed::at(
                What::Keep("qwen-code/record"),
                line.number,
                line.range.clone(),
            ),
        };
        feed.timestamp = text("timestamp").and_then(|t| Timestamp::parse(&t).ok());
        let agent = text("agentId").filter(|_| record.get("isSidechain") == Some(&json!(true)));
        match agent {
            Some(agent) => {
                if !agents.contains_key(&agent) {
                    order.push(agent.clone());
                }
                agents.entry(agent).or_default().feed.push(feed);
            }
            None => root.feed.push(feed),
        }
    })?;
    if entries == 0 {
        return Err(no_entries("Qwen Code session file", path, &scanned));
    }
    let fallback = path.file_stem().unwrap_or_default().to_string_lossy();
    let session = sanitize(session_id.as_deref().unwrap_or(&fallback));
    let account = |fed: usize| {
        let mut import = feed::account("qwen-code-session", path, entries, fed as u64);
        import.insert("kept_out".into(), json!({}));
        if let Some(cwd) = &cwd {
            import.insert("cwd".into(), cwd.clone().into());
        }
        if let Some(version) = &version {
            import.insert("version".into(), version.clone().into());
        }
        import
    };
    let mut runs = Vec::with_capacity(1 + agents.len());
    let mut run = RunPlan::new(session.clone(), Provider::Gemini, path.to_owned());
    run.import = account(root.feed.len());
    run.session_id = session_id.clone();
    *run.feed_mut() = root.feed;
    runs.push(run);
    for agent in &order {
        let thread = agents.remove(agent).unwrap_or_default();
        let id = format!("{session}.agent-{}", sanitize(agent));
        let mut run = RunPlan::new(id, Provider::Gemini, path.to_owned());
        run.import = account(thread.feed.len());
        run.import.insert("agent_id".into(), agent.clone().into());
        run.session_id = session_id.clone();
        *run.feed_mut() = thread.feed;
        runs.push(run);
    }
    ids::unique(runs.iter_mut().map(|r| &mut r.run_id));
    let mut parents = vec![None; runs.len()];
    let mut spawns: Vec<Vec<Spawn>> = runs.iter().map(|_| Vec::new()).collect();
    for (at, agent) in order.iter().enumerate() {
        parents[at + 1] = Some(0);
        spawns[0].push(Spawn {
            call: None,
            child: runs[at + 1].run_id.clone(),
            name: agent.clone(),
        });
    }
    Ok(SessionPlan {
        session_id: runs[0].run_id.clone(),
        runs,
        parents,
        spawns,
        notes: Vec::new(),
    })
}

/// The Gemini CLI message record a Qwen Code record with a `message` stands for; `None`
/// for any other record.
fn message_record(record: &Value) -> Option<Value> {
    let kind = match record.get("type")?.as_str()? {
        "assistant" => "gemini",
        "user" | "tool_result" => "user",
        _ => return None,
    };
    let parts = record.pointer("/message/parts")?.clone();
    let mut made = json!({
        "id": record.get("uuid").cloned().unwrap_or(Value::Null),
        "timestamp": record.get("timestamp").cloned().unwrap_or(Value::Null),
        "type": kind,
        "content": parts,
    });
    if let Some(model) = record.get("model") {
        made["model"] = model.clone();
    }
    if let Some(usage) = record.get("usageMetadata").filter(|u| u.is_object()) {
        let count = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
        made["tokens"] = json!({
            "input": count("promptTokenCount"),
            "cached": count("cachedContentTokenCount"),
            "output": count("candidatesTokenCount"),
            "thoughts": count("thoughtsTokenCount"),
            "tool": count("toolUsePromptTokenCount"),
        });
    }
    Some(made)
}
