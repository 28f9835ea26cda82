//! A run in one line's worth of facts: what `axt ls` lists, what `axt show` heads a run
//! with and ends it on, and what a viewer or the Python package shows of a run.
//!
//! [`Summarizer`] is fed a run file's items in order (bounded memory: it keeps counts and
//! the first prompt's first line, never the messages) and gives a [`RunSummary`]: its title
//! (the first prompt's first line) and project (the working directory the run recorded),
//! its providers and models, when it started and how long it took ([`Duration`], with
//! where that figure comes from), how it ended, its tokens, its [`Cost`], its tool calls
//! and the problems read. [`summarize`] reads one file, [`summarize_all`] the files and
//! directories given, with each sub-run placed under the run that invoked it.
//!
//! A run's duration follows the rule of [`duration`](super::duration): measured, else
//! reported, else the provider's stamps, else none for an undated run (never `0ms`).
//!
//! It owns the summary's shape and how a title and a status are read; finding metadata is
//! [`agent_meta`]'s, adding spending up [`Spend`]'s, pricing
//! the [`Cost`] rule's, and printing the command line's.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::calls::{Calls, Verdict};
use super::cost::Cost;
use super::duration::{Duration, RunDuration};
use super::meta::{agent_meta, cwd, first_error};
use super::prices::Prices;
use super::reader::{Problem, ProblemKind, ReadItem, Reader, no_event};
use super::spend::{Spend, Tokens};
use super::stats::transcript_files;
use crate::model::{
    Block, EventType, ExchangeEvent, Payload, RunMeta, RunStatus as MetaStatus, Timestamp,
};

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// It has no `run.completed`, or its agent's output ended before its terminal record.
    Incomplete,
    /// It completed without error.
    Completed,
    /// It failed.
    Failed,
}

impl RunStatus {
    /// Lower-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Incomplete => "incomplete",
            RunStatus::Completed => "completed",
            RunStatus::Failed => "failed",
        }
    }
}

/// A run's tool calls, each call once (a call seen on both channels as the router's).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ToolCounts {
    /// Calls made.
    pub calls: u64,
    /// Of those, calls whose result is an error or a non-zero exit code.
    pub failed: u64,
    /// Results of no call read before them: not counted as calls.
    pub results_without_call: u64,
}

impl ToolCounts {
    fn add(&mut self, other: &ToolCounts) {
        self.calls += other.calls;
        self.failed += other.failed;
        self.results_without_call += other.results_without_call;
    }
}

/// One run, summarized.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunSummary {
    /// The run's id (of its first event).
    pub run_id: String,
    /// The run that invoked it, as its file says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_run_id: Option<String>,
    /// The file it was read from.
    pub file: PathBuf,
    /// The run's name (`run.started`): the workflow's, or the provider's for an agent run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The first prompt's first line, whitespace folded, at most [`TITLE_CHARS`] characters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The working directory the run recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// The working directory's last component: the project, as a person names it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// The providers of its agents, in order, each once.
    pub providers: Vec<String>,
    /// The models that answered, in order, each once.
    pub models: Vec<String>,
    /// When it started: the provider's first stamp where it stamped its records, else its
    /// first event's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started: Option<Timestamp>,
    /// How long it took; `None` when undated or not completed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration: Option<Duration>,
    /// The provider's own duration, when `duration` is another (measured) figure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reported_duration_ms: Option<u64>,
    /// Whether its events' timestamps are the run's own times: it is not an agent's output,
    /// or the provider stamped its records. An undated run's events carry the times axt
    /// wrote them at, which say nothing of how long its steps took.
    pub dated: bool,
    /// How it ended.
    pub status: RunStatus,
    /// Why it failed, or did not complete.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Tokens, summed over its agents.
    pub tokens: Tokens,
    /// What it cost: reported, estimated or unknown.
    pub cost: Cost,
    /// Its tool calls.
    pub tools: ToolCounts,
    /// Events read.
    pub events: u64,
    /// Problems the reader found in its file (an empty file is one).
    pub problems: u64,
    /// The runs it invoked, by id, in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<String>,
    /// The runs it invoked that were read too, summarized ([`summarize_all`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sub_runs: Vec<RunSummary>,
}

/// The longest title kept, in characters.
pub const TITLE_CHARS: usize = 100;

/// What a run and its sub-runs add up to.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Totals {
    /// Runs counted: the run and its sub-runs at any depth.
    pub runs: u64,
    /// Tokens.
    pub tokens: Tokens,
    /// Cost.
    pub cost: Cost,
    /// Tool calls.
    pub tools: ToolCounts,
    /// Problems read.
    pub problems: u64,
}

impl Totals {
    /// Adds another run's (and its sub-runs') totals.
    pub fn add(&mut self, other: &Totals) {
        self.runs += other.runs;
        self.tokens.add(&other.tokens);
        self.cost.add(&other.cost);
        self.tools.add(&other.tools);
        self.problems += other.problems;
    }
}

impl RunSummary {
    /// The run and its sub-runs (at any depth) added up.
    pub fn totals(&self) -> Totals {
        let mut totals = Totals {
            runs: 1,
            tokens: self.tokens,
            cost: self.cost.clone(),
            tools: self.tools,
            problems: self.problems,
        };
        for sub in &self.sub_runs {
            totals.add(&sub.totals());
        }
        totals
    }

    /// What a one-line listing calls the run: its project and title (`app: Fix the
    /// login`), else either, else its name when that is not just its provider's.
    pub fn label(&self) -> Option<String> {
        match (&self.project, &self.title) {
            (Some(project), Some(title)) => Some(format!("{project}: {title}")),
            (Some(one), None) | (None, Some(one)) => Some(one.clone()),
            (None, None) => self
                .name
                .clone()
                .filter(|name| !self.providers.contains(name)),
        }
    }
}

/// Gathers a run's summary from its file's items, fed in order.
#[derive(Debug)]
pub struct Summarizer<'p> {
    prices: &'p Prices,
    file: PathBuf,
    run_id: Option<String>,
    parent_run_id: Option<String>,
    name: Option<String>,
    title: Option<String>,
    cwd: Option<String>,
    providers: Vec<String>,
    models: Vec<String>,
    first_stamp: Option<Timestamp>,
    provider_first: Option<Timestamp>,
    duration: RunDuration,
    completed: bool,
    meta_status: Option<MetaStatus>,
    error: Option<String>,
    spend: Spend,
    tools: ToolCounts,
    calls: Calls,
    events: u64,
    problems: u64,
    children: Vec<String>,
}

impl<'p> Summarizer<'p> {
    /// A summarizer of the run in `file`, pricing with `prices`.
    pub fn new(file: &Path, prices: &'p Prices) -> Self {
        Summarizer {
            prices,
            file: file.to_owned(),
            run_id: None,
            parent_run_id: None,
            name: None,
            title: None,
            cwd: None,
            providers: Vec::new(),
            models: Vec::new(),
            first_stamp: None,
            provider_first: None,
            duration: RunDuration::default(),
            completed: false,
            meta_status: None,
            error: None,
            spend: Spend::default(),
            tools: ToolCounts::default(),
            calls: Calls::default(),
            events: 0,
            problems: 0,
            children: Vec::new(),
        }
    }

    /// Takes in one item of the file's [`Reader`].
    pub fn item(&mut self, item: &ReadItem) {
        match item {
            ReadItem::Event { event, .. } => self.event(event),
            ReadItem::Problem(_) => self.problems += 1,
        }
    }

    /// Counts a problem found outside the reader's items (a file without an event).
    pub fn problem(&mut self) {
        self.problems += 1;
    }

    /// Takes in one event of the run.
    pub fn event(&mut self, event: &ExchangeEvent) {
        self.events += 1;
        if self.run_id.is_none() {
            self.run_id = Some(event.run_id.clone());
            self.parent_run_id = event.parent_run_id.clone();
            self.first_stamp = Some(event.timestamp.clone());
        }
        self.duration.event(event);
        if let Some(meta) = agent_meta(event) {
            self.agent(event, meta);
        }
        self.tool(event);
        match (&event.event_type, &event.payload) {
            (EventType::RunStarted, Payload::Step(step)) if self.name.is_none() => {
                self.name = Some(step.name.clone()).filter(|n| !n.is_empty());
            }
            (EventType::RunCompleted, payload) => {
                self.completed = true;
                if let Payload::Step(step) = payload {
                    self.error = step.error.clone().or(self.error.take());
                }
            }
            (EventType::MessageUser, Payload::Message(message)) if self.title.is_none() => {
                self.title = message.blocks.iter().find_map(|block| match &block.block {
                    Block::Text {
                        text,
                        system_prompt: false,
                        ..
                    } => title(text),
                    _ => None,
                });
            }
            (EventType::CallWorkflowStarted, _) => {
                if let Some(child) = &event.child_run_id {
                    self.children.push(child.clone());
                }
            }
            _ => {}
        }
    }

    fn agent(&mut self, event: &ExchangeEvent, meta: RunMeta) {
        let note = |list: &mut Vec<String>, value: Option<&str>| {
            if let Some(value) = value
                && !list.iter().any(|v| v == value)
            {
                list.push(value.to_owned());
            }
        };
        note(&mut self.providers, Some(meta.provider.as_str()));
        note(
            &mut self.models,
            meta.model.as_deref().filter(|m| !m.is_empty()),
        );
        // A provider session's running total counts once, as in `axt stats`.
        self.spend.add_priced(&meta, self.prices);
        if self.cwd.is_none() {
            self.cwd = cwd(&meta).map(str::to_owned);
        }
        if self.provider_first.is_none() {
            self.provider_first = meta.source_times.as_ref().map(|t| t.first.clone());
        }
        if event.event_type == EventType::RunCompleted {
            self.meta_status = Some(meta.status);
            if let Some(error) = first_error(&meta) {
                self.error = Some(error.to_owned());
            }
        }
    }

    fn tool(&mut self, event: &ExchangeEvent) {
        let Some(seen) = self.calls.see(event) else {
            return;
        };
        if let Some(demoted) = &seen.demoted {
            self.tools.calls = self.tools.calls.saturating_sub(1);
            if demoted.failed == Some(true) {
                self.tools.failed = self.tools.failed.saturating_sub(1);
            }
        }
        if seen.verdict == Verdict::Sighting {
            return;
        }
        let Payload::Tool(tool) = &event.payload else {
            return;
        };
        if event.event_type == EventType::ToolCall {
            self.tools.calls += 1;
        } else if seen.without_call {
            self.tools.results_without_call += 1;
        } else if tool.error.is_some() || tool.exit_code.is_some_and(|c| c != 0) {
            self.tools.failed += 1;
        }
    }

    /// The summary; `None` when the file held no event (there is no run to summarize).
    pub fn finish(self) -> Option<RunSummary> {
        let run_id = self.run_id?;
        let status = match (self.completed, self.meta_status) {
            (false, _) | (true, Some(MetaStatus::Incomplete)) => RunStatus::Incomplete,
            (true, Some(MetaStatus::Failed)) => RunStatus::Failed,
            (true, _) if self.error.is_some() => RunStatus::Failed,
            (true, _) => RunStatus::Completed,
        };
        let project = self.cwd.as_deref().and_then(|cwd| {
            Path::new(cwd)
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
        });
        Some(RunSummary {
            run_id,
            parent_run_id: self.parent_run_id,
            file: self.file,
            name: self.name,
            title: self.title,
            project,
            cwd: self.cwd,
            providers: self.providers,
            models: self.models,
            // The epoch is no one's start: an importer's stand-in for a log without times.
            started: self
                .provider_first
                .or(self.first_stamp)
                .filter(|t| t.unix_nanos().is_ok_and(|n| n != 0)),
            duration: self.duration.duration(),
            reported_duration_ms: self.duration.reported_beside(),
            dated: self.duration.stamps_are_times(),
            status,
            error: self.error,
            tokens: self.spend.tokens,
            cost: self.spend.cost,
            tools: self.tools,
            events: self.events,
            problems: self.problems,
            children: self.children,
            sub_runs: Vec::new(),
        })
    }
}

/// The first line of a prompt, whitespace folded and cut to [`TITLE_CHARS`] characters
/// (`…` marks a cut); `None` for a blank one.
fn title(text: &str) -> Option<String> {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
    let folded = line.split_whitespace().collect::<Vec<_>>().join(" ");
    if folded.chars().count() <= TITLE_CHARS {
        return Some(folded);
    }
    let mut cut: String = folded.chars().take(TITLE_CHARS - 1).collect();
    cut.push('…');
    Some(cut)
}

/// The summary of the run in the file at `path`; `Ok(None)` for a file without an event.
/// Problems in the file are counted, not returned (`axt check` lists them).
pub fn summarize(path: &Path, prices: &Prices) -> io::Result<Option<RunSummary>> {
    read_run(path, prices).map(Result::ok)
}

/// The run of the file at `path`, or what the file held instead of one.
fn read_run(path: &Path, prices: &Prices) -> io::Result<Result<RunSummary, NoRun>> {
    let mut summarizer = Summarizer::new(path, prices);
    let mut reader = Reader::open(path)?;
    for item in reader.by_ref() {
        if let ReadItem::Problem(problem) = &item
            && problem.kind == ProblemKind::Io
        {
            return Err(io::Error::other(problem.message.clone()));
        }
        summarizer.item(&item);
    }
    let problems = summarizer.problems;
    Ok(summarizer.finish().ok_or_else(|| NoRun {
        file: path.to_owned(),
        problems,
        no_event: (problems == 0).then(|| no_event(reader.position())),
    }))
}

/// A file read that held no run: not a single event.
#[derive(Debug)]
pub struct NoRun {
    /// The file.
    pub file: PathBuf,
    /// Problems the reader found in it (`axt check` lists them).
    pub problems: u64,
    /// When it holds nothing wrong but no event either (empty, or blank lines), the problem
    /// that says so.
    pub no_event: Option<Problem>,
}

/// What [`summarize_all`] found.
#[derive(Debug, Default)]
pub struct Listing {
    /// The runs no other run read here invoked, newest first (runs without a start
    /// last), each with its sub-runs under it, at any depth, in the order invoked.
    pub runs: Vec<RunSummary>,
    /// Files without a single event: no run.
    pub no_run: Vec<NoRun>,
    /// What could not be read, with why.
    pub failed: Vec<(PathBuf, io::Error)>,
}

/// Every run in `paths` (files, and directories walked for `*.jsonl`), summarized, with
/// sub-runs under the runs that invoked them.
pub fn summarize_all(paths: &[PathBuf], prices: &Prices) -> Listing {
    let (files, failed) = transcript_files(paths);
    let mut listing = Listing {
        failed,
        ..Listing::default()
    };
    let mut summaries = Vec::new();
    for file in files {
        match read_run(&file, prices) {
            Ok(Ok(summary)) => summaries.push(summary),
            Ok(Err(no_run)) => listing.no_run.push(no_run),
            Err(error) => listing.failed.push((file, error)),
        }
    }
    listing.runs = nest(summaries);
    listing
}

/// Places each summary whose parent is among them under it, and sorts the roots newest
/// first.
fn nest(summaries: Vec<RunSummary>) -> Vec<RunSummary> {
    let ids: HashMap<String, usize> = summaries
        .iter()
        .enumerate()
        .map(|(index, s)| (s.run_id.clone(), index))
        .collect();
    let mut children: HashMap<usize, Vec<usize>> = HashMap::new();
    let mut roots = Vec::new();
    for (index, summary) in summaries.iter().enumerate() {
        let parent = summary
            .parent_run_id
            .as_ref()
            .and_then(|parent| ids.get(parent))
            .filter(|parent| **parent != index);
        match parent {
            Some(parent) => children.entry(*parent).or_default().push(index),
            None => roots.push(index),
        }
    }
    let mut slots: Vec<Option<RunSummary>> = summaries.into_iter().map(Some).collect();
    // A cycle of parents leaves its runs unreached: they are listed as roots.
    let mut placed = vec![false; slots.len()];
    let mut nested: Vec<RunSummary> = roots
        .iter()
        .filter_map(|root| build(*root, &children, &mut slots, &mut placed))
        .collect();
    for index in 0..slots.len() {
        if let Some(run) = build(index, &children, &mut slots, &mut placed) {
            nested.push(run);
        }
    }
    nested.sort_by_key(|run| {
        let nanos = run.started.as_ref().and_then(|t| t.unix_nanos().ok());
        (
            nanos.is_none(),
            std::cmp::Reverse(nanos),
            run.run_id.clone(),
        )
    });
    nested
}

fn build(
    index: usize,
    children: &HashMap<usize, Vec<usize>>,
    slots: &mut [Option<RunSummary>],
    placed: &mut [bool],
) -> Option<RunSummary> {
    if placed[index] {
        return None;
    }
    placed[index] = true;
    let mut run = slots[index].take()?;
    let mut subs: Vec<RunSummary> = children
        .get(&index)
        .into_iter()
        .flatten()
        .filter_map(|child| build(*child, children, slots, placed))
        .collect();
    // In the order the parent invoked them; any it does not name, after.
    subs.sort_by_key(|sub| {
        run.children
            .iter()
            .position(|id| *id == sub.run_id)
            .unwrap_or(usize::MAX)
    });
    run.sub_runs = subs;
    Some(run)
}
