//! `axt exec --acp`: axt as the ACP client of a stand-in agent that speaks the protocol
//! (`support/acp-agent.py`: it replays the agent's side of a captured exchange and awaits
//! the client's side from axt, so its permission requests, file reads and writes and
//! terminals are really asked and really served).
//!
//! What must hold: the live transcript is exactly what normalizing the recorded exchange
//! (the raw file) gives; the permission decisions are on the calls; the files and terminals
//! are served in the workspace and nowhere else.
//!
//! And once against a real ACP agent: codex-acp (npm `@zed-industries/codex-acp` 0.16.0,
//! installed by `.ci/run` under `target/acp-agents`), its model a stand-in OpenAI Responses
//! server on loopback (`support/stand-in-model.py`), configured through its own `CODEX_HOME`.

use std::fs;
use std::path::Path;

use serde_json::{Value, json};

use super::cli::{axt, text};
use super::support::{ROOT, TempDir, normalize_corpus};
use axt::normalize::Provider;

fn stand_in() -> String {
    format!("{ROOT}/tests/axt/support/acp-agent.py")
}

/// `axt exec --acp --out OUT --run-id RUN EXTRA... -- python3 acp-agent.py EXCHANGE`.
fn exec_acp(out: &Path, run_id: &str, extra: &[&str], exchange: &str) -> std::process::Output {
    let out = out.to_str().unwrap();
    let agent = stand_in();
    let mut args = vec!["exec", "--acp", "--out", out, "--run-id", run_id];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--", "python3", &agent, exchange]);
    axt(&args, b"")
}

/// A transcript's events without times and measured durations.
fn events(jsonl: &[u8]) -> Vec<Value> {
    let text = std::str::from_utf8(jsonl).unwrap();
    text.lines()
        .map(|line| {
            let mut event: Value = serde_json::from_str(line).unwrap();
            event.as_object_mut().unwrap().remove("timestamp");
            if let Some(payload) = event["payload"].as_object_mut() {
                payload.remove("duration_ms");
            }
            event
        })
        .collect()
}

/// The blocks of every message event, in order.
fn blocks(events: &[Value]) -> Vec<Value> {
    events
        .iter()
        .filter(|e| {
            e["type"]
                .as_str()
                .is_some_and(|t| t.starts_with("message."))
        })
        .flat_map(|e| {
            e["payload"]["blocks"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .collect()
}

/// Checks that the live transcript is what `axt normalize` makes of the recorded exchange,
/// and returns its events.
fn live_equals_normalized(out: &Path, run_id: &str) -> Vec<Value> {
    let raw = out.join(format!("{run_id}.raw"));
    let live = fs::read(out.join(format!("{run_id}.jsonl"))).unwrap();
    let raw_path = raw.to_str().unwrap();
    let normalized = axt(
        &[
            "normalize",
            "--provider",
            "acp",
            "--run-id",
            run_id,
            raw_path,
        ],
        b"",
    );
    assert_eq!(
        normalized.status.code(),
        Some(0),
        "{}",
        text(&normalized.stderr)
    );
    let live = events(&live);
    assert_eq!(
        live,
        events(&normalized.stdout),
        "live transcript differs from normalize"
    );
    // The exchange both ways, every line in the direction wrapper.
    let exchange = fs::read_to_string(&raw).unwrap();
    let directions: Vec<&str> = exchange
        .lines()
        .map(|line| {
            let line: Value = serde_json::from_str(line).unwrap();
            match line["direction"].as_str().unwrap() {
                "client_to_agent" => "c",
                "agent_to_client" => "a",
                other => panic!("direction {other}"),
            }
        })
        .collect();
    assert_eq!(
        &directions[..5],
        ["c", "a", "c", "a", "c"],
        "initialize, session/new, prompt"
    );
    live
}

#[test]
fn exec_acp_records_the_exchange_live_with_the_permission_allowed() {
    let dir = TempDir::new("exec-acp-allow");
    let exchange = normalize_corpus(Provider::Acp).join("ok/shared-scenario-shell-command.jsonl");
    let prompt = "How many Rust files are in src?";
    let extra = [
        "--prompt",
        prompt,
        "--permission",
        "allow",
        "--workdir",
        dir.path().to_str().unwrap(),
    ];
    let output = exec_acp(dir.path(), "allow", &extra, exchange.to_str().unwrap());
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(
        text(&output.stderr).contains(r#"client answered session/request_permission: {"outcome": {"optionId": "proceed_once", "outcome": "selected"}}"#),
        "{}",
        text(&output.stderr)
    );
    let live = live_equals_normalized(dir.path(), "allow");
    // The same blocks as normalizing the captured exchange the stand-in replayed.
    let captured = axt(
        &[
            "normalize",
            "--provider",
            "acp",
            "--run-id",
            "allow",
            exchange.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(blocks(&live), blocks(&events(&captured.stdout)));
    let tool_use = blocks(&live)
        .into_iter()
        .find(|b| b["type"] == "tool_use")
        .unwrap();
    assert_eq!(
        tool_use["permission"],
        json!({"decision": "allowed", "option_id": "proceed_once", "option_kind": "allow_once", "option_name": "Allow"})
    );
    let completed = live.last().unwrap();
    assert_eq!(completed["type"], "run.completed");
    assert_eq!(completed["payload"]["result"]["status"], "completed");
    assert_eq!(completed["payload"]["result"]["agent"], "gemini-cli");
    assert_eq!(completed["payload"]["result"]["provider_version"], "0.56.0");
}

#[test]
fn exec_acp_denies_by_default_and_says_so_on_each_call() {
    let dir = TempDir::new("exec-acp-deny");
    let exchange = normalize_corpus(Provider::Acp)
        .join("ok/claude-code-acp-edit-diff-permission-rejected-then-allowed.jsonl");
    let workdir = dir.path().to_str().unwrap();
    let extra = [
        "--prompt",
        "Turn debug on in config.json.",
        "--workdir",
        workdir,
    ];
    let output = exec_acp(dir.path(), "deny", &extra, exchange.to_str().unwrap());
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let live = live_equals_normalized(dir.path(), "deny");
    let decisions: Vec<Value> = blocks(&live)
        .into_iter()
        .filter(|b| b["type"] == "tool_use")
        .map(|b| b["permission"].clone())
        .collect();
    let rejected = json!({"decision": "rejected", "option_id": "reject", "option_kind": "reject_once", "option_name": "Reject"});
    assert_eq!(decisions, [rejected.clone(), rejected]);
}

#[test]
fn exec_acp_serves_files_and_terminals_inside_the_workdir_only() {
    let dir = TempDir::new("exec-acp-serve");
    let workdir = dir.path().join("work");
    fs::create_dir_all(&workdir).unwrap();
    fs::write(workdir.join("VERSION"), "2.0.1\n").unwrap();
    let exchange = format!("{ROOT}/tests/axt/support/acp-serve-files-and-terminal.jsonl");
    let extra = [
        "--prompt",
        "Note the version, then build.",
        "--workdir",
        workdir.to_str().unwrap(),
    ];
    let output = exec_acp(dir.path(), "serve", &extra, &exchange);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(
        fs::read_to_string(workdir.join("notes/NEW.md")).unwrap(),
        "written by the agent\n"
    );
    let live = live_equals_normalized(dir.path(), "serve");
    let results: Vec<(String, Value, bool, Value)> = (live.iter())
        .filter(|e| e["type"] == "tool.result")
        .map(|e| {
            let tool = &e["payload"];
            let id = tool["call_id"].as_str().unwrap().to_owned();
            (
                id,
                tool["output"].clone(),
                tool.get("error").is_some(),
                tool["exit_code"].clone(),
            )
        })
        .collect();
    let outside = format!(
        "/etc/hostname is outside the workspace {}",
        workdir.canonicalize().unwrap().display()
    );
    assert_eq!(
        results,
        [
            (
                "fs/read_text_file:0".into(),
                json!("2.0.1\n"),
                false,
                Value::Null
            ),
            (
                "fs/write_text_file:1".into(),
                Value::Null,
                false,
                Value::Null
            ),
            (
                "fs/read_text_file:2".into(),
                json!(format!("fs/read_text_file failed: {outside} (code -32602)")),
                true,
                Value::Null
            ),
            ("term-1".into(), json!("built\n"), true, json!(3)),
            ("call_1".into(), json!("built\n"), true, json!(3)),
        ]
    );
    let command = blocks(&live)
        .into_iter()
        .find(|b| b["type"] == "command")
        .unwrap();
    assert_eq!(command["command"], "sh -c 'echo built; exit 3'");
}

#[test]
fn exec_acp_refuses_another_provider_and_a_system_prompt() {
    let dir = TempDir::new("exec-acp-usage");
    let out = dir.path().to_str().unwrap();
    let claude = axt(
        &[
            "exec", "--acp", "-p", "claude", "--out", out, "--prompt", "x", "--", "true",
        ],
        b"",
    );
    assert_eq!(claude.status.code(), Some(2));
    insta::assert_snapshot!(text(&claude.stderr), @"axt: --acp records an ACP exchange: --provider claude does not go with it");
    let system = axt(
        &[
            "exec",
            "--acp",
            "--system-prompt",
            "s",
            "--out",
            out,
            "--",
            "true",
        ],
        b"",
    );
    assert_eq!(system.status.code(), Some(2));
    assert!(
        text(&system.stderr).contains("cannot be used with"),
        "{}",
        text(&system.stderr)
    );
}

/// codex-acp as `.ci/run` installs it, when it is there.
fn codex_acp() -> Option<String> {
    let path = format!(
        "{ROOT}/target/acp-agents/node_modules/@zed-industries/codex-acp-linux-x64/bin/codex-acp"
    );
    Path::new(&path).exists().then_some(path)
}

#[test]
#[allow(clippy::print_stderr)]
fn exec_acp_drives_a_real_codex_acp_against_a_stand_in_model() {
    let Some(agent) = codex_acp() else {
        eprintln!(
            "SKIPPED exec_acp_drives_a_real_codex_acp_against_a_stand_in_model: no codex-acp under \
             target/acp-agents (`.ci/run` installs it from npm)"
        );
        return;
    };
    let dir = TempDir::new("exec-acp-real");
    let home = dir.path().join("codex-home");
    let work = dir.path().join("work");
    fs::create_dir_all(&home).unwrap();
    fs::create_dir_all(&work).unwrap();
    // The stand-in model: it prints its port, then answers every request.
    let mut model = std::process::Command::new("python3")
        .arg(format!("{ROOT}/tests/axt/support/stand-in-model.py"))
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut port = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(model.stdout.as_mut().unwrap()),
        &mut port,
    )
    .unwrap();
    fs::write(
        home.join("config.toml"),
        format!(
            "model = \"stand-in\"\nmodel_provider = \"standin\"\n[model_providers.standin]\n\
             name = \"stand-in\"\nbase_url = \"http://127.0.0.1:{}/v1\"\nwire_api = \"responses\"\n",
            port.trim()
        ),
    )
    .unwrap();
    let out = dir.path().join("out");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_axt"))
        .args([
            "exec",
            "--acp",
            "--prompt",
            "How many Rust files are in src?",
        ])
        .args([
            "--permission",
            "allow",
            "--grace-secs",
            "2",
            "--run-id",
            "real",
        ])
        .arg("--out")
        .arg(&out)
        .arg("--workdir")
        .arg(&work)
        .args(["--", &agent])
        .env("CODEX_HOME", &home)
        .output()
        .unwrap();
    let _ = model.kill();
    let _ = model.wait();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let live = live_equals_normalized(&out, "real");
    let texts: Vec<Value> = blocks(&live)
        .into_iter()
        .filter(|b| b["type"] == "text")
        .map(|b| b["text"].clone())
        .collect();
    assert_eq!(
        texts.first(),
        Some(&json!("How many Rust files are in src?")),
        "the prompt"
    );
    // codex-acp says first, in the same chunks without message ids, that it does not know
    // the stand-in's model: one text block, the answer at its end.
    let answer = texts.last().and_then(Value::as_str).unwrap_or("");
    assert!(
        answer.ends_with("There are 12 Rust files in src."),
        "{answer}"
    );
    let result = &live.last().unwrap()["payload"]["result"];
    assert_eq!(result["agent"], "codex-acp");
    assert_eq!(result["status"], "completed");
    assert_eq!(result["stop_reason"]["raw"], "end_turn");
}
