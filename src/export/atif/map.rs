//! A run's events onto an ATIF trajectory, its sub-runs embedded; see [the module](super)
//! for the mapping.
//!
//! This file owns reading the run files and the mapping. It must not decide the document's
//! shape (`wire.rs`).

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::wire::{
    Agent, FinalMetrics, Metrics, Observation, ObservationResult, SCHEMA_VERSION, Source, Step,
    SubagentRef, ToolCall, Trajectory,
};
use crate::model::tools::output_text;
use crate::model::{
    Block, EventType, ExchangeEvent, MessagePayload, Payload, Role, RunMeta, StepKind, Usage,
};
use crate::read::tree::{LinkKind, TreeProblem};
use crate::read::{Calls, ReadItem, Reader, Settled};
use crate::record::Redactor;

/// One run read back.
pub(super) struct RunFile {
    pub(super) path: PathBuf,
    pub(super) run_id: String,
    pub(super) parent_run_id: Option<String>,
    pub(super) events: Vec<(u64, u64, ExchangeEvent)>,
}

/// Reads a run, its problems into `problems`; `None` when it holds no event.
pub(super) fn load(
    input: impl Read,
    path: &Path,
    redact: bool,
    problems: &mut Vec<TreeProblem>,
) -> Option<RunFile> {
    let mut events = Vec::new();
    for item in Reader::new(input) {
        match item {
            ReadItem::Event {
                line,
                offset,
                event,
            } => {
                let mut event = *event;
                if redact {
                    Redactor::credentials().redact_event(&mut event);
                }
                events.push((line, offset, event));
            }
            ReadItem::Problem(problem) => problems.push(TreeProblem::read(path, problem)),
        }
    }
    let (_, _, first) = events.first()?;
    Some(RunFile {
        path: path.to_owned(),
        run_id: first.run_id.clone(),
        parent_run_id: first.parent_run_id.clone(),
        events,
    })
}

/// The exporter of one root run and everything it invokes.
pub(super) struct Mapper {
    pub(super) dir: PathBuf,
    pub(super) redact: bool,
    pub(super) visited: HashSet<String>,
    pub(super) problems: Vec<TreeProblem>,
}

/// The trajectory being built.
struct Building {
    steps: Vec<Step>,
    /// Call id (and a router's `agent_call_id`) to the step that made the call and the
    /// call's id there.
    calls: HashMap<String, (usize, String)>,
    /// Calls whose result is in.
    answered: HashSet<String>,
    /// The model response in progress: its message id and step.
    turn: Option<(Option<String>, usize)>,
    /// Every response's step, by message id.
    responses: HashMap<String, usize>,
    children: Vec<Trajectory>,
    failed_steps: Vec<Value>,
}

impl Building {
    fn push(&mut self, mut step: Step) -> usize {
        step.step_id = self.steps.len() as u64 + 1;
        self.steps.push(step);
        self.steps.len() - 1
    }

    /// A `tool_result` block's result.
    fn block_result(&mut self, call_id: &str, content: &Value, is_error: bool) {
        let mut extra = Map::new();
        if is_error {
            extra.insert("axt".into(), json!({"is_error": true}));
        }
        self.result(call_id, output_text(content), extra);
    }

    fn result(&mut self, call_id: &str, content: String, extra: Map<String, Value>) {
        let Some((index, id)) = self.calls.get(call_id).cloned() else {
            return;
        };
        if !self.answered.insert(id.clone()) {
            return;
        }
        let observation = self.steps[index]
            .observation
            .get_or_insert_with(|| Observation {
                results: Vec::new(),
            });
        observation.results.push(ObservationResult {
            source_call_id: Some(id),
            content: Some(content),
            subagent_trajectory_ref: None,
            extra,
        });
    }
}

fn step(source: Source, event: &ExchangeEvent, message: String) -> Step {
    let mut extra = Map::new();
    extra.insert(
        "axt".into(),
        json!({"seq": event.seq, "path": event.path, "iteration": event.iteration}),
    );
    Step {
        step_id: 0,
        timestamp: Some(event.timestamp.as_str().to_owned()),
        source,
        model_name: None,
        message,
        reasoning_content: None,
        tool_calls: None,
        observation: None,
        metrics: None,
        extra,
        llm_call_count: None,
    }
}

fn arguments(input: &Value) -> Map<String, Value> {
    match input {
        Value::Object(fields) => fields.clone(),
        Value::Null => Map::new(),
        other => {
            let mut fields = Map::new();
            fields.insert("value".into(), other.clone());
            fields
        }
    }
}

/// Tokens as ATIF counts them: the prompt with its cached part, the completion with its
/// reasoning; what it has no field for in `extra`.
fn token_fields(usage: &Usage) -> (u64, u64, u64, Map<String, Value>) {
    let prompt = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens;
    let mut extra = Map::new();
    extra.insert("cache_write_tokens".into(), usage.cache_write_tokens.into());
    extra.insert("reasoning_tokens".into(), usage.reasoning_tokens.into());
    (prompt, usage.output_tokens, usage.cache_read_tokens, extra)
}

impl Mapper {
    /// The trajectory of `run`, its sub-runs (looked up in the mapper's directory) embedded.
    pub(super) fn trajectory(&mut self, run: &RunFile) -> Trajectory {
        self.visited.insert(run.run_id.clone());
        let mut calls = Calls::default();
        for (_, _, event) in &run.events {
            calls.see(event);
        }
        let meta =
            run.events
                .iter()
                .rev()
                .find_map(|(_, _, e)| match (&e.event_type, &e.payload) {
                    (EventType::RunCompleted, Payload::Step(step)) => RunMeta::of(step),
                    _ => None,
                });
        let started = run
            .events
            .iter()
            .find_map(|(_, _, e)| match (&e.event_type, &e.payload) {
                (EventType::RunStarted, Payload::Step(step)) => Some(step.clone()),
                _ => None,
            });
        let mut agents: Vec<(String, RunMeta)> = Vec::new();
        let mut doc = Building {
            steps: Vec::new(),
            calls: HashMap::new(),
            answered: HashSet::new(),
            turn: None,
            responses: HashMap::new(),
            children: Vec::new(),
            failed_steps: Vec::new(),
        };
        let mut model_responses = 0u64;
        for (line, offset, event) in &run.events {
            let continues = matches!(
                event.event_type,
                EventType::MessageAssistant | EventType::ToolCall | EventType::CallWorkflowStarted
            );
            if !continues {
                doc.turn = None;
            }
            match (&event.event_type, &event.payload) {
                (EventType::MessageUser, Payload::Message(message)) => {
                    self.user(&mut doc, event, message);
                }
                (EventType::MessageAssistant, Payload::Message(message)) => {
                    let same = doc
                        .turn
                        .as_ref()
                        .is_some_and(|(id, _)| *id == message.message_id);
                    // More of a response read before (the provider interleaved it with
                    // server-side calls): the same step.
                    let known = message
                        .message_id
                        .as_ref()
                        .and_then(|id| doc.responses.get(id).copied());
                    if let (false, Some(index)) = (same, known) {
                        doc.turn = Some((message.message_id.clone(), index));
                    } else if !same {
                        model_responses += 1;
                        let mut s = step(Source::Agent, event, String::new());
                        s.llm_call_count = Some(1);
                        s.model_name = meta.as_ref().and_then(|m| m.model.clone());
                        if let Some(id) = &message.message_id {
                            s.extra["axt"]["message_id"] = id.clone().into();
                        }
                        let index = doc.push(s);
                        if let Some(id) = &message.message_id {
                            doc.responses.insert(id.clone(), index);
                        }
                        doc.turn = Some((message.message_id.clone(), index));
                    }
                    let index = doc.turn.as_ref().expect("opened above").1;
                    assistant(&mut doc, index, message);
                }
                (EventType::ToolCall | EventType::ToolResult, Payload::Tool(_))
                    if calls.settled(event) == Some(Settled::Sighting) => {}
                (EventType::ToolCall, Payload::Tool(tool)) => {
                    let known = doc.calls.contains_key(&tool.call_id)
                        || tool
                            .agent_call_id
                            .as_ref()
                            .is_some_and(|a| doc.calls.contains_key(a));
                    if known {
                        // The model's tool_use already made it a call of its step.
                        if let Some(alias) = &tool.agent_call_id
                            && let Some(known) = doc.calls.get(alias).cloned()
                        {
                            doc.calls.insert(tool.call_id.clone(), known);
                        }
                        continue;
                    }
                    let mut extra = Map::new();
                    extra.insert(
                        "axt".into(),
                        json!({"fidelity": tool.fidelity.as_str(), "agent_call_id": tool.agent_call_id}),
                    );
                    let call = ToolCall {
                        tool_call_id: tool.call_id.clone(),
                        function_name: tool.name.clone(),
                        arguments: arguments(&tool.input),
                        extra,
                    };
                    let index = match doc.turn {
                        Some((_, index)) => index,
                        None => {
                            // A call the executor made itself: a step with no model call.
                            let mut s = step(Source::Agent, event, String::new());
                            s.llm_call_count = Some(0);
                            doc.push(s)
                        }
                    };
                    doc.steps[index]
                        .tool_calls
                        .get_or_insert_with(Vec::new)
                        .push(call);
                    let known = (index, tool.call_id.clone());
                    if let Some(alias) = &tool.agent_call_id {
                        doc.calls.insert(alias.clone(), known.clone());
                    }
                    doc.calls.insert(tool.call_id.clone(), known);
                }
                (EventType::ToolResult, Payload::Tool(tool)) => {
                    let mut extra = Map::new();
                    let mut axt = Map::new();
                    if let Some(error) = &tool.error {
                        axt.insert("error".into(), error.as_str().into());
                    }
                    if let Some(code) = tool.exit_code {
                        axt.insert("exit_code".into(), code.into());
                    }
                    if let Some(ms) = tool.duration_ms {
                        axt.insert("duration_ms".into(), ms.into());
                    }
                    if !axt.is_empty() {
                        extra.insert("axt".into(), Value::Object(axt));
                    }
                    let content = output_text(&tool.output);
                    if doc.calls.contains_key(&tool.call_id) {
                        doc.result(&tool.call_id, content, extra);
                    } else {
                        self.problems.push(TreeProblem::at(
                            &run.path,
                            (*line, *offset),
                            LinkKind::Structure,
                            format!("result for call {} without a call", tool.call_id),
                        ));
                    }
                }
                (EventType::CallWorkflowStarted, Payload::Step(call)) => {
                    let Some(child) = event.child_run_id.clone() else {
                        continue;
                    };
                    let Some(trajectory) =
                        self.child(&child, &run.run_id, (&run.path, (*line, *offset)))
                    else {
                        continue;
                    };
                    let reference = SubagentRef {
                        trajectory_id: trajectory.trajectory_id.clone(),
                    };
                    doc.children.push(trajectory);
                    // The call that delegated, when the step is named by its call id.
                    let call_id = event.path.rsplit('.').next().unwrap_or("").to_owned();
                    match doc.calls.get(&call_id).cloned() {
                        Some((index, call_id)) => {
                            let observation =
                                doc.steps[index]
                                    .observation
                                    .get_or_insert_with(|| Observation {
                                        results: Vec::new(),
                                    });
                            match observation
                                .results
                                .iter_mut()
                                .find(|r| r.source_call_id.as_deref() == Some(call_id.as_str()))
                            {
                                Some(result) => {
                                    result.subagent_trajectory_ref = Some(vec![reference]);
                                }
                                None => {
                                    doc.answered.insert(call_id.clone());
                                    observation.results.push(ObservationResult {
                                        source_call_id: Some(call_id),
                                        content: None,
                                        subagent_trajectory_ref: Some(vec![reference]),
                                        extra: Map::new(),
                                    });
                                }
                            }
                        }
                        None => {
                            let name = if call.name.is_empty() {
                                child.clone()
                            } else {
                                call.name.clone()
                            };
                            let mut s = step(Source::System, event, format!("invoked {name}"));
                            s.observation = Some(Observation {
                                results: vec![ObservationResult {
                                    source_call_id: None,
                                    content: None,
                                    subagent_trajectory_ref: Some(vec![reference]),
                                    extra: Map::new(),
                                }],
                            });
                            doc.push(s);
                        }
                    }
                }
                (EventType::StepCompleted, Payload::Step(step)) => {
                    if step.kind == StepKind::Agent
                        && let Some(agent) = RunMeta::of(step)
                    {
                        // The model of a workflow's agent step, for the responses inside it.
                        let path = event.path.clone();
                        for s in &mut doc.steps {
                            let at = s.extra["axt"]["path"].as_str().unwrap_or("");
                            if s.source == Source::Agent
                                && s.model_name.is_none()
                                && s.llm_call_count == Some(1)
                                && (at == path || at.starts_with(&format!("{path}.")))
                            {
                                s.model_name = agent.model.clone();
                            }
                        }
                        agents.push((path, agent));
                    }
                    if let Some(error) = &step.error {
                        doc.failed_steps
                            .push(json!({"path": event.path, "seq": event.seq, "error": error}));
                    }
                }
                _ => {}
            }
        }
        // The usage of a run with one model response is that response's.
        let usage_of_all = meta.iter().chain(agents.iter().map(|(_, m)| m)).fold(
            (Usage::default(), None::<f64>),
            |(mut usage, cost), m| {
                usage.add(&m.usage);
                let cost = match (cost, m.cost_usd) {
                    (Some(a), Some(b)) => Some(a + b),
                    (a, b) => a.or(b),
                };
                (usage, cost)
            },
        );
        if model_responses == 1
            && let Some(s) = doc.steps.iter_mut().find(|s| s.llm_call_count == Some(1))
        {
            let (prompt, completion, cached, extra) = token_fields(&usage_of_all.0);
            s.metrics = Some(Metrics {
                prompt_tokens: prompt,
                completion_tokens: completion,
                cached_tokens: cached,
                cost_usd: usage_of_all.1,
                extra,
            });
        }
        let (prompt, completion, cached, extra) = token_fields(&usage_of_all.0);
        let final_metrics = FinalMetrics {
            total_prompt_tokens: prompt,
            total_completion_tokens: completion,
            total_cached_tokens: cached,
            total_cost_usd: usage_of_all.1,
            total_steps: doc.steps.len() as u64,
            extra,
        };
        let agent_meta = meta.as_ref().or(agents.first().map(|(_, m)| m));
        let name = match (agent_meta, &started) {
            (Some(m), Some(s)) if s.kind != StepKind::Workflow => {
                m.provider.agent_name().to_owned()
            }
            (_, Some(s)) if !s.name.is_empty() => s.name.clone(),
            (Some(m), _) => m.provider.agent_name().to_owned(),
            _ => "axt".to_owned(),
        };
        let mut agent_extra = Map::new();
        if let Some(m) = agent_meta {
            agent_extra.insert("axt".into(), json!({"provider": m.provider.as_str()}));
        }
        let tools = agent_meta.and_then(tool_definitions);
        let mut extra = Map::new();
        let mut axt = Map::new();
        axt.insert("run_id".into(), run.run_id.clone().into());
        if let Some(parent) = &run.parent_run_id {
            axt.insert("parent_run_id".into(), parent.clone().into());
        }
        if let Some(m) = &meta {
            axt.insert(
                "status".into(),
                serde_json::to_value(m.status).unwrap_or(Value::Null),
            );
            if let Some(reason) = &m.stop_reason {
                axt.insert(
                    "stop_reason".into(),
                    serde_json::to_value(reason).unwrap_or(Value::Null),
                );
            }
            if let Some(answer) = &m.answer {
                axt.insert("answer".into(), answer.clone().into());
            }
            if !m.errors.is_empty() {
                axt.insert(
                    "errors".into(),
                    serde_json::to_value(&m.errors).unwrap_or(Value::Null),
                );
            }
            if !m.retracted.is_empty() {
                axt.insert(
                    "retracted".into(),
                    serde_json::to_value(&m.retracted).unwrap_or(Value::Null),
                );
            }
            if let Some(ms) = m.duration_ms {
                axt.insert("duration_ms".into(), ms.into());
            }
        }
        if !doc.failed_steps.is_empty() {
            axt.insert("failed_steps".into(), doc.failed_steps.clone().into());
        }
        if let Some(error) =
            run.events
                .iter()
                .rev()
                .find_map(|(_, _, e)| match (&e.event_type, &e.payload) {
                    (EventType::RunCompleted, Payload::Step(step)) => step.error.clone(),
                    _ => None,
                })
        {
            axt.insert("error".into(), error.into());
        }
        axt.insert(
            "exporter".into(),
            format!("axt {}", env!("CARGO_PKG_VERSION")).into(),
        );
        extra.insert("axt".into(), Value::Object(axt));
        let notes = (model_responses > 1).then(|| {
            "Token counts are the run's, in final_metrics: the transcript records usage per run, not per model call."
                .to_owned()
        });
        Trajectory {
            schema_version: SCHEMA_VERSION,
            session_id: Some(
                meta.as_ref()
                    .and_then(|m| m.session_id.clone())
                    .unwrap_or_else(|| run.run_id.clone()),
            ),
            trajectory_id: run.run_id.clone(),
            agent: Agent {
                name,
                version: agent_meta
                    .and_then(|m| m.provider_version.clone())
                    .unwrap_or_else(|| "unknown".to_owned()),
                model_name: agent_meta.and_then(|m| m.model.clone()),
                tool_definitions: tools,
                extra: agent_extra,
            },
            steps: doc.steps,
            notes,
            final_metrics: Some(final_metrics),
            extra,
            subagent_trajectories: doc.children,
        }
    }

    fn user(&mut self, doc: &mut Building, event: &ExchangeEvent, message: &MessagePayload) {
        let mut system = Vec::new();
        let mut prompt = Vec::new();
        for block in &message.blocks {
            match &block.block {
                Block::Text {
                    text,
                    system_prompt: true,
                    ..
                } if message.role == Role::User => system.push(text.as_str()),
                Block::Text { text, .. } => prompt.push(text.as_str()),
                Block::ToolResult {
                    tool_id,
                    tool_content,
                    is_error,
                    ..
                } => {
                    doc.block_result(tool_id, tool_content, *is_error);
                }
                _ => {}
            }
        }
        if !system.is_empty() {
            doc.push(step(Source::System, event, system.join("\n")));
        }
        if !prompt.is_empty() {
            doc.push(step(Source::User, event, prompt.join("\n")));
        }
    }

    /// The run `child`, invoked by `parent` at `at`, as a trajectory; `None` (and a
    /// problem) when it cannot be read or was exported already.
    fn child(
        &mut self,
        child: &str,
        parent: &str,
        (file, at): (&Path, (u64, u64)),
    ) -> Option<Trajectory> {
        if self.visited.contains(child) {
            self.problems.push(TreeProblem::at(
                file,
                at,
                LinkKind::ParentMismatch,
                format!("run {child} is invoked twice or in a cycle; exported once"),
            ));
            return None;
        }
        let path = self.dir.join(format!("{child}.jsonl"));
        let loaded = std::fs::File::open(&path)
            .ok()
            .and_then(|file| load(file, &path, self.redact, &mut self.problems));
        let Some(run) = loaded else {
            self.problems.push(TreeProblem::at(
                file,
                at,
                LinkKind::MissingChild,
                format!("child run {child}: no readable {}", path.display()),
            ));
            return None;
        };
        if run.parent_run_id.as_deref() != Some(parent) {
            let (line, offset, _) = &run.events[0];
            self.problems.push(TreeProblem::at(
                &path,
                (*line, *offset),
                LinkKind::ParentMismatch,
                format!("run {child} does not name {parent} as its parent"),
            ));
        }
        Some(self.trajectory(&run))
    }
}

/// An assistant message's blocks onto the agent step at `index`.
fn assistant(doc: &mut Building, index: usize, message: &MessagePayload) {
    for block in &message.blocks {
        match &block.block {
            Block::Text { text, .. } => {
                let s = &mut doc.steps[index];
                if !s.message.is_empty() {
                    s.message.push('\n');
                }
                s.message.push_str(text);
            }
            Block::Thinking { thinking, .. } if !thinking.is_empty() => {
                let s = &mut doc.steps[index];
                let reasoning = s.reasoning_content.get_or_insert_with(String::new);
                if !reasoning.is_empty() {
                    reasoning.push('\n');
                }
                reasoning.push_str(thinking);
            }
            Block::ToolUse {
                tool_name,
                tool_id,
                tool_input,
                server,
                ..
            } => {
                if doc.calls.contains_key(tool_id) {
                    continue;
                }
                let mut extra = Map::new();
                if *server {
                    extra.insert("axt".into(), json!({"server": true}));
                }
                doc.steps[index]
                    .tool_calls
                    .get_or_insert_with(Vec::new)
                    .push(ToolCall {
                        tool_call_id: tool_id.clone(),
                        function_name: tool_name.clone(),
                        arguments: arguments(tool_input),
                        extra,
                    });
                doc.calls.insert(tool_id.clone(), (index, tool_id.clone()));
            }
            // A server tool's result, in the assistant message itself.
            Block::ToolResult {
                tool_id,
                tool_content,
                is_error,
                ..
            } => {
                doc.block_result(tool_id, tool_content, *is_error);
            }
            _ => {}
        }
    }
}

/// The tools the agent said it had (Claude Code's `system/init` lists their names).
fn tool_definitions(meta: &RunMeta) -> Option<Vec<Value>> {
    let init = meta.passthrough.iter().find(|p| p.kind == "system/init")?;
    let names = init.raw.get("tools")?.as_array()?;
    Some(
        names
            .iter()
            .filter_map(Value::as_str)
            .map(|name| json!({"type": "function", "function": {"name": name}}))
            .collect(),
    )
}
