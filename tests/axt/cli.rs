//! The command line, run as a user runs it.

use std::io::Write;
use std::process::{Command, Output, Stdio};

pub(crate) fn axt(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_axt"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("axt runs");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

pub(crate) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn cat_reproduces_a_canonical_transcript_byte_for_byte() {
    let path = "corpus/transcript/ok/plain-run.jsonl";
    let output = axt(&["cat", path], b"");
    assert_eq!(text(&output.stderr), "");
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(output.stdout, std::fs::read(path).unwrap());
}

#[test]
fn cat_reports_bad_lines_keeps_good_ones_and_exits_1() {
    let input = concat!(
        r#"{"seq":1,"run_id":"r","type":"run.started","path":"","iteration":0,"timestamp":"2026-06-08T08:14:42Z","payload":null}"#,
        "\r\n",
        "[SandboxDebug] not json\n",
        "\n",
        r#"{"seq":2,"run_id":"r","type":"run.paused","path":"","iteration":0,"timestamp":"2026-06-08T08:14:43Z","payload":null}"#,
        "\n",
        r#"{"seq":3,"run_id":"r","type":"run.completed","path":"","itera"#,
    );
    let output = axt(&["cat", "-"], input.as_bytes());
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stdout),
        concat!(
            r#"{"seq":1,"run_id":"r","type":"run.started","path":"","iteration":0,"timestamp":"2026-06-08T08:14:42Z","payload":null}"#,
            "\n",
            r#"{"seq":2,"run_id":"r","type":"run.paused","path":"","iteration":0,"timestamp":"2026-06-08T08:14:43Z","payload":null}"#,
            "\n",
        )
    );
    insta::assert_snapshot!(text(&output.stderr), @r#"
    -:2: byte 119: invalid-json: expected value at column 2
    -:4: byte 144: unknown-event-type: unknown event type "run.paused"
    -:5: byte 261: torn-final-line: EOF while parsing a string at column 61
    "#);
}

#[test]
fn missing_file_is_an_io_error_with_exit_2() {
    let output = axt(&["cat", "no/such/file.jsonl"], b"");
    assert_eq!(output.status.code(), Some(2));
    insta::assert_snapshot!(text(&output.stderr), @"axt: no/such/file.jsonl: No such file or directory (os error 2)");
}

#[test]
fn usage_error_exits_2() {
    let output = axt(&["frobnicate"], b"");
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("unrecognized subcommand 'frobnicate'"));
}

#[test]
fn a_closed_stdout_is_not_an_error() {
    let mut input = Vec::new();
    for seq in 1..=20_000 {
        input.extend_from_slice(format!(
            r#"{{"seq":{seq},"run_id":"r","type":"step.started","path":"p","iteration":0,"timestamp":"2026-06-08T08:14:42Z","payload":{{"name":"p","kind":"agent"}}}}"#
        ).as_bytes());
        input.push(b'\n');
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_axt"))
        .args(["cat", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    drop(child.stdout.take()); // the reader goes away, as `| head` does
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert_eq!(text(&output.stderr), "");
    assert_eq!(output.status.code(), Some(0));
}

#[test]
fn normalize_says_why_an_error_only_body_names_no_provider() {
    let anthropic =
        br#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
    let output = axt(&["normalize"], anthropic);
    assert_eq!(output.status.code(), Some(2));
    insta::assert_snapshot!(text(&output.stderr), @"axt: -: cannot detect the provider (an Anthropic API error body, which no adapter reads); pass --provider (claude|codex|gemini|copilot|openai)");
}
