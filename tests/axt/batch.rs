//! Batches on every core: `axt normalize` over several inputs or a directory writes the
//! same runs and prints the same lines, in the same order, whatever the number of workers,
//! and each run is what normalizing its input alone writes; `axt stats` prints each file's
//! counts as it is counted, and its JSON is still the library's whole report; `axt
//! import` of every store and the library's import of every store's sessions in one batch
//! write and say what one worker does; `axt export --to otlp`, written span by span as
//! trees are done, is the library's one request of every span.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use axt::export::otlp::{BatchOptions, encode, export_on};
use axt::import::incremental::{self, Options as ImportOptions};
use axt::import::write::Mode;
use axt::import::{Found, Store};
use axt::model::Provider;

use crate::cli::{axt, text};
use crate::support::{TempDir, normalize_corpus, walk};

const CLOCK: &str = "fixed:2026-06-08T08:14:42Z";

/// Every fixture of every provider's corpus that `axt normalize DIR` reads, copied into
/// `dir` named so that the directory's order is the corpus's (providers in registry order).
fn every_fixture(dir: &Path) -> Vec<PathBuf> {
    let mut copied = Vec::new();
    for provider in Provider::ALL {
        let corpus = normalize_corpus(provider);
        for fixture in walk(&corpus) {
            let wanted = fixture
                .extension()
                .is_some_and(|e| ["jsonl", "json", "sse"].iter().any(|x| e == *x));
            if !wanted {
                continue;
            }
            let relative = fixture.strip_prefix(&corpus).unwrap();
            let name = format!(
                "{:04}-{provider}-{}",
                copied.len(),
                relative.display().to_string().replace('/', "-")
            );
            let to = dir.join(name);
            std::fs::copy(&fixture, &to).unwrap();
            copied.push(to);
        }
    }
    copied
}

/// What a batch gave: its exit status, its stderr and the runs it wrote (each run's file,
/// in the order its `wrote` line was printed), with `out` written `OUT` and each run id
/// (some inputs have none of their own: theirs is a fresh UUID each time) written
/// `RUN<n>`, n its run's place in that order.
struct Batch {
    status: Option<i32>,
    stderr: String,
    runs: Vec<String>,
}

fn batch(status: Option<i32>, stderr: &str, out: &Path) -> Batch {
    let out_name = out.to_str().unwrap();
    let ids: Vec<String> = stderr
        .lines()
        .filter_map(|line| line.strip_prefix(&format!("axt: wrote {out_name}/")))
        .map(|file| file.strip_suffix(".jsonl").unwrap().to_owned())
        .collect();
    let placeholders = |text: &str| {
        let mut text = text.replace(out_name, "OUT");
        for (n, id) in ids.iter().enumerate() {
            text = text.replace(id.as_str(), &format!("RUN{n}"));
        }
        text
    };
    let runs = ids
        .iter()
        .map(|id| placeholders(&std::fs::read_to_string(out.join(format!("{id}.jsonl"))).unwrap()))
        .collect();
    let written = std::fs::read_dir(out).map_or(0, |dir| dir.count());
    assert_eq!(written, ids.len(), "a wrote line for each run written");
    Batch {
        status,
        stderr: placeholders(stderr),
        runs,
    }
}

/// Asserts two batches are the same, naming the first difference (not printing both).
fn assert_same(theirs: &Batch, ours: &Batch, what: &str) {
    assert_eq!(theirs.status, ours.status, "{what}: exit status");
    let first_difference = |a: &str, b: &str| {
        let line = a.lines().zip(b.lines()).position(|(a, b)| a != b);
        let line = line.unwrap_or(a.lines().count().min(b.lines().count()));
        format!(
            "line {}: {:?} vs {:?}",
            line + 1,
            a.lines().nth(line),
            b.lines().nth(line)
        )
    };
    assert!(
        theirs.stderr == ours.stderr,
        "{what}: stderr differs at {}",
        first_difference(&theirs.stderr, &ours.stderr)
    );
    assert_eq!(theirs.runs.len(), ours.runs.len(), "{what}: runs written");
    for (n, (a, b)) in theirs.runs.iter().zip(&ours.runs).enumerate() {
        assert!(
            a == b,
            "{what}: run {n} differs at {}",
            first_difference(a, b)
        );
    }
}

fn normalize_batch(tmp: &Path, jobs: Option<&str>, out: &str, inputs: &[&str]) -> Batch {
    let out = tmp.join(out);
    let mut args = vec![
        "normalize",
        "--clock",
        CLOCK,
        "--out",
        out.to_str().unwrap(),
    ];
    if let Some(jobs) = jobs {
        args.extend(["--jobs", jobs]);
    }
    args.extend_from_slice(inputs);
    let output = axt(&args, b"");
    batch(output.status.code(), &text(&output.stderr), &out)
}

#[test]
fn normalize_of_every_fixture_on_every_core_writes_and_prints_what_one_worker_does() {
    let tmp = TempDir::new("batch-normalize");
    let input = tmp.path().join("in");
    std::fs::create_dir(&input).unwrap();
    let fixtures = every_fixture(&input);
    let input = input.to_str().unwrap();
    let one = normalize_batch(tmp.path(), Some("1"), "one", &[input]);
    assert_eq!(one.status, Some(2), "some fixtures cannot be detected");
    assert!(
        one.runs.len() > fixtures.len() / 2,
        "{} runs of {} inputs",
        one.runs.len(),
        fixtures.len()
    );
    let four = normalize_batch(tmp.path(), Some("4"), "four", &[input]);
    assert_same(&four, &one, "four workers");
    let every_core = normalize_batch(tmp.path(), None, "every-core", &[input]);
    assert_same(&every_core, &one, "one worker per core (the default)");

    // The same as each input normalized alone, one after another.
    let alone = tmp.path().join("alone");
    let mut stderr = String::new();
    let mut worst = 0;
    for fixture in &fixtures {
        let single = axt(
            &[
                "normalize",
                "--clock",
                CLOCK,
                "--out",
                alone.to_str().unwrap(),
                fixture.to_str().unwrap(),
            ],
            b"",
        );
        worst = worst.max(single.status.code().unwrap());
        stderr.push_str(&text(&single.stderr));
    }
    assert_same(
        &batch(Some(worst), &stderr, &alone),
        &one,
        "each input alone",
    );
}

/// `axt normalize --jobs 2 --replace --out <tmp>/piped` started on two FIFOs,
/// `<tmp>/in/a.jsonl` and `b.jsonl`, which the test then writes as it means to.
struct Piped {
    a: PathBuf,
    b: PathBuf,
    out: PathBuf,
    child: std::process::Child,
}

fn normalize_two_fifos(tmp: &Path) -> Piped {
    let input = tmp.join("in");
    std::fs::create_dir(&input).unwrap();
    let (a, b) = (input.join("a.jsonl"), input.join("b.jsonl"));
    for fifo in [&a, &b] {
        assert!(Command::new("mkfifo").arg(fifo).status().unwrap().success());
    }
    let out = tmp.join("piped");
    let child = Command::new(env!("CARGO_BIN_EXE_axt"))
        .args([
            "normalize",
            "--jobs",
            "2",
            "--clock",
            CLOCK,
            "--replace",
            "--out",
        ])
        .args([&out, &a, &b])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    Piped { a, b, out, child }
}

/// The same inputs as files (each FIFO replaced by a file of its text), normalized by one
/// worker into `<tmp>/files`: what `--jobs 1` writes and says, and where.
fn normalize_as_files_on_one_worker(
    tmp: &Path,
    inputs: [(&Path, &str); 2],
) -> (std::process::Output, PathBuf) {
    for (fifo, text) in inputs {
        std::fs::remove_file(fifo).unwrap();
        std::fs::write(fifo, text).unwrap();
    }
    let files = tmp.join("files");
    let [(a, _), (b, _)] = inputs;
    let one = axt(
        &[
            "normalize",
            "--jobs",
            "1",
            "--clock",
            CLOCK,
            "--replace",
            "--out",
            files.to_str().unwrap(),
            a.to_str().unwrap(),
            b.to_str().unwrap(),
        ],
        b"",
    );
    (one, files)
}

/// Two inputs of one run (a session's output given twice), the earlier a pipe still being
/// written: the later, another pipe, is read and transcribed meanwhile (its events held
/// until the earlier is done, not its worker waiting idle: before, its writer blocked once
/// the pipe and the reader's chunks were full), and what is written and said is what one
/// worker writes and says of the same inputs as files.
#[test]
fn normalize_transcribes_an_input_of_a_run_still_being_written_meanwhile_real_fifo() {
    let tmp = TempDir::new("batch-one-run");
    let fixture = normalize_corpus("claude").join("ok/plain-session-thinking-text-bash.jsonl");
    let earlier = std::fs::read_to_string(&fixture).unwrap();
    let (first_line, rest) = earlier.split_at(earlier.find('\n').unwrap() + 1);
    let thinking = earlier
        .lines()
        .find(|line| line.contains("\"thinking_tokens\""))
        .unwrap();
    // Larger than the pipe and the reader's chunks together, as the same session, the
    // filler after the first tool result (its events are out by then).
    let result_end = earlier.find("\"type\":\"user\"").unwrap();
    let result_end = result_end + earlier[result_end..].find('\n').unwrap() + 1;
    let (head, tail) = earlier.split_at(result_end);
    let later = format!("{head}{}{tail}", format!("{thinking}\n").repeat(8_000));
    assert!(later.len() > 1 << 20);
    let Piped { a, b, out, child } = normalize_two_fifos(tmp.path());
    let mut writing_a = std::fs::OpenOptions::new().write(true).open(&a).unwrap();
    writing_a.write_all(first_line.as_bytes()).unwrap();
    let (written, written_b) = mpsc::channel();
    let later_text = later.clone();
    let b_path = b.clone();
    let writer_b = std::thread::spawn(move || {
        let mut writing_b = std::fs::OpenOptions::new()
            .write(true)
            .open(&b_path)
            .unwrap();
        writing_b.write_all(later_text.as_bytes()).unwrap();
        drop(writing_b);
        let _ = written.send(());
    });
    let b_read_meanwhile = written_b.recv_timeout(Duration::from_secs(20));
    // Whatever came, let the command finish: the rest of the earlier input, then its end.
    writing_a.write_all(rest.as_bytes()).unwrap();
    drop(writing_a);
    writer_b.join().unwrap();
    let piped = child.wait_with_output().unwrap();
    b_read_meanwhile.expect("the later input read while the earlier was still being written");

    let (one, files) = normalize_as_files_on_one_worker(tmp.path(), [(&a, &earlier), (&b, &later)]);
    assert_eq!(piped.status.code(), one.status.code());
    let stderr = text(&piped.stderr).replace(out.to_str().unwrap(), "OUT");
    assert_eq!(
        stderr,
        text(&one.stderr).replace(files.to_str().unwrap(), "OUT")
    );
    // One run, written by each input in turn: the later's is what stays.
    let run = "cd613e30-d8f1-4adf-81b7-584a2265b1f5.jsonl";
    assert_eq!(
        stderr.matches(&format!("wrote OUT/{run}")).count(),
        2,
        "{stderr}"
    );
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 1);
    let written = std::fs::read_to_string(out.join(run)).unwrap();
    assert!(written == std::fs::read_to_string(files.join(run)).unwrap());
}

/// A later input of another run, begun while the earlier had not yet named its run: its
/// events are held, and written once the earlier claims its own (the held events asked
/// again as they double), not only at the later input's end; what is written and said is
/// what one worker writes and says of the same inputs as files.
#[test]
fn normalize_writes_a_held_input_once_the_earlier_names_its_run_real_fifo() {
    let tmp = TempDir::new("batch-held-claimed");
    let fixture = normalize_corpus("claude").join("ok/plain-session-thinking-text-bash.jsonl");
    let earlier = std::fs::read_to_string(&fixture).unwrap();
    let earlier_run = "cd613e30-d8f1-4adf-81b7-584a2265b1f5";
    let later_run = "0b0b0b0b-d8f1-4adf-81b7-584a2265b1f5";
    let later = earlier.replace(earlier_run, later_run);
    let line_end = |text: &str, lines: usize| {
        text.match_indices('\n')
            .nth(lines - 1)
            .map(|(at, _)| at + 1)
            .unwrap()
    };
    // A run's first events come with its first assistant line, the fifth: the run's
    // start, its step's and a message. The later input's first five lines are three events
    // held (asked again at two); its next three, four events more (asked again at four,
    // once the earlier's first five lines have named the earlier's run).
    let (later_head, later_rest) = later.split_at(line_end(&later, 5));
    let (later_middle, later_tail) = later_rest.split_at(line_end(later_rest, 3));
    let (earlier_head, earlier_rest) = earlier.split_at(line_end(&earlier, 5));
    let Piped { a, b, out, child } = normalize_two_fifos(tmp.path());
    let mut writing_a = std::fs::OpenOptions::new().write(true).open(&a).unwrap();
    let mut writing_b = std::fs::OpenOptions::new().write(true).open(&b).unwrap();
    writing_b.write_all(later_head.as_bytes()).unwrap();
    // The later input's first events held while the earlier has named nothing (a moment
    // for its worker to read them; were it slower, they are claimed at once: no harm).
    std::thread::sleep(Duration::from_millis(300));
    writing_a.write_all(earlier_head.as_bytes()).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    writing_b.write_all(later_middle.as_bytes()).unwrap();
    let later_file = out.join(format!("{later_run}.jsonl"));
    let mut waited = Duration::ZERO;
    while !later_file.exists() && waited < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(20));
        waited += Duration::from_millis(20);
    }
    let written_meanwhile = later_file.exists();
    // Whatever came, let the command finish.
    writing_b.write_all(later_tail.as_bytes()).unwrap();
    writing_a.write_all(earlier_rest.as_bytes()).unwrap();
    drop((writing_a, writing_b));
    let piped = child.wait_with_output().unwrap();
    assert!(
        written_meanwhile,
        "the later input's run written while both inputs were still open"
    );

    let (one, files) = normalize_as_files_on_one_worker(tmp.path(), [(&a, &earlier), (&b, &later)]);
    assert_eq!(piped.status.code(), one.status.code());
    assert_eq!(
        text(&piped.stderr).replace(out.to_str().unwrap(), "OUT"),
        text(&one.stderr).replace(files.to_str().unwrap(), "OUT")
    );
    for run in [earlier_run, later_run] {
        let name = format!("{run}.jsonl");
        let written = std::fs::read_to_string(out.join(&name)).unwrap();
        assert!(written == std::fs::read_to_string(files.join(&name)).unwrap());
    }
}

#[test]
fn normalize_of_several_files_says_each_in_the_order_given() {
    let tmp = TempDir::new("batch-normalize-files");
    let corpus = |provider: Provider, name: &str| {
        normalize_corpus(provider)
            .join(name)
            .to_str()
            .unwrap()
            .to_owned()
    };
    let truncated = corpus(Provider::Claude, "err/truncated-last-line.jsonl");
    let corrupt = corpus(Provider::Claude, "err/corrupt-json-record-mid-stream.jsonl");
    let codex = corpus(Provider::Codex, "ok/commands-failed-and-declined.jsonl");
    let order = [&truncated, &codex, &corrupt];
    let given = normalize_batch(tmp.path(), Some("3"), "given", &order.map(String::as_str));
    assert_eq!(given.status, Some(1), "{}", given.stderr);
    assert_eq!(given.runs.len(), 3, "{}", given.stderr);
    let at = |name: &str| given.stderr.find(name).unwrap();
    assert!(
        at(&truncated) < at("RUN0") && at("RUN0") < at("RUN1") && at("RUN1") < at(&corrupt),
        "{}",
        given.stderr
    );
}

#[test]
fn normalize_refuses_several_inputs_without_out_with_one_run_id_or_with_stdin() {
    let fixture =
        normalize_corpus(Provider::Claude).join("ok/plain-session-thinking-text-bash.jsonl");
    let fixture = fixture.to_str().unwrap();
    let refused = |args: &[&str], message: &str| {
        let output = axt(args, b"");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert_eq!(
            text(&output.stderr),
            format!("axt: {message}\n"),
            "{args:?}"
        );
        assert!(output.stdout.is_empty());
    };
    refused(
        &["normalize", fixture, fixture],
        "several inputs are a run each: give --out DIR for the transcripts (stdout would mix \
         the runs)",
    );
    refused(
        &[
            "normalize",
            "--out",
            "/nonexistent",
            "--run-id",
            "r",
            fixture,
            fixture,
        ],
        "--run-id names one run: several inputs each get their own",
    );
    refused(
        &["normalize", "--out", "/nonexistent", fixture, "-"],
        "stdin (`-`) is one input: give it alone",
    );
}

/// The library's whole report of `paths`, pretty-printed, as `axt stats --json` promises.
fn library_report(paths: &[&str]) -> String {
    use axt::read::{Reader, Stats, StatsReport, transcript_files};

    let paths: Vec<PathBuf> = paths.iter().map(PathBuf::from).collect();
    let (files, failed) = transcript_files(&paths);
    assert!(failed.is_empty());
    let mut report = StatsReport::default();
    for file in files {
        let mut stats = Stats::default();
        stats.files = 1;
        let mut reader = Reader::open(&file).unwrap();
        for item in reader.by_ref() {
            stats.item(&item);
        }
        stats.end_of_file(reader.position());
        report.add(file.display().to_string(), stats);
    }
    format!("{}\n", serde_json::to_string_pretty(&report).unwrap())
}

/// `axt stats` keeps only the total and prints each file's counts as it is counted; its
/// JSON is still byte for byte the library's whole `StatsReport`, pretty-printed.
#[test]
fn stats_json_printed_file_by_file_is_the_whole_report() {
    let empty = TempDir::new("stats-empty");
    let empty = empty.path().to_str().unwrap();
    let costs = crate::support::read_corpus();
    let costs = costs.to_str().unwrap();
    for paths in [
        &["corpus/read/transcript/ok"][..],
        &["corpus/read/transcript/ok/plain-run.jsonl"],
        &[
            "corpus/read/transcript/err",
            "corpus/read/transcript/ok/plain-run.jsonl",
        ],
        &[costs],
        &[empty],
    ] {
        let mut args = vec!["stats", "--json"];
        args.extend_from_slice(paths);
        let output = Command::new(env!("CARGO_BIN_EXE_axt"))
            .args(&args)
            .current_dir(crate::support::ROOT)
            .env_remove("AXT_PRICES")
            .env("XDG_CONFIG_HOME", "/nonexistent")
            .output()
            .unwrap();
        assert_eq!(text(&output.stdout), library_report(paths), "{paths:?}");
    }
}

/// A directory of many transcripts, counted by files and jobs of consecutive files: every
/// transcript of the read corpus (costs reported and estimated, problems of every kind)
/// copied 16 times, names sorted so that the copies interleave, and one file larger than a
/// job's bytes in the middle. Returns how many files it wrote.
fn many_transcripts(dir: &Path) -> usize {
    let mut corpus: Vec<PathBuf> = walk(&crate::support::read_corpus())
        .into_iter()
        .filter(|path| path.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    corpus.sort();
    for round in 0..16 {
        for (n, path) in corpus.iter().enumerate() {
            let name = path.file_name().unwrap().to_str().unwrap();
            std::fs::copy(path, dir.join(format!("{round:02}-{n:02}-{name}"))).unwrap();
        }
    }
    let plain = std::fs::read(crate::support::read_corpus().join("ok/plain-run.jsonl")).unwrap();
    std::fs::write(dir.join("08-large.jsonl"), plain.repeat(500)).unwrap();
    16 * corpus.len() + 1
}

/// `axt stats` over a directory of many transcripts prints, on one worker, two, four and
/// one per core, the same stdout, stderr and exit status, text and JSON; and its JSON is the
/// library's whole report of the files counted one after another (the total's sums added
/// in the files' order, as floating point needs to give the same figures).
#[test]
fn stats_on_every_core_prints_what_one_worker_does() {
    let tmp = TempDir::new("stats-many");
    let files = many_transcripts(tmp.path());
    let dir = tmp.path().to_str().unwrap();
    for json in [false, true] {
        let run = |jobs: Option<&str>| {
            let mut args = vec!["stats", dir];
            if json {
                args.push("--json");
            }
            if let Some(jobs) = jobs {
                args.extend(["--jobs", jobs]);
            }
            let output = Command::new(env!("CARGO_BIN_EXE_axt"))
                .args(&args)
                .env_remove("AXT_PRICES")
                .env("XDG_CONFIG_HOME", "/nonexistent")
                .output()
                .unwrap();
            (output.status.code(), output.stderr, output.stdout)
        };
        let one = run(Some("1"));
        assert_eq!(
            one.0,
            Some(1),
            "json {json}: the corpus's problems are found"
        );
        assert!(
            text(&one.1).contains("00-00-invalid-json.jsonl"),
            "{}",
            text(&one.1)
        );
        for jobs in [Some("2"), Some("4"), None] {
            let many = run(jobs);
            assert_eq!(many.0, one.0, "json {json}, --jobs {jobs:?}: exit");
            assert!(
                many.1 == one.1,
                "json {json}, --jobs {jobs:?}: stderr differs"
            );
            assert!(
                many.2 == one.2,
                "json {json}, --jobs {jobs:?}: stdout differs"
            );
        }
        if json {
            assert_eq!(text(&one.2), library_report(&[dir]));
        } else {
            let total = format!("total ({files} files)");
            assert!(text(&one.2).contains(&total), "{}", text(&one.2));
        }
    }
}

/// Real FIFO: the second file is a named pipe nobody writes to yet, so it cannot be counted;
/// the first file's counts are on stdout meanwhile (the old command printed nothing before
/// every file was counted, holding every file's counts).
#[test]
fn stats_prints_a_files_counts_before_the_next_is_read_real_fifo() {
    let tmp = TempDir::new("stats-fifo");
    let fifo = tmp.path().join("later.jsonl");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let first = "corpus/read/transcript/ok/plain-run.jsonl";
    let mut child = Command::new(env!("CARGO_BIN_EXE_axt"))
        .args(["stats", first, fifo.to_str().unwrap()])
        .current_dir(crate::support::ROOT)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let (send, receive) = mpsc::channel();
    let reading = std::thread::spawn(move || {
        let mut seen = Vec::new();
        let mut buffer = [0u8; 4096];
        loop {
            let n = stdout.read(&mut buffer).unwrap();
            if n == 0 {
                break;
            }
            seen.extend_from_slice(&buffer[..n]);
            if seen.windows(10).any(|w| w == b"problems: ") {
                let _ = send.send(seen.clone());
            }
        }
        seen
    });
    let early = receive.recv_timeout(Duration::from_secs(20));
    // Whatever came, let the command finish: write the pipe's transcript and close it.
    let mut writer = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    writer
        .write_all(&std::fs::read(Path::new(crate::support::ROOT).join(first)).unwrap())
        .unwrap();
    drop(writer);
    let all = reading.join().unwrap();
    let status = child.wait().unwrap();
    let early = early.expect("the first file's counts, printed before the pipe was written");
    assert!(
        text(&early).starts_with(&format!("{first}\n  events:")),
        "{}",
        text(&early)
    );
    assert!(!text(&early).contains("later.jsonl"), "{}", text(&early));
    assert_eq!(status.code(), Some(0));
    assert!(text(&all).contains("total (2 files)"), "{}", text(&all));
}

/// Every `export` over a directory of many runs (every fixture normalized, and linked
/// trees: a nested one, a loop, an orphan, a wrong parent): AgentLog and OTLP, on one
/// worker, four, and one per core, print and write the same bytes; AgentLog's `-o FILE` is
/// its stdout.
#[test]
fn export_of_many_runs_on_every_core_is_what_one_worker_writes() {
    let tmp = TempDir::new("batch-export");
    let input = tmp.path().join("in");
    std::fs::create_dir(&input).unwrap();
    every_fixture(&input);
    let runs = tmp.path().join("runs");
    let normalized = axt(
        &[
            "normalize",
            "--clock",
            CLOCK,
            "--out",
            runs.to_str().unwrap(),
            input.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(normalized.status.code(), Some(2));
    for linked in ["ok/nested", "err/links"] {
        let dir = Path::new(crate::support::ROOT)
            .join("corpus/read/transcript")
            .join(linked);
        for file in walk(&dir) {
            std::fs::copy(&file, runs.join(file.file_name().unwrap())).unwrap();
        }
    }
    let runs = runs.to_str().unwrap();
    for to in ["agentlog", "otlp"] {
        let export = |jobs: Option<&str>, output: Option<&Path>| {
            let mut args = vec!["export", "--to", to];
            if let Some(jobs) = jobs {
                args.extend(["--jobs", jobs]);
            }
            if let Some(output) = output {
                args.extend(["-o", output.to_str().unwrap()]);
            }
            args.push(runs);
            let output = axt(&args, b"");
            (output.status.code(), text(&output.stderr), output.stdout)
        };
        let one = export(Some("1"), None);
        assert_eq!(
            one.0,
            Some(1),
            "{to}: the err fixtures' problems: {}",
            one.1
        );
        assert!(one.2.len() > 100_000, "{to}: {} bytes", one.2.len());
        for jobs in [Some("4"), None] {
            let many = export(jobs, None);
            assert_eq!(many.0, one.0, "{to} --jobs {jobs:?}: exit");
            assert!(many.1 == one.1, "{to} --jobs {jobs:?}: stderr differs");
            assert!(many.2 == one.2, "{to} --jobs {jobs:?}: stdout differs");
        }
        let file = tmp.path().join(format!("{to}.json"));
        let to_file = export(None, Some(&file));
        assert_eq!((to_file.0, &to_file.1), (one.0, &one.1), "{to} -o");
        assert!(
            std::fs::read(&file).unwrap() == one.2,
            "{to} -o: the file is stdout"
        );
    }
}

/// Every file under `dir`, by its path below it, with its bytes (`dir` written `OUT`).
fn files_under(dir: &Path) -> Vec<(String, String)> {
    let out = dir.to_str().unwrap();
    if !dir.exists() {
        return Vec::new();
    }
    walk(dir)
        .into_iter()
        .map(|file| {
            let name = file.strip_prefix(dir).unwrap().display().to_string();
            let bytes = std::fs::read(&file).unwrap();
            (name, String::from_utf8_lossy(&bytes).replace(out, "OUT"))
        })
        .collect()
}

/// `axt import STORE CORPUS` of every store whose corpus directory it reads as one
/// batch (every store in the registry but OpenCode, whose store is one database a
/// session of its corpus): one worker, two, and one per core write the same files and
/// print the same lines, in the same order.
#[test]
fn import_of_every_store_on_every_core_is_what_one_worker_writes() {
    let tmp = TempDir::new("batch-import");
    let mut batches = 0;
    for store in Store::ALL {
        let corpus = crate::support::root()
            .join("corpus/import")
            .join(store.as_str());
        let import = |jobs: Option<&str>| {
            let out = tmp
                .path()
                .join(format!("{store}-{}", jobs.unwrap_or("all")));
            let mut args = vec!["import", store.as_str(), corpus.to_str().unwrap()];
            args.extend(["--out", out.to_str().unwrap()]);
            if let Some(jobs) = jobs {
                args.extend(["--jobs", jobs]);
            }
            let output = axt(&args, b"");
            let stderr = text(&output.stderr).replace(out.to_str().unwrap(), "OUT");
            (output.status.code(), stderr, files_under(&out))
        };
        let one = import(Some("1"));
        if one.2.is_empty() {
            assert_eq!(
                store,
                Store::OpenCode,
                "{store}: nothing imported: {}",
                one.1
            );
            continue;
        }
        batches += 1;
        assert!(one.2.len() >= 4, "{store}: {} files", one.2.len());
        for jobs in [Some("2"), None] {
            let many = import(jobs);
            assert_eq!(many.0, one.0, "{store} --jobs {jobs:?}: exit");
            assert_eq!(many.1, one.1, "{store} --jobs {jobs:?}: stderr");
            assert!(many.2 == one.2, "{store} --jobs {jobs:?}: the files differ");
        }
    }
    assert_eq!(batches, Store::ALL.len() - 1);
}

/// The library's import of every session of every store's corpus (OpenCode's databases
/// and files too) in one batch: on four workers, what is handed over, in what order, and
/// what is written are one worker's; `import` is `import_each`'s outcomes collected.
#[test]
fn library_import_of_every_stores_sessions_in_one_batch_is_what_one_worker_does() {
    let mut sessions: Vec<Found> = Vec::new();
    for store in Store::ALL {
        for outcome in ["ok", "err"] {
            let dir = crate::support::root()
                .join("corpus/import")
                .join(store.as_str())
                .join(outcome);
            let mut fixtures: Vec<PathBuf> = std::fs::read_dir(&dir)
                .unwrap()
                .map(|entry| entry.unwrap().path())
                .collect();
            fixtures.sort();
            for fixture in fixtures {
                sessions.extend(store.discover(&fixture).unwrap_or_default());
            }
        }
    }
    let tmp = TempDir::new("batch-import-library");
    // Fixtures of one store may be the same session (OpenCode's share their ids): their
    // runs go to them in their order, on any number of workers.
    let stores: std::collections::BTreeSet<Store> = sessions.iter().map(|f| f.store).collect();
    assert_eq!(stores.len(), Store::ALL.len(), "a session of every store");
    let import = |jobs: usize| {
        let out = tmp.path().join(format!("jobs-{jobs}"));
        let options = ImportOptions {
            mode: Mode::Replace,
            jobs,
            since: None,
            settle: None,
        };
        let progress = std::sync::Mutex::new(Vec::new());
        let mut handed = Vec::new();
        incremental::import_each(
            &sessions,
            &out,
            &options,
            &|done, total| progress.lock().unwrap().push((done, total)),
            &mut |outcome| handed.push(format!("{outcome:?}")),
        )
        .unwrap();
        let handed: Vec<String> = handed
            .into_iter()
            .map(|h| h.replace(out.to_str().unwrap(), "OUT"))
            .collect();
        (handed, progress.into_inner().unwrap(), files_under(&out))
    };
    let one = import(1);
    let total = sessions.len();
    assert_eq!(one.0.len(), total, "one outcome a session");
    let counted: Vec<(usize, usize)> = (1..=total).map(|done| (done, total)).collect();
    assert_eq!(one.1, counted);
    let four = import(4);
    assert_eq!(four.0, one.0, "the outcomes, in order");
    assert_eq!(four.1, counted, "progress counts up once a session");
    assert!(four.2 == one.2, "the files written differ");
    let out = tmp.path().join("collected");
    let options = ImportOptions {
        mode: Mode::Replace,
        jobs: 4,
        since: None,
        settle: None,
    };
    let collected = incremental::import(&sessions, &out, &options, &|_, _| {}).unwrap();
    let collected: Vec<String> = collected
        .iter()
        .map(|outcome| format!("{outcome:?}").replace(out.to_str().unwrap(), "OUT"))
        .collect();
    assert_eq!(collected, one.0);
}

/// `axt export --to otlp` over many trees (every fixture normalized; nested, looping and
/// orphaned links), written span by span as each tree is done, is byte for byte the
/// library's one request of every span (`export_on`, to_json): the streaming writer
/// leaves no span out, doubles none and frames them as one request does.
#[test]
fn otlp_written_tree_by_tree_is_one_request_of_every_span() {
    let tmp = TempDir::new("batch-otlp-stream");
    let input = tmp.path().join("in");
    std::fs::create_dir(&input).unwrap();
    every_fixture(&input);
    let runs = tmp.path().join("runs");
    let args = [
        "normalize",
        "--clock",
        CLOCK,
        "--out",
        runs.to_str().unwrap(),
    ];
    axt(&[&args[..], &[input.to_str().unwrap()]].concat(), b"");
    for linked in ["ok/nested", "err/links"] {
        let dir = crate::support::read_corpus().join(linked);
        for file in walk(&dir) {
            std::fs::copy(&file, runs.join(file.file_name().unwrap())).unwrap();
        }
    }
    let library = export_on(std::slice::from_ref(&runs), &BatchOptions::default(), 1).unwrap();
    assert!(library.spans.len() > 1000, "{} spans", library.spans.len());
    let whole = encode::to_json(&encode::request(&library.spans));
    for jobs in ["1", "2"] {
        let args = [
            "export",
            "--to",
            "otlp",
            "--jobs",
            jobs,
            runs.to_str().unwrap(),
        ];
        let output = axt(&args, b"");
        assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
        assert!(
            output.stdout == whole,
            "--jobs {jobs}: not the library's request"
        );
    }
    let mut written = encode::JsonSpans::new(Vec::new());
    for span in &library.spans {
        written.span(span).unwrap();
    }
    assert!(written.finish().unwrap() == whole);
    // Encoded apart (as the workers do, a tree at a time; here chunks of uneven sizes, an
    // empty one among them) and written as text: the same request.
    let text = encode::SpanText::new();
    let mut written = encode::JsonSpans::with_text(Vec::new(), text.clone());
    let (mut from, mut size) = (0, 0);
    while from < library.spans.len() {
        let chunk = &library.spans[from..(from + size).min(library.spans.len())];
        let encoded = text.spans(chunk).unwrap();
        written.encoded(&encoded, chunk.len() as u64).unwrap();
        (from, size) = (from + chunk.len(), size + 7);
    }
    assert!(written.finish().unwrap() == whole, "encoded apart");
    let none = encode::JsonSpans::new(Vec::new()).finish().unwrap();
    assert_eq!(none, encode::to_json(&encode::request(&[])));
}
