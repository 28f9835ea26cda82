//! The adapter's own tests: an event whose payload is only looked at (`wire::Payload::Seen`)
//! gives exactly what the same event with its payload built gives.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::wire::Event;
use crate::normalize::{Options, Provider, normalize_lossy};

/// A pi run cut in the middle of its second message, with every event whose payload is a copy:
/// `message_start`, `message_update`, `turn_end` (with and without a `stopReason` string),
/// a `tool_execution_end` whose `toolResult` message never came.
const CUT_RUN: &str = r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-02-05T02:39:26.125Z","cwd":"/p"}
{"type":"agent_start"}
{"type":"message_end","message":{"role":"user","content":"list","timestamp":1770259166905}}
{"type":"message_start","message":{"role":"assistant","content":[],"model":"m","stopReason":"stop","timestamp":1770259166906}}
{"type":"message_update","assistantMessageEvent":{"type":"text_delta"},"message":{"role":"assistant","content":[{"type":"text","text":"Look\u0000ing \"here\""},{"type":"toolCall","id":"c1","name":"lookup","arguments":{"key":"k1","n":1.5}}],"model":"m","timestamp":1770259166907}}
{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"Looking"},{"type":"toolCall","id":"c1","name":"lookup","arguments":{"key":"k1"}}],"model":"m","stopReason":"toolUse","usage":{"input":3,"output":4},"timestamp":1770259166908}}
{"type":"tool_execution_end","toolCallId":"c1","toolName":"lookup","result":{"content":[{"type":"text","text":"a\nb"}],"details":{}},"isError":false}
{"type":"turn_end","message":{"role":"assistant","stopReason":"toolUse"},"toolResults":[]}
{"type":"turn_end","message":{"role":"assistant","stopReason":["not","a","string"]}}
{"type":"turn_end","message":"not an object"}
{"type":"message_start","message":{"role":"assistant","content":[],"timestamp":1770259166909}}
{"type":"message_update","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"half"}],"timestamp":1770259166910}}
{"type":"message_update","message":null}
"#;

/// The run with each record's fields in another order: `type` last (a JSON object with sorted
/// keys), so every payload comes before its event's type and is built.
fn type_last(run: &str) -> String {
    run.lines()
        .map(|line| {
            let record: Map<String, Value> = serde_json::from_str(line).unwrap();
            let sorted: std::collections::BTreeMap<_, _> = record.into_iter().collect();
            let mut line = serde_json::to_string(&sorted).unwrap();
            line.push('\n');
            line
        })
        .collect()
}

/// The run with `type` first, as pi writes it (the other fields sorted, so that both forms
/// have lines of the same length and their diagnostics the same offsets).
fn type_first(run: &str) -> String {
    run.lines()
        .map(|line| {
            let mut record: Map<String, Value> = serde_json::from_str(line).unwrap();
            let kind = record.remove("type").unwrap();
            let rest: std::collections::BTreeMap<_, _> = record.into_iter().collect();
            let rest = serde_json::to_string(&rest).unwrap();
            let rest = rest.strip_prefix('{').unwrap();
            let separator = if rest == "}" { "" } else { "," };
            format!("{{\"type\":{kind}{separator}{rest}\n")
        })
        .collect()
}

#[test]
fn payloads_only_looked_at_give_what_built_payloads_give() {
    let seen = type_first(CUT_RUN);
    let built = type_last(CUT_RUN);
    assert_eq!(seen.len(), built.len());
    assert!(seen.starts_with("{\"type\":\"session\","), "{seen}");
    assert!(built.starts_with("{\"cwd\":"), "{built}");
    let seen = normalize_lossy(Provider::Pi, seen.as_bytes(), Options::default());
    let built = normalize_lossy(Provider::Pi, built.as_bytes(), Options::default());
    assert_eq!(seen, built);
    // The cut message's last snapshot and the unanswered result, read back from their
    // records, are in it.
    let delivered: Vec<String> = (seen.diagnostics.iter())
        .map(|d| format!("{} {}", d.line, d.message))
        .collect();
    assert_eq!(
        delivered,
        [
            "12 a message cut before its message_end: its last snapshot delivered",
            "7 the result of \"c1\" from tool_execution_end: its toolResult message never came",
            "13 the stream ended without a turn_end that does not stop for tool use, or agent_end; the run is incomplete",
        ]
    );
}

/// The event as a derived `Deserialize` reads it: what the hand-written one must match.
#[derive(Deserialize)]
#[allow(dead_code)]
struct Derived<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default, borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(default)]
    timestamp: Option<Value>,
    #[serde(default)]
    message: Option<Value>,
    #[serde(rename = "toolCallId", default)]
    tool_call_id: Option<String>,
    #[serde(default)]
    result: Option<Value>,
    #[serde(rename = "isError", default)]
    is_error: Option<bool>,
}

#[test]
fn an_event_fails_to_read_exactly_where_a_derived_one_does() {
    for record in [
        r#"{"id":"x"}"#,
        r#"{"type":"turn_end","message":{},"message":{}}"#,
        r#"{"type":"message_end","message":null,"message":{}}"#,
        r#"{"type":"tool_execution_end","result":1,"result":2}"#,
        r#"{"type":"session","type":"session"}"#,
        r#"{"type":7}"#,
        r#"{"type":"session","id":3}"#,
        r#"{"type":"session","isError":"yes"}"#,
        r#"{"type":"session","toolCallId":false}"#,
        r#"{"message":{"a":1},"type":"turn_end","timestamp":[1],"other":{"x":[]}}"#,
        r#"{"type":"turn_end","message":{"stopReason":"stop","stopReason":"toolUse"}}"#,
    ] {
        let derived = serde_json::from_str::<Derived<'_>>(record)
            .err()
            .map(|e| e.to_string());
        let ours = serde_json::from_str::<Event<'_>>(record)
            .err()
            .map(|e| e.to_string());
        assert_eq!(ours, derived, "{record}");
        let mut bytes = record.as_bytes().to_vec();
        let simd = simd_json::serde::from_slice::<Event<'_>>(&mut bytes).is_ok();
        assert_eq!(simd, derived.is_none(), "{record}");
    }
    // The last copy of a message's stopReason is the one read, as in a value.
    let event: Event<'_> = serde_json::from_str(
        r#"{"type":"turn_end","message":{"stopReason":"stop","stopReason":"toolUse"}}"#,
    )
    .unwrap();
    assert_eq!(event.message.unwrap().stop_reason(), Some("toolUse"));
}
