//! Amazon Bedrock's Converse API: `Converse` response bodies, `ConverseStream` events, and
//! request bodies for the tool results they carry. (Bedrock's `InvokeModel` serves the
//! model's own API instead: Anthropic's Messages API is read by the `anthropic` adapter, the
//! binary `InvokeModelWithResponseStream` too, its `chunk` payloads decoded by the
//! event-stream framing.)
//!
//! Shapes follow the Bedrock Runtime API reference (`ConverseResponse`,
//! `ConverseStreamOutput`, `ContentBlock`, `TokenUsage`); the framing and where a server
//! tool's result sits were learned from real streams (Nova, 2025).
//!
//! # Input
//!
//! HTTP bodies (the `Http` framing):
//!
//! * a `ConverseStream` response as it comes over the wire, the binary
//!   `application/vnd.amazon.eventstream` framing (see `framing/eventstream.rs`: both CRCs
//!   checked, a bad message reported and skipped, the rest read), each message made the
//!   record the AWS SDKs give once decoded: `{"contentBlockDelta": {...}}`;
//! * the same events decoded, one a line (boto3's `stream` events saved as JSON);
//! * a `Converse` response body (`{output: {message}, stopReason, usage, metrics}`);
//! * an exception, `{"throttlingException": {"message": ...}}`, in a stream or as a body;
//! * a request body, `{modelId, messages, system, toolConfig, inferenceConfig}`.
//!
//! **Conversation files.** As for the other HTTP adapters: each request followed by the
//! response that answered it; a request repeats the history (`messages`), so only the
//! messages after those already read are read again.
//!
//! # Mapping
//!
//! * A message's blocks (`content.rs` for whole ones, `stream.rs` for streamed ones): text;
//!   `reasoningContent` a thinking block with its signature (`redactedContent` a redacted
//!   one, its bytes the signature); `toolUse` a tool call (and a `command` block for a shell
//!   tool), `type: server_tool_use` a server tool's; a `toolResult` in a response (a server
//!   tool's, Nova's code interpreter) its assistant-side result; in a request, a client's
//!   result of the call it names, failed when its `status` is `error`. A kind axt has no
//!   form for (`image`, `document`, `cachePoint`, ...) is kept in the metadata with an
//!   `unknown-block-type` warning; a text's citations are kept as passthrough.
//! * Bedrock gives messages no id: items carry none.
//! * Metadata: the stop reason from `stopReason` (the Messages API's words;
//!   `guardrail_intervened` and `content_filtered` are `refusal`), `modelId` of a request as
//!   the model; usage per message summed (see the table in [`crate::normalize`]), the last
//!   `usage` kept verbatim; `metrics` (latency), a guardrail's `trace`, the
//!   `additionalModelResponseFields` and the rest of a body kept as passthrough.
//! * An exception is a fatal run error (`throttlingException: ...`), the stop reason
//!   `error` (raw: its name), the run failed; what was streaming is handed out as far as it
//!   came (an `incomplete-block` warning).
//!
//! A stream that ends before its `messageStop` (or an input with no response at all) hands
//! out what it has and says so with a `missing-terminal` warning.

use serde_json::{Map, Value};

use super::driver::{Adapter, Driver};
use super::framing::{Http, Record};
use super::history::reading_past;
use super::json::{JsonParser, Parsed, to_value};
use super::messages_api::{Assembly, Canonical};
use super::report::Fate;
use super::tools::{PendingTools, missing_terminal};
use super::{
    Diagnostic, DiagnosticKind, Item, Normalizer, Options, Output, Provider, RunError, RunMeta,
    RunStatus, Source, StopKind, StopReason, Usage,
};
use crate::model::{Block, ContentBlock, Fidelity, Role};

// The files of the adapter: this one holds detection, the state and the dispatch of a
// record; `stream` the stream's events; `bodies` a response body and a request; `content`
// a whole content block; `wire` the record shapes; `skim` the reading of a text delta
// without the parser.
mod bodies;
mod content;
mod skim;
mod stream;
#[cfg(test)]
mod tests;
mod wire;

use stream::OpenResult;
use wire::{EVENTS, Wire, WireShape};

/// Whether a record is Bedrock Converse's: a stream event (`{"messageStart": {...}}`, ...),
/// an exception (`{"...Exception": {...}}`), a response body (`output.message` and a
/// `stopReason`), or a request whose messages' content is a list of keyed blocks (none
/// with a `type`: that is the Messages API's and OpenAI's).
pub(crate) fn claims(record: &Value) -> bool {
    let Some(object) = record.as_object() else {
        return false;
    };
    if let Some((key, value)) = object.iter().next()
        && object.len() == 1
        && value.is_object()
    {
        let metadata =
            key == "metadata" && (value.get("usage").is_some() || value.get("metrics").is_some());
        return (EVENTS.contains(&key.as_str()) && key != "metadata")
            || metadata
            || (key.ends_with("Exception") && value.get("message").is_some());
    }
    if object
        .get("output")
        .and_then(|o| o.get("message"))
        .is_some()
    {
        return object.contains_key("stopReason");
    }
    let keyed = |block: &Value| {
        block
            .as_object()
            .is_some_and(|b| b.len() == 1 && !b.contains_key("type"))
    };
    object
        .get("messages")
        .and_then(Value::as_array)
        .is_some_and(|messages| {
            !messages.is_empty()
                && messages.iter().all(|message| {
                    message
                        .get("content")
                        .and_then(Value::as_array)
                        .is_some_and(|content| !content.is_empty() && content.iter().all(keyed))
                })
        })
}

/// The Bedrock Converse normalizer: HTTP bodies, driven through this adapter's state.
pub(crate) fn normalizer(options: Options) -> impl Normalizer + Send + use<> {
    Driver::<Http, State>::new(&options, State::new())
}

/// The message a stream is streaming.
#[derive(Default)]
struct Streaming {
    blocks: Assembly,
    /// Server tools' results, by index, while their content streams.
    results: Vec<(u64, OpenResult)>,
    /// Its `messageStop` came.
    stopped: bool,
}

struct State {
    meta: RunMeta,
    tools: PendingTools,
    message: Option<Streaming>,
    /// Usage of the messages read.
    usage: Usage,
    /// A response (a body, a stream, an exception) was seen.
    saw_response: bool,
    /// Messages of the conversation read so far, for requests that repeat the history.
    history: usize,
    /// The last request's system prompt and tools, kept again only when they change.
    system: Option<Value>,
    declared: Option<Value>,
    /// Text and reasoning deltas are read by a skim ([`skim::delta`]); off, they are
    /// parsed (the tests' reference the skim is held to).
    skim: bool,
}

impl State {
    fn new() -> Self {
        State {
            meta: RunMeta::new(Provider::Bedrock),
            tools: PendingTools::default(),
            message: None,
            usage: Usage::default(),
            saw_response: false,
            history: 0,
            system: None,
            declared: None,
            skim: true,
        }
    }

    /// One parsed record, whatever its kind, and where it was parsed.
    fn wire(
        &mut self,
        wire: Wire<'_>,
        (record, parsed): (Record<'_>, Parsed<'_>),
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Fate {
        match wire.kind() {
            "messageStart" => self.message_start(items, diagnostics),
            "contentBlockStart" => {
                let start = wire.content_block_start.expect("its kind");
                self.block_start(start, record, items, diagnostics);
            }
            "contentBlockDelta" => {
                let delta = wire.content_block_delta.expect("its kind");
                self.block_delta(delta, record, diagnostics);
            }
            "contentBlockStop" => {
                let index = wire
                    .content_block_stop
                    .expect("its kind")
                    .content_block_index;
                self.block_stop(index, record, items, diagnostics);
            }
            "messageStop" => {
                let stop = wire.message_stop.expect("its kind");
                self.message_stop(stop, record, items, diagnostics);
            }
            "metadata" => {
                let metadata = wire.metadata.expect("its kind");
                self.metadata(metadata, record, items, diagnostics);
            }
            "response" => self.body(wire, (record, parsed), items, diagnostics),
            "request" => self.request(wire, (record, parsed), items, diagnostics),
            "exception" => {
                let (name, value) = wire.exception().expect("its kind");
                let (name, value) = (name.to_owned(), value.clone());
                self.fail(&name, &value, record, items, diagnostics);
            }
            _ => {
                self.meta
                    .keep(record.span.line, "record", || to_value(record.bytes));
                return Fate::Passthrough;
            }
        }
        Fate::Mapped
    }

    /// A response starts: a status that its end settles.
    fn begin(&mut self) {
        self.saw_response = true;
        if self.meta.status != RunStatus::Failed {
            self.meta.status = RunStatus::Incomplete;
        }
    }

    /// A response ended as the API meant it to (unless the run failed already).
    fn completed(&mut self) {
        if self.meta.status != RunStatus::Failed {
            self.meta.status = RunStatus::Completed;
        }
    }

    /// The message being streamed is over (`why` when it ended before its blocks
    /// stopped): what still streams is handed out, the conversation one message longer.
    fn end_message(&mut self, why: &str, items: &mut Vec<Item>, diagnostics: &mut Vec<Diagnostic>) {
        if self.message.is_none() {
            return;
        }
        self.cut_open(why, items, diagnostics);
        self.message = None;
        self.history += 1;
    }

    /// An exception from the service: what was streaming is handed out, marked incomplete.
    fn fail(
        &mut self,
        name: &str,
        error: &Value,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        self.saw_response = true;
        self.end_message(&format!("the stream's {name} ended it"), items, diagnostics);
        let message = match error.get("message").and_then(Value::as_str) {
            Some(text) => format!("{name}: {text}"),
            None => format!("{name}: {error}"),
        };
        self.meta.status = RunStatus::Failed;
        self.meta.stop_reason = Some(StopReason {
            kind: StopKind::Error,
            raw: name.to_owned(),
        });
        self.meta.errors.push(RunError {
            message,
            fatal: true,
            line: record.span.line,
        });
    }

    /// A block cut short (`why`), handed out as far as it arrived, with a warning.
    fn cut_block(
        &mut self,
        block: Canonical,
        index: u64,
        source: Source,
        why: &str,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        diagnostics.push(Diagnostic::new(
            DiagnosticKind::IncompleteBlock,
            source.line,
            source.offset,
            format!(
                "content block {index} ({}) was still streaming when {why}; kept as far as it arrived",
                block.kind
            ),
        ));
        self.deliver(block.blocks, Role::Assistant, source, items, diagnostics);
    }

    /// Hands out blocks: their items, and the tool calls they open or answer.
    fn deliver(
        &mut self,
        blocks: Vec<ContentBlock>,
        role: Role,
        source: Source,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        for block in blocks {
            match &block.block {
                Block::ToolUse {
                    tool_id, tool_name, ..
                } => {
                    self.tools
                        .open(tool_id, tool_name, source.line, source.offset);
                }
                Block::ToolResult { tool_id, .. } => {
                    self.tools
                        .answer(tool_id, source.line, source.offset, diagnostics);
                }
                _ => {}
            }
            items.push(Item {
                block,
                role: role.clone(),
                message_id: None,
                agent: None,
                subagent: None,
                source,
                time: None,
            });
        }
    }

    /// Hands out one block made here.
    fn deliver_block(
        &mut self,
        block: Block,
        role: Role,
        source: Source,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let block = ContentBlock::new(Fidelity::AgentEmitted, block);
        self.deliver(vec![block], role, source, items, diagnostics);
    }

    /// Keeps the blocks or deltas of a kind axt has no form for, saying so.
    fn unknown(
        &mut self,
        unknown: Map<String, Value>,
        prefix: &str,
        source: Source,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        for (kind, value) in unknown {
            if kind == "p" {
                // The stream's padding (random letters against traffic analysis).
                continue;
            }
            diagnostics.push(Diagnostic::new(
                DiagnosticKind::UnknownBlockType,
                source.line,
                source.offset,
                format!("a block of kind {kind:?} has no canonical form; kept in the run metadata"),
            ));
            self.meta
                .keep(source.line, &format!("{prefix}{kind}"), || value);
        }
    }
}

impl Adapter for State {
    const PROVIDER: Provider = Provider::Bedrock;
    // Bedrock stamps nothing: events take the clock's time.
    const STAMPED: bool = false;

    fn record(&mut self, parser: &mut JsonParser, record: Record<'_>, out: &mut Output) {
        let Output { items, diagnostics } = out;
        // A delta read by the skim goes to the handler the parse would hand it to, counted
        // as the parse counts it (its members are all known ones).
        if self.skim
            && let Some(delta) = skim::delta(record.bytes)
        {
            let slot = parser.tally.see(("contentBlockDelta", None));
            self.block_delta(delta, record, diagnostics);
            parser.tally.fate(slot, Fate::Mapped);
            return;
        }
        // A request's messages already read are not built again.
        reading_past(self.history, || {
            parser.parse_in::<WireShape>(record, diagnostics, |wire, parsed, diagnostics| {
                self.wire(wire, (record, parsed), items, diagnostics)
            })
        });
    }

    fn finish(&mut self, last: (u64, u64), out: &mut Output) {
        let open = self.message.as_ref().is_some_and(|m| !m.stopped);
        self.end_message("the input ended", &mut out.items, &mut out.diagnostics);
        self.tools.report_dangling(&mut out.diagnostics);
        self.meta.usage = self.usage;
        if (open || !self.saw_response) && self.meta.status != RunStatus::Failed {
            let (line, offset) = last;
            let what = if self.saw_response {
                "its message's end (messageStop)"
            } else {
                "a response"
            };
            out.diagnostics.push(missing_terminal(line, offset, what));
        }
    }

    fn meta(&self) -> &RunMeta {
        &self.meta
    }

    fn meta_mut(&mut self) -> &mut RunMeta {
        &mut self.meta
    }
}
