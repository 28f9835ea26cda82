//! Views of one adapter's output for the exact-value tests of `gemini.rs`, `copilot.rs`
//! and their kind: the adapter run on a whole input, its blocks as one line each, the real
//! captures beside the repository.

use std::path::PathBuf;

use axt::model::Block;
use axt::normalize::{Normalized, Options, Provider, Severity, normalize_lossy};

// The note is for whoever runs the tests without the shared captures beside the checkout.
#[allow(clippy::print_stderr)]
pub(crate) fn captures(provider: &str) -> Option<Vec<PathBuf>> {
    let dir = super::shared_captures(provider);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("note: {} is absent; capture checks skipped", dir.display());
        return None;
    };
    let mut files: Vec<PathBuf> = entries
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    Some(files)
}

pub(crate) fn run(provider: Provider, input: &[u8]) -> Normalized {
    normalize_lossy(provider, input, Options::default())
}

/// `type` plus the identifying field of each block, for exact sequences.
pub(crate) fn sequence(normalized: &Normalized) -> Vec<String> {
    normalized
        .items
        .iter()
        .map(|item| {
            let role = item.role.as_str();
            match &item.block.block {
                Block::Text { text, .. } => format!("{role} text {text:?}"),
                Block::Thinking { thinking, .. } => format!("{role} thinking {thinking:?}"),
                Block::ToolUse {
                    tool_name, tool_id, ..
                } => format!("{role} tool_use {tool_name} {tool_id}"),
                Block::ToolResult {
                    tool_id,
                    tool_content,
                    is_error,
                    ..
                } => format!("{role} tool_result {tool_id} {tool_content} error={is_error}"),
                Block::Command { command, .. } => format!("{role} command {command:?}"),
                other => format!("{role} {}", other.type_name()),
            }
        })
        .collect()
}

pub(crate) fn assert_no_errors(name: &str, normalized: &Normalized) {
    let errors: Vec<_> = normalized
        .diagnostics
        .iter()
        .filter(|d| d.severity() == Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{name}: {errors:#?}");
}
