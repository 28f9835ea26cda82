//! GitHub Copilot CLI, in both the forms it writes:
//!
//! * its stdout with `copilot -p ... --output-format json --silent`: session events and a
//!   flat terminal `result` line;
//! * its session logs, `~/.copilot/session-state/<session id>/events.jsonl`: the same session
//!   events as they are persisted (the ephemeral ones, deltas and `assistant.usage`, are not),
//!   opened by `session.start` and closed by `session.shutdown` at the end of each process.
//!
//! One JSON object a line, in two envelopes: session events `{id, timestamp, parentId,
//! agentId?, ephemeral?, type, data}` (the Copilot SDK's vocabulary) and one flat terminal
//! `{type: "result", sessionId, exitCode, usage}`. Every event's `timestamp` is its source
//! time. How each event is read:
//!
//! * `user.message`: user text.
//! * `assistant.message`: `content` → text, verbatim (it may start with `"\n\n"`), skipped when
//!   empty; `reasoningText` → thinking, with `reasoningOpaque` / `encryptedContent` as its
//!   signature (an opaque value without text is a redacted thinking block); `toolRequests[]`
//!   → tool_use blocks. `outputTokens` is summed over all messages (not only the last).
//! * `assistant.reasoning`: thinking, held until the next event: when that is an
//!   `assistant.message` carrying `reasoningText`, the message's consolidated reasoning (with
//!   its signature) is the one kept, so the same reasoning is never delivered twice.
//! * `assistant.message_delta`, `assistant.reasoning_delta`, `assistant.streaming_delta`,
//!   `tool.execution_partial_result`, `tool.execution_progress`: ignored. They are ephemeral,
//!   and the consolidated `assistant.message` / `tool.execution_complete` always follows.
//! * `tool.execution_start`: the same call as the `toolRequests` entry with its
//!   `toolCallId`. A call becomes one tool_use, at whichever of the two comes first.
//! * `tool.execution_complete`: a user-side tool_result; `is_error` is `!success`; content is
//!   `result.content` (what the model saw), else `result.detailedContent`, else
//!   `result.contents`, else `error.message`.
//! * A `command` block follows the tool_use of `bash` / `shell` calls with `arguments.command`.
//! * `assistant.usage` (per API call; when present it replaces the `outputTokens` sum):
//!   `inputTokens` is taken to include cache reads and writes, as in the OpenAI-style usage
//!   Copilot's API reports, and is converted to axt's uncached convention. Its `cost` is a
//!   premium-request multiplier, not dollars, so `cost_usd` stays empty; the record is kept.
//! * `session.error`: a fatal run error; the run is failed. `session.warning`,
//!   `subagent.failed`: non-fatal run errors. The model comes from `session.tools_updated`,
//!   `tool.execution_complete` or `assistant.usage`.
//! * `result`: session id, exit code (non-zero: failed), `sessionDurationMs`; its `usage` is
//!   `raw_usage`.
//! * `session.start` (session logs): session id, CLI version (`copilotVersion`), the model
//!   selected (unless `auto`); `session.model_change`: the model (`newModel`).
//! * `session.shutdown` (session logs): the end of a process, and the run's terminal record
//!   when there is no `result` line: `shutdownType: "error"` fails the run with its
//!   `errorReason`, else the run completed. Its `modelMetrics` is the only token count a
//!   session log has, per model: `usage.inputTokens` includes the cache reads and writes
//!   (`tokenDetails` splits the same count: `input` + `cache_read` + `cache_write`), and is
//!   converted to axt's uncached convention. It replaces every other count (it covers the
//!   sub-agents too; `agentMetrics` splits the same tokens by agent). A resumed session has
//!   one shutdown per process: current CLIs write each as the session's running total, so a
//!   shutdown whose every count is at least the previous one's replaces it; older CLIs
//!   counted each process alone (github/copilot-cli#524), so a count that went down starts a
//!   new leg, added to the ones before. `currentModel` names the model; the record is kept
//!   as passthrough, `modelMetrics` as `raw_usage`.
//! * Everything else (`session.*`, `subagent.*`, `permission.*`, turn markers, types added
//!   later) is kept as passthrough metadata, except the ephemeral noise listed above.
//!
//! Sub-agent events carry the envelope's `agentId`: it becomes each item's `agent` scope.
//! Copilot can exit 0 without writing anything: a stream without the `result` line (or, in a
//! session log, without `session.shutdown`: a session still running) ends with a
//! missing-terminal warning and status incomplete.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::driver::{Adapter, Driver};
use super::framing::{Lines, Record};
use super::json::{Borrowed, JsonParser, Present, RecordShape, to_value};
use super::lenient::{otherwise, skip_seq};
use super::report::{Fate, Fields, Kind};
use super::tools::{PendingTools, missing_terminal};
use super::{
    Diagnostic, Item, Normalizer, Options, Output, Provider, RunError, RunMeta, RunStatus, Source,
    Usage,
};
use crate::model::tools::shell_commands;
use crate::model::{Block, ContentBlock, Fidelity, Role};

/// Whether the first record of an output looks like Copilot CLI JSONL: an enveloped session
/// event with a dotted type, or the flat terminal `result` with `sessionId` and `exitCode`.
pub(crate) fn claims(first: &Value) -> bool {
    let Some(kind) = first.get("type").and_then(Value::as_str) else {
        return false;
    };
    if kind == "result" {
        return first.get("sessionId").is_some() && first.get("exitCode").is_some();
    }
    kind.contains('.')
        && first.get("data").is_some_and(Value::is_object)
        && first.get("id").is_some()
        && first.get("timestamp").is_some()
}

/// The Copilot normalizer: the shared line driver around this adapter's state.
pub(crate) fn normalizer(options: Options) -> impl Normalizer + Send + use<> {
    let state = State::new();
    Driver::<Lines, State>::new(&options, state)
}

impl Adapter for State {
    const PROVIDER: Provider = Provider::Copilot;
    // Every event has its `timestamp`.
    const STAMPED: bool = true;

    fn record(&mut self, parser: &mut JsonParser, record: Record<'_>, out: &mut Output) {
        let Output { items, diagnostics } = out;
        self.claimed = false;
        parser.parse::<EventShape>(record, diagnostics, |event, diagnostics| {
            self.event(event, record, items, diagnostics)
        });
    }

    fn finish(&mut self, last: (u64, u64), out: &mut Output) {
        self.release_reasoning(None, &mut out.items);
        self.tools.report_dangling(&mut out.diagnostics);
        // The session's own totals first, then the per-call counts, then the messages'.
        self.meta.usage = match (&self.shutdown, self.api_usage) {
            (Some(shutdown), _) => shutdown.total(),
            (None, Some(api)) => api,
            (None, None) => Usage {
                output_tokens: self.message_output,
                ..Usage::default()
            },
        };
        if !self.saw_result {
            if self.session_failed {
                self.meta.status = RunStatus::Failed;
            } else if self.saw_shutdown {
                self.meta.status = RunStatus::Completed;
            }
        }
        if !self.saw_result && !self.saw_shutdown && !self.complete {
            let (line, offset) = last;
            out.diagnostics.push(missing_terminal(
                line,
                offset,
                "the result line (or a session log's session.shutdown)",
            ));
        }
    }

    fn meta(&self) -> &RunMeta {
        &self.meta
    }

    fn meta_mut(&mut self) -> &mut RunMeta {
        &mut self.meta
    }

    fn complete(&mut self) {
        self.complete = true;
    }

    fn claimed(&self) -> bool {
        self.claimed
    }
}

// ---------------------------------------------------------------------------------------
// The record shapes.

struct EventShape;
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

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Event<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    timestamp: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    agent_id: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    data: Option<Payload<'a>>,
    /// Read for the detection's sake (see [`Adapter::claimed`]).
    #[serde(default)]
    id: Present,
    // The flat `result` line.
    #[serde(borrow, default)]
    session_id: Option<Borrowed<'a>>,
    #[serde(default)]
    exit_code: Option<i64>,
    #[serde(default)]
    usage: Option<Value>,
}

/// `data`, every event type's fields side by side. Fields whose JSON type differs between
/// event types (`content`, `message`, `error`, `result`) are read as values.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Data<'a> {
    #[serde(borrow, default)]
    message_id: Option<Borrowed<'a>>,
    #[serde(default)]
    content: Option<Value>,
    #[serde(borrow, default)]
    tool_requests: Option<Vec<ToolRequest<'a>>>,
    #[serde(borrow, default)]
    reasoning_text: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    reasoning_opaque: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    encrypted_content: Option<Borrowed<'a>>,
    #[serde(default)]
    output_tokens: Option<u64>,
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    cache_read_tokens: Option<u64>,
    #[serde(default)]
    cache_write_tokens: Option<u64>,
    #[serde(default)]
    reasoning_tokens: Option<u64>,
    #[serde(borrow, default)]
    tool_call_id: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    tool_name: Option<Borrowed<'a>>,
    #[serde(default)]
    arguments: Option<Value>,
    #[serde(default)]
    success: Option<bool>,
    #[serde(default)]
    result: ToolOutput,
    #[serde(default)]
    error: Option<Value>,
    #[serde(default)]
    message: Option<Value>,
    #[serde(borrow, default)]
    error_type: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    model: Option<Borrowed<'a>>,
    // Session logs: session.start, session.model_change, session.shutdown.
    #[serde(borrow, default)]
    session_id: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    copilot_version: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    selected_model: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    new_model: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    current_model: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    shutdown_type: Option<Borrowed<'a>>,
    #[serde(default)]
    error_reason: Option<Value>,
    #[serde(default)]
    model_metrics: Option<Value>,
}

/// An event's `data`, read as [`Data`] reads it, and whether it was an object (which the
/// detection asks for) rather than an array read by position.
struct Payload<'a> {
    data: Data<'a>,
    object: bool,
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
                let data = Data::deserialize(MapAccessDeserializer::new(map))?;
                Ok(Payload { data, object: true })
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Payload<'de>, A::Error> {
                let data = Data::deserialize(SeqAccessDeserializer::new(seq))?;
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
struct ToolRequest<'a> {
    #[serde(borrow, default)]
    tool_call_id: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    name: Option<Borrowed<'a>>,
    #[serde(default)]
    arguments: Option<Value>,
}

/// A `tool.execution_complete`'s `result`, read for the three fields its content can come
/// from: a value of any other shape, and every other field, is skipped without being built
/// (the tool's output is most of a session's bytes; building the whole result as a value,
/// then copying the field out of it, cost two copies of it).
#[derive(Default)]
struct ToolOutput {
    content: Option<Value>,
    detailed_content: Option<Value>,
    contents: Option<Value>,
}

impl ToolOutput {
    /// `content` (what the model saw), else `detailedContent`, else `contents`: the first
    /// that is there and not null. A field given twice counts as its last copy, as in a value.
    fn content(self) -> Option<Value> {
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

// ---------------------------------------------------------------------------------------
// The state between records.

/// An `assistant.reasoning` waiting to see whether the next message consolidates it.
struct HeldReasoning {
    text: String,
    agent: Option<String>,
    source: Source,
}

struct State {
    meta: RunMeta,
    tools: PendingTools,
    held: Vec<HeldReasoning>,
    /// Sum of `assistant.message.outputTokens`.
    message_output: u64,
    /// Sum of `assistant.usage`, when the stream has any.
    api_usage: Option<Usage>,
    /// The tokens `session.shutdown` records count, when a session log has them.
    shutdown: Option<ShutdownUsage>,
    session_failed: bool,
    saw_result: bool,
    /// A session log's `session.shutdown` was seen (its terminal when no `result` is).
    saw_shutdown: bool,
    /// The caller says the input is whole without a terminal record (an importer reading a
    /// sub-agent's events out of a session log, or a session still running).
    complete: bool,
    /// The record just read is one `claims` claims (see [`Adapter::claimed`]).
    claimed: bool,
}

impl State {
    fn new() -> Self {
        State {
            meta: RunMeta::new(Provider::Copilot),
            tools: PendingTools::default(),
            held: Vec::new(),
            message_output: 0,
            api_usage: None,
            shutdown: None,
            session_failed: false,
            saw_result: false,
            saw_shutdown: false,
            complete: false,
            claimed: false,
        }
    }

    fn event(
        &mut self,
        event: Event<'_>,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Fate {
        if let Some(time) = &event.timestamp {
            self.meta.saw_time(time);
        }
        let kind = &*event.kind;
        // What `claims` asks of an enveloped event (a dotted type, a `data` object, `id`
        // and `timestamp`), known from the record as read.
        self.claimed = kind.contains('.')
            && event.id.0
            && event.timestamp.is_some()
            && event.data.as_ref().is_some_and(|payload| payload.object);
        if matches!(
            kind,
            "assistant.message_delta"
                | "assistant.reasoning_delta"
                | "assistant.streaming_delta"
                | "tool.execution_partial_result"
                | "tool.execution_progress"
        ) {
            return Fate::Ignored;
        }
        let agent = event.agent_id.as_deref().map(str::to_owned);
        let at = Place {
            agent,
            message_id: None,
            source: Source::record(record.line, record.offset),
        };
        if kind == "assistant.reasoning" {
            let text = (event.data).and_then(|p| p.data.content).map(value_text);
            if let Some(text) = text.filter(|t| !t.is_empty()) {
                self.held.push(HeldReasoning {
                    text,
                    agent: at.agent,
                    source: at.source,
                });
            }
            return Fate::Mapped;
        }
        if kind != "assistant.message" {
            self.release_reasoning(None, items);
        }
        if kind == "result" {
            self.result(event, record);
            return Fate::Mapped;
        }
        let Some(Payload { data, .. }) = event.data else {
            self.keep(record, kind);
            return Fate::Passthrough;
        };
        match kind {
            "user.message" => {
                if let Some(text) = data.content.map(value_text).filter(|t| !t.is_empty()) {
                    let block = ContentBlock::text(Fidelity::AgentEmitted, text);
                    items.push(at.item(block, Role::User));
                }
            }
            "assistant.message" => self.assistant_message(data, at, record, items),
            "tool.execution_start" => {
                if let Some(model) = data.model.as_deref() {
                    self.meta.model = Some(model.to_owned());
                }
                let tool_id = data.tool_call_id.as_deref().unwrap_or("");
                let name = data.tool_name.as_deref().unwrap_or("");
                self.tool_use(tool_id, name, data.arguments, &at, record, items);
            }
            "tool.execution_complete" => {
                if let Some(model) = data.model.as_deref() {
                    self.meta.model = Some(model.to_owned());
                }
                let tool_id = data
                    .tool_call_id
                    .map(Borrowed::into_owned)
                    .unwrap_or_default();
                self.tools
                    .answer(&tool_id, record.line, record.offset, diagnostics);
                let success = data.success.unwrap_or(true);
                let content = data
                    .result
                    .content()
                    .or_else(|| data.error.as_ref().and_then(|e| e.get("message")).cloned())
                    .unwrap_or(Value::Null);
                let block = Block::ToolResult {
                    tool_id,
                    tool_content: content,
                    is_error: !success,
                    exit_code: None,
                };
                let block = ContentBlock::new(Fidelity::AgentEmitted, block);
                items.push(at.item(block, Role::User));
            }
            "assistant.usage" => {
                if let Some(model) = data.model.as_deref() {
                    self.meta.model = Some(model.to_owned());
                }
                let cache_read = data.cache_read_tokens.unwrap_or(0);
                let cache_write = data.cache_write_tokens.unwrap_or(0);
                let usage = Usage {
                    input_tokens: data
                        .input_tokens
                        .unwrap_or(0)
                        .saturating_sub(cache_read + cache_write),
                    output_tokens: data.output_tokens.unwrap_or(0),
                    cache_read_tokens: cache_read,
                    cache_write_tokens: cache_write,
                    reasoning_tokens: data.reasoning_tokens.unwrap_or(0),
                };
                self.api_usage
                    .get_or_insert_with(Usage::default)
                    .add(&usage);
                // `cost` is a premium-request multiplier, not dollars: kept verbatim only.
                self.keep(record, kind);
            }
            "session.tools_updated" => {
                if let Some(model) = data.model.as_deref() {
                    self.meta.model = Some(model.to_owned());
                }
                self.keep(record, kind);
            }
            "session.error" => {
                self.session_failed = true;
                let message = data.message.map(value_text).unwrap_or_default();
                let message = match data.error_type.as_deref() {
                    Some(kind) if !kind.is_empty() => format!("{kind}: {message}"),
                    // Nothing said: the record's type is all there is.
                    _ if message.is_empty() => kind.to_owned(),
                    _ => message,
                };
                self.error(message, true, record);
                self.keep(record, kind);
            }
            "session.warning" | "subagent.failed" => {
                let message = data
                    .message
                    .or(data.error)
                    .map(value_text)
                    .unwrap_or_else(|| kind.to_owned());
                self.error(message, false, record);
                self.keep(record, kind);
            }
            "session.start" => {
                if let Some(session) = data.session_id {
                    self.meta.session_id = Some(session.into_owned());
                }
                if let Some(version) = data.copilot_version {
                    self.meta.provider_version = Some(version.into_owned());
                }
                // `auto` is a placeholder until the first model call picks one.
                if let Some(model) = data.selected_model.filter(|m| !m.is_empty() && m != "auto") {
                    self.meta.model = Some(model.into_owned());
                }
                self.keep(record, kind);
            }
            "session.model_change" => {
                if let Some(model) = data.new_model.filter(|m| !m.is_empty() && m != "auto") {
                    self.meta.model = Some(model.into_owned());
                }
                self.keep(record, kind);
            }
            "session.shutdown" => self.shutdown(data, record),
            _ => {
                self.keep(record, kind);
                return Fate::Passthrough;
            }
        }
        Fate::Mapped
    }

    /// A session log's `session.shutdown`: the process ended; its token counts.
    fn shutdown(&mut self, data: Data<'_>, record: Record<'_>) {
        self.saw_shutdown = true;
        if let Some(model) = data.current_model.filter(|m| !m.is_empty() && m != "auto") {
            self.meta.model = Some(model.into_owned());
        }
        if data.shutdown_type.as_deref() == Some("error") {
            self.session_failed = true;
            let reason = data.error_reason.map(value_text).unwrap_or_default();
            let message = match reason.is_empty() {
                true => "the session shut down on an error".to_owned(),
                false => reason,
            };
            self.error(message, true, record);
        }
        if let Some(metrics) = data.model_metrics {
            let per_model = model_metrics(&metrics);
            if !per_model.is_empty() {
                self.shutdown
                    .get_or_insert_with(ShutdownUsage::default)
                    .add(per_model);
                self.meta.raw_usage = Some(metrics);
            }
        }
        self.keep(record, "session.shutdown");
    }

    fn assistant_message(
        &mut self,
        data: Data<'_>,
        at: Place,
        record: Record<'_>,
        items: &mut Vec<Item>,
    ) {
        let at = Place {
            message_id: data.message_id.as_deref().map(str::to_owned),
            ..at
        };
        self.message_output += data.output_tokens.unwrap_or(0);
        let signature = data
            .reasoning_opaque
            .or(data.encrypted_content)
            .map(Borrowed::into_owned)
            .filter(|s| !s.is_empty());
        match data.reasoning_text.filter(|t| !t.is_empty()) {
            // The consolidated reasoning replaces the `assistant.reasoning` events before it.
            Some(text) => {
                self.held.clear();
                let block = Block::Thinking {
                    thinking: text.into_owned(),
                    signature,
                    redacted: false,
                };
                items.push(at.item(
                    ContentBlock::new(Fidelity::AgentEmitted, block),
                    Role::Assistant,
                ));
            }
            // Reasoning the provider withheld: only its opaque token arrived.
            None if self.held.is_empty() => {
                if let Some(signature) = signature {
                    let block = Block::Thinking {
                        thinking: String::new(),
                        signature: Some(signature),
                        redacted: true,
                    };
                    let block = ContentBlock::new(Fidelity::AgentEmitted, block);
                    items.push(at.item(block, Role::Assistant));
                }
            }
            None => self.release_reasoning(signature, items),
        }
        if let Some(text) = data.content.map(value_text).filter(|t| !t.is_empty()) {
            let block = ContentBlock::text(Fidelity::AgentEmitted, text);
            items.push(at.item(block, Role::Assistant));
        }
        for request in data.tool_requests.unwrap_or_default() {
            let tool_id = request.tool_call_id.as_deref().unwrap_or("");
            let name = request.name.as_deref().unwrap_or("");
            self.tool_use(tool_id, name, request.arguments, &at, record, items);
        }
    }

    /// Hands out held `assistant.reasoning` blocks; an opaque signature from the message that
    /// follows them goes on the last one (or on a redacted block of its own).
    fn release_reasoning(&mut self, signature: Option<String>, items: &mut Vec<Item>) {
        let held = std::mem::take(&mut self.held);
        let count = held.len();
        let mut signature = signature;
        for (index, reasoning) in held.into_iter().enumerate() {
            let block = Block::Thinking {
                thinking: reasoning.text,
                signature: if index + 1 == count {
                    signature.take()
                } else {
                    None
                },
                redacted: false,
            };
            items.push(Item {
                block: ContentBlock::new(Fidelity::AgentEmitted, block),
                role: Role::Assistant,
                message_id: None,
                agent: reasoning.agent,
                subagent: None,
                source: reasoning.source,
                time: None,
            });
        }
    }

    /// One tool_use per call id, from whichever of `toolRequests` / `execution_start` comes
    /// first; plus its command block for shell tools.
    fn tool_use(
        &mut self,
        tool_id: &str,
        name: &str,
        arguments: Option<Value>,
        at: &Place,
        record: Record<'_>,
        items: &mut Vec<Item>,
    ) {
        if !self.tools.open(tool_id, name, record.line, record.offset) && !tool_id.is_empty() {
            return;
        }
        let tool_input = arguments.unwrap_or(Value::Null);
        let commands = shell_commands(name, &tool_input);
        let block = ContentBlock::tool_use(Fidelity::AgentEmitted, name, tool_id, tool_input);
        items.push(at.item(block, Role::Assistant));
        for command in commands {
            let block = Block::Command {
                command,
                tool_id: Some(tool_id.to_owned()).filter(|id| !id.is_empty()),
            };
            items.push(at.item(
                ContentBlock::new(Fidelity::AgentEmitted, block),
                Role::Assistant,
            ));
        }
    }

    fn result(&mut self, event: Event<'_>, record: Record<'_>) {
        self.saw_result = true;
        if let Some(session) = event.session_id {
            self.meta.session_id = Some(session.into_owned());
        }
        let exit_code = event.exit_code.unwrap_or(0);
        let failed = exit_code != 0 || self.session_failed;
        self.meta.status = if failed {
            RunStatus::Failed
        } else {
            RunStatus::Completed
        };
        if exit_code != 0 && !self.meta.errors.iter().any(|e| e.fatal) {
            self.error(
                format!("the CLI exited with code {exit_code}"),
                true,
                record,
            );
        }
        if let Some(usage) = event.usage {
            if let Some(ms) = usage.get("sessionDurationMs").and_then(Value::as_u64) {
                self.meta.duration_ms = Some(ms);
            }
            self.meta.raw_usage = Some(usage);
        }
    }

    fn error(&mut self, message: String, fatal: bool, record: Record<'_>) {
        self.meta.errors.push(RunError {
            message,
            fatal,
            line: record.line,
        });
    }

    fn keep(&mut self, record: Record<'_>, kind: &str) {
        self.meta.keep(record.line, kind, || to_value(record.bytes));
    }
}

/// The token counts of a session log's `session.shutdown` records, per model.
#[derive(Default)]
struct ShutdownUsage {
    /// The legs before the current one, added up (older CLIs count each process alone).
    legs_before: Usage,
    /// The latest shutdown's counts, per model.
    last: Vec<(String, Usage)>,
}

impl ShutdownUsage {
    /// The next shutdown's counts: the same leg's running total when no count went down,
    /// else a new leg.
    fn add(&mut self, per_model: Vec<(String, Usage)>) {
        let running_total = self.last.iter().all(|(model, before)| {
            per_model
                .iter()
                .find(|(m, _)| m == model)
                .is_some_and(|(_, now)| not_less(now, before))
        });
        if !running_total {
            self.legs_before.add(&sum(&self.last));
        }
        self.last = per_model;
    }

    fn total(&self) -> Usage {
        let mut total = self.legs_before;
        total.add(&sum(&self.last));
        total
    }
}

fn sum(per_model: &[(String, Usage)]) -> Usage {
    let mut total = Usage::default();
    for (_, usage) in per_model {
        total.add(usage);
    }
    total
}

fn not_less(now: &Usage, before: &Usage) -> bool {
    now.input_tokens >= before.input_tokens
        && now.output_tokens >= before.output_tokens
        && now.cache_read_tokens >= before.cache_read_tokens
        && now.cache_write_tokens >= before.cache_write_tokens
        && now.reasoning_tokens >= before.reasoning_tokens
}

/// `modelMetrics`: `{<model>: {usage: {inputTokens, outputTokens, cacheReadTokens,
/// cacheWriteTokens, reasoningTokens}, requests}}`, `inputTokens` including the cache. Models
/// without a `usage` object are left out.
fn model_metrics(metrics: &Value) -> Vec<(String, Usage)> {
    let Some(models) = metrics.as_object() else {
        return Vec::new();
    };
    models
        .iter()
        .filter_map(|(model, entry)| {
            let usage = entry.get("usage")?.as_object()?;
            let count = |field: &str| usage.get(field).and_then(Value::as_u64).unwrap_or(0);
            let (cache_read, cache_write) = (count("cacheReadTokens"), count("cacheWriteTokens"));
            let usage = Usage {
                input_tokens: count("inputTokens").saturating_sub(cache_read + cache_write),
                output_tokens: count("outputTokens"),
                cache_read_tokens: cache_read,
                cache_write_tokens: cache_write,
                reasoning_tokens: count("reasoningTokens"),
            };
            Some((model.clone(), usage))
        })
        .collect()
}

/// Where an event's blocks belong.
struct Place {
    agent: Option<String>,
    message_id: Option<String>,
    source: Source,
}

impl Place {
    fn item(&self, block: ContentBlock, role: Role) -> Item {
        Item {
            block,
            role,
            message_id: self.message_id.clone(),
            agent: self.agent.clone(),
            subagent: None,
            source: self.source,
            time: None,
        }
    }
}

/// A string as itself; anything else as its JSON text.
fn value_text(value: Value) -> String {
    match value {
        Value::String(text) => text,
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The adapter says a record is its own only where the detection claims it, so the
    /// check for another provider's records, which it spares, would have found nothing.
    #[test]
    fn a_record_is_said_to_be_claimed_only_where_the_detection_claims_it() {
        let stamp = "2026-01-01T00:00:00.000Z";
        let lines = [
            // Passthrough events, enveloped as Copilot writes them: claimed.
            (
                json!({"type": "assistant.turn_start", "data": {"turnId": "1"}, "id": "e1",
                "timestamp": stamp, "parentId": null}),
                true,
            ),
            (
                json!({"type": "session.idle", "data": {}, "id": null, "timestamp": stamp}),
                true,
            ),
            // Short of the envelope: left to the check.
            (
                json!({"type": "assistant.turn_start", "data": {}, "timestamp": stamp}),
                false,
            ),
            (
                json!({"type": "assistant.turn_start", "data": [], "id": "e1",
                "timestamp": stamp}),
                false,
            ),
            (
                json!({"type": "assistant.turn_start", "data": null, "id": "e1",
                "timestamp": stamp}),
                false,
            ),
            (
                json!({"type": "assistant.turn_start", "id": "e1", "timestamp": stamp}),
                false,
            ),
            (
                json!({"type": "assistant.turn_start", "data": {}, "id": "e1",
                "timestamp": null}),
                false,
            ),
            (
                json!({"type": "turn_start", "data": {}, "id": "e1", "timestamp": stamp}),
                false,
            ),
            (
                json!({"type": "result", "sessionId": "s", "exitCode": 0, "timestamp": stamp}),
                false,
            ),
        ];
        for (line, claimed) in lines {
            let bytes = line.to_string();
            let mut state = State::new();
            let mut parser = JsonParser::default();
            let mut out = Output::default();
            // A record read before it, claimed, must not leave its mark on this one.
            let before =
                json!({"type": "session.idle", "data": {}, "id": "e0", "timestamp": stamp});
            let before = before.to_string();
            state.record(
                &mut parser,
                Record::line(before.as_bytes(), 1, 0, true),
                &mut out,
            );
            assert!(state.claimed());
            state.record(
                &mut parser,
                Record::line(bytes.as_bytes(), 2, 0, true),
                &mut out,
            );
            assert_eq!(state.claimed(), claimed, "{line}");
            assert!(!state.claimed() || claims(&line), "{line}");
        }
    }
}
