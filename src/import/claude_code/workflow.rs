//! Claude Code's dynamic workflows: a `Workflow` tool call starts an orchestrator script that
//! fans out into agents, and Claude Code keeps, under the session's directory,
//!
//! * `subagents/workflows/<runId>/journal.jsonl`: the live spine, one line per event of an
//!   agent, `{"type": "started" | "result", "key", "agentId", "result"}`;
//! * `subagents/workflows/<runId>/agent-<agentId>.jsonl` (and `.meta.json`): each agent's
//!   own transcript, a session log like any sub-agent's;
//! * `workflows/<runId>.json`: the snapshot written when the run ends (`runId`, `taskId`,
//!   `status`, `workflowName`, `durationMs`, `totalTokens`, `defaultModel`, `result`,
//!   `error`, `phases`, `workflowProgress` with each agent's `label`, `phaseTitle`, `state`).
//!
//! (Shapes as Claude Code 2.1 writes them; the peer reader is claude-code-log's
//! `workflow.py`.) The journal is axt's run/step/sub-run tree: the workflow is a child run
//! `<session>.workflow-<runId>` of the run whose `Workflow` call launched it (the call whose
//! result's `toolUseResult.runId` names it), linked both ways; each journal line is a record
//! made for the Claude adapter (`started`: a `workflow_agent` call, id the agent's id, input
//! its label and phase; `result`: that call's result), and each agent's transcript is a child
//! run `<session>.agent-<agentId>` of the workflow, linked to its call. The snapshot, when
//! there is one, ends the run (`completed`, or `failed` with its `error`); without one the
//! workflow is still running or died unrecorded, and its run is incomplete (an
//! `unfinished-workflow` note). An agent the
//! journal started whose transcript is missing leaves a `missing-subagent` note; a
//! transcript the journal never names is linked before the workflow closes
//! (`unlinked-subagent`).
//!
//! The agents' transcripts count their tokens; the workflow run counts none (its
//! `import.usage_in` says so), so the session is counted once. Its `import` account:
//! `format` (`claude-code-workflow`), `source` (`journal.jsonl`), `entries`, `thread`,
//! `off_chain` and `kept_out` (journal lines of no agent, kept as passthrough), `workflow` (the snapshot's fields but its script and progress list).
//!
//! This room owns the journal and the snapshot; the agents' transcripts are read as every
//! agent log is (`plan`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use crate::import::entries::scan;
use crate::import::feed::{self, Feed, RunPlan, Spawn, What};
use crate::import::ids::sanitize;
use crate::import::session::{ImportError, Note, NoteKind, SessionFiles};
use crate::model::{Provider, Timestamp, Usage};

/// The workflow run an agent log belongs to: `subagents/workflows/<runId>/agent-*.jsonl`.
pub(super) fn run_of(file: &Path) -> Option<String> {
    let dir = file.parent()?;
    let workflows = dir.parent()?;
    (workflows.file_name()? == "workflows" && workflows.parent()?.file_name()? == "subagents")
        .then(|| dir.file_name()?.to_str().map(str::to_owned))
        .flatten()
}

/// Whether a file is a workflow's journal.
pub(super) fn is_journal(file: &Path) -> bool {
    file.file_name() == Some("journal.jsonl".as_ref()) && run_of(file).is_some()
}

/// Adds the session's workflow runs to its plan: each workflow a run, linked to the
/// `Workflow` call that launched it, its agents' runs (`runs[agents..]`, those
/// [`run_of`] names) linked to it.
pub(super) fn attach(
    files: &SessionFiles,
    session_id: &str,
    runs: &mut Vec<RunPlan>,
    parents: &mut Vec<Option<usize>>,
    spawns: &mut Vec<Vec<Spawn>>,
    notes: &mut Vec<Note>,
) -> Result<(), ImportError> {
    let journals: Vec<&PathBuf> = files.subagents.iter().filter(|f| is_journal(f)).collect();
    if journals.is_empty() {
        return Ok(());
    }
    let launches = files.main.as_deref().map(launches).unwrap_or_default();
    for journal in journals {
        let run_id = run_of(journal).unwrap_or_default();
        let session_dir = journal.ancestors().nth(4).unwrap_or(Path::new(""));
        let snapshot_path = session_dir.join("workflows").join(format!("{run_id}.json"));
        let snapshot = std::fs::read(&snapshot_path)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
            .filter(Value::is_object);
        let (mut run, agents) = workflow_run(session_id, &run_id, journal, snapshot.as_ref())?;
        match &snapshot {
            Some(snapshot) => {
                let mut end = Feed::made(&end_record(snapshot, session_id), 0, 0..0);
                end.file = Some(snapshot_path.clone());
                run.feed_mut().push(end);
            }
            None => notes.push(Note {
                file: journal.clone(),
                line: 0,
                kind: NoteKind::UnfinishedWorkflow,
                message: format!(
                    "workflow {run_id:?} has no snapshot workflows/{run_id}.json: still running, or ended unrecorded; its run is incomplete"
                ),
            }),
        }
        let at = runs.len();
        let name = snapshot
            .as_ref()
            .and_then(|s| s.get("workflowName"))
            .and_then(Value::as_str)
            .unwrap_or("workflow")
            .to_owned();
        runs.push(run);
        parents.push(Some(0));
        spawns.push(Vec::new());
        let call = launches.get(&run_id).cloned();
        if call.is_none() {
            notes.push(Note {
                file: journal.clone(),
                line: 0,
                kind: NoteKind::UnlinkedSubagent,
                message: format!(
                    "workflow {run_id:?}: no Workflow call's result names it; linked to the session's end"
                ),
            });
        }
        spawns[0].push(Spawn {
            call,
            child: runs[at].run_id.clone(),
            name,
        });
        // Its agents' runs: linked to their calls in the workflow.
        let dir = journal.parent().unwrap_or(Path::new(""));
        for (agent, label) in &agents {
            let child = runs
                .iter()
                .position(|r| r.source == dir.join(format!("agent-{agent}.jsonl")));
            match child {
                Some(child) => {
                    parents[child] = Some(at);
                    spawns[at].push(Spawn {
                        call: Some(agent.clone()),
                        child: runs[child].run_id.clone(),
                        name: label.clone(),
                    });
                }
                None => notes.push(Note {
                    file: journal.clone(),
                    line: 0,
                    kind: NoteKind::MissingSubagent,
                    message: format!(
                        "workflow agent {agent:?}: its transcript agent-{agent}.jsonl is missing"
                    ),
                }),
            }
        }
        for child in 0..runs.len() {
            let source = runs[child].source.clone();
            if parents[child].is_none()
                && child != 0
                && child != at
                && source.parent() == Some(dir)
                && run_of(&source).is_some()
            {
                parents[child] = Some(at);
                notes.push(Note {
                    file: source,
                    line: 0,
                    kind: NoteKind::UnlinkedSubagent,
                    message:
                        "a workflow agent the journal never names; linked to the workflow's end"
                            .into(),
                });
                spawns[at].push(Spawn {
                    call: None,
                    child: runs[child].run_id.clone(),
                    name: "workflow-agent".into(),
                });
            }
        }
    }
    Ok(())
}

/// The `Workflow` calls of a session log that launched a run: runId -> the call's id (the
/// result entry's `toolUseResult.runId`, and the `tool_use_id` it answers).
fn launches(main: &Path) -> BTreeMap<String, String> {
    let mut found = BTreeMap::new();
    let _ = scan(main, |line| {
        if memchr::memmem::find(line.bytes, b"\"runId\"").is_none() {
            return;
        }
        let Ok(entry) = serde_json::from_slice::<Value>(line.bytes) else {
            return;
        };
        let Some(run) = entry
            .pointer("/toolUseResult/runId")
            .and_then(Value::as_str)
        else {
            return;
        };
        let call = entry
            .pointer("/message/content")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .find_map(|block| block.get("tool_use_id").and_then(Value::as_str));
        if let Some(call) = call {
            found
                .entry(run.to_owned())
                .or_insert_with(|| call.to_owned());
        }
    });
    found
}

/// The workflow's run from its journal: each line a made record; and the agents it
/// started, in order, with their labels.
fn workflow_run(
    session_id: &str,
    run_id: &str,
    journal: &Path,
    snapshot: Option<&Value>,
) -> Result<(RunPlan, Vec<(String, String)>), ImportError> {
    // Each agent's label, phase and model, from the snapshot's progress list.
    let mut progress: BTreeMap<String, &Value> = BTreeMap::new();
    for node in snapshot
        .and_then(|s| s.get("workflowProgress"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(agent) = node.get("agentId").and_then(Value::as_str) {
            progress.insert(agent.to_owned(), node);
        }
    }
    let model = snapshot
        .and_then(|s| s.get("defaultModel"))
        .cloned()
        .unwrap_or(Value::Null);
    let id = format!("{session_id}.workflow-{}", sanitize(run_id));
    let mut run = RunPlan::new(id, Provider::Claude, journal.to_owned());
    let mut agents: Vec<(String, String)> = Vec::new();
    let mut entries = 0u64;
    let mut kept = 0u64;
    let stamp = snapshot
        .and_then(|s| s.get("timestamp"))
        .and_then(Value::as_str)
        .and_then(|t| Timestamp::parse(t).ok());
    scan(journal, |line| {
        entries += 1;
        let Ok(record) = serde_json::from_slice::<Value>(line.bytes) else {
            run.feed_mut()
                .push(Feed::at(What::Entry, line.number, line.range));
            return;
        };
        let text = |key: &str| record.get(key).and_then(Value::as_str).map(str::to_owned);
        let (kind, agent) = (text("type"), text("agentId").unwrap_or_default());
        let node = progress.get(&agent).copied().unwrap_or(&Value::Null);
        let made = match kind.as_deref().filter(|_| !agent.is_empty()) {
            Some("started") => {
                let label = node
                    .get("label")
                    .and_then(Value::as_str)
                    .map_or_else(|| agent.clone(), str::to_owned);
                if !agents.iter().any(|(a, _)| *a == agent) {
                    agents.push((agent.clone(), label.clone()));
                }
                let mut input = Map::new();
                input.insert("label".into(), label.into());
                for (from, to) in [("phaseTitle", "phase"), ("model", "model")] {
                    if let Some(value) = node.get(from) {
                        input.insert(to.into(), value.clone());
                    }
                }
                if let Some(key) = record.get("key") {
                    input.insert("key".into(), key.clone());
                }
                json!({"type": "assistant", "message": {
                    "id": format!("{run_id}.{agent}.{}", line.number), "type": "message",
                    "role": "assistant", "model": node.get("model").unwrap_or(&model),
                    "content": [{"type": "tool_use", "id": agent, "name": "workflow_agent",
                                 "input": input}]}})
            }
            Some("result") => {
                let result = match record.get("result") {
                    Some(Value::String(text)) => Value::String(text.clone()),
                    Some(other) => Value::String(other.to_string()),
                    None => Value::String(String::new()),
                };
                json!({"type": "user", "message": {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": agent, "content": result}]}})
            }
            // A line of no agent, or of a kind the journal's readers do not know: kept.
            _ => {
                kept += 1;
                run.feed_mut().push(Feed::at(
                    What::Keep("claude-code/workflow-journal"),
                    line.number,
                    line.range,
                ));
                return;
            }
        };
        let mut fed = Feed::made(&made, line.number, line.range);
        fed.timestamp = stamp.clone();
        run.feed_mut().push(fed);
    })?;
    let thread = entries - kept;
    run.import = feed::account("claude-code-workflow", journal, entries, thread);
    run.import.insert("off_chain".into(), kept.into());
    run.import.insert(
        "kept_out".into(),
        if kept > 0 {
            json!({"journal-metadata": kept})
        } else {
            json!({})
        },
    );
    if let Some(snapshot) = snapshot.and_then(Value::as_object) {
        let mut kept: Map<String, Value> = snapshot.clone();
        kept.remove("script");
        kept.remove("workflowProgress");
        run.import.insert("workflow".into(), Value::Object(kept));
    }
    run.import
        .insert("usage_in".into(), "the workflow's agents".into());
    run.usage = Some(Usage::default());
    run.session_id = Some(session_id.to_owned());
    // The snapshot's record ends the run; without one, the run has no end.
    run.terminal = true;
    Ok((run, agents))
}

/// The record the snapshot stands for: the run's end.
fn end_record(snapshot: &Value, session_id: &str) -> Value {
    let status = snapshot.get("status").and_then(Value::as_str).unwrap_or("");
    let failed = status != "completed";
    let result = match snapshot.get("result") {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Null) | None => snapshot
            .get("error")
            .and_then(Value::as_str)
            .unwrap_or(status)
            .to_owned(),
        Some(other) => other.to_string(),
    };
    json!({
        "type": "result",
        "subtype": if failed { "error_during_execution" } else { "success" },
        "is_error": failed,
        "result": result,
        "duration_ms": snapshot.get("durationMs"),
        "session_id": session_id,
    })
}
