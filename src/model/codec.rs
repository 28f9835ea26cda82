//! Decoding one transcript line, and encoding one event strictly.
//!
//! [`decode_event`] is the tolerant reader's unit: a line either decodes (unknown types and
//! malformed blocks included; [`warnings`] lists them) or fails with a [`DecodeError`] that
//! says where and in which category. [`encode_event`] is the strict writer's unit: it refuses
//! anything the vocabulary does not allow before a byte is written.

use std::fmt;

use serde_json::error::Category;

use super::block::{Block, Fidelity, UnrecognizedReason};
use super::event::{EventType, ExchangeEvent};
use super::payload::{Payload, PayloadKind, Role};
use super::timestamp::TimestampError;

/// Why a line is not an event. Positions are 1-based and relative to the line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{category}: {message} at line {line} column {column}")]
pub struct DecodeError {
    category: DecodeCategory,
    line: usize,
    column: usize,
    message: String,
}

/// The kinds of [`DecodeError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DecodeCategory {
    /// The bytes are not UTF-8; the column is the byte offset of the first bad byte, plus 1.
    InvalidUtf8,
    /// The JSON ends before it is complete: the line was cut (a torn write, a truncated file).
    Truncated,
    /// Not JSON, or JSON followed by something else.
    Syntax,
    /// Valid JSON that is not an event: a required field is missing or has the wrong type.
    Data,
    /// Nesting deeper than [`MAX_DEPTH`](super::MAX_DEPTH) levels (serde_json's
    /// recursion limit).
    TooDeep,
}

impl DecodeCategory {
    /// Short kebab-case name, stable for machine-readable reports.
    pub fn as_str(self) -> &'static str {
        match self {
            DecodeCategory::InvalidUtf8 => "invalid-utf8",
            DecodeCategory::Truncated => "truncated",
            DecodeCategory::Syntax => "invalid-json",
            DecodeCategory::Data => "not-an-event",
            DecodeCategory::TooDeep => "too-deep",
        }
    }
}

impl fmt::Display for DecodeCategory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl DecodeError {
    /// What kind of problem it is.
    pub fn category(&self) -> DecodeCategory {
        self.category
    }

    /// 1-based line within the decoded text (always 1 for a single JSONL line).
    pub fn line(&self) -> usize {
        self.line
    }

    /// 1-based column (in bytes) where the problem was found.
    pub fn column(&self) -> usize {
        self.column
    }

    /// Whether more bytes could complete the input: the streaming retry signal, as
    /// `serde_json::Error::is_eof`.
    pub fn is_eof(&self) -> bool {
        self.category == DecodeCategory::Truncated
    }

    /// The description without position.
    pub fn message(&self) -> &str {
        &self.message
    }

    fn from_json(error: serde_json::Error) -> Self {
        let text = error.to_string();
        // serde_json appends " at line L column C"; keep the description alone.
        let message = match text.rfind(" at line ") {
            Some(at) => text[..at].to_owned(),
            None => text,
        };
        let category = match error.classify() {
            Category::Eof => DecodeCategory::Truncated,
            Category::Data => DecodeCategory::Data,
            Category::Syntax if message == "recursion limit exceeded" => DecodeCategory::TooDeep,
            Category::Syntax | Category::Io => DecodeCategory::Syntax,
        };
        DecodeError {
            category,
            line: error.line(),
            column: error.column(),
            message,
        }
    }
}

/// Decodes one transcript line (without its line terminator).
///
/// Unknown event types, unknown block types and malformed payloads do not fail the line:
/// they are kept in the value and listed by [`warnings`].
pub fn decode_event(line: &[u8]) -> Result<ExchangeEvent, DecodeError> {
    let text = std::str::from_utf8(line).map_err(|error| {
        let offset = error.valid_up_to();
        let line_number = 1 + line[..offset].iter().filter(|b| **b == b'\n').count();
        let line_start = line[..offset]
            .iter()
            .rposition(|b| *b == b'\n')
            .map_or(0, |at| at + 1);
        DecodeError {
            category: DecodeCategory::InvalidUtf8,
            line: line_number,
            column: offset - line_start + 1,
            message: format!("invalid UTF-8 at byte {offset}"),
        }
    })?;
    if !text.trim_start().starts_with('{') {
        // Not an event; but say "not JSON" for a banner line that happens to start with `[`,
        // and "not an event" only for JSON that is not an object.
        serde_json::from_str::<serde::de::IgnoredAny>(text).map_err(DecodeError::from_json)?;
    }
    serde_json::from_str(text).map_err(DecodeError::from_json)
}

/// Something a tolerant reader kept but a caller may want to know about: the Rust
/// counterpart of the seed's `ErrUnknownEventType` and `ErrUnknownBlockType`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeWarning {
    /// The event's type is outside the vocabulary.
    UnknownEventType(String),
    /// A block's type is outside the vocabulary; `index` is its position in the payload.
    UnknownBlockType {
        /// Position of the block in the payload's block list.
        index: usize,
        /// The type it declared.
        block_type: String,
    },
    /// A block could not be read as its declared type.
    MalformedBlock {
        /// Position of the block in the payload's block list.
        index: usize,
        /// What was wrong.
        reason: String,
    },
    /// A fidelity outside the vocabulary, or none; `block` is `None` for a tool payload.
    UnknownFidelity {
        /// Position of the block, or `None` for the tool payload's own fidelity.
        block: Option<usize>,
        /// The value read (empty when missing).
        fidelity: String,
    },
    /// A message role outside the vocabulary.
    UnknownRole(String),
    /// The payload named a known shape but did not fit it.
    MalformedPayload {
        /// The shape its keys selected.
        expected: PayloadKind,
        /// What did not fit.
        reason: String,
    },
}

impl fmt::Display for DecodeWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeWarning::UnknownEventType(name) => write!(f, "unknown event type {name:?}"),
            DecodeWarning::UnknownBlockType { index, block_type } => {
                write!(f, "block {index}: unknown block type {block_type:?}")
            }
            DecodeWarning::MalformedBlock { index, reason } => {
                write!(f, "block {index}: malformed: {reason}")
            }
            DecodeWarning::UnknownFidelity { block, fidelity } => {
                let what = match block {
                    Some(index) => format!("block {index}"),
                    None => "tool payload".to_owned(),
                };
                if fidelity.is_empty() {
                    write!(f, "{what}: no fidelity")
                } else {
                    write!(f, "{what}: unknown fidelity {fidelity:?}")
                }
            }
            DecodeWarning::UnknownRole(role) => write!(f, "unknown message role {role:?}"),
            DecodeWarning::MalformedPayload { expected, reason } => {
                write!(f, "malformed {} payload: {reason}", expected.as_str())
            }
        }
    }
}

impl DecodeWarning {
    /// Short kebab-case name, stable for machine-readable reports.
    pub fn kind(&self) -> &'static str {
        match self {
            DecodeWarning::UnknownEventType(_) => "unknown-event-type",
            DecodeWarning::UnknownBlockType { .. } => "unknown-block-type",
            DecodeWarning::MalformedBlock { .. } => "malformed-block",
            DecodeWarning::UnknownFidelity { .. } => "unknown-fidelity",
            DecodeWarning::UnknownRole(_) => "unknown-role",
            DecodeWarning::MalformedPayload { .. } => "malformed-payload",
        }
    }
}

/// Everything a tolerant decode kept that is outside the vocabulary, in payload order.
pub fn warnings(event: &ExchangeEvent) -> Vec<DecodeWarning> {
    let mut found = Vec::new();
    if let EventType::Unknown(name) = &event.event_type {
        found.push(DecodeWarning::UnknownEventType(name.clone()));
    }
    match &event.payload {
        Payload::Message(message) => {
            if let Role::Unknown(role) = &message.role {
                found.push(DecodeWarning::UnknownRole(role.clone()));
            }
        }
        Payload::Tool(tool) => {
            if let Fidelity::Unknown(fidelity) = &tool.fidelity {
                let fidelity = fidelity.clone();
                found.push(DecodeWarning::UnknownFidelity {
                    block: None,
                    fidelity,
                });
            }
        }
        Payload::Malformed {
            expected, reason, ..
        } => {
            let (expected, reason) = (*expected, reason.clone());
            found.push(DecodeWarning::MalformedPayload { expected, reason });
        }
        _ => {}
    }
    for (index, block) in event.payload.blocks().iter().enumerate() {
        match &block.block {
            Block::Unrecognized(unrecognized) => match &unrecognized.reason {
                UnrecognizedReason::UnknownType(block_type) => {
                    let block_type = block_type.clone();
                    found.push(DecodeWarning::UnknownBlockType { index, block_type });
                }
                UnrecognizedReason::Malformed(reason) => {
                    let reason = reason.clone();
                    found.push(DecodeWarning::MalformedBlock { index, reason });
                }
            },
            _ => {
                if let Fidelity::Unknown(fidelity) = &block.fidelity {
                    let fidelity = fidelity.clone();
                    found.push(DecodeWarning::UnknownFidelity {
                        block: Some(index),
                        fidelity,
                    });
                }
            }
        }
    }
    found
}

/// Why the strict writer refused an event.
#[derive(Debug, thiserror::Error)]
pub enum EncodeError {
    /// `seq` is 0: sequence numbers start at 1 and come from the recorder.
    #[error("seq must be at least 1 (the recorder assigns it)")]
    NoSeq,
    /// `run_id` is empty.
    #[error("run_id must not be empty")]
    EmptyRunId,
    /// The event type is outside the vocabulary.
    #[error("event type {0:?} is not in the vocabulary")]
    UnknownEventType(String),
    /// The timestamp is not RFC 3339.
    #[error(transparent)]
    InvalidTimestamp(#[from] TimestampError),
    /// The payload shape does not belong to the event type.
    #[error("a {event_type} event carries a {expected} payload, not {}", found.as_str())]
    PayloadMismatch {
        /// The event's type.
        event_type: EventType,
        /// What it carries.
        found: PayloadKind,
        /// What the schema allows for that type.
        expected: &'static str,
    },
    /// A message event's role does not match its type.
    #[error("a {event_type} event carries role {role:?}")]
    RoleMismatch {
        /// The event's type.
        event_type: EventType,
        /// The role found.
        role: String,
    },
    /// `child_run_id` is missing on a call_workflow event, or present on another type.
    #[error("child_run_id belongs on step.call_workflow.* events and only there ({0})")]
    ChildRunLink(EventType),
    /// A field failed to serialize: an unknown block type or fidelity, an empty optional.
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    /// The line would be longer than [`MAX_LINE_BYTES`](super::MAX_LINE_BYTES): a reader
    /// would skip it. [`fit_event`](super::fit_event) cuts an event to fit.
    #[error(
        "the line would be {bytes} bytes, over the transcript's limit of {} bytes",
        super::limits::MAX_LINE_BYTES
    )]
    TooLong {
        /// The line's length.
        bytes: usize,
    },
    /// A value nests deeper than [`MAX_DEPTH`](super::MAX_DEPTH) levels: a reader would
    /// refuse the line. [`fit_event`](super::fit_event) cuts an event to fit.
    #[error(
        "a value nests {level} levels deep, deeper than the transcript's limit of {}",
        super::limits::MAX_DEPTH
    )]
    TooDeep {
        /// The level of the first container past the limit.
        level: usize,
    },
}

impl EncodeError {
    /// Whether the event is refused only for not fitting in a line (too long, too deep):
    /// [`fit_event`](super::fit_event) makes it writable.
    pub fn is_over_limit(&self) -> bool {
        matches!(
            self,
            EncodeError::TooLong { .. } | EncodeError::TooDeep { .. }
        )
    }
}

impl From<super::write::Refusal> for EncodeError {
    fn from(refusal: super::write::Refusal) -> Self {
        match refusal {
            super::write::Refusal::Value(error) => EncodeError::Json(error),
            super::write::Refusal::TooDeep(level) => EncodeError::TooDeep { level },
        }
    }
}

/// Checks `event` against the vocabulary and the transcript's limits and appends its JSON
/// (no line terminator) to `out`: a line longer than [`MAX_LINE_BYTES`](super::MAX_LINE_BYTES)
/// or nesting deeper than [`MAX_DEPTH`](super::MAX_DEPTH) is refused, as a reader would
/// refuse it ([`fit_event`](super::fit_event) cuts an event to fit first).
///
/// On error nothing is appended.
pub fn encode_event(event: &ExchangeEvent, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    validate(event)?;
    let start = out.len();
    let written = super::write::event(event, out);
    line_written(out, start, written)
}

/// The line the writer appended to `out` from `start` (or refused), checked against the
/// transcript's line limit: on a refusal or a line too long, `out` is as it was.
fn line_written(
    out: &mut Vec<u8>,
    start: usize,
    written: Result<(), super::write::Refusal>,
) -> Result<(), EncodeError> {
    if let Err(refusal) = written {
        out.truncate(start);
        return Err(refusal.into());
    }
    let bytes = out.len() - start;
    if bytes > super::limits::MAX_LINE_BYTES {
        out.truncate(start);
        return Err(EncodeError::TooLong { bytes });
    }
    Ok(())
}

/// About how many bytes [`encode_event`] writes for `event`: the writer's walk, counting
/// each string's bytes as they are (not escaped) and each number as the longest it could
/// be. Much cheaper than encoding (nothing is copied or escaped), for a writer that bounds
/// the events it holds by their size (the importer's batches). For an event the writer
/// refuses, what the walk counted up to the refusal.
pub(crate) fn size_hint(event: &ExchangeEvent) -> usize {
    let mut measure = super::write::Measure(0);
    let _ = super::write::event(event, &mut measure);
    measure.0
}

/// Whether [`encode_event`] would write `event`, without writing it: [`validate`], then the
/// writer's own walk over the event with its output discarded, so its refusals (an empty
/// optional field, an unknown fidelity, ...) are the writer's and cannot drift from it.
/// Much cheaper than encoding: no string is escaped, no value is visited (none is refused).
pub fn check_encodable(event: &ExchangeEvent) -> Result<(), EncodeError> {
    validate(event)?;
    Ok(super::write::event(event, &mut super::write::Refusals)?)
}

/// As [`encode_event`], for a recorder: the event is written with its run's id, given as
/// its field already written (`super::write::run_id_field`), whatever its own `run_id`
/// (which is not read). The same line, refused for the same reasons, as `encode_event` of
/// the event holding the run's id.
pub(crate) fn encode_in_run(
    event: &ExchangeEvent,
    run_id_field: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), EncodeError> {
    if event.seq == 0 {
        return Err(EncodeError::NoSeq);
    }
    validate_after_run_id(event)?;
    let start = out.len();
    let written = super::write::event_in_run(event, run_id_field, out);
    line_written(out, start, written)
}

/// The checks of [`encode_event`] that serialization alone does not make.
pub fn validate(event: &ExchangeEvent) -> Result<(), EncodeError> {
    if event.seq == 0 {
        return Err(EncodeError::NoSeq);
    }
    if event.run_id.is_empty() {
        return Err(EncodeError::EmptyRunId);
    }
    validate_after_run_id(event)
}

/// [`validate`]'s checks after `seq` and `run_id`'s, in its order. Inlined into both
/// callers: a recorder checks every event it writes.
#[inline]
fn validate_after_run_id(event: &ExchangeEvent) -> Result<(), EncodeError> {
    event.timestamp.check()?;
    let kind = event.payload.kind();
    let malformed = matches!(event.payload, Payload::Malformed { .. });
    let (fits, expected) = match &event.event_type {
        EventType::Unknown(name) => return Err(EncodeError::UnknownEventType(name.clone())),
        EventType::RunStarted | EventType::RunCompleted => (
            matches!(kind, PayloadKind::None | PayloadKind::Step),
            "step payload or null",
        ),
        EventType::StepStarted
        | EventType::StepCompleted
        | EventType::CallWorkflowStarted
        | EventType::CallWorkflowCompleted => (kind == PayloadKind::Step, "step"),
        EventType::MessageUser | EventType::MessageAssistant => {
            (kind == PayloadKind::Message, "message")
        }
        EventType::ToolCall | EventType::ToolResult => (kind == PayloadKind::Tool, "tool"),
    };
    if !fits || malformed {
        return Err(EncodeError::PayloadMismatch {
            event_type: event.event_type.clone(),
            found: if malformed { PayloadKind::Raw } else { kind },
            expected,
        });
    }
    if let Payload::Message(message) = &event.payload {
        let role_fits = match event.event_type {
            EventType::MessageUser => message.role == Role::User,
            _ => message.role == Role::Assistant,
        };
        if !role_fits {
            return Err(EncodeError::RoleMismatch {
                event_type: event.event_type.clone(),
                role: message.role.as_str().to_owned(),
            });
        }
    }
    let is_call_workflow = matches!(
        event.event_type,
        EventType::CallWorkflowStarted | EventType::CallWorkflowCompleted
    );
    if is_call_workflow != event.child_run_id.is_some() {
        return Err(EncodeError::ChildRunLink(event.event_type.clone()));
    }
    Ok(())
}
