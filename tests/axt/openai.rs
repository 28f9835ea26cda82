//! OpenAI: the same model output, streamed or not, normalizes to the same blocks and metadata.

use axt::ContentBlock;
use axt::normalize::{Normalized, Options, Provider, normalize};
use serde_json::{Value, json};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// What must agree: the blocks with their roles and message ids, and the metadata.
fn essence(normalized: &Normalized) -> (Vec<(String, Option<String>, ContentBlock)>, Value) {
    let blocks = normalized
        .items
        .iter()
        .map(|item| {
            (
                item.role.as_str().to_owned(),
                item.message_id.clone(),
                item.block.clone(),
            )
        })
        .collect();
    let mut meta = serde_json::to_value(&normalized.meta).unwrap();
    // The input report counts the records, which a body and a stream do not share.
    meta.as_object_mut().unwrap().remove("report");
    (blocks, meta)
}

fn read(input: &[u8]) -> Normalized {
    normalize(Provider::OpenAi, input, Options::default()).expect("no error diagnostic")
}

/// A chat completion, as one body and as an SSE stream whose pieces are `piece` bytes long.
fn chat_forms(
    reasoning: &str,
    text: &str,
    calls: &[(&str, &str, &str)],
    piece: usize,
) -> (Vec<u8>, Vec<u8>) {
    let usage = json!({"prompt_tokens": 900, "completion_tokens": 77, "total_tokens": 977,
        "prompt_tokens_details": {"cached_tokens": 512},
        "completion_tokens_details": {"reasoning_tokens": 40}});
    let tool_calls: Vec<Value> = calls
        .iter()
        .map(|(id, name, args)| json!({"id": id, "type": "function", "function": {"name": name, "arguments": args}}))
        .collect();
    let body = json!({"id": "chatcmpl-eq", "object": "chat.completion", "model": "deepseek-reasoner",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant",
            "reasoning_content": reasoning, "content": text, "tool_calls": tool_calls}}],
        "usage": usage});
    let chunk = |delta: Value, finish: Value| {
        json!({"id": "chatcmpl-eq", "object": "chat.completion.chunk", "model": "deepseek-reasoner",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let pieces = |s: &str| -> Vec<String> {
        let chars: Vec<char> = s.chars().collect();
        chars.chunks(piece).map(|c| c.iter().collect()).collect()
    };
    let mut records = vec![chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    )];
    records.extend(
        pieces(reasoning)
            .into_iter()
            .map(|p| chunk(json!({"reasoning_content": p}), Value::Null)),
    );
    records.extend(
        pieces(text)
            .into_iter()
            .map(|p| chunk(json!({"content": p}), Value::Null)),
    );
    for (index, (id, name, args)) in calls.iter().enumerate() {
        records.push(chunk(
            json!({"tool_calls": [{"index": index, "id": id, "type": "function",
            "function": {"name": name, "arguments": ""}}]}),
            Value::Null,
        ));
        records.extend(pieces(args).into_iter().map(|p| {
            chunk(
                json!({"tool_calls": [{"index": index, "function": {"arguments": p}}]}),
                Value::Null,
            )
        }));
    }
    records.push(chunk(json!({}), json!("tool_calls")));
    records.push(
        json!({"id": "chatcmpl-eq", "object": "chat.completion.chunk",
        "model": "deepseek-reasoner", "choices": [], "usage": usage}),
    );
    let mut stream = String::new();
    for record in records {
        stream.push_str(&format!("data: {record}\n\n"));
    }
    stream.push_str("data: [DONE]\n\n");
    (
        serde_json::to_vec_pretty(&body).unwrap(),
        stream.into_bytes(),
    )
}

#[test]
fn chat_streamed_and_whole_give_the_same_blocks_and_metadata() {
    let calls = [
        ("call_1", "shell", r#"{"command":"ls -la src"}"#),
        (
            "call_2",
            "read_file",
            r#"{"path":"Cargo.toml","lines":[1,40]}"#,
        ),
        ("call_3", "get_time", ""),
    ];
    for piece in [1, 2, 5, 64] {
        let (body, stream) = chat_forms(
            "Two files; é→ first.",
            "Reading both — then 日本語.",
            &calls,
            piece,
        );
        let (whole, streamed) = (read(&body), read(&stream));
        assert_eq!(essence(&whole), essence(&streamed), "pieces of {piece}");
        assert_eq!(
            whole.items.len(),
            6,
            "thinking, text, 3 tool_use, 1 command"
        );
    }
}

#[test]
fn responses_streamed_and_whole_give_the_same_blocks_and_metadata() {
    let corpus = format!("{ROOT}/corpus/openai/ok");
    let stream = std::fs::read(format!(
        "{corpus}/responses-stream-reasoning-text-function-call.sse"
    ))
    .unwrap();
    let body = std::fs::read(format!(
        "{corpus}/responses-object-reasoning-text-function-call.json"
    ))
    .unwrap();
    assert_eq!(essence(&read(&stream)), essence(&read(&body)));
}

#[test]
fn detection_picks_openai_for_each_input_form() {
    let corpus = format!("{ROOT}/corpus/openai/ok");
    for name in [
        "shared-scenario-shell-command.jsonl",
        "vercel-4335-cached-and-reasoning-tokens-in-usage.json",
        "sse-framing-comments-keepalives-multiline-crlf.sse",
        "responses-stream-reasoning-text-function-call.sse",
        "rust-genai-46-whole-tool-call-without-index.jsonl",
        "codex-cli-responses-fixture.sse",
        "pydantic-6610-ollama-null-finish-reason.json",
    ] {
        let input = std::fs::read(format!("{corpus}/{name}")).unwrap();
        assert_eq!(Provider::detect(&input), Some(Provider::OpenAi), "{name}");
    }
}

#[test]
fn no_other_providers_fixture_is_detected_as_openai() {
    for provider in ["claude", "codex", "gemini", "copilot"] {
        for entry in walkdir::WalkDir::new(format!("{ROOT}/corpus/{provider}/ok")) {
            let path = entry.unwrap().into_path();
            if path.is_dir() || path.extension().is_some_and(|e| e == "md" || e == "py") {
                continue;
            }
            let input = std::fs::read(&path).unwrap();
            assert_ne!(Provider::detect(&input), Some(Provider::OpenAi), "{path:?}");
        }
    }
}
