//! Responses items: what each item kind means. A message or reasoning is assistant output;
//! a call the client runs opens a tool call; a server tool is a call with its result in
//! the same item; a `*_output` item (or an approval response) answers a call.
//!
//! This file owns the table of item kinds, their inputs and their results, in one place,
//! so that the stream events (`responses`), whole bodies and requests read an item the same
//! way. It does not decide when an item is complete or hand it out.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::assembly::{Assembly, Input, OpenCall};
use super::wire::{StrOr, WireItem, parts_text};
use crate::model::ToolOutput;
use crate::normalize::Source;
use crate::normalize::json::Parsed;

impl Assembly {
    /// A Responses item (output or request input), as far as it carries assistant output.
    pub(super) fn item(&mut self, item: &WireItem<'_>, source: Source) {
        match item.kind.as_deref().unwrap_or("message") {
            "message" => {
                if let Some(content) = &item.content {
                    self.content(content, source);
                }
            }
            "reasoning" => {
                let content = item
                    .content
                    .as_ref()
                    .map(|c| c.text(""))
                    .unwrap_or_default();
                let text = if content.is_empty() {
                    item.summary
                        .as_ref()
                        .map(|s| parts_text(s, "\n\n"))
                        .unwrap_or_default()
                } else {
                    content
                };
                self.think(&text, source);
                self.sign(item.encrypted_content.as_deref().unwrap_or(""), source);
            }
            "function_call" | "custom_tool_call" => {
                let arguments = match (&item.arguments, &item.input) {
                    (Some(StrOr::Str(a)), _) | (None, Some(StrOr::Str(a))) => {
                        Some(StrOr::Str(a.clone()))
                    }
                    (Some(StrOr::Else(v)), _) | (None, Some(StrOr::Else(v))) => {
                        Some(StrOr::Else(v.clone()))
                    }
                    (None, None) => None,
                };
                if x_search_action(item) {
                    let input = x_search_input(item.name.as_deref(), arguments.as_ref());
                    let result = item.result_fields(&["name", "input", "call_id"]);
                    self.server_item(item, X_SEARCH, Input::Value(input), result, source);
                    return;
                }
                let id = item.call_id.as_deref().or(item.id.as_deref());
                // A tool of a namespace is named by both (MCP's `server__tool` spelling):
                // the name alone could be another namespace's tool. A function tool search
                // loaded comes with itself as its namespace: it is named once. The namespace
                // stays in the response's extras either way.
                let name = match (item.text_field("namespace"), item.name.as_deref()) {
                    (namespace, Some(name)) if namespace.is_empty() || namespace == name => {
                        Some(Cow::Borrowed(name))
                    }
                    (namespace, Some(name)) => Some(Cow::Owned(format!("{namespace}__{name}"))),
                    (_, None) => None,
                };
                self.call_fragment(None, id, name.as_deref(), arguments, source);
                if item.kind.as_deref() == Some("custom_tool_call")
                    && let Some(call) = self.calls.last_mut()
                    && matches!(call.input, Input::Json)
                {
                    // Free-form input is a string, not JSON arguments; it streams the same
                    // way (`custom_tool_call_input.delta`).
                    call.input = Input::Text;
                }
                self.called_by(item);
            }
            "program" => {
                // Programmatic tool calling: code the provider runs, calling tools on the
                // model's behalf; its result (`program_output`) can come responses later,
                // after the client ran the calls it made.
                let mut input = Map::new();
                input.insert("code".into(), Value::String(item.text_field("code").into()));
                self.tool_item(item, PROGRAM, Input::Value(Value::Object(input)), source);
                self.last_call().server = true;
            }
            "local_shell_call" => {
                let action = item.action.clone().unwrap_or(Value::Null);
                self.tool_item(item, "local_shell", Input::Value(action), source);
            }
            "shell_call" => {
                let action = item.action.clone().unwrap_or(Value::Null);
                self.tool_item(item, "shell", Input::Value(action), source);
                self.called_by(item);
                // A shell in a container the provider hosts runs there; its output comes
                // back as a `shell_call_output` item of the response.
                let hosted = item
                    .field("environment")
                    .and_then(|e| e.get("type"))
                    .and_then(Value::as_str)
                    .is_some_and(|kind| kind != "local");
                self.last_call().server = hosted;
            }
            "apply_patch_call" => {
                let operation = item.field("operation").cloned().unwrap_or(Value::Null);
                self.tool_item(item, "apply_patch", Input::Value(operation), source);
                self.called_by(item);
            }
            "computer_call" => {
                let mut input = pick(item, &["actions", "pending_safety_checks"]);
                if let (Value::Object(fields), Some(action)) = (&mut input, &item.action) {
                    fields.insert("action".into(), action.clone());
                }
                self.tool_item(item, "computer", Input::Value(input), source);
            }
            "tool_search_call" => {
                let arguments = item.arguments.as_ref().map_or(Value::Null, StrOr::to_value);
                self.tool_item(item, "tool_search", Input::Value(arguments), source);
                self.last_call().server = item.text_field("execution") == "server";
            }
            "mcp_approval_request" => {
                let arguments = item.arguments.as_ref().map_or(Value::Null, StrOr::to_value);
                let mut input = pick(item, &["server_label"]);
                if let (Value::Object(fields), Some(name)) = (&mut input, &item.name) {
                    fields.insert("name".into(), Value::String(name.to_string()));
                    fields.insert("arguments".into(), parsed(arguments));
                }
                let id = item.id.as_deref().unwrap_or("");
                self.call_at(id, "mcp_approval_request", Input::Value(input), source);
            }
            "x_search_call" => {
                // xAI's X search: the item names the search it ran (`x_semantic_search`,
                // `x_keyword_search`, ...) and its arguments; the results stay on xAI's side.
                let input = x_search_input(item.name.as_deref(), item.arguments.as_ref());
                let result = item.result_fields(&["name", "arguments", "call_id"]);
                self.server_item(item, X_SEARCH, Input::Value(input), result, source);
            }
            "web_search_call" => {
                let action = item.action.clone().unwrap_or(Value::Null);
                let result = item.result_fields(&[]);
                self.server_item(item, "web_search", Input::Value(action), result, source);
            }
            "file_search_call" => {
                let input = pick(item, &["queries"]);
                let result = item.result_fields(&["queries"]);
                self.server_item(item, "file_search", Input::Value(input), result, source);
            }
            "code_interpreter_call" => {
                let Value::Object(input) = pick(item, &["code", "container_id"]) else {
                    unreachable!("pick makes an object")
                };
                let result = item.result_fields(&["code", "container_id"]);
                self.server_item(item, "code_interpreter", Input::Code(input), result, source);
                let code = item.text_field("code").to_owned();
                self.last_call().arguments = code;
            }
            "image_generation_call" => {
                const PARAMETERS: [&str; 5] = [
                    "revised_prompt",
                    "size",
                    "quality",
                    "background",
                    "output_format",
                ];
                let mut input = pick(item, &PARAMETERS);
                if let (Value::Object(fields), Some(action)) = (&mut input, &item.action) {
                    fields.insert("action".into(), action.clone());
                }
                let result = item.result_fields(&PARAMETERS);
                self.server_item(
                    item,
                    "image_generation",
                    Input::Value(input),
                    result,
                    source,
                );
            }
            "mcp_call" => {
                let name = format!(
                    "mcp__{}__{}",
                    item.text_field("server_label"),
                    item.name.as_deref().unwrap_or("")
                );
                let result = item.result_fields(&["server_label"]);
                self.server_item(item, &name, Input::Json, result, source);
                let id = item.id.as_deref();
                let arguments = item.arguments.as_ref().map(|a| match a {
                    StrOr::Str(text) => StrOr::Str(text.clone()),
                    StrOr::Else(value) => StrOr::Else(value.clone()),
                });
                self.call_fragment(None, id, None, arguments, source);
            }
            "mcp_list_tools" => {
                let input = pick(item, &["server_label"]);
                let result = item.result_fields(&["server_label"]);
                self.server_item(item, "mcp_list_tools", Input::Value(input), result, source);
            }
            _ => {}
        }
    }

    /// A server tool's progress: the status its result reports so far (`failed` makes it an
    /// error); an image generation's latest partial image with it.
    pub(super) fn progress(&mut self, status: &str, partial: Option<Value>) {
        let Some(OpenCall {
            result: Some((Value::Object(result), failed)),
            ..
        }) = self.calls.last_mut()
        else {
            return;
        };
        if status == "partial_image" {
            for field in ["partial_image_b64", "partial_image_index"] {
                if let Some(value) = partial.as_ref().and_then(|event| event.get(field)) {
                    result.insert(field.into(), value.clone());
                }
            }
        } else {
            result.insert("status".into(), Value::String(status.to_owned()));
            *failed |= status == "failed";
        }
    }

    /// A tool item the client runs: its result comes back as an output item of its own.
    fn tool_item(&mut self, item: &WireItem<'_>, name: &str, input: Input, source: Source) {
        self.call_at(item.call_id(), name, input, source);
    }

    /// The call just read is a sub-call of a program when its `caller` says so.
    fn called_by(&mut self, item: &WireItem<'_>) {
        if let (Some(program), Some(call)) = (program_caller(item), self.calls.last_mut()) {
            call.scope = Some(program);
        }
    }

    /// A tool the provider ran, its result in the same item: `result` is the item's status
    /// and what the tool produced; a `failed` status or an `error` make it an error.
    fn server_item(
        &mut self,
        item: &WireItem<'_>,
        name: &str,
        input: Input,
        result: Map<String, Value>,
        source: Source,
    ) {
        let failed = item.status.as_deref() == Some("failed") || item.field("error").is_some();
        self.call_at(item.id.as_deref().unwrap_or(""), name, input, source);
        let call = self.last_call();
        call.server = true;
        call.result = Some((Value::Object(result), failed));
    }
}

/// The tool a `program` item calls: programmatic tool calling, as the request declares it.
pub(super) const PROGRAM: &str = "programmatic_tool_calling";

/// xAI's X search, as the request declares it.
const X_SEARCH: &str = "x_search";

/// The searches xAI's X search runs, as its server-side sub-calls name them.
const X_SEARCH_ACTIONS: [&str; 5] = [
    "x_user_search",
    "x_keyword_search",
    "x_semantic_search",
    "x_thread_fetch",
    "view_x_video",
];

/// Whether a `custom_tool_call` is a search xAI's X search ran itself (its streams report
/// them so, named by the search, `call_id` `xs_call_<n>`, with no output item ever): a
/// server-side sub-call of `x_search`, not a call the client must answer.
fn x_search_action(item: &WireItem<'_>) -> bool {
    item.kind.as_deref() == Some("custom_tool_call")
        && item
            .name
            .as_deref()
            .is_some_and(|name| X_SEARCH_ACTIONS.contains(&name))
        && item
            .call_id
            .as_deref()
            .is_some_and(|id| id.starts_with("xs_call_"))
}

/// The input of an X search: the search it ran and its arguments (parsed when JSON).
fn x_search_input(name: Option<&str>, arguments: Option<&StrOr<'_, Value>>) -> Value {
    let mut input = Map::new();
    input.insert("name".into(), Value::String(name.unwrap_or("").to_owned()));
    let arguments = arguments.map_or(Value::Null, StrOr::to_value);
    input.insert("arguments".into(), parsed(arguments));
    Value::Object(input)
}

/// The program a call or result item says made it (`caller: {"type": "program",
/// "caller_id"}`), if any.
pub(super) fn program_caller(item: &WireItem<'_>) -> Option<String> {
    let caller = item.field("caller")?;
    (caller.get("type").and_then(Value::as_str) == Some("program"))
        .then(|| caller.get("caller_id")?.as_str().map(str::to_owned))
        .flatten()
}

/// Whether `Assembly::item` reads the undeclared field `name` of an output item of `kind`
/// (the server tools read them all: they are the result). What is not read is kept with the
/// response's extras: a function's `namespace` and a call's `caller` are data its block has
/// no field for, and a program's `fingerprint` is what a replay must send back.
pub(super) fn item_field_read(kind: &str, name: &str) -> bool {
    match kind {
        "apply_patch_call" => name == "operation",
        "computer_call" => matches!(name, "actions" | "pending_safety_checks"),
        "tool_search_call" => name == "execution",
        "mcp_approval_request" => name == "server_label",
        "program" => name == "code",
        "message" | "reasoning" | "local_shell_call" | "shell_call" | "function_call"
        | "custom_tool_call" => false,
        _ => true,
    }
}

/// The status a server tool's progress event (`response.web_search_call.searching`, ...)
/// reports; `None` for other events.
pub(super) fn server_tool_progress(event: &str) -> Option<&str> {
    let (tool, status) = event.strip_prefix("response.")?.rsplit_once('.')?;
    matches!(
        tool,
        "web_search_call"
            | "x_search_call"
            | "file_search_call"
            | "code_interpreter_call"
            | "image_generation_call"
            | "mcp_call"
            | "mcp_list_tools"
    )
    .then_some(status)
}

/// The Responses item kinds read as assistant output: messages, reasoning and tool calls.
pub(super) const OUTPUT_ITEMS: [&str; 18] = [
    "message",
    "reasoning",
    "function_call",
    "custom_tool_call",
    "local_shell_call",
    "shell_call",
    "apply_patch_call",
    "computer_call",
    "tool_search_call",
    "mcp_approval_request",
    "program",
    "web_search_call",
    "x_search_call",
    "file_search_call",
    "code_interpreter_call",
    "image_generation_call",
    "mcp_call",
    "mcp_list_tools",
];

/// What a result item says about the call it answers.
pub(super) struct ItemResult {
    /// The call it answers; empty when it names none (see `unnamed`).
    pub(super) tool_id: String,
    pub(super) content: ToolOutput,
    pub(super) is_error: bool,
    pub(super) exit_code: Option<i64>,
    /// The tool whose oldest call still waiting a result that names no call answers (a
    /// server-side tool search: its call and output both have `call_id: null`).
    pub(super) unnamed: Option<&'static str>,
    /// The program whose sub-call it answers, when it says (`caller`).
    pub(super) program: Option<String>,
}

/// The result a Responses result item carries (`*_output`, `mcp_approval_response`);
/// `None` for other items. An `output` string of an item `parsed` from a record (nearly
/// every byte of a tool-using conversation's requests) is held as the record escaped it
/// ([`Parsed::output`]): axt never reads it, the writer copies it.
pub(super) fn result_item(item: &WireItem<'_>, parsed: Option<Parsed<'_>>) -> Option<ItemResult> {
    let output = || match (&item.output, parsed) {
        (Some(StrOr::Str(text)), Some(parsed)) => parsed.output(Cow::Borrowed(text)),
        (output, _) => output.as_ref().map_or(Value::Null, StrOr::to_value).into(),
    };
    let failed = item.status.as_deref() == Some("failed");
    let mut exit_code = None;
    let (tool_id, content, is_error) = match item.kind() {
        "function_call_output" | "custom_tool_call_output" | "local_shell_call_output" => {
            (item.call_id(), output(), false)
        }
        "computer_call_output" | "apply_patch_call_output" => (item.call_id(), output(), failed),
        "shell_call_output" => {
            let content = item.output.as_ref().map_or(Value::Null, StrOr::to_value);
            let outcomes: Vec<&Value> = content
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|part| part.get("outcome"))
                .collect();
            let code = |outcome: &Value| outcome.get("exit_code").and_then(Value::as_i64);
            // A command that timed out or exited non-zero failed.
            let failed = failed
                || outcomes.iter().any(|outcome| {
                    outcome.get("type").and_then(Value::as_str) == Some("timeout")
                        || code(outcome).is_some_and(|code| code != 0)
                });
            if let [outcome] = outcomes.as_slice() {
                exit_code = code(outcome);
            }
            (item.call_id(), content.into(), failed)
        }
        "tool_search_output" => {
            let tools = item.field("tools").cloned().unwrap_or(Value::Null);
            // A server-side search names neither its call nor its output by a `call_id`: the
            // output answers the search before it. (Its own item id is no call's.)
            let call = item.call_id.as_deref().unwrap_or("");
            (call, tools.into(), failed)
        }
        "program_output" => {
            // A program that stopped before producing its result did not complete.
            let result = item.field("result").cloned().unwrap_or(Value::Null);
            let incomplete = item.status.as_deref() == Some("incomplete");
            (item.call_id(), result.into(), failed || incomplete)
        }
        "mcp_approval_response" => {
            let declined = item.field("approve").and_then(Value::as_bool) == Some(false);
            let answer = pick(item, &["approve", "reason"]);
            (
                item.text_field("approval_request_id"),
                answer.into(),
                declined,
            )
        }
        _ => return None,
    };
    Some(ItemResult {
        tool_id: tool_id.to_owned(),
        content,
        is_error,
        exit_code,
        unnamed: (item.kind() == "tool_search_output").then_some("tool_search"),
        program: program_caller(item),
    })
}

/// An object of the item's `fields` that are present.
fn pick(item: &WireItem<'_>, fields: &[&str]) -> Value {
    let mut picked = Map::new();
    for name in fields {
        if let Some(value) = item.field(name) {
            picked.insert((*name).to_owned(), value.clone());
        }
    }
    Value::Object(picked)
}

/// Arguments sent as a JSON string, parsed; anything else (and text that is not JSON) as it
/// was.
fn parsed(arguments: Value) -> Value {
    match &arguments {
        Value::String(text) => serde_json::from_str(text).unwrap_or(arguments),
        _ => arguments,
    }
}
