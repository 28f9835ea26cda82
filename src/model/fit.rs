//! Fitting an event into one transcript line: what does not fit the transcript's limits
//! ([`MAX_LINE_BYTES`], [`MAX_DEPTH`]) is cut, with a marker in the event where it was, and
//! the cuts are returned for the writer to report.
//!
//! The strict writer refuses an event over the limits
//! ([`EncodeError::TooLong`](super::EncodeError::TooLong),
//! [`EncodeError::TooDeep`](super::EncodeError::TooDeep)), because a reader would refuse its
//! line. [`fit_event`] is what a writer does first: the transcriber for every event it makes (reporting an `oversize-cut`
//! diagnostic), and the recorder and the stdout sink for any event that is still refused
//! (logging the cut). It owns the cutting rules and nothing else: it writes no line and
//! decides nothing about which events exist.
//!
//! The rules are on [`fit_event`]. Each [`Cut`] names the field it was made in
//! (`payload.blocks[0].tool_input`) and what was done, so a diagnostic can say exactly what
//! is missing, and the marker in the event says it to whoever reads the transcript.

use std::fmt;

use serde_json::{Map, Value};

use super::block::{Block, Citation, ContentBlock, Fidelity};
use super::codec::EncodeError;
use super::event::ExchangeEvent;
use super::limits::{MAX_DEPTH, MAX_LINE_BYTES};
use super::output::ToolOutput;
use super::payload::Payload;
use super::text::Text;
use super::write::{BLOCK_VALUE_LEVEL, CITATION_EXTRA_LEVEL, PAYLOAD_VALUE_LEVEL};

/// An array or object given less than this is replaced whole by a marker.
const MIN_CONTAINER: usize = 96;
/// The least an element of an array (or a field of an object) is given before elements are
/// dropped instead.
const MIN_CHILD: usize = 64;
/// Room for the marker that replaces dropped elements.
const DROP_MARKER: usize = 96;

/// One cut [`fit_event`] made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cut {
    /// Where, as a path into the event: `payload.blocks[0].tool_input`, `payload.result`.
    pub field: String,
    /// What was done.
    pub reason: CutReason,
}

/// What [`fit_event`] did to a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CutReason {
    /// Arrays and objects past [`MAX_DEPTH`] were replaced by a marker.
    TooDeep,
    /// The value was cut from `from` to `to` bytes (as written in the line) to fit
    /// [`MAX_LINE_BYTES`].
    TooLong {
        /// Its length before.
        from: usize,
        /// Its length after.
        to: usize,
    },
    /// The message's last `count` blocks were dropped (a `text` block says so instead).
    BlocksDropped {
        /// How many.
        count: usize,
    },
}

impl fmt::Display for Cut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.reason {
            CutReason::TooDeep => write!(
                f,
                "{}: nested deeper than {MAX_DEPTH} levels, cut there",
                self.field
            ),
            CutReason::TooLong { from, to } => {
                write!(f, "{}: cut from {from} to {to} bytes", self.field)
            }
            CutReason::BlocksDropped { count } => {
                write!(f, "{}: the last {count} blocks dropped", self.field)
            }
        }
    }
}

/// Cuts what of `event` does not fit one transcript line, leaving a marker where it did, and
/// returns the cuts (none for an event that fits, which is left untouched). An event that
/// fits costs one walk that counts, and no copy.
///
/// "Fits" is with any `seq`: the line is measured with the longest `seq` there is, so an
/// event is cut alike before and after a sink numbers it, and one that fits only with a
/// short `seq` (within 19 bytes of the limit) is cut.
///
/// # The rules
///
/// * **Too deep.** An array or object past level [`MAX_DEPTH`] (the event's object is level
///   1; a tool input's own object is level 5, a tool payload's `input` level 3) is replaced
///   by the string `[axt: cut: nested deeper than the transcript's 127 levels]`.
/// * **Too long.** Only content is cut, never the envelope or the vocabulary: texts,
///   thinking, commands, stream chunks, citation texts and `extra`, tool inputs, outputs and
///   contents, a tool call's permission decision, step results and error texts (and, only if that is not enough, names, ids and
///   signatures). The room left for content after the line's fixed part is shared out *water
///   fill* fashion: whatever is no larger than its fair share stays whole (a run's status,
///   its usage, a short message), and only the largest values are cut, each to the same
///   size. A string keeps its beginning and ends with `…[axt: N of M bytes cut to fit the
///   transcript's line limit]`; an array or object is cut the same way inside, and when it
///   has more elements than fit at all, its last ones give way to a string (an array's last
///   element) or an `axt_cut` field (an object's) saying how many. A message whose blocks
///   alone are too many keeps its first ones and a `text` block saying how many were cut.
///   An object's keys count as its content too (a provider's record type can be the large
///   part); a key cut to fit keeps its field apart with `#<index>`.
///
/// Afterwards [`encode_event`](super::encode_event) refuses the event only for reasons of
/// its vocabulary, or in the one case nothing of the payload can fix: an envelope (run id,
/// path) over the limit by itself.
pub fn fit_event(event: &mut ExchangeEvent) -> Vec<Cut> {
    fit_within(event, LIMITS)
}

/// The limits an event is fitted into: the transcript's, or smaller ones in the tests.
#[derive(Clone, Copy, Debug)]
struct Limits {
    line: usize,
    depth: usize,
}

const LIMITS: Limits = Limits {
    line: MAX_LINE_BYTES,
    depth: MAX_DEPTH,
};

fn fit_within(event: &mut ExchangeEvent, limits: Limits) -> Vec<Cut> {
    let mut cuts = Vec::new();
    let (bound, depth) = bound(event);
    if bound <= limits.line && depth <= limits.depth {
        return cuts;
    }
    if depth > limits.depth {
        for named in slots(event, false) {
            if let Slot::Json(value, level) = named.slot
                && cut_deep(value, level, limits.depth)
            {
                cuts.push(Cut {
                    field: named.field.to_string(),
                    reason: CutReason::TooDeep,
                });
            }
        }
    }
    // Slack for the markers and the estimate of the fixed part: a small share of the line,
    // doubled on each retry.
    let slack = (limits.line / 256).max(64);
    for names_too in [false, true] {
        let mut slack = slack;
        for _ in 0..4 {
            let Some(len) = line_len(event) else {
                return cuts;
            };
            if len <= limits.line {
                return cuts;
            }
            shrink_pass(
                event,
                len,
                limits.line.saturating_sub(slack),
                names_too,
                &mut cuts,
            );
            slack *= 2;
        }
    }
    drop_blocks(event, limits.line, &mut cuts);
    cuts
}

/// [`encode_event`](super::encode_event), and when it refuses `event` only for not fitting a
/// line, [`fit_event`] and again: what a writer of transcripts does with every event, so
/// that it never writes a line its readers refuse nor fails on one it could fit. Returns the
/// cuts made (none for an event that fitted), for the writer to report; on error nothing
/// is appended.
pub fn encode_fitted(
    event: &mut ExchangeEvent,
    out: &mut Vec<u8>,
) -> Result<Vec<Cut>, EncodeError> {
    match super::codec::encode_event(event, out) {
        Err(error) if error.is_over_limit() => {
            let cuts = fit_event(event);
            super::codec::encode_event(event, out)?;
            Ok(cuts)
        }
        other => other.map(|()| Vec::new()),
    }
}

/// The line's length as the writer writes it; `None` when the writer refuses the event for
/// a reason cutting cannot fix.
/// Measured with the longest `seq` there is, whatever the event's: the cut must not depend
/// on it, since a transcriber fits an event before its sink numbers it (with `seq` 0) and
/// a sink fitting the same event after must cut it alike (streamed equals whole).
fn line_len(event: &mut ExchangeEvent) -> Option<usize> {
    let seq = std::mem::replace(&mut event.seq, u64::MAX);
    let mut line = Vec::new();
    let written = super::write::event(event, &mut line);
    event.seq = seq;
    written.ok().map(|()| line.len())
}

/// One pass of cutting: the content's share of a line of `target` bytes is what the line's
/// fixed part leaves, filled like water; each value above the level is cut to it.
fn shrink_pass(
    event: &mut ExchangeEvent,
    len: usize,
    target: usize,
    names_too: bool,
    cuts: &mut Vec<Cut>,
) {
    let mut named = slots(event, names_too);
    let sizes: Vec<usize> = named.iter().map(|n| n.slot.len()).collect();
    let content: usize = sizes.iter().sum();
    let fixed = len.saturating_sub(content);
    let budget = target.saturating_sub(fixed);
    let Some(level) = water_level(&sizes, budget) else {
        return;
    };
    for (named, size) in named.iter_mut().zip(sizes) {
        if size > level {
            named.slot.shrink(level);
            let to = named.slot.len();
            note(cuts, named.field.to_string(), size, to);
        }
    }
}

/// Adds a cut of `field` from `from` to `to` bytes, or updates the one already there (a
/// field cut again on a later pass keeps its first length).
fn note(cuts: &mut Vec<Cut>, field: String, from: usize, to: usize) {
    for cut in cuts.iter_mut() {
        if cut.field == field
            && let CutReason::TooLong { to: last, .. } = &mut cut.reason
        {
            *last = to;
            return;
        }
    }
    cuts.push(Cut {
        field,
        reason: CutReason::TooLong { from, to },
    });
}

/// The last resort: a message with more blocks than one line holds keeps its first blocks
/// (as many as take half the limit) and a `text` block saying how many were dropped.
fn drop_blocks(event: &mut ExchangeEvent, limit: usize, cuts: &mut Vec<Cut>) {
    let Payload::Message(message) = &mut event.payload else {
        return;
    };
    let mut used = 0;
    let mut keep = 0;
    for block in &message.blocks {
        let mut line = Vec::new();
        let size = match super::write::content_block(block, &mut line) {
            Ok(()) => line.len() + 1,
            Err(_) => limit,
        };
        if used + size > limit / 2 {
            break;
        }
        used += size;
        keep += 1;
    }
    let count = message.blocks.len() - keep;
    if count == 0 {
        return;
    }
    message.blocks.truncate(keep);
    let fidelity = message
        .blocks
        .first()
        .map_or(Fidelity::AgentEmitted, |block| block.fidelity.clone());
    message.blocks.push(ContentBlock::text(
        fidelity,
        format!("[axt: {count} more blocks cut to fit the transcript's line limit]"),
    ));
    cuts.push(Cut {
        field: "payload.blocks".to_owned(),
        reason: CutReason::BlocksDropped { count },
    });
}

/// The level water reaches when `budget` is poured over values of `sizes`: every value no
/// larger stays whole, every larger one is cut to it. `None` when everything fits.
fn water_level(sizes: &[usize], budget: usize) -> Option<usize> {
    let mut sorted = sizes.to_vec();
    sorted.sort_unstable();
    let mut remaining = budget;
    for (at, &size) in sorted.iter().enumerate() {
        let share = remaining / (sorted.len() - at);
        if size > share {
            return Some(share);
        }
        remaining -= size;
    }
    None
}

/// A field of the event that may be cut.
enum Slot<'a> {
    Text(&'a mut String),
    /// A JSON value and the level its own array or object is at.
    Json(&'a mut Value, usize),
}

impl Slot<'_> {
    fn len(&self) -> usize {
        match self {
            Slot::Text(text) => string_len(text),
            Slot::Json(value, _) => value_len(value),
        }
    }

    fn shrink(&mut self, cap: usize) {
        match self {
            Slot::Text(text) => shrink_string(text, cap),
            Slot::Json(value, _) => shrink_value(value, cap),
        }
    }
}

/// Where a slot is, formatted only when a cut is reported.
struct Field<'a> {
    block: Option<usize>,
    citation: Option<usize>,
    name: &'static str,
    key: Option<&'a str>,
}

impl fmt::Display for Field<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("payload")?;
        if let Some(block) = self.block {
            write!(f, ".blocks[{block}]")?;
        }
        if let Some(citation) = self.citation {
            write!(f, ".citations[{citation}]")?;
        }
        write!(f, ".{}", self.name)?;
        if let Some(key) = self.key {
            write!(f, ".{key}")?;
        }
        Ok(())
    }
}

struct Named<'a> {
    field: Field<'a>,
    slot: Slot<'a>,
}

fn at<'a>(name: &'static str, slot: Slot<'a>) -> Named<'a> {
    Named {
        field: Field {
            block: None,
            citation: None,
            name,
            key: None,
        },
        slot,
    }
}

/// The fields of the event's payload that may be cut: its content and, with `names_too`,
/// its names, ids and signatures. The envelope is never cut.
fn slots(event: &mut ExchangeEvent, names_too: bool) -> Vec<Named<'_>> {
    let mut found = Vec::new();
    match &mut event.payload {
        Payload::Message(message) => {
            for (index, block) in message.blocks.iter_mut().enumerate() {
                let first = found.len();
                block_slots(&mut block.block, names_too, &mut found);
                for named in &mut found[first..] {
                    named.field.block = Some(index);
                }
            }
            if names_too && let Some(id) = &mut message.message_id {
                found.push(at("message_id", Slot::Text(id)));
            }
        }
        Payload::Tool(tool) => {
            found.push(at(
                "input",
                Slot::Json(&mut tool.input, PAYLOAD_VALUE_LEVEL),
            ));
            found.push(at(
                "output",
                Slot::Json(&mut tool.output, PAYLOAD_VALUE_LEVEL),
            ));
            if let Some(error) = &mut tool.error {
                found.push(at("error", Slot::Text(error.to_mut())));
            }
            if names_too {
                found.push(at("name", Slot::Text(&mut tool.name)));
                found.push(at("call_id", Slot::Text(&mut tool.call_id)));
                if let Some(id) = &mut tool.agent_call_id {
                    found.push(at("agent_call_id", Slot::Text(id)));
                }
            }
        }
        Payload::Step(step) => {
            found.push(at(
                "result",
                Slot::Json(&mut step.result, PAYLOAD_VALUE_LEVEL),
            ));
            if let Some(error) = &mut step.error {
                found.push(at("error", Slot::Text(error)));
            }
            if names_too {
                found.push(at("name", Slot::Text(&mut step.name)));
            }
        }
        // Not written by the strict writer at all: nothing to fit.
        Payload::None | Payload::Blocks(_) | Payload::Raw(_) | Payload::Malformed { .. } => {}
    }
    found
}

fn block_slots<'a>(block: &'a mut Block, names_too: bool, found: &mut Vec<Named<'a>>) {
    match block {
        Block::Text {
            text, citations, ..
        } => {
            found.push(at("text", Slot::Text(text)));
            for (index, citation) in citations.iter_mut().enumerate() {
                let first = found.len();
                citation_slots(citation, names_too, found);
                for named in &mut found[first..] {
                    named.field.citation = Some(index);
                }
            }
        }
        Block::Thinking {
            thinking,
            signature,
            ..
        } => {
            found.push(at("thinking", Slot::Text(thinking)));
            if names_too && let Some(signature) = signature {
                found.push(at("signature", Slot::Text(signature)));
            }
        }
        Block::ToolUse {
            tool_name,
            tool_id,
            tool_input,
            permission,
            ..
        } => {
            found.push(at("tool_input", Slot::Json(tool_input, BLOCK_VALUE_LEVEL)));
            // The agent's own words (the option it offered): as long and as deep as it likes.
            if let Some(permission) = permission {
                found.push(at("permission", Slot::Json(permission, BLOCK_VALUE_LEVEL)));
            }
            if names_too {
                found.push(at("tool_name", Slot::Text(tool_name)));
                found.push(at("tool_id", Slot::Text(tool_id)));
            }
        }
        Block::ToolResult {
            tool_id,
            tool_content,
            ..
        } => {
            found.push(at(
                "tool_content",
                Slot::Json(tool_content, BLOCK_VALUE_LEVEL),
            ));
            if names_too {
                found.push(at("tool_id", Slot::Text(tool_id)));
            }
        }
        Block::Command { command, tool_id } => {
            found.push(at("command", Slot::Text(command)));
            if names_too && let Some(tool_id) = tool_id {
                found.push(at("tool_id", Slot::Text(tool_id)));
            }
        }
        Block::Stream { chunk } => found.push(at("chunk", Slot::Text(chunk))),
        Block::Unrecognized(_) => {}
    }
}

fn citation_slots<'a>(citation: &'a mut Citation, names_too: bool, found: &mut Vec<Named<'a>>) {
    let Citation {
        kind,
        url,
        title,
        file_id,
        filename,
        cited_text,
        extra,
        ..
    } = citation;
    for (name, text) in [
        ("url", url),
        ("title", title),
        ("filename", filename),
        ("cited_text", cited_text),
    ] {
        if let Some(text) = text {
            found.push(at(name, Slot::Text(text)));
        }
    }
    for (key, value) in extra.iter_mut() {
        let mut named = at("extra", Slot::Json(value, CITATION_EXTRA_LEVEL + 1));
        named.field.key = Some(key);
        found.push(named);
    }
    if names_too {
        found.push(at("type", Slot::Text(kind)));
        if let Some(file_id) = file_id {
            found.push(at("file_id", Slot::Text(file_id)));
        }
    }
}

/// An upper bound of the event's line length (every byte of every string escaped as
/// `\u00XX`), and the deepest level its values reach: one walk that counts, for the common
/// event that fits by far.
fn bound(event: &ExchangeEvent) -> (usize, usize) {
    let mut walk = Bound::default();
    walk.text(&event.run_id);
    walk.text(&event.path);
    walk.text(event.timestamp.as_str());
    for text in [&event.parent_run_id, &event.child_run_id]
        .into_iter()
        .flatten()
    {
        walk.text(text);
    }
    match &event.payload {
        Payload::Message(message) => {
            for block in &message.blocks {
                walk.bytes += 128;
                walk.block(&block.block);
            }
            walk.opt(&message.message_id);
        }
        Payload::Tool(tool) => {
            walk.value(&tool.input, PAYLOAD_VALUE_LEVEL);
            walk.output(&tool.output, PAYLOAD_VALUE_LEVEL);
            if let Some(error) = &tool.error {
                walk.escaped(error);
            }
            walk.text(&tool.name);
            walk.text(&tool.call_id);
            walk.opt(&tool.agent_call_id);
        }
        Payload::Step(step) => {
            walk.value(&step.result, PAYLOAD_VALUE_LEVEL);
            walk.opt(&step.error);
            walk.text(&step.name);
        }
        Payload::None | Payload::Blocks(_) | Payload::Raw(_) | Payload::Malformed { .. } => {}
    }
    (walk.bytes + 1024, walk.depth)
}

#[derive(Default)]
struct Bound {
    bytes: usize,
    depth: usize,
}

impl Bound {
    fn text(&mut self, text: &str) {
        self.bytes += 6 * text.len() + 16;
    }

    /// A string held as its JSON is that JSON's length (unescaping it to count would cost
    /// what holding it saves).
    fn output(&mut self, output: &ToolOutput, level: usize) {
        match output.json() {
            Some(json) => self.bytes += json.len() + 16,
            None => self.value(output, level),
        }
    }

    /// A text held as its JSON is that JSON's length, as for an output.
    fn escaped(&mut self, text: &Text) {
        match text.json() {
            Some(json) => self.bytes += json.len() + 16,
            None => self.text(text),
        }
    }

    fn opt(&mut self, text: &Option<String>) {
        if let Some(text) = text {
            self.text(text);
        }
    }

    fn block(&mut self, block: &Block) {
        match block {
            Block::Text {
                text, citations, ..
            } => {
                self.text(text);
                for citation in citations {
                    self.bytes += 256;
                    self.text(&citation.kind);
                    for text in [
                        &citation.url,
                        &citation.title,
                        &citation.file_id,
                        &citation.filename,
                        &citation.cited_text,
                    ] {
                        self.opt(text);
                    }
                    for (key, value) in &citation.extra {
                        self.text(key);
                        self.value(value, CITATION_EXTRA_LEVEL + 1);
                    }
                }
            }
            Block::Thinking {
                thinking,
                signature,
                ..
            } => {
                self.text(thinking);
                self.opt(signature);
            }
            Block::ToolUse {
                tool_name,
                tool_id,
                tool_input,
                permission,
                ..
            } => {
                self.text(tool_name);
                self.text(tool_id);
                self.value(tool_input, BLOCK_VALUE_LEVEL);
                if let Some(permission) = permission {
                    self.value(permission, BLOCK_VALUE_LEVEL);
                }
            }
            Block::ToolResult {
                tool_id,
                tool_content,
                ..
            } => {
                self.text(tool_id);
                self.output(tool_content, BLOCK_VALUE_LEVEL);
            }
            Block::Command { command, tool_id } => {
                self.text(command);
                self.opt(tool_id);
            }
            Block::Stream { chunk } => self.text(chunk),
            Block::Unrecognized(unrecognized) => self.value(&unrecognized.raw, BLOCK_VALUE_LEVEL),
        }
    }

    fn value(&mut self, value: &Value, level: usize) {
        if level > MAX_DEPTH + 1 && matches!(value, Value::Array(_) | Value::Object(_)) {
            // Too deep already: it will be cut whole, so what is inside counts for nothing
            // (and the walk stays as shallow as the limit, whatever the input's nesting).
            self.depth = self.depth.max(level);
            return;
        }
        match value {
            Value::String(text) => self.text(text),
            Value::Array(items) => {
                self.depth = self.depth.max(level);
                self.bytes += 2;
                for item in items {
                    self.bytes += 1;
                    self.value(item, level + 1);
                }
            }
            Value::Object(fields) => {
                self.depth = self.depth.max(level);
                self.bytes += 2;
                for (key, item) in fields {
                    self.bytes += 2;
                    self.text(key);
                    self.value(item, level + 1);
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => self.bytes += 32,
        }
    }
}

/// Replaces every array and object of `value` past level `limit` by a marker; `level` is
/// the level of `value`'s own container. Whether anything was cut.
fn cut_deep(value: &mut Value, level: usize, limit: usize) -> bool {
    let container = matches!(value, Value::Array(_) | Value::Object(_));
    if container && level > limit {
        *value = Value::String(format!(
            "[axt: cut: nested deeper than the transcript's {limit} levels]"
        ));
        return true;
    }
    match value {
        Value::Array(items) => items
            .iter_mut()
            .fold(false, |cut, item| cut_deep(item, level + 1, limit) | cut),
        Value::Object(fields) => fields
            .values_mut()
            .fold(false, |cut, item| cut_deep(item, level + 1, limit) | cut),
        _ => false,
    }
}

/// The bytes one character takes in a JSON string as the writer escapes it.
fn char_len(ch: char) -> usize {
    match ch {
        '"' | '\\' | '\u{08}' | '\t' | '\n' | '\u{0C}' | '\r' => 2,
        c if (c as u32) < 0x20 => 6,
        c => c.len_utf8(),
    }
}

/// A string's length as the writer writes it, quotes included.
fn string_len(text: &str) -> usize {
    2 + text.chars().map(char_len).sum::<usize>()
}

/// A value's length as the writer writes it.
pub(super) fn value_len(value: &Value) -> usize {
    match value {
        Value::Null | Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(number) => number.to_string().len(),
        Value::String(text) => string_len(text),
        Value::Array(items) => {
            2 + items.len().saturating_sub(1) + items.iter().map(value_len).sum::<usize>()
        }
        Value::Object(fields) => object_len(fields),
    }
}

fn object_len(fields: &Map<String, Value>) -> usize {
    2 + fields.len().saturating_sub(1)
        + fields
            .iter()
            .map(|(key, item)| string_len(key) + 1 + value_len(item))
            .sum::<usize>()
}

/// Cuts `text` so that it takes about `cap` bytes written, its beginning kept and a marker
/// saying how much was cut at its end.
fn shrink_string(text: &mut String, cap: usize) {
    let total = text.len();
    let marker = |cut: usize| {
        format!("…[axt: {cut} of {total} bytes cut to fit the transcript's line limit]")
    };
    // The longest marker (the most digits) decides the room, so the result never exceeds it.
    let room = cap.saturating_sub(2 + marker(total).len());
    let mut used = 0;
    let mut keep = 0;
    for (at, ch) in text.char_indices() {
        used += char_len(ch);
        if used > room {
            break;
        }
        keep = at + ch.len_utf8();
    }
    let cut = total - keep;
    text.truncate(keep);
    text.push_str(&marker(cut));
}

/// Cuts `value` so that it takes about `cap` bytes written (see the module documentation).
fn shrink_value(value: &mut Value, cap: usize) {
    let size = value_len(value);
    if size <= cap {
        return;
    }
    if matches!(value, Value::Array(_) | Value::Object(_)) && cap < MIN_CONTAINER {
        *value = Value::String(format!(
            "[axt: a value of {size} bytes cut to fit the transcript's line limit]"
        ));
        return;
    }
    match value {
        Value::String(text) => shrink_string(text, cap),
        Value::Array(items) => {
            let sizes: Vec<usize> = items.iter().map(value_len).collect();
            let commas = items.len().saturating_sub(1);
            let level = water_level(&sizes, cap.saturating_sub(2 + commas));
            let keep = match level {
                Some(level) if level < MIN_CHILD => fitting_prefix(&sizes, 1, cap),
                _ => items.len(),
            };
            let dropped = items.len() - keep;
            items.truncate(keep);
            let marker_room = if dropped > 0 { DROP_MARKER } else { 0 };
            let avail = cap.saturating_sub(2 + keep + marker_room);
            if let Some(level) = water_level(&sizes[..keep], avail) {
                for item in items.iter_mut() {
                    shrink_value(item, level);
                }
            }
            if dropped > 0 {
                items.push(Value::String(format!(
                    "[axt: {dropped} more elements cut to fit the transcript's line limit]"
                )));
            }
        }
        Value::Object(fields) => {
            // A field is its key and its value: a key can be the large part (a record type
            // a provider made 16 MiB long, counted by type in the input report).
            let entries: Vec<(String, Value)> = std::mem::take(fields).into_iter().collect();
            let sizes: Vec<usize> = entries
                .iter()
                .map(|(key, item)| string_len(key) + 1 + value_len(item))
                .collect();
            let commas = entries.len().saturating_sub(1);
            let level = water_level(&sizes, cap.saturating_sub(2 + commas));
            let keep = match level {
                Some(level) if level < MIN_CHILD => fitting_prefix(&sizes, 1, cap),
                _ => entries.len(),
            };
            let dropped = entries.len() - keep;
            let marker_room = if dropped > 0 { DROP_MARKER } else { 0 };
            let level = water_level(&sizes[..keep], cap.saturating_sub(2 + keep + marker_room));
            for (index, (mut key, mut item)) in entries.into_iter().take(keep).enumerate() {
                if let Some(level) = level
                    && sizes[index] > level
                {
                    if string_len(&key) > level / 2 {
                        shrink_string(&mut key, level / 2);
                        // Two keys cut alike must stay two fields.
                        key.push_str(&format!("#{index}"));
                    }
                    shrink_value(&mut item, level.saturating_sub(string_len(&key) + 1));
                }
                fields.insert(key, item);
            }
            if dropped > 0 {
                fields.insert(
                    "axt_cut".to_owned(),
                    Value::String(format!(
                        "{dropped} more fields cut to fit the transcript's line limit"
                    )),
                );
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// How many of the first elements fit in `cap` (less the drop marker's room), each counted
/// at `sizes[i] + per_element`, at most [`MIN_CHILD`] of it its own.
fn fitting_prefix(sizes: &[usize], per_element: usize, cap: usize) -> usize {
    let mut used = 2 + DROP_MARKER;
    let mut keep = 0;
    for &size in sizes {
        let cost = size.min(MIN_CHILD) + per_element;
        if used + cost > cap {
            break;
        }
        used += cost;
        keep += 1;
    }
    keep
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::model::{EventType, MessagePayload, Role, ToolPayload};

    /// Any JSON value: scalars, strings of any characters and length, arrays and objects,
    /// and chains of them nested up to 200 levels.
    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(Value::from),
            ".{0,40}".prop_map(Value::String),
            (any::<char>(), 0usize..2000).prop_map(|(c, n)| Value::String(c.to_string().repeat(n))),
        ];
        let tree = leaf.prop_recursive(4, 64, 8, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..16).prop_map(Value::Array),
                prop::collection::btree_map(
                    prop_oneof![
                        ".{0,8}",
                        (any::<char>(), 0usize..2000).prop_map(|(c, n)| c.to_string().repeat(n))
                    ],
                    inner,
                    0..8
                )
                .prop_map(|map| Value::Object(map.into_iter().collect())),
            ]
        });
        (tree, 0usize..200, any::<bool>()).prop_map(|(mut value, depth, arrays)| {
            for _ in 0..depth {
                value = if arrays {
                    Value::Array(vec![value])
                } else {
                    Value::Object(Map::from_iter([("k".to_owned(), value)]))
                };
            }
            value
        })
    }

    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            ".{0,60}",
            (any::<char>(), 1usize..4000).prop_map(|(c, n)| c.to_string().repeat(n))
        ]
    }

    fn block() -> impl Strategy<Value = ContentBlock> {
        prop_oneof![
            text().prop_map(|t| ContentBlock::text(Fidelity::AgentEmitted, t)),
            (text(), value(), prop::option::of(value())).prop_map(|(id, input, permission)| {
                ContentBlock::new(
                    Fidelity::AgentEmitted,
                    Block::ToolUse {
                        tool_name: "Bash".into(),
                        tool_id: format!("t{}", id.len()),
                        tool_input: input,
                        server: false,
                        incomplete: false,
                        permission,
                    },
                )
            }),
            value().prop_map(|content| ContentBlock::new(
                Fidelity::AgentEmitted,
                Block::ToolResult {
                    tool_id: "t1".into(),
                    tool_content: content.into(),
                    is_error: false,
                    exit_code: None,
                }
            )),
            text().prop_map(|command| ContentBlock::new(
                Fidelity::AgentEmitted,
                Block::Command {
                    command,
                    tool_id: None
                }
            )),
        ]
    }

    fn event() -> impl Strategy<Value = ExchangeEvent> {
        let message = prop::collection::vec(block(), 0..12).prop_map(|blocks| {
            Payload::Message(MessagePayload {
                role: Role::Assistant,
                blocks,
                message_id: Some("m1".into()),
            })
        });
        let tool = (
            value(),
            value(),
            prop::option::of(text().prop_filter("non-empty", |t| !t.is_empty())),
            any::<bool>(),
        )
            .prop_map(|(input, output, error, escaped)| {
                let mut tool = ToolPayload::call("Bash", "c1", input, Fidelity::AgentEmitted);
                tool.output = output.into();
                // Either way a text is held: as the record's JSON, or as the string.
                tool.error = error.map(|error| match escaped {
                    true => Text::escaped(&serde_json::to_vec(&error).unwrap()),
                    false => Text::from(error),
                });
                Payload::Tool(tool)
            });
        prop_oneof![message, tool].prop_map(|payload| {
            let kind = match payload {
                Payload::Tool(_) => EventType::ToolResult,
                _ => EventType::MessageAssistant,
            };
            let mut event = ExchangeEvent::new("r", kind, "agent", payload);
            event.seq = 1;
            event
        })
    }

    fn written(event: &ExchangeEvent) -> Result<Vec<u8>, EncodeError> {
        let mut line = Vec::new();
        super::super::write::event(event, &mut line)?;
        Ok(line)
    }

    /// Whether `event` is written within `line` bytes whatever `seq` it is given (the
    /// longest is the most digits): what [`fit_within`] leaves untouched.
    fn fits_any_seq(event: &ExchangeEvent, line: usize) -> bool {
        let mut longest = event.clone();
        longest.seq = u64::MAX;
        written(&longest).is_ok_and(|bytes| bytes.len() <= line)
    }

    /// 128 cases, or `PROPTEST_CASES` when set (a longer hunt: `PROPTEST_CASES=20000`).
    fn cases() -> u32 {
        std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|cases| cases.parse().ok())
            .unwrap_or(128)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

        /// Whatever the event, once fitted it is written within the limits, and cut alike
        /// whatever its `seq`; an event that fits with any `seq` is left as it was, with no
        /// cut; every cut names a field of the event.
        #[test]
        fn a_fitted_event_is_written_within_the_limits(
            mut event in event(),
            line in 1500usize..20_000,
        ) {
            let limits = Limits { line, depth: MAX_DEPTH };
            let before = event.clone();
            let fitted_before = fits_any_seq(&before, line);
            let mut unnumbered = event.clone();
            unnumbered.seq = 0;
            let cuts = fit_within(&mut event, limits);
            let bytes = written(&event).expect("written after fitting");
            prop_assert!(bytes.len() <= line, "{} > {line}: {cuts:?}", bytes.len());
            prop_assert_eq!(fit_within(&mut unnumbered, limits), cuts.clone());
            unnumbered.seq = event.seq;
            prop_assert_eq!(&unnumbered, &event);
            if fitted_before {
                prop_assert!(cuts.is_empty(), "{cuts:?}");
                prop_assert_eq!(&event, &before);
            }
            if cuts.is_empty() {
                prop_assert_eq!(&event, &before);
            }
            for cut in &cuts {
                prop_assert!(cut.field.starts_with("payload."), "{}", cut.field);
            }
        }
    }

    fn command_message(command: String) -> ExchangeEvent {
        let payload = Payload::Message(MessagePayload {
            role: Role::Assistant,
            blocks: vec![ContentBlock::new(
                Fidelity::AgentEmitted,
                Block::Command {
                    command,
                    tool_id: None,
                },
            )],
            message_id: Some("m1".into()),
        });
        let mut event = ExchangeEvent::new("r", EventType::MessageAssistant, "agent", payload);
        event.timestamp = crate::model::Timestamp::from_unix_nanos(0);
        event
    }

    /// The shape the property test once found: a command of backspaces (two bytes each
    /// written) that fits a 7,989-byte line exactly with `seq` 1, and not with a longer
    /// `seq`. The cut must not depend on `seq` (a transcriber fits before its sink numbers),
    /// so it is cut, alike whatever its `seq`, and written within the line.
    #[test]
    fn an_event_that_fits_only_with_a_short_seq_is_cut_alike_whatever_its_seq() {
        let mut event = command_message("\u{8}".repeat(3875));
        event.seq = 1;
        let line = written(&event).expect("written").len();
        assert_eq!(line, 7989);
        let limits = Limits {
            line,
            depth: MAX_DEPTH,
        };
        let mut unnumbered = event.clone();
        unnumbered.seq = 0;
        let cuts = fit_within(&mut event, limits);
        assert_eq!(
            cuts,
            [Cut {
                field: "payload.blocks[0].command".into(),
                reason: CutReason::TooLong {
                    from: 7752,
                    to: 7667
                }
            }]
        );
        assert_eq!(fit_within(&mut unnumbered, limits), cuts);
        unnumbered.seq = 1;
        assert_eq!(unnumbered, event);
        event.seq = u64::MAX;
        assert!(written(&event).expect("written").len() <= line);
    }

    /// A permission decision is the agent's own words (the option it offered, named as it
    /// likes): too long or too deep, it is cut like any other content, not left to make
    /// the event unwritable.
    #[test]
    fn a_tool_call_s_permission_is_cut_to_fit() {
        let permission = serde_json::json!({
            "decision": "allowed",
            "option_id": "allow",
            "option_name": "x".repeat(20_000),
        });
        let call = ContentBlock::new(
            Fidelity::AgentEmitted,
            Block::ToolUse {
                tool_name: "Bash".into(),
                tool_id: "t1".into(),
                tool_input: serde_json::json!({"command": "ls"}),
                server: false,
                incomplete: false,
                permission: Some(permission),
            },
        );
        let mut deep = serde_json::json!("leaf");
        for _ in 0..200 {
            deep = serde_json::json!([deep]);
        }
        let mut deep_call = call.clone();
        if let Block::ToolUse { permission, .. } = &mut deep_call.block {
            *permission = Some(deep);
        }
        for (block, reason) in [(call, "too long"), (deep_call, "too deep")] {
            let mut event = command_message("ls".into());
            let Payload::Message(message) = &mut event.payload else {
                unreachable!()
            };
            message.blocks = vec![block];
            let line = 4000;
            let cuts = fit_within(
                &mut event,
                Limits {
                    line,
                    depth: MAX_DEPTH,
                },
            );
            let bytes = written(&event).unwrap_or_else(|error| panic!("{reason}: {error:?}"));
            assert!(bytes.len() <= line, "{reason}: {} > {line}", bytes.len());
            assert_eq!(cuts.len(), 1, "{reason}: {cuts:?}");
            assert_eq!(cuts[0].field, "payload.blocks[0].permission", "{reason}");
        }
    }

    #[test]
    fn water_fills_the_small_values_whole_and_cuts_the_large_ones_level() {
        assert_eq!(water_level(&[10, 20, 30], 100), None);
        assert_eq!(water_level(&[10, 1000, 2000], 610), Some(300));
        assert_eq!(water_level(&[5, 5, 5], 9), Some(3));
    }

    #[test]
    fn lengths_are_the_writer_s() {
        let value = serde_json::json!({"a": ["x\ny\u{1}\"é", 1.5, null, true, false, -3],
            "b": {"c": {}}, "d": []});
        assert_eq!(value_len(&value), serde_json::to_vec(&value).unwrap().len());
    }

    #[test]
    fn a_cut_string_keeps_its_beginning_and_says_how_much_went() {
        let mut text = "é".repeat(1000);
        shrink_string(&mut text, 200);
        assert!(string_len(&text) <= 200, "{}", string_len(&text));
        assert!(text.starts_with("éé"));
        assert!(
            text.ends_with("of 2000 bytes cut to fit the transcript's line limit]"),
            "{text}"
        );
    }
}
