//! Claude normalization throughput against the raw-parse baselines, in one run.
//!
//! Generates a realistic Claude Code stream in memory (`claude_stream`, about 200 MB; set
//! `AGX_BENCH_MB` for another size), then times five modes over it, interleaved repetition
//! by repetition so host noise lands on all of them alike (`performance.md`: compare ratios
//! taken in the same run, medians of at least 9 repetitions; `AGX_BENCH_REPS` changes the
//! count):
//!
//! 1. memchr line split;
//! 2. simd-json `BorrowedValue` per line, each line copied into a reused scratch buffer,
//!    with reused `Buffers`;
//! 3. serde_json into a borrowed typed struct (the fields a normalizer reads);
//! 4. agx: provider bytes to blocks (the streaming `Normalizer`, fed 1 MiB chunks);
//! 5. agx: provider bytes to canonical JSONL (`Transcriber` + `JsonlSink`).
//!
//! and prints MB/s, lines/s and the ratios of the agx rows to the two parse baselines.
//! Run with `make bench-normalize` (or `cargo bench --bench normalize`).
#![allow(clippy::print_stdout)]

#[path = "claude_stream/mod.rs"]
mod claude_stream;

use std::borrow::Cow;
use std::hint::black_box;
use std::io::{self, Write};
use std::time::{Duration, Instant};

use agx::normalize::events::{EventOptions, JsonlSink, Transcriber};
use agx::normalize::{Options, Output, Provider};
use memchr::memchr_iter;
use serde::Deserialize;
use serde_json::value::RawValue;

const CHUNK: usize = 1 << 20;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn lines(input: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut start = 0;
    memchr_iter(b'\n', input).map(move |end| {
        let line = &input[start..end];
        start = end + 1;
        line
    })
}

fn split(input: &[u8]) -> usize {
    lines(input).map(|line| line.len()).sum()
}

fn simd_borrowed(input: &[u8]) -> usize {
    let mut scratch = Vec::new();
    let mut buffers = simd_json::Buffers::default();
    let mut ok = 0;
    for line in lines(input) {
        scratch.clear();
        scratch.extend_from_slice(line);
        if let Ok(value) = simd_json::to_borrowed_value_with_buffers(&mut scratch, &mut buffers) {
            ok += 1;
            black_box(&value);
        }
    }
    ok
}

/// The fields a normalizer reads, borrowed; raw JSON for tool input, results and usage.
#[derive(Deserialize)]
#[allow(dead_code)]
struct TypedLine<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    subtype: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    message: Option<TypedMessage<'a>>,
    #[serde(borrow, default)]
    session_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    uuid: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct TypedMessage<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    model: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    role: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<TypedContent<'a>>,
    #[serde(borrow, default)]
    usage: Option<&'a RawValue>,
}

/// `message.content`: a string or an array of blocks, read by a small visitor (an
/// `untagged` enum would buffer every line's content first).
#[allow(dead_code)]
enum TypedContent<'a> {
    Text(Cow<'a, str>),
    Blocks(Vec<TypedBlock<'a>>),
}

impl<'de: 'a, 'a> Deserialize<'de> for TypedContent<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Content;
        impl<'de> serde::de::Visitor<'de> for Content {
            type Value = TypedContent<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string or an array of blocks")
            }
            fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(TypedContent::Text(Cow::Borrowed(text)))
            }
            fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
                Ok(TypedContent::Text(Cow::Owned(text.to_owned())))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Self::Value, A::Error> {
                let mut blocks = Vec::new();
                while let Some(block) = seq.next_element()? {
                    blocks.push(block);
                }
                Ok(TypedContent::Blocks(blocks))
            }
        }
        deserializer.deserialize_any(Content)
    }
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct TypedBlock<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    thinking: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    input: Option<&'a RawValue>,
    #[serde(borrow, default)]
    tool_use_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
    #[serde(default)]
    is_error: Option<bool>,
}

fn serde_typed(input: &[u8]) -> usize {
    let mut ok = 0;
    for line in lines(input) {
        if let Ok(value) = serde_json::from_slice::<TypedLine<'_>>(line) {
            ok += 1;
            black_box(&value);
        }
    }
    ok
}

fn agx_blocks(input: &[u8]) -> usize {
    let mut normalizer = Provider::Claude.normalizer(Options::default());
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

fn agx_jsonl(input: &[u8]) -> usize {
    let mut transcriber = Transcriber::new(
        Provider::Claude,
        Options::default(),
        EventOptions::default(),
    );
    let mut sink = JsonlSink::new(Count(0), |_| Ok(()));
    for chunk in input.chunks(CHUNK) {
        transcriber
            .push(chunk, &mut sink)
            .expect("counting cannot fail");
    }
    transcriber.finish(&mut sink).expect("counting cannot fail");
    sink.into_inner().0
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let mb = env_usize("AGX_BENCH_MB", 200);
    let reps = env_usize("AGX_BENCH_REPS", 9).max(1);
    let started = Instant::now();
    let input = claude_stream::claude_stream(mb << 20, 2026);
    let line_count = memchr_iter(b'\n', &input).count();
    let streamed = lines(&input)
        .filter(|l| l.starts_with(b"{\"type\":\"stream_event\""))
        .count();
    let max_line = lines(&input).map(<[u8]>::len).max().unwrap_or(0);
    println!(
        "Claude stream: {:.1} MB, {line_count} lines ({:.0}% stream_event), longest line {} KB, generated in {:.1?}",
        input.len() as f64 / 1e6,
        100.0 * streamed as f64 / line_count as f64,
        max_line >> 10,
        started.elapsed()
    );

    type Mode = (&'static str, fn(&[u8]) -> usize);
    let modes: [Mode; 5] = [
        ("memchr line split", split),
        ("simd-json borrowed, reused buffers", simd_borrowed),
        ("serde_json typed borrowed", serde_typed),
        ("agx normalize -> blocks", agx_blocks),
        ("agx normalize -> canonical JSONL", agx_jsonl),
    ];
    let mut times = vec![Vec::with_capacity(reps); modes.len()];
    let mut results = vec![0; modes.len()];
    for _ in 0..reps {
        for (i, (_, run)) in modes.iter().enumerate() {
            let start = Instant::now();
            results[i] = black_box(run(black_box(&input)));
            times[i].push(start.elapsed());
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
    for (i, (name, _)) in modes.iter().enumerate() {
        println!(
            "{name:<36} {:>9.0} {:>12.0} {:>14}",
            rates[i].0,
            rates[i].1 / 1e3,
            results[i]
        );
    }
    let ratio = |agx: usize, base: usize| 100.0 * rates[agx].0 / rates[base].0;
    println!("ratios (same run):");
    for (agx, name) in [(3, "blocks"), (4, "canonical JSONL")] {
        println!(
            "  agx {name:<16} = {:>5.1}% of simd-json borrowed, {:>5.1}% of serde_json typed",
            ratio(agx, 1),
            ratio(agx, 2)
        );
    }
    let target = ratio(4, 1);
    println!(
        "target: canonical JSONL >= 50% of simd-json borrowed: {} ({target:.1}%)",
        if target >= 50.0 { "met" } else { "MISSED" }
    );
}
