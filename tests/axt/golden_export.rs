//! AgentLog export: every `ok/` fixture of every provider corpus is normalized to a
//! transcript, and every Claude Code session of `corpus/import/claude-code/` imported, then
//! exported, and so is every transcript at the top of `corpus/read/transcript/ok/` as it is; the documents are golden snapshots in `golden/export/agentlog/<corpus>/<outcome>/`,
//! which `scripts/validate-agentlog.py` (run by CI) checks against the published schema.
//!
//! The round trip Claude Code session -> canonical -> AgentLog keeps every tool call with
//! its output and status, every file touched and the token totals: counted here straight
//! from the session files and compared with the document.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use axt::export::agentlog::{ExportOptions, export};
use axt::import::claude_code::{SessionFiles, convert, write};
use axt::normalize::{Options, Provider};
use axt::record::RecorderOptions;
use axt::transcribe::{EventOptions, RecordingSink, Transcriber};
use serde_json::Value;

use crate::golden_import::{sessions, stem};
use crate::support::{
    Failures, Outcome, PROVIDER_INPUTS, TempDir, export_golden, fixtures, import_corpus,
    normalize_corpus, now, read_corpus, snapshot_settings,
};

/// Compares `document` with `golden/export/agentlog/<corpus>/<outcome>/<name>.snap`.
fn snapshot(corpus: &str, outcome: Outcome, name: &str, document: &Value) {
    let text = serde_json::to_string_pretty(document).unwrap();
    snapshot_settings(&export_golden(corpus).join(outcome.as_str()), None)
        .bind(|| insta::assert_snapshot!(name.to_owned(), text));
}

fn check_shape(name: &str, document: &Value) {
    for key in [
        "specVersion",
        "id",
        "startTime",
        "status",
        "agent",
        "events",
    ] {
        assert!(document.get(key).is_some(), "{name}: {key} is required");
    }
    let mut ids = BTreeSet::new();
    for event in document["events"].as_array().unwrap() {
        let id = event["id"].as_str().unwrap();
        assert!(ids.insert(id.to_owned()), "{name}: event id {id} twice");
    }
}

/// Every `ok/` fixture of every provider: normalized, recorded, exported.
#[test]
fn provider_fixtures_export() {
    let mut failures = Failures::default();
    for provider in Provider::ALL {
        let corpus = normalize_corpus(provider);
        for fixture in fixtures(&corpus, &PROVIDER_INPUTS) {
            if fixture.outcome != Outcome::Ok || fixture.relative.components().count() != 2 {
                continue; // only the top of ok/: an err/ fixture's transcript is no run
            }
            let name = fixture.name();
            failures.check(&format!("{provider}/{}", fixture.id()), || {
                let scratch = TempDir::new(&format!("export-{provider}-{name}"));
                let events = EventOptions {
                    run_id: Some(format!("{provider}-{name}")),
                    clock: Box::new(now),
                };
                let mut transcriber = Transcriber::new(provider, Options::default(), events);
                let mut sink =
                    RecordingSink::new(scratch.path(), RecorderOptions::default(), |_| Ok(()));
                transcriber
                    .push(&std::fs::read(&fixture.path).unwrap(), &mut sink)
                    .unwrap();
                transcriber.finish(&mut sink).unwrap();
                let path = sink.recorder().unwrap().path().to_owned();
                sink.recorder().unwrap().close().unwrap();
                let document = export(&path, &ExportOptions::default()).unwrap();
                check_shape(&name, &document);
                snapshot(provider.as_str(), Outcome::Ok, &name, &document);
            });
        }
    }
    failures.finish();
}

/// Every transcript at the top of `corpus/read/transcript/ok/`, exported as it is.
#[test]
fn transcript_fixtures_export() {
    let mut failures = Failures::default();
    for fixture in fixtures(&read_corpus(), &["jsonl"]) {
        if fixture.outcome != Outcome::Ok || fixture.relative.components().count() != 2 {
            continue;
        }
        let name = fixture.name();
        failures.check(fixture.id(), || {
            let document = export(&fixture.path, &ExportOptions::default()).unwrap();
            check_shape(&name, &document);
            snapshot("transcript", Outcome::Ok, &name, &document);
        });
    }
    failures.finish();
}

/// The AgentLog document of a corpus session; `None` for a file refused as no session log.
fn export_session(outcome: Outcome, files: &SessionFiles) -> Option<Value> {
    let name = stem(files, outcome);
    let session = convert(files).ok()?;
    let scratch = TempDir::new(&format!("export-cc-{name}"));
    let written = write(&session, scratch.path(), false).unwrap();
    Some(export(&written[0], &ExportOptions::default()).unwrap())
}

#[test]
fn claude_code_sessions_export() {
    let mut failures = Failures::default();
    for outcome in Outcome::ALL {
        for files in sessions(outcome) {
            let name = stem(&files, outcome);
            failures.check(&format!("{outcome}/{name}"), || {
                let Some(document) = export_session(outcome, &files) else {
                    return; // refused whole: no session log, nothing to export
                };
                check_shape(&name, &document);
                snapshot("claude-code", outcome, &name, &document);
            });
        }
    }
    failures.finish();
}

/// What a session's files say, counted without axt: tool calls with their status, files
/// touched (relative to the cwd), token totals (per message id, last snapshot).
#[derive(Debug, Default, PartialEq)]
struct Counted {
    calls: BTreeMap<String, String>,
    files: BTreeSet<String>,
    tokens: [u64; 4],
}

/// The uuids of the entries a real rewind abandoned, found without axt: when two prompts the
/// user typed have the same parent, he went back and edited the earlier one, and it and
/// every entry below it are the abandoned branch (their tokens were spent; their calls are
/// not the run's).
fn abandoned(entries: &[Value]) -> HashSet<String> {
    let prompt = |e: &Value| {
        e["type"] == "user"
            && e["isMeta"] != Value::Bool(true)
            && e["isCompactSummary"] != Value::Bool(true)
            && match &e["message"]["content"] {
                Value::String(_) => true,
                Value::Array(blocks) => blocks.iter().all(|b| b["type"] == "text"),
                _ => false,
            }
    };
    let mut last_prompt: HashMap<&str, &str> = HashMap::new();
    let mut edited: Vec<&str> = Vec::new();
    for entry in entries.iter().filter(|e| prompt(e)) {
        let (Some(parent), Some(uuid)) = (entry["parentUuid"].as_str(), entry["uuid"].as_str())
        else {
            continue;
        };
        if let Some(earlier) = last_prompt.insert(parent, uuid) {
            edited.push(earlier);
        }
    }
    let mut gone: HashSet<String> = edited.iter().map(|u| u.to_string()).collect();
    loop {
        let before = gone.len();
        for entry in entries {
            if let (Some(parent), Some(uuid)) =
                (entry["parentUuid"].as_str(), entry["uuid"].as_str())
                && gone.contains(parent)
            {
                gone.insert(uuid.to_owned());
            }
        }
        if gone.len() == before {
            return gone;
        }
    }
}

fn count_directly(files: &SessionFiles) -> Counted {
    let mut counted = Counted::default();
    let mut usage: HashMap<String, Value> = HashMap::new();
    let mut inputs: HashMap<String, (String, Value)> = HashMap::new();
    let mut results: HashMap<String, bool> = HashMap::new();
    let mut cwd = String::new();
    let paths = files.main.iter().chain(&files.subagents);
    for path in paths {
        let entries: Vec<Value> = std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect();
        let abandoned = abandoned(&entries);
        for entry in entries {
            if let Some(dir) = entry["cwd"].as_str() {
                cwd = dir.to_owned();
            }
            if let (Some(id), Some(u)) = (
                entry["message"]["id"].as_str(),
                entry["message"].get("usage"),
            ) {
                usage.insert(id.to_owned(), u.clone()); // later snapshots replace earlier ones
            }
            let Some(blocks) = entry["message"]["content"].as_array() else {
                continue;
            };
            if entry["uuid"]
                .as_str()
                .is_some_and(|u| abandoned.contains(u))
            {
                continue;
            }
            for block in blocks {
                match block["type"].as_str() {
                    Some("tool_use") => {
                        let id = block["id"].as_str().unwrap().to_owned();
                        inputs.insert(
                            id,
                            (
                                block["name"].as_str().unwrap().to_owned(),
                                block["input"].clone(),
                            ),
                        );
                    }
                    Some("tool_result") => {
                        let id = block["tool_use_id"].as_str().unwrap().to_owned();
                        results.insert(id, block["is_error"] == Value::Bool(true));
                    }
                    _ => {}
                }
            }
        }
    }
    for (id, (name, input)) in &inputs {
        let status = match results.get(id) {
            Some(true) => "error",
            Some(false) => "success",
            None => "cancelled",
        };
        counted.calls.insert(id.clone(), status.to_owned());
        if matches!(name.as_str(), "Read" | "Write" | "Edit") && results.get(id) == Some(&false) {
            let path = input["file_path"].as_str().unwrap();
            let relative = path.strip_prefix(&format!("{cwd}/")).unwrap_or(path);
            counted.files.insert(relative.to_owned());
        }
    }
    for u in usage.values() {
        for (n, key) in [
            "input_tokens",
            "output_tokens",
            "cache_read_input_tokens",
            "cache_creation_input_tokens",
        ]
        .iter()
        .enumerate()
        {
            counted.tokens[n] += u[key].as_u64().unwrap_or(0);
        }
    }
    counted
}

#[test]
fn claude_code_round_trip_keeps_calls_files_and_tokens() {
    // `err/` too: a session with a problem still keeps every call it has.
    let all = Outcome::ALL
        .into_iter()
        .flat_map(|outcome| sessions(outcome).into_iter().map(move |f| (outcome, f)));
    for (outcome, files) in all {
        let name = stem(&files, outcome);
        let first = files.main.as_ref().unwrap_or_else(|| &files.subagents[0]);
        if !std::fs::read_to_string(first)
            .unwrap()
            .contains("\"sessionId\"")
        {
            continue; // the seed's simplified format, or no session log at all
        }
        let direct = count_directly(&files);
        let document = export_session(outcome, &files).unwrap();
        let mut exported = Counted::default();
        for event in document["events"].as_array().unwrap() {
            if event["type"] == "toolCall" {
                let id = event["properties"]["axt:callId"]
                    .as_str()
                    .unwrap()
                    .to_owned();
                let status = event["status"].as_str().unwrap().to_owned();
                if status != "cancelled" {
                    assert!(event["output"].is_string(), "{name}: {id} lost its output");
                }
                exported.calls.insert(id, status);
            }
        }
        exported.files = document["metrics"]["filesTouched"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap().to_owned())
            .collect();
        let usage = &document["metrics"]["tokenUsage"];
        let off = &document["properties"]["axt:offChainUsage"];
        for (n, key) in [
            "inputTokens",
            "outputTokens",
            "cacheReadTokens",
            "cacheWriteTokens",
        ]
        .iter()
        .enumerate()
        {
            exported.tokens[n] = usage[key].as_u64().unwrap() + off[key].as_u64().unwrap_or(0);
        }
        assert_eq!(exported, direct, "{name}: the round trip lost something");
        assert_eq!(
            document["metrics"]["toolCallCount"].as_u64().unwrap() as usize,
            direct.calls.len(),
            "{name}"
        );
    }
    assert!(import_corpus().exists());
}

#[test]
fn export_redacts_credentials_when_asked() {
    let scratch = TempDir::new("export-redact");
    let line = r#"{"type":"assistant","message":{"id":"msg_1","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"curl -H 'Authorization: Bearer abcdefghijklmnop1234' https://x"}}]},"session_id":"s"}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"key sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAA"}]},"session_id":"s"}
{"type":"result","subtype":"success","is_error":false,"session_id":"s"}
"#;
    let mut transcriber = Transcriber::new(
        Provider::Claude,
        Options::default(),
        EventOptions::default(),
    );
    let mut sink = RecordingSink::new(scratch.path(), RecorderOptions::default(), |_| Ok(()));
    transcriber.push(line.as_bytes(), &mut sink).unwrap();
    transcriber.finish(&mut sink).unwrap();
    let path = sink.recorder().unwrap().path().to_owned();
    let plain = export(&path, &ExportOptions::default())
        .unwrap()
        .to_string();
    assert!(plain.contains("sk-ant-api03-AAAA") && plain.contains("abcdefghijklmnop1234"));
    let options = ExportOptions {
        redact: true,
        ..ExportOptions::default()
    };
    let document = export(&path, &options).unwrap();
    let text = document.to_string();
    assert!(!text.contains("sk-ant-api03-AAAA"), "{text}");
    assert!(!text.contains("abcdefghijklmnop1234"), "{text}");
    assert!(text.contains("[REDACTED:anthropic_key]"));
    assert!(document["redactions"][0]["count"].as_u64().unwrap() >= 2);
}

/// Every event type of AgentLog 0.2.0 (its section 3) is in at least one golden document:
/// the export maps each kind the canonical data supports, and a new kind of data that
/// should reach one cannot go unnoticed.
#[test]
fn every_agentlog_event_type_is_in_a_golden_document() {
    const TYPES: [&str; 12] = [
        "message",
        "toolCall",
        "fileOperation",
        "terminalCommand",
        "search",
        "reasoning",
        "error",
        "handoff",
        "approval",
        "plan",
        "checkpoint",
        "contextLoad",
    ];
    let mut seen = BTreeSet::new();
    for file in crate::support::walk(&crate::support::root().join("golden/export/agentlog")) {
        let text = std::fs::read_to_string(&file).unwrap();
        let Some((_, body)) = text.split_once("\n---\n") else {
            continue;
        };
        let document: Value = serde_json::from_str(body).unwrap();
        for event in document["events"].as_array().unwrap() {
            seen.insert(event["type"].as_str().unwrap().to_owned());
        }
    }
    let missing: Vec<&str> = TYPES
        .iter()
        .copied()
        .filter(|t| !seen.contains(*t))
        .collect();
    assert!(missing.is_empty(), "no golden has {missing:?}");
    let unknown: Vec<&String> = seen
        .iter()
        .filter(|t| !TYPES.contains(&t.as_str()))
        .collect();
    assert!(
        unknown.is_empty(),
        "types AgentLog does not define: {unknown:?}"
    );
}
