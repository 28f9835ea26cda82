//! Calls seen on both channels: a call the router captured that the agent reports too is
//! one call for `axt stats`, `axt tree`, the AgentLog export and `axt check`, whichever
//! channel's events come first and whether or not the ids agree (the model's rule, applied
//! by `axt::read::Calls`). Exact numbers, nodes, events and messages, on the hand-written
//! fixtures of `corpus/read/transcript/` and on every interleaving of the two channels.

use std::path::Path;

use axt::export::agentlog::{ExportOptions, export};
use axt::export::otlp::span::{AttrValue, Span, Status};
use axt::export::otlp::{Mapper, RunContext, TraceId};
use axt::model::{
    EventType, ExchangeEvent, Fidelity, Payload, StepKind, StepPayload, ToolPayload, encode_event,
};
use axt::read::tree::{Node, Outcome, build_from};
use axt::read::{Calls, ReadItem, Reader, Stats, ToolStats};
use serde_json::{Value, json};

use crate::cli::{axt, text};
use crate::support::{ROOT, TempDir};

const ROUTER_FIRST: &str = "corpus/read/transcript/ok/both-channels-router-first.jsonl";
const AGENT_FIRST: &str = "corpus/read/transcript/ok/both-channels-agent-first.jsonl";
const AGENT_CALL_ID: &str = "corpus/read/transcript/ok/both-channels-agent-call-id.jsonl";
const SYSTEM_PROMPT: &str = "corpus/read/transcript/ok/system-prompt.jsonl";
const REPEATED: &str = "corpus/read/transcript/err/repeated-call-id.jsonl";

fn json_out(args: &[&str]) -> Value {
    let output = axt(args, b"");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn stats_counts_a_call_seen_on_both_channels_once() {
    let cases = [
        (
            ROUTER_FIRST,
            json!({"Grep": {"calls": 1, "failures": 0}, "Read": {"calls": 1, "failures": 0}}),
            1,
            3,
        ),
        // The agent's failed result is taken back with its call; the router's failed too.
        (
            AGENT_FIRST,
            json!({"Bash": {"calls": 1, "failures": 1}}),
            1,
            2,
        ),
        // The router's names; the agent's `mcp__files__*` are only sightings.
        (
            AGENT_CALL_ID,
            json!({"read_file": {"calls": 1, "failures": 0}, "search": {"calls": 1, "failures": 0}}),
            2,
            4,
        ),
    ];
    for (file, tools, sightings, events) in cases {
        let stats = &json_out(&["stats", "--json", file])["total"];
        assert_eq!(stats["tools"], tools, "{file}");
        assert_eq!(stats["sightings"], sightings, "{file}");
        // Every event is still counted as an event.
        assert_eq!(stats["event_types"]["tool.call"], events, "{file}");
    }
    let output = axt(&["stats", ROUTER_FIRST], b"");
    assert!(
        text(&output.stdout).contains(
            "  tools:    Grep 1 (0 failed), Read 1 (0 failed); 1 seen on both channels (counted once, as the router's)\n"
        ),
        "{}",
        text(&output.stdout)
    );
}

#[test]
fn tree_has_one_node_per_call_with_the_router_s_outcome() {
    let tree = json_out(&["tree", "--json", AGENT_FIRST]);
    let step = &tree["root"]["children"][0];
    assert_eq!(step["path"], "check");
    let tools: Vec<&Value> = step["children"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["node"] == "tool")
        .collect();
    assert_eq!(
        tools,
        [
            &json!({"node": "tool", "name": "Bash", "call_id": "toolu_01", "outcome": "error",
            "error": "exit status 1", "sighted_by_agent": true, "line": 5})
        ]
    );

    let tree = json_out(&["tree", "--json", AGENT_CALL_ID]);
    let tools: Vec<Value> = tree["root"]["children"][0]["children"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["node"] == "tool")
        .cloned()
        .collect();
    assert_eq!(
        tools,
        [
            json!({"node": "tool", "name": "search", "call_id": "mcp-req-7", "outcome": "ok",
                "sighted_by_agent": true, "agent_call_id": "toolu_01", "line": 5}),
            json!({"node": "tool", "name": "read_file", "call_id": "mcp-req-8", "outcome": "ok",
                "sighted_by_agent": true, "agent_call_id": "toolu_02", "line": 9}),
        ]
    );

    let output = axt(&["tree", ROUTER_FIRST], b"");
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        text(&output.stdout),
        format!(
            "run both-router-first review completed 3.8s (14 events, {ROUTER_FIRST})
└─ step analyze [agent] iteration 0 completed 3.8s
   ├─ user: text
   ├─ tool Read (toolu_01) ok (the agent reported it too)
   ├─ assistant: tool_use
   ├─ assistant: tool_use
   ├─ tool Grep (toolu_02) ok
   └─ assistant: text
"
        )
    );
}

/// The writer timed the step on a monotonic clock (3795 ms); its timestamps say 3800.
#[test]
fn a_step_s_duration_is_its_step_completed_s_duration_ms() {
    let tree = json_out(&["tree", "--json", ROUTER_FIRST]);
    assert_eq!(tree["root"]["children"][0]["duration_ms"], 3795);
    // Without one, the timestamps' difference, as before.
    let tree = json_out(&[
        "tree",
        "--json",
        "corpus/read/transcript/ok/plain-run.jsonl",
    ]);
    assert_eq!(tree["root"]["children"][0]["duration_ms"], 7186);
}

fn tool_calls(document: &Value) -> Vec<&Value> {
    document["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "toolCall")
        .collect()
}

#[test]
fn export_has_one_tool_call_per_call_and_keeps_the_sighting_as_provenance() {
    for (file, count) in [(ROUTER_FIRST, 2), (AGENT_FIRST, 1), (AGENT_CALL_ID, 2)] {
        let document = export(&Path::new(ROOT).join(file), &ExportOptions::default()).unwrap();
        assert_eq!(document["metrics"]["toolCallCount"], count, "{file}");
        assert_eq!(tool_calls(&document).len(), count, "{file}");
        assert!(document["properties"].get("axt:notes").is_none(), "{file}");
        for call in tool_calls(&document) {
            assert_ne!(call["status"], "cancelled", "{file}");
        }
    }
    let document = export(
        &Path::new(ROOT).join(AGENT_FIRST),
        &ExportOptions::default(),
    )
    .unwrap();
    let call = tool_calls(&document)[0];
    assert_eq!(
        (&call["id"], &call["status"], &call["durationMs"]),
        (&json!("both-agent-first:7"), &json!("error"), &json!(590))
    );
    assert_eq!(
        call["properties"],
        json!({"axt:runId": "both-agent-first", "axt:seq": 7, "axt:callId": "toolu_01",
            "axt:fidelity": "router", "axt:sightedByAgent": true})
    );
    // One terminal command for the one call, not one per channel.
    let commands = document["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "terminalCommand")
        .count();
    assert_eq!(commands, 1);

    let document = export(
        &Path::new(ROOT).join(AGENT_CALL_ID),
        &ExportOptions::default(),
    )
    .unwrap();
    let ids: Vec<(&Value, &Value, &Value)> = tool_calls(&document)
        .iter()
        .map(|c| {
            (
                &c["name"],
                &c["properties"]["axt:callId"],
                &c["properties"]["axt:agentCallId"],
            )
        })
        .collect();
    assert_eq!(
        ids,
        [
            (&json!("search"), &json!("mcp-req-7"), &json!("toolu_01")),
            (&json!("read_file"), &json!("mcp-req-8"), &json!("toolu_02")),
        ]
    );
}

#[test]
fn export_makes_the_system_prompt_a_system_message() {
    let document = export(
        &Path::new(ROOT).join(SYSTEM_PROMPT),
        &ExportOptions::default(),
    )
    .unwrap();
    // The messages (the workflow run's plan, listing its steps, comes first).
    let messages: Vec<(&Value, &Value, &Value)> = document["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "message")
        .map(|e| (&e["id"], &e["role"], &e["content"]))
        .collect();
    assert_eq!(
        messages,
        [
            (
                &json!("system-prompt:3:system"),
                &json!("system"),
                &json!("You are a terse code reviewer. Answer in one sentence.")
            ),
            (
                &json!("system-prompt:3"),
                &json!("user"),
                &json!("What does this service do?")
            ),
            (
                &json!("system-prompt:4"),
                &json!("assistant"),
                &json!("It serves a todo list over HTTP.")
            ),
        ]
    );
    assert_eq!(document["metrics"]["messageCount"], 3);
}

#[test]
fn check_counts_calls_on_both_channels_and_warns_of_an_id_repeated_on_one() {
    let output = axt(&["check", AGENT_CALL_ID, REPEATED], b"");
    // A warning leaves the file clean.
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout),
        format!(
            "{AGENT_CALL_ID}: ok: 16 events; 2 calls seen on both channels, counted once
{REPEATED}: ok: 10 events; 1 warning (repeated-call 1)
2 files: 2 clean, 0 with problems (0 problems)
"
        )
    );
    assert_eq!(
        text(&output.stderr),
        format!(
            "{REPEATED}:6: byte 1022: repeated-call: warning: call id \"call_0\" has a second tool.call of fidelity agent_emitted; one is expected per channel, so it counts as another call\n"
        )
    );
    let report = json_out(&["check", "--json", ROUTER_FIRST, REPEATED]);
    let files = report["files"].as_array().unwrap();
    assert_eq!(report["clean"], true);
    assert_eq!(
        (
            &files[0]["calls_on_both_channels"],
            &files[0]["warning_count"]
        ),
        (&json!(1), &json!(0))
    );
    assert_eq!(
        (
            &files[1]["calls_on_both_channels"],
            &files[1]["warnings_by_kind"]
        ),
        (&json!(0), &json!({"repeated-call": 1}))
    );
}

/// One call on both channels, as the events of one run: the agent's `tool.call` and failed
/// `tool.result` (under `agent_id`, tool `agent_name`) and the router's, which succeeded.
/// `alias` names the agent's id on the router's call and result, or on its result only.
fn channels(agent_id: &str, agent_name: &str, alias: Alias) -> [ExchangeEvent; 4] {
    let event = |event_type, payload: ToolPayload| {
        ExchangeEvent::new("r", event_type, "agent", Payload::Tool(payload))
    };
    let agent_call = ToolPayload::call(
        agent_name,
        agent_id,
        json!({"command": "make"}),
        Fidelity::AgentEmitted,
    );
    let mut agent_result =
        ToolPayload::call(agent_name, agent_id, Value::Null, Fidelity::AgentEmitted);
    agent_result.output = json!("make: *** no rule").into();
    agent_result.error = Some("exit status 2".into());
    let mut router_call =
        ToolPayload::call("Bash", "rt-1", json!({"command": "make"}), Fidelity::Router);
    if agent_id == "rt-1" {
        router_call.name = agent_name.to_owned();
    }
    let mut router_result = router_call.clone();
    router_result.input = Value::Null;
    router_result.output = json!("built").into();
    router_result.duration_ms = Some(30);
    let named = (agent_id != "rt-1").then(|| agent_id.to_owned());
    router_result.agent_call_id = named.clone();
    if alias == Alias::Both {
        router_call.agent_call_id = named;
    }
    [
        event(EventType::ToolCall, agent_call),
        event(EventType::ToolResult, agent_result),
        event(EventType::ToolCall, router_call),
        event(EventType::ToolResult, router_result),
    ]
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Alias {
    Both,
    ResultOnly,
}

/// Every order of two pairs, each call before its result: the agent's (0, 1) and the
/// router's (2, 3).
fn interleavings() -> Vec<[usize; 4]> {
    let mut orders = Vec::new();
    for a in 0..4 {
        for b in a + 1..4 {
            // The agent's events at positions a < b, the router's in the others.
            let mut order = [0; 4];
            let mut router = [2, 3].into_iter();
            for (position, slot) in order.iter_mut().enumerate() {
                *slot = if position == a {
                    0
                } else if position == b {
                    1
                } else {
                    router.next().unwrap()
                };
            }
            orders.push(order);
        }
    }
    orders
}

/// A run file around `tools`, in order.
fn run_file(tools: Vec<ExchangeEvent>) -> Vec<u8> {
    let step = |event_type, name: &str, kind| {
        let path = if kind == StepKind::Agent { "agent" } else { "" };
        ExchangeEvent::new(
            "r",
            event_type,
            path,
            Payload::Step(StepPayload::new(name, kind)),
        )
    };
    let mut events = vec![
        step(EventType::RunStarted, "w", StepKind::Workflow),
        step(EventType::StepStarted, "agent", StepKind::Agent),
    ];
    events.extend(tools);
    events.push(step(EventType::StepCompleted, "agent", StepKind::Agent));
    events.push(step(EventType::RunCompleted, "w", StepKind::Workflow));
    let mut bytes = Vec::new();
    for (n, mut event) in events.into_iter().enumerate() {
        event.seq = n as u64 + 1;
        encode_event(&event, &mut bytes).unwrap();
        bytes.push(b'\n');
    }
    bytes
}

/// Router first, agent first and every interleaving between, with equal ids and with ids
/// named in `agent_call_id` early or late: one call, the router's name and outcome, one
/// sighting; one tree node, sighted; one toolCall, successful, with no note.
#[test]
fn every_interleaving_of_the_two_channels_is_one_call() {
    let variants = [
        ("rt-1", "Bash", Alias::Both),
        ("toolu_9", "mcp__shell__Bash", Alias::Both),
        ("toolu_9", "mcp__shell__Bash", Alias::ResultOnly),
    ];
    assert_eq!(interleavings().len(), 6);
    let scratch = TempDir::new("both-channels");
    for (agent_id, agent_name, alias) in variants {
        for order in interleavings() {
            let case = format!("{agent_id} {alias:?} {order:?}");
            let result_only = alias == Alias::ResultOnly;
            let events = channels(agent_id, agent_name, alias);
            let ordered: Vec<ExchangeEvent> = order.iter().map(|&i| events[i].clone()).collect();
            let bytes = run_file(ordered);

            let mut stats = Stats::default();
            let mut calls = Calls::default();
            for item in Reader::new(&bytes[..]) {
                if let ReadItem::Event { event, .. } = &item {
                    calls.see(event);
                }
                stats.item(&item);
            }
            let expected = [(
                "Bash".to_owned(),
                ToolStats {
                    calls: 1,
                    failures: 0,
                    results_without_call: 0,
                },
            )];
            assert_eq!(stats.tools, expected.into_iter().collect(), "{case}");
            assert_eq!(stats.sightings, 1, "{case}");
            assert_eq!(calls.on_both_channels(), 1, "{case}");

            let tree = build_from(&bytes[..], Path::new("r.jsonl"), scratch.path());
            assert!(tree.problems.is_empty(), "{case}: {:?}", tree.problems);
            let Node::Step(step) = &tree.root.children[0] else {
                panic!("{case}: no step");
            };
            let tools: Vec<_> = step
                .children
                .iter()
                .filter_map(|n| match n {
                    Node::Tool(tool) => Some(tool),
                    _ => None,
                })
                .collect();
            assert_eq!(tools.len(), 1, "{case}: {tools:?}");
            let tool = tools[0];
            assert_eq!(
                (tool.name.as_str(), tool.call_id.as_str(), tool.outcome),
                ("Bash", "rt-1", Outcome::Ok),
                "{case}"
            );
            assert!(tool.sighted_by_agent, "{case}");
            let alias = (agent_id != "rt-1").then_some(agent_id);
            assert_eq!(tool.agent_call_id.as_deref(), alias, "{case}");

            let file = scratch.path().join("r.jsonl");
            std::fs::write(&file, &bytes).unwrap();
            let document = export(&file, &ExportOptions::default()).unwrap();
            assert_eq!(document["metrics"]["toolCallCount"], 1, "{case}");
            let calls = tool_calls(&document);
            assert_eq!(calls.len(), 1, "{case}");
            assert_eq!(
                (
                    &calls[0]["status"],
                    &calls[0]["output"],
                    &calls[0]["durationMs"]
                ),
                (&json!("success"), &json!("built"), &json!(30)),
                "{case}"
            );
            assert_eq!(calls[0]["properties"]["axt:sightedByAgent"], true, "{case}");
            assert!(document["properties"].get("axt:notes").is_none(), "{case}");

            // The OTLP mapper asks the same rule, batch (the run judged whole: one span) and
            // live (event by event: an agent's call whose result came before the router's
            // copy named it has ended its span already, and a span sent is not taken back).
            let events: Vec<ExchangeEvent> = Reader::new(&bytes[..])
                .filter_map(|item| match item {
                    ReadItem::Event { event, .. } => Some(*event),
                    ReadItem::Problem(_) => None,
                })
                .collect();
            let position = |event: usize| order.iter().position(|&i| i == event).unwrap();
            // Where the router's copy names the agent's call: its call, or only its result.
            let named = if result_only {
                position(3)
            } else {
                position(2)
            };
            let live_spans = if position(1) < named { 2 } else { 1 };
            let trace = TraceId::of_root("r");
            let contexts = [
                ("batch", RunContext::from_events(trace, None, &events), 1),
                ("live", RunContext::new(trace, None), live_spans),
            ];
            for (mode, context, expected) in contexts {
                let mut mapper = Mapper::new(context);
                let mut spans = Vec::new();
                for event in &events {
                    mapper.push(event, &mut spans);
                }
                mapper.finish(&mut spans);
                let tools: Vec<&Span> = spans
                    .iter()
                    .filter(|span| span.name.starts_with("execute_tool"))
                    .collect();
                assert_eq!(tools.len(), expected, "{case} {mode}: {tools:#?}");
                let router = AttrValue::Str("router".into());
                let routed: Vec<&&Span> = (tools.iter())
                    .filter(|span| span.attribute("axt.tool.fidelity") == Some(&router))
                    .collect();
                assert_eq!(routed.len(), 1, "{case} {mode}: {tools:#?}");
                assert_eq!(routed[0].status, Status::Unset, "{case} {mode}");
            }
        }
    }
}
