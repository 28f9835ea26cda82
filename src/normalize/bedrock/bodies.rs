//! Whole bodies: a `Converse` response (its message's blocks, stop reason, usage, metrics),
//! and a request, whose system prompt and tools are kept when they change and whose
//! messages past the history already read are read (the user side carries the results of
//! the calls before it).
//!
//! This file owns reading a body. It must not touch a streamed message's state.

use serde_json::Value;

use super::State;
use super::content::{Whole, lone_tool_result, whole};
use super::wire::{Message, Wire, stop, usage};
use crate::model::{Role, StopReason};
use crate::normalize::framing::Record;
use crate::normalize::json::Parsed;
use crate::normalize::{Diagnostic, Item};

impl State {
    /// A `Converse` response body.
    pub(super) fn body(
        &mut self,
        wire: Wire<'_>,
        at: (Record<'_>, Parsed<'_>),
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        self.end_message("a response body came", items, diagnostics);
        self.begin();
        let line = at.0.span.line;
        if let Some(message) = wire.output.and_then(|o| o.message) {
            self.message_blocks(message, Role::Assistant, "", at, items, diagnostics);
        }
        if let Some(raw) = wire.stop_reason {
            self.meta.stop_reason = Some(StopReason {
                kind: stop(&raw),
                raw: raw.into_owned(),
            });
        }
        if let Some(counts) = wire.usage.filter(Value::is_object) {
            self.usage.add(&usage(&counts));
            self.meta.raw_usage = Some(counts);
        }
        if let Some(metrics) = wire.metrics.filter(|m| !m.is_null()) {
            self.meta.keep(line, "metrics", || metrics);
        }
        // The rest of the body (a guardrail's trace, the model's additional fields): kept.
        for (field, value) in wire.rest {
            self.meta.keep(line, &field, || value);
        }
        self.history += 1;
        self.completed();
    }

    /// A request body.
    pub(super) fn request(
        &mut self,
        wire: Wire<'_>,
        at: (Record<'_>, Parsed<'_>),
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        // The message streamed before it is over: the history's last, which this repeats.
        self.end_message("the next request was sent", items, diagnostics);
        let line = at.0.span.line;
        if let Some(model) = wire.model_id.as_deref().filter(|m| !m.is_empty()) {
            self.meta.model = Some(model.to_owned());
        }
        if let Some(system) = wire.system.filter(|s| !s.is_null())
            && self.system.as_ref() != Some(&system)
        {
            self.system = Some(system.clone());
            self.meta.keep(line, "request/system", || system);
        }
        if let Some(tools) = wire.tool_config.filter(|t| !t.is_null())
            && self.declared.as_ref() != Some(&tools)
        {
            self.declared = Some(tools.clone());
            self.meta.keep(line, "request/toolConfig", || tools);
        }
        let messages = wire.messages.unwrap_or_default();
        let skip = self.history.min(messages.len());
        self.history = messages.len();
        for message in messages.past(skip) {
            let role = match message.role.as_deref() {
                Some("assistant") => Role::Assistant,
                _ => Role::User,
            };
            self.message_blocks(message, role, "request/", at, items, diagnostics);
        }
    }

    /// The blocks of a whole message, in order; kinds axt has no form for kept under
    /// `prefix`. A tool's result text is held as the record (`parsed`) escaped it.
    fn message_blocks(
        &mut self,
        message: Message<'_>,
        role: Role,
        prefix: &str,
        (record, parsed): (Record<'_>, Parsed<'_>),
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let source = record.span;
        for block in message.content {
            if let Some(result) = block.lone_result() {
                let block = lone_tool_result(result, parsed);
                self.deliver_block(block, role.clone(), source, items, diagnostics);
                continue;
            }
            match whole(block.into_map()) {
                Whole::Blocks(blocks) => {
                    for block in blocks {
                        self.deliver_block(block, role.clone(), source, items, diagnostics);
                    }
                }
                Whole::Unknown(kind, value) => {
                    let unknown = std::iter::once((kind, value)).collect();
                    self.unknown(unknown, prefix, source, diagnostics);
                }
            }
        }
    }
}
