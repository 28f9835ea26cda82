//! Honest figures: what a run cost (reported, estimated from the price table, or unknown,
//! never `$0`), how long it took (measured, reported, from the provider's stamps, or no
//! duration for an undated run, never `0ms`), its tokens counted as OpenTelemetry counts
//! them, results without their call, and an empty file, as `axt stats`, `axt tree` and the
//! library's summary give them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use axt::read::summary::summarize;
use axt::read::{Prices, duration::DurationSource};
use serde_json::Value;

use crate::cli::{axt, text};
use crate::support::{TempDir, normalize_corpus, replay_agent};

/// `axt ARGS` with environment variables set (and `AXT_PRICES` cleared unless given).
fn axt_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_axt"));
    command
        .args(args)
        .current_dir(crate::support::ROOT)
        .env_remove("AXT_PRICES")
        .env("XDG_CONFIG_HOME", "/nonexistent-axt-test-config")
        .stdin(Stdio::null());
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().unwrap()
}

/// Normalizes a provider fixture (`codex/ok/x.jsonl`) with a fixed clock into `dir`.
fn normalized(dir: &Path, fixture: &str) -> PathBuf {
    let (provider, rest) = fixture.split_once('/').unwrap();
    let input = normalize_corpus(provider).join(rest);
    let output = axt(
        &[
            "normalize",
            "--clock",
            "fixed:2026-06-08T08:14:42Z",
            "--out",
            dir.to_str().unwrap(),
            input.to_str().unwrap(),
        ],
        b"",
    );
    assert!(
        output.status.code().unwrap() <= 1,
        "{}",
        text(&output.stderr)
    );
    let wrote = text(&output.stderr);
    let path = wrote
        .lines()
        .find_map(|l| l.strip_prefix("axt: wrote "))
        .unwrap_or_else(|| panic!("{wrote}"));
    PathBuf::from(path)
}

/// The line of `report` that starts with `label` (`  cost:`), trimmed.
fn line<'a>(report: &'a str, label: &str) -> &'a str {
    report
        .lines()
        .find(|l| l.trim_start().starts_with(label))
        .unwrap_or_else(|| panic!("no {label} in {report}"))
        .trim()
}

#[test]
fn a_cost_is_reported_estimated_or_unknown_never_zero() {
    let dir = TempDir::new("costs");
    // Claude reports its cost; Copilot's session log names its model and reports none;
    // Codex's exec output names no model at all.
    let claude = normalized(
        dir.path(),
        "claude/ok/plain-session-thinking-text-bash.jsonl",
    );
    let copilot = normalized(
        dir.path(),
        "copilot/ok/session-log-events-jsonl-shutdown-model-metrics.jsonl",
    );
    let codex = normalized(
        dir.path(),
        "codex/ok/plain-session-reasoning-message-command.jsonl",
    );
    let stats = |file: &Path| {
        let output = axt_env(&["stats", file.to_str().unwrap()], &[]);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        line(&text(&output.stdout), "cost:").to_owned()
    };
    assert_eq!(stats(&claude), "cost:     $0.0413");
    assert_eq!(
        stats(&copilot),
        "cost:     $0.0303 est. ($0.0303 estimated for 1 agent at claude-sonnet-4-5 prices)"
    );
    assert_eq!(stats(&codex), "cost:     unknown");

    let output = axt_env(&["stats", "--json", dir.path().to_str().unwrap()], &[]);
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let cost = &report["total"]["cost"];
    assert_eq!(
        (
            cost["reported"].as_u64(),
            cost["estimated"].as_u64(),
            cost["unknown"].as_u64()
        ),
        (Some(1), Some(1), Some(1))
    );
    assert_eq!(cost["priced_as"], serde_json::json!(["claude-sonnet-4-5"]));
    let total = text(&axt_env(&["stats", dir.path().to_str().unwrap()], &[]).stdout);
    let total = total.split("total (3 files)").nth(1).unwrap();
    assert_eq!(
        line(total, "cost:"),
        "cost:     $0.0716 est. + unknown ($0.0413 reported for 1 agent; $0.0303 estimated for 1 agent at claude-sonnet-4-5 prices; 1 agent unknown)"
    );

    // The library's summary says the same, and keeps the two apart.
    let summary = summarize(&copilot, Prices::builtin()).unwrap().unwrap();
    // 45 x $3 + 70 x $15 + 24,576 x $0.30 + 5,791 x $3.75 per million tokens.
    assert_eq!(summary.cost.label(), "$0.0303 est.");
    assert_eq!(summary.cost.reported, 0);
}

#[test]
fn a_users_price_table_is_laid_over_the_shipped_one() {
    let dir = TempDir::new("prices");
    let codex_like = normalized(
        dir.path(),
        "copilot/ok/session-log-events-jsonl-shutdown-model-metrics.jsonl",
    );
    let table = dir.path().join("prices.json");
    std::fs::write(
        &table,
        r#"{"format": 1, "date": "2027-01-01", "source": "our contract",
            "models": {"claude-sonnet-4-5": {"input": 0, "output": 0, "cache_read": 0, "cache_write": 0}}}"#,
    )
    .unwrap();
    let file = codex_like.to_str().unwrap();
    let output = axt_env(&["stats", file], &[("AXT_PRICES", table.to_str().unwrap())]);
    assert_eq!(
        line(&text(&output.stdout), "cost:"),
        "cost:     $0.00 est. ($0.00 estimated for 1 agent at claude-sonnet-4-5 prices)"
    );
    // The same file found in the configuration directory.
    std::fs::create_dir_all(dir.path().join("config/axt")).unwrap();
    std::fs::copy(&table, dir.path().join("config/axt/prices.json")).unwrap();
    let config = dir.path().join("config");
    let output = axt_env(
        &["stats", file],
        &[("XDG_CONFIG_HOME", config.to_str().unwrap())],
    );
    assert!(line(&text(&output.stdout), "cost:").starts_with("cost:     $0.00 est."));
    // A table that is not one: said, and the shipped table used.
    std::fs::write(
        &table,
        "{\"format\": 1, \"models\": {\"m\": {\"input\": \"x\"}}}",
    )
    .unwrap();
    let output = axt_env(&["stats", file], &[("AXT_PRICES", table.to_str().unwrap())]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        line(&text(&output.stdout), "cost:"),
        "cost:     $0.0303 est. ($0.0303 estimated for 1 agent at claude-sonnet-4-5 prices)"
    );
    let warning = text(&output.stderr);
    assert!(
        warning.starts_with(&format!(
            "axt: warning: price table not read, using the one axt ships ({}): {}:1: invalid type",
            Prices::builtin().date,
            table.display()
        )),
        "{warning}"
    );
}

#[test]
fn input_tokens_are_the_whole_prompt_as_the_otlp_export_counts_them() {
    let dir = TempDir::new("tokens");
    let claude = normalized(
        dir.path(),
        "claude/ok/plain-session-thinking-text-bash.jsonl",
    );
    let stats = text(&axt_env(&["stats", claude.to_str().unwrap()], &[]).stdout);
    assert_eq!(
        line(&stats, "tokens:"),
        "tokens:   input 42390 (4 uncached + 36864 cache read + 5522 cache write), output 168 (0 reasoning)"
    );
    let spans = axt_env(&["export", "--to", "otlp", claude.to_str().unwrap()], &[]);
    let spans: Value = serde_json::from_slice(&spans.stdout).unwrap();
    let attributes = &spans["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["attributes"];
    let input = attributes
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["key"] == "gen_ai.usage.input_tokens")
        .unwrap();
    assert_eq!(input["value"]["intValue"], "42390");
}

#[test]
fn a_result_without_its_call_is_not_a_failed_call() {
    let transcript = concat!(
        r#"{"seq":1,"run_id":"r","type":"run.started","path":"","iteration":0,"timestamp":"2026-06-08T08:14:42Z","payload":{"name":"w","kind":"workflow"}}"#,
        "\n",
        r#"{"seq":2,"run_id":"r","type":"tool.result","path":"","iteration":0,"timestamp":"2026-06-08T08:14:43Z","payload":{"name":"Read","call_id":"c-0","input":null,"output":null,"error":"no such file","fidelity":"agent_emitted"}}"#,
        "\n",
        r#"{"seq":3,"run_id":"r","type":"tool.call","path":"","iteration":0,"timestamp":"2026-06-08T08:14:43Z","payload":{"name":"Read","call_id":"c-1","input":{"file_path":"a"},"output":null,"fidelity":"agent_emitted"}}"#,
        "\n",
        r#"{"seq":4,"run_id":"r","type":"tool.result","path":"","iteration":0,"timestamp":"2026-06-08T08:14:44Z","payload":{"name":"Read","call_id":"c-1","input":null,"output":"x","fidelity":"agent_emitted"}}"#,
        "\n",
        r#"{"seq":5,"run_id":"r","type":"run.completed","path":"","iteration":0,"timestamp":"2026-06-08T08:14:45Z","payload":{"name":"w","kind":"workflow"}}"#,
        "\n",
    );
    let output = axt(&["stats", "-"], transcript.as_bytes());
    assert_eq!(
        line(&text(&output.stdout), "tools:"),
        "tools:    Read 1 (0 failed; 1 result without its call)"
    );
    let output = axt(&["stats", "--json", "-"], transcript.as_bytes());
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        report["total"]["tools"]["Read"],
        serde_json::json!({"calls": 1, "failures": 0, "results_without_call": 1})
    );
    let alone = transcript.lines().take(2).collect::<Vec<_>>().join("\n") + "\n";
    let output = axt(&["stats", "-"], alone.as_bytes());
    assert_eq!(
        line(&text(&output.stdout), "tools:"),
        "tools:    Read no call, 1 result without its call"
    );
}

#[test]
fn stats_of_an_empty_file_is_the_problem_check_reports() {
    let output = axt(&["stats", "-"], b"");
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stderr),
        "-:1: byte 0: no-event: the file is empty: no event\n"
    );
    assert_eq!(
        line(&text(&output.stdout), "problems:"),
        "problems: no-event 1"
    );
    let blank = axt(&["stats", "-"], b"\n\n");
    assert_eq!(
        text(&blank.stderr),
        "-:2: byte 2: no-event: the file holds only blank lines: no event\n"
    );
    assert_eq!(
        text(&axt(&["check", "-"], b"\n\n").stderr),
        text(&blank.stderr)
    );
}

#[test]
fn an_undated_run_has_no_duration_rather_than_0ms() {
    let dir = TempDir::new("undated");
    // Codex's exec output stamps nothing and reports no duration: with a fixed clock every
    // event has the same time.
    let codex = normalized(
        dir.path(),
        "codex/ok/plain-session-reasoning-message-command.jsonl",
    );
    let tree = text(&axt(&["tree", codex.to_str().unwrap()], b"").stdout);
    assert!(!tree.contains("0ms"), "{tree}");
    assert!(
        tree.starts_with("run 019c9a10-4b2e-7c81-a3f0-5d1e2c7b9a41 codex completed (10 events"),
        "{tree}"
    );
    assert!(
        tree.contains("└─ step agent [agent] iteration 0 completed\n"),
        "{tree}"
    );
    let stats = text(&axt(&["stats", codex.to_str().unwrap()], b"").stdout);
    assert_eq!(
        line(&stats, "duration:"),
        "duration: none (1 undated run: nothing measured, reported or stamped)"
    );
    let summary = summarize(&codex, Prices::builtin()).unwrap().unwrap();
    assert_eq!((summary.duration, summary.dated), (None, false));
    // Claude reports its duration; Copilot's session log stamps its records.
    let claude = normalized(
        dir.path(),
        "claude/ok/plain-session-thinking-text-bash.jsonl",
    );
    let summary = summarize(&claude, Prices::builtin()).unwrap().unwrap();
    let duration = summary.duration.unwrap();
    assert_eq!(
        (duration.ms, duration.source),
        (7841, DurationSource::Reported)
    );
    assert!(!summary.dated);
    let copilot = normalized(
        dir.path(),
        "copilot/ok/session-log-events-jsonl-shutdown-model-metrics.jsonl",
    );
    let summary = summarize(&copilot, Prices::builtin()).unwrap().unwrap();
    let duration = summary.duration.unwrap();
    // 2026-06-18T19:13:41.577Z to 19:13:49.607Z.
    assert_eq!(
        (duration.ms, duration.source),
        (8030, DurationSource::ProviderTimes)
    );
    assert!(summary.dated);
}

/// `axt exec` measures the run and its agent step on a monotonic clock; Claude reports its
/// own duration too. The two are labelled, not left to disagree.
#[test]
fn a_measured_duration_and_the_providers_own_are_labelled() {
    let dir = TempDir::new("measured");
    let fixture = normalize_corpus("claude").join("ok/plain-session-thinking-text-bash.jsonl");
    let script = replay_agent();
    let output = axt(
        &[
            "exec",
            "--provider",
            "claude",
            "--out",
            dir.path().to_str().unwrap(),
            "--run-id",
            "measured",
            "--",
            "python3",
            &script,
            fixture.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let file = dir.path().join("measured.jsonl");
    let summary = summarize(&file, Prices::builtin()).unwrap().unwrap();
    let duration = summary.duration.unwrap();
    assert_eq!(duration.source, DurationSource::Measured);
    assert_eq!(summary.reported_duration_ms, Some(7841));
    let tree = text(&axt(&["tree", file.to_str().unwrap()], b"").stdout);
    let first = tree.lines().next().unwrap();
    assert!(
        first.starts_with("run measured claude completed ")
            && first.contains(" measured (the provider reported 7.8s) (10 events, "),
        "{first}"
    );
}

#[test]
fn the_shipped_price_table_is_dated_sourced_and_covers_the_corpus_models() {
    let prices = Prices::builtin();
    assert!(
        prices
            .source
            .starts_with("LiteLLM's model_prices_and_context_window.json")
    );
    assert_eq!(prices.date.len(), "2026-11-26".len());
    // Every model the provider corpora name that a provider sells by the token is priced.
    for model in [
        "claude-sonnet-4-6",
        "claude-sonnet-4-5-20250929",
        "claude-sonnet-4-20250514",
        "claude-haiku-4-5-20251001",
        "claude-opus-4-7",
        "gpt-4.1-2025-04-14",
        "o4-mini-2025-04-16",
        "gpt-5",
        "gpt-5.1-codex-max",
        "gpt-5.4-mini-2026-03-17",
        "gpt-4o-2024-11-20",
        "gemini-2.5-flash",
        "gemini-2.5-pro",
        "deepseek-reasoner",
        "codex-mini-latest",
    ] {
        assert!(prices.lookup(model).is_some(), "{model}");
    }
    let readme = std::fs::read_to_string(crate::support::root().join("data/README.md")).unwrap();
    assert!(
        readme.contains(&prices.date),
        "data/README.md names the table's date"
    );
}
