//! The executor's seam (`axt::workflow`): scopes that end exactly once, paths and
//! iterations, parallel branches, sub-workflows, live agent steps and router tools, each
//! call recorded once; checked on the files with the CLI a user would use.

use std::collections::{BTreeMap, HashMap};
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
    let open = body.tool("t", "same", Value::Null).unwrap();
    assert!(matches!(
        body.tool("t", "same", Value::Null),
        Err(RunError::CallOpen { .. })
    ));
    open.ok(Value::Null).unwrap();
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
