//! A thread: the entries of one run as they will be fed to the adapter, with the run's
//! `import` metadata, made from a selection of a log's entries; and the `kept-out` report
//! of what the selection left out.
//!
//! This file owns `Thread` and `Feed` and what a selection becomes; which entries are
//! selected is `select`'s, linking threads is `link`'s.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use serde_json::{Map, Value, json};

use super::log::{Entry, Kind, Log, Task};
use super::select::Selection;
use crate::import::feed::{Feed, RunPlan, What};
use crate::import::session::{Note, NoteKind};
use crate::model::{Provider, Usage};
use crate::normalize::claude;

/// A thread to transcribe: the entries of one run, before linking.
pub(super) struct Thread {
    /// What is fed to the adapter, the run's id, source and `import` account.
    pub(super) run: RunPlan,
    /// The sub-agent's id, for linking (`None` for the root).
    pub(super) agent: Option<String>,
    /// The sub-agent's name (its `agentType` or the spawning call's `subagent_type`).
    pub(super) name: Option<String>,
    /// The hash of the first user text, to link by prompt when ids do not say.
    pub(super) prompt: Option<u128>,
    /// Tool call id -> the agent id its result names.
    pub(super) spawned: HashMap<String, String>,
    /// The `Task` / `Agent` calls of the thread, in order.
    pub(super) calls: Vec<Task>,
}

impl Thread {
    /// A thread of Claude Code records from `source`, nothing fed yet.
    pub(super) fn new(run_id: String, source: PathBuf) -> Thread {
        let mut run = RunPlan::new(run_id, Provider::Claude, source);
        run.off_chain_usage = Some(off_chain_usage);
        Thread {
            run,
            agent: None,
            name: None,
            prompt: None,
            spawned: HashMap::new(),
            calls: Vec::new(),
        }
    }
}

/// An entry of the log as fed to the adapter.
pub(super) fn feed(what: What, entry: &Entry) -> Feed {
    let mut feed = Feed::at(what, entry.line, entry.range.clone());
    feed.timestamp = entry.timestamp.clone();
    feed
}

/// A record the importer made to stand for `entry`.
pub(super) fn made(value: &Value, entry: &Entry) -> Feed {
    let mut feed = Feed::made(value, entry.line, entry.range.clone());
    feed.timestamp = entry.timestamp.clone();
    feed
}

/// An off-chain assistant entry's message id and last usage snapshot: its tokens were
/// spent, and are added up apart.
fn off_chain_usage(entry: &Value) -> Option<(String, Usage)> {
    if entry.get("type").and_then(Value::as_str) != Some("assistant") {
        return None;
    }
    let id = entry.pointer("/message/id").and_then(Value::as_str)?;
    let usage = entry
        .pointer("/message/usage")
        .and_then(claude::message_usage)?;
    Some((id.to_owned(), usage))
}

/// A thread from the selected entries of a log; the unselected ones of the same group
/// (sidechain entries are their own groups) become off-chain metadata.
pub(super) fn thread_from(
    log: &Log,
    selection: &Selection,
    run_id: String,
    agent: Option<String>,
    notes: &mut Vec<Note>,
) -> Thread {
    let entries = &log.entries;
    let selected = &selection.entries;
    let sidechain = agent.is_some();
    let mut fed = Vec::with_capacity(selected.len());
    let mut prompt = None;
    let mut spawned = HashMap::new();
    let mut calls = Vec::new();
    let mut session_id = None;
    let mut version = None;
    let mut cwd = None;
    let mut branch = None;
    let mut compactions = 0u64;
    for at in selected {
        let entry = &entries[*at];
        session_id = session_id.or(entry.session_id);
        version = entry.version.or(version);
        cwd = cwd.or(entry.cwd);
        branch = branch.or(entry.git_branch);
        if entry.kind == Kind::System && log.of(entry.subtype) == Some("compact_boundary") {
            compactions += 1;
            notes.push(Note {
                file: log.path.clone(),
                line: entry.line,
                kind: NoteKind::Compaction,
                message: "compact boundary: what came before the compaction stays in the run"
                    .into(),
            });
        }
        if entry.compact_summary {
            fed.push(feed(What::Keep("axt-import/compact-summary"), entry));
            continue;
        }
        if entry.kind == Kind::User {
            if prompt.is_none() {
                prompt = entry.prompt();
            }
            // A Task result names the sub-agent it came from: `toolUseResult.agentId`, or
            // (Claude Code 2.0) the entry's own `agentId` on the main thread.
            let named = (log.of(entry.result_agent))
                .or_else(|| log.of(entry.agent_id).filter(|_| !sidechain));
            if let Some(named) = named {
                for id in log.strings.ids(entry.tool_results) {
                    spawned.insert(id.to_owned(), named.to_owned());
                }
            }
        }
        if entry.kind == Kind::Assistant {
            calls.extend(log.strings.tasks(entry.tasks).iter().cloned());
        }
        fed.push(feed(What::Entry, entry));
    }
    // Entries kept out of the thread go to the run's metadata, and a note says what and how
    // much (their usage is added up apart as they stream).
    let mut kept_out: BTreeMap<&'static str, KeptOut> = BTreeMap::new();
    for (at, reason) in &selection.kept_out {
        let entry = &entries[*at];
        let count = kept_out.entry(reason).or_default();
        count.entries += 1;
        count.messages += u64::from(entry.is_written());
        count.calls += entry.tool_uses.len() as u64;
        count.results += entry.tool_results.len() as u64;
        // Kept at the end of the run, so their times must not move its clock back.
        let mut note = feed(What::OffChain(reason), entry);
        note.timestamp = None;
        fed.push(note);
    }
    if let Some((first, _)) = selection.kept_out.first() {
        let total = selection.kept_out.len();
        let reasons: Vec<String> = kept_out
            .iter()
            .map(|(reason, count)| format!("{reason} {}", count.describe()))
            .collect();
        notes.push(Note {
            file: log.path.clone(),
            line: entries[*first].line,
            kind: NoteKind::KeptOut,
            message: format!(
                "{total} {} kept out of the thread, as off-chain metadata: {}",
                if total == 1 { "entry" } else { "entries" },
                reasons.join(", ")
            ),
        });
    }
    let mut import = Map::new();
    import.insert("format".into(), "claude-code-session".into());
    import.insert(
        "source".into(),
        log.path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .into(),
    );
    import.insert("entries".into(), entries.len().into());
    import.insert("thread".into(), selected.len().into());
    import.insert("off_chain".into(), selection.kept_out.len().into());
    let counts: BTreeMap<&str, u64> = kept_out.iter().map(|(r, c)| (*r, c.entries)).collect();
    import.insert("kept_out".into(), json!(counts));
    import.insert("rejoined".into(), json!(selection.rejoined));
    import.insert("compactions".into(), compactions.into());
    if let Some(cwd) = log.of(cwd) {
        import.insert("cwd".into(), cwd.into());
    }
    if let Some(branch) = log.of(branch) {
        import.insert("git_branch".into(), branch.into());
    }
    if let Some(agent) = &agent {
        import.insert("agent_id".into(), agent.clone().into());
    }
    let mut thread = Thread::new(run_id, log.path.clone());
    thread.run.import = import;
    thread.run.session_id = log.of(session_id).map(str::to_owned);
    thread.run.version = log.of(version).map(str::to_owned);
    thread.run.kept_out = kept_out.iter().map(|(r, c)| (*r, c.entries)).collect();
    *thread.run.feed_mut() = fed;
    thread.agent = agent;
    thread.prompt = prompt;
    thread.spawned = spawned;
    thread.calls = calls;
    thread
}

/// What the entries kept out of a thread for one reason hold.
#[derive(Default)]
struct KeptOut {
    entries: u64,
    /// Messages the user or the model wrote.
    messages: u64,
    calls: u64,
    results: u64,
}

impl KeptOut {
    /// `3 (2 messages: 1 tool call, 1 tool result)`.
    fn describe(&self) -> String {
        let plural =
            |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let mut text = self.entries.to_string();
        if self.messages > 0 {
            text.push_str(&format!(
                " ({}",
                plural(self.messages, "message", "messages")
            ));
            let mut tools = Vec::new();
            if self.calls > 0 {
                tools.push(plural(self.calls, "tool call", "tool calls"));
            }
            if self.results > 0 {
                tools.push(plural(self.results, "tool result", "tool results"));
            }
            if !tools.is_empty() {
                text.push_str(&format!(": {}", tools.join(", ")));
            }
            text.push(')');
        }
        text
    }
}
