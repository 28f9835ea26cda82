//! The command line, run as a user runs it.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use axt::model::Provider;

use crate::support::TempDir;

pub(crate) fn axt(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_axt"))
        .args(args)
        .current_dir(crate::support::ROOT)
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
    let path = "corpus/read/transcript/ok/plain-run.jsonl";
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
    // Pretty-printed, as an HTTP client saves it; no field of the error object says whose.
    let body = b"{\n  \"error\": {\"message\": \"Overloaded\", \"code\": 529}\n}\n";
    let output = axt(&["normalize"], body);
    assert_eq!(output.status.code(), Some(2));
    insta::assert_snapshot!(providers(&text(&output.stderr)), @"axt: -: cannot detect the provider (an error body whose error object has no field that says which provider sent it); pass --provider (PROVIDERS)");
}

/// `text` with the list of providers the command line offers (`claude|codex|...`) as
/// `PROVIDERS`, so that a snapshot does not list them again.
pub(crate) fn providers(text: &str) -> String {
    text.replace(&format!("({})", Provider::names("|")), "(PROVIDERS)")
}

/// Runs axt with stderr (and, with `close_stdout`, stdout too) going to a pipe whose reader
/// is already gone, as after `axt ... 2>&1 | head -1` once head has exited.
pub(crate) fn axt_with_closed(args: &[&str], stdin: &[u8], close_stdout: bool) -> Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let mut command = Command::new(env!("CARGO_BIN_EXE_axt"));
    command
        .args(args)
        .current_dir(crate::support::ROOT)
        .stdin(Stdio::piped())
        .stderr(writer.try_clone().unwrap());
    if close_stdout {
        command.stdout(writer);
    } else {
        drop(writer);
        command.stdout(Stdio::piped());
    }
    let mut child = command.spawn().expect("axt runs");
    let mut input = child.stdin.take().unwrap();
    let stdin = stdin.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = input.write_all(&stdin);
    });
    let output = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    output
}

/// 200 lines that are not events, with a good event before and after.
fn mostly_garbage() -> Vec<u8> {
    let event = |seq: u64| {
        format!(
            r#"{{"seq":{seq},"run_id":"r","type":"run.started","path":"","iteration":0,"timestamp":"2026-06-08T08:14:42Z","payload":null}}"#
        )
    };
    let mut input = event(1).into_bytes();
    input.push(b'\n');
    for n in 0..200 {
        input.extend_from_slice(format!("[SandboxDebug] line {n}\n").as_bytes());
    }
    input.extend_from_slice(event(2).as_bytes());
    input.push(b'\n');
    input
}

#[test]
fn a_closed_stderr_costs_neither_the_output_nor_the_exit_code() {
    let input = mostly_garbage();
    let output = axt_with_closed(&["cat", "-"], &input, false);
    assert_eq!(output.status.code(), Some(1), "problems found, not a panic");
    assert_eq!(
        text(&output.stdout).lines().count(),
        2,
        "both events written"
    );

    // normalize: the whole transcript still comes out, and the errors still count.
    let fixture = "corpus/normalize/claude/err/non-json-sandbox-banner-and-blank-line.jsonl";
    let expected = axt(&["normalize", "--run-id", "r", fixture], b"");
    let output = axt_with_closed(&["normalize", "--run-id", "r", fixture], b"", false);
    assert_eq!(output.status.code(), Some(1));
    let types = |out: &[u8]| -> Vec<String> {
        text(out)
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["type"].to_string())
            .collect()
    };
    assert_eq!(types(&output.stdout), types(&expected.stdout));
    assert_eq!(types(&output.stdout).last().unwrap(), "\"run.completed\"");

    // Both streams closed, as `2>&1 | head -1` leaves them: quiet, and no panic (101).
    for args in [
        &["cat", "-"][..],
        &["check", "-"],
        &["stats", "-"],
        &["tree", "-"],
        &["export", "-"],
        &["normalize", "-p", "claude", "-"],
    ] {
        let output = axt_with_closed(args, &input, true);
        assert!(
            matches!(output.status.code(), Some(0 | 1)),
            "{args:?}: {:?}",
            output.status
        );
    }
}

#[test]
fn text_from_the_input_is_escaped_before_it_reaches_a_terminal() {
    // A banner carrying an OSC title sequence and a CSI, as tool output can.
    let banner = "sandbox \x1b]0;PWNED\x07 ready \x1b[2J\u{202E}gpj.exe\n";
    let output = axt(&["normalize", "-p", "claude", "-"], banner.as_bytes());
    let stderr = text(&output.stderr);
    assert!(
        !stderr.contains('\x1b') && !stderr.contains('\x07'),
        "{stderr:?}"
    );
    insta::assert_snapshot!(stderr, @r#"
    -:1: byte 0: not-json: not a JSON record, skipped: "sandbox \u{1b}]0;PWNED\u{7} ready \u{1b}[2J\u{202e}gpj.exe"
    -:1: byte 39: missing-terminal: the stream ended without a result record; the run is incomplete
    -:1: byte 0: unrecognized-input: the input's only record is not claude output; the input does not look like any provider's output axt reads
    "#);

    // Names from a transcript: a tool called with an escape sequence in its name.
    let event = |seq: u64, kind: &str, payload: &str| {
        format!(
            r#"{{"seq":{seq},"run_id":"r\u001b[31m","type":"{kind}","path":"s","iteration":0,"timestamp":"2026-06-08T08:14:42Z","payload":{payload}}}"#
        ) + "\n"
    };
    let transcript = [
        event(1, "run.started", r#"{"name":"w","kind":"workflow"}"#),
        event(
            2,
            "tool.call",
            r#"{"name":"Bash\u001b]0;x\u0007","call_id":"c\u009b1","input":{},"output":null,"fidelity":"agent_emitted"}"#,
        ),
    ]
    .concat();
    let output = axt(&["tree", "-"], transcript.as_bytes());
    let stdout = text(&output.stdout);
    assert!(
        !stdout.contains('\x1b') && !stdout.contains('\u{9b}'),
        "{stdout:?}"
    );
    insta::assert_snapshot!(stdout, @r#"
    run r\u{1b}[31m w incomplete (2 events, -)
    └─ tool Bash\u{1b}]0;x\u{7} (c\u{9b}1) pending
    "#);
    let output = axt(&["stats", "-"], transcript.as_bytes());
    let stdout = text(&output.stdout);
    assert!(
        stdout.contains(r"Bash\u{1b}]0;x\u{7} 1 (0 failed)"),
        "{stdout}"
    );
}

/// One rule for every command: 2 when an input cannot be opened or read (with its path,
/// nothing on stdout), 1 when problems were found (each on stderr in the one format), 0
/// clean.
#[test]
fn every_command_exits_by_the_same_rule() {
    let transcript_commands: [&[&str]; 5] =
        [&["cat"], &["check"], &["tree"], &["stats"], &["export"]];
    let clean = "corpus/read/transcript/ok/plain-run.jsonl";
    let problems = "corpus/read/transcript/err/seq-gap.jsonl";
    for command in transcript_commands {
        let run = |file: &str| axt(&[command, &[file]].concat(), b"");

        let missing = run("no/such.jsonl");
        assert_eq!(missing.status.code(), Some(2), "{command:?}");
        assert_eq!(missing.stdout, b"", "{command:?}: no output made up");
        assert_eq!(
            text(&missing.stderr),
            "axt: no/such.jsonl: No such file or directory (os error 2)\n",
            "{command:?}"
        );

        // Every reading command takes a directory of runs (tests/axt/directories.rs), but
        // cat, which decodes one stream.
        let directory = run("corpus/read/transcript/ok");
        if command == ["cat"] {
            assert_eq!(directory.status.code(), Some(2), "{command:?}");
            assert_eq!(
                text(&directory.stderr),
                "axt: corpus/read/transcript/ok: is a directory\n",
                "{command:?}"
            );
        } else {
            assert_eq!(
                directory.status.code(),
                Some(0),
                "{command:?}: {}",
                text(&directory.stderr)
            );
        }

        let found = run(problems);
        assert_eq!(found.status.code(), Some(1), "{command:?}");
        assert_eq!(
            text(&found.stderr),
            "corpus/read/transcript/err/seq-gap.jsonl:4: byte 526: seq-gap: seq 6, expected 4: 2 missing\n",
            "{command:?}"
        );
        assert!(
            !found.stdout.is_empty(),
            "{command:?}: the valid data is still used"
        );

        let ok = run(clean);
        assert_eq!(
            (ok.status.code(), text(&ok.stderr)),
            (Some(0), String::new()),
            "{command:?}"
        );
    }

    let missing = axt(&["normalize", "no/such.jsonl"], b"");
    assert_eq!(missing.status.code(), Some(2));
    assert_eq!(
        text(&missing.stderr),
        "axt: no/such.jsonl: No such file or directory (os error 2)\n"
    );
    // A directory of agent outputs makes a run per file: not on stdout.
    let directory = axt(&["normalize", "corpus/normalize/claude"], b"");
    assert_eq!(directory.status.code(), Some(2));
    assert_eq!(
        text(&directory.stderr),
        "axt: a directory holds one run per file: give --out DIR for the transcripts \
         (stdout would mix the runs)\n"
    );
    let import = axt(
        &["import", "claude-code", "no/such", "--out", "target/unused"],
        b"",
    );
    assert_eq!(import.status.code(), Some(2));
    assert_eq!(
        text(&import.stderr),
        "axt: no/such: No such file or directory (os error 2)\n"
    );
}

/// `-` reads stdin in every command that reads a transcript; problems go to stderr in all
/// of them (`check` included), the product to stdout.
#[test]
fn dash_is_stdin_and_problems_go_to_stderr_everywhere() {
    let seq_gap = std::fs::read("corpus/read/transcript/err/seq-gap.jsonl").unwrap();
    let expected = "-:4: byte 526: seq-gap: seq 6, expected 4: 2 missing\n";
    for command in ["cat", "check", "tree", "stats", "export"] {
        let output = axt(&[command, "-"], &seq_gap);
        assert_eq!(output.status.code(), Some(1), "{command}");
        assert_eq!(text(&output.stderr), expected, "{command}");
    }
    let check = axt(&["check", "-"], &seq_gap);
    assert_eq!(
        text(&check.stdout),
        "-: 1 problem in 8 events (seq-gap 1)\n"
    );
    let tree = axt(&["tree", "-"], &seq_gap);
    assert!(
        text(&tree.stdout).starts_with("run seq-gap seq-gap completed"),
        "{}",
        text(&tree.stdout)
    );
    let export = axt(&["export", "-"], &seq_gap);
    let document: serde_json::Value = serde_json::from_slice(&export.stdout).unwrap();
    assert_eq!(document["id"], "seq-gap");
}

/// `--json` switches every command's problems to one JSON object per line on stderr.
#[test]
fn json_problems_on_every_command() {
    let garbage = b"not json\n[1]\n";
    let expected = [
        serde_json::json!({"file": "-", "line": 1, "offset": 0, "kind": "invalid-json",
            "severity": "error", "message": "expected ident at column 2"}),
        serde_json::json!({"file": "-", "line": 2, "offset": 9, "kind": "not-an-event",
            "severity": "error",
            "message": "invalid type: sequence, expected a transcript event object at column 0"}),
    ];
    for command in ["cat", "check", "tree", "stats", "export"] {
        let output = axt(&[command, "--json", "-"], garbage);
        assert_eq!(output.status.code(), Some(1), "{command}");
        let lines: Vec<serde_json::Value> = text(&output.stderr)
            .lines()
            .map(|line| {
                serde_json::from_str(line).unwrap_or_else(|e| panic!("{command}: {e}: {line}"))
            })
            .collect();
        assert_eq!(lines[..2], expected, "{command}");
    }
    let output = axt(&["normalize", "--json", "-p", "codex"], b"banner\n");
    insta::assert_snapshot!(text(&output.stderr), @r#"
    {"file":"-","line":1,"offset":0,"kind":"not-json","severity":"error","message":"not a JSON record, skipped: \"banner\""}
    {"file":"-","line":1,"offset":6,"kind":"missing-terminal","severity":"error","message":"the stream ended without a terminal record (turn.completed, turn.failed or task_complete); the run is incomplete"}
    {"file":"-","line":1,"offset":0,"kind":"unrecognized-input","severity":"error","message":"the input's only record is not codex output; the input does not look like any provider's output axt reads"}
    "#);
    let missing = axt(&["check", "--json", "no/such.jsonl"], b"");
    assert_eq!(
        text(&missing.stderr),
        r#"{"file":"no/such.jsonl","kind":"io-error","severity":"error","message":"No such file or directory (os error 2)"}"#.to_owned() + "\n"
    );
}

/// A file without a single event is not a clean transcript, and lines that are not events
/// are named, not just counted, when there is nothing to export.
#[test]
fn no_event_is_a_problem_not_a_success() {
    for input in [&b""[..], b"\n\n"] {
        let check = axt(&["check", "-"], input);
        assert_eq!(check.status.code(), Some(1));
        assert_eq!(
            text(&check.stdout),
            "-: 1 problem in 0 events (no-event 1)\n"
        );
        let tree = axt(&["tree", "-"], input);
        assert_eq!((tree.status.code(), tree.stdout.len()), (Some(1), 0));
    }
    insta::assert_snapshot!(text(&axt(&["check", "-"], b"").stderr), @"-:1: byte 0: no-event: the file is empty: no event");
    insta::assert_snapshot!(text(&axt(&["check", "-"], b"\n\n").stderr), @"-:2: byte 2: no-event: the file holds only blank lines: no event");
    insta::assert_snapshot!(text(&axt(&["tree", "-"], b"").stderr), @"-:1: byte 0: no-event: the file holds no event: there is no run to show");

    let export = axt(&["export", "-"], b"not json\n[1]\n");
    assert_eq!((export.status.code(), export.stdout.len()), (Some(1), 0));
    insta::assert_snapshot!(text(&export.stderr), @r"
    -:1: byte 0: invalid-json: expected ident at column 2
    -:2: byte 9: not-an-event: invalid type: sequence, expected a transcript event object at column 0
    -:1: byte 0: no-event: no event to export: 2 problems above
    ");
    let export = axt(&["export", "-"], b"");
    insta::assert_snapshot!(text(&export.stderr), @"-:1: byte 0: no-event: the file holds no event: nothing to export");
}

/// One directory that cannot be read costs only itself: it is reported with its path, the
/// rest is counted, and the exit code says an input could not be read.
#[test]
fn stats_counts_what_it_can_read_and_reports_the_rest() {
    let dir = TempDir::new("stats-unreadable");
    let top = dir.path().join("top");
    std::fs::create_dir_all(top.join("ok")).unwrap();
    std::fs::copy(
        "corpus/read/transcript/ok/plain-run.jsonl",
        top.join("ok/plain-run.jsonl"),
    )
    .unwrap();
    // A directory nested past PATH_MAX cannot be opened by its path, whoever runs the test
    // (a mode-000 directory would not stop root).
    let deep = format!(
        "cd '{}' && for i in $(seq 18); do mkdir {name} && cd {name}; done",
        top.display(),
        name = "d".repeat(250)
    );
    assert!(
        Command::new("bash")
            .args(["-c", &deep])
            .status()
            .unwrap()
            .success()
    );
    let output = axt(&["stats", top.to_str().unwrap()], b"");
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(
        stderr.starts_with(&format!("axt: {}/ddd", top.display()))
            && stderr.ends_with(": File name too long (os error 36)\n")
            && stderr.lines().count() == 1,
        "{stderr}"
    );
    let stdout = text(&output.stdout);
    assert!(
        stdout.starts_with(&format!(
            "{}/ok/plain-run.jsonl\n  events:   9 (",
            top.display()
        )),
        "{stdout}"
    );
}

/// `normalize --out DIR` twice used to append the second run to the first run's file
/// (which `check` then called clean): it now refuses, unless told to replace the run.
#[test]
fn normalize_out_refuses_a_run_the_directory_has() {
    let dir = TempDir::new("normalize-twice");
    let out = dir.path().to_str().unwrap();
    let fixture = "corpus/normalize/claude/ok/plain-session-thinking-text-bash.jsonl";
    let path = dir
        .path()
        .join("cd613e30-d8f1-4adf-81b7-584a2265b1f5.jsonl");
    let first = axt(&["normalize", "--out", out, fixture], b"");
    assert_eq!(first.status.code(), Some(0));
    let written = std::fs::read(&path).unwrap();

    let again = axt(&["normalize", "--out", out, fixture], b"");
    assert_eq!(again.status.code(), Some(2));
    assert_eq!(
        text(&again.stderr),
        format!(
            "axt: {}: run cd613e30-d8f1-4adf-81b7-584a2265b1f5 already exists; pass --replace to overwrite it\n",
            path.display()
        )
    );
    assert_eq!(std::fs::read(&path).unwrap(), written, "left as it was");

    let replaced = axt(&["normalize", "--out", out, "--replace", fixture], b"");
    assert_eq!(replaced.status.code(), Some(0));
    let check = axt(&["check", path.to_str().unwrap()], b"");
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stderr));
    assert!(text(&check.stdout).ends_with(": ok: 10 events\n"));

    // What the old behaviour left behind is now a problem for check, and its calls,
    // recorded twice, a warning.
    let twice = axt(
        &["check", "corpus/read/transcript/err/second-run.jsonl"],
        b"",
    );
    assert_eq!(twice.status.code(), Some(1));
    insta::assert_snapshot!(text(&twice.stderr), @r#"
    corpus/read/transcript/err/second-run.jsonl:9: byte 1701: second-run: run.started after the run.completed of line 8: a second run's events are appended to this file
    corpus/read/transcript/err/second-run.jsonl:12: byte 2241: repeated-call: warning: call id "b-1" has a second tool.call of fidelity agent_emitted; one is expected per channel, so it counts as another call
    "#);
}

/// `claude -p ... | axt normalize`: each event is on stdout as soon as its record is
/// complete, while the agent is still running (here: a stdin that stops after the tool
/// call's record and stays open).
#[test]
fn normalize_on_a_pipe_is_live() {
    use std::io::BufRead;
    use std::sync::mpsc;
    use std::time::{Duration, Instant};

    let fixture =
        std::fs::read("corpus/normalize/claude/ok/plain-session-thinking-text-bash.jsonl").unwrap();
    let lines: Vec<&[u8]> = fixture.split_inclusive(|b| *b == b'\n').collect();
    let mut child = Command::new(env!("CARGO_BIN_EXE_axt"))
        .args(["normalize", "-p", "claude", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (send, events) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            let event: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
            if send
                .send(event["type"].as_str().unwrap().to_owned())
                .is_err()
            {
                break;
            }
        }
    });
    let mut stdin = child.stdin.take().unwrap();
    // Up to and including the record of the Bash call (line 7), then a pause.
    for line in &lines[..7] {
        stdin.write_all(line).unwrap();
    }
    stdin.flush().unwrap();
    let started = Instant::now();
    let mut seen = Vec::new();
    while !seen.iter().any(|t| t == "tool.call") {
        let event = events
            .recv_timeout(Duration::from_secs(20))
            .unwrap_or_else(|_| {
                panic!("nothing more within 20 s while the input paused: {seen:?}")
            });
        seen.push(event);
    }
    assert!(started.elapsed() < Duration::from_secs(20));
    assert_eq!(
        seen,
        [
            "run.started",
            "step.started",
            "message.assistant",
            "message.assistant",
            "message.assistant",
            "tool.call"
        ]
    );
    assert!(
        child.try_wait().unwrap().is_none(),
        "axt is still waiting for input"
    );
    for line in &lines[7..] {
        stdin.write_all(line).unwrap();
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    reader.join().unwrap();
    seen.extend(events.try_iter());
    assert_eq!(seen.len(), 10, "{seen:?}");
}

/// Completions and manual pages come from the same definitions as --help: every command is
/// in each (a new command that is missing from them fails here).
#[test]
fn completions_and_man_pages_cover_every_command() {
    let commands = [
        "normalize",
        "cat",
        "exec",
        "proxy",
        "check",
        "ls",
        "show",
        "tree",
        "stats",
        "import",
        "usage",
        "export",
        "view",
        "completions",
        "man",
    ];
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let output = axt(&["completions", shell], b"");
        assert_eq!(output.status.code(), Some(0), "{shell}");
        let script = text(&output.stdout);
        for command in commands {
            assert!(script.contains(command), "{shell}: no {command}");
        }
        // The stores `axt import` takes are values of its first argument: the shells whose
        // completions list a positional's values offer them.
        if matches!(shell, "bash" | "zsh") {
            assert!(script.contains("claude-code"), "{shell}: the stores too");
        }
    }

    let page = axt(&["man"], b"");
    assert_eq!(page.status.code(), Some(0));
    let page = text(&page.stdout);
    assert!(page.contains(".TH axt 1"), "{page}");
    for command in commands {
        assert!(
            page.contains(&format!("axt\\-{command}(1)")),
            "axt.1 lists {command}"
        );
    }
    assert!(!page.contains("axt\\-help(1)"), "no page to point at");

    let dir = TempDir::new("man");
    let out = dir.path().join("man1");
    let written = axt(&["man", "--out", out.to_str().unwrap()], b"");
    assert_eq!(written.status.code(), Some(0), "{}", text(&written.stderr));
    let mut pages: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    pages.sort();
    let mut expected: Vec<String> = commands.iter().map(|c| format!("axt-{c}.1")).collect();
    // `axt import` names its store as a value, not a subcommand: no page of its own.
    expected.push("axt.1".to_owned());
    expected.sort();
    assert_eq!(pages, expected);
    let normalize = std::fs::read_to_string(out.join("axt-normalize.1")).unwrap();
    for option in [
        "provider",
        "run\\-id",
        "max\\-record\\-bytes",
        "out",
        "replace",
        "json",
    ] {
        assert!(
            normalize.contains(&format!("\\-\\-{option}")),
            "axt-normalize.1: --{option}"
        );
    }
}

/// `--color` is obeyed in axt's own messages and clap's; `never` is the default off a
/// terminal.
#[test]
fn color_always_and_never() {
    let problem = "corpus/read/transcript/err/seq-gap.jsonl";
    let coloured = axt(&["--color", "always", "check", problem], b"");
    assert_eq!(
        text(&coloured.stderr),
        "\x1b[1mcorpus/read/transcript/err/seq-gap.jsonl:4: byte 526:\x1b[0m \x1b[31mseq-gap\x1b[0m: seq 6, expected 4: 2 missing\n"
    );
    let plain = axt(&["check", "--color=never", problem], b"");
    assert!(!text(&plain.stderr).contains('\x1b'));
    let piped = axt(&["check", problem], b"");
    assert_eq!(
        piped.stderr, plain.stderr,
        "auto: stderr is not a terminal here"
    );

    let usage = axt(&["--color", "always", "frobnicate"], b"");
    assert_eq!(usage.status.code(), Some(2));
    assert!(
        text(&usage.stderr).contains("\x1b["),
        "clap's error is coloured too"
    );
    let usage = axt(&["--color", "never", "frobnicate"], b"");
    assert!(!text(&usage.stderr).contains('\x1b'));
}

/// `--quiet` drops notices (`wrote ...`), not problems.
#[test]
fn quiet_drops_notices_not_problems() {
    let dir = TempDir::new("quiet");
    let out = dir.path().to_str().unwrap();
    let fixture = "corpus/normalize/claude/ok/dangling-tool-use-interrupted.jsonl";
    let output = axt(&["normalize", "-q", "--out", out, fixture], b"");
    assert_eq!(output.status.code(), Some(0));
    insta::assert_snapshot!(text(&output.stderr), @"corpus/normalize/claude/ok/dangling-tool-use-interrupted.jsonl:5: byte 2808: dangling-tool-use: warning: tool_use Bash (toolu_01FRIBXuDL7DxtpYlSXpfKtH) never received a result");
}

/// On a terminal (a pseudo-terminal from `script`): axt says it is waiting for stdin rather
/// than hang silently, and colours its messages unless NO_COLOR is set.
#[test]
fn on_a_terminal_stdin_is_announced_and_no_color_is_honoured() {
    let run = |no_color: bool| {
        let mut command = Command::new("script");
        command
            .args([
                "-qec",
                &format!("{} check -", env!("CARGO_BIN_EXE_axt")),
                "/dev/null",
            ])
            .stdin(Stdio::null());
        if no_color {
            command.env("NO_COLOR", "1");
        } else {
            command.env_remove("NO_COLOR");
        }
        let output = command.output().expect("script (util-linux) runs");
        text(&output.stdout).replace("\r\n", "\n")
    };
    assert_eq!(
        run(false),
        concat!(
            "axt: reading from stdin (a terminal); end the input with Ctrl-D\n",
            "\x1b[1m-:1: byte 0:\x1b[0m \x1b[31mno-event\x1b[0m: the file is empty: no event\n",
            "-: 1 problem in 0 events (no-event 1)\n",
        )
    );
    assert_eq!(
        run(true),
        concat!(
            "axt: reading from stdin (a terminal); end the input with Ctrl-D\n",
            "-:1: byte 0: no-event: the file is empty: no event\n",
            "-: 1 problem in 0 events (no-event 1)\n",
        )
    );
}

/// A progress bar is drawn on a terminal only, and never with --quiet.
#[test]
fn import_shows_a_progress_bar_on_a_terminal_only() {
    let dir = TempDir::new("import-progress");
    let on_a_terminal = |extra: &str, out: &str| {
        let command = format!(
            "{} import claude-code corpus/import/claude-code/ok --out {out} {extra}",
            env!("CARGO_BIN_EXE_axt")
        );
        let output = Command::new("script")
            .args(["-qec", &command, "/dev/null"])
            .current_dir(crate::support::ROOT)
            .stdin(Stdio::null())
            .output()
            .expect("script (util-linux) runs");
        text(&output.stdout)
    };
    let out = dir.path().join("a");
    let shown = on_a_terminal("", out.to_str().unwrap());
    // A frame of the bar was drawn; which ones depends on timing (indicatif draws at most
    // 20 a second and the bar is cleared at the end, so under load the last frame, 13/13,
    // may never be drawn before it goes).
    assert!(shown.contains("/13 sessions ("), "{shown:?}");
    assert!(
        shown.contains("axt: 13 sessions, 25 runs, 339 events written to"),
        "{shown:?}"
    );

    let out = dir.path().join("b");
    let quiet = on_a_terminal("--quiet", out.to_str().unwrap());
    // Problems (here the kept-out warnings) are still said; the bar and summary are not.
    assert!(
        !quiet.contains("sessions (") && !quiet.contains("written to"),
        "{quiet:?}"
    );
    assert_eq!(quiet.matches("kept-out").count(), 7, "{quiet:?}");

    let out = dir.path().join("c");
    let piped = axt(
        &[
            "import",
            "claude-code",
            "corpus/import/claude-code/ok",
            "--out",
            out.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(piped.status.code(), Some(0));
    assert!(
        !text(&piped.stderr).contains('\r')
            && text(&piped.stderr).contains("axt: 13 sessions, 25 runs"),
        "no bar in a pipe"
    );
}

/// import reports notes and entry errors in the one format (notes carry only a line; their
/// byte offset is found in the file), then one summary, and exits 1 for the errors.
#[test]
fn import_reports_in_the_one_format() {
    let dir = TempDir::new("import-format");
    let out = dir.path().to_str().unwrap();
    let output = axt(
        &[
            "import",
            "claude-code",
            "corpus/import/claude-code/err",
            "--out",
            out,
        ],
        b"",
    );
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr).replace(out, "OUT");
    insta::assert_snapshot!(stderr, @r#"
    corpus/import/claude-code/err/compaction-logical-parent-outside-file/6294ba3c-2804-5866-afc5-6039c8a18395.jsonl:9: byte 5431: compaction-fallback: warning: logicalParentUuid a860ea13-af07-53f1-af61-ac2a744d1978 is not in the file; the thread goes on in file order, from line 8
    corpus/import/claude-code/err/dynamic-workflow-agent-transcript-missing-2.1/2e82ad63-8170-51aa-9500-7252372078a0/subagents/workflows/wf_dw01/journal.jsonl:1: byte 0: missing-subagent: warning: workflow agent "dwag0002": its transcript agent-dwag0002.jsonl is missing
    corpus/import/claude-code/err/empty-session-log.jsonl:1: byte 0: not-a-session-log: the file is empty
    corpus/import/claude-code/err/stream-json-not-a-session-log.jsonl:1: byte 0: not-a-session-log: this is stream-json output (`claude -p --output-format stream-json`: `session_id`, no `sessionId` or `parentUuid`); read it with `axt normalize --provider claude`
    corpus/import/claude-code/err/torn-line-orphan-result-unlinked-sidechain.jsonl:1: byte 0: unlinked-subagent: warning: sub-agent "e5f60718": no Task/Agent call names it or sent its prompt; linked to the session's end
    corpus/import/claude-code/err/torn-line-orphan-result-unlinked-sidechain.jsonl:3: byte 1237: invalid-json: record ends inside its JSON: EOF while parsing a string at column 151
    corpus/import/claude-code/err/torn-line-orphan-result-unlinked-sidechain.jsonl:4: byte 1239: orphan-tool-result: tool_result for "toolu_01NeverSeen", a tool call never seen
    corpus/import/claude-code/err/workflow-agent-log-nested-in-subagents/eda2d9ad-f6fa-5306-9bae-3869e22a7fd6/subagents/workflows/wf_01/journal.jsonl:1: byte 0: unfinished-workflow: warning: workflow "wf_01" has no snapshot workflows/wf_01.json: still running, or ended unrecorded; its run is incomplete
    axt: 6 sessions, 10 runs, 109 events written to OUT; 2 failed, 2 entry errors; notes: compaction 1, compaction-fallback 1, missing-subagent 1, unfinished-workflow 1, unlinked-subagent 1
    "#);
}
