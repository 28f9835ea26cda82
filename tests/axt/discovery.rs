//! `axt import` with no store: a fake home directory with every store and a few sessions
//! in each (the store corpora's, laid out where the agents keep them), imported by
//! discovery; then three sessions grow and one is added, and importing again changes exactly
//! those runs; and at each step `axt stats --json` totals equal an independent count made
//! from the agents' raw files (`scripts/count-store-raw.py`, which shares no code with axt).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

use crate::cli::text;
use crate::incremental::{grow_claude_session, runs};
use crate::support::{TempDir, root};

/// The variables that would move a store out of the fake home.
const MOVERS: &[&str] = &[
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "COPILOT_HOME",
    "XDG_STATE_HOME",
    "GEMINI_CLI_HOME",
    "XDG_DATA_HOME",
];

fn axt_at_home(home: &Path, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_axt"));
    command.args(args).env("HOME", home).current_dir(home);
    for name in MOVERS {
        command.env_remove(name);
    }
    command.output().expect("axt runs")
}

pub(crate) fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_tree(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

fn corpus(store: &str, fixture: &str) -> PathBuf {
    root()
        .join("corpus/import")
        .join(store)
        .join("ok")
        .join(fixture)
}

/// Every store, two sessions each, where the agents keep them.
fn fake_home(home: &Path) {
    let claude = home.join(".claude/projects/-home-dev-shop");
    std::fs::create_dir_all(&claude).unwrap();
    for log in [
        "parallel-calls-results-off-their-own-calls.jsonl",
        "sidechain-task-2.0-in-file.jsonl",
    ] {
        std::fs::copy(
            root().join("corpus/import/claude-code/ok").join(log),
            claude.join(log),
        )
        .unwrap();
    }
    for fixture in [
        "shell-command-apply-patch-reasoning-0.66.0",
        "resumed-token-total-restarts-0.66.0",
    ] {
        copy_tree(&corpus("codex", fixture), &home.join(".codex"));
    }
    for fixture in [
        "resumed-two-processes-running-total-1.0.63",
        "bare-session-file-layout-1.0.13",
    ] {
        copy_tree(&corpus("copilot", fixture), &home.join(".copilot"));
    }
    for fixture in [
        "message-rewritten-as-it-grows-shell-call-0.46.0",
        "subagent-recording-beside-session-0.46.0",
    ] {
        copy_tree(&corpus("gemini", fixture), &home.join(".gemini"));
    }
    for fixture in [
        "shell-call-thought-compression-0.13.2",
        "background-subagent-sidechain-0.13.2",
    ] {
        copy_tree(&corpus("qwen", fixture), &home.join(".qwen"));
    }
    // OpenCode: a 1.18 database and the JSON files of a session of 1.1 beside it.
    let opencode = home.join(".local/share/opencode");
    copy_tree(
        &corpus("opencode", "db-task-subagent-resumed-1.18.34"),
        &opencode,
    );
    copy_tree(
        &corpus("opencode", "storage-shell-call-task-subagent-1.1"),
        &opencode,
    );
}

/// A prompt and its answer (one step, 70 prompt tokens, 5 out) written into OpenCode's JSON
/// files as OpenCode 1.1 writes them: a message file each, a part file per part.
fn grow_opencode_session(storage: &Path, session: &str) {
    let write = |path: PathBuf, value: Value| {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, serde_json::to_vec_pretty(&value).unwrap()).unwrap();
    };
    let created = 1_767_261_700_000_u64;
    for (message, role, parts) in [
        (
            "msg_zz00000001",
            "user",
            vec![json!({"type": "text", "text": "And the tax test?"})],
        ),
        (
            "msg_zz00000002",
            "assistant",
            vec![
                json!({"type": "text", "text": "It passes."}),
                json!({"type": "step-finish", "reason": "stop", "cost": 0.0004,
                       "tokens": {"input": 20, "output": 5, "reasoning": 0,
                                  "cache": {"read": 50, "write": 0}}}),
            ],
        ),
    ] {
        let mut info = json!({"id": message, "sessionID": session, "role": role,
                              "time": {"created": created}});
        if role == "assistant" {
            info["modelID"] = json!("claude-sonnet-4-5");
            info["providerID"] = json!("anthropic");
            info["finish"] = json!("stop");
        }
        write(
            storage.join(format!("message/{session}/{message}.json")),
            info,
        );
        for (n, mut part) in parts.into_iter().enumerate() {
            let id = format!("prt_{message}_{n}");
            part["id"] = json!(id);
            part["messageID"] = json!(message);
            part["sessionID"] = json!(session);
            write(storage.join(format!("part/{message}/{id}.json")), part);
        }
    }
}

/// A prompt and its answer appended to a Gemini CLI session file.
fn grow_gemini_session(path: &Path) {
    let records = [
        json!({"id": "u-grown", "timestamp": "2026-07-01T10:01:00.000Z", "type": "user",
               "content": [{"text": "And the other tests?"}]}),
        json!({"id": "g-grown", "timestamp": "2026-07-01T10:01:03.000Z", "type": "gemini",
               "content": "They pass.", "thoughts": [], "model": "gemini-2.5-pro",
               "tokens": {"input": 5400, "output": 4, "cached": 5200, "thoughts": 0,
                          "tool": 0, "total": 5404}}),
    ];
    let lines: String = records.iter().map(|r| format!("{r}\n")).collect();
    let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    std::io::Write::write_all(&mut file, lines.as_bytes()).unwrap();
}

/// `axt stats --json` totals: prompt tokens (input, cached or not), output, tool calls.
fn stats(home: &Path, out: &Path) -> Value {
    let output = axt_at_home(home, &["stats", "--json", out.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let stats: Value = serde_json::from_slice(&output.stdout).unwrap();
    let total = &stats["total"];
    let tokens = &total["tokens"];
    let count = |key: &str| tokens[key].as_u64().unwrap();
    let calls: u64 = (total["tools"].as_object().unwrap().values())
        .map(|tool| tool["calls"].as_u64().unwrap())
        .sum();
    json!({
        "prompt": count("input") + count("cache_read") + count("cache_write"),
        "output": count("output"),
        "tool_calls": calls,
    })
}

/// The independent count from the raw files; `None` without python3.
fn raw_count(home: &Path) -> Option<Value> {
    let output = Command::new("python3")
        .arg(root().join("scripts/count-store-raw.py"))
        .arg(home)
        .output()
        .ok()?;
    assert!(output.status.success(), "{}", text(&output.stderr));
    Some(serde_json::from_slice(&output.stdout).unwrap())
}

fn import(home: &Path, out: &Path) -> String {
    let output = axt_at_home(home, &["import", "--out", out.to_str().unwrap()]);
    let stderr = text(&output.stderr).replace(home.to_str().unwrap(), "HOME");
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    stderr
}

#[test]
#[allow(clippy::print_stderr)]
fn discovery_imports_every_store_then_only_the_grown_and_new_sessions() {
    let scratch = TempDir::new("discovery-home");
    let home = scratch.path().join("home");
    let out = scratch.path().join("out");
    fake_home(&home);

    let first = import(&home, &out);
    for line in [
        "axt: found claude-code: 2 sessions in HOME/.claude/projects\n",
        "axt: found codex: 2 sessions in HOME/.codex/sessions\n",
        "axt: found copilot: 2 sessions in HOME/.copilot/session-state\n",
        "axt: found gemini: 2 sessions in HOME/.gemini/tmp\n",
        "axt: found qwen: 2 sessions in HOME/.qwen/projects\n",
        "axt: found opencode: 2 sessions in HOME/.local/share/opencode\n",
        "axt: 12 sessions, 17 runs, 193 events written to HOME/../out",
    ] {
        let line = line.replace("HOME/../out", out.to_str().unwrap());
        assert!(first.contains(&line), "{line:?} not in:\n{first}");
    }
    let before = runs(&out);
    assert_eq!(before.len(), 17);
    let Some(raw) = raw_count(&home) else {
        eprintln!("SKIPPED the stats comparison of discovery_imports_every_store: no python3");
        return;
    };
    assert_eq!(stats(&home, &out), raw);
    assert_eq!(
        raw,
        json!({"prompt": 139521, "output": 1664, "tool_calls": 22})
    );

    // Three sessions grow (one of them OpenCode's JSON files: a message and its parts
    // added), one is added.
    let claude = home
        .join(".claude/projects/-home-dev-shop/parallel-calls-results-off-their-own-calls.jsonl");
    grow_claude_session(&claude, 2);
    let gemini = home.join(".gemini/tmp/9f2c4e6a8b0d1f3e5a7c9e1b3d5f7a9c2e4b6d8f0a1c3e5b7d9f1a3c5e7b9d0f/chats/session-2026-07-01T10-00-bfb48a59.jsonl");
    grow_gemini_session(&gemini);
    grow_opencode_session(
        &home.join(".local/share/opencode/storage"),
        "ses_2e8f9a0b1c2droot",
    );
    copy_tree(
        &corpus("copilot", "subagent-events-split-shutdown-totals-1.0.63"),
        &home.join(".copilot"),
    );
    import(&home, &out);
    let after = runs(&out);

    let (mut changed, mut added) = (Vec::new(), Vec::new());
    for (name, bytes) in &after {
        match before.iter().find(|(old, _)| old == name) {
            None => added.push(name.as_str()),
            Some((_, old)) if old != bytes => {
                changed.push(name.as_str());
                // Grown, not rewritten: every line before the run's closing two stays.
                let old = text(old);
                let kept: Vec<&str> = old.lines().collect();
                let kept = kept[..kept.len() - 2].join("\n");
                assert!(
                    text(bytes).starts_with(&kept),
                    "{name}: rewritten, not grown"
                );
            }
            Some(_) => {}
        }
    }
    assert_eq!(
        changed,
        [
            "2936a4de-c066-5559-9b3b-5d8ecf62cb42.jsonl",
            "bfb48a59-16de-5a37-9ba9-f174d46aabf3.jsonl",
            "ses_2e8f9a0b1c2droot.jsonl",
        ]
    );
    let copilot_session = "093633cc-b799-5ccd-956f-65766fe526a0";
    assert_eq!(
        added,
        [
            format!("{copilot_session}.agent-explore-ea7abf98.jsonl"),
            format!("{copilot_session}.jsonl"),
        ]
    );
    assert_eq!(before.len() + 2, after.len());
    assert_eq!(stats(&home, &out), raw_count(&home).unwrap());

    // Nothing new: nothing written.
    import(&home, &out);
    assert_eq!(runs(&out), after);
}

/// A Gemini CLI session copied into `scratch/store`, watched (`axt import --watch
/// --interval 0.05 --settle SETTLE`) into `scratch/out`: the session's file, the watcher
/// and the file of its stderr.
fn watch_gemini(scratch: &TempDir, settle: &str) -> (PathBuf, std::process::Child, PathBuf) {
    let store = scratch.path().join("store");
    copy_tree(
        &corpus("gemini", "message-rewritten-as-it-grows-shell-call-0.46.0"),
        &store,
    );
    let session = store.join("tmp/9f2c4e6a8b0d1f3e5a7c9e1b3d5f7a9c2e4b6d8f0a1c3e5b7d9f1a3c5e7b9d0f/chats/session-2026-07-01T10-00-bfb48a59.jsonl");
    let stderr_path = scratch.path().join("watch.stderr");
    let watcher = Command::new(env!("CARGO_BIN_EXE_axt"))
        .args(["import", "gemini"])
        .arg(&store)
        .arg("--out")
        .arg(scratch.path().join("out"))
        .args(["--watch", "--interval", "0.05", "--settle", settle])
        .stderr(std::fs::File::create(&stderr_path).unwrap())
        .spawn()
        .expect("axt runs");
    (session, watcher, stderr_path)
}

/// Once the writer of [`watch_gemini`]'s session is done: waits (a minute at most) for the
/// watched run to be what a one-shot import of the finished store writes, stops the watch
/// with SIGINT, and checks the run, that no torn record was imported, and exit 0.
fn assert_watch_ends_as_one_import(
    scratch: &TempDir,
    mut watcher: std::process::Child,
    stderr_path: &Path,
) {
    let (store, out) = (scratch.path().join("store"), scratch.path().join("out"));
    let once = scratch.path().join("once");
    let output = Command::new(env!("CARGO_BIN_EXE_axt"))
        .args(["import", "gemini"])
        .arg(&store)
        .arg("--out")
        .arg(&once)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let expected = runs(&once);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while runs(&out) != expected && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let interrupted = Command::new("kill")
        .args(["-INT", &watcher.id().to_string()])
        .status()
        .unwrap();
    assert!(interrupted.success());
    let status = watcher.wait().unwrap();
    let stderr = std::fs::read_to_string(stderr_path).unwrap();
    assert!(
        !stderr.contains("invalid-json"),
        "a torn record was imported:\n{stderr}"
    );
    assert_eq!(runs(&out), expected, "{stderr}");
    assert_eq!(status.code(), Some(0), "{stderr}");
}

/// `axt import --watch --settle 0` while a writer appends records in pieces with short
/// pauses (a line end, then half a record, then the rest): a look may find the file still
/// (it ends with a line end) and the half record be written before the import reads it.
/// That read used to be imported torn (`invalid-json`); now the files are stamped before
/// the look and again once read, and a session whose files moved is read at a later look.
#[test]
fn watch_never_imports_half_a_record_written_between_its_look_and_its_read() {
    let scratch = TempDir::new("watch-look-read");
    let (session, watcher, stderr_path) = watch_gemini(&scratch, "0");
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&session)
        .unwrap();
    let pause = || std::thread::sleep(std::time::Duration::from_millis(3));
    for round in 0..300 {
        let prompt = json!({"id": format!("u-p{round}"), "type": "user",
            "timestamp": "2026-07-01T10:03:00.000Z", "content": [{"text": format!("q {round}?")}]});
        let answer = json!({"id": format!("g-p{round}"), "type": "gemini",
            "timestamp": "2026-07-01T10:03:00.500Z", "content": format!("a {round}"),
            "thoughts": [], "model": "gemini-2.5-pro",
            "tokens": {"input": 1, "output": 1, "cached": 0, "thoughts": 0, "tool": 0, "total": 2}})
        .to_string();
        let (head, tail) = answer.split_at(answer.len() / 2);
        use std::io::Write as _;
        // Each piece one write(2), as agents write.
        file.write_all(format!("{prompt}\n").as_bytes()).unwrap();
        pause();
        file.write_all(head.as_bytes()).unwrap();
        pause();
        file.write_all(format!("{tail}\n").as_bytes()).unwrap();
        pause();
    }
    assert_watch_ends_as_one_import(&scratch, watcher, &stderr_path);
}

/// `axt import --watch` while a writer appends to a Gemini CLI session, pausing in the
/// middle of each record longer than the settle time: every record is imported whole
/// (never a torn line's `invalid-json`), the run ends equal to a one-shot import of the
/// finished file, and SIGINT ends the watch cleanly (exit 0).
#[test]
fn watch_follows_a_session_being_written_and_never_imports_a_torn_record() {
    let scratch = TempDir::new("watch-writer");
    let (session, watcher, stderr_path) = watch_gemini(&scratch, "0.2");
    // The writer: each round a prompt, then half of the answer's record, a pause longer
    // than the settle time, the rest of it.
    for round in 0..4 {
        let prompt = json!({"id": format!("u-w{round}"), "type": "user",
            "timestamp": format!("2026-07-01T10:02:{:02}.000Z", 2 * round),
            "content": [{"text": format!("step {round}?")}]});
        let answer = json!({"id": format!("g-w{round}"), "type": "gemini",
            "timestamp": format!("2026-07-01T10:02:{:02}.500Z", 2 * round),
            "content": format!("step {round} done"), "thoughts": [], "model": "gemini-2.5-pro",
            "tokens": {"input": 100, "output": 3, "cached": 0, "thoughts": 0, "tool": 0, "total": 103}})
        .to_string();
        let (head, tail) = answer.split_at(answer.len() / 2);
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&session)
            .unwrap();
        use std::io::Write as _;
        write!(file, "{prompt}\n{head}").unwrap();
        file.flush().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(700));
        writeln!(file, "{tail}").unwrap();
        std::thread::sleep(std::time::Duration::from_millis(300));
    }

    assert_watch_ends_as_one_import(&scratch, watcher, &stderr_path);
}
