//! One run's events in, in file order, the rows of every table out, as soon as each is
//! complete: a step at its `step.completed`, a tool call at its result, a content block at
//! its event, a diagnostic at its problem. What a row needs from later in the file comes
//! from the [`Source`] survey (the run metadata of the last line) or waits in small state:
//! open steps, calls awaiting their result, and the run's model responses (written at the
//! run's end, when their models and the run's tokens are known; [`Responses`] holds the
//! latest thousand and spills the rest, so a run of any length maps in bounded memory).
//!
//! This file owns the mapping of events onto rows, documented column by column in
//! `schema.rs`. It must not write files (a [`RowSink`] takes the rows) and must not decide
//! which calls are one call: [`Calls`] does, for this mapping as for `axt stats`.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::Path;

use serde_json::Value;

use super::responses::{Patch, Response, Responses};
use super::schema::{
    Cell, ContentRow, DiagnosticRow, LlmCallRow, Row, RunRow, SCHEMA_VERSION, StepRow, ToolCallRow,
};
use super::source::{Source, sha256_hex};
use crate::export::otlp::map::finish_reason;
use crate::model::tools::classify;
use crate::model::{
    Block, EventType, ExchangeEvent, Fidelity, MessagePayload, Payload, Role, RunMeta, RunStatus,
    StepKind, StepPayload, ToolPayload, Usage, UsageScope,
};
use crate::read::{CallKey, Calls, Cost, Prices, Problem, ReadItem, Settled};
use crate::record::Redactor;

/// Where rows go: one table at a time, cells in column order.
pub(crate) trait RowSink {
    /// Takes one row of table `table` (its index in `TABLES`).
    fn push(&mut self, table: usize, cells: Vec<Cell>) -> std::io::Result<()>;
}

fn emit<R: Row>(sink: &mut dyn RowSink, row: R) -> std::io::Result<()> {
    sink.push(R::INDEX, row.cells())
}

/// What to map besides the always-written tables.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RowOptions {
    /// Write `content` rows.
    pub(crate) content: bool,
    /// Mask credentials in `content` rows.
    pub(crate) redact: bool,
}

/// The lineage of a run, decided before it is mapped.
#[derive(Clone, Debug)]
pub(crate) struct Lineage {
    /// Its topmost known ancestor.
    pub(crate) root_run_id: String,
}

/// Microseconds since the epoch of an event's time; `None` when it does not parse.
fn micros(event: &ExchangeEvent) -> Option<i64> {
    let nanos = event.timestamp.unix_nanos().ok()?;
    i64::try_from(nanos.div_euclid(1_000)).ok()
}

fn millis_between(from: Option<i64>, to: Option<i64>) -> Option<i64> {
    let (from, to) = (from?, to?);
    (to >= from).then(|| (to - from) / 1_000)
}

fn int(count: u64) -> i64 {
    i64::try_from(count).unwrap_or(i64::MAX)
}

/// Tokens and cost, as a step or a run spends them. The three costs are kept apart, each
/// null until some agent gives it: what the providers reported, what the price table makes
/// of the tokens (every agent whose model it knows, reported or not), and the cost as
/// `axt stats` counts it ([`Cost`]: reported where reported, else estimated).
#[derive(Clone, Copy, Debug, Default)]
struct Spend {
    usage: Usage,
    reported: Option<f64>,
    estimated: Option<f64>,
    cost: Option<f64>,
}

/// `sum + add`, null while both are.
fn add_cost(sum: &mut Option<f64>, add: Option<f64>) {
    if let Some(usd) = add {
        *sum.get_or_insert(0.0) += usd;
    }
}

impl Spend {
    fn add(&mut self, other: &Spend) {
        self.usage.add(&other.usage);
        add_cost(&mut self.reported, other.reported);
        add_cost(&mut self.estimated, other.estimated);
        add_cost(&mut self.cost, other.cost);
    }

    fn of(meta: &RunMeta, prices: &Prices) -> Spend {
        Spend {
            usage: meta.usage,
            reported: meta.cost_usd,
            estimated: Cost::estimate(meta, prices).map(|(_, usd)| usd),
            cost: Cost::of(meta, prices).known_usd(),
        }
    }
}

struct OpenStep {
    seq: u64,
    path: String,
    iteration: u64,
    name: String,
    kind: StepKind,
    started: Option<i64>,
    child_run_id: Option<String>,
    /// What the steps completed inside it spent, and their calls.
    inside: Spend,
    llm_calls: u64,
    tool_calls: u64,
}

struct OpenCall {
    seq: u64,
    at: Option<i64>,
    path: String,
    iteration: u64,
    call_id: String,
    agent_call_id: Option<String>,
    name: String,
    fidelity: String,
    sighted: bool,
    input_bytes: i64,
    input_sha256: String,
}

/// The agent of a workflow's agent step, for the model responses inside it.
struct Agent {
    path: String,
    iteration: u64,
    provider: Option<String>,
    model: Option<String>,
}

/// Maps one run's read items onto rows. Feed every item of the file with [`RunRows::item`],
/// then [`RunRows::finish`].
pub(crate) struct RunRows<'a> {
    source: &'a Source,
    /// The price table the estimated costs come from.
    prices: &'a Prices,
    lineage: Lineage,
    options: RowOptions,
    /// The calls of a file with `router` payloads, settled by a pass of their own.
    settled: Option<Calls>,
    calls: Calls,
    run_id: String,
    started: Option<(Option<i64>, StepPayload)>,
    completed: Option<(Option<i64>, StepPayload)>,
    metas: Vec<RunMeta>,
    first_at: Option<i64>,
    last_at: Option<i64>,
    counts: Counts,
    prompt: Option<String>,
    steps: Vec<OpenStep>,
    /// The response being read: its number in `responses`.
    turn: Option<usize>,
    /// The run's model responses, written when it ends: a response's model may be named
    /// only by an agent step that completes later, its token counts only by the run's
    /// total, and its message id may come back after other events (the parts of one
    /// response the provider interleaves with server-side calls). Held in bounded memory.
    responses: Responses<'a>,
    agents: Vec<Agent>,
    open_calls: HashMap<CallKey, VecDeque<OpenCall>>,
    /// Calls in `open_calls`.
    open_count: usize,
    /// The most responses and open calls held in memory at once (see [`RunRows::peak_held`]).
    peak_held: usize,
    denied: HashSet<String>,
    /// Whether the run's metadata was given to its agent step.
    attributed: bool,
}

#[derive(Default)]
struct Counts {
    events: u64,
    messages: u64,
    steps: u64,
    llm_calls: u64,
    tool_calls: u64,
    tool_failures: u64,
    problems: u64,
    sub_runs: u64,
}

impl<'a> RunRows<'a> {
    /// A mapper for the run of `source`; `settled` is the [`Calls`] of a whole pass over a
    /// file with `router` payloads (see [`Source::routed`]).
    pub(crate) fn new(
        source: &'a Source,
        prices: &'a Prices,
        lineage: Lineage,
        options: RowOptions,
        settled: Option<Calls>,
        spill_dir: &'a Path,
    ) -> Self {
        let denied = source
            .tail
            .iter()
            .flat_map(RunMeta::denied_calls)
            .map(|denied| denied.call_id)
            .collect();
        RunRows {
            source,
            prices,
            lineage,
            options,
            settled,
            calls: Calls::default(),
            run_id: source
                .run
                .as_ref()
                .map(|r| r.run_id.clone())
                .unwrap_or_default(),
            started: None,
            completed: None,
            metas: Vec::new(),
            first_at: None,
            last_at: None,
            counts: Counts::default(),
            prompt: None,
            steps: Vec::new(),
            turn: None,
            responses: Responses::new(spill_dir),
            agents: Vec::new(),
            open_calls: HashMap::new(),
            open_count: 0,
            peak_held: 0,
            denied,
            attributed: false,
        }
    }

    /// Maps one item of the reader.
    pub(crate) fn item(&mut self, item: ReadItem, sink: &mut dyn RowSink) -> std::io::Result<()> {
        match item {
            ReadItem::Problem(problem) => self.problem(problem, sink)?,
            ReadItem::Event { event, .. } => self.event(*event, sink)?,
        }
        // A call awaiting its result is in a queue of its key; a queue is dropped with its
        // last call (counted apart, so that one kept empty would show).
        let held = self.responses.held() + self.open_count.max(self.open_calls.len());
        self.peak_held = self.peak_held.max(held);
        Ok(())
    }

    /// The most rows held in memory at once waiting for later events: model responses in
    /// memory (at most [`WINDOW`](super::responses::WINDOW), the rest spilled) and calls
    /// awaiting their result (or their queues, when more). What bounds a worker's memory
    /// whatever the run's length.
    pub(crate) fn peak_held(&self) -> usize {
        self.peak_held
    }

    fn problem(&mut self, problem: Problem, sink: &mut dyn RowSink) -> std::io::Result<()> {
        self.counts.problems += 1;
        let row = DiagnosticRow {
            run_id: self.run_id_or_none(),
            source_file: self.source.file_name.clone(),
            source_sha256: self.source.sha256.clone(),
            source: "read".to_owned(),
            kind: problem.kind.as_str().to_owned(),
            severity: "error".to_owned(),
            line: Some(int(problem.line)),
            offset: Some(int(problem.offset)),
            record_type: None,
            field: None,
            count: 1,
            message: masked(&problem.message),
        };
        emit(sink, row)
    }

    /// Whether the run is one agent's (its `run.started` kind is not `workflow`).
    fn is_agent_run(&self) -> bool {
        self.started
            .as_ref()
            .is_some_and(|(_, step)| step.kind != StepKind::Workflow)
    }

    fn run_id_or_none(&self) -> Option<String> {
        Some(self.run_id.clone()).filter(|id| !id.is_empty())
    }

    fn event(&mut self, event: ExchangeEvent, sink: &mut dyn RowSink) -> std::io::Result<()> {
        let at = micros(&event);
        self.counts.events += 1;
        if self.first_at.is_none() {
            self.first_at = at;
        }
        if self.run_id.is_empty() {
            self.run_id = event.run_id.clone();
        }
        // The model response in progress ends at any event but its own messages, the tool
        // calls it asks for and the sub-runs they start.
        let continues = matches!(
            event.event_type,
            EventType::MessageAssistant | EventType::ToolCall | EventType::CallWorkflowStarted
        );
        if !continues {
            self.end_turn();
        }
        if self.options.content {
            self.content(&event, sink)?;
        }
        match (&event.event_type, &event.payload) {
            (EventType::RunStarted, Payload::Step(step)) => {
                self.started = Some((at, step.clone()));
            }
            (EventType::RunCompleted, payload) => {
                let step = match payload {
                    Payload::Step(step) => step.clone(),
                    _ => StepPayload::new("", StepKind::Agent),
                };
                if let Some(meta) = RunMeta::of(&step) {
                    self.metas.insert(0, meta);
                }
                self.completed = Some((at, step));
            }
            (EventType::StepStarted, Payload::Step(step)) => {
                self.counts.steps += 1;
                self.steps.push(OpenStep {
                    seq: event.seq,
                    path: event.path.clone(),
                    iteration: event.iteration,
                    name: step.name.clone(),
                    kind: step.kind.clone(),
                    started: at,
                    child_run_id: None,
                    inside: Spend::default(),
                    llm_calls: 0,
                    tool_calls: 0,
                });
            }
            (EventType::StepCompleted, Payload::Step(step)) => {
                self.step_completed(&event, step, at, sink)?;
            }
            (EventType::CallWorkflowStarted, _) => {
                self.counts.sub_runs += 1;
                if let Some(step) = self.steps.iter_mut().rev().find(|s| s.path == event.path) {
                    step.child_run_id = event.child_run_id.clone();
                }
            }
            (EventType::MessageUser, Payload::Message(message)) => {
                self.counts.messages += 1;
                if self.prompt.is_none() {
                    self.prompt = prompt_of(message);
                }
            }
            (EventType::MessageAssistant, Payload::Message(message)) => {
                self.counts.messages += 1;
                self.assistant(&event, message, at)?;
            }
            (EventType::ToolCall | EventType::ToolResult, Payload::Tool(tool)) => {
                self.tool(&event, tool, at, sink)?;
            }
            _ => {}
        }
        self.last_at = at.or(self.last_at);
        Ok(())
    }

    /// The innermost open step an event at `path` happens in: the latest at that path, else
    /// at its longest open prefix.
    fn step_at(&mut self, path: &str) -> Option<&mut OpenStep> {
        let index = self
            .steps
            .iter()
            .rposition(|s| s.path == path)
            .or_else(|| {
                (self.steps.iter().enumerate().rev())
                    .filter(|(_, s)| is_prefix(&s.path, path))
                    .max_by_key(|(_, s)| s.path.len())
                    .map(|(i, _)| i)
            })?;
        self.steps.get_mut(index)
    }

    fn step_completed(
        &mut self,
        event: &ExchangeEvent,
        step: &StepPayload,
        at: Option<i64>,
        sink: &mut dyn RowSink,
    ) -> std::io::Result<()> {
        let found = self
            .steps
            .iter()
            .rposition(|s| s.path == event.path && s.iteration == event.iteration)
            .or_else(|| self.steps.iter().rposition(|s| s.path == event.path));
        let meta = (step.kind == StepKind::Agent)
            .then(|| RunMeta::of(step))
            .flatten();
        // The agent step of a run normalized from one agent's output is that agent: the
        // run's metadata (in `run.completed`, read ahead from the file's end) is its own.
        let own_meta = match &meta {
            None if step.kind == StepKind::Agent && self.is_agent_run() && !self.attributed => {
                self.attributed = true;
                self.source.tail.clone()
            }
            _ => None,
        };
        let open = match found {
            Some(index) => self.steps.remove(index),
            None => {
                self.counts.steps += 1;
                OpenStep {
                    seq: event.seq,
                    path: event.path.clone(),
                    iteration: event.iteration,
                    name: step.name.clone(),
                    kind: step.kind.clone(),
                    started: None,
                    child_run_id: None,
                    inside: Spend::default(),
                    llm_calls: 0,
                    tool_calls: 0,
                }
            }
        };
        let own = meta
            .as_ref()
            .or(own_meta.as_ref())
            .map(|meta| Spend::of(meta, self.prices))
            .unwrap_or_default();
        let mut subtree = own;
        subtree.add(&open.inside);
        let (provider, model) = match meta.as_ref().or(own_meta.as_ref()) {
            Some(meta) => (Some(meta.provider.as_str().to_owned()), meta.model.clone()),
            None => (None, None),
        };
        if let Some(meta) = meta {
            self.agents.push(Agent {
                path: open.path.clone(),
                iteration: open.iteration,
                provider: provider.clone(),
                model: model.clone(),
            });
            self.metas.push(meta);
        }
        // What it spent and held counts inside the step around it.
        let parent = self
            .steps
            .iter_mut()
            .filter(|s| is_prefix(&s.path, &open.path))
            .max_by_key(|s| s.path.len());
        if let Some(parent) = parent {
            parent.inside.add(&subtree);
            parent.llm_calls += open.llm_calls;
            parent.tool_calls += open.tool_calls;
        }
        let calls = (open.llm_calls, open.tool_calls);
        let row = StepRow {
            run_id: self.run_id.clone(),
            seq: int(open.seq),
            path: open.path,
            name: open.name,
            kind: open.kind.as_str().to_owned(),
            iteration: int(open.iteration),
            status: if step.error.is_some() {
                "failed"
            } else {
                "completed"
            }
            .to_owned(),
            error: step.error.as_deref().map(masked),
            started_at: open.started,
            ended_at: at,
            duration_ms: step
                .duration_ms
                .map(int)
                .or_else(|| millis_between(open.started, at)),
            child_run_id: open.child_run_id.or_else(|| event.child_run_id.clone()),
            provider,
            model,
            input_tokens: int(own.usage.input_tokens),
            output_tokens: int(own.usage.output_tokens),
            cache_read_tokens: int(own.usage.cache_read_tokens),
            cache_write_tokens: int(own.usage.cache_write_tokens),
            reasoning_tokens: int(own.usage.reasoning_tokens),
            cost_usd_reported: own.reported,
            cost_usd_estimated: own.estimated,
            cost_usd: own.cost,
            ..StepRow::default()
        };
        emit(sink, with_subtree(row, &subtree, calls))
    }

    fn assistant(
        &mut self,
        event: &ExchangeEvent,
        message: &MessagePayload,
        at: Option<i64>,
    ) -> std::io::Result<()> {
        let id = message.message_id.as_deref();
        let same = self
            .turn
            .is_some_and(|number| self.responses.is(number, id));
        if !same {
            self.end_turn();
            let known = id.and_then(|id| self.responses.find(id));
            let number = match known {
                // More of a response read before: the provider interleaved it.
                Some(index) => index,
                None => {
                    self.counts.llm_calls += 1;
                    if let Some(step) = self.step_at(&event.path) {
                        step.llm_calls += 1;
                    }
                    let started = self
                        .last_at
                        .map_or(at, |last| Some(at.map_or(last, |at| last.min(at))));
                    self.responses.push(Response {
                        seq: int(event.seq),
                        step_path: event.path.clone(),
                        iteration: int(event.iteration),
                        response_id: message.message_id.clone(),
                        started_at: started,
                        ..Response::default()
                    })?
                }
            };
            self.turn = Some(number);
        }
        let number = self.turn.expect("opened above");
        let mut more = Patch {
            ended_at: at,
            n_blocks: int(message.blocks.len() as u64),
            ..Patch::default()
        };
        for block in &message.blocks {
            match &block.block {
                Block::Thinking { .. } => more.has_thinking = true,
                Block::ToolUse { server: false, .. } => more.n_tool_calls += 1,
                _ => {}
            }
        }
        self.responses.extend(number, more);
        Ok(())
    }

    fn end_turn(&mut self) {
        self.turn = None;
    }

    /// The model responses, with their agent's model and, for a run's only response, the
    /// run's tokens.
    fn responses(&mut self, sink: &mut dyn RowSink) -> std::io::Result<()> {
        let only = self.responses.len() == 1 && self.metas.len() == 1;
        let reason = self
            .source
            .tail
            .as_ref()
            .and_then(finish_reason)
            .unwrap_or_else(|| "stop".to_owned());
        // Taken, so that the rows can be completed from the rest of the run meanwhile.
        let mut responses = std::mem::replace(&mut self.responses, Responses::new(Path::new("")));
        responses.drain(|response| {
            let mut row = LlmCallRow {
                run_id: self.run_id.clone(),
                seq: response.seq,
                step_path: response.step_path,
                iteration: response.iteration,
                response_id: response.response_id,
                started_at: response.started_at,
                ended_at: response.ended_at,
                n_blocks: response.n_blocks,
                has_thinking: response.has_thinking,
                n_tool_calls: response.n_tool_calls,
                ..LlmCallRow::default()
            };
            row.duration_ms = millis_between(row.started_at, row.ended_at);
            row.finish_reason = if row.n_tool_calls > 0 {
                "tool_call".to_owned()
            } else {
                reason.clone()
            };
            match &self.source.tail {
                Some(meta) => {
                    row.provider = Some(meta.provider.as_str().to_owned());
                    row.model = meta.model.clone();
                }
                None => self.name_agent(&mut row),
            }
            if only {
                let meta = &self.metas[0];
                let usage = meta.usage;
                let spend = Spend::of(meta, self.prices);
                row.cost_usd_reported = spend.reported;
                row.cost_usd_estimated = spend.estimated;
                row.cost_usd = spend.cost;
                row.input_tokens = Some(int(usage.input_tokens));
                row.output_tokens = Some(int(usage.output_tokens));
                row.cache_read_tokens = Some(int(usage.cache_read_tokens));
                row.cache_write_tokens = Some(int(usage.cache_write_tokens));
                row.reasoning_tokens = Some(int(usage.reasoning_tokens));
            }
            emit(sink, row)
        })
    }

    fn name_agent(&self, row: &mut LlmCallRow) {
        let iteration = u64::try_from(row.iteration).unwrap_or(0);
        let agent = self
            .agents
            .iter()
            .filter(|a| {
                a.iteration == iteration
                    && (a.path == row.step_path || is_prefix(&a.path, &row.step_path))
            })
            .max_by_key(|a| a.path.len());
        if let Some(agent) = agent {
            row.provider = agent.provider.clone();
            row.model = agent.model.clone();
        }
    }

    fn tool(
        &mut self,
        event: &ExchangeEvent,
        tool: &ToolPayload,
        at: Option<i64>,
        sink: &mut dyn RowSink,
    ) -> std::io::Result<()> {
        let Some(seen) = self.calls.see(event) else {
            return Ok(());
        };
        let settled = match &self.settled {
            Some(calls) => calls.settled(event),
            None => Some(Settled::Call { sighted: false }),
        };
        let sighted = match settled {
            Some(Settled::Sighting) => return Ok(()),
            Some(Settled::Call { sighted }) => sighted,
            None => false,
        };
        let failed = tool.error.is_some() || tool.exit_code.is_some_and(|code| code != 0);
        if event.event_type == EventType::ToolCall {
            self.counts.tool_calls += 1;
            if let Some(step) = self.step_at(&event.path) {
                step.tool_calls += 1;
            }
            let input = compact(&tool.input);
            let call = OpenCall {
                seq: event.seq,
                at,
                path: event.path.clone(),
                iteration: event.iteration,
                call_id: tool.call_id.clone(),
                agent_call_id: tool.agent_call_id.clone(),
                name: tool.name.clone(),
                fidelity: tool.fidelity.as_str().to_owned(),
                sighted,
                input_bytes: int(input.len() as u64),
                input_sha256: sha256_hex(input.as_bytes()),
            };
            self.open_calls
                .entry(seen.call)
                .or_default()
                .push_back(call);
            self.open_count += 1;
            return Ok(());
        }
        if failed {
            self.counts.tool_failures += 1;
        }
        // An emptied queue goes: a run's open calls, not all its calls, stay in memory.
        let call = match self.open_calls.get_mut(&seen.call) {
            Some(queue) => {
                let call = queue.pop_front();
                self.open_count -= usize::from(call.is_some());
                if queue.is_empty() {
                    self.open_calls.remove(&seen.call);
                }
                call
            }
            None => None,
        };
        let output = match &*tool.output {
            Value::Null => None,
            Value::String(text) => Some(text.len()),
            other => Some(compact(other).len()),
        };
        let mut row = match call {
            Some(call) => self.call_row(call),
            None => ToolCallRow {
                run_id: self.run_id.clone(),
                step_path: event.path.clone(),
                iteration: int(event.iteration),
                call_id: tool.call_id.clone(),
                name: tool.name.clone(),
                tool_class: class_name(&tool.name),
                fidelity: tool.fidelity.as_str().to_owned(),
                sighted,
                ..ToolCallRow::default()
            },
        };
        if tool.fidelity == Fidelity::Router && tool.agent_call_id.is_some() {
            row.agent_call_id = tool.agent_call_id.clone();
        }
        row.result_seq = Some(int(event.seq));
        row.status = if failed { "error" } else { "success" }.to_owned();
        row.exit_code = tool.exit_code;
        row.error = tool.error.as_deref().map(masked);
        row.ended_at = at;
        row.duration_ms = tool
            .duration_ms
            .map(int)
            .or_else(|| millis_between(row.started_at, at));
        row.output_bytes = output.map(|n| int(n as u64));
        emit(sink, row)
    }

    /// The row of a call, before its result is known.
    fn call_row(&self, call: OpenCall) -> ToolCallRow {
        let decision = self
            .denied
            .contains(&call.call_id)
            .then(|| "deny".to_owned());
        ToolCallRow {
            run_id: self.run_id.clone(),
            seq: Some(int(call.seq)),
            result_seq: None,
            step_path: call.path,
            iteration: int(call.iteration),
            tool_class: class_name(&call.name),
            call_id: call.call_id,
            agent_call_id: call.agent_call_id,
            name: call.name,
            fidelity: call.fidelity,
            sighted: call.sighted,
            status: "no_result".to_owned(),
            exit_code: None,
            error: None,
            started_at: call.at,
            ended_at: None,
            duration_ms: None,
            input_bytes: Some(call.input_bytes),
            output_bytes: None,
            input_sha256: Some(call.input_sha256),
            decision,
        }
    }

    fn content(&mut self, event: &ExchangeEvent, sink: &mut dyn RowSink) -> std::io::Result<()> {
        let role = match &event.payload {
            Payload::Message(message) => Some(message.role.as_str().to_owned()),
            _ => None,
        };
        let row = |index: usize, block_type: &str, text: Option<String>| ContentRow {
            run_id: self.run_id.clone(),
            seq: int(event.seq),
            block_index: int(index as u64),
            event_type: event.event_type.as_str().to_owned(),
            role: role.clone(),
            step_path: event.path.clone(),
            block_type: block_type.to_owned(),
            text,
            ..ContentRow::default()
        };
        let mut rows = Vec::new();
        for (index, block) in event.payload.blocks().iter().enumerate() {
            let mut content = row(index, block.block.type_name(), None);
            let text = match &block.block {
                Block::Text {
                    text,
                    system_prompt,
                    ..
                } => {
                    content.system_prompt = *system_prompt && role.as_deref() == Some("user");
                    text.clone()
                }
                Block::Thinking { thinking, .. } => thinking.clone(),
                Block::ToolUse {
                    tool_name,
                    tool_id,
                    tool_input,
                    ..
                } => {
                    content.tool_name = Some(tool_name.clone());
                    content.tool_id = Some(tool_id.clone());
                    text_of(tool_input)
                }
                Block::ToolResult {
                    tool_id,
                    tool_content,
                    ..
                } => {
                    content.tool_id = Some(tool_id.clone());
                    text_of(tool_content)
                }
                Block::Command { command, tool_id } => {
                    content.tool_id = tool_id.clone();
                    command.clone()
                }
                Block::Stream { chunk } => chunk.clone(),
                Block::Unrecognized(block) => compact(&block.raw),
            };
            content.text = Some(text);
            rows.push(content);
        }
        if let Payload::Tool(tool) = &event.payload {
            let (kind, value) = match event.event_type {
                EventType::ToolCall => ("tool_input", &tool.input),
                _ => ("tool_output", &*tool.output),
            };
            let mut content = row(0, kind, Some(text_of(value)));
            content.tool_name = Some(tool.name.clone());
            content.tool_id = Some(tool.call_id.clone());
            rows.push(content);
        }
        for mut content in rows {
            if let Some(text) = content.text.as_mut() {
                if self.options.redact {
                    content.redacted = Redactor::credentials().redact_string(text) > 0;
                }
                content.bytes = int(text.len() as u64);
            }
            emit(sink, content)?;
        }
        Ok(())
    }

    /// Ends the run: what is still open, then its diagnostics and its `runs` row.
    pub(crate) fn finish(mut self, sink: &mut dyn RowSink) -> std::io::Result<()> {
        self.end_turn();
        self.responses(sink)?;
        // Steps never completed.
        while let Some(open) = self.steps.pop() {
            let (calls, inside) = ((open.llm_calls, open.tool_calls), open.inside);
            let row = StepRow {
                run_id: self.run_id.clone(),
                seq: int(open.seq),
                path: open.path,
                name: open.name,
                kind: open.kind.as_str().to_owned(),
                iteration: int(open.iteration),
                status: "incomplete".to_owned(),
                started_at: open.started,
                child_run_id: open.child_run_id,
                ..StepRow::default()
            };
            emit(sink, with_subtree(row, &inside, calls))?;
        }
        // Calls without a result, in call order.
        let mut open: Vec<OpenCall> = std::mem::take(&mut self.open_calls)
            .into_values()
            .flatten()
            .collect();
        open.sort_by_key(|call| call.seq);
        for call in open {
            let row = self.call_row(call);
            emit(sink, row)?;
        }
        self.diagnostics(sink)?;
        if self.run_id.is_empty() {
            return Ok(()); // a file with no event has no run
        }
        let row = self.run_row();
        emit(sink, row)
    }

    /// The loss ledger of the run metadata: records not mapped, unknown fields, provider
    /// errors.
    fn diagnostics(&self, sink: &mut dyn RowSink) -> std::io::Result<()> {
        let row = |source: &str, kind: &str, severity: &str| DiagnosticRow {
            run_id: self.run_id_or_none(),
            source_file: self.source.file_name.clone(),
            source_sha256: self.source.sha256.clone(),
            source: source.to_owned(),
            kind: kind.to_owned(),
            severity: severity.to_owned(),
            count: 1,
            ..DiagnosticRow::default()
        };
        for meta in &self.metas {
            let report = &meta.report;
            for (record_type, counts) in &report.records {
                for (kind, severity, count, what) in [
                    (
                        "skipped",
                        "error",
                        counts.skipped,
                        "skipped: read but unusable",
                    ),
                    (
                        "passthrough",
                        "info",
                        counts.passthrough,
                        "kept verbatim, not read",
                    ),
                ] {
                    if count > 0 {
                        let mut r = row("adapter", kind, severity);
                        r.record_type = Some(record_type.clone());
                        r.count = int(count);
                        r.message = format!("{count} {record_type} record(s) {what}");
                        emit(sink, r)?;
                    }
                }
                for (field, &count) in &counts.unknown_fields {
                    let mut r = row("adapter", "unknown-field", "warning");
                    r.record_type = Some(record_type.clone());
                    r.field = Some(field.clone());
                    r.count = int(count);
                    r.message =
                        format!("field {field} of {record_type} is not known to the adapter");
                    emit(sink, r)?;
                }
            }
            if report.unreadable > 0 {
                let mut r = row("adapter", "unreadable", "error");
                r.count = int(report.unreadable);
                r.message = format!("{} record(s) could not be read", report.unreadable);
                emit(sink, r)?;
            }
            for error in &meta.errors {
                let severity = if error.fatal { "error" } else { "warning" };
                let mut r = row("provider", "provider-error", severity);
                r.line = (error.line > 0).then(|| int(error.line));
                r.message = masked(&error.message);
                emit(sink, r)?;
            }
        }
        Ok(())
    }

    fn run_row(&self) -> RunRow {
        let mut spend = Spend::default();
        let mut priced_as: Vec<&str> = Vec::new();
        for meta in &self.metas {
            spend.add(&Spend::of(meta, self.prices));
            if let Some((entry, _)) = Cost::estimate(meta, self.prices)
                && !priced_as.contains(&entry)
            {
                priced_as.push(entry);
            }
        }
        // The run's own metadata first, else its first agent step's.
        let meta = self.metas.first();
        let completed = self.completed.as_ref();
        let failed = completed.is_some_and(|(_, step)| {
            step.error.is_some()
                || RunMeta::of(step).is_some_and(|meta| meta.status == RunStatus::Failed)
        });
        let status = match completed {
            None => "incomplete",
            Some(_) if failed => "failed",
            Some(_) => "completed",
        };
        let run_meta = completed.and_then(|(_, step)| RunMeta::of(step));
        let timed = match (&self.started, completed) {
            (Some((from, _)), Some((to, _))) => millis_between(*from, *to),
            _ => None,
        };
        let duration_ms = run_meta
            .as_ref()
            .and_then(|meta| meta.duration_ms)
            .map(int)
            .or(timed);
        let started = self.started.as_ref().map(|(_, step)| step);
        let kind = started.map(|step| step.kind.as_str().to_owned());
        let parent = self
            .source
            .run
            .as_ref()
            .and_then(|r| r.parent_run_id.clone());
        let lineage_kind = match (&parent, started.map(|s| &s.kind)) {
            (None, _) => "root",
            (Some(_), Some(StepKind::Workflow)) => "workflow",
            (Some(_), _) => "subagent",
        };
        let mut records = (0, 0, 0, 0, 0);
        for meta in &self.metas {
            let report = &meta.report;
            records.0 += report.total();
            records.1 += report.mapped();
            for counts in report.records.values() {
                records.2 += counts.passthrough;
                records.3 += counts.skipped;
                records.4 += counts.unknown_fields.values().sum::<u64>();
            }
            records.3 += report.unreadable;
        }
        let provider = meta.map(|meta| meta.provider);
        RunRow {
            run_id: self.run_id.clone(),
            parent_run_id: parent,
            root_run_id: self.lineage.root_run_id.clone(),
            lineage_kind: lineage_kind.to_owned(),
            name: started.map(|step| step.name.clone()),
            kind,
            provider: provider.map(|p| p.as_str().to_owned()),
            agent: provider.map(|p| p.agent_name().to_owned()),
            cli_version: meta.and_then(|meta| meta.provider_version.clone()),
            model: meta.and_then(|meta| meta.model.clone()),
            session_id: meta.and_then(|meta| meta.session_id.clone()),
            status: status.to_owned(),
            exit_code: run_meta
                .as_ref()
                .and_then(|meta| meta.process.as_ref()?.exit_code)
                .map(i64::from),
            stop_reason: meta
                .and_then(|meta| meta.stop_reason.as_ref())
                .map(|reason| stop_kind(reason.kind).to_owned()),
            started_at: self.first_at,
            ended_at: self.last_at,
            duration_ms,
            input_tokens: int(spend.usage.input_tokens),
            output_tokens: int(spend.usage.output_tokens),
            cache_read_tokens: int(spend.usage.cache_read_tokens),
            cache_write_tokens: int(spend.usage.cache_write_tokens),
            reasoning_tokens: int(spend.usage.reasoning_tokens),
            cost_usd_reported: spend.reported,
            usage_scope: match meta.map(|meta| meta.usage_scope) {
                Some(UsageScope::Session) => "session",
                _ => "run",
            }
            .to_owned(),
            n_events: int(self.counts.events),
            n_messages: int(self.counts.messages),
            n_steps: int(self.counts.steps),
            n_llm_calls: int(self.counts.llm_calls),
            n_tool_calls: int(self.counts.tool_calls),
            n_tool_failures: int(self.counts.tool_failures),
            n_errors: int(self.metas.iter().map(|m| m.errors.len() as u64).sum()),
            n_problems: int(self.counts.problems),
            n_sub_runs: int(self.counts.sub_runs),
            records_seen: int(records.0),
            records_mapped: int(records.1),
            records_passthrough: int(records.2),
            records_unmapped: int(records.3),
            unknown_fields: int(records.4),
            prompt_sha256: self.prompt.as_deref().map(|p| sha256_hex(p.as_bytes())),
            source_file: self.source.file_name.clone(),
            source_sha256: self.source.sha256.clone(),
            source_bytes: int(self.source.bytes),
            axt_version: env!("CARGO_PKG_VERSION").to_owned(),
            schema_version: SCHEMA_VERSION.to_owned(),
            cost_usd_estimated: spend.estimated,
            cost_usd: spend.cost,
            cost_priced_as: (!priced_as.is_empty()).then(|| priced_as.join(",")),
            prices_date: self.prices.date.clone(),
        }
    }
}

/// A step's row with what its subtree spent and held.
fn with_subtree(mut row: StepRow, subtree: &Spend, (llm_calls, tool_calls): (u64, u64)) -> StepRow {
    row.subtree_input_tokens = int(subtree.usage.input_tokens);
    row.subtree_output_tokens = int(subtree.usage.output_tokens);
    row.subtree_cache_read_tokens = int(subtree.usage.cache_read_tokens);
    row.subtree_cache_write_tokens = int(subtree.usage.cache_write_tokens);
    row.subtree_reasoning_tokens = int(subtree.usage.reasoning_tokens);
    row.subtree_cost_usd_reported = subtree.reported;
    row.subtree_cost_usd_estimated = subtree.estimated;
    row.subtree_cost_usd = subtree.cost;
    row.n_llm_calls = int(llm_calls);
    row.n_tool_calls = int(tool_calls);
    row
}

fn stop_kind(kind: crate::model::StopKind) -> &'static str {
    use crate::model::StopKind::*;
    match kind {
        EndTurn => "end_turn",
        ToolUse => "tool_use",
        MaxTokens => "max_tokens",
        MaxTurns => "max_turns",
        StopSequence => "stop_sequence",
        Refusal => "refusal",
        Aborted => "aborted",
        Error => "error",
        Other => "other",
    }
}

/// The tool class's column value.
fn class_name(tool: &str) -> Option<String> {
    classify(tool).map(|class| class.as_str().to_owned())
}

/// The prompt of a `message.user`: its text blocks but the system prompt, joined.
fn prompt_of(message: &MessagePayload) -> Option<String> {
    if message.role != Role::User {
        return None;
    }
    let texts: Vec<&str> = message
        .blocks
        .iter()
        .filter_map(|block| match &block.block {
            Block::Text {
                text,
                system_prompt: false,
                ..
            } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

/// Compact JSON (serde_json's maps are sorted by key, so equal values give equal text).
fn compact(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// A string as it is, anything else as compact JSON.
fn text_of(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => compact(other),
    }
}

/// Error texts go out with credentials masked, content or not.
fn masked(text: &str) -> String {
    Redactor::credentials().redact(text).into_owned()
}

fn is_prefix(outer: &str, inner: &str) -> bool {
    !outer.is_empty()
        && inner.len() > outer.len()
        && inner.starts_with(outer)
        && inner.as_bytes()[outer.len()] == b'.'
}
