//! Messages and thoughts: `agent_message_chunk`, `agent_thought_chunk`, `user_message_chunk`
//! accumulated into one block per message, and v2's whole-message upserts.
//!
//! Chunks of one message (the same `messageId`, or none on either side) in a row make one
//! `text` (or, for thoughts, `thinking`) block, handed out when something else happens in
//! the session (a tool call, a request, the turn's end) or the input ends. A v2
//! `agent_message`, `agent_thought` or `user_message` replaces what its message has
//! accumulated (`null` or `[]` empties it, an omitted `content` leaves it); a message already
//! handed out cannot be taken back, so its new content follows as another block of the same
//! message, with a `stream-mismatch` warning.
//!
//! This room owns the block being accumulated; it knows nothing of tool calls.

use std::collections::HashSet;

use serde_json::Value;

use super::wire::{At, block_text};
use crate::model::{Block, Role};
use crate::normalize::tools::streamed_text;
use crate::normalize::{Diagnostic, DiagnosticKind, Item, Source};

/// Chunks being accumulated into one block.
struct OpenText {
    role: Role,
    thinking: bool,
    message_id: Option<String>,
    text: String,
    source: Source,
}

/// The block being accumulated, and the messages already handed out.
#[derive(Default)]
pub(super) struct Chunks {
    open: Option<OpenText>,
    handed_out: HashSet<String>,
}

/// Who speaks an update of this kind, and whether it is a thought.
pub(super) fn role_of(kind: &str) -> (Role, bool) {
    match kind {
        "user_message_chunk" | "user_message" => (Role::User, false),
        "agent_thought_chunk" | "agent_thought" => (Role::Assistant, true),
        _ => (Role::Assistant, false),
    }
}

impl Chunks {
    /// A chunk: appended to the open block of the same message, or the start of a new one.
    pub(super) fn chunk(
        &mut self,
        (role, thinking): (Role, bool),
        message_id: Option<&str>,
        chunk: &str,
        at: &At<'_>,
        items: &mut Vec<Item>,
    ) {
        if let Some(open) = &mut self.open
            && open.role == role
            && open.thinking == thinking
            && open.message_id.as_deref() == message_id
        {
            open.text.push_str(chunk);
            open.source.end_line = at.record.line;
            return;
        }
        self.flush(items);
        self.open = Some(OpenText {
            role,
            thinking,
            message_id: message_id.map(str::to_owned),
            text: streamed_text(chunk),
            source: at.source(),
        });
    }

    /// A chunk `read` appends straight onto the open block's text, where the chunk continues
    /// it (as [`Chunks::chunk`] tells): `None` where it does not (`read` not called),
    /// `Some(false)` where `read` gave up (it leaves the text as it was).
    pub(super) fn continue_with(
        &mut self,
        (role, thinking): (Role, bool),
        message_id: Option<&str>,
        at: &At<'_>,
        read: impl FnOnce(&mut String) -> Option<()>,
    ) -> Option<bool> {
        let open = self.open.as_mut().filter(|open| {
            open.role == role
                && open.thinking == thinking
                && open.message_id.as_deref() == message_id
        })?;
        let read = read(&mut open.text).is_some();
        if read {
            open.source.end_line = at.record.line;
        }
        Some(read)
    }

    /// A v2 whole-message upsert (`update` holds its `content`).
    pub(super) fn whole(
        &mut self,
        (role, thinking): (Role, bool),
        message_id: Option<String>,
        update: &Value,
        at: &At<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let content = match update.get("content") {
            None => return,
            Some(Value::Array(blocks)) => blocks.iter().filter_map(block_text).collect::<String>(),
            Some(_) => String::new(),
        };
        if let Some(open) = &mut self.open
            && open.message_id.is_some()
            && open.message_id == message_id
            && open.thinking == thinking
        {
            open.text = content;
            open.source.end_line = at.record.line;
            return;
        }
        if let Some(id) = message_id
            .as_deref()
            .filter(|id| self.handed_out.contains(*id))
        {
            diagnostics.push(Diagnostic::new(
                DiagnosticKind::StreamMismatch,
                at.record.line,
                at.record.offset,
                format!(
                    "a whole-message update rewrites message {id:?}, already handed out; its \
                     new content follows as another block of the same message"
                ),
            ));
        }
        self.flush(items);
        self.open = Some(OpenText {
            role,
            thinking,
            message_id,
            text: content,
            source: at.source(),
        });
    }

    /// Hands out the block being accumulated, if any (an empty one is none).
    pub(super) fn flush(&mut self, items: &mut Vec<Item>) {
        let Some(open) = self.open.take() else {
            return;
        };
        if let Some(id) = &open.message_id {
            self.handed_out.insert(id.clone());
        }
        if open.text.is_empty() {
            return;
        }
        let block = if open.thinking {
            Block::Thinking {
                thinking: open.text,
                signature: None,
                redacted: false,
            }
        } else {
            Block::text(open.text)
        };
        items.push(Item::emitted(
            block,
            open.role,
            open.message_id,
            open.source,
        ));
    }
}
