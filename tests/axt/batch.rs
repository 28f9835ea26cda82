//! Batches on every core: `axt normalize` over several inputs and directories writes the
//! same runs and prints the same problems, in the same order, as one worker (`--jobs 1`),
//! and each run is what normalizing its input alone writes.

use std::path::Path;

use crate::cli::{axt, text};
use crate::support::TempDir;

/// Fixtures of several providers, clean and with problems (each its own session id).
const INPUTS: [&str; 10] = [
    "claude/ok/plain-session-thinking-text-bash.jsonl",
    "claude/ok/dangling-tool-use-interrupted.jsonl",
    "claude/err/corrupt-json-record-mid-stream.jsonl",
    "claude/err/truncated-last-line.jsonl",
    "codex/ok/commands-failed-and-declined.jsonl",
    "codex/ok/item-updated-growing-output.jsonl",
    "codex/err/bracketed-paste-escape-on-stdout.jsonl",
    "codex/err/record-over-64kib.jsonl",
    "gemini/ok/deprecation-notice-as-assistant-delta.jsonl",
    "claude/ok/crlf-line-endings.jsonl",
];

const CLOCK: &str = "fixed:2026-06-08T08:14:42Z";

/// The inputs copied into `dir`, named so that directory order is `INPUTS` order.
fn inputs(dir: &Path) {
    for (n, input) in INPUTS.iter().enumerate() {
        let from = Path::new(crate::support::ROOT)
            .join("corpus/normalize")
            .join(input);
        let name = input.replace('/', "-");
        std::fs::copy(from, dir.join(format!("{n:02}-{name}"))).unwrap();
    }
}

/// Every file in `dir`, by name, with its bytes.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            let name = entry.file_name().into_string().unwrap();
            (name, std::fs::read(entry.path()).unwrap())
        })
        .collect();
    files.sort();
    files
}

#[test]
fn normalize_a_directory_on_every_core_writes_and_prints_what_one_worker_does() {
    let tmp = TempDir::new("batch-normalize");
    let input = tmp.path().join("in");
    std::fs::create_dir(&input).unwrap();
    inputs(&input);
    let input = input.to_str().unwrap();
    let run = |jobs: &str, out: &str| {
        let out = tmp.path().join(out);
        let output = axt(
            &[
                "normalize",
                "--clock",
                CLOCK,
                "--jobs",
                jobs,
                "--out",
                out.to_str().unwrap(),
                input,
            ],
            b"",
        );
        let stderr = text(&output.stderr).replace(out.to_str().unwrap(), "OUT");
        (output.status.code(), stderr, files(&out))
    };
    let one = run("1", "one");
    let four = run("4", "four");
    assert_eq!(one.0, Some(1), "the err fixtures have errors: {}", one.1);
    assert_eq!(one.2.len(), INPUTS.len(), "a run per input");
    assert!(
        one.1.ends_with("10 runs of 10 inputs written\n"),
        "{}",
        one.1
    );
    assert_eq!(four, one, "four workers, the same exit, stderr and runs");

    // Each run is what normalizing its input alone writes.
    let alone = tmp.path().join("alone");
    for entry in std::fs::read_dir(input).unwrap() {
        let path = entry.unwrap().path();
        let out = alone.to_str().unwrap();
        let single = axt(
            &[
                "normalize",
                "--clock",
                CLOCK,
                "--out",
                out,
                path.to_str().unwrap(),
            ],
            b"",
        );
        assert!(
            matches!(single.status.code(), Some(0 | 1)),
            "{}",
            text(&single.stderr)
        );
    }
    assert_eq!(files(&alone), one.2);
}

#[test]
fn normalize_several_files_names_them_in_the_order_given() {
    let tmp = TempDir::new("batch-normalize-files");
    let out = tmp.path().join("out");
    let corpus = |name: &str| format!("corpus/normalize/{name}");
    let (late, early) = (corpus(INPUTS[3]), corpus(INPUTS[2]));
    let output = axt(
        &[
            "normalize",
            "--clock",
            CLOCK,
            "--jobs",
            "2",
            "--out",
            out.to_str().unwrap(),
            &late,
            &early,
        ],
        b"",
    );
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    let (first, second) = (stderr.find(&late).unwrap(), stderr.find(&early).unwrap());
    assert!(first < second, "{stderr}");
}

#[test]
fn normalize_refuses_several_inputs_without_out_or_with_one_run_id() {
    let fixture = format!("corpus/normalize/{}", INPUTS[0]);
    let output = axt(&["normalize", &fixture, &fixture], b"");
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        text(&output.stderr),
        "axt: several inputs (or a directory) need --out DIR: each is a run of its own\n"
    );
    let output = axt(
        &[
            "normalize",
            "--out",
            "/nonexistent",
            "--run-id",
            "r",
            &fixture,
            &fixture,
        ],
        b"",
    );
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        text(&output.stderr),
        "axt: --run-id names one run; with several inputs each run is named by its input\n"
    );
}

/// `axt stats` prints each file's counts as soon as it is counted and keeps only the total;
/// its JSON is still byte for byte the library's whole `StatsReport`, pretty-printed.
#[test]
fn stats_json_streamed_file_by_file_is_the_whole_report() {
    use axt::read::{Reader, Stats, StatsReport, transcript_files};

    let expected = |paths: &[&str]| {
        let paths: Vec<std::path::PathBuf> = paths.iter().map(|p| p.into()).collect();
        let (files, failed) = transcript_files(&paths);
        assert!(failed.is_empty());
        let mut report = StatsReport::default();
        for file in files {
            let mut stats = Stats::default();
            stats.files = 1;
            let bytes = std::fs::read(&file).unwrap();
            for item in Reader::new(&bytes[..]) {
                stats.item(&item);
            }
            report.add(file.display().to_string(), stats);
        }
        format!("{}\n", serde_json::to_string_pretty(&report).unwrap())
    };
    let empty = TempDir::new("stats-empty");
    let empty = empty.path().to_str().unwrap();
    for paths in [
        &["corpus/read/transcript/ok"][..],
        &["corpus/read/transcript/ok/plain-run.jsonl"],
        &[
            "corpus/read/transcript/err",
            "corpus/read/transcript/ok/plain-run.jsonl",
        ],
        &[empty],
    ] {
        let mut args = vec!["stats", "--json"];
        args.extend_from_slice(paths);
        let output = axt(&args, b"");
        assert_eq!(text(&output.stdout), expected(paths), "{paths:?}");
    }
}
