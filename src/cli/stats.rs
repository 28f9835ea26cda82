//! `axt stats`: counts per transcript and in total, files read in parallel.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{self, BufWriter, Write};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use crate::read::{
    Cost, FileStats, Prices, Problem as ReadProblem, ProblemKind, ReadItem, Reader, Stats,
    ToolStats, Walk,
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
/// the rest counted. Files are read in parallel on all cores (--jobs; the output is the
/// same whatever their number); on a terminal, large inputs show a progress bar on stderr.
/// Problems go to stderr as FILE:LINE: byte OFFSET: KIND: MESSAGE (the first 1000 of a
/// file; the rest are counted).
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
    /// Worker threads [default: one per core].
    #[arg(long, value_name = "N")]
    jobs: Option<NonZeroUsize>,
}

/// What counting one file gave.
struct Counted {
    /// The file as stdout and stderr name it.
    name: String,
    stats: Stats,
    /// Its counts as stdout lists them (text, or its element of the JSON document's
    /// `files`), made on the worker that counted it.
    entry: io::Result<Vec<u8>>,
    /// Its first problems, to print.
    listed: Vec<ReadProblem>,
    /// Reading failed part-way.
    unreadable: bool,
}

pub(crate) fn run(args: Args) -> io::Result<Outcome> {
    console::set_json(args.json);
    let mut failed = false;
    let workers = args.jobs.map_or(0, NonZeroUsize::get);
    // Sized beforehand only where a bar is drawn, by a walk of its own that keeps nothing.
    let (mut files, mut progress) = (None, None);
    if console::progress_drawn() {
        let (found, bytes) = survey(&args.paths);
        files = Some(found);
        if bytes >= PROGRESS_BYTES {
            progress = console::progress(bytes, Counting::Bytes);
        }
    }

    let prices = Arc::new(prices());
    // Each file's counts are printed as soon as they and those before them are counted,
    // and only the total is kept: memory does not grow with the number of files.
    let mut listing = Listing {
        out: BufWriter::new(io::stdout().lock()),
        json: args.json,
        files: 0,
    };
    let mut total = Stats::default();
    let mut written: io::Result<()> = Ok(());
    let counting = Counter {
        workers,
        prices: &prices,
        json: args.json,
        progress: progress.as_ref().zip(files),
    };
    count_parallel(&args.paths, &counting, &mut |job| {
        for result in job {
            match result {
                Ok(counted) => {
                    print_problems(counted);
                    failed |= counted.unreadable;
                    total.merge(&counted.stats);
                    if written.is_ok() {
                        // Written from where it is: the worker frees it (an error is
                        // taken, as it is returned).
                        written = match &mut counted.entry {
                            Ok(entry) => listing.file(entry),
                            Err(error) => {
                                Err(std::mem::replace(error, io::ErrorKind::Other.into()))
                            }
                        };
                    }
                }
                Err(error) => {
                    failed = true;
                    report_error(error);
                }
            }
        }
        // Out as soon as counted, for a reader of a long listing: one write per job.
        if written.is_ok() {
            written = listing.out.flush();
        }
    });
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
/// element of the JSON document's `files`: [`entry`] makes them), then the total. The JSON
/// is byte for byte what serializing a whole [`StatsReport`](crate::read::StatsReport)
/// pretty gives: a JSON string holds no raw line break, so a value pretty-printed alone
/// and indented is the same value printed nested.
struct Listing<W: Write> {
    out: W,
    json: bool,
    /// Files printed so far.
    files: u64,
}

impl<W: Write> Listing<W> {
    /// Writes a file's `entry`, as [`entry`] made it.
    fn file(&mut self, entry: &[u8]) -> io::Result<()> {
        self.files += 1;
        if self.json {
            let opening = if self.files == 1 {
                "{\n  \"files\": [\n"
            } else {
                ",\n"
            };
            self.out.write_all(opening.as_bytes())?;
        }
        self.out.write_all(entry)
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

/// A file's counts as [`Listing`] lists them: its text, or its element of the JSON
/// document's `files`, indented as the document nests it. Made by the worker that counted
/// the file, so that the printing thread only writes bytes.
fn entry(json: bool, name: String, stats: Stats) -> (io::Result<Vec<u8>>, String, Stats) {
    if !json {
        return (Ok(render(&escape(&name), &stats).into_bytes()), name, stats);
    }
    let element = FileStats { file: name, stats };
    let entry = serde_json::to_string_pretty(&element)
        .map_err(io::Error::from)
        .and_then(|text| {
            let mut entry = Vec::with_capacity(text.len() + text.len() / 8);
            write_indented(&mut entry, &text, "    ", true)?;
            Ok(entry)
        });
    (entry, element.file, element.stats)
}

fn print_problems(counted: &Counted) {
    let name = &counted.name;
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

/// How many files and bytes of them `paths` name, as [`Walk`] finds them (what cannot be
/// listed counted as a file of no bytes): the progress bar's total. Nothing is kept.
fn survey(paths: &[PathBuf]) -> (usize, u64) {
    Walk::transcripts(paths).fold((0, 0), |(files, bytes), found| {
        let size = found.ok().and_then(|file| size(&file));
        (files + 1, bytes + size.unwrap_or(0))
    })
}

/// The size of a regular file (a pipe, stdin or what cannot be looked up has none): for
/// the progress bar, and to cut the files into the batch's jobs.
fn size(file: &Path) -> Option<u64> {
    std::fs::metadata(file)
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.len())
}

/// How many files one job of the batch counts at most, one after another: a job is one
/// hand-over to the printing thread (a queue made, a message, a wake-up), which cost more
/// than counting a file of a few events (two workers were slower than one over 16,000
/// small files); 64 such files are a few milliseconds of work, so the jobs still spread
/// evenly over the workers and each job's files are printed soon after they are counted.
const JOB_FILES: usize = 64;

/// How many bytes of files one job counts at most: a larger file is a job alone, so
/// files of a few megabytes, whose hand-over costs nothing beside their counting, are
/// shared out one by one as before.
const JOB_BYTES: u64 = 1 << 20;

/// What every file's count needs besides the file.
struct Counter<'a> {
    /// Worker threads asked for (0: one per core).
    workers: usize,
    prices: &'a Arc<Prices>,
    json: bool,
    /// The progress bar, and how many files it counts to.
    progress: Option<(&'a Progress, usize)>,
}

/// One element of a job: a file with its size ([`size`]), or what the walk could not list.
enum Found {
    File(PathBuf, Option<u64>),
    Unlisted(io::Error),
}

/// The files cut into the batch's jobs as the walk finds them: runs of consecutive regular
/// files, at most [`JOB_FILES`] of them and [`JOB_BYTES`] together. A file of no known size
/// (a pipe, stdin) is a job alone, so that it holds up no file before it: their counts are
/// printed while it is still being read. What could not be listed goes with the job it
/// comes in, in its place. A job is cut when a worker takes it ([`batch::in_order_from`]),
/// so no list of the files is ever made.
struct Jobs<S: Iterator<Item = Found>> {
    found: S,
    /// The file that did not fit in the last job: the next one's first.
    next: Option<Found>,
}

impl<S: Iterator<Item = Found>> Iterator for Jobs<S> {
    type Item = Vec<Found>;

    fn next(&mut self) -> Option<Vec<Found>> {
        let mut job = Vec::new();
        let (mut files, mut bytes) = (0, 0);
        while let Some(found) = self.next.take().or_else(|| self.found.next()) {
            let Found::File(_, size) = &found else {
                job.push(found);
                continue;
            };
            match (files, *size) {
                (0, None) => {
                    job.push(found);
                    break;
                }
                (0, Some(size)) => bytes = size,
                (_, Some(size)) if bytes + size <= JOB_BYTES => bytes += size,
                _ => {
                    self.next = Some(found);
                    break;
                }
            }
            job.push(found);
            files += 1;
            if files == JOB_FILES {
                break;
            }
        }
        (!job.is_empty()).then_some(job)
    }
}

/// The jobs of the files `paths` name ([`Jobs`]), each file sized as it is found.
fn jobs(paths: &[PathBuf]) -> Jobs<impl Iterator<Item = Found> + Send + '_> {
    let found = Walk::transcripts(paths).map(|found| match found {
        Ok(file) => {
            let size = size(&file);
            Found::File(file, size)
        }
        Err((path, error)) => Found::Unlisted(with_path(&path, error)),
    });
    Jobs { found, next: None }
}

// Two workers over 16,000 small files took ~16% more CPU than one (0.65 s against 0.56 s),
// but not by doing more: callgrind counts 1,077.5M instructions for --jobs 2 against
// 1,072.5M for --jobs 1 over 4,000 of them (+0.5%; main's binary +0.2%). What is extra
// is the price of an instruction or the kernel's share, which callgrind does not see:
// candidates are the per-file syscalls of a threaded process (its file table shared, so
// every read and close counts references atomically) and cache lines the two workers
// share (the price table's Arc, counted once per file). perf samples on a machine at load
// 12-50 could not tell them apart: measure on a quiet one before changing anything here.
/// Counts every file on all cores ([`batch`]), a job of consecutive files ([`jobs`]) at a
/// time, and hands each job's results to `done` in the order of `files`, as soon as they
/// and those before them are counted, so problems are printed in a stable order and no more
/// than a few jobs' counts wait at once (the collector this replaces held every file
/// finished out of order).
///
/// `done` may take what it needs out of the results; what it leaves is freed by a worker,
/// at the start of its next job, not on the printing thread: freeing each file's counts
/// (maps of names, the calls seen) there was a third of its work over many small files,
/// time the workers waited for the next file's turn to be printed.
fn count_parallel(
    paths: &[PathBuf],
    counting: &Counter<'_>,
    done: &mut dyn FnMut(&mut [io::Result<Counted>]),
) {
    let mut finished = 0;
    // Jobs printed, for a worker to free: as many as were printed since a worker last
    // started a job, a few per worker at most (the batch starts no job far ahead).
    let printed: Mutex<Vec<Vec<io::Result<Counted>>>> = Mutex::new(Vec::new());
    let take_printed =
        || std::mem::take(&mut *printed.lock().unwrap_or_else(PoisonError::into_inner));
    // One file is one job, counted on this thread; how many jobs a directory or several
    // files make is known only once they are walked.
    let workers = match paths {
        [path] if !path.is_dir() => 1,
        _ => batch::workers(counting.workers, usize::MAX),
    };
    batch::in_order_from(
        jobs(paths),
        workers,
        |_, job, send| {
            drop(take_printed());
            send(
                job.into_iter()
                    .map(|found| match found {
                        Found::File(path, _) => count(&path, counting),
                        Found::Unlisted(error) => Err(error),
                    })
                    .collect(),
            )
        },
        |_, mut counted: Vec<io::Result<Counted>>| {
            if let Some((progress, files)) = counting.progress {
                finished += counted.len();
                progress.message(format!("{finished}/{files} files"));
            }
            done(&mut counted);
            printed
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(counted);
        },
    );
    drop(take_printed());
}

fn count(path: &Path, counting: &Counter<'_>) -> io::Result<Counted> {
    let mut stats = Stats::with_prices(Arc::clone(counting.prices));
    let (mut listed, mut unreadable) = (Vec::new(), false);
    stats.files = 1;
    let mut reader = Reader::new(open(path)?);
    let (mut reported, mut items) = (0, 0u64);
    let mut report = |offset: u64| {
        if let Some((progress, _)) = counting.progress {
            progress.add(offset.saturating_sub(reported));
        }
        reported = offset;
    };
    while let Some(item) = reader.next() {
        stats.item(&item);
        if let ReadItem::Problem(problem) = item {
            unreadable |= problem.kind == ProblemKind::Io;
            if (listed.len() as u64) < LISTED {
                listed.push(problem);
            }
        }
        items += 1;
        if items.is_multiple_of(4096) {
            report(reader.position().offset);
        }
    }
    report(reader.position().offset);
    if let Some(problem) = stats.end_of_file(reader.position()) {
        listed.push(problem);
    }
    let (entry, name, stats) = entry(counting.json, display_name(path), stats);
    Ok(Counted {
        name,
        stats,
        entry,
        listed,
        unreadable,
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::ops::Range;

    /// The jobs [`Jobs`] cuts files of `sizes` into, as ranges of their indexes; each
    /// `None` of `unlisted` is something the walk could not list at that place.
    fn cut(sizes: &[Option<u64>], unlisted: &[usize]) -> Vec<Range<usize>> {
        let mut found = Vec::new();
        for (index, size) in sizes.iter().enumerate() {
            if unlisted.contains(&index) {
                found.push(Found::Unlisted(io::ErrorKind::NotFound.into()));
            }
            found.push(Found::File(PathBuf::from(index.to_string()), *size));
        }
        let jobs = Jobs {
            found: found.into_iter(),
            next: None,
        };
        jobs.map(|job| {
            let files: Vec<usize> = job
                .iter()
                .filter_map(|found| match found {
                    Found::File(path, _) => path.to_str()?.parse().ok(),
                    Found::Unlisted(_) => None,
                })
                .collect();
            assert!(
                job.len() > files.len() || !files.is_empty(),
                "a job of nothing"
            );
            files[0]..files[files.len() - 1] + 1
        })
        .collect()
    }

    /// Runs of consecutive regular files, cut at [`JOB_FILES`] files or [`JOB_BYTES`]
    /// bytes; a larger file, a pipe or stdin alone; what the walk could not list goes with
    /// the job it comes in.
    #[test]
    fn files_are_cut_into_jobs_of_consecutive_files_by_count_and_bytes() {
        let small = vec![Some(10); JOB_FILES * 2 + 3];
        let expected = [
            0..JOB_FILES,
            JOB_FILES..2 * JOB_FILES,
            2 * JOB_FILES..2 * JOB_FILES + 3,
        ];
        assert_eq!(cut(&small, &[]), expected);
        assert_eq!(cut(&small, &[1, JOB_FILES + 5]), expected);
        let sizes = [
            Some(JOB_BYTES),
            Some(1),
            Some(JOB_BYTES - 1),
            Some(2),
            None,
            Some(3),
            Some(4),
            None,
            None,
            Some(JOB_BYTES + 1),
            Some(5),
        ];
        let expected = [0..1, 1..3, 3..4, 4..5, 5..7, 7..8, 8..9, 9..10, 10..11];
        assert_eq!(cut(&sizes, &[]), expected);
        assert_eq!(cut(&sizes, &[4, 5, 8]), expected);
        assert_eq!(cut(&[], &[]), Vec::<Range<usize>>::new());
    }
}
