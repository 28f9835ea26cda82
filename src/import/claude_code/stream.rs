//! Transcribing a thread with the stream-json adapter, straight into a sink: the thread's
//! entries read again by their byte range and handed to the Claude adapter at their own line
//! and offset, what is no provider record (compaction summaries, entries off the thread)
//! kept as passthrough beside them, the `step.call_workflow.*` events put in as the spawning
//! calls and their results go by, and the run finished with what the importer knows of it
//! (session, version, the `import` account, and the end of a log with no terminal record).
//!
//! This file owns the events of a run; it decides nothing about the graph (that is the
//! plan's) and writes nothing (its caller's sink does). It makes no provider record and
//! edits no event the adapter made beyond the run's parent.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::log::EntryReader;
use super::plan::{Plan, Spawn};
use super::session::{FileDiagnostic, ImportError};
use super::thread::What;
use crate::model::{EventType, ExchangeEvent, Payload, StepKind, StepPayload, Timestamp};
use crate::model::{Provider, Usage};
use crate::normalize::{Diagnostic, Given, Options, claude};
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
    let terminal = thread.import.contains_key("terminal");
    // Off-chain assistant messages by id, each with its last usage snapshot.
    let mut off_usage: HashMap<String, Usage> = HashMap::new();
    for feed in &thread.feed {
        if let Some(ts) = &feed.timestamp {
            *now.lock().expect("clock lock") = ts.clone();
        }
        let reader = reader.as_mut();
        let line = feed.line;
        match &feed.what {
            // A line the importer made (the simplified format, rewritten) stands for its
            // entry: its positions are the entry's, whatever its own length.
            What::Bytes(bytes) => {
                transcriber.push_made_record(bytes, line, feed.span(), &mut sink)?;
            }
            What::Entry => {
                let bytes = reader.expect("a reader").raw(&feed.range)?;
                transcriber.push_record(bytes, line, feed.offset(), &mut sink)?;
            }
            What::CompactSummary => {
                let entry = reader.expect("a reader").value(&feed.range)?;
                transcriber.keep(line, "axt-import/compact-summary", entry);
            }
            What::OffChain(reason) => {
                let entry = reader.expect("a reader").value(&feed.range)?;
                if entry.get("type").and_then(Value::as_str) == Some("assistant")
                    && let (Some(id), Some(usage)) = (
                        entry.pointer("/message/id").and_then(Value::as_str),
                        entry
                            .pointer("/message/usage")
                            .and_then(claude::message_usage),
                    )
                {
                    off_usage.insert(id.to_owned(), usage);
                }
                let kept = json!({"reason": reason, "entry": entry});
                transcriber.keep(line, "axt-import/off-chain", kept);
            }
        }
    }
    let mut import = thread.import.clone();
    if !off_usage.is_empty() {
        let mut total = Usage::default();
        off_usage.values().for_each(|usage| total.add(usage));
        // Reasoning tokens are not in Claude's usage: the four counts it has.
        import.insert(
            "off_chain_usage".into(),
            json!({"input_tokens": total.input_tokens, "output_tokens": total.output_tokens,
                "cache_read_tokens": total.cache_read_tokens,
                "cache_write_tokens": total.cache_write_tokens}),
        );
    }
    let given = Given {
        session_id: thread.session_id.clone(),
        provider_version: thread.version.clone(),
        import: Some(import),
        // A log without a terminal record is complete all the same: the run is what the
        // file holds, lasting as long as its stamps say.
        complete: !terminal,
        duration_ms: match (&first, &last) {
            (Some(a), Some(b)) => match (a.unix_nanos(), b.unix_nanos()) {
                (Ok(a), Ok(b)) if b >= a => Some(((b - a) / 1_000_000) as u64),
                _ => None,
            },
            _ => None,
        },
    };
    transcriber.finish_given(given, &mut sink)?;
    sink.close()?;
    Ok(sink
        .diagnostics
        .into_iter()
        .map(|diagnostic| FileDiagnostic {
            file: thread.source.clone(),
            diagnostic,
        })
        .collect())
}

/// The adapter's events on their way to the run's sink: the run's parent stamped on each,
/// `step.call_workflow.started` put right after the spawning call, `.completed` right after
/// its result. The last two events (the closing `step.completed` of `agent` and
/// `run.completed`) are held back: what has no place before them (an unlinked sub-agent, a
/// call that never returned) goes just before them.
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
        payload: Payload::Step(StepPayload::new(
            String::new(),
            StepKind::Custom(String::new()),
        )),
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
            kind: StepKind::CallWorkflow,
            error,
            result: Value::Null,
            duration_ms: None,
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
