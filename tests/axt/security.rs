//! Every file axt writes is private and never written through a symbolic link, and masking
//! reaches every file a run writes: the transcript and the raw output.
//!
//! Modes: the transcript, the raw output, a torn-tail sidecar, an export with `-o` and the
//! runs `axt import` writes are 0600, in directories axt creates with 0700. Links: a link
//! planted where axt would create or reopen a file makes it fail, and the file the link
//! points at is untouched. Failures: a failed export write is an error naming the file.

use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};

use axt::capture::{Capture, CaptureOptions};
use axt::normalize::{ProcessEnd, Provider};
use axt::record::{RecordError, Recorder, RecorderOptions};

use super::cli::{axt, text};
use super::support::{TempDir, import_corpus};

const KEY: &str = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789";
const PASSWORD: &str = "hunter2-x9";

fn mode(path: &Path) -> u32 {
    fs::symlink_metadata(path).unwrap().permissions().mode() & 0o777
}

/// A Claude stream whose assistant message holds a key and a password.
fn stream_with_secrets() -> String {
    let assistant = serde_json::json!({
        "type": "assistant", "session_id": "s1",
        "message": {"id": "msg_1", "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-6", "stop_reason": "end_turn",
            "content": [{"type": "text",
                "text": format!("the key is {KEY} and DB_PASSWORD={PASSWORD}")}],
            "usage": {"input_tokens": 1, "output_tokens": 1}}
    });
    let init = r#"{"type":"system","subtype":"init","session_id":"s1","model":"claude-sonnet-4-6","tools":[]}"#;
    let result = r#"{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"s1","usage":{"input_tokens":1,"output_tokens":1}}"#;
    format!("{init}\n{assistant}\n{result}\n")
}

/// `axt exec -p claude --out DIR --run-id RUN EXTRA -- cat STREAM`.
fn exec_cat(dir: &Path, run_id: &str, extra: &[&str], stream: &Path) -> std::process::Output {
    let out = dir.to_str().unwrap();
    let mut args = vec!["exec", "-p", "claude", "--out", out, "--run-id", run_id];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--", "cat", stream.to_str().unwrap()]);
    axt(&args, b"")
}

fn written(dir: &Path, run_id: &str) -> (String, String) {
    let transcript = fs::read_to_string(dir.join(format!("{run_id}.jsonl"))).unwrap();
    let raw = fs::read_to_string(dir.join(format!("{run_id}.raw"))).unwrap();
    (transcript, raw)
}

#[test]
fn every_file_axt_writes_is_0600_in_directories_it_creates_0700() {
    let tmp = TempDir::new("modes");
    let stream = tmp.path().join("stream.jsonl");
    fs::write(&stream, stream_with_secrets()).unwrap();
    // exec: a new nested directory, the transcript and the raw output.
    let runs = tmp.path().join("a/b/runs");
    let output = exec_cat(&runs, "run-1", &[], &stream);
    assert!(output.status.success(), "{}", text(&output.stderr));
    for dir in [tmp.path().join("a"), tmp.path().join("a/b"), runs.clone()] {
        assert_eq!(mode(&dir), 0o700, "{}", dir.display());
    }
    assert_eq!(mode(&runs.join("run-1.jsonl")), 0o600);
    assert_eq!(mode(&runs.join("run-1.raw")), 0o600);
    // export -o, over an existing world-readable file too.
    let document = tmp.path().join("run.agentlog.json");
    fs::write(&document, "old").unwrap();
    fs::set_permissions(&document, fs::Permissions::from_mode(0o644)).unwrap();
    let run = runs.join("run-1.jsonl");
    let output = axt(
        &[
            "export",
            run.to_str().unwrap(),
            "-o",
            document.to_str().unwrap(),
        ],
        b"",
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(mode(&document), 0o600);
    assert!(fs::read_to_string(&document).unwrap().contains("run-1"));
    // import: a new directory and every run in it.
    let imported = tmp.path().join("imported");
    let session = import_corpus().join("ok/parallel-calls-results-off-their-own-calls.jsonl");
    let output = axt(
        &[
            "import",
            "claude-code",
            session.to_str().unwrap(),
            "--out",
            imported.to_str().unwrap(),
        ],
        b"",
    );
    assert!(output.status.code() != Some(2), "{}", text(&output.stderr));
    assert_eq!(mode(&imported), 0o700);
    let files: Vec<PathBuf> = fs::read_dir(&imported)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    assert!(!files.is_empty());
    for file in files {
        assert_eq!(mode(&file), 0o600, "{}", file.display());
    }
    // A torn-tail sidecar.
    let mut bytes = fs::read(&run).unwrap();
    bytes.extend_from_slice(b"{\"torn");
    fs::write(&run, bytes).unwrap();
    let rec = Recorder::create(&runs, "run-1", RecorderOptions::default()).unwrap();
    assert_eq!(mode(&rec.torn_tail().unwrap().sidecar), 0o600);
}

#[test]
fn a_symlink_planted_at_a_run_s_name_is_refused_and_its_target_untouched() {
    let tmp = TempDir::new("symlink-run");
    let target = tmp.path().join("bashrc");
    fs::write(&target, "export PATH=/usr/bin\n").unwrap();
    let dangling = tmp.path().join("nowhere");
    for (run_id, points_at) in [("run-existing", &target), ("run-dangling", &dangling)] {
        symlink(points_at, tmp.path().join(format!("{run_id}.jsonl"))).unwrap();
        let error = Recorder::create(tmp.path(), run_id, RecorderOptions::default())
            .expect_err("a link is not followed");
        assert!(matches!(error, RecordError::Io { .. }), "{error}");
    }
    assert_eq!(
        fs::read_to_string(&target).unwrap(),
        "export PATH=/usr/bin\n"
    );
    assert!(!dangling.exists(), "nothing created through the link");
}

#[test]
fn a_symlink_planted_at_the_raw_output_s_name_is_refused() {
    let tmp = TempDir::new("symlink-raw");
    let target = tmp.path().join("target");
    fs::write(&target, "keep").unwrap();
    symlink(&target, tmp.path().join("run-raw.raw")).unwrap();
    let options = CaptureOptions {
        run_id: Some("run-raw".into()),
        ..CaptureOptions::default()
    };
    let error = Capture::new(Provider::Claude, tmp.path(), options).expect_err("refused");
    assert!(error.to_string().contains("run-raw.raw"), "{error}");
    assert_eq!(fs::read_to_string(&target).unwrap(), "keep");
}

#[test]
fn a_symlink_planted_at_an_export_s_path_is_refused_and_its_target_untouched() {
    let tmp = TempDir::new("symlink-export");
    let stream = tmp.path().join("stream.jsonl");
    fs::write(&stream, stream_with_secrets()).unwrap();
    assert!(exec_cat(tmp.path(), "run-1", &[], &stream).status.success());
    let target = tmp.path().join("target");
    fs::write(&target, "keep").unwrap();
    let link = tmp.path().join("out.json");
    symlink(&target, &link).unwrap();
    let run = tmp.path().join("run-1.jsonl");
    let output = axt(
        &[
            "export",
            run.to_str().unwrap(),
            "-o",
            link.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("out.json") && stderr.contains("symbolic link"),
        "{stderr}"
    );
    assert_eq!(fs::read_to_string(&target).unwrap(), "keep");
}

#[test]
fn a_failed_export_write_is_an_error_naming_the_file() {
    let tmp = TempDir::new("export-full");
    let stream = tmp.path().join("stream.jsonl");
    fs::write(&stream, stream_with_secrets()).unwrap();
    assert!(exec_cat(tmp.path(), "run-1", &[], &stream).status.success());
    let run = tmp.path().join("run-1.jsonl");
    for target in ["agentlog", "otlp"] {
        let output = axt(
            &[
                "export",
                "--to",
                target,
                run.to_str().unwrap(),
                "-o",
                "/dev/full",
            ],
            b"",
        );
        assert_eq!(output.status.code(), Some(2), "{target}");
        let stderr = text(&output.stderr);
        assert!(
            stderr.contains("/dev/full") && stderr.contains("No space left on device"),
            "{target}: {stderr}"
        );
    }
}

#[test]
fn exec_redact_masks_credentials_in_the_transcript_and_the_raw_output() {
    let tmp = TempDir::new("exec-redact");
    let stream = tmp.path().join("stream.jsonl");
    fs::write(&stream, stream_with_secrets()).unwrap();
    // Without --redact both files hold the secrets as the agent wrote them.
    assert!(exec_cat(tmp.path(), "plain", &[], &stream).status.success());
    let (transcript, raw) = written(tmp.path(), "plain");
    assert!(transcript.contains(KEY) && raw.contains(KEY));
    assert_eq!(raw, fs::read_to_string(&stream).unwrap());

    let output = exec_cat(tmp.path(), "masked", &["--redact"], &stream);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let (transcript, raw) = written(tmp.path(), "masked");
    for file in [&transcript, &raw] {
        assert!(!file.contains(KEY) && !file.contains(PASSWORD), "{file}");
        assert!(file.contains("[REDACTED:anthropic_key]"), "{file}");
        assert!(file.contains("DB_PASSWORD=[REDACTED:password]"), "{file}");
    }
    // The raw output, masked line by line: the same lines, each still its JSON record.
    let lines: Vec<&str> = raw.lines().collect();
    assert_eq!(lines.len(), 3);
    for line in lines {
        serde_json::from_str::<serde_json::Value>(line).unwrap();
    }
}

#[test]
fn the_raw_output_is_masked_line_by_line_whatever_the_chunks() {
    let tmp = TempDir::new("raw-chunks");
    let stream = stream_with_secrets();
    let options = CaptureOptions {
        run_id: Some("run-chunks".into()),
        recorder: RecorderOptions::default().redact_credentials(),
        ..CaptureOptions::default()
    };
    let mut capture = Capture::new(Provider::Claude, tmp.path(), options).unwrap();
    // Three bytes at a time: the key is split across many feeds. The last line without
    // its LF is written at the end.
    let stream = stream.trim_end();
    for chunk in stream.as_bytes().chunks(3) {
        capture.feed(chunk).unwrap();
    }
    capture.finish(ProcessEnd::exited(0)).unwrap();
    let raw = fs::read_to_string(tmp.path().join("run-chunks.raw")).unwrap();
    let expected = axt::record::Redactor::credentials().redact(stream);
    assert_eq!(raw, expected);
    assert!(!raw.contains(KEY));
}

#[test]
fn a_capture_that_masks_events_but_not_raw_lines_refuses_to_keep_them() {
    let tmp = TempDir::new("raw-unmasked");
    let options = CaptureOptions {
        run_id: Some("run-mask".into()),
        recorder: RecorderOptions::default().mask(|_| {}),
        ..CaptureOptions::default()
    };
    let error = Capture::new(Provider::Claude, tmp.path(), options).expect_err("refused");
    assert!(error.to_string().contains("mask_raw"), "{error}");
    assert!(
        fs::read_dir(tmp.path()).unwrap().next().is_none(),
        "no file made"
    );
    // With a mask for raw lines, or without the raw copy, it records.
    let options = CaptureOptions {
        run_id: Some("run-mask".into()),
        recorder: RecorderOptions::default().mask(|_| {}).mask_raw(|_| {}),
        ..CaptureOptions::default()
    };
    Capture::new(Provider::Claude, tmp.path(), options).unwrap();
}
