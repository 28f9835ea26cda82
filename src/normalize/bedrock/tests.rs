//! The adapter's own tests: detection against its look-alikes, and a property: a message
//! streamed (any split of its deltas, any chunking, binary event stream or decoded events)
//! gives what the same message as one `Converse` body gives.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::claims;
use crate::normalize::framing::eventstream::encode;
use crate::normalize::streamed_property::{
    in_chunks, outcome, pieces, text, texts_and_shape_problems,
};
use crate::normalize::{Options, Provider, normalize_lossy};

/// An event-stream message of event type `kind`, as Bedrock sends one.
fn message(kind: &str, payload: &[u8]) -> Vec<u8> {
    let headers = [
        (":event-type", kind),
        (":content-type", "application/json"),
        (":message-type", "event"),
    ];
    encode(&headers, payload)
}

#[test]
fn claims_the_apis_records_and_none_of_their_look_alikes() {
    for record in [
        json!({"messageStart": {"role": "assistant"}}),
        json!({"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "Hi"}}}),
        json!({"messageStop": {"stopReason": "end_turn"}}),
        json!({"metadata": {"usage": {"inputTokens": 3}, "metrics": {"latencyMs": 9}}}),
        json!({"throttlingException": {"message": "Too many requests"}}),
        json!({"output": {"message": {"role": "assistant", "content": [{"text": "Hi"}]}},
            "stopReason": "end_turn"}),
        json!({"messages": [{"role": "user", "content": [{"text": "Hi"}]}]}),
    ] {
        assert!(claims(&record), "{record}");
    }
    for record in [
        // The Messages API's request and OpenAI's: typed content, or a string.
        json!({"messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}]}),
        json!({"model": "gpt-4.1", "messages": [{"role": "user", "content": "Hi"}]}),
        json!({"type": "message_start", "message": {"id": "msg_1"}}),
        // Gemini's and other one-key records.
        json!({"metadata": {"name": "x"}}),
        json!({"error": {"code": 400, "message": "m", "status": "INVALID_ARGUMENT"}}),
        json!({"messages": []}),
    ] {
        assert!(!claims(&record), "{record}");
    }
}

#[test]
fn detection_finds_converse_in_binary_streams_events_bodies_and_requests() {
    let binary = message("messageStart", br#"{"p":"abc","role":"assistant"}"#);
    assert_eq!(Provider::detect(&binary), Some(Provider::Bedrock));
    let decoded = b"{\"messageStart\": {\"role\": \"assistant\"}}\n";
    assert_eq!(Provider::detect(decoded), Some(Provider::Bedrock));
    let body = b"{\n  \"output\": {\"message\": {\"role\": \"assistant\", \"content\": [{\"text\": \"Hi\"}]}},\n  \"stopReason\": \"end_turn\"\n}\n";
    assert_eq!(Provider::detect(body), Some(Provider::Bedrock));
    let request = b"{\"modelId\":\"amazon.nova-micro-v1:0\",\"messages\":[{\"role\":\"user\",\"content\":[{\"text\":\"Hi\"}]}]}\n";
    assert_eq!(Provider::detect(request), Some(Provider::Bedrock));
}

/// One content block of a generated message.
#[derive(Clone, Debug)]
enum Spec {
    Text(String),
    Reasoning(String, String),
    Call(String, Value),
}

fn spec() -> impl Strategy<Value = Spec> {
    prop_oneof![
        text().prop_map(Spec::Text),
        (text(), "[A-Za-z0-9+/]{8,40}").prop_map(|(t, s)| Spec::Reasoning(t, s)),
        (
            "[a-z_]{1,12}",
            prop::collection::btree_map("[a-z]{1,6}", text(), 0..3)
        )
            .prop_map(|(name, args)| Spec::Call(name, json!(args))),
    ]
}

/// The whole blocks of the message, as a `Converse` body has them.
fn whole(specs: &[Spec]) -> Vec<Value> {
    (specs.iter().enumerate())
        .map(|(n, spec)| match spec {
            Spec::Text(text) => json!({"text": text}),
            Spec::Reasoning(text, signature) => json!({"reasoningContent":
                {"reasoningText": {"text": text, "signature": signature}}}),
            Spec::Call(name, input) => json!({"toolUse":
                {"toolUseId": format!("tooluse_{n}"), "name": name, "input": input}}),
        })
        .collect()
}

/// The same message as `ConverseStream` events, every delta cut as `cuts` say.
fn events(specs: &[Spec], usage: &Value, cuts: &[u8]) -> Vec<Value> {
    let mut events = vec![json!({"messageStart": {"role": "assistant"}})];
    for (index, spec) in specs.iter().enumerate() {
        let delta = |delta: Value| json!({"contentBlockDelta": {"contentBlockIndex": index, "delta": delta}});
        match spec {
            Spec::Text(text) => {
                for piece in pieces(text, cuts) {
                    events.push(delta(json!({"text": piece})));
                }
            }
            Spec::Reasoning(text, signature) => {
                for piece in pieces(text, cuts) {
                    events.push(delta(json!({"reasoningContent": {"text": piece}})));
                }
                events.push(delta(json!({"reasoningContent": {"signature": signature}})));
            }
            Spec::Call(name, input) => {
                events.push(json!({"contentBlockStart": {"contentBlockIndex": index,
                    "start": {"toolUse": {"toolUseId": format!("tooluse_{index}"), "name": name}}}}));
                for piece in pieces(&input.to_string(), cuts) {
                    events.push(delta(json!({"toolUse": {"input": piece}})));
                }
            }
        }
        events.push(json!({"contentBlockStop": {"contentBlockIndex": index}}));
    }
    events.push(json!({"messageStop": {"stopReason": "end_turn"}}));
    events.push(json!({"metadata": {"usage": usage, "metrics": {"latencyMs": 100}}}));
    events
}

/// Events in the binary framing: each `{"T": payload}` one message of event type `T`.
fn binary(events: &[Value]) -> Vec<u8> {
    let mut out = Vec::new();
    for event in events {
        let (kind, payload) = event.as_object().unwrap().iter().next().unwrap();
        out.extend(message(kind, payload.to_string().as_bytes()));
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn a_streamed_message_gives_what_its_body_gives(
        specs in prop::collection::vec(spec(), 1..6),
        cuts in prop::collection::vec(any::<u8>(), 0..4),
        chunk in 1usize..64,
        framed in any::<bool>(),
        (input, read, write, output) in (0u64..5000, 0u64..5000, 0u64..5000, 1u64..5000),
    ) {
        let usage = json!({"inputTokens": input, "cacheReadInputTokens": read,
            "cacheWriteInputTokens": write, "outputTokens": output,
            "totalTokens": input + read + write + output});
        let body = json!({"output": {"message": {"role": "assistant", "content": whole(&specs)}},
            "stopReason": "end_turn", "usage": usage, "metrics": {"latencyMs": 100}});
        let whole = normalize_lossy(Provider::Bedrock, body.to_string().as_bytes(), Options::default());

        let events = events(&specs, &usage, &cuts);
        let input = if framed {
            binary(&events)
        } else {
            events.iter().map(|e| format!("{e}\n")).collect::<String>().into_bytes()
        };
        let streamed = in_chunks(Provider::Bedrock, &input, chunk);
        prop_assert_eq!(outcome(&streamed), outcome(&whole));
    }
}

/// A request repeats the history already read: those messages are only checked for their
/// shape, not built (`history.rs`), and one of the wrong shape fails its request with the
/// error a built one gives, as when every message was built. The messages past the history
/// are read as before.
#[test]
fn a_repeated_message_of_the_wrong_shape_fails_its_request_as_a_built_one_does() {
    let first = r#"{"messages":[{"role":"user","content":[{"text":"Hi"}]}]}"#;
    let body = r#"{"output":{"message":{"role":"assistant","content":[{"text":"Hello"}]}},"stopReason":"end_turn"}"#;
    let history = r#"{"role":"assistant","content":[{"text":"Hello"}]},{"role":"user","content":[{"text":"More"}]}"#;
    let texts = |input: &str| texts_and_shape_problems(Provider::Bedrock, input);
    let good = format!(
        "{first}\n{body}\n{{\"messages\":[{{\"role\":\"user\",\"content\":[{{\"text\":\"Hi\"}}]}},{history}]}}\n"
    );
    assert_eq!(
        texts(&good),
        (vec!["Hi".into(), "Hello".into(), "More".into()], vec![])
    );
    for (repeated, expected) in [
        (
            r#"{"role":1,"content":[{"text":"Hi"}]}"#,
            "expected a string",
        ),
        (r#"{"role":"user","content":["Hi"]}"#, "expected a map"),
        (
            r#"{"role":"user","content":{"text":"Hi"}}"#,
            "expected a sequence",
        ),
        (r#"{"role":"user","role":"user"}"#, "duplicate field `role`"),
    ] {
        let bad = format!("{first}\n{body}\n{{\"messages\":[{repeated},{history}]}}\n");
        let (texts, problems) = texts(&bad);
        assert_eq!(texts, ["Hi", "Hello"], "{repeated}");
        assert_eq!(problems.len(), 1, "{repeated}: {problems:?}");
        assert_eq!(problems[0].0, 3, "{repeated}");
        assert!(problems[0].1.contains(expected), "{repeated}: {problems:?}");
    }
}

/// What the adapter made of `input`, whole, as text to compare: items, diagnostics and the
/// run's metadata with its input report; read with the skim on or off.
fn read_with(skim: bool, input: &[u8]) -> String {
    let mut state = super::State::new();
    state.skim = skim;
    crate::normalize::bench_streams::read_whole::<crate::normalize::framing::Http, _>(state, input)
}

/// Deltas skimmed or parsed, alike, over every input of the corpus (binary event streams
/// among them), deltas the skim must give up (each with a member it does not read, or not
/// as the parse reads it), the same as an event stream, and the bench's generated stream,
/// most of whose text deltas it takes.
#[test]
fn every_delta_the_skim_takes_is_read_as_the_parse_reads_it() {
    let mut inputs = crate::normalize::bench_streams::corpus_inputs("bedrock");
    let deltas = [
        r#"0,"delta":{"reasoningContent":{"text":"a\n\u00e9"}}"#,
        r#"0,"delta":{"reasoningContent":{"text":"b"}},"p":"abcd""#,
        r#"1,"delta":{"text":"c\u001b[0m"}"#,
        r#"1,"delta":{"text":"d"},"p":"ab\u0063""#,
        r#"1,"delta":{"text":"\ud83d\ude00"}"#,
        r#"1,"delta":{"text":"e","text":"f"}"#,
        r#"01,"delta":{"text":"g"}"#,
        r#"1,"delta":{"text":"h"},"x":1"#,
        r#"1,"delta":{"text":null}"#,
        r#"1,"delta":{"reasoningContent":{"text":"i","signature":"s"}}"#,
        r#"2,"delta":{"text":"j"}"#,
        r#"1,"delta":{"text":"k"}"#,
    ];
    let mut edges = String::from("{\"messageStart\":{\"role\":\"assistant\"}}\n");
    let mut stream = message("messageStart", br#"{"role":"assistant","p":"ab"}"#);
    for delta in deltas {
        // The payload as the event stream carries it; the record the framing makes of it is
        // the decoded one.
        let payload = format!("{{\"contentBlockIndex\":{delta}}}");
        edges.push_str(&format!("{{\"contentBlockDelta\":{payload}}}\n"));
        stream.extend(message("contentBlockDelta", payload.as_bytes()));
    }
    edges.push_str("{\"messageStop\":{\"stopReason\":\"end_turn\"}}\n");
    stream.extend(message(
        "messageStop",
        br#"{"stopReason":"end_turn","p":"a"}"#,
    ));
    inputs.push(("edges".to_owned(), edges.into_bytes()));
    inputs.push(("edges as an event stream".to_owned(), stream));
    let bench = crate::normalize::bench_streams::bedrock_stream::bedrock_stream(1 << 20, 7);
    inputs.push(("bench".to_owned(), bench));
    for (name, input) in &inputs {
        assert_eq!(read_with(true, input), read_with(false, input), "{name}");
    }
    let (_, bench) = inputs.last().expect("the bench's stream");
    let deltas = (bench.split(|&b| b == b'\n')).filter(|line| {
        line.starts_with(b"{\"contentBlockDelta\"") && !line.windows(9).any(|w| w == b"\"toolUse\"")
    });
    let (mut taken, mut all) = (0, 0);
    for line in deltas {
        all += 1;
        taken += usize::from(super::skim::delta(line).is_some());
    }
    assert!(all > 100 && taken * 100 / all > 90, "{taken} of {all}");
}
