//! The record shapes of a captured ACP exchange: one JSON-RPC 2.0 message a line, bare or
//! inside a direction wrapper, and the tables of the fields each shape has.
//!
//! This room owns the wire's vocabulary: which side sends which method, how a wrapper is
//! read, the ACP field names of the objects the other rooms read, and the shape of an item
//! and a problem at a record. It holds no state and hands out nothing.
//!
//! A line the skim (`acp/skim.rs`: bare chunk and tool call update lines as the agents write
//! them) does not take is parsed, and read twice over at most. First typed and borrowed
//! ([`Line`]): the text chunks and tool call updates that are nearly every line of an exchange
//! are read from their typed fields ([`Hot`]), no JSON tree built. Every other line (requests,
//! responses, the rarer updates, and any whose fields have another type than the typed reading
//! reads) is read again whole ([`ValueLine`]): the typed reading never refuses what the whole
//! one takes, and reads what it takes as the whole one would (a unit test holds it to that).

use std::borrow::Cow;
use std::fmt;

use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use crate::model::{Timestamp, ToolOutput};
use crate::normalize::framing::Record;
use crate::normalize::json::{Borrowed, Parsed, Present, RecordShape, Tree};
use crate::normalize::lenient::{Members, Slot, Text, otherwise};
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

/// One line as the hot path reads it: a JSON-RPC message, or a wrapper holding one, its
/// `params` read only as far as a `session/update` needs ([`Params`]), nothing else of them
/// built. A line the hot path does not take ([`Line::hot`]) is read again whole, as a
/// [`ValueLine`]. Its other fields are read as a [`ValueLine`] reads them, so that a line
/// one refuses the other does too (a `direction` that is no string, a field twice).
///
/// Tried and measured as no better (callgrind, the normalize bench's ACP stream at
/// `AXT_BENCH_MB=5`): a hand-written visitor (the members straight into a `Line::default()`,
/// a byte of members read, aliases by key), as OpenAI's `Wire` has: 762.2M -> 761.6M
/// instructions in all, `Line`'s reading 65.2M either way. With 8 members the derive's locals
/// cost little; the reading's cost is its values' (`Params`, `Update`, the tool content).
#[derive(Deserialize)]
pub(super) struct Line<'a> {
    #[serde(default)]
    pub(super) id: Option<Value>,
    #[serde(borrow, default)]
    pub(super) method: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) params: Option<Slot<Params<'a>>>,
    #[serde(default, rename = "result")]
    _result: Present,
    #[serde(default)]
    pub(super) error: Option<Value>,
    // The wrapper.
    #[serde(borrow, default, rename = "direction")]
    _direction: Option<Borrowed<'a>>,
    #[serde(borrow, default, alias = "msg", alias = "payload")]
    pub(super) message: Option<Slot<Inner<'a>>>,
    #[serde(default, alias = "ts", alias = "time")]
    pub(super) timestamp: Option<Value>,
}

impl<'a> Line<'a> {
    /// What the hot path reads of a `session/update` notification it takes whole from the
    /// typed fields: a message or thought chunk of text, or a `tool_call`/`tool_call_update`.
    /// `None` for every other line, which is read as a [`ValueLine`]. `parsed` is where the
    /// line was parsed: a tool call's content of one text part is held as the record escaped
    /// it ([`lent_content`]).
    pub(super) fn hot(&mut self, parsed: Parsed<'a>) -> Option<Hot<'a>> {
        let (method, id, params) = match &mut self.message {
            Some(Slot::Read(inner)) if !inner.method_refused => (
                inner.method.as_deref(),
                inner.id.as_ref(),
                &mut inner.params,
            ),
            Some(_) => return None,
            None => (self.method.as_deref(), self.id.as_ref(), &mut self.params),
        };
        if method != Some("session/update") || id.is_some() {
            return None;
        }
        let Some(Slot::Read(Params {
            update: Some(Slot::Read(update)),
        })) = params.take()
        else {
            return None;
        };
        let Update {
            kind,
            message_id,
            tool_call_id,
            chunk,
            content,
            patch,
        } = update;
        let kind = kind?;
        match &*kind {
            "agent_message_chunk" | "agent_thought_chunk" | "user_message_chunk" => {
                chunk.map(|text| Hot::Chunk {
                    kind,
                    message_id,
                    text,
                })
            }
            "tool_call" | "tool_call_update" => {
                let (content, said) = match content {
                    Some(items) => {
                        let (items, said) = lent_content(items, parsed);
                        (Some(items), said)
                    }
                    None => (None, None),
                };
                Some(Hot::Call {
                    id: tool_call_id,
                    patch: Patch {
                        content,
                        said,
                        ..patch.map_or_else(Patch::default, |patch| *patch)
                    },
                })
            }
            _ => None,
        }
    }
}

/// A `session/update` the hot path reads (see [`Line::hot`]).
pub(super) enum Hot<'a> {
    /// A chunk of text of a message or thought.
    Chunk {
        kind: Cow<'a, str>,
        message_id: Option<Cow<'a, str>>,
        text: Cow<'a, str>,
    },
    /// A tool call's update: the call's id, and what it sets.
    Call {
        id: Option<Cow<'a, str>>,
        patch: Patch,
    },
}

/// One line read whole: what every line the hot path does not take is read as (requests,
/// responses, and updates other than text chunks and tool calls: few lines).
#[derive(Deserialize)]
pub(super) struct ValueLine<'a> {
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

/// A wrapper's `message` as the hot path reads it (`Slot::Other` when it is no object): the
/// JSON-RPC fields a notification is told by. Only the whole reading ([`ValueLine`]) reports
/// a message that is no JSON-RPC object.
#[derive(Default)]
pub(super) struct Inner<'a> {
    pub(super) id: Option<Value>,
    /// A string; `None` for `null`, or a value of another type (`method_refused`).
    pub(super) method: Option<Cow<'a, str>>,
    /// Its `method` is neither a string nor `null`: no JSON-RPC message.
    method_refused: bool,
    pub(super) params: Option<Slot<Params<'a>>>,
    /// It has an `error` field, `null` included (what the input report counts by).
    pub(super) error: bool,
}

impl<'de: 'a, 'a> Members<'de> for Inner<'a> {
    /// Read as the whole reading reads it: `null` is no id, no method, no params.
    fn member<A: MapAccess<'de>>(
        &mut self,
        key: Cow<'de, str>,
        map: &mut A,
    ) -> Result<(), A::Error> {
        match &*key {
            "id" => self.id = map.next_value()?,
            // `null` is `None`; a string `Some(Text(Some))`, anything else `Some(Text(None))`.
            "method" => match map.next_value::<Option<Text<'de>>>()? {
                None => (self.method, self.method_refused) = (None, false),
                Some(Text(text)) => (self.method_refused, self.method) = (text.is_none(), text),
            },
            "params" => self.params = map.next_value()?,
            "error" => {
                map.next_value::<IgnoredAny>()?;
                self.error = true;
            }
            _ => {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

/// A `params` object as the hot path reads it: only its `update`, if it is one.
#[derive(Default)]
pub(super) struct Params<'a> {
    pub(super) update: Option<Slot<Update<'a>>>,
}

impl<'de: 'a, 'a> Members<'de> for Params<'a> {
    fn member<A: MapAccess<'de>>(
        &mut self,
        key: Cow<'de, str>,
        map: &mut A,
    ) -> Result<(), A::Error> {
        match &*key {
            "update" => self.update = Some(map.next_value()?),
            _ => {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

/// A `session/update`'s `update`, the fields the hot path reads: its kind, the message a
/// chunk belongs to and its content, and a tool call's id and patch.
#[derive(Default)]
pub(super) struct Update<'a> {
    kind: Option<Cow<'a, str>>,
    message_id: Option<Cow<'a, str>>,
    tool_call_id: Option<Cow<'a, str>>,
    /// A chunk's text: its `content` is a `text` block.
    chunk: Option<Cow<'a, str>>,
    /// The tool call's `content` this update carries (see [`Patch::content`]), as the parse
    /// lent it.
    content: Option<Vec<Tree<'a>>>,
    /// The tool call's other fields this update carries, boxed: most updates are chunks of
    /// text, which have none, and the update is moved from reader to reader by value.
    patch: Option<Box<Patch>>,
}

impl<'de: 'a, 'a> Members<'de> for Update<'a> {
    /// Read as [`Patch::of`] reads a whole update.
    fn member<A: MapAccess<'de>>(
        &mut self,
        key: Cow<'de, str>,
        map: &mut A,
    ) -> Result<(), A::Error> {
        let some = |value: Value| Some(value).filter(|v| !v.is_null());
        let owned = |text: Text<'_>| text.0.map(Cow::into_owned);
        fn patch(patch: &mut Option<Box<Patch>>) -> &mut Patch {
            patch.get_or_insert_with(Box::default)
        }
        match &*key {
            "sessionUpdate" => self.kind = map.next_value::<Text<'de>>()?.0,
            "messageId" => self.message_id = map.next_value::<Text<'de>>()?.0,
            "toolCallId" => self.tool_call_id = map.next_value::<Text<'de>>()?.0,
            "title" => patch(&mut self.patch).title = Some(owned(map.next_value()?)),
            "kind" => patch(&mut self.patch).kind = Some(owned(map.next_value()?)),
            "status" => patch(&mut self.patch).status = Some(owned(map.next_value()?)),
            "rawInput" => patch(&mut self.patch).raw_input = Some(some(map.next_value()?)),
            "rawOutput" => patch(&mut self.patch).raw_output = Some(some(map.next_value()?)),
            "locations" => patch(&mut self.patch).locations = Some(some(map.next_value()?)),
            "content" => {
                let (chunk, items) = match map.next_value::<Content<'de>>()? {
                    Content::Block(text) => (text, Vec::new()),
                    Content::Items(items) => (None, items),
                    Content::Other => (None, Vec::new()),
                };
                self.chunk = chunk;
                self.content = Some(items);
            }
            _ => {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

/// The fields of a tool call an update (or a permission request's view of the call) sets:
/// `None` where it does not have the field, `Some(None)` where it clears it (`null`, or a
/// value of another type for the strings).
#[derive(Default)]
pub(super) struct Patch {
    pub(super) title: Option<Option<String>>,
    pub(super) kind: Option<Option<String>>,
    pub(super) status: Option<Option<String>>,
    pub(super) raw_input: Option<Option<Value>>,
    pub(super) raw_output: Option<Option<Value>>,
    pub(super) locations: Option<Option<Value>>,
    /// `content`, replaced whole (a value that is no array empties it).
    pub(super) content: Option<Vec<Value>>,
    /// `content` when it is one text part (`{type: "content", content: {type: "text",
    /// text}}`, the usual tool output), its text held as the record escaped it: `content` is
    /// then `Some` and empty. Only the part's text is ever read (see `calls`), so the
    /// part need not be kept.
    pub(super) said: Option<ToolOutput>,
}

impl Patch {
    /// The patch an update read whole makes (a permission request's view of its call).
    pub(super) fn of(update: &Value) -> Patch {
        let mut patch = Patch::default();
        let Some(fields) = update.as_object() else {
            return patch;
        };
        let string = |value: &Value| value.as_str().map(str::to_owned);
        let some = |value: &Value| Some(value.clone()).filter(|v| !v.is_null());
        for (name, value) in fields {
            match name.as_str() {
                "title" => patch.title = Some(string(value)),
                "kind" => patch.kind = Some(string(value)),
                "status" => patch.status = Some(string(value)),
                "rawInput" => patch.raw_input = Some(some(value)),
                "rawOutput" => patch.raw_output = Some(some(value)),
                "locations" => patch.locations = Some(some(value)),
                "content" => patch.content = Some(value.as_array().cloned().unwrap_or_default()),
                _ => {}
            }
        }
        patch
    }
}

/// An update's `content`: an object (the text when it is a `text` block), an array
/// (a tool call's content items), or anything else.
enum Content<'a> {
    Block(Option<Cow<'a, str>>),
    Items(Vec<Tree<'a>>),
    Other,
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = Content<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let (mut kind, mut text) = (None, None);
                while let Some(key) = map.next_key::<Text<'de>>()? {
                    match key.0.as_deref() {
                        Some("type") => kind = map.next_value::<Text<'de>>()?.0,
                        Some("text") => text = map.next_value::<Text<'de>>()?.0,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                let text_block = kind.as_deref() == Some("text");
                Ok(Content::Block(text.filter(|_| text_block)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
                while let Some(item) = seq.next_element::<Tree<'de>>()? {
                    items.push(item);
                }
                Ok(Content::Items(items))
            }
            fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            otherwise!(Content::Other);
        }
        deserializer.deserialize_any(Visit)
    }
}

/// A tool call's content items as the parse lent them, as the call holds them: one text part
/// (see [`Patch::said`]) as its text held as the record escaped it ([`Parsed::output`]: the
/// writer copies it, never escaping it again), any other content as its values. A member
/// named twice is read as `Value` reads it: the last one.
pub(super) fn lent_content(
    items: Vec<Tree<'_>>,
    parsed: Parsed<'_>,
) -> (Vec<Value>, Option<ToolOutput>) {
    fn last<'t, 'a>(tree: &'t Tree<'a>, name: &str) -> Option<&'t Tree<'a>> {
        let Tree::Object(members) = tree else {
            return None;
        };
        members
            .iter()
            .rev()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value)
    }
    fn is(tree: Option<&Tree<'_>>, text: &str) -> bool {
        matches!(tree, Some(Tree::Str(said)) if said == text)
    }
    if let [part] = items.as_slice()
        && is(last(part, "type"), "content")
        && let Some(block) = last(part, "content")
        && is(last(block, "type"), "text")
        && let Some(Tree::Str(said)) = last(block, "text")
    {
        return (Vec::new(), Some(parsed.output(Cow::Borrowed(said))));
    }
    (items.into_iter().map(Tree::into_value).collect(), None)
}

pub(super) struct LineShape;
impl RecordShape for LineShape {
    type Of<'a> = Line<'a>;

    /// A request or notification by its method (`session/update` by the update's kind); a
    /// response as `response`. A wrapped message is counted by what it holds.
    fn kind<'v>(line: &'v Line<'_>) -> Kind<'v> {
        match &line.message {
            Some(Slot::Read(message)) => {
                return match message.method.as_deref() {
                    Some(method) => (method, update_kind(message.params.as_ref())),
                    None if message.error => ("error response", None),
                    None => ("response", None),
                };
            }
            Some(Slot::Other) => return ("response", None),
            None => {}
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
fn update_kind<'v>(params: Option<&'v Slot<Params<'_>>>) -> Option<&'v str> {
    match params? {
        Slot::Read(Params {
            update: Some(Slot::Read(update)),
        }) => update.kind.as_deref(),
        _ => None,
    }
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

    /// What the hot path makes of a `session/update` line's tool call: its patch.
    fn patch_of(line: &str) -> Patch {
        let record = Record::line(line.as_bytes(), 1, 0, true);
        let mut patch = None;
        let mut parser = crate::normalize::json::JsonParser::default();
        parser.parse_in::<LineShape>(record, &mut Vec::new(), |mut line, parsed, _| {
            if let Some(Hot::Call { patch: read, .. }) = line.hot(parsed) {
                patch = Some(read);
            }
            crate::normalize::report::Fate::Mapped
        });
        patch.expect("a tool call the hot path reads")
    }

    #[test]
    fn one_text_part_is_kept_as_its_record_escaped_it() {
        let line = |content: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","method":"session/update","params":{{"update":{{"sessionUpdate":"tool_call_update","toolCallId":"c","status":"completed","content":{content}}}}}}}"#
            )
        };
        let text = r#""a\n\"b\"\u001b[0m""#;
        let patch = patch_of(&line(&format!(
            r#"[{{"type":"content","content":{{"type":"text","text":{text}}}}}]"#
        )));
        let said = patch.said.expect("held as its text");
        assert_eq!(said.json(), Some(text.as_bytes()));
        assert_eq!(*said, Value::String("a\n\"b\"\u{1b}[0m".to_owned()));
        assert_eq!(patch.content, Some(Vec::new()));
        // Escaped otherwise than the writer escapes: the text, unescaped.
        let patch = patch_of(&line(
            r#"[{"type":"content","content":{"type":"text","text":"a\/b"}}]"#,
        ));
        let said = patch.said.expect("held as its text");
        assert_eq!((said.json(), said.as_str()), (None, Some("a/b")));
        // Two parts, or a part of another shape: the values.
        for content in [
            r#"[{"type":"content","content":{"type":"text","text":"a"}},{"type":"content","content":{"type":"text","text":"b"}}]"#,
            r#"[{"type":"content","content":{"type":"text","text":1}}]"#,
            r#"[{"type":"diff","path":"a","newText":"b"}]"#,
            r#"[{"type":"content","content":{"type":"text","text":"a"},"type":"x"}]"#,
        ] {
            let patch = patch_of(&line(content));
            assert!(patch.said.is_none(), "{content}");
            let items: Value = serde_json::from_str(content).unwrap();
            assert_eq!(patch.content, items.as_array().cloned(), "{content}");
        }
    }

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
