//! A finished span as the mapper hands it on: the OTLP span's fields, in plain types, so
//! that mapping needs none of the protocol's crates (the encoding file, `encode.rs`, converts).

use super::ids::{SpanId, TraceId};

/// One finished span.
#[derive(Clone, Debug, PartialEq)]
pub struct Span {
    /// The trace it belongs to: the root run's.
    pub trace_id: TraceId,
    /// Its own id.
    pub span_id: SpanId,
    /// The span it is under; `None` for the root run's span.
    pub parent_span_id: Option<SpanId>,
    /// `invoke_agent claude`, `chat claude-sonnet-4-6`, `execute_tool Bash`, a step's name.
    pub name: String,
    /// OTLP's span kind.
    pub kind: SpanKind,
    /// Start, nanoseconds since the Unix epoch.
    pub start_unix_nano: u64,
    /// End, nanoseconds since the Unix epoch; never before the start.
    pub end_unix_nano: u64,
    /// Attributes in the order the mapper set them.
    pub attributes: Vec<(String, AttrValue)>,
    /// How it ended.
    pub status: Status,
    /// Its events (a tool call's decision, an inference's content details), in time order.
    pub events: Vec<SpanEvent>,
}

/// An event on a span.
#[derive(Clone, Debug, PartialEq)]
pub struct SpanEvent {
    /// Its name (`gen_ai.tool.call.decision`).
    pub name: String,
    /// When, nanoseconds since the Unix epoch.
    pub time_unix_nano: u64,
    /// Its attributes.
    pub attributes: Vec<(String, AttrValue)>,
}

/// OTLP's span kinds that axt uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpanKind {
    /// Work inside the agent or the executor (runs, steps, tool calls).
    Internal,
    /// A call out to a model provider (`chat`).
    Client,
}

/// An attribute value.
#[derive(Clone, Debug, PartialEq)]
pub enum AttrValue {
    /// A string.
    Str(String),
    /// A signed integer.
    Int(i64),
    /// A floating-point number.
    Double(f64),
    /// A boolean.
    Bool(bool),
    /// An array of strings.
    StrArray(Vec<String>),
}

/// A span's status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// Left unset: the convention for work that did not fail.
    Unset,
    /// Failed, with the transcript's error text.
    Error(String),
}

impl Span {
    /// The value of the attribute `key`, if set.
    pub fn attribute(&self, key: &str) -> Option<&AttrValue> {
        self.attributes
            .iter()
            .find(|(name, _)| name == key)
            .map(|(_, value)| value)
    }
}

/// Attribute list building, for the mapper.
#[derive(Default)]
pub(super) struct Attrs(pub(super) Vec<(String, AttrValue)>);

impl Attrs {
    pub(super) fn str(&mut self, key: &str, value: impl Into<String>) {
        self.0.push((key.to_owned(), AttrValue::Str(value.into())));
    }

    pub(super) fn opt_str(&mut self, key: &str, value: Option<&str>) {
        if let Some(value) = value.filter(|v| !v.is_empty()) {
            self.str(key, value);
        }
    }

    pub(super) fn int(&mut self, key: &str, value: i64) {
        self.0.push((key.to_owned(), AttrValue::Int(value)));
    }

    pub(super) fn uint(&mut self, key: &str, value: u64) {
        self.int(key, i64::try_from(value).unwrap_or(i64::MAX));
    }

    pub(super) fn double(&mut self, key: &str, value: f64) {
        self.0.push((key.to_owned(), AttrValue::Double(value)));
    }

    pub(super) fn bool(&mut self, key: &str, value: bool) {
        self.0.push((key.to_owned(), AttrValue::Bool(value)));
    }

    pub(super) fn strs(&mut self, key: &str, values: Vec<String>) {
        self.0.push((key.to_owned(), AttrValue::StrArray(values)));
    }

    /// Sets `key`, replacing an earlier value.
    pub(super) fn set(&mut self, key: &str, value: AttrValue) {
        match self.0.iter_mut().find(|(name, _)| name == key) {
            Some((_, old)) => *old = value,
            None => self.0.push((key.to_owned(), value)),
        }
    }
}
