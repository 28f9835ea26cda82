//! The Claude Code session-log corpus: every session under `corpus/claude-code/{ok,err}/` is
//! imported, checked against invariants, written through the recorder and read back as a
//! tree, and compared with its snapshot in `golden/claude-code/{ok,err}/` (a session in a
//! subdirectory, `ok/nested/<id>.jsonl`, is `nested__<id>.snap`).
//!
//! Invariants first: `ok/` sessions give no error diagnostic and no warning note, `err/`
//! sessions at least one of either; every event passes the strict writer and decodes back;
//! the written tree has no problem for `ok/` sessions; every session is in the README.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use axt::import::claude_code::{
    ImportedRun, NoteKind, Session, SessionFiles, convert, discover, import_session, write,
};
use axt::model::{EventType, Payload, decode_event, encode_event};
use axt::read::tree::build;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

pub(crate) fn corpus() -> PathBuf {
    Path::new(ROOT).join("corpus").join("claude-code")
}

pub(crate) fn sessions(outcome: &str) -> Vec<SessionFiles> {
    discover(&corpus().join(outcome)).expect("the corpus is readable")
}

/// `nested-subagents/<id>.jsonl` -> `nested-subagents__<id>`; a session without a session
/// log is named by its directory: `seed-transcripts-layout/<id>/transcripts/*.jsonl` ->
/// `seed-transcripts-layout__<id>`.
pub(crate) fn stem(files: &SessionFiles, outcome: &str) -> String {
    let relative = match &files.main {
        Some(main) => main
            .strip_prefix(corpus().join(outcome))
            .unwrap()
            .with_extension(""),
        None => files.subagents[0]
            .strip_prefix(corpus().join(outcome))
            .unwrap()
            .parent()
            .and_then(Path::parent)
            .expect("agent logs are in <session>/transcripts or <session>/subagents")
            .to_owned(),
    };
    relative.to_str().unwrap().replace('/', "__")
}

/// A fresh directory under the system temp dir, removed on drop.
pub(crate) struct Scratch(pub(crate) PathBuf);

impl Scratch {
    pub(crate) fn new(name: &str) -> Scratch {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let unique = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path =
            std::env::temp_dir().join(format!("axt-cc-{name}-{}-{unique}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        Scratch(path)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn claude_code_sessions() {
    let readme = std::fs::read_to_string(corpus().join("README.md"))
        .expect("corpus/claude-code/README.md describes every session");
    let mut failures = Vec::new();
    for outcome in ["ok", "err"] {
        for files in sessions(outcome) {
            let name = stem(&files, outcome);
            let entry = name.split("__").next().unwrap();
            assert!(
                readme.contains(&format!("`{outcome}/{entry}")),
                "the README must describe {name}"
            );
            let base = corpus().join(outcome);
            let session = match convert(&files) {
                Ok(session) => session,
                Err(error) => {
                    // Refused whole (no session log at all): an err/ file, nothing written.
                    assert_eq!(outcome, "err", "{name}: {error}");
                    let scratch = Scratch::new(&name);
                    let streamed = import_session(&files, &scratch.0, false).unwrap_err();
                    assert_eq!(streamed.to_string(), error.to_string());
                    assert_eq!(std::fs::read_dir(&scratch.0).unwrap().count(), 0);
                    let error = error
                        .to_string()
                        .replace(&format!("{}/", base.display()), "");
                    let text = format!(
                        "# corpus/claude-code/{outcome}/{}\n\n## Refused\n{error}\n",
                        name.replace("__", "/")
                    );
                    if !snapshot(outcome, &name, text) {
                        failures.push(name);
                    }
                    continue;
                }
            };
            let warnings = session.notes.iter().filter(|n| n.is_warning()).count();
            match outcome {
                "ok" => assert!(
                    !session.has_errors() && warnings == 0,
                    "{name}: an ok session gives no error and no warning note: {:#?} {:#?}",
                    session.diagnostics,
                    session.notes
                ),
                _ => assert!(
                    session.has_errors() || warnings > 0,
                    "{name}: an err session gives an error or a warning note"
                ),
            }
            // Every entry of every log is in a thread or counted as kept out of one.
            let mut accounted: std::collections::BTreeMap<&Path, (u64, u64)> = Default::default();
            for run in &session.runs {
                let import = import_meta(run);
                let Some(entries) = import["entries"].as_u64() else {
                    continue; // the simplified format has no graph
                };
                let placed = import["thread"].as_u64().unwrap();
                let kept: u64 = import["kept_out"]
                    .as_object()
                    .unwrap()
                    .values()
                    .map(|n| n.as_u64().unwrap())
                    .sum();
                assert_eq!(import["off_chain"].as_u64(), Some(kept), "{name}");
                let file = accounted.entry(&run.source).or_default();
                file.0 = entries;
                file.1 += placed + kept;
            }
            for (file, (entries, placed)) in accounted {
                assert_eq!(
                    placed,
                    entries,
                    "{name}: {} has {entries} entries, {placed} in threads or kept out",
                    file.display()
                );
            }
            let mut text = format!(
                "# corpus/claude-code/{outcome}/{}\n",
                name.replace("__", "/")
            );
            for run in &session.runs {
                writeln!(
                    text,
                    "\n## Run {}{} ({})",
                    run.run_id,
                    run.parent_run_id
                        .as_deref()
                        .map(|p| format!(" <- {p}"))
                        .unwrap_or_default(),
                    run.source.strip_prefix(&base).unwrap().display()
                )
                .unwrap();
                for (seq, event) in run.events.iter().enumerate() {
                    let mut event = event.clone();
                    event.seq = seq as u64 + 1;
                    let mut line = Vec::new();
                    encode_event(&event, &mut line)
                        .unwrap_or_else(|e| panic!("{name}: event {seq} refused: {e}"));
                    decode_event(&line).unwrap();
                    text.push_str(std::str::from_utf8(&line).unwrap());
                    text.push('\n');
                }
            }
            text.push_str("\n## Notes\n");
            if session.notes.is_empty() {
                text.push_str("(none)\n");
            }
            for note in &session.notes {
                let file = note.file.strip_prefix(&base).unwrap();
                writeln!(
                    text,
                    "{}:{}: {}: {}",
                    file.display(),
                    note.line,
                    note.kind,
                    note.message
                )
                .unwrap();
            }
            text.push_str("\n## Diagnostics\n");
            if session.diagnostics.is_empty() {
                text.push_str("(none)\n");
            }
            for d in &session.diagnostics {
                let file = d.file.strip_prefix(&base).unwrap();
                writeln!(text, "{}:{}", file.display(), d.diagnostic).unwrap();
            }

            // Written through the recorder, the session reads back as one tree.
            let scratch = Scratch::new(&name);
            let written = write(&session, &scratch.0, false).unwrap();
            assert!(
                write(&session, &scratch.0, false).is_err(),
                "{name}: a second import must not continue the first"
            );
            write(&session, &scratch.0, true).unwrap();
            let tree = build(&written[0]);
            if outcome == "ok" {
                assert!(tree.problems.is_empty(), "{name}: {:#?}", tree.problems);
            }
            text.push_str("\n## Tree\n");
            outline(&tree.root, 0, &mut text);

            if !snapshot(outcome, &name, text) {
                failures.push(name);
            }
        }
    }
    assert!(failures.is_empty(), "snapshots differ for: {failures:#?}");
}

/// Compares `text` with `golden/claude-code/<outcome>/<name>.snap`; false when it differs.
fn snapshot(outcome: &str, name: &str, text: String) -> bool {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(Path::new(ROOT).join("golden/claude-code").join(outcome));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        settings.bind(|| insta::assert_snapshot!(name.to_owned(), text));
    }))
    .is_ok()
}

/// `import_session` streams each run into the recorder; it writes byte for byte what
/// writing the in-memory conversion writes, and reports the same notes and diagnostics.
#[test]
fn streamed_import_writes_what_convert_writes() {
    for outcome in ["ok", "err"] {
        for files in sessions(outcome) {
            let name = stem(&files, outcome);
            let Ok(session) = convert(&files) else {
                continue; // refused whole: claude_code_sessions checks both refuse alike
            };
            let converted = Scratch::new(&format!("{name}-converted"));
            let written = write(&session, &converted.0, false).unwrap();
            let streamed = Scratch::new(&format!("{name}-streamed"));
            import_session(&files, &streamed.0, false).unwrap();
            assert!(
                import_session(&files, &streamed.0, false).is_err(),
                "{name}"
            );
            let imported = import_session(&files, &streamed.0, true).unwrap();
            assert_eq!(imported.runs.len(), written.len(), "{name}");
            for (run, path) in imported.runs.iter().zip(&written) {
                assert_eq!(&run.path.file_name(), &path.file_name(), "{name}");
                let expected = std::fs::read(path).unwrap();
                assert_eq!(
                    std::fs::read(&run.path).unwrap(),
                    expected,
                    "{name}: {}",
                    run.run_id
                );
                assert_eq!(run.events, expected.split(|b| *b == b'\n').count() - 1);
            }
            assert_eq!(imported.notes, session.notes, "{name}");
            assert_eq!(imported.diagnostics, session.diagnostics, "{name}");
        }
    }
}

fn outline(run: &axt::read::tree::Run, depth: usize, text: &mut String) {
    use axt::read::tree::Node;
    let pad = "  ".repeat(depth);
    writeln!(
        text,
        "{pad}run {} {} {} events",
        run.run_id,
        run.status.as_str(),
        run.events
    )
    .unwrap();
    fn nodes(children: &[Node], depth: usize, text: &mut String) {
        let pad = "  ".repeat(depth);
        for node in children {
            match node {
                Node::Run(run) => outline(run, depth, text),
                Node::Step(step) => {
                    writeln!(
                        text,
                        "{pad}step {} [{}] {}",
                        step.path,
                        step.kind,
                        step.status.as_str()
                    )
                    .unwrap();
                    nodes(&step.children, depth + 1, text);
                }
                Node::Message(m) => {
                    writeln!(text, "{pad}{}: {}", m.role, m.blocks.join(", ")).unwrap()
                }
                Node::Tool(t) => writeln!(
                    text,
                    "{pad}tool {} {} {}",
                    t.name,
                    t.call_id,
                    t.outcome.as_str()
                )
                .unwrap(),
            }
        }
    }
    nodes(&run.children, depth + 1, text);
}

/// The session of the corpus whose log is `<outcome>/<name>.jsonl`.
fn session(outcome: &str, name: &str) -> Session {
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

/// The `import` metadata of a run's `run.completed`.
fn import_meta(run: &ImportedRun) -> serde_json::Value {
    let completed = run.events.last().expect("a run has events");
    assert_eq!(completed.event_type, EventType::RunCompleted);
    let Payload::Step(step) = &completed.payload else {
        panic!("run.completed has a step payload")
    };
    step.result["import"].clone()
}

#[test]
fn parallel_calls_and_their_results_all_stay_in_the_thread_in_file_order() {
    let session = session("ok", "parallel-calls-results-off-their-own-calls");
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

#[test]
fn a_compaction_whose_logical_parent_is_not_in_the_file_keeps_the_history_before_it() {
    let id = "6294ba3c-2804-5866-afc5-6039c8a18395";
    let session = session(
        "err",
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
    let session = session("ok", "rewind-and-hook-fork");
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
    let out = Scratch::new("cli-kept-out");
    let output = crate::cli::axt(
        &[
            "import",
            "claude-code",
            "corpus/claude-code/ok/rewind-and-hook-fork.jsonl",
            "--out",
            out.0.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(output.status.code(), Some(0));
    let stderr = crate::cli::text(&output.stderr).replace(out.0.to_str().unwrap(), "OUT");
    insta::assert_snapshot!(stderr, @r"
    corpus/claude-code/ok/rewind-and-hook-fork.jsonl:6: kept-out: 3 entries kept out of the thread, as off-chain metadata: rewound 2 (2 messages), side-branch 1
    axt: 1 sessions, 1 runs, 16 events written to OUT; 0 failed, 0 entry errors; entries kept out of the threads: rewound 2, side-branch 1; notes: kept-out 1
    ");
}

#[test]
fn seed_layout_sessions_with_the_same_agent_file_names_get_their_own_linked_runs() {
    let one = "29c2e1f8-6f9b-5c74-abbc-87ea549dd2c6";
    let two = "3dce523c-e6ff-56b6-bc4a-1545c32bb556";
    let layout = corpus().join("ok/seed-transcripts-layout");
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
    let out = Scratch::new("seed-layout");
    let runs = |replace: bool| -> Vec<(String, Option<String>)> {
        found
            .iter()
            .flat_map(|files| import_session(files, &out.0, replace).unwrap().runs)
            .map(|run| {
                assert_eq!(run.path, out.0.join(format!("{}.jsonl", run.run_id)));
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
    let mut names: Vec<String> = std::fs::read_dir(&out.0)
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
    let out = Scratch::new("cli-seed-layout");
    let output = crate::cli::axt(
        &[
            "import",
            "claude-code",
            "corpus/claude-code/ok/seed-transcripts-layout",
            "--out",
            out.0.to_str().unwrap(),
        ],
        b"",
    );
    let stderr = crate::cli::text(&output.stderr).replace(out.0.to_str().unwrap(), "OUT");
    insta::assert_snapshot!(stderr, @"axt: 2 sessions, 4 runs, 44 events written to OUT; 0 failed, 0 entry errors; notes: simplified-format 4");
    assert_eq!(output.status.code(), Some(0));
}

#[test]
fn the_cli_refuses_an_empty_file_stream_json_and_an_empty_directory_with_exit_1() {
    let out = Scratch::new("cli-refused");
    let dir = out.0.to_str().unwrap();
    let run = |path: &str| {
        let output = crate::cli::axt(&["import", "claude-code", path, "--out", dir], b"");
        let stderr = crate::cli::text(&output.stderr).replace(dir, "OUT");
        (output.status.code(), stderr)
    };
    let (code, stderr) = run("corpus/claude-code/err/empty-session-log.jsonl");
    assert_eq!(code, Some(1));
    insta::assert_snapshot!(stderr, @r"
    axt: corpus/claude-code/err/empty-session-log.jsonl:0: byte 0: not a Claude Code session log: the file is empty
    axt: 1 sessions, 0 runs, 0 events written to OUT; 1 failed, 0 entry errors
    ");
    let (code, stderr) = run("corpus/claude-code/err/stream-json-not-a-session-log.jsonl");
    assert_eq!(code, Some(1));
    insta::assert_snapshot!(stderr, @r"
    axt: corpus/claude-code/err/stream-json-not-a-session-log.jsonl:1: byte 0: not a Claude Code session log: this is stream-json output (`claude -p --output-format stream-json`: `session_id`, no `sessionId` or `parentUuid`); read it with `axt normalize --provider claude`
    axt: 1 sessions, 0 runs, 0 events written to OUT; 1 failed, 0 entry errors
    ");
    assert_eq!(
        std::fs::read_dir(&out.0).unwrap().count(),
        0,
        "nothing written"
    );
    let empty = Scratch::new("cli-empty-dir");
    let (code, stderr) = run(empty.0.to_str().unwrap());
    assert_eq!(code, Some(1));
    assert_eq!(
        stderr,
        format!(
            "axt: {}: no .jsonl file there; nothing imported\n",
            empty.0.display()
        )
    );
}

#[test]
fn files_that_are_no_session_log_are_refused_with_the_line_that_shows_it() {
    let dir = Scratch::new("not-a-session");
    let refusal = |name: &str, text: &str| {
        let path = dir.0.join(name);
        std::fs::write(&path, text).unwrap();
        let files = SessionFiles {
            main: Some(path.clone()),
            subagents: Vec::new(),
        };
        let error = convert(&files).unwrap_err().to_string();
        error.replace(&format!("{}/", dir.0.display()), "")
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
    // One sub-agent log that is no session log refuses its session, naming that file.
    let main = corpus().join("ok/parallel-calls-results-off-their-own-calls.jsonl");
    let files = SessionFiles {
        main: Some(main),
        subagents: vec![dir.0.join("blank.jsonl")],
    };
    assert!(matches!(
        convert(&files),
        Err(axt::import::claude_code::ImportError::NotASession { line: 0, .. })
    ));
}

#[test]
fn a_sidechain_with_agent_id_on_its_user_entries_only_is_one_linked_run() {
    let session = session("ok", "sidechain-agent-id-on-user-entries-only");
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

#[test]
fn an_agent_log_nested_below_subagents_belongs_to_its_session() {
    let id = "eda2d9ad-f6fa-5306-9bae-3869e22a7fd6";
    let session = session(
        "err",
        &format!("workflow-agent-log-nested-in-subagents__{id}"),
    );
    let child = format!("{id}.agent-wf01ag01");
    let runs: Vec<(&str, Option<&str>)> = session
        .runs
        .iter()
        .map(|r| (r.run_id.as_str(), r.parent_run_id.as_deref()))
        .collect();
    assert_eq!(runs, [(id, None), (child.as_str(), Some(id))]);
    assert_eq!(
        tool_events(&session.runs[1]),
        ["call toolu_01GlobWfCC", "result toolu_01GlobWfCC"]
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
        [
            (
                "not-an-agent-log",
                "journal.jsonl:0: in subagents/ but not named agent-<id>.jsonl; not imported".to_owned()
            ),
            (
                "unlinked-subagent",
                "agent-wf01ag01.jsonl:0: sub-agent \"wf01ag01\": no Task/Agent call names it or sent its prompt; linked to the session's end".to_owned()
            ),
        ]
    );
    assert!(session.notes.iter().all(|n| n.is_warning()));
}
