//! The executor's seam (`axt::workflow`): scopes that end exactly once, paths and
//! iterations, parallel branches, sub-workflows, live agent steps and router tools, each
//! call recorded once; checked on the files with the CLI a user would use.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Barrier};
use std::thread;

use axt::model::{EventType, ExchangeEvent, Fidelity, Payload, StepKind, decode_event};
use axt::normalize::{ProcessEnd, Provider};
use axt::record::{MemoryRecorder, MemoryStore, Recorder, RecorderOptions, RunRecorder};
use axt::workflow::{AgentOptions, RouterTools, Run, RunError, Step};
use serde_json::{Value, json};

use crate::cli::{axt, text};
use crate::support::TempDir;

#[path = "../../examples/workflow.rs"]
#[allow(dead_code)]
mod example;

fn memory(run_id: &str) -> (MemoryRecorder, MemoryStore) {
    let recorder = MemoryRecorder::new(run_id, RecorderOptions::default()).unwrap();
    let store = recorder.store();
    (recorder, store)
}

fn events_of(path: &Path) -> Vec<ExchangeEvent> {
    let bytes = std::fs::read(path).unwrap();
    bytes
        .split(|b| *b == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| decode_event(line).unwrap())
        .collect()
}

/// `(type, path, iteration)` of every event, and `error` for the completions.
fn outline(events: &[ExchangeEvent]) -> Vec<String> {
    events
        .iter()
        .map(|event| {
            let mut line = format!("{} {}#{}", event.event_type, event.path, event.iteration);
            match &event.payload {
                Payload::Step(step) if step.error.is_some() => {
                    line += &format!(" error={:?}", step.error.as_deref().unwrap());
                }
                Payload::Tool(tool) => {
                    line += &format!(" {} {} {}", tool.name, tool.call_id, tool.fidelity.as_str());
                    if let Some(error) = &tool.error {
                        line += &format!(" error={error:?}");
                    }
                    if let Some(id) = &tool.agent_call_id {
                        line += &format!(" agent_call_id={id}");
                    }
                }
                _ => {}
            }
            line
        })
        .collect()
}

/// Every `step.started` has exactly one `step.completed` after it, and no event sits inside
/// a step after its completion; every call id has exactly one `tool.call`.
fn assert_well_formed(events: &[ExchangeEvent]) {
    let mut open: HashMap<(String, u64), usize> = HashMap::new();
    let mut completed: HashMap<(String, u64), usize> = HashMap::new();
    let mut calls: HashMap<String, usize> = HashMap::new();
    for (at, event) in events.iter().enumerate() {
        assert_eq!(event.seq, at as u64 + 1, "seq runs from 1 by 1");
        let key = (event.path.clone(), event.iteration);
        match event.event_type {
            EventType::StepStarted => {
                assert!(
                    open.insert(key, at).is_none(),
                    "{} started twice",
                    event.path
                );
            }
            EventType::StepCompleted => {
                assert!(
                    open.remove(&key).is_some(),
                    "{} completed, not open",
                    event.path
                );
                *completed.entry(key).or_default() += 1;
            }
            EventType::ToolCall => {
                let Payload::Tool(tool) = &event.payload else {
                    panic!("a tool payload")
                };
                *calls.entry(tool.call_id.clone()).or_default() += 1;
            }
            _ => {}
        }
        if !event.path.is_empty() && !matches!(event.event_type, EventType::StepStarted) {
            // Inside an open step: the step itself or an ancestor path is open.
            let inside = open.keys().any(|(path, _)| {
                event.path == *path || event.path.starts_with(&format!("{path}."))
            });
            let completion = matches!(event.event_type, EventType::StepCompleted);
            assert!(
                inside || completion,
                "event outside any open step: {event:?}"
            );
        }
    }
    assert!(open.is_empty(), "steps left open: {open:?}");
    assert!(
        calls.values().all(|n| *n == 1),
        "call ids on more than one tool.call: {calls:?}"
    );
}

#[test]
fn the_example_workflow_is_clean_connected_and_counts_each_call_once() {
    let dir = TempDir::new("workflow-example");
    let files = example::run(dir.path()).unwrap();
    assert_eq!(files.len(), 3, "root, child, grandchild");
    let names: Vec<&str> = files.iter().map(|f| f.to_str().unwrap()).collect();
    let mut args = vec!["check"];
    args.extend(&names);
    let check = axt(&args, b"");
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stderr));
    assert!(
        text(&check.stdout).ends_with("3 files: 3 clean, 0 with problems (0 problems)\n"),
        "{}",
        text(&check.stdout)
    );
    for file in &files {
        assert_well_formed(&events_of(file));
    }
    let tree = axt(&["tree", "--json", names[0]], b"");
    assert_eq!(tree.status.code(), Some(0), "{}", text(&tree.stderr));
    let tree: Value = serde_json::from_slice(&tree.stdout).unwrap();
    let runs = collect(&tree["root"], "run");
    assert_eq!(runs.len(), 3, "one connected tree of three runs");
    let kinds: std::collections::BTreeSet<String> = collect(&tree["root"], "step")
        .iter()
        .map(|s| s["kind"].as_str().unwrap().to_owned())
        .collect();
    let expected: std::collections::BTreeSet<String> = [
        "agent",
        "call_workflow",
        "command",
        "for_each",
        "human_approval",
        "operation",
        "parallel",
        "terminal",
        "while",
    ]
    .map(String::from)
    .into();
    assert_eq!(kinds, expected);
    let tools: Vec<String> = collect(&tree["root"], "tool")
        .iter()
        .map(|t| format!("{} {} {}", t["name"], t["call_id"], t["outcome"]))
        .collect();
    assert_eq!(
        tools,
        [
            r#""jira_lookup" "plugin-1" "ok""#,
            r#""Bash" "toolu_019BG16QmtsL4F28GzL2cEpV" "ok""#
        ]
    );
    let root = events_of(&files[0]);
    let fidelities: Vec<String> = root
        .iter()
        .filter_map(|e| match &e.payload {
            Payload::Tool(t) => Some(format!("{} {}", e.event_type, t.fidelity.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(
        fidelities,
        ["tool.call router", "tool.result router"].repeat(2)
    );
    let stats = axt(&["stats", "--json", names[0]], b"");
    let stats: Value = serde_json::from_slice(&stats.stdout).unwrap();
    assert_eq!(stats["total"]["tools"]["Bash"]["calls"], 1, "{stats}");
    // The agent step's usage counts, though the workflow's own run.completed has none.
    let fixture = std::fs::read(crate::support::root().join(example::AGENT_OUTPUT)).unwrap();
    let normalized =
        axt::normalize::normalize(Provider::Claude, &fixture, Default::default()).unwrap();
    let usage = normalized.meta.usage;
    assert_eq!(
        (
            stats["total"]["tokens"]["output"].as_u64(),
            stats["total"]["tokens"]["cache_read"].as_u64()
        ),
        (Some(usage.output_tokens), Some(usage.cache_read_tokens))
    );
    assert!(usage.output_tokens > 0);
    // The AgentLog export: the agent's identity and tokens from its step, each call once.
    let export = axt(&["export", "--to", "agentlog", names[0]], b"");
    assert_eq!(export.status.code(), Some(0), "{}", text(&export.stderr));
    let document: Value = serde_json::from_slice(&export.stdout).unwrap();
    assert_eq!(document["agent"]["name"], "Claude Code");
    assert_eq!(document["metrics"]["toolCallCount"], 2);
    assert_eq!(
        document["metrics"]["tokenUsage"]["outputTokens"].as_u64(),
        Some(usage.output_tokens)
    );
    // OTLP: one trace of the three runs; the agent step is an invoke_agent span with the
    // agent's model and usage from its step.
    let otlp = axt(&["export", "--to", "otlp", names[0]], b"");
    assert_eq!(otlp.status.code(), Some(0), "{}", text(&otlp.stderr));
    let otlp: Value = serde_json::from_slice(&otlp.stdout).unwrap();
    let spans: Vec<&Value> = otlp["resourceSpans"][0]["scopeSpans"][0]["spans"]
        .as_array()
        .unwrap()
        .iter()
        .collect();
    let traces: std::collections::BTreeSet<&str> = spans
        .iter()
        .map(|s| s["traceId"].as_str().unwrap())
        .collect();
    assert_eq!(traces.len(), 1, "one trace");
    let agent = spans
        .iter()
        .find(|s| s["name"] == "invoke_agent plan")
        .expect("the agent step's span");
    let attr = |key: &str| {
        agent["attributes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["key"] == key)
            .map(|a| a["value"].clone())
    };
    assert_eq!(
        attr("gen_ai.request.model"),
        Some(json!({"stringValue": "claude-sonnet-4-6"}))
    );
    assert_eq!(
        attr("gen_ai.usage.output_tokens"),
        Some(json!({"intValue": usage.output_tokens.to_string()}))
    );
    // Its two model turns name the agent's model too, though the workflow run names none.
    let chats: Vec<&str> = spans
        .iter()
        .filter_map(|s| s["name"].as_str().filter(|n| n.starts_with("chat")))
        .collect();
    assert_eq!(chats, ["chat claude-sonnet-4-6"; 2]);
    let tools = spans
        .iter()
        .filter(|s| s["name"].as_str().unwrap().starts_with("execute_tool"))
        .count();
    assert_eq!(tools, 2, "each call once");
}

/// Every node of `kind` under `node`, depth first.
fn collect<'a>(node: &'a Value, kind: &str) -> Vec<&'a Value> {
    let mut found = Vec::new();
    if node["node"] == kind
        || (kind == "run" && node.get("run_id").is_some() && node["node"].is_null())
    {
        found.push(node);
    }
    for child in node["children"].as_array().into_iter().flatten() {
        found.extend(collect(child, kind));
    }
    found
}

// ---- Scopes end exactly once ----------------------------------------------------------

fn step_error(event: &ExchangeEvent) -> Option<&str> {
    match &event.payload {
        Payload::Step(step) => step.error.as_deref(),
        _ => None,
    }
}

#[test]
fn a_step_left_by_an_early_return_or_a_panic_completes_failed_once() {
    let (recorder, store) = memory("drop");
    let run = Run::start(recorder, "w").unwrap();
    fn early(run: &Run) -> Result<(), RunError> {
        let step = run.step("early", StepKind::Command)?;
        let _nested = step.step("inner", StepKind::Operation)?;
        Err(RunError::Reserved {
            event_type: "stand-in for any error".into(),
        })
    }
    assert!(early(&run).is_err());
    let panicked = catch_unwind(AssertUnwindSafe(|| {
        let step = run.step("boom", StepKind::Operation).unwrap();
        let call = step.tool("http_get", "c1", json!({"url": "x"})).unwrap();
        panic!("the tool's handler panicked {call:?}");
    }));
    assert!(panicked.is_err());
    run.done().unwrap();
    let events = store.events("drop");
    assert_well_formed(&events);
    assert_eq!(
        outline(&events),
        [
            "run.started #0",
            "step.started early#0",
            "step.started early.inner#0",
            // Locals drop in reverse order: the nested step first.
            "step.completed early.inner#0 error=\"the step was dropped without being completed\"",
            "step.completed early#0 error=\"the step was dropped without being completed\"",
            "step.started boom#0",
            "tool.call boom#0 http_get c1 router",
            "tool.result boom#0 http_get c1 router error=\"the tool call was unwound by a panic\"",
            "step.completed boom#0 error=\"the step was unwound by a panic\"",
            "run.completed #0",
        ]
    );
}

#[test]
fn a_parent_or_run_that_ends_first_completes_what_is_open_under_it() {
    let (recorder, store) = memory("first");
    let run = Run::start(recorder, "w").unwrap();
    let parent = run.step("parent", StepKind::Parallel).unwrap();
    let a = parent.step("a", StepKind::Command).unwrap();
    let a_call = a.tool("Bash", "c1", json!({"command": "sleep 9"})).unwrap();
    let b = parent.step("b", StepKind::Command).unwrap();
    parent.done().unwrap();
    // The children were completed by their parent: their own end is an error, once.
    assert!(!a.is_open());
    assert!(matches!(
        a_call.ok(json!("late")),
        Err(RunError::StepEnded { .. })
    ));
    assert!(matches!(a.done(), Err(RunError::StepEnded { .. })));
    drop(b); // nothing more is written for it
    let left_open = run.step("left_open", StepKind::While).unwrap();
    let _body = left_open.step_at("body", StepKind::Operation, 3).unwrap();
    run.fail("cancelled by the user").unwrap();
    assert!(matches!(
        left_open.step("late", StepKind::Operation),
        Err(RunError::RunEnded { .. })
    ));
    let events = store.events("first");
    assert_well_formed(&events);
    let parent_ended = "the step was still running when its parent step parent ended";
    let run_ended = "the step was still running when the run ended";
    assert_eq!(
        outline(&events),
        [
            "run.started #0".to_owned(),
            "step.started parent#0".into(),
            "step.started parent.a#0".into(),
            "tool.call parent.a#0 Bash c1 router".into(),
            "step.started parent.b#0".into(),
            format!("step.completed parent.b#0 error={parent_ended:?}"),
            "tool.result parent.a#0 Bash c1 router error=\"the step ended before the tool call returned\"".into(),
            format!("step.completed parent.a#0 error={parent_ended:?}"),
            "step.completed parent#0".into(),
            "step.started left_open#0".into(),
            "step.started left_open.body#3".into(),
            "step.completed left_open.body#3 error=\"the step was still running when its parent step left_open ended\"".into(),
            format!("step.completed left_open#0 error={run_ended:?}"),
            "run.completed #0 error=\"cancelled by the user\"".into(),
        ]
    );
}

#[test]
fn misuse_is_a_typed_error_and_leaves_the_transcript_valid() {
    let (recorder, store) = memory("misuse");
    let run = Run::start(recorder, "w").unwrap();
    let each = run.step("each", StepKind::ForEach).unwrap();
    let body = each.step_at("body", StepKind::Command, 0).unwrap();
    assert!(matches!(
        each.step_at("body", StepKind::Command, 0),
        Err(RunError::StepRunning { iteration: 0, .. })
    ));
    for bad in ["", "a.b", "tab\there"] {
        assert!(matches!(
            run.step(bad, StepKind::Command),
            Err(RunError::InvalidName { .. })
        ));
    }
    assert!(matches!(
        body.message(EventType::StepCompleted, Payload::None),
        Err(RunError::Reserved { .. })
    ));
    body.tool("t", "same", Value::Null)
        .unwrap()
        .ok(Value::Null)
        .unwrap();
    // A call id names one call in a run, in any step, even once the first has returned.
    assert!(matches!(
        each.tool("t", "same", Value::Null),
        Err(RunError::CallIdUsed { .. })
    ));
    assert!(matches!(
        body.call_workflow("child"),
        Err(RunError::WrongKind { .. })
    ));
    let Err(RunError::WrongKind {
        expected, found, ..
    }) = body.agent(Provider::Claude, AgentOptions::new())
    else {
        panic!("an agent needs an agent step");
    };
    assert_eq!((expected, found), (StepKind::Agent, StepKind::Command));
    let call = each.step("call", StepKind::CallWorkflow).unwrap();
    let child = call.call_workflow("child").unwrap();
    assert!(matches!(
        call.call_workflow("again"),
        Err(RunError::AlreadyCalled { .. })
    ));
    child.done().unwrap();
    call.done().unwrap();
    each.done().unwrap();
    run.done().unwrap();
    assert!(matches!(
        Run::start(
            MemoryRecorder::new("x", RecorderOptions::default()).unwrap(),
            "x"
        )
        .unwrap()
        .step("s", StepKind::Command)
        .map(Step::done),
        Ok(Ok(()))
    ));
    let events = store.events("misuse");
    assert_well_formed(&events);
    let failed: Vec<_> = events.iter().filter_map(step_error).collect();
    assert_eq!(
        failed,
        ["step each.body is a `command` step; only an `agent` step can do this"],
        "the step handed to agent() is failed with the reason"
    );
}

#[test]
fn a_call_workflow_step_that_ends_first_ends_its_sub_run_failed() {
    let (recorder, store) = memory("root");
    let run = Run::start(recorder, "w").unwrap();
    let call = run.step("call", StepKind::CallWorkflow).unwrap();
    let child = call.call_workflow_with_id("child", "sub").unwrap();
    let inner = child.step("inner", StepKind::Command).unwrap();
    assert_eq!(child.parent_run_id(), Some("root"));
    call.done().unwrap();
    assert!(child.has_ended());
    assert!(matches!(inner.done(), Err(RunError::StepEnded { .. })));
    drop(child);
    run.done().unwrap();
    let reason = "the sub-workflow was still running when its call_workflow step ended";
    let child_events = store.events("child");
    assert_well_formed(&child_events);
    assert!(
        child_events
            .iter()
            .all(|e| e.parent_run_id.as_deref() == Some("root"))
    );
    assert_eq!(step_error(child_events.last().unwrap()), Some(reason));
    let root = store.events("root");
    assert_well_formed(&root);
    let call_events: Vec<_> = root
        .iter()
        .filter(|e| e.child_run_id.is_some())
        .map(|e| {
            (
                e.event_type.to_string(),
                e.child_run_id.clone().unwrap(),
                step_error(e),
            )
        })
        .collect();
    assert_eq!(
        call_events,
        [
            (
                "step.call_workflow.started".into(),
                "child".to_owned(),
                None
            ),
            (
                "step.call_workflow.completed".into(),
                "child".to_owned(),
                Some(reason)
            ),
        ]
    );
}

// ---- Calls seen on both channels --------------------------------------------------------

/// Claude Code stream-json lines of one agent turn: each `(name, id, input, output)` call
/// asked for in one assistant line and answered in one user line, then a final answer.
fn claude_turn(calls: &[(&str, &str, Value, &str)]) -> Vec<Vec<u8>> {
    let mut lines = vec![
        json!({"type": "system", "subtype": "init", "session_id": "s1",
        "model": "claude-sonnet-4-6", "tools": [], "cwd": "/w"}),
    ];
    for (name, id, input, output) in calls {
        lines.push(json!({"type": "assistant", "session_id": "s1", "message": {"id": format!("m-{id}"),
            "role": "assistant", "content": [{"type": "tool_use", "id": id, "name": name, "input": input}]}}));
        lines.push(
            json!({"type": "user", "session_id": "s1", "message": {"role": "user",
            "content": [{"type": "tool_result", "tool_use_id": id, "content": output}]}}),
        );
    }
    lines.push(
        json!({"type": "assistant", "session_id": "s1", "message": {"id": "m-end",
        "role": "assistant", "content": [{"type": "text", "text": "Done."}]}}),
    );
    lines.push(
        json!({"type": "result", "subtype": "success", "is_error": false,
        "result": "Done.", "session_id": "s1"}),
    );
    lines
        .into_iter()
        .map(|line| {
            let mut bytes = serde_json::to_vec(&line).unwrap();
            bytes.push(b'\n');
            bytes
        })
        .collect()
}

/// The tool events of a transcript, outlined.
fn tool_outline(events: &[ExchangeEvent]) -> Vec<String> {
    outline(events)
        .into_iter()
        .filter(|line| line.starts_with("tool."))
        .collect()
}

#[test]
fn router_first_the_agent_s_report_of_the_call_is_a_sighting() {
    let (recorder, store) = memory("rf");
    let run = Run::start(recorder, "w").unwrap();
    let agent = run
        .step("a", StepKind::Agent)
        .unwrap()
        .agent(Provider::Claude, AgentOptions::new().prompt("read it"))
        .unwrap();
    let lines = claude_turn(&[(
        "Read",
        "toolu_1",
        json!({"file_path": "a.rs"}),
        "fn main() {}",
    )]);
    agent.feed(&lines[0]).unwrap();
    // The router runs the call before the agent's report of it is read.
    agent
        .tool("Read", "toolu_1", json!({"file_path": "a.rs"}))
        .unwrap()
        .ok(json!("fn main() {}"))
        .unwrap();
    for line in &lines[1..] {
        agent.feed(line).unwrap();
    }
    let meta = agent.finish(ProcessEnd::exited(0)).unwrap();
    assert_eq!(meta.answer.as_deref(), Some("Done."));
    run.done().unwrap();
    let events = store.events("rf");
    assert_well_formed(&events);
    assert_eq!(
        tool_outline(&events),
        [
            "tool.call a#0 Read toolu_1 router",
            "tool.result a#0 Read toolu_1 router"
        ]
    );
    // The agent's sighting is kept as provenance: its tool_use block, in its message.
    let uses: Vec<_> = events
        .iter()
        .flat_map(|e| e.payload.blocks())
        .filter(|b| b.block.type_name() == "tool_use")
        .map(|b| b.fidelity.clone())
        .collect();
    assert_eq!(uses, [Fidelity::AgentEmitted]);
    let completed = events
        .iter()
        .rfind(|e| e.event_type == EventType::StepCompleted)
        .unwrap();
    let Payload::Step(step) = &completed.payload else {
        panic!()
    };
    assert_eq!(
        step.result["router"],
        json!({"calls": 1, "agent_calls": 1, "agent_sightings": 1, "agent_results_dropped": 1})
    );
}

#[test]
fn agent_first_the_router_claims_the_held_call() {
    let (recorder, store) = memory("af");
    let run = Run::start(recorder, "w").unwrap();
    let agent = run
        .step("a", StepKind::Agent)
        .unwrap()
        .agent(Provider::Claude, AgentOptions::new())
        .unwrap();
    let lines = claude_turn(&[
        (
            "Read",
            "toolu_1",
            json!({"file_path": "a.rs"}),
            "fn main() {}",
        ),
        ("Bash", "toolu_2", json!({"command": "ls"}), "a.rs"),
    ]);
    agent.feed(&lines[0]).unwrap();
    agent.feed(&lines[1]).unwrap(); // Read asked for: held for the router
    let call = agent
        .tool("Read", "toolu_1", json!({"file_path": "a.rs"}))
        .unwrap();
    call.ok(json!("fn main() {}")).unwrap();
    // Bash is run by the agent itself: no router claims it, and its result releases it.
    for line in &lines[2..] {
        agent.feed(line).unwrap();
    }
    agent.finish(ProcessEnd::exited(0)).unwrap();
    run.done().unwrap();
    let events = store.events("af");
    assert_well_formed(&events);
    assert_eq!(
        tool_outline(&events),
        [
            "tool.call a#0 Read toolu_1 router",
            "tool.result a#0 Read toolu_1 router",
            "tool.call a#0 Bash toolu_2 agent_emitted",
            "tool.result a#0 Bash toolu_2 agent_emitted",
        ]
    );
}

#[test]
fn ids_that_differ_are_matched_by_tool_and_input_and_linked() {
    let (recorder, store) = memory("ids");
    let run = Run::start(recorder, "w").unwrap();
    let agent = run
        .step("a", StepKind::Agent)
        .unwrap()
        .agent(
            Provider::Claude,
            AgentOptions::new().router_tools(RouterTools::named(["read_file"])),
        )
        .unwrap();
    let lines = claude_turn(&[
        (
            "mcp__awf__read_file",
            "toolu_1",
            json!({"path": "a.rs"}),
            "A",
        ),
        (
            "mcp__awf__read_file",
            "toolu_2",
            json!({"path": "b.rs"}),
            "B",
        ),
        ("Bash", "toolu_3", json!({"command": "ls"}), "a.rs b.rs"),
    ]);
    // Agent first for a.rs (its call held), router first for b.rs (MCP request ids 7, 8).
    agent.feed(&lines[0]).unwrap();
    agent.feed(&lines[1]).unwrap();
    let a = agent
        .tool("read_file", "7", json!({"path": "a.rs"}))
        .unwrap();
    a.ok(json!("A")).unwrap();
    agent.feed(&lines[2]).unwrap();
    let b = agent
        .tool("read_file", "8", json!({"path": "b.rs"}))
        .unwrap();
    agent.feed(&lines[3]).unwrap();
    b.ok(json!("B")).unwrap();
    for line in &lines[4..] {
        agent.feed(line).unwrap();
    }
    agent.finish(ProcessEnd::exited(0)).unwrap();
    run.done().unwrap();
    let events = store.events("ids");
    assert_eq!(
        tool_outline(&events),
        [
            "tool.call a#0 read_file 7 router agent_call_id=toolu_1",
            "tool.result a#0 read_file 7 router agent_call_id=toolu_1",
            "tool.call a#0 read_file 8 router",
            "tool.result a#0 read_file 8 router agent_call_id=toolu_2",
            // Not a router tool: live, as the agent reported it.
            "tool.call a#0 Bash toolu_3 agent_emitted",
            "tool.result a#0 Bash toolu_3 agent_emitted",
        ]
    );
}

/// US3's independent test: one builtin tool (run by the router; the agent reports it too)
/// and one plugin tool (a stdio proxy the agent talks to itself; only its report exists)
/// give exactly one `tool.call`/`tool.result` pair each, with the right fidelity; and the
/// readers count two calls.
#[test]
fn us3_a_builtin_and_a_plugin_tool_give_one_pair_each_with_their_fidelity() {
    let dir = TempDir::new("workflow-us3");
    let recorder = Recorder::create(dir.path(), "us3", RecorderOptions::default()).unwrap();
    let run = Run::start(recorder, "w").unwrap();
    let agent = run
        .step("agent", StepKind::Agent)
        .unwrap()
        .agent(
            Provider::Claude,
            AgentOptions::new().router_tools(RouterTools::named(["Read"])),
        )
        .unwrap();
    let lines = claude_turn(&[
        (
            "Read",
            "toolu_b",
            json!({"file_path": "go.mod"}),
            "module x",
        ),
        (
            "mcp__jira__lookup",
            "toolu_p",
            json!({"issue": "X-1"}),
            "open",
        ),
    ]);
    agent.feed(&lines[0]).unwrap();
    agent.feed(&lines[1]).unwrap();
    agent
        .tool("Read", "toolu_b", json!({"file_path": "go.mod"}))
        .unwrap()
        .ok(json!("module x"))
        .unwrap();
    for line in &lines[2..] {
        agent.feed(line).unwrap();
    }
    agent.finish(ProcessEnd::exited(0)).unwrap();
    run.done().unwrap();
    let path = dir.path().join("us3.jsonl");
    let events = events_of(&path);
    assert_well_formed(&events);
    let pairs: Vec<(String, String, String)> = events
        .iter()
        .filter_map(|e| match &e.payload {
            Payload::Tool(t) => Some((
                e.event_type.to_string(),
                t.call_id.clone(),
                t.fidelity.as_str().to_owned(),
            )),
            _ => None,
        })
        .collect();
    let pair = |id: &str, fidelity: &str| {
        [
            ("tool.call".to_owned(), id.to_owned(), fidelity.to_owned()),
            ("tool.result".to_owned(), id.to_owned(), fidelity.to_owned()),
        ]
    };
    assert_eq!(
        pairs,
        [pair("toolu_b", "router"), pair("toolu_p", "agent_emitted")].concat()
    );
    let path = path.to_str().unwrap();
    let stats = axt(&["stats", "--json", path], b"");
    let stats: Value = serde_json::from_slice(&stats.stdout).unwrap();
    let tools = &stats["total"]["tools"];
    assert_eq!(
        (
            tools["Read"]["calls"].as_u64(),
            tools["mcp__jira__lookup"]["calls"].as_u64()
        ),
        (Some(1), Some(1))
    );
    let check = axt(&["check", path], b"");
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stdout));
}

// ---- US1: the tree rebuilt from the files is the executor's own graph -------------------

/// A workflow definition, as a small executor would hold it.
enum Spec {
    /// A step of `kind`, failing with the error when one is given, with steps inside.
    Do(&'static str, StepKind, Option<&'static str>, Vec<Spec>),
    /// A loop step running its body `n` times, at iterations 0..n.
    Loop(&'static str, StepKind, u64, Vec<Spec>),
    /// A parallel step whose branches run on threads of their own.
    Parallel(&'static str, Vec<Spec>),
    /// A call_workflow step running a sub-workflow.
    Call(&'static str, &'static str, Vec<Spec>),
    /// A router tool call; `true` when it fails.
    Tool(&'static str, &'static str, bool),
}

/// The executor's in-memory graph: what it did, node by node.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Graph {
    label: String,
    children: Vec<Graph>,
}

#[derive(Clone, Copy)]
enum Scope<'a> {
    Run(&'a Run),
    Step(&'a Step),
}

impl Scope<'_> {
    fn open(self, name: &str, kind: StepKind, iteration: Option<u64>) -> Step {
        match (self, iteration) {
            (Scope::Run(run), None) => run.step(name, kind),
            (Scope::Run(run), Some(i)) => run.step_at(name, kind, i),
            (Scope::Step(step), None) => step.step(name, kind),
            (Scope::Step(step), Some(i)) => step.step_at(name, kind, i),
        }
        .unwrap()
    }
}

/// Executes `spec` under `scope` at `prefix` (the executor's own idea of the path) and
/// returns the graph of what it did.
fn execute(scope: Scope<'_>, prefix: &str, spec: &Spec, iteration: u64, set: Option<u64>) -> Graph {
    let path = |name: &str| {
        if prefix.is_empty() {
            name.to_owned()
        } else {
            format!("{prefix}.{name}")
        }
    };
    let label = |path: &str, kind: &StepKind, status: &str| {
        format!("step {path} #{iteration} {kind} {status}")
    };
    match spec {
        Spec::Do(name, kind, fail, children) => {
            let step = scope.open(name, kind.clone(), set);
            assert_eq!(
                (step.path(), step.iteration()),
                (path(name).as_str(), iteration)
            );
            let children = children
                .iter()
                .map(|c| execute(Scope::Step(&step), step.path(), c, iteration, None))
                .collect();
            let status = match fail {
                Some(error) => {
                    step.fail(error).unwrap();
                    format!("failed: {error}")
                }
                None => {
                    step.done().unwrap();
                    "completed".into()
                }
            };
            Graph {
                label: label(&path(name), kind, &status),
                children,
            }
        }
        Spec::Loop(name, kind, n, body) => {
            let step = scope.open(name, kind.clone(), set);
            let mut children = Vec::new();
            for i in 0..*n {
                for spec in body {
                    children.push(execute(Scope::Step(&step), step.path(), spec, i, Some(i)));
                }
            }
            step.done().unwrap();
            Graph {
                label: label(&path(name), kind, "completed"),
                children,
            }
        }
        Spec::Parallel(name, branches) => {
            let step = scope.open(name, StepKind::Parallel, set);
            let mut children: Vec<Graph> = thread::scope(|threads| {
                let running: Vec<_> = branches
                    .iter()
                    .map(|b| {
                        let step = &step;
                        threads.spawn(move || {
                            execute(Scope::Step(step), step.path(), b, iteration, None)
                        })
                    })
                    .collect();
                running.into_iter().map(|t| t.join().unwrap()).collect()
            });
            // Branches interleave in the file: their order there is not the definition's.
            children.sort();
            step.done().unwrap();
            Graph {
                label: label(&path(name), &StepKind::Parallel, "completed"),
                children,
            }
        }
        Spec::Call(name, workflow, children) => {
            let step = scope.open(name, StepKind::CallWorkflow, set);
            let child = step.call_workflow(*workflow).unwrap();
            let inner = children
                .iter()
                .map(|c| execute(Scope::Run(&child), "", c, 0, None))
                .collect();
            child.done().unwrap();
            step.done().unwrap();
            let run = Graph {
                label: format!("run {workflow} completed"),
                children: inner,
            };
            Graph {
                label: label(&path(name), &StepKind::CallWorkflow, "completed"),
                children: vec![run],
            }
        }
        Spec::Tool(name, call_id, fails) => {
            let Scope::Step(step) = scope else {
                panic!("tools run in steps")
            };
            // Call ids are unique in a run: a loop's body gives each iteration its own.
            let call_id = format!("{call_id}-{iteration}");
            let call = step.tool(*name, &call_id, json!({"n": 1})).unwrap();
            let outcome = if *fails {
                call.error("the tool failed").unwrap();
                "error"
            } else {
                call.ok(json!("done")).unwrap();
                "ok"
            };
            Graph {
                label: format!("tool {name} {call_id} {outcome}"),
                children: Vec::new(),
            }
        }
    }
}

/// `axt tree --json` in the same shape: steps, runs and tools (messages are not in the
/// executor's graph), parallel branches sorted as the executor sorted them.
fn graph_of(node: &Value) -> Option<Graph> {
    let label = match node["node"].as_str() {
        Some("step") => {
            let status = match node["error"].as_str() {
                Some(error) => format!("failed: {error}"),
                None => node["status"].as_str().unwrap().to_owned(),
            };
            format!(
                "step {} #{} {} {status}",
                node["path"].as_str().unwrap(),
                node["iteration"],
                node["kind"].as_str().unwrap()
            )
        }
        Some("tool") => format!(
            "tool {} {} {}",
            node["name"].as_str().unwrap(),
            node["call_id"].as_str().unwrap(),
            node["outcome"].as_str().unwrap()
        ),
        Some("run") | None => format!(
            "run {} {}",
            node["name"].as_str().unwrap(),
            node["status"].as_str().unwrap()
        ),
        Some(_) => return None,
    };
    let mut children: Vec<Graph> = node["children"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(graph_of)
        .collect();
    if node["kind"] == "parallel" {
        children.sort();
    }
    Some(Graph { label, children })
}

#[test]
fn us1_the_tree_rebuilt_from_the_files_is_the_executor_s_step_graph() {
    use Spec::*;
    let workflow = [
        Do(
            "prepare",
            StepKind::Command,
            None,
            vec![Tool("git_clone", "c1", false)],
        ),
        Parallel(
            "parallel_block",
            vec![
                Do(
                    "branch_a",
                    StepKind::Operation,
                    None,
                    vec![Tool("http_get", "c2", false)],
                ),
                Do(
                    "branch_b",
                    StepKind::Command,
                    Some("exit status 2"),
                    vec![Do("inner", StepKind::Operation, None, vec![])],
                ),
                Loop(
                    "branch_c",
                    StepKind::While,
                    2,
                    vec![Do("poll", StepKind::Operation, None, vec![])],
                ),
            ],
        ),
        Loop(
            "items",
            StepKind::ForEach,
            3,
            vec![
                Do(
                    "process",
                    StepKind::Command,
                    None,
                    vec![Tool("lint", "c3", true)],
                ),
                Do("report", StepKind::custom("notify"), None, vec![]),
            ],
        ),
        Call(
            "build",
            "build-pipeline",
            vec![
                Do("compile", StepKind::Command, None, vec![]),
                Call(
                    "test",
                    "test-suite",
                    vec![Do("unit", StepKind::Command, None, vec![])],
                ),
            ],
        ),
        Do("done", StepKind::Terminal, None, vec![]),
    ];
    let dir = TempDir::new("workflow-us1");
    let recorder = Recorder::create(dir.path(), "us1", RecorderOptions::default()).unwrap();
    let run = Run::start(recorder, "release").unwrap();
    let children = workflow
        .iter()
        .map(|spec| execute(Scope::Run(&run), "", spec, 0, None))
        .collect();
    run.done().unwrap();
    let held = Graph {
        label: "run release completed".into(),
        children,
    };

    // Every line of every file decodes, with seq 1, 2, 3, ... and steps that pair up.
    let files: Vec<PathBuf> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 3);
    for file in &files {
        assert_well_formed(&events_of(file));
    }
    let root = dir.path().join("us1.jsonl");
    let tree = axt(&["tree", "--json", root.to_str().unwrap()], b"");
    assert_eq!(tree.status.code(), Some(0), "{}", text(&tree.stderr));
    let tree: Value = serde_json::from_slice(&tree.stdout).unwrap();
    let rebuilt = graph_of(&tree["root"]).unwrap();
    assert_eq!(rebuilt, held);
}

// ---- Threads --------------------------------------------------------------------------

#[test]
fn eight_branches_on_eight_threads_nest_and_pair_up() {
    let dir = TempDir::new("workflow-threads");
    let recorder = Recorder::create(dir.path(), "threads", RecorderOptions::default()).unwrap();
    let run = Run::start(recorder, "w").unwrap();
    let parallel = run.step("parallel", StepKind::Parallel).unwrap();
    let start = Barrier::new(8);
    thread::scope(|threads| {
        for b in 0..8 {
            let (parallel, start) = (&parallel, &start);
            threads.spawn(move || {
                let branch = parallel
                    .step(&format!("branch_{b}"), StepKind::ForEach)
                    .unwrap();
                start.wait();
                for i in 0..50 {
                    let body = branch.step_at("body", StepKind::Operation, i).unwrap();
                    let call = body.tool("t", format!("b{b}-{i}"), json!(i)).unwrap();
                    body.step("inner", StepKind::Command)
                        .unwrap()
                        .done()
                        .unwrap();
                    call.ok(json!(i)).unwrap();
                    body.done().unwrap();
                }
                branch.done().unwrap();
            });
        }
    });
    parallel.done().unwrap();
    run.done().unwrap();
    let events = events_of(&dir.path().join("threads.jsonl"));
    assert_eq!(events.len(), 2 + 2 + 8 * (2 + 50 * 6));
    assert_well_formed(&events);
    let path = dir.path().join("threads.jsonl");
    let tree = axt(&["tree", "--json", path.to_str().unwrap()], b"");
    assert_eq!(tree.status.code(), Some(0), "{}", text(&tree.stderr));
    let tree: Value = serde_json::from_slice(&tree.stdout).unwrap();
    let steps = collect(&tree["root"], "step");
    assert_eq!(steps.len(), 1 + 8 * (1 + 50 * 2));
    assert!(steps.iter().all(|s| s["status"] == "completed"));
}

/// Threads record into steps while another ends them (their parent step, or the run): an
/// event is either in its step, before its completion, or refused with a typed error;
/// nothing lands after a completion, and nothing is left open.
#[test]
fn ending_a_scope_races_recording_into_it_and_loses_nothing() {
    let mut cut_short = 0;
    for round in 0..60 {
        let (recorder, store) = memory("race");
        let run = Run::start(recorder, "w").unwrap();
        let parent = run.step("parent", StepKind::Parallel).unwrap();
        let go = Arc::new(Barrier::new(5));
        let workers: Vec<_> = (0..4)
            .map(|w| {
                let branch = parent.step(&format!("w{w}"), StepKind::ForEach).unwrap();
                let go = Arc::clone(&go);
                thread::spawn(move || -> Vec<String> {
                    go.wait();
                    let mut refused = Vec::new();
                    for i in 0..1_000 {
                        let outcome = (|| -> Result<(), RunError> {
                            let step = branch.step_at("body", StepKind::Operation, i)?;
                            let call = step.tool("t", format!("{w}-{i}"), Value::Null)?;
                            step.message(EventType::MessageUser, user_text("x"))?;
                            call.ok(Value::Null)?;
                            step.done()
                        })();
                        match outcome {
                            Ok(()) => {}
                            Err(RunError::StepEnded { .. } | RunError::RunEnded { .. }) => {
                                refused.push("ended".to_owned());
                                break;
                            }
                            Err(other) => refused.push(other.to_string()),
                        }
                    }
                    refused
                })
            })
            .collect();
        go.wait();
        for _ in 0..round * 20 {
            std::hint::spin_loop();
        }
        // Half the rounds end the parent step, half the whole run, while the workers record.
        if round % 2 == 0 {
            parent.done().unwrap();
            for worker in workers {
                let refused = worker.join().unwrap();
                assert!(refused.iter().all(|r| r == "ended"), "{refused:?}");
                cut_short += refused.len();
            }
            run.done().unwrap();
        } else {
            run.done().unwrap();
            for worker in workers {
                let refused = worker.join().unwrap();
                assert!(refused.iter().all(|r| r == "ended"), "{refused:?}");
                cut_short += refused.len();
            }
            assert!(matches!(parent.done(), Err(RunError::StepEnded { .. })));
        }
        assert_well_formed(&store.events("race"));
    }
    // The end did race the workers: some were cut short mid-loop.
    assert!(cut_short > 0);
}

fn user_text(text: &str) -> Payload {
    Payload::Message(axt::model::MessagePayload::new(
        axt::model::Role::User,
        vec![axt::model::ContentBlock::text(Fidelity::Router, text)],
    ))
}

/// The recorder itself: `close` from one thread while four record. Every `record` that
/// returned a seq is in the file, in seq order with no gap; every other one failed with
/// `Closed` and used no seq.
#[test]
fn close_races_record_and_every_returned_seq_is_in_the_file() {
    for round in 0..40 {
        let dir = TempDir::new("close-race");
        let recorder =
            Arc::new(Recorder::create(dir.path(), "r", RecorderOptions::default()).unwrap());
        let go = Arc::new(Barrier::new(5));
        let writers: Vec<_> = (0..4)
            .map(|_| {
                let (recorder, go) = (Arc::clone(&recorder), Arc::clone(&go));
                thread::spawn(move || {
                    go.wait();
                    let mut seqs = Vec::new();
                    loop {
                        let event =
                            ExchangeEvent::new("", EventType::MessageUser, "s", user_text("x"));
                        match recorder.record(event) {
                            Ok(seq) => seqs.push(seq),
                            Err(axt::record::RecordError::Closed { .. }) => return seqs,
                            Err(other) => panic!("{other}"),
                        }
                    }
                })
            })
            .collect();
        go.wait();
        for _ in 0..round * 50 {
            std::hint::spin_loop();
        }
        recorder.close().unwrap();
        let mut seqs: Vec<u64> = writers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect();
        seqs.sort_unstable();
        let events = events_of(&dir.path().join("r.jsonl"));
        let in_file: Vec<u64> = events.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, in_file, "round {round}");
        assert_eq!(in_file, (1..=in_file.len() as u64).collect::<Vec<_>>());
    }
}

// ---- The recorder port ----------------------------------------------------------------

/// The same instrumentation on the in-memory recorder and on files gives the same lines,
/// but for times, durations and run ids.
#[test]
fn the_memory_recorder_keeps_the_lines_the_file_recorder_writes() {
    fn instrument(recorder: Arc<dyn RunRecorder>) {
        let run = Run::start_shared(recorder, "w", StepKind::Workflow).unwrap();
        let step = run.step("s", StepKind::Command).unwrap();
        step.tool("Bash", "c1", json!({"command": "make"}))
            .unwrap()
            .finish(json!("ok"), Some("exit status 2".into()), Some(2))
            .unwrap();
        let call = step.step("call", StepKind::CallWorkflow).unwrap();
        call.call_workflow_with_id("child", "sub")
            .unwrap()
            .done()
            .unwrap();
        call.done().unwrap();
        step.fail("make failed").unwrap();
        run.done().unwrap();
    }
    fn comparable(jsonl: &[u8]) -> Vec<Value> {
        jsonl
            .split(|b| *b == b'\n')
            .filter(|line| !line.is_empty())
            .map(|line| {
                let mut event: Value = serde_json::from_slice(line).unwrap();
                event["timestamp"] = Value::Null;
                if let Some(payload) = event["payload"].as_object_mut() {
                    payload.remove("duration_ms");
                }
                event
            })
            .collect()
    }
    let (recorder, store) = memory("root");
    instrument(Arc::new(recorder));
    let dir = TempDir::new("workflow-port");
    let file = Recorder::create(dir.path(), "root", RecorderOptions::default()).unwrap();
    instrument(Arc::new(file));
    assert_eq!(store.runs(), ["child", "root"]);
    for run in ["root", "child"] {
        let on_disk = std::fs::read(dir.path().join(format!("{run}.jsonl"))).unwrap();
        assert_eq!(
            comparable(&store.jsonl(run).unwrap()),
            comparable(&on_disk),
            "{run}"
        );
    }
    // And written out, the memory store's runs are files the CLI reads.
    let out = TempDir::new("workflow-port-out");
    let paths = store.write_to(out.path()).unwrap();
    let names: Vec<&str> = paths.iter().map(|p| p.to_str().unwrap()).collect();
    let check = axt(&[&["check"], names.as_slice()].concat(), b"");
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stdout));
}

// ---- Conversations and captures -------------------------------------------------------

/// A conversation's follow-up turns add `message.user` events to the agent step, between
/// the agent's replies.
#[test]
fn follow_up_turns_add_user_messages_in_order() {
    let (recorder, store) = memory("chat");
    let run = Run::start(recorder, "w").unwrap();
    let agent = run
        .step("chat", StepKind::Agent)
        .unwrap()
        .agent(
            Provider::Claude,
            AgentOptions::new().prompt("first").system_prompt("sys"),
        )
        .unwrap();
    let reply = |text: &str| {
        let mut line = serde_json::to_vec(&json!({"type": "assistant", "session_id": "s",
            "message": {"id": text, "role": "assistant", "content": [{"type": "text", "text": text}]}}))
        .unwrap();
        line.push(b'\n');
        line
    };
    agent.feed(&reply("one")).unwrap();
    agent.follow_up("second").unwrap();
    agent.feed(&reply("two")).unwrap();
    agent.feed(b"{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"two\"}\n").unwrap();
    agent.finish(ProcessEnd::exited(0)).unwrap();
    run.done().unwrap();
    let messages: Vec<String> = store
        .events("chat")
        .iter()
        .filter_map(|e| match &e.payload {
            Payload::Message(m) => Some(
                m.blocks
                    .iter()
                    .map(|b| match &b.block {
                        axt::model::Block::Text {
                            text,
                            system_prompt,
                            ..
                        } => {
                            format!(
                                "{} {text}{}",
                                m.role.as_str(),
                                if *system_prompt { " (system)" } else { "" }
                            )
                        }
                        other => other.type_name().to_owned(),
                    })
                    .collect::<Vec<_>>()
                    .join(" + "),
            ),
            _ => None,
        })
        .collect();
    assert_eq!(
        messages,
        [
            "user first + user sys (system)",
            "assistant one",
            "user second",
            "assistant two"
        ]
    );
}

/// A capture dropped before `finish` (the executor gave up on the agent) still ends its
/// step and run, failed, with what the output held so far recorded first.
#[test]
fn a_capture_dropped_unfinished_ends_its_run_failed() {
    use axt::capture::{Capture, CaptureOptions};
    let dir = TempDir::new("workflow-capture-drop");
    let options = CaptureOptions {
        run_id: Some("dropped".into()),
        ..CaptureOptions::default()
    };
    let mut capture = Capture::new(Provider::Claude, dir.path(), options).unwrap();
    capture
        .feed(b"{\"type\":\"assistant\",\"message\":{\"id\":\"m\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"half\"}]}}\n")
        .unwrap();
    drop(capture);
    let events = events_of(&dir.path().join("dropped.jsonl"));
    assert_well_formed(&events);
    assert_eq!(
        outline(&events),
        [
            "run.started #0",
            "step.started agent#0",
            "message.assistant agent#0",
            "step.completed agent#0 error=\"the capture was dropped before the agent's output ended; the output ended before the run's terminal record\"",
            "run.completed #0 error=\"the capture was dropped before the agent's output ended; the output ended before the run's terminal record\"",
        ]
    );
}

// ---- What the handles say of themselves ------------------------------------------------

/// The handles name their run, path, kind and files; their `Debug` never prints a prompt
/// (transcripts hold secrets, and logs are read by more people than transcripts are).
#[test]
fn handles_describe_themselves_without_printing_prompts() {
    let dir = TempDir::new("workflow-handles");
    let recorder = Recorder::create(dir.path(), "h", RecorderOptions::default()).unwrap();
    let run = Run::start(recorder, "w").unwrap();
    assert_eq!(run.run_id(), "h");
    assert_eq!(run.path(), Some(dir.path().join("h.jsonl").as_path()));
    assert_eq!(run.recorder().run_id(), "h");
    assert_eq!(run.parent_run_id(), None);
    assert!(format!("{run:?}").contains("\"h\""));
    let mut live = run.subscribe();
    let step = run.step("s", StepKind::custom("review")).unwrap();
    assert_eq!(
        (step.name(), step.kind(), step.run_id(), step.iteration()),
        ("s", &StepKind::Custom("review".into()), "h", 0)
    );
    assert!(format!("{step:?}").contains("path: \"s\""));
    let call = step.tool("Read", "c1", json!({"path": "a"})).unwrap();
    assert_eq!((call.name(), call.call_id()), ("Read", "c1"));
    assert!(format!("{call:?}").contains("c1"));
    call.finish(json!("x"), Some(String::new()), None).unwrap();
    step.finish::<Value, String>(&Err("went wrong".into()))
        .unwrap();

    let secret = "sk-live-prompt-secret";
    let options = AgentOptions::new().prompt(secret).system_prompt(secret);
    assert!(!format!("{options:?}").contains(secret), "{options:?}");
    let raw = dir.path().join("agent.raw.jsonl");
    let agent = run
        .step("a", StepKind::Agent)
        .unwrap()
        .agent(Provider::Claude, options.raw_file(&raw))
        .unwrap();
    assert!(!format!("{agent:?}").contains(secret));
    assert_eq!(agent.raw_path(), Some(raw.clone()));
    assert_eq!(agent.step().path(), "a");
    let output = claude_turn(&[]).concat();
    agent.run(output.as_slice()).unwrap();
    assert_eq!(agent.meta().answer.as_deref(), Some("Done."));
    agent.finish(ProcessEnd::exited(0)).unwrap();
    assert_eq!(
        std::fs::read(&raw).unwrap(),
        output,
        "the raw copy, byte for byte"
    );

    // A raw file that already exists is refused, and the step is failed with the reason.
    let refused = run
        .step("again", StepKind::Agent)
        .unwrap()
        .agent(Provider::Claude, AgentOptions::new().raw_file(&raw));
    assert!(matches!(refused, Err(RunError::Raw { .. })));
    run.done().unwrap();
    let types: Vec<String> = std::iter::from_fn(|| live.try_recv().ok())
        .filter_map(|d| match d {
            axt::record::Delivery::Event(e) => Some(e.event_type.to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(types.first().map(String::as_str), Some("step.started"));
    assert_eq!(types.last().map(String::as_str), Some("run.completed"));
    let events = events_of(&dir.path().join("h.jsonl"));
    assert_well_formed(&events);
    let errors: Vec<&str> = events.iter().filter_map(step_error).collect();
    assert_eq!(errors[0], "went wrong");
    assert!(
        errors[1].starts_with(&format!("{}: ", raw.display())),
        "{errors:?}"
    );
}

/// The in-memory recorder keeps the recorder's promises: one recorder per run id, a
/// subscription that sees every event then ends at close, a record after close refused.
#[test]
fn the_memory_recorder_refuses_what_the_file_recorder_refuses() {
    let (recorder, store) = memory("m");
    assert!(matches!(
        MemoryRecorder::in_store(store.clone(), "m", RecorderOptions::default()),
        Err(axt::record::RecordError::InvalidRunId { .. })
    ));
    assert!(MemoryRecorder::new("../escape", RecorderOptions::default()).is_err());
    let mut live = recorder.subscribe();
    let event = || ExchangeEvent::new("", EventType::MessageUser, "s", user_text("x"));
    assert_eq!(recorder.record(event()).unwrap(), 1);
    assert_eq!(recorder.events().len(), 1);
    recorder.close().unwrap();
    recorder.close().unwrap();
    assert!(matches!(
        recorder.record(event()),
        Err(axt::record::RecordError::Closed { .. })
    ));
    assert!(matches!(live.recv(), Some(axt::record::Delivery::Event(_))));
    assert!(live.recv().is_none(), "ended at close");
    assert!(
        recorder.subscribe().recv().is_none(),
        "a late subscription is ended"
    );
    assert_eq!(recorder.stats().delivered, 1);
    assert!(format!("{recorder:?} {store:?}").contains("\"m\""));
    // Masking applies as on disk.
    let masked = MemoryRecorder::new("k", RecorderOptions::default().redact_credentials()).unwrap();
    masked
        .record(ExchangeEvent::new(
            "",
            EventType::MessageUser,
            "s",
            user_text("key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789"),
        ))
        .unwrap();
    let line = String::from_utf8(masked.store().jsonl("k").unwrap()).unwrap();
    assert!(line.contains("[REDACTED:"), "{line}");
    // Writing out refuses to overwrite.
    let out = TempDir::new("workflow-memory-out");
    store.write_to(out.path()).unwrap();
    assert!(store.write_to(out.path()).is_err());
}

/// `AgentStep::finish` returns the metadata the step records: with how the process ended.
#[test]
fn finish_returns_the_metadata_with_how_the_process_ended() {
    let (recorder, store) = memory("killed");
    let run = Run::start(recorder, "w").unwrap();
    let agent = run
        .step("a", StepKind::Agent)
        .unwrap()
        .agent(Provider::Claude, AgentOptions::new())
        .unwrap();
    agent.feed(&claude_turn(&[])[1]).unwrap();
    let killed = ProcessEnd {
        signal: Some(9),
        ..ProcessEnd::default()
    };
    let meta = agent.finish(killed).unwrap();
    run.done().unwrap();
    assert_eq!(meta.status, axt::normalize::RunStatus::Failed);
    let events = store.events("killed");
    let completed = events
        .iter()
        .rfind(|e| e.event_type == EventType::StepCompleted)
        .unwrap();
    let Payload::Step(step) = &completed.payload else {
        panic!()
    };
    assert_eq!(step.result["status"], "failed");
    assert_eq!(step.result["process"], json!({"signal": 9}));
    assert!(
        step.error.as_deref().unwrap().contains("signal 9"),
        "{:?}",
        step.error
    );
}

/// `Capture`, the one-agent run `axt exec` stands on: what it says of itself, a run it
/// refuses to record twice, and a failing read of the agent's output.
#[test]
fn a_capture_describes_itself_and_refuses_what_it_cannot_record() {
    use axt::capture::{Capture, CaptureError, CaptureOptions};
    let dir = TempDir::new("workflow-capture");
    let secret = "sk-live-prompt-secret";
    let options = CaptureOptions {
        run_id: Some("c".into()),
        prompt: Some(secret.into()),
        keep_raw: false,
        ..CaptureOptions::default()
    };
    assert!(!format!("{options:?}").contains(secret), "{options:?}");
    let mut capture = Capture::new(Provider::Codex, dir.path(), options).unwrap();
    assert_eq!(capture.run_id(), "c");
    assert_eq!(capture.path(), dir.path().join("c.jsonl"));
    assert_eq!(capture.raw_path(), None);
    assert_eq!(capture.recorder().last_seq(), 0);
    assert_eq!(capture.meta().provider, Provider::Codex);
    let mut live = capture.subscribe();
    capture.start().unwrap();
    capture.start().unwrap(); // once
    struct Broken;
    impl std::io::Read for Broken {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("the pipe broke"))
        }
    }
    let Err(CaptureError::Read(error)) = capture.run(Broken) else {
        panic!("a failed read is CaptureError::Read");
    };
    assert_eq!(error.to_string(), "the pipe broke");
    let meta = capture.finish(ProcessEnd::exited(1)).unwrap();
    assert_eq!(meta.status, axt::normalize::RunStatus::Failed);
    let types: Vec<String> = std::iter::from_fn(|| live.recv())
        .filter_map(|d| match d {
            axt::record::Delivery::Event(e) => Some(e.event_type.to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(
        types,
        [
            "run.started",
            "step.started",
            "message.user",
            "step.completed",
            "run.completed"
        ]
    );
    // The run has a transcript now: a second capture of it is refused, and writes nothing.
    let again = CaptureOptions {
        run_id: Some("c".into()),
        ..CaptureOptions::default()
    };
    let Err(CaptureError::Exists { path }) = Capture::new(Provider::Codex, dir.path(), again)
    else {
        panic!("a recorded run is refused");
    };
    assert_eq!(path, dir.path().join("c.jsonl"));
    assert!(!dir.path().join("c.raw").exists());
}

/// Router calls share the last call's name when they call the same tool: each event still
/// names its own tool, whatever came before it (the same tool again, another, one still
/// open when the next opens, one left open until its step ends, an id refused).
#[test]
fn each_router_call_names_its_own_tool_when_calls_share_a_name() {
    let (recorder, store) = memory("names");
    let run = Run::start(recorder, "w").unwrap();
    let step = run.step("s", StepKind::Command).unwrap();
    let first = step.tool("Read", "c1", json!({"n": 1})).unwrap();
    let second = step.tool("Read", "c2", json!({"n": 2})).unwrap();
    assert!(step.tool("Bash", "c1", Value::Null).is_err(), "id used");
    let third = step.tool("Bash", "c3", Value::Null).unwrap();
    second.ok(json!("two")).unwrap();
    let fourth = step.tool("Read", "c4", Value::Null).unwrap();
    let _left_open = step.tool("Reader", "c5", Value::Null).unwrap();
    let sixth = step.tool("Read", "c6", Value::Null).unwrap();
    assert_eq!(
        [&first, &third, &fourth, &sixth].map(|call| (call.name(), call.call_id())),
        [
            ("Read", "c1"),
            ("Bash", "c3"),
            ("Read", "c4"),
            ("Read", "c6")
        ]
    );
    for call in [first, third, fourth, sixth] {
        call.ok(Value::Null).unwrap();
    }
    step.done().unwrap();
    run.done().unwrap();
    let events = store.events("names");
    assert_well_formed(&events);
    let tools: Vec<String> = events
        .iter()
        .filter_map(|event| match &event.payload {
            Payload::Tool(tool) => Some(format!(
                "{} {} {}",
                event.event_type.as_str(),
                tool.name,
                tool.call_id
            )),
            _ => None,
        })
        .collect();
    assert_eq!(
        tools,
        [
            "tool.call Read c1",
            "tool.call Read c2",
            "tool.call Bash c3",
            "tool.result Read c2",
            "tool.call Read c4",
            "tool.call Reader c5",
            "tool.call Read c6",
            "tool.result Read c1",
            "tool.result Bash c3",
            "tool.result Read c4",
            "tool.result Read c6",
            "tool.result Reader c5",
        ]
    );
}
