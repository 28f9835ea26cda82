//! A Converse content block, whole (a `Converse` body's, a request's), into canonical
//! blocks: `text`; `toolUse` a tool call (`type: server_tool_use` a server tool's), with a
//! `command` block for a shell tool; `toolResult` a result, its content list as its value
//! (one `text` or one `json` item, that item's value), failed when its `status` is `error`;
//! `reasoningContent` a thinking block (`reasoningText` with its signature; its
//! `redactedContent` a redacted one, the bytes as the signature). Any other kind (`image`,
//! `document`, `cachePoint`, `guardContent`, ...) is handed back to be kept.
//!
//! This file owns that mapping. It must not hand blocks out nor pair results with calls.

use std::borrow::Cow;

use serde_json::{Map, Value, json};

use super::wire::LoneResult;
use crate::model::Block;
use crate::normalize::json::Parsed;
use crate::normalize::messages_api::tool_blocks;

/// What a whole content block became: blocks, or a kind kept as it came.
pub(super) enum Whole {
    Blocks(Vec<Block>),
    Unknown(String, Value),
}

/// One content block of a body or a request. A block is one kind (`{"text": ...}`), whose
/// value is moved into what it becomes, not copied: a request's tool results are most of
/// the bytes a session's requests add.
pub(super) fn whole(mut block: Map<String, Value>) -> Whole {
    if block.len() > 1 {
        let kind = "block".to_owned();
        let value = match block.remove(&kind) {
            Some(value) => value,
            None => Value::Object(block),
        };
        return Whole::Unknown(kind, value);
    }
    let Some((kind, value)) = block.into_iter().next() else {
        return Whole::Unknown("block".to_owned(), Value::Object(Map::new()));
    };
    match (kind.as_str(), value) {
        ("text", Value::String(text)) => Whole::Blocks(vec![Block::text(text)]),
        ("toolUse", mut call) => {
            let input = match &mut call {
                Value::Object(call) => call.remove("input"),
                _ => None,
            };
            let field = |name: &str| call.get(name).and_then(Value::as_str).unwrap_or_default();
            let server = field("type") == "server_tool_use";
            Whole::Blocks(tool_blocks(
                field("name").into(),
                field("toolUseId").into(),
                input.unwrap_or_else(|| json!({})),
                server,
                false,
            ))
        }
        ("toolResult", mut result) => {
            let content = match &mut result {
                Value::Object(result) => result.remove("content"),
                _ => None,
            };
            let field = |name: &str| result.get(name).and_then(Value::as_str).unwrap_or_default();
            Whole::Blocks(vec![tool_result(
                field("toolUseId").into(),
                content.unwrap_or(Value::Null),
                field("status"),
            )])
        }
        ("reasoningContent", reasoning) => {
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
            Whole::Unknown(kind, reasoning)
        }
        (_, value) => Whole::Unknown(kind, value),
    }
}

/// A tool's result: `content` a list of `{text}`, `{json}`, `{image}`, ... items (one
/// `text` or `json` item is its value, moved out of the list), failed when `status` is
/// `error`.
pub(super) fn tool_result(tool_id: String, content: Value, status: &str) -> Block {
    let only = |object: &Map<String, Value>| {
        object.len() == 1 && (object.contains_key("text") || object.contains_key("json"))
    };
    let tool_content = match content {
        Value::Array(mut items) if items.len() == 1 => match items.pop() {
            Some(Value::Object(object)) if only(&object) => {
                object.into_values().next().unwrap_or_default()
            }
            item => Value::Array(item.into_iter().collect()),
        },
        content => content,
    };
    Block::ToolResult {
        tool_id,
        tool_content: tool_content.into(),
        is_error: status == "error",
        exit_code: None,
    }
}

/// A lone `toolResult` block whose content is one `text` item (the usual result, see
/// [`LentBlock::lone_result`](super::wire::LentBlock::lone_result)): what [`whole`] makes
/// of it, the text held as the record escaped it (`Parsed::output`).
pub(super) fn lone_tool_result(result: LoneResult<'_, '_>, parsed: Parsed<'_>) -> Block {
    Block::ToolResult {
        tool_id: result.tool_id.to_owned(),
        tool_content: parsed.output(Cow::Borrowed(result.text)),
        is_error: result.status == "error",
        exit_code: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reader this file had before it moved values out of the block: each kind's value
    /// copied out of a block it only looked at (kept to hold the moving one to it).
    fn copying(mut block: Map<String, Value>) -> Whole {
        if let Some(Value::String(text)) = block.get("text")
            && block.len() == 1
        {
            return Whole::Blocks(vec![Block::text(text.clone())]);
        }
        if let Some(call) = block.get("toolUse").filter(|_| block.len() == 1) {
            let field = |name: &str| call.get(name).and_then(Value::as_str).unwrap_or_default();
            let server = field("type") == "server_tool_use";
            let input = call.get("input").cloned().unwrap_or_else(|| json!({}));
            let (name, id) = (field("name").into(), field("toolUseId").into());
            return Whole::Blocks(tool_blocks(name, id, input, server, false));
        }
        if let Some(result) = block.get("toolResult").filter(|_| block.len() == 1) {
            let field = |name: &str| result.get(name).and_then(Value::as_str).unwrap_or_default();
            let content = result.get("content").cloned().unwrap_or(Value::Null);
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
            return Whole::Blocks(vec![Block::ToolResult {
                tool_id: field("toolUseId").into(),
                tool_content: tool_content.into(),
                is_error: field("status") == "error",
                exit_code: None,
            }]);
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

    fn seen(whole: Whole) -> (Vec<Block>, Option<(String, Value)>) {
        match whole {
            Whole::Blocks(blocks) => (blocks, None),
            Whole::Unknown(kind, value) => (Vec::new(), Some((kind, value))),
        }
    }

    #[test]
    fn a_block_moved_out_reads_as_the_block_copied_out() {
        let blocks = [
            json!({}),
            json!({"text": "hello"}),
            json!({"text": 3}),
            json!({"text": "hello", "cachePoint": {}}),
            json!({"block": {"a": 1}, "text": "x"}),
            json!({"toolUse": {"toolUseId": "t1", "name": "bash", "input": {"command": "ls"}}}),
            json!({"toolUse": {"toolUseId": "t1", "name": "bash", "input": null}}),
            json!({"toolUse": {"toolUseId": "t1", "name": "x", "type": "server_tool_use"}}),
            json!({"toolUse": "not an object"}),
            json!({"toolResult": {"toolUseId": "t1", "content": [{"text": "out\n"}]}}),
            json!({"toolResult": {"toolUseId": "t1", "content": [{"json": {"a": [1]}}]}}),
            json!({"toolResult": {"toolUseId": "t1", "content": [{"image": {}}]}}),
            json!({"toolResult": {"content": [{"text": "a", "json": {}}], "status": "error"}}),
            json!({"toolResult": {"toolUseId": "t1", "content": [{"text": "a"}, {"text": "b"}]}}),
            json!({"toolResult": {"toolUseId": "t1", "content": ["bare"]}}),
            json!({"toolResult": {"toolUseId": "t1", "content": []}}),
            json!({"toolResult": {"toolUseId": "t1", "content": "text"}}),
            json!({"toolResult": {"toolUseId": "t1"}}),
            json!({"toolResult": 7}),
            json!({"reasoningContent": {"reasoningText": {"text": "hm", "signature": "s"}}}),
            json!({"reasoningContent": {"redactedContent": "b64"}}),
            json!({"reasoningContent": {"other": 1}}),
            json!({"image": {"format": "png"}}),
        ];
        for block in blocks {
            let Value::Object(block) = block else {
                unreachable!("objects above")
            };
            assert_eq!(
                seen(whole(block.clone())),
                seen(copying(block.clone())),
                "{block:?}"
            );
        }
        let items = json!([{"text": "out"}]);
        assert_eq!(
            tool_result("t".into(), items, "success"),
            Block::ToolResult {
                tool_id: "t".into(),
                tool_content: json!("out").into(),
                is_error: false,
                exit_code: None,
            }
        );
    }

    /// A block read lent ([`LentBlock`](super::super::wire::LentBlock)) is the map `Value`
    /// reads, whatever it holds; a lone result it finds is the one `whole` makes of the map,
    /// its text borrowed from the parse (through simd-json, as the adapter reads records).
    #[test]
    fn a_block_read_lent_is_the_map_and_its_lone_result_is_the_one_whole_makes() {
        use super::super::wire::LentBlock;

        #[derive(serde::Deserialize)]
        struct Record<'a> {
            #[serde(borrow)]
            block: LentBlock<'a>,
        }
        let lone = r#"{"toolResult":{"toolUseId":"t1","content":[{"text":"out \"q\"\n\u001b"}],"status":"success"}}"#;
        let failed =
            r#"{"toolResult":{"status":"error","content":[{"text":"no"}],"toolUseId":"t\u0032"}}"#;
        let not_lone = [
            r#"{"toolResult":{"toolUseId":"t1","content":[{"text":"a"}],"toolUseId":"t2"}}"#,
            r#"{"toolResult":{"content":[{"text":"a"}],"content":[{"text":"b"}]}}"#,
            r#"{"toolResult":{"toolUseId":"t1","content":[{"text":"a"}]},"toolResult":{}}"#,
            r#"{"toolResult":{"toolUseId":"t1","content":[{"text":"a","text":"b"}]}}"#,
            r#"{"toolResult":{"toolUseId":"t1","content":[{"text":"a"},{"text":"b"}]}}"#,
            r#"{"toolResult":{"toolUseId":"t1","content":[{"json":{"a":[1,2.5,null,true]}}]}}"#,
            r#"{"toolResult":{"toolUseId":"t1","content":[{"text":7}]}}"#,
            r#"{"toolResult":{"toolUseId":"t1","content":"text"}}"#,
            r#"{"toolResult":{"toolUseId":"t1"}}"#,
            r#"{"toolResult":7}"#,
            r#"{"toolResult":{"content":[{"text":"a"}]},"cachePoint":{}}"#,
            r#"{"text":"hello","text":"again"}"#,
            r#"{"toolUse":{"toolUseId":"t1","name":"bash","input":{"command":"ls","n":-1}}}"#,
            r#"{"image":{"format":"png","source":{"bytes":"AAAA"}}}"#,
            r#"{}"#,
        ];
        let ids_and_text = [(lone, true), (failed, true)]
            .into_iter()
            .chain(not_lone.into_iter().map(|block| (block, false)));
        for (block, is_lone) in ids_and_text {
            let json = format!(r#"{{"block":{block}}}"#);
            let tree: Value = serde_json::from_str(&json).unwrap();
            let map: Map<String, Value> = serde_json::from_value(tree["block"].clone()).unwrap();
            let mut bytes = json.clone().into_bytes();
            let read: Record<'_> = simd_json::serde::from_slice(&mut bytes).unwrap();
            match read.block.lone_result() {
                Some(result) => {
                    assert!(is_lone, "taken for a lone result: {block}");
                    assert!(matches!(result.text, Cow::Borrowed(_)), "not lent: {block}");
                    let made = Block::ToolResult {
                        tool_id: result.tool_id.to_owned(),
                        tool_content: json!(result.text).into(),
                        is_error: result.status == "error",
                        exit_code: None,
                    };
                    assert_eq!(seen(whole(map.clone())), (vec![made], None), "{block}");
                }
                None => assert!(!is_lone, "not found: {block}"),
            }
            assert_eq!(read.block.into_map(), map, "{block}");
        }
    }
}
