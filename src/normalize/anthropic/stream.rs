//! The stream events: a message's start, its blocks (each from its `content_block_start`
//! through its deltas to its `content_block_stop`, assembled by `messages_api`), its
//! `message_delta` (stop reason, cumulative usage) and its `message_stop`.
//!
//! This file owns when a streamed message and its blocks begin and end. What a block
//! becomes is `messages_api`'s business; handing it out is `State::deliver`'s.

use serde_json::Value;

use super::wire::Wire;
use super::{State, Streaming};
use crate::normalize::framing::Record;
use crate::normalize::json::to_value;
use crate::normalize::messages_api::{Assembly, MessageUsage, OpenBlock};
use crate::normalize::report::Fate;
use crate::normalize::{Diagnostic, DiagnosticKind, Item};

impl State {
    /// One stream event of `kind` (`message_start`, `content_block_*`, `message_delta`,
    /// `message_stop`).
    pub(super) fn event(
        &mut self,
        kind: &str,
        wire: Wire<'_>,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Fate {
        if kind == "message_start" {
            self.end_message("the next message started", items, diagnostics);
            let message = wire.message;
            let model = message.as_ref().and_then(|m| m.model.as_deref());
            self.begin(model);
            let id = message
                .as_ref()
                .and_then(|m| m.id.as_deref())
                .map(str::to_owned);
            let usage = message.as_ref().and_then(|m| m.usage).unwrap_or_default();
            self.message = Some(Streaming {
                id: id.clone(),
                usage,
                blocks: Assembly::default(),
            });
            // A message may start with content already (an assistant prefill continued).
            let content = message.and_then(|m| m.content);
            self.deliver_content(content, "/message/content", record, &id, items, diagnostics);
            return Fate::Mapped;
        }
        if self.message.is_none() {
            // Events of a stream whose `message_start` is not in the input.
            self.begin(None);
            self.message = Some(Streaming {
                id: None,
                usage: MessageUsage::default(),
                blocks: Assembly::default(),
            });
        }
        let message = self.message.as_mut().expect("made above");
        let line = record.span.line;
        match kind {
            "content_block_start" => {
                let (Some(index), Some(raw)) = (wire.index, wire.content_block) else {
                    diagnostics.push(shape(
                        record,
                        "a content_block_start without its index or block",
                    ));
                    return Fate::Skipped;
                };
                let whole = || {
                    to_value(record.bytes)
                        .get("content_block")
                        .cloned()
                        .unwrap_or(Value::Null)
                };
                let (open, _) = OpenBlock::start(raw, whole, record.span);
                if message.blocks.start(index, open).is_some() {
                    diagnostics.push(shape(
                        record,
                        &format!(
                            "a content_block_start for block {index}, which was streaming already"
                        ),
                    ));
                }
            }
            "content_block_delta" => {
                let (Some(index), Some(delta)) = (wire.index, wire.delta) else {
                    diagnostics.push(shape(
                        record,
                        "a content_block_delta without its index or delta",
                    ));
                    return Fate::Skipped;
                };
                if !message.blocks.delta(index, &delta, line) {
                    let what =
                        format!("a content_block_delta for block {index}, which is not streaming");
                    diagnostics.push(shape(record, &what));
                    return Fate::Skipped;
                }
            }
            "content_block_stop" => {
                let Some(index) = wire.index else {
                    diagnostics.push(shape(record, "a content_block_stop without its index"));
                    return Fate::Skipped;
                };
                let Some(done) = message.blocks.stop(index, line) else {
                    let what =
                        format!("a content_block_stop for block {index}, which is not streaming");
                    diagnostics.push(shape(record, &what));
                    return Fate::Skipped;
                };
                self.closed(done, index, record, items, diagnostics);
            }
            "message_delta" => {
                if let Some(usage) = wire.usage.filter(Value::is_object) {
                    if let Ok(snapshot) = serde_json::from_value::<MessageUsage>(usage.clone()) {
                        message.usage.update(snapshot);
                    }
                    self.meta.raw_usage = Some(usage);
                }
                if let Some(reason) = wire.delta.and_then(|d| d.stop_reason) {
                    self.stop(&reason);
                }
            }
            _ => {
                // `message_stop`: Bedrock adds its invocation metrics to it.
                if let Some(metrics) = wire.bedrock_metrics {
                    let kind = "message_stop/amazon-bedrock-invocationMetrics";
                    self.meta.keep(line, kind, || metrics);
                }
                self.end_message("its message_stop came", items, diagnostics);
                self.completed();
            }
        }
        Fate::Mapped
    }
}

/// A record of a shape the API does not send, skipped.
fn shape(record: Record<'_>, what: &str) -> Diagnostic {
    Diagnostic::new(
        DiagnosticKind::UnexpectedShape,
        record.span.line,
        record.span.offset,
        format!("{what}; skipped"),
    )
}
