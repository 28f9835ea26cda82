//! Copilot's records as read: the session-event envelope and the flat `result` ([`Event`]),
//! an event's `data` ([`Data`]), and the shape checks the report's unknown-field count uses
//! ([`EventShape`]); the lines read by a skim instead are [`super::skim`]'s. Reads only:
//! what the fields mean is [`super::state`]'s.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::super::json::{Borrowed, Lent, Present, RecordShape};
use super::super::lenient::{once, otherwise, skip_map, skip_seq};
use super::super::report::{Fields, Kind};
use super::skim::IGNORED;

pub(super) struct EventShape;
impl RecordShape for EventShape {
    type Of<'a> = Event<'a>;

    fn kind<'v>(event: &'v Event<'_>) -> Kind<'v> {
        (&event.kind, None)
    }

    /// The `data` fields of the events this adapter reads, as the Copilot SDK's session event
    /// schema (github/copilot-sdk, 2026-08) defines them; `result` is flat.
    fn fields(kind: Kind<'_>) -> Option<Fields> {
        let known: fn(&str) -> bool = match kind.0 {
            "result" => {
                return Some(Fields {
                    within: None,
                    known: |f| {
                        matches!(f, "type" | "timestamp" | "sessionId" | "exitCode" | "usage")
                    },
                });
            }
            "user.message" => |f| {
                matches!(
                    f,
                    "content"
                        | "transformedContent"
                        | "attachments"
                        | "agentMode"
                        | "interactionId"
                        | "delivery"
                        | "isAutopilotContinuation"
                        | "nativeDocumentPathFallbackPaths"
                        | "parentAgentTaskId"
                        | "source"
                        | "supportedNativeDocumentMimeTypes"
                        | "turnId"
                )
            },
            "assistant.message" => |f| {
                matches!(
                    f,
                    "messageId"
                        | "content"
                        | "toolRequests"
                        | "reasoningText"
                        | "reasoningOpaque"
                        | "encryptedContent"
                        | "outputTokens"
                        | "interactionId"
                        | "phase"
                        | "parentToolCallId"
                        | "apiCallId"
                        | "chunkCount"
                        | "chunkIndex"
                        | "citations"
                        | "clientRequestId"
                        | "model"
                        | "reasoningWireField"
                        | "requestId"
                        | "rte"
                        | "serverTools"
                        | "serviceRequestId"
                        | "turnId"
                )
            },
            "assistant.reasoning" => |f| matches!(f, "reasoningId" | "content" | "rte"),
            "tool.execution_start" => |f| {
                matches!(
                    f,
                    "toolCallId"
                        | "toolName"
                        | "arguments"
                        | "mcpServerName"
                        | "mcpToolName"
                        | "model"
                        | "displayVerbatim"
                        | "parentToolCallId"
                        | "rte"
                        | "shellToolInfo"
                        | "toolDescription"
                        | "turnId"
                )
            },
            "tool.execution_complete" => |f| {
                matches!(
                    f,
                    "toolCallId"
                        | "success"
                        | "result"
                        | "error"
                        | "model"
                        | "interactionId"
                        | "toolTelemetry"
                        | "isUserRequested"
                        | "mcpMeta"
                        | "parentToolCallId"
                        | "rte"
                        | "sandboxed"
                        | "toolDescription"
                        | "turnId"
                )
            },
            "assistant.usage" => |f| {
                matches!(
                    f,
                    "model"
                        | "inputTokens"
                        | "outputTokens"
                        | "reasoningTokens"
                        | "cacheReadTokens"
                        | "cacheWriteTokens"
                        | "cost"
                        | "duration"
                        | "finishReason"
                        | "apiCallId"
                        | "acceptedPredictionTokens"
                        | "apiEndpoint"
                        | "availableToolCount"
                        | "cacheDetailsReported"
                        | "cacheExpiresAt"
                        | "cacheTtlSeconds"
                        | "contentFilterTriggered"
                        | "copilotUsage"
                        | "frontierSource"
                        | "initiator"
                        | "interactionType"
                        | "interTokenLatencyMs"
                        | "isAuto"
                        | "isByok"
                        | "maxOutputTokens"
                        | "maxPromptTokens"
                        | "numToolCalls"
                        | "parentToolCallId"
                        | "providerCallId"
                        | "quotaSnapshots"
                        | "reasoningEffort"
                        | "reasoningSummary"
                        | "rejectedPredictionTokens"
                        | "rte"
                        | "serviceRequestId"
                        | "timeToFirstTokenMs"
                        | "toolCounts"
                        | "toolTokenCount"
                        | "transport"
                )
            },
            "session.error" => |f| {
                matches!(
                    f,
                    "errorType"
                        | "message"
                        | "stack"
                        | "statusCode"
                        | "eligibleForAutoSwitch"
                        | "errorCode"
                        | "providerCallId"
                        | "serviceRequestId"
                        | "url"
                )
            },
            "session.warning" => |f| matches!(f, "message" | "url" | "warningType"),
            "subagent.failed" => |f| {
                matches!(
                    f,
                    "error"
                        | "agentDisplayName"
                        | "agentName"
                        | "durationMs"
                        | "model"
                        | "toolCallId"
                        | "totalTokens"
                        | "totalToolCalls"
                )
            },
            "session.tools_updated" => |f| f == "model",
            "session.start" => |f| {
                matches!(
                    f,
                    "sessionId"
                        | "copilotVersion"
                        | "selectedModel"
                        | "version"
                        | "producer"
                        | "startTime"
                        | "context"
                        | "contextTier"
                        | "alreadyInUse"
                        | "remoteSteerable"
                        | "reasoningEffort"
                        | "reasoningSummary"
                        | "detachedFromSpawningParentSessionId"
                        | "githubMcpToolConfig"
                        | "sessionLimits"
                        | "verbosity"
                )
            },
            "session.model_change" => |f| {
                matches!(
                    f,
                    "newModel"
                        | "previousModel"
                        | "reasoningEffort"
                        | "contextTier"
                        | "cause"
                        | "previousReasoningEffort"
                        | "previousReasoningSummary"
                        | "previousVerbosity"
                        | "reasoningSummary"
                        | "source"
                        | "verbosity"
                )
            },
            "session.shutdown" => |f| {
                matches!(
                    f,
                    "shutdownType"
                        | "errorReason"
                        | "modelMetrics"
                        | "currentModel"
                        | "agentMetrics"
                        | "codeChanges"
                        | "conversationTokens"
                        | "currentTokens"
                        | "eventsFileSizeBytes"
                        | "sessionStartTime"
                        | "systemTokens"
                        | "tokenDetails"
                        | "toolDefinitionsTokens"
                        | "totalApiDurationMs"
                        | "totalNanoAiu"
                        | "totalPremiumRequests"
                )
            },
            _ => return None,
        };
        Some(Fields {
            within: Some("data"),
            known,
        })
    }
}

/// An event: the envelope (`type`, `timestamp`, `agentId`, `data`, `id`) and the flat
/// `result` line's fields. Read by hand, not derived, for one thing a derive cannot do: the
/// `data` of an event the adapter ignores (the streaming deltas, most of a session's lines)
/// is skipped, not read into a [`Data`], when `type` came before it (as Copilot writes
/// every event). Everything else reads as the derive read it, in the same words when a
/// record is refused (a field twice, `type` missing, a field of the wrong type).
pub(super) struct Event<'a> {
    pub(super) kind: Cow<'a, str>,
    pub(super) timestamp: Option<Borrowed<'a>>,
    pub(super) agent_id: Option<Borrowed<'a>>,
    /// `None` when absent or null, and when skipped (see [`Event::data_object`]).
    pub(super) data: Option<Payload<'a>>,
    /// Whether `data` was an object, read or skipped (the detection asks).
    pub(super) data_object: bool,
    /// Read for the detection's sake (see [`Adapter::claimed`]).
    pub(super) id: Present,
    // The flat `result` line.
    pub(super) session_id: Option<Borrowed<'a>>,
    pub(super) exit_code: Option<i64>,
    pub(super) usage: Option<Value>,
}

/// Whether `kind` is one of [`IGNORED`].
pub(super) fn ignored(kind: &str) -> bool {
    IGNORED.contains(&kind)
}

impl<'de: 'a, 'a> Deserialize<'de> for Event<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        const FIELDS: &[&str] = &[
            "type",
            "timestamp",
            "agentId",
            "data",
            "id",
            "sessionId",
            "exitCode",
            "usage",
        ];
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = Event<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("struct Event")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Event<'de>, A::Error> {
                let mut kind: Option<Cow<'de, str>> = None;
                let mut timestamp = None;
                let mut agent_id = None;
                let mut data: Option<Option<Payload<'de>>> = None;
                let mut data_object = false;
                let mut id = None;
                let mut session_id = None;
                let mut exit_code = None;
                let mut usage = None;
                while let Some(key) = map.next_key::<Borrowed<'de>>()? {
                    match &*key {
                        "type" => {
                            once(&kind, "type")?;
                            kind = Some(map.next_value::<Borrowed<'de>>()?.0);
                        }
                        "timestamp" => {
                            once(&timestamp, "timestamp")?;
                            timestamp = Some(map.next_value()?);
                        }
                        "agentId" => {
                            once(&agent_id, "agentId")?;
                            agent_id = Some(map.next_value()?);
                        }
                        "data" => {
                            once(&data, "data")?;
                            if kind.as_deref().is_some_and(ignored) {
                                let skipped = map.next_value::<Skipped<'de>>()?;
                                data_object = skipped.object;
                                data = Some(skipped.payload);
                            } else {
                                let payload = map.next_value::<Option<Payload<'de>>>()?;
                                data_object = payload.as_ref().is_some_and(|p| p.object);
                                data = Some(payload);
                            }
                        }
                        "id" => {
                            once(&id, "id")?;
                            id = Some(map.next_value::<Present>()?);
                        }
                        "sessionId" => {
                            once(&session_id, "sessionId")?;
                            session_id = Some(map.next_value()?);
                        }
                        "exitCode" => {
                            once(&exit_code, "exitCode")?;
                            exit_code = Some(map.next_value()?);
                        }
                        "usage" => {
                            once(&usage, "usage")?;
                            usage = Some(map.next_value()?);
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(Event {
                    kind: kind.ok_or_else(|| de::Error::missing_field("type"))?,
                    timestamp: timestamp.flatten(),
                    agent_id: agent_id.flatten(),
                    data: data.flatten(),
                    data_object,
                    id: id.unwrap_or_default(),
                    session_id: session_id.flatten(),
                    exit_code: exit_code.flatten(),
                    usage: usage.flatten(),
                })
            }
        }
        deserializer.deserialize_struct("Event", FIELDS, Visit)
    }
}

/// The `data` of an ignored event, read as `Option<Payload>` reads it except that an
/// object's members are skipped, not read into a [`Data`] (none of them is used). A
/// member of a type `Data` does not take (a number for `messageId`) therefore no longer
/// refuses such a record; a value `Option<Payload>` refuses (a string) still does.
struct Skipped<'a> {
    /// An array's `Data` (read by position, as `Payload` reads it).
    payload: Option<Payload<'a>>,
    object: bool,
}

impl<'de: 'a, 'a> Deserialize<'de> for Skipped<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = Skipped<'de>;
            // What `Payload` says, so that a record is refused in the same words.
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("struct Data")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Skipped<'de>, A::Error> {
                skip_map(map)?;
                Ok(Skipped {
                    payload: None,
                    object: true,
                })
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Skipped<'de>, A::Error> {
                let data = Box::new(Data::deserialize(SeqAccessDeserializer::new(seq))?);
                let payload = Payload {
                    data,
                    object: false,
                };
                Ok(Skipped {
                    payload: Some(payload),
                    object: false,
                })
            }
        }
        // `null` is `None`, as for `Option<Payload>`; any other value is read as `Payload`
        // reads it.
        struct Nullable;
        impl<'de> Visitor<'de> for Nullable {
            type Value = Skipped<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("option")
            }
            fn visit_none<E: de::Error>(self) -> Result<Skipped<'de>, E> {
                Ok(Skipped {
                    payload: None,
                    object: false,
                })
            }
            fn visit_unit<E: de::Error>(self) -> Result<Skipped<'de>, E> {
                self.visit_none()
            }
            fn visit_some<D: serde::Deserializer<'de>>(
                self,
                deserializer: D,
            ) -> Result<Skipped<'de>, D::Error> {
                deserializer.deserialize_any(Visit)
            }
        }
        deserializer.deserialize_option(Nullable)
    }
}

/// `data`, every event type's fields side by side. Fields whose JSON type differs between
/// event types (`content`, `message`, `error`, `result`) are read as values.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Data<'a> {
    #[serde(borrow, default)]
    pub(super) message_id: Option<Borrowed<'a>>,
    #[serde(default)]
    pub(super) content: Option<Value>,
    #[serde(borrow, default)]
    pub(super) tool_requests: Option<Vec<ToolRequest<'a>>>,
    #[serde(borrow, default)]
    pub(super) reasoning_text: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) reasoning_opaque: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) encrypted_content: Option<Borrowed<'a>>,
    #[serde(default)]
    pub(super) output_tokens: Option<u64>,
    #[serde(default)]
    pub(super) input_tokens: Option<u64>,
    #[serde(default)]
    pub(super) cache_read_tokens: Option<u64>,
    #[serde(default)]
    pub(super) cache_write_tokens: Option<u64>,
    #[serde(default)]
    pub(super) reasoning_tokens: Option<u64>,
    #[serde(borrow, default)]
    pub(super) tool_call_id: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) tool_name: Option<Borrowed<'a>>,
    #[serde(default)]
    pub(super) arguments: Option<Value>,
    #[serde(default)]
    pub(super) success: Option<bool>,
    #[serde(borrow, default)]
    pub(super) result: ToolOutput<'a>,
    #[serde(default)]
    pub(super) error: Option<Value>,
    #[serde(default)]
    pub(super) message: Option<Value>,
    #[serde(borrow, default)]
    pub(super) error_type: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) model: Option<Borrowed<'a>>,
    // Session logs: session.start, session.model_change, session.shutdown.
    #[serde(borrow, default)]
    pub(super) session_id: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) copilot_version: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) selected_model: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) new_model: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) current_model: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) shutdown_type: Option<Borrowed<'a>>,
    #[serde(default)]
    pub(super) error_reason: Option<Value>,
    #[serde(default)]
    pub(super) model_metrics: Option<Value>,
}

/// An event's `data`, read as [`Data`] reads it, and whether it was an object (which the
/// detection asks for) rather than an array read by position.
///
/// Boxed: [`Data`] is every event type's fields side by side (about 750 bytes), and the
/// record is moved by value from reader to reader on its way to its handler, most records
/// being message deltas the adapter ignores (those moves were ~5% of the samples of
/// `axt normalize --provider copilot`; boxed, 3% fewer instructions in all).
pub(super) struct Payload<'a> {
    pub(super) data: Box<Data<'a>>,
    pub(super) object: bool,
}

impl<'de: 'a, 'a> Deserialize<'de> for Payload<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = Payload<'de>;
            // What the derived `Data` says, so that a record is refused in the same words.
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("struct Data")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Payload<'de>, A::Error> {
                let data = Box::new(Data::deserialize(MapAccessDeserializer::new(map))?);
                Ok(Payload { data, object: true })
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Payload<'de>, A::Error> {
                let data = Box::new(Data::deserialize(SeqAccessDeserializer::new(seq))?);
                Ok(Payload {
                    data,
                    object: false,
                })
            }
        }
        deserializer.deserialize_any(Visit)
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ToolRequest<'a> {
    #[serde(borrow, default)]
    pub(super) tool_call_id: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) name: Option<Borrowed<'a>>,
    #[serde(default)]
    pub(super) arguments: Option<Value>,
}

/// A `tool.execution_complete`'s `result`, read for the three fields its content can come
/// from: a value of any other shape, and every other field, is skipped without being built
/// (the tool's output is most of a session's bytes; building the whole result as a value,
/// then copying the field out of it, cost two copies of it). Each is read as the parse lent
/// it ([`Lent`]): a string is kept as the record escaped it ([`Lent::output`]).
#[derive(Default)]
pub(super) struct ToolOutput<'a> {
    pub(super) content: Option<Lent<'a>>,
    pub(super) detailed_content: Option<Lent<'a>>,
    pub(super) contents: Option<Lent<'a>>,
}

impl<'a> ToolOutput<'a> {
    /// `content` (what the model saw), else `detailedContent`, else `contents`: the first
    /// that is there and not null. A field given twice counts as its last copy, as in a value.
    pub(super) fn content(self) -> Option<Lent<'a>> {
        [self.content, self.detailed_content, self.contents]
            .into_iter()
            .flatten()
            .find(|value| !matches!(value, Lent::Other(Value::Null)))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for ToolOutput<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Fields;
        impl<'de> Visitor<'de> for Fields {
            type Value = ToolOutput<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ToolOutput<'de>, A::Error> {
                let mut output = ToolOutput::default();
                while let Some(key) = map.next_key::<Borrowed<'de>>()? {
                    let slot = match &*key {
                        "content" => &mut output.content,
                        "detailedContent" => &mut output.detailed_content,
                        "contents" => &mut output.contents,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                            continue;
                        }
                    };
                    *slot = Some(map.next_value()?);
                }
                Ok(output)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<ToolOutput<'de>, A::Error> {
                skip_seq(seq).map(|()| ToolOutput::default())
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<ToolOutput<'de>, E> {
                Ok(ToolOutput::default())
            }
            otherwise!(ToolOutput::default());
        }
        deserializer.deserialize_any(Fields)
    }
}
