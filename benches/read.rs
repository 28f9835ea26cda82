//! Reading a transcript (`axt::read::Reader`, what `axt check`, `stats`, `tree` and the
//! exports stand on) against its own parts, in one run.
//!
//! The transcripts are the canonical JSONL that axt writes for a generated Claude stream and
//! a generated Codex stream (the `normalize` bench's deterministic generators; about 100 MB
//! of provider output each, `AXT_BENCH_MB` for another size), built in memory before any
//! clock starts. Six modes run over the same bytes, interleaved repetition by repetition (each starting
//! at the next mode) so host noise lands on all of them alike (`AXT_BENCH_REPS`, default 9; medians):
//!
//! 1. memchr line split;
//! 2. `decode_event` per line: the tolerant decode alone, the floor of any reader;
//! 3. `decode_event` + `warnings` + `validate`: the reader's checks before the
//!    `read_transcript` fuzz finding (an empty step kind the writer refuses was called clean);
//! 4. `decode_event` + `warnings` + `check_encodable`: the reader's checks now (the writer's
//!    own walk, writing nothing);
//! 5. `decode_event` + `warnings` + `encode_event`: the first fix, which encoded every line;
//! 6. `Reader` over the bytes: mode 4 plus line splitting, positions and the seq check.
//!
//! The report gives MB/s and events/s and each mode's time relative to mode 2, so what the
//! writer's check costs (mode 4 and mode 5 against mode 3) and the reader's own overhead are
//! ratios taken in the same run. `make bench-read`.
#![allow(clippy::print_stdout)] // A benchmark's report is its output.

#[path = "allocator/mod.rs"]
mod allocator;
#[path = "providers/mod.rs"]
mod providers;

use std::hint::black_box;
use std::time::{Duration, Instant};

use axt::model::{check_encodable, decode_event, encode_event, validate, warnings};
use axt::normalize::{Options, Provider};
use axt::read::{ReadItem, Reader};
use axt::transcribe::{EventOptions, JsonlSink, Transcriber};
use providers::measure::{Targets, env_usize, lines, median};

/// The canonical JSONL axt writes for `input`.
fn transcript(provider: Provider, input: &[u8]) -> Vec<u8> {
    let mut transcriber = Transcriber::new(provider, Options::default(), EventOptions::default());
    let mut sink = JsonlSink::new(Vec::new(), |_| Ok(()));
    for chunk in input.chunks(1 << 20) {
        transcriber.push(chunk, &mut sink).expect("memory");
    }
    transcriber.finish(&mut sink).expect("memory");
    sink.into_inner()
}

/// Each mode returns a count that depends on all its work, so none of it is optimized away.
type Mode = fn(&[u8]) -> usize;

const MODES: [(&str, Mode); 6] = [
    ("memchr line split", |t| lines(t).map(<[u8]>::len).sum()),
    ("decode_event", |t| {
        lines(t)
            .map(|line| decode_event(line).map_or(0, |e| e.seq as usize))
            .sum()
    }),
    ("decode + warnings + validate", |t| {
        lines(t)
            .map(|line| {
                let event = decode_event(line).expect("axt's own transcript decodes");
                warnings(&event).len() + usize::from(validate(&event).is_ok())
            })
            .sum()
    }),
    ("decode + warnings + check", |t| {
        lines(t)
            .map(|line| {
                let event = decode_event(line).expect("axt's own transcript decodes");
                warnings(&event).len() + usize::from(check_encodable(&event).is_ok())
            })
            .sum()
    }),
    ("decode + warnings + encode", |t| {
        let mut encoded = Vec::new();
        lines(t)
            .map(|line| {
                let event = decode_event(line).expect("axt's own transcript decodes");
                encoded.clear();
                warnings(&event).len() + usize::from(encode_event(&event, &mut encoded).is_ok())
            })
            .sum()
    }),
    ("Reader", |t| {
        Reader::new(t)
            .map(|item| match item {
                ReadItem::Event { event, .. } => event.seq as usize,
                ReadItem::Problem(_) => panic!("axt's own transcript has no problem"),
            })
            .sum()
    }),
];

fn main() {
    println!("{}", providers::measure::profile());
    println!("{}", allocator::REPORT);
    let bytes = env_usize("AXT_BENCH_MB", 100) << 20;
    let reps = env_usize("AXT_BENCH_REPS", 9).max(1);
    let mut targets = Targets::new("read");
    for provider in [Provider::Claude, Provider::Codex] {
        let input = (providers::stream(provider).generate)(bytes, 7);
        let transcript = transcript(provider, &input);
        drop(input);
        let events = lines(&transcript).count();
        let mb = transcript.len() as f64 / 1e6;
        println!(
            "\n{provider:?} transcript: {mb:.1} MB, {events} events, {reps} repetitions (medians)"
        );
        let mut times = vec![Vec::with_capacity(reps); MODES.len()];
        for rep in 0..reps {
            // Each repetition starts at the next mode, so no mode always runs first.
            for i in (0..MODES.len()).map(|k| (k + rep) % MODES.len()) {
                let mode = MODES[i].1;
                let start = Instant::now();
                black_box(mode(black_box(&transcript)));
                times[i].push(start.elapsed());
            }
        }
        let medians: Vec<Duration> = times.iter_mut().map(|t| median(t)).collect();
        let decode = medians[1].as_secs_f64();
        println!(
            "{:<30} {:>10} {:>9} {:>13} {:>11}",
            "mode", "median", "MB/s", "events/s", "vs decode"
        );
        for ((name, _), time) in MODES.iter().zip(&medians) {
            let secs = time.as_secs_f64();
            println!(
                "{name:<30} {:>8.1}ms {:>9.0} {:>13.0} {:>10.2}x",
                secs * 1e3,
                mb / secs,
                events as f64 / secs,
                secs / decode
            );
        }
        let ratio = |a: usize, b: usize| medians[a].as_secs_f64() / medians[b].as_secs_f64();
        println!(
            "over validate alone, the writer's check costs {:+.1}% and encoding {:+.1}%; \
             the Reader is {:.2}x its checks",
            (ratio(3, 2) - 1.0) * 100.0,
            (ratio(4, 2) - 1.0) * 100.0,
            ratio(5, 3)
        );
        // Issue 31, no regression: the README states the Reader (check, stats, tree and
        // the exports read through it) at 1.05x the time of decoding alone.
        targets.floor(
            &format!("{provider} Reader / decode_event alone (no regression)"),
            100.0 / ratio(5, 1),
            90.0,
            "%",
        );
    }
    targets.save();
}
