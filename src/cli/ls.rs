//! `axt ls`: the runs of directories, one line each, newest first.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use crate::read::summary::{RunSummary, summarize_all};

use super::console::{self, escape, paint, plural};
use super::present;
use super::{Outcome, display_name, prices, report_error, with_path};

/// List the runs of a directory: one line per run, newest first.
///
/// Reads every transcript (*.jsonl) of each DIR (default: the current directory) and
/// prints one line per run: when it started (UTC), its id (the first 8 characters; `axt
/// show` takes any unique start of one), provider, model, duration (measured by its writer,
/// else reported by the provider, else from the provider's times; `-` for an undated run),
/// how it ended, tokens (the whole prompt and the output), cost (reported by the provider,
/// else estimated from the price table and marked `est.`, else `unknown`), tool calls (and
/// how many failed), problems found reading it (`axt check` lists them), and its project
/// (the working directory it recorded) and title (its first prompt). A run invoked by
/// another run of the directory (a sub-agent, a sub-workflow) is counted in its parent's
/// line, which says how many it has.
///
/// A file without an event, and every file with problems, is reported on stderr.
///
/// Exit status: 0 every run read clean, 1 problems found in a file, 2 usage error or a
/// file or directory that cannot be read.
///
/// Example: axt ls transcripts/
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Directories (walked for *.jsonl) or transcript files; default: the current directory.
    #[arg(value_name = "DIR")]
    paths: Vec<PathBuf>,
    /// Print the runs as a JSON array (each run's own counts, its sub-runs nested under
    /// `sub_runs`), and problems on stderr as JSON lines.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: Args) -> io::Result<Outcome> {
    console::set_json(args.json);
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths
    };
    for path in &paths {
        if path.as_os_str() == "-" {
            let message = "axt ls lists files and directories, not stdin: give DIR";
            return Err(io::Error::new(io::ErrorKind::InvalidInput, message));
        }
        if !path.exists() {
            let error = io::Error::new(io::ErrorKind::NotFound, "no such file or directory");
            return Err(with_path(path, error));
        }
    }
    let listing = summarize_all(&paths, &prices());
    let mut out = BufWriter::new(io::stdout().lock());
    if args.json {
        serde_json::to_writer_pretty(&mut out, &listing.runs)?;
        writeln!(out)?;
    } else {
        write_table(&mut out, &listing.runs)?;
    }
    out.flush()?;

    let mut problems = false;
    for no_run in &listing.no_run {
        problems = true;
        let name = display_name(&no_run.file);
        match &no_run.no_event {
            Some(problem) => console::read_problem(&name, problem),
            None => console::error(&format!(
                "{name}: no event, {} (axt check {name} lists them)",
                plural(no_run.problems, "problem")
            )),
        }
    }
    let mut with_problems = Vec::new();
    collect_problems(&listing.runs, &mut with_problems);
    for run in with_problems {
        problems = true;
        console::error(&format!(
            "{}: {} (axt check {} lists them)",
            display_name(&run.file),
            plural(run.problems, "problem"),
            display_name(&run.file)
        ));
    }
    for (path, error) in &listing.failed {
        report_error(&with_path(
            path,
            io::Error::new(error.kind(), error.to_string()),
        ));
    }
    Ok(if !listing.failed.is_empty() {
        Outcome::Failed
    } else if problems {
        Outcome::InputProblems
    } else {
        Outcome::Clean
    })
}

fn collect_problems<'a>(runs: &'a [RunSummary], out: &mut Vec<&'a RunSummary>) {
    for run in runs {
        if run.problems > 0 {
            out.push(run);
        }
        collect_problems(&run.sub_runs, out);
    }
}

const HEADER: [&str; 11] = [
    "STARTED",
    "ID",
    "PROVIDER",
    "MODEL",
    "DURATION",
    "STATUS",
    "TOKENS",
    "COST",
    "TOOLS",
    "PROBLEMS",
    "PROJECT: TITLE",
];

/// The runs as a table: columns as wide as their widest cell, the last one as long as it
/// is (a terminal wraps it; a pipe keeps it whole).
fn write_table(out: &mut impl Write, runs: &[RunSummary]) -> io::Result<()> {
    if runs.is_empty() {
        return Ok(());
    }
    let colour = console::colour_stdout();
    let id_chars = id_chars(runs);
    let rows: Vec<(Vec<String>, &RunSummary)> =
        runs.iter().map(|run| (row(run, id_chars), run)).collect();
    let mut widths = HEADER.map(|h| h.chars().count());
    for (cells, _) in &rows {
        for (width, cell) in widths.iter_mut().zip(cells) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |cells: &[String]| -> String {
        let last = cells.len() - 1;
        let mut text = String::new();
        for (index, cell) in cells.iter().enumerate() {
            if index == last {
                text.push_str(cell);
            } else {
                let pad = widths[index] - cell.chars().count();
                text.push_str(cell);
                text.push_str(&" ".repeat(pad + 2));
            }
        }
        text.trim_end().to_owned()
    };
    let header: Vec<String> = HEADER.iter().map(|h| (*h).to_owned()).collect();
    writeln!(out, "{}", paint(colour, "1", &line(&header)))?;
    for (cells, run) in rows {
        let text = line(&cells);
        writeln!(
            out,
            "{}",
            paint(colour, present::status_style(run.status), &text)
        )?;
    }
    Ok(())
}

/// How much of each run id the listing shows: 8 characters, or more where 8 would not
/// tell two of the listed runs apart (`axt show` takes any unique start of an id).
fn id_chars(runs: &[RunSummary]) -> usize {
    let longest = runs
        .iter()
        .map(|r| r.run_id.chars().count())
        .max()
        .unwrap_or(0);
    (8..longest)
        .find(|&n| {
            let mut starts: Vec<String> = runs
                .iter()
                .map(|r| r.run_id.chars().take(n).collect())
                .collect();
            starts.sort();
            starts.windows(2).all(|pair| pair[0] != pair[1])
        })
        .unwrap_or(longest)
}

/// One run's cells; everything from the input escaped.
fn row(run: &RunSummary, id_chars: usize) -> Vec<String> {
    let totals = run.totals();
    let id: String = run.run_id.chars().take(id_chars).collect();
    let mut label = run.label().unwrap_or_default();
    if totals.runs > 1 {
        label.push_str(&format!(" (+{})", plural(totals.runs - 1, "sub-run")));
    }
    vec![
        run.started.as_ref().map_or("-".to_owned(), present::minute),
        escape(&id).into_owned(),
        escape(&present::providers(run)).into_owned(),
        escape(&present::models(run)).into_owned(),
        present::duration(run.duration, None),
        run.status.as_str().to_owned(),
        present::tokens(totals.tokens.total()),
        totals.cost.label(),
        present::tools(&totals.tools),
        totals.problems.to_string(),
        escape(&label).into_owned(),
    ]
}
