//! The Codex adapter on real captures (`../shared/captures/codex/`, beside the repository)
//! and exact values for the rules that matter most: cumulative usage, `item.updated`,
//! NUL bytes, failed and declined commands.

use std::path::Path;

use axt::model::Block;
use axt::normalize::{
    DiagnosticKind, Normalized, Options, Provider, RunStatus, Severity, normalize_lossy,
};
use serde_json::{Value, json};

use crate::support::ROOT;
use crate::support::Tokens;

fn fixture(name: &str) -> Normalized {
    let input = std::fs::read(format!("{ROOT}/corpus/normalize/codex/{name}")).unwrap();
    normalize_lossy(Provider::Codex, &input, Options::default())
}

/// Each block as a short line: `role type name-or-id detail`.
fn sketch(normalized: &Normalized) -> Vec<String> {
    normalized
        .items
        .iter()
        .map(|item| {
            let role = item.role.as_str();
            match &item.block.block {
                Block::Text { text, .. } => format!("{role} text {text}"),
                Block::Thinking { thinking, .. } => format!("{role} thinking {thinking}"),
                Block::ToolUse {
                    tool_name,
                    tool_id,
                    tool_input,
                    ..
                } => format!("{role} tool_use {tool_name} {tool_id} {tool_input}"),
                Block::Command { command, tool_id } => {
                    format!("{role} command {} {command}", tool_id.as_deref().unwrap_or("-"))
                }
                Block::ToolResult {
                    tool_id,
                    tool_content,
                    is_error,
                    exit_code,
                } => format!("{role} tool_result {tool_id} {tool_content} error={is_error} exit={exit_code:?}"),
                other => format!("{role} {}", other.type_name()),
            }
        })
        .collect()
}

/// The captures directory sits beside the repository; without it there is nothing to check,
/// which is said on stderr (the one place these tests print, hence the `allow`).
#[allow(clippy::print_stderr)]
fn skipped(path: &Path) {
    eprintln!("note: {} is absent; capture check skipped", path.display());
}

fn capture(name: &str) -> Option<Normalized> {
    let path = Path::new(ROOT).join("../shared/captures/codex").join(name);
    if !path.exists() {
        skipped(&path);
        return None;
    }
    let input = std::fs::read(&path).unwrap();
    let normalized = normalize_lossy(Provider::Codex, &input, Options::default());
    assert_eq!(
        Provider::detect(&input),
        Some(Provider::Codex),
        "{name} is recognized as Codex output"
    );
    let errors: Vec<_> = normalized
        .diagnostics
        .iter()
        .filter(|d| d.severity() == Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{name}: {errors:#?}");
    Some(normalized)
}

#[test]
fn every_capture_normalizes_without_errors() {
    let dir = Path::new(ROOT).join("../shared/captures/codex");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        skipped(&dir);
        return;
    };
    let mut seen = 0;
    for entry in entries {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".jsonl") {
            let normalized = capture(&name).unwrap();
            assert!(!normalized.items.is_empty(), "{name} yields blocks");
            seen += 1;
        }
    }
    assert!(seen >= 9, "all nine captures were read, not {seen}");
}

#[test]
fn capture_failed_command() {
    let Some(normalized) = capture("failed_command.jsonl") else {
        return;
    };
    assert_eq!(
        sketch(&normalized),
        [
            "assistant thinking **Preparing to execute command**",
            "assistant text Running `exit 42` in a shell now and then I'll report the exact exit status.",
            r#"assistant tool_use shell item_2 {"command":"/bin/bash -lc 'exit 42'"}"#,
            "assistant command item_2 /bin/bash -lc 'exit 42'",
            r#"user tool_result item_2 "" error=true exit=Some(42)"#,
            "assistant text The command exited with code `42`.",
        ]
    );
    assert_eq!(normalized.meta.status, RunStatus::Completed);
    assert_eq!(
        normalized.meta.session_id.as_deref(),
        Some("019c8143-0e53-7271-89e8-3eec4d067c77")
    );
    assert_eq!(
        normalized.meta.usage,
        Tokens {
            input_tokens: 15086 - 14080,
            output_tokens: 114,
            cache_read_tokens: 14080,
            cache_write_tokens: 0,
            reasoning_tokens: 0,
        }
    );
    assert!(normalized.diagnostics.is_empty());
}

#[test]
fn capture_file_change() {
    let Some(normalized) = capture("file_change.jsonl") else {
        return;
    };
    let changes = json!({"changes": [{
        "path": "/tmp/codex_patch_test/test.txt",
        "kind": "update",
        "diff": "@@ -1 +1 @@\n-old content\n+new content\n",
    }]});
    assert_eq!(
        sketch(&normalized),
        [
            "assistant thinking **Planning preliminary file inspection**".to_owned(),
            "assistant text I'll update `test.txt` directly by writing the file contents (not via shell redirection commands), then verify the change.".to_owned(),
            "assistant thinking **Applying patch via file write**".to_owned(),
            format!("assistant tool_use apply_patch item_3 {changes}"),
            r#"user tool_result item_3 "completed" error=false exit=None"#.to_owned(),
            "assistant thinking **Verifying patch success with file read**".to_owned(),
            "assistant text I've written the file update. I'm now checking `test.txt` to confirm it contains exactly the new text.".to_owned(),
            r#"assistant tool_use shell item_6 {"command":"/bin/bash -lc 'cat /tmp/codex_patch_test/test.txt'"}"#.to_owned(),
            "assistant command item_6 /bin/bash -lc 'cat /tmp/codex_patch_test/test.txt'".to_owned(),
            r#"user tool_result item_6 "new content\n" error=false exit=Some(0)"#.to_owned(),
            "assistant text Updated `test.txt` via a direct file edit. It now contains:\n\n`new content`".to_owned(),
        ]
    );
}

#[test]
fn capture_forge_mcp_recording() {
    let Some(normalized) = capture("current-format.recorded.forge-test.jsonl") else {
        return;
    };
    assert_eq!(
        sketch(&normalized),
        [
            "assistant tool_use mcp__forge__secret_word item_0 {}",
            r#"user tool_result item_0 [{"text":"zebra-42","type":"text"}] error=false exit=None"#,
            "assistant text The secret word is zebra-42.",
            "assistant tool_use mcp__forge__secret_word item_1 {}",
            r#"user tool_result item_1 "MCP tool call requires approval, but approval policy is never" error=true exit=None"#,
        ]
    );
    // The second turn failed after the first completed: the run failed, fatally.
    assert_eq!(normalized.meta.status, RunStatus::Failed);
    let errors: Vec<_> = normalized
        .meta
        .errors
        .iter()
        .map(|e| (e.message.as_str(), e.fatal, e.line))
        .collect();
    assert_eq!(errors, [("You have hit your usage limit", true, 8)]);
    assert!(normalized.diagnostics.is_empty());
}

#[test]
fn capture_legacy_and_interim_formats() {
    if let Some(legacy) = capture("legacy-msg-format.vibe-kanban-tests.jsonl") {
        let sketch = sketch(&legacy);
        assert_eq!(sketch.len(), 10, "{sketch:#?}");
        assert!(sketch[0].starts_with("user text project_id: f61fbd6a"));
        assert_eq!(
            sketch[3],
            "assistant command call_I1o1QnQDtlLjGMg4Vd9HXJLd bash -lc 'ls -1'"
        );
        assert_eq!(
            sketch[8],
            r#"user tool_result call_KHwEJyaUuL5D8sO7lPfImx7I [{"text":"Projects listed successfully"}] error=false exit=None"#
        );
        assert_eq!(legacy.meta.model.as_deref(), Some("codex-mini-latest"));
        assert_eq!(legacy.meta.status, RunStatus::Completed);
        assert_eq!(legacy.meta.usage.reasoning_tokens, 384);
        assert_eq!(legacy.meta.usage.input_tokens, 1674 - 1627);
    }
    if let Some(interim) = capture("item_type-interim-format.openai-codex-PR4525.jsonl") {
        assert_eq!(
            sketch(&interim),
            [
                "assistant thinking **Planning to list assigned GitHub issues**",
                "assistant tool_use mcp__github__search_issues item_1 {}",
                "user tool_result item_1 null error=false exit=None",
                "assistant thinking **Organizing final message structure**",
            ]
        );
        // The excerpt stops before its turn ends.
        let kinds: Vec<_> = interim.diagnostics.iter().map(|d| d.kind).collect();
        assert_eq!(kinds, [DiagnosticKind::MissingTerminal]);
        assert_eq!(interim.meta.status, RunStatus::Incomplete);
    }
}

#[test]
fn cumulative_usage_is_replaced_not_summed() {
    let normalized = fixture("ok/multi-turn-cumulative-usage.jsonl");
    // Three turn.completed records: 8000/6000/100, 17000/14000/180, 27500/23000/260.
    // Summing them would give input 52500 and output 540.
    assert_eq!(
        normalized.meta.usage,
        Tokens {
            input_tokens: 4500,
            output_tokens: 260,
            cache_read_tokens: 23000,
            cache_write_tokens: 0,
            reasoning_tokens: 64,
        }
    );
    assert_eq!(
        normalized.meta.raw_usage,
        Some(
            json!({"input_tokens": 27500, "cached_input_tokens": 23000, "output_tokens": 260, "reasoning_output_tokens": 64})
        )
    );
}

#[test]
fn item_updated_is_not_duplicated() {
    let normalized = fixture("ok/item-updated-growing-output.jsonl");
    let results: Vec<(&str, &Value)> = normalized
        .blocks()
        .filter_map(|block| match &block.block {
            Block::ToolResult {
                tool_id,
                tool_content,
                ..
            } => Some((tool_id.as_str(), &**tool_content)),
            _ => None,
        })
        .collect();
    assert_eq!(
        results,
        [
            ("item_0", &json!("tick 1\ntick 2\ntick 3\n")),
            // Completion with an empty output: the last item.updated copy stands in.
            ("item_1", &json!("cc -O2 -c main.c\ncc -o app main.o\n")),
        ]
    );
    let calls = normalized
        .blocks()
        .filter(|block| matches!(block.block, Block::ToolUse { .. }))
        .count();
    assert_eq!(calls, 2, "one call per command, however many updates");
    assert!(
        !normalized
            .blocks()
            .any(|block| matches!(block.block, Block::Stream { .. }))
    );
}

#[test]
fn raw_nul_bytes_keep_their_code_point() {
    let normalized = fixture("ok/nul-bytes-in-output-and-message.jsonl");
    let output = normalized.blocks().find_map(|block| match &block.block {
        Block::ToolResult { tool_content, .. } => tool_content.as_str(),
        _ => None,
    });
    assert_eq!(output, Some("\0a NUL b \0c"));
    let text = normalized.blocks().find_map(|block| match &block.block {
        Block::Text { text, .. } => Some(text.as_str()),
        _ => None,
    });
    assert_eq!(
        text,
        Some("The output holds NULs: \0 and an escaped \0 too.")
    );
    assert!(
        normalized
            .diagnostics
            .iter()
            .all(|d| d.kind == DiagnosticKind::ControlCharacters)
    );
    assert_eq!(normalized.meta.status, RunStatus::Completed);
}

#[test]
fn failed_and_declined_commands() {
    let normalized = fixture("ok/commands-failed-and-declined.jsonl");
    let results: Vec<(&str, bool, Option<i64>)> = normalized
        .blocks()
        .filter_map(|block| match &block.block {
            Block::ToolResult {
                tool_id,
                is_error,
                exit_code,
                ..
            } => Some((tool_id.as_str(), *is_error, *exit_code)),
            _ => None,
        })
        .collect();
    assert_eq!(
        results,
        [
            ("item_1", true, Some(101)),
            ("item_2", false, Some(0)),
            ("item_3", true, None),
        ]
    );
}
