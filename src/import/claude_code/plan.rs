//! Converting a session: from the skeletons of its logs to its plan, the threads to
//! transcribe (the session log's root and sidechains, every agent log), their run ids and
//! who spawned whom; no event is made yet.
//!
//! This file owns the session's run ids, the grouping of in-file sidechains and the order
//! of the steps; it delegates choosing entries (`select`), building threads (`thread`,
//! `simplified`) and linking (`link`).

// foldhash, not std's SipHash: every entry's uuid is hashed into the index and looked up
// as threads are walked (SipHash was 2.6% of a Claude Code import's instructions); the
// tables are still seeded per process (foldhash's RandomState), as std's are.
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use serde_json::Value;

use super::discover::{agent_session, session_dir_id};
use super::link::{link, root_agent};
use super::log::{Log, check, is_simplified};
use super::select::select;
use super::simplified::simplified_thread;
use super::thread::{Thread, thread_from};
use super::workflow;
use crate::import::feed::{SessionPlan, Spawn};
use crate::import::ids::{self, sanitize};
use crate::import::session::{ImportError, Note, NoteKind, SessionFiles};

/// Reads the skeletons of a session's files and decides its runs and their links.
pub(crate) fn plan(files: &SessionFiles) -> Result<SessionPlan, ImportError> {
    let mut notes = Vec::new();
    let mut threads = Vec::new();
    let main_log = files.main.as_deref().map(Log::read).transpose()?;
    if let Some(log) = &main_log {
        check(log)?;
    }
    // Without a session log the session is its `<session>` directory, so that two sessions
    // with an `agent-a.jsonl` each name different runs.
    let fallback_id = match &files.main {
        Some(main) => main.file_stem().map(|s| s.to_string_lossy().into_owned()),
        None => files.subagents.first().and_then(|f| {
            session_dir_id(f).or_else(|| Some(f.file_stem()?.to_string_lossy().into_owned()))
        }),
    }
    .unwrap_or_else(|| "session".to_owned());
    let session_id = main_log
        .as_ref()
        .filter(|log| !is_simplified(log))
        .and_then(|log| log.entries.iter().find_map(|e| log.of(e.session_id)))
        .map(str::to_owned)
        .unwrap_or_else(|| fallback_id.clone());
    // An id of nothing but unsafe characters (`""`, `".."`) names no file: the file's instead.
    let session_id = Some(sanitize(&session_id))
        .filter(|id| !id.is_empty())
        .unwrap_or_else(|| sanitize(&fallback_id));
    let session_id = if session_id.is_empty() {
        "session".to_owned()
    } else {
        session_id
    };
    let simplified_note = |log: &Log| Note {
        file: log.path.clone(),
        line: 0,
        kind: NoteKind::SimplifiedFormat,
        message: "read as the simplified event format (tool_use / tool_result / text lines)".into(),
    };

    if let Some(log) = &main_log {
        if is_simplified(log) {
            notes.push(simplified_note(log));
            threads.push(simplified_thread(log, &session_id)?);
        } else {
            threads.extend(session_threads(log, &session_id, &mut notes));
        }
    }
    // The first agent log refused as no session log: the session's error when nothing else
    // of it could be read.
    let mut refused: Option<ImportError> = None;
    for file in &files.subagents {
        let layout = agent_session(file).map(|(_, layout)| layout);
        let stem = file.file_stem().unwrap_or_default().to_string_lossy();
        if workflow::is_journal(file) {
            // A workflow's journal: its own run (`workflow`), after the agents' logs.
            continue;
        }
        if layout == Some("subagents") && !stem.starts_with("agent-") {
            // Beside the agent logs (a workflow's journal.jsonl, ...): not an agent's log.
            notes.push(Note {
                file: file.clone(),
                line: 0,
                kind: NoteKind::NotAnAgentLog,
                message: "in subagents/ but not named agent-<id>.jsonl; not imported".into(),
            });
            continue;
        }
        let log = Log::read(file)?;
        // One agent log that is no session log (empty, or another tool's output) costs only
        // itself: it is named in a warning and the rest of the session is imported. Without
        // a session log and any other agent log, the refusal stands (see below).
        if let Err(error) = check(&log) {
            let ImportError::NotASession { line, reason, .. } = &error else {
                return Err(error);
            };
            notes.push(Note {
                file: file.clone(),
                line: *line,
                kind: NoteKind::NotAnAgentLog,
                message: format!("not a Claude Code session log: {reason}; not imported"),
            });
            refused.get_or_insert(error);
            continue;
        }
        if main_log.is_none() && layout == Some("subagents") {
            notes.push(Note {
                file: file.clone(),
                line: 0,
                kind: NoteKind::OrphanSubagentFile,
                message:
                    "sub-agent log without its session log; the session is made of its agents' logs"
                        .into(),
            });
        }
        let agent = file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .map(|s| s.strip_prefix("agent-").map(str::to_owned).unwrap_or(s))
            .or_else(|| {
                (log.entries.iter())
                    .find_map(|e| log.of(e.agent_id))
                    .map(str::to_owned)
            })
            .unwrap_or_default();
        let run_id = format!("{session_id}.agent-{}", sanitize(&agent));
        let mut thread = if is_simplified(&log) {
            notes.push(simplified_note(&log));
            let mut thread = simplified_thread(&log, &run_id)?;
            thread
                .run
                .import
                .insert("agent_id".into(), agent.clone().into());
            thread.agent = Some(agent);
            thread
        } else {
            let all: Vec<usize> = (0..log.entries.len()).collect();
            let by_uuid = uuid_index(&log, &mut notes);
            let selected = select(&log, &all, &by_uuid, &mut notes);
            thread_from(&log, &selected, run_id, Some(agent), &mut notes)
        };
        let meta_path = file.with_extension("meta.json");
        if let Ok(text) = std::fs::read(&meta_path)
            && let Ok(meta) = serde_json::from_slice::<Value>(&text)
        {
            thread.name = meta
                .get("agentType")
                .and_then(Value::as_str)
                .map(str::to_owned);
            thread.run.import.insert("subagent_meta".into(), meta);
        }
        threads.push(thread);
    }
    if let Some(error) = refused.filter(|_| threads.is_empty()) {
        return Err(error);
    }
    if main_log.is_none() && !threads.is_empty() {
        // No session log: the root is the agent no call spawned.
        let root = root_agent(&threads);
        let thread = threads.remove(root);
        threads.insert(0, thread);
    }

    // The agents of a workflow with a journal go last: the journal links them, not their
    // prompts.
    let journaled: HashSet<String> = (files.subagents.iter())
        .filter(|f| workflow::is_journal(f))
        .filter_map(|f| workflow::run_of(f))
        .collect();
    let in_workflow =
        |t: &Thread| workflow::run_of(&t.run.source).is_some_and(|run| journaled.contains(&run));
    let (plain, agents): (Vec<Thread>, Vec<Thread>) =
        threads.into_iter().partition(|t| !in_workflow(t));
    let linked = plain.len();
    let mut threads = plain;
    threads.extend(agents);

    ids::unique(threads.iter_mut().map(|t| &mut t.run.run_id));

    let mut parents = vec![None; threads.len()];
    let mut spawns: Vec<Vec<Spawn>> = threads.iter().map(|_| Vec::new()).collect();
    for link in link(&threads[..linked], &mut notes) {
        parents[link.child] = Some(link.parent);
        spawns[link.parent].push(Spawn {
            call: link.call,
            child: threads[link.child].run.run_id.clone(),
            name: link.name,
        });
    }
    let mut runs: Vec<_> = threads.into_iter().map(|t| t.run).collect();
    workflow::attach(
        files,
        &session_id,
        &mut runs,
        &mut parents,
        &mut spawns,
        &mut notes,
    )?;
    Ok(SessionPlan {
        session_id,
        runs,
        parents,
        spawns,
        notes,
    })
}

/// The root thread and the in-file sidechains of a session log.
fn session_threads(log: &Log, session_id: &str, notes: &mut Vec<Note>) -> Vec<Thread> {
    let entries = &log.entries;
    let by_uuid = uuid_index(log, notes);
    let main: Vec<usize> = (0..entries.len())
        .filter(|at| !entries[*at].sidechain)
        .collect();
    let mut threads = Vec::new();
    let chain = select(log, &main, &by_uuid, notes);
    threads.push(thread_from(log, &chain, session_id.to_owned(), None, notes));

    // Sidechains: one sub-agent is the entries its parentUuid links connect, with those that
    // share its agent id. Neither alone makes the group: Claude Code 2.0.46 writes agentId on
    // a sidechain's user entries only, not on its assistant entries. Two parts that name
    // different agents stay apart (a nested sub-agent's root may point into its parent's).
    let mut groups = Groups::new(entries.len());
    let mut by_agent: HashMap<&str, usize> = HashMap::new();
    for (at, entry) in entries.iter().enumerate() {
        if !entry.sidechain {
            continue;
        }
        groups.name(at, log.of(entry.agent_id));
        if let Some(parent) = log.of(entry.parent).and_then(|p| by_uuid.get(p))
            && entries[*parent].sidechain
        {
            groups.join(at, *parent);
        }
        if let Some(agent) = log.of(entry.agent_id) {
            let first = *by_agent.entry(agent).or_insert(at);
            groups.join(at, first);
        }
    }
    let mut members: Vec<Vec<usize>> = Vec::new();
    let mut group_of: HashMap<usize, usize> = HashMap::new();
    for (at, entry) in entries.iter().enumerate() {
        if entry.sidechain {
            let root = groups.find(at);
            let index = *group_of.entry(root).or_insert_with(|| {
                members.push(Vec::new());
                members.len() - 1
            });
            members[index].push(at);
        }
    }
    for members in members {
        let root = groups.find(members[0]);
        let (run_id, agent) = match groups.agent[root] {
            Some(agent) => (
                format!("{session_id}.agent-{}", sanitize(agent)),
                agent.to_owned(),
            ),
            None => {
                let root = sidechain_root(log, members[0], &by_uuid);
                (
                    format!("{session_id}.sidechain-{}", sanitize(&root)),
                    format!("sidechain-{root}"),
                )
            }
        };
        let chain = select(log, &members, &by_uuid, notes);
        threads.push(thread_from(log, &chain, run_id, Some(agent), notes));
    }
    threads
}

/// Entries joined into groups (union-find), each group named by at most one agent id.
struct Groups<'a> {
    up: Vec<usize>,
    /// Per group root, the agent id its entries name.
    agent: Vec<Option<&'a str>>,
}

impl<'a> Groups<'a> {
    fn new(len: usize) -> Self {
        Groups {
            up: (0..len).collect(),
            agent: vec![None; len],
        }
    }

    fn find(&mut self, mut at: usize) -> usize {
        while self.up[at] != at {
            self.up[at] = self.up[self.up[at]];
            at = self.up[at];
        }
        at
    }

    fn name(&mut self, at: usize, agent: Option<&'a str>) {
        let root = self.find(at);
        if self.agent[root].is_none() {
            self.agent[root] = agent;
        }
    }

    /// Joins the groups of `a` and `b` unless they name different agents.
    fn join(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        if a == b {
            return;
        }
        let agent = match (self.agent[a], self.agent[b]) {
            (Some(x), Some(y)) if x != y => return,
            (x, y) => x.or(y),
        };
        // The earlier entry stays the root, so groups keep the order of their first entry.
        let (root, other) = (a.min(b), a.max(b));
        self.up[other] = root;
        self.agent[root] = agent;
    }
}

/// Entries by uuid; a uuid seen twice is reported, and its later entry is the one linked.
fn uuid_index<'a>(log: &'a Log, notes: &mut Vec<Note>) -> HashMap<&'a str, usize> {
    let mut by_uuid: HashMap<&str, usize> = HashMap::with_capacity(log.entries.len());
    for (at, entry) in log.entries.iter().enumerate() {
        if let Some(uuid) = log.of(entry.uuid)
            && by_uuid.insert(uuid, at).is_some()
        {
            notes.push(Note {
                file: log.path.clone(),
                line: entry.line,
                kind: NoteKind::DuplicateUuid,
                message: format!("uuid {uuid} appears again; the later entry is the one linked"),
            });
        }
    }
    by_uuid
}

/// The uuid (or line) of the first entry of a sidechain.
fn sidechain_root(log: &Log, mut at: usize, by_uuid: &HashMap<&str, usize>) -> String {
    let entries = &log.entries;
    let mut seen = HashSet::new();
    while let Some(parent) = log.of(entries[at].parent).and_then(|p| by_uuid.get(p))
        && entries[*parent].sidechain
        && seen.insert(*parent)
    {
        at = *parent;
    }
    log.of(entries[at].uuid)
        .map(|u| u.chars().take(8).collect())
        .unwrap_or_else(|| format!("line{}", entries[at].line))
}
