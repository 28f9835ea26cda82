//! What a file tool call does to files, read from its input: the operations (read, create,
//! edit, delete), their paths, and the change each makes where the input says it (the
//! `old_string` -> `new_string` edits of an edit call, the diff of each change of a patch).
//!
//! The exporters share it: AgentLog writes a `fileOperation` per operation, the HTML view
//! shows edits as diffs. It owns the input fields of file tools; which tools are file tools
//! is the model's table ([`classify`]), never decided here. It reads a canonical
//! `tool.call` input only, never a provider's records.

use serde_json::Value;

use crate::model::tools::{ToolClass, classify};

/// One file operation of a call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FileOp<'a> {
    /// `read`, `create`, `edit` or `delete`.
    pub(crate) operation: &'static str,
    /// The path as the input names it.
    pub(crate) path: String,
    /// An edit call's replacements, in order (empty for other operations).
    pub(crate) edits: Vec<Edit<'a>>,
    /// A patch change's unified diff, when the input carries one.
    pub(crate) diff: Option<String>,
}

/// One replacement of an edit call: `old` becomes `new`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Edit<'a> {
    pub(crate) old: &'a str,
    pub(crate) new: &'a str,
}

/// The file operations of a file tool call; empty for any other call.
pub(crate) fn file_operations<'a>(name: &str, input: &'a Value) -> Vec<FileOp<'a>> {
    let path = ["file_path", "path", "absolute_path", "notebook_path"]
        .iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
        .map(str::to_owned);
    let single = |operation, edits| {
        path.clone()
            .map(|path| {
                vec![FileOp {
                    operation,
                    path,
                    edits,
                    diff: None,
                }]
            })
            .unwrap_or_default()
    };
    match classify(name) {
        Some(ToolClass::FileRead) => single("read", Vec::new()),
        Some(ToolClass::FileWrite) => single("create", Vec::new()),
        Some(ToolClass::FileEdit) => {
            // `MultiEdit` lists its edits; `Edit` and its kin are one edit.
            let edits: Vec<&Value> = match input.get("edits") {
                Some(Value::Array(edits)) => edits.iter().collect(),
                Some(_) => Vec::new(),
                None => vec![input],
            };
            let edits = edits
                .into_iter()
                .filter_map(|edit| {
                    Some(Edit {
                        old: edit.get("old_string")?.as_str()?,
                        new: edit.get("new_string")?.as_str()?,
                    })
                })
                .collect();
            single("edit", edits)
        }
        Some(ToolClass::FilePatch) => input
            .get("changes")
            .and_then(Value::as_array)
            .map(|changes| changes.iter().filter_map(patch_change).collect())
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// One change of a patch call: its path, what it does, and its diff when it has one.
fn patch_change(change: &Value) -> Option<FileOp<'_>> {
    let path = change.get("path")?.as_str()?.to_owned();
    let operation = match change.get("kind") {
        Some(Value::String(k)) => k.as_str(),
        Some(Value::Object(k)) => k.get("type").and_then(Value::as_str).unwrap_or("update"),
        _ => "update",
    };
    let operation = match operation {
        "add" | "create" => "create",
        "delete" | "remove" => "delete",
        _ => "edit",
    };
    let diff = change
        .get("diff")
        .or(change.get("unified_diff"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    Some(FileOp {
        operation,
        path,
        edits: Vec::new(),
        diff,
    })
}

/// A unified diff of edits (no line numbers: the tool input does not say where in the file
/// they are); `None` without an edit.
pub(crate) fn edit_diff(path: &str, edits: &[Edit<'_>]) -> Option<String> {
    if edits.is_empty() {
        return None;
    }
    let mut diff = format!("--- a/{path}\n+++ b/{path}\n");
    for edit in edits {
        let (o, n) = (edit.old.lines().count(), edit.new.lines().count());
        diff.push_str(&format!("@@ -{o} +{n} @@\n"));
        for line in edit.old.lines() {
            diff.push_str(&format!("-{line}\n"));
        }
        for line in edit.new.lines() {
            diff.push_str(&format!("+{line}\n"));
        }
    }
    Some(diff)
}
