//! The mapper: a run's events in, in file order, finished spans out, one event at a time,
//! so the batch exporter and a live subscriber on the recorder's fan-out share it. The
//! mapping itself is documented on [the module](super).
//!
//! What the mapper cannot see from one event at a time it takes from its [`RunContext`]:
//! the trace and the parent span (decided by whoever follows the run links), the provider
//! and model for the `chat` spans (in a transcript they arrive only with `run.completed`,
//! after the turns), and the calls seen on both channels (judged by the readers' rule,
//! [`Calls`], which the mapper also asks event by event). [`RunContext::from_events`] reads
//! them from a whole file; a live exporter fills them from what its executor knows.

use std::collections::HashSet;

use serde_json::Value;

use super::ids::{SpanId, SpanRole, TraceId};
use super::messages;
use super::span::{AttrValue, Attrs, Span, SpanEvent, SpanKind, Status};
use crate::model::tools::{ToolClass, approval, classify};
use crate::model::{
    Block, EventType, ExchangeEvent, Payload, Provider, RunMeta, RunStatus, StepKind, StepPayload,
    StopKind, ToolPayload, UsageScope, Vendor,
};
use crate::read::{CallKey, Calls, Seen, Settled, Verdict};
use crate::record::Redactor;

/// What the mapper of one run is told rather than reads from its events.
///
/// `#[non_exhaustive]`: it grows with what the mapper needs told; build one with
/// [`RunContext::new`] (or [`RunContext::from_events`]) and set the fields you know.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct RunContext {
    /// The trace: the root run's ([`TraceId::of_root`]).
    pub trace_id: TraceId,
    /// The span a sub-run's span goes under (its `call_workflow` step); `None` for a root.
    pub parent_span_id: Option<SpanId>,
    /// The adapter that normalized the run (the run metadata's `provider`), for
    /// `gen_ai.provider.name`.
    pub provider: Option<Provider>,
    /// The model, for the `chat` spans.
    pub model: Option<String>,
    /// The provider's session id, for `gen_ai.conversation.id`.
    pub conversation_id: Option<String>,
    /// The run's stop reason as the conventions spell finish reasons, for the last turn.
    pub finish_reason: Option<String>,
    /// Message content, tool arguments and results as attributes (`--content`, or the
    /// content capture setting `SPAN_ONLY` / `SPAN_AND_EVENT`).
    pub content: bool,
    /// Message content as a `gen_ai.client.inference.operation.details` event on each
    /// `chat` span (the content capture setting `EVENT_ONLY` / `SPAN_AND_EVENT`).
    pub content_events: bool,
    /// The calls the provider denied for want of permission (the run metadata's
    /// `denied_calls`): their spans get a `gen_ai.tool.call.decision` event, `deny`.
    pub denied: HashSet<String>,
    /// The run's tool events judged whole by the readers' rule for calls seen on both
    /// channels ([`Calls`], the model's "Calls seen on both channels"), when the caller has
    /// the whole run ([`RunContext::from_events`]): an `agent_emitted` event of a call the
    /// router captured anywhere in the run makes no span. Empty for a live export, whose
    /// mapper asks the same rule event by event.
    pub calls: Calls,
    /// The agents of a workflow run's agent steps, for the `chat` spans inside them (a
    /// workflow run's own metadata names no model).
    pub agents: Vec<AgentContext>,
}

/// What a workflow's agent step says of its agent (its `step.completed` result).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentContext {
    /// The agent step's path: its `chat` spans are at it or under it.
    pub path: String,
    /// The step's iteration.
    pub iteration: u64,
    /// The adapter.
    pub provider: Option<Provider>,
    /// The model.
    pub model: Option<String>,
    /// The provider's session id.
    pub conversation_id: Option<String>,
}

impl RunContext {
    /// A context that knows only the trace.
    pub fn new(trace_id: TraceId, parent_span_id: Option<SpanId>) -> Self {
        RunContext {
            trace_id,
            parent_span_id,
            provider: None,
            model: None,
            conversation_id: None,
            finish_reason: None,
            content: false,
            content_events: false,
            denied: HashSet::new(),
            calls: Calls::default(),
            agents: Vec::new(),
        }
    }

    /// The context of a whole run's events: the metadata of its `run.completed`, and the
    /// call ids reported on both channels.
    pub fn from_events(
        trace_id: TraceId,
        parent_span_id: Option<SpanId>,
        events: &[ExchangeEvent],
    ) -> Self {
        let mut context = RunContext::new(trace_id, parent_span_id);
        if let Some(meta) = events.iter().rev().find_map(run_meta) {
            context.denied = meta.denied_calls().into_iter().map(|d| d.call_id).collect();
            context.provider = Some(meta.provider);
            context.finish_reason = finish_reason(&meta);
            context.model = meta.model;
            context.conversation_id = meta.session_id;
        }
        for event in events {
            context.calls.see(event);
        }
        context.agents = events
            .iter()
            .filter_map(|e| match (&e.event_type, &e.payload) {
                (EventType::StepCompleted, Payload::Step(step)) if step.kind == StepKind::Agent => {
                    let meta = RunMeta::of(step)?;
                    Some(AgentContext {
                        path: e.path.clone(),
                        iteration: e.iteration,
                        provider: Some(meta.provider),
                        model: meta.model,
                        conversation_id: meta.session_id,
                    })
                }
                _ => None,
            })
            .collect();
        context
    }

    /// Whether message content is captured at all (on spans or in events).
    fn captures(&self) -> bool {
        self.content || self.content_events
    }

    /// The agent whose step holds `path` at `iteration`, if its step named one: the
    /// innermost.
    fn agent_at(&self, path: &str, iteration: u64) -> Option<&AgentContext> {
        self.agents
            .iter()
            .filter(|agent| {
                agent.iteration == iteration && (agent.path == path || is_prefix(&agent.path, path))
            })
            .max_by_key(|agent| agent.path.len())
    }
}

/// The `result` of a `run.completed`: the run's metadata.
fn run_meta(event: &ExchangeEvent) -> Option<RunMeta> {
    match (&event.event_type, &event.payload) {
        (EventType::RunCompleted, Payload::Step(step)) => RunMeta::of(step),
        _ => None,
    }
}

/// The run's stop reason as a finish reason (the GenAI conventions' spelling).
pub(crate) fn finish_reason(meta: &RunMeta) -> Option<String> {
    let reason = meta.stop_reason.as_ref()?;
    Some(
        match reason.kind {
            StopKind::EndTurn | StopKind::StopSequence => "stop",
            StopKind::ToolUse => "tool_call",
            StopKind::MaxTokens => "length",
            StopKind::Refusal => "content_filter",
            StopKind::Error => "error",
            StopKind::MaxTurns => "max_turns",
            StopKind::Aborted => "aborted",
            StopKind::Other if reason.raw.is_empty() => "other",
            StopKind::Other => &reason.raw,
        }
        .to_owned(),
    )
}

/// `gen_ai.provider.name` of a vendor, when the model name does not say: the conventions'
/// well-known value.
fn vendor_name(vendor: Vendor) -> Option<&'static str> {
    Some(match vendor {
        Vendor::Anthropic => "anthropic",
        Vendor::OpenAi => "openai",
        Vendor::Google => "gcp.gemini",
        Vendor::GitHub => "github.copilot",
        Vendor::Aws => "aws.bedrock",
        // An ACP agent may run any model: only its name says whose.
        Vendor::Unknown => return None,
    })
}

/// `gen_ai.provider.name`: the conventions' well-known value for the model's maker when the
/// model name says it, else the adapter's vendor's.
pub fn provider_name(adapter: Option<Provider>, model: Option<&str>) -> Option<String> {
    let model = model.unwrap_or("").to_ascii_lowercase();
    let model = model.rsplit('/').next().unwrap_or("");
    let by_model = [
        ("claude", "anthropic"),
        ("gpt", "openai"),
        ("o1", "openai"),
        ("o3", "openai"),
        ("o4", "openai"),
        ("codex", "openai"),
        ("gemini", "gcp.gemini"),
        ("grok", "x_ai"),
        ("deepseek", "deepseek"),
        ("mistral", "mistral_ai"),
        ("magistral", "mistral_ai"),
        ("sonar", "perplexity"),
    ];
    if let Some((_, name)) = by_model.iter().find(|(p, _)| model.starts_with(p)) {
        return Some((*name).to_owned());
    }
    vendor_name(adapter?.vendor()).map(str::to_owned)
}

/// A span still open.
struct Open {
    id: SpanId,
    parent: Option<SpanId>,
    name: String,
    kind: SpanKind,
    start: u64,
    attrs: Attrs,
    status: Status,
    events: Vec<SpanEvent>,
}

struct OpenStep {
    path: String,
    iteration: u64,
    span: Open,
}

struct OpenTurn {
    message_id: Option<String>,
    calls: bool,
    parts: Vec<Value>,
    input: Vec<Value>,
    system: Vec<Value>,
    last: u64,
    span: Open,
}

struct OpenTool {
    /// The call, whatever id its events come under (see [`Calls`]).
    call: CallKey,
    span: Open,
}

/// Maps one run's events onto spans. Feed it the events in file order with
/// [`Mapper::push`]; each span comes out when the event that ends it is pushed, and
/// [`Mapper::finish`] ends what the file left open.
pub struct Mapper {
    context: RunContext,
    run_id: String,
    workflow: bool,
    run: Option<Open>,
    steps: Vec<OpenStep>,
    turn: Option<OpenTurn>,
    tools: Vec<OpenTool>,
    /// The readers' rule for calls seen on both channels, asked event by event.
    seen: Calls,
    /// The `call_workflow` spans opened for a call with no open step at its path.
    calls: Vec<(String, Open)>,
    /// Input for the next model turn: prompts and tool results since the last one.
    input: Vec<Value>,
    system: Vec<Value>,
    last: u64,
    links: Vec<(String, SpanId)>,
    /// Approval calls (the Responses API's `mcp_approval_request`) to the tool they ask
    /// about, for the decision their answer is.
    approvals: std::collections::HashMap<String, Value>,
}

impl Mapper {
    /// A mapper for one run.
    pub fn new(context: RunContext) -> Self {
        Mapper {
            context,
            run_id: String::new(),
            workflow: false,
            run: None,
            steps: Vec::new(),
            turn: None,
            tools: Vec::new(),
            seen: Calls::default(),
            calls: Vec::new(),
            input: Vec::new(),
            system: Vec::new(),
            last: 0,
            links: Vec::new(),
            approvals: std::collections::HashMap::new(),
        }
    }

    /// The sub-runs this run invoked so far, each with the span its run span goes under.
    pub fn links(&self) -> &[(String, SpanId)] {
        &self.links
    }

    /// Maps one event; spans it ends are appended to `out`.
    pub fn push(&mut self, event: &ExchangeEvent, out: &mut Vec<Span>) {
        let mut event = event.clone();
        Redactor::credentials().redact_event(&mut event);
        let at = match event.timestamp.unix_nanos() {
            Ok(nanos) => u64::try_from(nanos.max(0)).unwrap_or(u64::MAX),
            Err(_) => self.last,
        };
        if self.run.is_none() {
            self.open_run(&event, at);
        }
        match (&event.event_type, &event.payload) {
            (EventType::RunStarted, _) => {}
            (EventType::RunCompleted, payload) => {
                self.end_turn(out);
                let step = match payload {
                    Payload::Step(step) => Some(step),
                    _ => None,
                };
                self.close_all(at, out);
                if let Some(run) = self.run.as_mut() {
                    complete_run(run, step, &self.context);
                }
                if let Some(run) = self.run.take() {
                    out.push(self.finished(run, at));
                }
            }
            (EventType::StepStarted, Payload::Step(step)) => {
                self.end_turn(out);
                self.open_step(&event, step, at);
            }
            (EventType::StepCompleted, Payload::Step(step)) => {
                self.end_turn(out);
                self.close_step(&event, step, at, out);
            }
            (EventType::CallWorkflowStarted, payload) => {
                self.end_turn(out);
                self.call_started(&event, payload, at);
            }
            (EventType::CallWorkflowCompleted, _) => {
                self.end_turn(out);
                let child = event.child_run_id.as_deref().unwrap_or("");
                if let Some(i) = self.calls.iter().position(|(c, _)| c == child) {
                    let (_, span) = self.calls.remove(i);
                    out.push(self.finished(span, at));
                }
            }
            (EventType::MessageUser, Payload::Message(message)) => {
                self.end_turn(out);
                if self.context.captures() {
                    let parts = messages::user_parts(&message.blocks);
                    if !parts.prompt.is_empty() {
                        self.input.push(messages::user_message(parts.prompt));
                    }
                    self.input.extend(parts.tool_messages);
                    self.system.extend(parts.system);
                }
            }
            (EventType::MessageAssistant, Payload::Message(message)) => {
                self.assistant(&event, message, at, out);
            }
            (EventType::ToolCall, Payload::Tool(tool)) => self.tool_call(&event, tool, at),
            (EventType::ToolResult, Payload::Tool(tool)) => {
                self.end_turn(out);
                self.tool_result(&event, tool, at, out);
            }
            _ => {}
        }
        self.last = self.last.max(at);
    }

    /// Ends every span still open at the last event's time, marked `axt.incomplete`.
    pub fn finish(mut self, out: &mut Vec<Span>) {
        self.end_turn(out);
        let at = self.last;
        self.close_all(at, out);
        if let Some(mut run) = self.run.take() {
            complete_run(&mut run, None, &self.context);
            run.attrs.bool("axt.incomplete", true);
            out.push(self.finished(run, at));
        }
    }

    fn open_run(&mut self, event: &ExchangeEvent, at: u64) {
        self.run_id = event.run_id.clone();
        let (name, kind) = match (&event.event_type, &event.payload) {
            (EventType::RunStarted, Payload::Step(step)) => (step.name.clone(), step.kind.clone()),
            _ => (String::new(), StepKind::Agent),
        };
        self.workflow = kind == StepKind::Workflow;
        let operation = if self.workflow {
            "invoke_workflow"
        } else {
            "invoke_agent"
        };
        let mut attrs = Attrs::default();
        attrs.str("gen_ai.operation.name", operation);
        let name_key = if self.workflow {
            "gen_ai.workflow.name"
        } else {
            "gen_ai.agent.name"
        };
        attrs.opt_str(name_key, Some(&name));
        if !self.workflow {
            let provider = provider_name(self.context.provider, self.context.model.as_deref());
            attrs.opt_str("gen_ai.provider.name", provider.as_deref());
        }
        attrs.str("axt.run.id", &event.run_id);
        attrs.opt_str("axt.run.parent_id", event.parent_run_id.as_deref());
        self.run = Some(Open {
            id: SpanId::of(&event.run_id, SpanRole::Run, event.seq),
            parent: self.context.parent_span_id,
            name: join(operation, &name),
            // An agent CLI runs out of the executor's process: a remote agent's CLIENT span;
            // a workflow runs in it: the in-process invocation, INTERNAL.
            kind: if self.workflow {
                SpanKind::Internal
            } else {
                SpanKind::Client
            },
            start: at,
            attrs,
            status: Status::Unset,
            events: Vec::new(),
        });
    }

    fn run_span(&self) -> Option<SpanId> {
        self.run.as_ref().map(|run| run.id)
    }

    /// The span an event at `path` goes under: the latest open step at that path, else at
    /// the longest open prefix of it, else the run.
    fn parent_of(&self, path: &str) -> Option<SpanId> {
        if !path.is_empty()
            && let Some(step) = self.steps.iter().rev().find(|s| s.path == path)
        {
            return Some(step.span.id);
        }
        self.parent_of_step(path)
    }

    /// The span a step at `path` goes under: the latest open step whose path is a proper
    /// prefix of it (`a` for `a.b`), else the run.
    fn parent_of_step(&self, path: &str) -> Option<SpanId> {
        self.steps
            .iter()
            .rev()
            .filter(|s| is_prefix(&s.path, path))
            .max_by_key(|s| s.path.len())
            .map(|s| s.span.id)
            .or_else(|| self.run_span())
    }

    fn open_step(&mut self, event: &ExchangeEvent, step: &StepPayload, at: u64) {
        let mut attrs = Attrs::default();
        let agent = step.kind == StepKind::Agent && self.workflow;
        let name = if agent {
            attrs.str("gen_ai.operation.name", "invoke_agent");
            attrs.opt_str("gen_ai.agent.name", Some(&step.name));
            join("invoke_agent", &step.name)
        } else if step.name.is_empty() {
            event.path.clone()
        } else {
            step.name.clone()
        };
        attrs.str("axt.step.path", &event.path);
        attrs.str("axt.step.kind", step.kind.as_str());
        attrs.uint("axt.step.iteration", event.iteration);
        let span = Open {
            id: SpanId::of(&self.run_id, SpanRole::Step, event.seq),
            parent: self.parent_of_step(&event.path),
            name,
            // A workflow's agent step invokes an agent CLI out of process.
            kind: if agent {
                SpanKind::Client
            } else {
                SpanKind::Internal
            },
            start: at,
            attrs,
            status: Status::Unset,
            events: Vec::new(),
        };
        self.steps.push(OpenStep {
            path: event.path.clone(),
            iteration: event.iteration,
            span,
        });
    }

    fn close_step(
        &mut self,
        event: &ExchangeEvent,
        step: &StepPayload,
        at: u64,
        out: &mut Vec<Span>,
    ) {
        let found = self
            .steps
            .iter()
            .rposition(|s| s.path == event.path && s.iteration == event.iteration)
            .or_else(|| self.steps.iter().rposition(|s| s.path == event.path));
        let Some(index) = found else { return };
        // Steps opened inside it and never completed end with it.
        while self.steps.len() > index + 1 {
            let mut inner = self.steps.pop().expect("longer than index").span;
            inner.attrs.bool("axt.incomplete", true);
            out.push(self.finished(inner, at));
        }
        let mut span = self.steps.pop().expect("found").span;
        // An agent step of a workflow run carries its agent's metadata as its result.
        let invocation = span.attrs.0.iter().any(|(k, v)| {
            k == "gen_ai.operation.name" && *v == AttrValue::Str("invoke_agent".into())
        });
        if invocation && let Some(meta) = RunMeta::of(step) {
            let none = RunContext::new(self.context.trace_id, None);
            agent_attrs(&mut span.attrs, Some(&meta), &none, true);
        }
        if let Some(error) = &step.error {
            span.status = error_status(self.context.content, error, "the step failed");
            span.attrs.str("error.type", "step_failed");
        }
        if let Some(ms) = step.duration_ms {
            span.attrs.uint("axt.duration_ms", ms);
        }
        out.push(self.finished(span, at));
    }

    fn call_started(&mut self, event: &ExchangeEvent, payload: &Payload, at: u64) {
        let Some(child) = event.child_run_id.clone() else {
            return;
        };
        if let Some(step) = self.steps.iter().rev().find(|s| s.path == event.path) {
            self.links.push((child, step.span.id));
            return;
        }
        // A call with no step around it: the call is its own span.
        let name = match payload {
            Payload::Step(step) if !step.name.is_empty() => step.name.clone(),
            _ => event.path.clone(),
        };
        let mut attrs = Attrs::default();
        attrs.str("axt.step.path", &event.path);
        attrs.str("axt.step.kind", StepKind::CallWorkflow.as_str());
        attrs.uint("axt.step.iteration", event.iteration);
        let span = Open {
            id: SpanId::of(&self.run_id, SpanRole::Step, event.seq),
            parent: self.parent_of_step(&event.path),
            name,
            kind: SpanKind::Internal,
            start: at,
            attrs,
            status: Status::Unset,
            events: Vec::new(),
        };
        self.links.push((child.clone(), span.id));
        self.calls.push((child, span));
    }

    fn assistant(
        &mut self,
        event: &ExchangeEvent,
        message: &crate::model::MessagePayload,
        at: u64,
        out: &mut Vec<Span>,
    ) {
        let same = self
            .turn
            .as_ref()
            .is_some_and(|turn| turn.message_id == message.message_id);
        if !same {
            self.end_turn(out);
            let mut attrs = Attrs::default();
            attrs.str("gen_ai.operation.name", "chat");
            let agent = self.context.agent_at(&event.path, event.iteration);
            let model = agent
                .and_then(|a| a.model.clone())
                .or_else(|| self.context.model.clone());
            let adapter = agent.and_then(|a| a.provider).or(self.context.provider);
            let provider = provider_name(adapter, model.as_deref());
            attrs.opt_str("gen_ai.provider.name", provider.as_deref());
            attrs.opt_str("gen_ai.request.model", model.as_deref());
            attrs.opt_str("gen_ai.response.model", model.as_deref());
            let conversation = agent
                .and_then(|a| a.conversation_id.as_deref())
                .or(self.context.conversation_id.as_deref());
            attrs.opt_str("gen_ai.conversation.id", conversation);
            attrs.opt_str("gen_ai.response.id", message.message_id.as_deref());
            let span = Open {
                id: SpanId::of(&self.run_id, SpanRole::Chat, event.seq),
                parent: self.parent_of(&event.path),
                name: join("chat", model.as_deref().unwrap_or("")),
                kind: SpanKind::Client,
                start: if self.last == 0 {
                    at
                } else {
                    self.last.min(at)
                },
                attrs,
                status: Status::Unset,
                events: Vec::new(),
            };
            self.turn = Some(OpenTurn {
                message_id: message.message_id.clone(),
                calls: false,
                parts: Vec::new(),
                input: std::mem::take(&mut self.input),
                system: std::mem::take(&mut self.system),
                last: at,
                span,
            });
        }
        let content = self.context.captures();
        let turn = self.turn.as_mut().expect("opened above");
        turn.last = turn.last.max(at);
        turn.calls |= message
            .blocks
            .iter()
            .any(|b| matches!(b.block, Block::ToolUse { server: false, .. }));
        if content {
            turn.parts
                .extend(messages::assistant_parts(&message.blocks));
        }
    }

    fn end_turn(&mut self, out: &mut Vec<Span>) {
        let Some(mut turn) = self.turn.take() else {
            return;
        };
        let reason = if turn.calls {
            "tool_call".to_owned()
        } else {
            self.context
                .finish_reason
                .clone()
                .unwrap_or_else(|| "stop".to_owned())
        };
        let attrs = &mut turn.span.attrs;
        attrs.strs("gen_ai.response.finish_reasons", vec![reason.clone()]);
        if self.context.captures() {
            let mut content = Attrs::default();
            if !turn.system.is_empty() {
                content.str("gen_ai.system_instructions", json_text(&turn.system));
            }
            if !turn.input.is_empty() {
                content.str("gen_ai.input.messages", json_text(&turn.input));
            }
            let output = [messages::output_message(turn.parts, &reason)];
            content.str("gen_ai.output.messages", json_text(&output));
            if self.context.content_events {
                // The content capture setting's event: the inference's details.
                turn.span.events.push(SpanEvent {
                    name: "gen_ai.client.inference.operation.details".to_owned(),
                    time_unix_nano: turn.last.max(turn.span.start),
                    attributes: content.0.clone(),
                });
            }
            if self.context.content {
                attrs.0.extend(content.0);
            }
        }
        out.push(self.finished(turn.span, turn.last));
    }

    /// Whether a tool event is a sighting of a call the router captured: the whole run's
    /// verdict when the context has it, else this event's, in file order (an agent's call
    /// read before the router's copy is a call until that copy comes; see `tool_call`).
    fn judge(&mut self, event: &ExchangeEvent) -> Option<Seen> {
        let seen = self.seen.see(event)?;
        let sighting = match self.context.calls.settled(event) {
            Some(settled) => settled == Settled::Sighting,
            None => seen.verdict == Verdict::Sighting,
        };
        (!sighting).then_some(seen)
    }

    fn tool_call(&mut self, event: &ExchangeEvent, tool: &ToolPayload, at: u64) {
        let Some(seen) = self.judge(event) else {
            return;
        };
        if let Some(demoted) = &seen.demoted
            && let Some(open) = self.tools.iter_mut().find(|t| t.call == demoted.call)
        {
            // The agent's call, read first, is the router's: its span is the router's now.
            open.span
                .attrs
                .set("axt.tool.fidelity", AttrValue::Str("router".into()));
            open.call = seen.call;
            return;
        }
        if classify(&tool.name) == Some(ToolClass::Approval) {
            self.approvals
                .insert(tool.call_id.clone(), tool.input.clone());
        }
        let span = self.tool_span(event, tool, at);
        self.tools.push(OpenTool {
            call: seen.call,
            span,
        });
    }

    /// The span of a tool call, opened at `event`.
    fn tool_span(&self, event: &ExchangeEvent, tool: &ToolPayload, at: u64) -> Open {
        let mut attrs = Attrs::default();
        attrs.str("gen_ai.operation.name", "execute_tool");
        attrs.str("gen_ai.tool.name", &tool.name);
        attrs.opt_str("gen_ai.tool.call.id", Some(&tool.call_id));
        attrs.str("gen_ai.tool.type", "function");
        if self.context.content && !tool.input.is_null() {
            attrs.str("gen_ai.tool.call.arguments", json_text(&tool.input));
        }
        attrs.str("axt.tool.fidelity", tool.fidelity.as_str());
        Open {
            id: SpanId::of(&self.run_id, SpanRole::Tool, event.seq),
            parent: self.parent_of(&event.path),
            name: join("execute_tool", &tool.name),
            kind: SpanKind::Internal,
            start: at,
            attrs,
            status: Status::Unset,
            events: Vec::new(),
        }
    }

    fn tool_result(
        &mut self,
        event: &ExchangeEvent,
        tool: &ToolPayload,
        at: u64,
        out: &mut Vec<Span>,
    ) {
        let Some(seen) = self.judge(event) else {
            return;
        };
        if let Some(demoted) = &seen.demoted {
            // Named late (`agent_call_id` on the router's result): the agent's call, counted
            // apart until now, is a sighting of this one, and its span goes.
            self.tools.retain(|t| t.call != demoted.call);
        }
        if self.context.captures() {
            self.input
                .push(messages::tool_message(&tool.call_id, &tool.output));
        }
        let found = self.tools.iter().position(|t| t.call == seen.call);
        let mut span = match found {
            Some(index) => self.tools.remove(index).span,
            None => {
                // A result without its call: a span of no length, marked.
                let mut open = self.tool_span(event, tool, at);
                open.attrs.bool("axt.tool.no_call", true);
                open
            }
        };
        if self.context.content && !tool.output.is_null() {
            let result = match &*tool.output {
                Value::String(text) => text.clone(),
                other => json_text(other),
            };
            span.attrs.str("gen_ai.tool.call.result", result);
        }
        if let Some(code) = tool.exit_code {
            // The command refinement of execute_tool: the process's exit code.
            span.attrs.int("process.exit.code", code);
        }
        if let Some(ms) = tool.duration_ms {
            span.attrs.uint("axt.duration_ms", ms);
        }
        // The exit status is no content; a tool's error text (its stderr, say) is.
        let exit_code = tool.exit_code.filter(|&code| code != 0);
        let exit_status = exit_code.map(|code| format!("exit status {code}"));
        let status = match (&tool.error, exit_status) {
            (Some(error), exit_status) => Some(error_status(
                self.context.content,
                error,
                exit_status.as_deref().unwrap_or("the tool failed"),
            )),
            (None, Some(exit_status)) => Some(Status::Error(exit_status)),
            (None, None) => None,
        };
        if let Some(status) = status {
            // A command's non-zero exit code is its error type, as the conventions ask.
            let error_type = match exit_code {
                Some(code) => code.to_string(),
                None => "tool_error".to_owned(),
            };
            span.attrs.str("error.type", error_type);
            span.status = status;
        }
        self.decision(&mut span, tool);
        out.push(self.finished(span, at));
    }

    /// The pre-execution decision on a call, where the transcript has one: a
    /// `gen_ai.tool.call.decision` event (`deny` for a call the provider denied; `allow` or
    /// `deny` for an approval's answer, about the tool it names).
    fn decision(&self, span: &mut Open, tool: &ToolPayload) {
        let (outcome, name) = if self.context.denied.contains(&tool.call_id) {
            ("deny", tool.name.clone())
        } else {
            let asked = self.approvals.get(&tool.call_id).unwrap_or(&Value::Null);
            match approval(&tool.name, asked, &tool.output) {
                Some(answer) => (
                    if answer.approved { "allow" } else { "deny" },
                    answer.tool.unwrap_or_else(|| tool.name.clone()),
                ),
                None => return,
            }
        };
        let mut attrs = Attrs::default();
        attrs.str("gen_ai.tool.call.decision.outcome", outcome);
        attrs.str("gen_ai.tool.call.id", &tool.call_id);
        attrs.str("gen_ai.tool.name", name);
        span.events.push(SpanEvent {
            name: "gen_ai.tool.call.decision".to_owned(),
            time_unix_nano: span.start,
            attributes: attrs.0,
        });
    }

    /// Ends every open tool call, `call_workflow` and step, innermost first.
    fn close_all(&mut self, at: u64, out: &mut Vec<Span>) {
        for tool in std::mem::take(&mut self.tools) {
            let mut span = tool.span;
            span.attrs.bool("axt.incomplete", true);
            out.push(self.finished(span, at));
        }
        for (_, mut span) in std::mem::take(&mut self.calls) {
            span.attrs.bool("axt.incomplete", true);
            out.push(self.finished(span, at));
        }
        while let Some(step) = self.steps.pop() {
            let mut span = step.span;
            span.attrs.bool("axt.incomplete", true);
            out.push(self.finished(span, at));
        }
    }

    fn finished(&self, open: Open, end: u64) -> Span {
        Span {
            trace_id: self.context.trace_id,
            span_id: open.id,
            parent_span_id: open.parent,
            name: open.name,
            kind: open.kind,
            start_unix_nano: open.start,
            end_unix_nano: end.max(open.start),
            attributes: open.attrs.0,
            status: open.status,
            events: open.events,
        }
    }
}

/// The attributes `run.completed` gives the run span: model, session, usage, cost, stop
/// reason, failure.
fn complete_run(run: &mut Open, step: Option<&StepPayload>, context: &RunContext) {
    let meta = step.and_then(RunMeta::of);
    let meta = meta.as_ref();
    let workflow = run.attrs.0.iter().any(|(k, v)| {
        k == "gen_ai.operation.name" && *v == AttrValue::Str("invoke_workflow".into())
    });
    agent_attrs(&mut run.attrs, meta, context, !workflow);
    if let Some(ms) = meta
        .and_then(|m| m.duration_ms)
        .or(step.and_then(|s| s.duration_ms))
    {
        run.attrs.uint("axt.duration_ms", ms);
    }
    let failed = meta.filter(|m| m.status == RunStatus::Failed);
    let error = step.and_then(|s| s.error.clone()).or_else(|| {
        failed.map(|m| {
            (m.errors.iter().map(|e| &e.message))
                .find(|message| !message.is_empty())
                .cloned()
                .unwrap_or_else(|| "the run failed".to_owned())
        })
    });
    if let Some(error) = error {
        run.attrs.str("error.type", "run_failed");
        run.status = error_status(context.content, &error, "the run failed");
    }
}

/// An `ERROR` status: with content, the failure's text (masked, as every event is); without,
/// `generic`. A failure's text is the agent's or the tool's own words (a result message, a
/// command's stderr) and can quote anything they read.
fn error_status(content: bool, text: &str, generic: &str) -> Status {
    Status::Error(if content { text } else { generic }.to_owned())
}

/// The attributes an agent invocation takes from its run metadata (`meta`: a normalized
/// run's `run.completed` result, or an agent step's `step.completed` result in a workflow
/// run): provider, model, conversation, finish reason, usage, cost.
fn agent_attrs(attrs: &mut Attrs, meta: Option<&RunMeta>, context: &RunContext, provider: bool) {
    let model = meta
        .and_then(|m| m.model.clone())
        .or_else(|| context.model.clone());
    if provider {
        let adapter = meta.map(|m| m.provider).or(context.provider);
        if let Some(provider) = provider_name(adapter, model.as_deref()) {
            attrs.set("gen_ai.provider.name", AttrValue::Str(provider));
        }
    }
    attrs.opt_str("gen_ai.request.model", model.as_deref());
    attrs.opt_str("gen_ai.response.model", model.as_deref());
    let conversation = meta
        .and_then(|m| m.session_id.clone())
        .or_else(|| context.conversation_id.clone());
    attrs.opt_str("gen_ai.conversation.id", conversation.as_deref());
    let Some(meta) = meta else {
        return;
    };
    // The agent CLI's version: the remote agent's (a CLIENT span's) `gen_ai.agent.version`.
    attrs.opt_str("gen_ai.agent.version", meta.provider_version.as_deref());
    if let Some(reason) = finish_reason(meta) {
        attrs.strs("gen_ai.response.finish_reasons", vec![reason]);
    }
    let usage = &meta.usage;
    let (read, write) = (usage.cache_read_tokens, usage.cache_write_tokens);
    // The conventions count cached prompt tokens inside input_tokens; axt apart.
    attrs.uint(
        "gen_ai.usage.input_tokens",
        usage.input_tokens + read + write,
    );
    attrs.uint("gen_ai.usage.output_tokens", usage.output_tokens);
    attrs.uint("gen_ai.usage.cache_read.input_tokens", read);
    attrs.uint("gen_ai.usage.cache_write.input_tokens", write);
    attrs.uint(
        "gen_ai.usage.reasoning.output_tokens",
        usage.reasoning_tokens,
    );
    if let Some(cost) = meta.cost_usd {
        attrs.double("axt.cost_usd", cost);
    }
    if meta.usage_scope == UsageScope::Session {
        attrs.opt_str("axt.usage.scope", Some("session"));
    }
}

fn is_prefix(outer: &str, inner: &str) -> bool {
    !outer.is_empty()
        && inner.len() > outer.len()
        && inner.starts_with(outer)
        && inner.as_bytes()[outer.len()] == b'.'
}

fn join(operation: &str, name: &str) -> String {
    if name.is_empty() {
        operation.to_owned()
    } else {
        format!("{operation} {name}")
    }
}

fn json_text<T: serde::Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}
