//! Content blocks of the Messages API in canonical form: from a whole message (a response
//! body, a Claude Code line) or assembled from stream deltas (see `stream.rs`).
//!
//! Pure functions of one block, so that two channels' copies of a block can be compared
//! before either is handed out (Claude Code's partial messages), and how a block is handed
//! out (into the adapter's items, tool bookkeeping and metadata, which it is lent). This
//! file must not keep state between blocks.

use crate::normalize::json::{Borrowed, Lent};

use serde_json::Value;

use super::print::fingerprint;
use super::wire::RawBlock;
use crate::model::tools::shell_commands;
use crate::model::{Block, ContentBlock, Fidelity, RunMeta};
use crate::normalize::tools::{PendingTools, citations_of};
use crate::normalize::{Diagnostic, DiagnosticKind, Source};

/// One content block in canonical form, read from either channel, before it is handed out.
pub(crate) struct Canonical {
    /// The provider's block type.
    pub(crate) kind: String,
    /// The id that names the block on both channels: a call's `id`, a server tool result's
    /// `tool_use_id`.
    pub(crate) identity: Option<String>,
    /// What it becomes (a shell call also yields its `command`); empty for an unknown kind.
    pub(crate) blocks: Vec<ContentBlock>,
    /// A hash of the first block, to compare the two channels' copies: set by
    /// [`Canonical::printed`] for an adapter that compares copies (Claude Code's), `None`
    /// otherwise and for an unknown kind, whose copies are not compared.
    pub(crate) print: Option<u64>,
    /// The provider's block, for a kind with no canonical form: kept in the run metadata.
    pub(crate) unknown: Option<Value>,
}

impl Canonical {
    /// With its fingerprint: only an adapter that compares a block with a later copy of it
    /// pays for one.
    pub(crate) fn printed(mut self) -> Self {
        self.print = self.blocks.first().map(fingerprint);
        self
    }
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
    let owned = |text: Option<Borrowed<'_>>| text.map(Borrowed::into_owned).unwrap_or_default();
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
            signature: raw
                .signature
                .map(Borrowed::into_owned)
                .filter(|s| !s.is_empty()),
            redacted: false,
        }],
        "redacted_thinking" => vec![Block::Thinking {
            thinking: String::new(),
            signature: raw.data.map(Borrowed::into_owned).filter(|s| !s.is_empty()),
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
            let content = raw.content.map_or(Value::Null, Lent::into_value);
            let exit_code = return_code(&content);
            let is_error = raw.is_error.unwrap_or(false)
                || is_error_content(&content)
                || exit_code.is_some_and(|code| code != 0);
            vec![Block::ToolResult {
                tool_id: owned(raw.tool_use_id),
                tool_content: content.into(),
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
        print: None,
        kind,
        identity,
        blocks,
        unknown: None,
    }
}

/// Hands out a block in canonical form, as every dialect of the API does: each of its
/// blocks to `push` (which makes it an item), the tool call it opens or the call it
/// answers to `tools`, or, for a kind with no canonical form, an `unknown-block-type`
/// warning at `source` and the provider's block kept in `meta` as `block/<type>`.
pub(crate) fn hand_out(
    block: Canonical,
    source: Source,
    meta: &mut RunMeta,
    tools: &mut PendingTools,
    diagnostics: &mut Vec<Diagnostic>,
    mut push: impl FnMut(ContentBlock),
) {
    if let Some(raw) = block.unknown {
        diagnostics.push(Diagnostic::new(
            DiagnosticKind::UnknownBlockType,
            source.line,
            source.offset,
            format!(
                "content block type {:?} has no canonical form; kept in the run metadata",
                block.kind
            ),
        ));
        meta.keep(source.line, &format!("block/{}", block.kind), || raw);
        return;
    }
    for content in block.blocks {
        match &content.block {
            Block::ToolUse {
                tool_id, tool_name, ..
            } => {
                tools.open(tool_id, tool_name, source.line, source.offset);
            }
            Block::ToolResult { tool_id, .. } => {
                tools.answer(tool_id, source.line, source.offset, diagnostics);
            }
            _ => {}
        }
        push(content);
    }
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
