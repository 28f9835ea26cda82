//! Recorder append throughput against a raw `write(2)` loop of the same bytes.
//!
//! `make bench` (or `cargo bench --bench recorder`). Single-threaded, ~280-byte lines shaped
//! like performance.md section 4. Each repetition times a fresh file; the raw loop writes the
//! exact lines the recorder wrote, one `write_all` per line on an `O_APPEND` file, in the
//! same process and interleaved with the recorder's repetitions, so that machine noise hits
//! both alike. The recorder's time runs from `create` to `close` and includes the encode;
//! the events are built before the clock starts, except on the `None + building events` row,
//! where each is built in the loop as a caller would (clone of a template, then
//! `Timestamp::now()`). The two `workflow:` rows record through the executor's seam
//! (`axt::workflow`) on the same recorder: `Step::message` with the same payload (the scope
//! stamps path, iteration and time, and checks its step is open, under the run's lock), and
//! router tool calls (`Step::tool` then `ToolCall::ok`: two events per call, each with its
//! call-ledger entry and duration), so their cost is the seam's on top of the recorder's.
//!
//! Environment: `AXT_BENCH_DIR` (default: the system temp dir; use a real disk for the
//! sync policies), `AXT_BENCH_EVENTS` (default 200,000), `AXT_BENCH_SYNC_EVENTS` (per-event
//! sync policies, default 1,000), `AXT_BENCH_REPS` (default 9), `AXT_BENCH_EACH` (set: print
//! every repetition's times too, not only the medians).

#![allow(clippy::print_stdout)] // A benchmark's report is its output.

#[path = "measure/mod.rs"]
mod measure;

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use axt::model::StepKind;
use axt::model::{
    ContentBlock, EventType, ExchangeEvent, Fidelity, MessagePayload, Payload, Role, Timestamp,
    encode_event,
};
use axt::record::{Durability, Recorder, RecorderOptions};
use axt::workflow::Run;
use measure::{Targets, env_usize, median};

const LINE_BYTES: usize = 279;

/// A `message.assistant` event whose line, seq and LF included, is about `LINE_BYTES` long.
fn template() -> ExchangeEvent {
    let event = |text: String| {
        let payload = Payload::Message(MessagePayload::new(
            Role::Assistant,
            vec![ContentBlock::text(Fidelity::AgentEmitted, text)],
        ));
        let mut event =
            ExchangeEvent::new("run-0001", EventType::MessageAssistant, "step[0]", payload);
        event.seq = 100_000;
        event
    };
    let mut line = Vec::new();
    encode_event(&event(String::new()), &mut line).unwrap();
    let text = "lorem ipsum dolor sit amet ".repeat(10);
    event(text[..LINE_BYTES.saturating_sub(line.len() + 1)].to_owned())
}

struct Bench {
    dir: PathBuf,
    template: ExchangeEvent,
}

impl Bench {
    fn event(&self) -> ExchangeEvent {
        let mut event = self.template.clone();
        event.timestamp = Timestamp::now();
        event
    }

    /// Records `events` events, built before the clock starts, in a fresh file; returns the
    /// elapsed time (create to close) and the file.
    fn recorder(&self, durability: Durability, events: usize, name: &str) -> (Duration, PathBuf) {
        let mut prepared: Vec<ExchangeEvent> = (0..events).map(|_| self.event()).collect();
        let (path, recorder) = self.create(durability, name);
        let start = Instant::now();
        let recorder = recorder();
        // Drained, not consumed: the vector's own buffer (tens of MB, an munmap) is freed
        // after the clock stops, as the raw loop's lines are.
        for event in prepared.drain(..) {
            recorder.record(event).unwrap();
        }
        recorder.close().unwrap();
        let elapsed = start.elapsed();
        drop(prepared);
        (elapsed, path)
    }

    /// As [`Bench::recorder`], but each event is built in the loop as a caller would
    /// (clone of a template, `Timestamp::now()`): the end-to-end cost per event.
    fn end_to_end(&self, events: usize) -> Duration {
        let (path, recorder) = self.create(Durability::None, "e2e");
        let start = Instant::now();
        let recorder = recorder();
        for _ in 0..events {
            recorder.record(self.event()).unwrap();
        }
        recorder.close().unwrap();
        let elapsed = start.elapsed();
        let _ = fs::remove_file(&path);
        elapsed
    }

    /// Records `events` messages through a workflow step scope on a file recorder.
    fn step_messages(&self, events: usize) -> Duration {
        let (path, recorder) = self.create(Durability::None, "step");
        let payload = self.template.payload.clone();
        let start = Instant::now();
        let run = Run::start(recorder(), "bench").unwrap();
        let step = run.step("step", StepKind::Agent).unwrap();
        for _ in 0..events {
            step.message(EventType::MessageAssistant, payload.clone())
                .unwrap();
        }
        step.done().unwrap();
        run.done().unwrap();
        let elapsed = start.elapsed();
        let _ = fs::remove_file(&path);
        elapsed
    }

    /// Records `events / 2` router tool calls (a `tool.call` and a `tool.result` each).
    fn tool_calls(&self, events: usize) -> Duration {
        let (path, recorder) = self.create(Durability::None, "tools");
        let ids: Vec<String> = (0..events / 2).map(|n| format!("call-{n}")).collect();
        let input = serde_json::json!({"command": "ls -la src"});
        let output = serde_json::Value::String("lorem ipsum dolor sit amet ".repeat(4));
        let start = Instant::now();
        let run = Run::start(recorder(), "bench").unwrap();
        let step = run.step("step", StepKind::Command).unwrap();
        for id in &ids {
            let call = step.tool("Bash", id.as_str(), input.clone()).unwrap();
            call.ok(output.clone()).unwrap();
        }
        step.done().unwrap();
        run.done().unwrap();
        let elapsed = start.elapsed();
        let _ = fs::remove_file(&path);
        elapsed
    }

    fn create(
        &self,
        durability: Durability,
        name: &str,
    ) -> (PathBuf, impl FnOnce() -> Recorder + '_) {
        let run_id = format!("bench-{name}");
        let path = self.dir.join(format!("{run_id}.jsonl"));
        let _ = fs::remove_file(&path);
        let options = RecorderOptions::default().durability(durability);
        (path, move || {
            Recorder::create(&self.dir, &run_id, options).unwrap()
        })
    }

    /// Writes `lines` one `write_all` each to a fresh O_APPEND file.
    fn raw(&self, lines: &[&[u8]]) -> Duration {
        let path = self.dir.join("bench-raw.jsonl");
        let _ = fs::remove_file(&path);
        let start = Instant::now();
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(&path)
            .unwrap();
        for line in lines {
            file.write_all(line).unwrap();
        }
        drop(file);
        let elapsed = start.elapsed();
        let _ = fs::remove_file(&path);
        elapsed
    }
}

fn report(name: &str, events: usize, bytes: usize, time: Duration, baseline: Option<f64>) {
    let seconds = time.as_secs_f64();
    let rate = events as f64 / seconds;
    let ratio = baseline.map_or_else(
        || "-".to_owned(),
        |raw| format!("{:.0}%", 100.0 * rate / raw),
    );
    println!(
        "| {name:<24} | {events:>9} | {:>10.0} | {:>7.1} | {:>9.2} | {ratio:>6} |",
        rate,
        bytes as f64 / seconds / 1e6,
        1e6 * seconds / events as f64,
    );
}

fn main() {
    println!("{}", measure::profile());
    let events = env_usize("AXT_BENCH_EVENTS", 200_000);
    let sync_events = env_usize("AXT_BENCH_SYNC_EVENTS", 1_000);
    let reps = env_usize("AXT_BENCH_REPS", 9).max(1);
    let base = std::env::var_os("AXT_BENCH_DIR").map_or_else(std::env::temp_dir, PathBuf::from);
    let dir = base.join(format!("axt-bench-{}", std::process::id()));
    let bench = Bench {
        dir: dir.clone(),
        template: template(),
    };

    // The raw loop's lines: exactly what the recorder writes.
    let (_, sample) = bench.recorder(Durability::None, events, "sample");
    let bytes = fs::read(&sample).unwrap();
    fs::remove_file(&sample).unwrap();
    let lines: Vec<&[u8]> = bytes.split_inclusive(|byte| *byte == b'\n').collect();
    let sync_lines = &lines[..sync_events.min(lines.len())];
    let sync_bytes: usize = sync_lines.iter().map(|line| line.len()).sum();

    let mut times: [Vec<Duration>; 9] = Default::default();
    // Each repetition's times, with AXT_BENCH_EACH: the spread the medians hide.
    let each = std::env::var_os("AXT_BENCH_EACH").is_some();
    for _ in 0..reps {
        times[7].push(bench.step_messages(events));
        times[8].push(bench.tool_calls(events));
        times[0].push(bench.raw(&lines));
        times[1].push(bench.recorder(Durability::None, events, "none").0);
        times[2].push(bench.end_to_end(events));
        times[3].push(bench.recorder(Durability::FsyncOnClose, events, "close").0);
        times[4].push(bench.raw(sync_lines));
        times[5].push(bench.recorder(Durability::Flush, sync_events, "flush").0);
        times[6].push(bench.recorder(Durability::Fsync, sync_events, "fsync").0);
        if each {
            let us = |row: &[Duration]| {
                let last = row.last().map_or(0.0, Duration::as_secs_f64);
                1e6 * last / events as f64
            };
            println!(
                "repetition, µs/event: raw {:.2} | None {:.2} | building {:.2} | FsyncOnClose {:.2} | Step::message {:.2} | tool call pairs {:.2}",
                us(&times[0]),
                us(&times[1]),
                us(&times[2]),
                us(&times[3]),
                us(&times[7]),
                us(&times[8])
            );
        }
    }
    let [
        raw,
        none,
        e2e,
        on_close,
        raw_small,
        flush,
        fsync,
        step,
        tools,
    ] = times.map(|mut times| median(&mut times));
    let raw_rate = events as f64 / raw.as_secs_f64();
    let raw_small_rate = sync_lines.len() as f64 / raw_small.as_secs_f64();

    println!(
        "recorder append, {} B/line average, {} in {}, medians of {reps} interleaved repetitions",
        bytes.len() / lines.len(),
        events,
        base.display()
    );
    println!(
        "| {:<24} | {:>9} | {:>10} | {:>7} | {:>9} | {:>6} |",
        "method", "events", "events/s", "MB/s", "µs/event", "vs raw"
    );
    println!(
        "|{:-<26}|{:->11}|{:->12}|{:->9}|{:->11}|{:->8}|",
        "", "", "", "", "", ""
    );
    let big = |name, time, baseline| report(name, events, bytes.len(), time, baseline);
    big("raw write(2) loop", raw, None);
    big("Durability::None", none, Some(raw_rate));
    big("None + building events", e2e, Some(raw_rate));
    big("Durability::FsyncOnClose", on_close, Some(raw_rate));
    big("workflow: Step::message", step, Some(raw_rate));
    big("workflow: tool call pairs", tools, Some(raw_rate));
    let small = |name, time, baseline| report(name, sync_lines.len(), sync_bytes, time, baseline);
    small("raw write(2) loop", raw_small, None);
    small("Durability::Flush", flush, Some(raw_small_rate));
    small("Durability::Fsync", fsync, Some(raw_small_rate));
    // Issue 31: the recorder close to the syscall, the seam not far behind it.
    let of_raw = |time: Duration| 100.0 * raw.as_secs_f64() / time.as_secs_f64();
    let mut targets = Targets::new("recorder");
    targets.floor(
        "recorder (Durability::None) / raw write(2) loop",
        of_raw(none),
        80.0,
        "%",
    );
    targets.floor(
        "workflow tool call pairs / raw write(2) loop",
        of_raw(tools),
        60.0,
        "%",
    );
    targets.save();
    let _ = fs::remove_dir_all(&dir);
}
