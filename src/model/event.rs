//! The envelope every transcript line shares, and the closed event vocabulary.

use super::refusal;
use serde::de::value::MapAccessDeserializer;
use serde::de::{MapAccess, Visitor};
use serde::ser::{Error as _, SerializeMap};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::block::non_empty;
use super::payload::Payload;
use super::timestamp::Timestamp;

/// The type of an event: ten closed values, plus whatever a newer writer may have used.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum EventType {
    /// `run.started`: a run begins.
    RunStarted,
    /// `run.completed`: a run ends, successfully or not.
    RunCompleted,
    /// `step.started`: a step begins.
    StepStarted,
    /// `step.completed`: a step ends.
    StepCompleted,
    /// `step.call_workflow.started`: a sub-run is invoked; the envelope names the child run.
    CallWorkflowStarted,
    /// `step.call_workflow.completed`: the invoking run observes the sub-run's end.
    CallWorkflowCompleted,
    /// `message.user`: the resolved prompt (and composed system prompt) sent to the agent.
    MessageUser,
    /// `message.assistant`: the agent's reply, as content blocks.
    MessageAssistant,
    /// `tool.call`: a tool invocation begins.
    ToolCall,
    /// `tool.result`: a tool invocation completes.
    ToolResult,
    /// A type outside the vocabulary, kept as read. Readers surface it; writers refuse it.
    Unknown(String),
}

impl EventType {
    /// The ten types of the vocabulary, in the order the schema lists them.
    pub const VOCABULARY: [EventType; 10] = [
        EventType::RunStarted,
        EventType::RunCompleted,
        EventType::StepStarted,
        EventType::StepCompleted,
        EventType::CallWorkflowStarted,
        EventType::CallWorkflowCompleted,
        EventType::MessageUser,
        EventType::MessageAssistant,
        EventType::ToolCall,
        EventType::ToolResult,
    ];

    /// The wire spelling.
    pub fn as_str(&self) -> &str {
        match self {
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
            EventType::Unknown(other) => other,
        }
    }

    /// Reads a wire spelling; anything outside the vocabulary becomes [`EventType::Unknown`].
    pub fn from_wire(text: &str) -> Self {
        match text {
            "run.started" => EventType::RunStarted,
            "run.completed" => EventType::RunCompleted,
            "step.started" => EventType::StepStarted,
            "step.completed" => EventType::StepCompleted,
            "step.call_workflow.started" => EventType::CallWorkflowStarted,
            "step.call_workflow.completed" => EventType::CallWorkflowCompleted,
            "message.user" => EventType::MessageUser,
            "message.assistant" => EventType::MessageAssistant,
            "tool.call" => EventType::ToolCall,
            "tool.result" => EventType::ToolResult,
            other => EventType::Unknown(other.to_owned()),
        }
    }

    /// Whether the type is one of the ten.
    pub fn is_known(&self) -> bool {
        !matches!(self, EventType::Unknown(_))
    }
}

impl std::fmt::Display for EventType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for EventType {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            EventType::Unknown(other) => Err(S::Error::custom(refusal::event_type(other))),
            known => serializer.serialize_str(known.as_str()),
        }
    }
}

impl<'de> Deserialize<'de> for EventType {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        Ok(EventType::from_wire(&text))
    }
}

/// One line of a transcript.
///
/// `#[non_exhaustive]`: the envelope may gain optional fields (the wire format's versioning
/// rules); build one with [`ExchangeEvent::new`] and set what it needs.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ExchangeEvent {
    /// Position in the file: 1, 2, 3, ... with no gaps. Owned by the recorder.
    pub seq: u64,
    /// The run this file belongs to.
    pub run_id: String,
    /// On every event of a sub-run: the run that invoked it.
    pub parent_run_id: Option<String>,
    /// On `step.call_workflow.*` events: the sub-run they invoke.
    pub child_run_id: Option<String>,
    /// What happened.
    pub event_type: EventType,
    /// Dot-separated step path; empty on run-level events.
    pub path: String,
    /// Zero-based loop or retry iteration; 0 outside loops.
    pub iteration: u64,
    /// When the event was emitted.
    pub timestamp: Timestamp,
    /// Event-specific data.
    pub payload: Payload,
}

impl ExchangeEvent {
    /// An event with no run links; `seq` is 0 until a recorder assigns it.
    pub fn new(
        run_id: impl Into<String>,
        event_type: EventType,
        path: impl Into<String>,
        payload: Payload,
    ) -> Self {
        ExchangeEvent {
            seq: 0,
            run_id: run_id.into(),
            parent_run_id: None,
            child_run_id: None,
            event_type,
            path: path.into(),
            iteration: 0,
            timestamp: Timestamp::now(),
            payload,
        }
    }
}

impl Serialize for ExchangeEvent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Every field named: a field added to the envelope does not compile until it is
        // written here (and in `write::event`, the other encoder).
        let ExchangeEvent {
            seq,
            run_id,
            parent_run_id,
            child_run_id,
            event_type,
            path,
            iteration,
            timestamp,
            payload,
        } = self;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("seq", seq)?;
        map.serialize_entry("run_id", run_id)?;
        if let Some(parent) = parent_run_id {
            map.serialize_entry("parent_run_id", non_empty::<S>("parent_run_id", parent)?)?;
        }
        if let Some(child) = child_run_id {
            map.serialize_entry("child_run_id", non_empty::<S>("child_run_id", child)?)?;
        }
        map.serialize_entry("type", event_type)?;
        map.serialize_entry("path", path)?;
        map.serialize_entry("iteration", iteration)?;
        map.serialize_entry("timestamp", timestamp)?;
        map.serialize_entry("payload", payload)?;
        map.end()
    }
}

/// The envelope as it is on the wire, before the payload dispatch.
#[derive(Deserialize)]
struct WireEnvelope {
    seq: u64,
    run_id: String,
    #[serde(default)]
    parent_run_id: Option<String>,
    #[serde(default)]
    child_run_id: Option<String>,
    #[serde(rename = "type")]
    event_type: EventType,
    path: String,
    iteration: u64,
    timestamp: Timestamp,
    #[serde(default)]
    payload: Value,
}

impl<'de> Deserialize<'de> for ExchangeEvent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // A derived struct would also accept a positional array; an event is an object only.
        struct ObjectOnly;
        impl<'de> Visitor<'de> for ObjectOnly {
            type Value = WireEnvelope;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a transcript event object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<WireEnvelope, A::Error> {
                WireEnvelope::deserialize(MapAccessDeserializer::new(map))
            }
        }
        let wire = deserializer.deserialize_map(ObjectOnly)?;
        Ok(ExchangeEvent {
            seq: wire.seq,
            run_id: wire.run_id,
            // Go writers omit empty links; an explicit "" or null means the same.
            parent_run_id: wire.parent_run_id.filter(|id| !id.is_empty()),
            child_run_id: wire.child_run_id.filter(|id| !id.is_empty()),
            event_type: wire.event_type,
            path: wire.path,
            iteration: wire.iteration,
            timestamp: wire.timestamp,
            payload: Payload::from_json(wire.payload),
        })
    }
}
