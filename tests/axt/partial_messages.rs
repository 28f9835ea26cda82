//! Claude Code `--include-partial-messages`: every block of a message arrives twice, as
//! `stream_event` deltas and as a consolidated `assistant` line, and the CLI has put that
//! line before the block's `content_block_stop` in some versions and after it in others.
//! These properties generate messages, stream them, and put the consolidated lines anywhere
//! after their block started (before the first delta, between deltas, before or after the
//! stop, after `message_stop`), leave some out or send some twice, or send one line with the
//! whole message instead; the blocks must come out exactly as from the plain stream-json of
//! the same messages, each once.

use std::collections::BTreeMap;

use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::{Value, json};

use axt::model::{Block, EventType, Payload, Role};
use axt::normalize::{DiagnosticKind, Normalized, Options, Provider, normalize_lossy};
use axt::transcribe::{EventOptions, to_events};
use axt::{ContentBlock, Timestamp};

const SESSION: &str = "0f6c5a8e-2b41-4d7e-9a53-c1e2f3a4b5c6";

/// One content block of a generated message.
#[derive(Clone, Debug)]
enum Gen {
    Text(String),
    Thinking(String, String),
    Redacted(String),
    Tool(&'static str, Value),
    /// A server tool call and, as the next block, its result.
    WebSearch(String),
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        // Identical texts in one message must stay two blocks.
        Just("Done.".to_owned()),
        "[a-z é→😀\n]{0,24}",
    ]
}

fn block() -> impl Strategy<Value = Gen> {
    prop_oneof![
        3 => text().prop_map(Gen::Text),
        2 => (text(), "[A-Za-z0-9+/]{8,40}").prop_map(|(t, s)| Gen::Thinking(t, s)),
        1 => "[A-Za-z0-9+/]{8,40}".prop_map(Gen::Redacted),
        2 => text().prop_map(|command| Gen::Tool("Bash", json!({"command": command, "description": "run it"}))),
        1 => (text(), 1..500u32).prop_map(|(path, limit)| Gen::Tool("Read", json!({"file_path": path, "limit": limit}))),
        1 => text().prop_map(Gen::WebSearch),
    ]
}

/// How a message's consolidated lines are sent.
#[derive(Clone, Debug)]
enum Consolidated {
    /// One line per block (Claude Code 2.x): each left out, sent once, or sent twice, at a
    /// position after its block started (the indexes pick it).
    PerBlock(Vec<(u8, Index, Index)>),
    /// One line with every block, anywhere in the message's span, maybe sent twice.
    Whole(Index, Option<Index>),
}

fn consolidated(blocks: usize) -> impl Strategy<Value = Consolidated> {
    prop_oneof![
        4 => prop::collection::vec((0..6u8, any::<Index>(), any::<Index>()), blocks)
            .prop_map(Consolidated::PerBlock),
        1 => (any::<Index>(), prop::option::of(any::<Index>()))
            .prop_map(|(at, again)| Consolidated::Whole(at, again)),
    ]
}

#[derive(Clone, Debug)]
struct Message {
    blocks: Vec<Gen>,
    consolidated: Consolidated,
    /// Where text, thinking and tool arguments are cut into deltas.
    cuts: Vec<Index>,
}

fn message() -> impl Strategy<Value = Message> {
    prop::collection::vec(block(), 1..5).prop_flat_map(|blocks| {
        let count = blocks
            .iter()
            .map(|b| 1 + matches!(b, Gen::WebSearch(_)) as usize)
            .sum();
        (
            Just(blocks),
            consolidated(count),
            prop::collection::vec(any::<Index>(), 3),
        )
            .prop_map(|(blocks, consolidated, cuts)| Message {
                blocks,
                consolidated,
                cuts,
            })
    })
}

/// The Anthropic content blocks of a message, with the tool ids made unique in the run.
fn content(message: &Message, number: usize) -> Vec<Value> {
    let mut content = Vec::new();
    for (position, block) in message.blocks.iter().enumerate() {
        let id = format!("toolu_01{number:02}{position:02}Gen");
        match block {
            Gen::Text(text) => content.push(json!({"type": "text", "text": text})),
            Gen::Thinking(thinking, signature) => content.push(
                json!({"type": "thinking", "thinking": thinking, "signature": signature}),
            ),
            Gen::Redacted(data) => content.push(json!({"type": "redacted_thinking", "data": data})),
            Gen::Tool(name, input) => content.push(
                json!({"type": "tool_use", "id": id, "name": name, "input": input, "caller": {"type": "direct"}}),
            ),
            Gen::WebSearch(query) => {
                let id = format!("srvtoolu_01{number:02}{position:02}Gen");
                content.push(json!({"type": "server_tool_use", "id": id, "name": "web_search", "input": {"query": query}}));
                content.push(json!({"type": "web_search_tool_result", "tool_use_id": id, "content": [
                    {"type": "web_search_result", "title": query, "url": "https://example.com/", "encrypted_content": "EqgfCioI", "page_age": null}
                ]}));
            }
        }
    }
    content
}

fn line(kind: &str, fields: Value) -> String {
    let mut record = json!({"type": kind});
    record
        .as_object_mut()
        .unwrap()
        .extend(fields.as_object().unwrap().clone());
    record["session_id"] = json!(SESSION);
    serde_json::to_string(&record).unwrap()
}

fn event(event: Value) -> String {
    line(
        "stream_event",
        json!({"event": event, "parent_tool_use_id": null}),
    )
}

fn assistant(id: &str, content: Vec<Value>, uuid: &str) -> String {
    line(
        "assistant",
        json!({
            "message": {"model": "claude-sonnet-4-6", "id": id, "type": "message", "role": "assistant",
                "content": content, "stop_reason": null, "stop_sequence": null,
                "usage": {"input_tokens": 3, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 2}},
            "parent_tool_use_id": null,
            "uuid": uuid,
        }),
    )
}

/// `text` cut in up to three pieces at character boundaries.
fn pieces(text: &str, cuts: &[Index]) -> Vec<String> {
    let bounds: Vec<usize> = text
        .char_indices()
        .map(|(at, _)| at)
        .chain([text.len()])
        .collect();
    let mut at: Vec<usize> = cuts
        .iter()
        .map(|cut| bounds[cut.index(bounds.len())])
        .collect();
    at.push(0);
    at.push(text.len());
    at.sort();
    at.dedup();
    at.windows(2)
        .map(|w| text[w[0]..w[1]].to_owned())
        .filter(|piece| !piece.is_empty())
        .collect()
}

/// The stream events of one block; `at[i]` is where its `content_block_start` is.
fn stream(block: &Value, index: usize, cuts: &[Index]) -> Vec<String> {
    let delta = |delta: Value| {
        event(json!({"type": "content_block_delta", "index": index, "delta": delta}))
    };
    let kind = block["type"].as_str().unwrap();
    let start = match kind {
        "text" => json!({"type": "text", "text": ""}),
        "thinking" => json!({"type": "thinking", "thinking": "", "signature": ""}),
        "tool_use" | "server_tool_use" => {
            let mut start = block.clone();
            start["input"] = json!({});
            start
        }
        _ => block.clone(),
    };
    let mut lines = vec![event(
        json!({"type": "content_block_start", "index": index, "content_block": start}),
    )];
    match kind {
        "text" => {
            for piece in pieces(block["text"].as_str().unwrap(), cuts) {
                lines.push(delta(json!({"type": "text_delta", "text": piece})));
            }
        }
        "thinking" => {
            for piece in pieces(block["thinking"].as_str().unwrap(), cuts) {
                lines.push(delta(json!({"type": "thinking_delta", "thinking": piece})));
            }
            lines.push(delta(
                json!({"type": "signature_delta", "signature": block["signature"]}),
            ));
        }
        "tool_use" | "server_tool_use" => {
            let input = serde_json::to_string(&block["input"]).unwrap();
            for piece in pieces(&input, cuts) {
                lines.push(delta(
                    json!({"type": "input_json_delta", "partial_json": piece}),
                ));
            }
        }
        _ => {}
    }
    lines.push(event(json!({"type": "content_block_stop", "index": index})));
    lines
}

/// The tool results the CLI sends back after a message.
fn results(content: &[Value]) -> Option<String> {
    let results: Vec<Value> = content
        .iter()
        .filter(|block| block["type"] == "tool_use")
        .map(|block| json!({"tool_use_id": block["id"], "type": "tool_result", "content": "ok", "is_error": false}))
        .collect();
    (!results.is_empty()).then(|| {
        line(
            "user",
            json!({"message": {"role": "user", "content": results}, "parent_tool_use_id": null}),
        )
    })
}

fn result() -> String {
    line(
        "result",
        json!({"subtype": "success", "is_error": false, "duration_ms": 900, "num_turns": 1, "result": "Done.",
            "stop_reason": "end_turn", "total_cost_usd": 0.01,
            "usage": {"input_tokens": 3, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 9}}),
    )
}

/// A block made different from what its deltas say.
fn alter(block: &mut Value) {
    match block["type"].as_str().unwrap() {
        "text" => block["text"] = json!(format!("≠{}", block["text"].as_str().unwrap())),
        "thinking" => {
            block["thinking"] = json!(format!("{}≠", block["thinking"].as_str().unwrap()))
        }
        "redacted_thinking" => {
            block["data"] = json!(format!("{}x", block["data"].as_str().unwrap()))
        }
        "web_search_tool_result" => block["content"] = json!([]),
        _ => block["input"]["altered"] = json!(true),
    }
}

/// The run as plain stream-json (one assistant line per block) and with partial messages;
/// `altered` (message, block) is made different in the consolidated lines (and in the
/// plain form) from what its deltas say.
fn render(messages: &[Message], altered: Option<(usize, usize)>) -> (String, String) {
    let mut plain = Vec::new();
    let mut partial = Vec::new();
    for (number, message) in messages.iter().enumerate() {
        let id = format!("msg_01Gen{number:02}");
        let streamed = content(message, number);
        let mut content = streamed.clone();
        if let Some((m, b)) = altered
            && m == number
        {
            alter(&mut content[b]);
        }
        let uuid = |block: usize, copy: usize| format!("9c0d{number:02}{block:02}-{copy}");
        for (at, block) in content.iter().enumerate() {
            plain.push(assistant(&id, vec![block.clone()], &uuid(at, 0)));
        }

        let mut events = vec![event(json!({"type": "message_start", "message": {
            "model": "claude-sonnet-4-6", "id": id, "type": "message", "role": "assistant", "content": [],
            "stop_reason": null, "usage": {"input_tokens": 3, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 1}}}))];
        let mut starts = Vec::new();
        for (index, block) in streamed.iter().enumerate() {
            starts.push(events.len());
            events.extend(stream(block, index, &message.cuts));
        }
        events.push(event(json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null},
            "usage": {"input_tokens": 3, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 40}})));
        events.push(event(json!({"type": "message_stop"})));

        // (position, order, line): a consolidated line goes in before the event at `position`.
        let mut inserts: Vec<(usize, usize, String)> = Vec::new();
        let after = |start: usize, pick: &Index| start + 1 + pick.index(events.len() - start);
        match &message.consolidated {
            Consolidated::PerBlock(choices) => {
                for (at, block) in content.iter().enumerate() {
                    let (how, first, second) = &choices[at];
                    let line = assistant(&id, vec![block.clone()], &uuid(at, 0));
                    match how {
                        0 => {}
                        1 => {
                            let first = after(starts[at], first);
                            let again = first + second.index(events.len() + 1 - first);
                            inserts.push((first, inserts.len(), line.clone()));
                            inserts.push((again, inserts.len(), line));
                        }
                        _ => inserts.push((after(starts[at], first), inserts.len(), line)),
                    }
                }
            }
            Consolidated::Whole(at, again) => {
                let line = assistant(&id, content.clone(), &uuid(0, 1));
                let first = at.index(events.len() + 1);
                inserts.push((first, 0, line.clone()));
                if let Some(again) = again {
                    inserts.push((first + again.index(events.len() + 1 - first), 1, line));
                }
            }
        }
        inserts.sort_by_key(|(position, order, _)| (*position, *order));
        let mut inserts = inserts.into_iter().peekable();
        for (position, line) in events.into_iter().enumerate() {
            while let Some((_, _, copy)) = inserts.next_if(|(at, _, _)| *at == position) {
                partial.push(copy);
            }
            partial.push(line);
        }
        partial.extend(inserts.map(|(_, _, copy)| copy));

        if let Some(results) = results(&content) {
            plain.push(results.clone());
            partial.push(results);
        }
    }
    plain.push(result());
    partial.push(result());
    (plain.join("\n") + "\n", partial.join("\n") + "\n")
}

fn normalize(input: &str) -> Normalized {
    normalize_lossy(Provider::Claude, input.as_bytes(), Options::default())
}

/// What must be equal: each block, whose message it is in, and who said it.
fn blocks(normalized: &Normalized) -> Vec<(Role, Option<String>, ContentBlock)> {
    normalized
        .items
        .iter()
        .map(|item| {
            (
                item.role.clone(),
                item.message_id.clone(),
                item.block.clone(),
            )
        })
        .collect()
}

/// How many `tool.call` events each call id got.
fn tool_calls(normalized: &Normalized) -> BTreeMap<String, usize> {
    let options = EventOptions {
        run_id: Some("partial-messages".into()),
        clock: Box::new(|| Timestamp::parse("2026-06-08T08:14:42.123Z").unwrap()),
    };
    let mut calls = BTreeMap::new();
    for event in to_events(normalized, options) {
        if event.event_type == EventType::ToolCall
            && let Payload::Tool(tool) = &event.payload
        {
            *calls.entry(tool.call_id.clone()).or_default() += 1;
        }
    }
    calls
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 384, ..ProptestConfig::default() })]

    #[test]
    fn each_block_once_whatever_the_interleaving(
        messages in prop::collection::vec(message(), 1..4),
        split in any::<Index>(),
    ) {
        let (plain, partial) = render(&messages, None);
        let expected = normalize(&plain);
        prop_assert!(expected.diagnostics.is_empty(), "{:?}", expected.diagnostics);
        let got = normalize(&partial);
        prop_assert_eq!(&got.diagnostics, &vec![], "{}", partial);
        prop_assert_eq!(blocks(&got), blocks(&expected), "{}", partial);
        prop_assert_eq!(&got.meta.usage, &expected.meta.usage);
        let calls = tool_calls(&got);
        prop_assert!(calls.values().all(|count| *count == 1), "{:?}", calls);
        prop_assert_eq!(calls, tool_calls(&expected));

        // Pushed in two pieces, split anywhere: the same.
        let at = split.index(partial.len() + 1);
        let mut normalizer = Provider::Claude.normalizer(Options::default());
        let mut out = axt::normalize::Output::default();
        normalizer.push(&partial.as_bytes()[..at], &mut out);
        normalizer.push(&partial.as_bytes()[at..], &mut out);
        normalizer.finish(&mut out);
        prop_assert_eq!(&out.items, &got.items);
        prop_assert_eq!(&out.diagnostics, &got.diagnostics);
    }
}

/// A generated run with one consolidated block that differs from its deltas, sent at least
/// once: (messages, which message, which block).
fn with_a_differing_copy() -> impl Strategy<Value = (Vec<Message>, usize, usize)> {
    prop::collection::vec(message(), 1..3).prop_flat_map(|messages| {
        let count = messages.len();
        (Just(messages), 0..count, any::<Index>()).prop_map(|(mut messages, m, pick)| {
            let blocks = content(&messages[m], m).len();
            let b = pick.index(blocks);
            if let Consolidated::PerBlock(choices) = &mut messages[m].consolidated
                && choices[b].0 == 0
            {
                choices[b].0 = 2;
            }
            (messages, m, b)
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn a_differing_copy_keeps_one_version_and_says_so(
        (messages, m, b) in with_a_differing_copy(),
    ) {
        let (plain, _) = render(&messages, None);
        let (altered, partial) = render(&messages, Some((m, b)));
        let expected = blocks(&normalize(&plain));
        let other = blocks(&normalize(&altered));
        let got = normalize(&partial);
        let kinds: Vec<_> = got.diagnostics.iter().map(|d| d.kind).collect();
        prop_assert_eq!(kinds, vec![DiagnosticKind::StreamMismatch], "{}", partial);
        let got_blocks = blocks(&got);
        prop_assert_eq!(got_blocks.len(), expected.len(), "{}", partial);
        // Where the altered block is; the altered version may stand at any position whose
        // block is the same as the altered one's (two equal texts cannot be told apart).
        let changed = (0..expected.len()).find(|at| expected[*at] != other[*at]).unwrap();
        let mut kept_altered = 0;
        for (at, block) in got_blocks.iter().enumerate() {
            if *block != expected[at] {
                prop_assert!(*block == other[changed] && expected[at] == expected[changed], "block {}: {:?}\n{}", at, block, partial);
                kept_altered += 1;
            }
        }
        prop_assert!(kept_altered <= 1, "{}", partial);
        let calls = tool_calls(&got);
        prop_assert!(calls.values().all(|count| *count == 1), "{:?}", calls);
    }
}

/// Blocks and diagnostics of a short run, for exact assertions.
fn outcome(lines: &[String]) -> (Vec<Block>, Vec<String>) {
    let normalized = normalize(&(lines.join("\n") + "\n"));
    let blocks = normalized
        .items
        .into_iter()
        .map(|item| item.block.block)
        .collect();
    let diagnostics = normalized
        .diagnostics
        .iter()
        .map(ToString::to_string)
        .collect();
    (blocks, diagnostics)
}

fn start(id: &str) -> String {
    event(
        json!({"type": "message_start", "message": {"model": "claude-sonnet-4-6", "id": id,
        "type": "message", "role": "assistant", "content": [], "stop_reason": null}}),
    )
}

fn text_start(index: u64) -> String {
    event(
        json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}),
    )
}

fn text_delta(index: u64, text: &str) -> String {
    event(
        json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": text}}),
    )
}

#[test]
fn a_stream_cut_inside_a_block_whose_copy_came_loses_nothing() {
    let lines = [
        start("msg_01Cut"),
        text_start(0),
        text_delta(0, "Half of"),
        assistant(
            "msg_01Cut",
            vec![json!({"type": "text", "text": "Half of the answer."})],
            "u-1",
        ),
    ];
    let (blocks, diagnostics) = outcome(&lines);
    assert_eq!(
        blocks,
        [Block::Text {
            text: "Half of the answer.".into(),
            citations: Vec::new(),
            system_prompt: false,
        }]
    );
    let end = lines.iter().map(|l| l.len() + 1).sum::<usize>() - 1;
    assert_eq!(
        diagnostics,
        [format!(
            "line 4 (byte {end}): warning[missing-terminal]: the stream ended without a result record; the run is incomplete"
        )]
    );
}

#[test]
fn a_block_still_streaming_when_the_next_message_starts_is_kept_as_far_as_it_came() {
    let lines = [
        start("msg_01First"),
        text_start(0),
        text_delta(0, "Interrupted mid"),
        start("msg_01Second"),
        text_start(0),
        text_delta(0, "Retried."),
        event(json!({"type": "content_block_stop", "index": 0})),
        result(),
    ];
    let (blocks, diagnostics) = outcome(&lines);
    assert_eq!(
        blocks,
        [
            Block::Text {
                text: "Interrupted mid".into(),
                citations: Vec::new(),
                system_prompt: false,
            },
            Block::Text {
                text: "Retried.".into(),
                citations: Vec::new(),
                system_prompt: false,
            },
        ]
    );
    let offset = lines[0].len() + 1;
    assert_eq!(
        diagnostics,
        [format!(
            "line 2 (byte {offset}): warning[incomplete-block]: text block 0 of message msg_01First was still streaming when its message ended; kept as far as it arrived"
        )]
    );
}
