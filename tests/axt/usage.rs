//! `axt usage` counts what `axt import` then `axt stats` count: per session, the same
//! tokens by kind and the same estimated cost, over every store corpus of the stores it
//! reads and over generated stores; and it says so on the command line.

use std::path::Path;
use std::process::Command;

use axt::import::{Found, Store};
use axt::normalize::DiagnosticKind;
use axt::read::{Prices, Stats};
use axt::usage;

use crate::support::root;

/// Every session under `dir`: usage's tokens and cost against stats' over the runs the
/// importer makes of it. Returns how many sessions were compared.
fn compare(store: Store, dir: &Path) -> usize {
    let prices = Prices::builtin();
    let mut compared = 0;
    for found in store.discover(dir).expect("discover") {
        let Ok(session) = found.convert() else {
            // Refused by the importer (no session log at all): nothing to compare.
            continue;
        };
        let read = usage::read(&found).expect("usage reads what import reads");
        let mut stats = Stats::default();
        for run in &session.runs {
            let mut one = Stats::default();
            for event in &run.events {
                one.event(event);
            }
            stats.merge(&one);
        }
        let total = read.total();
        let name = name(&found);
        assert_eq!(
            (
                total.input_tokens,
                total.output_tokens,
                total.cache_read_tokens,
                total.cache_write_tokens,
                total.reasoning_tokens
            ),
            (
                stats.tokens.input,
                stats.tokens.output,
                stats.tokens.cache_read,
                stats.tokens.cache_write,
                stats.tokens.reasoning
            ),
            "tokens of {name}"
        );
        // `stats` prices a run's tokens at the run's (last) model, `usage` each call's at
        // its own: the same wherever a session speaks to one model. A session resumed with
        // another model (Codex's `resumed-token-total-restarts`) is priced per model here,
        // its tokens still the same.
        if read.models().len() > 1 {
            compared += 1;
            continue;
        }
        let cost: f64 = (read.parts.iter())
            .filter_map(|((day, model), usage)| match read.reported(day, model) {
                Some(usd) => Some(usd),
                None => Some(prices.lookup(model)?.1.cost(usage)),
            })
            .sum();
        let theirs = stats.cost.estimated_usd + stats.cost.reported_usd;
        assert!(
            (cost - theirs).abs() < 1e-9,
            "cost of {name}: {cost} here, {theirs} by stats"
        );
        compared += 1;
    }
    compared
}

fn name(found: &Found) -> String {
    let file = found.files.main.as_ref().or(found.files.subagents.first());
    file.map(|f| f.display().to_string()).unwrap_or_default()
}

#[test]
fn usage_counts_what_import_and_stats_count_over_the_store_corpora() {
    let root = crate::support::root();
    // The store, its corpus folder, and how many of its sessions the importer converts.
    for (store, name, least) in [
        (Store::ClaudeCode, "claude-code", 5),
        (Store::Codex, "codex", 5),
        (Store::Copilot, "copilot", 5),
        (Store::Gemini, "gemini", 5),
        (Store::Qwen, "qwen", 3),
        (Store::OpenCode, "opencode", 4),
    ] {
        let mut compared = 0;
        for part in ["ok", "err"] {
            let dir = root.join("corpus/import").join(name).join(part);
            // OpenCode's cases are each a data directory (the other stores' are read whole).
            if store == Store::OpenCode {
                for case in std::fs::read_dir(&dir).expect("the corpus") {
                    compared += compare(store, &case.expect("a corpus case").path());
                }
            } else {
                compared += compare(store, &dir);
            }
        }
        assert!(
            compared >= least,
            "{name}: only {compared} sessions compared"
        );
    }
}

/// A generated store (`scripts/claude-code-sessions.py`, `scripts/store-sessions.py`), as
/// the peer benchmark reads them; `None` without python3.
fn generated(script: &str, args: &[&str]) -> Option<()> {
    let status = Command::new("python3")
        .arg(root().join("scripts").join(script))
        .args(args)
        .status()
        .ok()?;
    assert!(status.success(), "{script} failed");
    Some(())
}

#[test]
#[allow(clippy::print_stderr)] // a skip is said
fn usage_counts_what_import_and_stats_count_over_generated_stores() {
    let dir = crate::support::TempDir::new("usage-generated");
    let claude = dir.path().join("claude");
    let codex = dir.path().join("codex");
    let copilot = dir.path().join("copilot");
    let gemini = dir.path().join("gemini");
    let qwen = dir.path().join("qwen");
    let opencode = dir.path().join("opencode");
    let made = generated(
        "claude-code-sessions.py",
        &[claude.to_str().unwrap(), "3", "1", "--seed", "7"],
    )
    .and_then(|()| {
        generated(
            "store-sessions.py",
            &["codex", codex.to_str().unwrap(), "3", "1", "--seed", "7"],
        )
    })
    .and_then(|()| {
        generated(
            "store-sessions.py",
            &[
                "copilot",
                copilot.to_str().unwrap(),
                "3",
                "1",
                "--seed",
                "7",
            ],
        )
    })
    .and_then(|()| {
        generated(
            "store-sessions.py",
            &["gemini", gemini.to_str().unwrap(), "3", "1", "--seed", "7"],
        )
    })
    .and_then(|()| {
        generated(
            "store-sessions.py",
            &["qwen", qwen.to_str().unwrap(), "3", "1", "--seed", "7"],
        )
    })
    .and_then(|()| {
        generated(
            "store-sessions.py",
            &[
                "opencode",
                opencode.to_str().unwrap(),
                "3",
                "1",
                "--seed",
                "7",
            ],
        )
    });
    if made.is_none() {
        eprintln!("SKIPPED the generated stores of usage: no python3");
        return;
    }
    assert_eq!(compare(Store::ClaudeCode, &claude.join("projects")), 3);
    assert_eq!(compare(Store::Codex, &codex.join(".codex/sessions")), 3);
    let state = copilot.join(".copilot/session-state");
    assert_eq!(compare(Store::Copilot, &state), 3);
    assert_eq!(compare(Store::Gemini, &gemini.join(".gemini/tmp")), 3);
    assert_eq!(compare(Store::Qwen, &qwen.join(".qwen/projects")), 3);
    let data = opencode.join(".local/share/opencode");
    assert_eq!(compare(Store::OpenCode, &data), 3);
}

/// A rewound reply's tokens are kept apart (the importer keeps them out of the run), an
/// escaped key is read as its name, a line that is not JSON is reported where it is.
#[test]
fn rewound_replies_apart_escaped_keys_read_torn_lines_located() {
    let dir = crate::support::TempDir::new("usage-rewound");
    let project = dir.path().join("projects/p");
    std::fs::create_dir_all(&project).unwrap();
    let usage = |input: u64, output: u64| {
        format!(
            r#"{{"input_tokens":{input},"output_tokens":{output},"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}"#
        )
    };
    let lines = [
        r#"{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"hi"},"uuid":"u1","timestamp":"2026-05-01T10:00:00Z","sessionId":"s1"}"#.to_owned(),
        // The abandoned reply: rewound.
        format!(r#"{{"parentUuid":"u1","isSidechain":false,"type":"assistant","message":{{"id":"m1","model":"claude-sonnet-4-5","role":"assistant","content":[{{"type":"text","text":"a"}}],"usage":{}}},"uuid":"a1","timestamp":"2026-05-01T10:00:01Z","sessionId":"s1"}}"#, usage(100, 10)),
        r#"{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"hi again"},"uuid":"u2","timestamp":"2026-05-01T10:00:02Z","sessionId":"s1"}"#.to_owned(),
        // The kept reply, its `type` key escaped, written over two entries (two snapshots).
        format!(r#"{{"parentUuid":"u2","isSidechain":false,"\u0074ype":"assistant","message":{{"id":"m2","model":"claude-sonnet-4-5","role":"assistant","content":[{{"type":"text","text":"b"}}],"usage":{}}},"uuid":"a2","timestamp":"2026-05-01T10:00:03Z","sessionId":"s1"}}"#, usage(200, 1)),
        "{\"parentUuid\":\"a2\",\"torn".to_owned(),
        format!(r#"{{"parentUuid":"a2","isSidechain":false,"type":"assistant","message":{{"id":"m2","model":"claude-sonnet-4-5","role":"assistant","content":[{{"type":"text","text":"c"}}],"usage":{}}},"uuid":"a3","timestamp":"2026-05-02T10:00:04Z","sessionId":"s1"}}"#, usage(200, 20)),
    ];
    let file = project.join("s1.jsonl");
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let found = Store::ClaudeCode.discover(&project).unwrap();
    assert_eq!(found.len(), 1);
    let read = usage::read(&found[0]).unwrap();
    assert_eq!(read.session, "s1");
    let total = read.total();
    assert_eq!((total.input_tokens, total.output_tokens), (200, 20));
    assert_eq!(
        (read.off_chain.input_tokens, read.off_chain.output_tokens),
        (100, 10)
    );
    // The message's day is the day of its last snapshot.
    assert_eq!(
        read.parts.keys().cloned().collect::<Vec<_>>(),
        [("2026-05-02".to_owned(), "claude-sonnet-4-5".to_owned())]
    );
    assert_eq!(read.first.as_deref(), Some("2026-05-01T10:00:00Z"));
    assert_eq!(read.last.as_deref(), Some("2026-05-02T10:00:04Z"));
    assert_eq!(read.diagnostics.len(), 1);
    assert_eq!(read.diagnostics[0].1.line, 5);
    // And the importer agrees on the thread's tokens.
    assert_eq!(compare(Store::ClaudeCode, &project), 1);

    // On the command line: one row, the total, the torn line on stderr, exit 1.
    let out = Command::new(env!("CARGO_BIN_EXE_axt"))
        .args(["usage", "claude-code", project.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["session"], "s1");
    assert_eq!(rows[0]["output_tokens"], 20);
    assert_eq!(rows[0]["off_chain"]["output_tokens"], 10);
    assert_eq!(rows[1]["total"], true);
    assert_eq!(rows[1]["sessions"], 1);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("s1.jsonl") && stderr.contains("\"line\":5"),
        "{stderr}"
    );
}

/// A line over the line limit is reported where it is, as what it is, and not read; the
/// lines around it are counted (as the importer counts them).
#[test]
fn a_line_over_the_limit_is_located_and_the_rest_counted() {
    let dir = crate::support::TempDir::new("usage-too-long");
    let project = dir.path().join("projects/p");
    std::fs::create_dir_all(&project).unwrap();
    let user = r#"{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"hi"},"uuid":"u1","timestamp":"2026-05-01T10:00:00Z","sessionId":"s1"}"#;
    let reply = r#"{"parentUuid":"u1","isSidechain":false,"type":"assistant","message":{"id":"m1","model":"claude-sonnet-4-5","role":"assistant","content":[{"type":"text","text":"a"}],"usage":{"input_tokens":200,"output_tokens":20,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}},"uuid":"a1","timestamp":"2026-05-01T10:00:01Z","sessionId":"s1"}"#;
    // A user entry whose text alone is over the 16 MiB line limit.
    let huge = format!(
        r#"{{"parentUuid":"a1","isSidechain":false,"type":"user","message":{{"role":"user","content":"{}"}},"uuid":"u2","timestamp":"2026-05-01T10:00:02Z","sessionId":"s1"}}"#,
        "x".repeat(17 << 20)
    );
    let file = project.join("s1.jsonl");
    std::fs::write(&file, format!("{user}\n{reply}\n{huge}\n")).unwrap();
    let found = Store::ClaudeCode.discover(&project).unwrap();
    let read = usage::read(&found[0]).unwrap();
    let total = read.total();
    assert_eq!((total.input_tokens, total.output_tokens), (200, 20));
    assert_eq!(read.diagnostics.len(), 1, "{:?}", read.diagnostics);
    let (path, diagnostic) = &read.diagnostics[0];
    assert_eq!(path, &file);
    assert_eq!(diagnostic.line, 3);
    assert_eq!(diagnostic.offset, (user.len() + reply.len() + 2) as u64);
    assert_eq!(diagnostic.kind, DiagnosticKind::RecordTooLarge);
    assert_eq!(diagnostic.message, "a line over the limit, not read");
    assert_eq!(compare(Store::ClaudeCode, &project), 1);
}

/// Codex: a `token_count` whose words are spelled with escapes is read (a line is skipped
/// unread only when the words searched for cannot be in it); one of only control-character
/// escapes is not a usage line; the importer agrees.
#[test]
fn codex_escaped_words_are_read() {
    let dir = crate::support::TempDir::new("usage-codex-escapes");
    let sessions = dir.path().join("sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    let lines = [
        r#"{"timestamp":"2026-05-01T10:00:00Z","type":"session_meta","payload":{"id":"0199a000-0000-7000-8000-000000000001","cwd":"/w","cli_version":"0.66.0","source":"cli"}}"#,
        r#"{"timestamp":"2026-05-01T10:00:01Z","type":"turn_context","payload":{"model":"gpt-5.1-codex-max"}}"#,
        r#"{"timestamp":"2026-05-01T10:00:02Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"[32mok[0m"}]}}"#,
        r#"{"timestamp":"2026-05-01T10:00:03Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":1000,"cached_input_tokens":400,"output_tokens":50,"reasoning_output_tokens":10}}}}"#,
        r#"{"timestamp":"2026-05-01T10:00:04Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":3000,"cached_input_tokens":1400,"output_tokens":90,"reasoning_output_tokens":20}}}}"#,
    ];
    let file =
        sessions.join("rollout-2026-05-01T10-00-00-0199a000-0000-7000-8000-000000000001.jsonl");
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let found = Store::Codex.discover(&sessions).unwrap();
    let read = usage::read(&found[0]).unwrap();
    let total = read.total();
    assert_eq!(
        (
            total.input_tokens,
            total.cache_read_tokens,
            total.output_tokens
        ),
        (1600, 1400, 90)
    );
    assert!(read.diagnostics.is_empty());
    assert_eq!(compare(Store::Codex, &sessions), 1);
    // Without the escaped line the total is the same (a running total): the import agrees
    // either way, and with only the escaped one it is that one's.
    std::fs::write(&file, lines[..4].join("\n") + "\n").unwrap();
    let read = usage::read(&Store::Codex.discover(&sessions).unwrap()[0]).unwrap();
    assert_eq!(read.total().output_tokens, 50);
    assert_eq!(compare(Store::Codex, &sessions), 1);
}

/// Copilot CLI: a session still running (no shutdown) counts its `assistant.usage` calls
/// over its messages' `outputTokens`, each call at its own model; a sub-agent's calls are
/// its own run's; an escaped key is read as its name; a torn line is reported where it is.
/// Then, once a shutdown with totals is written, the totals alone count (the sub-agent's
/// none), and the import agrees at every step.
#[test]
fn copilot_calls_until_the_shutdown_totals() {
    let dir = crate::support::TempDir::new("usage-copilot");
    let state = dir.path().join("session-state");
    let log = state.join("0c0c0c0c-1111-4222-8333-444444444444/events.jsonl");
    std::fs::create_dir_all(log.parent().unwrap()).unwrap();
    let event = |kind: &str, agent: &str, data: &str, n: u32| {
        let agent = match agent {
            "" => String::new(),
            agent => format!(r#","agentId":"{agent}""#),
        };
        format!(
            r#"{{"type":"{kind}","data":{data},"id":"e{n}","timestamp":"2026-06-18T19:13:{n:02}.000Z","parentId":null{agent}}}"#
        )
    };
    let call = |model: &str, input: u64, output: u64| {
        format!(
            r#"{{"model":"{model}","inputTokens":{input},"outputTokens":{output},"cacheReadTokens":100,"cacheWriteTokens":0,"reasoningTokens":0,"cost":1}}"#
        )
    };
    let mut lines = vec![
        event(
            "session.start",
            "",
            r#"{"sessionId":"0c0c0c0c-1111-4222-8333-444444444444","selectedModel":"auto"}"#,
            1,
        ),
        event(
            "assistant.message",
            "",
            r#"{"messageId":"m1","content":"a","outputTokens":7}"#,
            2,
        ),
        event("assistant.usage", "", &call("gpt-5", 1000, 10), 3),
        // A sub-agent's call: its own run, which counts it while no shutdown has totals.
        event("assistant.usage", "explore-1", &call("gpt-5", 500, 5), 4),
        // An escaped key, read as `outputTokens` would be.
        event(
            "assistant.usage",
            "",
            &call("gpt-5", 300, 3).replace("outputTokens", "\\u006futputTokens"),
            5,
        ),
        "{\"type\":\"assistant.usage\",\"data\":{\"inputTok".to_owned(),
    ];
    std::fs::write(&log, lines.join("\n") + "\n").unwrap();
    let found = Store::Copilot.discover(&state).unwrap();
    assert_eq!(found.len(), 1);
    let read = usage::read(&found[0]).unwrap();
    assert_eq!(read.session, "0c0c0c0c-1111-4222-8333-444444444444");
    let total = read.total();
    assert_eq!(
        (
            total.input_tokens,
            total.cache_read_tokens,
            total.output_tokens
        ),
        (1500, 300, 18)
    );
    assert_eq!(read.models(), ["gpt-5"]);
    assert_eq!(read.diagnostics.len(), 1, "{:?}", read.diagnostics);
    assert_eq!(read.diagnostics[0].1.line, 6);
    assert_eq!(compare(Store::Copilot, &state), 1);
    // The process ends: its shutdown's totals are the session's, the sub-agent's included.
    lines.pop();
    lines.push(event(
        "session.shutdown",
        "",
        r#"{"shutdownType":"routine","currentModel":"gpt-5","modelMetrics":{"gpt-5":{"requests":{"count":3,"cost":3},"usage":{"inputTokens":2100,"outputTokens":19,"cacheReadTokens":300,"cacheWriteTokens":0,"reasoningTokens":0}}}}"#,
        7,
    ));
    std::fs::write(&log, lines.join("\n") + "\n").unwrap();
    let read = usage::read(&Store::Copilot.discover(&state).unwrap()[0]).unwrap();
    let total = read.total();
    assert_eq!(
        (
            total.input_tokens,
            total.cache_read_tokens,
            total.output_tokens
        ),
        (1800, 300, 19)
    );
    assert!(read.diagnostics.is_empty(), "{:?}", read.diagnostics);
    assert_eq!(
        (read.first.as_deref(), read.last.as_deref()),
        (
            Some("2026-06-18T19:13:01.000Z"),
            Some("2026-06-18T19:13:07.000Z")
        )
    );
    assert_eq!(compare(Store::Copilot, &state), 1);
}

/// Gemini CLI: a message rewritten as it grows counts once, and the messages a rewind took
/// back are apart, as the importer keeps them out of the run (the corpus's rewind).
#[test]
fn gemini_rewound_messages_apart() {
    let dir = root()
        .join("corpus/import/gemini/ok/resumed-next-day-rewind-takes-back-exchange-0.46.0/tmp");
    let found = Store::Gemini.discover(&dir).unwrap();
    assert_eq!(found.len(), 1);
    let read = usage::read(&found[0]).unwrap();
    assert_eq!(read.session, "e43982ce-e426-5d94-a591-30178c45ae83");
    let total = read.total();
    // g1 and g3 (g2 taken back): input is uncached.
    assert_eq!(
        (
            total.input_tokens,
            total.output_tokens,
            total.cache_read_tokens
        ),
        (3000 + 300, 20 + 6, 3000)
    );
    let off = read.off_chain;
    assert_eq!(
        (off.input_tokens, off.output_tokens, off.cache_read_tokens),
        (3100 - 2048, 15, 2048)
    );
    assert!(read.diagnostics.is_empty());
    assert_eq!(compare(Store::Gemini, &dir), 1);
}

/// Qwen Code: an `assistant` record's `usageMetadata` counts, a sidechain sub-agent's in
/// its own run, a torn line is reported where it is; the importer agrees.
#[test]
fn qwen_usage_metadata_and_sidechains() {
    let dir = crate::support::TempDir::new("usage-qwen");
    let chats = dir.path().join("projects/-w/chats");
    std::fs::create_dir_all(&chats).unwrap();
    let lines = [
        r#"{"uuid":"u1","parentUuid":null,"sessionId":"q1","timestamp":"2026-05-01T10:00:00Z","type":"user","cwd":"/w","version":"0.13.2","message":{"role":"user","parts":[{"text":"hi"}]}}"#,
        r#"{"uuid":"a1","parentUuid":"u1","sessionId":"q1","timestamp":"2026-05-01T10:00:01Z","type":"assistant","model":"qwen3-coder-plus","message":{"role":"model","parts":[{"text":"ok"}]},"usageMetadata":{"promptTokenCount":1000,"cachedContentTokenCount":400,"candidatesTokenCount":50,"thoughtsTokenCount":10,"totalTokenCount":1060}}"#,
        r#"{"uuid":"s1","parentUuid":null,"sessionId":"q1","timestamp":"2026-05-01T10:00:02Z","type":"assistant","isSidechain":true,"agentId":"ag1","model":"qwen3-coder-plus","message":{"role":"model","parts":[{"text":"side"}]},"usageMetadata":{"promptTokenCount":200,"candidatesTokenCount":5}}"#,
        r#"{"uuid":"x1","parentUuid":"a1","sessionId":"q1","timestamp":"2026-05-01T10:00:03Z","type":"system","subtype":"ui_telemetry","usageMetadata":{"promptTokenCount":99999}}"#,
        "{\"uuid\":\"a2\",\"torn",
    ];
    let file = chats.join("q1.jsonl");
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let found = Store::Qwen.discover(dir.path()).unwrap();
    assert_eq!(found.len(), 1);
    let read = usage::read(&found[0]).unwrap();
    assert_eq!(read.session, "q1");
    let total = read.total();
    assert_eq!(
        (
            total.input_tokens,
            total.cache_read_tokens,
            total.output_tokens,
            total.reasoning_tokens
        ),
        (600 + 200, 400, 60 + 5, 10)
    );
    assert_eq!(read.diagnostics.len(), 1);
    assert_eq!(read.diagnostics[0].1.line, 5);
    assert_eq!(compare(Store::Qwen, dir.path()), 1);
}

/// OpenCode (the JSON files): a message's steps count, not its own tokens; a `step-finish`
/// spelled with escapes is read; a part cut mid-write is reported at its file; a reported
/// cost is the cost; the importer agrees.
#[test]
fn opencode_steps_escaped_parts_read_torn_parts_located() {
    let dir = crate::support::TempDir::new("usage-opencode");
    let storage = dir.path().join("storage");
    let write = |path: &str, text: &str| {
        let path = storage.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "session/proj/ses_a.json",
        r#"{"id":"ses_a","directory":"/w","version":"1.1.0","title":"t","time":{"created":1767261600000}}"#,
    );
    write(
        "message/ses_a/msg_1.json",
        r#"{"role":"user","time":{"created":1767261600000}}"#,
    );
    // Its own tokens are the steps' sum as OpenCode writes it: the steps count.
    write(
        "message/ses_a/msg_2.json",
        r#"{"role":"assistant","time":{"created":1767261601000},"modelID":"claude-sonnet-4-5","providerID":"anthropic","cost":9,"tokens":{"input":999,"output":999}}"#,
    );
    write(
        "part/msg_2/prt_1.json",
        r#"{"type":"step-finish","tokens":{"input":100,"output":10,"reasoning":5,"cache":{"read":1000,"write":50}},"cost":0.25}"#,
    );
    write(
        "part/msg_2/prt_2.json",
        r#"{"\u0074ype":"step\u002dfinish","tokens":{"input":1,"output":2,"reasoning":0,"cache":{"read":3,"write":4}},"cost":0.5}"#,
    );
    write("part/msg_2/prt_3.json", r#"{"type":"text","text":"cut"#);
    // No step part: the message's own tokens.
    write(
        "message/ses_a/msg_3.json",
        r#"{"role":"assistant","time":{"created":1767348001000},"modelID":"claude-sonnet-4-5","providerID":"anthropic","cost":1,"tokens":{"input":7,"output":8,"reasoning":0,"cache":{"read":0,"write":0}}}"#,
    );
    let found = Store::OpenCode.discover(dir.path()).unwrap();
    assert_eq!(found.len(), 1);
    let read = usage::read(&found[0]).unwrap();
    assert_eq!(read.session, "ses_a");
    let total = read.total();
    assert_eq!(
        (
            total.input_tokens,
            total.output_tokens,
            total.reasoning_tokens,
            total.cache_read_tokens,
            total.cache_write_tokens
        ),
        (108, 25, 5, 1003, 54)
    );
    let model = "anthropic/claude-sonnet-4-5";
    assert_eq!(read.reported("2026-01-01", model), Some(0.75));
    assert_eq!(read.reported("2026-01-02", model), Some(1.0));
    assert_eq!(read.diagnostics.len(), 1);
    assert!(read.diagnostics[0].0.ends_with("prt_3.json"));
    assert_eq!(compare(Store::OpenCode, dir.path()), 1);
}
