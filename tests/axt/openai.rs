//! OpenAI: the same model output, streamed or not, normalizes to the same blocks and metadata.

use axt::ContentBlock;
use axt::normalize::{DiagnosticKind, Normalized, Options, Provider, normalize};
use serde_json::{Value, json};

use crate::support::{ROOT, normalize_corpus, walk};

/// One block as it must agree: role, message id, scope (the program or sub-agent a call is
/// in), the block.
type Essential = (String, Option<String>, Option<String>, ContentBlock);

/// What must agree: the blocks with their roles, message ids and scopes, and the metadata.
fn essence(normalized: &Normalized) -> (Vec<Essential>, Value) {
    let blocks = normalized
        .items
        .iter()
        .map(|item| {
            (
                item.role.as_str().to_owned(),
                item.message_id.clone(),
                item.agent.clone(),
                item.block.clone(),
            )
        })
        .collect();
    let mut meta = serde_json::to_value(&normalized.meta).unwrap();
    // The input report counts the records, and passthrough records say their line, which a
    // body and a stream do not share.
    meta.as_object_mut().unwrap().remove("report");
    for kept in meta["passthrough"].as_array_mut().into_iter().flatten() {
        kept.as_object_mut().unwrap().remove("line");
    }
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

/// Fixtures that hold one Responses response (or exchange) twice: streamed and as bodies.
const RESPONSES_PAIRS: [(&str, &str); 7] = [
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
    (
        "responses-hosted-tool-search-call-id-null-stream.sse",
        "responses-hosted-tool-search-call-id-null-body.json",
    ),
    (
        "responses-function-loaded-by-tool-search-namespace-is-its-name-stream.sse",
        "responses-function-loaded-by-tool-search-namespace-is-its-name-body.json",
    ),
    (
        "responses-programmatic-tool-calling-program-and-sub-calls-streamed.sse",
        "responses-programmatic-tool-calling-program-and-sub-calls-bodies.jsonl",
    ),
    (
        "xai-responses-x-search-call-stream.sse",
        "xai-responses-x-search-call-body.json",
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
        (&gemini_api, Some(Provider::GeminiApi), None),
        (&gemini_cli, Some(Provider::Gemini), None),
        (&anthropic, Some(Provider::Anthropic), None),
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
            "output[fc_p2].namespace": ["crm"],
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

/// A fixture of the OpenAI corpus, read leniently (the old code gave errors on some).
fn fixture(name: &str) -> Normalized {
    let input = std::fs::read(format!("{ROOT}/corpus/normalize/openai/ok/{name}")).unwrap();
    axt::normalize::normalize_lossy(Provider::OpenAi, &input, Options::default())
}

/// The tool blocks: `use <name> <id> [server]`, `result <id> [error]`, each with its scope.
fn tool_blocks(normalized: &Normalized) -> Vec<String> {
    normalized
        .items
        .iter()
        .filter_map(|item| {
            let scope = item
                .agent
                .as_deref()
                .map(|a| format!(" in {a}"))
                .unwrap_or_default();
            match &item.block.block {
                axt::Block::ToolUse {
                    tool_name,
                    tool_id,
                    server,
                    ..
                } => Some(format!(
                    "use {tool_name} {tool_id}{}{scope}",
                    if *server { " server" } else { "" }
                )),
                axt::Block::ToolResult {
                    tool_id, is_error, ..
                } => Some(format!(
                    "result {tool_id}{}{scope}",
                    if *is_error { " error" } else { "" }
                )),
                _ => None,
            }
        })
        .collect()
}

/// A hosted tool search names neither its call nor its output (`call_id: null`): each
/// output answers the search before it, with no orphan (the run exited 1 on this well-formed
/// input).
#[test]
fn hosted_tool_search_outputs_with_null_call_ids_answer_their_searches() {
    for name in [
        "responses-hosted-tool-search-call-id-null-body.json",
        "responses-hosted-tool-search-call-id-null-stream.sse",
    ] {
        let normalized = fixture(name);
        assert_eq!(kinds(&normalized), [] as [&str; 0], "{name}");
        assert_eq!(
            tool_blocks(&normalized),
            [
                "use tool_search tsc_0a51 server",
                "result tsc_0a51",
                "use tool_search tsc_0a53 server",
                "result tsc_0a53",
            ],
            "{name}"
        );
        let Value::Array(tools) = &blocks(&normalized)[3]["tool_content"] else {
            panic!("the second output's tools")
        };
        assert_eq!(tools[0]["name"], "send_email", "{name}");
    }
}

/// A function tool search loaded comes with itself as its namespace: it is named once, as
/// the model called it; a function of another namespace keeps the `<namespace>__<name>`
/// spelling; both namespaces are kept as data in the response's extras.
#[test]
fn a_function_loaded_by_tool_search_is_named_once_and_keeps_its_namespace() {
    for name in [
        "responses-function-loaded-by-tool-search-namespace-is-its-name-body.json",
        "responses-function-loaded-by-tool-search-namespace-is-its-name-stream.sse",
    ] {
        let normalized = fixture(name);
        assert_eq!(
            tool_blocks(&normalized),
            [
                "use tool_search tsc_0b61 server",
                "result tsc_0b61",
                "use get_weather call_ytq0b63",
                "use crm__lookup_customer call_lc0b64",
            ],
            "{name}"
        );
        let extras = extras(&normalized);
        assert_eq!(
            extras[0]["output[fc_0b63].namespace"],
            json!(["get_weather"])
        );
        assert_eq!(extras[0]["output[fc_0b64].namespace"], json!(["crm"]));
    }
}

/// A `program` (programmatic tool calling) is a tool call of its own, run by the provider;
/// the calls its code makes, and their results, are its scope, which its `program_output`
/// closes; in the transcript they are a step under the program's call.
#[test]
fn a_program_is_a_tool_call_whose_sub_calls_are_its_scope() {
    for name in [
        "responses-programmatic-tool-calling-program-and-sub-calls-bodies.jsonl",
        "responses-programmatic-tool-calling-program-and-sub-calls-streamed.sse",
    ] {
        let normalized = fixture(name);
        assert_eq!(kinds(&normalized), [] as [&str; 0], "{name}");
        assert_eq!(
            tool_blocks(&normalized),
            [
                "use programmatic_tool_calling call_prog7 server",
                "use getInventory call_inv7 in call_prog7",
                "result call_inv7 in call_prog7",
                "use getDemand call_dem7 in call_prog7",
                "result call_dem7 in call_prog7",
                "result call_prog7",
            ],
            "{name}"
        );
        let input = std::fs::read(format!("{ROOT}/corpus/normalize/openai/ok/{name}")).unwrap();
        let mut transcriber = axt::transcribe::Transcriber::new(
            Provider::OpenAi,
            Options::default(),
            axt::transcribe::EventOptions::default(),
        );
        let mut sink = axt::transcribe::JsonlSink::new(Vec::new(), |_| Ok(()));
        transcriber.push(&input, &mut sink).unwrap();
        transcriber.finish(&mut sink).unwrap();
        let events: Vec<axt::ExchangeEvent> = sink
            .into_inner()
            .split(|b| *b == b'\n')
            .filter(|line| !line.is_empty())
            .map(|line| axt::model::decode_event(line).unwrap())
            .collect();
        let steps: Vec<(String, String)> = events
            .iter()
            .filter(|e| {
                matches!(
                    e.event_type,
                    axt::EventType::StepStarted
                        | axt::EventType::StepCompleted
                        | axt::EventType::ToolCall
                        | axt::EventType::ToolResult
                )
            })
            .map(|e| (e.event_type.as_str().to_owned(), e.path.clone()))
            .collect();
        let expected = [
            ("step.started", "agent"),
            ("tool.call", "agent"),
            ("step.started", "agent.call_prog7"),
            ("tool.call", "agent.call_prog7"),
            ("tool.result", "agent.call_prog7"),
            ("tool.call", "agent.call_prog7"),
            ("tool.result", "agent.call_prog7"),
            ("step.completed", "agent.call_prog7"),
            ("step.completed", "agent"),
        ];
        let expected: Vec<(String, String)> = expected
            .iter()
            .map(|(t, p)| (t.to_string(), p.to_string()))
            .collect();
        assert_eq!(steps, expected, "{name}");
        let closed = events
            .iter()
            .find(|e| e.event_type == axt::EventType::StepCompleted)
            .unwrap();
        let axt::Payload::Step(step) = &closed.payload else {
            panic!("a step payload")
        };
        assert_eq!(step.name, "programmatic_tool_calling");
        assert_eq!(step.error, None, "{name}: the program returned");
    }
}

/// xAI's X search is a tool the provider runs, in both shapes it comes in: an
/// `x_search_call` item, and the `custom_tool_call`s of the searches it ran (`xs_call_<n>`,
/// no output item), which were read as the client's calls and left dangling.
#[test]
fn xai_x_search_is_a_server_tool_call_in_both_its_shapes() {
    for (name, expected) in [
        (
            "xai-responses-x-search-call-body.json",
            vec![
                "use x_search fc_0c8e1a9f-4b2d-4e7a-9c31-5d6e7f8a9b0c_us-east-1_0 server",
                "result fc_0c8e1a9f-4b2d-4e7a-9c31-5d6e7f8a9b0c_us-east-1_0",
            ],
        ),
        (
            "xai-responses-x-search-call-stream.sse",
            vec![
                "use x_search fc_0c8e1a9f-4b2d-4e7a-9c31-5d6e7f8a9b0c_us-east-1_0 server",
                "result fc_0c8e1a9f-4b2d-4e7a-9c31-5d6e7f8a9b0c_us-east-1_0",
            ],
        ),
        (
            "xai-responses-x-search-sub-actions-as-custom-tool-calls.sse",
            vec![
                "use x_search ctc_5e7d9c1b-2a3b-4c5d-8e9f-0a1b2c3d4e5f_xs_call_24148162 server",
                "result ctc_5e7d9c1b-2a3b-4c5d-8e9f-0a1b2c3d4e5f_xs_call_24148162",
                "use x_search ctc_5e7d9c1b-2a3b-4c5d-8e9f-0a1b2c3d4e5f_xs_call_14963218 server",
                "result ctc_5e7d9c1b-2a3b-4c5d-8e9f-0a1b2c3d4e5f_xs_call_14963218",
            ],
        ),
    ] {
        let normalized = fixture(name);
        assert_eq!(kinds(&normalized), [] as [&str; 0], "{name}");
        assert_eq!(tool_blocks(&normalized), expected, "{name}");
        let stop = normalized.meta.stop_reason.as_ref().unwrap();
        assert_eq!(stop.raw, "completed", "{name}");
        assert_eq!(
            stop.kind,
            axt::normalize::StopKind::EndTurn,
            "{name}: a server call does not end the turn for tools"
        );
    }
    let first = fixture("xai-responses-x-search-call-body.json");
    assert_eq!(
        blocks(&first)[0]["tool_input"],
        json!({"name": "x_semantic_search", "arguments": {"query": "rust 2026 edition", "limit": 20,
            "from_date": "2026-01-01", "to_date": "2026-02-15", "min_score_threshold": 0.2}})
    );
}
