//! The adapter's own tests: detection against its look-alikes, and a property: a response
//! streamed (any split of its text, any chunking, SSE or a JSON array) gives what the same
//! response as one body gives.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::claims;
use crate::normalize::streamed_property::{
    in_chunks, outcome, pieces, text, texts_and_shape_problems,
};
use crate::normalize::{Options, Provider, normalize_lossy};

#[test]
fn claims_the_apis_records_and_none_of_their_look_alikes() {
    for record in [
        json!({"candidates": [{"content": {"parts": [{"text": "hi"}], "role": "model"}}]}),
        json!({"usageMetadata": {"promptTokenCount": 3}, "modelVersion": "gemini-2.5-flash"}),
        json!({"promptFeedback": {"blockReason": "SAFETY"}}),
        json!({"error": {"code": 429, "message": "quota", "status": "RESOURCE_EXHAUSTED"}}),
        json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}),
        json!({"usage_metadata": {"prompt_token_count": 3}, "response_id": "r"}),
    ] {
        assert!(claims(&record), "{record}");
    }
    for record in [
        // The Gemini CLI's stream-json and its error document.
        json!({"type": "message", "role": "assistant", "content": "hi", "timestamp": "t"}),
        json!({"error": {"type": "FatalAuthenticationError", "message": "no", "code": 41}}),
        // OpenAI and Anthropic look-alikes.
        json!({"object": "chat.completion", "choices": []}),
        json!({"model": "gpt-4.1", "messages": []}),
        json!({"usageMetadata": {"promptTokenCount": 3}}),
        json!({"contents": []}),
    ] {
        assert!(!claims(&record), "{record}");
    }
}

#[test]
fn detection_finds_the_api_in_sse_arrays_bodies_and_error_bodies() {
    let sse = b"data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Hi\"}],\"role\": \"model\"},\"index\": 0}]}\r\n\r\n";
    assert_eq!(Provider::detect(sse), Some(Provider::GeminiApi));
    let array = b"[{\n  \"candidates\": [\n    {\n      \"content\": {\"parts\": [{\"text\": \"Hi\"}]}\n    }\n  ]\n}\n,\r\n";
    assert_eq!(Provider::detect(array), Some(Provider::GeminiApi));
    let error = b"{\n  \"error\": {\n    \"code\": 429,\n    \"message\": \"quota\",\n    \"status\": \"RESOURCE_EXHAUSTED\"\n  }\n}\n";
    assert_eq!(Provider::detect(error), Some(Provider::GeminiApi));
    let vertex = b"[{\n  \"error\": {\n    \"code\": 400,\n    \"message\": \"bad\",\n    \"status\": \"INVALID_ARGUMENT\"\n  }\n}\n]\n";
    assert_eq!(Provider::detect(vertex), Some(Provider::GeminiApi));
}

/// One part of a generated response.
#[derive(Clone, Debug)]
enum Spec {
    Text(String),
    /// A thought summary, signed or not.
    Thought(String, Option<String>),
    /// A function call with an id, signed or not; `together` puts it in the chunk of the
    /// call before it (several calls in one chunk).
    Call(String, Value, Option<String>, bool),
}

fn spec() -> impl Strategy<Value = Spec> {
    let signature = prop::option::of("[A-Za-z0-9+/]{8,40}");
    prop_oneof![
        text().prop_map(Spec::Text),
        (text(), signature.clone()).prop_map(|(t, s)| Spec::Thought(t, s)),
        (
            "[a-z_]{1,12}",
            prop::collection::btree_map("[a-z]{1,6}", text(), 0..3),
            signature,
            any::<bool>(),
        )
            .prop_map(|(name, args, s, together)| Spec::Call(
                name,
                json!(args),
                s,
                together
            )),
    ]
}

/// The parts of the whole response, as a body has them.
fn whole(specs: &[Spec]) -> Vec<Value> {
    let signed = |mut part: Value, signature: &Option<String>| {
        if let Some(signature) = signature {
            part["thoughtSignature"] = json!(signature);
        }
        part
    };
    (specs.iter().enumerate())
        .map(|(n, spec)| match spec {
            Spec::Text(text) => json!({"text": text}),
            Spec::Thought(text, signature) => {
                signed(json!({"text": text, "thought": true}), signature)
            }
            Spec::Call(name, args, signature, _) => signed(
                json!({"functionCall": {"id": format!("fc_{n}"), "name": name, "args": args}}),
                signature,
            ),
        })
        .collect()
}

/// The chunks of the same response streamed: each text cut as `cuts` say, one piece a
/// chunk (a thought's signature on its first piece), calls a chunk each unless `together`;
/// every chunk repeats the running usage, the last adds the finish and the final usage.
fn chunks(specs: &[Spec], parts: &[Value], usage: &Value, cuts: &[u8]) -> Vec<Value> {
    let mut chunks: Vec<Vec<Value>> = Vec::new();
    for (spec, part) in specs.iter().zip(parts) {
        match spec {
            Spec::Text(text) | Spec::Thought(text, _) => {
                for (n, piece) in pieces(text, cuts).into_iter().enumerate() {
                    let mut piece_part = part.clone();
                    piece_part["text"] = json!(piece);
                    if n > 0 {
                        piece_part
                            .as_object_mut()
                            .unwrap()
                            .remove("thoughtSignature");
                    }
                    chunks.push(vec![piece_part]);
                }
            }
            Spec::Call(.., together) => match chunks.last_mut() {
                Some(last) if *together && last[0].get("functionCall").is_some() => {
                    last.push(part.clone())
                }
                _ => chunks.push(vec![part.clone()]),
            },
        }
    }
    let running = json!({"promptTokenCount": usage["promptTokenCount"]});
    let mut out: Vec<Value> = (chunks.into_iter())
        .map(|parts| {
            json!({"candidates": [{"content": {"role": "model", "parts": parts},
            "index": 0}], "usageMetadata": running, "modelVersion": "gemini-p",
            "responseId": "rsp_p"})
        })
        .collect();
    out.push(
        json!({"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]},
        "finishReason": "STOP", "index": 0}], "usageMetadata": usage,
        "modelVersion": "gemini-p", "responseId": "rsp_p"}),
    );
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn a_streamed_response_gives_what_its_body_gives(
        specs in prop::collection::vec(spec(), 1..6),
        cuts in prop::collection::vec(any::<u8>(), 0..4),
        chunk in 1usize..64,
        array in any::<bool>(),
        (prompt, cached, candidates, thoughts) in (0u64..5000, 0u64..5000, 0u64..5000, 0u64..5000),
    ) {
        let parts = whole(&specs);
        let usage = json!({"promptTokenCount": prompt + cached, "cachedContentTokenCount": cached,
            "candidatesTokenCount": candidates, "thoughtsTokenCount": thoughts});
        let body = json!({"candidates": [{"content": {"role": "model", "parts": parts},
            "finishReason": "STOP", "index": 0}], "usageMetadata": usage,
            "modelVersion": "gemini-p", "responseId": "rsp_p"});
        let whole = normalize_lossy(Provider::GeminiApi, body.to_string().as_bytes(), Options::default());

        let chunks = chunks(&specs, &parts, &usage, &cuts);
        // The API's two stream framings: SSE (`alt=sse`), or one JSON array sent element by
        // element, pretty-printed, elements apart by `\n,\r\n`.
        let input = if array {
            let elements: Vec<String> = (chunks.iter())
                .map(|c| serde_json::to_string_pretty(c).unwrap())
                .collect();
            format!("[{}]", elements.join("\n,\r\n"))
        } else {
            chunks.iter().map(|c| format!("data: {c}\r\n\r\n")).collect()
        };
        let streamed = in_chunks(Provider::GeminiApi, input.as_bytes(), chunk);
        prop_assert_eq!(outcome(&streamed), outcome(&whole));
    }
}

/// Each count is read from its camelCase field when that is there, whatever its value (a
/// null or a string shadows the snake_case spelling and counts 0), else from its snake_case
/// one; a usage that is not an object counts nothing.
#[test]
fn usage_counts_prefer_the_camel_case_field_whenever_it_is_there() {
    use super::wire::{Counts, UsageMembers};
    use crate::normalize::lenient::Slot;
    let of = |usage: Value| {
        let text = usage.to_string();
        match serde_json::from_str::<Slot<UsageMembers<'_>>>(&text).unwrap() {
            Slot::Read(usage) => usage.counts(),
            Slot::Other => Counts::default(),
        }
    };
    let counts = of(json!({
        "promptTokenCount": 10,
        "prompt_token_count": 99,
        "candidates_token_count": 7,
        "cachedContentTokenCount": null,
        "cached_content_token_count": 5,
        "thoughtsTokenCount": "12",
        "thoughts_token_count": 12,
        "tool_use_prompt_token_count": 3,
        "totalTokenCount": 1000,
    }));
    assert_eq!(
        counts,
        Counts {
            prompt: 10,
            candidates: 7,
            cached: 0,
            thoughts: 0,
            tool_use_prompt: 3,
        }
    );
    assert_eq!(of(json!([1, 2])), Counts::default());
    assert_eq!(of(json!({})), Counts::default());
}

/// A request repeats the history already read: those contents are only checked for their
/// shape, not built (`history.rs`), and one of the wrong shape fails its request with the
/// error a built one gives, as when every content was built; one a built content accepts
/// (any JSON as a call's `args` or a function's `response`, a part of another kind) is
/// accepted. The contents past the history are read as before.
#[test]
fn a_repeated_content_of_the_wrong_shape_fails_its_request_as_a_built_one_does() {
    let first = r#"{"contents":[{"role":"user","parts":[{"text":"Hi"}]}]}"#;
    let body = r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"Hello"}]},"finishReason":"STOP"}],"responseId":"r1"}"#;
    let history =
        r#"{"role":"model","parts":[{"text":"Hello"}]},{"role":"user","parts":[{"text":"More"}]}"#;
    let read = |repeated: &str| {
        let input = format!("{first}\n{body}\n{{\"contents\":[{repeated},{history}]}}\n");
        texts_and_shape_problems(Provider::GeminiApi, &input)
    };
    for accepted in [
        r#"{"role":"user","parts":[{"text":"Hi"}]}"#,
        r#"{"role":"user","parts":[{"functionResponse":{"name":"f","response":[1,{"a":null}]}}]}"#,
        r#"{"role":"model","parts":[{"functionCall":{"name":"f","args":"x"}},{"inlineData":{"data":"AA=="}}]}"#,
    ] {
        assert_eq!(
            read(accepted),
            (vec!["Hi".into(), "Hello".into(), "More".into()], vec![]),
            "{accepted}"
        );
    }
    for (repeated, expected) in [
        (r#"{"role":1,"parts":[{"text":"Hi"}]}"#, "expected a string"),
        (
            r#"{"role":"user","parts":[{"thought":"yes"}]}"#,
            "expected a boolean",
        ),
        (
            r#"{"role":"user","parts":[["Hi"]]}"#,
            "invalid type: sequence",
        ),
        (
            r#"{"role":"user","parts":{"text":"Hi"}}"#,
            "expected a sequence",
        ),
        (
            r#"{"role":"model","parts":[{"functionCall":{"name":2}}]}"#,
            "expected a string",
        ),
    ] {
        let (texts, problems) = read(repeated);
        assert_eq!(texts, ["Hi", "Hello"], "{repeated}");
        assert_eq!(problems.len(), 1, "{repeated}: {problems:?}");
        assert_eq!(problems[0].0, 3, "{repeated}");
        assert!(problems[0].1.contains(expected), "{repeated}: {problems:?}");
    }
}

/// A usage is kept as its tree, built only when its members differ from those of the tree
/// kept (`UsageMembers::keep_in`): over usages repeated, changed in a value, a name, their
/// order, a member more or less, a name twice, a nested value, and a kept tree taken away
/// between two equal usages, the tree kept is always the tree of the last usage read.
#[test]
fn the_usage_kept_is_the_tree_of_the_last_usage_whatever_came_before() {
    use super::wire::UsageMembers;
    use crate::normalize::lenient::Slot;
    let usages = [
        r#"{"promptTokenCount":3,"totalTokenCount":5}"#,
        r#"{"promptTokenCount":3,"totalTokenCount":5}"#,
        r#"{"promptTokenCount":3,"totalTokenCount":6}"#,
        r#"{"promptTokenCount":3,"totalTokenCount":6.0}"#,
        r#"{"totalTokenCount":6.0,"promptTokenCount":3}"#,
        r#"{"totalTokenCount":6.0,"prompt_token_count":3}"#,
        r#"{"totalTokenCount":6.0}"#,
        r#"{"totalTokenCount":6.0,"totalTokenCount":7}"#,
        r#"{"totalTokenCount":7}"#,
        r#"{"totalTokenCount":7,"promptTokensDetails":[{"modality":"TEXT","tokenCount":7}]}"#,
        r#"{"totalTokenCount":7,"promptTokensDetails":[{"modality":"TEXT","tokenCount":8}]}"#,
        r#"{}"#,
        r#"{}"#,
        "TAKEN",
        r#"{}"#,
        r#"{"totalTokenCount":7}"#,
        "TAKEN",
        r#"{"totalTokenCount":7}"#,
    ];
    let mut kept = None;
    let mut last = Vec::new();
    for (at, usage) in usages.into_iter().enumerate() {
        if usage == "TAKEN" {
            kept = None;
            continue;
        }
        let Slot::Read(members) = serde_json::from_str::<Slot<UsageMembers<'_>>>(usage).unwrap()
        else {
            panic!("{usage}: an object");
        };
        members.keep_in(&mut kept, &mut last);
        let tree: Value = serde_json::from_str(usage).unwrap();
        assert_eq!(kept.as_ref(), Some(&tree), "usage {at}: {usage}");
    }
}

/// What the adapter made of `input`, whole, as text to compare: items, diagnostics and the
/// run's metadata with its input report; read with the skim on or off.
fn read_with(skim: bool, input: &[u8]) -> String {
    let mut state = super::State::new();
    state.skim = skim;
    crate::normalize::bench_streams::read_whole::<crate::normalize::framing::Http, _>(state, input)
}

/// Chunks skimmed or parsed, alike, over every input of the corpus, chunks the skim must
/// give up (each with a member it does not read, or not as the parse reads it) and the
/// bench's generated stream, most of whose chunks it takes.
#[test]
fn every_chunk_the_skim_takes_is_read_as_the_parse_reads_it() {
    let mut inputs = crate::normalize::bench_streams::corpus_inputs("gemini-api");
    let chunk = |parts: &str, rest: &str| {
        format!(
            "data: {{\"candidates\": [{{\"content\": {{\"parts\": [{parts}],\"role\": \"model\"}},\"index\": 0}}],\"usageMetadata\": {{\"promptTokenCount\": 3,\"totalTokenCount\": 5}},\"modelVersion\": \"m\",\"responseId\": \"r\"{rest}}}\r\n\r\n"
        )
    };
    let mut edges = String::new();
    for (parts, rest) in [
        (r#"{"text": "a\n\u00e9\u001b[0m"}"#, ""),
        (r#"{"text": "b", "thought": true}"#, ""),
        (r#"{"text": "c","thought": false}"#, ""),
        (r#"{"text": null}"#, ""),
        (r#"{"text": "d"},{"text": "e"}"#, ""),
        (r#"{"text": "\ud83d\ude00"}"#, ""),
        (r#"{"text": "f", "text": "g"}"#, ""),
        (r#"{"text": "h", "thoughtSignature": "s"}"#, ""),
        (
            r#"{"text": "i"}"#,
            r#","createTime": "2025-01-01T00:00:00Z""#,
        ),
        (r#"{"text": "j"}"#, r#","extra": 1"#),
        (r#"{"text": "k"}"#, r#","responseId": "again""#),
        (r#"{"functionCall": {"name": "lookup", "args": {}}}"#, ""),
        (r#"{"text": "l"}"#, ""),
    ] {
        edges.push_str(&chunk(parts, rest));
    }
    edges.push_str("data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"m\"}],\"role\": \"model\"},\"index\": 0}],\"usageMetadata\": {\"promptTokenCount\": 03},\"responseId\": \"r\"}\r\n\r\n");
    edges.push_str("data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"n\"}],\"role\": \"model\"},\"index\": 0}],\"usageMetadata\": {\"promptTokenCount\": 3, \"promptTokenCount\": 4},\"responseId\": \"r\"}\r\n\r\n");
    edges.push_str("data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"o\"}],\"role\": \"model\"},\"finishReason\": \"STOP\",\"index\": 0}],\"responseId\": \"r\"}\r\n\r\n");
    inputs.push(("edges".to_owned(), edges.into_bytes()));
    let bench = crate::normalize::bench_streams::gemini_api_stream::gemini_api_stream(1 << 20, 7);
    inputs.push(("bench".to_owned(), bench));
    for (name, input) in &inputs {
        assert_eq!(read_with(true, input), read_with(false, input), "{name}");
    }
    let (_, bench) = inputs.last().expect("the bench's stream");
    let chunks = (bench.split(|&b| b == b'\n'))
        .filter_map(|line| line.strip_prefix(b"data: "))
        .map(|data| data.strip_suffix(b"\r").unwrap_or(data));
    let (mut taken, mut all) = (0, 0);
    for data in chunks {
        all += 1;
        taken += usize::from(super::skim::chunk(data).is_some());
    }
    assert!(taken * 100 / all > 90, "{taken} of {all}");
}
