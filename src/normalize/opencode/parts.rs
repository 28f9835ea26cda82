//! OpenCode's message parts as canonical blocks: the one mapping of a part (`text`,
//! `reasoning`, `tool`, `step-start`, `step-finish`, ...) wherever it is read, the
//! `run --format json` events that carry one (this adapter) or the parts OpenCode keeps in its
//! own storage (an importer of its sessions).
//!
//! * `text`: a `text` block of the assistant's (a part marked `synthetic` or `ignored` is the
//!   CLI's, not the model's: kept as passthrough by the caller).
//! * `reasoning`: a `thinking` block.
//! * `tool` (`tool`, `callID`, `state`): one part is the call and its outcome. The `tool_use`
//!   (input `state.input`; a shell tool's `command` block after it), and, once the state is
//!   `completed` or `error`, the `tool_result`: `state.output` (a `completed` part), else
//!   `state.error`; an error for `error`; the exit code from `state.metadata.exit`. A part
//!   still `pending` or `running` is the call alone.
//! * `step-finish` (`reason`, `tokens{input, output, reasoning, cache{read, write}}`, `cost`):
//!   a step's usage ([`step_usage`]): `input` is the uncached prompt, `output` the answer
//!   without the reasoning, which is counted into it as axt's convention wants.
//! * Any other part (`step-start`, `file`, `patch`, `snapshot`, `agent`, `subtask`, ...):
//!   no block.
//!
//! This room owns the part's shape and its blocks. It keeps no state: the caller tracks the
//! calls and the run.

use serde_json::Value;

use crate::model::tools::shell_commands;
use crate::model::{Block, Role, StopKind, StopReason, Usage};

/// What a part becomes.
pub(crate) enum PartBlocks {
    /// Blocks of one role, in order. A call opens `opened`; a result answers `answered`.
    Blocks { role: Role, blocks: Vec<Block> },
    /// A tool part: the call, and its result once it has one.
    Tool {
        call: Vec<Block>,
        result: Option<Block>,
        tool_id: String,
        tool_name: String,
    },
    /// No block: a part that says nothing about the conversation (`step-start`), or one of a
    /// type this mapping does not know.
    None,
}

/// The blocks of one part (see the module docs). What becomes a block (the text, the tool's
/// input and its result) is taken out of `part`, not copied: these are most of a part's bytes,
/// and the part is read once. A part that makes no block ([`PartBlocks::None`]) is left whole,
/// for the caller to keep as passthrough.
pub(crate) fn part_blocks(part: &mut Value) -> PartBlocks {
    let kind = part.get("type").and_then(Value::as_str);
    match kind {
        Some(kind @ ("text" | "reasoning")) => {
            let thinking = kind == "reasoning";
            let said = match part.get_mut("text") {
                Some(Value::String(said)) if !said.is_empty() => std::mem::take(said),
                _ => return PartBlocks::None,
            };
            let block = if thinking {
                Block::Thinking {
                    thinking: said,
                    signature: None,
                    redacted: false,
                }
            } else {
                Block::text(said)
            };
            PartBlocks::Blocks {
                role: Role::Assistant,
                blocks: vec![block],
            }
        }
        Some("tool") => {
            let text = |field: &str| part.get(field).and_then(Value::as_str).unwrap_or_default();
            let tool_name = text("tool").to_owned();
            let tool_id = text("callID").to_owned();
            let mut no_state = Value::Null;
            let state = part.get_mut("state").unwrap_or(&mut no_state);
            let input = match state.get_mut("input") {
                Some(input) => input.take(),
                None => Value::Object(Default::default()),
            };
            let commands = shell_commands(&tool_name, &input);
            let mut call = vec![Block::ToolUse {
                tool_name: tool_name.clone(),
                tool_id: tool_id.clone(),
                tool_input: input,
                server: false,
                incomplete: false,
                permission: None,
            }];
            call.extend(commands.into_iter().map(|command| Block::Command {
                command,
                tool_id: Some(tool_id.clone()).filter(|id| !id.is_empty()),
            }));
            let status = match state.get("status").and_then(Value::as_str) {
                Some("completed") => Some(true),
                Some("error") => Some(false),
                _ => None,
            };
            let result = status.map(|completed| {
                let exit_code = (state.get("metadata"))
                    .and_then(|metadata| metadata.get("exit"))
                    .and_then(Value::as_i64);
                let content = state.get_mut(if completed { "output" } else { "error" });
                Block::ToolResult {
                    tool_id: tool_id.clone(),
                    tool_content: content.map(Value::take).unwrap_or(Value::Null),
                    is_error: !completed,
                    exit_code,
                }
            });
            PartBlocks::Tool {
                call,
                result,
                tool_id,
                tool_name,
            }
        }
        _ => PartBlocks::None,
    }
}

/// A `step-finish` part's usage (see the module docs).
pub(crate) fn step_usage(part: &Value) -> Option<Usage> {
    let tokens = part.get("tokens")?;
    // `get`, not `pointer`: a pointer copies each of its tokens to unescape `~1`.
    let count = |within: &Value, field: &str| within.get(field).and_then(Value::as_u64);
    let cache = tokens.get("cache").unwrap_or(&Value::Null);
    let reasoning = count(tokens, "reasoning").unwrap_or(0);
    Some(Usage {
        input_tokens: count(tokens, "input").unwrap_or(0),
        output_tokens: count(tokens, "output").unwrap_or(0) + reasoning,
        cache_read_tokens: count(cache, "read").unwrap_or(0),
        cache_write_tokens: count(cache, "write").unwrap_or(0),
        reasoning_tokens: reasoning,
    })
}

/// A `step-finish` part's `reason` as a stop reason.
pub(crate) fn step_stop(part: &Value) -> Option<StopReason> {
    let raw = part.get("reason")?.as_str()?;
    let kind = match raw {
        "stop" => StopKind::EndTurn,
        "tool-calls" => StopKind::ToolUse,
        "length" => StopKind::MaxTokens,
        "content-filter" => StopKind::Refusal,
        "error" => StopKind::Error,
        _ => StopKind::Other,
    };
    Some(StopReason {
        kind,
        raw: raw.to_owned(),
    })
}
