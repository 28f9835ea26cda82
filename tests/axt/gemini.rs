//! The Gemini and Copilot adapters on real captures (`../shared/captures/`, beside the
//! repository; skipped with a note where it is absent) and exact values for the rules that
//! matter most: delta accumulation, one tool_use per call, usage conversion, json documents.

use std::path::{Path, PathBuf};

use axt::model::Block;
use axt::normalize::{
    DiagnosticKind, Normalized, Options, Provider, RunStatus, Severity, Usage, normalize_lossy,
};
use serde_json::json;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

// The note is for whoever runs the tests without the shared captures beside the checkout.
#[allow(clippy::print_stderr)]
fn captures(provider: &str) -> Option<Vec<PathBuf>> {
    let dir = Path::new(ROOT).join("../shared/captures").join(provider);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("note: {} is absent; capture checks skipped", dir.display());
        return None;
    };
    let mut files: Vec<PathBuf> = entries
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    Some(files)
}

fn run(provider: Provider, input: &[u8]) -> Normalized {
    normalize_lossy(provider, input, Options::default())
}

/// `type` plus the identifying field of each block, for exact sequences.
fn sequence(normalized: &Normalized) -> Vec<String> {
    normalized
        .items
        .iter()
        .map(|item| {
            let role = item.role.as_str();
            match &item.block.block {
                Block::Text { text, .. } => format!("{role} text {text:?}"),
                Block::Thinking { thinking, .. } => format!("{role} thinking {thinking:?}"),
                Block::ToolUse {
                    tool_name, tool_id, ..
                } => format!("{role} tool_use {tool_name} {tool_id}"),
                Block::ToolResult {
                    tool_id,
                    tool_content,
                    is_error,
                    ..
                } => format!("{role} tool_result {tool_id} {tool_content} error={is_error}"),
                Block::Command { command, .. } => format!("{role} command {command:?}"),
                other => format!("{role} {}", other.type_name()),
            }
        })
        .collect()
}

fn assert_no_errors(name: &str, normalized: &Normalized) {
    let errors: Vec<_> = normalized
        .diagnostics
        .iter()
        .filter(|d| d.severity() == Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{name}: {errors:#?}");
}

#[test]
fn every_gemini_capture_normalizes_without_errors() {
    let Some(files) = captures("gemini") else {
        return;
    };
    assert!(!files.is_empty());
    for path in files {
        let input = std::fs::read(&path).unwrap();
        assert_eq!(Provider::detect(&input), Some(Provider::Gemini), "{path:?}");
        let normalized = run(Provider::Gemini, &input);
        assert_no_errors(&path.display().to_string(), &normalized);
        assert!(normalized.diagnostics.is_empty(), "{path:?}");
        assert_eq!(normalized.meta.status, RunStatus::Completed, "{path:?}");
    }
}

#[test]
fn gemicord_capture_blocks() {
    let Some(_) = captures("gemini") else { return };
    let path = Path::new(ROOT).join("../shared/captures/gemini/stream-json.gemicord-SPEC.jsonl");
    let normalized = run(Provider::Gemini, &std::fs::read(path).unwrap());
    let id = "list_directory-1766445145513-343f3acdf059e";
    assert_eq!(
        sequence(&normalized),
        [
            "user text \"今のディレクトリにどんなファイルが有るかを教えて。\"".to_owned(),
            "assistant text \"The --prompt (-p) flag has been deprecated and will be removed in a future version. Please use a positional argument for your prompt. See gemini --help for more information.\\n\"".to_owned(),
            format!("assistant tool_use list_directory {id}"),
            format!("user tool_result {id} \"Listed 13 item(s). (2 ignored)\" error=false"),
            "assistant text \"はい、現在のディレクトリには以下のファイルとフォルダがあります。\\n\\n- data (フォルダ)\\n- node_modules (フォルダ)\\n- requirements (フォルダ)\\n- src (フォルダ)\\n-されています。\"".to_owned(),
        ]
    );
    // The four answer deltas are one block spanning their lines.
    assert_eq!(normalized.items[4].source.line, 6);
    assert_eq!(normalized.items[4].source.end_line, 9);
    let meta = &normalized.meta;
    assert_eq!(
        meta.session_id.as_deref(),
        Some("26c6651e-444c-42da-94a6-26b6bab096f0")
    );
    assert_eq!(meta.model.as_deref(), Some("auto-gemini-2.5"));
    assert_eq!(meta.duration_ms, Some(5760));
    // input_tokens 12821 includes cached 9598; `input` 3223 is the uncached part.
    // output_tokens 186 counts the candidates only: the 367 thought tokens are the rest of
    // total_tokens 13374 and count in the output.
    assert_eq!(
        meta.usage,
        Usage {
            input_tokens: 3223,
            output_tokens: 186 + 367,
            cache_read_tokens: 9598,
            cache_write_tokens: 0,
            reasoning_tokens: 367,
        }
    );
}

#[test]
fn forge_recording_blocks() {
    let Some(_) = captures("gemini") else { return };
    let path =
        Path::new(ROOT).join("../shared/captures/gemini/stream-json.recorded.forge-test.jsonl");
    let normalized = run(Provider::Gemini, &std::fs::read(path).unwrap());
    let id = "mcp_forge_secret_word__call_83369";
    assert_eq!(
        sequence(&normalized),
        [
            "user text \"Call the secret_word tool\"".to_owned(),
            format!("assistant tool_use mcp_forge_secret_word {id}"),
            format!("user tool_result {id} \"zebra-42\" error=false"),
            "assistant text \"The secret word is zebra-42.\"".to_owned(),
        ]
    );
    assert_eq!(normalized.meta.usage, Usage::default());
    assert_eq!(
        normalized.meta.raw_usage,
        Some(json!({"total_tokens": 6665, "tool_calls": 1}))
    );
}

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
    let path = Path::new(ROOT)
        .join("../shared/captures/copilot/cli-output-format-json.sortie-v1.0.13.jsonl");
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
fn gemini_deltas_make_one_text_per_uninterrupted_run() {
    let input = br#"{"type":"init","timestamp":"t","session_id":"s","model":"m"}
{"type":"message","timestamp":"t","role":"assistant","content":"Hel","delta":true}
{"type":"message","timestamp":"t","role":"assistant","content":"lo","delta":true}
{"type":"error","timestamp":"t","severity":"warning","message":"Loop detected, stopping execution"}
{"type":"message","timestamp":"t","role":"assistant","content":"","delta":true}
{"type":"message","timestamp":"t","role":"assistant","content":"Bye","delta":true}
{"type":"result","timestamp":"t","status":"success"}
"#;
    let normalized = run(Provider::Gemini, input);
    assert_eq!(
        sequence(&normalized),
        ["assistant text \"Hello\"", "assistant text \"Bye\""]
    );
    assert_eq!(normalized.meta.errors.len(), 1);
    assert!(!normalized.meta.errors[0].fatal);
    assert_eq!(normalized.meta.status, RunStatus::Completed);
    // However it is chunked, the text is the same.
    for chunk in [1, 5, 17] {
        let mut normalizer = Provider::Gemini.normalizer(Options::default());
        let mut out = axt::normalize::Output::default();
        for piece in input.chunks(chunk) {
            normalizer.push(piece, &mut out);
        }
        normalizer.finish(&mut out);
        assert_eq!(out.items, normalized.items, "chunk {chunk}");
    }
}

#[test]
fn gemini_json_document_usage_and_fatal_error_prefix() {
    let document = br#"Loaded cached credentials.
{
  "session_id": "s-1",
  "response": "Done: {braces} and \"quotes\" inside strings.",
  "stats": {
    "models": {
      "gemini-2.5-pro": {"tokens": {"input": 100, "prompt": 900, "candidates": 40, "total": 975, "cached": 800, "thoughts": 30, "tool": 5}},
      "gemini-2.5-flash": {"tokens": {"prompt": 50, "candidates": 10, "total": 60, "cached": 20, "thoughts": 0, "tool": 0}}
    }
  }
}
"#;
    assert_eq!(Provider::detect(document), Some(Provider::Gemini));
    let normalized = run(Provider::Gemini, document);
    assert_eq!(
        sequence(&normalized),
        ["assistant text \"Done: {braces} and \\\"quotes\\\" inside strings.\""]
    );
    let kinds: Vec<_> = normalized.diagnostics.iter().map(|d| d.kind).collect();
    assert_eq!(kinds, [DiagnosticKind::NotJson], "the credentials notice");
    assert_eq!(
        normalized.meta.usage,
        Usage {
            // 100 uncached + 5 tool-use prompt (pro) + 50 - 20 (flash, no `input`)
            input_tokens: 135,
            // candidates + thoughts
            output_tokens: 80,
            cache_read_tokens: 820,
            cache_write_tokens: 0,
            reasoning_tokens: 30,
        }
    );
    assert_eq!(normalized.meta.model, None, "two models: no single name");
    assert_eq!(normalized.meta.status, RunStatus::Completed);

    let error = b"[ERROR] {\n  \"error\": {\n    \"type\": \"FatalInputError\",\n    \"message\": \"No input provided\",\n    \"code\": 42\n  }\n}\n";
    assert_eq!(Provider::detect(error), Some(Provider::Gemini));
    let normalized = run(Provider::Gemini, error);
    assert!(
        normalized.diagnostics.is_empty(),
        "{:?}",
        normalized.diagnostics
    );
    assert_eq!(normalized.meta.status, RunStatus::Failed);
    assert_eq!(
        normalized.meta.errors[0].message,
        "FatalInputError: No input provided"
    );
    assert!(normalized.meta.errors[0].fatal);

    let cut = &document[..document.len() - 20];
    let normalized = run(Provider::Gemini, cut);
    assert!(
        normalized
            .diagnostics
            .iter()
            .any(|d| d.kind == DiagnosticKind::Truncated)
    );
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
        Usage {
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

#[test]
fn detection_keeps_providers_apart() {
    let claude =
        br#"{"type":"result","subtype":"success","is_error":false,"session_id":"s","result":"ok"}
"#;
    assert_eq!(Provider::detect(claude), Some(Provider::Claude));
    let gemini_result = br#"{"type":"result","timestamp":"t","status":"success","stats":{}}
"#;
    assert_eq!(Provider::detect(gemini_result), Some(Provider::Gemini));
    let copilot_result = br#"{"type":"result","timestamp":"t","sessionId":"s","exitCode":0}
"#;
    assert_eq!(Provider::detect(copilot_result), Some(Provider::Copilot));
    // A lone `{` line alone decides nothing until the document is complete.
    assert_eq!(Provider::detect(b"{\n  \"response\": \"hi\",\n"), None);
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!("{ROOT}/corpus/normalize/{name}")).unwrap()
}

/// A session log (`~/.copilot/session-state/<id>/events.jsonl`) has no `result` line and no
/// `assistant.usage`: its tokens are in `session.shutdown`'s `modelMetrics`, whose
/// `inputTokens` include the cache reads and writes.
#[test]
fn copilot_session_log_usage_comes_from_the_shutdown() {
    let input = fixture("copilot/ok/session-log-events-jsonl-shutdown-model-metrics.jsonl");
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
        Usage {
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
        Usage {
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
        &fixture("copilot/ok/session-log-resumed-running-total-two-shutdowns.jsonl"),
    );
    assert_eq!(
        running.meta.usage,
        Usage {
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
        &fixture("copilot/ok/session-log-resumed-per-process-counts-shutdown-error.jsonl"),
    );
    assert_eq!(
        legs.meta.usage,
        Usage {
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

/// Other tools print pretty JSON too: a parser's failure wrapper is nobody's output, and a
/// Gemini json-mode document still is Gemini's.
#[test]
fn a_pretty_printed_document_is_gemini_only_with_gemini_fields() {
    let wrapper = fixture("gemini/err/pretty-json-parser-failure-wrapper-not-gemini.json");
    assert_eq!(Provider::detect(&wrapper), None);
    for document in [
        "gemini/ok/json-mode-success.json",
        "gemini/ok/json-mode-error-turn-limit.json",
        "gemini/ok/error-prefix-fatal-document.json",
    ] {
        assert_eq!(
            Provider::detect(&fixture(document)),
            Some(Provider::Gemini),
            "{document}"
        );
    }
    let forced = run(Provider::Gemini, &wrapper);
    let kinds: Vec<_> = forced.diagnostics.iter().map(|d| d.kind).collect();
    assert_eq!(
        kinds,
        [
            DiagnosticKind::UnexpectedShape,
            DiagnosticKind::MissingTerminal,
            DiagnosticKind::UnrecognizedInput
        ]
    );
    assert!(forced.items.is_empty());
}
