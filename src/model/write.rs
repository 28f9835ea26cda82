//! The strict writer's JSON emitter: the bytes of one event, written directly.
//!
//! It writes exactly what serde_json writes for the model's `Serialize` impls (same field
//! order, same escaping, same number formatting; a property test holds the two equal) and
//! refuses the same values with the same messages, but is about twice as fast: it needs no
//! serializer state machine, and it scans strings eight bytes at a time for the few bytes
//! JSON must escape instead of looking each byte up, writing the stretches that have them
//! from a table without a branch per escape. Transcripts are mostly tool output and text, so
//! string escaping is where a writer spends its time.

use serde::ser::Error as _;
use serde_json::{Map, Value};

use super::block::{Block, Citation, ContentBlock, Fidelity};
use super::event::{EventType, ExchangeEvent};
use super::limits::MAX_DEPTH;
use super::output::ToolOutput;
use super::payload::{MessagePayload, Payload, Role, StepPayload, ToolPayload};
use super::refusal;
use super::text::Text;

/// Why the writer refused an event: a value outside the vocabulary (with the same message
/// the `Serialize` impls give), or nesting deeper than a reader takes.
#[derive(Debug)]
pub(crate) enum Refusal {
    Value(serde_json::Error),
    /// A container at this level, past [`MAX_DEPTH`].
    TooDeep(usize),
}

/// The levels of the fixed structure around a value: the event's object is level 1, a
/// payload's object 2, a value of the payload (a tool's `input`, a step's `result`) 3, the
/// blocks array 3, a block 4, a block's value (`tool_input`, `tool_content`) 5, a
/// citation's `extra` object 7.
pub(super) const PAYLOAD_VALUE_LEVEL: usize = 3;
pub(super) const BLOCK_VALUE_LEVEL: usize = 5;
pub(super) const CITATION_EXTRA_LEVEL: usize = 7;

/// Where the writer puts an event's bytes. One walk of the event serves both: a `Vec<u8>`
/// gets the JSON; [`Refusals`] gets nothing, so the walk only finds what the writer refuses
/// (the reader asks that of every line it calls canonical, at a fraction of writing it).
pub(super) trait Out {
    /// Whether anything is written; values (`Value`), which are never refused, are skipped
    /// when not.
    const WRITES: bool;
    fn bytes(&mut self, bytes: &[u8]);
    fn byte(&mut self, byte: u8);
    fn string(&mut self, text: &str);
    /// A string that needs no escape (a checked timestamp): between quotes as it is, not
    /// scanned. (The vocabulary's names are constants, written with their keys by
    /// `vocabulary!`.)
    fn plain(&mut self, text: &[u8]);
    /// A string already escaped as [`Out::string`] escapes it, quotes included (a
    /// [`ToolOutput`] or a [`Text`] held as its JSON): copied as it is.
    fn escaped(&mut self, json: &[u8]);
    fn integer(&mut self, number: u64);
    fn signed(&mut self, number: i64);
    fn number(&mut self, number: &serde_json::Number);
}

impl Out for Vec<u8> {
    const WRITES: bool = true;
    // Inlined, so that the walk's constant pieces (`,"path":`, a name of the vocabulary
    // with its key) are stores of known length, not calls to memcpy.
    #[inline]
    fn bytes(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
    #[inline]
    fn byte(&mut self, byte: u8) {
        self.push(byte);
    }
    fn string(&mut self, text: &str) {
        escaped(self, text);
    }
    #[inline]
    fn plain(&mut self, text: &[u8]) {
        // The stamps of the two common lengths (27 bytes, a writer's: `Timestamp::now`; 24,
        // a provider's milliseconds) are one store of a length known here: `short` spent
        // ~120 instructions on a stamp testing bytes a checked stamp never has (the
        // recorder bench: ~40 for the store).
        match text.len() {
            27 => return quoted::<27>(self, text.try_into().expect("27 bytes")),
            24 => return quoted::<24>(self, text.try_into().expect("24 bytes")),
            _ => {}
        }
        // Any other checked timestamp is never refused by `short`.
        if text.len() <= SHORT && short(self, text) {
            return;
        }
        self.reserve(text.len() + 2);
        self.push(b'"');
        self.extend_from_slice(text);
        self.push(b'"');
    }
    #[inline]
    fn escaped(&mut self, json: &[u8]) {
        self.extend_from_slice(json);
    }
    #[inline]
    fn integer(&mut self, number: u64) {
        if number < 10 {
            // Most iterations, a tool's exit code: one digit, without formatting.
            self.push(b'0' + number as u8);
            return;
        }
        self.extend_from_slice(itoa::Buffer::new().format(number).as_bytes());
    }
    fn signed(&mut self, number: i64) {
        self.extend_from_slice(itoa::Buffer::new().format(number).as_bytes());
    }
    fn number(&mut self, number: &serde_json::Number) {
        // Floats go through serde_json itself, so their formatting is its own.
        serde_json::to_writer(self, number).expect("writing to a Vec cannot fail");
    }
}

/// `text` between quotes, `text` one that needs no escape, as one store of a length known
/// where it is called (`N` at most [`SHORT`]).
#[inline(always)]
fn quoted<const N: usize>(out: &mut Vec<u8>, text: &[u8; N]) {
    let mut quoted = [b'"'; SHORT + 2];
    quoted[1..=N].copy_from_slice(text);
    out.extend_from_slice(&quoted[..N + 2]);
}

/// The writer's walk with nothing written: it returns exactly the writer's refusals.
pub(super) struct Refusals;

impl Out for Refusals {
    const WRITES: bool = false;
    fn bytes(&mut self, _: &[u8]) {}
    fn byte(&mut self, _: u8) {}
    fn string(&mut self, _: &str) {}
    fn plain(&mut self, _: &[u8]) {}
    fn escaped(&mut self, _: &[u8]) {}
    fn integer(&mut self, _: u64) {}
    fn signed(&mut self, _: i64) {}
    fn number(&mut self, _: &serde_json::Number) {}
}

/// The writer's walk counting bytes instead of writing them: a string counts as its
/// length and quotes (escapes not counted), a number as the longest it could be written.
pub(super) struct Measure(pub(super) usize);

impl Out for Measure {
    const WRITES: bool = true;
    fn bytes(&mut self, bytes: &[u8]) {
        self.0 += bytes.len();
    }
    fn byte(&mut self, _: u8) {
        self.0 += 1;
    }
    fn string(&mut self, text: &str) {
        self.0 += text.len() + 2;
    }
    fn plain(&mut self, text: &[u8]) {
        self.0 += text.len() + 2;
    }
    fn escaped(&mut self, json: &[u8]) {
        self.0 += json.len();
    }
    fn integer(&mut self, _: u64) {
        self.0 += 20;
    }
    fn signed(&mut self, _: i64) {
        self.0 += 20;
    }
    fn number(&mut self, _: &serde_json::Number) {
        self.0 += 24;
    }
}

/// Writes `key` and the quoted name of `value`'s variant as one constant (`,"type":"text"`),
/// which the compiler stores inline. Each variant's name must be its `as_str` spelling
/// (`every_name_is_written_as_serde_writes_it` holds them equal); an arm that is no name
/// (an unknown value, refused) gives its own expression, after `else`.
///
/// With `then`, the constant goes on with the bytes that always follow it (the next key), so
/// that they are one store too: each piece written is a capacity check, a copy and a length
/// update (the recorder bench's `None` row: 5 pieces fewer an event, ~40 instructions).
macro_rules! vocabulary {
    ($out:expr, $value:expr, $key:literal, {
        $($variant:pat => $name:literal,)*
    } else $other:pat => $refused:expr) => {
        vocabulary!($out, $value, $key, { $($variant => $name,)* } then "" else $other => $refused)
    };
    ($out:expr, $value:expr, $key:literal, {
        $($variant:pat => $name:literal,)*
    } then $next:literal else $other:pat => $refused:expr) => {
        match $value {
            $($variant => $out.bytes(concat!($key, "\"", $name, "\"", $next).as_bytes()),)*
            $other => $refused,
        }
    };
}

/// `,"<name>":` and the string `text`, the key one constant: `field` with a name known
/// where it is written. `text` is evaluated first, as a call's argument is (a refusal in
/// it comes before the key is written).
macro_rules! field {
    ($out:expr, $name:literal, $text:expr) => {{
        let text: &str = $text;
        $out.bytes(concat!(",\"", $name, "\":").as_bytes());
        $out.string(text);
    }};
}

fn refuse(message: String) -> Refusal {
    Refusal::Value(serde_json::Error::custom(message))
}

/// Appends `event` as one JSON object. Nothing is rolled back on error: the caller truncates.
pub(super) fn event<O: Out>(event: &ExchangeEvent, out: &mut O) -> Result<(), Refusal> {
    envelope(event, None, out)
}

/// The run id's field as the writer writes it after `seq` (`,"run_id":"<id>"`): a
/// recorder's, made once when it opens the run, for [`event_in_run`].
pub(crate) fn run_id_field(run_id: &str) -> Box<[u8]> {
    let mut field = b",\"run_id\":".to_vec();
    escaped(&mut field, run_id);
    field.into_boxed_slice()
}

/// As [`event`], with the run id's field given already written ([`run_id_field`]) in place
/// of the event's own `run_id`: a recorder writes every event with its run's id, and
/// escaping that id for every line was a tenth of the writer's time on the recorder bench's
/// events (and lending the event the id, swapped in and out, more).
pub(super) fn event_in_run(
    event: &ExchangeEvent,
    run_id_field: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), Refusal> {
    envelope(event, Some(run_id_field), out)
}

/// [`event`]'s walk, the run id's field taken from `run_id_field` when it is given. Inlined
/// into both callers, so that neither tests which it is per event.
#[inline(always)]
fn envelope<O: Out>(
    event: &ExchangeEvent,
    run_id_field: Option<&[u8]>,
    out: &mut O,
) -> Result<(), Refusal> {
    // Every field named: a field added to the envelope does not compile until it is written
    // here (and in `Serialize for ExchangeEvent`, the other encoder).
    let ExchangeEvent {
        seq,
        run_id,
        parent_run_id,
        child_run_id,
        event_type,
        path,
        iteration,
        timestamp,
        payload: data,
    } = event;
    out.bytes(b"{\"seq\":");
    out.integer(*seq);
    match run_id_field {
        Some(field) => out.bytes(field),
        None => {
            out.bytes(b",\"run_id\":");
            out.string(run_id);
        }
    }
    if let Some(parent) = parent_run_id {
        out.bytes(b",\"parent_run_id\":");
        out.string(non_empty("parent_run_id", parent)?);
    }
    if let Some(child) = child_run_id {
        out.bytes(b",\"child_run_id\":");
        out.string(non_empty("child_run_id", child)?);
    }
    // The vocabulary's names with their key, each a constant the compiler stores inline (a
    // name copied from `as_str` took a call to memcpy and four capacity checks).
    vocabulary!(out, event_type, ",\"type\":", {
        EventType::RunStarted => "run.started",
        EventType::RunCompleted => "run.completed",
        EventType::StepStarted => "step.started",
        EventType::StepCompleted => "step.completed",
        EventType::CallWorkflowStarted => "step.call_workflow.started",
        EventType::CallWorkflowCompleted => "step.call_workflow.completed",
        EventType::MessageUser => "message.user",
        EventType::MessageAssistant => "message.assistant",
        EventType::ToolCall => "tool.call",
        EventType::ToolResult => "tool.result",
    } then ",\"path\":" else EventType::Unknown(name) => return Err(refuse(refusal::event_type(name))));
    out.string(path);
    out.bytes(b",\"iteration\":");
    out.integer(*iteration);
    out.bytes(b",\"timestamp\":");
    match timestamp.rfc3339_bytes() {
        Some(text) => out.plain(text),
        None => out.string(timestamp.as_str()),
    }
    payload(data, out)?;
    out.byte(b'}');
    Ok(())
}

/// `,"payload":` and the payload, the key written with the payload's first piece.
fn payload<O: Out>(payload: &Payload, out: &mut O) -> Result<(), Refusal> {
    match payload {
        Payload::None => out.bytes(b",\"payload\":null"),
        Payload::Message(message) => message_payload(message, out)?,
        Payload::Tool(tool) => tool_payload(tool, out)?,
        Payload::Step(step) => step_payload(step, out)?,
        Payload::Blocks(_) | Payload::Raw(_) | Payload::Malformed { .. } => {
            return Err(refuse(refusal::payload(payload.kind().as_str())));
        }
    }
    Ok(())
}

fn step_payload<O: Out>(step: &StepPayload, out: &mut O) -> Result<(), Refusal> {
    let StepPayload {
        name,
        kind,
        error,
        result,
        duration_ms,
    } = step;
    out.bytes(b",\"payload\":{\"name\":");
    out.string(name);
    out.bytes(b",\"kind\":");
    out.string(non_empty("kind", kind.as_str())?);
    if let Some(error) = error {
        out.bytes(b",\"error\":");
        out.string(non_empty("error", error)?);
    }
    if !result.is_null() {
        out.bytes(b",\"result\":");
        value(result, out, PAYLOAD_VALUE_LEVEL)?;
    }
    if let Some(duration_ms) = *duration_ms {
        out.bytes(b",\"duration_ms\":");
        out.integer(duration_ms);
    }
    out.byte(b'}');
    Ok(())
}

fn message_payload<O: Out>(message: &MessagePayload, out: &mut O) -> Result<(), Refusal> {
    let MessagePayload {
        role,
        blocks,
        message_id,
    } = message;
    vocabulary!(out, role, ",\"payload\":{\"role\":", {
        Role::User => "user",
        Role::Assistant => "assistant",
    } then ",\"blocks\":[" else Role::Unknown(role) => return Err(refuse(refusal::role(role))));
    for (index, block) in blocks.iter().enumerate() {
        if index > 0 {
            out.byte(b',');
        }
        content_block(block, out)?;
    }
    out.byte(b']');
    if let Some(id) = message_id {
        out.bytes(b",\"message_id\":");
        out.string(non_empty("message_id", id)?);
    }
    out.byte(b'}');
    Ok(())
}

fn tool_payload<O: Out>(tool: &ToolPayload, out: &mut O) -> Result<(), Refusal> {
    let ToolPayload {
        name,
        call_id,
        input,
        output,
        error,
        fidelity: seam,
        exit_code,
        duration_ms,
        agent_call_id,
    } = tool;
    out.bytes(b",\"payload\":{\"name\":");
    out.string(name);
    out.bytes(b",\"call_id\":");
    out.string(call_id);
    out.bytes(b",\"input\":");
    value(input, out, PAYLOAD_VALUE_LEVEL)?;
    out.bytes(b",\"output\":");
    tool_output(output, out, PAYLOAD_VALUE_LEVEL)?;
    if let Some(error) = error {
        out.bytes(b",\"error\":");
        text(non_empty_text("error", error)?, out);
    }
    fidelity(seam, out)?;
    if let Some(exit_code) = *exit_code {
        out.bytes(b",\"exit_code\":");
        out.signed(exit_code);
    }
    if let Some(duration_ms) = *duration_ms {
        out.bytes(b",\"duration_ms\":");
        out.integer(duration_ms);
    }
    if let Some(id) = agent_call_id {
        field!(out, "agent_call_id", non_empty("agent_call_id", id)?);
    }
    out.byte(b'}');
    Ok(())
}

pub(super) fn content_block<O: Out>(block: &ContentBlock, out: &mut O) -> Result<(), Refusal> {
    vocabulary!(out, &block.block, "{\"type\":", {
        Block::Text { .. } => "text",
        Block::Thinking { .. } => "thinking",
        Block::ToolUse { .. } => "tool_use",
        Block::ToolResult { .. } => "tool_result",
        Block::Command { .. } => "command",
        Block::Stream { .. } => "stream",
    } else Block::Unrecognized(unrecognized) => {
        return Err(refuse(unrecognized.reason.refusal()));
    });
    fidelity(&block.fidelity, out)?;
    match &block.block {
        Block::Text {
            text,
            citations,
            system_prompt,
        } => {
            field!(out, "text", text);
            if !citations.is_empty() {
                out.bytes(b",\"citations\":[");
                for (index, one) in citations.iter().enumerate() {
                    if index > 0 {
                        out.byte(b',');
                    }
                    citation(one, out)?;
                }
                out.byte(b']');
            }
            if *system_prompt {
                out.bytes(b",\"system_prompt\":true");
            }
        }
        Block::Thinking {
            thinking,
            signature,
            redacted,
        } => {
            field!(out, "thinking", thinking);
            if let Some(signature) = signature {
                field!(out, "signature", non_empty("signature", signature)?);
            }
            if *redacted {
                out.bytes(b",\"redacted\":true");
            }
        }
        Block::ToolUse {
            tool_name,
            tool_id,
            tool_input,
            server,
            incomplete,
            permission,
        } => {
            field!(out, "tool_name", tool_name);
            field!(out, "tool_id", tool_id);
            out.bytes(b",\"tool_input\":");
            value(tool_input, out, BLOCK_VALUE_LEVEL)?;
            if *server {
                out.bytes(b",\"server\":true");
            }
            if *incomplete {
                out.bytes(b",\"incomplete\":true");
            }
            if let Some(permission) = permission {
                out.bytes(b",\"permission\":");
                value(permission, out, BLOCK_VALUE_LEVEL)?;
            }
        }
        Block::ToolResult {
            tool_id,
            tool_content,
            is_error,
            exit_code,
        } => {
            field!(out, "tool_id", tool_id);
            out.bytes(b",\"tool_content\":");
            tool_output(tool_content, out, BLOCK_VALUE_LEVEL)?;
            if *is_error {
                out.bytes(b",\"is_error\":true");
            }
            if let Some(exit_code) = exit_code {
                out.bytes(b",\"exit_code\":");
                out.signed(*exit_code);
            }
        }
        Block::Command { command, tool_id } => {
            field!(out, "command", command);
            if let Some(tool_id) = tool_id {
                field!(out, "tool_id", non_empty("tool_id", tool_id)?);
            }
        }
        Block::Stream { chunk } => field!(out, "chunk", chunk),
        Block::Unrecognized(_) => unreachable!("refused above"),
    }
    out.byte(b'}');
    Ok(())
}

fn citation<O: Out>(citation: &Citation, out: &mut O) -> Result<(), Refusal> {
    out.bytes(b"{\"type\":");
    out.string(&citation.kind);
    for (name, text) in [
        ("url", &citation.url),
        ("title", &citation.title),
        ("file_id", &citation.file_id),
        ("filename", &citation.filename),
        ("cited_text", &citation.cited_text),
    ] {
        if let Some(text) = text {
            field(out, name, non_empty(name, text)?);
        }
    }
    if let Some(start) = citation.start_index {
        out.bytes(b",\"start_index\":");
        out.integer(start);
    }
    if let Some(end) = citation.end_index {
        out.bytes(b",\"end_index\":");
        out.integer(end);
    }
    if !citation.extra.is_empty() {
        out.bytes(b",\"extra\":");
        object(&citation.extra, out, CITATION_EXTRA_LEVEL)?;
    }
    out.byte(b'}');
    Ok(())
}

/// `,"fidelity":"<name>"`.
#[inline]
fn fidelity<O: Out>(fidelity: &Fidelity, out: &mut O) -> Result<(), Refusal> {
    vocabulary!(out, fidelity, ",\"fidelity\":", {
        Fidelity::Router => "router",
        Fidelity::AgentEmitted => "agent_emitted",
    } else Fidelity::Unknown(other) => return Err(refuse(refusal::fidelity(other))));
    Ok(())
}

fn non_empty<'a>(field: &str, text: &'a str) -> Result<&'a str, Refusal> {
    if text.is_empty() {
        Err(refuse(refusal::empty_optional(field)))
    } else {
        Ok(text)
    }
}

/// `text` when it is not empty, known without unescaping a text held as its JSON.
fn non_empty_text<'a>(field: &str, text: &'a Text) -> Result<&'a Text, Refusal> {
    if text.is_empty() {
        Err(refuse(refusal::empty_optional(field)))
    } else {
        Ok(text)
    }
}

/// A [`Text`]: one held as its JSON is that JSON, copied (its invariant: the writer's own
/// escaping of the string), any other its string, escaped.
#[inline]
fn text<O: Out>(text: &Text, out: &mut O) {
    match text.json() {
        Some(json) => out.escaped(json),
        None => out.string(text),
    }
}

/// `,"name":"text"`; field names are plain ASCII and need no escaping.
#[inline]
fn field(out: &mut impl Out, name: &str, text: &str) {
    out.bytes(b",\"");
    out.bytes(name.as_bytes());
    out.bytes(b"\":");
    out.string(text);
}

/// A tool's output: a string held as its JSON is that JSON, copied (its invariant: the
/// writer's own escaping of the string), any other output its value.
#[inline]
fn tool_output<O: Out>(output: &ToolOutput, out: &mut O, level: usize) -> Result<(), Refusal> {
    match output.json() {
        Some(json) => {
            out.escaped(json);
            Ok(())
        }
        None => value(output, out, level),
    }
}

/// Any JSON value at nesting `level` (the level its own array or object would be), as
/// serde_json writes it (map keys in the map's order). Only nesting past [`MAX_DEPTH`] is
/// refused: the decoder would refuse the line. An `Out` that does not write skips values
/// (the reader asks the writer only of lines it decoded, which nest no deeper).
fn value<O: Out>(value: &Value, out: &mut O, level: usize) -> Result<(), Refusal> {
    if !O::WRITES {
        return Ok(());
    }
    match value {
        Value::Null => out.bytes(b"null"),
        Value::Bool(true) => out.bytes(b"true"),
        Value::Bool(false) => out.bytes(b"false"),
        Value::Number(number) => {
            out.number(number);
        }
        Value::String(text) => out.string(text),
        Value::Array(items) => {
            if level > MAX_DEPTH {
                return Err(Refusal::TooDeep(level));
            }
            out.byte(b'[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.byte(b',');
                }
                self::value(item, out, level + 1)?;
            }
            out.byte(b']');
        }
        Value::Object(fields) => object(fields, out, level)?,
    }
    Ok(())
}

fn object<O: Out>(fields: &Map<String, Value>, out: &mut O, level: usize) -> Result<(), Refusal> {
    if !O::WRITES {
        return Ok(());
    }
    if level > MAX_DEPTH {
        return Err(Refusal::TooDeep(level));
    }
    out.byte(b'{');
    for (index, (key, item)) in fields.iter().enumerate() {
        if index > 0 {
            out.byte(b',');
        }
        out.string(key);
        out.byte(b':');
        value(item, out, level + 1)?;
    }
    out.byte(b'}');
    Ok(())
}

/// What serde_json writes after a backslash for each byte that must be escaped (0: none).
static ESCAPE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = b'u';
        byte += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0A] = b'n';
    table[0x0C] = b'f';
    table[0x0D] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

/// The bytes of an eight-byte word (little-endian: byte 0 lowest) that are control
/// characters, `"` or `\\`, as their high bits: the classic SWAR tests ("has less than",
/// "has zero byte"). Borrows can flag bytes above a real match, so only the lowest set bit
/// is exact, and that is the only one used.
#[inline]
pub(crate) fn escape_mask(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let control = word.wrapping_sub(ONES * 0x20) & !word;
    let quote = word ^ (ONES * u64::from(b'"'));
    let backslash = word ^ (ONES * u64::from(b'\\'));
    let quote = quote.wrapping_sub(ONES) & !quote;
    let backslash = backslash.wrapping_sub(ONES) & !backslash;
    (control | quote | backslash) & HIGHS
}

/// Each byte as the writer writes it inside a string, as the first bytes of a
/// little-endian word: itself, or its escape (`\\n`, `\\"`, `\\u001b`, ...).
static WRITTEN: [u64; 256] = {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut table = [0u64; 256];
    let mut byte = 0;
    while byte < 256 {
        table[byte] = match ESCAPE[byte] {
            0 => byte as u64,
            b'u' => u64::from_le_bytes([
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[byte >> 4],
                HEX[byte & 0xF],
                0,
                0,
            ]),
            escape => u64::from_le_bytes([b'\\', escape, 0, 0, 0, 0, 0, 0]),
        };
        byte += 1;
    }
    table
};

/// How many of [`WRITTEN`]'s bytes are each byte's: 1, 2 or 6.
static WRITTEN_LEN: [u8; 256] = {
    let mut table = [1u8; 256];
    let mut byte = 0;
    while byte < 256 {
        table[byte] = match ESCAPE[byte] {
            0 => 1,
            b'u' => 6,
            _ => 2,
        };
        byte += 1;
    }
    table
};

/// A JSON string: escaped exactly as serde_json escapes it. A short one with nothing to
/// escape (an id, a name, a path) is written by [`short`], without a call; any other eight
/// bytes at a time up to the first byte that needs an escape, so a string without one
/// (most prose) is copied whole.
///
/// The short path is inlined into [`Out::string`] and the long one is not: with both in
/// one function, every short string paid the long path's stack frame (its 400-byte run
/// buffer) and register saves.
#[inline]
fn escaped(out: &mut Vec<u8>, text: &str) {
    let bytes = text.as_bytes();
    if bytes.len() <= SHORT && short(out, bytes) {
        return;
    }
    escaped_long(out, bytes);
}

/// The longest string [`short`] writes: a UUID run id (36 bytes), a tool call id
/// (`toolu_` and 24 more), a path, a tool's name.
const SHORT: usize = 40;

/// The space [`short`] writes a string into before cutting it to length: its quotes and
/// [`SHORT`] bytes, rounded up to whole words.
const SHORT_SPAN: usize = 48;

/// Writes `bytes` (at most [`SHORT`]) between quotes when none of them needs an escape;
/// `false`, with nothing written, when one does. Every load and store is of a fixed size
/// (words read at fixed or overlapping places, the whole span stored, then the vector cut
/// to the string's length), so a short string costs no call to memcpy and no loop per
/// byte (copied by slice, a string under eight bytes took two calls to memcpy of a few
/// bytes each, a longer one one). The recorder bench's pairs row (six strings an event,
/// all short but the output): the writer 25.1M -> 22.5M instructions for 20,000 events
/// (callgrind); the Claude stream's writer 0.9% fewer, its whole pass unchanged.
#[inline(always)]
fn short(out: &mut Vec<u8>, bytes: &[u8]) -> bool {
    let len = bytes.len();
    let start = out.len();
    out.extend_from_slice(&[0; SHORT_SPAN]);
    let span: &mut [u8; SHORT_SPAN] = (&mut out[start..start + SHORT_SPAN])
        .try_into()
        .expect("the span just written");
    span[0] = b'"';
    let mut mask = 0;
    if len < 8 {
        let word = short_word(bytes);
        mask = escape_mask(word);
        span[1..9].copy_from_slice(&word.to_le_bytes());
    } else {
        let mut at = 0;
        while at + 8 <= len {
            let word = word_at(bytes, at);
            mask |= escape_mask(word);
            span[1 + at..9 + at].copy_from_slice(&word.to_le_bytes());
            at += 8;
        }
        if at < len {
            // The last bytes as a word that overlaps the one before (the same bytes in
            // the same places).
            let word = word_at(bytes, len - 8);
            mask |= escape_mask(word);
            span[len - 7..len + 1].copy_from_slice(&word.to_le_bytes());
        }
    }
    span[len + 1] = b'"';
    // A flag is only ever set at or above a byte that needs an escape, so none at all
    // means none needs one.
    if mask == 0 {
        out.truncate(start + len + 2);
        true
    } else {
        out.truncate(start);
        false
    }
}

/// The eight bytes at `at` of `bytes`, byte 0 lowest.
#[inline]
fn word_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("eight bytes"))
}

/// `bytes` (fewer than eight) as one word, byte 0 lowest, padded with spaces (which need no
/// escape and borrow nothing, so the mask of the word is the mask of the bytes), read as
/// two loads that overlap (the same bytes in the same places) rather than byte by byte.
#[inline]
fn short_word(bytes: &[u8]) -> u64 {
    const SPACES: u64 = u64::from_le_bytes([b' '; 8]);
    let len = bytes.len();
    let word = if len >= 4 {
        let low = u32::from_le_bytes(bytes[..4].try_into().expect("four bytes"));
        let high = u32::from_le_bytes(bytes[len - 4..].try_into().expect("four bytes"));
        u64::from(low) | u64::from(high) << ((len - 4) * 8)
    } else if len >= 2 {
        let low = u16::from_le_bytes(bytes[..2].try_into().expect("two bytes"));
        let high = u16::from_le_bytes(bytes[len - 2..].try_into().expect("two bytes"));
        u64::from(low) | u64::from(high) << ((len - 2) * 8)
    } else if len == 1 {
        u64::from(bytes[0])
    } else {
        0
    };
    word | SPACES << (len * 8)
}

/// [`escaped`]'s path for a string longer than [`SHORT`] or with an escape.
#[inline(never)]
fn escaped_long(out: &mut Vec<u8>, bytes: &[u8]) {
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let first = first_escape_long(bytes);
    out.extend_from_slice(&bytes[..first]);
    if first < bytes.len() {
        escaped_from(out, &bytes[first..]);
    }
    out.push(b'"');
}

/// [`first_escape`] sixteen bytes at a time, for the strings [`escaped_long`] writes (most
/// of them longer than [`SHORT`]): one SSE2 compare of each kind and a mask per block (the
/// `wide` crate's safe vectors), where a word of eight takes a
/// dozen scalar operations. The bytes after the last whole block are the last sixteen, a
/// block that overlaps the one before (found clean). The recorder bench's `None` event
/// (a 205-byte text): ~180 instructions -> ~95 for its scan and copy; measured on its own
/// over the bench's text, a 108-byte tool output and a 41-byte string, 371 -> 210 a string
/// (callgrind). Two blocks a test (32 bytes) took 204: not worth the longer code.
fn first_escape_long(bytes: &[u8]) -> usize {
    let len = bytes.len();
    if len < 16 {
        return first_escape(bytes);
    }
    let (blocks, _) = bytes.as_chunks::<16>();
    for (index, block) in blocks.iter().enumerate() {
        let mask = block_mask(block);
        if mask != 0 {
            return index * 16 + mask.trailing_zeros() as usize;
        }
    }
    if blocks.len() * 16 == len {
        return len;
    }
    let tail: &[u8; 16] = bytes[len - 16..].try_into().expect("sixteen bytes");
    match block_mask(tail) {
        0 => len,
        mask => len - 16 + mask.trailing_zeros() as usize,
    }
}

/// Bit `i` set when byte `i` of `block` needs an escape: a quote, a backslash or a control
/// character (below 0x20: the bytes whose minimum with 0x1f is themselves). The skims find
/// the end of a run of plain text with it too (`normalize::skim::text`).
#[inline(always)]
pub(crate) fn block_mask(block: &[u8; 16]) -> u32 {
    use wide::u8x16;
    let bytes = u8x16::new(*block);
    let quote = bytes.cmp_eq(u8x16::splat(b'"'));
    let backslash = bytes.cmp_eq(u8x16::splat(b'\\'));
    let control = bytes.min(u8x16::splat(0x1f)).cmp_eq(bytes);
    // The sixteen bits of the mask, as an unsigned number.
    (quote | backslash | control).move_mask() as u32 & 0xffff
}

/// Where the first byte that needs an escape is (`bytes.len()` when none does).
///
/// Every byte is tested eight at a time, the short ones too: a string under eight bytes is
/// one word padded with spaces, and the bytes after a string's last whole word are the
/// last eight bytes, a word that overlaps the one before (its first bytes were found clean,
/// so its lowest flag, the only exact one, is past them). Testing those bytes one at a time
/// was a fifth of an event's escaping (the recorder bench's events: ids, paths and names of
/// a few bytes each).
fn first_escape(bytes: &[u8]) -> usize {
    let len = bytes.len();
    if len < 8 {
        // Spaces need no escape and borrow nothing, so no flag is past the text's bytes but
        // above a real one.
        let mut word = [b' '; 8];
        word[..len].copy_from_slice(bytes);
        let mask = escape_mask(u64::from_le_bytes(word));
        return if mask == 0 {
            len
        } else {
            mask.trailing_zeros() as usize / 8
        };
    }
    let word_at = |at: usize| {
        let word: [u8; 8] = bytes[at..at + 8].try_into().expect("eight bytes");
        escape_mask(u64::from_le_bytes(word))
    };
    let mut at = 0;
    while at + 8 <= len {
        let mask = word_at(at);
        if mask != 0 {
            return at + mask.trailing_zeros() as usize / 8;
        }
        at += 8;
    }
    if at == len {
        return len;
    }
    let mask = word_at(len - 8);
    if mask == 0 {
        len
    } else {
        len - 8 + mask.trailing_zeros() as usize / 8
    }
}

/// The bytes [`escaped_from`] looks at together.
const RUN: usize = 64;

/// The escaping of text that has escapes: tool output, with one every dozen bytes or so
/// (newlines, quotes, backslashes, terminal colours). Sixty-four bytes at a time: a run
/// without an escape is copied whole; a run with one is written byte by byte from
/// [`WRITTEN`], every byte's eight-byte word stored and the next byte's written over its
/// tail, which takes no branch per byte. Jumping from escape to escape instead takes a
/// branch the processor cannot predict at every one, and a copy of a few bytes between
/// them: 1.3-1.6x slower on the generated Codex stream's strings, 1.1x on Claude's.
/// Storing a run's clean eight-byte words whole and only its other words byte by byte
/// (the words' masks kept from the run's test) did not pay either: 0.83-0.87x of this on
/// the Codex and OpenCode streams' strings when the machine was quiet, 1.02-1.25x only
/// under load; their tool output has an escape every few words (code's quotes and
/// backslashes, logs' colour codes), so the branch per word is taken unpredictably. Nor
/// did smaller or larger runs (16, 32, 128 bytes), a byte's length packed into its
/// [`WRITTEN`] word, or the bytes of a word before its first escape stored with it.
///
/// Nor did SIMD from a crate (this crate forbids `unsafe`). json-escape-simd 3.1
/// (escape-simd 0.1: sonic-rs's kernels with runtime AVX2 / AVX-512 detection, which covers
/// sonic-rs's own escaper) took 1.14-1.37x this escaper's share of the Codex and OpenCode
/// streams' canonical JSONL in the normalize bench, 1.06-1.38x of Claude's (perf samples
/// against simd-json's stage 1, the same work in every binary; runs alternated), and
/// 1.12-1.49x on Codex and OpenCode used only for strings of 64 bytes or more. Timed alone
/// on the streams' strings (thread CPU time) it took 0.5-0.8x this escaper's time in runs
/// where contention slowed this one, but 1.02-1.06x on Codex and OpenCode where this one
/// ran at full speed (1.3-1.4 GB/s); its AVX-512 kernel was no faster than its AVX2 one.
/// It also reads up to 31 bytes past a string's end (within the page), reserves six times
/// each string's length, and its sanitizer feature does not compile. simd-json's own
/// string writer (value-trait 0.12's generator, a jump from escape to escape) took
/// 1.04-1.38x this escaper's time on the same strings. A jump from escape to escape on
/// exact masks (each byte's flag exact, packed to a bit per byte; between escapes a whole
/// run's length copied and the excess written over, so no copy of variable length) took
/// 1.05-1.09x this escaper's time on the Codex and OpenCode strings where this one ran at
/// full speed.
///
/// Nor did copying the provider's own escaping of a string instead of escaping it again
/// (Codex's command outputs; `git show 7b5d7db`, reverted): its bytes found in the record
/// at the parser's in-place offset, its end and its escapes checked with memchr and
/// memmem, carried to the writer boxed and checked by length and hash. Timed alone on the
/// generated stream's outputs it took half of escaping's time (0.29 against 0.58 ns a byte),
/// but the normalize bench's Codex row measured 32.6% of simd-json against 34.4% before
/// (medians of ten alternated runs), and no better without the hash check: the copy is
/// made when the record is parsed and written a chunk later, and finding, boxing and
/// copying it out move as many bytes as the escaping saved. What paid instead is holding
/// those bytes as the output itself, with no text beside them ([`ToolOutput`]).
fn escaped_from(out: &mut Vec<u8>, bytes: &[u8]) {
    // A run's worst case (every byte a `\\u00XX`), and the last word's tail.
    let mut written = [0u8; RUN * 6 + 8];
    let mut runs = bytes.chunks_exact(RUN);
    for run in &mut runs {
        let needs_escape = run.chunks_exact(8).fold(0, |found, word| {
            found | escape_mask(u64::from_le_bytes(word.try_into().expect("eight bytes")))
        });
        if needs_escape == 0 {
            out.extend_from_slice(run);
        } else {
            let len = write_each(run, &mut written);
            out.extend_from_slice(&written[..len]);
        }
    }
    let len = write_each(runs.remainder(), &mut written);
    out.extend_from_slice(&written[..len]);
}

/// Writes each of `bytes` (at most [`RUN`]) as [`WRITTEN`] has it into `written`; returns
/// the length written.
fn write_each(bytes: &[u8], written: &mut [u8; RUN * 6 + 8]) -> usize {
    let mut len = 0;
    for &byte in bytes {
        written[len..len + 8].copy_from_slice(&WRITTEN[usize::from(byte)].to_le_bytes());
        len += usize::from(WRITTEN_LEN[usize::from(byte)]);
    }
    len
}

#[cfg(test)]
mod tests;
