//! A thread: the entries of one run as they will be fed to the adapter, with the run's
//! `import` metadata, made from a selection of a log's entries; and the `kept-out` report
//! of what the selection left out.
//!
//! This room owns `Thread` and `Feed` and what a selection becomes; which entries are
//! selected is `select`'s, linking threads is `link`'s.

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::path::PathBuf;

use serde_json::{Map, Value, json};

use super::log::{Entry, Log, Task};
use super::select::Selection;
use super::session::{Note, NoteKind};
use crate::model::Timestamp;

/// A thread to transcribe: the entries of one run, before linking.
pub(super) struct Thread {
    pub(super) run_id: String,
    /// The sub-agent's id, for linking (`None` for the root).
    pub(super) agent: Option<String>,
    pub(super) source: PathBuf,
    /// Lines to feed the adapter, with where they came from.
    pub(super) feed: Vec<Feed>,
    /// Metadata merged into `run.completed`'s result under `import`.
    pub(super) import: Map<String, Value>,
    /// The sub-agent's name (its `agentType` or the spawning call's `subagent_type`).
    pub(super) name: Option<String>,
    /// The hash of the first user text, to link by prompt when ids do not say.
    pub(super) prompt: Option<u128>,
    /// Tool call id -> the agent id its result names.
    pub(super) spawned: HashMap<String, String>,
    /// The `Task` / `Agent` calls of the thread, in order.
    pub(super) calls: Vec<Task>,
    /// `(session, version, cwd, branch)` for the run metadata.
    pub(super) session_id: Option<String>,
    pub(super) version: Option<String>,
    /// Entries of the thread's group kept out of it, by reason.
    pub(super) kept_out: BTreeMap<&'static str, u64>,
}

/// What one line fed to the adapter is.
pub(super) enum What {
    /// The entry itself, read again from the file.
    Entry,
    /// A compaction summary, kept as passthrough.
    CompactSummary,
    /// An entry off the thread (`rewound`, `side-branch`, `duplicate`), kept as passthrough.
    OffChain(&'static str),
    /// A line made by the importer.
    Bytes(Vec<u8>),
}

/// One line fed to the adapter.
pub(super) struct Feed {
    pub(super) what: What,
    /// The file's line and the entry's bytes.
    pub(super) line: u64,
    pub(super) range: Range<usize>,
    pub(super) timestamp: Option<Timestamp>,
}

impl Feed {
    fn entry(what: What, entry: &Entry) -> Feed {
        Feed {
            what,
            line: entry.line,
            range: entry.range.clone(),
            timestamp: entry.timestamp.clone(),
        }
    }

    pub(super) fn note(value: Value, entry: &Entry) -> Feed {
        let bytes = serde_json::to_vec(&value).expect("a JSON value serializes");
        Feed::entry(What::Bytes(bytes), entry)
    }

    pub(super) fn offset(&self) -> u64 {
        self.range.start as u64
    }

    /// The file's bytes the line fed stands for: the entry's. A line the importer made
    /// stands for its entry, whatever its own length.
    pub(super) fn span(&self) -> Range<u64> {
        self.range.start as u64..self.range.end as u64
    }
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
    let mut feed = Vec::with_capacity(selected.len());
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
        session_id = session_id.or(entry.session_id.clone());
        version = entry.version.clone().or(version);
        cwd = cwd.or(entry.cwd.clone());
        branch = branch.or(entry.git_branch.clone());
        if entry.kind == "system" && entry.subtype.as_deref() == Some("compact_boundary") {
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
            feed.push(Feed::entry(What::CompactSummary, entry));
            continue;
        }
        if entry.kind == "user" {
            if prompt.is_none() {
                prompt = entry.prompt;
            }
            // A Task result names the sub-agent it came from: `toolUseResult.agentId`, or
            // (Claude Code 2.0) the entry's own `agentId` on the main thread.
            let named = entry
                .result_agent
                .clone()
                .or_else(|| entry.agent_id.clone().filter(|_| !sidechain));
            if let Some(named) = named {
                for id in &entry.tool_results {
                    spawned.insert(id.clone(), named.clone());
                }
            }
        }
        if entry.kind == "assistant" {
            calls.extend(entry.tasks.iter().cloned());
        }
        feed.push(Feed::entry(What::Entry, entry));
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
        let mut note = Feed::entry(What::OffChain(reason), entry);
        note.timestamp = None;
        feed.push(note);
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
    if let Some(cwd) = cwd {
        import.insert("cwd".into(), cwd.into());
    }
    if let Some(branch) = branch {
        import.insert("git_branch".into(), branch.into());
    }
    if let Some(agent) = &agent {
        import.insert("agent_id".into(), agent.clone().into());
    }
    Thread {
        run_id,
        agent,
        source: log.path.clone(),
        feed,
        import,
        name: None,
        prompt,
        spawned,
        calls,
        session_id,
        version,
        kept_out: kept_out.iter().map(|(r, c)| (*r, c.entries)).collect(),
    }
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
