//! AgentLog 0.2.0: one JSON session document for a run and all its linked child runs.
//!
//! [`export`] reads the root transcript, follows every `child_run_id` of its
//! `step.call_workflow.started` events to `<dir>/<child>.jsonl` (to any depth), and maps:
//!
//! | transcript | AgentLog |
//! |---|---|
//! | `message.*` text blocks | `message` (`role`, the texts joined; their citations in `axt:citations`, offsets counted in the joined text) |
//! | the system prompt of a `message.user` (its `text` block with `system_prompt: true`) | `message` with role `system`, before the prompt's `user` message |
//! | `thinking` blocks | `reasoning` (`rationale` = the text; signature and redaction in `axt:` properties) |
//! | `tool.call` + its `tool.result` | `toolCall` (`output` = the result as text, `status` success / error, `cancelled` when no result came; `durationMs` the result's `duration_ms`, else the time between the two) |
//! | a call seen on both channels (router and agent) | one `toolCall`, the router's, with `axt:sightedByAgent` (and `axt:agentCallId` when the agent's id differs); the agent's `tool.*` events give nothing ([`Calls`]) |
//! | `tool.call` of a server tool + the `tool_result` in its assistant message | `toolCall` as above, `axt:server` |
//! | `command` blocks and shell tools ([`ToolClass::Shell`](crate::model::tools::ToolClass::Shell)) | `terminalCommand` after the call (`stdout`, `exitCode` when known) |
//! | file tools ([`ToolClass::FileRead`](crate::model::tools::ToolClass::FileRead), `FileWrite`, `FileEdit`, `FilePatch`) that succeeded | `fileOperation` (path relative to the project root, a diff for edits where the input has one) |
//! | `step.call_workflow.*` | `handoff`, the child run's events after it with `parentId` = the handoff |
//! | a failed run, provider errors in the run metadata | `error` |
//! | `run.completed` metadata of every run | `metrics` (counts, files, tools, token usage with cache read / write, cost, duration; a provider session's running total once however many runs resumed it, [`Spend`], the others counted in `axt:repeatedSessionTotals`), `agent` |
//!
//! What AgentLog has no field for goes in `properties` with an `axt:` prefix (run ids, `seq`,
//! call ids, fidelity, thinking signatures, off-chain usage of imported sessions). The
//! project root is the run's `cwd` (the import's metadata or the `system/init` passthrough),
//! or [`ExportOptions::root`]. With [`ExportOptions::redact`] every event goes through the
//! recorder's credential [`Redactor`] first and the count is in `redactions`.
//!
//! What the exporter could not map cleanly (a line that is not an event, a child that is
//! missing or does not name its parent, a result without its call) is counted and listed in
//! the document's `axt:readProblems` and `axt:notes`, and [`export_checked`] also returns each
//! one located at its line, for a caller to report.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::file_ops::{edit_diff, file_operations};
use crate::model::tools::shell_commands;
use crate::model::{
    Block, Citation, EventType, ExchangeEvent, Payload, Provider, Role, RunMeta, RunStatus,
    StepKind, Usage,
};
use crate::read::tree::{LinkKind, TreeProblem, dir_of};
use crate::read::{Calls, ReadItem, Reader, Settled, Spend};
use crate::record::Redactor;

/// The AgentLog version written.
pub const SPEC_VERSION: &str = "0.2.0";

/// How to export.
#[derive(Clone, Debug, Default)]
pub struct ExportOptions {
    /// The project root paths are made relative to, when the run does not say.
    pub root: Option<PathBuf>,
    /// Mask credentials with [`Redactor::credentials`] before exporting.
    pub redact: bool,
}

/// Why a transcript could not be exported.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The root transcript could not be opened.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The root transcript has no event.
    #[error("{}: no event to export{}", path.display(), describe_problems(problems.len()))]
    Empty {
        /// The file.
        path: PathBuf,
        /// What is wrong with its lines, if anything.
        problems: Vec<TreeProblem>,
    },
}

fn describe_problems(count: usize) -> String {
    match count {
        0 => String::new(),
        1 => " (1 problem in its lines)".to_owned(),
        n => format!(" ({n} problems in its lines)"),
    }
}

/// A document and what did not fit into it.
#[derive(Clone, Debug)]
pub struct Exported {
    /// The AgentLog document.
    pub document: Value,
    /// Every problem met, in the order met: the reader's problems in each file read, and
    /// what the exporter noted (also in the document's `axt:notes`).
    pub problems: Vec<TreeProblem>,
}

/// One run read back.
struct RunData {
    file: PathBuf,
    run_id: String,
    parent_run_id: Option<String>,
    events: Vec<ExchangeEvent>,
    /// The line and byte offset of each event.
    places: Vec<(u64, u64)>,
    /// The reader's problems, until [`Exporter::run`] takes them.
    problems: Vec<TreeProblem>,
    problem_count: u64,
}

fn load(path: &Path, redact: bool, redactions: &mut u64) -> Result<RunData, ExportError> {
    let file = File::open(path).map_err(|source| ExportError::Io {
        path: path.to_owned(),
        source,
    })?;
    load_from(file, path, redact, redactions)
}

fn load_from(
    input: impl Read,
    path: &Path,
    redact: bool,
    redactions: &mut u64,
) -> Result<RunData, ExportError> {
    let mut events = Vec::new();
    let mut places = Vec::new();
    let mut problems = Vec::new();
    for item in Reader::new(input) {
        match item {
            ReadItem::Event {
                line,
                offset,
                event,
            } => {
                let mut event = *event;
                if redact {
                    *redactions += Redactor::credentials().redact_event(&mut event) as u64;
                }
                events.push(event);
                places.push((line, offset));
            }
            ReadItem::Problem(problem) => problems.push(TreeProblem::read(path, problem)),
        }
    }
    let Some(first) = events.first() else {
        return Err(ExportError::Empty {
            path: path.to_owned(),
            problems,
        });
    };
    Ok(RunData {
        file: path.to_owned(),
        run_id: first.run_id.clone(),
        parent_run_id: first.parent_run_id.clone(),
        events,
        places,
        problem_count: problems.len() as u64,
        problems,
    })
}

/// The metadata `run.completed` carries (the normalizer's run metadata), or, for a
/// workflow run, its first agent step's; `None` when there is none.
fn run_meta(run: &RunData) -> Option<RunMeta> {
    agent_metas(run).into_iter().next()
}

/// Every agent run's metadata in a run: its `run.completed` result when the run is an
/// agent's, and the result of each agent step of a workflow run (the
/// [`workflow`](crate::workflow) seam puts an agent step's metadata there). A writer puts
/// an agent's metadata in one place, so summing over these counts each agent once.
fn agent_metas(run: &RunData) -> Vec<RunMeta> {
    let completed = run
        .events
        .iter()
        .rev()
        .find(|e| e.event_type == EventType::RunCompleted)
        .and_then(|e| match &e.payload {
            Payload::Step(step) => RunMeta::of(step),
            _ => None,
        });
    let steps = run.events.iter().filter_map(|e| match &e.payload {
        Payload::Step(step)
            if e.event_type == EventType::StepCompleted && step.kind == StepKind::Agent =>
        {
            RunMeta::of(step)
        }
        _ => None,
    });
    completed.into_iter().chain(steps).collect()
}

/// A field of the importer's own account of an imported run ([`RunMeta::import`]).
fn imported<'m>(meta: Option<&'m RunMeta>, key: &str) -> Option<&'m Value> {
    meta?.import.as_ref()?.get(key)
}

/// The working directory a run says it ran in.
fn run_cwd(meta: Option<&RunMeta>) -> Option<String> {
    // The one reading of a run's working directory, `axt ls`'s and `axt show`'s too.
    crate::read::meta::cwd(meta?).map(str::to_owned)
}

struct Exporter {
    dir: PathBuf,
    root: Option<String>,
    redact: bool,
    redactions: u64,
    events: Vec<Value>,
    runs: Vec<RunData>,
    visited: HashSet<String>,
    files: BTreeSet<String>,
    tools: BTreeSet<String>,
    models: BTreeSet<String>,
    messages: u64,
    tool_calls: u64,
    notes: Vec<String>,
    problems: Vec<TreeProblem>,
}

/// Reads the transcript at `root` and its linked child runs and returns the AgentLog
/// document.
pub fn export(root: &Path, options: &ExportOptions) -> Result<Value, ExportError> {
    export_checked(root, options).map(|exported| exported.document)
}

/// [`export`], with every problem met located in its file.
pub fn export_checked(root: &Path, options: &ExportOptions) -> Result<Exported, ExportError> {
    let file = File::open(root).map_err(|source| ExportError::Io {
        path: root.to_owned(),
        source,
    })?;
    export_from(file, root, dir_of(root), options)
}

/// [`export_checked`] of a root run read from `input` (stdin, say): `name` stands for it in
/// problems, and its child runs are looked up in `dir`.
pub fn export_from(
    input: impl Read,
    name: &Path,
    dir: &Path,
    options: &ExportOptions,
) -> Result<Exported, ExportError> {
    let mut exporter = Exporter {
        dir: dir.to_owned(),
        root: options
            .root
            .as_ref()
            .map(|p| p.to_string_lossy().into_owned()),
        redact: options.redact,
        redactions: 0,
        events: Vec::new(),
        runs: Vec::new(),
        visited: HashSet::new(),
        files: BTreeSet::new(),
        tools: BTreeSet::new(),
        models: BTreeSet::new(),
        messages: 0,
        tool_calls: 0,
        notes: Vec::new(),
        problems: Vec::new(),
    };
    let mut redactions = 0;
    let run = load_from(input, name, options.redact, &mut redactions)?;
    exporter.redactions += redactions;
    if exporter.root.is_none() {
        exporter.root = run_cwd(run_meta(&run).as_ref());
    }
    exporter.run(run, None, "agent");
    let problems = std::mem::take(&mut exporter.problems);
    Ok(Exported {
        document: exporter.document(),
        problems,
    })
}

impl Exporter {
    /// A note in the document, and the same as a located problem for the caller.
    fn note(&mut self, file: &Path, at: (u64, u64), kind: LinkKind, note: String) {
        self.problems
            .push(TreeProblem::at(file, at, kind, note.clone()));
        self.notes.push(note);
    }

    fn run(&mut self, mut run: RunData, parent_event: Option<String>, agent_name: &str) {
        self.problems.append(&mut run.problems);
        self.visited.insert(run.run_id.clone());
        if let Some(model) = run_meta(&run).and_then(|meta| meta.model) {
            self.models.insert(model);
        }
        let run_id = run.run_id.clone();
        // The whole run is at hand, so every call seen on both channels is known before
        // the first event is mapped: the agent's events of it are left out, whichever came
        // first.
        let mut calls = Calls::default();
        for event in &run.events {
            calls.see(event);
        }
        // Tool calls waiting for their result: call id -> (index in events, call event).
        let mut open: HashMap<String, (usize, ExchangeEvent)> = HashMap::new();
        let mut commands: HashMap<String, String> = HashMap::new();
        // Results the provider reported in the assistant message itself (server tools): the
        // message comes before its `tool.call` event, so they wait here for the call.
        let mut server_results: HashMap<String, (String, bool)> = HashMap::new();
        for (event, &place) in run.events.iter().zip(&run.places) {
            let id = format!("{run_id}:{}", event.seq);
            let mut base = json!({"id": id, "timestamp": event.timestamp.as_str(),
                "parentId": parent_event,
                "properties": {"axt:runId": run_id, "axt:seq": event.seq}});
            match (&event.event_type, &event.payload) {
                (EventType::MessageUser | EventType::MessageAssistant, Payload::Message(m)) => {
                    let role = m.role.as_str().to_owned();
                    let mut texts = Vec::new();
                    let mut cited = Vec::new();
                    // The composed system prompt: its own `system` message, by its flag.
                    let mut system = Vec::new();
                    let mut system_cited = Vec::new();
                    for block in &m.blocks {
                        match &block.block {
                            Block::Text {
                                text,
                                citations,
                                system_prompt: true,
                            } if m.role == Role::User => {
                                system_cited.extend(joined_citations(&system, citations));
                                system.push(text.clone());
                            }
                            Block::Text {
                                text, citations, ..
                            } => {
                                cited.extend(joined_citations(&texts, citations));
                                texts.push(text.clone());
                            }
                            Block::Thinking {
                                thinking,
                                signature,
                                redacted,
                            } => {
                                let mut r = base.clone();
                                r["id"] = format!("{id}:reasoning").into();
                                r["type"] = "reasoning".into();
                                r["intent"] = "reasoning".into();
                                r["rationale"] = thinking.clone().into();
                                r["visible"] = (!redacted).into();
                                if let Some(sig) = signature {
                                    r["properties"]["axt:signature"] = sig.clone().into();
                                }
                                if *redacted {
                                    r["properties"]["axt:redacted"] = true.into();
                                }
                                self.events.push(r);
                            }
                            Block::ToolResult {
                                tool_id,
                                tool_content,
                                is_error,
                                ..
                            } if m.role == Role::Assistant => {
                                let result = (text_of(tool_content), *is_error);
                                match open.remove(tool_id) {
                                    // Claude Code sends the result on a line after the call.
                                    Some((at, _)) => server_result(&mut self.events[at], result),
                                    None => {
                                        server_results.insert(tool_id.clone(), result);
                                    }
                                }
                            }
                            Block::Command {
                                command,
                                tool_id: Some(tool_id),
                            } => {
                                commands.insert(tool_id.clone(), command.clone());
                            }
                            _ => {}
                        }
                    }
                    if !system.is_empty() {
                        let mut s = base.clone();
                        s["id"] = format!("{id}:system").into();
                        s["type"] = "message".into();
                        s["role"] = "system".into();
                        s["content"] = system.join("\n").into();
                        s["properties"]["axt:systemPrompt"] = true.into();
                        if let Some(mid) = &m.message_id {
                            s["properties"]["axt:messageId"] = mid.clone().into();
                        }
                        if !system_cited.is_empty() {
                            s["properties"]["axt:citations"] = system_cited.into();
                        }
                        self.messages += 1;
                        self.events.push(s);
                    }
                    if !texts.is_empty() {
                        base["type"] = "message".into();
                        base["role"] = role.into();
                        base["content"] = texts.join("\n").into();
                        if let Some(mid) = &m.message_id {
                            base["properties"]["axt:messageId"] = mid.clone().into();
                        }
                        if !cited.is_empty() {
                            base["properties"]["axt:citations"] = cited.into();
                        }
                        self.messages += 1;
                        self.events.push(base);
                    }
                }
                (EventType::ToolCall | EventType::ToolResult, Payload::Tool(_))
                    if calls.settled(event) == Some(Settled::Sighting) =>
                {
                    // The agent's report of a call the router captured: provenance, kept
                    // on the router's toolCall, not a call of its own.
                    continue;
                }
                (EventType::ToolCall, Payload::Tool(tool)) => {
                    self.tool_calls += 1;
                    self.tools.insert(tool.name.clone());
                    base["type"] = "toolCall".into();
                    base["name"] = tool.name.clone().into();
                    base["input"] = match &tool.input {
                        Value::Object(_) => tool.input.clone(),
                        Value::Null => json!({}),
                        other => json!({"value": other}),
                    };
                    base["properties"]["axt:callId"] = tool.call_id.clone().into();
                    base["properties"]["axt:fidelity"] = tool.fidelity.as_str().into();
                    if calls.settled(event) == Some(Settled::Call { sighted: true }) {
                        base["properties"]["axt:sightedByAgent"] = true.into();
                    }
                    if let Some(agent_id) = &tool.agent_call_id {
                        base["properties"]["axt:agentCallId"] = agent_id.clone().into();
                    }
                    if let Some(result) = server_results.remove(&tool.call_id) {
                        server_result(&mut base, result);
                        self.events.push(base);
                        continue;
                    }
                    base["output"] = Value::Null;
                    base["status"] = "cancelled".into();
                    base["properties"]["axt:noResult"] = true.into();
                    open.insert(tool.call_id.clone(), (self.events.len(), event.clone()));
                    self.events.push(base);
                }
                (EventType::ToolResult, Payload::Tool(result)) => {
                    let Some((at, call)) = open.remove(&result.call_id) else {
                        let note =
                            format!("{id}: result for call {} without a call", result.call_id);
                        self.note(&run.file, place, LinkKind::Structure, note);
                        continue;
                    };
                    let output = text_of(&result.output);
                    let failed = result.error.is_some() || result.exit_code.is_some_and(|c| c != 0);
                    let call_event = &mut self.events[at];
                    call_event["output"] = output.clone().into();
                    call_event["status"] = if failed { "error" } else { "success" }.into();
                    if let Some(props) = call_event["properties"].as_object_mut() {
                        props.remove("axt:noResult");
                        // A router names the agent's id on its events after it matched it.
                        if let Some(agent_id) = &result.agent_call_id {
                            props.insert("axt:agentCallId".into(), agent_id.clone().into());
                        }
                    }
                    if let Some(ms) = result.duration_ms.or_else(|| millis(&call, event)) {
                        call_event["durationMs"] = ms.into();
                    }
                    let call_id = call_event["id"].clone();
                    let Payload::Tool(call_tool) = &call.payload else {
                        continue;
                    };
                    // A call with several command lines and no `command` block: the last
                    // one, as the last `command` block of a call is the one kept above.
                    let command = commands
                        .remove(&result.call_id)
                        .or_else(|| shell_commands(&call_tool.name, &call_tool.input).pop());
                    if let Some(command) = command {
                        let mut c = base.clone();
                        c["id"] = format!("{id}:command").into();
                        c["type"] = "terminalCommand".into();
                        c["parentId"] = call_id.clone();
                        c["command"] = command.into();
                        c["cwd"] = self.root.clone().into();
                        c["stdout"] = output.clone().into();
                        c["exitCode"] = result
                            .exit_code
                            .or_else(|| exit_code(&output, failed))
                            .into();
                        self.events.push(c);
                    }
                    if !failed {
                        for (n, op) in file_operations(&call_tool.name, &call_tool.input)
                            .into_iter()
                            .enumerate()
                        {
                            let path = self.relative(&op.path);
                            self.files.insert(path.clone());
                            let mut f = base.clone();
                            f["id"] = format!("{id}:file{n}").into();
                            f["type"] = "fileOperation".into();
                            f["parentId"] = call_id.clone();
                            f["operation"] = op.operation.into();
                            f["path"] = path.into();
                            if let Some(diff) = op.diff.or_else(|| edit_diff(&op.path, &op.edits)) {
                                let (added, removed) = diff_counts(&diff);
                                f["diff"] = diff.into();
                                f["diffFormat"] = "unified".into();
                                f["linesAdded"] = added.into();
                                f["linesRemoved"] = removed.into();
                            }
                            self.events.push(f);
                        }
                    }
                }
                (EventType::CallWorkflowStarted, Payload::Step(step)) => {
                    let child = event.child_run_id.clone().unwrap_or_default();
                    let completed = run.events.iter().find(|e| {
                        e.event_type == EventType::CallWorkflowCompleted
                            && e.child_run_id.as_deref() == Some(child.as_str())
                    });
                    let error = completed.and_then(|e| match &e.payload {
                        Payload::Step(s) => s.error.clone(),
                        _ => None,
                    });
                    let call_id = event.path.rsplit('.').next().unwrap_or("");
                    let prompt = open
                        .get(call_id)
                        .and_then(|(_, call)| match &call.payload {
                            Payload::Tool(t) => t.input.get("prompt").and_then(Value::as_str),
                            _ => None,
                        })
                        .map(str::to_owned);
                    base["type"] = "handoff".into();
                    base["fromAgent"] = agent_name.into();
                    base["toAgent"] = step.name.clone().into();
                    base["contextTransferred"] = prompt.into();
                    base["status"] = match (completed, &error) {
                        (None, _) => "initiated",
                        (Some(_), None) => "completed",
                        (Some(_), Some(_)) => "failed",
                    }
                    .into();
                    base["properties"]["axt:childRunId"] = child.clone().into();
                    if let Some(ms) = completed.and_then(|c| millis(event, c)) {
                        base["durationMs"] = ms.into();
                    }
                    self.events.push(base);
                    let handoff = self.events.len() - 1;
                    self.child(&child, handoff, (&run.file, place), &run_id, &step.name);
                }
                (EventType::RunCompleted, Payload::Step(step)) => {
                    if let Some(error) = &step.error {
                        base["type"] = "error".into();
                        base["message"] = error.clone().into();
                        base["resolved"] = false.into();
                        base["category"] = "unknown".into();
                        self.events.push(base.clone());
                    }
                    let errors = RunMeta::of(step).map(|meta| meta.errors);
                    for (n, e) in errors.into_iter().flatten().enumerate() {
                        if e.fatal && step.error.is_some() {
                            continue;
                        }
                        let mut r = base.clone();
                        r["id"] = format!("{id}:error{n}").into();
                        r["type"] = "error".into();
                        r["message"] = e.message.into();
                        r["resolved"] = (!e.fatal).into();
                        r["category"] = "unknown".into();
                        self.events.push(r);
                    }
                }
                _ => {}
            }
        }
        self.runs.push(run);
    }

    /// Exports the child run `child`, invoked by `parent` at `invoked` (its file, line and
    /// byte offset), after the handoff event at index `handoff`.
    fn child(
        &mut self,
        child: &str,
        handoff: usize,
        (file, at): (&Path, (u64, u64)),
        parent: &str,
        name: &str,
    ) {
        if self.visited.contains(child) {
            let note = format!("run {child} is invoked twice or in a cycle; exported once");
            self.note(file, at, LinkKind::ParentMismatch, note);
            return;
        }
        let path = self.dir.join(format!("{child}.jsonl"));
        let mut redactions = 0;
        match load(&path, self.redact, &mut redactions) {
            Ok(run) => {
                self.redactions += redactions;
                if run.parent_run_id.as_deref() != Some(parent) {
                    let note = format!("run {child} does not name {parent} as its parent");
                    self.note(&path, run.places[0], LinkKind::ParentMismatch, note);
                }
                let id = self.events[handoff]["id"].as_str().map(str::to_owned);
                self.run(run, id, name);
            }
            Err(error) => {
                let note = format!("child run {child}: {error}");
                if let ExportError::Empty { problems, .. } = error {
                    self.problems.extend(problems);
                }
                self.note(file, at, LinkKind::MissingChild, note);
            }
        }
    }

    fn relative(&self, path: &str) -> String {
        if let Some(root) = &self.root {
            let root = root.trim_end_matches(['/', '\\']);
            for sep in ['/', '\\'] {
                if let Some(rest) = path.strip_prefix(root).and_then(|r| r.strip_prefix(sep)) {
                    return rest.to_owned();
                }
            }
        }
        path.to_owned()
    }

    fn document(self) -> Value {
        // Children finish first: the root run is the last one read.
        let root = self.runs.last().expect("the root run is read");
        let meta = run_meta(root);
        let first = root.events.first().expect("load refuses an empty run");
        let last = root.events.last().expect("load refuses an empty run");
        // A run that never completed has no metadata: its `run.started` names the provider.
        let provider = meta
            .as_ref()
            .map(|meta| meta.provider.as_str().to_owned())
            .or_else(|| {
                root.events
                    .iter()
                    .find(|e| e.event_type == EventType::RunStarted)
                    .and_then(|e| match &e.payload {
                        Payload::Step(s) => Some(s.name.clone()),
                        _ => None,
                    })
            })
            .unwrap_or_default();
        let (name, vendor) = match provider.parse::<Provider>() {
            // AgentLog's `agent.provider` is the vendor's lower-case name.
            Ok(provider) => (provider.agent_name(), provider.vendor().as_str()),
            Err(_) => ("axt", "unknown"),
        };
        // An adapter that reads a family of agents names the one that wrote the run.
        let name = meta
            .as_ref()
            .and_then(|meta| meta.agent.as_deref())
            .unwrap_or(name);
        let completed = root
            .events
            .iter()
            .rev()
            .find(|e| e.event_type == EventType::RunCompleted);
        let status = match completed.map(|e| &e.payload) {
            None => "interrupted",
            Some(Payload::Step(s))
                if s.error.is_some()
                    || RunMeta::of(s).is_some_and(|meta| meta.status == RunStatus::Failed) =>
            {
                "failed"
            }
            Some(_) => "completed",
        };
        // A session resumed by several runs of the tree is counted once (`Spend`).
        let mut spend = Spend::default();
        let mut off_chain = Usage::default();
        let mut problems = 0;
        let mut runs = Vec::new();
        for run in &self.runs {
            for meta in agent_metas(run) {
                spend.add(&meta);
                // The importer's account: what an imported session spent off its thread.
                if let Some(spent) = imported(Some(&meta), "off_chain_usage")
                    .and_then(|spent| Usage::deserialize(spent).ok())
                {
                    off_chain.add(&spent);
                }
            }
            problems += run.problem_count;
            runs.push(
                json!({"runId": run.run_id, "parentRunId": run.parent_run_id,
                "provider": provider, "events": run.events.len()}),
            );
        }
        let meta = meta.as_ref();
        let duration_ms = meta.and_then(|meta| meta.duration_ms).or_else(|| {
            let a = first.timestamp.unix_nanos().ok()?;
            let b = last.timestamp.unix_nanos().ok()?;
            (b >= a).then(|| ((b - a) / 1_000_000) as u64)
        });
        let children: Vec<String> = root
            .events
            .iter()
            .filter(|e| e.event_type == EventType::CallWorkflowStarted)
            .filter_map(|e| e.child_run_id.clone())
            .collect();
        let mut properties = Map::new();
        properties.insert("axt:runs".into(), runs.into());
        properties.insert(
            "axt:exporter".into(),
            format!("axt {}", env!("CARGO_PKG_VERSION")).into(),
        );
        if off_chain != Usage::default() {
            properties.insert("axt:offChainUsage".into(), json!({"inputTokens": off_chain.input_tokens,
                "outputTokens": off_chain.output_tokens, "cacheReadTokens": off_chain.cache_read_tokens,
                "cacheWriteTokens": off_chain.cache_write_tokens}));
        }
        if problems > 0 {
            properties.insert("axt:readProblems".into(), problems.into());
        }
        if !self.notes.is_empty() {
            properties.insert("axt:notes".into(), self.notes.clone().into());
        }
        if let Some(session) = meta.and_then(|meta| meta.session_id.as_ref()) {
            properties.insert("axt:sessionId".into(), session.as_str().into());
        }
        let project = self.root.as_ref().map(|root| {
            let name = root
                .trim_end_matches(['/', '\\'])
                .rsplit(['/', '\\'])
                .next()
                .unwrap_or(root);
            json!({"name": name, "workingDirectory": root,
                "branch": imported(meta, "git_branch"), "properties": {}})
        });
        let usage = spend.tokens;
        if spend.repeated > 0 {
            properties.insert("axt:repeatedSessionTotals".into(), spend.repeated.into());
        }
        let mut document = json!({
            "specVersion": SPEC_VERSION,
            "id": root.run_id,
            "startTime": first.timestamp.as_str(),
            "endTime": last.timestamp.as_str(),
            "status": status,
            "agent": {"name": name, "version": meta.and_then(|meta| meta.provider_version.as_ref()),
                "model": meta.and_then(|meta| meta.model.as_ref()), "provider": vendor, "properties": {}},
            "project": project,
            "events": self.events,
            "metrics": {
                "messageCount": self.messages,
                "toolCallCount": self.tool_calls,
                "filesTouchedCount": self.files.len(),
                "durationMinutes": duration_ms.map(|ms| (ms + 30_000) / 60_000),
                "tokenUsage": {"inputTokens": usage.input, "outputTokens": usage.output,
                    "cacheReadTokens": usage.cache_read, "cacheWriteTokens": usage.cache_write,
                    "reasoningTokens": usage.reasoning},
                "estimatedCostUsd": spend.cost_usd,
                "filesTouched": self.files.iter().collect::<Vec<_>>(),
                "toolsUsed": self.tools.iter().collect::<Vec<_>>(),
                "modelsUsed": self.models.iter().collect::<Vec<_>>(),
                "properties": {"axt:durationMs": duration_ms},
            },
            "relationships": {"parentSession": root.parent_run_id, "childSessions": children,
                "properties": {}},
            "properties": properties,
        });
        if self.redact {
            document["redactions"] =
                json!([{"category": "api_key", "count": self.redactions, "redactedBy": "axt"}]);
        }
        document
    }
}

fn millis(from: &ExchangeEvent, to: &ExchangeEvent) -> Option<u64> {
    let a = from.timestamp.unix_nanos().ok()?;
    let b = to.timestamp.unix_nanos().ok()?;
    (b >= a).then(|| ((b - a) / 1_000_000) as u64)
}

/// Completes a `toolCall` with the result its provider reported in an assistant message.
fn server_result(call: &mut Value, (output, failed): (String, bool)) {
    call["output"] = output.into();
    call["status"] = if failed { "error" } else { "success" }.into();
    if let Some(props) = call["properties"].as_object_mut() {
        props.remove("axt:noResult");
        props.insert("axt:server".into(), true.into());
    }
}

/// A text block's citations for a `message` whose `content` joins the texts before it with
/// newlines: their offsets are moved by the characters that precede the block there.
fn joined_citations(before: &[String], citations: &[Citation]) -> Vec<Value> {
    let shift = before
        .iter()
        .map(|text| text.chars().count() as u64 + 1)
        .sum::<u64>();
    citations
        .iter()
        .filter_map(|citation| {
            let mut citation = citation.clone();
            citation.start_index = citation.start_index.map(|at| at + shift);
            citation.end_index = citation.end_index.map(|at| at + shift);
            // The reader refused any citation the strict writer would, so this cannot fail.
            serde_json::to_value(&citation).ok()
        })
        .collect()
}

/// A tool output as text: a string, the text parts of a block array, else its JSON.
fn text_of(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        Value::Array(parts) if parts.iter().all(|p| p.get("text").is_some()) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        other => other.to_string(),
    }
}

/// Claude Code reports a failed command's status as the first line, `Exit code N`.
fn exit_code(output: &str, failed: bool) -> Option<i64> {
    let rest = output.strip_prefix("Exit code ")?;
    let code = rest
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()?;
    (failed || code == 0).then_some(code)
}

fn diff_counts(diff: &str) -> (u64, u64) {
    let mut counts = (0, 0);
    for line in diff.lines() {
        if line.starts_with('+') && !line.starts_with("+++") {
            counts.0 += 1;
        } else if line.starts_with('-') && !line.starts_with("---") {
            counts.1 += 1;
        }
    }
    counts
}
