//! The consolidated `assistant` and `user` lines: their blocks handed out (once, with the
//! tool calls they open or answer), an API error, and the retraction of records Claude
//! Code withdrew.
//!
//! This file hands out blocks; assembling streamed ones is `partial`'s business.

use crate::normalize::json::{Borrowed, Parsed};

use serde_json::Value;

use super::blocks::{content_value, subagent_of};
use super::partial::{MessageKey, Verdict};
use super::skimmed::tool_result_block;
use super::{State, shape};
use crate::model::{Block, ContentBlock, Fidelity, Role};
use crate::normalize::framing::Record;
use crate::normalize::messages_api::{Canonical, Message, MessageContent, canonical, hand_out};
use crate::normalize::{Diagnostic, DiagnosticKind, Item, Retraction, Source};

impl State {
    /// An assistant message: its `error` (a failed API call) and its line's `uuid` apart.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn assistant(
        &mut self,
        message: Option<Message<'_>>,
        error: Option<Value>,
        uuid: Option<&str>,
        agent: Option<String>,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let Some(message) = message else {
            diagnostics.push(shape(record, "an assistant record without `message`"));
            return;
        };
        let message_id = message.id.as_deref().map(str::to_owned);
        if let Some(model) = message.model.as_deref().filter(|m| *m != "<synthetic>") {
            self.meta.model = Some(model.to_owned());
        }
        if let Some(usage) = message.usage {
            // A message without an id (Amp's) is a line of its own: its usage counts once.
            match &message_id {
                Some(id) => self.usage_snapshot(id, usage),
                None => self.usage_snapshot(&format!("(line {})", record.line), usage),
            }
        }
        let error = error.map(|error| {
            let error = match error {
                Value::String(text) => text,
                other => other.to_string(),
            };
            let text = match &message.content {
                Some(MessageContent::Blocks(blocks)) => {
                    blocks.iter().find_map(|b| b.text.as_deref())
                }
                Some(MessageContent::Text(text)) => Some(&**text),
                None => None,
            };
            match text {
                Some(text) => format!("{error}: {text}"),
                None => error,
            }
        });
        let source = Source::record(record.line, record.offset);
        let blocks: Vec<Canonical> = match message.content {
            Some(MessageContent::Blocks(blocks)) => blocks
                .into_iter()
                .enumerate()
                .map(|(position, raw)| canonical(raw, || content_value(record, position)).printed())
                .collect(),
            Some(MessageContent::Text(text)) => vec![Canonical {
                kind: "text".to_owned(),
                identity: None,
                print: None,
                blocks: vec![ContentBlock::text(Fidelity::AgentEmitted, text)],
                unknown: None,
            }],
            None => Vec::new(),
        };
        if let Some(uuid) = uuid {
            let tool_ids = (blocks.iter())
                .filter(|block| block.kind.ends_with("tool_use"))
                .filter_map(|block| block.identity.as_deref());
            (self.recent).remember(uuid, record.line, message_id.as_deref(), tool_ids);
        }
        let Some(id) = message_id.clone() else {
            // Without a message id nothing can be matched with this line: it is all new.
            self.run_error(error, record);
            for block in blocks {
                self.deliver(
                    block,
                    Role::Assistant,
                    &None,
                    &agent,
                    source,
                    items,
                    diagnostics,
                );
            }
            return;
        };
        let at = self.message_at(MessageKey::Id(id), &agent, false, items, diagnostics);
        let message = &mut self.messages[at];
        if let Some(uuid) = uuid {
            if let Some((_, first)) = message.records.iter().find(|(seen, _)| seen == uuid) {
                // The same record again: it adds nothing, unless it differs.
                for block in blocks.iter().filter(|b| !first.contains(&b.print)) {
                    diagnostics.push(Diagnostic::new(
                        DiagnosticKind::StreamMismatch,
                        record.line,
                        record.offset,
                        format!(
                            "record {uuid} of message {} came again with a different {} block; the first copy was kept",
                            message.id().unwrap_or(""),
                            block.kind
                        ),
                    ));
                }
                return;
            }
            let prints = blocks.iter().map(|block| block.print).collect();
            message.records.push((uuid.to_owned(), prints));
        }
        self.run_error(error, record);
        let mut differs = Vec::new();
        let whole = blocks.len() > 1;
        for (position, block) in blocks.into_iter().enumerate() {
            let position = whole.then_some(position as u64);
            let verdict = self.messages[at].reconcile(block, source, position, &mut differs);
            for text in differs.drain(..) {
                diagnostics.push(Diagnostic::new(
                    DiagnosticKind::StreamMismatch,
                    record.line,
                    record.offset,
                    text,
                ));
            }
            match verdict {
                Verdict::Deliver(block) => self.deliver(
                    block,
                    Role::Assistant,
                    &message_id,
                    &agent,
                    source,
                    items,
                    diagnostics,
                ),
                Verdict::Extra(block) => {
                    diagnostics.push(Diagnostic::new(
                        DiagnosticKind::StreamMismatch,
                        record.line,
                        record.offset,
                        format!(
                            "a consolidated {} block of message {} has no streamed counterpart (its stream had ended); kept",
                            block.kind,
                            message_id.as_deref().unwrap_or("")
                        ),
                    ));
                    self.deliver(
                        block,
                        Role::Assistant,
                        &message_id,
                        &agent,
                        source,
                        items,
                        diagnostics,
                    );
                }
                Verdict::Differs(text) => diagnostics.push(Diagnostic::new(
                    DiagnosticKind::StreamMismatch,
                    record.line,
                    record.offset,
                    text,
                )),
                Verdict::Skip | Verdict::Hold => {}
            }
        }
    }

    /// The provider withdrew the records with these `uuid`s, which it had delivered (`by`
    /// says how): they are listed in the run's `retracted` and reported once. Their blocks
    /// stay in the transcript: it was written as they came.
    pub(super) fn retract(
        &mut self,
        uuids: &Value,
        by: &str,
        record: Record<'_>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let Some(uuids) = uuids.as_array() else {
            return;
        };
        let mut lines = Vec::new();
        let mut ids: Vec<String> = Vec::new();
        let mut unseen = 0;
        for uuid in uuids.iter().filter_map(Value::as_str) {
            if !self.withdrawn.insert(uuid.to_owned()) {
                continue;
            }
            let Some(note) = self.recent.take(uuid) else {
                unseen += 1;
                continue;
            };
            lines.push(note.line.to_string());
            for id in note.message_id.iter().chain(&note.tool_ids) {
                if !ids.contains(id) {
                    ids.push(id.clone());
                }
            }
            self.meta.retracted.push(Retraction {
                line: note.line,
                by_line: record.line,
                message_id: note.message_id,
                tool_ids: note.tool_ids,
            });
        }
        if lines.is_empty() && unseen == 0 {
            return;
        }
        let mut message = format!("{by} withdraws output already delivered");
        if !lines.is_empty() {
            message.push_str(&format!(
                ": the records on lines {} ({}); their blocks stay in the transcript, listed in the run's `retracted`",
                lines.join(", "),
                ids.join(", ")
            ));
        }
        if unseen > 0 {
            let then = if lines.is_empty() { ": " } else { "; and " };
            message.push_str(&format!("{then}{unseen} record(s) not in this output"));
        }
        diagnostics.push(Diagnostic::new(
            DiagnosticKind::Retracted,
            record.line,
            record.offset,
            message,
        ));
    }

    /// Hands out a block read from either channel (see [`hand_out`]); a call that starts a
    /// sub-agent names it.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn deliver(
        &mut self,
        block: Canonical,
        role: Role,
        message_id: &Option<String>,
        agent: &Option<String>,
        source: Source,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let (meta, tools) = (&mut self.meta, &mut self.tools);
        hand_out(block, source, meta, tools, diagnostics, |content| {
            let subagent = subagent_of(&content);
            items.push(Item {
                block: content,
                role: role.clone(),
                message_id: message_id.clone(),
                agent: agent.clone(),
                subagent,
                source,
                time: None,
            });
        });
    }

    pub(super) fn user(
        &mut self,
        message: Option<Message<'_>>,
        uuid: Option<&str>,
        agent: Option<String>,
        (record, parsed): (Record<'_>, Parsed<'_>),
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let Some(message) = message else {
            diagnostics.push(shape(record, "a user record without `message`"));
            return;
        };
        if let Some(uuid) = uuid {
            let blocks = match &message.content {
                Some(MessageContent::Blocks(blocks)) => &blocks[..],
                _ => &[],
            };
            let tool_ids = blocks
                .iter()
                .filter_map(|block| block.tool_use_id.as_deref());
            (self.recent).remember(uuid, record.line, message.id.as_deref(), tool_ids);
        }
        let message_id = message.id.as_deref().map(str::to_owned);
        let source = Source::record(record.line, record.offset);
        let blocks = match message.content {
            Some(MessageContent::Text(text)) => {
                let block = ContentBlock::text(Fidelity::AgentEmitted, text);
                items.push(Item {
                    block,
                    role: Role::User,
                    message_id,
                    agent,
                    subagent: None,
                    source,
                    time: None,
                });
                return;
            }
            Some(MessageContent::Blocks(blocks)) => blocks,
            None => Vec::new(),
        };
        for (position, raw) in blocks.into_iter().enumerate() {
            let block = match &*raw.kind {
                // Most of a Claude Code log's bytes: a string goes out as the record escaped
                // it. (A line of tool results with nothing else is read by a skim: `skimmed`.)
                "tool_result" => tool_result_block(
                    raw.tool_use_id
                        .map(Borrowed::into_owned)
                        .unwrap_or_default(),
                    raw.content
                        .map_or_else(|| Value::Null.into(), |content| content.output(parsed)),
                    raw.is_error,
                ),
                "text" => text_block(raw.text.map(Borrowed::into_owned).unwrap_or_default()),
                _ => {
                    let kind = raw.kind.into_owned();
                    let unknown = Canonical {
                        unknown: Some(content_value(record, position)),
                        kind,
                        identity: None,
                        blocks: Vec::new(),
                        print: None,
                    };
                    self.deliver(
                        unknown,
                        Role::User,
                        &message_id,
                        &agent,
                        source,
                        items,
                        diagnostics,
                    );
                    continue;
                }
            };
            self.deliver(
                block,
                Role::User,
                &message_id,
                &agent,
                source,
                items,
                diagnostics,
            );
        }
    }
}

/// A user's `text` block in canonical form.
fn text_block(text: String) -> Canonical {
    Canonical {
        kind: String::new(),
        identity: None,
        blocks: vec![ContentBlock::new(Fidelity::AgentEmitted, Block::text(text))],
        print: None,
        unknown: None,
    }
}
