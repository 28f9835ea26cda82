//! `axt stats`: counts per transcript and in total, files read in parallel.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::read::{
    Cost, FileStats, Prices, Problem as ReadProblem, ProblemKind, ReadItem, Reader, Stats,
    ToolStats, transcript_files,
};

use super::check::LISTED;
use super::console::{self, Counting, Progress, escape, plural};
use super::{Outcome, display_name, open, prices, report_error, with_path, write_indented};
use crate::batch;

/// Inputs at least this large get a progress bar on a terminal.
const PROGRESS_BYTES: u64 = 64 << 20;

/// Count events, blocks, tools, tokens, cost and duration, per file and in total.
///
/// Counts events by type, content blocks by type, tool calls by name (with failures, and
/// results whose call is not in the file apart; a call the router captured and the agent
/// reported too counted once, as the router's, and its sightings apart), tokens by kind
/// (input is the whole prompt, cache reads and writes included, as OpenTelemetry's
/// gen_ai.usage.input_tokens counts it; the parts follow), cost (reported by the provider,
/// else estimated from the price table and marked `est.`, else unknown), run durations
/// (undated runs have none) and problems by kind; a file without an event is a problem. A
/// directory argument is walked for *.jsonl files; one that cannot be read is reported and
/// the rest counted. Files are read in parallel on all cores; on a terminal, large inputs
/// show a progress bar on stderr. Problems go to stderr as FILE:LINE: byte OFFSET: KIND:
/// MESSAGE (the first 1000 of a file; the rest are counted).
///
/// Prices: the table axt ships (data/prices.json), with a user's own laid over it, model by
/// model: the file AXT_PRICES names, else $XDG_CONFIG_HOME/axt/prices.json.
///
/// Exit status: 0 clean, 1 problems found in the input, 2 usage error or an input that
/// cannot be read (the others are still counted).
///
/// Example: axt stats storage/transcripts/
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Transcript files or directories, or `-` for stdin.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Print the counts as one JSON document, and problems on stderr as JSON lines.
    #[arg(long)]
    json: bool,
}

/// What counting one file gave.
struct Counted {
    stats: Stats,
    /// Its first problems, to print.
    listed: Vec<ReadProblem>,
    /// Reading failed part-way.
    unreadable: bool,
}

pub(crate) fn run(args: Args) -> io::Result<Outcome> {
    console::set_json(args.json);
    let (files, mut failed) = expand(&args.paths);
    let total_bytes: u64 = files
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum();
    let progress = if total_bytes >= PROGRESS_BYTES {
        console::progress(total_bytes, Counting::Bytes)
    } else {
        None
    };

    let prices = prices();
    // Each file's counts are printed as soon as they and those before them are counted,
    // and only the total is kept: memory does not grow with the number of files.
    let mut listing = Listing {
        out: BufWriter::new(io::stdout().lock()),
        json: args.json,
        files: 0,
    };
    let mut total = Stats::default();
    let mut written: io::Result<()> = Ok(());
    count_parallel(
        &files,
        &prices,
        progress.as_ref(),
        &mut |path, result| match result {
            Ok(counted) => {
                let name = display_name(path);
                print_problems(&name, &counted);
                failed |= counted.unreadable;
                total.merge(&counted.stats);
                if written.is_ok() {
                    written = listing.file(name, counted.stats);
                }
            }
            Err(error) => {
                failed = true;
                report_error(&error);
            }
        },
    );
    drop(progress);
    written?;
    listing.total(&total)?;
    Ok(if failed {
        Outcome::Failed
    } else if total.problem_count() > 0 {
        Outcome::InputProblems
    } else {
        Outcome::Clean
    })
}

/// stdout as `axt stats` prints it, one file at a time: each file's counts (text, or an
/// element of the JSON document's `files`), then the total. The JSON is byte for byte
/// what serializing a whole [`StatsReport`](crate::read::StatsReport) pretty gives: a
/// JSON string holds no raw line break, so a value pretty-printed alone and indented is
/// the same value printed nested.
struct Listing<W: Write> {
    out: W,
    json: bool,
    /// Files printed so far.
    files: u64,
}

impl<W: Write> Listing<W> {
    fn file(&mut self, file: String, stats: Stats) -> io::Result<()> {
        self.files += 1;
        if self.json {
            let opening = if self.files == 1 {
                "{\n  \"files\": [\n"
            } else {
                ",\n"
            };
            self.out.write_all(opening.as_bytes())?;
            let element = serde_json::to_string_pretty(&FileStats { file, stats })?;
            write_indented(&mut self.out, &element, "    ", true)?;
        } else {
            (self.out).write_all(render(&escape(&file), &stats).as_bytes())?;
        }
        // Out as soon as counted, for a reader of a long listing (one write per file).
        self.out.flush()
    }

    fn total(mut self, total: &Stats) -> io::Result<()> {
        if !self.json {
            if self.files > 1 {
                let title = format!("total ({})", plural(total.files, "file"));
                self.out.write_all(render(&title, total).as_bytes())?;
            }
            return self.out.flush();
        }
        let files_end = if self.files == 0 {
            "{\n  \"files\": [],\n  \"total\": "
        } else {
            "\n  ],\n  \"total\": "
        };
        self.out.write_all(files_end.as_bytes())?;
        let total = serde_json::to_string_pretty(total)?;
        write_indented(&mut self.out, &total, "  ", false)?;
        self.out.write_all(b"\n}\n")?;
        self.out.flush()
    }
}

fn print_problems(name: &str, counted: &Counted) {
    for problem in &counted.listed {
        console::read_problem(name, problem);
    }
    let more = counted.stats.problem_count() - counted.listed.len() as u64;
    if more > 0 {
        console::error(&format!(
            "{name}: {} not listed (only the first {LISTED} of a file are)",
            plural(more, "more problem")
        ));
    }
}

/// Files as given, directories walked for `*.jsonl` files (the library's
/// [`transcript_files`]), and whether something could not be read: what cannot is
/// reported, and the walk goes on.
fn expand(paths: &[PathBuf]) -> (Vec<PathBuf>, bool) {
    let (files, failed) = transcript_files(paths);
    let any = !failed.is_empty();
    for (path, error) in failed {
        report_error(&with_path(&path, error));
    }
    (files, any)
}

/// Counts every file on all cores ([`batch`]) and hands each result to `done` in the order
/// of `files`, as soon as it and those before it are counted, so problems are printed in
/// a stable order and no more than a few files' counts wait at once (the collector this
/// replaces held every file finished out of order).
fn count_parallel(
    files: &[PathBuf],
    prices: &Prices,
    progress: Option<&Progress>,
    done: &mut dyn FnMut(&Path, io::Result<Counted>),
) {
    let workers = batch::workers(0, files.len());
    let mut finished = 0;
    batch::in_order(
        files,
        workers,
        |_, path, send| send(count(path, prices, progress)),
        |index, result| {
            finished += 1;
            if let Some(progress) = progress {
                progress.message(format!("{finished}/{} files", files.len()));
            }
            done(&files[index], result);
        },
    );
}

fn count(path: &Path, prices: &Prices, progress: Option<&Progress>) -> io::Result<Counted> {
    let mut counted = Counted {
        stats: Stats::with_prices(prices.clone()),
        listed: Vec::new(),
        unreadable: false,
    };
    counted.stats.files = 1;
    let mut reader = Reader::new(open(path)?);
    let (mut reported, mut items) = (0, 0u64);
    let mut report = |offset: u64| {
        if let Some(progress) = progress {
            progress.add(offset.saturating_sub(reported));
        }
        reported = offset;
    };
    while let Some(item) = reader.next() {
        counted.stats.item(&item);
        if let ReadItem::Problem(problem) = item {
            counted.unreadable |= problem.kind == ProblemKind::Io;
            if (counted.listed.len() as u64) < LISTED {
                counted.listed.push(problem);
            }
        }
        items += 1;
        if items.is_multiple_of(4096) {
            report(reader.position().offset);
        }
    }
    report(reader.position().offset);
    if let Some(problem) = counted.stats.end_of_file(reader.position()) {
        counted.listed.push(problem);
    }
    Ok(counted)
}

fn render(title: &str, stats: &Stats) -> String {
    // Type and tool names come from the input: escaped, as everything printed from it.
    let list = |counts: &BTreeMap<String, u64>| {
        if counts.is_empty() {
            return "none".to_owned();
        }
        let items: Vec<String> = counts
            .iter()
            .map(|(k, n)| format!("{} {n}", escape(k)))
            .collect();
        items.join(", ")
    };
    let tools = if stats.tools.is_empty() {
        "none".to_owned()
    } else {
        let items: Vec<String> = stats
            .tools
            .iter()
            .map(|(name, t)| format!("{} {}", tool_name(name), tool_counts(t)))
            .collect();
        items.join(", ")
    };
    let tools = match stats.sightings {
        0 => tools,
        n => format!("{tools}; {n} seen on both channels (counted once, as the router's)"),
    };
    let t = &stats.tokens;
    let mut text = String::new();
    let _ = writeln!(text, "{title}");
    let _ = writeln!(
        text,
        "  events:   {} ({})",
        stats.events,
        list(&stats.event_types)
    );
    let _ = writeln!(text, "  blocks:   {}", list(&stats.block_types));
    let _ = writeln!(text, "  tools:    {tools}");
    let repeated = match stats.repeated_session_totals {
        0 => String::new(),
        n => format!(
            " ({} of a resumed session: its running total counted once)",
            plural(n, "run")
        ),
    };
    // Input as the whole prompt, the number OpenTelemetry's gen_ai.usage.input_tokens and
    // the OTLP export give, with its parts, so that neither figure surprises.
    let _ = writeln!(
        text,
        "  tokens:   input {} ({} uncached + {} cache read + {} cache write), output {} ({} reasoning){repeated}",
        t.prompt(),
        t.input,
        t.cache_read,
        t.cache_write,
        t.output,
        t.reasoning
    );
    let _ = writeln!(text, "  cost:     {}", cost(&stats.cost));
    let timed = stats.runs - stats.undated_runs;
    let undated = plural(stats.undated_runs, "undated run");
    let duration = match (timed, stats.undated_runs) {
        (0, 0) => "none (no run completed)".to_owned(),
        (0, _) => format!("none ({undated}: nothing measured, reported or stamped)"),
        (timed, undated_runs) => {
            let mut text = format!(
                "{:.1}s over {}",
                stats.duration_ms as f64 / 1000.0,
                plural(timed, "run")
            );
            if undated_runs > 0 {
                text.push_str(&format!(" ({undated} without a duration)"));
            }
            text
        }
    };
    let _ = writeln!(text, "  duration: {duration}");
    let _ = writeln!(text, "  problems: {}", list(&stats.problems));
    text
}

/// A tool's name as the input gave it, escaped; a result whose call is unknown may have
/// none.
fn tool_name(name: &str) -> String {
    if name.is_empty() {
        "(no tool name)".to_owned()
    } else {
        escape(name).into_owned()
    }
}

/// One tool's counts: `3 (1 failed)`, and results whose call is not in the file apart
/// (`no call, 1 result without its call`), never as a failed call.
fn tool_counts(tool: &ToolStats) -> String {
    let without = match tool.results_without_call {
        0 => None,
        1 => Some("1 result without its call".to_owned()),
        n => Some(format!("{n} results without their call")),
    };
    match (tool.calls, without) {
        (0, Some(without)) => format!("no call, {without}"),
        (calls, None) => format!("{calls} ({} failed)", tool.failures),
        (calls, Some(without)) => format!("{calls} ({} failed; {without})", tool.failures),
    }
}

/// The cost line: what it is made of, and `none` where no agent ran.
fn cost(cost: &Cost) -> String {
    if cost.agents() == 0 {
        return "none (no agent run)".to_owned();
    }
    cost.explained()
}
