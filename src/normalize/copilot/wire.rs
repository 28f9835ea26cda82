//! Copilot's records as read: the session-event envelope and the flat `result` ([`Event`]),
//! an event's `data` ([`Data`]), and the shape checks the report's unknown-field count uses
//! ([`EventShape`]), and an ignored event's envelope read unparsed ([`skim_ignored`]). Reads
//! only: what the fields mean is [`super::state`]'s.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::super::json::{Borrowed, Present, RecordShape};
use super::super::lenient::{once, otherwise, skip_map, skip_seq};
use super::super::report::{Fields, Kind};
use super::super::skim::string_end;

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
    #[serde(default)]
    pub(super) result: ToolOutput,
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
/// then copying the field out of it, cost two copies of it).
#[derive(Default)]
pub(super) struct ToolOutput {
    pub(super) content: Option<Value>,
    pub(super) detailed_content: Option<Value>,
    pub(super) contents: Option<Value>,
}

impl ToolOutput {
    /// `content` (what the model saw), else `detailedContent`, else `contents`: the first
    /// that is there and not null. A field given twice counts as its last copy, as in a value.
    pub(super) fn content(self) -> Option<Value> {
        [self.content, self.detailed_content, self.contents]
            .into_iter()
            .flatten()
            .find(|value| !value.is_null())
    }
}

impl<'de> Deserialize<'de> for ToolOutput {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Fields;
        impl<'de> Visitor<'de> for Fields {
            type Value = ToolOutput;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ToolOutput, A::Error> {
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
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<ToolOutput, A::Error> {
                skip_seq(seq).map(|()| ToolOutput::default())
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<ToolOutput, E> {
                Ok(ToolOutput::default())
            }
            otherwise!(ToolOutput::default());
        }
        deserializer.deserialize_any(Fields)
    }
}

/// What [`Event`] reads of an ignored event (see [`ignored`]) and the adapter asks of
/// one: its type, its time and whether it is enveloped as `claims` wants it.
pub(super) struct Skimmed<'a> {
    pub(super) kind: &'static str,
    pub(super) timestamp: Option<&'a str>,
    pub(super) id: bool,
    pub(super) data_object: bool,
}

/// The types of events whose `data` the adapter never reads (each with a dot: `claims`
/// asks for one).
const IGNORED: [&str; 5] = [
    "assistant.message_delta",
    "assistant.reasoning_delta",
    "assistant.streaming_delta",
    "tool.execution_partial_result",
    "tool.execution_progress",
];

/// An ignored event read by a skim, not parsed: `None` for any other record, and for one
/// the skim does not read exactly as [`Event`] reads it through simd-json (the caller then
/// parses it). The streaming deltas are most of a stdout stream's lines (11,690 of the
/// normalize bench's 14,427) and only their envelope is read, but parsing each into
/// simd-json's tape and reading it cost ~4,700 instructions a delta.
///
/// Read only as Copilot writes an event: compact (no whitespace between tokens), `type`
/// first and plain; `data` an object of scalar members, or null; `timestamp`, `agentId` and
/// `sessionId` plain strings or null, each once, `id` once. Given up at a nested value, at
/// `exitCode` or `usage` (typed reads), at an escaped key or an escaped string of these
/// fields, at invalid UTF-8 (the parser's repair reports it), and at what simd-json refuses
/// but JSON's grammar allows: a `\u` escape of a surrogate, and any number but an integer
/// of at most 18 digits.
pub(super) fn skim_ignored(bytes: &[u8]) -> Option<Skimmed<'_>> {
    const TYPE: &[u8] = b"{\"type\":\"";
    let rest = bytes.strip_prefix(TYPE)?;
    let kind = IGNORED
        .into_iter()
        .find(|kind| rest.starts_with(kind.as_bytes()) && rest.get(kind.len()) == Some(&b'"'))?;
    let text = std::str::from_utf8(bytes).ok()?;
    let mut read = Compact {
        bytes,
        at: TYPE.len() + kind.len() + 1,
    };
    let (mut timestamp, mut agent, mut session) = (None, None, None);
    let (mut data, mut id) = (None, None);
    while read.next()? {
        match read.key()? {
            b"timestamp" => timestamp = Some(read.plain_or_null(text, timestamp)?),
            b"agentId" => agent = Some(read.plain_or_null(text, agent)?),
            b"sessionId" => session = Some(read.plain_or_null(text, session)?),
            b"data" if data.is_none() => {
                if read.literal(b"null") {
                    data = Some(false);
                    continue;
                }
                data = Some(true);
                read.eat(b'{')?;
                if read.eat(b'}').is_none() {
                    loop {
                        read.key()?;
                        read.scalar()?;
                        if !read.next()? {
                            break;
                        }
                    }
                }
            }
            b"id" if id.is_none() => {
                id = Some(());
                read.scalar()?;
            }
            b"type" | b"data" | b"id" | b"exitCode" | b"usage" => return None,
            _ => read.scalar()?,
        }
    }
    (read.at == bytes.len()).then_some(Skimmed {
        kind,
        timestamp: timestamp.flatten(),
        id: id.is_some(),
        data_object: data == Some(true),
    })
}

/// A compact record read token by token (see [`skim_ignored`]).
struct Compact<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Compact<'_> {
    fn eat(&mut self, byte: u8) -> Option<()> {
        (self.bytes.get(self.at) == Some(&byte)).then(|| self.at += 1)
    }

    fn literal(&mut self, word: &[u8]) -> bool {
        self.bytes[self.at..].starts_with(word) && {
            self.at += word.len();
            true
        }
    }

    /// Past a `,` (`true`: a member follows) or the object's `}` (`false`).
    fn next(&mut self) -> Option<bool> {
        match self.bytes.get(self.at)? {
            b',' => {
                self.at += 1;
                Some(true)
            }
            b'}' => {
                self.at += 1;
                Some(false)
            }
            _ => None,
        }
    }

    /// A key without escapes, and its colon.
    fn key(&mut self) -> Option<&[u8]> {
        self.eat(b'"')?;
        let start = self.at;
        let (end, escaped) = string_end(self.bytes, start)?;
        if escaped {
            return None;
        }
        self.at = end;
        self.eat(b':')?;
        Some(&self.bytes[start..end - 1])
    }

    /// A string without escapes, or null, given as `seen` was not (a field once).
    fn plain_or_null<'t>(
        &mut self,
        text: &'t str,
        seen: Option<Option<&'t str>>,
    ) -> Option<Option<&'t str>> {
        if seen.is_some() {
            return None;
        }
        if self.literal(b"null") {
            return Some(None);
        }
        self.eat(b'"')?;
        let start = self.at;
        let (end, escaped) = string_end(self.bytes, start)?;
        self.at = end;
        if escaped {
            return None;
        }
        text.get(start..end - 1).map(Some)
    }

    /// A string, `true`, `false`, `null`, or an integer of at most 18 digits.
    fn scalar(&mut self) -> Option<()> {
        match *self.bytes.get(self.at)? {
            b'"' => {
                let (end, escaped) = string_end(self.bytes, self.at + 1)?;
                let string = &self.bytes[self.at..end];
                self.at = end;
                // simd-json refuses a lone surrogate: not told apart here.
                let surrogate = |at: usize| matches!(string.get(at + 2), Some(b'd' | b'D'));
                (!escaped || !memchr::memmem::find_iter(string, b"\\u").any(surrogate))
                    .then_some(())
            }
            b't' => self.literal(b"true").then_some(()),
            b'f' => self.literal(b"false").then_some(()),
            b'n' => self.literal(b"null").then_some(()),
            _ => {
                self.eat(b'-');
                let start = self.at;
                while self.bytes.get(self.at).is_some_and(u8::is_ascii_digit) {
                    self.at += 1;
                }
                let digits = &self.bytes[start..self.at];
                let fraction = matches!(self.bytes.get(self.at), Some(b'.' | b'e' | b'E'));
                let leading_zero = digits.len() > 1 && digits[0] == b'0';
                (!digits.is_empty() && digits.len() <= 18 && !fraction && !leading_zero)
                    .then_some(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An event read as the parser reads it: the line into simd-json, then [`Event`].
    fn parsed(line: &str) -> Option<(String, Option<String>, bool, bool)> {
        let mut bytes = line.as_bytes().to_vec();
        let event = simd_json::serde::from_slice::<Event<'_>>(&mut bytes).ok()?;
        Some((
            event.kind.into_owned(),
            event.timestamp.map(Borrowed::into_owned),
            event.id.0,
            event.data_object,
        ))
    }

    fn skimmed(line: &str) -> Option<(String, Option<String>, bool, bool)> {
        let read = skim_ignored(line.as_bytes())?;
        Some((
            read.kind.to_owned(),
            read.timestamp.map(str::to_owned),
            read.id,
            read.data_object,
        ))
    }

    const DELTA: &str = r#"{"type":"assistant.message_delta","data":{"messageId":"m-1","deltaContent":"a \"b\"\n\u00e9 ß"},"id":"e-2","timestamp":"2026-04-02T15:00:00.640Z","parentId":"e-1","ephemeral":true}"#;

    /// What a skim reads, the parser reads the same; what it does not read exactly is
    /// given up (the parser reads it): every change of a delta below is one or the other.
    #[test]
    fn a_skimmed_event_is_read_as_the_parser_reads_it() {
        let head = r#"{"type":"assistant.message_delta""#;
        let taken = [
            DELTA.to_owned(),
            format!(r#"{head},"data":null,"id":null,"timestamp":null}}"#),
            format!(r#"{head},"data":{{}},"agentId":"a","sessionId":null}}"#),
            format!(r#"{head}}}"#),
            format!(r#"{head},"data":{{"n":-12,"z":0,"b":false,"x":null}},"id":7,"k":1,"k":"2"}}"#),
            format!(r#"{head},"x":"\u00e9\uabcd\\x","id":"e","timestamp":"t","data":{{}}}}"#),
            format!(r#"{head},"data":{{"big":999999999999999999}}}}"#),
            DELTA.replace("assistant.message_delta", "tool.execution_progress"),
            DELTA.replace("assistant.message_delta", "tool.execution_partial_result"),
            DELTA.replace("assistant.message_delta", "assistant.reasoning_delta"),
            DELTA.replace("assistant.message_delta", "assistant.streaming_delta"),
        ];
        for line in &taken {
            let read = skimmed(line);
            assert!(read.is_some(), "skimmed: {line}");
            assert_eq!(read, parsed(line), "{line}");
        }
        let given_up = [
            format!(" {DELTA}"),
            format!("{DELTA} "),
            format!("{DELTA}x"),
            DELTA[..DELTA.len() - 1].to_owned(),
            DELTA.replace(r#""id""#, r#" "id""#),
            DELTA.replace("message_delta", r"message\u005fdelta"),
            DELTA.replace("assistant.message_delta", "assistant.message"),
            DELTA.replace("assistant.message_delta", "assistant.message_deltas"),
            DELTA.replace(r#""timestamp":"2026"#, r#""timestamp":"\u0032026"#),
            DELTA.replace(
                r#""timestamp":"2026-04-02T15:00:00.640Z""#,
                r#""timestamp":5"#,
            ),
            DELTA.replace(r#""parentId""#, r#""timestamp":null,"parentId""#),
            DELTA.replace(r#""parentId""#, r#""id":null,"parentId""#),
            DELTA.replace(r#""parentId""#, r#""data":null,"parentId""#),
            DELTA.replace(r#""parentId""#, r#""type":"x","parentId""#),
            DELTA.replace(r#""parentId""#, r#""exitCode":0,"parentId""#),
            DELTA.replace(r#""parentId""#, r#""usage":{},"parentId""#),
            DELTA.replace(r#""parentId""#, r#""agentId":3,"parentId""#),
            DELTA.replace(r#""parentId""#, r#""p\u0061rentId""#),
            DELTA.replace(r#""ephemeral":true"#, r#""ephemeral":tru"#),
            DELTA.replace(r#""ephemeral":true"#, r#""ephemeral":{"a":1}"#),
            DELTA.replace(r#""ephemeral":true"#, r#""ephemeral":[]"#),
            DELTA.replace(r#""ephemeral":true"#, r#""ephemeral":01"#),
            DELTA.replace(r#""ephemeral":true"#, r#""ephemeral":1.5"#),
            DELTA.replace(r#""ephemeral":true"#, r#""ephemeral":1e5"#),
            DELTA.replace(r#""ephemeral":true"#, r#""ephemeral":-"#),
            DELTA.replace(r#""ephemeral":true"#, r#""ephemeral":1234567890123456789"#),
            DELTA.replace(
                r#""ephemeral":true"#,
                r#""ephemeral":99999999999999999999999"#,
            ),
            DELTA
                .replace(r#""data":{"#, r#""data":["#)
                .replace(r#""},"id""#, r#""],"id""#),
            DELTA.replace(r#""data":{"messageId":"m-1","#, r#""data":"m","x":{"#),
            DELTA.replace("ß", r"\ud800"),
            DELTA.replace("ß", r"\uDC00"),
            DELTA.replace("ß", r"\ud83d\ude00"),
            DELTA.replace("ß", r"\x"),
            DELTA.replace("ß", r"\u12"),
            DELTA.replace("ß", "\t"),
            DELTA.replace("ß", "\u{1}"),
        ];
        for line in &given_up {
            assert_eq!(skimmed(line), None, "given up: {line}");
        }
        // Lines the skim gives up on whichever way the parser reads them (refused or not).
        let refused = given_up
            .iter()
            .filter(|line| parsed(line).is_none())
            .count();
        assert!(refused > 10 && refused < given_up.len(), "{refused}");
        // Invalid UTF-8 (the parser's repair reports it).
        let mut bytes = DELTA.as_bytes().to_vec();
        let at = DELTA.find('ß').expect("ß");
        bytes[at + 1] = b'x';
        assert!(skim_ignored(&bytes).is_none());
    }

    /// Every record of the corpus the skim reads, the parser reads alike, and every
    /// ignored event of it is read by the skim.
    #[test]
    fn the_corpus_deltas_are_skimmed_as_they_are_parsed() {
        let corpus = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/normalize/copilot");
        let mut skimmed_lines = 0;
        for outcome in ["ok", "err"] {
            let dir = std::fs::read_dir(format!("{corpus}/{outcome}")).expect("the corpus");
            for entry in dir {
                let input = std::fs::read(entry.expect("a fixture").path()).expect("a fixture");
                for line in input.split(|b| *b == b'\n') {
                    let Ok(line) = std::str::from_utf8(line) else {
                        continue;
                    };
                    let read = skimmed(line);
                    if read.is_some() {
                        skimmed_lines += 1;
                        assert_eq!(read, parsed(line), "{line}");
                    } else if let Some(event) = parsed(line) {
                        assert!(!ignored(&event.0), "not skimmed: {line}");
                    }
                }
            }
        }
        assert!(skimmed_lines >= 9, "{skimmed_lines}");
    }
}
