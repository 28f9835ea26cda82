//! Spans onto the collector protocol: one `ExportTraceServiceRequest` (resource
//! `service.name = "axt"`, instrumentation scope `axt`), written in the protobuf JSON
//! mapping (OTLP/JSON: camelCase fields, hex trace and span ids, 64-bit integers as
//! strings, enums as numbers) or as protobuf. The generated types are opentelemetry-proto's;
//! nothing here encodes by hand.

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as ProtoValue;
use opentelemetry_proto::tonic::common::v1::{
    AnyValue, ArrayValue, InstrumentationScope, KeyValue,
};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::span::{Event as ProtoEvent, SpanKind as ProtoKind};
use opentelemetry_proto::tonic::trace::v1::status::StatusCode;
use opentelemetry_proto::tonic::trace::v1::{
    ResourceSpans, ScopeSpans, Span as ProtoSpan, Status as ProtoStatus,
};
use prost::Message;
use serde_json::Value;

use super::span::{AttrValue, Span, SpanKind, Status};

/// One request carrying `spans`.
pub fn request(spans: &[Span]) -> ExportTraceServiceRequest {
    let resource = Resource {
        attributes: vec![key_value("service.name", &AttrValue::Str("axt".into()))],
        ..Default::default()
    };
    let scope = InstrumentationScope {
        name: "axt".into(),
        ..Default::default()
    };
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            resource: Some(resource),
            scope_spans: vec![ScopeSpans {
                scope: Some(scope),
                spans: spans.iter().map(span).collect(),
                // No schema URL: the `gen_ai.*` names are still in development and belong
                // to no published schema version.
                schema_url: String::new(),
            }],
            schema_url: String::new(),
        }],
    }
}

/// The request as OTLP/JSON, pretty-printed, ending in a newline. Fields at their default
/// value are left out, as the protobuf JSON mapping does by default (the generated serde
/// writes every field; a receiver reads an absent field as its default either way).
pub fn to_json(request: &ExportTraceServiceRequest) -> Vec<u8> {
    let text = serde_json::to_vec(request).expect("OTLP messages serialize");
    let mut value: Ordered = serde_json::from_slice(&text).expect("serde_json reads its own");
    value.prune_defaults();
    let mut text = serde_json::to_vec_pretty(&value).expect("a JSON value serializes");
    text.push(b'\n');
    text
}

/// One request's OTLP/JSON written span by span, as the spans come: byte for byte what
/// [`to_json`] writes of the [`request`] of them all, without holding them. The request's
/// text around its spans is the same for every request (one resource, one scope): each span
/// is written as it stands in a request of its own ([`SpanText`]), its array's opening
/// written before the first and its closing after the last. Spans may be encoded elsewhere
/// (on the workers of a batch, [`SpanText::spans`]) and handed over as text
/// ([`JsonSpans::encoded`]).
pub struct JsonSpans<W: std::io::Write> {
    out: W,
    text: SpanText,
    spans: u64,
}

/// A span's text as it stands in a request's `spans` array ([`JsonSpans`]): what its own
/// request's OTLP/JSON holds between the text common to every request. Made once, used
/// from any thread.
#[derive(Clone, Debug)]
pub struct SpanText {
    /// The text of a request up to its first span (its `"spans": [` line), and after its last.
    head: Vec<u8>,
    tail: Vec<u8>,
}

impl Default for SpanText {
    fn default() -> SpanText {
        SpanText::new()
    }
}

impl SpanText {
    /// The text around the spans of a request.
    pub fn new() -> SpanText {
        let empty = to_json(&request(&[]));
        let at = find(&empty, b"\"spans\": []").expect("an empty request lists its spans");
        let line = empty[..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |n| n + 1);
        let indent = &empty[line..at];
        let open = at + b"\"spans\": [".len();
        let mut head = empty[..open].to_vec();
        head.push(b'\n');
        let mut tail = b"\n".to_vec();
        tail.extend_from_slice(indent);
        tail.extend_from_slice(&empty[open..]);
        SpanText { head, tail }
    }

    /// `span`'s text, appended to `out`.
    pub fn span(&self, span: &Span, out: &mut Vec<u8>) -> std::io::Result<()> {
        let text = to_json(&request(std::slice::from_ref(span)));
        let alone = (text.strip_prefix(self.head.as_slice()))
            .and_then(|rest| rest.strip_suffix(self.tail.as_slice()))
            .ok_or_else(|| std::io::Error::other("a span's OTLP/JSON is not where it belongs"))?;
        out.extend_from_slice(alone);
        Ok(())
    }

    /// The texts of `spans`, one after another as they stand in the array (`,` and a line
    /// break between two), for [`JsonSpans::encoded`].
    pub fn spans(&self, spans: &[Span]) -> std::io::Result<Vec<u8>> {
        let mut out = Vec::new();
        for (n, span) in spans.iter().enumerate() {
            if n > 0 {
                out.extend_from_slice(SEPARATOR);
            }
            self.span(span, &mut out)?;
        }
        Ok(out)
    }
}

/// What stands between two spans of the array.
const SEPARATOR: &[u8] = b",\n";

impl<W: std::io::Write> JsonSpans<W> {
    /// A request written to `out`; nothing is written before the first span or [`finish`].
    ///
    /// [`finish`]: JsonSpans::finish
    pub fn new(out: W) -> JsonSpans<W> {
        JsonSpans::with_text(out, SpanText::new())
    }

    /// [`JsonSpans::new`] with the span text already made (the one the spans were
    /// encoded with elsewhere).
    pub fn with_text(out: W, text: SpanText) -> JsonSpans<W> {
        JsonSpans {
            out,
            text,
            spans: 0,
        }
    }

    /// Writes the next span.
    pub fn span(&mut self, span: &Span) -> std::io::Result<()> {
        let mut text = Vec::new();
        self.text.span(span, &mut text)?;
        self.encoded(&text, 1)
    }

    /// Writes the next `count` spans, given as [`SpanText::spans`] made them (nothing
    /// when `count` is 0).
    pub fn encoded(&mut self, text: &[u8], count: u64) -> std::io::Result<()> {
        if count == 0 {
            return Ok(());
        }
        if self.spans == 0 {
            self.out.write_all(&self.text.head)?;
        } else {
            self.out.write_all(SEPARATOR)?;
        }
        self.spans += count;
        self.out.write_all(text)
    }

    /// Ends the request (a request of no span when none was written); returns the writer.
    pub fn finish(mut self) -> std::io::Result<W> {
        if self.spans == 0 {
            self.out.write_all(&to_json(&request(&[])))?;
        } else {
            self.out.write_all(&self.text.tail)?;
        }
        Ok(self.out)
    }
}

/// Where `needle` first is in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The message fields the generated serde writes even at their default value.
const OMITTED_AT_DEFAULT: [&str; 15] = [
    "traceState",
    "flags",
    "parentSpanId",
    "droppedAttributesCount",
    "droppedEventsCount",
    "droppedLinksCount",
    "events",
    "links",
    "schemaUrl",
    "entityRefs",
    "version",
    "attributes",
    "message",
    "code",
    "status",
];

/// A JSON value that keeps its objects' field order (the crate's `serde_json` sorts keys),
/// so the output reads in the order of the protocol's messages.
enum Ordered {
    Object(Vec<(String, Ordered)>),
    Array(Vec<Ordered>),
    Scalar(Value),
}

impl Ordered {
    fn is_default(&self) -> bool {
        match self {
            Ordered::Object(fields) => fields.is_empty(),
            Ordered::Array(items) => items.is_empty(),
            Ordered::Scalar(Value::String(text)) => text.is_empty(),
            Ordered::Scalar(Value::Number(n)) => n.as_u64() == Some(0),
            Ordered::Scalar(_) => false,
        }
    }

    fn prune_defaults(&mut self) {
        match self {
            Ordered::Object(fields) => {
                fields.iter_mut().for_each(|(_, v)| v.prune_defaults());
                fields.retain(|(key, value)| {
                    !(value.is_default() && OMITTED_AT_DEFAULT.contains(&key.as_str()))
                });
            }
            Ordered::Array(items) => items.iter_mut().for_each(Ordered::prune_defaults),
            Ordered::Scalar(_) => {}
        }
    }
}

impl serde::Serialize for Ordered {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match self {
            Ordered::Object(fields) => {
                let mut map = serializer.serialize_map(Some(fields.len()))?;
                for (key, value) in fields {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
            Ordered::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Ordered::Scalar(value) => value.serialize(serializer),
        }
    }
}

impl<'de> serde::Deserialize<'de> for Ordered {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::{MapAccess, SeqAccess, Visitor};
        struct OrderedVisitor;
        impl<'de> Visitor<'de> for OrderedVisitor {
            type Value = Ordered;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("JSON")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(Value::Bool(v)))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(Value::from(v)))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(Value::from(v)))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(Value::from(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(Value::String(v.to_owned())))
            }
            fn visit_unit<E>(self) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(Value::Null))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Ordered, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Ordered::Array(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Ordered, A::Error> {
                let mut fields = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    fields.push(entry);
                }
                Ok(Ordered::Object(fields))
            }
        }
        deserializer.deserialize_any(OrderedVisitor)
    }
}

/// The request as protobuf (OTLP/HTTP's default body).
pub fn to_protobuf(request: &ExportTraceServiceRequest) -> Vec<u8> {
    request.encode_to_vec()
}

fn span(span: &Span) -> ProtoSpan {
    let (code, message) = match &span.status {
        Status::Unset => (StatusCode::Unset, String::new()),
        Status::Error(message) => (StatusCode::Error, message.clone()),
    };
    ProtoSpan {
        trace_id: span.trace_id.0.to_vec(),
        span_id: span.span_id.0.to_vec(),
        parent_span_id: span
            .parent_span_id
            .map(|p| p.0.to_vec())
            .unwrap_or_default(),
        name: span.name.clone(),
        kind: match span.kind {
            SpanKind::Internal => ProtoKind::Internal,
            SpanKind::Client => ProtoKind::Client,
        } as i32,
        start_time_unix_nano: span.start_unix_nano,
        end_time_unix_nano: span.end_unix_nano,
        attributes: span
            .attributes
            .iter()
            .map(|(key, value)| key_value(key, value))
            .collect(),
        status: Some(ProtoStatus {
            message,
            code: code as i32,
        }),
        events: span
            .events
            .iter()
            .map(|event| ProtoEvent {
                time_unix_nano: event.time_unix_nano,
                name: event.name.clone(),
                attributes: event
                    .attributes
                    .iter()
                    .map(|(key, value)| key_value(key, value))
                    .collect(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

fn key_value(key: &str, value: &AttrValue) -> KeyValue {
    KeyValue {
        key: key.to_owned(),
        value: Some(any_value(value)),
        ..Default::default()
    }
}

fn any_value(value: &AttrValue) -> AnyValue {
    let value = match value {
        AttrValue::Str(text) => ProtoValue::StringValue(text.clone()),
        AttrValue::Int(n) => ProtoValue::IntValue(*n),
        AttrValue::Double(x) => ProtoValue::DoubleValue(*x),
        AttrValue::Bool(b) => ProtoValue::BoolValue(*b),
        AttrValue::StrArray(items) => ProtoValue::ArrayValue(ArrayValue {
            values: items
                .iter()
                .map(|item| AnyValue {
                    value: Some(ProtoValue::StringValue(item.clone())),
                })
                .collect(),
        }),
    };
    AnyValue { value: Some(value) }
}
