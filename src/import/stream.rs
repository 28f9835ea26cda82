//! Transcribing a planned run into events, straight into a sink: its records read again
//! by their byte range (or made by the importer) and handed to the provider's adapter at
//! their own line and offset, what is no provider record kept as passthrough beside them,
//! the `step.call_workflow.*` events put in as the spawning calls and their results go by,
//! and the run finished with what the importer knows of it (session, version, the `import`
//! account, and the end of a log with no terminal record). A run the store describes
//! without provider output (a workflow's journal) is its events, through the same sink.
//!
//! This file owns the events of a run; it decides nothing about the session (that is the
//! store's plan) and writes nothing (its caller's sink does). It makes no provider record
//! and edits no event the adapter made beyond the run's parent.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::entries::EntryReader;
use super::feed::{Body, Feed, RunPlan, SessionPlan, Spawn, What};
use super::session::{FileDiagnostic, ImportError};
use crate::model::{EventType, ExchangeEvent, Payload, StepKind, StepPayload, Timestamp};
use crate::model::{Provider, Usage};
use crate::normalize::{Diagnostic, Given, Options};
use crate::transcribe::{EventOptions, EventSink, Transcriber};

/// Transcribes run `at` of a plan into `out`, record by record from its files; returns the
/// diagnostics, their lines those of the files.
pub(crate) fn transcribe(
    plan: &SessionPlan,
    at: usize,
    out: &mut dyn FnMut(ExchangeEvent) -> Result<(), ImportError>,
) -> Result<Vec<FileDiagnostic>, ImportError> {
    let run = &plan.runs[at];
    let spawns = &plan.spawns[at];
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
    let Body::Feed { provider, feed } = &run.body;
    let provider = *provider;
    let diagnostics = feed_adapter(run, provider, feed, &mut sink)?;
    sink.close()?;
    Ok(diagnostics)
}

/// Feeds a run's records to its adapter, through `sink`; the diagnostics, placed in the
/// files their records came from.
fn feed_adapter(
    run: &RunPlan,
    provider: Provider,
    feed: &[Feed],
    sink: &mut Stream<'_>,
) -> Result<Vec<FileDiagnostic>, ImportError> {
    let first = feed.iter().find_map(|f| f.timestamp.clone());
    let last = feed.iter().rev().find_map(|f| f.timestamp.clone());
    let epoch = || Timestamp::parse("1970-01-01T00:00:00Z").expect("a valid timestamp");
    let now = Arc::new(Mutex::new(first.clone().unwrap_or_else(epoch)));
    let clock_now = Arc::clone(&now);
    let options = EventOptions {
        run_id: Some(run.run_id.clone()),
        clock: Box::new(move || clock_now.lock().expect("clock lock").clone()),
    };
    let mut transcriber = Transcriber::new(provider, Options::default(), options);
    let mut files = Files::default();
    // The file of each diagnostic reported so far: its record's, when the record named a
    // file of its own (what is reported at the end is the run's source's).
    let mut placed: Vec<Option<&Path>> = Vec::new();
    // Off-chain messages by id, each with its last usage snapshot.
    let mut off_usage: HashMap<String, Usage> = HashMap::new();
    // The record a `What::Remade` entry stands for, one at a time.
    let mut made = Vec::new();
    // The record a `What::Fetched` entry stands for, one at a time.
    let mut fetched = Vec::new();
    for fed in feed {
        if let Some(ts) = &fed.timestamp {
            *now.lock().expect("clock lock") = ts.clone();
        }
        let line = fed.line;
        let file = fed.file.as_deref().unwrap_or(&run.source);
        match &fed.what {
            // A record the importer made stands for its entry: its positions are the
            // entry's, whatever its own length.
            What::Made(bytes) => {
                transcriber.push_made_record(bytes, line, fed.span(), sink)?;
            }
            What::Fetched(n) => {
                let records = run
                    .records
                    .as_deref()
                    .expect("a fetched record's run has its records");
                records.fetch(*n, &mut fetched)?;
                transcriber.push_made_record(&fetched, line, fed.span(), sink)?;
            }
            What::Entry => {
                let bytes = files.reader(file)?.raw(&fed.range)?;
                transcriber.push_record(bytes, line, fed.offset(), sink)?;
            }
            What::EntryWithout(field) => {
                let bytes = files.reader(file)?.raw(&fed.range)?;
                match serde_json::from_slice::<Value>(bytes) {
                    Ok(Value::Object(mut record)) => {
                        record.remove(*field);
                        let made = serde_json::to_vec(&record).expect("a JSON object serializes");
                        transcriber.push_made_record(&made, line, fed.span(), sink)?;
                    }
                    // Not an object: the adapter reports it as it is.
                    _ => transcriber.push_record(bytes, line, fed.offset(), sink)?,
                }
            }
            What::Remade(remake) => {
                let bytes = files.reader(file)?.raw(&fed.range)?;
                made.clear();
                match remake(bytes, &mut made) {
                    true => transcriber.push_made_record(&made, line, fed.span(), sink)?,
                    false => transcriber.push_record(bytes, line, fed.offset(), sink)?,
                }
            }
            What::Keep(kind) => {
                let entry = files.reader(file)?.value(&fed.range)?;
                transcriber.keep(line, kind, entry);
            }
            What::OffChain(reason) => {
                let entry = files.reader(file)?.value(&fed.range)?;
                if let Some((id, usage)) = run.off_chain_usage.and_then(|usage| usage(&entry)) {
                    off_usage.insert(id, usage);
                }
                let kept = json!({"reason": reason, "entry": entry});
                transcriber.keep(line, "axt-import/off-chain", kept);
            }
        }
        placed.resize(sink.diagnostics.len(), fed.file.as_deref());
    }
    let mut import = run.import.clone();
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
        session_id: run.session_id.clone(),
        provider_version: run.version.clone(),
        import: Some(import),
        // A log without a terminal record is complete all the same: the run is what the
        // file holds, lasting as long as its stamps say.
        complete: !run.terminal,
        duration_ms: match (&first, &last) {
            (Some(a), Some(b)) => match (a.unix_nanos(), b.unix_nanos()) {
                (Ok(a), Ok(b)) if b >= a => Some(((b - a) / 1_000_000) as u64),
                _ => None,
            },
            _ => None,
        },
        usage: run.usage,
    };
    transcriber.finish_given(given, sink)?;
    let diagnostics = std::mem::take(&mut sink.diagnostics);
    Ok(place(diagnostics, &placed, &run.source))
}

/// Each diagnostic with its file: the one its record named, else the run's source.
fn place(
    diagnostics: Vec<Diagnostic>,
    placed: &[Option<&Path>],
    source: &Path,
) -> Vec<FileDiagnostic> {
    diagnostics
        .into_iter()
        .enumerate()
        .map(|(at, diagnostic)| FileDiagnostic {
            file: placed
                .get(at)
                .copied()
                .flatten()
                .unwrap_or(source)
                .to_owned(),
            diagnostic,
        })
        .collect()
}

/// The files a run's records are read back from, each opened once.
#[derive(Default)]
struct Files {
    readers: Vec<EntryReader>,
}

impl Files {
    fn reader(&mut self, path: &Path) -> Result<&mut EntryReader, ImportError> {
        match self.readers.iter().position(|r| r.path() == path) {
            Some(at) => Ok(&mut self.readers[at]),
            None => {
                // A run reads one file, or one file per message: keep a few open at most.
                if self.readers.len() >= 8 {
                    self.readers.remove(0);
                }
                self.readers.push(EntryReader::open(path)?);
                Ok(self.readers.last_mut().expect("a reader was pushed"))
            }
        }
    }
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
        match &mut self.last {
            // Copied into the last one's strings: no allocation an event.
            Some(last) => {
                last.seq = event.seq;
                last.run_id.clone_from(&event.run_id);
                last.parent_run_id.clone_from(&event.parent_run_id);
                last.child_run_id.clone_from(&event.child_run_id);
                last.event_type.clone_from(&event.event_type);
                last.path.clone_from(&event.path);
                last.iteration = event.iteration;
                last.timestamp.clone_from(&event.timestamp);
            }
            None => self.last = Some(shell(&event)),
        }
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
                state.result = Some(tool.error.as_deref().map(str::to_owned));
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
