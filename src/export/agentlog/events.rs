//! The events of the AgentLog export: a run's transcript events onto AgentLog events, one
//! method per kind of transcript event, the mapping table on [the module](super).
//!
//! This file owns the mapping of events (and the error categories). It must not assemble the
//! document (`document.rs`) nor read tool inputs by hand: the shared table
//! (`model::tools`) says what a call does.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::files::{diff_counts, exit_code, joined_citations, millis};
use super::load::{ExportError, RunData, load, run_meta};
use super::wire::{Base, Diff, Event, PlanStep, Properties};
use crate::export::file_ops::{edit_diff, file_operations};
use crate::model::tools::{
    PlanStatus, ToolClass, approval, classify, fetch_url, output_text, plan_items, plan_text,
    search_query, shell_commands,
};
use crate::model::{
    Block, EventType, ExchangeEvent, MessagePayload, Payload, Role, RunMeta, StepKind, StepPayload,
    ToolPayload,
};
use crate::read::tree::{LinkKind, TreeProblem};
use crate::read::{Calls, Settled};

/// The exporter of one root run and its linked runs.
pub(super) struct Exporter {
    pub(super) dir: PathBuf,
    pub(super) root: Option<String>,
    pub(super) redact: bool,
    pub(super) redactions: u64,
    pub(super) events: Vec<Event>,
    pub(super) runs: Vec<RunData>,
    pub(super) visited: HashSet<String>,
    pub(super) files: BTreeSet<String>,
    pub(super) tools: BTreeSet<String>,
    pub(super) models: BTreeSet<String>,
    pub(super) messages: u64,
    pub(super) tool_calls: u64,
    pub(super) notes: Vec<String>,
    pub(super) problems: Vec<TreeProblem>,
}

/// What one run's mapping keeps while it reads the run.
#[derive(Default)]
struct RunState {
    /// Tool calls waiting for their result: call id -> (index in events, call event).
    open: HashMap<String, (usize, ExchangeEvent)>,
    /// `command` blocks by the call that ran them.
    commands: HashMap<String, String>,
    /// Results the provider reported in the assistant message itself (server tools): the
    /// message comes before its `tool.call` event, so they wait here for the call.
    server_results: HashMap<String, (String, bool)>,
    /// Every `toolCall` of the run by call id: its index in events.
    calls: HashMap<String, usize>,
}

/// An event's base fields: its id (`<run_id>:<seq>`), time, parent and `axt:` ids.
fn base(event: &ExchangeEvent, parent: Option<&String>) -> Base {
    let mut properties = Properties::new();
    properties.insert("axt:runId".into(), event.run_id.clone().into());
    properties.insert("axt:seq".into(), event.seq.into());
    Base {
        id: format!("{}:{}", event.run_id, event.seq),
        timestamp: event.timestamp.as_str().to_owned(),
        parent_id: parent.cloned(),
        duration_ms: None,
        properties,
    }
}

/// `base` with the id suffixed and the parent set.
fn derived(base: &Base, suffix: &str, parent: Option<String>) -> Base {
    let mut derived = base.clone();
    derived.id = format!("{}:{suffix}", base.id);
    derived.parent_id = parent;
    derived
}

/// The category of an error, read from what it says.
pub(super) fn category(message: &str) -> &'static str {
    let text = message.to_ascii_lowercase();
    let any = |words: &[&str]| words.iter().any(|w| text.contains(w));
    if any(&[
        "permission",
        "denied",
        "not permitted",
        "unauthorized",
        "forbidden",
        "eacces",
        "401",
        "403",
    ]) {
        "permission"
    } else if any(&["timed out", "timeout", "deadline"]) {
        "timeout"
    } else if any(&[
        "rate limit",
        "rate_limit",
        "429",
        "overloaded",
        "529",
        "503",
        "502",
        "connection",
        "network",
        "econnre",
        "dns",
        "unreachable",
        "api error",
    ]) {
        "network"
    } else if any(&[
        "max_tokens",
        "max tokens",
        "max turns",
        "maximum",
        "context length",
        "context window",
        "too long",
        "too large",
        "quota",
        "out of memory",
        "no space",
        "enospc",
        "limit",
    ]) {
        "resource"
    } else if any(&["syntax", "parse error", "unexpected token"]) {
        "syntax"
    } else if any(&["typeerror", "type error", "mismatched types"]) {
        "type"
    } else if any(&["invalid", "validation", "schema", "required", "refus"]) {
        "validation"
    } else {
        "runtime"
    }
}

fn plan_status(status: Option<PlanStatus>) -> &'static str {
    match status {
        Some(PlanStatus::InProgress) => "in_progress",
        Some(PlanStatus::Completed) => "completed",
        Some(PlanStatus::Cancelled) => "skipped",
        Some(PlanStatus::Pending) | None => "pending",
    }
}

impl Exporter {
    pub(super) fn new(dir: &Path, root: Option<String>, redact: bool) -> Self {
        Exporter {
            dir: dir.to_owned(),
            root,
            redact,
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
        }
    }

    /// A note in the document, and the same as a located problem for the caller.
    fn note(&mut self, file: &Path, at: (u64, u64), kind: LinkKind, note: String) {
        self.problems
            .push(TreeProblem::at(file, at, kind, note.clone()));
        self.notes.push(note);
    }

    /// Maps a run's events (`parent_event`: the handoff that invoked it, for a child).
    pub(super) fn run(&mut self, mut run: RunData, parent_event: Option<String>, agent_name: &str) {
        self.problems.append(&mut run.problems);
        self.visited.insert(run.run_id.clone());
        let meta = run_meta(&run);
        if let Some(model) = meta.as_ref().and_then(|meta| meta.model.clone()) {
            self.models.insert(model);
        }
        let first_event = self.events.len();
        // The whole run is at hand, so every call seen on both channels is known before
        // the first event is mapped: the agent's events of it are left out, whichever came
        // first.
        let mut calls = Calls::default();
        for event in &run.events {
            calls.see(event);
        }
        let parent = parent_event.as_ref();
        let workflow = run.events.iter().any(|e| {
            matches!((&e.event_type, &e.payload), (EventType::RunStarted, Payload::Step(s)) if s.kind == StepKind::Workflow)
        });
        let mut state = RunState::default();
        for (event, &place) in run.events.iter().zip(&run.places) {
            let base = base(event, parent);
            match (&event.event_type, &event.payload) {
                (EventType::RunStarted, Payload::Step(step)) if step.kind == StepKind::Workflow => {
                    self.workflow_plan(&run, step, &base);
                }
                (EventType::MessageUser | EventType::MessageAssistant, Payload::Message(m)) => {
                    self.message(m, base, &mut state);
                }
                (EventType::ToolCall | EventType::ToolResult, Payload::Tool(_))
                    if calls.settled(event) == Some(Settled::Sighting) =>
                {
                    // The agent's report of a call the router captured: provenance, kept
                    // on the router's toolCall, not a call of its own.
                }
                (EventType::ToolCall, Payload::Tool(tool)) => {
                    let sighted = calls.settled(event) == Some(Settled::Call { sighted: true });
                    self.tool_call(event, tool, base, sighted, &mut state);
                }
                (EventType::ToolResult, Payload::Tool(result)) => {
                    self.tool_result(&run.file, place, event, result, base, &mut state);
                }
                (EventType::CallWorkflowStarted, Payload::Step(step)) => {
                    self.handoff(&run, place, event, step, base, agent_name, &state);
                }
                (EventType::StepCompleted, Payload::Step(step)) if workflow => {
                    // A workflow's failed step (an agent run's one step fails with the run).
                    if let Some(error) = &step.error {
                        let mut base = base;
                        base.properties
                            .insert("axt:stepPath".into(), event.path.clone().into());
                        self.events.push(Event::Error {
                            base,
                            message: error.clone(),
                            code: Some("step_failed".to_owned()),
                            category: category(error),
                            resolved: false,
                        });
                    }
                }
                (EventType::RunCompleted, Payload::Step(step)) => {
                    self.run_completed(step, base, &state);
                }
                _ => {}
            }
        }
        if let Some(meta) = &meta {
            self.retractions(first_event, meta);
        }
        self.runs.push(run);
    }

    fn message(&mut self, m: &MessagePayload, mut base: Base, state: &mut RunState) {
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
                    let mut r = derived(&base, "reasoning", base.parent_id.clone());
                    if let Some(sig) = signature {
                        r.properties
                            .insert("axt:signature".into(), sig.clone().into());
                    }
                    if *redacted {
                        r.properties.insert("axt:redacted".into(), true.into());
                    }
                    if let Some(mid) = &m.message_id {
                        r.properties
                            .insert("axt:messageId".into(), mid.clone().into());
                    }
                    self.events.push(Event::Reasoning {
                        base: r,
                        intent: "reasoning",
                        rationale: thinking.clone(),
                        visible: !redacted,
                    });
                }
                Block::ToolResult {
                    tool_id,
                    tool_content,
                    is_error,
                    ..
                } if m.role == Role::Assistant => {
                    let result = (output_text(tool_content), *is_error);
                    match state.open.remove(tool_id) {
                        // Claude Code sends the result on a line after the call.
                        Some((at, _)) => server_result(&mut self.events[at], result),
                        None => {
                            state.server_results.insert(tool_id.clone(), result);
                        }
                    }
                }
                Block::Command {
                    command,
                    tool_id: Some(tool_id),
                } => {
                    state.commands.insert(tool_id.clone(), command.clone());
                }
                _ => {}
            }
        }
        if let Some(mid) = &m.message_id {
            base.properties
                .insert("axt:messageId".into(), mid.clone().into());
        }
        if !system.is_empty() {
            let mut s = derived(&base, "system", base.parent_id.clone());
            s.properties.insert("axt:systemPrompt".into(), true.into());
            if !system_cited.is_empty() {
                s.properties
                    .insert("axt:citations".into(), system_cited.into());
            }
            self.messages += 1;
            self.events.push(Event::Message {
                base: s,
                role: "system".to_owned(),
                content: system.join("\n"),
            });
        }
        if !texts.is_empty() {
            if !cited.is_empty() {
                base.properties.insert("axt:citations".into(), cited.into());
            }
            self.messages += 1;
            self.events.push(Event::Message {
                base,
                role: m.role.as_str().to_owned(),
                content: texts.join("\n"),
            });
        }
    }

    fn tool_call(
        &mut self,
        event: &ExchangeEvent,
        tool: &ToolPayload,
        mut base: Base,
        sighted: bool,
        state: &mut RunState,
    ) {
        self.tool_calls += 1;
        self.tools.insert(tool.name.clone());
        let input = match &tool.input {
            Value::Object(_) => tool.input.clone(),
            Value::Null => json!({}),
            other => json!({"value": other}),
        };
        let props = &mut base.properties;
        props.insert("axt:callId".into(), tool.call_id.clone().into());
        props.insert("axt:fidelity".into(), tool.fidelity.as_str().into());
        if sighted {
            props.insert("axt:sightedByAgent".into(), true.into());
        }
        if let Some(agent_id) = &tool.agent_call_id {
            props.insert("axt:agentCallId".into(), agent_id.clone().into());
        }
        let call_id = base.id.clone();
        let after = base.clone();
        let mut call = Event::ToolCall {
            base,
            name: tool.name.clone(),
            input,
            output: None,
            status: "cancelled",
        };
        state.calls.insert(tool.call_id.clone(), self.events.len());
        match state.server_results.remove(&tool.call_id) {
            Some(result) => server_result(&mut call, result),
            None => {
                call.base_mut()
                    .properties
                    .insert("axt:noResult".into(), true.into());
                state
                    .open
                    .insert(tool.call_id.clone(), (self.events.len(), event.clone()));
            }
        }
        self.events.push(call);
        self.what_the_call_does(tool, &after, &call_id);
    }

    /// The events a call makes by what its tool does: a search, a fetch, a plan.
    fn what_the_call_does(&mut self, tool: &ToolPayload, base: &Base, call_id: &str) {
        let under = |suffix| {
            let mut b = derived(base, suffix, Some(call_id.to_owned()));
            b.properties.remove("axt:fidelity");
            b.properties.remove("axt:sightedByAgent");
            b.properties.remove("axt:agentCallId");
            b
        };
        if let Some(query) = search_query(&tool.name, &tool.input) {
            self.events.push(Event::Search {
                base: under("search"),
                tool: tool.name.clone(),
                query: query.to_owned(),
            });
        }
        if let Some(url) = fetch_url(&tool.name, &tool.input) {
            self.events.push(Event::ContextLoad {
                base: under("context"),
                source: "web",
                query: Some(url.to_owned()),
                reason: tool
                    .input
                    .get("prompt")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            });
        }
        if classify(&tool.name) == Some(ToolClass::Plan) {
            let items = plan_items(&tool.name, &tool.input);
            let text = plan_text(&tool.name, &tool.input);
            let steps: Vec<PlanStep> = items
                .iter()
                .flatten()
                .enumerate()
                .map(|(n, item)| PlanStep {
                    id: (n + 1).to_string(),
                    description: item.description.clone(),
                    status: plan_status(item.status),
                })
                .collect();
            let status = match &items {
                None => "draft",
                Some(_)
                    if steps
                        .iter()
                        .any(|s| matches!(s.status, "pending" | "in_progress")) =>
                {
                    "active"
                }
                Some(_) => "completed",
            };
            let title = text
                .and_then(|t| t.lines().map(str::trim).find(|l| !l.is_empty()))
                .map(|line| line.trim_start_matches('#').trim().to_owned())
                .unwrap_or_else(|| format!("{} list", tool.name));
            self.events.push(Event::Plan {
                base: under("plan"),
                title,
                steps,
                status,
            });
        }
    }

    fn tool_result(
        &mut self,
        file: &Path,
        place: (u64, u64),
        event: &ExchangeEvent,
        result: &ToolPayload,
        base: Base,
        state: &mut RunState,
    ) {
        let Some((at, call)) = state.open.remove(&result.call_id) else {
            let note = format!(
                "{}: result for call {} without a call",
                base.id, result.call_id
            );
            self.note(file, place, LinkKind::Structure, note);
            return;
        };
        let output = output_text(&result.output);
        let failed = result.error.is_some() || result.exit_code.is_some_and(|c| c != 0);
        let call_id = self.events[at].base().id.clone();
        if let Event::ToolCall {
            base: call_base,
            output: call_output,
            status,
            ..
        } = &mut self.events[at]
        {
            *call_output = Some(output.clone());
            *status = if failed { "error" } else { "success" };
            call_base.properties.remove("axt:noResult");
            // A router names the agent's id on its events after it matched it.
            if let Some(agent_id) = &result.agent_call_id {
                call_base
                    .properties
                    .insert("axt:agentCallId".into(), agent_id.clone().into());
            }
            if let Some(ms) = result.duration_ms.or_else(|| millis(&call, event)) {
                call_base.duration_ms = Some(ms);
            }
        }
        let Payload::Tool(call_tool) = &call.payload else {
            return;
        };
        // A call with several command lines and no `command` block: the last one, as the
        // last `command` block of a call is the one kept above.
        let command = state
            .commands
            .remove(&result.call_id)
            .or_else(|| shell_commands(&call_tool.name, &call_tool.input).pop());
        if let Some(command) = command {
            self.events.push(Event::TerminalCommand {
                base: derived(&base, "command", Some(call_id.clone())),
                command,
                cwd: self.root.clone(),
                stdout: output.clone(),
                exit_code: result.exit_code.or_else(|| exit_code(&output, failed)),
            });
        }
        if let Some(answer) = approval(&call_tool.name, &call_tool.input, &result.output) {
            self.events.push(Event::Approval {
                base: derived(&base, "approval", Some(call_id.clone())),
                action: format!(
                    "call {}",
                    answer.tool.as_deref().unwrap_or(call_tool.name.as_str())
                ),
                approver: "user",
                decision: if answer.approved {
                    "approved"
                } else {
                    "denied"
                },
                constraints: answer.reason,
                tool_name: answer.tool,
            });
        }
        if !failed {
            for (n, op) in file_operations(&call_tool.name, &call_tool.input)
                .into_iter()
                .enumerate()
            {
                let path = self.relative(&op.path);
                self.files.insert(path.clone());
                let diff = op.diff.or_else(|| edit_diff(&op.path, &op.edits));
                let diff = diff.map(|diff| {
                    let (added, removed) = diff_counts(&diff);
                    Diff {
                        diff,
                        diff_format: "unified",
                        lines_added: added,
                        lines_removed: removed,
                    }
                });
                self.events.push(Event::FileOperation {
                    base: derived(&base, &format!("file{n}"), Some(call_id.clone())),
                    operation: op.operation,
                    path,
                    diff,
                });
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn handoff(
        &mut self,
        run: &RunData,
        place: (u64, u64),
        event: &ExchangeEvent,
        step: &StepPayload,
        mut base: Base,
        agent_name: &str,
        state: &RunState,
    ) {
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
        let prompt = state
            .open
            .get(call_id)
            .and_then(|(_, call)| match &call.payload {
                Payload::Tool(t) => t.input.get("prompt").and_then(Value::as_str),
                _ => None,
            })
            .map(str::to_owned);
        base.properties
            .insert("axt:childRunId".into(), child.clone().into());
        if let Some(ms) = completed.and_then(|c| millis(event, c)) {
            base.duration_ms = Some(ms);
        }
        let id = base.id.clone();
        self.events.push(Event::Handoff {
            base,
            from_agent: agent_name.to_owned(),
            to_agent: step.name.clone(),
            context_transferred: prompt,
            status: match (completed, &error) {
                (None, _) => "initiated",
                (Some(_), None) => "completed",
                (Some(_), Some(_)) => "failed",
            },
        });
        self.child(&child, id, (&run.file, place), &run.run_id, &step.name);
    }

    /// A workflow run's steps as one plan, at its start.
    fn workflow_plan(&mut self, run: &RunData, started: &StepPayload, base: &Base) {
        let mut steps: Vec<PlanStep> = Vec::new();
        let mut open: HashMap<(String, u64), usize> = HashMap::new();
        for event in &run.events {
            match (&event.event_type, &event.payload) {
                (EventType::StepStarted, Payload::Step(step)) => {
                    let id = match event.iteration {
                        0 => event.path.clone(),
                        n => format!("{}#{n}", event.path),
                    };
                    open.insert((event.path.clone(), event.iteration), steps.len());
                    steps.push(PlanStep {
                        id,
                        description: format!("{} ({})", step.name, step.kind.as_str()),
                        status: "in_progress",
                    });
                }
                (EventType::StepCompleted, Payload::Step(step)) => {
                    if let Some(&n) = open.get(&(event.path.clone(), event.iteration)) {
                        steps[n].status = if step.error.is_some() {
                            "failed"
                        } else {
                            "completed"
                        };
                    }
                }
                _ => {}
            }
        }
        let completed = run
            .events
            .iter()
            .rev()
            .find_map(|e| match (&e.event_type, &e.payload) {
                (EventType::RunCompleted, Payload::Step(step)) => Some(step),
                _ => None,
            });
        let status = match completed {
            None => "active",
            Some(step) if step.error.is_some() || steps.iter().any(|s| s.status == "failed") => {
                "abandoned"
            }
            Some(_) => "completed",
        };
        let title = match started.name.as_str() {
            "" => "workflow".to_owned(),
            name => format!("workflow {name}"),
        };
        self.events.push(Event::Plan {
            base: derived(base, "workflow", base.parent_id.clone()),
            title,
            steps,
            status,
        });
    }

    fn run_completed(&mut self, step: &StepPayload, base: Base, state: &RunState) {
        if let Some(error) = &step.error {
            self.events.push(Event::Error {
                base: base.clone(),
                message: error.clone(),
                code: None,
                category: category(error),
                resolved: false,
            });
        }
        let Some(meta) = RunMeta::of(step) else {
            return;
        };
        for (n, e) in meta.errors.iter().enumerate() {
            if e.fatal && step.error.is_some() {
                continue;
            }
            let mut b = derived(&base, &format!("error{n}"), base.parent_id.clone());
            if e.line > 0 {
                b.properties.insert("axt:line".into(), e.line.into());
            }
            self.events.push(Event::Error {
                base: b,
                message: e.message.clone(),
                code: None,
                category: category(&e.message),
                resolved: !e.fatal,
            });
        }
        for (n, denied) in meta.denied_calls().into_iter().enumerate() {
            let parent = state
                .calls
                .get(&denied.call_id)
                .map(|&at| self.events[at].base().id.clone())
                .or(base.parent_id.clone());
            let mut b = derived(&base, &format!("denied{n}"), parent);
            b.properties
                .insert("axt:callId".into(), denied.call_id.clone().into());
            self.events.push(Event::Approval {
                base: b,
                action: format!("call {}", denied.tool),
                approver: "policy",
                decision: "denied",
                constraints: None,
                tool_name: Some(denied.tool),
            });
        }
        for (n, compaction) in meta.compactions().into_iter().enumerate() {
            let mut b = derived(&base, &format!("checkpoint{n}"), base.parent_id.clone());
            if let Some(time) = &compaction.time {
                b.timestamp = time.as_str().to_owned();
            }
            b.properties
                .insert("axt:line".into(), compaction.line.into());
            let trigger = compaction.trigger.as_deref().unwrap_or("context");
            let label = match compaction.tokens_before {
                Some(tokens) => format!("{trigger} compaction of {tokens} tokens"),
                None => format!("{trigger} compaction"),
            };
            self.events.push(Event::Checkpoint {
                base: b,
                checkpoint_type: "memory_flush",
                label: Some(label),
                restorable: false,
            });
        }
        if let Some(answer) = &meta.answer {
            self.answer(answer, &base);
        }
    }

    /// The run's answer: on its last assistant message when that says it, else a message.
    fn answer(&mut self, answer: &str, base: &Base) {
        let run_id = base.properties.get("axt:runId").cloned();
        let last = self.events.iter_mut().rev().find(|e| {
            matches!(e, Event::Message { role, .. } if role == "assistant")
                && e.base().properties.get("axt:runId") == run_id.as_ref()
        });
        if let Some(Event::Message { base, content, .. }) = last
            && content.trim() == answer.trim()
        {
            base.properties.insert("axt:answer".into(), true.into());
            return;
        }
        let mut b = derived(base, "answer", base.parent_id.clone());
        b.properties.insert("axt:answer".into(), true.into());
        self.messages += 1;
        self.events.push(Event::Message {
            base: b,
            role: "assistant".to_owned(),
            content: answer.to_owned(),
        });
    }

    /// Marks what the provider withdrew, among this run's events (from `first`).
    fn retractions(&mut self, first: usize, meta: &RunMeta) {
        let mut messages: HashMap<&str, u64> = HashMap::new();
        let mut calls: HashMap<&str, u64> = HashMap::new();
        for retraction in &meta.retracted {
            if let Some(id) = &retraction.message_id {
                messages.insert(id, retraction.by_line);
            }
            for id in &retraction.tool_ids {
                calls.insert(id, retraction.by_line);
            }
        }
        if messages.is_empty() && calls.is_empty() {
            return;
        }
        for event in &mut self.events[first..] {
            let props = &event.base().properties;
            let key = |name: &str| props.get(name).and_then(Value::as_str).map(str::to_owned);
            let by = match event {
                Event::Message { .. } | Event::Reasoning { .. } => {
                    key("axt:messageId").and_then(|id| messages.get(id.as_str()).copied())
                }
                Event::ToolCall { .. } => {
                    key("axt:callId").and_then(|id| calls.get(id.as_str()).copied())
                }
                _ => None,
            };
            if let Some(line) = by {
                let props = &mut event.base_mut().properties;
                props.insert("axt:retracted".into(), true.into());
                props.insert("axt:retractedByLine".into(), line.into());
            }
        }
    }

    /// Exports the child run `child`, invoked by `parent` at `invoked` (its file, line and
    /// byte offset), under the handoff `handoff`.
    fn child(
        &mut self,
        child: &str,
        handoff: String,
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
                self.run(run, Some(handoff), name);
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
}

/// Completes a `toolCall` with the result its provider reported in an assistant message.
fn server_result(call: &mut Event, (text, failed): (String, bool)) {
    if let Event::ToolCall {
        base,
        output,
        status,
        ..
    } = call
    {
        *output = Some(text);
        *status = if failed { "error" } else { "success" };
        base.properties.remove("axt:noResult");
        base.properties.insert("axt:server".into(), true.into());
    }
}
