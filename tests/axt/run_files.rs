//! What is at a run's path, and who else has the run: axt records only into a regular
//! file of its own user, made 0600, opened without following a link or waiting on a FIFO;
//! and a run another process is recording is neither replaced nor removed, by
//! `normalize --out --replace` or `import --replace`.
//!
//! The files are real: a real FIFO (`mkfifo`), a real device node and a real file of
//! another user where the test runs as root (`mknod`, `chown`; skipped with the reason
//! otherwise), real modes; the other recorder holds the run's real `flock` from this test
//! process while the `axt` command runs as a process of its own.

use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use axt::model::{EventType, ExchangeEvent, Payload};
use axt::record::{RecordError, Recorder, RecorderOptions};

use crate::cli::text;
use crate::support::{TempDir, import_corpus, normalize_corpus};

const FIXTURE: &str = "ok/plain-session-thinking-text-bash.jsonl";

fn fixture() -> PathBuf {
    normalize_corpus("claude").join(FIXTURE)
}

fn mode(path: &Path) -> u32 {
    fs::symlink_metadata(path).unwrap().permissions().mode() & 0o7777
}

fn is_root() -> bool {
    fs::metadata("/proc/self").is_ok_and(|meta| meta.uid() == 0)
}

/// Runs `axt ARGS`; fails the test (killing it) when it is still running after 20 s.
fn axt_within(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_axt"))
        .args(args)
        .current_dir(crate::support::ROOT)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("axt runs");
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() >= deadline {
            let _ = child.kill();
            let output = child.wait_with_output().unwrap();
            panic!(
                "axt {args:?} hung (killed after 20 s); stderr: {}",
                text(&output.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// `axt normalize --out DIR --run-id RUN FIXTURE`.
fn normalize_out(dir: &Path, run_id: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "normalize",
        "--out",
        dir.to_str().unwrap(),
        "--run-id",
        run_id,
    ];
    args.extend_from_slice(extra);
    let fixture = fixture();
    args.push(fixture.to_str().unwrap());
    axt_within(&args)
}

/// `axt exec -p claude --out DIR --run-id RUN -- cat FIXTURE`.
fn exec_out(dir: &Path, run_id: &str) -> Output {
    let fixture = fixture();
    axt_within(&[
        "exec",
        "-p",
        "claude",
        "--out",
        dir.to_str().unwrap(),
        "--run-id",
        run_id,
        "--",
        "cat",
        fixture.to_str().unwrap(),
    ])
}

fn check(path: &Path) -> Output {
    axt_within(&["check", path.to_str().unwrap()])
}

#[test]
fn a_planted_empty_world_readable_run_file_is_taken_over_and_made_0600() {
    let tmp = TempDir::new("planted-empty");
    for run_id in ["by-normalize", "by-exec"] {
        let path = tmp.path().join(format!("{run_id}.jsonl"));
        fs::write(&path, "").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o666)).unwrap();
        let output = if run_id == "by-exec" {
            exec_out(tmp.path(), run_id)
        } else {
            normalize_out(tmp.path(), run_id, &[])
        };
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        assert_eq!(mode(&path), 0o600, "{run_id}");
        assert_eq!(check(&path).status.code(), Some(0), "{run_id}");
    }
}

#[test]
fn a_fifo_planted_at_a_run_s_path_is_refused_at_once() {
    let tmp = TempDir::new("planted-fifo");
    let path = tmp.path().join("run-fifo.jsonl");
    let made = Command::new("mkfifo").arg(&path).status().unwrap();
    assert!(made.success());
    // Nobody reads it: a recorder that opened it for writing without O_NONBLOCK would
    // wait, and one that wrote would hand the transcript to whoever opens it later.
    let output = normalize_out(tmp.path(), "run-fifo", &[]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stderr),
        format!(
            "axt: {}: is a FIFO, not a regular file; axt records only into a regular file\n",
            path.display()
        )
    );
    let output = exec_out(tmp.path(), "run-fifo");
    assert!(
        text(&output.stderr).contains("is a FIFO, not a regular file"),
        "{}",
        text(&output.stderr)
    );
    assert!(fs::symlink_metadata(&path).unwrap().file_type().is_fifo());
}

#[test]
#[allow(clippy::print_stderr)]
fn a_device_node_planted_at_a_run_s_path_is_refused() {
    if !is_root() {
        eprintln!("SKIPPED: making a device node (mknod) needs root");
        return;
    }
    let tmp = TempDir::new("planted-device");
    let path = tmp.path().join("run-device.jsonl");
    // A node of /dev/null's numbers: it would swallow every line and report success.
    let made = Command::new("mknod")
        .args([path.to_str().unwrap(), "c", "1", "3"])
        .status()
        .unwrap();
    assert!(made.success());
    let output = normalize_out(tmp.path(), "run-device", &[]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stderr),
        format!(
            "axt: {}: is a character device, not a regular file; axt records only into a \
             regular file\n",
            path.display()
        )
    );
    let error = Recorder::create(tmp.path(), "run-device", RecorderOptions::default())
        .expect_err("refused");
    assert!(
        matches!(error, RecordError::NotARegularFile { what, .. } if what == "a character device")
    );
}

#[test]
#[allow(clippy::print_stderr)]
fn a_run_file_of_another_user_is_refused() {
    if !is_root() {
        eprintln!("SKIPPED: giving a file to another user (chown) needs root");
        return;
    }
    let tmp = TempDir::new("planted-other-user");
    let path = tmp.path().join("run-theirs.jsonl");
    fs::write(&path, "").unwrap();
    std::os::unix::fs::chown(&path, Some(65534), Some(65534)).unwrap();
    let output = normalize_out(tmp.path(), "run-theirs", &[]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stderr),
        format!(
            "axt: {}: belongs to user 65534, not to this process's user; axt records only \
             into its user's own files\n",
            path.display()
        )
    );
    assert_eq!(fs::read(&path).unwrap(), b"", "nothing written to it");
}

/// A recorder in this process, holding the run's lock, with `run.started` written.
fn recording(dir: &Path, run_id: &str) -> Recorder {
    let recorder = Recorder::create(dir, run_id, RecorderOptions::default()).unwrap();
    let started = ExchangeEvent::new(run_id, EventType::RunStarted, "", Payload::None);
    recorder.record(started).unwrap();
    recorder
}

#[test]
fn normalize_replace_refuses_a_run_another_process_is_recording() {
    let tmp = TempDir::new("replace-busy");
    let live = recording(tmp.path(), "live");
    let path = live.path().to_owned();
    let output = normalize_out(tmp.path(), "live", &["--replace"]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stderr),
        format!(
            "axt: {}: another recorder is writing this run; it cannot be continued or \
             replaced until that one ends\n",
            path.display()
        )
    );
    // The live run goes on in its file: nothing removed, nothing of the other run in it.
    let ended = ExchangeEvent::new("live", EventType::RunCompleted, "", Payload::None);
    live.record(ended).unwrap();
    live.close().unwrap();
    let lines: Vec<String> = fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(|line| {
            let event: serde_json::Value = serde_json::from_str(line).unwrap();
            format!("{} {}", event["seq"], event["type"].as_str().unwrap())
        })
        .collect();
    assert_eq!(lines, ["1 run.started", "2 run.completed"]);

    // Once it has ended, --replace replaces it, and without --replace it is refused.
    let output = normalize_out(tmp.path(), "live", &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).ends_with("run live already exists; pass --replace to overwrite it\n"),
        "{}",
        text(&output.stderr)
    );
    let output = normalize_out(tmp.path(), "live", &["--replace"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(check(&path).status.code(), Some(0));
    assert!(fs::read_to_string(&path).unwrap().lines().count() > 2);
}

#[test]
fn import_replace_refuses_a_run_another_process_is_recording() {
    let tmp = TempDir::new("import-replace-busy");
    let session = import_corpus().join("ok/parallel-calls-results-off-their-own-calls.jsonl");
    let import = |extra: &[&str]| {
        let mut args = vec![
            "import",
            "claude-code",
            session.to_str().unwrap(),
            "--out",
            tmp.path().to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        axt_within(&args)
    };
    let first = import(&[]);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let run = fs::read_dir(tmp.path())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.extension().is_some_and(|e| e == "jsonl"))
        .unwrap();
    let before = fs::read(&run).unwrap();
    let run_id = run.file_stem().unwrap().to_str().unwrap().to_owned();
    // Another process continues the imported run (a recorder reopening it).
    let live = Recorder::create(tmp.path(), &run_id, RecorderOptions::default()).unwrap();
    let output = import(&["--replace"]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    assert!(
        text(&output.stderr).contains(&format!(
            "{}: another recorder is writing this run; it cannot be continued or replaced",
            run.display()
        )),
        "{}",
        text(&output.stderr)
    );
    assert_eq!(fs::read(&run).unwrap(), before, "the run is untouched");
    drop(live);
    let output = import(&["--replace"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(
        fs::read(&run).unwrap(),
        before,
        "replaced by the same import"
    );
}
