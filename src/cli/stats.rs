//! `axt stats`: counts per transcript and in total, files read in parallel.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use crate::read::{
    Problem as ReadProblem, ProblemKind, ReadItem, Reader, Stats, StatsReport, transcript_files,
};

use super::check::LISTED;
use super::console::{self, Counting, Problem, Progress, escape, plural};
use super::{Outcome, display_name, open, report_error, with_path};

/// Inputs at least this large get a progress bar on a terminal.
const PROGRESS_BYTES: u64 = 64 << 20;

/// Count events, blocks, tools, tokens, cost and duration, per file and in total.
///
/// Counts events by type, content blocks by type, tool calls by name (with failures; a call
/// the router captured and the agent reported too counted once, as the router's, and its
/// sightings apart), tokens by kind, cost and run duration (from the run metadata of run.completed), and
/// problems by kind. A directory argument is walked for *.jsonl files; one that cannot be
/// read is reported and the rest counted. Files are read in parallel on all cores; on a
/// terminal, large inputs show a progress bar on stderr. Problems go to stderr as
/// FILE:LINE: byte OFFSET: KIND: MESSAGE (the first 1000 of a file; the rest are counted).
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

    let mut report = StatsReport::default();
    count_parallel(
        &files,
        progress.as_ref(),
        &mut |path, result| match result {
            Ok(counted) => {
                let name = display_name(path);
                print_problems(&name, &counted);
                failed |= counted.unreadable;
                report.add(name, counted.stats);
            }
            Err(error) => {
                failed = true;
                report_error(&error);
            }
        },
    );
    drop(progress);

    let mut out = BufWriter::new(io::stdout().lock());
    if args.json {
        serde_json::to_writer_pretty(&mut out, &report)?;
        writeln!(out)?;
    } else {
        for file in &report.files {
            out.write_all(render(&escape(&file.file), &file.stats).as_bytes())?;
        }
        if report.files.len() > 1 {
            let title = format!("total ({})", plural(report.total.files, "file"));
            out.write_all(render(&title, &report.total).as_bytes())?;
        }
    }
    out.flush()?;
    Ok(if failed {
        Outcome::Failed
    } else if report.total.problem_count() > 0 {
        Outcome::InputProblems
    } else {
        Outcome::Clean
    })
}

fn print_problems(name: &str, counted: &Counted) {
    for problem in &counted.listed {
        console::problem(&Problem::error(
            name,
            problem.line,
            problem.offset,
            problem.kind.as_str(),
            &problem.message,
        ));
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

/// Counts every file on all cores (workers take the next file from a shared index) and
/// hands each result to `done` in the order of `files`, as soon as it and those before it
/// are counted, so problems are printed in a stable order without holding every file's.
fn count_parallel(
    files: &[PathBuf],
    progress: Option<&Progress>,
    done: &mut dyn FnMut(&Path, io::Result<Counted>),
) {
    let next = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(files.len().max(1));
    let (send, receive) = mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let send = send.clone();
            let next = &next;
            scope.spawn(move || {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(path) = files.get(index) else { break };
                    let result = count(path, progress);
                    if send.send((index, result)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(send);
        let mut waiting = BTreeMap::new();
        let mut expected = 0;
        for (finished, (index, result)) in receive.into_iter().enumerate() {
            if let Some(progress) = progress {
                progress.message(format!("{}/{} files", finished + 1, files.len()));
            }
            waiting.insert(index, result);
            while let Some(result) = waiting.remove(&expected) {
                done(&files[expected], result);
                expected += 1;
            }
        }
    });
}

fn count(path: &Path, progress: Option<&Progress>) -> io::Result<Counted> {
    let mut counted = Counted {
        stats: Stats::default(),
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
            .map(|(name, t)| format!("{} {} ({} failed)", escape(name), t.calls, t.failures))
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
    let _ = writeln!(
        text,
        "  tokens:   input {}, output {}, cache_read {}, cache_write {}, reasoning {}{repeated}",
        t.input, t.output, t.cache_read, t.cache_write, t.reasoning
    );
    let _ = writeln!(text, "  cost:     ${:.4}", stats.cost_usd);
    let _ = writeln!(
        text,
        "  duration: {:.1}s over {}",
        stats.duration_ms as f64 / 1000.0,
        plural(stats.runs, "run")
    );
    let _ = writeln!(text, "  problems: {}", list(&stats.problems));
    text
}
