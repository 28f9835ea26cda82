//! Content blocks of the Messages API in canonical form: from a whole message (a response
//! body, a Claude Code line) or assembled from stream deltas (see `stream.rs`).
//!
//! Pure functions of one block, so that two channels' copies of a block can be compared
//! before either is handed out (Claude Code's partial messages). This file must not keep
//! state between blocks.

use std::borrow::Cow;
use std::hash::{BuildHasher, Hasher};

use serde_json::Value;

use super::wire::RawBlock;
use crate::model::tools::shell_commands;
use crate::model::{Block, ContentBlock, Fidelity};
use crate::normalize::tools::citations_of;

/// One content block in canonical form, read from either channel, before it is handed out.
pub(crate) struct Canonical {
    /// The provider's block type.
    pub(crate) kind: String,
    /// The id that names the block on both channels: a call's `id`, a server tool result's
    /// `tool_use_id`.
    pub(crate) identity: Option<String>,
    /// What it becomes (a shell call also yields its `command`); empty for an unknown kind.
    pub(crate) blocks: Vec<ContentBlock>,
    /// A hash of the first block, to compare the two channels' copies; `None` for an
    /// unknown kind, whose copies are not compared.
    pub(crate) print: Option<u64>,
    /// The provider's block, for a kind with no canonical form: kept in the run metadata.
    pub(crate) unknown: Option<Value>,
}

/// The id that names a block on both channels: a call's `id`, a server result's
/// `tool_use_id`.
pub(crate) fn block_identity(raw: &RawBlock<'_>) -> Option<String> {
    raw.id
        .as_deref()
        .or(raw.tool_use_id.as_deref())
        .filter(|id| !id.is_empty())
        .map(str::to_owned)
}

/// One content block in canonical form (a shell call also yields its command);
/// `unknown` gives the provider's block when its kind has no canonical form.
pub(crate) fn canonical(raw: RawBlock<'_>, unknown: impl FnOnce() -> Value) -> Canonical {
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
        "tool_use" | "server_tool_use" | "mcp_tool_use" => {
            let name = match (&*kind, raw.server_name.as_deref()) {
                ("mcp_tool_use", Some(server)) => {
                    format!("mcp__{server}__{}", raw.name.as_deref().unwrap_or(""))
                }
                _ => owned(raw.name),
            };
            let server = kind != "tool_use";
            let input = raw.input.unwrap_or(Value::Null);
            tool_blocks(name, owned(raw.id), input, server, false)
        }
        // The results of server tools arrive inside the assistant message
        // (`web_search_tool_result`, `web_fetch_tool_result`, `code_execution_tool_result`,
        // `mcp_tool_result`, ...).
        result if result.ends_with("_tool_result") && raw.tool_use_id.is_some() => {
            let content = raw.content.unwrap_or(Value::Null);
            let exit_code = return_code(&content);
            let is_error = raw.is_error.unwrap_or(false)
                || is_error_content(&content)
                || exit_code.is_some_and(|code| code != 0);
            vec![Block::ToolResult {
                tool_id: owned(raw.tool_use_id),
                tool_content: content,
                is_error,
                exit_code,
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
pub(crate) fn tool_blocks(
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

pub(crate) fn made(kind: String, identity: Option<String>, blocks: Vec<Block>) -> Canonical {
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

/// A hash of a block's wire form: equal blocks, equal prints.
pub(crate) fn fingerprint(block: &ContentBlock) -> u64 {
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

pub(crate) fn is_empty_object(value: &Value) -> bool {
    value.as_object().is_some_and(|object| object.is_empty())
}

/// Server tool results report failure as content of type `*_error`
/// (`web_search_tool_result_error`, `code_execution_tool_result_error`, ...).
fn is_error_content(content: &Value) -> bool {
    content
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|kind| kind.ends_with("_error"))
}

/// A code execution result's `return_code` (`code_execution_result`,
/// `bash_code_execution_result`): the exit status of what the server ran.
fn return_code(content: &Value) -> Option<i64> {
    content.get("return_code")?.as_i64()
}
