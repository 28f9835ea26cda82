//! The Claude Code importer over generated session graphs: whatever the parentUuid links of
//! a session look like, every tool call Claude Code logged is in its run or kept out as a
//! real rewind, and every result is with its call.
//!
//! The generator writes sessions as Claude Code 2.1.x writes them (corpus/import/claude-code's
//! fixtures show each shape on its own): turns of API messages whose parallel calls are one
//! entry each, each call hung off whatever was written last (the call before, a hook's
//! progress or attachment, an agent's progress, a sibling's result); results in any order,
//! each hung off its call or another entry of the batch; a skill's body after its result;
//! the next message going on from any result or hook of the batch; real rewinds (the user
//! edits one of the last prompts: a second prompt with the same parent, the turns after the
//! first abandoned); compactions; sub-agents with logs of their own, made the same way. The
//! generator knows which entries a rewind abandoned; the importer must find the same.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use axt::import::claude_code::{ImportedRun, NoteKind, Session, convert, discover};
use axt::model::{EventType, Payload};
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::golden_import::import_meta;
use crate::support::TempDir;

/// How a batch's hooks are logged.
#[derive(Clone, Copy, Debug)]
enum Hooks {
    None,
    /// `progress` entries, `hook_progress` (2.1.38 to 2.1.84).
    Progress,
    /// `attachment` entries, `hook_success` (2.1.85 on).
    Attachments,
}

/// One API message with parallel calls, and its results.
#[derive(Clone, Debug)]
struct Batch {
    calls: usize,
    text_first: bool,
    hooks: Hooks,
    bash_progress: bool,
    /// Per call after the first: which entry already written it hangs off.
    call_hang: Vec<u8>,
    /// Per result: 0 (mostly) its call's entry, else another entry of the batch.
    result_hang: Vec<u8>,
    /// The order the tools finish in (a permutation).
    finish: Vec<usize>,
    /// At each step, whether the next call entry is written before the next result.
    merge: Vec<bool>,
    /// Which result or hook of the batch the next message goes on from.
    next_from: u8,
    /// The first call is a Skill, with its body written after its result.
    skill: bool,
    /// The last call is an Agent whose log is a file of its own.
    agent: Option<Vec<Batch>>,
}

#[derive(Clone, Debug)]
enum Step {
    /// A prompt and the batches that answer it.
    Turn(Vec<Batch>),
    /// The user goes back `back + 1` prompts and edits that one; the turns after are
    /// abandoned, then this turn answers the edited prompt.
    Rewind {
        back: u8,
        then: Vec<Batch>,
    },
    Compaction,
}

fn batch(agents: bool) -> BoxedStrategy<Batch> {
    let hooks = prop_oneof![
        Just(Hooks::None),
        Just(Hooks::Progress),
        Just(Hooks::Attachments)
    ];
    (
        1usize..=4,
        any::<bool>(),
        hooks,
        any::<bool>(),
        proptest::collection::vec(any::<u8>(), 4),
        proptest::collection::vec(prop_oneof![3 => Just(0u8), 1 => any::<u8>()], 4),
        Just((0..4).collect::<Vec<usize>>()).prop_shuffle(),
        proptest::collection::vec(any::<bool>(), 8),
        any::<u8>(),
        any::<bool>(),
        if agents {
            proptest::option::weighted(0.3, proptest::collection::vec(batch(false), 1..3)).boxed()
        } else {
            Just(None).boxed()
        },
    )
        .prop_map(
            |(
                calls,
                text_first,
                hooks,
                bash_progress,
                call_hang,
                result_hang,
                finish,
                merge,
                next_from,
                skill,
                agent,
            )| {
                Batch {
                    calls,
                    text_first,
                    hooks,
                    bash_progress,
                    call_hang,
                    result_hang,
                    finish: finish.into_iter().filter(|i| *i < calls).collect(),
                    merge,
                    next_from,
                    skill,
                    agent,
                }
            },
        )
        .boxed()
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    let turn = proptest::collection::vec(batch(true), 0..3);
    let step = prop_oneof![
        4 => turn.clone().prop_map(Step::Turn),
        2 => (0u8..3, turn).prop_map(|(back, then)| Step::Rewind { back, then }),
        1 => Just(Step::Compaction),
    ];
    proptest::collection::vec(step, 1..6)
}

/// What the generator knows of an entry it wrote.
#[derive(Debug)]
struct Known {
    uuid: String,
    /// A message the user or the model wrote (not a hook, progress or system entry).
    message: bool,
    calls: Vec<String>,
    /// Abandoned by a rewind.
    abandoned: bool,
    /// The agent an Agent call of this entry spawned.
    spawned: Option<String>,
}

/// One log file being written.
struct Log {
    name: String,
    session: String,
    agent: Option<String>,
    lines: Vec<Value>,
    known: Vec<Known>,
    clock: u64,
    next: u64,
}

/// A session being written: its log and its agents' logs.
struct Writer {
    main: Log,
    agents: Vec<Log>,
}

impl Log {
    fn new(name: &str, session: &str, agent: Option<String>) -> Log {
        Log {
            name: name.to_owned(),
            session: session.to_owned(),
            agent,
            lines: Vec::new(),
            known: Vec::new(),
            clock: 0,
            next: 0,
        }
    }

    fn id(&mut self, what: &str) -> String {
        self.next += 1;
        format!("{}-{what}-{}", self.name, self.next)
    }

    /// Writes an entry; returns its index.
    fn put(&mut self, mut entry: Value, message: bool, calls: Vec<String>) -> usize {
        self.clock += 1;
        let uuid = self.id("uuid");
        let object = entry.as_object_mut().unwrap();
        object.insert("uuid".into(), uuid.clone().into());
        object.insert(
            "timestamp".into(),
            format!(
                "2026-03-14T{:02}:{:02}:{:02}.000Z",
                9 + self.clock / 3600,
                self.clock / 60 % 60,
                self.clock % 60
            )
            .into(),
        );
        object.insert("sessionId".into(), self.session.clone().into());
        object.insert("version".into(), "2.1.47".into());
        object.insert("cwd".into(), "/home/dev/shop".into());
        object.insert("isSidechain".into(), self.agent.is_some().into());
        if let Some(agent) = &self.agent {
            object.insert("agentId".into(), agent.clone().into());
        }
        self.lines.push(entry);
        self.known.push(Known {
            uuid,
            message,
            calls,
            abandoned: false,
            spawned: None,
        });
        self.known.len() - 1
    }

    fn parent(&self, at: Option<usize>) -> Value {
        at.map_or(Value::Null, |at| self.known[at].uuid.clone().into())
    }

    fn prompt(&mut self, parent: Option<usize>, text: String) -> usize {
        let entry = json!({"parentUuid": self.parent(parent), "type": "user",
            "message": {"role": "user", "content": text}});
        self.put(entry, true, Vec::new())
    }

    fn assistant(&mut self, parent: Option<usize>, message: &str, block: Value) -> usize {
        let calls = match block["type"] == "tool_use" {
            true => vec![block["id"].as_str().unwrap().to_owned()],
            false => Vec::new(),
        };
        let entry = json!({"parentUuid": self.parent(parent), "type": "assistant",
            "message": {"model": "claude-sonnet-4-6", "id": message, "type": "message",
                "role": "assistant", "content": [block], "stop_reason": null,
                "usage": {"input_tokens": 1, "output_tokens": 5}}});
        self.put(entry, true, calls)
    }

    fn hook(&mut self, parent: usize, hooks: Hooks, event: &str, call: &str) -> Option<usize> {
        let entry = match hooks {
            Hooks::None => return None,
            Hooks::Progress => json!({"parentUuid": self.parent(Some(parent)),
                "type": "progress", "data": {"type": "hook_progress", "hookEvent": event,
                    "hookName": format!("{event}:Bash"), "command": "callback"},
                "parentToolUseID": call, "toolUseID": call}),
            Hooks::Attachments => json!({"parentUuid": self.parent(Some(parent)),
                "type": "attachment", "attachment": {"type": "hook_success",
                    "hookName": format!("{event}:Bash"), "toolUseID": call, "hookEvent": event,
                    "content": "", "exitCode": 0}}),
        };
        Some(self.put(entry, false, Vec::new()))
    }

    fn progress(&mut self, parent: usize, call: &str, data: Value) -> usize {
        let entry = json!({"parentUuid": self.parent(Some(parent)), "type": "progress",
            "data": data, "parentToolUseID": call, "toolUseID": call});
        self.put(entry, false, Vec::new())
    }
}

impl Writer {
    /// Writes one batch hung off `anchor`; returns the entries the next message may go on
    /// from (results and their hooks).
    fn batch(&mut self, file: Option<usize>, anchor: usize, spec: &Batch) -> Vec<usize> {
        let message = self.log(file).id("msg");
        let mut written: Vec<usize> = Vec::new();
        let mut top = anchor;
        if spec.text_first {
            top = self.log(file).assistant(
                Some(anchor),
                &message,
                json!({"type": "text", "text": "On it."}),
            );
            written.push(top);
        }
        let ids: Vec<String> = (0..spec.calls)
            .map(|_| self.log(file).id("toolu"))
            .collect();
        let mut call_at: Vec<usize> = Vec::new();
        let mut results: Vec<usize> = Vec::new();
        let mut next_call = 0;
        let mut finished = 0;
        let mut step = 0;
        while next_call < spec.calls || finished < spec.finish.len() {
            let can_finish = finished < spec.finish.len() && spec.finish[finished] < next_call;
            let write_call = next_call < spec.calls
                && (!can_finish || spec.merge.get(step).copied().unwrap_or(true));
            step += 1;
            if write_call {
                let i = next_call;
                let parent = match (i, written.is_empty()) {
                    (0, _) => top,
                    // The call before, or whatever else was written since.
                    _ => {
                        let choice = spec.call_hang[i] as usize % written.len();
                        match choice {
                            0 => call_at[i - 1],
                            n => written[n],
                        }
                    }
                };
                let (name, input) = if i == 0 && spec.skill {
                    ("Skill", json!({"skill": "code-review"}))
                } else if i + 1 == spec.calls && spec.agent.is_some() {
                    let prompt = self.log(file).id("agent-prompt");
                    (
                        "Agent",
                        json!({"prompt": prompt, "subagent_type": "general-purpose",
                        "run_in_background": true}),
                    )
                } else {
                    ("Bash", json!({"command": format!("echo {i}")}))
                };
                let block = json!({"type": "tool_use", "id": ids[i], "name": name,
                    "input": input, "caller": {"type": "direct"}});
                let at = self.log(file).assistant(Some(parent), &message, block);
                call_at.push(at);
                written.push(at);
                let hook = self.log(file).hook(at, spec.hooks, "PreToolUse", &ids[i]);
                written.extend(hook);
                if name == "Agent" {
                    let agent = self.agent(
                        file,
                        at,
                        input["prompt"].as_str().unwrap(),
                        spec.agent.as_ref().unwrap(),
                    );
                    if !matches!(spec.hooks, Hooks::None) {
                        let data = json!({"type": "agent_progress", "agentId": agent,
                            "message": {"type": "user", "message": {"role": "user",
                                "content": [{"type": "text", "text": "working"}]}}});
                        let progress = self.log(file).progress(at, &ids[i], data);
                        written.push(progress);
                    }
                } else if spec.bash_progress
                    && let Some(hook) = hook
                {
                    let data =
                        json!({"type": "bash_progress", "output": "", "elapsedTimeSeconds": 3});
                    let progress = self.log(file).progress(hook, &ids[i], data);
                    written.push(progress);
                }
                next_call += 1;
            } else {
                let j = spec.finish[finished];
                finished += 1;
                let parent = match spec.result_hang[j] as usize % (written.len() + 1) {
                    0 => call_at[j],
                    n => written[n - 1],
                };
                let log = self.log(file);
                let spawned = log.known[call_at[j]].spawned.clone();
                let tool_use_result = match &spawned {
                    Some(agent) => {
                        json!({"isAsync": true, "status": "async_launched", "agentId": agent})
                    }
                    None => json!({"stdout": format!("{j}"), "stderr": "", "interrupted": false}),
                };
                let entry = json!({"parentUuid": log.parent(Some(parent)), "type": "user",
                    "message": {"role": "user", "content": [{"tool_use_id": ids[j],
                        "type": "tool_result", "content": format!("{j}")}]},
                    "toolUseResult": tool_use_result,
                    "sourceToolAssistantUUID": log.known[call_at[j]].uuid.clone()});
                let at = log.put(entry, true, Vec::new());
                results.push(at);
                written.push(at);
                if j == 0 && spec.skill {
                    let body = json!({"parentUuid": log.parent(Some(at)), "type": "user",
                        "isMeta": true, "sourceToolUseID": ids[0],
                        "message": {"role": "user", "content": [{"type": "text",
                            "text": "Base directory for this skill: /skills/code-review"}]}});
                    let body = log.put(body, true, Vec::new());
                    written.push(body);
                }
                let hook = self.log(file).hook(at, spec.hooks, "PostToolUse", &ids[j]);
                results.extend(hook);
                written.extend(hook);
            }
        }
        results
    }

    fn log(&mut self, file: Option<usize>) -> &mut Log {
        match file {
            None => &mut self.main,
            Some(at) => &mut self.agents[at],
        }
    }

    /// Writes the log of an agent the call `call` of `file` spawned; returns its id.
    fn agent(
        &mut self,
        file: Option<usize>,
        call: usize,
        prompt: &str,
        batches: &[Batch],
    ) -> String {
        let id = format!("a{:016x}", self.agents.len() + 1);
        self.log(file).known[call].spawned = Some(id.clone());
        let session = self.main.session.clone();
        self.agents.push(Log::new(
            &format!("agent{}", self.agents.len()),
            &session,
            Some(id.clone()),
        ));
        let at = Some(self.agents.len() - 1);
        let prompt = self.log(at).prompt(None, prompt.to_owned());
        self.turn(at, prompt, batches);
        id
    }

    /// Batches answering the prompt at `prompt`, then the final text; returns that text.
    fn turn(&mut self, file: Option<usize>, prompt: usize, batches: &[Batch]) -> usize {
        let mut tip = prompt;
        for spec in batches {
            let from = self.batch(file, tip, spec);
            tip = from[spec.next_from as usize % from.len()];
        }
        let message = self.log(file).id("msg");
        self.log(file).assistant(
            Some(tip),
            &message,
            json!({"type": "text", "text": "Done."}),
        )
    }
}

/// Writes a session; returns its directory's main log path and the writer (what it knows).
fn write(dir: &Path, steps: &[Step]) -> Writer {
    let session = "5f0c6a2e-1b7d-4c39-9e58-2a4b6c8d0e1f";
    let mut writer = Writer {
        main: Log::new("main", session, None),
        agents: Vec::new(),
    };
    // The live turns since the last compaction: (the prompt's parent, first entry index).
    let mut turns: Vec<(Option<usize>, usize)> = Vec::new();
    let mut tip: Option<usize> = None;
    for step in steps {
        match step {
            Step::Turn(batches) => {
                let first = writer.main.known.len();
                let text = format!("prompt {first}");
                let prompt = writer.main.prompt(tip, text);
                turns.push((tip, first));
                tip = Some(writer.turn(None, prompt, batches));
            }
            Step::Rewind { back, then } => {
                let pop = (*back as usize + 1).min(turns.len());
                let mut parent = tip;
                if pop > 0 {
                    let (before, first) = turns[turns.len() - pop];
                    turns.truncate(turns.len() - pop);
                    // Everything written since is the abandoned branch (the main log's
                    // entries; an abandoned call's agent log stays, unlinked).
                    for known in &mut writer.main.known[first..] {
                        known.abandoned = true;
                    }
                    parent = before;
                }
                let first = writer.main.known.len();
                let prompt = writer.main.prompt(parent, format!("edited prompt {first}"));
                turns.push((parent, first));
                tip = Some(writer.turn(None, prompt, then));
            }
            Step::Compaction => {
                let Some(before) = tip else { continue };
                let boundary = json!({"parentUuid": null, "logicalParentUuid":
                    writer.main.known[before].uuid.clone(), "type": "system",
                    "subtype": "compact_boundary", "content": "Conversation compacted",
                    "compactMetadata": {"trigger": "auto", "preTokens": 160000}});
                let boundary = writer.main.put(boundary, false, Vec::new());
                let summary = json!({"parentUuid": writer.main.parent(Some(boundary)),
                    "type": "user", "isCompactSummary": true,
                    "message": {"role": "user", "content": "Summary of the conversation."}});
                tip = Some(writer.main.put(summary, false, Vec::new()));
                turns.clear();
            }
        }
    }
    if tip.is_none() {
        let prompt = writer.main.prompt(None, "prompt".into());
        writer.turn(None, prompt, &[]);
    }
    let dump = |path: &Path, lines: &[Value]| {
        let mut text = String::new();
        for line in lines {
            text.push_str(&line.to_string());
            text.push('\n');
        }
        std::fs::write(path, text).unwrap();
    };
    dump(&dir.join(format!("{session}.jsonl")), &writer.main.lines);
    if !writer.agents.is_empty() {
        let agents = dir.join(session).join("subagents");
        std::fs::create_dir_all(&agents).unwrap();
        for log in &writer.agents {
            let id = log.agent.as_deref().unwrap();
            dump(&agents.join(format!("agent-{id}.jsonl")), &log.lines);
        }
    }
    writer
}

/// A run's calls and results in order, and its off-chain entries: uuid -> reason.
fn tools_and_kept_out(run: &ImportedRun) -> (Vec<String>, Vec<String>, HashMap<String, String>) {
    let mut calls = Vec::new();
    let mut results = Vec::new();
    let mut kept = HashMap::new();
    for event in &run.events {
        match (&event.event_type, &event.payload) {
            (EventType::ToolCall, Payload::Tool(tool)) => calls.push(tool.call_id.clone()),
            (EventType::ToolResult, Payload::Tool(tool)) => {
                assert!(
                    calls.contains(&tool.call_id),
                    "{}: result {} before or without its call",
                    run.run_id,
                    tool.call_id
                );
                results.push(tool.call_id.clone());
            }
            (EventType::RunCompleted, Payload::Step(step)) => {
                for p in step.result["passthrough"].as_array().into_iter().flatten() {
                    if p["kind"] == "axt-import/off-chain" {
                        let uuid = p["raw"]["entry"]["uuid"].as_str().unwrap().to_owned();
                        let reason = p["raw"]["reason"].as_str().unwrap().to_owned();
                        assert!(kept.insert(uuid, reason).is_none());
                    }
                }
            }
            _ => {}
        }
    }
    (calls, results, kept)
}

/// Checks what the importer made of a session against what the generator wrote.
fn check(writer: &Writer, session: &Session) -> Result<(), TestCaseError> {
    prop_assert!(session.diagnostics.is_empty(), "{:#?}", session.diagnostics);
    let abandoned_agents: HashSet<&str> = writer
        .main
        .known
        .iter()
        .filter(|k| k.abandoned)
        .filter_map(|k| k.spawned.as_deref())
        .collect();
    for note in &session.notes {
        match note.kind {
            NoteKind::KeptOut | NoteKind::Compaction => {}
            // An agent whose call a rewind abandoned has no call in the thread to link to.
            NoteKind::UnlinkedSubagent => prop_assert!(
                abandoned_agents.iter().any(|a| note.message.contains(a)),
                "{note}"
            ),
            _ => prop_assert!(false, "unexpected note {note}"),
        }
    }
    let unlinked = session
        .notes
        .iter()
        .filter(|n| n.kind == NoteKind::UnlinkedSubagent)
        .count();
    prop_assert_eq!(unlinked, abandoned_agents.len());
    prop_assert_eq!(session.runs.len(), 1 + writer.agents.len());
    let logs = std::iter::once(&writer.main).chain(&writer.agents);
    let mut kept_out = HashMap::<&str, u64>::new();
    for log in logs {
        let run_id = match &log.agent {
            None => log.session.clone(),
            Some(agent) => format!("{}.agent-{agent}", log.session),
        };
        let run = session
            .runs
            .iter()
            .find(|r| r.run_id == run_id)
            .ok_or_else(|| TestCaseError::fail(format!("no run {run_id}")))?;
        let (calls, results, kept) = tools_and_kept_out(run);
        // Every call logged on the live path is in the run once, with its result once;
        // none of an abandoned branch is.
        let live: Vec<&String> = log
            .known
            .iter()
            .filter(|k| !k.abandoned)
            .flat_map(|k| &k.calls)
            .collect();
        prop_assert_eq!(
            calls.iter().collect::<Vec<_>>(),
            live.clone(),
            "{}: calls",
            run_id
        );
        let mut answered = results.clone();
        answered.sort();
        let mut expected: Vec<String> = live.iter().map(|c| c.to_string()).collect();
        expected.sort();
        prop_assert_eq!(answered, expected, "{}: results", run_id);
        // Every entry kept out is kept out for the right reason: the abandoned ones as
        // `rewound`, hooks and progress off the chain as `side-branch`; no message of the
        // live path is kept out, and no abandoned entry is in the run.
        for known in &log.known {
            let reason = kept.get(&known.uuid).map(String::as_str);
            let right = match (known.abandoned, known.message) {
                (true, _) => reason == Some("rewound"),
                (false, true) => reason.is_none(),
                (false, false) => matches!(reason, None | Some("side-branch")),
            };
            prop_assert!(
                right,
                "{}: entry {} ({known:?}) kept out as {reason:?}",
                run_id,
                known.uuid
            );
            if let Some(reason) = reason {
                *kept_out
                    .entry(if reason == "rewound" {
                        "rewound"
                    } else {
                        "side-branch"
                    })
                    .or_default() += 1;
            }
        }
        let import = import_meta(run);
        prop_assert_eq!(
            import["thread"].as_u64().unwrap() + import["off_chain"].as_u64().unwrap(),
            import["entries"].as_u64().unwrap()
        );
        // Each live agent is linked under the call that spawned it.
        for known in log.known.iter().filter(|k| !k.abandoned) {
            if let Some(agent) = &known.spawned {
                let child = format!("{}.agent-{agent}", log.session);
                let path = format!("agent.{}", known.calls[0]);
                let linked = run.events.iter().any(|e| {
                    e.event_type == EventType::CallWorkflowStarted
                        && e.child_run_id.as_deref() == Some(child.as_str())
                        && e.path == path
                });
                prop_assert!(linked, "{child} is not linked under {path}");
            }
        }
    }
    let total: HashMap<&str, u64> = session.kept_out.iter().map(|(r, n)| (*r, *n)).collect();
    prop_assert_eq!(total, kept_out);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Every tool_use a generated session logged is in its run or kept out as a rewind,
    /// every tool_result is with its call, every kept-out entry has the right reason.
    #[test]
    fn every_call_is_in_its_run_or_kept_out_as_a_rewind(steps in steps()) {
        let dir = TempDir::new("import-graphs");
        let writer = write(dir.path(), &steps);
        let sessions = discover(dir.path()).unwrap();
        prop_assert_eq!(sessions.len(), 1);
        let session = convert(&sessions[0]).unwrap();
        check(&writer, &session)?;
    }
}
