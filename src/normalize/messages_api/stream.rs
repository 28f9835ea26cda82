//! A content block assembled from the stream's deltas: `content_block_start` opens it,
//! `content_block_delta`s add to it (`text_delta`, `thinking_delta`, `signature_delta`,
//! `input_json_delta`, `citations_delta`), `content_block_stop` closes it into its canonical
//! form; and [`Assembly`], the open blocks of one message by index.
//!
//! This file owns one message's blocks while they stream. It must not decide what happens
//! around them (which message they belong to, a consolidated copy of them): the adapters do.

use crate::normalize::json::Borrowed;

use serde::Deserialize;
use serde_json::Value;

use super::blocks::{Canonical, block_identity, canonical, is_empty_object, made, tool_blocks};
use super::wire::{Delta, RawBlock};
use crate::model::{Block, Citation};
use crate::normalize::Source;
use crate::normalize::tools::{citation_of, citations_of, streamed_text};

/// A content block being assembled from stream deltas.
pub(crate) struct OpenBlock {
    pub(crate) kind: String,
    pub(crate) text: String,
    pub(crate) citations: Vec<Citation>,
    pub(crate) signature: String,
    pub(crate) tool_name: String,
    pub(crate) tool_id: String,
    pub(crate) tool_input: Option<Value>,
    pub(crate) partial_json: String,
    /// The whole `content_block` of a kind that has no deltas (a server tool's result, a
    /// kind axt does not know), read at its stop as a consolidated block would be.
    pub(crate) raw: Option<Value>,
    pub(crate) source: Source,
}

impl OpenBlock {
    /// A block `content_block_start` opens (`raw`, its `content_block`), from the record at
    /// `source`. `whole` gives the whole `content_block` when its kind has no deltas (a
    /// server tool's result, a kind axt does not know), to be read at its stop as a block of
    /// a whole message would be. Also returns the block's identity (see [`block_identity`]).
    pub(crate) fn start(
        raw: RawBlock<'_>,
        whole: impl FnOnce() -> Value,
        source: Source,
    ) -> (OpenBlock, Option<String>) {
        let identity = block_identity(&raw);
        let has_deltas = matches!(
            &*raw.kind,
            "text" | "thinking" | "redacted_thinking" | "tool_use" | "server_tool_use"
        );
        let text = match (raw.text.or(raw.thinking), &*raw.kind) {
            // Grown by its deltas.
            (first, "text" | "thinking") => streamed_text(first.as_deref().unwrap_or("")),
            (first, _) => first.map(Borrowed::into_owned).unwrap_or_default(),
        };
        let open = OpenBlock {
            citations: citations_of(raw.citations.as_ref()),
            kind: raw.kind.into_owned(),
            text,
            signature: raw
                .signature
                .or(raw.data)
                .map(Borrowed::into_owned)
                .unwrap_or_default(),
            tool_name: raw.name.map(Borrowed::into_owned).unwrap_or_default(),
            tool_id: raw.id.map(Borrowed::into_owned).unwrap_or_default(),
            tool_input: raw.input.filter(|input| !is_empty_object(input)),
            partial_json: String::new(),
            raw: (!has_deltas).then(whole),
            source,
        };
        (open, identity)
    }

    /// A `content_block_delta` of this block, from line `line`. A delta of a kind axt does
    /// not know adds nothing.
    pub(crate) fn apply(&mut self, delta: &Delta<'_>, line: u64) {
        self.source.end_line = line;
        match delta.kind.as_deref() {
            Some("text_delta") => self.text.push_str(delta.text.as_deref().unwrap_or("")),
            Some("thinking_delta") => self.text.push_str(delta.thinking.as_deref().unwrap_or("")),
            Some("signature_delta") => self
                .signature
                .push_str(delta.signature.as_deref().unwrap_or("")),
            Some("input_json_delta") => self
                .partial_json
                .push_str(delta.partial_json.as_deref().unwrap_or("")),
            Some("citations_delta") => {
                let citation = delta.citation.as_ref().and_then(|c| citation_of(c, 0));
                self.citations.extend(citation);
            }
            _ => {}
        }
    }
}

/// A block assembled from its deltas, in canonical form; `cut` when the input ended first.
/// The second value is why streamed tool arguments are not valid JSON, when they are not.
pub(crate) fn close_block(open: OpenBlock, cut: bool) -> (Canonical, Option<String>) {
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

/// The blocks of one message while they stream, by index: for an adapter that reads the
/// stream alone (the API's SSE), with no consolidated copy to reconcile.
#[derive(Default)]
pub(crate) struct Assembly {
    open: Vec<(u64, OpenBlock)>,
}

/// A block closed by its `content_block_stop`.
pub(crate) struct Closed {
    pub(crate) block: Canonical,
    /// The records it was made from: its start to its stop.
    pub(crate) source: Source,
    /// Why its streamed tool input is not valid JSON, when it is not (kept as a string).
    pub(crate) invalid_input: Option<String>,
}

impl Assembly {
    /// Block `index` starts. Returns the block it replaces, when that index was streaming
    /// already (started again without its stop).
    pub(crate) fn start(&mut self, index: u64, open: OpenBlock) -> Option<OpenBlock> {
        match self.open.iter_mut().find(|(at, _)| *at == index) {
            Some((_, slot)) => Some(std::mem::replace(slot, open)),
            None => {
                let at = self.open.partition_point(|(at, _)| *at < index);
                self.open.insert(at, (index, open));
                None
            }
        }
    }

    /// A delta of block `index`, from line `line`; false when that block is not streaming.
    pub(crate) fn delta(&mut self, index: u64, delta: &Delta<'_>, line: u64) -> bool {
        match self.open.iter_mut().find(|(at, _)| *at == index) {
            Some((_, open)) => {
                open.apply(delta, line);
                true
            }
            None => false,
        }
    }

    /// Block `index` stops at line `line`: its canonical form; `None` when it was not
    /// streaming.
    pub(crate) fn stop(&mut self, index: u64, line: u64) -> Option<Closed> {
        let at = self.open.iter().position(|(at, _)| *at == index)?;
        let (_, mut open) = self.open.remove(at);
        open.source.end_line = line;
        let source = open.source;
        let (block, invalid_input) = close_block(open, false);
        Some(Closed {
            block,
            source,
            invalid_input,
        })
    }

    /// The message ended before these blocks stopped: each as far as it arrived (marked
    /// incomplete), in index order, with its index.
    pub(crate) fn cut(&mut self) -> Vec<(u64, Closed)> {
        std::mem::take(&mut self.open)
            .into_iter()
            .map(|(index, open)| {
                let source = open.source;
                let (block, _) = close_block(open, true);
                let closed = Closed {
                    block,
                    source,
                    invalid_input: None,
                };
                (index, closed)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::normalize::messages_api::StreamEvent;

    /// Feeds stream events (as the API sends them) to an [`Assembly`]; the blocks closed, in
    /// order, each as its canonical blocks' JSON, and what was cut at the end.
    fn assemble(events: &[Value]) -> (Vec<Value>, Vec<Value>, Vec<String>) {
        let mut assembly = Assembly::default();
        let (mut closed, mut problems) = (Vec::new(), Vec::new());
        let blocks = |canonical: &Canonical| -> Value {
            match &canonical.unknown {
                Some(raw) => json!({"unknown": raw}),
                None => serde_json::to_value(&canonical.blocks).unwrap(),
            }
        };
        for (line, event) in (1..).zip(events) {
            let text = event.to_string();
            let event: StreamEvent<'_> = serde_json::from_str(&text).unwrap();
            let index = event.index.unwrap_or(0);
            match &*event.kind {
                "content_block_start" => {
                    let raw = event.content_block.unwrap();
                    let whole =
                        || serde_json::from_str::<Value>(&text).unwrap()["content_block"].clone();
                    let (open, _) = OpenBlock::start(*raw, whole, Source::record(line, 0));
                    if assembly.start(index, open).is_some() {
                        problems.push(format!("block {index} started again"));
                    }
                }
                "content_block_delta" => {
                    if !assembly.delta(index, &event.delta.unwrap(), line) {
                        problems.push(format!("delta for block {index}, not streaming"));
                    }
                }
                "content_block_stop" => match assembly.stop(index, line) {
                    Some(done) => {
                        assert_eq!(done.source.end_line, line);
                        if let Some(error) = done.invalid_input {
                            problems.push(format!("invalid input: {error}"));
                        }
                        closed.push(blocks(&done.block));
                    }
                    None => problems.push(format!("stop for block {index}, not streaming")),
                },
                other => panic!("not a block event: {other}"),
            }
        }
        let cut = assembly
            .cut()
            .iter()
            .map(|(_, c)| blocks(&c.block))
            .collect();
        assert!(assembly.cut().is_empty(), "cut takes every open block");
        (closed, cut, problems)
    }

    fn start(index: u64, block: Value) -> Value {
        json!({"type": "content_block_start", "index": index, "content_block": block})
    }

    fn delta(index: u64, delta: Value) -> Value {
        json!({"type": "content_block_delta", "index": index, "delta": delta})
    }

    fn stop(index: u64) -> Value {
        json!({"type": "content_block_stop", "index": index})
    }

    #[test]
    fn text_with_citations_thinking_with_signature_and_redacted_thinking() {
        let citation = json!({"type": "web_search_result_location", "url": "https://a.example",
            "title": "A", "cited_text": "the cited words", "encrypted_index": "Eo8B"});
        let (closed, cut, problems) = assemble(&[
            start(
                0,
                json!({"type": "thinking", "thinking": "", "signature": ""}),
            ),
            delta(0, json!({"type": "thinking_delta", "thinking": "Let me "})),
            delta(0, json!({"type": "thinking_delta", "thinking": "look."})),
            delta(
                0,
                json!({"type": "signature_delta", "signature": "EqQBCgIYAhIM"}),
            ),
            stop(0),
            start(
                1,
                json!({"type": "redacted_thinking", "data": "EmwKAhgBEgy3va"}),
            ),
            stop(1),
            start(2, json!({"type": "text", "text": ""})),
            delta(2, json!({"type": "text_delta", "text": "It is "})),
            delta(2, json!({"type": "citations_delta", "citation": citation})),
            delta(2, json!({"type": "text_delta", "text": "sunny."})),
            stop(2),
        ]);
        assert_eq!(problems, Vec::<String>::new());
        assert!(cut.is_empty());
        assert_eq!(
            closed,
            [
                json!([{"type": "thinking", "fidelity": "agent_emitted", "thinking": "Let me look.",
                    "signature": "EqQBCgIYAhIM"}]),
                json!([{"type": "thinking", "fidelity": "agent_emitted", "thinking": "",
                    "signature": "EmwKAhgBEgy3va", "redacted": true}]),
                json!([{"type": "text", "fidelity": "agent_emitted", "text": "It is sunny.",
                    "citations": [{"type": "web_search_result_location", "url": "https://a.example",
                        "title": "A", "cited_text": "the cited words",
                        "extra": {"encrypted_index": "Eo8B"}}]}]),
            ]
        );
    }

    #[test]
    fn tool_input_deltas_make_the_input_and_a_shell_call_its_command() {
        let (closed, _, problems) = assemble(&[
            start(
                0,
                json!({"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {}}),
            ),
            delta(0, json!({"type": "input_json_delta", "partial_json": ""})),
            delta(
                0,
                json!({"type": "input_json_delta", "partial_json": "{\"command\": \"ls"}),
            ),
            delta(
                0,
                json!({"type": "input_json_delta", "partial_json": " src\"}"}),
            ),
            stop(0),
            start(
                1,
                json!({"type": "tool_use", "id": "toolu_2", "name": "get_time", "input": {}}),
            ),
            stop(1),
            start(
                2,
                json!({"type": "tool_use", "id": "toolu_3", "name": "f", "input": {}}),
            ),
            delta(
                2,
                json!({"type": "input_json_delta", "partial_json": "{\"a\": "}),
            ),
            stop(2),
        ]);
        assert_eq!(
            problems,
            ["invalid input: EOF while parsing a value at line 1 column 6"]
        );
        assert_eq!(
            closed,
            [
                json!([
                    {"type": "tool_use", "fidelity": "agent_emitted", "tool_name": "Bash",
                        "tool_id": "toolu_1", "tool_input": {"command": "ls src"}},
                    {"type": "command", "fidelity": "agent_emitted", "command": "ls src",
                        "tool_id": "toolu_1"},
                ]),
                // No deltas: the empty object of the start is the input.
                json!([{"type": "tool_use", "fidelity": "agent_emitted", "tool_name": "get_time",
                    "tool_id": "toolu_2", "tool_input": {}}]),
                json!([{"type": "tool_use", "fidelity": "agent_emitted", "tool_name": "f",
                    "tool_id": "toolu_3", "tool_input": "{\"a\": ", "incomplete": true}]),
            ]
        );
    }

    #[test]
    fn server_tools_and_their_results_arrive_whole() {
        let search = json!([{"type": "web_search_result", "url": "https://a.example", "title": "A",
            "encrypted_content": "Eq", "page_age": null}]);
        let (closed, _, problems) = assemble(&[
            start(
                0,
                json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}),
            ),
            delta(
                0,
                json!({"type": "input_json_delta", "partial_json": "{\"query\": \"weather\"}"}),
            ),
            stop(0),
            start(
                1,
                json!({"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": search}),
            ),
            stop(1),
            start(
                2,
                json!({"type": "web_fetch_tool_result", "tool_use_id": "srvtoolu_2",
                "content": {"type": "web_fetch_tool_result_error", "error_code": "url_not_accessible"}}),
            ),
            stop(2),
            start(
                3,
                json!({"type": "bash_code_execution_tool_result", "tool_use_id": "srvtoolu_3",
                "content": {"type": "bash_code_execution_result", "stdout": "", "stderr": "no such file",
                    "return_code": 2, "content": []}}),
            ),
            stop(3),
            start(
                4,
                json!({"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "echo",
                "server_name": "tools", "input": {"text": "hi"}}),
            ),
            stop(4),
            start(5, json!({"type": "container_upload", "file_id": "file_1"})),
            stop(5),
        ]);
        assert!(problems.is_empty(), "{problems:?}");
        let summary: Vec<Value> = closed
            .iter()
            .map(|blocks| match blocks.get(0) {
                Some(block) => json!([
                    block["type"],
                    block.get("tool_name").or(block.get("tool_id")),
                    block.get("is_error"),
                    block.get("exit_code"),
                    block.get("server")
                ]),
                None => blocks.clone(),
            })
            .collect();
        assert_eq!(
            summary,
            [
                json!(["tool_use", "web_search", null, null, true]),
                json!(["tool_result", "srvtoolu_1", null, null, null]),
                json!(["tool_result", "srvtoolu_2", true, null, null]),
                json!(["tool_result", "srvtoolu_3", true, 2, null]),
                json!(["tool_use", "mcp__tools__echo", null, null, true]),
                json!({"unknown": {"type": "container_upload", "file_id": "file_1"}}),
            ]
        );
        assert_eq!(closed[0][0]["tool_input"], json!({"query": "weather"}));
        assert_eq!(closed[1][0]["tool_content"], search);
    }

    #[test]
    fn a_message_cut_mid_block_keeps_what_arrived() {
        let (closed, cut, problems) = assemble(&[
            start(0, json!({"type": "text", "text": ""})),
            delta(0, json!({"type": "text_delta", "text": "Half a sent"})),
            start(
                1,
                json!({"type": "tool_use", "id": "toolu_9", "name": "Read", "input": {}}),
            ),
            delta(
                1,
                json!({"type": "input_json_delta", "partial_json": "{\"file_path\": \"/a"}),
            ),
            delta(3, json!({"type": "text_delta", "text": "?"})),
            stop(4),
        ]);
        assert!(closed.is_empty());
        assert_eq!(
            problems,
            [
                "delta for block 3, not streaming",
                "stop for block 4, not streaming"
            ]
        );
        assert_eq!(
            cut,
            [
                json!([{"type": "text", "fidelity": "agent_emitted", "text": "Half a sent"}]),
                json!([{"type": "tool_use", "fidelity": "agent_emitted", "tool_name": "Read",
                    "tool_id": "toolu_9", "tool_input": "{\"file_path\": \"/a", "incomplete": true}]),
            ]
        );
    }
}
