//! Message content in the GenAI conventions' shapes: `gen_ai.input.messages`,
//! `gen_ai.output.messages`, `gen_ai.system_instructions` (their JSON schemas are
//! `gen-ai-input-messages.json`, `gen-ai-output-messages.json` and
//! `gen-ai-system-instructions.json` of the semantic conventions). Used only when content
//! export is asked for; the events reach here already redacted.
//!
//! | transcript block | message part |
//! |---|---|
//! | `text` | `{"type": "text", "content"}`; in a `message.user` with `system_prompt`, a part of `gen_ai.system_instructions` instead |
//! | `thinking` | `{"type": "reasoning", "content"}` (empty when the provider redacted it) |
//! | `tool_use` | `{"type": "tool_call", "id", "name", "arguments"}` |
//! | `tool_use` with `server` | `{"type": "server_tool_call", "id", "name", "server_tool_call": {"type": name, "arguments"}}` |
//! | `tool_result` in an assistant message (a server tool's) | `{"type": "server_tool_call_response", "id", "server_tool_call_response": {"type": "tool_result", "response", "is_error"}}` |
//! | `tool_result` in a user message, a `tool.result` event | a `tool` message: `{"type": "tool_call_response", "id", "response"}` |
//! | `command`, `stream` | none: a command repeats its call's input, a stream chunk a part of the text |
//! | a block axt could not read | `{"type": "generic", "generic_type": <its type>, "axt.raw": <the block>}` (the schemas' generic part, as #584 spells it) |

use serde_json::{Value, json};

use crate::model::{Block, ContentBlock};

/// The parts of a `message.user`: the prompt's parts, the system prompt's parts, and the
/// tool results it carries (as `tool` messages).
pub(super) struct UserParts {
    pub(super) prompt: Vec<Value>,
    pub(super) system: Vec<Value>,
    pub(super) tool_messages: Vec<Value>,
}

pub(super) fn user_parts(blocks: &[ContentBlock]) -> UserParts {
    let mut parts = UserParts {
        prompt: Vec::new(),
        system: Vec::new(),
        tool_messages: Vec::new(),
    };
    for block in blocks {
        match &block.block {
            Block::Text {
                text,
                system_prompt: true,
                ..
            } => parts.system.push(text_part(text)),
            Block::ToolResult {
                tool_id,
                tool_content,
                ..
            } => parts
                .tool_messages
                .push(tool_message(tool_id, tool_content)),
            _ => parts.prompt.extend(part(&block.block)),
        }
    }
    parts
}

/// The parts of an assistant's blocks, in order.
pub(super) fn assistant_parts(blocks: &[ContentBlock]) -> Vec<Value> {
    blocks.iter().filter_map(|b| part(&b.block)).collect()
}

/// A `tool` message answering call `id`.
pub(super) fn tool_message(id: &str, response: &Value) -> Value {
    json!({"role": "tool", "parts": [
        {"type": "tool_call_response", "id": id, "response": response}
    ]})
}

/// A `user` message of `parts`.
pub(super) fn user_message(parts: Vec<Value>) -> Value {
    json!({"role": "user", "parts": parts})
}

/// The one output message of a model turn.
pub(super) fn output_message(parts: Vec<Value>, finish_reason: &str) -> Value {
    json!({"role": "assistant", "parts": parts, "finish_reason": finish_reason})
}

fn text_part(text: &str) -> Value {
    json!({"type": "text", "content": text})
}

fn part(block: &Block) -> Option<Value> {
    Some(match block {
        Block::Text { text, .. } => text_part(text),
        Block::Thinking { thinking, .. } => json!({"type": "reasoning", "content": thinking}),
        Block::ToolUse {
            tool_name,
            tool_id,
            tool_input,
            server: false,
            ..
        } => json!({"type": "tool_call", "id": tool_id, "name": tool_name,
            "arguments": tool_input}),
        Block::ToolUse {
            tool_name,
            tool_id,
            tool_input,
            server: true,
            ..
        } => json!({"type": "server_tool_call", "id": tool_id, "name": tool_name,
            "server_tool_call": {"type": tool_name, "arguments": tool_input}}),
        Block::ToolResult {
            tool_id,
            tool_content,
            is_error,
            ..
        } => json!({"type": "server_tool_call_response", "id": tool_id,
            "server_tool_call_response": {"type": "tool_result", "response": tool_content,
                "is_error": is_error}}),
        Block::Command { .. } | Block::Stream { .. } => return None,
        Block::Unrecognized(unrecognized) => {
            let kind = match block.type_name() {
                "" => "unknown",
                kind => kind,
            };
            json!({"type": "generic", "generic_type": kind, "axt.raw": unrecognized.raw})
        }
    })
}
