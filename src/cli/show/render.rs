//! A run as a person reads it: the walk of its events that `axt show` prints.
//!
//! Prompts, assistant text (Markdown made plain), thinking, each tool call with its input
//! described and its output's head, steps and sub-agents indented under what opened them,
//! and the runs a run invoked (`child_run_id`) shown where they were invoked, looked up in
//! the run's directory as `axt tree` does. A run opens with a header and ends with its
//! usage and cost, both from its [summary](crate::read::summary).
//!
//! The walk streams: it keeps the steps open and the last call shown, never the events, so
//! a run of any length is shown in bounded memory (beside its summary, read in a first
//! pass). What it must not do is decide what a run is: the summary, the call rule
//! ([`Calls`]) and the tool table ([`describe_input`]) are the library's.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use regex::Regex;
use serde_json::Value;

use super::text::{Line, Span, Style, input_lines, layout, markdown};
use crate::cli::present;
use crate::model::tools::describe_input;
use crate::model::{Block, EventType, ExchangeEvent, Payload, StepKind, ToolPayload};
use crate::read::summary::{RunStatus, RunSummary, Summarizer, Totals};
use crate::read::tree::RunFiles;
use crate::read::{Calls, Prices, Problem, ReadItem, Reader, Settled};

/// How thinking is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Thinking {
    /// Whole, dimmed.
    Full,
    /// Its first line, and how many more there are.
    Collapsed,
    /// Not at all.
    Hidden,
}

/// What `axt show` was asked for.
pub(crate) struct Options {
    /// Columns to wrap at; 0: no wrapping.
    pub(crate) width: usize,
    pub(crate) colour: bool,
    pub(crate) thinking: Thinking,
    /// Tool outputs and inputs whole, not their heads.
    pub(crate) full: bool,
    /// Only the entries whose text matches.
    pub(crate) grep: Option<Regex>,
}

/// The lines of a tool's output shown without `--full`.
pub(crate) const OUTPUT_HEAD: usize = 8;

/// The lines of a system prompt shown without `--full`.
const SYSTEM_HEAD: usize = 3;

/// What showing found beside the run: problems in its files, entries matched.
#[derive(Default)]
pub(crate) struct Report {
    /// Problems the reader found, by file, in the order met.
    pub(crate) problems: Vec<(PathBuf, Problem)>,
    /// Child runs that could not be shown: (the invoking file, the child's id, why).
    pub(crate) missing: Vec<(PathBuf, String, String)>,
    /// Entries shown (with `--grep`: that matched).
    pub(crate) shown: u64,
    /// Entries read.
    pub(crate) entries: u64,
}

/// What the first pass over a run gives the second: its summary (`None`: no event), how
/// each of its tool events settled by the rule of calls seen on both channels (an agent's
/// call read before the router's copy is a sighting, which the walk cannot know when it
/// meets it), and where its input ended.
pub(crate) struct FirstPass {
    pub(crate) summary: Option<RunSummary>,
    pub(crate) calls: Calls,
    pub(crate) end: crate::read::Position,
}

/// Reads a run once for its [`FirstPass`].
pub(crate) fn first_pass(input: impl Read, name: &Path, prices: &Prices) -> FirstPass {
    let mut summarizer = Summarizer::new(name, prices);
    let mut calls = Calls::default();
    let mut reader = Reader::new(input);
    for item in reader.by_ref() {
        if let ReadItem::Event { event, .. } = &item {
            calls.see(event);
        }
        summarizer.item(&item);
    }
    FirstPass {
        summary: summarizer.finish(),
        calls,
        end: reader.position().clone(),
    }
}

/// Everything one `axt show` shares across the runs it shows.
pub(crate) struct Shower<'a, W: Write> {
    out: &'a mut W,
    options: &'a Options,
    prices: &'a Prices,
    pub(crate) report: Report,
    /// The runs being shown, outermost first: a run invoked by one of them is a cycle.
    ancestors: Vec<String>,
}

impl<'a, W: Write> Shower<'a, W> {
    pub(crate) fn new(out: &'a mut W, options: &'a Options, prices: &'a Prices) -> Self {
        Shower {
            out,
            options,
            prices,
            report: Report::default(),
            ancestors: Vec::new(),
        }
    }

    /// Shows the run read from `input` (`name` stands for it; its child runs are looked
    /// up in `dir`), summarized as `summary` with its calls settled as `calls` (its
    /// [`first_pass`]), at `depth`.
    pub(crate) fn run(
        &mut self,
        input: impl Read,
        name: &Path,
        dir: &Path,
        (summary, calls): (&RunSummary, Calls),
        depth: usize,
    ) -> io::Result<Totals> {
        self.header(summary, depth)?;
        self.ancestors.push(summary.run_id.clone());
        let mut totals = summary.totals();
        let mut walk = Walk::new(summary, calls, depth);
        let mut files = RunFiles::new(dir);
        for item in Reader::new(input) {
            match item {
                ReadItem::Problem(problem) => {
                    self.report.problems.push((name.to_owned(), problem));
                }
                ReadItem::Event { event, .. } => {
                    self.event(&mut walk, &event)?;
                    if event.event_type == EventType::CallWorkflowStarted
                        && let Some(child) = &event.child_run_id
                    {
                        let at = walk.depth_of(&event.path);
                        // The steps that lead to a child run are shown with it, --grep or not.
                        self.flush_headers(&mut walk)?;
                        if let Some(theirs) = self.child(&mut files, name, child, at)? {
                            totals.add(&theirs);
                        }
                    }
                }
            }
        }
        self.ancestors.pop();
        self.footer(summary, &totals, depth)?;
        Ok(totals)
    }

    /// A run invoked by the one shown: shown in place (what it and its own sub-runs add up
    /// to is returned), or why it cannot be.
    fn child(
        &mut self,
        files: &mut RunFiles,
        parent: &Path,
        id: &str,
        depth: usize,
    ) -> io::Result<Option<Totals>> {
        let why = if self.ancestors.iter().any(|a| a == id) {
            Some("it invokes a run it was invoked by (a cycle); not shown again".to_owned())
        } else {
            match files.locate(id) {
                None => Some("no file of the directory holds it".to_owned()),
                Some(file) => match std::fs::File::open(&file) {
                    Err(error) => Some(format!("{}: {error}", file.display())),
                    Ok(input) => {
                        let pass = first_pass(input, &file, self.prices);
                        match (pass.summary, std::fs::File::open(&file)) {
                            (Some(summary), Ok(input)) => {
                                let dir = crate::read::tree::dir_of(&file).to_owned();
                                let run = (&summary, pass.calls);
                                return self.run(input, &file, &dir, run, depth).map(Some);
                            }
                            (None, _) => Some(format!("{} holds no event", file.display())),
                            (_, Err(error)) => Some(format!("{}: {error}", file.display())),
                        }
                    }
                },
            }
        };
        let why = why.unwrap_or_default();
        let line = Line::plain(Style::Red, format!("run {id} not shown: {why}"));
        self.emit(&[line], depth, true)?;
        self.report
            .missing
            .push((parent.to_owned(), id.to_owned(), why));
        Ok(None)
    }

    fn header(&mut self, summary: &RunSummary, depth: usize) -> io::Result<()> {
        let mut first = vec![
            Span::new(Style::Bold, format!("run {}", summary.run_id)),
            Span::new(Style::Plain, " · "),
        ];
        let mut facts = vec![present::providers(summary), present::models(summary)];
        facts.retain(|f| f != "-");
        if !facts.is_empty() {
            first.push(Span::new(Style::Plain, format!("{} · ", facts.join(" · "))));
        }
        first.push(Span::new(
            status_style(summary.status),
            summary.status.as_str(),
        ));
        let mut second = Vec::new();
        if let Some(started) = &summary.started {
            second.push(format!("started {} UTC", present::minute(started)));
        }
        match summary.duration {
            Some(_) => second.push(present::duration(
                summary.duration,
                summary.reported_duration_ms,
            )),
            None if summary.status != RunStatus::Incomplete => {
                second.push("no duration".to_owned())
            }
            None => {}
        }
        if let Some(cwd) = &summary.cwd {
            second.push(cwd.clone());
        }
        if summary.file.as_os_str() != "-" {
            second.push(summary.file.display().to_string());
        }
        let mut lines = vec![Line::of(first), Line::plain(Style::Dim, second.join(" · "))];
        if let Some(error) = &summary.error {
            lines.push(Line::plain(Style::Red, format!("✗ {error}")));
        }
        let lines: Vec<Line> = lines.into_iter().map(escaped).collect();
        // The first run shown starts at the top; a child run is set off from its step.
        self.emit(&lines, depth, depth > 0)
    }

    fn footer(&mut self, summary: &RunSummary, totals: &Totals, depth: usize) -> io::Result<()> {
        let t = &totals.tokens;
        let mut facts = vec![summary.status.as_str().to_owned()];
        let duration = present::duration(summary.duration, summary.reported_duration_ms);
        if duration != "-" {
            facts.push(duration);
        }
        facts.push(format!(
            "{} {}",
            present::tools(&totals.tools),
            if totals.tools.calls == 1 {
                "tool call"
            } else {
                "tool calls"
            }
        ));
        // A run with no agent (a workflow of commands) has no tokens and no cost to speak of.
        if totals.cost.agents() > 0 || !t.is_zero() {
            facts.push(format!(
                "tokens: input {} ({} uncached + {} cache read + {} cache write), output {}",
                present::tokens(t.prompt()),
                present::tokens(t.input),
                present::tokens(t.cache_read),
                present::tokens(t.cache_write),
                present::tokens(t.output)
            ));
            facts.push(format!("cost {}", totals.cost.explained()));
        }
        if totals.runs > 1 {
            let subs = totals.runs - 1;
            let noun = if subs == 1 { "sub-run" } else { "sub-runs" };
            facts.push(format!("its {subs} {noun} included"));
        }
        if totals.problems > 0 {
            facts.push(format!(
                "{} problems (axt check lists them)",
                totals.problems
            ));
        }
        let style = match summary.status {
            RunStatus::Completed => Style::Dim,
            status => status_style(status),
        };
        let line = Line {
            hang: 3,
            ..escaped(Line::plain(style, format!("── {}", facts.join(" · "))))
        };
        self.emit(&[line], depth, true)
    }

    /// Shows what `event` adds to the run.
    fn event(&mut self, walk: &mut Walk, event: &ExchangeEvent) -> io::Result<()> {
        match (&event.event_type, &event.payload) {
            (EventType::RunStarted, Payload::Step(step)) => {
                walk.agent_run = step.kind == StepKind::Agent;
                Ok(())
            }
            (EventType::StepStarted, Payload::Step(step)) => {
                walk.open(event, &step.name, &step.kind);
                self.pending(walk)
            }
            (EventType::CallWorkflowStarted, payload) => {
                let fits = walk.open.iter().rev().any(|s| {
                    s.path == event.path && s.kind == StepKind::CallWorkflow && !s.by_call_done
                });
                if !fits {
                    let (name, kind) = match payload {
                        Payload::Step(step) => (step.name.clone(), step.kind.clone()),
                        _ => (event.path.clone(), StepKind::CallWorkflow),
                    };
                    walk.open(event, &name, &kind);
                    if let Some(last) = walk.open.last_mut() {
                        last.by_call = true;
                    }
                }
                if let Some(step) = walk
                    .open
                    .iter_mut()
                    .rev()
                    .find(|s| s.path == event.path && s.kind == StepKind::CallWorkflow)
                {
                    step.by_call_done = true;
                }
                self.pending(walk)
            }
            (EventType::StepCompleted, Payload::Step(step)) => self.close(walk, event, step),
            (EventType::CallWorkflowCompleted, Payload::Step(step)) => {
                let by_call = walk
                    .open
                    .iter()
                    .rev()
                    .find(|s| s.path == event.path)
                    .is_some_and(|s| s.by_call);
                if by_call {
                    self.close(walk, event, step)
                } else {
                    Ok(())
                }
            }
            (EventType::MessageUser | EventType::MessageAssistant, Payload::Message(message)) => {
                let user = event.event_type == EventType::MessageUser;
                for block in &message.blocks {
                    self.block(walk, event, user, &block.block)?;
                }
                Ok(())
            }
            (EventType::ToolCall | EventType::ToolResult, Payload::Tool(tool)) => {
                self.tool(walk, event, tool)
            }
            _ => Ok(()),
        }
    }

    fn close(
        &mut self,
        walk: &mut Walk,
        event: &ExchangeEvent,
        step: &crate::model::StepPayload,
    ) -> io::Result<()> {
        let Some(index) = walk.find(&event.path, event.iteration) else {
            return Ok(());
        };
        let open = walk.open.remove(index);
        if !open.shown {
            return Ok(());
        }
        let depth = walk.depth_of_step(&open.path);
        let failed = step.error.is_some();
        // Unprinted (nothing in it matched --grep) and fine: nothing to say. A failure is
        // shown whatever matched, under the steps that lead to it.
        if !open.printed && (self.options.grep.is_some() && !failed) {
            return Ok(());
        }
        self.flush_headers(walk)?;
        if !open.printed {
            let header = open.header();
            self.emit(&[header], depth, true)?;
        }
        let duration = step
            .duration_ms
            .or_else(|| {
                walk.stamps_are_times
                    .then(|| crate::read::duration::millis(&open.started, &event.timestamp))
                    .flatten()
            })
            .map(|ms| format!(" {}", present::millis(ms)))
            .unwrap_or_default();
        let line = match &step.error {
            Some(error) => Line::plain(
                Style::Red,
                format!("✗ {} failed{duration}: {error}", open.name),
            ),
            None => Line::plain(Style::Dim, format!("◂ {} completed{duration}", open.name)),
        };
        walk.last = Last::Other;
        self.emit(&[escaped(line)], depth, false)
    }

    fn block(
        &mut self,
        walk: &mut Walk,
        event: &ExchangeEvent,
        user: bool,
        block: &Block,
    ) -> io::Result<()> {
        let (header, style, lines): (&str, Style, Vec<Line>) = match block {
            Block::Text {
                text,
                system_prompt: true,
                ..
            } => {
                let mut lines: Vec<Line> = input_lines(text)
                    .into_iter()
                    .map(|l| Line::plain(Style::Dim, l))
                    .collect();
                if !self.options.full && lines.len() > SYSTEM_HEAD {
                    let more = lines.len() - SYSTEM_HEAD;
                    lines.truncate(SYSTEM_HEAD);
                    lines.push(Line::plain(Style::Dim, more_lines(more)));
                }
                ("system prompt", Style::Dim, lines)
            }
            Block::Text { text, .. } => {
                let header = if user { "user" } else { "assistant" };
                (header, Style::Bold, markdown(text))
            }
            Block::Thinking {
                thinking, redacted, ..
            } => {
                if self.options.thinking == Thinking::Hidden {
                    return Ok(());
                }
                let mut lines: Vec<Line> = if *redacted {
                    vec![Line::plain(Style::Dim, "(redacted by the provider)")]
                } else {
                    input_lines(thinking)
                        .into_iter()
                        .map(|l| Line::plain(Style::Dim, l))
                        .collect()
                };
                if self.options.thinking == Thinking::Collapsed && lines.len() > 1 {
                    let more = lines.len() - 1;
                    lines.truncate(1);
                    lines.push(Line::plain(Style::Dim, more_lines(more)));
                }
                ("thinking", Style::Dim, lines)
            }
            Block::Stream { chunk } => ("partial output", Style::Dim, markdown(chunk)),
            // A result the provider's own tool produced (a web search): no tool.result
            // event carries it. A user's tool results are the tool.result events'.
            Block::ToolResult {
                tool_id,
                tool_content,
                is_error,
                ..
            } if !user => {
                let mut lines = output_lines(tool_content, self.options.full, *is_error);
                lines.insert(0, Line::plain(Style::Dim, format!("result of {tool_id}")));
                ("server tool", Style::Yellow, lines)
            }
            Block::Unrecognized(unknown) => {
                let kind = unknown
                    .raw
                    .get("type")
                    .and_then(Value::as_str)
                    .unwrap_or("?");
                let line = Line::plain(Style::Dim, format!("a block of unknown type {kind:?}"));
                ("block", Style::Dim, vec![line])
            }
            // Tool calls, commands and a user's tool results are the tool events' to show.
            _ => return Ok(()),
        };
        let kind = if user { Last::User } else { Last::Assistant };
        let same = header == "assistant" && walk.last == kind && walk.last_path == event.path;
        self.entry(
            walk,
            event,
            Some((header, style)).filter(|_| !same),
            lines,
            !same,
        )?;
        if header == "assistant" || header == "user" {
            walk.last = kind;
        } else {
            walk.last = Last::Other;
        }
        Ok(())
    }

    fn tool(
        &mut self,
        walk: &mut Walk,
        event: &ExchangeEvent,
        tool: &ToolPayload,
    ) -> io::Result<()> {
        // Settled over the whole run (the first pass): an agent's report of a call the
        // router captured is a sighting, even when it came first.
        let settled = walk.settled.settled(event);
        if settled == Some(Settled::Sighting) {
            return Ok(());
        }
        let sighted = settled == Some(Settled::Call { sighted: true });
        let seen = walk.calls.see(event);
        if event.event_type == EventType::ToolCall {
            let described = describe_input(&tool.name, &tool.input)
                .map(|d| {
                    if crate::model::tools::classify(&tool.name)
                        == Some(crate::model::ToolClass::Shell)
                    {
                        format!("$ {d}")
                    } else {
                        d
                    }
                })
                .unwrap_or_else(|| compact(&tool.input));
            let mut lines = Vec::new();
            let header = format!("● {}", tool.name);
            let also = if sighted {
                " (the agent reported it too)"
            } else {
                ""
            };
            let first = input_lines(&described)
                .into_iter()
                .next()
                .unwrap_or_default();
            let header_line = Line {
                hang: 2,
                ..Line::of(vec![
                    Span::new(Style::Yellow, header),
                    Span::new(Style::Plain, " "),
                    Span::new(Style::Plain, first),
                    Span::new(Style::Dim, also),
                ])
            };
            if self.options.full && !tool.input.is_null() {
                let pretty = serde_json::to_string_pretty(&tool.input).unwrap_or_default();
                for line in input_lines(&pretty) {
                    lines.push(indented(Line::verbatim(Style::Dim, line)));
                }
            }
            let mut all = vec![escaped(header_line)];
            all.extend(lines);
            self.entry_lines(walk, event, all, true)?;
            walk.last = Last::Call(tool.call_id.clone());
            return Ok(());
        }
        let failed = tool.error.is_some() || tool.exit_code.is_some_and(|c| c != 0);
        let follows = walk.last == Last::Call(tool.call_id.clone());
        let mut lines = Vec::new();
        if !follows {
            let without = seen.is_some_and(|s| s.without_call);
            let header = if without {
                format!("↳ {} result (its call is not in the file)", tool.name)
            } else {
                format!("↳ {} result ({})", tool.name, tool.call_id)
            };
            lines.push(Line::plain(Style::Yellow, header));
        }
        let output = output_lines(&tool.output, self.options.full, failed);
        if let Some(error) = &tool.error {
            // Many providers make the output's first line the error: said once.
            let error = first_line(error);
            let repeated = output
                .first()
                .is_some_and(|line| line.text() == format!("│ {error}"));
            let marker = if repeated || error.is_empty() {
                "✗ failed".to_owned()
            } else {
                format!("✗ failed: {error}")
            };
            lines.push(Line::plain(Style::Red, marker));
        } else if let Some(code) = tool.exit_code.filter(|c| *c != 0) {
            lines.push(Line::plain(Style::Red, format!("✗ exit {code}")));
        }
        lines.extend(output);
        // Under its call (or its own header), two columns in.
        let lines: Vec<Line> = lines
            .into_iter()
            .enumerate()
            .map(|(index, line)| {
                if index == 0 && !follows {
                    escaped(line)
                } else {
                    indented(escaped(line))
                }
            })
            .collect();
        if lines.is_empty() {
            walk.last = Last::Other;
            return Ok(());
        }
        self.entry_lines(walk, event, lines, !follows)?;
        walk.last = Last::Other;
        Ok(())
    }

    /// An entry with a header word and its body indented under it.
    fn entry(
        &mut self,
        walk: &mut Walk,
        event: &ExchangeEvent,
        header: Option<(&str, Style)>,
        body: Vec<Line>,
        gap: bool,
    ) -> io::Result<()> {
        let mut lines = Vec::with_capacity(body.len() + 1);
        if let Some((word, style)) = header {
            lines.push(Line::plain(style, word));
        }
        for line in body {
            lines.push(indented(line));
        }
        self.entry_lines(walk, event, lines, gap)
    }

    /// Prints an entry's lines at its event's depth, unless `--grep` leaves it out.
    fn entry_lines(
        &mut self,
        walk: &mut Walk,
        event: &ExchangeEvent,
        lines: Vec<Line>,
        gap: bool,
    ) -> io::Result<()> {
        self.report.entries += 1;
        let lines = match &self.options.grep {
            None => lines,
            Some(pattern) => {
                let text: Vec<String> = lines.iter().map(Line::text).collect();
                if !pattern.is_match(&text.join("\n")) {
                    return Ok(());
                }
                lines.into_iter().map(|l| highlight(l, pattern)).collect()
            }
        };
        self.report.shown += 1;
        walk.last_path = event.path.clone();
        self.flush_headers(walk)?;
        let depth = walk.depth_of(&event.path);
        self.emit(&lines, depth, gap)
    }

    /// Prints the headers of the open steps that have none printed yet.
    fn pending(&mut self, walk: &mut Walk) -> io::Result<()> {
        if self.options.grep.is_some() {
            // Under --grep a step's header waits for an entry that matched inside it.
            return Ok(());
        }
        self.flush_headers(walk)
    }

    fn flush_headers(&mut self, walk: &mut Walk) -> io::Result<()> {
        for index in 0..walk.open.len() {
            if walk.open[index].shown && !walk.open[index].printed {
                walk.open[index].printed = true;
                let depth = walk.depth_of_step(&walk.open[index].path.clone());
                let header = walk.open[index].header();
                walk.last = Last::Other;
                self.emit(&[header], depth, true)?;
            }
        }
        Ok(())
    }

    fn blank(&mut self) -> io::Result<()> {
        writeln!(self.out)
    }

    /// Lays out and writes `lines` at `depth`, after a blank line when `gap`.
    fn emit(&mut self, lines: &[Line], depth: usize, gap: bool) -> io::Result<()> {
        if gap {
            self.blank()?;
        }
        let indent = 2 * depth;
        for line in lines {
            let cut = !self.options.full;
            for row in layout(line, indent, self.options.width, self.options.colour, cut) {
                writeln!(self.out, "{row}")?;
            }
        }
        Ok(())
    }
}

/// What was shown last, to join what belongs together.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Last {
    Other,
    User,
    Assistant,
    /// A tool call, by call id: its result follows it without a header.
    Call(String),
}

/// A step open while the run is walked.
struct Open {
    path: String,
    iteration: u64,
    name: String,
    kind: StepKind,
    started: crate::model::Timestamp,
    /// Shown at all: the single agent step of an agent's own run is the run itself.
    shown: bool,
    /// A sub-agent of an agent's run: a step under its `agent` step (`agent.<call id>`),
    /// whether the agent's output nested it (kind `agent`) or an importer linked its run
    /// (kind `call_workflow`).
    sub_agent: bool,
    /// Its header is printed.
    printed: bool,
    /// Opened by `step.call_workflow.started` itself (no `step.started`).
    by_call: bool,
    by_call_done: bool,
}

impl Open {
    fn header(&self) -> Line {
        let kind = if self.sub_agent {
            "sub-agent".to_owned()
        } else {
            self.kind.as_str().to_owned()
        };
        // A sub-agent's path is its spawning call's id, which says nothing to a person.
        let name = if self.name.is_empty() || self.name == self.path {
            self.path.clone()
        } else if kind == "sub-agent" {
            self.name.clone()
        } else {
            format!("{} ({})", self.name, self.path)
        };
        let iteration = match self.iteration {
            0 => String::new(),
            n => format!(" #{n}"),
        };
        escaped(Line::plain(
            Style::Bold,
            format!("▸ {kind} {name}{iteration}"),
        ))
    }
}

/// The state of one run's walk.
pub(crate) struct Walk {
    open: Vec<Open>,
    /// The run is one agent's (`run.started` of kind `agent`): its `agent` step is the run.
    agent_run: bool,
    /// The run's stamps are times (its summary says it is dated).
    stamps_are_times: bool,
    depth: usize,
    /// This run's tool events judged as they come (for a result whose call is missing).
    calls: Calls,
    /// This run's tool events judged over the whole run (the first pass).
    settled: Calls,
    last: Last,
    last_path: String,
}

impl Walk {
    fn new(summary: &RunSummary, settled: Calls, depth: usize) -> Walk {
        Walk {
            open: Vec::new(),
            agent_run: false,
            stamps_are_times: summary.dated,
            depth,
            calls: Calls::default(),
            settled,
            last: Last::Other,
            last_path: String::new(),
        }
    }

    fn open(&mut self, event: &ExchangeEvent, name: &str, kind: &StepKind) {
        let implicit = self.agent_run && event.path == "agent" && *kind == StepKind::Agent;
        let sub_agent = self.agent_run
            && event.path.starts_with("agent.")
            && matches!(kind, StepKind::Agent | StepKind::CallWorkflow);
        self.open.push(Open {
            path: event.path.clone(),
            iteration: event.iteration,
            name: name.to_owned(),
            kind: kind.clone(),
            started: event.timestamp.clone(),
            shown: !implicit,
            sub_agent,
            printed: false,
            by_call: false,
            by_call_done: false,
        });
        self.last = Last::Other;
    }

    fn find(&self, path: &str, iteration: u64) -> Option<usize> {
        let at = |same: bool| {
            self.open
                .iter()
                .rposition(|s| s.path == path && (!same || s.iteration == iteration))
        };
        at(true).or_else(|| at(false))
    }

    /// The depth of an entry at `path`: the run's, and one more per shown step it is in.
    fn depth_of(&self, path: &str) -> usize {
        self.depth
            + self
                .open
                .iter()
                .filter(|s| s.shown && within(path, &s.path))
                .count()
    }

    /// The depth of the header of the step at `path`: the steps strictly around it.
    fn depth_of_step(&self, path: &str) -> usize {
        self.depth
            + self
                .open
                .iter()
                .filter(|s| s.shown && s.path != path && within(path, &s.path))
                .count()
    }
}

/// Whether `path` is `step` or inside it.
fn within(path: &str, step: &str) -> bool {
    path == step
        || (path.len() > step.len()
            && path.starts_with(step)
            && path.as_bytes()[step.len()] == b'.')
}

/// A body line, two columns in from its header.
fn indented(mut line: Line) -> Line {
    // Unstyled, so that a styled first span (a dimmed gutter) starts where it is shown.
    line.spans.insert(0, Span::new(Style::Plain, "  "));
    line.hang += 2;
    line
}

/// `line` with every span escaped for a terminal.
fn escaped(mut line: Line) -> Line {
    for span in &mut line.spans {
        span.text = crate::cli::console::escape(&span.text).into_owned();
    }
    line
}

/// The lines of a tool's output, with the `│` gutter: a string's lines, the text of a list
/// of content blocks (`[{"type": "text", "text": ...}]`), else the JSON pretty-printed; the
/// first [`OUTPUT_HEAD`] unless `full`.
fn output_lines(output: &Value, full: bool, failed: bool) -> Vec<Line> {
    let text = match output {
        Value::Null => return Vec::new(),
        Value::String(text) => text.clone(),
        Value::Array(items) if items.iter().all(|i| i.get("type").is_some()) => items
            .iter()
            .map(|item| {
                let field = |key: &str| item.get(key).and_then(Value::as_str);
                match (field("text"), field("title"), field("url")) {
                    (Some(text), _, _) => text.to_owned(),
                    // A search result: what a person would click.
                    (None, Some(title), Some(url)) => format!("{title} ({url})"),
                    (None, None, Some(url)) => url.to_owned(),
                    _ => format!("[{}]", field("type").unwrap_or("content")),
                }
            })
            .collect::<Vec<_>>()
            .join("\n"),
        other => serde_json::to_string_pretty(other).unwrap_or_default(),
    };
    let mut lines = input_lines(text.trim_end_matches('\n'));
    if lines.len() == 1 && lines[0].is_empty() {
        return Vec::new();
    }
    let more = if !full && lines.len() > OUTPUT_HEAD {
        let more = lines.len() - OUTPUT_HEAD;
        lines.truncate(OUTPUT_HEAD);
        Some(more)
    } else {
        None
    };
    let style = if failed { Style::Red } else { Style::Plain };
    let mut out: Vec<Line> = lines
        .into_iter()
        .map(|line| Line {
            spans: vec![Span::new(Style::Dim, "│ "), Span::new(style, line)],
            hang: 0,
            wrap: false,
        })
        .collect();
    if let Some(more) = more {
        out.push(Line::plain(Style::Dim, format!("│ {}", more_lines(more))));
    }
    out
}

fn more_lines(more: usize) -> String {
    if more == 1 {
        "… 1 more line (--full shows it)".to_owned()
    } else {
        format!("… {more} more lines (--full shows them)")
    }
}

fn first_line(text: &str) -> String {
    input_lines(text).into_iter().next().unwrap_or_default()
}

/// JSON on one line.
fn compact(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// `line` with what `pattern` matches in each span marked.
fn highlight(line: Line, pattern: &Regex) -> Line {
    let mut spans = Vec::new();
    for span in line.spans {
        let mut at = 0;
        for found in pattern.find_iter(&span.text) {
            if found.start() > at {
                spans.push(Span::new(span.style, &span.text[at..found.start()]));
            }
            if found.end() > found.start() {
                spans.push(Span::new(Style::Match, found.as_str()));
            }
            at = found.end();
        }
        if at < span.text.len() {
            spans.push(Span::new(span.style, &span.text[at..]));
        }
    }
    Line { spans, ..line }
}

/// A run's status as a colour: red for a failure, yellow for a run that never ended.
fn status_style(status: RunStatus) -> Style {
    match status {
        RunStatus::Completed => Style::Plain,
        RunStatus::Failed => Style::Red,
        RunStatus::Incomplete => Style::Yellow,
    }
}
