//! OpenAI: the same model output, streamed or not, normalizes to the same blocks and metadata.

use axt::ContentBlock;
use axt::normalize::{DiagnosticKind, Normalized, Options, Provider, normalize};
use serde_json::{Value, json};

use crate::support::{ROOT, normalize_corpus, walk};

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

/// Fixtures that hold one Responses response twice: as an SSE stream and as a body.
const RESPONSES_PAIRS: [(&str, &str); 3] = [
    (
        "responses-stream-reasoning-text-function-call.sse",
        "responses-object-reasoning-text-function-call.json",
    ),
    (
        "responses-server-tools-stream.sse",
        "responses-server-tools-body.json",
    ),
    (
        "responses-url-citations-streamed-and-final.sse",
        "responses-url-citations-body.json",
    ),
];

#[test]
fn responses_streamed_and_whole_give_the_same_blocks_and_metadata() {
    let corpus = format!("{ROOT}/corpus/normalize/openai/ok");
    for (stream, body) in RESPONSES_PAIRS {
        let streamed = read(&std::fs::read(format!("{corpus}/{stream}")).unwrap());
        let whole = read(&std::fs::read(format!("{corpus}/{body}")).unwrap());
        assert_eq!(essence(&streamed), essence(&whole), "{stream} vs {body}");
        assert!(
            !streamed
                .diagnostics
                .iter()
                .any(|d| d.kind == DiagnosticKind::StreamMismatch),
            "{stream}: the deltas agree with the final copies"
        );
    }
}

#[test]
fn detection_picks_openai_for_each_input_form() {
    let corpus = format!("{ROOT}/corpus/normalize/openai/ok");
    for name in [
        "shared-scenario-shell-command.jsonl",
        "vercel-4335-cached-and-reasoning-tokens-in-usage.json",
        "sse-framing-comments-keepalives-multiline-crlf.sse",
        "responses-stream-reasoning-text-function-call.sse",
        "rust-genai-46-whole-tool-call-without-index.jsonl",
        "codex-cli-responses-fixture.sse",
        "pydantic-6610-ollama-null-finish-reason.json",
        "azure-filter-results-first-chunk-without-object.sse",
        "perplexity-concise-reasoning-and-completion-done.sse",
        "error-only-body-openai-shape.json",
        "vllm-error-object-at-top-level.json",
    ] {
        let input = std::fs::read(format!("{corpus}/{name}")).unwrap();
        assert_eq!(Provider::detect(&input), Some(Provider::OpenAi), "{name}");
    }
}

#[test]
fn no_other_providers_fixture_is_detected_as_openai() {
    for provider in Provider::ALL.into_iter().filter(|p| *p != Provider::OpenAi) {
        for path in walk(&normalize_corpus(provider.as_str()).join("ok")) {
            let input = std::fs::read(&path).unwrap();
            assert_ne!(Provider::detect(&input), Some(Provider::OpenAi), "{path:?}");
        }
    }
}

/// SSE events of the Responses API, one `event:`/`data:` pair each.
fn responses_events(events: &[Value]) -> Vec<u8> {
    let mut stream = String::new();
    for event in events {
        stream.push_str(&format!(
            "event: {}\ndata: {event}\n\n",
            event["type"].as_str().unwrap()
        ));
    }
    stream.into_bytes()
}

fn blocks(normalized: &Normalized) -> Vec<Value> {
    normalized
        .items
        .iter()
        .map(|item| serde_json::to_value(&item.block).unwrap())
        .collect()
}

fn kinds(normalized: &Normalized) -> Vec<&'static str> {
    normalized
        .diagnostics
        .iter()
        .map(|d| d.kind.as_str())
        .collect()
}

#[test]
fn a_server_tool_cut_off_mid_search_is_incomplete_and_has_no_result() {
    let input = responses_events(&[
        json!({"type": "response.created", "response": {"id": "resp_cut", "model": "gpt-5.4"}}),
        json!({"type": "response.output_item.added", "output_index": 0, "item":
            {"id": "ws_cut", "type": "web_search_call", "status": "in_progress",
             "action": {"type": "search", "query": "axt"}}}),
        json!({"type": "response.web_search_call.searching", "output_index": 0, "item_id": "ws_cut"}),
    ]);
    let normalized = normalize(Provider::OpenAi, &input, Options::default()).unwrap();
    assert_eq!(
        blocks(&normalized),
        [
            json!({"type": "tool_use", "fidelity": "agent_emitted", "tool_name": "web_search",
            "tool_id": "ws_cut", "tool_input": {"type": "search", "query": "axt"},
            "server": true, "incomplete": true})
        ]
    );
    assert_eq!(
        kinds(&normalized),
        ["incomplete-block", "dangling-tool-use", "missing-terminal"]
    );
}

#[test]
fn a_server_tool_never_marked_done_takes_its_last_progress_when_the_response_completes() {
    let input = responses_events(&[
        json!({"type": "response.created", "response": {"id": "resp_nd", "model": "gpt-5.4"}}),
        json!({"type": "response.output_item.added", "output_index": 0, "item":
            {"id": "mcp_nd", "type": "mcp_call", "status": "in_progress", "server_label": "docs",
             "name": "lookup", "arguments": ""}}),
        json!({"type": "response.mcp_call_arguments.delta", "output_index": 0, "item_id": "mcp_nd",
            "delta": "{\"q\":"}),
        json!({"type": "response.mcp_call_arguments.delta", "output_index": 0, "item_id": "mcp_nd",
            "delta": "\"sse\"}"}),
        json!({"type": "response.mcp_call.failed", "output_index": 0, "item_id": "mcp_nd"}),
        json!({"type": "response.completed", "response": {"id": "resp_nd", "status": "completed"}}),
    ]);
    let normalized = normalize(Provider::OpenAi, &input, Options::default()).unwrap();
    assert_eq!(
        blocks(&normalized),
        [
            json!({"type": "tool_use", "fidelity": "agent_emitted", "tool_name": "mcp__docs__lookup",
                "tool_id": "mcp_nd", "tool_input": {"q": "sse"}, "server": true}),
            json!({"type": "tool_result", "fidelity": "agent_emitted", "tool_id": "mcp_nd",
                "tool_content": {"status": "failed"}, "is_error": true}),
        ]
    );
    assert!(
        normalized.diagnostics.is_empty(),
        "{:?}",
        normalized.diagnostics
    );
}

#[test]
fn streamed_annotations_alone_are_kept_with_offsets_from_their_part() {
    // A server that never sends the final copy of the message: the citations come from
    // `annotation.added`, counted from the start of their content part.
    let note = json!({"type": "url_citation", "start_index": 0, "end_index": 4,
        "url": "https://example.com/b", "title": "B"});
    let input = responses_events(&[
        json!({"type": "response.created", "response": {"id": "resp_ann"}}),
        json!({"type": "response.output_text.delta", "item_id": "msg_a", "output_index": 0,
            "content_index": 0, "delta": "Dé one. "}),
        json!({"type": "response.output_text.delta", "item_id": "msg_a", "output_index": 0,
            "content_index": 1, "delta": "Two."}),
        json!({"type": "response.output_text.annotation.added", "item_id": "msg_a",
            "output_index": 0, "content_index": 1, "annotation_index": 0, "annotation": note}),
        json!({"type": "response.completed", "response": {"id": "resp_ann", "status": "completed"}}),
    ]);
    let normalized = read(&input);
    assert_eq!(
        blocks(&normalized),
        [
            json!({"type": "text", "fidelity": "agent_emitted", "text": "Dé one. Two.",
            "citations": [{"type": "url_citation", "url": "https://example.com/b", "title": "B",
                "start_index": 8, "end_index": 12}]})
        ]
    );
}

/// The `extras` passthrough records of a run.
fn extras(normalized: &Normalized) -> Vec<Value> {
    normalized
        .meta
        .passthrough
        .iter()
        .filter(|kept| kept.kind == "extras")
        .map(|kept| kept.raw.clone())
        .collect()
}

#[test]
fn azure_filter_results_are_kept_once_per_distinct_value() {
    let input = std::fs::read(format!(
        "{ROOT}/corpus/normalize/openai/ok/azure-filter-results-first-chunk-without-object.sse"
    ))
    .unwrap();
    assert_eq!(Provider::detect(&input), Some(Provider::OpenAi));
    let normalized = read(&input);
    let safe = json!({"hate": {"filtered": false, "severity": "safe"},
        "self_harm": {"filtered": false, "severity": "safe"},
        "sexual": {"filtered": false, "severity": "safe"},
        "violence": {"filtered": false, "severity": "safe"}});
    let mut prompt = safe.clone();
    prompt["jailbreak"] = json!({"filtered": false, "detected": false});
    assert_eq!(
        extras(&normalized),
        [json!({
            "response": "chatcmpl-AzF1lt3r",
            "prompt_filter_results": [[{"prompt_index": 0, "content_filter_results": prompt}]],
            "system_fingerprint": ["fp_ee1d74bde0"],
            "choices[0].content_filter_results": [safe],
        })]
    );
}

#[test]
fn an_error_only_body_is_detected_by_the_shape_of_its_error_object() {
    let pretty = |body: Value| format!("{}\n", serde_json::to_string_pretty(&body).unwrap());
    let openai = json!({"error": {"message": "m", "type": "invalid_request_error",
        "param": null, "code": "invalid_api_key"}});
    let groq = json!({"error": {"message": "m", "type": "invalid_request_error",
        "code": "model_not_found"}});
    let gemini_api = json!({"error": {"code": 400, "message": "m", "status": "INVALID_ARGUMENT"}});
    let gemini_cli = json!({"error": {"type": "FatalAuthenticationError", "message": "m",
        "code": 41}});
    let anthropic = json!({"type": "error", "error": {"type": "overloaded_error", "message": "m"}});
    let bare = json!({"error": {"code": 401, "message": "m"}});
    for (body, provider, why) in [
        (&openai, Some(Provider::OpenAi), None),
        (&groq, Some(Provider::OpenAi), None),
        (&gemini_api, Some(Provider::Gemini), None),
        (&gemini_cli, Some(Provider::Gemini), None),
        (
            &anthropic,
            None,
            Some(
                "an Anthropic API error body, which no adapter reads as a document (on one line it is a Claude `error` record)",
            ),
        ),
        (
            &bare,
            None,
            Some("an error body whose error object has no field that says which provider sent it"),
        ),
    ] {
        // Gemini's CLI prints its documents pretty (`--output-format json`); a one-line
        // document is nobody's.
        let one_line = (provider != Some(Provider::Gemini)).then(|| format!("{body}\n"));
        for input in one_line.into_iter().chain([pretty(body.clone())]) {
            // On one line, Anthropic's error body is the seed's simplified Claude Code
            // `error` line, which the claude adapter reads as a run error.
            let one_line_anthropic = body == &anthropic && !input.starts_with("{\n");
            let (provider, why) = match one_line_anthropic {
                true => (Some(Provider::Claude), None),
                false => (provider, why),
            };
            assert_eq!(Provider::detect(input.as_bytes()), provider, "{input}");
            assert_eq!(Provider::why_undetected(input.as_bytes()), why, "{input}");
        }
    }
}

#[test]
fn what_an_output_item_says_beyond_its_blocks_is_kept_in_the_extras() {
    let input = std::fs::read(format!(
        "{ROOT}/corpus/normalize/openai/ok/responses-namespace-call-and-message-phase.json"
    ))
    .unwrap();
    assert_eq!(
        extras(&read(&input)),
        [json!({
            "response": "resp_phase",
            "output[msg_p1].phase": ["commentary"],
            "output[fc_p2].caller": [{"type": "direct"}],
        })]
    );
}

#[test]
fn groq_usage_inside_x_groq_is_the_usage_when_there_is_no_other() {
    let input = std::fs::read(format!(
        "{ROOT}/corpus/normalize/openai/ok/litellm-7621-parallel-calls-one-chunk-each.sse"
    ))
    .unwrap();
    let usage = read(&input).meta.usage;
    assert_eq!((usage.input_tokens, usage.output_tokens), (240, 60));
}
