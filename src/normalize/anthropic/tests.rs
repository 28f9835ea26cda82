//! The adapter's own tests: detection against its look-alikes, and a property: a message
//! streamed (any split of its deltas, any chunking of the stream) gives what the same message
//! as one body gives.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::claims;
use crate::normalize::streamed_property::{in_chunks, outcome, pieces, text};
use crate::normalize::{Options, Provider, normalize_lossy};

#[test]
fn claims_the_apis_records_and_none_of_their_look_alikes() {
    for record in [
        json!({"type": "message_start", "message": {"id": "msg_1", "content": []}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta"}}),
        json!({"type": "message_stop"}),
        json!({"type": "ping"}),
        json!({"id": "msg_1", "type": "message", "role": "assistant", "content": []}),
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"},
            "request_id": "req_1"}),
        json!({"anthropic_version": "vertex-2023-10-16", "messages": [], "max_tokens": 10}),
        json!({"model": "claude-opus-4-1", "messages": [{"role": "user", "content": "hi"}]}),
        json!({"model": "m", "system": "Be brief.", "messages": []}),
        json!({"model": "m", "messages": [{"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t", "content": "ok"}]}]}),
    ] {
        assert!(claims(&record), "{record}");
    }
    for record in [
        // OpenAI Chat Completions: a request of another model, a chunk.
        json!({"model": "gpt-4.1", "messages": [{"role": "system", "content": "Be brief."}]}),
        json!({"object": "chat.completion.chunk", "choices": []}),
        // OpenAI Responses' error event, its error object nested.
        json!({"type": "error", "sequence_number": 2, "error": {"type": "invalid_request_error",
            "code": "context_length_exceeded", "message": "too long", "param": null}}),
        // Claude Code stream-json.
        json!({"type": "assistant", "message": {"id": "msg_1", "content": []}, "session_id": "s"}),
        // A ping with more to it is no keep-alive of this API.
        json!({"type": "ping", "data": 1}),
        json!({"type": "message", "role": "user", "content": []}),
    ] {
        assert!(!claims(&record), "{record}");
    }
}

#[test]
fn detection_finds_the_api_in_streams_bodies_and_error_bodies() {
    let stream = b": comment\n\nevent: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"content\":[]}}\n\n";
    assert_eq!(Provider::detect(stream), Some(Provider::Anthropic));
    let overloaded = b"{\n  \"type\": \"error\",\n  \"error\": {\"type\": \"overloaded_error\", \"message\": \"Overloaded\"}\n}\n";
    assert_eq!(Provider::detect(overloaded), Some(Provider::Anthropic));
    let body = b"{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[]}\n";
    assert_eq!(Provider::detect(body), Some(Provider::Anthropic));
    // On one line without a request id, the seed's simplified Claude Code error line.
    let seed = b"{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n";
    assert_eq!(Provider::detect(seed), Some(Provider::Claude));
    let chat = b"{\"model\":\"gpt-4.1\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}\n";
    assert_eq!(Provider::detect(chat), Some(Provider::OpenAi));
}

/// One content block of a generated message.
#[derive(Clone, Debug)]
enum Spec {
    Text(String, bool),
    Thinking(String, String),
    Redacted(String),
    Call(String, Value),
    Search(String),
}

fn spec() -> impl Strategy<Value = Spec> {
    prop_oneof![
        (text(), any::<bool>()).prop_map(|(t, cited)| Spec::Text(t, cited)),
        (text(), "[A-Za-z0-9+/]{8,40}").prop_map(|(t, s)| Spec::Thinking(t, s)),
        "[A-Za-z0-9+/]{8,40}".prop_map(Spec::Redacted),
        (
            "[a-z_]{1,12}",
            prop::collection::btree_map("[a-z]{1,6}", text(), 0..3)
        )
            .prop_map(|(name, args)| Spec::Call(name, json!(args))),
        text().prop_map(Spec::Search),
    ]
}

/// The whole blocks of the message, as a body has them.
fn whole(specs: &[Spec]) -> Vec<Value> {
    let citation = json!({"type": "char_location", "cited_text": "a passage",
        "document_index": 0, "document_title": "Doc", "start_char_index": 0, "end_char_index": 9});
    let mut blocks = Vec::new();
    for (n, spec) in specs.iter().enumerate() {
        match spec {
            Spec::Text(text, cited) => {
                let citations = if *cited { json!([citation]) } else { json!([]) };
                blocks.push(json!({"type": "text", "text": text, "citations": citations}));
            }
            Spec::Thinking(thinking, signature) => blocks.push(
                json!({"type": "thinking", "thinking": thinking, "signature": signature}),
            ),
            Spec::Redacted(data) => blocks.push(json!({"type": "redacted_thinking", "data": data})),
            Spec::Call(name, input) => blocks.push(
                json!({"type": "tool_use", "id": format!("toolu_{n}"), "name": name, "input": input}),
            ),
            Spec::Search(query) => {
                blocks.push(json!({"type": "server_tool_use", "id": format!("srvtoolu_{n}"),
                    "name": "code_execution", "input": {"code": query}}));
                blocks.push(json!({"type": "code_execution_tool_result",
                    "tool_use_id": format!("srvtoolu_{n}"),
                    "content": {"type": "code_execution_result", "stdout": "", "return_code": 0}}));
            }
        }
    }
    blocks
}

/// The same message as an SSE stream, every delta cut as `cuts` say.
fn stream(blocks: &[Value], usage: &Value, cuts: &[u8]) -> Vec<u8> {
    let mut events = vec![json!({"type": "message_start", "message": {"id": "msg_p",
        "type": "message", "role": "assistant", "model": "claude-p", "content": [],
        "stop_reason": null, "usage": {"input_tokens": usage["input_tokens"], "output_tokens": 1}}})];
    for (index, block) in blocks.iter().enumerate() {
        let start = |content_block: Value| json!({"type": "content_block_start", "index": index, "content_block": content_block});
        let delta =
            |delta: Value| json!({"type": "content_block_delta", "index": index, "delta": delta});
        match block["type"].as_str().unwrap() {
            "text" => {
                events.push(start(json!({"type": "text", "text": ""})));
                for citation in block["citations"].as_array().unwrap() {
                    events.push(delta(
                        json!({"type": "citations_delta", "citation": citation}),
                    ));
                }
                for piece in pieces(block["text"].as_str().unwrap(), cuts) {
                    events.push(delta(json!({"type": "text_delta", "text": piece})));
                }
            }
            "thinking" => {
                events.push(start(
                    json!({"type": "thinking", "thinking": "", "signature": ""}),
                ));
                for piece in pieces(block["thinking"].as_str().unwrap(), cuts) {
                    events.push(delta(json!({"type": "thinking_delta", "thinking": piece})));
                }
                let signature = &block["signature"];
                events.push(delta(
                    json!({"type": "signature_delta", "signature": signature}),
                ));
            }
            "tool_use" | "server_tool_use" => {
                let mut empty = block.clone();
                empty["input"] = json!({});
                events.push(start(empty));
                for piece in pieces(&block["input"].to_string(), cuts) {
                    events.push(delta(
                        json!({"type": "input_json_delta", "partial_json": piece}),
                    ));
                }
            }
            _ => events.push(start(block.clone())),
        }
        events.push(json!({"type": "content_block_stop", "index": index}));
    }
    events.push(
        json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": usage}),
    );
    events.push(json!({"type": "message_stop"}));
    let mut sse = String::new();
    for event in events {
        sse.push_str(&format!(
            "event: {}\ndata: {event}\n\n",
            event["type"].as_str().unwrap()
        ));
    }
    sse.into_bytes()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn a_streamed_message_gives_what_its_body_gives(
        specs in prop::collection::vec(spec(), 1..6),
        cuts in prop::collection::vec(any::<u8>(), 0..4),
        chunk in 1usize..64,
        (input, read, write, output) in (0u64..5000, 0u64..5000, 0u64..5000, 1u64..5000),
    ) {
        let blocks = whole(&specs);
        let usage = json!({"input_tokens": input, "cache_read_input_tokens": read,
            "cache_creation_input_tokens": write, "output_tokens": output});
        let body = json!({"id": "msg_p", "type": "message", "role": "assistant",
            "model": "claude-p", "content": blocks, "stop_reason": "end_turn", "usage": usage});
        let whole = normalize_lossy(Provider::Anthropic, body.to_string().as_bytes(), Options::default());

        let streamed = in_chunks(Provider::Anthropic, &stream(&blocks, &usage, &cuts), chunk);
        prop_assert_eq!(outcome(&streamed), outcome(&whole));
    }
}

/// What the adapter made of `input`, whole, as text to compare: items, diagnostics and the
/// run's metadata with its input report; read with the skim on or off.
fn read_with(skim: bool, input: &[u8]) -> String {
    let mut state = super::State::new();
    state.skim = skim;
    crate::normalize::bench_streams::read_whole::<crate::normalize::framing::Http, _>(state, input)
}

/// Deltas skimmed or parsed, alike, over every input of the corpus, deltas the skim must
/// give up (each with a member it does not read, or not as the parse reads it) and the
/// bench's generated stream, most of whose text deltas it takes.
#[test]
fn every_delta_the_skim_takes_is_read_as_the_parse_reads_it() {
    let mut inputs = crate::normalize::bench_streams::corpus_inputs("anthropic");
    let mut edges = String::from(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"c\",\"content\":[]}}\n\n\
         data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}\n\n\
         data: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
    );
    for delta in [
        r#"0,"delta":{"type":"thinking_delta","thinking":"a\n\u00e9"}}"#,
        r#"1,"delta":{"type":"text_delta","text":"b\u001b[0m"}}"#,
        r#"1,"delta":{"type":"text_delta","thinking":"c"}}"#,
        r#"0,"delta":{"type":"thinking_delta","text":"d"}}"#,
        r#"2,"delta":{"type":"text_delta","text":"e"}}"#,
        r#"1,"delta":{"type":"text_delta","text":"\ud83d\ude00"}}"#,
        r#"1,"delta":{"type":"text_delta","text":"f","text":"g"}}"#,
        r#"01,"delta":{"type":"text_delta","text":"h"}}"#,
        r#"1,"delta":{"type":"text_delta","text":"i"}, "x":1}"#,
        r#"1,"delta":{"type":"text_d\u0065lta","text":"j"}}"#,
        r#"1,"delta":{"type":"text_delta","text":null}}"#,
        r#"1,"delta":{"type":"text_delta","text":"k"}}"#,
    ] {
        edges.push_str(&format!(
            "event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":{delta}\n\n"
        ));
    }
    edges.push_str("data: {\"type\":\"content_block_stop\",\"index\":0}\n\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\ndata: {\"type\":\"message_stop\"}\n\n");
    inputs.push(("edges".to_owned(), edges.into_bytes()));
    let bench = crate::normalize::bench_streams::anthropic_stream::anthropic_stream(1 << 20, 7);
    inputs.push(("bench".to_owned(), bench));
    for (name, input) in &inputs {
        assert_eq!(read_with(true, input), read_with(false, input), "{name}");
    }
    let (_, bench) = inputs.last().expect("the bench's stream");
    let deltas = (bench.split(|&b| b == b'\n'))
        .filter_map(|line| line.strip_prefix(b"data: "))
        .filter(|data| {
            data.windows(14).any(|w| w == b"\"text_delta\",\"")
                || data.windows(18).any(|w| w == b"\"thinking_delta\",\"")
        });
    let (mut taken, mut all) = (0, 0);
    for data in deltas {
        all += 1;
        taken += usize::from(super::skim::delta(data).is_some());
    }
    assert!(all > 100 && taken * 100 / all > 90, "{taken} of {all}");
}
