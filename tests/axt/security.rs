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

const AWS_SECRET: &str = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";

/// A Claude stream with partial messages whose text streams the key in three deltas, and
/// whose Bash command (input_json_delta, JSON text with the `\/` escapes a JSON encoder may
/// write) streams an AWS secret key in three more; the consolidated copies follow, as
/// Claude Code writes them.
fn partial_stream_with_secrets() -> String {
    use serde_json::json;
    let event = |event: serde_json::Value| {
        json!({"type": "stream_event", "event": event, "session_id": "s1",
            "parent_tool_use_id": null})
    };
    let text_delta = |index: u32, text: &str| {
        event(json!({"type": "content_block_delta", "index": index,
            "delta": {"type": "text_delta", "text": text}}))
    };
    let json_delta = |index: u32, partial: &str| {
        event(json!({"type": "content_block_delta", "index": index,
            "delta": {"type": "input_json_delta", "partial_json": partial}}))
    };
    let command = format!("export AWS_SECRET_ACCESS_KEY={AWS_SECRET} && make");
    let escaped = AWS_SECRET.replace('/', "\\/");
    let (a, b) = escaped.split_at(14);
    let (b, c) = b.split_at(12);
    let lines = [
        json!({"type": "system", "subtype": "init", "session_id": "s1",
            "model": "claude-sonnet-4-6", "tools": ["Bash"]}),
        event(
            json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
            "role": "assistant", "model": "claude-sonnet-4-6", "content": [],
            "usage": {"input_tokens": 1, "output_tokens": 1}}}),
        ),
        event(json!({"type": "content_block_start", "index": 0,
            "content_block": {"type": "text", "text": ""}})),
        text_delta(0, &format!("the key is {}", &KEY[..18])),
        text_delta(0, &KEY[18..34]),
        text_delta(0, &format!("{} ok", &KEY[34..])),
        event(json!({"type": "content_block_stop", "index": 0})),
        event(
            json!({"type": "content_block_start", "index": 1, "content_block":
            {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {}}}),
        ),
        json_delta(
            1,
            &format!("{{\"command\": \"export AWS_SECRET_ACCESS_KEY={a}"),
        ),
        json_delta(1, b),
        json_delta(1, &format!("{c} && make\"}}")),
        event(json!({"type": "content_block_stop", "index": 1})),
        json!({"type": "assistant", "session_id": "s1", "message": {"id": "msg_1",
            "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
            "content": [{"type": "text", "text": format!("the key is {KEY} ok")},
                {"type": "tool_use", "id": "toolu_1", "name": "Bash",
                    "input": {"command": command}}],
            "usage": {"input_tokens": 1, "output_tokens": 1}}}),
        event(
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"},
            "usage": {"output_tokens": 9}}),
        ),
        event(json!({"type": "message_stop"})),
        json!({"type": "user", "session_id": "s1", "message": {"role": "user", "content":
            [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}]}}),
        json!({"type": "result", "subtype": "success", "is_error": false, "result": "done",
            "session_id": "s1", "usage": {"input_tokens": 1, "output_tokens": 1}}),
    ];
    lines.iter().map(|line| format!("{line}\n")).collect()
}

/// Every piece of `secret` at least `min` bytes long, cut at every place: what a file must
/// not hold any of once masked.
fn pieces(secret: &str, min: usize) -> Vec<&str> {
    (0..=secret.len() - min)
        .map(|start| &secret[start..start + min])
        .collect()
}

#[test]
fn exec_redact_masks_a_key_streamed_across_partial_message_deltas_in_the_raw_output() {
    let tmp = TempDir::new("exec-redact-deltas");
    let stream = tmp.path().join("stream.jsonl");
    fs::write(&stream, partial_stream_with_secrets()).unwrap();
    let output = exec_cat(tmp.path(), "deltas", &["--redact"], &stream);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let (transcript, raw) = written(tmp.path(), "deltas");
    for (name, file) in [("transcript", &transcript), ("raw", &raw)] {
        // No piece of either secret of 10 bytes or more, anywhere.
        for piece in pieces(KEY, 10).into_iter().chain(pieces(AWS_SECRET, 10)) {
            assert!(!file.contains(piece), "{name} holds {piece:?}:\n{file}");
        }
        let escaped = AWS_SECRET.replace('/', "\\\\/");
        assert!(!file.contains(&escaped[..20]), "{name}");
    }
    // The raw copy, line for line with the output, each line still its JSON record; its
    // deltas, joined, read as the transcript reads.
    let original = fs::read_to_string(&stream).unwrap();
    assert_eq!(raw.lines().count(), original.lines().count());
    let mut joined = String::new();
    let mut arguments = String::new();
    for line in raw.lines() {
        let record: serde_json::Value = serde_json::from_str(line).unwrap();
        let delta = &record["event"]["delta"];
        joined.push_str(delta["text"].as_str().unwrap_or(""));
        arguments.push_str(delta["partial_json"].as_str().unwrap_or(""));
    }
    assert_eq!(joined, "the key is [REDACTED:anthropic_key] ok");
    let arguments: serde_json::Value = serde_json::from_str(&arguments).unwrap();
    assert_eq!(
        arguments["command"],
        "export AWS_SECRET_ACCESS_KEY=[REDACTED:aws_secret_access_key] && make"
    );
    assert!(
        transcript
            .contains("export AWS_SECRET_ACCESS_KEY=[REDACTED:aws_secret_access_key] && make")
    );
}

#[test]
fn exec_redact_sees_through_json_escapes() {
    let tmp = TempDir::new("exec-redact-escapes");
    let stream = tmp.path().join("stream.jsonl");
    // `\/` in the secret key, `\u0041` for the A of the access key id, `\u002f` for a `/`:
    // the same text as the consolidated message's, as other JSON encoders write it.
    let escaped = "wJalrXUtnFEMI\\/K7MDENG\\u002fbPxRfiCYEXAMPLEKEY";
    assert_eq!(
        escaped.replace("\\/", "/").replace("\\u002f", "/"),
        AWS_SECRET
    );
    let line = format!(
        concat!(
            r#"{{"type":"assistant","session_id":"s1","message":{{"id":"msg_1","type":"message","role":"assistant","model":"m","#,
            r#""content":[{{"type":"text","text":"aws_secret_access_key={} id \u0041KIAIOSFODNN7EXAMPLE"}}],"#,
            r#""usage":{{"input_tokens":1,"output_tokens":1}}}}}}"#
        ),
        escaped
    );
    let result = r#"{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"s1","usage":{"input_tokens":1,"output_tokens":1}}"#;
    fs::write(&stream, format!("{line}\n{result}\n")).unwrap();
    let output = exec_cat(tmp.path(), "escaped", &["--redact"], &stream);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let (transcript, raw) = written(tmp.path(), "escaped");
    for (name, file) in [("transcript", &transcript), ("raw", &raw)] {
        assert!(!file.contains("EXAMPLEKEY"), "{name}: {file}");
        assert!(!file.contains("IOSFODNN7EXAMPLE"), "{name}: {file}");
        assert!(
            file.contains("aws_secret_access_key=[REDACTED:aws_secret_access_key] id [REDACTED:aws_access_key_id]"),
            "{name}: {file}"
        );
    }
}

#[test]
fn exec_redact_masks_the_problems_it_prints() {
    let tmp = TempDir::new("exec-redact-stderr");
    let stream = tmp.path().join("stream.jsonl");
    // Lines that are not JSON, quoted in their not-json problems: one whole (the key in
    // the quote's 60 bytes), one cut (the quote ends before the key, never inside it).
    let lines = [
        format!("token {KEY}"),
        format!("[debug] starting the agent with a long prefix, token {KEY}"),
    ];
    fs::write(&stream, lines.join("\n") + "\n").unwrap();
    for (run_id, extra) in [("plain", &[][..]), ("masked", &["--redact"][..])] {
        let output = exec_cat(tmp.path(), run_id, extra, &stream);
        let stderr = text(&output.stderr);
        assert!(stderr.contains("not-json"), "{stderr}");
        assert!(
            stderr.contains("not a JSON record, skipped: \"[debug] starting the agent with a long prefix, token ...\""),
            "a quote ends between words: {stderr}"
        );
        if extra.is_empty() {
            assert!(
                stderr.contains(KEY),
                "without --redact it is quoted: {stderr}"
            );
        } else {
            for piece in pieces(KEY, 8) {
                assert!(!stderr.contains(piece), "{piece}: {stderr}");
            }
            assert!(stderr.contains("[REDACTED:anthropic_key]"), "{stderr}");
        }
    }
}

/// `axt export --redact` masks the problems it prints too: a reader's problem can quote a
/// value of the file.
#[test]
fn export_redact_masks_the_problems_it_prints() {
    let tmp = TempDir::new("export-redact-stderr");
    let file = tmp.path().join("r.jsonl");
    let lines = [
        r#"{"seq":1,"run_id":"r","type":"run.started","path":"","iteration":0,"timestamp":"2026-06-08T08:00:00Z","payload":null}"#.to_owned(),
        format!(
            r#"{{"seq":"{KEY}","run_id":"r","type":"run.completed","path":"","iteration":0,"timestamp":"2026-06-08T08:00:00Z","payload":null}}"#
        ),
    ];
    fs::write(&file, lines.join("\n") + "\n").unwrap();
    let export = |extra: &[&str]| {
        let mut args = vec!["export", file.to_str().unwrap(), "-o", "/dev/null"];
        args.extend_from_slice(extra);
        text(&axt(&args, b"").stderr)
    };
    assert!(export(&[]).contains(KEY));
    let masked = export(&["--redact"]);
    assert!(!masked.contains(KEY), "{masked}");
    assert!(
        masked.contains(r#"invalid type: string "[REDACTED:anthropic_key]", expected u64"#),
        "{masked}"
    );
}
