//! The one table of tool classes: what a tool call named in a `tool.call` payload (or a
//! `tool_use` block) does, as far as anyone downstream of the provider needs to know.
//!
//! A transcript keeps each provider's tool names as the provider wrote them (`Bash`,
//! `run_shell_command`, `exec_command`, ...), so those names are part of the canonical
//! vocabulary of `tool.*` events, and so is knowing that they all run a shell. Every consumer
//! asks this table: the adapters (which shell calls get a `command` block, which call starts
//! a sub-agent), the event mapper, the exporters (AgentLog's `terminalCommand` and
//! `fileOperation`) and the statistics. A tool name listed anywhere else is a second list
//! that will drift from this one; `tests/axt/tool_names.rs` fails when one appears.
//!
//! This module owns the names and the input fields that say what a call does (a shell
//! call's command line, a sub-agent call's name). It must not import anything of the crate
//! but the model, and must not read any provider's records: it classifies calls already
//! made canonical.

use serde_json::Value;

/// What a tool does. A name the table does not know has no class (see [`classify`]): an
/// MCP tool, a custom function, a tool added after this table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ToolClass {
    /// Runs a command line in a shell; its input holds the command (see [`shell_commands`]).
    Shell,
    /// Reads a file (or several) and changes nothing.
    FileRead,
    /// Creates or overwrites a whole file.
    FileWrite,
    /// Edits part of a file in place: `old_string` -> `new_string` edits (one in the input,
    /// or a list under `edits`), or a notebook cell.
    FileEdit,
    /// Applies a patch: a list of `changes`, each naming its path and kind.
    FilePatch,
    /// Searches or lists files by name or content in the workspace.
    Search,
    /// Fetches a URL.
    WebFetch,
    /// Searches the web.
    WebSearch,
    /// Starts a sub-agent; its name is in the input (see [`subagent_name`]).
    SubAgent,
    /// Writes the agent's plan or to-do list (see [`plan_items`], [`plan_text`]).
    Plan,
    /// Asks a person to approve another tool's call (see [`approval`]).
    Approval,
}

impl ToolClass {
    /// The class's own name, lower snake case (`shell`, `file_edit`, `sub_agent`, ...): how
    /// exports and readers name the class (the Parquet dataset's `tool_class`, the HTML
    /// view's badges). Not a tool name, though some coincide with one.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolClass::Shell => "shell",
            ToolClass::FileRead => "file_read",
            ToolClass::FileWrite => "file_write",
            ToolClass::FileEdit => "file_edit",
            ToolClass::FilePatch => "file_patch",
            ToolClass::Search => "search",
            ToolClass::WebFetch => "web_fetch",
            ToolClass::WebSearch => "web_search",
            ToolClass::SubAgent => "sub_agent",
            ToolClass::Plan => "plan",
            ToolClass::Approval => "approval",
        }
    }
}

/// The class of a tool, by its name as the transcript records it; `None` for a tool the
/// table does not know.
pub fn classify(name: &str) -> Option<ToolClass> {
    use ToolClass::*;
    let class = match name {
        // Claude Code; Gemini CLI; Copilot CLI; Codex (`shell_command`: its session files,
        // 0.60 and later) and the OpenAI shell tools.
        // ACP names a call by its kind (`execute`, `read`, `edit`, `search`, `fetch`), and the
        // client's file service by its method.
        // Kimi CLI: `Shell`, `ReadFile`, `WriteFile`, `StrReplaceFile`, `SearchWeb`,
        // `FetchURL`, `SetTodoList`.
        "Bash" | "run_shell_command" | "bash" | "shell" | "shell_command" | "exec_command"
        | "local_shell"
        | "execute" | "Shell"
        // Factory Droid: `Execute`, `Create`, `ApplyPatch`, `FetchUrl`.
        | "Execute" => Shell,
        "Read" | "read_file" | "read_many_files" | "view" | "read" | "fs/read_text_file"
        | "ReadFile" => FileRead,
        // Cursor CLI names a call by its kind's key (`writeToolCall`: `write`).
        "Write" | "write_file" | "create" | "fs/write_text_file" | "write" | "WriteFile"
        | "Create" => {
            FileWrite
        }
        "Edit" | "MultiEdit" | "NotebookEdit" | "replace" | "edit" | "str_replace"
        | "StrReplaceFile" => FileEdit,
        // Codex names a `file_change` item's call `apply_patch`; older transcripts kept the
        // item's name.
        "apply_patch" | "file_change" | "ApplyPatch" => FilePatch,
        "Grep"
        | "Glob"
        | "LS"
        | "search_file_content"
        | "glob"
        | "list_directory"
        | "grep"
        | "search"
        // Pi: `find` and `ls` beside its `grep`.
        | "find"
        | "ls" => Search,
        // OpenCode: `webfetch`, `task`, `todowrite`.
        "WebFetch" | "web_fetch" | "fetch" | "webfetch" | "FetchURL" | "FetchUrl" => WebFetch,
        "WebSearch" | "google_web_search" | "web_search" | "SearchWeb" => WebSearch,
        "Task" | "Agent" | "task" => SubAgent,
        "TodoWrite" | "ExitPlanMode" | "update_plan" | "write_todos" | "todowrite"
        | "SetTodoList" => Plan,
        // The OpenAI Responses API's MCP approval round trip.
        "mcp_approval_request" => Approval,
        _ => return None,
    };
    Some(class)
}

/// The command lines of a shell tool call: its `command` (or `cmd`), a string or an argv
/// (joined with [`shell_join`]), or each string of its `commands` (the OpenAI Responses
/// shell tool). Empty for a call that is not a shell call or names no command.
pub fn shell_commands(name: &str, input: &Value) -> Vec<String> {
    if classify(name) != Some(ToolClass::Shell) {
        return Vec::new();
    }
    if let Some(Value::Array(commands)) = input.get("commands") {
        return commands
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect();
    }
    match input.get("command").or_else(|| input.get("cmd")) {
        Some(Value::String(command)) => vec![command.clone()],
        Some(Value::Array(argv)) => vec![shell_join(argv)],
        _ => Vec::new(),
    }
}

/// An argv as one shell command line, quoting only what needs it.
pub fn shell_join(argv: &[Value]) -> String {
    let quote = |arg: &str| {
        let plain = !arg.is_empty()
            && arg
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b));
        if plain {
            arg.to_owned()
        } else {
            format!("'{}'", arg.replace('\'', r"'\''"))
        }
    };
    argv.iter()
        .map(|arg| match arg {
            Value::String(arg) => quote(arg),
            other => quote(&other.to_string()),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The name of the sub-agent a call starts (Claude Code's `Task` / `Agent` input names it
/// `subagent_type`); `None` for a call that starts none or does not name it.
pub fn subagent_name<'a>(name: &str, input: &'a Value) -> Option<&'a str> {
    if classify(name) != Some(ToolClass::SubAgent) {
        return None;
    }
    input.get("subagent_type").and_then(Value::as_str)
}

/// A tool's output as text, as a reader shows it: a string as it is, the text parts of a
/// list of content parts (`[{"type": "text", "text": ...}, ...]`) joined with newlines,
/// nothing for none, anything else as JSON.
pub fn output_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        Value::Array(parts) if parts.iter().all(|p| p.get("text").is_some()) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        other => other.to_string(),
    }
}

/// What a search call looks for: its `pattern` (Grep, Glob, `search_file_content`, `glob`),
/// `query` (web searches), or, for a listing, the directory (`path`, `dir_path`). `None` for
/// a call that is not a search or names none of them.
pub fn search_query<'a>(name: &str, input: &'a Value) -> Option<&'a str> {
    if !matches!(
        classify(name),
        Some(ToolClass::Search | ToolClass::WebSearch)
    ) {
        return None;
    }
    ["pattern", "query", "q", "path", "dir_path"]
        .iter()
        .find_map(|key| input.get(*key)?.as_str())
}

/// The URL a fetch call loads (`url`); `None` for a call that is not a fetch.
pub fn fetch_url<'a>(name: &str, input: &'a Value) -> Option<&'a str> {
    if classify(name) != Some(ToolClass::WebFetch) {
        return None;
    }
    input.get("url")?.as_str()
}

/// Where an item of a plan is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PlanStatus {
    /// Not started.
    Pending,
    /// Being worked on.
    InProgress,
    /// Done.
    Completed,
    /// Dropped (Gemini's `cancelled`).
    Cancelled,
}

/// One item of a plan or to-do list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanItem {
    /// What it is.
    pub description: String,
    /// Where it is; `None` for a status the table does not know.
    pub status: Option<PlanStatus>,
}

/// The items a plan call writes: Claude Code's `TodoWrite` (`todos`: `content`, `status`),
/// Codex's `update_plan` (`plan`: `step`, `status`), Gemini's `write_todos` (`todos`:
/// `description`, `status`). `None` for a call that writes no list.
pub fn plan_items(name: &str, input: &Value) -> Option<Vec<PlanItem>> {
    if classify(name) != Some(ToolClass::Plan) {
        return None;
    }
    let items = input
        .get("todos")
        .or_else(|| input.get("plan"))?
        .as_array()?;
    Some(
        items
            .iter()
            .filter_map(|item| {
                let description = ["content", "step", "description"]
                    .iter()
                    .find_map(|key| item.get(*key)?.as_str())?;
                let status = match item.get("status").and_then(Value::as_str) {
                    Some("pending") => Some(PlanStatus::Pending),
                    Some("in_progress") => Some(PlanStatus::InProgress),
                    Some("completed") => Some(PlanStatus::Completed),
                    Some("cancelled") => Some(PlanStatus::Cancelled),
                    _ => None,
                };
                Some(PlanItem {
                    description: description.to_owned(),
                    status,
                })
            })
            .collect(),
    )
}

/// The plan a plan call states as text (Claude Code's `ExitPlanMode`: `plan`; Codex's
/// `update_plan`: its `explanation`).
pub fn plan_text<'a>(name: &str, input: &'a Value) -> Option<&'a str> {
    if classify(name) != Some(ToolClass::Plan) {
        return None;
    }
    ["plan", "explanation"]
        .iter()
        .find_map(|key| input.get(*key)?.as_str())
}

/// An approval asked for and answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Approval {
    /// The tool whose call needed it (the input's `name`).
    pub tool: Option<String>,
    /// Whether it was approved.
    pub approved: bool,
    /// Why, when the answer says.
    pub reason: Option<String>,
}

/// The approval an approval call asked for and its answer (`output`: `approve`, `reason`);
/// `None` when the call is no approval or has no answer.
pub fn approval(name: &str, input: &Value, output: &Value) -> Option<Approval> {
    if classify(name) != Some(ToolClass::Approval) {
        return None;
    }
    let approved = output.get("approve")?.as_bool()?;
    Some(Approval {
        tool: input.get("name").and_then(Value::as_str).map(str::to_owned),
        approved,
        reason: output
            .get("reason")
            .and_then(Value::as_str)
            .map(str::to_owned),
    })
}

/// What a call's input says it does, in one line for a person: a shell call's command
/// lines, the file a file tool reads or changes (the files of a patch), a search's pattern
/// and where, a fetch's URL, a web search's query, a sub-agent's name and task, the length
/// of a plan, the call an approval is asked for. `None` for a tool the table does not know, or an input that does not say.
pub fn describe_input(name: &str, input: &Value) -> Option<String> {
    let text = |key: &str| {
        input
            .get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    let first = |keys: &[&str]| keys.iter().find_map(|key| text(key));
    let described = match classify(name)? {
        ToolClass::Shell => {
            let commands = shell_commands(name, input);
            (!commands.is_empty()).then(|| commands.join("; "))?
        }
        ToolClass::FileRead | ToolClass::FileWrite | ToolClass::FileEdit => {
            match first(&[
                "file_path",
                "path",
                "absolute_path",
                "notebook_path",
                "filePath",
            ]) {
                Some(path) => path.to_owned(),
                None => strings(input.get("paths")?)?,
            }
        }
        ToolClass::FilePatch => {
            let changes = input.get("changes")?;
            let paths: Vec<&str> = match changes {
                Value::Array(list) => list
                    .iter()
                    .filter_map(|c| c.get("path").and_then(Value::as_str))
                    .collect(),
                Value::Object(map) => map.keys().map(String::as_str).collect(),
                _ => Vec::new(),
            };
            (!paths.is_empty()).then(|| paths.join(", "))?
        }
        ToolClass::Search => {
            let what = first(&["pattern", "query", "glob"]);
            let place = first(&["path", "dir_path", "directory"]);
            match (what, place) {
                (Some(what), Some(place)) => format!("\"{what}\" in {place}"),
                (Some(what), None) => format!("\"{what}\""),
                (None, Some(place)) => place.to_owned(),
                (None, None) => return None,
            }
        }
        ToolClass::WebFetch => first(&["url", "prompt"])?.to_owned(),
        ToolClass::WebSearch => first(&["query"])?.to_owned(),
        ToolClass::SubAgent => {
            let task = first(&["description", "prompt"]);
            match (subagent_name(name, input), task) {
                (Some(agent), Some(task)) => format!("{agent}: {task}"),
                (Some(one), None) | (None, Some(one)) => one.to_owned(),
                (None, None) => return None,
            }
        }
        ToolClass::Plan => {
            let (list, noun) = match (input.get("todos"), input.get("plan")) {
                (Some(Value::Array(todos)), _) => (todos, "to-do"),
                (_, Some(Value::Array(steps))) => (steps, "step"),
                _ => return None,
            };
            let plural = if list.len() == 1 { "" } else { "s" };
            format!("{} {noun}{plural}", list.len())
        }
        // The call awaiting approval: its tool, and the server that offers it.
        ToolClass::Approval => match (first(&["name"]), first(&["server_label"])) {
            (Some(tool), Some(server)) => format!("{tool} on {server}"),
            (Some(one), None) | (None, Some(one)) => one.to_owned(),
            (None, None) => return None,
        },
    };
    Some(described)
}

/// The strings of a list, joined with `, `; `None` for anything else or an empty list.
fn strings(value: &Value) -> Option<String> {
    let list: Vec<&str> = value.as_array()?.iter().filter_map(Value::as_str).collect();
    (!list.is_empty()).then(|| list.join(", "))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn shell_join_quotes_only_what_needs_it() {
        let argv = json!(["bash", "-lc", "ls -1 'a b'", "", "x=1"]);
        assert_eq!(
            shell_join(argv.as_array().unwrap()),
            r"bash -lc 'ls -1 '\''a b'\''' '' x=1"
        );
    }

    #[test]
    fn every_shell_dialect_gives_its_command_lines() {
        assert_eq!(shell_commands("Bash", &json!({"command": "ls"})), ["ls"]);
        assert_eq!(
            shell_commands("exec_command", &json!({"cmd": "ls"})),
            ["ls"]
        );
        assert_eq!(
            shell_commands("shell_command", &json!({"command": "ls", "workdir": "/w"})),
            ["ls"]
        );
        assert_eq!(
            shell_commands("shell", &json!({"command": ["ls", "a b"]})),
            ["ls 'a b'"]
        );
        assert_eq!(
            shell_commands("local_shell", &json!({"commands": ["a", 1, "b"]})),
            ["a", "b"]
        );
        assert!(shell_commands("Read", &json!({"command": "ls"})).is_empty());
    }

    #[test]
    fn searches_plans_fetches_and_approvals_say_what_they_do() {
        assert_eq!(
            search_query("Grep", &json!({"pattern": "TODO"})),
            Some("TODO")
        );
        assert_eq!(
            search_query("web_search", &json!({"query": "rust"})),
            Some("rust")
        );
        assert_eq!(search_query("Read", &json!({"pattern": "x"})), None);
        assert_eq!(
            fetch_url("WebFetch", &json!({"url": "https://x"})),
            Some("https://x")
        );
        let items = plan_items(
            "update_plan",
            &json!({"plan": [{"step": "a", "status": "completed"}, {"step": "b", "status": "?"}]}),
        )
        .unwrap();
        assert_eq!(items[0].status, Some(PlanStatus::Completed));
        assert_eq!(
            (items[1].description.as_str(), items[1].status),
            ("b", None)
        );
        assert_eq!(
            plan_text("ExitPlanMode", &json!({"plan": "1. do"})),
            Some("1. do")
        );
        let asked = json!({"name": "delete_branch"});
        let answer = approval(
            "mcp_approval_request",
            &asked,
            &json!({"approve": false, "reason": "no"}),
        );
        assert_eq!(
            answer,
            Some(Approval {
                tool: Some("delete_branch".into()),
                approved: false,
                reason: Some("no".into())
            })
        );
        assert_eq!(approval("mcp_approval_request", &asked, &Value::Null), None);
    }

    #[test]
    fn an_input_is_described_by_what_its_tool_does() {
        let describe = |name: &str, input: Value| describe_input(name, &input);
        assert_eq!(
            describe("Bash", json!({"command": "cargo test"})).as_deref(),
            Some("cargo test")
        );
        assert_eq!(
            describe("Read", json!({"file_path": "/src/a.rs"})).as_deref(),
            Some("/src/a.rs")
        );
        assert_eq!(
            describe("read_many_files", json!({"paths": ["a", "b"]})).as_deref(),
            Some("a, b")
        );
        assert_eq!(
            describe(
                "apply_patch",
                json!({"changes": [{"path": "x.rs", "kind": "add"}]})
            )
            .as_deref(),
            Some("x.rs")
        );
        assert_eq!(
            describe("Grep", json!({"pattern": "fn main", "path": "src"})).as_deref(),
            Some("\"fn main\" in src")
        );
        assert_eq!(
            describe(
                "Task",
                json!({"subagent_type": "Explore", "description": "Find auth"})
            )
            .as_deref(),
            Some("Explore: Find auth")
        );
        assert_eq!(
            describe("TodoWrite", json!({"todos": [{}, {}]})).as_deref(),
            Some("2 to-dos")
        );
        assert_eq!(describe("mcp__x__y", json!({"a": 1})), None);
        assert_eq!(describe("Read", json!({})), None);
    }

    #[test]
    fn only_a_sub_agent_call_names_a_sub_agent() {
        let input = json!({"subagent_type": "explorer"});
        assert_eq!(subagent_name("Task", &input), Some("explorer"));
        assert_eq!(subagent_name("Bash", &input), None);
    }
}
