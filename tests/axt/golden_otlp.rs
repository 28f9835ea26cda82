//! OTLP export: one fixture per provider corpus (the shared shell-command scenario) is
//! normalized, recorded and exported with content, and the three-level workflow of
//! `corpus/read/transcript/ok/nested/` without; the OTLP/JSON documents are golden
//! snapshots in `golden/export/otlp/<corpus>/ok/`. Invariants are checked before the
//! snapshot: one trace, unique ids, every parent present, no span ending before it starts,
//! one `execute_tool` span per call, token totals equal to the transcript's.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use axt::export::otlp::{AttrValue, BatchOptions, Span, SpanKind, encode, export};
use axt::normalize::{Options, Provider};
use axt::read::{ReadItem, Reader};
use axt::record::RecorderOptions;
use axt::transcribe::{EventOptions, RecordingSink, Transcriber};
use axt::{EventType, Payload};
use serde_json::Value;

use crate::support::{Failures, TempDir, normalize_corpus, now, root, snapshot_settings};

/// The fixture of each provider corpus that is snapshotted.
const SCENARIO: &str = "shared-scenario-shell-command.jsonl";

fn golden(corpus: &str) -> PathBuf {
    root().join("golden/export/otlp").join(corpus).join("ok")
}

fn snapshot(corpus: &str, name: &str, spans: &[Span]) {
    let text = String::from_utf8(encode::to_json(&encode::request(spans))).unwrap();
    snapshot_settings(&golden(corpus), None)
        .bind(|| insta::assert_snapshot!(name.to_owned(), text));
}

fn int(span: &Span, key: &str) -> Option<i64> {
    match span.attribute(key) {
        Some(AttrValue::Int(n)) => Some(*n),
        _ => None,
    }
}

fn string<'a>(span: &'a Span, key: &str) -> Option<&'a str> {
    match span.attribute(key) {
        Some(AttrValue::Str(text)) => Some(text),
        _ => None,
    }
}

/// The structural invariants every export keeps.
fn check_tree(name: &str, spans: &[Span]) {
    assert!(!spans.is_empty(), "{name}: no span");
    let traces: BTreeSet<_> = spans.iter().map(|s| s.trace_id).collect();
    assert_eq!(traces.len(), 1, "{name}: one trace per run tree");
    let ids: HashMap<_, _> = spans.iter().map(|s| (s.span_id, s)).collect();
    assert_eq!(ids.len(), spans.len(), "{name}: span ids are unique");
    let roots = spans.iter().filter(|s| s.parent_span_id.is_none()).count();
    assert_eq!(roots, 1, "{name}: one root span");
    for span in spans {
        assert!(
            span.end_unix_nano >= span.start_unix_nano,
            "{name}: {}",
            span.name
        );
        if let Some(parent) = span.parent_span_id {
            assert!(
                ids.contains_key(&parent),
                "{name}: {} has no parent",
                span.name
            );
        }
    }
}

/// What the transcript files say, counted from their events: distinct tool calls, and
/// the summed usage of every run's `run.completed`.
fn count_events(files: &[PathBuf]) -> (usize, [u64; 2]) {
    let mut calls = BTreeSet::new();
    let mut tokens = [0; 2];
    for file in files {
        for item in Reader::open(file).unwrap() {
            let ReadItem::Event { event, .. } = item else {
                continue;
            };
            match (&event.event_type, &event.payload) {
                (EventType::ToolCall, Payload::Tool(tool)) => {
                    calls.insert((event.run_id.clone(), tool.call_id.clone()));
                }
                (EventType::RunCompleted, Payload::Step(step)) => {
                    let usage = &step.result["usage"];
                    let n = |k: &str| usage[k].as_u64().unwrap_or(0);
                    tokens[0] +=
                        n("input_tokens") + n("cache_read_tokens") + n("cache_write_tokens");
                    tokens[1] += n("output_tokens");
                }
                _ => {}
            }
        }
    }
    (calls.len(), tokens)
}

fn check_counts(name: &str, files: &[PathBuf], spans: &[Span]) {
    let (calls, tokens) = count_events(files);
    let tools = spans
        .iter()
        .filter(|s| string(s, "gen_ai.operation.name") == Some("execute_tool"))
        .count();
    assert_eq!(tools, calls, "{name}: one execute_tool span per call");
    let runs = spans.iter().filter(|s| string(s, "axt.run.id").is_some());
    let mut spanned = [0; 2];
    for run in runs {
        spanned[0] += int(run, "gen_ai.usage.input_tokens").unwrap_or(0) as u64;
        spanned[1] += int(run, "gen_ai.usage.output_tokens").unwrap_or(0) as u64;
    }
    assert_eq!(spanned, tokens, "{name}: token totals");
}

/// A provider fixture normalized and recorded as run `<provider>-<name>` in `dir`.
pub(crate) fn record(provider: Provider, fixture: &Path, dir: &Path) -> PathBuf {
    let name = fixture.file_stem().unwrap().to_str().unwrap();
    let events = EventOptions {
        run_id: Some(format!("{provider}-{name}")),
        clock: Box::new(now),
    };
    let mut transcriber = Transcriber::new(provider, Options::default(), events);
    let mut sink = RecordingSink::new(dir, RecorderOptions::default(), |_| Ok(()));
    transcriber
        .push(&std::fs::read(fixture).unwrap(), &mut sink)
        .unwrap();
    transcriber.finish(&mut sink).unwrap();
    let path = sink.recorder().unwrap().path().to_owned();
    sink.recorder().unwrap().close().unwrap();
    path
}

#[test]
fn otlp_provider_fixtures_export() {
    let mut failures = Failures::default();
    for provider in Provider::ALL {
        let fixture = normalize_corpus(provider).join("ok").join(SCENARIO);
        let name = SCENARIO.trim_end_matches(".jsonl");
        failures.check(&format!("{provider}/{name}"), || {
            let scratch = TempDir::new(&format!("otlp-{provider}"));
            let file = record(provider, &fixture, scratch.path());
            let options = BatchOptions {
                content: true,
                ..BatchOptions::default()
            };
            let batch = export(std::slice::from_ref(&file), &options).unwrap();
            assert!(batch.problems.is_empty(), "{:?}", batch.problems);
            check_tree(name, &batch.spans);
            check_counts(name, &[file], &batch.spans);
            snapshot(provider.as_str(), name, &batch.spans);
        });
    }
    failures.finish();
}

fn nested() -> PathBuf {
    root().join("corpus/read/transcript/ok/nested")
}

#[test]
fn otlp_three_level_workflow_is_one_trace() {
    let files: Vec<PathBuf> = ["nest-root", "nest-child", "nest-grandchild"]
        .iter()
        .map(|n| nested().join(format!("{n}.jsonl")))
        .collect();
    let batch = export(&files[..1], &BatchOptions::default()).unwrap();
    assert!(batch.problems.is_empty(), "{:?}", batch.problems);
    assert_eq!(batch.runs, 3);
    check_tree("nested", &batch.spans);
    check_counts("nested", &files, &batch.spans);
    // Each sub-run's span is under the call_workflow step that invoked it.
    let by_id: HashMap<_, _> = batch.spans.iter().map(|s| (s.span_id, s)).collect();
    for (child, step) in [("nest-child", "build"), ("nest-grandchild", "test")] {
        let run = batch
            .spans
            .iter()
            .find(|s| string(s, "axt.run.id") == Some(child))
            .unwrap();
        let parent = by_id[&run.parent_span_id.unwrap()];
        assert_eq!(parent.name, step);
        assert_eq!(string(parent, "axt.step.kind"), Some("call_workflow"));
    }
    // No content without asking for it.
    for span in &batch.spans {
        for (key, _) in &span.attributes {
            assert!(
                !key.ends_with(".messages") && !key.starts_with("gen_ai.tool.call.a"),
                "{key} without --content"
            );
        }
    }
    snapshot("transcript", "nested__nest-root", &batch.spans);

    // The directory gives the same spans; the child alone joins the root's trace, under
    // the same step, with the same ids.
    let whole = export(&[nested()], &BatchOptions::default()).unwrap();
    assert_eq!(
        whole.spans, batch.spans,
        "a directory exports each run once"
    );
    let alone = export(&files[1..2], &BatchOptions::default()).unwrap();
    assert_eq!(alone.runs, 2, "the child and the grandchild");
    for span in &alone.spans {
        assert!(
            batch.spans.contains(span),
            "{} differs when exported alone",
            span.name
        );
    }
}

/// A call the router and the agent both reported is one span, the router's.
#[test]
fn otlp_call_seen_on_both_channels_is_one_span() {
    let scratch = TempDir::new("otlp-both-channels");
    let line = |seq: u64, kind: &str, payload: &str| {
        format!(
            r#"{{"seq":{seq},"run_id":"r","type":"{kind}","path":"a","iteration":0,"timestamp":"2026-06-08T08:00:0{seq}Z","payload":{payload}}}"#
        )
    };
    let call = |fidelity: &str| {
        format!(
            r#"{{"name":"Read","call_id":"c1","input":{{"path":"x"}},"output":null,"fidelity":"{fidelity}"}}"#
        )
    };
    let result = |fidelity: &str| {
        format!(
            r#"{{"name":"Read","call_id":"c1","input":null,"output":"ok","fidelity":"{fidelity}"}}"#
        )
    };
    let text = [
        line(1, "run.started", r#"{"name":"w","kind":"workflow"}"#),
        line(2, "step.started", r#"{"name":"a","kind":"agent"}"#),
        line(3, "tool.call", &call("agent_emitted")),
        line(4, "tool.call", &call("router")),
        line(5, "tool.result", &result("router")),
        line(6, "tool.result", &result("agent_emitted")),
        line(7, "step.completed", r#"{"name":"a","kind":"agent"}"#),
        line(8, "run.completed", r#"{"name":"w","kind":"workflow"}"#),
    ]
    .join("\n");
    let file = scratch.path().join("r.jsonl");
    std::fs::write(&file, text + "\n").unwrap();
    let batch = export(&[file], &BatchOptions::default()).unwrap();
    let tools: Vec<_> = batch
        .spans
        .iter()
        .filter(|s| s.name == "execute_tool Read")
        .collect();
    assert_eq!(tools.len(), 1, "{:#?}", batch.spans);
    assert_eq!(string(tools[0], "axt.tool.fidelity"), Some("router"));
    assert_eq!(
        tools[0].end_unix_nano - tools[0].start_unix_nano,
        1_000_000_000
    );
}

/// Credentials in content are masked by the recorder's redactor.
#[test]
fn otlp_content_is_redacted() {
    let scratch = TempDir::new("otlp-redacted");
    let key = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ";
    let text = format!(
        concat!(
            r#"{{"seq":1,"run_id":"k","type":"run.started","path":"","iteration":0,"timestamp":"2026-06-08T08:00:01Z","payload":{{"name":"claude","kind":"agent"}}}}"#,
            "\n",
            r#"{{"seq":2,"run_id":"k","type":"message.assistant","path":"","iteration":0,"timestamp":"2026-06-08T08:00:02Z","payload":{{"role":"assistant","blocks":[{{"type":"text","fidelity":"agent_emitted","text":"the key is {key}"}}]}}}}"#,
            "\n"
        ),
        key = key
    );
    let file = scratch.path().join("k.jsonl");
    std::fs::write(&file, text).unwrap();
    let batch = export(
        &[file],
        &BatchOptions {
            content: true,
            ..BatchOptions::default()
        },
    )
    .unwrap();
    let json = String::from_utf8(encode::to_json(&encode::request(&batch.spans))).unwrap();
    assert!(!json.contains(key), "{json}");
    assert!(json.contains("[REDACTED:anthropic_key]"), "{json}");
    let value: Value = serde_json::from_str(&json).unwrap();
    assert!(value["resourceSpans"][0]["scopeSpans"][0]["spans"].is_array());
}

/// The message attributes of every snapshot against the GenAI conventions' JSON schemas
/// (`scripts/validate-genai-messages.py`; the schemas live beside the repository, in
/// `../shared/otel-genai/` or `OTEL_GENAI_SCHEMAS`, as the AgentLog schema does). Where the
/// schemas or python's jsonschema are missing, the test says SKIPPED and why.
#[test]
#[allow(clippy::print_stderr)]
fn otlp_message_attributes_validate_against_the_genai_schemas() {
    let output = std::process::Command::new("python3")
        .arg(root().join("scripts/validate-genai-messages.py"))
        .output();
    let Ok(output) = output else {
        eprintln!("SKIPPED otlp_message_attributes_validate_against_the_genai_schemas: no python3");
        return;
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    if output.status.code() == Some(2) {
        eprintln!("SKIPPED otlp_message_attributes_validate_against_the_genai_schemas: {stderr}");
        return;
    }
    assert_eq!(output.status.code(), Some(0), "{stdout}{stderr}");
    eprintln!("{stdout}");
}

/// Without content no error text leaves axt: a failed run's result text, a step's error
/// and a tool's error output (its stderr) are the agent's and the tool's own words, so the
/// spans' statuses say only that something failed (and a command's exit status); with
/// `--content` they carry the texts.
#[test]
fn otlp_without_content_sends_no_error_text() {
    let scratch = TempDir::new("otlp-error-texts");
    let line = |seq: u64, kind: &str, path: &str, payload: &str| {
        format!(
            r#"{{"seq":{seq},"run_id":"f","type":"{kind}","path":"{path}","iteration":0,"timestamp":"2026-06-08T08:00:0{seq}Z","payload":{payload}}}"#
        )
    };
    let text = [
        line(1, "run.started", "", r#"{"name":"claude","kind":"agent"}"#),
        line(2, "step.started", "agent", r#"{"name":"agent","kind":"agent"}"#),
        line(
            3,
            "tool.call",
            "agent",
            r#"{"name":"Bash","call_id":"c1","input":{"command":"make"},"output":null,"fidelity":"agent_emitted"}"#,
        ),
        line(
            4,
            "tool.result",
            "agent",
            r#"{"name":"Bash","call_id":"c1","input":null,"output":null,"error":"TOOL-STDERR cannot open /home/ann/.netrc","fidelity":"agent_emitted","exit_code":2}"#,
        ),
        line(
            5,
            "tool.call",
            "agent",
            r#"{"name":"Read","call_id":"c2","input":{"path":"x"},"output":null,"fidelity":"agent_emitted"}"#,
        ),
        line(
            6,
            "tool.result",
            "agent",
            r#"{"name":"Read","call_id":"c2","input":null,"output":null,"error":"READ-ERROR no such file: secret-plans.txt","fidelity":"agent_emitted"}"#,
        ),
        line(
            7,
            "step.completed",
            "agent",
            r#"{"name":"agent","kind":"agent","error":"STEP-ERROR the agent said: the plan is X"}"#,
        ),
        line(
            8,
            "run.completed",
            "",
            r#"{"name":"claude","kind":"agent","result":{"provider":"claude","status":"failed","errors":[{"message":"RESULT-TEXT here is what I found","fatal":true,"line":9}]}}"#,
        ),
    ]
    .join("\n");
    let file = scratch.path().join("f.jsonl");
    std::fs::write(&file, text + "\n").unwrap();
    let statuses = |content: bool| -> Vec<(String, String)> {
        let batch = export(
            std::slice::from_ref(&file),
            &BatchOptions {
                content,
                ..BatchOptions::default()
            },
        )
        .unwrap();
        let json = String::from_utf8(encode::to_json(&encode::request(&batch.spans))).unwrap();
        let value: Value = serde_json::from_str(&json).unwrap();
        let mut found: Vec<(String, String)> = value["resourceSpans"][0]["scopeSpans"][0]["spans"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|span| span["status"]["code"] == 2)
            .map(|span| {
                let message = span["status"]["message"].as_str().unwrap_or("").to_owned();
                (span["name"].as_str().unwrap().to_owned(), message)
            })
            .collect();
        found.sort();
        if !content {
            for secret in ["TOOL-STDERR", "READ-ERROR", "STEP-ERROR", "RESULT-TEXT"] {
                assert!(!json.contains(secret), "{secret} without --content: {json}");
            }
        }
        found
    };
    let pairs = |list: &[(&str, &str)]| -> Vec<(String, String)> {
        list.iter()
            .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
            .collect()
    };
    assert_eq!(
        statuses(false),
        pairs(&[
            ("agent", "the step failed"),
            ("execute_tool Bash", "exit status 2"),
            ("execute_tool Read", "the tool failed"),
            ("invoke_agent claude", "the run failed"),
        ])
    );
    assert_eq!(
        statuses(true),
        pairs(&[
            ("agent", "STEP-ERROR the agent said: the plan is X"),
            (
                "execute_tool Bash",
                "TOOL-STDERR cannot open /home/ann/.netrc"
            ),
            (
                "execute_tool Read",
                "READ-ERROR no such file: secret-plans.txt"
            ),
            ("invoke_agent claude", "RESULT-TEXT here is what I found"),
        ])
    );
}

/// A Claude Code 2.1.277+ run's usage is its session's running total: its agent span says
/// so (`axt.usage.scope` `session`), so that a backend adding spans up counts the session
/// once; a run of an older version carries no scope.
#[test]
fn otlp_says_when_a_runs_usage_is_its_sessions_running_total() {
    let scratch = TempDir::new("otlp-usage-scope");
    let claude = normalize_corpus(Provider::Claude).join("ok");
    let resumed = claude.join("resumed-session-2.1.280-result-carries-earlier-runs-totals.jsonl");
    let older = claude.join("usage-from-model-usage-counts-subagent-and-auxiliary-calls.jsonl");
    for (fixture, scope) in [(resumed, Some("session")), (older, None)] {
        let file = record(Provider::Claude, &fixture, scratch.path());
        let batch = export(&[file], &BatchOptions::default()).unwrap();
        let run = batch
            .spans
            .iter()
            .find(|s| s.parent_span_id.is_none())
            .expect("a root span");
        assert_eq!(
            string(run, "axt.usage.scope"),
            scope,
            "{}",
            fixture.display()
        );
    }
}

/// The events of one span, by name: `(event name, [(attribute, value as text)])`.
fn events(span: &Span) -> Vec<(String, Vec<(String, String)>)> {
    span.events
        .iter()
        .map(|event| {
            let attributes = event
                .attributes
                .iter()
                .map(|(k, v)| {
                    let text = match v {
                        AttrValue::Str(s) => s.clone(),
                        other => format!("{other:?}"),
                    };
                    (k.clone(), text)
                })
                .collect();
            (event.name.clone(), attributes)
        })
        .collect()
}

/// A call the provider denied and an approval's answers are `gen_ai.tool.call.decision`
/// events on their tool spans (the conventions' #535); nothing else has one.
#[test]
fn otlp_tool_call_decisions_are_events_on_the_tool_spans() {
    let scratch = TempDir::new("otlp-decisions");
    let denied = normalize_corpus(Provider::Claude)
        .join("ok/max-turns-dangling-tool-use-permission-denial.jsonl");
    let approvals =
        normalize_corpus(Provider::OpenAi).join("ok/responses-mcp-approvals-and-failed-call.jsonl");
    let mut decisions = Vec::new();
    for (provider, fixture) in [(Provider::Claude, denied), (Provider::OpenAi, approvals)] {
        let file = record(provider, &fixture, scratch.path());
        let batch = export(&[file], &BatchOptions::default()).unwrap();
        for span in &batch.spans {
            for (name, attributes) in events(span) {
                assert_eq!(name, "gen_ai.tool.call.decision");
                decisions.push((span.name.clone(), attributes));
            }
        }
    }
    let pairs = |items: &[(&str, &str)]| -> Vec<(String, String)> {
        items
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    };
    assert_eq!(
        decisions,
        [
            (
                "execute_tool Write".to_owned(),
                pairs(&[
                    ("gen_ai.tool.call.decision.outcome", "deny"),
                    ("gen_ai.tool.call.id", "toolu_01BikWMgISuSw8P1FGNmtjwH"),
                    ("gen_ai.tool.name", "Write")
                ])
            ),
            (
                "execute_tool mcp_approval_request".to_owned(),
                pairs(&[
                    ("gen_ai.tool.call.decision.outcome", "allow"),
                    ("gen_ai.tool.call.id", "mcpr_12"),
                    ("gen_ai.tool.name", "search_code")
                ])
            ),
            (
                "execute_tool mcp_approval_request".to_owned(),
                pairs(&[
                    ("gen_ai.tool.call.decision.outcome", "deny"),
                    ("gen_ai.tool.call.id", "mcpr_13"),
                    ("gen_ai.tool.name", "delete_branch")
                ])
            ),
        ]
    );
}

/// A command tool's span carries `process.exit.code`, and a non-zero one is its
/// `error.type` (#574); an agent CLI's run is a remote agent's CLIENT span with the CLI's
/// version, a workflow run an in-process INTERNAL one; cache writes are
/// `gen_ai.usage.cache_write.input_tokens` (#440).
#[test]
fn otlp_command_exit_codes_span_kinds_and_cache_writes_follow_the_conventions() {
    let scratch = TempDir::new("otlp-conventions");
    let fixture = normalize_corpus(Provider::Codex).join("ok/commands-failed-and-declined.jsonl");
    let file = record(Provider::Codex, &fixture, scratch.path());
    let batch = export(&[file], &BatchOptions::default()).unwrap();
    let failed = batch
        .spans
        .iter()
        .find(|s| int(s, "process.exit.code").is_some_and(|c| c != 0))
        .expect("a failed command");
    let code = int(failed, "process.exit.code").unwrap();
    assert_eq!(
        string(failed, "error.type"),
        Some(code.to_string().as_str())
    );
    let run = batch
        .spans
        .iter()
        .find(|s| s.parent_span_id.is_none())
        .unwrap();
    assert_eq!(run.kind, SpanKind::Client);
    let claude = record(
        Provider::Claude,
        &normalize_corpus(Provider::Claude).join("ok").join(SCENARIO),
        scratch.path(),
    );
    let batch = export(&[claude], &BatchOptions::default()).unwrap();
    let run = batch
        .spans
        .iter()
        .find(|s| s.parent_span_id.is_none())
        .unwrap();
    assert_eq!(string(run, "gen_ai.agent.version"), Some("2.1.178"));

    let nested = export(&[nested()], &BatchOptions::default()).unwrap();
    let root = nested
        .spans
        .iter()
        .find(|s| s.parent_span_id.is_none())
        .unwrap();
    assert_eq!(
        (root.name.as_str(), root.kind),
        ("invoke_workflow release", SpanKind::Internal)
    );
    let spans = nested.spans.iter();
    let writes: Vec<i64> = spans
        .filter_map(|s| int(s, "gen_ai.usage.cache_write.input_tokens"))
        .collect();
    assert!(!writes.is_empty());
    assert!(nested.spans.iter().all(|s| {
        s.attribute("gen_ai.usage.cache_creation.input_tokens")
            .is_none()
    }));
}

/// The content capture setting: `EVENT_ONLY` puts each model turn's content in a
/// `gen_ai.client.inference.operation.details` event and none on the span; `SPAN_AND_EVENT`
/// both; a value the conventions do not define is no content, with a warning; `--content`
/// wins. The event's attributes are golden (and validated against the schemas).
#[test]
fn otlp_content_capture_setting_puts_content_in_events_or_spans() {
    let file = "corpus/read/transcript/ok/web-fetch-search-and-to-do-list.jsonl";
    let run = |capture: Option<&str>, flag: bool| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_axt"));
        command
            .current_dir(root())
            .args(["export", "--to", "otlp", file]);
        if flag {
            command.arg("--content");
        }
        match capture {
            Some(value) => command.env("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", value),
            None => command.env_remove("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"),
        };
        let output = command.output().unwrap();
        let document: Value = serde_json::from_slice(&output.stdout).unwrap();
        (
            document,
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let chats = |document: &Value| -> Vec<(bool, bool)> {
        document["resourceSpans"][0]["scopeSpans"][0]["spans"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["name"].as_str().unwrap().starts_with("chat "))
            .map(|s| {
                let on_span = s["attributes"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|a| a["key"] == "gen_ai.output.messages");
                let in_event = s["events"].as_array().is_some_and(|e| {
                    e.iter()
                        .any(|e| e["name"] == "gen_ai.client.inference.operation.details")
                });
                (on_span, in_event)
            })
            .collect()
    };
    let (events_only, _) = run(Some("event_only"), false);
    assert!(
        chats(&events_only).iter().all(|c| *c == (false, true)),
        "{:?}",
        chats(&events_only)
    );
    let (both, _) = run(Some("SPAN_AND_EVENT"), false);
    assert!(chats(&both).iter().all(|c| *c == (true, true)));
    let (none, warning) = run(Some("true"), false);
    assert!(chats(&none).iter().all(|c| *c == (false, false)));
    assert!(
        warning.contains("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=\"true\" is none of"),
        "{warning}"
    );
    let (flag, _) = run(Some("EVENT_ONLY"), true);
    assert!(chats(&flag).iter().all(|c| c.0));
    let (unset, _) = run(None, false);
    assert!(chats(&unset).iter().all(|c| *c == (false, false)));

    let path = root().join(file);
    let batch = export(
        &[path],
        &BatchOptions {
            content_events: true,
            ..BatchOptions::default()
        },
    )
    .unwrap();
    snapshot(
        "transcript",
        "web-fetch-search-and-to-do-list",
        &batch.spans,
    );
}
