//! Handing out: what was assembled becomes items, in the order thinking, text, tool calls
//! (each with its shell commands and, for a server tool, its result); tool results and
//! user text from requests and result items.
//!
//! This file owns the blocks the adapter produces, the `incomplete` marks and warnings of
//! output cut off, and the bookkeeping of open tool calls (`PendingTools`). It reads no
//! record.

use serde_json::Value;

use super::State;
use super::assembly::{Assembly, Input};
use super::items::{ItemResult, PROGRAM};
use super::wire::StrOr;
use crate::model::tools::shell_commands;
use crate::model::{Block, ContentBlock, Fidelity, Role};
use crate::normalize::tools::describe_tool;
use crate::normalize::{Diagnostic, DiagnosticKind, Item, Source};

impl State {
    pub(super) fn user_text(
        &mut self,
        content: &StrOr<'_, Value>,
        span: Source,
        items: &mut Vec<Item>,
    ) {
        // Parts that are not text (images, files, audio) are kept, not dropped.
        if let StrOr::Else(Value::Array(parts)) = content {
            for part in parts {
                let kind = part.get("type").and_then(Value::as_str).unwrap_or("text");
                if !matches!(kind, "text" | "input_text" | "output_text") {
                    self.meta
                        .keep(span.line, &format!("part/{kind}"), || part.clone());
                }
            }
        }
        let text = content.text("\n");
        if !text.is_empty() {
            items.push(item(
                ContentBlock::text(Fidelity::AgentEmitted, text),
                Role::User,
                None,
                span,
            ));
        }
    }

    /// A tool result: from a request (`Role::User`, the client ran the tool), or from a
    /// response's output (`Role::Assistant`, the provider did).
    pub(super) fn tool_result(
        &mut self,
        result: ItemResult,
        role: Role,
        span: Source,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let mut tool_id = result.tool_id;
        if let (true, Some(tool)) = (tool_id.is_empty(), result.unnamed) {
            tool_id = self.tools.oldest_waiting_named(tool).unwrap_or_default();
        }
        self.tools
            .answer(&tool_id, span.line, span.offset, diagnostics);
        // A sub-call's result is in its program's scope, as the call is.
        let scope = result
            .program
            .or_else(|| self.program_calls.get(&tool_id).cloned());
        let block = Block::ToolResult {
            tool_id,
            tool_content: result.content,
            is_error: result.is_error,
            exit_code: result.exit_code,
        };
        let block = ContentBlock::new(Fidelity::AgentEmitted, block);
        let message_id = match role {
            Role::User => None,
            _ => self.response_id.clone(),
        };
        let mut result = item(block, role, message_id, span);
        result.agent = scope;
        items.push(result);
    }

    /// Hands out chat choice `index`, with the response's sources as its text's citations.
    /// The choices of a response after the first (`n` > 1) are other completions of the
    /// same prompt, not more of one message: their message id is the response id with
    /// `#<index>` appended.
    pub(super) fn emit_choice(
        &mut self,
        index: u64,
        mut assembly: Assembly,
        complete: bool,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        if assembly.text_span.is_some() {
            for source in &self.sources {
                if !assembly.citations.contains(source) {
                    assembly.citations.push(source.clone());
                }
            }
        }
        if index == 0 {
            return self.emit(assembly, complete, items, diagnostics);
        }
        let response_id = self.response_id.clone();
        self.response_id = response_id.as_ref().map(|id| format!("{id}#{index}"));
        self.emit(assembly, complete, items, diagnostics);
        self.response_id = response_id;
    }

    /// Hands out an assembled message: thinking, text, then each tool call (and its
    /// command).
    pub(super) fn emit(
        &mut self,
        assembly: Assembly,
        complete: bool,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        if assembly.is_empty() {
            return;
        }
        let message_id = self.response_id.clone();
        let incomplete = |diagnostics: &mut Vec<Diagnostic>, what: &str, span: Source| {
            if !complete {
                diagnostics.push(Diagnostic::new(
                    DiagnosticKind::IncompleteBlock,
                    span.line,
                    span.offset,
                    format!(
                        "{what} still streaming when the input ended; kept as far as it arrived"
                    ),
                ));
            }
        };
        if let Some(span) = assembly.thinking_span {
            incomplete(diagnostics, "thinking", span);
            let block = Block::Thinking {
                thinking: assembly.thinking,
                signature: assembly.signature,
                redacted: false,
            };
            let block = ContentBlock::new(Fidelity::AgentEmitted, block);
            items.push(item(block, Role::Assistant, message_id.clone(), span));
        }
        if let Some(span) = assembly.text_span {
            incomplete(diagnostics, "assistant text", span);
            let block = Block::Text {
                text: assembly.text,
                citations: assembly.citations,
                system_prompt: false,
            };
            let block = ContentBlock::new(Fidelity::AgentEmitted, block);
            items.push(item(block, Role::Assistant, message_id.clone(), span));
        }
        for part in assembly.other_parts {
            let kind = part.get("type").and_then(Value::as_str).unwrap_or("");
            let line = assembly.text_span.map_or(0, |span| span.line);
            self.meta
                .keep(line, &format!("part/{kind}"), || part.clone());
        }
        for call in assembly.calls {
            let span = call.span;
            let scope = call.scope.clone();
            if let Some(program) = &scope {
                self.program_calls.insert(call.id.clone(), program.clone());
            }
            // Each item of the call sits in its program's scope when a program made it.
            let scoped = |mut item: Item| {
                item.agent = scope.clone();
                item
            };
            let what = describe_tool(&call.name, &call.id);
            incomplete(diagnostics, &what, span);
            let tool_input = match call.input {
                Input::Value(value) => value,
                Input::Text => Value::String(call.arguments),
                Input::Code(mut fields) => {
                    if !call.arguments.is_empty() {
                        fields.insert("code".into(), Value::String(call.arguments));
                    }
                    Value::Object(fields)
                }
                Input::Json if call.arguments.trim().is_empty() => {
                    Value::Object(Default::default())
                }
                Input::Json => match serde_json::from_str::<Value>(&call.arguments) {
                    Ok(value) => value,
                    Err(error) => {
                        if complete {
                            diagnostics.push(Diagnostic::new(
                                DiagnosticKind::InvalidToolInput,
                                span.line,
                                span.offset,
                                format!(
                                    "{what}: arguments are not JSON ({error}); kept as a string"
                                ),
                            ));
                        }
                        Value::String(call.arguments)
                    }
                },
            };
            self.tools
                .open(&call.id, &call.name, span.line, span.offset);
            if !call.server {
                // Only a call the client must run ends the turn for tools.
                self.calls_in_response += 1;
            }
            let commands = shell_commands(&call.name, &tool_input);
            // A program's sub-calls are a step of their own, named after the tool.
            let subagent = (call.name == PROGRAM).then(|| PROGRAM.to_owned());
            let block = Block::ToolUse {
                tool_name: call.name,
                tool_id: call.id.clone(),
                tool_input,
                server: call.server,
                incomplete: !complete,
                permission: None,
            };
            let block = ContentBlock::new(Fidelity::AgentEmitted, block);
            let mut call_item = scoped(item(block, Role::Assistant, message_id.clone(), span));
            call_item.subagent = subagent;
            items.push(call_item);
            for command in commands {
                let block = Block::Command {
                    command,
                    tool_id: Some(call.id.clone()).filter(|id| !id.is_empty()),
                };
                let block = ContentBlock::new(Fidelity::AgentEmitted, block);
                items.push(scoped(item(
                    block,
                    Role::Assistant,
                    message_id.clone(),
                    span,
                )));
            }
            // A server tool's result is in its item; a call cut off has none yet.
            if let (Some((content, is_error)), true) = (call.result, complete) {
                self.tools
                    .answer(&call.id, span.line, span.offset, diagnostics);
                let block = Block::ToolResult {
                    tool_id: call.id,
                    tool_content: content.into(),
                    is_error,
                    exit_code: None,
                };
                let block = ContentBlock::new(Fidelity::AgentEmitted, block);
                items.push(scoped(item(
                    block,
                    Role::Assistant,
                    message_id.clone(),
                    span,
                )));
            }
        }
    }
}

pub(super) fn item(
    block: ContentBlock,
    role: Role,
    message_id: Option<String>,
    source: Source,
) -> Item {
    Item {
        block,
        role,
        message_id,
        agent: None,
        subagent: None,
        source,
        time: None,
    }
}
