//! The Copilot adapter on a real capture (`../shared/captures/copilot/`, beside the
//! repository; skipped with a note where it is absent) and exact values for the rules that
//! matter most: one tool_use per call, usage conversion, session logs.

use axt::normalize::{DiagnosticKind, Provider, RunStatus};

use crate::support::Tokens;
use crate::support::adapter::{assert_no_errors, captures, run, sequence};
use crate::support::{normalize_corpus, shared_captures};

#[test]
fn copilot_capture_blocks() {
    let Some(files) = captures("copilot") else {
        return;
    };
    for path in &files {
        let input = std::fs::read(path).unwrap();
        assert_eq!(
            Provider::detect(&input),
            Some(Provider::Copilot),
            "{path:?}"
        );
        assert_no_errors(&path.display().to_string(), &run(Provider::Copilot, &input));
    }
    let path = shared_captures("copilot").join("cli-output-format-json.sortie-v1.0.13.jsonl");
    let normalized = run(Provider::Copilot, &std::fs::read(path).unwrap());
    assert_eq!(
        sequence(&normalized),
        [
            "user text \"Say exactly: hello world\"",
            "assistant text \"\\n\\nhello world\"",
            "assistant tool_use view toolu_vrtx_...",
            "user tool_result toolu_vrtx_... \"1. package main\\n2. \" error=false",
        ]
    );
    let meta = &normalized.meta;
    assert_eq!(
        meta.session_id.as_deref(),
        Some("aa778ea0-6eab-4ce9-b87e-11d6d33dab4f")
    );
    assert_eq!(meta.status, RunStatus::Completed);
    assert_eq!(meta.duration_ms, Some(12927));
    assert_eq!(meta.model.as_deref(), Some("claude-opus-4.6"));
    // Summed over both messages (6 + 102), not the last message's alone.
    assert_eq!(meta.usage.output_tokens, 108);
}

#[test]
fn copilot_one_tool_use_per_call_whichever_comes_first() {
    let input = br#"{"type":"tool.execution_start","data":{"toolCallId":"a","toolName":"bash","arguments":{"command":"ls"}},"id":"1","timestamp":"t","parentId":null}
{"type":"assistant.message","data":{"messageId":"m","content":"","toolRequests":[{"toolCallId":"a","name":"bash","arguments":{"command":"ls"}},{"toolCallId":"b","name":"view","arguments":{"path":"x"}}],"outputTokens":5},"id":"2","timestamp":"t","parentId":"1"}
{"type":"tool.execution_start","data":{"toolCallId":"b","toolName":"view","arguments":{"path":"x"}},"id":"3","timestamp":"t","parentId":"2"}
{"type":"tool.execution_complete","data":{"toolCallId":"a","success":true,"result":{"content":"x\n"}},"id":"4","timestamp":"t","parentId":"3"}
{"type":"tool.execution_complete","data":{"toolCallId":"b","success":false,"error":{"message":"no such file"}},"id":"5","timestamp":"t","parentId":"4"}
{"type":"result","timestamp":"t","sessionId":"s","exitCode":0,"usage":{"premiumRequests":1}}
"#;
    let normalized = run(Provider::Copilot, input);
    assert_eq!(
        sequence(&normalized),
        [
            "assistant tool_use bash a",
            "assistant command \"ls\"",
            "assistant tool_use view b",
            "user tool_result a \"x\\n\" error=false",
            "user tool_result b \"no such file\" error=true",
        ]
    );
    assert!(normalized.diagnostics.is_empty());
}

/// A result's content is its first field of `content`, `detailedContent`, `contents` that is
/// there and not null (a field given twice counts as its last copy); a result of another shape
/// has none, and the error's message stands in. Pins what the adapter read when it built the
/// whole result as a value, now that it reads only those three fields.
#[test]
fn copilot_tool_result_content_is_the_first_field_there_and_not_null() {
    let call = |id: &str| {
        format!(
            r#"{{"type":"tool.execution_start","data":{{"toolCallId":"{id}","toolName":"view","arguments":{{}}}},"id":"s{id}","timestamp":"t","parentId":null}}"#
        )
    };
    let done = |id: &str, rest: &str| {
        format!(
            r#"{{"type":"tool.execution_complete","data":{{"toolCallId":"{id}",{rest}}},"id":"c{id}","timestamp":"t","parentId":null}}"#
        )
    };
    let cases = [
        (
            "a",
            r#""success":true,"result":{"content":null,"detailedContent":"full","contents":[1]}"#,
        ),
        (
            "b",
            r#""success":true,"result":{"other":{"content":"no"},"contents":[{"type":"text","text":"x"}]}"#,
        ),
        (
            "c",
            r#""success":true,"result":{"content":"first","content":null,"detailedContent":"kept"}"#,
        ),
        (
            "d",
            r#""success":false,"result":"a string","error":{"message":"boom"}"#,
        ),
        (
            "e",
            r#""success":true,"result":[{"content":"in an array"}]"#,
        ),
        (
            "f",
            r#""success":true,"result":null,"error":{"message":"null result"}"#,
        ),
        (
            "g",
            r#""success":true,"result":{"content":{"nested":["x",2]},"detailedContent":"no"}"#,
        ),
    ];
    let mut input = String::new();
    for (id, rest) in cases {
        input.push_str(&call(id));
        input.push('\n');
        input.push_str(&done(id, rest));
        input.push('\n');
    }
    input.push_str(r#"{"type":"result","timestamp":"t","sessionId":"s","exitCode":0}"#);
    input.push('\n');
    let normalized = run(Provider::Copilot, input.as_bytes());
    let results: Vec<String> = sequence(&normalized)
        .into_iter()
        .filter(|line| line.contains("tool_result"))
        .collect();
    assert_eq!(
        results,
        [
            "user tool_result a \"full\" error=false",
            "user tool_result b [{\"text\":\"x\",\"type\":\"text\"}] error=false",
            "user tool_result c \"kept\" error=false",
            "user tool_result d \"boom\" error=true",
            "user tool_result e null error=false",
            "user tool_result f \"null result\" error=false",
            "user tool_result g {\"nested\":[\"x\",2]} error=false",
        ]
    );
    assert!(
        normalized.diagnostics.is_empty(),
        "{:?}",
        normalized.diagnostics
    );
}

#[test]
fn copilot_usage_sums_messages_and_prefers_assistant_usage() {
    let message = |tokens: u64| {
        format!(
            r#"{{"type":"assistant.message","data":{{"messageId":"m{tokens}","content":"x","outputTokens":{tokens}}},"id":"{tokens}","timestamp":"t","parentId":null}}"#
        )
    };
    let result = r#"{"type":"result","timestamp":"t","sessionId":"s","exitCode":0}"#;
    let input = [message(3), message(4), message(5), result.to_owned()].join("\n");
    let normalized = run(Provider::Copilot, input.as_bytes());
    assert_eq!(normalized.meta.usage.output_tokens, 12);

    let usage = r#"{"type":"assistant.usage","data":{"model":"gpt-5","inputTokens":1000,"outputTokens":9,"reasoningTokens":4,"cacheReadTokens":600,"cacheWriteTokens":100,"cost":1},"id":"u","timestamp":"t","parentId":null,"ephemeral":true}"#;
    let input = [message(3), usage.to_owned(), result.to_owned()].join("\n");
    let normalized = run(Provider::Copilot, input.as_bytes());
    assert_eq!(
        normalized.meta.usage,
        Tokens {
            input_tokens: 300,
            output_tokens: 9,
            cache_read_tokens: 600,
            cache_write_tokens: 100,
            reasoning_tokens: 4,
        }
    );
    assert_eq!(normalized.meta.cost_usd, None, "cost is a multiplier");
}

#[test]
fn copilot_without_result_is_incomplete_and_nonzero_exit_is_failed() {
    let normalized = run(Provider::Copilot, b"");
    assert_eq!(normalized.meta.status, RunStatus::Incomplete);
    let kinds: Vec<_> = normalized.diagnostics.iter().map(|d| d.kind).collect();
    assert_eq!(kinds, [DiagnosticKind::MissingTerminal]);

    let normalized = run(
        Provider::Copilot,
        br#"{"type":"result","timestamp":"t","sessionId":"s","exitCode":2}"#,
    );
    assert_eq!(normalized.meta.status, RunStatus::Failed);
    assert_eq!(
        normalized.meta.errors[0].message,
        "the CLI exited with code 2"
    );
}

/// A fixture of the Copilot corpus, by its path there (`ok/...`).
fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(normalize_corpus("copilot").join(name)).unwrap()
}

/// A session log (`~/.copilot/session-state/<id>/events.jsonl`) has no `result` line and no
/// `assistant.usage`: its tokens are in `session.shutdown`'s `modelMetrics`, whose
/// `inputTokens` include the cache reads and writes.
#[test]
fn copilot_session_log_usage_comes_from_the_shutdown() {
    let input = fixture("ok/session-log-events-jsonl-shutdown-model-metrics.jsonl");
    assert_eq!(Provider::detect(&input), Some(Provider::Copilot));
    let normalized = run(Provider::Copilot, &input);
    assert!(
        normalized.diagnostics.is_empty(),
        "{:?}",
        normalized.diagnostics
    );
    let meta = &normalized.meta;
    assert_eq!(
        meta.usage,
        Tokens {
            input_tokens: 45,
            output_tokens: 70,
            cache_read_tokens: 24_576,
            cache_write_tokens: 5_791,
            reasoning_tokens: 0,
        }
    );
    assert_eq!(meta.status, RunStatus::Completed);
    assert_eq!(
        (
            meta.session_id.as_deref(),
            meta.provider_version.as_deref(),
            meta.model.as_deref()
        ),
        (
            Some("b8478ef8-4f85-525d-816f-f7bce49ebffc"),
            Some("1.0.63"),
            Some("claude-sonnet-4.5")
        )
    );
    assert_eq!(
        meta.raw_usage.as_ref().unwrap()["claude-sonnet-4.5"]["requests"]["count"],
        2
    );

    // A shutdown's totals replace the per-call counts a stream may also carry.
    let usage = r#"{"type":"assistant.usage","data":{"model":"gpt-5","inputTokens":1000,"outputTokens":9,"cacheReadTokens":600,"cacheWriteTokens":100},"id":"u","timestamp":"2026-04-02T15:00:00.100Z","parentId":null,"ephemeral":true}"#;
    let shutdown = r#"{"type":"session.shutdown","data":{"shutdownType":"routine","modelMetrics":{"gpt-5":{"requests":{"count":2,"cost":1},"usage":{"inputTokens":2500,"outputTokens":30,"cacheReadTokens":2000,"cacheWriteTokens":100,"reasoningTokens":8}}}},"id":"s","timestamp":"2026-04-02T15:00:01.100Z","parentId":"u"}"#;
    let normalized = run(
        Provider::Copilot,
        format!("{usage}\n{shutdown}\n").as_bytes(),
    );
    assert_eq!(
        normalized.meta.usage,
        Tokens {
            input_tokens: 400,
            output_tokens: 30,
            cache_read_tokens: 2_000,
            cache_write_tokens: 100,
            reasoning_tokens: 8,
        }
    );
}

/// A resumed session has a shutdown per process: a running total when no count went down
/// (current CLIs), else one leg per process, added up (older ones).
#[test]
fn copilot_resumed_session_shutdowns_are_a_running_total_or_legs() {
    let running = run(
        Provider::Copilot,
        &fixture("ok/session-log-resumed-running-total-two-shutdowns.jsonl"),
    );
    assert_eq!(
        running.meta.usage,
        Tokens {
            input_tokens: 1_300,
            output_tokens: 125,
            cache_read_tokens: 30_000,
            cache_write_tokens: 9_400,
            reasoning_tokens: 0,
        }
    );
    assert_eq!(running.meta.status, RunStatus::Completed);

    let legs = run(
        Provider::Copilot,
        &fixture("ok/session-log-resumed-per-process-counts-shutdown-error.jsonl"),
    );
    assert_eq!(
        legs.meta.usage,
        Tokens {
            input_tokens: 140,
            output_tokens: 70,
            cache_read_tokens: 20_000,
            cache_write_tokens: 6_860,
            reasoning_tokens: 0,
        }
    );
    assert_eq!(legs.meta.status, RunStatus::Failed);
    let fatal: Vec<_> = legs.meta.errors.iter().filter(|e| e.fatal).collect();
    assert_eq!(fatal.len(), 1);
    assert_eq!(
        (fatal[0].message.as_str(), fatal[0].line),
        ("Lost connection to the Copilot API: ECONNRESET", 13)
    );
}

/// Found by the `copilot_chunked` fuzz target (fuzz/regressions/copilot_chunked/): a
/// `session.error` with empty data failed the run with an empty error message, which the
/// strict writer refuses, so `axt normalize` could not write the transcript. The message is
/// now the record's type, and the mapper never hands the writer an empty error.
#[test]
fn a_session_error_without_a_message_still_writes_a_failed_run() {
    use axt::model::{EventType, Payload};
    use axt::normalize::Options;
    use axt::transcribe::{EventOptions, JsonlSink, Transcriber};

    let input = b"{\"type\":\"session.error\",\"data\":{}}\n";
    let mut transcriber = Transcriber::new(
        Provider::Copilot,
        Options::default(),
        EventOptions::default(),
    );
    let mut sink = JsonlSink::new(Vec::new(), |_| Ok(()));
    transcriber.push(input, &mut sink).unwrap();
    transcriber.finish(&mut sink).unwrap();
    assert_eq!(transcriber.meta().status, RunStatus::Failed);
    let transcript = sink.into_inner();
    let last = transcript.split(|b| *b == b'\n').rev().nth(1).unwrap();
    let event = axt::model::decode_event(last).unwrap();
    assert_eq!(event.event_type, EventType::RunCompleted);
    let Payload::Step(step) = event.payload else {
        panic!("{event:?}")
    };
    assert_eq!(step.error.as_deref(), Some("session.error"));
}
