//! Anthropic content blocks in canonical form, from a consolidated line or assembled from
//! stream deltas.
//!
//! Pure functions of one block, so that the two channels' copies of a block can be compared
//! before either is handed out. This room must not touch the adapter's state.

use std::borrow::Cow;
use std::hash::{BuildHasher, Hasher};

use serde::Deserialize;
use serde_json::Value;

use super::wire::RawBlock;
use crate::model::tools::{shell_commands, subagent_name};
use crate::model::{Block, Citation, ContentBlock, Fidelity};
use crate::normalize::Source;
use crate::normalize::framing::Record;
use crate::normalize::json::to_value;
use crate::normalize::tools::citations_of;

/// A content block being assembled from stream deltas.
pub(super) struct OpenBlock {
    pub(super) kind: String,
    pub(super) text: String,
    pub(super) citations: Vec<Citation>,
    pub(super) signature: String,
    pub(super) tool_name: String,
    pub(super) tool_id: String,
    pub(super) tool_input: Option<Value>,
    pub(super) partial_json: String,
    /// The whole `content_block` of a kind that has no deltas (a server tool's result, a
    /// kind axt does not know), read at its stop as a consolidated block would be.
    pub(super) raw: Option<Value>,
    pub(super) source: Source,
}

/// One content block in canonical form, read from either channel, before it is handed out.
pub(super) struct Canonical {
    /// The provider's block type.
    pub(super) kind: String,
    /// The id that names the block on both channels: a call's `id`, a server tool result's
    /// `tool_use_id`.
    pub(super) identity: Option<String>,
    /// What it becomes (a shell call also yields its `command`); empty for an unknown kind.
    pub(super) blocks: Vec<ContentBlock>,
    /// A hash of the first block, to compare the two channels' copies; `None` for an
    /// unknown kind, whose copies are not compared.
    pub(super) print: Option<u64>,
    /// The provider's block, for a kind with no canonical form: kept in the run metadata.
    pub(super) unknown: Option<Value>,
}

/// The id that names a block on both channels: a call's `id`, a server result's
/// `tool_use_id`.
pub(super) fn block_identity(raw: &RawBlock<'_>) -> Option<String> {
    raw.id
        .as_deref()
        .or(raw.tool_use_id.as_deref())
        .filter(|id| !id.is_empty())
        .map(str::to_owned)
}

/// The content block at `position` of a record's message, for keeping an unknown kind.
pub(super) fn content_value(record: Record<'_>, position: usize) -> Value {
    let raw = to_value(record.bytes);
    raw.pointer(&format!("/message/content/{position}"))
        .cloned()
        .unwrap_or(raw)
}

/// One Anthropic block in canonical form (a shell call also yields its command);
/// `unknown` gives the provider's block when its kind has no canonical form.
pub(super) fn canonical(raw: RawBlock<'_>, unknown: impl FnOnce() -> Value) -> Canonical {
    let owned = |text: Option<Cow<'_, str>>| text.map(Cow::into_owned).unwrap_or_default();
    let identity = block_identity(&raw);
    let kind = raw.kind.into_owned();
    let blocks = match kind.as_str() {
        "text" => vec![Block::Text {
            text: owned(raw.text),
            citations: citations_of(raw.citations.as_ref()),
            system_prompt: false,
        }],
        "thinking" => vec![Block::Thinking {
            thinking: owned(raw.thinking),
            signature: raw.signature.map(Cow::into_owned).filter(|s| !s.is_empty()),
            redacted: false,
        }],
        "redacted_thinking" => vec![Block::Thinking {
            thinking: String::new(),
            signature: raw.data.map(Cow::into_owned).filter(|s| !s.is_empty()),
            redacted: true,
        }],
        "tool_use" | "server_tool_use" => tool_blocks(
            owned(raw.name),
            owned(raw.id),
            raw.input.unwrap_or(Value::Null),
            kind == "server_tool_use",
            false,
        ),
        // The results of server tools arrive inside the assistant message
        // (`web_search_tool_result`, `web_fetch_tool_result`, ...).
        result if result.ends_with("_tool_result") && raw.tool_use_id.is_some() => {
            let is_error = raw.is_error.unwrap_or(false) || is_error_content(raw.content.as_ref());
            vec![Block::ToolResult {
                tool_id: owned(raw.tool_use_id),
                tool_content: raw.content.unwrap_or(Value::Null),
                is_error,
                exit_code: None,
            }]
        }
        _ => {
            return Canonical {
                kind,
                identity,
                blocks: Vec::new(),
                print: None,
                unknown: Some(unknown()),
            };
        }
    };
    made(kind, identity, blocks)
}

/// A tool call, and the `command` blocks of a shell call whose arguments are complete.
pub(super) fn tool_blocks(
    tool_name: String,
    tool_id: String,
    tool_input: Value,
    server: bool,
    incomplete: bool,
) -> Vec<Block> {
    let commands = shell_commands(&tool_name, &tool_input)
        .into_iter()
        .filter(|_| !incomplete)
        .map(|command| Block::Command {
            command,
            tool_id: Some(tool_id.clone()).filter(|id| !id.is_empty()),
        })
        .collect::<Vec<_>>();
    let tool_use = Block::ToolUse {
        tool_name,
        tool_id,
        tool_input,
        server,
        incomplete,
        permission: None,
    };
    std::iter::once(tool_use).chain(commands).collect()
}

pub(super) fn made(kind: String, identity: Option<String>, blocks: Vec<Block>) -> Canonical {
    let blocks: Vec<ContentBlock> = blocks
        .into_iter()
        .map(|block| ContentBlock::new(Fidelity::AgentEmitted, block))
        .collect();
    Canonical {
        print: blocks.first().map(fingerprint),
        kind,
        identity,
        blocks,
        unknown: None,
    }
}

/// A block assembled from its deltas, in canonical form; `cut` when the input ended first.
/// The second value is why streamed tool arguments are not valid JSON, when they are not.
pub(super) fn close_block(open: OpenBlock, cut: bool) -> (Canonical, Option<String>) {
    let identity = Some(open.tool_id.clone()).filter(|id| !id.is_empty());
    let blocks = match open.kind.as_str() {
        "text" => vec![Block::Text {
            text: open.text,
            citations: open.citations,
            system_prompt: false,
        }],
        "thinking" => vec![Block::Thinking {
            thinking: open.text,
            signature: Some(open.signature).filter(|s| !s.is_empty()),
            redacted: false,
        }],
        "redacted_thinking" => vec![Block::Thinking {
            thinking: String::new(),
            signature: Some(open.signature).filter(|s| !s.is_empty()),
            redacted: true,
        }],
        "tool_use" | "server_tool_use" => {
            let mut invalid = None;
            let (tool_input, incomplete) = if open.partial_json.is_empty() {
                let input = open
                    .tool_input
                    .unwrap_or_else(|| Value::Object(Default::default()));
                (input, cut)
            } else {
                match serde_json::from_str::<Value>(&open.partial_json) {
                    Ok(input) => (input, cut),
                    Err(error) => {
                        if !cut {
                            invalid = Some(error.to_string());
                        }
                        (Value::String(open.partial_json), true)
                    }
                }
            };
            let server = open.kind == "server_tool_use";
            let blocks = tool_blocks(open.tool_name, open.tool_id, tool_input, server, incomplete);
            return (made(open.kind, identity, blocks), invalid);
        }
        _ => {
            let raw = open.raw.unwrap_or(Value::Null);
            let block = match RawBlock::deserialize(&raw) {
                Ok(block) => canonical(block, || raw.clone()),
                Err(_) => Canonical {
                    kind: open.kind,
                    identity: None,
                    blocks: Vec::new(),
                    print: None,
                    unknown: Some(raw.clone()),
                },
            };
            return (block, None);
        }
    };
    (made(open.kind, identity, blocks), None)
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

/// A hash of a block's wire form: equal blocks, equal prints.
pub(super) fn fingerprint(block: &ContentBlock) -> u64 {
    struct Sink(foldhash::quality::FoldHasher<'static>);
    impl std::io::Write for Sink {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.write(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    // foldhash, not SipHash: every assistant block is printed once, on the hot path, and
    // no adversary picks the keys of a table here (prints are only compared). The fixed
    // seed keeps prints equal across runs.
    let mut sink = Sink(foldhash::quality::FixedState::with_seed(0x6178_7400).build_hasher());
    // Serializing a block into a hasher cannot fail: nothing is written anywhere.
    let _ = serde_json::to_writer(&mut sink, block);
    sink.0.finish()
}

pub(super) fn is_empty_object(value: &Value) -> bool {
    value.as_object().is_some_and(|object| object.is_empty())
}

/// Server tool results report failure as content of type `*_error`.
fn is_error_content(content: Option<&Value>) -> bool {
    content
        .and_then(|c| c.get("type"))
        .and_then(Value::as_str)
        .is_some_and(|kind| kind.ends_with("_error"))
}
