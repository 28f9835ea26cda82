//! What every benchmark's harness shares: its settings from the environment, the lines of a
//! JSONL buffer, the typed parse of lines, and the median of its repetitions.
//!
//! Included with `#[path]` by `providers/mod.rs` (for `normalize.rs` and `read.rs`) and by
//! `recorder.rs`.

use std::time::Duration;

use memchr::memchr_iter;

/// The build every benchmark measured, for the first line of each report. Cargo tells a
/// program nothing of the profile it was built with, and `cargo bench` (Cargo.toml's
/// `[profile.bench]`, which inherits `[profile.dist]`: fat LTO, 1 codegen unit, the build
/// of the shipped binaries; tests/axt/cli.rs checks that Cargo.toml still says so) and
/// `cargo bench --profile release` (faster to build, slower to run) both put the binary in
/// target/release. So whoever runs it names the build in `AXT_BENCH_PROFILE` (the
/// Makefile's bench targets do), and a report run without it says it does not know
/// rather than guess.
pub(crate) fn profile() -> String {
    match std::env::var("AXT_BENCH_PROFILE") {
        Ok(named) if !named.trim().is_empty() => format!("profile: {named} (AXT_BENCH_PROFILE)"),
        _ => "profile: not named (AXT_BENCH_PROFILE unset; `cargo bench` builds bench = dist, \
              fat LTO, `--profile release` the release profile)"
            .to_owned(),
    }
}

/// A stream generator: at least `bytes` bytes (whole sessions) from a seed.
#[allow(dead_code)] // Not every bench generates streams.
pub(crate) type Generate = fn(usize, u64) -> Vec<u8>;

/// The number in environment variable `name`, or `default`.
pub(crate) fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The LF-terminated lines of `input`, without their LF.
#[allow(dead_code)] // Not every bench reads lines.
pub(crate) fn lines(input: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut start = 0;
    memchr_iter(b'\n', input).map(move |end| {
        let line = &input[start..end];
        start = end + 1;
        line
    })
}

/// How many of `lines` parse as `T` with serde_json (the typed baseline).
#[allow(dead_code)] // Only the provider streams' baselines parse.
pub(crate) fn typed<'a, T: serde::Deserialize<'a>>(lines: impl Iterator<Item = &'a [u8]>) -> usize {
    let mut ok = 0;
    for line in lines {
        if let Ok(value) = serde_json::from_slice::<T>(line) {
            ok += 1;
            std::hint::black_box(&value);
        }
    }
    ok
}

/// The median of the repetitions' times (sorts them).
pub(crate) fn median(times: &mut [Duration]) -> Duration {
    times.sort_unstable();
    times[times.len() / 2]
}

/// The targets a benchmark measured, for `make bench`'s one table
/// (`scripts/bench-table.py`): each row is also printed, and all of them are written to
/// `$AXT_BENCH_TARGETS/<bench>.tsv` (default `target/bench`) when the benchmark ends,
/// replacing what an earlier run of the same benchmark wrote.
#[allow(dead_code)] // Not every bench measures a target.
pub(crate) struct Targets {
    bench: &'static str,
    rows: Vec<String>,
}

#[allow(dead_code)] // Not every bench measures a target.
#[allow(clippy::print_stdout)] // A benchmark's report is its output.
impl Targets {
    /// The targets of benchmark `bench` (the file's name).
    pub(crate) fn new(bench: &'static str) -> Self {
        Self {
            bench,
            rows: Vec::new(),
        }
    }

    /// One target: `measured` against `required` (a floor), with the baseline it is a ratio
    /// of; returns whether it is met.
    pub(crate) fn floor(&mut self, target: &str, measured: f64, required: f64, unit: &str) -> bool {
        let met = measured >= required;
        let row = format!(
            "{target}\t{measured:.1}{unit}\t>= {required}{unit}\t{}",
            if met { "met" } else { "not met" }
        );
        println!("target: {}", row.replace('\t', " | "));
        self.rows.push(row);
        met
    }

    /// Writes the rows (a failure to is reported, not fatal: the report above stands).
    pub(crate) fn save(self) {
        let dir = std::env::var_os("AXT_BENCH_TARGETS")
            .map_or_else(|| std::path::PathBuf::from("target/bench"), Into::into);
        let path = dir.join(format!("{}.tsv", self.bench));
        let text: String = self.rows.iter().map(|row| format!("{row}\n")).collect();
        if let Err(error) = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, text))
        {
            println!("could not write {}: {error}", path.display());
        }
    }
}
