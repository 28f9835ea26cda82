//! Live capture: `axt exec` around a stand-in agent, and the library's `Capture` seen by a
//! subscriber while the agent runs.
//!
//! The stand-in, `support/replay-agent.py`, replays a corpus fixture on stdout in pieces
//! (every line split across writes, optionally with delays), and can wait for a signal file,
//! kill itself mid-record, or close its stdout and keep running.

use std::fs;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use axt::capture::{Capture, CaptureOptions};
use axt::model::{EventType, decode_event};
use axt::normalize::{Diagnostic, Options, ProcessEnd, Provider};
use axt::record::Delivery;
use axt::transcribe::{EventOptions, EventSink, Transcriber};
use axt::{ExchangeEvent, Payload};
use serde_json::Value;

use super::cli::{axt, axt_with_closed, text};
use super::support::{self, PROVIDER_INPUTS, TempDir, normalize_corpus, replay_agent};

/// A fixture by name: `ok/foo` is `ok/foo.jsonl`; a name with an extension is taken as is.
fn fixture(provider: Provider, name: &str) -> String {
    let path = normalize_corpus(provider).join(name);
    let path = if Path::new(name).extension().is_some() {
        path
    } else {
        path.with_extension("jsonl")
    };
    path.to_str().unwrap().to_owned()
}

/// `axt exec --provider P --out DIR --run-id RUN EXTRA... -- python3 replay-agent.py AGENT...`
fn exec(provider: Provider, dir: &Path, run_id: &str, extra: &[&str], agent: &[&str]) -> Output {
    let dir = dir.to_str().unwrap();
    let agent_script = replay_agent();
    let mut args = vec![
        "exec",
        "--provider",
        provider.as_str(),
        "--out",
        dir,
        "--run-id",
        run_id,
    ];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--", "python3", &agent_script]);
    args.extend_from_slice(agent);
    axt(&args, b"")
}

/// A transcript's events as JSON, timestamps removed, after checking every line decodes
/// and `seq` counts from 1.
/// The events, without what differs between two recordings of the same output: the times,
/// and the durations the scopes measure (`payload.duration_ms` of a live step and run;
/// a run's metadata keeps the provider's own `result.duration_ms`).
pub(crate) fn events_without_timestamps(jsonl: &[u8]) -> Vec<Value> {
    let text = std::str::from_utf8(jsonl).expect("a transcript is UTF-8");
    text.lines()
        .enumerate()
        .map(|(at, line)| {
            let event = decode_event(line.as_bytes())
                .unwrap_or_else(|error| panic!("line {}: {error}: {line}", at + 1));
            assert_eq!(event.seq, at as u64 + 1, "{line}");
            let mut value: Value = serde_json::from_str(line).unwrap();
            value.as_object_mut().unwrap().remove("timestamp");
            if let Some(payload) = value["payload"].as_object_mut() {
                payload.remove("duration_ms");
            }
            value
        })
        .collect()
}

fn transcript(dir: &Path, run_id: &str) -> Vec<Value> {
    let path = dir.join(format!("{run_id}.jsonl"));
    events_without_timestamps(&fs::read(&path).unwrap_or_else(|e| panic!("{path:?}: {e}")))
}

/// The corpus fixtures of one provider, ok and err, with their extension (`ok/foo.sse`):
/// line-framed JSONL, SSE streams and multi-line JSON bodies alike.
fn fixtures(provider: Provider) -> Vec<String> {
    support::fixtures(&normalize_corpus(provider), &PROVIDER_INPUTS)
        .iter()
        .map(|fixture| fixture.id().to_owned())
        .collect()
}

#[test]
fn live_transcripts_equal_normalize_for_every_fixture_of_every_provider() {
    for provider in Provider::ALL {
        let names = fixtures(provider);
        assert!(!names.is_empty(), "{provider}: no fixtures");
        let dir = TempDir::new(&format!("exec-eq-{provider}"));
        std::thread::scope(|scope| {
            for (at, name) in names.iter().enumerate() {
                let dir = dir.path();
                scope.spawn(move || {
                    let path = fixture(provider, name);
                    let run_id = format!("run-{at}");
                    // The shared scenario goes slowly, the others as fast as the pipe allows.
                    let delay = if name.contains("shared-scenario") {
                        "2"
                    } else {
                        "0"
                    };
                    let agent = [path.as_str(), "--splits", "3", "--delay-ms", delay];
                    let live = exec(provider, dir, &run_id, &[], &agent);
                    let normalized = axt(
                        &[
                            "normalize",
                            "--provider",
                            provider.as_str(),
                            "--run-id",
                            &run_id,
                            &path,
                        ],
                        b"",
                    );
                    // The agent exits 0: axt says 1 when the output had errors (as
                    // normalize does) or the run did not complete (cut off, empty).
                    let events = events_without_timestamps(&normalized.stdout);
                    let completed = last(&events)["payload"]["result"]["status"] == "completed";
                    let expected = if normalized.status.code() == Some(0) && completed {
                        0
                    } else {
                        1
                    };
                    assert_eq!(
                        live.status.code(),
                        Some(expected),
                        "{provider} {name}: {}",
                        text(&live.stderr)
                    );
                    assert_eq!(
                        transcript(dir, &run_id),
                        events_without_timestamps(&normalized.stdout),
                        "{provider} {name}"
                    );
                    let raw = fs::read(dir.join(format!("{run_id}.raw"))).unwrap();
                    assert!(
                        raw == fs::read(&path).unwrap(),
                        "{provider} {name}: raw output kept verbatim"
                    );
                });
            }
        });
    }
}

fn last(events: &[Value]) -> &Value {
    events.last().expect("a transcript has events")
}

/// A system prompt alone is still told apart from a prompt: by its flag, not its place.
#[test]
fn a_system_prompt_alone_is_flagged_not_taken_for_the_prompt() {
    let provider = Provider::Claude;
    let dir = TempDir::new("exec-system-prompt");
    let path = fixture(provider, "ok/shared-scenario-shell-command");
    let output = exec(
        provider,
        dir.path(),
        "r",
        &["--system-prompt", "Be brief."],
        &[&path],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let events = transcript(dir.path(), "r");
    assert_eq!(
        events[2]["payload"]["blocks"],
        serde_json::json!([
            {"type": "text", "fidelity": "router", "text": "Be brief.", "system_prompt": true},
        ])
    );
}

#[test]
fn a_prompt_and_system_prompt_open_the_run_as_router_blocks() {
    let provider = Provider::Claude;
    let dir = TempDir::new("exec-prompt");
    let path = fixture(provider, "ok/shared-scenario-shell-command");
    let prompt = [
        "--prompt",
        "How many Rust files?",
        "--system-prompt",
        "Be brief.",
    ];
    let output = exec(provider, dir.path(), "r", &prompt, &[&path]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let events = transcript(dir.path(), "r");
    assert_eq!(events[2]["type"], "message.user");
    assert_eq!(events[2]["path"], "agent");
    assert_eq!(
        events[2]["payload"],
        serde_json::json!({"role": "user", "blocks": [
            {"type": "text", "fidelity": "router", "text": "How many Rust files?"},
            {"type": "text", "fidelity": "router", "text": "Be brief.", "system_prompt": true},
        ]})
    );
    // Apart from it, the run is what normalize makes of the output.
    let normalized = axt(&["normalize", "--run-id", "r", &path], b"");
    let mut expected = events_without_timestamps(&normalized.stdout);
    for (at, event) in expected.iter_mut().enumerate().skip(2) {
        event["seq"] = Value::from(at as u64 + 2);
    }
    let mut without_prompt = events.clone();
    without_prompt.remove(2);
    assert_eq!(without_prompt, expected);
}

#[test]
fn a_child_killed_mid_record_is_a_failed_run_with_the_reason() {
    let provider = Provider::Claude;
    let dir = TempDir::new("exec-killed");
    let path = fixture(provider, "ok/shared-scenario-shell-command");
    let agent = [
        path.as_str(),
        "--kill-self-after-line",
        "3",
        "--cut-line-at",
        "25",
    ];
    let output = exec(provider, dir.path(), "r", &[], &agent);
    assert_eq!(output.status.code(), Some(137), "128 + SIGKILL");
    let events = transcript(dir.path(), "r");
    let end = last(&events);
    assert_eq!(end["type"], "run.completed");
    insta::assert_snapshot!(end["payload"]["error"].as_str().unwrap(), @"the agent was killed by signal 9 (SIGKILL); the output ended before the run's terminal record");
    assert_eq!(end["payload"]["result"]["status"], "failed");
    assert_eq!(
        end["payload"]["result"]["process"],
        serde_json::json!({"signal": 9})
    );
    // The raw output holds every byte the agent wrote, the torn record included.
    let fixture_bytes = fs::read(&path).unwrap();
    let three_lines: usize = fixture_bytes
        .split_inclusive(|b| *b == b'\n')
        .take(3)
        .map(<[u8]>::len)
        .sum();
    let raw = fs::read(dir.path().join("r.raw")).unwrap();
    assert_eq!(raw, fixture_bytes[..three_lines + 25]);
}

#[test]
fn a_stream_without_its_terminal_event_is_an_incomplete_run() {
    let provider = Provider::Codex;
    let dir = TempDir::new("exec-incomplete");
    let path = fixture(provider, "ok/no-terminal-event");
    let output = exec(provider, dir.path(), "r", &[], &[&path]);
    // Issue 24: the agent exited 0, but its output was cut off: not a quiet success.
    assert_eq!(output.status.code(), Some(1));
    let events = transcript(dir.path(), "r");
    let end = last(&events);
    assert_eq!(end["type"], "run.completed");
    assert_eq!(end["payload"]["result"]["status"], "incomplete");
    // Unless the caller asked for the agent's code alone.
    let again = exec(provider, dir.path(), "r2", &["--agent-exit-code"], &[&path]);
    assert_eq!(again.status.code(), Some(0));
    insta::assert_snapshot!(end["payload"]["error"].as_str().unwrap(), @"incomplete: the output ended before the run's terminal record");
}

#[test]
fn a_child_that_closes_stdout_and_keeps_running_is_killed_after_the_grace_period() {
    let provider = Provider::Gemini;
    let dir = TempDir::new("exec-lingers");
    let path = fixture(provider, "ok/shared-scenario-shell-command");
    let started = Instant::now();
    let agent = [path.as_str(), "--close-and-sleep", "60"];
    let output = exec(provider, dir.path(), "r", &["--grace-secs", "1"], &agent);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "axt did not wait for the agent"
    );
    assert_eq!(output.status.code(), Some(137));
    let events = transcript(dir.path(), "r");
    let end = last(&events);
    insta::assert_snapshot!(end["payload"]["error"].as_str().unwrap(), @"the agent closed its stdout but was still running 1 s later; axt killed it: the agent was killed by signal 9 (SIGKILL)");
    assert_eq!(
        end["payload"]["result"]["process"]["note"],
        "the agent closed its stdout but was still running 1 s later; axt killed it"
    );
}

#[test]
fn the_exit_code_propagates_stderr_is_forwarded_and_stdin_passed_through() {
    let provider = Provider::Copilot;
    let dir = TempDir::new("exec-exit");
    let path = fixture(provider, "ok/shared-scenario-shell-command");
    let script = replay_agent();
    let dir_arg = dir.path().to_str().unwrap();
    let args = [
        "exec",
        "--provider",
        "copilot",
        "--out",
        dir_arg,
        "--run-id",
        "r",
        "--",
        "python3",
        &script,
        &path,
        "--exit",
        "3",
        "--stderr",
        "agent says hi\n",
        "--echo-stdin",
    ];
    let output = axt(&args, b"from the user\n");
    assert_eq!(output.status.code(), Some(3));
    let stderr = text(&output.stderr);
    assert!(
        stderr.starts_with("agent says hi\nfrom the user\n"),
        "{stderr}"
    );
    let events = transcript(dir.path(), "r");
    let end = last(&events);
    assert_eq!(end["payload"]["error"], "the agent exited with code 3");
    assert_eq!(end["payload"]["result"]["status"], "failed");
    assert_eq!(
        end["payload"]["result"]["process"],
        serde_json::json!({"exit_code": 3})
    );
}

#[test]
fn an_agent_that_cannot_start_is_recorded_and_exits_127() {
    let dir = TempDir::new("exec-missing");
    let dir_arg = dir.path().to_str().unwrap();
    let args = [
        "exec",
        "-p",
        "claude",
        "--out",
        dir_arg,
        "--run-id",
        "r",
        "--",
        "no-such-agent-xyz",
    ];
    let output = axt(&args, b"");
    assert_eq!(output.status.code(), Some(127));
    let events = transcript(dir.path(), "r");
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        [
            "run.started",
            "step.started",
            "step.completed",
            "run.completed"
        ]
    );
    let error = last(&events)["payload"]["error"].as_str().unwrap();
    assert!(
        error.starts_with("axt could not start no-such-agent-xyz: "),
        "{error}"
    );
}

/// axt exec ends when the agent's run is recorded: it used to wait its whole 5 s drain for
/// the messages thread, whose channel a sender it still held kept open. Measured against
/// `axt normalize` of the same output in the same run, so a slow machine is no failure;
/// the margin (2 s) is well under the 5 s the wait took.
#[test]
fn exec_ends_when_the_run_is_recorded_not_a_drain_later() {
    let dir = TempDir::new("exec-no-drain");
    let input = fixture(Provider::Claude, "ok/plain-session-thinking-text-bash");
    let started = Instant::now();
    let output = axt(&["normalize", "--provider", "claude", &input], b"");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let baseline = started.elapsed();
    let dir_arg = dir.path().to_str().unwrap();
    let started = Instant::now();
    let output = axt(
        &[
            "exec", "-p", "claude", "--out", dir_arg, "--", "cat", &input,
        ],
        b"",
    );
    let took = started.elapsed();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(
        took < baseline + Duration::from_secs(2),
        "exec took {took:?}, normalize of the same output {baseline:?}"
    );
}
#[test]
fn follow_prints_one_line_per_message_tool_call_and_result() {
    let provider = Provider::Claude;
    let dir = TempDir::new("exec-follow");
    let path = fixture(provider, "ok/shared-scenario-shell-command");
    let prompt = ["--follow", "--prompt", "How many Rust files are in src?"];
    let output = exec(provider, dir.path(), "r", &prompt, &[&path]);
    assert_eq!(output.status.code(), Some(0));
    insta::assert_snapshot!(text(&output.stdout), @r#"
    user: How many Rust files are in src?
    assistant: (thinking) Count the .rs files under src with find and wc.
    -> Bash: {"command":"find src -name '*.rs' | wc -l","description":"Count Rust files in src"}
    <- Bash: 12
    assistant: There are 12 Rust files in src.
    run completed
    "#);
}

/// The 1-based line of `fixture` whose record completes the first event of `event_type`.
fn line_completing(provider: Provider, fixture: &[u8], event_type: EventType) -> usize {
    struct Found(bool, EventType);
    impl EventSink for Found {
        type Error = std::convert::Infallible;
        fn event(&mut self, event: ExchangeEvent) -> Result<(), Self::Error> {
            self.0 |= event.event_type == self.1;
            Ok(())
        }
        fn diagnostic(&mut self, _: Diagnostic) -> Result<(), Self::Error> {
            Ok(())
        }
    }
    let mut transcriber = Transcriber::new(provider, Options::default(), EventOptions::default());
    let mut found = Found(false, event_type.clone());
    for (at, line) in fixture.split_inclusive(|b| *b == b'\n').enumerate() {
        transcriber.push(line, &mut found).unwrap();
        if found.0 {
            return at + 1;
        }
    }
    panic!("{provider}: no {event_type:?} in the fixture");
}

#[test]
fn a_subscriber_sees_each_block_while_the_agent_is_still_running() {
    for provider in Provider::ALL {
        let dir = TempDir::new(&format!("exec-live-{provider}"));
        let path = fixture(provider, "ok/shared-scenario-shell-command");
        let bytes = fs::read(&path).unwrap();
        let line = line_completing(provider, &bytes, EventType::ToolCall);
        let go = dir.path().join("go");
        let mut child = Command::new("python3")
            .arg(replay_agent())
            .arg(&path)
            .args([
                "--splits",
                "3",
                "--delay-ms",
                "1",
                "--after-line",
                &line.to_string(),
            ])
            .arg("--wait-for")
            .arg(&go)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let options = CaptureOptions {
            run_id: Some("live".into()),
            prompt: Some("How many Rust files are in src?".into()),
            ..CaptureOptions::default()
        };
        let mut capture = Capture::new(provider, dir.path().join("runs"), options).unwrap();
        let mut subscription = capture.subscribe();
        let stdout = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            capture.run(stdout).unwrap();
            capture
        });

        let mut seen = Vec::new();
        loop {
            let delivery = subscription
                .recv_timeout(Duration::from_secs(30))
                .unwrap_or_else(|_| panic!("{provider}: no tool.call within 30 s: {seen:?}"));
            let Delivery::Event(event) = delivery else {
                panic!("{provider}: a subscriber with room missed events");
            };
            seen.push(event.event_type.clone());
            if event.event_type == EventType::ToolCall {
                break;
            }
        }
        // The agent is parked on the signal file: everything so far arrived while it ran.
        assert!(
            child.try_wait().unwrap().is_none(),
            "{provider}: the agent had already exited"
        );
        assert_eq!(
            seen[..3],
            [
                EventType::RunStarted,
                EventType::StepStarted,
                EventType::MessageUser
            ],
            "{provider}"
        );
        fs::write(&go, b"").unwrap();

        let capture = reader.join().unwrap();
        let status = child.wait().unwrap();
        let meta = capture.finish(ProcessEnd::from_status(status)).unwrap();
        assert!(
            meta.process.is_none(),
            "{provider}: a clean exit is not recorded as a failure"
        );
        let mut rest = Vec::new();
        while let Some(delivery) = subscription.recv() {
            if let Delivery::Event(event) = delivery {
                rest.push(event);
            }
        }
        assert!(
            rest.iter().any(|e| e.event_type == EventType::ToolResult),
            "{provider}"
        );
        let end = rest.last().unwrap();
        assert_eq!(end.event_type, EventType::RunCompleted, "{provider}");
        let Payload::Step(step) = &end.payload else {
            panic!("{provider}: run.completed carries a step payload");
        };
        assert_eq!(step.error, None, "{provider}");
        // Subscriber and file agree.
        let file = transcript(&dir.path().join("runs"), "live");
        assert_eq!(file.len(), seen.len() + rest.len(), "{provider}");
        assert_eq!(file[2]["payload"]["blocks"][0]["fidelity"], "router");
    }
}

#[test]
fn an_agent_whose_stdout_outlives_it_is_read_until_the_grace_period_ends() {
    let dir = TempDir::new("exec-orphan");
    let path = fixture(Provider::Claude, "ok/shared-scenario-shell-command");
    // The background sleep keeps the agent's stdout open after the shell exits.
    let script = format!("cat '{path}'; sleep 30 2>/dev/null & exit 0");
    let dir_arg = dir.path().to_str().unwrap();
    let args = [
        "exec",
        "-p",
        "claude",
        "--out",
        dir_arg,
        "--run-id",
        "r",
        "--grace-secs",
        "1",
        "--",
        "sh",
        "-c",
        &script,
    ];
    let started = Instant::now();
    let output = axt(&args, b"");
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "axt waited for the grandchild"
    );
    // The agent's own code is 0, but the run it left is failed (axt stopped reading).
    assert_eq!(output.status.code(), Some(1));
    let events = transcript(dir.path(), "r");
    let end = last(&events);
    assert_eq!(end["payload"]["result"]["status"], "failed");
    insta::assert_snapshot!(end["payload"]["error"].as_str().unwrap(), @"the agent exited but its stdout was still open 1 s later (held by a process it started?); axt stopped reading: the agent exited with code 0");
    // Everything written before it exited was recorded.
    assert!(events.iter().any(|e| e["type"] == "tool.result"));
}

/// SIGINT (or SIGTERM) sent to axt alone does not cost the transcript: axt passes it on to
/// the agent (in a process group of its own, which a terminal's Ctrl-C no longer reaches),
/// keeps reading until the agent ends, records how, and exits as a shell would (128 + 2).
#[test]
fn an_interrupted_axt_still_finishes_the_transcript() {
    let provider = Provider::Claude;
    let dir = TempDir::new("exec-interrupted");
    let path = fixture(provider, "ok/shared-scenario-shell-command");
    let never = dir.path().join("never-created");
    let agent_script = replay_agent();
    let out = dir.path().to_str().unwrap().to_owned();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_axt"))
        .args([
            "exec",
            "--provider",
            "claude",
            "--out",
            &out,
            "--run-id",
            "r",
            "--grace-secs",
            "1",
        ])
        .args([
            "--",
            "python3",
            &agent_script,
            &path,
            "--after-line",
            "3",
            "--wait-for",
        ])
        .arg(&never)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the agent has written its first lines and is stalled.
    let transcript_path = dir.path().join("r.jsonl");
    let started = Instant::now();
    while fs::read(&transcript_path).map_or(0, |t| t.iter().filter(|b| **b == b'\n').count()) < 4 {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the agent never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let signalled = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(signalled.success());
    let output = child.wait_with_output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let events = transcript(dir.path(), "r");
    let end = last(&events);
    assert_eq!(end["type"], "run.completed");
    assert_eq!(end["payload"]["result"]["status"], "failed");
    insta::assert_snapshot!(end["payload"]["error"].as_str().unwrap(), @"the agent was killed by signal 2 (SIGINT); the output ended before the run's terminal record");
}

/// `axt exec ... 2>&1 | head -1`: with its stdout and stderr gone, axt still records the
/// whole run (diagnostics it cannot print included) and exits with the agent's code.
#[test]
fn closed_stdout_and_stderr_do_not_cost_the_transcript() {
    let provider = Provider::Claude;
    let dir = TempDir::new("exec-closed");
    let path = fixture(provider, "err/non-json-sandbox-banner-and-blank-line");
    let agent_script = replay_agent();
    let out = dir.path().to_str().unwrap();
    let args = [
        "exec",
        "-p",
        "claude",
        "--out",
        out,
        "--run-id",
        "r",
        "--follow",
        "--",
        "python3",
        &agent_script,
        &path,
    ];
    let output = axt_with_closed(&args, b"", true);
    assert_eq!(
        output.status.code(),
        Some(1),
        "the output's problems, not a panic"
    );
    let events = transcript(dir.path(), "r");
    assert_eq!(last(&events)["type"], "run.completed");
    let normalized = axt(&["normalize", "-p", "claude", "--run-id", "r", &path], b"");
    assert_eq!(events, events_without_timestamps(&normalized.stdout));
}

/// Problems in the agent's output name the raw copy axt keeps of it, where their lines and
/// bytes are; `--help` lists the providers.
#[test]
fn diagnostics_point_into_the_raw_output_file() {
    let provider = Provider::Claude;
    let dir = TempDir::new("exec-diagnostics");
    let path = fixture(provider, "err/truncated-last-line");
    let output = exec(provider, dir.path(), "r", &[], &[&path]);
    assert_eq!(output.status.code(), Some(1));
    let raw = dir.path().join("r.raw");
    let stderr = text(&output.stderr).replace(dir.path().to_str().unwrap(), "DIR");
    insta::assert_snapshot!(stderr, @r"
    DIR/r.raw:5: byte 3135: truncated: input ends inside the last record: EOF while parsing an object at column 359
    DIR/r.raw:5: byte 3136: missing-terminal: warning: the stream ended without a result record; the run is incomplete
    axt: wrote DIR/r.jsonl
    ");
    // The raw copy is the output byte for byte, so lines and offsets hold in it.
    assert_eq!(fs::read(raw).unwrap(), fs::read(&path).unwrap());

    let help = axt(&["exec", "--help"], b"");
    // The help text wraps the list where it likes: compared with its lines joined.
    let joined = text(&help.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        joined.contains(&format!(
            "[possible values: auto, {}]",
            Provider::names(", ")
        )),
        "{}",
        text(&help.stdout)
    );
}

/// Issue 24: a directory `axt exec` wrote is a directory of transcripts to every reader.
/// The raw capture is `<run-id>.raw`, which no `*.jsonl` glob takes; a capture of the old
/// name, `<run-id>.raw.jsonl`, is skipped by the readers that walk a directory when its
/// transcript is beside it.
#[test]
fn readers_never_take_a_raw_capture_for_a_transcript() {
    let provider = Provider::Claude;
    let dir = TempDir::new("exec-raw-name");
    let path = fixture(provider, "ok/shared-scenario-shell-command");
    let output = exec(provider, dir.path(), "r", &[], &[&path]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let mut names: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["r.jsonl", "r.raw"]);
    // A capture an older axt made, beside its transcript.
    fs::copy(&path, dir.path().join("r.raw.jsonl")).unwrap();
    let dir_arg = dir.path().to_str().unwrap();
    let stats = axt(&["stats", "--json", dir_arg], b"");
    assert_eq!(stats.status.code(), Some(0), "{}", text(&stats.stderr));
    let report: Value = serde_json::from_slice(&stats.stdout).unwrap();
    assert_eq!(report["total"]["files"], 1, "{report}");
    let otlp = axt(&["export", "--to", "otlp", dir_arg], b"");
    assert_eq!(otlp.status.code(), Some(0), "{}", text(&otlp.stderr));
    let tree = axt(&["tree", dir.path().join("r.jsonl").to_str().unwrap()], b"");
    assert_eq!(tree.status.code(), Some(0), "{}", text(&tree.stderr));
}
