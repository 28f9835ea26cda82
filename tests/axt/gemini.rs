//! The Gemini adapter on real captures (`../shared/captures/gemini/`, beside the repository;
//! skipped with a note where it is absent) and exact values for the rules that matter most:
//! delta accumulation, json documents, and telling Gemini's output from the others'.

use axt::normalize::{DiagnosticKind, Options, Provider, RunStatus};
use serde_json::json;

use crate::support::Tokens;
use crate::support::adapter::{assert_no_errors, captures, run, sequence};
use crate::support::{normalize_corpus, shared_captures};

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
    let path = shared_captures("gemini").join("stream-json.gemicord-SPEC.jsonl");
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
        Tokens {
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
    let path = shared_captures("gemini").join("stream-json.recorded.forge-test.jsonl");
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
    assert_eq!(normalized.meta.usage, axt::model::Usage::default());
    assert_eq!(
        normalized.meta.raw_usage,
        Some(json!({"total_tokens": 6665, "tool_calls": 1}))
    );
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
        Tokens {
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

/// Other tools print pretty JSON too: a parser's failure wrapper is nobody's output, and a
/// Gemini json-mode document still is Gemini's.
#[test]
fn a_pretty_printed_document_is_gemini_only_with_gemini_fields() {
    let wrapper = fixture("err/pretty-json-parser-failure-wrapper-not-gemini.json");
    assert_eq!(Provider::detect(&wrapper), None);
    for document in [
        "ok/json-mode-success.json",
        "ok/json-mode-error-turn-limit.json",
        "ok/error-prefix-fatal-document.json",
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

/// A fixture of the Gemini corpus, by its path there (`ok/...`).
fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(normalize_corpus("gemini").join(name)).unwrap()
}
