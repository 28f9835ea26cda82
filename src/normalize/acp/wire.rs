//! The record shapes of a captured ACP exchange: one JSON-RPC 2.0 message a line, bare or
//! inside a direction wrapper, and the tables of the fields each shape has.
//!
//! This room owns the wire's vocabulary: which side sends which method, how a wrapper is
//! read, the ACP field names of the objects the other rooms read, and the shape of an item
//! and a problem at a record. It holds no state and hands out nothing.

use serde::Deserialize;
use serde_json::Value;

use crate::model::Timestamp;
use crate::normalize::framing::Record;
use crate::normalize::json::{Borrowed, RecordShape};
use crate::normalize::report::{Fields, Kind};
use crate::normalize::{Diagnostic, DiagnosticKind, Source};

/// Which side of an ACP connection sent a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// The client (an editor; `axt exec --acp`).
    Client,
    /// The agent.
    Agent,
}

impl Side {
    pub(super) fn other(self) -> Side {
        match self {
            Side::Client => Side::Agent,
            Side::Agent => Side::Client,
        }
    }

    /// A wrapper's `direction`, when it names the sender: `client_to_agent` (axt's own
    /// recording, `axt exec --acp`) or `agent_to_client`. A direction relative to whoever
    /// logged (`incoming`, `outgoing`) does not, and the message is read unwrapped.
    pub(super) fn of_direction(direction: &str) -> Option<Side> {
        match direction {
            "client_to_agent" => Some(Side::Client),
            "agent_to_client" => Some(Side::Agent),
            _ => None,
        }
    }

    /// The wrapper's spelling of a message this side sent.
    pub fn direction(self) -> &'static str {
        match self {
            Side::Client => "client_to_agent",
            Side::Agent => "agent_to_client",
        }
    }
}

/// One line of a recorded exchange: `message` (a JSON-RPC message, one line, without its line
/// feed) in the direction wrapper, stamped with `time`, and its line feed. A line that is no
/// JSON object (a log line an agent wrote on stdout) is recorded as it is: the wrapper would
/// not be JSON, and the adapter reports it either way.
pub fn wrap(side: Side, message: &[u8], time: &Timestamp) -> Vec<u8> {
    let message = message.trim_ascii();
    let mut line = Vec::with_capacity(message.len() + 96);
    if message.starts_with(b"{") {
        line.extend_from_slice(b"{\"direction\":\"");
        line.extend_from_slice(side.direction().as_bytes());
        line.extend_from_slice(b"\",\"timestamp\":");
        line.extend_from_slice(
            serde_json::to_string(time.as_str())
                .unwrap_or_default()
                .as_bytes(),
        );
        line.extend_from_slice(b",\"message\":");
        line.extend_from_slice(message);
        line.push(b'}');
    } else {
        line.extend_from_slice(message);
    }
    line.push(b'\n');
    line
}

/// Who sends requests and notifications of `method`: the protocol fixes it. `None` for a
/// method ACP does not define (an extension's `_vendor/...`, a later version's).
pub(super) fn sender_of(method: &str) -> Option<Side> {
    match method {
        "initialize"
        | "authenticate"
        | "logout"
        | "session/new"
        | "session/load"
        | "session/resume"
        | "session/prompt"
        | "session/cancel"
        | "session/set_mode"
        | "session/set_model"
        | "session/set_config_option"
        | "session/list"
        | "session/close"
        | "session/delete"
        | "auth/login"
        | "auth/logout" => Some(Side::Client),
        "session/update"
        | "session/request_permission"
        | "elicitation/create"
        | "elicitation/complete" => Some(Side::Agent),
        method if method.starts_with("fs/") || method.starts_with("terminal/") => Some(Side::Agent),
        _ => None,
    }
}

/// One line: a JSON-RPC message, or a wrapper holding one.
#[derive(Deserialize)]
pub(super) struct Line<'a> {
    #[serde(default)]
    pub(super) id: Option<Value>,
    #[serde(borrow, default)]
    pub(super) method: Option<Borrowed<'a>>,
    #[serde(default)]
    pub(super) params: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(super) result: Option<Value>,
    #[serde(default)]
    pub(super) error: Option<Value>,
    // The wrapper.
    #[serde(borrow, default)]
    pub(super) direction: Option<Borrowed<'a>>,
    #[serde(default, alias = "msg", alias = "payload")]
    pub(super) message: Option<Value>,
    #[serde(default, alias = "ts", alias = "time")]
    pub(super) timestamp: Option<Value>,
}

pub(super) struct LineShape;
impl RecordShape for LineShape {
    type Of<'a> = Line<'a>;

    /// A request or notification by its method (`session/update` by the update's kind); a
    /// response as `response`. A wrapped message is counted by what it holds.
    fn kind<'v>(line: &'v Line<'_>) -> Kind<'v> {
        if let Some(message) = &line.message {
            return match message.get("method").and_then(Value::as_str) {
                Some(method) => (method, update_kind(message.get("params"))),
                None if message.get("error").is_some() => ("error response", None),
                None => ("response", None),
            };
        }
        match line.method.as_deref() {
            Some(method) => (method, update_kind(line.params.as_ref())),
            None if line.error.is_some() => ("error response", None),
            None => ("response", None),
        }
    }

    fn fields(_: Kind<'_>) -> Option<Fields> {
        Some(Fields {
            within: None,
            known: |f| {
                matches!(
                    f,
                    "jsonrpc"
                        | "id"
                        | "method"
                        | "params"
                        | "result"
                        | "error"
                        | "direction"
                        | "message"
                        | "msg"
                        | "payload"
                        | "timestamp"
                        | "ts"
                        | "time"
                )
            },
        })
    }
}

/// A field that is there, `null` included (a response's `result` may be `null`).
pub(super) fn present<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

/// The `sessionUpdate` of a `session/update`'s params.
fn update_kind(params: Option<&Value>) -> Option<&str> {
    params?.get("update")?.get("sessionUpdate")?.as_str()
}

/// A JSON-RPC id as a key: numbers and strings are different ids (`1` is not `"1"`).
pub(super) fn id_key(id: &Value) -> Option<String> {
    match id {
        Value::Number(number) => Some(number.to_string()),
        Value::String(text) => Some(format!("{text:?}")),
        _ => None,
    }
}

/// A string field of an object.
pub(super) fn text<'v>(value: &'v Value, field: &str) -> Option<&'v str> {
    value.get(field).and_then(Value::as_str)
}

/// An object without the fields every ACP message repeats (`sessionId`) or reserves
/// (`_meta`): what a call's input is.
pub(super) fn without_session(params: &Value) -> Value {
    match params {
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .filter(|(name, _)| !matches!(name.as_str(), "sessionId" | "_meta"))
                .map(|(name, value)| (name.clone(), value.clone()))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The text of an ACP content block (`{type: "text", text}`); `None` for other types.
pub(super) fn block_text(block: &Value) -> Option<&str> {
    (text(block, "type") == Some("text"))
        .then(|| text(block, "text"))
        .flatten()
}

/// The record a message came on, where its items and problems are placed.
#[derive(Clone, Copy)]
pub(super) struct At<'r> {
    pub(super) record: Record<'r>,
}

impl At<'_> {
    pub(super) fn source(&self) -> Source {
        Source::record(self.record.line, self.record.offset)
    }

    /// A record's shape is not what it should be: it is skipped, and this says why.
    pub(super) fn shape(&self, what: &str) -> Diagnostic {
        Diagnostic::new(
            DiagnosticKind::UnexpectedShape,
            self.record.line,
            self.record.offset,
            format!("{what}, skipped"),
        )
    }
}

/// RFC 4648 base64 (v2 terminal output), decoded leniently: padding optional, whitespace
/// skipped; `None` for any other byte.
pub(super) fn base64(encoded: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(encoded.len() / 4 * 3);
    let mut buffer = 0u32;
    let mut bits = 0;
    for byte in encoded.bytes() {
        let value = match byte {
            b'A'..=b'Z' => byte - b'A',
            b'a'..=b'z' => byte - b'a' + 26,
            b'0'..=b'9' => byte - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' | b' ' | b'\n' | b'\r' | b'\t' => continue,
            _ => return None,
        };
        buffer = (buffer << 6) | u32::from(value);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
            buffer &= (1 << bits) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_decodes_with_and_without_padding() {
        assert_eq!(
            base64("cnVubmluZyAxMjMgdGVzdHMNCg==").unwrap(),
            b"running 123 tests\r\n"
        );
        assert_eq!(base64("cGFzc2VkDQo").unwrap(), b"passed\r\n");
        assert_eq!(base64("not base64!"), None);
    }

    #[test]
    fn ids_of_different_json_types_differ() {
        assert_ne!(
            id_key(&serde_json::json!(1)),
            id_key(&serde_json::json!("1"))
        );
        assert_eq!(id_key(&Value::Null), None);
    }
}
