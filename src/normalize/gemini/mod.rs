//! Gemini CLI: `gemini --output-format stream-json` (one event a line),
//! `--output-format json` (one pretty-printed document), and its session files
//! (`~/.gemini/tmp/<project>/chats/`, the `session` room: their records and the Gemini API
//! `Content` of a saved chat), recognised by the first record.
//!
//! Shapes follow gemini-cli `packages/core/src/output/types.ts`; every stream-json event's
//! `timestamp` is its source time (json-mode documents have none). How each event is read:
//!
//! * `init`: session id and model (often an alias such as `auto`; a single per-model entry in
//!   the final stats replaces it with the real model name).
//! * `message`: the user prompt echo becomes user text. Every assistant chunk is its own
//!   `message` with `delta: true` and no consolidated copy follows, so an uninterrupted run of
//!   deltas is accumulated into **one** text block, handed out when the next other event
//!   arrives (tool_use, tool_result, error, result, ...) or at the end of the input. A CLI
//!   notice delivered as a delta (the `-p` deprecation warning) is text like any other. A
//!   delta as the CLI writes it is read by a skim of its line, not parsed (the `delta` room).
//! * `tool_use` (`tool_name`, `tool_id`, `parameters`): a `tool_use` block, plus a `command`
//!   block for `run_shell_command`. Parallel calls arrive as all `tool_use` events first, then
//!   all `tool_result`s; results are paired by id.
//! * `tool_result` (`status`, `output`, `error{type, message}`): a user-side `tool_result`,
//!   `is_error` when the status is `error`; content is `output`, else the error message, else
//!   null (edit tools omit `output`, their display being a diff object).
//! * `error` (`severity`, `message`): a non-fatal run error; the CLI goes on to a `result`
//!   (loop detection and the session turn limit are reported this way, then `success`).
//! * `result` (`status`, `error`, `stats`): status, fatal error, usage, duration. Gemini's
//!   `input_tokens` includes `cached`; `input` is the uncached part (older CLIs omit it:
//!   `input_tokens - cached` then). `output_tokens` is the candidates' count alone; the
//!   thoughts are the rest of `total_tokens` (total − input_tokens − output_tokens), counted
//!   as reasoning and added to the output, as axt's usage convention wants.
//! * Anything else is kept as passthrough metadata.
//!
//! `--output-format json` prints one object `{session_id, response, stats, error, warnings}`
//! over many lines (`JSON.stringify(.., null, 2)`), and a fatal error in that mode goes to
//! stderr as `[ERROR] ` + the same kind of document. Both are recognised from the stream
//! itself: a record that is exactly `{`, or starts with `[ERROR] {`, opens a document, and the
//! following records are collected (bounded by the record limit) until its braces balance;
//! then it is parsed whole. `response` becomes one text block; `stats.models.*.tokens` the
//! usage (`prompt` includes `cached`, `input` is uncached where present, `tool` is tool-use
//! prompt input, `thoughts` is reasoning, counted in the output as axt's usage convention
//! wants); `error` (or the `[ERROR]` prefix) makes the run failed.
//!
//! A stream without `result` (and without a json document) ends with a missing-terminal
//! warning and status incomplete.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;

use super::driver::{Adapter, Driver};
use super::framing::{self, Lines, Record};
use super::json::{Borrowed, JsonParser, Lent, Parsed, RecordShape, to_value};
use super::report::{Fate, Fields, Kind};
use super::tools::{PendingTools, missing_terminal, streamed_text};
use super::{
    Diagnostic, DiagnosticKind, Item, Normalizer, Options, Output, Provider, RunError, RunMeta,
    RunStatus, Source, StopKind, StopReason, Usage,
};
use crate::model::tools::shell_commands;
use crate::model::{Block, ContentBlock, Fidelity, Role};

mod delta;
mod session;

use session::Session;

/// Whether the first record of an output looks like Gemini CLI stream-json: a Gemini event
/// type with an ISO `timestamp` and that type's own field.
pub(crate) fn claims(first: &Value) -> bool {
    // A session file's message or metadata record (not a bare `Content`: the Gemini API's,
    // which no CLI writes as a line of its own).
    if session::is_session_record(first) && first.get("parts").is_none() {
        return true;
    }
    let has = |field: &str| first.get(field).is_some();
    if !first.get("timestamp").is_some_and(Value::is_string) {
        return false;
    }
    match first.get("type").and_then(Value::as_str) {
        Some("init") => has("session_id") && has("model"),
        Some("message") => has("role") && has("content"),
        Some("tool_use") => has("tool_name") && has("tool_id"),
        Some("tool_result") => has("tool_id") && has("status"),
        Some("error") => has("severity") && has("message"),
        Some("result") => first.get("status").is_some_and(Value::is_string),
        _ => false,
    }
}

/// Whether a whole `--output-format json` document (or `[ERROR]` document) is Gemini's: it
/// has only the fields `JsonOutput` defines (`session_id`, `response`, `stats`, `error`,
/// `warnings`), and at least one of `response` (a string), `stats` or `error` (objects, the
/// error with its `message`). Other tools print pretty JSON too: a parser's failure wrapper
/// `{"timestamp", "error": "...", "raw_json"}` is not Gemini's.
pub(crate) fn claims_document(document: &Value) -> bool {
    let Some(fields) = document.as_object() else {
        return false;
    };
    // A document that is only an error is Gemini's when the error has Gemini's shape.
    if let Some(body) = super::error_body(document) {
        return body == super::ErrorBody::Gemini;
    }
    let known = |field: &str| {
        matches!(
            field,
            "session_id" | "response" | "stats" | "error" | "warnings"
        )
    };
    let response = fields.get("response").is_some_and(Value::is_string);
    let stats = fields.get("stats").is_some_and(Value::is_object);
    let error = fields
        .get("error")
        .is_some_and(|error| error.get("message").is_some_and(Value::is_string));
    fields.keys().all(|field| known(field)) && (response || stats || error)
}

/// The pretty-printed JSON document at the start of `head` (after any non-JSON lines, such
/// as a credentials notice): the first record that is `{` alone or `[ERROR] {...`, parsed
/// through to the end of `head`. Detection asks each provider whether it is theirs.
pub(crate) fn leading_document(head: &[u8]) -> Option<Value> {
    let mut at = 0;
    for line in head.split_inclusive(|b| *b == b'\n') {
        if let Some(start) = document_start(line) {
            return serde_json::from_slice::<Value>(&head[at + start..]).ok();
        }
        at += line.len();
    }
    None
}

/// Where a document starts in a record that opens one: `{` alone, or after `[ERROR] `.
fn document_start(record: &[u8]) -> Option<usize> {
    // A stream-json event (`{"type":...`), every record but a document's: known from its
    // first two bytes, not by trimming each record from both ends.
    if record.starts_with(b"{\"") {
        return None;
    }
    let trimmed = record.trim_ascii();
    if trimmed == b"{" {
        return Some(record.len() - record.trim_ascii_start().len());
    }
    let lead = record.len() - record.trim_ascii_start().len();
    let rest = record[lead..].strip_prefix(ERROR_PREFIX)?;
    rest.trim_ascii_start()
        .starts_with(b"{")
        .then(|| lead + ERROR_PREFIX.len() + (rest.len() - rest.trim_ascii_start().len()))
}

const ERROR_PREFIX: &[u8] = b"[ERROR] ";

/// The Gemini normalizer: the shared line driver around this adapter's state.
pub(crate) fn normalizer(options: Options) -> impl Normalizer + Send + use<> {
    let state = State::new(options.max_record_bytes);
    Driver::<Lines, State>::new(&options, state)
}

impl Adapter for State {
    const PROVIDER: Provider = Provider::Gemini;
    // Every stream-json event has its `timestamp`.
    const STAMPED: bool = true;

    fn record(&mut self, parser: &mut JsonParser, record: Record<'_>, out: &mut Output) {
        if self.session_file.is_none() && self.document.is_none() {
            // The first object decides: a session file's records, or stream-json's.
            let first = to_value(record.bytes);
            if first.is_object() {
                self.session_file = Some(session::is_session_record(&first));
            }
        }
        if self.session_file == Some(true) {
            let Output { items, diagnostics } = out;
            let (session, meta) = (&mut self.session, &mut self.meta);
            parser.parse::<SessionShape>(record, diagnostics, |value, diagnostics| {
                session.record(value, record, meta, items, diagnostics)
            });
            return;
        }
        if self.document.is_some() {
            self.document_line(parser, record, out);
        } else if let Some(start) = document_start(record.bytes) {
            self.flush_text(&mut out.items);
            let error_prefix = record.bytes[..start].trim_ascii() == b"[ERROR]";
            self.document = Some(OpenDocument {
                document: framing::Document::new(record.line, record.at(start)),
                error_prefix,
            });
            let rest = Record {
                bytes: &record.bytes[start..],
                ..record
            };
            self.document_line(parser, rest, out);
        } else {
            if self.skim_delta(parser, record) {
                return;
            }
            let Output { items, diagnostics } = out;
            parser.parse_in::<EventShape>(record, diagnostics, |event, parsed, diagnostics| {
                self.event(event, record, parsed, items, diagnostics)
            });
        }
    }

    fn finish(&mut self, last: (u64, u64), out: &mut Output) {
        if self.session.seen() {
            let Output { items, diagnostics } = out;
            self.session.finish(&mut self.meta, items, diagnostics);
            // A session file has no terminal record: complete as far as it goes when its
            // reader says the file is whole (an importer), else said to be cut short.
            if !self.complete {
                let (line, offset) = last;
                out.diagnostics.push(missing_terminal(
                    line,
                    offset,
                    "a terminal record (a session file has none: read whole by axt import, it is complete as far as it goes)",
                ));
            }
            return;
        }
        // Deltas have no end marker: text still open when a stream ends without its result
        // may have been cut off mid-sentence.
        if let Some(open) = self.text.as_ref().filter(|_| !self.saw_terminal) {
            out.diagnostics.push(Diagnostic::new(
                DiagnosticKind::IncompleteBlock,
                open.source.line,
                open.source.offset,
                "assistant text still streaming when the input ended; kept as far as it arrived",
            ));
        }
        self.flush_text(&mut out.items);
        if let Some(open) = self.document.take() {
            out.diagnostics.push(open.document.truncated());
        }
        self.tools.report_dangling(&mut out.diagnostics);
        if !self.saw_terminal {
            let (line, offset) = last;
            out.diagnostics
                .push(missing_terminal(line, offset, "a result event"));
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
}

/// A session file's record, read whole: its shapes are many and each is read by its keys.
struct SessionShape;
impl RecordShape for SessionShape {
    type Of<'a> = Value;

    fn kind<'v>(record: &'v Value) -> Kind<'v> {
        (session::kind(record), None)
    }

    fn fields(_: Kind<'_>) -> Option<Fields> {
        None
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

    /// The fields gemini-cli's `types.ts` gives each event (`severity` is read as "every
    /// `error` event is non-fatal").
    fn fields(kind: Kind<'_>) -> Option<Fields> {
        let known: fn(&str) -> bool = match kind.0 {
            "init" => |f| matches!(f, "type" | "timestamp" | "session_id" | "model"),
            "message" => |f| matches!(f, "type" | "timestamp" | "role" | "content" | "delta"),
            "tool_use" => |f| {
                matches!(
                    f,
                    "type" | "timestamp" | "tool_name" | "tool_id" | "parameters"
                )
            },
            "tool_result" => |f| {
                matches!(
                    f,
                    "type" | "timestamp" | "tool_id" | "status" | "output" | "error"
                )
            },
            "error" => |f| matches!(f, "type" | "timestamp" | "severity" | "message"),
            "result" => |f| matches!(f, "type" | "timestamp" | "status" | "error" | "stats"),
            _ => return None,
        };
        Some(Fields {
            within: None,
            known,
        })
    }
}

/// One stream-json event, every type's fields side by side. Its optional strings are
/// [`Borrowed`]: serde copies an `Option<Cow<str>>`, and `timestamp`, `role` and `content` are
/// on every line, most of them short assistant deltas.
#[derive(Deserialize)]
struct Event<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    timestamp: Option<Borrowed<'a>>,
    // init
    #[serde(borrow, default)]
    session_id: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    model: Option<Borrowed<'a>>,
    // message
    #[serde(borrow, default)]
    role: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    content: Option<Borrowed<'a>>,
    #[serde(default)]
    delta: Option<bool>,
    // tool_use / tool_result
    #[serde(borrow, default)]
    tool_name: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    tool_id: Option<Borrowed<'a>>,
    #[serde(default)]
    parameters: Option<Value>,
    #[serde(borrow, default)]
    status: Option<Borrowed<'a>>,
    /// Most of a stream's bytes: kept as the record escaped it ([`Lent`]).
    #[serde(borrow, default)]
    output: Option<Lent<'a>>,
    // tool_result, result: `{type, message}`
    #[serde(default)]
    error: Option<Value>,
    // error (its `severity` says nothing more: every `error` event is non-fatal)
    #[serde(borrow, default)]
    message: Option<Borrowed<'a>>,
    // result
    #[serde(default)]
    stats: Option<Value>,
}

struct DocumentShape;
impl RecordShape for DocumentShape {
    type Of<'a> = Document<'a>;

    fn kind<'v>(_: &'v Document<'_>) -> Kind<'v> {
        ("document", None)
    }

    fn fields(_: Kind<'_>) -> Option<Fields> {
        Some(Fields {
            within: None,
            known: |f| {
                matches!(
                    f,
                    "session_id" | "response" | "stats" | "error" | "warnings"
                )
            },
        })
    }
}

/// The `--output-format json` document.
#[derive(Deserialize)]
struct Document<'a> {
    #[serde(borrow, default)]
    session_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    response: Option<Cow<'a, str>>,
    #[serde(default)]
    stats: Option<Value>,
    #[serde(default)]
    error: Option<Value>,
    #[serde(default)]
    warnings: Option<Vec<Value>>,
}

/// `result.stats` (and each entry of its `models`).
#[derive(Deserialize, Default)]
struct StreamStats {
    #[serde(default)]
    total_tokens: Option<u64>,
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
    #[serde(default)]
    cached: Option<u64>,
    #[serde(default)]
    input: Option<u64>,
    #[serde(default)]
    duration_ms: Option<u64>,
}

impl StreamStats {
    fn usage(&self) -> Usage {
        let cached = self.cached.unwrap_or(0);
        let uncached = self
            .input
            .unwrap_or_else(|| self.input_tokens.unwrap_or(0).saturating_sub(cached));
        // `output_tokens` counts only the candidates; `total_tokens` is Gemini's
        // `totalTokenCount`, which also holds the thoughts: what it has beyond the prompt and
        // the candidates is reasoning (and the tool-use prompt tokens of Google Search
        // grounding, which stream-json does not tell apart).
        let output = self.output_tokens.unwrap_or(0);
        let thoughts = match (self.total_tokens, self.input_tokens) {
            (Some(total), Some(prompt)) => total.saturating_sub(prompt + output),
            _ => 0,
        };
        Usage {
            input_tokens: uncached,
            output_tokens: output + thoughts,
            cache_read_tokens: cached,
            cache_write_tokens: 0,
            reasoning_tokens: thoughts,
        }
    }
}

/// `stats.models.<name>.tokens` of the json document.
#[derive(Deserialize, Default)]
struct ModelTokens {
    #[serde(default)]
    input: Option<u64>,
    #[serde(default)]
    prompt: Option<u64>,
    #[serde(default)]
    candidates: Option<u64>,
    #[serde(default)]
    cached: Option<u64>,
    #[serde(default)]
    thoughts: Option<u64>,
    #[serde(default)]
    tool: Option<u64>,
}

impl ModelTokens {
    fn usage(&self) -> Usage {
        let cached = self.cached.unwrap_or(0);
        let uncached = self
            .input
            .unwrap_or_else(|| self.prompt.unwrap_or(0).saturating_sub(cached));
        let thoughts = self.thoughts.unwrap_or(0);
        Usage {
            input_tokens: uncached + self.tool.unwrap_or(0),
            output_tokens: self.candidates.unwrap_or(0) + thoughts,
            cache_read_tokens: cached,
            cache_write_tokens: 0,
            reasoning_tokens: thoughts,
        }
    }
}

// ---------------------------------------------------------------------------------------
// The state between records.

/// Assistant deltas being accumulated into one text block.
struct OpenText {
    text: String,
    source: Source,
}

/// A pretty-printed json document being collected, line by line.
struct OpenDocument {
    document: framing::Document,
    /// Printed after `[ERROR] `: a fatal error whatever the document says.
    error_prefix: bool,
}

struct State {
    meta: RunMeta,
    tools: PendingTools,
    text: Option<OpenText>,
    document: Option<OpenDocument>,
    max_document_bytes: usize,
    saw_terminal: bool,
    /// Whether the input is a session file's records; `None` before the first object.
    session_file: Option<bool>,
    session: Session,
    /// The caller says the input is whole without a terminal record ([`Adapter::complete`]).
    complete: bool,
    /// A skimmed delta's text ([`delta::skim`]), kept for its allocation.
    skimmed: String,
}

impl State {
    fn new(max_document_bytes: usize) -> Self {
        State {
            meta: RunMeta::new(Provider::Gemini),
            tools: PendingTools::default(),
            text: None,
            document: None,
            max_document_bytes,
            saw_terminal: false,
            session_file: None,
            session: Session::default(),
            complete: false,
            skimmed: String::new(),
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
        if let Some(time) = &event.timestamp {
            self.meta.saw_time(time);
        }
        let is_delta = event.kind == "message"
            && event.role.as_deref() == Some("assistant")
            && event.delta == Some(true);
        if is_delta {
            self.delta(event.content.as_deref().unwrap_or(""), record);
            return Fate::Mapped;
        }
        self.flush_text(items);
        let source = Source::record(record.line, record.offset);
        match &*event.kind {
            "init" => {
                if let Some(session) = event.session_id {
                    self.meta.session_id = Some(session.0.into_owned());
                }
                if let Some(model) = event.model {
                    self.meta.model = Some(model.0.into_owned());
                }
            }
            "message" => {
                let role = match event.role.as_deref() {
                    Some("user") => Role::User,
                    _ => Role::Assistant,
                };
                if let Some(text) = event.content.filter(|text| !text.is_empty()) {
                    items.push(item(
                        ContentBlock::text(Fidelity::AgentEmitted, text.0),
                        role,
                        source,
                    ));
                }
            }
            "tool_use" => {
                let tool_name = event
                    .tool_name
                    .map(|name| name.0.into_owned())
                    .unwrap_or_default();
                let tool_id = event
                    .tool_id
                    .map(|id| id.0.into_owned())
                    .unwrap_or_default();
                let tool_input = event.parameters.unwrap_or(Value::Null);
                self.tools
                    .open(&tool_id, &tool_name, record.line, record.offset);
                let commands = shell_commands(&tool_name, &tool_input);
                let tool_use = ContentBlock::tool_use(
                    Fidelity::AgentEmitted,
                    tool_name,
                    tool_id.clone(),
                    tool_input,
                );
                items.push(item(tool_use, Role::Assistant, source));
                for command in commands {
                    let block = Block::Command {
                        command,
                        tool_id: Some(tool_id.clone()).filter(|id| !id.is_empty()),
                    };
                    let block = ContentBlock::new(Fidelity::AgentEmitted, block);
                    items.push(item(block, Role::Assistant, source));
                }
            }
            "tool_result" => {
                let tool_id = event
                    .tool_id
                    .map(|id| id.0.into_owned())
                    .unwrap_or_default();
                self.tools
                    .answer(&tool_id, record.line, record.offset, diagnostics);
                // The output goes out as the record escaped it, never read here.
                let tool_content = match event.output {
                    Some(output) => output.output(parsed),
                    None => {
                        let error = event.error.as_ref().and_then(|e| e.get("message"));
                        error.cloned().unwrap_or(Value::Null).into()
                    }
                };
                let block = Block::ToolResult {
                    tool_id,
                    tool_content,
                    is_error: event.status.as_deref() == Some("error"),
                    exit_code: None,
                };
                let block = ContentBlock::new(Fidelity::AgentEmitted, block);
                items.push(item(block, Role::User, source));
            }
            "error" => {
                let message = event
                    .message
                    .map(|message| message.0.into_owned())
                    .unwrap_or_default();
                if message.starts_with("Maximum session turns") {
                    self.meta.stop_reason = Some(StopReason {
                        kind: StopKind::MaxTurns,
                        raw: message.clone(),
                    });
                }
                self.meta.errors.push(RunError {
                    message,
                    fatal: false,
                    line: record.line,
                });
            }
            "result" => self.result(event, record),
            other => {
                self.keep(record.line, other, to_value(record.bytes));
                return Fate::Passthrough;
            }
        }
        Fate::Mapped
    }

    /// Whether `record` is an assistant delta [`delta::skim`] reads: then taken as
    /// [`State::event`] takes it, and counted as the parser counts a `message`. Its text is
    /// unescaped straight onto the open text.
    fn skim_delta(&mut self, parser: &mut JsonParser, record: Record<'_>) -> bool {
        let time = match &mut self.text {
            Some(open) => {
                let time = delta::skim(record.bytes, &mut open.text);
                if time.is_some() {
                    open.source.end_line = record.line;
                }
                time
            }
            None => {
                let mut text = std::mem::take(&mut self.skimmed);
                let time = delta::skim(record.bytes, &mut text);
                if time.is_some() {
                    self.delta(&text, record);
                }
                text.clear();
                self.skimmed = text;
                time
            }
        };
        let Some(time) = time else {
            return false;
        };
        let slot = parser.tally.see(("message", None));
        self.meta.saw_time(time);
        parser.tally.fate(slot, Fate::Mapped);
        true
    }

    /// An assistant delta: its text appended to the open text, or opening it.
    fn delta(&mut self, chunk: &str, record: Record<'_>) {
        match &mut self.text {
            Some(open) => {
                open.text.push_str(chunk);
                open.source.end_line = record.line;
            }
            None if chunk.is_empty() => {}
            None => {
                self.text = Some(OpenText {
                    text: streamed_text(chunk),
                    source: Source::record(record.line, record.offset),
                })
            }
        }
    }

    fn result(&mut self, event: Event<'_>, record: Record<'_>) {
        self.saw_terminal = true;
        let failed = event.status.as_deref() != Some("success");
        self.meta.status = if failed {
            RunStatus::Failed
        } else {
            RunStatus::Completed
        };
        if failed {
            let message = event
                .error
                .as_ref()
                .map(error_text)
                .unwrap_or_else(|| format!("run ended with status {:?}", event.status));
            self.meta.errors.push(RunError {
                message,
                fatal: true,
                line: record.line,
            });
        }
        let Some(stats) = event.stats else { return };
        if let Ok(parsed) = serde_json::from_value::<StreamStats>(stats.clone()) {
            self.meta.usage = parsed.usage();
            self.meta.duration_ms = parsed.duration_ms.or(self.meta.duration_ms);
        }
        // The per-model stats stay in `raw_usage`; a single entry names the real model
        // behind an alias such as `auto`.
        if let Some(name) = single_model(&stats) {
            self.meta.model = Some(name);
        }
        self.meta.raw_usage = Some(stats);
    }

    fn document_line(&mut self, parser: &mut JsonParser, record: Record<'_>, out: &mut Output) {
        let max = self.max_document_bytes;
        let Some(open) = &mut self.document else {
            return;
        };
        if !open.document.feed(record, max) {
            return;
        }
        let open = self.document.take().expect("open above");
        let record = match open.document.record() {
            Ok(record) => record,
            Err(too_large) => {
                parser.tally.unreadable();
                return out.diagnostics.push(too_large);
            }
        };
        let source = record.span;
        let Output { items, diagnostics } = out;
        parser.parse::<DocumentShape>(record, diagnostics, |parsed, diagnostics| {
            // Other tools print pretty JSON too (a parser's `{timestamp, error: "...",
            // raw_json}` failure wrapper): a document is Gemini's by its own fields.
            let error_object = parsed
                .error
                .as_ref()
                .is_some_and(|error| error.get("message").is_some_and(Value::is_string));
            let stats = parsed.stats.as_ref().is_some_and(Value::is_object);
            if parsed.response.is_none() && !stats && !error_object {
                diagnostics.push(Diagnostic::new(
                    DiagnosticKind::UnexpectedShape,
                    source.line,
                    source.offset,
                    "a JSON document with neither `response`, `stats` nor an `error` object: \
                     not a Gemini CLI json-mode document, skipped",
                ));
                return Fate::Skipped;
            }
            self.document(parsed, open.error_prefix, source, items);
            Fate::Mapped
        });
    }

    fn document(
        &mut self,
        document: Document<'_>,
        error_prefix: bool,
        source: Source,
        items: &mut Vec<Item>,
    ) {
        self.saw_terminal = true;
        if let Some(session) = document.session_id {
            self.meta.session_id = Some(session.into_owned());
        }
        if let Some(text) = document.response.filter(|text| !text.is_empty()) {
            let block = ContentBlock::text(Fidelity::AgentEmitted, text);
            items.push(item(block, Role::Assistant, source));
        }
        for warning in document.warnings.unwrap_or_default() {
            self.meta.errors.push(RunError {
                message: error_text(&warning),
                fatal: false,
                line: source.line,
            });
        }
        let failed = error_prefix || document.error.is_some();
        if failed {
            let message = document
                .error
                .as_ref()
                .map(error_text)
                .unwrap_or_else(|| "the CLI reported an error".to_owned());
            self.meta.errors.push(RunError {
                message,
                fatal: true,
                line: source.line,
            });
        }
        // A fatal `[ERROR]` document after a response must not turn the run back to success.
        if failed || self.meta.status == RunStatus::Incomplete {
            self.meta.status = if failed {
                RunStatus::Failed
            } else {
                RunStatus::Completed
            };
        }
        let Some(stats) = document.stats else { return };
        if let Some(models) = stats.get("models").and_then(Value::as_object) {
            let mut usage = Usage::default();
            for entry in models.values() {
                let tokens = entry.get("tokens").cloned().unwrap_or(Value::Null);
                if let Ok(tokens) = serde_json::from_value::<ModelTokens>(tokens) {
                    usage.add(&tokens.usage());
                }
            }
            self.meta.usage = usage;
        }
        if let Some(name) = single_model(&stats) {
            self.meta.model = Some(name);
        }
        self.meta.raw_usage = Some(stats);
    }

    fn flush_text(&mut self, items: &mut Vec<Item>) {
        if let Some(open) = self.text.take() {
            let block = ContentBlock::text(Fidelity::AgentEmitted, open.text);
            items.push(item(block, Role::Assistant, open.source));
        }
    }

    fn keep(&mut self, line: u64, kind: &str, raw: Value) {
        self.meta.keep(line, kind, || raw);
    }
}

/// The model of `stats.models` when it has exactly one entry.
fn single_model(stats: &Value) -> Option<String> {
    let models = stats.get("models")?.as_object()?;
    let mut names = models.keys();
    match (names.next(), names.next()) {
        (Some(name), None) => Some(name.clone()),
        _ => None,
    }
}

fn item(block: ContentBlock, role: Role, source: Source) -> Item {
    Item::new(block, role, source)
}

/// `{type, message}` as one line of text; a string as itself.
fn error_text(error: &Value) -> String {
    let message = match error.get("message") {
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
        None => match error {
            Value::String(text) => return text.clone(),
            other => return other.to_string(),
        },
    };
    match error.get("type").and_then(Value::as_str) {
        Some(kind) if !kind.is_empty() => format!("{kind}: {message}"),
        _ => message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn document_starts_at_a_lone_brace_or_after_the_error_prefix() {
        assert_eq!(document_start(b"{"), Some(0));
        assert_eq!(document_start(b"  { "), Some(2));
        assert_eq!(document_start(b"[ERROR] {"), Some(8));
        assert_eq!(document_start(b"[ERROR] {\"error\":{}}"), Some(8));
        assert_eq!(document_start(b"{\"type\":\"init\"}"), None);
        assert_eq!(document_start(b"{\""), None);
        assert_eq!(document_start(b" {\"type\":\"init\"}"), None);
        assert_eq!(document_start(b"[ERROR] boom"), None);
    }

    /// A tool result's `output` of each kind, read as the adapter reads it and made the
    /// model's output: the same value the tree reads; a string held as the record's own
    /// JSON for it when that is the writer's escaping, else as its text.
    #[test]
    fn a_tool_outputs_string_is_kept_as_the_record_escaped_it_and_any_other_value_as_the_tree() {
        for output in [
            r#""plain""#,
            r#""""#,
            r#""line\n\t\"quoted\" \u001b[0m é 😀""#,
            r#""an escaped \/ solidus""#,
            r#""\u00e9 spelled out""#,
            "12",
            "-3",
            "1.5",
            "true",
            r#"[1,"two",{"three":null}]"#,
            r#"{"a":"b\n","c":[]}"#,
        ] {
            let line = format!(
                r#"{{"type":"tool_result","timestamp":"t","tool_id":"x","status":"success","output":{output}}}"#
            );
            let tree: Value = serde_json::from_str(&line).unwrap();
            let record = Record::line(line.as_bytes(), 1, 0, true);
            let mut seen = None;
            JsonParser::default().parse_in::<EventShape>(
                record,
                &mut Vec::new(),
                |event, parsed, _| {
                    let kept = event.output.expect("an output").output(parsed);
                    seen = Some((kept.json().map(<[u8]>::to_vec), kept.into_value()));
                    Fate::Mapped
                },
            );
            let (json, value) = seen.expect("the record is read");
            assert_eq!(value, tree["output"], "{output}");
            let writers = serde_json::to_vec(&tree["output"]).unwrap();
            let canonical = tree["output"].is_string() && writers == output.as_bytes();
            assert_eq!(json, canonical.then_some(writers), "{output}");
        }
    }
}
