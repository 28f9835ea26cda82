//! The `ConverseStream` events: a message's start, its blocks (a tool call from its
//! `contentBlockStart`, text and reasoning from their first delta, which is all Bedrock
//! sends for them; each closed by its `contentBlockStop`), a server tool's result (its
//! start, its content deltas), the `messageStop` (the stop reason) and the `metadata` that
//! ends the stream (usage, latency).
//!
//! Text, reasoning and calls are assembled by `messages_api`'s [`Assembly`], each Converse
//! delta given as the Messages API delta it is. This file owns when a streamed message and
//! its blocks begin and end; handing a block out is `State::deliver`'s.

use std::borrow::Cow;

use crate::normalize::json::Borrowed;

use serde_json::Value;

use super::content::tool_result;
use super::wire::{BlockDelta, BlockStart, MessageStop, Metadata, stop, usage};
use super::{State, Streaming};
use crate::model::{Role, StopReason};
use crate::normalize::framing::Record;
use crate::normalize::messages_api::{Delta, OpenBlock, close_block, made};
use crate::normalize::{Diagnostic, DiagnosticKind, Item, Source};

/// A server tool's result while its content streams.
pub(super) struct OpenResult {
    tool_id: String,
    status: String,
    content: Vec<Value>,
    source: Source,
}

/// A Messages API delta of `kind` carrying `text` in the field that kind reads.
fn delta<'a>(kind: &'static str, text: &'a str) -> Delta<'a> {
    let piece = Some(Borrowed(Cow::Borrowed(text)));
    let mut delta = Delta {
        kind: Some(Borrowed(Cow::Borrowed(kind))),
        text: None,
        thinking: None,
        signature: None,
        partial_json: None,
        citation: None,
        stop_reason: None,
    };
    match kind {
        "text_delta" => delta.text = piece,
        "thinking_delta" => delta.thinking = piece,
        "signature_delta" => delta.signature = piece,
        _ => delta.partial_json = piece,
    }
    delta
}

/// An empty block of `kind` opened at `source`.
fn open(kind: &str, tool_name: String, tool_id: String, source: Source) -> OpenBlock {
    OpenBlock {
        kind: kind.to_owned(),
        text: String::new(),
        citations: Vec::new(),
        signature: String::new(),
        tool_name,
        tool_id,
        tool_input: None,
        partial_json: String::new(),
        raw: None,
        source,
    }
}

impl State {
    /// The message being streamed; one without a `messageStart` in the input begins here.
    fn streaming(&mut self) -> &mut Streaming {
        if self.message.is_none() {
            self.begin();
            self.message = Some(Streaming::default());
        }
        self.message.as_mut().expect("made above")
    }

    pub(super) fn message_start(
        &mut self,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        self.end_message("the next message started", items, diagnostics);
        self.begin();
        self.message = Some(Streaming::default());
    }

    pub(super) fn block_start(
        &mut self,
        start: BlockStart<'_>,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let index = start.content_block_index;
        let source = record.span;
        let Some(start) = start.start else {
            return;
        };
        if let Some(call) = start.tool_use {
            let kind = match call.kind.as_deref() {
                Some("server_tool_use") => "server_tool_use",
                _ => "tool_use",
            };
            let name = call.name.map(Borrowed::into_owned).unwrap_or_default();
            let id = call
                .tool_use_id
                .map(Borrowed::into_owned)
                .unwrap_or_default();
            let replaced = self
                .streaming()
                .blocks
                .start(index, open(kind, name, id, source));
            if let Some(replaced) = replaced {
                let (block, _) = close_block(replaced, true);
                self.cut_block(
                    block,
                    index,
                    source,
                    "the same index started again",
                    items,
                    diagnostics,
                );
            }
        } else if let Some(result) = start.tool_result {
            let field = |name: &str| {
                result
                    .get(name)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned()
            };
            let result = OpenResult {
                tool_id: field("toolUseId"),
                status: field("status"),
                content: Vec::new(),
                source,
            };
            self.streaming().results.push((index, result));
        } else {
            self.unknown(start.rest, "contentBlockStart/", source, diagnostics);
        }
    }

    pub(super) fn block_delta(
        &mut self,
        block: BlockDelta<'_>,
        record: Record<'_>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let index = block.content_block_index;
        let source = record.span;
        let line = source.line;
        let Some(change) = block.delta else {
            return;
        };
        let streaming = self.streaming();
        let blocks = &mut streaming.blocks;
        // A delta of a block that has not started (text and reasoning never do) opens it.
        let mut apply = |kind: &str, delta: Delta<'_>| {
            if !blocks.delta(index, &delta, line) {
                blocks.start(index, open(kind, String::new(), String::new(), source));
                blocks.delta(index, &delta, line);
            }
        };
        if let Some(text) = &change.text {
            apply("text", delta("text_delta", text));
        }
        if let Some(input) = change.tool_use.as_ref().and_then(|t| t.input.as_deref()) {
            apply("tool_use", delta("input_json_delta", input));
        }
        if let Some(reasoning) = &change.reasoning_content {
            if let Some(text) = &reasoning.text {
                apply("thinking", delta("thinking_delta", text));
            }
            if let Some(signature) = &reasoning.signature {
                apply("thinking", delta("signature_delta", signature));
            }
            if let Some(data) = &reasoning.redacted_content {
                apply("redacted_thinking", delta("signature_delta", data));
            }
        }
        if let Some(content) = change.tool_result {
            let results = &mut streaming.results;
            let at = match results.iter().position(|(at, _)| *at == index) {
                Some(at) => at,
                None => {
                    let result = OpenResult {
                        tool_id: String::new(),
                        status: String::new(),
                        content: Vec::new(),
                        source,
                    };
                    results.push((index, result));
                    results.len() - 1
                }
            };
            let result = &mut results[at].1;
            result.source.end_line = line;
            match content {
                Value::Array(items) => result.content.extend(items),
                other => result.content.push(other),
            }
        }
        // A citation of the text (kept as it came); any other delta is a kind axt has no
        // form for. Nearly every delta has neither: nothing to split.
        if change.rest.is_empty() {
            return;
        }
        let (citations, rest): (Vec<_>, Vec<_>) = change
            .rest
            .into_iter()
            .partition(|(kind, _)| kind == "citation");
        for (_, citation) in citations {
            self.meta
                .keep(line, "contentBlockDelta/citation", || citation);
        }
        self.unknown(
            rest.into_iter().collect(),
            "contentBlockDelta/",
            source,
            diagnostics,
        );
    }

    pub(super) fn block_stop(
        &mut self,
        index: u64,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let line = record.span.line;
        let Some(streaming) = self.message.as_mut() else {
            return;
        };
        if let Some(closed) = streaming.blocks.stop(index, line) {
            if let Some(why) = &closed.invalid_input {
                diagnostics.push(Diagnostic::new(
                    DiagnosticKind::InvalidToolInput,
                    closed.source.line,
                    closed.source.offset,
                    format!(
                        "the streamed input of block {index} is not JSON ({why}); kept as a string"
                    ),
                ));
            }
            self.deliver(
                closed.block.blocks,
                Role::Assistant,
                closed.source,
                items,
                diagnostics,
            );
            return;
        }
        if let Some(at) = streaming.results.iter().position(|(at, _)| *at == index) {
            let (_, mut result) = streaming.results.remove(at);
            result.source.end_line = line;
            let block = tool_result(result.tool_id, Value::Array(result.content), &result.status);
            let source = result.source;
            self.deliver_block(block, Role::Assistant, source, items, diagnostics);
        }
    }

    pub(super) fn message_stop(
        &mut self,
        message_stop: MessageStop<'_>,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let line = record.span.line;
        self.streaming();
        self.cut_open("its messageStop came", items, diagnostics);
        if let Some(raw) = message_stop.stop_reason {
            self.meta.stop_reason = Some(StopReason {
                kind: stop(&raw),
                raw: raw.into_owned(),
            });
        }
        if let Some(fields) = message_stop
            .additional_model_response_fields
            .filter(|f| !f.is_null())
        {
            self.meta
                .keep(line, "additionalModelResponseFields", || fields);
        }
        if let Some(streaming) = self.message.as_mut() {
            streaming.stopped = true;
        }
        self.completed();
    }

    /// The stream's last event: the message's usage and the rest (latency, traces) kept;
    /// the message is over.
    pub(super) fn metadata(
        &mut self,
        metadata: Metadata,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let line = record.span.line;
        if let Some(counts) = metadata.usage.filter(Value::is_object) {
            self.usage.add(&usage(&counts));
            self.meta.raw_usage = Some(counts);
        }
        for (field, value) in metadata.rest {
            if field != "p" {
                self.meta.keep(line, &format!("metadata/{field}"), || value);
            }
        }
        let stopped = self.message.as_ref().is_none_or(|m| m.stopped);
        if stopped {
            self.end_message("the stream's metadata came", items, diagnostics);
        }
    }

    /// Hands out what still streams, as far as it arrived, each with an `incomplete-block`
    /// warning saying `why` it ended.
    pub(super) fn cut_open(
        &mut self,
        why: &str,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let Some(streaming) = self.message.as_mut() else {
            return;
        };
        let mut blocks = std::mem::take(&mut streaming.blocks);
        let results = std::mem::take(&mut streaming.results);
        for (index, closed) in blocks.cut() {
            self.cut_block(closed.block, index, closed.source, why, items, diagnostics);
        }
        for (index, result) in results {
            let block = tool_result(result.tool_id, Value::Array(result.content), &result.status);
            let block = made("toolResult".to_owned(), None, vec![block]);
            self.cut_block(block, index, result.source, why, items, diagnostics);
        }
    }
}
