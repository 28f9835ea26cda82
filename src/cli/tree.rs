//! `axt tree`: print a run's execution tree across its linked files.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use axt::read::tree::{Node, Run, build};

use super::Outcome;

/// Print the execution tree of a run and its sub-runs.
///
/// Reads FILE and follows every child_run_id to the child's file in the same directory, at
/// any depth. Prints runs (name, status, duration, events), steps (path, kind, iteration,
/// status, duration), messages (role and block types) and tool calls (name, call id,
/// outcome). Problems (bad lines, missing children, orphans, cycles, parent/child
/// mismatches) go to stderr as FILE:LINE: byte OFFSET: KIND: MESSAGE.
///
/// Exit status: 0 clean, 1 problems reported, 2 usage error.
///
/// Example: axt tree storage/transcripts/550e8400-e29b-41d4-a716-446655440000.jsonl
#[derive(clap::Args)]
pub(crate) struct Args {
    /// The root run's transcript file.
    file: PathBuf,
    /// Print the tree (and its problems) as JSON instead.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: Args) -> io::Result<Outcome> {
    let tree = build(&args.file);
    let mut out = BufWriter::new(io::stdout().lock());
    if args.json {
        serde_json::to_writer_pretty(&mut out, &tree)?;
        writeln!(out)?;
    } else {
        write_run(&mut out, &tree.root, "", "")?;
    }
    out.flush()?;
    if !args.json {
        for problem in &tree.problems {
            eprintln!("{problem}");
        }
    }
    Ok(if tree.problems.is_empty() {
        Outcome::Clean
    } else {
        Outcome::InputProblems
    })
}

fn write_run(out: &mut impl Write, run: &Run, lead: &str, rest: &str) -> io::Result<()> {
    let name = run
        .name
        .as_deref()
        .map(|n| format!(" {n}"))
        .unwrap_or_default();
    writeln!(
        out,
        "{lead}run {}{name} {}{} ({} events, {})",
        run.run_id,
        run.status.as_str(),
        duration(run.duration_ms),
        run.events,
        run.file.display()
    )?;
    write_children(out, &run.children, rest)
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
                    step.path,
                    step.kind,
                    step.iteration,
                    step.status.as_str(),
                    duration(step.duration_ms)
                )?;
                write_children(out, &step.children, &deeper)?;
                let read = step.children.iter().any(|n| matches!(n, Node::Run(_)));
                if let (Some(child), false) = (&step.child_run_id, read) {
                    writeln!(out, "{deeper}└─ run {child} not read (see the problems)")?;
                }
            }
            Node::Message(message) => {
                writeln!(out, "{lead}{}: {}", message.role, message.blocks.join(", "))?;
            }
            Node::Tool(tool) => {
                let error = failure(tool.error.as_deref());
                writeln!(
                    out,
                    "{lead}tool {} ({}) {}{error}",
                    tool.name,
                    tool.call_id,
                    tool.outcome.as_str()
                )?;
            }
        }
    }
    Ok(())
}

fn failure(error: Option<&str>) -> String {
    error.map(|e| format!(": {e}")).unwrap_or_default()
}

fn duration(ms: Option<u64>) -> String {
    match ms {
        None => String::new(),
        Some(ms) if ms < 1000 => format!(" {ms}ms"),
        Some(ms) => format!(" {:.1}s", ms as f64 / 1000.0),
    }
}
