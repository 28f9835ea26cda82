//! One table of tool classes: no tool name is classified outside `src/model/tools.rs`.
//!
//! The names are read from the table itself (the string literals of `classify`), so a name
//! added there is guarded here too. Every other `src/` file is scanned for those names as
//! string literals, outside comments and unit-test modules (their fixtures name tools as
//! input). The few places where such a literal is a wire-format value rather than a
//! classification are allowed below, each with its reason.

use std::collections::BTreeSet;

use crate::support::{root, walk};

const TABLE: &str = "src/model/tools.rs";

/// (where under `src/`: a file or folder path's beginning, literal, why it is not a second
/// list).
const ALLOWED: &[(&str, &str, &str)] = &[
    (
        "normalize/openai/",
        "mcp_approval_request",
        "a Responses item type, kept as its call's name",
    ),
    ("normalize/codex", "file_change", "a Codex item type"),
    (
        "normalize/codex",
        "web_search",
        "a Codex item type, kept as its call's name",
    ),
    (
        "normalize/codex",
        "shell",
        "the name Codex's unnamed command items get",
    ),
    (
        "normalize/codex",
        "apply_patch",
        "the name Codex's unnamed file changes get",
    ),
    (
        "normalize/openai/",
        "shell",
        "the name a `shell_call` item gets",
    ),
    (
        "normalize/openai/",
        "local_shell",
        "the name a `local_shell_call` item gets",
    ),
    (
        "normalize/openai/",
        "apply_patch",
        "the name an `apply_patch_call` item gets",
    ),
    (
        "normalize/openai/",
        "web_search",
        "the name a `web_search_call` item gets",
    ),
    (
        "export/file_ops",
        "create",
        "a file operation (AgentLog's fileOperation `operation` value)",
    ),
    (
        "export/file_ops",
        "read",
        "a file operation (AgentLog's fileOperation `operation` value)",
    ),
    (
        "normalize/acp",
        "fs/read_text_file",
        "an ACP method, whose request becomes a call of that name",
    ),
    (
        "normalize/acp",
        "fs/write_text_file",
        "an ACP method, whose request becomes a call of that name",
    ),
    (
        "capture/serve",
        "fs/read_text_file",
        "an ACP method the client serves",
    ),
    (
        "capture/serve",
        "fs/write_text_file",
        "an ACP method the client serves",
    ),
    (
        "export/file_ops",
        "edit",
        "a file operation (AgentLog's fileOperation `operation` value)",
    ),
    (
        "export/agentlog/",
        "search",
        "an AgentLog event type (`search`), not a tool's name",
    ),
    (
        "export/parquet/",
        "read",
        "the diagnostics table's `source`: the stage that found the problem (reading)",
    ),
    (
        "normalize/opencode/parts.rs",
        "read",
        "a step's cache tokens (`tokens.cache.read`), not a tool's name",
    ),
    (
        "normalize/opencode/parts.rs",
        "write",
        "a step's cache tokens (`tokens.cache.write`), not a tool's name",
    ),
    (
        "normalize/opencode/skim.rs",
        "read",
        "a step's cache tokens (`tokens.cache.read`, skimmed as parts.rs reads the tree)",
    ),
    (
        "normalize/opencode/skim.rs",
        "write",
        "a step's cache tokens (`tokens.cache.write`, skimmed as parts.rs reads the tree)",
    ),
    (
        "usage/opencode.rs",
        "read",
        "a step's cache tokens (`tokens.cache.read`, read typed as parts.rs reads the tree)",
    ),
    (
        "usage/opencode.rs",
        "write",
        "a step's cache tokens (`tokens.cache.write`, read typed as parts.rs reads the tree)",
    ),
];

/// The string literals of the table's `classify`.
fn table_names() -> BTreeSet<String> {
    let table = std::fs::read_to_string(root().join(TABLE)).unwrap();
    let start = table
        .find("pub fn classify")
        .expect("the table has classify");
    let end = start
        + table[start..]
            .find("_ => return None")
            .expect("classify's last arm");
    table[start..end]
        .split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// Whether `path` is a `tests.rs` its parent module declares under `#[cfg(test)]`: test code
/// in a file of its own, skipped as an inline `#[cfg(test)]` module is (a `tests.rs`
/// declared any other way is read like any other file).
fn is_test_module_file(path: &std::path::Path) -> bool {
    if path.file_name().is_none_or(|name| name != "tests.rs") {
        return false;
    }
    let Some(dir) = path.parent() else {
        return false;
    };
    let parent = if dir.join("mod.rs").exists() {
        dir.join("mod.rs")
    } else {
        dir.with_extension("rs")
    };
    let Ok(text) = std::fs::read_to_string(parent) else {
        return false;
    };
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    lines
        .windows(2)
        .any(|pair| pair[0] == "#[cfg(test)]" && pair[1] == "mod tests;")
}

#[test]
fn no_tool_name_is_listed_outside_the_table() {
    let names = table_names();
    assert!(names.contains("Bash") && names.contains("run_shell_command"));
    let src = root().join("src");
    let mut found = Vec::new();
    for path in walk(&src) {
        let file = path
            .strip_prefix(&src)
            .unwrap()
            .to_str()
            .unwrap()
            .to_owned();
        if path.extension().is_none_or(|ext| ext != "rs")
            || path.ends_with(TABLE)
            || is_test_module_file(&path)
        {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (number, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("#[cfg(test)]") {
                break;
            }
            if code.starts_with("//") {
                continue;
            }
            for name in &names {
                let allowed = ALLOWED
                    .iter()
                    .any(|(f, n, _)| file.starts_with(f) && n == name);
                if !allowed && code.contains(&format!("\"{name}\"")) {
                    found.push(format!("src/{file}:{}: {name:?}: {code}", number + 1));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "tool names classified outside {TABLE}; ask model::tools instead:\n{}",
        found.join("\n")
    );
}

/// An allowed literal that is no longer there is an entry to remove.
#[test]
fn every_allowed_literal_is_still_used() {
    let src = root().join("src");
    let files: Vec<(String, String)> = walk(&src)
        .into_iter()
        .map(|path| {
            let file = path
                .strip_prefix(&src)
                .unwrap()
                .to_str()
                .unwrap()
                .to_owned();
            (file, std::fs::read_to_string(&path).unwrap())
        })
        .collect();
    for (place, name, why) in ALLOWED {
        let literal = format!("\"{name}\"");
        assert!(
            files
                .iter()
                .any(|(file, text)| file.starts_with(place) && text.contains(&literal)),
            "src/{place} no longer has {name:?} ({why}): drop it from ALLOWED"
        );
    }
}
