//! What Claude Code adds to the Messages API's blocks (`messages_api` makes them): where a
//! line keeps a block axt has no form for, and the sub-agent a call starts.
//!
//! Pure functions of one block. This file must not touch the adapter's state.

use serde_json::Value;

use crate::model::tools::subagent_name;
use crate::model::{Block, ContentBlock};
use crate::normalize::framing::Record;
use crate::normalize::json::to_value;

/// The content block at `position` of a record's message, for keeping an unknown kind.
pub(super) fn content_value(record: Record<'_>, position: usize) -> Value {
    let raw = to_value(record.bytes);
    raw.pointer(&format!("/message/content/{position}"))
        .cloned()
        .unwrap_or(raw)
}

/// The sub-agent a `Task` / `Agent` call starts, by the name its input gives.
pub(super) fn subagent_of(content: &ContentBlock) -> Option<String> {
    match &content.block {
        Block::ToolUse {
            tool_name,
            tool_input,
            ..
        } => subagent_name(tool_name, tool_input).map(str::to_owned),
        _ => None,
    }
}
