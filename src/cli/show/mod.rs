//! `axt show`: a run as a person reads it in a terminal.
//!
//! This file finds the run asked for (a file, a directory's newest run, a run id, stdin)
//! and reports what showing it found; [`render`] walks the run and [`text`] lays its text
//! out.

mod render;
mod text;

use std::io::{self, BufWriter, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

use regex::RegexBuilder;

use crate::read::summary::{RunSummary, summarize_all};
use crate::read::tree::dir_of;
use crate::read::{ProblemKind, Reader, no_event};

use self::render::{Options, Shower, Thinking, first_pass};
use super::console::{self, Problem, plural};
use super::{Outcome, display_name, open, prices, with_path};

/// Show a run as a person reads it: prompts, answers, thinking, tool calls and their output.
///
/// Prints the run's prompts, the assistant's text (Markdown made plain, wrapped to the
/// terminal), its thinking (dimmed), each tool call with its input described (the command
/// of a shell call, the file of a file tool, the pattern of a search, else the input as
/// JSON) and the first 8 lines of its output, failures marked with ✗, steps and sub-agents
/// indented under what opened them, and the runs it invoked (child_run_id, looked up in its
/// directory as axt tree does) where it invoked them; a header says what the run was
/// (providers, models, start, duration, working directory) and a last line how it ended,
/// its tool calls, tokens and cost (reported, else estimated and marked `est.`, else
/// unknown). Colour on a terminal (--color), plain in a pipe; text from the input is
/// escaped, so tool output cannot drive the terminal.
///
/// RUN is a run file; a directory (its newest run: `axt ls DIR` lists them all); a run id
/// or the start of one, looked up in the current directory, or in DIR for DIR/ID; or `-`
/// for stdin (child runs are then looked up in the current directory).
///
/// Exit status: 0 clean, 1 problems found reading the run or a child run it names that
/// cannot be shown (each reported on stderr), 2 usage error or a run that cannot be found
/// or read.
///
/// Examples: axt show transcripts/; axt show transcripts/550e8400 --grep 'cargo test';
/// axt show run.jsonl --no-thinking --full | less -R
#[derive(clap::Args)]
pub(crate) struct Args {
    /// A run file, a directory, a run id (or its start), or `-` for stdin.
    #[arg(value_name = "RUN|FILE|DIR|-")]
    run: PathBuf,
    /// Tool inputs and outputs whole, and system prompts, instead of their first lines.
    #[arg(long)]
    full: bool,
    /// Leave thinking out.
    #[arg(long, conflicts_with = "collapse_thinking")]
    no_thinking: bool,
    /// Thinking as its first line and how many more there are.
    #[arg(long)]
    collapse_thinking: bool,
    /// Only the entries (prompts, replies, thinking, tool calls, results) whose text matches
    /// PATTERN, a regular expression; case-insensitive unless it has an upper-case letter.
    #[arg(long, value_name = "PATTERN")]
    grep: Option<String>,
    /// Wrap at COLUMNS (0: never); default the terminal's width, else $COLUMNS, else 100.
    #[arg(long, value_name = "COLUMNS")]
    width: Option<usize>,
}

/// The width text is wrapped at in a pipe when `$COLUMNS` does not say.
const PIPE_WIDTH: usize = 100;

pub(crate) fn run(args: Args) -> io::Result<Outcome> {
    let grep = match &args.grep {
        None => None,
        Some(pattern) => Some(
            RegexBuilder::new(pattern)
                .case_insensitive(!pattern.chars().any(char::is_uppercase))
                .build()
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, format!("--grep: {e}")))?,
        ),
    };
    let options = Options {
        width: args.width.unwrap_or_else(width),
        colour: console::colour_stdout(),
        thinking: if args.no_thinking {
            Thinking::Hidden
        } else if args.collapse_thinking {
            Thinking::Collapsed
        } else {
            Thinking::Full
        },
        full: args.full,
        grep,
    };
    let prices = prices();
    let Some(found) = find(&args.run)? else {
        return Ok(Outcome::Failed);
    };
    // Two passes: the summary heads the run, then the walk shows it. Stdin is read once,
    // into memory; a file is read twice from disk.
    let bytes = match &found {
        Found::Stdin => {
            let mut bytes = Vec::new();
            open(Path::new("-"))?.read_to_end(&mut bytes)?;
            Some(bytes)
        }
        Found::File(_) => None,
    };
    let name = match &found {
        Found::Stdin => PathBuf::from("-"),
        Found::File(path) => path.clone(),
    };
    let dir = dir_of(&name).to_owned();
    let input: Box<dyn Read> = match &bytes {
        Some(bytes) => Box::new(&bytes[..]),
        None => Box::new(open(&name)?),
    };
    let pass = first_pass(input, &name, &prices);
    let Some(summary) = pass.summary else {
        return no_run(&name, &pass.end, bytes.as_deref());
    };
    let mut out = BufWriter::new(io::stdout().lock());
    let mut shower = Shower::new(&mut out, &options, &prices);
    let run = (&summary, pass.calls);
    match &bytes {
        Some(bytes) => shower.run(&bytes[..], &name, &dir, run, 0)?,
        None => shower.run(open(&name)?, &name, &dir, run, 0)?,
    };
    let report = shower.report;
    out.flush()?;
    drop(out);
    finish(&summary, report, &options)
}

/// What showing found, on stderr; the exit status.
fn finish(summary: &RunSummary, report: render::Report, options: &Options) -> io::Result<Outcome> {
    let mut problems = false;
    for (file, problem) in &report.problems {
        problems = true;
        let name = display_name(file);
        console::read_problem(&name, problem);
    }
    for (file, child, why) in &report.missing {
        problems = true;
        console::error(&format!(
            "{}: child run {child} not shown: {why}",
            display_name(file)
        ));
    }
    if options.grep.is_some() && report.shown == 0 {
        console::notice(&format!(
            "no entry of run {} matches (of {})",
            summary.run_id,
            match report.entries {
                1 => "1 entry".to_owned(),
                n => format!("{n} entries"),
            }
        ));
    }
    Ok(if problems {
        Outcome::InputProblems
    } else {
        Outcome::Clean
    })
}

/// A file without a run: its problems, or the problem of having no event.
fn no_run(name: &Path, end: &crate::read::Position, bytes: Option<&[u8]>) -> io::Result<Outcome> {
    let input: Box<dyn Read + '_> = match bytes {
        Some(bytes) => Box::new(bytes),
        None => Box::new(open(name)?),
    };
    let display = display_name(name);
    let mut any = false;
    for item in Reader::new(input) {
        if let crate::read::ReadItem::Problem(problem) = item {
            any = true;
            console::read_problem(&display, &problem);
        }
    }
    if !any {
        let problem = no_event(end);
        console::problem(&Problem::error(
            &display,
            problem.line,
            problem.offset,
            ProblemKind::NoEvent.as_str(),
            &format!("{}: there is no run to show", problem.message),
        ));
    }
    Ok(Outcome::InputProblems)
}

/// What RUN names.
enum Found {
    Stdin,
    File(PathBuf),
}

/// The run `run` names; `None` when it names none (said on stderr).
fn find(run: &Path) -> io::Result<Option<Found>> {
    if run.as_os_str() == "-" {
        return Ok(Some(Found::Stdin));
    }
    if run.is_file() {
        return Ok(Some(Found::File(run.to_owned())));
    }
    if run.is_dir() {
        let listing = summarize_all(&[run.to_owned()], crate::read::Prices::builtin());
        let Some(newest) = listing.runs.first() else {
            console::error(&format!(
                "{}: no run in this directory (no *.jsonl file with an event)",
                display_name(run)
            ));
            return Ok(None);
        };
        if listing.runs.len() > 1 {
            console::notice(&format!(
                "showing the newest of {} in {} (axt ls {} lists them)",
                plural(listing.runs.len() as u64, "run"),
                display_name(run),
                display_name(run)
            ));
        }
        return Ok(Some(Found::File(newest.file.clone())));
    }
    // A run id, or the start of one, in its directory: files are named <run-id>.jsonl.
    let dir = dir_of(run);
    let Some(prefix) = run.file_name().and_then(|n| n.to_str()) else {
        return Err(with_path(run, io::Error::from(io::ErrorKind::NotFound)));
    };
    // Files named as the user would name them: bare in the current directory.
    let named = |entry: std::fs::DirEntry| {
        if dir == Path::new(".") {
            PathBuf::from(entry.file_name())
        } else {
            entry.path()
        }
    };
    let mut matches: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(named))
            .filter(|path| {
                path.extension().is_some_and(|e| e == "jsonl")
                    && path
                        .file_stem()
                        .and_then(|s| s.to_str())
                        .is_some_and(|stem| stem.starts_with(prefix) && !stem.ends_with(".raw"))
            })
            .collect(),
        Err(error) => return Err(with_path(dir, error)),
    };
    matches.sort();
    match matches.len() {
        1 => Ok(Some(Found::File(matches.remove(0)))),
        0 => Err(with_path(
            run,
            io::Error::new(
                io::ErrorKind::NotFound,
                format!(
                    "no such file, directory or run (no {}{prefix}*.jsonl)",
                    if dir == Path::new(".") {
                        String::new()
                    } else {
                        format!("{}/", dir.display())
                    }
                ),
            ),
        )),
        n => {
            let names: Vec<String> = matches.iter().take(5).map(|p| display_name(p)).collect();
            Err(with_path(
                run,
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "{n} runs start so: {}{}; give more of the id",
                        names.join(", "),
                        if n > 5 { ", ..." } else { "" }
                    ),
                ),
            ))
        }
    }
}

/// The width to wrap at: the terminal's when stdout is one, else `$COLUMNS`, else
/// [`PIPE_WIDTH`].
fn width() -> usize {
    if io::stdout().is_terminal()
        && let Some((terminal_size::Width(columns), _)) = terminal_size::terminal_size()
    {
        return usize::from(columns);
    }
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(PIPE_WIDTH)
}
