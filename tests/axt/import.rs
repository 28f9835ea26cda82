//! Importing Claude Code session logs, one session at a time: exact runs, threads, notes and
//! what was kept out, for the cases that matter most, and the `axt import` command's report.
//! The whole corpus is `golden_import.rs`'s.

use std::path::PathBuf;

use axt::import::claude_code::{
    ImportedRun, NoteKind, Session, SessionFiles, convert, discover, import_session,
};
use axt::model::{EventType, Payload};

use crate::golden_import::{import_meta, sessions, stem};
use crate::support::{Outcome, TempDir, import_corpus};

/// The session of the corpus whose log is `<outcome>/<name>.jsonl`.
fn session(outcome: Outcome, name: &str) -> Session {
    let files = sessions(outcome)
        .into_iter()
        .find(|files| stem(files, outcome) == name)
        .unwrap_or_else(|| panic!("no session {outcome}/{name} in the corpus"));
    convert(&files).unwrap()
}

/// A run's tool events, in order: `call <id>` / `result <id>`.
fn tool_events(run: &ImportedRun) -> Vec<String> {
    run.events
        .iter()
        .filter_map(|event| match (&event.event_type, &event.payload) {
            (EventType::ToolCall, Payload::Tool(tool)) => Some(format!("call {}", tool.call_id)),
            (EventType::ToolResult, Payload::Tool(tool)) => {
                Some(format!("result {}", tool.call_id))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn parallel_calls_and_their_results_all_stay_in_the_thread_in_file_order() {
    let session = session(Outcome::Ok, "parallel-calls-results-off-their-own-calls");
    assert_eq!(session.runs.len(), 1);
    let run = &session.runs[0];
    assert_eq!(
        tool_events(run),
        [
            "call toolu_01ReadPaAA",
            "call toolu_01GrepPaBB",
            "call toolu_01BashPaCC",
            "result toolu_01ReadPaAA",
            "result toolu_01BashPaCC",
            "result toolu_01GrepPaBB",
        ]
    );
    let import = import_meta(run);
    assert_eq!(import["off_chain"], 0);
    assert_eq!(import["kept_out"], serde_json::json!({}));
    assert_eq!(
        import["rejoined"],
        serde_json::json!({"parallel-call": 1, "parallel-result": 2})
    );
    assert!(import.get("off_chain_usage").is_none());
    assert_eq!(session.notes, []);
    assert_eq!(session.diagnostics, []);
}

/// The kept-out entries of a run's metadata: `(line, reason)`.
fn off_chain(run: &ImportedRun) -> Vec<(u64, String)> {
    let completed = run.events.last().unwrap();
    let Payload::Step(step) = &completed.payload else {
        panic!("run.completed has a step payload")
    };
    step.result["passthrough"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| p["kind"] == "axt-import/off-chain")
        .map(|p| {
            (
                p["line"].as_u64().unwrap(),
                p["raw"]["reason"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// Claude Code 2.1.38+: a parallel call hung off the call before's hook progress entry, or
/// off a sibling call's result, is part of its message, wherever the conversation goes on
/// from; the user's real rewind later in the file is still kept out as `rewound`.
#[test]
fn parallel_calls_hung_off_hook_progress_or_a_sibling_result_stay_in_the_thread() {
    let session = session(
        Outcome::Ok,
        "parallel-calls-hung-off-hook-progress-and-sibling-results",
    );
    let run = &session.runs[0];
    assert_eq!(
        tool_events(run),
        [
            "call toolu_01ReadHpAA",
            "call toolu_01BashHpBB",
            "result toolu_01ReadHpAA",
            "call toolu_01GrepHpCC",
            "result toolu_01GrepHpCC",
            "result toolu_01BashHpBB",
            "call toolu_01EditHpEE",
            "result toolu_01EditHpEE",
        ]
    );
    let import = import_meta(run);
    assert_eq!(
        import["rejoined"],
        serde_json::json!({"parallel-call": 2, "parallel-result": 2})
    );
    assert_eq!(
        import["kept_out"],
        serde_json::json!({"rewound": 4, "side-branch": 7})
    );
    // The edited prompt's branch (lines 17-20: prompt, call, result, reply) is the rewind;
    // every hook and bash progress entry is a side branch.
    let off = off_chain(run);
    let rewound: Vec<u64> = off
        .iter()
        .filter(|(_, r)| r == "rewound")
        .map(|(l, _)| *l)
        .collect();
    assert_eq!(rewound, [17, 18, 19, 20]);
    let side: Vec<u64> = off
        .iter()
        .filter(|(_, r)| r == "side-branch")
        .map(|(l, _)| *l)
        .collect();
    assert_eq!(side, [4, 6, 10, 11, 13, 15, 23]);
    assert_eq!(session.diagnostics, []);
    let kept: Vec<&str> = session.notes.iter().map(|n| n.message.as_str()).collect();
    assert_eq!(
        kept,
        [
            "11 entries kept out of the thread, as off-chain metadata: rewound 4 (4 messages: 1 tool call, 1 tool result), side-branch 7"
        ]
    );
}

/// The same shapes in a background agent's launch (its second call hung off the first
/// agent's `agent_progress`) and in the agents' own logs: every call is in its run, and each
/// agent is linked to the call that launched it.
#[test]
fn background_agents_and_their_logs_keep_every_parallel_call() {
    let id = "ee8216ea-10f7-54d7-833f-f5a8ac255cef";
    let session = session(
        Outcome::Ok,
        &format!("background-agents-parallel-calls-off-agent-progress__{id}"),
    );
    let calls: Vec<(String, Vec<String>)> = session
        .runs
        .iter()
        .map(|run| (run.run_id.clone(), tool_events(run)))
        .collect();
    let login = format!("{id}.agent-a4f1c2d9e8b7a6c5d");
    let signup = format!("{id}.agent-a9e8d7c6b5a4f3e2d");
    let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        calls,
        [
            (
                id.to_owned(),
                strings(&[
                    "call toolu_01AgentBgAA",
                    "call toolu_01AgentBgBB",
                    "result toolu_01AgentBgAA",
                    "result toolu_01AgentBgBB",
                ])
            ),
            (
                login.clone(),
                strings(&[
                    "call toolu_01ReadBlAA",
                    "call toolu_01BashBlBB",
                    "result toolu_01ReadBlAA",
                    "result toolu_01BashBlBB",
                ])
            ),
            (
                signup.clone(),
                strings(&[
                    "call toolu_01ReadBsAA",
                    "result toolu_01ReadBsAA",
                    "call toolu_01BashBsBB",
                    "result toolu_01BashBsBB",
                ])
            ),
        ]
    );
    let spawned: Vec<(&str, &str)> = session.runs[0]
        .events
        .iter()
        .filter(|e| e.event_type == EventType::CallWorkflowStarted)
        .map(|e| (e.path.as_str(), e.child_run_id.as_deref().unwrap()))
        .collect();
    assert_eq!(
        spawned,
        [
            ("agent.toolu_01AgentBgAA", login.as_str()),
            ("agent.toolu_01AgentBgBB", signup.as_str()),
        ]
    );
    assert!(session.notes.iter().all(|n| n.kind == NoteKind::KeptOut));
    assert_eq!(session.kept_out, [("side-branch", 4)].into_iter().collect());
}

/// A skill's body (`isMeta`, `sourceToolUseID`) hung off its call's result off the chain is
/// part of that result; after a compaction a call hung off a hook attachment is still its
/// message's.
#[test]
fn a_skill_body_and_calls_hung_off_hook_attachments_stay_in_the_thread() {
    let session = session(
        Outcome::Ok,
        "parallel-calls-hung-off-hook-attachments-skill-body-compaction",
    );
    let run = &session.runs[0];
    assert_eq!(
        tool_events(run),
        [
            "call toolu_01SkillHaAA",
            "call toolu_01BashHaBB",
            "result toolu_01SkillHaAA",
            "result toolu_01BashHaBB",
            "call toolu_01EditHaCC",
            "call toolu_01BashHaDD",
            "result toolu_01EditHaCC",
            "result toolu_01BashHaDD",
        ]
    );
    let skill_body = run.events.iter().any(|e| {
        e.event_type == EventType::MessageUser
            && serde_json::to_string(&e.payload)
                .unwrap()
                .contains("Base directory for this skill")
    });
    assert!(skill_body, "the skill's body is a message of the thread");
    let import = import_meta(run);
    assert_eq!(
        import["rejoined"],
        serde_json::json!({"parallel-call": 1, "parallel-result": 3})
    );
    assert_eq!(import["kept_out"], serde_json::json!({"side-branch": 2}));
    assert_eq!(import["compactions"], 1);
    assert_eq!(
        off_chain(run),
        [
            (14, "side-branch".to_owned()),
            (18, "side-branch".to_owned())
        ]
    );
}

#[test]
fn a_compaction_whose_logical_parent_is_not_in_the_file_keeps_the_history_before_it() {
    let id = "6294ba3c-2804-5866-afc5-6039c8a18395";
    let session = session(
        Outcome::Err,
        &format!("compaction-logical-parent-outside-file__{id}"),
    );
    let root = &session.runs[0];
    assert_eq!(
        tool_events(root),
        [
            "call toolu_01AgentLpA",
            "result toolu_01AgentLpA",
            "call toolu_01BashLpBB",
            "result toolu_01BashLpBB",
            "call toolu_01EditLpCC",
            "result toolu_01EditLpCC",
            "call toolu_01BashLpEE",
            "result toolu_01BashLpEE",
        ]
    );
    // The Agent call is in the thread, so its sub-agent links to it.
    let child = format!("{id}.agent-f1e2d3c4");
    let spawn: Vec<(&EventType, &str)> = root
        .events
        .iter()
        .filter(|e| e.child_run_id.as_deref() == Some(child.as_str()))
        .map(|e| (&e.event_type, e.path.as_str()))
        .collect();
    assert_eq!(
        spawn,
        [
            (&EventType::CallWorkflowStarted, "agent.toolu_01AgentLpA"),
            (&EventType::CallWorkflowCompleted, "agent.toolu_01AgentLpA"),
        ]
    );
    assert_eq!(session.runs[1].run_id, child);
    assert_eq!(session.runs[1].parent_run_id.as_deref(), Some(id));
    let import = import_meta(root);
    assert_eq!(import["off_chain"], 0);
    assert_eq!(import["kept_out"], serde_json::json!({}));
    // u1, a1, r1, a2, r2, a3, r3, a4: the thread before the boundary, placed by file order.
    assert_eq!(import["rejoined"], serde_json::json!({"file-order": 8}));
    let notes: Vec<String> = session
        .notes
        .iter()
        .map(|n| format!("{}: {}: {}", n.line, n.kind, n.message))
        .collect();
    assert_eq!(
        notes,
        [
            "9: compaction-fallback: logicalParentUuid a860ea13-af07-53f1-af61-ac2a744d1978 is not in the file; the thread goes on in file order, from line 8",
            "9: compaction: compact boundary: what came before the compaction stays in the run",
        ]
    );
    assert!(session.notes[0].is_warning());
    assert_eq!(session.diagnostics, []);
}

#[test]
fn entries_kept_out_of_the_thread_are_counted_by_reason_and_reported() {
    let session = session(Outcome::Ok, "rewind-and-hook-fork");
    let import = import_meta(&session.runs[0]);
    // The abandoned answer and its reply; the hook message forking off the prompt.
    assert_eq!(
        import["kept_out"],
        serde_json::json!({"rewound": 2, "side-branch": 1})
    );
    assert_eq!(import["off_chain"], 3);
    assert_eq!(import["thread"], 10);
    assert_eq!(import["entries"], 13);
    assert_eq!(
        session.kept_out,
        [("rewound", 2), ("side-branch", 1)].into_iter().collect()
    );
    let kept: Vec<String> = session
        .notes
        .iter()
        .filter(|n| n.kind == NoteKind::KeptOut)
        .map(|n| format!("{}: {}", n.line, n.message))
        .collect();
    assert_eq!(
        kept,
        [
            "6: 3 entries kept out of the thread, as off-chain metadata: rewound 2 (2 messages), side-branch 1"
        ]
    );
    // Each kept-out entry is in the run's metadata, whole, with its reason.
    let completed = session.runs[0].events.last().unwrap();
    let Payload::Step(step) = &completed.payload else {
        panic!("run.completed has a step payload")
    };
    let off: Vec<(u64, &str)> = step.result["passthrough"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["kind"] == "axt-import/off-chain")
        .map(|p| {
            (
                p["line"].as_u64().unwrap(),
                p["raw"]["reason"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(off, [(6, "rewound"), (7, "rewound"), (9, "side-branch")]);
}

#[test]
fn the_cli_prints_what_it_kept_out_of_each_thread() {
    let out = TempDir::new("cli-kept-out");
    let output = crate::cli::axt(
        &[
            "import",
            "claude-code",
            "corpus/import/claude-code/ok/rewind-and-hook-fork.jsonl",
            "--out",
            out.path().to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(output.status.code(), Some(0));
    let stderr = crate::cli::text(&output.stderr).replace(out.path().to_str().unwrap(), "OUT");
    insta::assert_snapshot!(stderr, @"
    corpus/import/claude-code/ok/rewind-and-hook-fork.jsonl:6: byte 3110: kept-out: warning: 3 entries kept out of the thread, as off-chain metadata: rewound 2 (2 messages), side-branch 1
    axt: 1 session, 1 run, 16 events written to OUT; 0 failed, 0 entry errors; notes: kept-out 1; entries kept out of the threads: rewound 2, side-branch 1
    ");
}

#[test]
fn seed_layout_sessions_with_the_same_agent_file_names_get_their_own_linked_runs() {
    let one = "29c2e1f8-6f9b-5c74-abbc-87ea549dd2c6";
    let two = "3dce523c-e6ff-56b6-bc4a-1545c32bb556";
    let layout = import_corpus().join("ok/seed-transcripts-layout");
    let found = discover(&layout).unwrap();
    let agents = |session: &str| -> Vec<PathBuf> {
        ["agent-a.jsonl", "agent-b.jsonl"]
            .iter()
            .map(|f| layout.join(session).join("transcripts").join(f))
            .collect()
    };
    assert_eq!(
        found,
        [
            SessionFiles {
                main: None,
                subagents: agents(one)
            },
            SessionFiles {
                main: None,
                subagents: agents(two)
            },
        ]
    );
    // Both into one directory: no run id collides, and again with --replace the same files.
    let out = TempDir::new("seed-layout");
    let runs = |replace: bool| -> Vec<(String, Option<String>)> {
        found
            .iter()
            .flat_map(|files| import_session(files, out.path(), replace).unwrap().runs)
            .map(|run| {
                assert_eq!(run.path, out.path().join(format!("{}.jsonl", run.run_id)));
                (run.run_id, run.parent_run_id)
            })
            .collect()
    };
    let expected = [
        (format!("{one}.agent-a"), None),
        (format!("{one}.agent-b"), Some(format!("{one}.agent-a"))),
        (format!("{two}.agent-b"), None),
        (format!("{two}.agent-a"), Some(format!("{two}.agent-b"))),
    ];
    assert_eq!(runs(false), expected);
    assert_eq!(runs(true), expected);
    let mut names: Vec<String> = std::fs::read_dir(out.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names.len(), 4);
    // Each sub-agent hangs under the Task call that sent its prompt.
    let session = convert(&found[1]).unwrap();
    assert_eq!(session.session_id, two);
    let spawn: Vec<(&EventType, &str, Option<&str>)> = session.runs[0]
        .events
        .iter()
        .filter(|e| e.child_run_id.is_some())
        .map(|e| (&e.event_type, e.path.as_str(), e.child_run_id.as_deref()))
        .collect();
    let child = format!("{two}.agent-a");
    assert_eq!(
        spawn,
        [
            (
                &EventType::CallWorkflowStarted,
                "agent.toolu_01SdTwoBBBB",
                Some(child.as_str())
            ),
            (
                &EventType::CallWorkflowCompleted,
                "agent.toolu_01SdTwoBBBB",
                Some(child.as_str())
            ),
        ]
    );
    assert!(
        session
            .notes
            .iter()
            .all(|n| n.kind == NoteKind::SimplifiedFormat)
    );
}

#[test]
fn the_cli_imports_the_seed_layout_of_two_sessions_into_one_directory() {
    let out = TempDir::new("cli-seed-layout");
    let output = crate::cli::axt(
        &[
            "import",
            "claude-code",
            "corpus/import/claude-code/ok/seed-transcripts-layout",
            "--out",
            out.path().to_str().unwrap(),
        ],
        b"",
    );
    let stderr = crate::cli::text(&output.stderr).replace(out.path().to_str().unwrap(), "OUT");
    insta::assert_snapshot!(stderr, @"axt: 2 sessions, 4 runs, 44 events written to OUT; 0 failed, 0 entry errors; notes: simplified-format 4");
    assert_eq!(output.status.code(), Some(0));
}

#[test]
fn the_cli_refuses_an_empty_file_stream_json_and_an_empty_directory_with_exit_1() {
    let out = TempDir::new("cli-refused");
    let dir = out.path().to_str().unwrap();
    let run = |path: &str| {
        let output = crate::cli::axt(&["import", "claude-code", path, "--out", dir], b"");
        let stderr = crate::cli::text(&output.stderr).replace(dir, "OUT");
        (output.status.code(), stderr)
    };
    let (code, stderr) = run("corpus/import/claude-code/err/empty-session-log.jsonl");
    assert_eq!(code, Some(1));
    insta::assert_snapshot!(stderr, @"
    corpus/import/claude-code/err/empty-session-log.jsonl:1: byte 0: not-a-session-log: the file is empty
    axt: 1 session, 0 runs, 0 events written to OUT; 1 failed, 0 entry errors
    ");
    let (code, stderr) = run("corpus/import/claude-code/err/stream-json-not-a-session-log.jsonl");
    assert_eq!(code, Some(1));
    insta::assert_snapshot!(stderr, @"
    corpus/import/claude-code/err/stream-json-not-a-session-log.jsonl:1: byte 0: not-a-session-log: this is stream-json output (`claude -p --output-format stream-json`: `session_id`, no `sessionId` or `parentUuid`); read it with `axt normalize --provider claude`
    axt: 1 session, 0 runs, 0 events written to OUT; 1 failed, 0 entry errors
    ");
    assert_eq!(
        std::fs::read_dir(out.path()).unwrap().count(),
        0,
        "nothing written"
    );
    let empty = TempDir::new("cli-empty-dir");
    let (code, stderr) = run(empty.path().to_str().unwrap());
    assert_eq!(code, Some(1));
    assert_eq!(
        stderr,
        format!(
            "axt: {}: no Claude Code session there; nothing imported\n",
            empty.path().display()
        )
    );
}

/// `~/.claude` holds `history.jsonl` (every prompt typed) beside `projects/`: importing
/// `~/.claude` skips it by name with a note, instead of counting it as a failed session
/// (issue 24); alone, it is no session, and nothing is imported.
#[test]
fn claude_code_s_prompt_history_is_skipped_by_name_with_a_note() {
    let home = TempDir::new("claude-home");
    let project = home.path().join("projects/-home-dev-shop");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::copy(
        import_corpus().join("ok/rewind-and-hook-fork.jsonl"),
        project.join("rewind-and-hook-fork.jsonl"),
    )
    .unwrap();
    let history = home.path().join("history.jsonl");
    std::fs::write(
        &history,
        "{\"display\":\"fix the login\",\"pastedContents\":{},\"timestamp\":1760000000000,\"project\":\"/home/dev/shop\"}\n",
    )
    .unwrap();
    let out = TempDir::new("claude-home-out");
    let import = |path: &std::path::Path| {
        crate::cli::axt(
            &[
                "import",
                "claude-code",
                path.to_str().unwrap(),
                "--out",
                out.path().to_str().unwrap(),
                "--replace",
            ],
            b"",
        )
    };
    let output = import(home.path());
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        crate::cli::text(&output.stderr)
    );
    let stderr = crate::cli::text(&output.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(
        lines[0],
        format!(
            "axt: {}: skipped: Claude Code's prompt history (every prompt typed, across \
             sessions), not a session log",
            history.display()
        )
    );
    assert!(
        lines.last().unwrap().starts_with(&format!(
            "axt: 1 session, 1 run, 16 events written to {}; 0 failed,",
            out.path().display()
        )),
        "{stderr}"
    );
    assert!(
        lines
            .last()
            .unwrap()
            .ends_with("; 1 file skipped (no session log)"),
        "{stderr}"
    );
    let alone = import(&history);
    assert_eq!(alone.status.code(), Some(1));
    let stderr = crate::cli::text(&alone.stderr);
    assert_eq!(
        stderr.lines().last().unwrap(),
        format!(
            "axt: {}: no Claude Code session there (1 file skipped, above); nothing imported",
            history.display()
        )
    );
}

#[test]
fn files_that_are_no_session_log_are_refused_with_the_line_that_shows_it() {
    let dir = TempDir::new("not-a-session");
    let refusal = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let files = SessionFiles {
            main: Some(path.clone()),
            subagents: Vec::new(),
        };
        let error = convert(&files).unwrap_err().to_string();
        error.replace(&format!("{}/", dir.path().display()), "")
    };
    assert_eq!(
        refusal("blank.jsonl", "\n  \r\n\n"),
        "blank.jsonl:0: byte 0: not a Claude Code session log: the file has only blank lines"
    );
    // An axt transcript is JSON Lines too, but none of its records is a session-log entry.
    assert_eq!(
        refusal(
            "transcript.jsonl",
            "\n{\"seq\":1,\"run_id\":\"r\",\"type\":\"run.started\",\"path\":\"\",\"iteration\":0,\"timestamp\":\"2026-06-08T08:14:42Z\",\"payload\":null}\n"
        ),
        "transcript.jsonl:2: byte 1: not a Claude Code session log: no entry has the fields of a session-log entry (`sessionId`, `uuid`, `parentUuid`)"
    );
    // One sub-agent log that is no session log costs only itself: a warning names it, and
    // the session log is imported as it is alone.
    let main = import_corpus().join("ok/parallel-calls-results-off-their-own-calls.jsonl");
    let alone = convert(&SessionFiles {
        main: Some(main.clone()),
        subagents: Vec::new(),
    })
    .unwrap();
    let with_blank = convert(&SessionFiles {
        main: Some(main),
        subagents: vec![dir.path().join("blank.jsonl")],
    })
    .unwrap();
    let events = |session: &Session| -> Vec<Vec<String>> {
        (session.runs.iter())
            .map(|run| {
                run.events
                    .iter()
                    .map(|e| e.event_type.as_str().to_owned())
                    .collect()
            })
            .collect()
    };
    assert_eq!(events(&with_blank), events(&alone));
    let notes: Vec<String> = (with_blank.notes.iter())
        .filter(|n| n.kind == NoteKind::NotAnAgentLog)
        .map(|n| {
            format!(
                "{}:{}: {}",
                n.file.file_name().unwrap().to_str().unwrap(),
                n.line,
                n.message
            )
        })
        .collect();
    assert_eq!(
        notes,
        [
            "blank.jsonl:0: not a Claude Code session log: the file has only blank lines; not imported"
        ]
    );
    // A session of agent logs only, none of them a session log, is refused.
    let files = SessionFiles {
        main: None,
        subagents: vec![dir.path().join("blank.jsonl")],
    };
    assert!(matches!(
        convert(&files),
        Err(axt::import::claude_code::ImportError::NotASession { line: 0, .. })
    ));
}

#[test]
fn a_sidechain_with_agent_id_on_its_user_entries_only_is_one_linked_run() {
    let session = session(Outcome::Ok, "sidechain-agent-id-on-user-entries-only");
    let runs: Vec<(&str, Option<&str>)> = session
        .runs
        .iter()
        .map(|r| (r.run_id.as_str(), r.parent_run_id.as_deref()))
        .collect();
    let root = session.session_id.as_str();
    let child = format!("{root}.agent-c3d4e5f6");
    assert_eq!(runs, [(root, None), (child.as_str(), Some(root))]);
    assert_eq!(
        tool_events(&session.runs[0]),
        ["call toolu_01TaskAiAA", "result toolu_01TaskAiAA"]
    );
    assert_eq!(
        tool_events(&session.runs[1]),
        [
            "call toolu_01GrepAiBB",
            "result toolu_01GrepAiBB",
            "call toolu_01ReadAiCC",
            "result toolu_01ReadAiCC",
        ]
    );
    assert!(
        session.runs[0]
            .events
            .iter()
            .any(|e| e.event_type == EventType::CallWorkflowStarted
                && e.path == "agent.toolu_01TaskAiAA"
                && e.child_run_id.as_deref() == Some(child.as_str()))
    );
    assert_eq!(import_meta(&session.runs[1])["thread"], 7);
    assert_eq!(session.notes, []);
    assert_eq!(session.diagnostics, []);
}

/// A dynamic workflow's journal is a run of its own under the `Workflow` call that launched
/// it, and the agent log beside it that run's child (before, the journal was noted
/// `not-an-agent-log` and the agent linked to the session's end); without its snapshot the
/// workflow is unfinished.
#[test]
fn a_workflow_journal_is_a_run_under_its_call_and_its_agents_are_its_children() {
    let id = "eda2d9ad-f6fa-5306-9bae-3869e22a7fd6";
    let session = session(
        Outcome::Err,
        &format!("workflow-agent-log-nested-in-subagents__{id}"),
    );
    let child = format!("{id}.agent-wf01ag01");
    let workflow = format!("{id}.workflow-wf_01");
    let runs: Vec<(&str, Option<&str>)> = session
        .runs
        .iter()
        .map(|r| (r.run_id.as_str(), r.parent_run_id.as_deref()))
        .collect();
    assert_eq!(
        runs,
        [
            (id, None),
            (child.as_str(), Some(workflow.as_str())),
            (workflow.as_str(), Some(id))
        ]
    );
    assert_eq!(
        tool_events(&session.runs[1]),
        ["call toolu_01GlobWfCC", "result toolu_01GlobWfCC"]
    );
    assert_eq!(
        tool_events(&session.runs[2]),
        ["call wf01ag01", "result wf01ag01"]
    );
    assert!(
        session.runs[0]
            .events
            .iter()
            .any(|e| e.event_type == EventType::CallWorkflowStarted
                && e.path == "agent.toolu_01WorkflowA"
                && e.child_run_id.as_deref() == Some(workflow.as_str()))
    );
    assert!(
        session.runs[2]
            .events
            .iter()
            .any(|e| e.event_type == EventType::CallWorkflowStarted
                && e.path == "agent.wf01ag01"
                && e.child_run_id.as_deref() == Some(child.as_str()))
    );
    let notes: Vec<(&str, String)> = session
        .notes
        .iter()
        .map(|n| {
            let file = n.file.file_name().unwrap().to_str().unwrap();
            (n.kind.as_str(), format!("{file}:{}: {}", n.line, n.message))
        })
        .collect();
    assert_eq!(
        notes,
        [(
            "unfinished-workflow",
            "journal.jsonl:0: workflow \"wf_01\" has no snapshot workflows/wf_01.json: still running, or ended unrecorded; its run is incomplete".to_owned()
        )]
    );
    assert!(session.notes.iter().all(|n| n.is_warning()));
}

/// Found by the `import_claude_code` fuzz target (fuzz/regressions/import_claude_code/): two
/// sidechains rooted at one duplicated uuid were two runs under one id, written into one
/// file, the second appended after the first's `run.completed`. Each run now has its own.
#[test]
fn two_sidechains_rooted_at_a_duplicated_uuid_are_two_runs_with_files_of_their_own() {
    let dir = TempDir::new("duplicate-sidechain-root");
    let log = dir.path().join("s.jsonl");
    std::fs::write(
        &log,
        concat!(
            r#"{"isSidechain":true,"sessionId":"c","uuid":"3bda058b"}"#,
            "\n",
            r#"{"isSidechain":true,"uuid":"3bda058b"}"#,
            "\n"
        ),
    )
    .unwrap();
    let files = SessionFiles {
        main: Some(log),
        subagents: Vec::new(),
    };
    let session = convert(&files).unwrap();
    let run_ids: Vec<&str> = session.runs.iter().map(|r| r.run_id.as_str()).collect();
    assert_eq!(
        run_ids,
        ["c", "c.sidechain-3bda058b", "c.sidechain-3bda058b.2"]
    );
    assert!(
        session
            .notes
            .iter()
            .any(|n| n.kind == NoteKind::DuplicateUuid)
    );
    let out = TempDir::new("duplicate-sidechain-root-out");
    let imported = import_session(&files, out.path(), false).unwrap();
    assert_eq!(imported.runs.len(), 3);
    for run in &imported.runs {
        let tree = axt::read::tree::build(&run.path);
        assert!(
            tree.problems.is_empty(),
            "{}: {:#?}",
            run.run_id,
            tree.problems
        );
    }
}

/// Found by the `import_claude_code` fuzz target (fuzz/regressions/import_claude_code/): a
/// `sessionId` over the recorder's 200 bytes converted, then failed to write
/// (`InvalidRunId`); one of only unsafe characters named no file. Both import now.
#[test]
fn a_session_id_too_long_or_empty_for_a_file_name_still_imports() {
    let dir = TempDir::new("unusable-session-id");
    let import = |name: &str, session_id: &str| {
        let log = dir.path().join(format!("{name}.jsonl"));
        let entry = format!(
            r#"{{"type":"user","sessionId":"{session_id}","uuid":"u1","message":{{"role":"user","content":"hi"}}}}"#
        );
        std::fs::write(&log, format!("{entry}\n")).unwrap();
        let files = SessionFiles {
            main: Some(log),
            subagents: Vec::new(),
        };
        let out = TempDir::new(&format!("unusable-session-id-{name}"));
        let imported = import_session(&files, out.path(), false).unwrap();
        assert_eq!(imported.runs.len(), 1);
        let again = import_session(&files, out.path(), true).unwrap();
        assert_eq!(again.runs[0].run_id, imported.runs[0].run_id, "stable");
        imported.runs[0].run_id.clone()
    };
    let long = import("long", &"ab".repeat(150));
    assert_eq!(long.len(), 180);
    assert!(long.starts_with(&"ab".repeat(81)), "{long}");
    assert_ne!(long, import("long-too", &format!("{}x", "ab".repeat(150))));
    assert_eq!(import("dots", ".."), "dots");
}

/// An entry written twice (the same message and content, or a second result for a call the
/// thread has answered) hung off the chain is a `duplicate`: kept out, never counted as a
/// rewind, and the call is in the run once.
#[test]
fn an_entry_written_twice_off_the_chain_is_a_duplicate_not_a_rewind() {
    let dir = TempDir::new("duplicate-entries");
    let log = dir.path().join("d.jsonl");
    let call = r#""message":{"id":"msg_1","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]}"#;
    let result = r#""message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a.txt"}]}"#;
    let lines = [
        r#"{"parentUuid":null,"sessionId":"d","type":"user","uuid":"u1","message":{"role":"user","content":"list"}}"#.to_owned(),
        format!(r#"{{"parentUuid":"u1","sessionId":"d","type":"assistant","uuid":"a1",{call}}}"#),
        r#"{"parentUuid":"a1","sessionId":"d","type":"progress","uuid":"p1","data":{"type":"hook_progress"}}"#.to_owned(),
        // The call's entry again, hung off its hook's progress, and its result again.
        format!(r#"{{"parentUuid":"p1","sessionId":"d","type":"assistant","uuid":"a1b",{call}}}"#),
        format!(r#"{{"parentUuid":"a1","sessionId":"d","type":"user","uuid":"r1",{result}}}"#),
        format!(r#"{{"parentUuid":"a1b","sessionId":"d","type":"user","uuid":"r1b",{result}}}"#),
        r#"{"parentUuid":"r1","sessionId":"d","type":"assistant","uuid":"a2","message":{"id":"msg_2","role":"assistant","content":[{"type":"text","text":"One file."}]}}"#.to_owned(),
    ];
    std::fs::write(&log, lines.join("\n") + "\n").unwrap();
    let files = SessionFiles {
        main: Some(log),
        subagents: Vec::new(),
    };
    let session = convert(&files).unwrap();
    let run = &session.runs[0];
    assert_eq!(tool_events(run), ["call toolu_1", "result toolu_1"]);
    assert_eq!(
        off_chain(run),
        [
            (3, "side-branch".to_owned()),
            (4, "duplicate".to_owned()),
            (6, "duplicate".to_owned()),
        ]
    );
    let notes: Vec<&str> = session.notes.iter().map(|n| n.message.as_str()).collect();
    assert_eq!(
        notes,
        [
            "3 entries kept out of the thread, as off-chain metadata: duplicate 2 (2 messages: 1 tool call, 1 tool result), side-branch 1"
        ]
    );
    assert_eq!(session.diagnostics, []);
}
