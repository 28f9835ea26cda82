//! Normalizer behaviour beyond the snapshots: exact values for the rules that matter most,
//! the strict entry point, and the seed documents' jq recipes on real `axt normalize` output.

use std::process::Command;

use axt::model::Block;
use axt::normalize::{DiagnosticKind, Options, Provider, RunStatus, normalize, normalize_lossy};
use serde_json::{Value, json};

use super::cli::providers;
use crate::support::ROOT;
use crate::support::Tokens;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!("{ROOT}/corpus/normalize/claude/{name}")).unwrap()
}

#[test]
fn usage_is_the_last_snapshot_per_message_when_no_result_says_otherwise() {
    // The fixture's result line holds the authoritative total; without it, axt must arrive at
    // the same figures from the per-line copies: 3 lines of message 1 (output 12, 58, 131) and
    // 2 of message 2 (7, 44). Summing lines would give 252 output tokens, first-wins 19.
    let input = fixture("ok/usage-dedup-growing-snapshots.jsonl");
    let without_result: Vec<&[u8]> = input
        .split(|b| *b == b'\n')
        .filter(|line| !line.starts_with(br#"{"type":"result""#))
        .collect();
    let normalized = normalize_lossy(
        Provider::Claude,
        &without_result.join(&b'\n'),
        Options::default(),
    );
    assert_eq!(
        normalized.meta.usage,
        Tokens {
            input_tokens: 4,
            output_tokens: 175,
            cache_read_tokens: 36_748,
            cache_write_tokens: 5_484,
            reasoning_tokens: 0,
        }
    );
    assert_eq!(normalized.meta.status, RunStatus::Incomplete);
    let kinds: Vec<_> = normalized.diagnostics.iter().map(|d| d.kind).collect();
    assert_eq!(kinds, [DiagnosticKind::MissingTerminal]);
}

#[test]
fn strict_entry_point_fails_on_the_first_error_and_accepts_warnings() {
    let ok = normalize(
        Provider::Claude,
        &fixture("ok/dangling-tool-use-interrupted.jsonl"),
        Options::default(),
    );
    let ok = ok.expect("a dangling tool call is a warning, not an error");
    assert_eq!(ok.diagnostics.len(), 1);

    let error = normalize(
        Provider::Claude,
        &fixture("err/non-json-sandbox-banner-and-blank-line.jsonl"),
        Options::default(),
    )
    .unwrap_err();
    insta::assert_snapshot!(error, @r#"claude output: line 3 (byte 1569): error[not-json]: not a JSON record, skipped: "[SandboxDebug] Seccomp filter applied successfully; network ...""#);
}

#[test]
fn raw_nul_bytes_keep_their_code_point() {
    let normalized = normalize_lossy(
        Provider::Claude,
        &fixture("ok/nul-bytes-in-tool-result-and-text.jsonl"),
        Options::default(),
    );
    let texts: Vec<&str> = normalized
        .blocks()
        .filter_map(|block| match &block.block {
            Block::Text { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert!(texts.iter().any(|text| text.contains('\0')), "{texts:?}");
    let output = normalized.blocks().find_map(|block| match &block.block {
        Block::ToolResult { tool_content, .. } => tool_content.as_str(),
        _ => None,
    });
    assert!(output.unwrap().contains('\0'));
}

#[test]
fn sub_agent_blocks_keep_their_scope() {
    let normalized = normalize_lossy(
        Provider::Claude,
        &fixture("ok/subagent-agent-tool-parent-tool-use-id.jsonl"),
        Options::default(),
    );
    let scoped: Vec<_> = normalized
        .items
        .iter()
        .map(|item| (item.block.block.type_name(), item.agent.as_deref()))
        .collect();
    let spawner = Some("toolu_014xf2MvQyGplpErf87038J1");
    assert_eq!(
        scoped,
        [
            ("text", None),
            ("tool_use", None),
            ("text", spawner),
            ("tool_use", spawner),
            ("tool_result", spawner),
            ("text", spawner),
            ("tool_result", None),
            ("text", None),
        ]
    );
}

fn axt(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_axt"))
        .args(args)
        .current_dir(ROOT)
        .output()
        .unwrap()
}

#[test]
fn cli_exit_codes_and_diagnostics() {
    let clean = axt(&[
        "normalize",
        "corpus/normalize/claude/ok/plain-session-thinking-text-bash.jsonl",
    ]);
    assert_eq!(clean.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&clean.stderr), "");

    let warned = axt(&[
        "normalize",
        "corpus/normalize/claude/ok/dangling-tool-use-interrupted.jsonl",
    ]);
    assert_eq!(
        warned.status.code(),
        Some(0),
        "warnings do not fail the run"
    );
    insta::assert_snapshot!(String::from_utf8_lossy(&warned.stderr), @"corpus/normalize/claude/ok/dangling-tool-use-interrupted.jsonl:5: byte 2808: dangling-tool-use: warning: tool_use Bash (toolu_01FRIBXuDL7DxtpYlSXpfKtH) never received a result");

    let broken = axt(&[
        "normalize",
        "--max-record-bytes",
        "65536",
        "corpus/normalize/claude/err/record-over-64kib.jsonl",
    ]);
    assert_eq!(broken.status.code(), Some(1));
    insta::assert_snapshot!(String::from_utf8_lossy(&broken.stderr), @r"
    corpus/normalize/claude/err/record-over-64kib.jsonl:3: byte 1602: record-too-large: record of 69014 bytes is over the limit, skipped (the limit is 65536 bytes: --max-record-bytes)
    corpus/normalize/claude/err/record-over-64kib.jsonl:2: byte 736: dangling-tool-use: warning: tool_use Bash (toolu_01Lp6RxT3vNq9WbK2mYc8ZfG) never received a result
    ");
    assert!(
        !broken.stdout.is_empty(),
        "the valid data around the problem is still written"
    );

    let unknown = axt(&["normalize", "corpus/read/transcript/ok/plain-run.jsonl"]);
    assert_eq!(unknown.status.code(), Some(2));
    insta::assert_snapshot!(providers(&String::from_utf8_lossy(&unknown.stderr)), @"axt: corpus/read/transcript/ok/plain-run.jsonl: cannot detect the provider (no provider's records recognized); pass --provider (PROVIDERS)");
}

/// Runs a jq program over a transcript and returns its output as JSON values.
fn jq(program: &[&str], transcript: &str) -> Vec<Value> {
    let output = Command::new("jq")
        .args(program)
        .arg(transcript)
        .output()
        .expect(
            "jq is installed (.ci/run installs it): the seed's recipes are part of the contract",
        );
    assert!(
        output.status.success(),
        "jq {program:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::Deserializer::from_slice(&output.stdout)
        .into_iter::<Value>()
        .collect::<Result<_, _>>()
        .unwrap_or_else(|_| {
            // `jq -r` prints raw text: one string per line.
            String::from_utf8_lossy(&output.stdout)
                .lines()
                .map(|l| json!(l))
                .collect()
        })
}

/// Every recipe of the "Querying the Transcript" sections of transcript-schema.txt and
/// transcript-guide.txt, on axt's transcript of a session with a sub-agent.
#[test]
fn the_seed_jq_recipes_answer_correctly() {
    let dir = std::env::temp_dir().join(format!("axt-jq-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let transcript = dir.join("run.jsonl");
    let normalized = axt(&[
        "normalize",
        "--run-id",
        "run-1",
        "corpus/normalize/claude/ok/subagent-agent-tool-parent-tool-use-id.jsonl",
    ]);
    assert_eq!(normalized.status.code(), Some(0));
    std::fs::write(&transcript, &normalized.stdout).unwrap();
    let path = transcript.to_str().unwrap();
    let (agent, grep) = (
        "toolu_014xf2MvQyGplpErf87038J1",
        "toolu_019ubusu9jXPA383NR0esNm5",
    );

    // Pretty-print an entire run: every line is one JSON object.
    assert_eq!(jq(&["."], path).len(), 16);

    // Extract every tool call with its result.
    let calls = jq(
        &[
            "-s",
            r#"[.[] | select(.type == "tool.call" or .type == "tool.result")]
            | group_by(.payload.call_id)
            | map({call_id: .[0].payload.call_id, name: .[0].payload.name,
                   input: (map(select(.type == "tool.call"))[0].payload.input),
                   output: (map(select(.type == "tool.result"))[0].payload.output)})"#,
        ],
        path,
    );
    let calls = calls[0].as_array().unwrap();
    assert_eq!(calls.len(), 2);
    for call in calls {
        assert!(call["input"].is_object(), "{call}");
        assert!(!call["output"].is_null(), "{call}");
    }
    let names: Vec<_> = calls
        .iter()
        .map(|c| (c["call_id"].as_str().unwrap(), c["name"].as_str().unwrap()))
        .collect();
    assert_eq!(names, [(agent, "Agent"), (grep, "Grep")]);
    let guide = jq(
        &[
            "-c",
            r#"select(.type == "tool.call" or .type == "tool.result") | .type"#,
        ],
        path,
    );
    assert_eq!(
        guide,
        [
            json!("tool.call"),
            json!("tool.call"),
            json!("tool.result"),
            json!("tool.result")
        ]
    );

    // List all assistant text content blocks (the same filter, printed as JSON strings so a
    // text with newlines stays one value).
    let texts = jq(
        &[
            "-c",
            r#"select(.type == "message.assistant") | .payload.blocks[] | select(.type == "text") | .text"#,
        ],
        path,
    );
    assert_eq!(texts.len(), 3, "the sub-agent prompt is a message.user");
    assert_eq!(
        texts[0],
        json!("I'll ask an Explore subagent to find the remaining users of the hook.")
    );

    // seq is monotonic.
    assert_eq!(jq(&["-s", "[.[].seq] | . == (sort)"], path), [json!(true)]);

    // Reconstruct the step path tree.
    let steps = jq(
        &[
            "-r",
            r#"select(.type == "step.started") | "\(.seq)\t\(.path)\t\(.payload.kind)\t\(.payload.name)""#,
        ],
        path,
    );
    assert_eq!(
        steps,
        [
            json!("2\tagent\tagent\tagent"),
            json!(format!("6\tagent.{agent}\tagent\tExplore"))
        ]
    );
    let guide_steps = jq(
        &[
            "-r",
            r#"select(.type == "step.started") | "\(.seq)\t\(.path)\t\(.payload.kind)""#,
        ],
        path,
    );
    assert_eq!(guide_steps.len(), 2);

    // Child runs: a normalized agent run invokes no sub-workflow (sub-agents are steps).
    assert!(
        jq(
            &[
                "-r",
                r#"select(.type == "step.call_workflow.started") | .child_run_id"#
            ],
            path
        )
        .is_empty()
    );

    // Tool calls by fidelity; and the router-only filter.
    let fidelity = jq(
        &[
            "-s",
            r#"[.[] | select(.type == "tool.call")] | group_by(.payload.fidelity) | map({fidelity: .[0].payload.fidelity, count: length})"#,
        ],
        path,
    );
    assert_eq!(
        fidelity,
        [json!([{"fidelity": "agent_emitted", "count": 2}])]
    );
    assert!(
        jq(
            &[r#"select(.type == "tool.call" and .payload.fidelity == "router")"#],
            path
        )
        .is_empty()
    );

    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--out DIR` records through the recorder: `DIR/<run-id>.jsonl`, mode 0600, the same
/// events as on stdout apart from their timestamps.
#[test]
fn out_dir_records_the_same_transcript_as_stdout() {
    use std::os::unix::fs::PermissionsExt;

    let dir = std::env::temp_dir().join(format!("axt-out-{}", std::process::id()));
    let fixture = "corpus/normalize/claude/ok/plain-session-thinking-text-bash.jsonl";
    let recorded = axt(&["normalize", "--out", dir.to_str().unwrap(), fixture]);
    assert_eq!(recorded.status.code(), Some(0));
    assert!(recorded.stdout.is_empty());
    let session = "cd613e30-d8f1-4adf-81b7-584a2265b1f5";
    let path = dir.join(format!("{session}.jsonl"));
    assert_eq!(
        String::from_utf8_lossy(&recorded.stderr),
        format!("axt: wrote {}\n", path.display())
    );
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);

    let without_timestamps = |bytes: &[u8]| -> Vec<Value> {
        bytes
            .split(|b| *b == b'\n')
            .filter(|line| !line.is_empty())
            .map(|line| {
                let mut event: Value = serde_json::from_slice(line).unwrap();
                event.as_object_mut().unwrap().remove("timestamp");
                event
            })
            .collect()
    };
    let printed = axt(&["normalize", fixture]);
    let file = std::fs::read(&path).unwrap();
    assert_eq!(
        without_timestamps(&file),
        without_timestamps(&printed.stdout)
    );
    assert_eq!(without_timestamps(&file).len(), 10);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Metadata stays bounded however long the stream: past the limit, passthrough records are
/// counted by kind instead of kept.
#[test]
fn passthrough_metadata_is_bounded_and_counts_what_it_does_not_keep() {
    use axt::normalize::PASSTHROUGH_LIMIT;

    let mut input = Vec::new();
    for n in 0..PASSTHROUGH_LIMIT + 250 {
        input.extend_from_slice(
            format!(r#"{{"type":"rate_limit_event","rate_limit_info":{{"status":"allowed","n":{n}}},"session_id":"s"}}"#)
                .as_bytes(),
        );
        input.push(b'\n');
    }
    let normalized = normalize_lossy(Provider::Claude, &input, Options::default());
    assert_eq!(normalized.meta.passthrough.len(), PASSTHROUGH_LIMIT);
    assert_eq!(
        normalized.meta.passthrough[0].raw["rate_limit_info"]["n"],
        json!(0)
    );
    assert_eq!(
        normalized.meta.passthrough_omitted,
        [("rate_limit_event".to_owned(), 250)].into_iter().collect()
    );
}

/// `--report` prints what the adapter saw and did; `run.completed` carries it either way.
#[test]
fn the_input_report_names_new_record_types_and_fields() {
    let fixture = "corpus/normalize/gemini/ok/new-event-type-and-field-in-input-report.jsonl";
    let output = axt(&["normalize", "--report", fixture]);
    assert_eq!(output.status.code(), Some(0));
    insta::assert_snapshot!(String::from_utf8_lossy(&output.stderr), @r"
    corpus/normalize/gemini/ok/new-event-type-and-field-in-input-report.jsonl: gemini input report
    record type      seen   mapped  passthrough  ignored  skipped
    init                1        1            0        0        0
    message             2        2            0        0        0
    result              1        1            0        0        0
    thought             2        0            2        0        0
    tool_result         1        1            0        0        0
    tool_use            1        1            0        0        0
    (unreadable)        0
    unknown fields:
      tool_use: subagent (1)
    ");
    let last = output
        .stdout
        .split(|b| *b == b'\n')
        .rfind(|l| !l.is_empty());
    let completed: Value = serde_json::from_slice(last.unwrap()).unwrap();
    assert_eq!(
        completed["payload"]["result"]["report"],
        json!({
            "records": {
                "init": {"seen": 1, "mapped": 1},
                "message": {"seen": 2, "mapped": 2},
                "result": {"seen": 1, "mapped": 1},
                "thought": {"seen": 2, "passthrough": 2},
                "tool_result": {"seen": 1, "mapped": 1},
                "tool_use": {"seen": 1, "mapped": 1, "unknown_fields": {"subagent": 1}}
            },
            "unreadable": 0
        })
    );
}

/// `--provider claude` on Codex output is not a clean, empty run: every record is reported
/// as Codex's, and the run as unrecognized input that looks like Codex output.
#[test]
fn the_wrong_provider_is_an_error_that_names_the_right_one() {
    let output = axt(&[
        "normalize",
        "--provider",
        "claude",
        "corpus/normalize/codex/ok/shared-scenario-shell-command.jsonl",
    ]);
    assert_eq!(output.status.code(), Some(1));
    insta::assert_snapshot!(String::from_utf8_lossy(&output.stderr), @"
    corpus/normalize/codex/ok/shared-scenario-shell-command.jsonl:1: byte 0: foreign-record: a codex record (thread.started) in claude output; kept as passthrough, not read
    corpus/normalize/codex/ok/shared-scenario-shell-command.jsonl:2: byte 77: foreign-record: a codex record (turn.started) in claude output; kept as passthrough, not read
    corpus/normalize/codex/ok/shared-scenario-shell-command.jsonl:3: byte 101: foreign-record: a codex record (item.started) in claude output; kept as passthrough, not read
    corpus/normalize/codex/ok/shared-scenario-shell-command.jsonl:4: byte 280: foreign-record: a codex record (item.completed) in claude output; kept as passthrough, not read
    corpus/normalize/codex/ok/shared-scenario-shell-command.jsonl:5: byte 460: foreign-record: a codex record (item.completed) in claude output; kept as passthrough, not read
    corpus/normalize/codex/ok/shared-scenario-shell-command.jsonl:6: byte 573: foreign-record: a codex record (turn.completed) in claude output; kept as passthrough, not read
    corpus/normalize/codex/ok/shared-scenario-shell-command.jsonl:6: byte 674: missing-terminal: the stream ended without a result record; the run is incomplete
    corpus/normalize/codex/ok/shared-scenario-shell-command.jsonl:1: byte 0: unrecognized-input: none of the input's 6 records is claude output; the input looks like codex output (--provider codex)
    ");
}

/// Auto-detection decides on the first complete record however long it is (up to
/// `--max-record-bytes`), not on the first MiB of bytes.
#[test]
fn detection_reads_a_first_record_longer_than_a_mib() {
    let text = "x".repeat(1_500_000);
    let first = json!({"type": "assistant", "message": {"id": "msg_01Big", "type": "message",
        "role": "assistant", "model": "claude-sonnet-4-6",
        "content": [{"type": "text", "text": text}]},
        "parent_tool_use_id": null, "session_id": "s-big"});
    let result = json!({"type": "result", "subtype": "success", "is_error": false,
        "session_id": "s-big", "result": "done"});
    let path = std::env::temp_dir().join(format!("axt-big-first-{}.jsonl", std::process::id()));
    std::fs::write(&path, format!("{first}\n{result}\n")).unwrap();
    let file = path.to_str().unwrap();
    let detected = axt(&["normalize", "--run-id", "big", file]);
    assert_eq!(detected.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&detected.stderr), "");
    let transcript = String::from_utf8_lossy(&detected.stdout);
    assert!(transcript.contains(r#""name":"claude""#));
    assert!(transcript.contains(&text));

    // A first record over the limit cannot be looked at: said so, not "not recognized".
    let limited = axt(&["normalize", "--max-record-bytes", "1000000", file]);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(limited.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&limited.stderr).replace(file, "FILE");
    insta::assert_snapshot!(providers(&stderr), @"axt: FILE: cannot detect the provider (its first record is longer than --max-record-bytes); pass --provider (PROVIDERS)");
}

/// What never came (the terminal record) is reported at the last line read and the end of
/// the input, for every provider, even when not a single record was read: never at line 0.
#[test]
fn a_missing_terminal_points_at_the_last_line_read() {
    let over_long = "x".repeat(300);
    let cases: [(&str, &[u8], (u64, u64)); 4] = [
        ("empty", b"", (1, 0)),
        ("blank lines", b"\n\n", (2, 2)),
        ("blank lines, then spaces", b"\n\n  ", (3, 4)),
        ("one over-long record", over_long.as_bytes(), (1, 300)),
    ];
    for provider in Provider::ALL {
        for (name, input, at) in cases {
            let options = Options {
                max_record_bytes: 100,
            };
            let normalized = normalize_lossy(provider, input, options);
            let missing: Vec<_> = normalized
                .diagnostics
                .iter()
                .filter(|d| d.kind == DiagnosticKind::MissingTerminal)
                .map(|d| (d.line, d.offset))
                .collect();
            assert_eq!(missing, [at], "{provider}, {name}");
        }
    }
}

/// `--provider auto` recognizes every fixture of every corpus as its own provider's, in
/// every form the adapters read (lines, SSE, pretty documents, JSON array streams, binary
/// event streams), save the fixtures that exist to show another provider's output or
/// nobody's.
#[test]
fn every_fixture_is_detected_as_its_providers() {
    const NOT_THEIRS: [(&str, Option<Provider>); 2] = [
        (
            "claude/err/codex-exec-output-read-as-claude.jsonl",
            Some(Provider::Codex),
        ),
        (
            "gemini/err/pretty-json-parser-failure-wrapper-not-gemini.json",
            None,
        ),
    ];
    let mut wrong = Vec::new();
    for provider in Provider::ALL {
        let corpus = crate::support::normalize_corpus(provider);
        for fixture in crate::support::fixtures(&corpus, &crate::support::PROVIDER_INPUTS) {
            let input = std::fs::read(&fixture.path).unwrap();
            let id = format!("{provider}/{}", fixture.id());
            let expected = NOT_THEIRS
                .iter()
                .find(|(not_theirs, _)| *not_theirs == id)
                .map_or(Some(provider), |(_, detected)| *detected);
            let detected = Provider::detect(&input);
            if detected != expected {
                wrong.push(format!("{id}: {detected:?}, not {expected:?}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
