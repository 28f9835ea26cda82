//! What the AgentLog export derives from a tool call's input and output, and from times:
//! file operations and their diffs, outputs as text, durations, citations moved into a
//! joined text.
//!
//! This file owns those small derivations. It must not build events (`events.rs`) and
//! classifies tools only through the shared table (`model::tools`).

use serde_json::Value;

use crate::model::tools::{ToolClass, classify};
use crate::model::{Citation, ExchangeEvent};

pub(super) fn millis(from: &ExchangeEvent, to: &ExchangeEvent) -> Option<u64> {
    let a = from.timestamp.unix_nanos().ok()?;
    let b = to.timestamp.unix_nanos().ok()?;
    (b >= a).then(|| ((b - a) / 1_000_000) as u64)
}

/// A text block's citations for a `message` whose `content` joins the texts before it with
/// newlines: their offsets are moved by the characters that precede the block there.
pub(super) fn joined_citations(before: &[String], citations: &[Citation]) -> Vec<Value> {
    let shift = before
        .iter()
        .map(|text| text.chars().count() as u64 + 1)
        .sum::<u64>();
    citations
        .iter()
        .filter_map(|citation| {
            let mut citation = citation.clone();
            citation.start_index = citation.start_index.map(|at| at + shift);
            citation.end_index = citation.end_index.map(|at| at + shift);
            // The reader refused any citation the strict writer would, so this cannot fail.
            serde_json::to_value(&citation).ok()
        })
        .collect()
}

/// Claude Code reports a failed command's status as the first line, `Exit code N`.
pub(super) fn exit_code(output: &str, failed: bool) -> Option<i64> {
    let rest = output.strip_prefix("Exit code ")?;
    let code = rest
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()?;
    (failed || code == 0).then_some(code)
}

pub(super) struct FileOp {
    pub(super) operation: &'static str,
    pub(super) path: String,
    pub(super) diff: Option<String>,
}

/// The file operations of a file tool call.
pub(super) fn file_operations(name: &str, input: &Value) -> Vec<FileOp> {
    let path = ["file_path", "path", "absolute_path", "notebook_path"]
        .iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
        .map(str::to_owned);
    let single = |operation, diff| {
        path.clone()
            .map(|path| {
                vec![FileOp {
                    operation,
                    path,
                    diff,
                }]
            })
            .unwrap_or_default()
    };
    match classify(name) {
        Some(ToolClass::FileRead) => single("read", None),
        Some(ToolClass::FileWrite) => single("create", None),
        Some(ToolClass::FileEdit) => {
            // `MultiEdit` lists its edits; `Edit` and its kin are one edit.
            let edits: Vec<&Value> = match input.get("edits") {
                Some(Value::Array(edits)) => edits.iter().collect(),
                Some(_) => Vec::new(),
                None => vec![input],
            };
            let diff = edit_diff(path.as_deref().unwrap_or(""), &edits);
            single("edit", diff)
        }
        Some(ToolClass::FilePatch) => input
            .get("changes")
            .and_then(Value::as_array)
            .map(|changes| {
                changes
                    .iter()
                    .filter_map(|c| {
                        let path = c.get("path")?.as_str()?.to_owned();
                        let operation = match c.get("kind") {
                            Some(Value::String(k)) => k.as_str(),
                            Some(Value::Object(k)) => {
                                k.get("type").and_then(Value::as_str).unwrap_or("update")
                            }
                            _ => "update",
                        };
                        let operation = match operation {
                            "add" | "create" => "create",
                            "delete" | "remove" => "delete",
                            _ => "edit",
                        };
                        let diff = c
                            .get("diff")
                            .or(c.get("unified_diff"))
                            .and_then(Value::as_str)
                            .map(str::to_owned);
                        Some(FileOp {
                            operation,
                            path,
                            diff,
                        })
                    })
                    .collect()
            })
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// A unified diff of `old_string` -> `new_string` edits (no line numbers: the tool input
/// does not say where in the file they are).
fn edit_diff(path: &str, edits: &[&Value]) -> Option<String> {
    let mut diff = format!("--- a/{path}\n+++ b/{path}\n");
    let mut any = false;
    for edit in edits {
        let (Some(old), Some(new)) = (
            edit.get("old_string").and_then(Value::as_str),
            edit.get("new_string").and_then(Value::as_str),
        ) else {
            continue;
        };
        any = true;
        let (o, n) = (old.lines().count(), new.lines().count());
        diff.push_str(&format!("@@ -{o} +{n} @@\n"));
        for line in old.lines() {
            diff.push_str(&format!("-{line}\n"));
        }
        for line in new.lines() {
            diff.push_str(&format!("+{line}\n"));
        }
    }
    any.then_some(diff)
}

pub(super) fn diff_counts(diff: &str) -> (u64, u64) {
    let mut counts = (0, 0);
    for line in diff.lines() {
        if line.starts_with('+') && !line.starts_with("+++") {
            counts.0 += 1;
        } else if line.starts_with('-') && !line.starts_with("---") {
            counts.1 += 1;
        }
    }
    counts
}
