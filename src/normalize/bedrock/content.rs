//! A Converse content block, whole (a `Converse` body's, a request's), into canonical
//! blocks: `text`; `toolUse` a tool call (`type: server_tool_use` a server tool's), with a
//! `command` block for a shell tool; `toolResult` a result, its content list as its value
//! (one `text` or one `json` item, that item's value), failed when its `status` is `error`;
//! `reasoningContent` a thinking block (`reasoningText` with its signature; its
//! `redactedContent` a redacted one, the bytes as the signature). Any other kind (`image`,
//! `document`, `cachePoint`, `guardContent`, ...) is handed back to be kept.
//!
//! This file owns that mapping. It must not hand blocks out nor pair results with calls.

use serde_json::{Map, Value, json};

use crate::model::Block;
use crate::normalize::messages_api::tool_blocks;

/// What a whole content block became: blocks, or a kind kept as it came.
pub(super) enum Whole {
    Blocks(Vec<Block>),
    Unknown(String, Value),
}

/// One content block of a body or a request.
pub(super) fn whole(mut block: Map<String, Value>) -> Whole {
    if let Some(Value::String(text)) = block.get("text")
        && block.len() == 1
    {
        return Whole::Blocks(vec![Block::text(text.clone())]);
    }
    if let Some(call) = block.get("toolUse").filter(|_| block.len() == 1) {
        let field = |name: &str| call.get(name).and_then(Value::as_str).unwrap_or_default();
        let server = field("type") == "server_tool_use";
        let input = call.get("input").cloned().unwrap_or_else(|| json!({}));
        let blocks = tool_blocks(
            field("name").into(),
            field("toolUseId").into(),
            input,
            server,
            false,
        );
        return Whole::Blocks(blocks);
    }
    if let Some(result) = block.get("toolResult").filter(|_| block.len() == 1) {
        let field = |name: &str| result.get(name).and_then(Value::as_str).unwrap_or_default();
        let content = result.get("content").cloned().unwrap_or(Value::Null);
        return Whole::Blocks(vec![tool_result(
            field("toolUseId").into(),
            content,
            field("status"),
        )]);
    }
    if let Some(reasoning) = block.get("reasoningContent").filter(|_| block.len() == 1) {
        let text = |path: &str| reasoning.pointer(path).and_then(Value::as_str);
        if let Some(thinking) = text("/reasoningText/text") {
            return Whole::Blocks(vec![Block::Thinking {
                thinking: thinking.to_owned(),
                signature: text("/reasoningText/signature").map(str::to_owned),
                redacted: false,
            }]);
        }
        if let Some(data) = text("/redactedContent") {
            return Whole::Blocks(vec![Block::Thinking {
                thinking: String::new(),
                signature: Some(data.to_owned()),
                redacted: true,
            }]);
        }
    }
    let kind = match block.keys().next() {
        Some(kind) if block.len() == 1 => kind.clone(),
        _ => "block".to_owned(),
    };
    let value = match block.remove(&kind) {
        Some(value) => value,
        None => Value::Object(block),
    };
    Whole::Unknown(kind, value)
}

/// A tool's result: `content` a list of `{text}`, `{json}`, `{image}`, ... items (one
/// `text` or `json` item is its value), failed when `status` is `error`.
pub(super) fn tool_result(tool_id: String, content: Value, status: &str) -> Block {
    let only = |item: &Value| {
        let object = item.as_object()?;
        if object.len() != 1 {
            return None;
        }
        object.get("text").or_else(|| object.get("json")).cloned()
    };
    let tool_content = match content.as_array().map(Vec::as_slice) {
        Some([item]) => only(item).unwrap_or(content),
        _ => content,
    };
    Block::ToolResult {
        tool_id,
        tool_content,
        is_error: status == "error",
        exit_code: None,
    }
}
