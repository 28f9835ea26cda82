//! The client's file system and terminals, as the agent uses them: the tool I/O they are.
//!
//! * `fs/read_text_file`, `fs/write_text_file`: each request is a tool call of that name
//!   (id `<method>:<request id>`, input the params without `sessionId`), its response the
//!   result (the file's content; `null` for a write), an error response a failed result.
//! * `terminal/create`: once the client answers with the terminal's id, a call
//!   `terminal/create` of that id with a `command` block (the command and its args as one
//!   line); `terminal/output` and `terminal/wait_for_exit` responses tell its output and exit
//!   status; `terminal/release` is its result: the output last reported (`null` when the
//!   agent never asked for it), the exit code, an error when the command failed or was
//!   killed. A refused `terminal/create` is a call with a failed result at once.
//! * v2's agent-owned terminals (`terminal_update`, `terminal_output_chunk`, base64 bytes)
//!   are no calls: their output and exit status are what a tool call that shows them
//!   reports.
//!
//! This room owns the terminals; the agent's own tool calls are `calls`'.

use std::collections::HashMap;

use serde_json::Value;

use super::wire::{At, base64, text, without_session};
use crate::model::tools::shell_join;
use crate::model::{Block, Role};
use crate::normalize::tools::PendingTools;
use crate::normalize::{Diagnostic, Item, Source};

/// A request of the agent to the client, as the pending table keeps it.
pub(super) struct Asked<'r> {
    pub(super) method: &'r str,
    pub(super) id: &'r Value,
    pub(super) params: &'r Value,
    /// Where the request was.
    pub(super) line: u64,
    pub(super) offset: u64,
}

/// A terminal as it was last reported, and the call that stands for it when the client runs
/// it.
#[derive(Default)]
struct Terminal {
    output: Option<String>,
    exit_code: Option<i64>,
    signal: Option<String>,
    /// The client-run terminal's call id, until its result is handed out.
    call: Option<String>,
}

/// The session's terminals, by id.
#[derive(Default)]
pub(super) struct Terminals {
    by_id: HashMap<String, Terminal>,
}

impl Terminals {
    /// A terminal's output and exit code as last reported.
    pub(super) fn seen(&self, id: &str) -> (Option<&str>, Option<i64>) {
        self.by_id
            .get(id)
            .map_or((None, None), |t| (t.output.as_deref(), t.exit_code))
    }

    /// The client made a terminal (`result` of `terminal/create`): its call.
    pub(super) fn created(
        &mut self,
        asked: &Asked<'_>,
        result: &Value,
        at: &At<'_>,
        tools: &mut PendingTools,
        items: &mut Vec<Item>,
    ) {
        let Some(terminal) = text(result, "terminalId") else {
            return;
        };
        call(asked, terminal, at, tools, items);
        self.by_id.entry(terminal.to_owned()).or_default().call = Some(terminal.to_owned());
    }

    /// The client refused to make a terminal: a call that failed at once.
    pub(super) fn refused(
        asked: &Asked<'_>,
        said: String,
        at: &At<'_>,
        tools: &mut PendingTools,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let tool_id = request_call_id(asked.method, asked.id);
        call(asked, &tool_id, at, tools, items);
        let result = (Value::String(said), true, None);
        answer(&tool_id, result, at, tools, items, diagnostics);
    }

    /// A `terminal/output` or `terminal/wait_for_exit` response.
    pub(super) fn reported(&mut self, asked: &Asked<'_>, result: &Value) {
        let Some(id) = text(asked.params, "terminalId") else {
            return;
        };
        let terminal = self.by_id.entry(id.to_owned()).or_default();
        if let Some(output) = text(result, "output") {
            terminal.output = Some(output.to_owned());
        }
        let exit = match asked.method {
            "terminal/wait_for_exit" => Some(result),
            _ => result.get("exitStatus").filter(|e| !e.is_null()),
        };
        if let Some(exit) = exit {
            terminal.exit(exit);
        }
    }

    /// `terminal/release`: the result of the terminal's call.
    pub(super) fn released(
        &mut self,
        params: &Value,
        at: &At<'_>,
        tools: &mut PendingTools,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let terminal = text(params, "terminalId").and_then(|id| self.by_id.get_mut(id));
        let Some(terminal) = terminal else {
            return;
        };
        let Some(tool_id) = terminal.call.take() else {
            return;
        };
        let content = terminal.output.clone().map_or(Value::Null, Value::String);
        let failed = terminal.exit_code.is_some_and(|code| code != 0) || terminal.signal.is_some();
        let result = (content, failed, terminal.exit_code);
        answer(&tool_id, result, at, tools, items, diagnostics);
    }

    /// v2's `terminal_update` (a snapshot: `output` replaces, `null` clears) and
    /// `terminal_output_chunk` (appends).
    pub(super) fn agent_update(&mut self, kind: &str, update: &Value) {
        let Some(id) = text(update, "terminalId") else {
            return;
        };
        let terminal = self.by_id.entry(id.to_owned()).or_default();
        let decode = |data: Option<&Value>| {
            let bytes = base64(data?.as_str()?)?;
            Some(String::from_utf8_lossy(&bytes).into_owned())
        };
        if kind == "terminal_output_chunk" {
            if let Some(chunk) = decode(update.get("data")) {
                terminal
                    .output
                    .get_or_insert_with(String::new)
                    .push_str(&chunk);
            }
            return;
        }
        match update.get("output") {
            Some(Value::Null) => terminal.output = None,
            Some(output) => terminal.output = decode(output.get("data")),
            None => {}
        }
        if let Some(exit) = update.get("exitStatus").filter(|e| !e.is_null()) {
            terminal.exit(exit);
        }
    }
}

impl Terminal {
    fn exit(&mut self, status: &Value) {
        self.exit_code = status.get("exitCode").and_then(Value::as_i64);
        self.signal = text(status, "signal").map(str::to_owned);
    }
}

/// An `fs/*` request: a call of its own.
pub(super) fn file_call(
    asked: &Asked<'_>,
    at: &At<'_>,
    tools: &mut PendingTools,
    items: &mut Vec<Item>,
) {
    let tool_id = request_call_id(asked.method, asked.id);
    let block = Block::ToolUse {
        tool_name: asked.method.to_owned(),
        tool_id: tool_id.clone(),
        tool_input: without_session(asked.params),
        server: false,
        incomplete: false,
        permission: None,
    };
    items.push(Item::emitted(block, Role::Assistant, None, at.source()));
    tools.open(&tool_id, asked.method, at.record.line, at.record.offset);
}

/// The response to an `fs/*` request: its call's result (content, whether it failed).
pub(super) fn file_result(
    asked: &Asked<'_>,
    result: (Value, bool),
    at: &At<'_>,
    tools: &mut PendingTools,
    items: &mut Vec<Item>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let tool_id = request_call_id(asked.method, asked.id);
    answer(
        &tool_id,
        (result.0, result.1, None),
        at,
        tools,
        items,
        diagnostics,
    );
}

/// The `tool_use` and `command` blocks of a client-run terminal.
fn call(
    asked: &Asked<'_>,
    tool_id: &str,
    at: &At<'_>,
    tools: &mut PendingTools,
    items: &mut Vec<Item>,
) {
    let source = Source {
        line: asked.line,
        end_line: at.record.line,
        offset: asked.offset,
    };
    let block = Block::ToolUse {
        tool_name: asked.method.to_owned(),
        tool_id: tool_id.to_owned(),
        tool_input: without_session(asked.params),
        server: false,
        incomplete: false,
        permission: None,
    };
    items.push(Item::emitted(block, Role::Assistant, None, source));
    if let Some(command) = text(asked.params, "command") {
        let mut argv = vec![Value::String(command.to_owned())];
        if let Some(Value::Array(args)) = asked.params.get("args") {
            argv.extend(args.iter().cloned());
        }
        let block = Block::Command {
            command: shell_join(&argv),
            tool_id: Some(tool_id.to_owned()),
        };
        items.push(Item::emitted(block, Role::Assistant, None, source));
    }
    tools.open(tool_id, asked.method, asked.line, asked.offset);
}

/// A call's result: its content, whether it failed, its exit code.
fn answer(
    tool_id: &str,
    (content, is_error, exit_code): (Value, bool, Option<i64>),
    at: &At<'_>,
    tools: &mut PendingTools,
    items: &mut Vec<Item>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let block = Block::ToolResult {
        tool_id: tool_id.to_owned(),
        tool_content: content.into(),
        is_error,
        exit_code,
    };
    items.push(Item::emitted(block, Role::User, None, at.source()));
    tools.answer(tool_id, at.record.line, at.record.offset, diagnostics);
}

/// The call id of a client request: its method and its id.
fn request_call_id(method: &str, id: &Value) -> String {
    match id {
        Value::String(id) => format!("{method}:{id}"),
        other => format!("{method}:{other}"),
    }
}
