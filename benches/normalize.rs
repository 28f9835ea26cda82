//! Normalization throughput of every provider adapter against raw-parse baselines, in one
//! run.
//!
//! For each provider it generates a realistic stream in memory with a deterministic, seeded
//! generator (`<provider>_stream/`, listed in `providers/`, sharing `gen_common`; about 200 MB each, set `AXT_BENCH_MB` for another size), then times five
//! modes over it, interleaved repetition by repetition so host noise lands on all of them
//! alike (`performance.md`: compare ratios taken in the same run, medians of at least 9
//! repetitions; `AXT_BENCH_REPS` changes the count):
//!
//! 1. memchr line split;
//! 2. simd-json `BorrowedValue` per line, each line copied into a reused scratch buffer,
//!    with reused `Buffers`;
//! 3. serde_json into the provider's borrowed typed struct (the fields a normalizer reads,
//!    `<provider>_stream/typed.rs`);
//! 4. axt: provider bytes to blocks (the streaming `Normalizer`, fed 1 MiB chunks);
//! 5. axt: provider bytes to canonical JSONL (`Transcriber` + `JsonlSink`).
//!
//! Before timing, the JSONL row's output is checked line by line against serde_json (each
//! event decoded and written again by its `Serialize` impl must give the same bytes), so the
//! writer's escaping is held to serde_json on every string of every generated stream.
//!
//! It prints MB/s, lines/s and the ratios of the axt rows to the two parse baselines, then
//! a summary over the providers. Providers run one after another, each stream dropped before
//! the next is generated; `AXT_BENCH_PROVIDERS=claude,codex` picks some (default: all).
//! `AXT_BENCH_SAVE=DIR` also writes each stream to `DIR/<provider>.jsonl`, as input for
//! timing the `axt` binary itself (`scripts/normalize-live.py`).
//! Run with `make bench-normalize` (or `cargo bench --bench normalize`).
#![allow(clippy::print_stdout)]

#[path = "allocator/mod.rs"]
mod allocator;
#[path = "providers/mod.rs"]
mod providers;

use std::hint::black_box;
use std::io::{self, Write};
use std::time::Instant;

use axt::normalize::{Options, Output, Provider};
use axt::transcribe::{EventOptions, JsonlSink, Transcriber};
use memchr::memchr_iter;
use providers::measure::{Generate, Targets, env_usize, lines, median};

const CHUNK: usize = 1 << 20;

fn split(input: &[u8]) -> usize {
    lines(input).map(|line| line.len()).sum()
}

fn simd_borrowed(input: &[u8]) -> usize {
    let mut scratch = Vec::new();
    let mut buffers = simd_json::Buffers::default();
    let mut ok = 0;
    for line in lines(input) {
        scratch.clear();
        // SSE (OpenAI): the JSON is the `data:` value; other SSE lines fail fast, as in axt.
        scratch.extend_from_slice(line.strip_prefix(b"data: ").unwrap_or(line));
        if let Ok(value) = simd_json::to_borrowed_value_with_buffers(&mut scratch, &mut buffers) {
            ok += 1;
            black_box(&value);
        }
    }
    ok
}

fn axt_blocks(provider: Provider, input: &[u8]) -> usize {
    let mut normalizer = provider.normalizer(Options::default());
    let mut out = Output::default();
    let mut items = 0;
    for chunk in input.chunks(CHUNK) {
        normalizer.push(chunk, &mut out);
        items += out.items.len();
        out.items.clear();
        out.diagnostics.clear();
    }
    normalizer.finish(&mut out);
    items + out.items.len()
}

/// A writer that only counts, so the JSONL row measures making the bytes, not storing them.
struct Count(usize);

impl Write for Count {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0 += bytes.len();
        Ok(bytes.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn axt_jsonl(provider: Provider, input: &[u8]) -> usize {
    let mut transcriber = Transcriber::new(provider, Options::default(), EventOptions::default());
    let mut sink = JsonlSink::new(Count(0), |_| Ok(()));
    for chunk in input.chunks(CHUNK) {
        transcriber
            .push(chunk, &mut sink)
            .expect("counting cannot fail");
    }
    transcriber.finish(&mut sink).expect("counting cannot fail");
    sink.into_inner().0
}

/// Holds the JSONL row's output to serde_json, line by line: each event decoded and written
/// again by its `Serialize` impl (serde_json's own string escaping and number formatting)
/// must give the same bytes. The writer's string escaping is tuned for speed; this checks
/// it on every string of every generated stream, beyond the unit tests' strings.
struct SameAsSerde {
    provider: Provider,
    partial: Vec<u8>,
    lines: usize,
}

impl Write for SameAsSerde {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.partial.extend_from_slice(bytes);
        while let Some(end) = memchr::memchr(b'\n', &self.partial) {
            self.lines += 1;
            let line = &self.partial[..end];
            let event = axt::model::decode_event(line)
                .unwrap_or_else(|error| panic!("{}: line {}: {error}", self.provider, self.lines));
            let again = serde_json::to_vec(&event).expect("a decoded event serializes");
            assert!(
                again == line,
                "{}: line {}: the writer's bytes differ from serde_json's",
                self.provider,
                self.lines
            );
            self.partial.drain(..=end);
        }
        Ok(bytes.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Checks the canonical JSONL of `input` against serde_json (see [`SameAsSerde`]); returns
/// the lines checked.
fn check_jsonl(provider: Provider, input: &[u8]) -> usize {
    let mut transcriber = Transcriber::new(provider, Options::default(), EventOptions::default());
    let check = SameAsSerde {
        provider,
        partial: Vec::new(),
        lines: 0,
    };
    let mut sink = JsonlSink::new(check, |_| Ok(()));
    for chunk in input.chunks(CHUNK) {
        transcriber
            .push(chunk, &mut sink)
            .expect("checking cannot fail");
    }
    transcriber.finish(&mut sink).expect("checking cannot fail");
    let check = sink.into_inner();
    assert!(
        check.partial.is_empty(),
        "{provider}: a line without its newline"
    );
    check.lines
}

/// The five modes, in table order.
const MODES: [&str; 5] = [
    "memchr line split",
    "simd-json borrowed, reused buffers",
    "serde_json typed borrowed",
    "axt normalize -> blocks",
    "axt normalize -> canonical JSONL",
];

fn run(mode: usize, provider: Provider, input: &[u8]) -> usize {
    match mode {
        0 => split(input),
        1 => simd_borrowed(input),
        2 => (providers::stream(provider).typed)(input),
        3 => axt_blocks(provider, input),
        _ => axt_jsonl(provider, input),
    }
}

/// What one provider's run measured, for the summary.
struct Summary {
    provider: Provider,
    jsonl_mb_s: f64,
    of_simd: f64,
    of_typed: f64,
}

fn bench(provider: Provider, generate: Generate, mb: usize, reps: usize) -> Summary {
    let started = Instant::now();
    let input = generate(mb << 20, 2026);
    let line_count = memchr_iter(b'\n', &input).count();
    let small = lines(&input).filter(|l| l.len() <= 300).count();
    let max_line = lines(&input).map(<[u8]>::len).max().unwrap_or(0);
    println!(
        "\n== {provider}: {:.1} MB, {line_count} lines ({:.0}% <= 300 B), longest line {} KB, generated in {:.1?}",
        input.len() as f64 / 1e6,
        100.0 * small as f64 / line_count as f64,
        max_line >> 10,
        started.elapsed()
    );
    if let Ok(dir) = std::env::var("AXT_BENCH_SAVE") {
        let path = std::path::Path::new(&dir).join(format!("{provider}.jsonl"));
        std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::write(&path, &input))
            .unwrap_or_else(|error| panic!("AXT_BENCH_SAVE: {}: {error}", path.display()));
        println!("saved to {}", path.display());
    }

    let checked = Instant::now();
    let lines_checked = check_jsonl(provider, &input);
    println!(
        "canonical JSONL byte-equal to serde_json's: {lines_checked} lines, checked in {:.1?}",
        checked.elapsed()
    );

    let mut times = vec![Vec::with_capacity(reps); MODES.len()];
    let mut results = vec![0; MODES.len()];
    for _ in 0..reps {
        for (mode, times) in times.iter_mut().enumerate() {
            let start = Instant::now();
            results[mode] = black_box(run(mode, provider, black_box(&input)));
            times.push(start.elapsed());
        }
    }
    let rates: Vec<(f64, f64)> = times
        .iter_mut()
        .map(|t| {
            let secs = median(t).as_secs_f64();
            (input.len() as f64 / 1e6 / secs, line_count as f64 / secs)
        })
        .collect();
    println!("medians of {reps} interleaved repetitions:");
    println!(
        "{:<36} {:>9} {:>12} {:>14}",
        "mode", "MB/s", "klines/s", "result"
    );
    for (mode, name) in MODES.iter().enumerate() {
        println!(
            "{name:<36} {:>9.0} {:>12.0} {:>14}",
            rates[mode].0,
            rates[mode].1 / 1e3,
            results[mode]
        );
    }
    let ratio = |axt: usize, base: usize| 100.0 * rates[axt].0 / rates[base].0;
    println!("ratios (same run):");
    for (axt, name) in [(3, "blocks"), (4, "canonical JSONL")] {
        println!(
            "  axt {name:<16} = {:>5.1}% of simd-json borrowed, {:>5.1}% of serde_json typed",
            ratio(axt, 1),
            ratio(axt, 2)
        );
    }
    Summary {
        provider,
        jsonl_mb_s: rates[4].0,
        of_simd: ratio(4, 1),
        of_typed: ratio(4, 2),
    }
}

/// The providers `AXT_BENCH_PROVIDERS` names (comma-separated), or all of them, in the
/// registry's order.
fn selected() -> Vec<Provider> {
    let Ok(names) = std::env::var("AXT_BENCH_PROVIDERS") else {
        return Provider::ALL.to_vec();
    };
    let names: Vec<Provider> = names
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(|name| {
            name.parse()
                .unwrap_or_else(|error| panic!("AXT_BENCH_PROVIDERS: {error}"))
        })
        .collect();
    Provider::ALL
        .into_iter()
        .filter(|p| names.contains(p))
        .collect()
}

fn main() {
    println!("{}", providers::measure::profile());
    println!("{}", allocator::REPORT);
    let mb = env_usize("AXT_BENCH_MB", 200);
    let reps = env_usize("AXT_BENCH_REPS", 9).max(1);
    let summaries: Vec<Summary> = selected()
        .into_iter()
        .map(|provider| bench(provider, providers::stream(provider).generate, mb, reps))
        .collect();
    println!("\nsummary: axt normalize -> canonical JSONL");
    println!(
        "{:<9} {:>9} {:>14} {:>16}",
        "provider", "MB/s", "% simd-json", "% serde typed"
    );
    for s in &summaries {
        println!(
            "{:<9} {:>9.0} {:>13.1}% {:>15.1}%",
            s.provider.as_str(),
            s.jsonl_mb_s,
            s.of_simd,
            s.of_typed
        );
    }
    // Issue 31: every provider's canonical JSONL at 70% of the raw parse or better.
    let mut targets = Targets::new("normalize");
    for s in &summaries {
        targets.floor(
            &format!("{} canonical JSONL / simd-json borrowed parse", s.provider),
            s.of_simd,
            70.0,
            "%",
        );
    }
    targets.save();
}
