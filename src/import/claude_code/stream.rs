//! Transcribing a thread with the stream-json adapter, straight into a sink: the thread's
//! entries read again by their byte range and pushed through the Claude adapter, the
//! `step.call_workflow.*` events put in as the spawning calls and their results go by, and
//! `run.completed` given the import metadata.
//!
//! This room owns the events of a run; it decides nothing about the graph (that is the
//! plan's) and writes nothing (its caller's sink does).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::log::EntryReader;
use super::plan::{Plan, Spawn};
use super::session::{FileDiagnostic, ImportError};
use super::thread::What;
use crate::model::{EventType, ExchangeEvent, Payload, StepPayload, Timestamp};
use crate::normalize::{Diagnostic, Options, Provider};
use crate::transcribe::{EventOptions, EventSink, Transcriber};

/// Transcribes thread `at` of a plan into `out`, entry by entry from its file; returns the
/// diagnostics, their lines those of the file.
pub(super) fn transcribe(
    plan: &Plan,
    at: usize,
    out: &mut dyn FnMut(ExchangeEvent) -> Result<(), ImportError>,
) -> Result<Vec<FileDiagnostic>, ImportError> {
    let thread = &plan.threads[at];
    let spawns = &plan.spawns[at];
    let first = thread.feed.iter().find_map(|f| f.timestamp.clone());
    let last = thread.feed.iter().rev().find_map(|f| f.timestamp.clone());
    let epoch = || Timestamp::parse("1970-01-01T00:00:00Z").expect("a valid timestamp");
    let now = Arc::new(Mutex::new(first.clone().unwrap_or_else(epoch)));
    let clock_now = Arc::clone(&now);
    let options = EventOptions {
        run_id: Some(thread.run_id.clone()),
        clock: Box::new(move || clock_now.lock().expect("clock lock").clone()),
    };
    let mut transcriber = Transcriber::new(Provider::Claude, Options::default(), options);
    let mut sink = Stream {
        parent: plan.parent_run_id(at),
        spawns,
        by_call: spawns
            .iter()
            .enumerate()
            .rev()
            .filter_map(|(at, spawn)| Some((spawn.call.as_deref()?, at)))
            .collect(),
        states: spawns.iter().map(|_| SpawnState::default()).collect(),
        held: Default::default(),
        last: None,
        out,
        diagnostics: Vec::new(),
    };
    let mut reader = match thread
        .feed
        .iter()
        .any(|f| !matches!(f.what, What::Bytes(_)))
    {
        true => Some(EntryReader::open(&thread.source)?),
        false => None,
    };
    // Synthetic line n (1-based) came from `lines[n - 1]`: (synthetic offset, line, offset).
    let mut lines = Vec::with_capacity(thread.feed.len() + 1);
    let mut synthetic = 0u64;
    let terminal = thread.import.contains_key("terminal");
    let mut record = Vec::new();
    let mut push = |bytes: &[u8], line: u64, offset: u64, sink: &mut Stream<'_>| {
        lines.push((synthetic, line, offset));
        synthetic += bytes.len() as u64 + 1;
        record.clear();
        record.extend_from_slice(bytes);
        record.push(b'\n');
        transcriber.push(&record, sink)
    };
    let mut off_usage: HashMap<String, Value> = HashMap::new();
    for feed in &thread.feed {
        if let Some(ts) = &feed.timestamp {
            *now.lock().expect("clock lock") = ts.clone();
        }
        let note = |value: Value| serde_json::to_vec(&value).expect("a JSON value serializes");
        let reader = reader.as_mut();
        match &feed.what {
            What::Bytes(bytes) => push(bytes, feed.line, feed.offset(), &mut sink)?,
            What::Entry => {
                let bytes = reader.expect("a reader").raw(&feed.range)?;
                push(bytes, feed.line, feed.offset(), &mut sink)?;
            }
            What::CompactSummary => {
                let entry = reader.expect("a reader").value(&feed.range)?;
                let bytes = note(json!({"type": "axt-import", "subtype": "compact-summary",
                    "line": feed.line, "entry": entry}));
                push(&bytes, feed.line, feed.offset(), &mut sink)?;
            }
            What::OffChain(reason) => {
                let entry = reader.expect("a reader").value(&feed.range)?;
                if entry.get("type").and_then(Value::as_str) == Some("assistant")
                    && let (Some(id), Some(usage)) = (
                        entry.pointer("/message/id").and_then(Value::as_str),
                        entry.pointer("/message/usage"),
                    )
                {
                    off_usage.insert(id.to_owned(), usage.clone());
                }
                let bytes = note(json!({"type": "axt-import", "subtype": "off-chain",
                    "reason": reason, "line": feed.line, "entry": entry}));
                push(&bytes, feed.line, feed.offset(), &mut sink)?;
            }
        }
    }
    if !terminal {
        // The log has no terminal record: the run is what the file holds.
        let duration = match (&first, &last) {
            (Some(a), Some(b)) => match (a.unix_nanos(), b.unix_nanos()) {
                (Ok(a), Ok(b)) if b >= a => Some(((b - a) / 1_000_000) as u64),
                _ => None,
            },
            _ => None,
        };
        let mut record = json!({"type": "result", "subtype": "success", "is_error": false});
        if let Some(ms) = duration {
            record["duration_ms"] = ms.into();
        }
        let (line, offset) = thread.feed.last().map_or((0, 0), |f| (f.line, f.offset()));
        let bytes = serde_json::to_vec(&record).expect("a JSON value serializes");
        push(&bytes, line, offset, &mut sink)?;
    }
    transcriber.finish(&mut sink)?;
    let map = |line: u64, offset: u64| -> (u64, u64) {
        match line.checked_sub(1).and_then(|i| lines.get(i as usize)) {
            Some((start, line, original)) => (*line, original + offset.saturating_sub(*start)),
            None => (0, 0),
        }
    };
    let mut import = thread.import.clone();
    if !off_usage.is_empty() {
        let mut total = json!({"input_tokens": 0, "output_tokens": 0,
            "cache_read_tokens": 0, "cache_write_tokens": 0});
        for usage in off_usage.values() {
            for (to, from) in [
                ("input_tokens", "input_tokens"),
                ("output_tokens", "output_tokens"),
                ("cache_read_tokens", "cache_read_input_tokens"),
                ("cache_write_tokens", "cache_creation_input_tokens"),
            ] {
                let add = usage.get(from).and_then(Value::as_u64).unwrap_or(0);
                total[to] = (total[to].as_u64().unwrap_or(0) + add).into();
            }
        }
        import.insert("off_chain_usage".into(), total);
    }
    if let Some(completed) = sink.held.back_mut()
        && let Payload::Step(step) = &mut completed.payload
        && let Value::Object(result) = &mut step.result
    {
        for key in ["passthrough", "errors"] {
            if let Some(Value::Array(items)) = result.get_mut(key) {
                for item in items {
                    if let Some(line) = item.get("line").and_then(Value::as_u64) {
                        item["line"] = map(line, 0).0.into();
                    }
                }
            }
        }
        if !result.contains_key("session_id")
            && let Some(session) = &thread.session_id
        {
            result.insert("session_id".into(), session.clone().into());
        }
        if !result.contains_key("provider_version")
            && let Some(version) = &thread.version
        {
            result.insert("provider_version".into(), version.clone().into());
        }
        result.insert("import".into(), Value::Object(import));
    }
    sink.close()?;
    Ok(sink
        .diagnostics
        .into_iter()
        .map(|mut diagnostic| {
            (diagnostic.line, diagnostic.offset) = map(diagnostic.line, diagnostic.offset);
            FileDiagnostic {
                file: thread.source.clone(),
                diagnostic,
            }
        })
        .collect())
}

/// The adapter's events on their way to the run's sink: the run's parent stamped on each,
/// `step.call_workflow.started` put right after the spawning call, `.completed` right after
/// its result. The last two events (the closing `step.completed` of `agent` and
/// `run.completed`) are held back: what has no place before them (an unlinked sub-agent, a
/// call that never returned) goes just before them, and `run.completed` gets the import
/// metadata.
struct Stream<'a> {
    parent: Option<&'a str>,
    spawns: &'a [Spawn],
    by_call: HashMap<&'a str, usize>,
    states: Vec<SpawnState>,
    held: std::collections::VecDeque<ExchangeEvent>,
    /// The last event passed on, payload left out: the template of an injected event.
    last: Option<ExchangeEvent>,
    out: &'a mut dyn FnMut(ExchangeEvent) -> Result<(), ImportError>,
    diagnostics: Vec<Diagnostic>,
}

/// Where a spawn's events are as the run streams.
#[derive(Default)]
struct SpawnState {
    /// The spawning call's `tool.call` went by (its first one).
    call_seen: bool,
    /// The call's `tool.result` went by (its first one), with its error.
    result: Option<Option<String>>,
    started: bool,
    completed: bool,
}

/// An event's fields without its payload.
fn shell(event: &ExchangeEvent) -> ExchangeEvent {
    ExchangeEvent {
        seq: event.seq,
        run_id: event.run_id.clone(),
        parent_run_id: event.parent_run_id.clone(),
        child_run_id: event.child_run_id.clone(),
        event_type: event.event_type.clone(),
        path: event.path.clone(),
        iteration: event.iteration,
        timestamp: event.timestamp.clone(),
        payload: Payload::Step(StepPayload {
            name: String::new(),
            kind: String::new(),
            error: None,
            result: Value::Null,
        }),
    }
}

impl Stream<'_> {
    fn pass(&mut self, mut event: ExchangeEvent) -> Result<(), ImportError> {
        if let Some(parent) = self.parent {
            event.parent_run_id = Some(parent.to_owned());
        }
        self.last = Some(shell(&event));
        (self.out)(event)
    }

    /// Passes on an event the adapter made, and the spawn events that follow it.
    fn pass_made(&mut self, event: ExchangeEvent) -> Result<(), ImportError> {
        let mut started = None;
        let mut completed = None;
        if let Payload::Tool(tool) = &event.payload
            && let Some(&at) = self.by_call.get(tool.call_id.as_str())
        {
            let state = &mut self.states[at];
            if event.event_type == EventType::ToolCall && !state.call_seen {
                state.call_seen = true;
                if !state.started {
                    started = Some(at);
                }
            } else if event.event_type == EventType::ToolResult && state.result.is_none() {
                state.result = Some(tool.error.clone());
                if state.started && !state.completed {
                    completed = Some(at);
                }
            }
        }
        self.pass(event)?;
        if let Some(at) = started {
            self.inject(at, EventType::CallWorkflowStarted, None)?;
        }
        if let Some(at) = completed {
            let error = self.states[at].result.clone().flatten();
            self.inject(at, EventType::CallWorkflowCompleted, error)?;
        }
        Ok(())
    }

    fn inject(
        &mut self,
        at: usize,
        kind: EventType,
        error: Option<String>,
    ) -> Result<(), ImportError> {
        let spawn = &self.spawns[at];
        let path = format!(
            "agent.{}",
            spawn
                .call
                .as_deref()
                .map_or_else(|| format!("unlinked-{}", spawn.child), str::to_owned)
        );
        let mut event = match &self.last {
            Some(last) => last.clone(),
            None => shell(self.held.front().expect("a run has events")),
        };
        let started = kind == EventType::CallWorkflowStarted;
        event.event_type = kind;
        event.path = path;
        event.child_run_id = Some(spawn.child.clone());
        event.payload = Payload::Step(StepPayload {
            name: spawn.name.clone(),
            kind: "call_workflow".to_owned(),
            error,
            result: Value::Null,
        });
        match started {
            true => self.states[at].started = true,
            false => self.states[at].completed = true,
        }
        self.pass(event)
    }

    /// The end of the run: what is still to inject, then the events held back.
    fn close(&mut self) -> Result<(), ImportError> {
        for at in 0..self.spawns.len() {
            if !self.states[at].started {
                self.inject(at, EventType::CallWorkflowStarted, None)?;
            }
            if !self.states[at].completed {
                let error = match &self.states[at].result {
                    Some(error) => error.clone(),
                    None => self.spawns[at]
                        .call
                        .as_ref()
                        .map(|_| "the spawning call never returned".to_owned()),
                };
                self.inject(at, EventType::CallWorkflowCompleted, error)?;
            }
        }
        while let Some(event) = self.held.pop_front() {
            self.pass(event)?;
        }
        Ok(())
    }
}

impl EventSink for Stream<'_> {
    type Error = ImportError;

    fn event(&mut self, event: ExchangeEvent) -> Result<(), ImportError> {
        self.held.push_back(event);
        if self.held.len() > 2 {
            let event = self.held.pop_front().expect("held events");
            self.pass_made(event)?;
        }
        Ok(())
    }
    fn diagnostic(&mut self, diagnostic: Diagnostic) -> Result<(), ImportError> {
        self.diagnostics.push(diagnostic);
        Ok(())
    }
}
