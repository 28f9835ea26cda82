//! `axt tree`: print a run's execution tree across its linked files.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use crate::read::duration::DurationSource;
use crate::read::tree::{LinkKind, MAX_TREE_NODES, Node, Run, build_from, dir_of, forest};
use crate::read::{ProblemKind, transcript_files};

use super::check::print_link;
use super::console::{self, Problem, escape, plural};
use super::{Outcome, display_name, open, report_error, with_path};

/// Print the execution tree of a run and its sub-runs.
///
/// Reads FILE and follows every child_run_id to the child's file in the same directory, at
/// any depth. Prints runs (name, status, duration, events), steps (path, kind, iteration,
/// status, duration), messages (role and block types) and tool calls (name, call id,
/// outcome; a call the router captured and the agent reported too is one call, the
/// router's, marked as reported by the agent). Problems (bad lines, missing children, orphans, cycles, parent/child
/// mismatches) go to stderr as FILE:LINE: byte OFFSET: KIND: MESSAGE. With `-` the root run
/// is read from stdin and its child runs are looked up in the current directory.
///
/// A directory (walked for *.jsonl, as `axt stats` walks it) shows the tree of each of its
/// root runs (runs that name no parent, or a parent the directory does not hold, and runs
/// no root reached: each file once), one after another; with --json, {"roots": [...]}.
///
/// Exit status: 0 clean, 1 problems reported, 2 usage error or a file that cannot be read.
///
/// Example: axt tree storage/transcripts/550e8400-e29b-41d4-a716-446655440000.jsonl
#[derive(clap::Args)]
pub(crate) struct Args {
    /// The root run's transcript file, a directory of runs, or `-` for stdin.
    #[arg(value_name = "FILE|DIR")]
    file: PathBuf,
    /// Print the tree as JSON, and problems on stderr as JSON lines.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: Args) -> io::Result<Outcome> {
    console::set_json(args.json);
    if args.file.is_dir() {
        return run_dir(&args);
    }
    let input = open(&args.file)?;
    // For stdin, the current directory; `-` has no directory of its own.
    let dir = dir_of(&args.file);
    let tree = build_from(input, &args.file, dir);
    // A root without a single event is no run: printing one would invent it.
    let empty = tree.is_empty();
    let mut out = BufWriter::new(io::stdout().lock());
    if args.json {
        tree.write_json(&mut out)?;
        writeln!(out)?;
    } else if !empty {
        write_run(&mut out, &tree.root, "", "")?;
    }
    out.flush()?;
    for problem in &tree.problems {
        print_link(problem);
    }
    let unreadable = tree
        .problems
        .iter()
        .any(|p| p.kind == LinkKind::Read(ProblemKind::Io));
    if empty && tree.problems.is_empty() {
        let name = display_name(&args.file);
        let message = "the file holds no event: there is no run to show";
        console::problem(&Problem::error(&name, 1, 0, "no-event", message));
        return Ok(Outcome::InputProblems);
    }
    Ok(if unreadable {
        Outcome::Failed
    } else if tree.problems.is_empty() {
        Outcome::Clean
    } else {
        Outcome::InputProblems
    })
}

/// The trees of a directory's runs ([`forest`]: each run file once, under the run that
/// invokes it, or as a root when none of the directory's runs does).
fn run_dir(args: &Args) -> io::Result<Outcome> {
    let (files, unlisted) = transcript_files(std::slice::from_ref(&args.file));
    let mut outcome = Outcome::Clean;
    for (path, error) in unlisted {
        report_error(&with_path(&path, error));
        outcome = Outcome::Failed;
    }
    let forest = forest(&files);
    // A file without an event is no run: its problem says so, below.
    let roots: Vec<&Run> = forest.roots.iter().filter(|run| run.events > 0).collect();
    let mut out = BufWriter::new(io::stdout().lock());
    if args.json && !roots.is_empty() {
        let roots: Vec<_> = roots
            .iter()
            .map(|run| serde_json::to_value(run).unwrap_or(serde_json::Value::Null))
            .collect();
        serde_json::to_writer_pretty(&mut out, &serde_json::json!({ "roots": roots }))?;
        writeln!(out)?;
    } else {
        for (index, run) in roots.iter().enumerate() {
            if index > 0 {
                writeln!(out)?;
            }
            write_run(&mut out, run, "", "")?;
        }
    }
    out.flush()?;
    for problem in &forest.problems {
        print_link(problem);
        outcome = outcome.worse(match problem.kind {
            LinkKind::Read(ProblemKind::Io) => Outcome::Failed,
            _ => Outcome::InputProblems,
        });
    }
    if roots.is_empty() {
        let name = display_name(&args.file);
        console::error(&format!(
            "{name}: no run there (no *.jsonl file with an event)"
        ));
        outcome = outcome.worse(Outcome::InputProblems);
    }
    Ok(outcome)
}

fn write_run(out: &mut impl Write, run: &Run, lead: &str, rest: &str) -> io::Result<()> {
    let name = run
        .name
        .as_deref()
        .map(|n| format!(" {}", escape(n)))
        .unwrap_or_default();
    // Where the run's duration comes from, so that a measured figure and the provider's
    // (or a step's) never disagree unlabelled; an undated run has none.
    let label = match run.duration_source {
        Some(DurationSource::Timestamps) | None => String::new(),
        Some(source) => format!(" {}", source.label()),
    };
    let reported = run
        .reported_duration_ms
        .map(|ms| format!(" (the provider reported{})", duration(Some(ms))))
        .unwrap_or_default();
    writeln!(
        out,
        "{lead}run {}{name} {}{}{label}{reported} ({}, {})",
        escape(&run.run_id),
        run.status.as_str(),
        duration(run.duration_ms),
        plural(run.events, "event"),
        escape(&display_name(&run.file))
    )?;
    write_children(out, &run.children, rest)?;
    if run.elided > 0 {
        writeln!(
            out,
            "{rest}… and {} more not kept: a tree keeps its first {MAX_TREE_NODES} steps, \
             messages and tool calls (every event was read)",
            run.elided,
        )?;
    }
    Ok(())
}

fn write_children(out: &mut impl Write, children: &[Node], rest: &str) -> io::Result<()> {
    for (index, node) in children.iter().enumerate() {
        let last = index + 1 == children.len();
        let lead = format!("{rest}{}", if last { "└─ " } else { "├─ " });
        let deeper = format!("{rest}{}", if last { "   " } else { "│  " });
        match node {
            Node::Run(run) => write_run(out, run, &lead, &deeper)?,
            Node::Step(step) => {
                let name = if step.name == step.path || step.name.is_empty() {
                    String::new()
                } else {
                    format!(" {:?}", step.name)
                };
                let error = failure(step.error.as_deref());
                writeln!(
                    out,
                    "{lead}step {}{name} [{}] iteration {} {}{}{error}",
                    escape(&step.path),
                    escape(&step.kind),
                    step.iteration,
                    step.status.as_str(),
                    duration(step.duration_ms)
                )?;
                write_children(out, &step.children, &deeper)?;
                let read = step.children.iter().any(|n| matches!(n, Node::Run(_)));
                if let (Some(child), false) = (&step.child_run_id, read) {
                    let child = escape(child);
                    writeln!(out, "{deeper}└─ run {child} not read (see the problems)")?;
                }
            }
            Node::Message(message) => {
                let blocks = message.blocks.join(", ");
                writeln!(out, "{lead}{}: {}", escape(&message.role), escape(&blocks))?;
            }
            Node::Tool(tool) => {
                let error = failure(tool.error.as_deref());
                let sighted = match (tool.sighted_by_agent, &tool.agent_call_id) {
                    (false, _) => String::new(),
                    (true, None) => " (the agent reported it too)".to_owned(),
                    (true, Some(id)) => format!(" (the agent reported it too, as {})", escape(id)),
                };
                writeln!(
                    out,
                    "{lead}tool {} ({}) {}{error}{sighted}",
                    escape(&tool.name),
                    escape(&tool.call_id),
                    tool.outcome.as_str()
                )?;
            }
        }
    }
    Ok(())
}

fn failure(error: Option<&str>) -> String {
    error
        .map(|e| format!(": {}", escape(e)))
        .unwrap_or_default()
}

fn duration(ms: Option<u64>) -> String {
    match ms {
        None => String::new(),
        Some(ms) if ms < 1000 => format!(" {ms}ms"),
        Some(ms) => format!(" {:.1}s", ms as f64 / 1000.0),
    }
}
