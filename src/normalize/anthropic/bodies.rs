//! Whole bodies: a response (`type: "message"`), and a request, whose history is read once
//! and whose user side carries the results of the calls before it.
//!
//! This file owns reading a message whole. It must not touch a stream's state.

use crate::normalize::json::Borrowed;

use serde_json::Value;

use super::wire::Wire;
use super::{State, block_value, canonical_text};
use crate::model::{Block, Role};
use crate::normalize::framing::Record;
use crate::normalize::json::Lent;
use crate::normalize::messages_api::{Message, MessageContent, MessageUsage, RawBlock, made};
use crate::normalize::{Diagnostic, Item};

impl State {
    /// A response body: the whole message at once.
    pub(super) fn body(
        &mut self,
        wire: Wire<'_>,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        self.end_message("a whole message came", items, diagnostics);
        self.begin(wire.model.as_deref());
        let id = wire.id.as_deref().map(str::to_owned);
        self.deliver_content(wire.content, "/content", record, &id, items, diagnostics);
        if let Some(reason) = wire.stop_reason {
            self.stop(&reason);
        }
        if let Some(usage) = wire.usage.filter(Value::is_object) {
            if let Ok(counts) = serde_json::from_value::<MessageUsage>(usage.clone()) {
                self.usage.add(&counts.to_usage());
            }
            self.meta.raw_usage = Some(usage);
        }
        self.history += 1;
        self.completed();
    }

    /// A request body: the system prompt and the tools when they changed, and the messages past the history
    /// already read.
    pub(super) fn request(
        &mut self,
        wire: Wire<'_>,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let line = record.span.line;
        if let Some(system) = wire.system.filter(|s| !s.is_null())
            && self.system.as_ref() != Some(&system)
        {
            self.system = Some(system.clone());
            self.meta.keep(line, "request/system", || system);
        }
        if let Some(tools) = wire.tools.filter(|t| !t.is_null())
            && self.offered.as_ref() != Some(&tools)
        {
            self.offered = Some(tools.clone());
            self.meta.keep(line, "request/tools", || tools);
        }
        let messages = wire.messages.unwrap_or_default();
        let skip = self.history.min(messages.len());
        self.history = messages.len();
        for (position, message) in messages.into_iter().enumerate().skip(skip) {
            let pointer = format!("/messages/{position}/content");
            match message.role.as_deref().unwrap_or("user") {
                "assistant" => {
                    let content = message.content;
                    self.deliver_content(content, &pointer, record, &None, items, diagnostics);
                }
                _ => self.user(message, &pointer, record, items, diagnostics),
            }
        }
    }

    /// A user message of a request: its text, the results of earlier calls, and the other
    /// parts (images, documents) kept as metadata.
    fn user(
        &mut self,
        message: Message<'_>,
        pointer: &str,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let source = record.span;
        let blocks = match message.content {
            Some(MessageContent::Text(text)) => {
                let block = canonical_text(text);
                return self.deliver(block, Role::User, &None, source, items, diagnostics);
            }
            Some(MessageContent::Blocks(blocks)) => blocks,
            None => return,
        };
        for (position, raw) in blocks.into_iter().enumerate() {
            let block = match &*raw.kind {
                "text" => Block::text(raw.text.map(Borrowed::into_owned).unwrap_or_default()),
                "tool_result" => tool_result(raw),
                kind => {
                    let kind = format!("request/part/{kind}");
                    let part = block_value(record, &format!("{pointer}/{position}"));
                    self.meta.keep(source.line, &kind, || part);
                    continue;
                }
            };
            let block = made(String::new(), None, vec![block]);
            self.deliver(block, Role::User, &None, source, items, diagnostics);
        }
    }
}

/// A `tool_result` block of a request: what the client's tool returned.
fn tool_result(raw: RawBlock<'_>) -> Block {
    Block::ToolResult {
        tool_id: raw
            .tool_use_id
            .map(Borrowed::into_owned)
            .unwrap_or_default(),
        tool_content: raw.content.map_or(Value::Null, Lent::into_value).into(),
        is_error: raw.is_error.unwrap_or(false),
        exit_code: None,
    }
}
