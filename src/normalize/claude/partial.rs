//! Partial messages (`--include-partial-messages`): the `stream_event` deltas assembled
//! per content block, and reconciled with the consolidated `assistant` lines so that every
//! block is handed out once, whichever channel completes it first (the rules are in the
//! adapter's docs).
//!
//! This file owns a message's streaming state (`MessageBlocks`) and when it ends. Blocks are
//! handed out through `State::deliver`; what a block becomes is `blocks`' business.

use serde_json::Value;

use super::{State, shape};
use crate::model::{Block, Role};
use crate::normalize::framing::Record;
use crate::normalize::json::to_value;
use crate::normalize::messages_api::{Canonical, OpenBlock, StreamEvent, close_block};
use crate::normalize::{Diagnostic, DiagnosticKind, Item, Source};

/// How a streamed block was handed out.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Delivered {
    Not,
    /// From its deltas, at its `content_block_stop`.
    ByStream,
    /// From the consolidated copy (its fingerprint, its line) that arrived before the stop.
    ByCopy(Option<u64>, u64),
}

/// A block of a message as its stream events announce it.
pub(super) struct Slot {
    pub(super) index: u64,
    pub(super) kind: String,
    pub(super) identity: Option<String>,
    /// The deltas so far; `None` once the block stopped.
    pub(super) open: Option<OpenBlock>,
    /// The fingerprint of what the deltas assembled, once stopped.
    pub(super) print: Option<u64>,
    pub(super) delivered: Delivered,
    /// A consolidated copy has been matched with this block, from this line.
    paired: bool,
    paired_line: u64,
    /// Consolidated copies that fit this block so far but may belong to an earlier one, or
    /// that contradict it: held until this block's stop decides (see
    /// [`MessageBlocks::reconcile`]).
    pending: Vec<Pending>,
}

impl Slot {
    /// The fingerprint of what was handed out for this block.
    fn delivered_print(&self) -> Option<u64> {
        match self.delivered {
            Delivered::ByCopy(print, _) => print,
            _ => self.print,
        }
    }
}

pub(super) struct Pending {
    copy: Canonical,
    pub(super) source: Source,
    /// The index of the earlier stopped block of the same kind, still without its copy,
    /// whose (differing) copy this may be instead; `None` when the copy already
    /// contradicts this block's deltas.
    fallback: Option<u64>,
}

/// A block of a consolidated line that no stream block accounted for when it arrived.
pub(super) struct Copy {
    pub(super) kind: String,
    pub(super) identity: Option<String>,
    /// Its index in the message, when its line carried the whole message.
    pub(super) position: Option<u64>,
    pub(super) print: Option<u64>,
    /// Matched with a stream block since.
    paired: bool,
    pub(super) line: u64,
    pub(super) offset: u64,
}

/// The message a stream event belongs to: the provider's id, or, for events that arrive
/// without a `message_start`, the scope they stream in.
#[derive(Clone, PartialEq, Eq)]
pub(super) enum MessageKey {
    Id(String),
    Unnamed(Option<String>),
}

/// What is known of one assistant message from its two channels: the blocks its stream
/// events announced and the blocks its consolidated lines carried.
pub(super) struct MessageBlocks {
    key: MessageKey,
    pub(super) agent: Option<String>,
    /// Blocks announced by stream events, in index order.
    slots: Vec<Slot>,
    /// Consolidated blocks that arrived before their stream block (or that have none).
    copies: Vec<Copy>,
    /// Each consolidated line's `uuid`, with the fingerprints of its blocks: a line sent
    /// twice is recognised by it.
    pub(super) records: Vec<(String, Vec<Option<u64>>)>,
    /// Stream events were seen for it.
    streamed: bool,
    /// Its `message_stop` was seen: the stream announced every block.
    stopped: bool,
}

/// What to do with a consolidated block.
pub(super) enum Verdict {
    /// Hand it out now.
    Deliver(Canonical),
    /// Hand it out, and say that the stream, which has ended, never had it.
    Extra(Canonical),
    /// Its block was handed out already.
    Skip,
    /// Its block was handed out already, and this copy differs (the message says how).
    Differs(String),
    /// Held by a stream block until its stop.
    Hold,
}

impl MessageBlocks {
    pub(super) fn new(key: MessageKey, agent: Option<String>) -> Self {
        MessageBlocks {
            key,
            agent,
            slots: Vec::new(),
            copies: Vec::new(),
            records: Vec::new(),
            streamed: false,
            stopped: false,
        }
    }

    pub(super) fn id(&self) -> Option<&str> {
        match &self.key {
            MessageKey::Id(id) => Some(id),
            MessageKey::Unnamed(_) => None,
        }
    }

    fn has_open(&self) -> bool {
        self.slots.iter().any(|slot| slot.open.is_some())
    }

    /// "text block 1 of message msg_01…", as diagnostics name a block.
    fn describe(&self, kind: &str, index: u64) -> String {
        match self.id() {
            Some(id) => format!("{kind} block {index} of message {id}"),
            None => format!("{kind} block {index}"),
        }
    }

    fn slot(&mut self, index: u64) -> Option<&mut Slot> {
        self.slots.iter_mut().find(|slot| slot.index == index)
    }

    /// A block starts streaming. A consolidated copy that arrived before it (a line carrying
    /// the whole message, say) is matched now: by id for a tool call, by index for a block
    /// of a whole-message line, else the first unmatched copy of the same type. Returns the
    /// block this one replaces, if its index was started before.
    fn start(&mut self, index: u64, open: OpenBlock, identity: Option<String>) -> Option<Slot> {
        let mut slot = Slot {
            index,
            kind: open.kind.clone(),
            identity,
            open: Some(open),
            print: None,
            delivered: Delivered::Not,
            paired: false,
            paired_line: 0,
            pending: Vec::new(),
        };
        let fits = |c: &Copy| !c.paired && c.kind == slot.kind && c.identity == slot.identity;
        let found = (self.copies.iter())
            .position(|c| fits(c) && c.position == Some(index))
            .or_else(|| {
                (self.copies.iter())
                    .position(|c| fits(c) && (c.position.is_none() || c.identity.is_some()))
            });
        if let Some(copy) = found.map(|at| &mut self.copies[at]) {
            copy.paired = true;
            slot.paired = true;
            slot.paired_line = copy.line;
            slot.delivered = Delivered::ByCopy(copy.print, copy.line);
        }
        let replaced = match self.slots.iter().position(|s| s.index == index) {
            Some(at) => Some(std::mem::replace(&mut self.slots[at], slot)),
            None => {
                let at = self.slots.partition_point(|s| s.index < index);
                self.slots.insert(at, slot);
                None
            }
        };
        self.streamed = true;
        replaced
    }

    /// Matches a consolidated block with what the stream announced, so that each block is
    /// handed out once, from whichever channel completes it first.
    ///
    /// * A block with an id (a tool call, a server tool's result) pairs with the stream
    ///   block of that id.
    /// * Any other block pairs with a stopped stream block of its type and content, else
    ///   is recognised as a repeat of a block already paired, else pairs with the earliest
    ///   stream block of its type still without a copy. When that block has stopped with
    ///   other content, the copy either differs from it or belongs to a later block of the
    ///   same type still streaming (whose own copy never came): if such a block fits the
    ///   copy so far, the copy is held until that block stops and shows which. A copy that
    ///   contradicts the deltas of a block still streaming is held too, so that the block's
    ///   stop, or a copy that fits it, settles it.
    /// * A block the stream has not announced (yet) is handed out at once and paired when
    ///   its stream block starts.
    ///
    /// `position` is the block's place in its line when the line carries several blocks:
    /// such a line is the whole message (so far), its array the message's, and the block
    /// pairs with the stream block of that index. A line of one block says nothing: Claude
    /// Code 2.x sends one line per block, each array starting again at zero.
    ///
    /// A copy that differs from the block it is matched with is reported in `differs`.
    pub(super) fn reconcile(
        &mut self,
        copy: Canonical,
        source: Source,
        position: Option<u64>,
        differs: &mut Vec<String>,
    ) -> Verdict {
        if copy.identity.is_some() {
            let same = |kind: &str, identity: &Option<String>| {
                kind == copy.kind && *identity == copy.identity
            };
            if let Some(at) = self.slots.iter().position(|s| same(&s.kind, &s.identity)) {
                return self.pair(at, copy, source.line);
            }
            if let Some(earlier) = self.copies.iter().find(|c| same(&c.kind, &c.identity)) {
                let what = format!(
                    "{} {}",
                    copy.kind,
                    earlier.identity.as_deref().unwrap_or("")
                );
                return repeated(earlier.print, &copy, &what);
            }
            return self.extra(copy, source, position);
        }
        let line = source.line;
        if let Some(position) = position {
            match self.slots.iter().position(|s| s.index == position) {
                Some(at) if self.slots[at].kind == copy.kind => {
                    for held in std::mem::take(&mut self.slots[at].pending) {
                        differs.push(self.settle(at, held, false));
                    }
                    return self.pair(at, copy, line);
                }
                Some(_) => {}
                None => return self.extra(copy, source, Some(position)),
            }
        }
        let kind = copy.kind.as_str();
        if let Some(slot) = self.slots.iter_mut().find(|s| {
            !s.paired
                && s.pending.is_empty()
                && s.open.is_none()
                && s.kind == kind
                && s.print == copy.print
        }) {
            slot.paired = true;
            slot.paired_line = source.line;
            return Verdict::Skip;
        }
        // A later line repeating a block already matched (two equal blocks of one line are
        // two blocks).
        if self.streamed
            && (self.slots.iter().any(|s| {
                s.paired
                    && s.paired_line != line
                    && s.kind == kind
                    && s.delivered_print() == copy.print
                    || s.pending.iter().any(|p| {
                        p.source.line != line && p.copy.kind == kind && p.copy.print == copy.print
                    })
            }) || self
                .copies
                .iter()
                .any(|c| c.line != line && c.kind == kind && c.print == copy.print))
        {
            return Verdict::Skip;
        }
        // A block streaming already holds copies; one that fits it waits with them.
        if let Some(at) = self.slots.iter().position(|s| {
            !s.paired
                && !s.pending.is_empty()
                && s.kind == kind
                && s.open.as_ref().is_some_and(|open| compatible(open, &copy))
        }) {
            let fallback = (self.slots.iter())
                .find(|s| !s.paired && s.pending.is_empty() && s.open.is_none() && s.kind == kind)
                .map(|s| s.index);
            self.slots[at].pending.push(Pending {
                copy,
                source,
                fallback,
            });
            return Verdict::Hold;
        }
        let mut waiting = self
            .slots
            .iter()
            .enumerate()
            .filter(|(_, s)| !s.paired && s.pending.is_empty() && s.kind == kind);
        let Some((earliest, slot)) = waiting.next() else {
            return self.extra(copy, source, None);
        };
        if let Some(open) = &slot.open {
            if compatible(open, &copy) {
                return self.pair(earliest, copy, line);
            }
            self.slots[earliest].pending.push(Pending {
                copy,
                source,
                fallback: None,
            });
            return Verdict::Hold;
        }
        let streaming = waiting
            .find(|(_, s)| s.open.as_ref().is_some_and(|open| compatible(open, &copy)))
            .map(|(at, _)| at);
        match streaming {
            Some(at) => {
                let fallback = Some(self.slots[earliest].index);
                self.slots[at].pending.push(Pending {
                    copy,
                    source,
                    fallback,
                });
                Verdict::Hold
            }
            None => self.pair(earliest, copy, line),
        }
    }

    /// Matches `copy` with the stream block at `at`: hands it out if the block is still
    /// streaming and nothing was handed out for it; else compares it with what was.
    fn pair(&mut self, at: usize, copy: Canonical, line: u64) -> Verdict {
        let what = self.describe(&self.slots[at].kind, self.slots[at].index);
        let slot = &mut self.slots[at];
        if slot.paired {
            return repeated(slot.delivered_print(), &copy, &what);
        }
        slot.paired = true;
        slot.paired_line = line;
        if slot.open.is_some() && slot.delivered == Delivered::Not {
            slot.delivered = Delivered::ByCopy(copy.print, line);
            return Verdict::Deliver(copy);
        }
        if slot.delivered_print() == copy.print {
            Verdict::Skip
        } else {
            Verdict::Differs(format!(
                "{what}: its consolidated copy differs from the streamed deltas; the streamed copy, handed out first, was kept"
            ))
        }
    }

    /// A copy held by block `at` is not to be handed out: it is the differing copy of its
    /// fallback, or, without one, of block `at` itself (which is marked as having its copy
    /// when `pair_self`, that is when no other copy is about to be). Says so.
    fn settle(&mut self, at: usize, held: Pending, pair_self: bool) -> String {
        let fallback = held
            .fallback
            .and_then(|index| self.slots.iter().position(|s| s.index == index));
        let owner = fallback.unwrap_or(at);
        if fallback.is_some() || pair_self {
            let slot = &mut self.slots[owner];
            slot.paired = true;
            slot.paired_line = held.source.line;
        }
        format!(
            "{}: its consolidated copy on line {} differs from the streamed deltas; the streamed copy was kept",
            self.describe(&self.slots[owner].kind, self.slots[owner].index),
            held.source.line
        )
    }

    /// A consolidated block no stream block accounts for: a block still to be streamed, or,
    /// once the message stopped, a block the stream never had, or (a block without id or
    /// position, of a type whose streamed blocks all have their copy) a second copy that
    /// differs.
    fn extra(&mut self, copy: Canonical, source: Source, position: Option<u64>) -> Verdict {
        let second = copy.identity.is_none() && position.is_none();
        if self.stopped && second && self.slots.iter().any(|slot| slot.kind == copy.kind) {
            let id = self.id().unwrap_or("");
            return Verdict::Differs(format!(
                "a consolidated {} block of message {id} matches none of its streamed blocks, which all have their copy; the streamed blocks were kept",
                copy.kind
            ));
        }
        self.copies.push(Copy {
            kind: copy.kind.clone(),
            identity: copy.identity.clone(),
            position,
            print: copy.print,
            paired: false,
            line: source.line,
            offset: source.offset,
        });
        if self.stopped {
            Verdict::Extra(copy)
        } else {
            Verdict::Deliver(copy)
        }
    }
}

/// A copy of a block already handed out: nothing to do if it is the same.
fn repeated(first: Option<u64>, copy: &Canonical, what: &str) -> Verdict {
    if first == copy.print {
        Verdict::Skip
    } else {
        Verdict::Differs(format!(
            "{what}: a second consolidated copy differs from the first; the first was kept"
        ))
    }
}

/// Whether a consolidated block can be the finished form of a block still streaming.
fn compatible(open: &OpenBlock, copy: &Canonical) -> bool {
    match copy.blocks.first().map(|block| &block.block) {
        Some(Block::Text { text, .. }) => text.starts_with(&open.text),
        Some(Block::Thinking {
            thinking,
            signature,
            redacted,
        }) => {
            let signature = signature.as_deref().unwrap_or("");
            (*redacted || thinking.starts_with(&open.text))
                && signature.starts_with(&open.signature)
        }
        Some(Block::ToolUse { tool_id, .. }) => *tool_id == open.tool_id,
        _ => true,
    }
}

impl State {
    /// The state of message `key`, made if new. A message that starts streaming ends the
    /// other messages of its scope (what they still stream is handed out as incomplete); a
    /// consolidated line ends those with nothing streaming. Claude Code writes a message's
    /// consolidated lines before it asks the model again, so an ended message gets none.
    pub(super) fn message_at(
        &mut self,
        key: MessageKey,
        agent: &Option<String>,
        starts: bool,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> usize {
        let mut at = 0;
        while at < self.messages.len() {
            let message = &self.messages[at];
            if message.key != key && message.agent == *agent && (starts || !message.has_open()) {
                let ended = self.messages.remove(at);
                self.end_message(ended, "its message ended", items, diagnostics);
            } else {
                at += 1;
            }
        }
        match self.messages.iter().position(|m| m.key == key) {
            Some(at) => at,
            None => {
                self.messages.push(MessageBlocks::new(key, agent.clone()));
                self.messages.len() - 1
            }
        }
    }

    /// The message stream events of this scope belong to.
    fn key_of(&self, agent: &Option<String>) -> MessageKey {
        (self.streaming.get(agent).cloned()).unwrap_or_else(|| MessageKey::Unnamed(agent.clone()))
    }

    pub(super) fn stream_event(
        &mut self,
        event: Option<Box<StreamEvent<'_>>>,
        agent: Option<String>,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let Some(event) = event else {
            diagnostics.push(shape(record, "a stream_event record without `event`"));
            return;
        };
        if event.kind == "message_start" {
            let Some(message) = event.message else { return };
            if let Some(model) = message.model.as_deref().filter(|m| *m != "<synthetic>") {
                self.meta.model = Some(model.to_owned());
            }
            let key = match message.id.as_deref() {
                Some(id) => {
                    if let Some(usage) = message.usage {
                        self.usage_snapshot(id, usage);
                    }
                    MessageKey::Id(id.to_owned())
                }
                None => MessageKey::Unnamed(agent.clone()),
            };
            let at = self.message_at(key.clone(), &agent, true, items, diagnostics);
            self.messages[at].streamed = true;
            self.streaming.insert(agent, key);
            return;
        }
        // Found by reference: a delta line (most lines of a partial-messages stream) copies
        // no key and no id.
        let streaming = self.streaming.get(&agent);
        let found = self.messages.iter().position(|m| match streaming {
            Some(key) => m.key == *key,
            None => matches!(&m.key, MessageKey::Unnamed(scope) if *scope == agent),
        });
        let at = match found {
            Some(at) => at,
            None => {
                let key = self.key_of(&agent);
                self.messages.push(MessageBlocks::new(key, agent.clone()));
                self.messages.len() - 1
            }
        };
        match &*event.kind {
            "content_block_start" => {
                let (Some(index), Some(raw)) = (event.index, event.content_block) else {
                    return;
                };
                let whole = || {
                    to_value(record.bytes)
                        .pointer("/event/content_block")
                        .cloned()
                        .unwrap_or(Value::Null)
                };
                let source = Source::record(record.line, record.offset);
                let (open, identity) = OpenBlock::start(*raw, whole, source);
                if let Some(replaced) = self.messages[at].start(index, open, identity) {
                    let message = MessageBlocks {
                        slots: vec![replaced],
                        ..MessageBlocks::new(self.key_of(&agent), agent)
                    };
                    self.end_message(message, "it was started again", items, diagnostics);
                }
            }
            "content_block_delta" => {
                let (Some(index), Some(delta)) = (event.index, event.delta) else {
                    return;
                };
                let Some(open) = self.messages[at]
                    .slot(index)
                    .and_then(|slot| slot.open.as_mut())
                else {
                    diagnostics.push(shape(
                        record,
                        &format!("a content_block_delta for block {index}, which is not streaming"),
                    ));
                    return;
                };
                open.apply(&delta, record.line);
            }
            "content_block_stop" => {
                let Some(index) = event.index else { return };
                let message = &mut self.messages[at];
                let Some(slot) = message.slot(index) else {
                    return;
                };
                let Some(mut open) = slot.open.take() else {
                    return;
                };
                open.source.end_line = record.line;
                let source = open.source;
                let (block, invalid_input) = close_block(open, false);
                let block = block.printed();
                slot.print = block.print;
                let mut pending = std::mem::take(&mut slot.pending);
                let delivered = slot.delivered;
                let what = |message: &MessageBlocks| {
                    let kind = message.slots.iter().find(|s| s.index == index);
                    message.describe(kind.map_or("", |slot| &slot.kind), index)
                };
                let message_id = message.id().map(str::to_owned);
                let mut differs = Vec::new();
                let deliver = match delivered {
                    _ if !pending.is_empty() => {
                        // The held copies: the one equal to the deltas is this block's; the
                        // others differ from their fallback, or from this block.
                        let at = (message.slots.iter())
                            .position(|s| s.index == index)
                            .expect("the slot is there");
                        if let Some(equal) =
                            pending.iter().position(|p| p.copy.print == block.print)
                        {
                            let line = pending.remove(equal).source.line;
                            message.slots[at].paired = true;
                            message.slots[at].paired_line = line;
                        }
                        for held in pending {
                            differs.push(message.settle(at, held, true));
                        }
                        true
                    }
                    Delivered::ByCopy(print, line) => {
                        if print != block.print {
                            differs.push(format!(
                                "{}: the streamed deltas differ from its consolidated copy on line {line}; the consolidated copy, handed out first, was kept",
                                what(message)
                            ));
                        }
                        false
                    }
                    _ => true,
                };
                if deliver {
                    if let Some(error) = invalid_input {
                        diagnostics.push(Diagnostic::new(
                            DiagnosticKind::InvalidJson,
                            record.line,
                            record.offset,
                            format!(
                                "{}: streamed input is not valid JSON ({error}); kept as a string",
                                what(message)
                            ),
                        ));
                    }
                    let slot = message.slot(index).expect("the slot is there");
                    slot.delivered = Delivered::ByStream;
                }
                for text in differs {
                    diagnostics.push(Diagnostic::new(
                        DiagnosticKind::StreamMismatch,
                        record.line,
                        record.offset,
                        text,
                    ));
                }
                if deliver {
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
            }
            "message_delta" => {
                if let (Some(id), Some(usage)) = (self.messages[at].id(), event.usage) {
                    let id = id.to_owned();
                    self.usage_snapshot(&id, *usage);
                }
            }
            // The API's `error` event: the response was cut (what it had streamed is handed out
            // when the next message starts, or the input ends).
            "error" => {
                let error = match event.error.as_deref() {
                    Some(Value::Object(fields)) => {
                        let field = |name| fields.get(name).and_then(Value::as_str);
                        let kind = field("type").unwrap_or("error");
                        format!("stream error: {kind}: {}", field("message").unwrap_or(""))
                    }
                    Some(other) => format!("stream error: {other}"),
                    None => "stream error".to_owned(),
                };
                self.run_error(Some(error), record);
            }
            "message_stop" => {
                let message = &mut self.messages[at];
                message.stopped = true;
                let id = message.id().unwrap_or("").to_owned();
                for copy in message.copies.iter().filter(|c| !c.paired) {
                    diagnostics.push(Diagnostic::new(
                        DiagnosticKind::StreamMismatch,
                        copy.line,
                        copy.offset,
                        format!(
                            "the consolidated {} block of message {id} on line {} has no streamed counterpart; kept",
                            copy.kind, copy.line
                        ),
                    ));
                }
            }
            _ => {}
        }
    }

    /// A message is over (another started in its scope, or the input ended): blocks still
    /// streaming are handed out as far as they arrived, unless a consolidated copy already
    /// gave them whole.
    pub(super) fn end_message(
        &mut self,
        mut message: MessageBlocks,
        why: &str,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let message_id = message.id().map(str::to_owned);
        for at in 0..message.slots.len() {
            let Some(open) = message.slots[at].open.take() else {
                continue;
            };
            let what = message.describe(&message.slots[at].kind, message.slots[at].index);
            let mut held = std::mem::take(&mut message.slots[at].pending);
            // The stream was cut inside a block that a held copy gives whole.
            let whole = (held.iter().position(|p| compatible(&open, &p.copy)))
                .map(|fits| held.remove(fits));
            for other in held {
                let (line, offset) = (other.source.line, other.source.offset);
                let text = message.settle(at, other, whole.is_none());
                diagnostics.push(Diagnostic::new(
                    DiagnosticKind::StreamMismatch,
                    line,
                    offset,
                    text,
                ));
            }
            if let Some(Pending { copy, source, .. }) = whole {
                let agent = message.agent.clone();
                self.deliver(
                    copy,
                    Role::Assistant,
                    &message_id,
                    &agent,
                    source,
                    items,
                    diagnostics,
                );
                continue;
            }
            if let Delivered::ByCopy(..) = message.slots[at].delivered {
                continue;
            }
            let source = open.source;
            diagnostics.push(Diagnostic::new(
                DiagnosticKind::IncompleteBlock,
                source.line,
                source.offset,
                format!("{what} was still streaming when {why}; kept as far as it arrived"),
            ));
            // Its message is over: no copy will be compared with it, so it has no print.
            let (block, _) = close_block(open, true);
            let agent = message.agent.clone();
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
    }
}
