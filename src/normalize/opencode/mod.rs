//! OpenCode: `opencode run --format json`, one event a line.
//!
//! Shapes follow OpenCode 1.18 (`packages/opencode/src/cli/cmd/run.ts`: every event is
//! `{type, timestamp, sessionID, ...}`, `timestamp` in Unix milliseconds, the source time of
//! what the line holds). How each event is read:
//!
//! * `step_start`, `step_finish`, `text`, `reasoning`, `tool_use`: each carries one message
//!   `part`, mapped to blocks by the `parts` room (the one mapping of OpenCode's parts, for
//!   whoever reads them), the part's `messageID` as the blocks' message. `text` is printed
//!   once the text is whole, `reasoning` only with `--thinking`, `tool_use` once the call has
//!   ended: one event is a call and its result.
//! * `step_finish`: the step's tokens and cost are added to the run's; its `reason` is the
//!   stop reason. A step that ends for `tool-calls` is followed by another; any other reason
//!   ends the run (completed).
//! * `error` (`error{name, data{message}}`): a fatal run error; the run failed.
//! * `message` (`info`, `parts`): a whole stored message with its parts, as OpenCode keeps it
//!   (its storage, its HTTP API and `opencode export` hold `MessageV2.WithParts`); no
//!   `run` prints one: the importer of OpenCode's store makes them, one per message, read by
//!   the `message` room (the user's text as the user's, the assistant's parts as above).
//! * Anything else (`done` of some versions ends the run too) is kept as passthrough.
//!
//! A `tool_use`, `step_start`, `step_finish`, `text` or `reasoning` line as OpenCode writes
//! it is read by a skim of the line, not parsed (the `skim` room: a tool's output taken as
//! the line escaped it, never unescaped; a text unescaped once, into its block), to the same
//! part; anything else it does not read exactly as the parse would is parsed.
//!
//! OpenCode prints only the root session's parts: a sub-agent's (`task`) work is not in the
//! stream, and no event names the model (its storage or `opencode export` does). A stream
//! whose last step ended for `tool-calls`, or that has no step at all, ends with a
//! missing-terminal warning and the run incomplete (OpenCode has exited before its last
//! `step_finish`, and printed only `step_start` on some versions).

mod message;
mod parts;
mod skim;

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;

use super::driver::{Adapter, Driver};
use super::framing::{Lines, Record};
use super::json::{JsonParser, Parsed, RecordShape};
use super::lenient::Slot;
use super::report::{Fate, Fields, Kind};
use super::tools::{PendingTools, missing_terminal};
use super::{
    Diagnostic, DiagnosticKind, Item, Normalizer, Options, Output, Provider, RunError, RunMeta,
    RunStatus, Source, Usage,
};
use crate::model::{Role, Timestamp};

pub(crate) use parts::tokens_usage;
use parts::{Part, PartBlocks, Said, Step};

/// Whether the first record of an output looks like OpenCode's: a known event type with a
/// millisecond `timestamp`, a `sessionID`, and its `part` (or `error`).
pub(crate) fn claims(first: &Value) -> bool {
    let has = |field: &str| first.get(field).is_some();
    if !(first.get("timestamp").is_some_and(Value::is_u64) && has("sessionID")) {
        return false;
    }
    match first.get("type").and_then(Value::as_str) {
        Some("step_start" | "step_finish" | "text" | "reasoning" | "tool_use") => {
            first.get("part").is_some_and(Value::is_object)
        }
        Some("error") => has("error"),
        Some("message") => first.get("info").is_some_and(Value::is_object),
        _ => false,
    }
}

/// The OpenCode normalizer: JSON Lines, driven through this adapter's state.
pub(crate) fn normalizer(options: Options) -> impl Normalizer + Send + use<> {
    Driver::<Lines, State>::new(&options, State::new())
}

struct EventShape;
impl RecordShape for EventShape {
    type Of<'a> = Event<'a>;

    fn kind<'v>(event: &'v Event<'_>) -> Kind<'v> {
        (&event.kind, None)
    }

    fn fields(kind: Kind<'_>) -> Option<Fields> {
        let known: fn(&str) -> bool = match kind.0 {
            "step_start" | "step_finish" | "text" | "reasoning" | "tool_use" => {
                |f| matches!(f, "type" | "timestamp" | "sessionID" | "part")
            }
            "error" => |f| matches!(f, "type" | "timestamp" | "sessionID" | "error"),
            "message" => |f| matches!(f, "type" | "timestamp" | "sessionID" | "info" | "parts"),
            _ => return None,
        };
        Some(Fields {
            within: None,
            known,
        })
    }
}

#[derive(Deserialize)]
struct Event<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default)]
    timestamp: Option<i64>,
    #[serde(rename = "sessionID", borrow, default)]
    session_id: Option<Cow<'a, str>>,
    /// Read typed, not as a tree: the part is nearly every byte of the stream.
    #[serde(borrow, default)]
    part: Option<Slot<Part<'a>>>,
    #[serde(default)]
    error: Option<Value>,
    #[serde(default)]
    info: Option<Value>,
    #[serde(default)]
    parts: Option<Vec<Value>>,
}

struct State {
    meta: RunMeta,
    tools: PendingTools,
    usage: Option<Usage>,
    /// The last step ended the run (it did not end for `tool-calls`), or an error did.
    ended: bool,
}

impl Adapter for State {
    const PROVIDER: Provider = Provider::OpenCode;
    // Every event has its `timestamp`.
    const STAMPED: bool = true;

    fn record(&mut self, parser: &mut JsonParser, record: Record<'_>, out: &mut Output) {
        let Output { items, diagnostics } = out;
        if let Some(event) = skim::skim(record.bytes) {
            // Counted as the parse counts it: every field of a skimmed event is known.
            let slot = parser.tally.see((event.kind, None));
            self.saw(event.timestamp, event.session_id);
            let message = event.message_id.map(str::to_owned);
            self.part(event.said, event.step, message, record, items, diagnostics);
            parser.tally.fate(slot, Fate::Mapped);
            return;
        }
        parser.parse_in::<EventShape>(record, diagnostics, |event, parsed, diagnostics| {
            self.event(event, record, parsed, items, diagnostics)
        });
    }

    fn finish(&mut self, last: (u64, u64), out: &mut Output) {
        self.tools.report_dangling(&mut out.diagnostics);
        if let Some(usage) = self.usage {
            self.meta.usage = usage;
        }
        if !self.ended {
            let (line, offset) = last;
            out.diagnostics.push(missing_terminal(
                line,
                offset,
                "a step_finish that ends the run (the last step ended for tool calls, or none did)",
            ));
        }
    }

    fn meta(&self) -> &RunMeta {
        &self.meta
    }

    // A store's session has no record that ends it: it is whole as the store has it.
    fn complete(&mut self) {
        self.ended = true;
    }

    fn meta_mut(&mut self) -> &mut RunMeta {
        &mut self.meta
    }
}

impl State {
    fn new() -> Self {
        State {
            meta: RunMeta::new(Provider::OpenCode),
            tools: PendingTools::default(),
            usage: None,
            ended: false,
        }
    }

    fn event(
        &mut self,
        event: Event<'_>,
        record: Record<'_>,
        parsed: Parsed<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Fate {
        self.saw(event.timestamp, event.session_id.as_deref());
        match &*event.kind {
            "step_start" | "step_finish" | "text" | "reasoning" | "tool_use" => {
                let Some(Slot::Read(mut part)) = event.part else {
                    diagnostics.push(Diagnostic::new(
                        DiagnosticKind::UnexpectedShape,
                        record.line,
                        record.offset,
                        format!("a {} event without its `part`, skipped", event.kind),
                    ));
                    return Fate::Skipped;
                };
                let step = (event.kind == "step_finish").then(|| part.step());
                let message = part.message_id.take().map(Cow::into_owned);
                self.part(part.said(parsed), step, message, record, items, diagnostics);
            }
            "message" => {
                let Some(info) = event.info.filter(Value::is_object) else {
                    diagnostics.push(Diagnostic::new(
                        DiagnosticKind::UnexpectedShape,
                        record.line,
                        record.offset,
                        "a message without its `info`, skipped".to_owned(),
                    ));
                    return Fate::Skipped;
                };
                let mut parts = event.parts.unwrap_or_default();
                self.message(&info, &mut parts, record, items, diagnostics);
            }
            "error" => {
                let error = event.error.unwrap_or(Value::Null);
                let message = (error.pointer("/data/message"))
                    .or_else(|| error.get("message"))
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .unwrap_or_else(|| error.to_string());
                let name = error.get("name").and_then(Value::as_str);
                self.meta.errors.push(RunError {
                    message: match name {
                        Some(name) => format!("{name}: {message}"),
                        None => message,
                    },
                    fatal: true,
                    line: record.line,
                });
                self.meta.status = RunStatus::Failed;
                self.ended = true;
            }
            other => {
                if other == "done" {
                    self.ended = true;
                }
                let raw = super::json::to_value(record.bytes);
                self.meta.keep(record.line, other, || raw);
                return Fate::Passthrough;
            }
        }
        Fate::Mapped
    }

    /// An event's source time and session.
    fn saw(&mut self, timestamp: Option<i64>, session_id: Option<&str>) {
        if let Some(millis) = timestamp {
            let nanos = i128::from(millis) * 1_000_000;
            self.meta.saw_timestamp(Timestamp::from_unix_nanos(nanos));
        }
        if self.meta.session_id.is_none() {
            self.meta.session_id = session_id.map(str::to_owned);
        }
    }

    /// An event's part, parsed or skimmed: a step's end (`step`, of a `step_finish` event)
    /// counted, the blocks emitted.
    fn part(
        &mut self,
        said: Said,
        step: Option<Step>,
        message: Option<String>,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        if let Some(step) = step {
            self.step_finished(step);
        }
        self.emit(said.blocks(), message, record, items, diagnostics);
    }

    /// The blocks of one part, their calls opened and results answered.
    fn emit(
        &mut self,
        blocks: PartBlocks,
        message: Option<String>,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let source = Source::record(record.line, record.offset);
        match blocks {
            PartBlocks::Blocks { role, blocks } => {
                for block in blocks {
                    items.push(Item::emitted(block, role.clone(), message.clone(), source));
                }
            }
            PartBlocks::Tool {
                call,
                result,
                tool_id,
                tool_name,
            } => {
                self.tools
                    .open(&tool_id, &tool_name, record.line, record.offset);
                for block in call {
                    items.push(Item::emitted(
                        block,
                        Role::Assistant,
                        message.clone(),
                        source,
                    ));
                }
                if let Some(result) = result {
                    self.tools
                        .answer(&tool_id, record.line, record.offset, diagnostics);
                    items.push(Item::emitted(result, Role::User, None, source));
                }
            }
            PartBlocks::None => {}
        }
    }

    /// A step's end: its usage and cost added up, its reason the stop reason.
    fn step_finished(&mut self, step: Step) {
        if let Some(usage) = step.usage {
            self.usage.get_or_insert_with(Usage::default).add(&usage);
        }
        if let Some(cost) = step.cost {
            self.meta.cost_usd = Some(self.meta.cost_usd.unwrap_or(0.0) + cost);
        }
        if let Some(reason) = step.stop {
            self.ended = reason.raw != "tool-calls";
            self.meta.stop_reason = Some(reason);
        }
        if self.ended && self.meta.status != RunStatus::Failed {
            self.meta.status = RunStatus::Completed;
        }
    }
}
