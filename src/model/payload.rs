//! Event payloads and the tolerant payload dispatch.
//!
//! The concrete payload is chosen from the JSON shape alone, as the schema prescribes:
//! an array is a list of blocks; an object with `role` is a message, else with `call_id` a
//! tool payload, else with `kind` a step; anything else is kept as raw JSON; null or missing
//! is no payload. An object that names a shape but does not fit it is kept as
//! [`Payload::Malformed`] rather than failing the event.

use super::refusal;
use serde::ser::{Error as _, SerializeMap};
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use super::block::{ContentBlock, Fidelity, non_empty};
use super::output::ToolOutput;
use super::step::StepKind;
use super::text::Text;

/// The payload of an event.
#[derive(Clone, Debug, PartialEq)]
pub enum Payload {
    /// `null` or absent: valid for `run.*` events.
    None,
    /// A bare array of blocks. No event type of the current vocabulary carries one; it is
    /// decoded for forward compatibility and refused by writers.
    Blocks(Vec<ContentBlock>),
    /// Carried by `message.user` and `message.assistant`.
    Message(MessagePayload),
    /// Carried by `tool.call` and `tool.result`.
    Tool(ToolPayload),
    /// Carried by `run.*` and `step.*`.
    Step(StepPayload),
    /// A JSON value of no known shape, kept as read (forward compatibility). Refused by writers.
    Raw(Value),
    /// An object that named a known shape (`role`, `call_id` or `kind`) but did not fit it.
    /// Kept as read and reported; refused by writers.
    Malformed {
        /// The payload as read.
        value: Value,
        /// The shape its keys selected.
        expected: PayloadKind,
        /// What did not fit.
        reason: String,
    },
}

/// The payload shapes of the dispatch, for diagnostics and validation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PayloadKind {
    /// [`Payload::None`].
    None,
    /// [`Payload::Blocks`].
    Blocks,
    /// [`Payload::Message`].
    Message,
    /// [`Payload::Tool`].
    Tool,
    /// [`Payload::Step`].
    Step,
    /// [`Payload::Raw`].
    Raw,
}

impl PayloadKind {
    /// Lower-case name used in messages.
    pub fn as_str(self) -> &'static str {
        match self {
            PayloadKind::None => "none",
            PayloadKind::Blocks => "blocks",
            PayloadKind::Message => "message",
            PayloadKind::Tool => "tool",
            PayloadKind::Step => "step",
            PayloadKind::Raw => "raw",
        }
    }
}

/// Step and run lifecycle data.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct StepPayload {
    /// Step name, or the workflow name on `run.*` events.
    pub name: String,
    /// Step type discriminator: `agent`, `command`, `call_workflow`, ... or a custom kind.
    pub kind: StepKind,
    /// Failure description on `*.completed`; `None` on success.
    pub error: Option<String>,
    /// Step result on `*.completed`; `Value::Null` means none (omitted on the wire).
    pub result: Value,
    /// How long the step ran, in milliseconds, on `*.completed` when the writer timed it
    /// (a monotonic clock, so it can differ from the timestamps' difference). Extension
    /// field.
    pub duration_ms: Option<u64>,
}

impl StepPayload {
    /// A step payload with no error, result or duration: what `*.started` carries.
    pub fn new(name: impl Into<String>, kind: StepKind) -> Self {
        StepPayload {
            name: name.into(),
            kind,
            error: None,
            result: Value::Null,
            duration_ms: None,
        }
    }
}

/// Who a message is from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// `"user"`.
    User,
    /// `"assistant"`.
    Assistant,
    /// Any other value, kept as read; writers refuse it.
    Unknown(String),
}

impl Role {
    /// The wire spelling.
    pub fn as_str(&self) -> &str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Unknown(other) => other,
        }
    }

    /// Reads a wire spelling.
    pub fn from_wire(text: &str) -> Self {
        match text {
            "user" => Role::User,
            "assistant" => Role::Assistant,
            other => Role::Unknown(other.to_owned()),
        }
    }
}

/// A user prompt or an assistant reply.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct MessagePayload {
    /// Who the message is from.
    pub role: Role,
    /// Ordered content.
    pub blocks: Vec<ContentBlock>,
    /// The provider's id of the message these blocks belong to. One provider message may
    /// be spread over several events (Claude Code sends one block per line); they share it.
    /// Extension field.
    pub message_id: Option<String>,
}

/// A tool invocation or its completion.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ToolPayload {
    /// Tool name (`Read`, `Bash`, an MCP tool, ...).
    pub name: String,
    /// Correlation token linking `tool.call` to `tool.result`.
    pub call_id: String,
    /// Arguments (meaningful on `tool.call`; written as `null` when absent).
    pub input: Value,
    /// Return value (meaningful on `tool.result`; written as `null` when absent).
    pub output: ToolOutput,
    /// Failure description on `tool.result`; `None` on success. A failed call's error is
    /// often its output's text, held as the same JSON as the output when that is (see
    /// [`Text`]); read it as a `&str` (`error.as_deref()`).
    pub error: Option<Text>,
    /// Who reported the call.
    pub fidelity: Fidelity,
    /// Exit status of a shell command, on `tool.result`, when known. Extension field.
    pub exit_code: Option<i64>,
    /// How long the call ran, in milliseconds, on a `tool.result` the writer timed (the
    /// router seam does). Extension field.
    pub duration_ms: Option<u64>,
    /// On a `router` payload: the id under which the agent reported the same call, when it
    /// differs from `call_id` (see the model's rule for calls seen on both channels).
    /// Extension field.
    pub agent_call_id: Option<String>,
}

impl MessagePayload {
    /// A message of `role` with `blocks`, no message id.
    pub fn new(role: Role, blocks: Vec<ContentBlock>) -> Self {
        MessagePayload {
            role,
            blocks,
            message_id: None,
        }
    }
}

impl ToolPayload {
    /// A `tool.call` payload: `name`, `call_id` and `input`; no output, error or extension.
    pub fn call(
        name: impl Into<String>,
        call_id: impl Into<String>,
        input: Value,
        fidelity: Fidelity,
    ) -> Self {
        ToolPayload {
            name: name.into(),
            call_id: call_id.into(),
            input,
            output: ToolOutput::default(),
            error: None,
            fidelity,
            exit_code: None,
            duration_ms: None,
            agent_call_id: None,
        }
    }
}

impl Payload {
    /// The shape of this payload; for [`Payload::Malformed`], the shape it failed to fit.
    pub fn kind(&self) -> PayloadKind {
        match self {
            Payload::None => PayloadKind::None,
            Payload::Blocks(_) => PayloadKind::Blocks,
            Payload::Message(_) => PayloadKind::Message,
            Payload::Tool(_) => PayloadKind::Tool,
            Payload::Step(_) => PayloadKind::Step,
            Payload::Raw(_) => PayloadKind::Raw,
            Payload::Malformed { expected, .. } => *expected,
        }
    }

    /// Every block the payload carries, in order (message blocks or a bare block list).
    pub fn blocks(&self) -> &[ContentBlock] {
        match self {
            Payload::Blocks(blocks) => blocks,
            Payload::Message(message) => &message.blocks,
            _ => &[],
        }
    }

    /// The tolerant dispatch described in the module docs. Never fails.
    pub fn from_json(value: Value) -> Self {
        match value {
            Value::Null => Payload::None,
            Value::Array(items) => {
                Payload::Blocks(items.into_iter().map(ContentBlock::from_json).collect())
            }
            Value::Object(fields) => {
                let (expected, decoded) = if fields.contains_key("role") {
                    (
                        PayloadKind::Message,
                        decode_message(&fields).map(Payload::Message),
                    )
                } else if fields.contains_key("call_id") {
                    (PayloadKind::Tool, decode_tool(&fields).map(Payload::Tool))
                } else if fields.contains_key("kind") {
                    (PayloadKind::Step, decode_step(&fields).map(Payload::Step))
                } else {
                    return Payload::Raw(Value::Object(fields));
                };
                decoded.unwrap_or_else(|reason| Payload::Malformed {
                    value: Value::Object(fields),
                    expected,
                    reason,
                })
            }
            scalar => Payload::Raw(scalar),
        }
    }
}

fn decode_message(fields: &Map<String, Value>) -> Result<MessagePayload, String> {
    let role = match fields.get("role") {
        Some(Value::String(role)) => Role::from_wire(role),
        _ => return Err("`role` must be a string".into()),
    };
    let blocks = match fields.get("blocks") {
        Some(Value::Array(items)) => items.iter().cloned().map(ContentBlock::from_json).collect(),
        // A Go writer omits a nil slice only if told to; tolerate both spellings of "none".
        None | Some(Value::Null) => Vec::new(),
        Some(_) => return Err("`blocks` must be an array".into()),
    };
    let message_id = string(fields, "message_id")?.filter(|id| !id.is_empty());
    Ok(MessagePayload {
        role,
        blocks,
        message_id,
    })
}

fn decode_tool(fields: &Map<String, Value>) -> Result<ToolPayload, String> {
    Ok(ToolPayload {
        name: string(fields, "name")?.unwrap_or_default(),
        call_id: string(fields, "call_id")?.unwrap_or_default(),
        input: fields.get("input").cloned().unwrap_or(Value::Null),
        output: ToolOutput::new(fields.get("output").cloned().unwrap_or(Value::Null)),
        error: string(fields, "error")?
            .filter(|e| !e.is_empty())
            .map(Text::new),
        fidelity: match string(fields, "fidelity")? {
            Some(text) => Fidelity::from_wire(&text),
            None => Fidelity::Unknown(String::new()),
        },
        exit_code: match fields.get("exit_code") {
            None | Some(Value::Null) => None,
            Some(value) => Some(value.as_i64().ok_or("`exit_code` must be an integer")?),
        },
        duration_ms: unsigned(fields, "duration_ms")?,
        agent_call_id: string(fields, "agent_call_id")?.filter(|id| !id.is_empty()),
    })
}

fn decode_step(fields: &Map<String, Value>) -> Result<StepPayload, String> {
    Ok(StepPayload {
        name: string(fields, "name")?.unwrap_or_default(),
        kind: StepKind::from_wire(&string(fields, "kind")?.unwrap_or_default()),
        error: string(fields, "error")?.filter(|e| !e.is_empty()),
        result: fields.get("result").cloned().unwrap_or(Value::Null),
        duration_ms: unsigned(fields, "duration_ms")?,
    })
}

fn unsigned(fields: &Map<String, Value>, name: &str) -> Result<Option<u64>, String> {
    match fields.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => value
            .as_u64()
            .map(Some)
            .ok_or_else(|| format!("`{name}` must be an unsigned integer")),
    }
}

fn string(fields: &Map<String, Value>, name: &str) -> Result<Option<String>, String> {
    match fields.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err(format!("`{name}` must be a string")),
    }
}

impl Serialize for Payload {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Payload::None => serializer.serialize_unit(),
            Payload::Message(message) => message.serialize(serializer),
            Payload::Tool(tool) => tool.serialize(serializer),
            Payload::Step(step) => step.serialize(serializer),
            Payload::Blocks(_) | Payload::Raw(_) | Payload::Malformed { .. } => {
                Err(S::Error::custom(refusal::payload(self.kind().as_str())))
            }
        }
    }
}

impl Serialize for StepPayload {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let StepPayload {
            name,
            kind,
            error,
            result,
            duration_ms,
        } = self;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("name", name)?;
        map.serialize_entry("kind", non_empty::<S>("kind", kind.as_str())?)?;
        if let Some(error) = error {
            map.serialize_entry("error", non_empty::<S>("error", error)?)?;
        }
        if !result.is_null() {
            map.serialize_entry("result", result)?;
        }
        if let Some(duration_ms) = duration_ms {
            map.serialize_entry("duration_ms", duration_ms)?;
        }
        map.end()
    }
}

impl Serialize for MessagePayload {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let MessagePayload {
            role,
            blocks,
            message_id,
        } = self;
        if let Role::Unknown(role) = role {
            return Err(S::Error::custom(refusal::role(role)));
        }
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("role", role.as_str())?;
        map.serialize_entry("blocks", blocks)?;
        if let Some(id) = message_id {
            map.serialize_entry("message_id", non_empty::<S>("message_id", id)?)?;
        }
        map.end()
    }
}

impl Serialize for ToolPayload {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let ToolPayload {
            name,
            call_id,
            input,
            output,
            error,
            fidelity,
            exit_code,
            duration_ms,
            agent_call_id,
        } = self;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("name", name)?;
        map.serialize_entry("call_id", call_id)?;
        map.serialize_entry("input", input)?;
        map.serialize_entry("output", output)?;
        if let Some(error) = error {
            map.serialize_entry("error", non_empty::<S>("error", error.as_str())?)?;
        }
        map.serialize_entry("fidelity", fidelity)?;
        if let Some(exit_code) = exit_code {
            map.serialize_entry("exit_code", exit_code)?;
        }
        if let Some(duration_ms) = duration_ms {
            map.serialize_entry("duration_ms", duration_ms)?;
        }
        if let Some(id) = agent_call_id {
            map.serialize_entry("agent_call_id", non_empty::<S>("agent_call_id", id)?)?;
        }
        map.end()
    }
}
