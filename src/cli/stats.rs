//! `axt stats`: counts per transcript and in total, files read in parallel.

use std::fmt::Write as _;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use axt::read::{Reader, Stats};
use serde_json::json;

use super::{Outcome, display_name, open, with_path};

/// Inputs at least this large get a progress line on a terminal.
const PROGRESS_BYTES: u64 = 64 << 20;

/// Count events, blocks, tools, tokens, cost and duration, per file and in total.
///
/// Counts events by type, content blocks by type, tool calls by name (with failures),
/// tokens by kind, cost and run duration (from the run metadata of run.completed), and
/// problems by kind. A directory argument is walked for *.jsonl files. Files are read in
/// parallel on all cores; on a terminal, large inputs show a progress line on stderr.
///
/// Exit status: 0 clean, 1 problems found in the input, 2 usage or I/O error.
///
/// Example: axt stats storage/transcripts/
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Transcript files or directories, or `-` for stdin.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Print one JSON report instead of text.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: Args) -> io::Result<Outcome> {
    let files = expand(&args.paths)?;
    let total_bytes: u64 = files
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum();
    let progress = io::stderr().is_terminal() && total_bytes >= PROGRESS_BYTES;
    let results = count_parallel(&files, total_bytes, progress);

    let mut out = BufWriter::new(io::stdout().lock());
    let mut total = Stats::default();
    let mut per_file = Vec::new();
    let mut failed = false;
    for (path, result) in files.iter().zip(results) {
        match result {
            Ok(stats) => {
                total.merge(&stats);
                per_file.push((display_name(path), stats));
            }
            Err(error) => {
                failed = true;
                eprintln!("axt: {error}");
            }
        }
    }
    if args.json {
        let files: Vec<_> = per_file
            .iter()
            .map(|(file, stats)| json!({"file": file, "stats": stats}))
            .collect();
        let report = json!({"files": files, "total": total});
        serde_json::to_writer_pretty(&mut out, &report)?;
        writeln!(out)?;
    } else {
        for (file, stats) in &per_file {
            out.write_all(render(file, stats).as_bytes())?;
        }
        if per_file.len() > 1 {
            out.write_all(render(&format!("total ({} files)", total.files), &total).as_bytes())?;
        }
    }
    out.flush()?;
    Ok(if failed {
        Outcome::Failed
    } else if total.problem_count() > 0 {
        Outcome::InputProblems
    } else {
        Outcome::Clean
    })
}

/// Files as given, directories walked for `*.jsonl` (sorted, so output is stable).
fn expand(paths: &[PathBuf]) -> io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for path in paths {
        if !path.is_dir() {
            files.push(path.clone());
            continue;
        }
        for entry in walkdir::WalkDir::new(path).sort_by_file_name() {
            let entry = entry.map_err(|error| with_path(path, io::Error::other(error)))?;
            if entry.file_type().is_file() && entry.path().extension().is_some_and(|e| e == "jsonl")
            {
                files.push(entry.into_path());
            }
        }
    }
    Ok(files)
}

/// Counts every file on all cores: workers take the next file from a shared index.
fn count_parallel(files: &[PathBuf], total_bytes: u64, progress: bool) -> Vec<io::Result<Stats>> {
    let results: Vec<Mutex<Option<io::Result<Stats>>>> =
        files.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let (read_bytes, finished, done) = (
        AtomicU64::new(0),
        AtomicUsize::new(0),
        AtomicBool::new(false),
    );
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(files.len().max(1));
    std::thread::scope(|scope| {
        if progress {
            scope.spawn(|| {
                while !done.load(Ordering::Relaxed) {
                    let mb = read_bytes.load(Ordering::Relaxed) >> 20;
                    eprint!(
                        "\r{}/{} files, {mb}/{} MiB",
                        finished.load(Ordering::Relaxed),
                        files.len(),
                        total_bytes >> 20
                    );
                    std::thread::sleep(Duration::from_millis(200));
                }
                eprint!("\r\x1b[K");
            });
        }
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        let Some(path) = files.get(index) else { break };
                        let result = count(path, &read_bytes);
                        *results[index].lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
                        finished.fetch_add(1, Ordering::Relaxed);
                    }
                })
            })
            .collect();
        for handle in handles {
            let _ = handle.join();
        }
        done.store(true, Ordering::Relaxed);
    });
    results
        .into_iter()
        .map(|slot| {
            slot.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .unwrap_or_else(|| Err(io::Error::other("worker stopped")))
        })
        .collect()
}

fn count(path: &Path, read_bytes: &AtomicU64) -> io::Result<Stats> {
    let mut stats = Stats::default();
    stats.files = 1;
    let mut reader = Reader::new(open(path)?);
    let (mut reported, mut items) = (0, 0u64);
    while let Some(item) = reader.next() {
        stats.item(&item);
        items += 1;
        if items.is_multiple_of(4096) {
            let offset = reader.position().offset;
            read_bytes.fetch_add(offset - reported, Ordering::Relaxed);
            reported = offset;
        }
    }
    read_bytes.fetch_add(
        reader.position().offset.saturating_sub(reported),
        Ordering::Relaxed,
    );
    Ok(stats)
}

fn render(title: &str, stats: &Stats) -> String {
    let list = |counts: &std::collections::BTreeMap<String, u64>| {
        if counts.is_empty() {
            return "none".to_owned();
        }
        let items: Vec<String> = counts.iter().map(|(k, n)| format!("{k} {n}")).collect();
        items.join(", ")
    };
    let tools = if stats.tools.is_empty() {
        "none".to_owned()
    } else {
        let items: Vec<String> = stats
            .tools
            .iter()
            .map(|(name, t)| format!("{name} {} ({} failed)", t.calls, t.failures))
            .collect();
        items.join(", ")
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
    let _ = writeln!(
        text,
        "  tokens:   input {}, output {}, cache_read {}, cache_write {}, reasoning {}",
        t.input, t.output, t.cache_read, t.cache_write, t.reasoning
    );
    let _ = writeln!(text, "  cost:     ${:.4}", stats.cost_usd);
    let _ = writeln!(
        text,
        "  duration: {:.1}s over {} runs",
        stats.duration_ms as f64 / 1000.0,
        stats.runs
    );
    let _ = writeln!(text, "  problems: {}", list(&stats.problems));
    text
}
