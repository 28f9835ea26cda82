//! OpenAI HTTP: Chat Completions and the Responses API, as JSON bodies and as SSE streams,
//! from OpenAI or any OpenAI-compatible server (vLLM, Ollama, DeepSeek, OpenRouter, ...).
//!
//! Shapes follow openai-python's generated types (`chat_completion.py`,
//! `chat_completion_chunk.py`, `response_stream_event.py`); the quirks of compatible servers
//! are in provider-formats.md §5.
//!
//! # Input
//!
//! One input holds any sequence of these records, each recognised by its own shape:
//!
//! * a JSON record on one line, or a pretty-printed document starting with a lone `{` line
//!   (collected until its braces balance, bounded by the record limit);
//! * SSE: `data:` / `event:` / `id:` / `retry:` / `:` lines, dispatched on blank lines by
//!   `sse.rs`; `data: [DONE]` ends a Chat Completions stream; data-only keep-alives
//!   (`data: :ping`, empty data) are skipped. Once a stream has shown an SSE field, other
//!   non-JSON lines are unknown SSE fields and ignored, as the format says.
//!
//! The records: `chat.completion` (a response body), `chat.completion.chunk` (a stream chunk;
//! also recognised without `object`, by `choices[].delta`), a Responses `response` object, a
//! Responses stream event (`type: "response.*"` or `error`), a request body (`messages` for
//! Chat Completions, `input` for Responses), and an in-stream `{"error": ...}`.
//!
//! **Conversation files.** A conversation is written as its records in order: requests and
//! the responses (bodies or streams) that answered them. Each request repeats the history,
//! so only the messages after those already read (the previous request's messages plus one
//! assistant message per response since) are read again; a Responses request with
//! `previous_response_id` carries only new items and is read whole. The smallest complete
//! form is the final request (the whole history) followed by the final response.
//!
//! # Mapping
//!
//! * Assistant output of one choice (or one Responses item) is assembled across chunks and
//!   handed out when it is complete: at the choice's `finish_reason`, at `[DONE]`, at the
//!   item's `output_item.done`, or at the response's terminal event; in the order thinking,
//!   text, tool calls. Every block carries the response `id` as its message id.
//! * Text: `content` deltas (or `output_text` deltas) accumulate into one text block;
//!   `refusal` is text too.
//! * Thinking: `reasoning ?? reasoning_content` (vLLM, Ollama, OpenRouter, DeepSeek), else the
//!   text of `reasoning_details`; a `signature` or encrypted `data` in `reasoning_details`, or
//!   a Responses reasoning item's `encrypted_content`, is kept as the block's signature, so
//!   a reasoning item with a signature and no text still yields a block. Each Responses
//!   reasoning item is its own thinking block (summary parts joined with a blank line; its
//!   `reasoning_text` content instead where present).
//! * Tool calls: fragments are joined per `index`; a fragment whose `id` is new opens a new
//!   call even at an index already used (servers that send each parallel call whole at index
//!   0), a fragment without `id` continues the call at its index (or the last call when it
//!   has no index). Responses calls are keyed by `item_id` and linked by `call_id`;
//!   arguments that arrive only in `function_call_arguments.done` or `output_item.done` are
//!   kept. The input is the parsed JSON of the final arguments, `{}` for empty arguments,
//!   else the raw string and an `invalid-tool-input` warning. A call cut off by the end of
//!   the stream is marked `incomplete`, with an `incomplete-block` warning. Shell tools
//!   (`shell`, `bash`, `exec_command`, `local_shell`, with `command` or `cmd`) add a `command`.
//! * Request side: user messages become user text, assistant messages assistant blocks,
//!   `role: "tool"` messages and `function_call_output` items user-side `tool_result`s,
//!   paired with their calls by id; system and developer messages are kept as metadata.
//! * Metadata: `model`; usage per response (the last usage of a response wins: some servers
//!   repeat cumulative usage on every chunk), summed over responses, with cached tokens taken
//!   out of the input (`prompt_tokens_details.cached_tokens`, `input_tokens_details`, or
//!   DeepSeek's `prompt_cache_hit_tokens`) and reasoning tokens counted in the output;
//!   `finish_reason` (or the Responses status and `incomplete_details.reason`) as the stop
//!   reason. A missing `finish_reason` is not an error (Ollama sends `null`).
//! * Errors: `{"error": ...}` records, Responses `error` events and `response.failed` are
//!   fatal run errors; what was still open is handed out marked incomplete.
//!
//! A stream that ends inside a response (no `finish_reason`, `[DONE]` or terminal event) hands
//! out what it has, marked incomplete, with a missing-terminal warning; so does an input with
//! no response at all.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, Deserializer, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::codex::shell_join;
use super::framing::{Document, Frame, LineFramer, Record};
use super::json::{JsonParser, RecordShape, to_value};
use super::sse::{SseEvent, SseFrame, SseParser};
use super::tools::{PendingTools, missing_terminal, too_large};
use super::{
    Diagnostic, DiagnosticKind, Item, Normalizer, Options, Output, Provider, RunError, RunMeta,
    RunStatus, Source, StopKind, StopReason, Usage,
};
use crate::model::{Block, ContentBlock, Fidelity, Role};

/// Whether a record is OpenAI's: a completion, chunk or response object, a Responses event,
/// or a request body.
pub(crate) fn claims(record: &Value) -> bool {
    let Some(object) = record.as_object() else {
        return false;
    };
    if let Some(kind) = object.get("object").and_then(Value::as_str) {
        return matches!(
            kind,
            "chat.completion" | "chat.completion.chunk" | "response"
        );
    }
    if let Some(kind) = object.get("type") {
        return kind.as_str().is_some_and(|k| k.starts_with("response."));
    }
    let is_array = |key: &str| object.get(key).is_some_and(Value::is_array);
    is_array("choices")
        || is_array("messages")
        || (object.contains_key("model") && object.contains_key("input"))
}

/// Whether `head` is an SSE stream of OpenAI's: its first `data` line decides (`[DONE]`, an
/// OpenAI record, or an error object); comments and other fields before it are skipped.
pub(crate) fn detect_sse(head: &[u8]) -> bool {
    for line in head.split(|b| *b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() || !SseParser::is_field_line(line) {
            continue;
        }
        let Some(value) = line.strip_prefix(b"data:") else {
            continue;
        };
        let value = value.trim_ascii();
        if value.is_empty() || value.starts_with(b":") {
            continue; // a data-only keep-alive
        }
        if value == b"[DONE]" {
            return true;
        }
        let record = to_value(value);
        return claims(&record) || record.get("error").is_some_and(Value::is_object);
    }
    false
}

/// The OpenAI normalizer.
pub(crate) fn normalizer(options: Options) -> OpenAiNormalizer {
    OpenAiNormalizer {
        framer: LineFramer::keeping_blank_lines(options.max_record_bytes),
        sse: SseParser::new(options.max_record_bytes),
        parser: JsonParser::default(),
        state: State::new(options.max_record_bytes),
        finished: false,
    }
}

/// Lines, SSE events and multi-line documents around the adapter's state.
pub(crate) struct OpenAiNormalizer {
    framer: LineFramer,
    sse: SseParser,
    parser: JsonParser,
    state: State,
    finished: bool,
}

impl fmt::Debug for OpenAiNormalizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiNormalizer")
            .field("finished", &self.finished)
            .finish_non_exhaustive()
    }
}

impl Normalizer for OpenAiNormalizer {
    fn provider(&self) -> Provider {
        Provider::OpenAi
    }

    fn push(&mut self, bytes: &[u8], out: &mut Output) {
        if self.finished {
            return;
        }
        let OpenAiNormalizer {
            framer,
            sse,
            parser,
            state,
            ..
        } = self;
        framer.push(bytes, &mut |frame| state.frame(sse, parser, frame, out));
    }

    fn finish(&mut self, out: &mut Output) {
        if self.finished {
            return;
        }
        self.finished = true;
        let OpenAiNormalizer {
            framer,
            sse,
            parser,
            state,
            ..
        } = self;
        framer.finish(&mut |frame| state.frame(sse, parser, frame, out));
        sse.finish(&mut |event| state.sse_event(parser, event, out));
        let first = out.diagnostics.len();
        state.finish(out);
        framer.place_at_end(&mut out.diagnostics, first);
    }

    fn meta(&self) -> &RunMeta {
        &self.state.meta
    }
}

// ---------------------------------------------------------------------------------------
// The record shapes: one struct with every record's fields side by side, borrowed.

struct WireShape;
impl RecordShape for WireShape {
    type Of<'a> = Wire<'a>;
}

#[derive(Deserialize)]
struct Wire<'a> {
    #[serde(borrow, default)]
    object: Option<Cow<'a, str>>,
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    model: Option<Cow<'a, str>>,
    // chat.completion(.chunk)
    #[serde(borrow, default)]
    choices: Option<Vec<WireChoice<'a>>>,
    #[serde(default)]
    usage: Option<Value>,
    #[serde(default)]
    error: Option<Value>,
    // requests
    #[serde(borrow, default)]
    messages: Option<Vec<WireMessage<'a>>>,
    #[serde(borrow, default)]
    input: Option<StrOr<'a, Vec<WireItem<'a>>>>,
    #[serde(borrow, default)]
    previous_response_id: Option<Cow<'a, str>>,
    // Responses events
    #[serde(borrow, default)]
    item_id: Option<Cow<'a, str>>,
    #[serde(default)]
    output_index: Option<u64>,
    #[serde(default)]
    summary_index: Option<u64>,
    #[serde(borrow, default)]
    delta: Option<StrOr<'a, Value>>,
    #[serde(borrow, default)]
    arguments: Option<StrOr<'a, Value>>,
    #[serde(borrow, default)]
    item: Option<WireItem<'a>>,
    #[serde(borrow, default)]
    response: Option<WireResponse<'a>>,
    #[serde(borrow, default)]
    message: Option<StrOr<'a, Value>>,
    #[serde(default)]
    code: Option<Value>,
    // a Responses object at the top
    #[serde(borrow, default)]
    output: Option<Vec<WireItem<'a>>>,
    #[serde(borrow, default)]
    status: Option<Cow<'a, str>>,
    #[serde(default)]
    incomplete_details: Option<Value>,
}

#[derive(Deserialize)]
struct WireChoice<'a> {
    #[serde(default)]
    index: Option<u64>,
    #[serde(borrow, default)]
    delta: Option<WireMessage<'a>>,
    #[serde(borrow, default)]
    message: Option<WireMessage<'a>>,
    #[serde(borrow, default)]
    finish_reason: Option<Cow<'a, str>>,
}

/// A chat message: a request message, a response `message`, or a chunk's `delta`.
#[derive(Deserialize)]
struct WireMessage<'a> {
    #[serde(borrow, default)]
    role: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<StrOr<'a, Value>>,
    #[serde(borrow, default)]
    refusal: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    reasoning: Option<StrOr<'a, Value>>,
    #[serde(borrow, default)]
    reasoning_content: Option<StrOr<'a, Value>>,
    #[serde(default)]
    reasoning_details: Option<Vec<Value>>,
    #[serde(borrow, default)]
    tool_calls: Option<Vec<WireToolCall<'a>>>,
    #[serde(borrow, default)]
    tool_call_id: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct WireToolCall<'a> {
    #[serde(default)]
    index: Option<u64>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    function: Option<WireFunction<'a>>,
}

#[derive(Deserialize)]
struct WireFunction<'a> {
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    arguments: Option<StrOr<'a, Value>>,
}

/// A Responses object (`response.completed.response`, or a whole body).
#[derive(Deserialize, Default)]
struct WireResponse<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    model: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    status: Option<Cow<'a, str>>,
    #[serde(default)]
    usage: Option<Value>,
    #[serde(borrow, default)]
    output: Option<Vec<WireItem<'a>>>,
    #[serde(default)]
    error: Option<Value>,
    #[serde(default)]
    incomplete_details: Option<Value>,
}

/// A Responses item: output items, and the request's input items.
#[derive(Deserialize)]
struct WireItem<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    call_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    arguments: Option<StrOr<'a, Value>>,
    #[serde(borrow, default)]
    input: Option<StrOr<'a, Value>>,
    #[serde(borrow, default)]
    role: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<StrOr<'a, Value>>,
    #[serde(default)]
    summary: Option<Value>,
    #[serde(borrow, default)]
    encrypted_content: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    output: Option<StrOr<'a, Value>>,
    #[serde(default)]
    action: Option<Value>,
}

/// A field that is usually a string and sometimes something else (content parts, an
/// arguments object): read by a small visitor, so that the common string is borrowed and an
/// unexpected type does not reject the record (an `untagged` enum would buffer it first).
enum StrOr<'a, T> {
    Str(Cow<'a, str>),
    Else(T),
}

impl<'de: 'a, 'a, T: Deserialize<'de>> Deserialize<'de> for StrOr<'a, T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Either<'a, T>(PhantomData<(&'a (), T)>);
        impl<'de: 'a, 'a, T: Deserialize<'de>> Visitor<'de> for Either<'a, T> {
            type Value = StrOr<'a, T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or another JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(StrOr::Str(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(StrOr::Str(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(StrOr::Str(Cow::Owned(v)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                T::deserialize(SeqAccessDeserializer::new(seq)).map(StrOr::Else)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(StrOr::Else)
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
                T::deserialize(v.into_deserializer()).map(StrOr::Else)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                T::deserialize(v.into_deserializer()).map(StrOr::Else)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                T::deserialize(v.into_deserializer()).map(StrOr::Else)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                T::deserialize(v.into_deserializer()).map(StrOr::Else)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                T::deserialize(().into_deserializer()).map(StrOr::Else)
            }
        }
        deserializer.deserialize_any(Either(PhantomData))
    }
}

impl<'a> StrOr<'a, Value> {
    /// The string, or the text of content parts (`text`, `output_text`, `input_text`,
    /// `summary_text`, `reasoning_text`), joined with `separator`.
    fn text(&self, separator: &str) -> String {
        match self {
            StrOr::Str(text) => text.clone().into_owned(),
            StrOr::Else(value) => parts_text(value, separator),
        }
    }

    fn into_value(self) -> Value {
        match self {
            StrOr::Str(text) => Value::String(text.into_owned()),
            StrOr::Else(value) => value,
        }
    }
}

/// The text parts of a content array (or one part), joined with `separator`.
fn parts_text(value: &Value, separator: &str) -> String {
    let one = |part: &Value| match part {
        Value::String(text) => Some(text.clone()),
        Value::Object(fields) => fields
            .get("text")
            .or_else(|| fields.get("refusal"))
            .and_then(Value::as_str)
            .map(str::to_owned),
        _ => None,
    };
    match value {
        Value::Array(parts) => parts
            .iter()
            .filter_map(one)
            .collect::<Vec<_>>()
            .join(separator),
        other => one(other).unwrap_or_default(),
    }
}

// ---------------------------------------------------------------------------------------
// Assistant output being assembled.

/// One assistant message being assembled: a chat choice across its chunks, a Responses
/// item across its events, or a whole message at once.
#[derive(Default)]
struct Assembly {
    thinking: String,
    signature: Option<String>,
    thinking_span: Option<Source>,
    text: String,
    text_span: Option<Source>,
    calls: Vec<OpenCall>,
}

struct OpenCall {
    index: Option<u64>,
    id: String,
    name: String,
    arguments: String,
    /// Arguments a server sent as a JSON value rather than a string.
    value: Option<Value>,
    span: Source,
}

fn widen(span: &mut Option<Source>, source: Source) {
    match span {
        Some(span) => span.end_line = source.end_line,
        None => *span = Some(source),
    }
}

impl Assembly {
    fn is_empty(&self) -> bool {
        self.thinking.is_empty()
            && self.signature.is_none()
            && self.text.is_empty()
            && self.calls.is_empty()
    }

    fn think(&mut self, text: &str, source: Source) {
        if !text.is_empty() {
            self.thinking.push_str(text);
            widen(&mut self.thinking_span, source);
        }
    }

    fn sign(&mut self, signature: &str, source: Source) {
        if !signature.is_empty() {
            self.signature = Some(signature.to_owned());
            widen(&mut self.thinking_span, source);
        }
    }

    fn say(&mut self, text: &str, source: Source) {
        if !text.is_empty() {
            self.text.push_str(text);
            widen(&mut self.text_span, source);
        }
    }

    /// A chat message, a whole one or one chunk's delta.
    fn message(&mut self, message: WireMessage<'_>, source: Source) {
        let reasoning = [&message.reasoning, &message.reasoning_content]
            .into_iter()
            .flatten()
            .map(|r| r.text(""))
            .find(|r| !r.is_empty());
        let has_reasoning = reasoning.is_some();
        if let Some(reasoning) = reasoning {
            self.think(&reasoning, source);
        }
        for detail in message.reasoning_details.iter().flatten() {
            // OpenRouter repeats the text of `reasoning` in its details; read it only alone.
            if !has_reasoning {
                let text = ["text", "summary"]
                    .iter()
                    .find_map(|key| detail.get(*key).and_then(Value::as_str));
                self.think(text.unwrap_or(""), source);
            }
            let signature = ["signature", "data"]
                .iter()
                .find_map(|key| detail.get(*key).and_then(Value::as_str));
            self.sign(signature.unwrap_or(""), source);
        }
        if let Some(content) = &message.content {
            self.say(&content.text(""), source);
        }
        if let Some(refusal) = &message.refusal {
            self.say(refusal, source);
        }
        for call in message.tool_calls.into_iter().flatten() {
            let function = call.function.unwrap_or(WireFunction {
                name: None,
                arguments: None,
            });
            self.call_fragment(
                call.index,
                call.id.as_deref(),
                function.name.as_deref(),
                function.arguments,
                source,
            );
        }
    }

    /// One fragment of a tool call; see the module docs for how fragments find their call.
    fn call_fragment(
        &mut self,
        index: Option<u64>,
        id: Option<&str>,
        name: Option<&str>,
        arguments: Option<StrOr<'_, Value>>,
        source: Source,
    ) {
        let id = id.filter(|id| !id.is_empty());
        let at = match id {
            Some(id) => self.calls.iter().position(|c| c.id == id).or_else(|| {
                // A call whose fragments came before its id (rare): adopt the id.
                let last = self.calls.len().checked_sub(1)?;
                let call = &self.calls[last];
                (call.id.is_empty() && call.index == index).then_some(last)
            }),
            None => match index {
                Some(index) => self.calls.iter().rposition(|c| c.index == Some(index)),
                None => self.calls.len().checked_sub(1),
            },
        };
        let at = at.unwrap_or_else(|| {
            self.calls.push(OpenCall {
                index,
                id: String::new(),
                name: String::new(),
                arguments: String::new(),
                value: None,
                span: source,
            });
            self.calls.len() - 1
        });
        let call = &mut self.calls[at];
        call.span.end_line = source.end_line;
        if let (true, Some(id)) = (call.id.is_empty(), id) {
            call.id = id.to_owned();
        }
        if let (true, Some(name)) = (call.name.is_empty(), name) {
            call.name = name.to_owned();
        }
        match arguments {
            Some(StrOr::Str(piece)) => call.arguments.push_str(&piece),
            Some(StrOr::Else(Value::Null)) | None => {}
            Some(StrOr::Else(value)) => call.value = Some(value),
        }
    }

    /// A Responses item (output or request input), as far as it carries assistant output.
    fn item(&mut self, item: &WireItem<'_>, source: Source) {
        match item.kind.as_deref().unwrap_or("message") {
            "message" => {
                if let Some(content) = &item.content {
                    self.say(&content.text(""), source);
                }
            }
            "reasoning" => {
                let content = item
                    .content
                    .as_ref()
                    .map(|c| c.text(""))
                    .unwrap_or_default();
                let text = if content.is_empty() {
                    item.summary
                        .as_ref()
                        .map(|s| parts_text(s, "\n\n"))
                        .unwrap_or_default()
                } else {
                    content
                };
                self.think(&text, source);
                self.sign(item.encrypted_content.as_deref().unwrap_or(""), source);
            }
            "function_call" | "custom_tool_call" => {
                let arguments = match (&item.arguments, &item.input) {
                    (Some(StrOr::Str(a)), _) | (None, Some(StrOr::Str(a))) => {
                        Some(StrOr::Str(a.clone()))
                    }
                    (Some(StrOr::Else(v)), _) | (None, Some(StrOr::Else(v))) => {
                        Some(StrOr::Else(v.clone()))
                    }
                    (None, None) => None,
                };
                let id = item.call_id.as_deref().or(item.id.as_deref());
                self.call_fragment(None, id, item.name.as_deref(), arguments, source);
                if item.kind.as_deref() == Some("custom_tool_call") {
                    // Free-form input is a string, not JSON arguments.
                    if let Some(call) = self.calls.last_mut() {
                        let raw = std::mem::take(&mut call.arguments);
                        call.value.get_or_insert(Value::String(raw));
                    }
                }
            }
            "local_shell_call" => {
                let id = item.call_id.as_deref().or(item.id.as_deref());
                let action = item.action.clone().unwrap_or(Value::Null);
                self.call_fragment(
                    None,
                    id,
                    Some("local_shell"),
                    Some(StrOr::Else(action)),
                    source,
                );
            }
            _ => {}
        }
    }

    /// What the consolidated copy of an item lacks, taken from what its deltas assembled;
    /// a disagreement between the two is reported (the consolidated copy wins).
    fn fill_from(&mut self, streamed: Assembly, diagnostics: &mut Vec<Diagnostic>) {
        let mut mismatch = |what: &str, span: Option<Source>| {
            let span = span.unwrap_or(Source::record(1, 0));
            diagnostics.push(Diagnostic::new(
                DiagnosticKind::StreamMismatch,
                span.line,
                span.offset,
                format!("the streamed {what} differs from the item's final copy; kept the copy"),
            ));
        };
        if self.text.is_empty() {
            self.text = streamed.text;
        } else if !streamed.text.is_empty() && streamed.text != self.text {
            mismatch("text", self.text_span);
        }
        if let Some(span) = streamed.text_span {
            self.text_span = Some(Source {
                end_line: self.text_span.map_or(span.end_line, |s| s.end_line),
                ..span
            });
        }
        if self.thinking.is_empty() {
            self.thinking = streamed.thinking;
        }
        self.signature = self.signature.take().or(streamed.signature);
        if let Some(span) = streamed.thinking_span {
            self.thinking_span = Some(Source {
                end_line: self.thinking_span.map_or(span.end_line, |s| s.end_line),
                ..span
            });
        }
        if self.calls.is_empty() {
            self.calls = streamed.calls;
            return;
        }
        for (call, streamed) in self.calls.iter_mut().zip(streamed.calls) {
            if call.arguments.is_empty() && call.value.is_none() {
                call.arguments = streamed.arguments;
            } else if !streamed.arguments.is_empty() && streamed.arguments != call.arguments {
                mismatch("tool arguments", Some(call.span));
            }
            call.span = Source {
                end_line: call.span.end_line,
                ..streamed.span
            };
        }
    }
}

// ---------------------------------------------------------------------------------------
// The state between records.

/// A Responses output item being streamed.
struct OpenItem {
    id: String,
    output_index: Option<u64>,
    summary_index: Option<u64>,
    assembly: Assembly,
}

struct State {
    meta: RunMeta,
    tools: PendingTools,
    max_document_bytes: usize,
    document: Option<Document>,
    /// The input has shown an SSE field line.
    sse_seen: bool,
    /// The response being read: its id, and the usage of the responses before it.
    response_id: Option<String>,
    usage_before: Usage,
    /// Chat choices being streamed, by choice index.
    choices: Vec<(u64, Assembly)>,
    /// Responses items being streamed, and whether this response streamed any.
    items: Vec<OpenItem>,
    streamed_items: bool,
    /// Tool calls handed out in the current response (a Responses stop reason says more
    /// with them).
    calls_in_response: usize,
    /// A response has started and not reached its terminal record.
    streaming: bool,
    saw_response: bool,
    /// Messages (or input items) of the conversation read so far, for requests that repeat
    /// the history.
    history: usize,
    last_record: (u64, u64),
}

impl State {
    fn new(max_document_bytes: usize) -> Self {
        State {
            meta: RunMeta::new(Provider::OpenAi),
            tools: PendingTools::default(),
            max_document_bytes,
            document: None,
            sse_seen: false,
            response_id: None,
            usage_before: Usage::default(),
            choices: Vec::new(),
            items: Vec::new(),
            streamed_items: false,
            calls_in_response: 0,
            streaming: false,
            saw_response: false,
            history: 0,
            last_record: (0, 0),
        }
    }

    fn frame(
        &mut self,
        sse: &mut SseParser,
        parser: &mut JsonParser,
        frame: Frame<'_>,
        out: &mut Output,
    ) {
        let record = match frame {
            Frame::Record(record) => record,
            Frame::TooLarge {
                line,
                offset,
                size,
                terminated,
            } => {
                if let Some(document) = &mut self.document {
                    document.skipped(size);
                } else if self.sse_seen {
                    sse.skipped_line(line, offset, size);
                } else {
                    out.diagnostics
                        .push(too_large(line, offset, size, terminated));
                }
                return;
            }
        };
        if !record.bytes.is_empty() {
            self.last_record = (record.line, record.offset + record.bytes.len() as u64);
        }
        if self.document.is_some() {
            if !record.bytes.is_empty() {
                self.document_line(parser, record, out);
            }
            return;
        }
        let first = record.bytes.iter().find(|b| !b.is_ascii_whitespace());
        if record.bytes.is_empty() {
            sse.line(record, &mut |event| self.sse_event(parser, event, out));
        } else if record.bytes.trim_ascii() == b"{" {
            self.document = Some(Document::new(record.line, record.offset));
            self.document_line(parser, record, out);
        } else if first == Some(&b'{') || !(self.sse_seen || SseParser::is_field_line(record.bytes))
        {
            let span = Source::record(record.line, record.offset);
            self.json(parser, record, span, None, out);
        } else {
            self.sse_seen = true;
            sse.line(record, &mut |event| self.sse_event(parser, event, out));
        }
    }

    fn sse_event(&mut self, parser: &mut JsonParser, frame: SseFrame<'_>, out: &mut Output) {
        let event: SseEvent<'_> = match frame {
            SseFrame::Event(event) => event,
            SseFrame::TooLarge {
                line,
                offset,
                size,
                terminated,
            } => {
                out.diagnostics
                    .push(too_large(line, offset, size, terminated));
                return;
            }
        };
        let data = event.data.bytes.trim_ascii();
        if data.is_empty() || data.starts_with(b":") {
            return; // a data-only keep-alive
        }
        let span = Source {
            line: event.line,
            end_line: event.end_line,
            offset: event.offset,
        };
        if data == b"[DONE]" {
            self.done(&mut out.items, &mut out.diagnostics);
            return;
        }
        let name = event.event.map(String::from_utf8_lossy);
        self.json(parser, event.data, span, name.as_deref(), out);
    }

    fn json(
        &mut self,
        parser: &mut JsonParser,
        record: Record<'_>,
        span: Source,
        event: Option<&str>,
        out: &mut Output,
    ) {
        let Output { items, diagnostics } = out;
        parser.parse::<WireShape, _>(record, diagnostics, |wire, diagnostics| {
            self.record(wire, record, span, event, items, diagnostics)
        });
    }

    fn document_line(&mut self, parser: &mut JsonParser, record: Record<'_>, out: &mut Output) {
        let max = self.max_document_bytes;
        let Some(document) = &mut self.document else {
            return;
        };
        if !document.feed(record, max) {
            return;
        }
        let document = self.document.take().expect("open above");
        match document.record() {
            Ok((record, span)) => self.json(parser, record, span, None, out),
            Err(too_large) => out.diagnostics.push(too_large),
        }
    }

    /// One parsed record, whatever its kind.
    fn record(
        &mut self,
        wire: Wire<'_>,
        record: Record<'_>,
        span: Source,
        event: Option<&str>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let kind = wire.kind.as_deref().or(event).unwrap_or("").to_owned();
        let is_chunk = wire.object.as_deref() == Some("chat.completion.chunk")
            || (wire.object.is_none()
                && wire.kind.is_none()
                && (wire
                    .choices
                    .as_ref()
                    .is_some_and(|c| c.iter().any(|c| c.delta.is_some()))
                    || (wire.choices.as_ref().is_some_and(Vec::is_empty) && wire.usage.is_some())));
        match wire.object.as_deref() {
            _ if is_chunk => self.chunk(wire, span, items, diagnostics),
            Some("chat.completion") => self.completion(wire, span, items, diagnostics),
            Some("response") => {
                let response = top_response(wire);
                self.response_end(response, span, items, diagnostics);
            }
            _ if kind.starts_with("response.") || kind == "error" => {
                self.responses_event(&kind, wire, record, span, items, diagnostics)
            }
            _ if wire.choices.is_some() => self.completion(wire, span, items, diagnostics),
            _ if wire.messages.is_some() => self.chat_request(wire, span, items, diagnostics),
            _ if wire.input.is_some() => self.responses_request(wire, span, items, diagnostics),
            _ if wire.error.as_ref().is_some_and(|e| !e.is_null()) => {
                let error = wire.error.unwrap_or(Value::Null);
                self.fail(&error, span, items, diagnostics);
            }
            other => {
                let kind = other.map_or_else(|| "record".to_owned(), str::to_owned);
                self.meta.keep(span.line, &kind, || to_value(record.bytes));
            }
        }
    }

    /// A new response starts when a record names an id not seen just before.
    fn begin_response(&mut self, id: Option<&str>, model: Option<&str>) {
        self.saw_response = true;
        if let Some(model) = model.filter(|m| !m.is_empty())
            && self.meta.model.as_deref() != Some(model)
        {
            self.meta.model = Some(model.to_owned());
        }
        let Some(id) = id.filter(|id| !id.is_empty()) else {
            return;
        };
        if self.response_id.as_deref() != Some(id) {
            self.response_id = Some(id.to_owned());
            self.usage_before = self.meta.usage;
            self.calls_in_response = 0;
        }
    }

    fn usage(&mut self, raw: Option<Value>) {
        let Some(raw) = raw.filter(Value::is_object) else {
            return;
        };
        let mut usage = self.usage_before;
        usage.add(&usage_of(&raw));
        self.meta.usage = usage;
        self.meta.raw_usage = Some(raw);
    }

    fn stop(&mut self, kind: StopKind, raw: &str) {
        self.meta.stop_reason = Some(StopReason {
            kind,
            raw: raw.to_owned(),
        });
    }

    fn completed(&mut self) {
        self.streaming = false;
        if self.meta.status != RunStatus::Failed {
            self.meta.status = RunStatus::Completed;
        }
    }

    // Chat Completions -------------------------------------------------------------------

    fn chunk(
        &mut self,
        wire: Wire<'_>,
        span: Source,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        self.begin_response(wire.id.as_deref(), wire.model.as_deref());
        for choice in wire.choices.into_iter().flatten() {
            let index = choice.index.unwrap_or(0);
            let at = match self.choices.iter().position(|(i, _)| *i == index) {
                Some(at) => at,
                None => {
                    self.choices.push((index, Assembly::default()));
                    self.choices.len() - 1
                }
            };
            self.streaming = true;
            if let Some(delta) = choice.delta.or(choice.message) {
                self.choices[at].1.message(delta, span);
            }
            if let Some(reason) = choice.finish_reason.filter(|r| !r.is_empty()) {
                self.stop(finish_kind(&reason), &reason);
                let (_, assembly) = self.choices.remove(at);
                self.emit(assembly, true, items, diagnostics);
                if self.choices.is_empty() {
                    self.history += 1;
                    self.completed();
                }
            }
        }
        self.usage(wire.usage);
        if let Some(error) = wire.error.filter(|e| !e.is_null()) {
            self.fail(&error, span, items, diagnostics);
        }
    }

    /// `data: [DONE]`: the stream is over and what it said is complete, `finish_reason` or
    /// not (a missing one is not an error: Ollama sends `null`).
    fn done(&mut self, items: &mut Vec<Item>, diagnostics: &mut Vec<Diagnostic>) {
        let open = !self.choices.is_empty() || !self.items.is_empty();
        self.flush(true, items, diagnostics);
        if open {
            self.history += 1;
        }
        if self.saw_response {
            self.completed();
        }
    }

    fn completion(
        &mut self,
        wire: Wire<'_>,
        span: Source,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        self.begin_response(wire.id.as_deref(), wire.model.as_deref());
        for choice in wire.choices.into_iter().flatten() {
            let mut assembly = Assembly::default();
            if let Some(message) = choice.message.or(choice.delta) {
                assembly.message(message, span);
            }
            self.emit(assembly, true, items, diagnostics);
            if let Some(reason) = choice.finish_reason.filter(|r| !r.is_empty()) {
                self.stop(finish_kind(&reason), &reason);
            }
        }
        self.history += 1;
        self.usage(wire.usage);
        match wire.error.filter(|e| !e.is_null()) {
            Some(error) => self.fail(&error, span, items, diagnostics),
            None => self.completed(),
        }
    }

    fn chat_request(
        &mut self,
        wire: Wire<'_>,
        span: Source,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let messages = wire.messages.unwrap_or_default();
        let skip = self.history.min(messages.len());
        self.history = messages.len();
        for message in messages.into_iter().skip(skip) {
            match message.role.as_deref().unwrap_or("user") {
                "user" => {
                    if let Some(content) = &message.content {
                        self.user_text(content, span, items);
                    }
                }
                "assistant" => {
                    let mut assembly = Assembly::default();
                    assembly.message(message, span);
                    let id = self.response_id.take();
                    self.emit(assembly, true, items, diagnostics);
                    self.response_id = id;
                }
                "tool" | "function" => {
                    let tool_id = message.tool_call_id.as_deref().unwrap_or("").to_owned();
                    let content = message.content.map_or(Value::Null, StrOr::into_value);
                    self.tool_result(tool_id, content, span, items, diagnostics);
                }
                role => self.meta.keep(span.line, &format!("message/{role}"), || {
                    message.content.map_or(Value::Null, StrOr::into_value)
                }),
            }
        }
    }

    // Responses ----------------------------------------------------------------------------

    fn responses_request(
        &mut self,
        wire: Wire<'_>,
        span: Source,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let input = match wire.input {
            Some(StrOr::Str(text)) => {
                self.user_text(&StrOr::Str(text), span, items);
                return;
            }
            Some(StrOr::Else(input)) => input,
            None => return,
        };
        let skip = match wire.previous_response_id {
            Some(_) => 0,
            None => self.history.min(input.len()),
        };
        self.history = input.len();
        let id = self.response_id.take();
        for item in input.into_iter().skip(skip) {
            let kind = item.kind.as_deref().unwrap_or("message");
            match kind {
                "message" => match item.role.as_deref().unwrap_or("user") {
                    "user" => {
                        if let Some(content) = &item.content {
                            self.user_text(content, span, items);
                        }
                    }
                    "assistant" => {
                        let mut assembly = Assembly::default();
                        assembly.item(&item, span);
                        self.emit(assembly, true, items, diagnostics);
                    }
                    role => self.meta.keep(span.line, &format!("message/{role}"), || {
                        item.content.map_or(Value::Null, StrOr::into_value)
                    }),
                },
                "function_call_output" | "custom_tool_call_output" | "local_shell_call_output" => {
                    let tool_id = item.call_id.as_deref().unwrap_or("").to_owned();
                    let content = item.output.map_or(Value::Null, StrOr::into_value);
                    self.tool_result(tool_id, content, span, items, diagnostics);
                }
                "function_call" | "custom_tool_call" | "local_shell_call" | "reasoning" => {
                    let mut assembly = Assembly::default();
                    assembly.item(&item, span);
                    self.emit(assembly, true, items, diagnostics);
                }
                other => self
                    .meta
                    .keep(span.line, &format!("item/{other}"), || Value::Null),
            }
        }
        self.response_id = id;
    }

    fn responses_event(
        &mut self,
        kind: &str,
        wire: Wire<'_>,
        record: Record<'_>,
        span: Source,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        match kind {
            "response.created" | "response.in_progress" | "response.queued" => {
                let response = wire.response.unwrap_or_default();
                self.begin_response(response.id.as_deref(), response.model.as_deref());
                self.streaming = true;
            }
            "response.output_item.added" => {
                self.streaming = true;
                self.saw_response = true;
                let Some(item) = wire.item else { return };
                let at = self.open_item(item.id.as_deref(), wire.output_index);
                self.items[at].assembly.item(&item, span);
            }
            "response.output_text.delta" | "response.refusal.delta" => {
                let at = self.item_at(&wire);
                let delta = wire.delta.map(|d| d.text("")).unwrap_or_default();
                self.items[at].assembly.say(&delta, span);
            }
            "response.function_call_arguments.delta" | "response.custom_tool_call_input.delta" => {
                let at = self.item_at(&wire);
                let delta = wire.delta.map(|d| d.text("")).unwrap_or_default();
                let call = &mut self.items[at].assembly;
                call.call_fragment(None, None, None, Some(StrOr::Str(delta.into())), span);
            }
            "response.function_call_arguments.done" | "response.custom_tool_call_input.done" => {
                let at = self.item_at(&wire);
                let arguments = wire.arguments.or(wire.input.map(|input| match input {
                    StrOr::Str(text) => StrOr::Str(text),
                    StrOr::Else(_) => StrOr::Else(Value::Null),
                }));
                let assembly = &mut self.items[at].assembly;
                if let Some(StrOr::Str(arguments)) = arguments {
                    // The final arguments: they replace the deltas (and are all there is
                    // when a server sends no deltas).
                    assembly.call_fragment(None, None, None, None, span);
                    if let Some(call) = assembly.calls.last_mut() {
                        call.arguments = arguments.into_owned();
                    }
                }
            }
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                let at = self.item_at(&wire);
                let item = &mut self.items[at];
                if kind == "response.reasoning_summary_text.delta" {
                    let part = wire.summary_index;
                    if item.summary_index.is_some() && item.summary_index != part {
                        item.assembly.think("\n\n", span);
                    }
                    item.summary_index = part;
                }
                let delta = wire.delta.map(|d| d.text("")).unwrap_or_default();
                item.assembly.think(&delta, span);
            }
            "response.output_item.done" => {
                self.saw_response = true;
                let Some(item) = wire.item else { return };
                let kind = item.kind.as_deref().unwrap_or("message").to_owned();
                let at = self.open_item(item.id.as_deref(), wire.output_index);
                let open = self.items.remove(at);
                let mut assembly = Assembly::default();
                assembly.item(&item, span);
                assembly.fill_from(open.assembly, diagnostics);
                self.emit(assembly, true, items, diagnostics);
                self.streamed_items = true;
                if !matches!(
                    kind.as_str(),
                    "message"
                        | "reasoning"
                        | "function_call"
                        | "custom_tool_call"
                        | "local_shell_call"
                ) {
                    self.meta.keep(span.line, &format!("item/{kind}"), || {
                        to_value(record.bytes)
                    });
                }
            }
            "response.completed"
            | "response.incomplete"
            | "response.failed"
            | "response.cancelled" => {
                let mut response = wire.response.unwrap_or_default();
                if response.status.is_none() {
                    let status = kind.trim_start_matches("response.");
                    response.status = Some(Cow::Owned(status.to_owned()));
                }
                self.response_end(response, span, items, diagnostics);
            }
            "error" => {
                let error = serde_json::json!({
                    "code": wire.code,
                    "message": wire.message.map(StrOr::into_value),
                });
                self.fail(&error, span, items, diagnostics);
            }
            "response.content_part.added"
            | "response.content_part.done"
            | "response.output_text.done"
            | "response.refusal.done"
            | "response.reasoning_summary_part.added"
            | "response.reasoning_summary_part.done"
            | "response.reasoning_summary_text.done"
            | "response.reasoning_text.done"
            | "response.output_text.annotation.added" => {
                // Structure only: the text is in the deltas and in `output_item.done`.
                self.streaming = true;
            }
            other => self.meta.keep(span.line, other, || to_value(record.bytes)),
        }
    }

    /// The open item an event names (by `item_id`, else `output_index`); opened if unseen.
    fn item_at(&mut self, wire: &Wire<'_>) -> usize {
        self.streaming = true;
        self.saw_response = true;
        self.open_item(wire.item_id.as_deref(), wire.output_index)
    }

    fn open_item(&mut self, id: Option<&str>, output_index: Option<u64>) -> usize {
        let id = id.filter(|id| !id.is_empty());
        let found = match id {
            Some(id) => self.items.iter().position(|i| i.id == id),
            None => output_index.and_then(|at| {
                self.items
                    .iter()
                    .position(|i| i.output_index == Some(at) && i.id.is_empty())
            }),
        };
        found.unwrap_or_else(|| {
            self.items.push(OpenItem {
                id: id.unwrap_or("").to_owned(),
                output_index,
                summary_index: None,
                assembly: Assembly::default(),
            });
            self.items.len() - 1
        })
    }

    /// A Responses object: a whole body, or the one a terminal event carries.
    fn response_end(
        &mut self,
        response: WireResponse<'_>,
        span: Source,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        self.begin_response(response.id.as_deref(), response.model.as_deref());
        let mut count = self.items.len();
        if self.streamed_items || !self.items.is_empty() {
            // The stream said it all; the output repeats it. Items never marked done are
            // complete now that the response is.
            self.flush(true, items, diagnostics);
        } else {
            let output = response.output.unwrap_or_default();
            count = output.len();
            for item in &output {
                let mut assembly = Assembly::default();
                assembly.item(item, span);
                self.emit(assembly, true, items, diagnostics);
                let kind = item.kind.as_deref().unwrap_or("message");
                if !matches!(
                    kind,
                    "message" | "reasoning" | "function_call" | "custom_tool_call"
                ) {
                    self.meta
                        .keep(span.line, &format!("item/{kind}"), || Value::Null);
                }
            }
        }
        self.history += count;
        self.streamed_items = false;
        self.usage(response.usage);
        let status = response.status.as_deref().unwrap_or("");
        match status {
            "completed" => {
                let kind = if self.calls_in_response > 0 {
                    StopKind::ToolUse
                } else {
                    StopKind::EndTurn
                };
                self.stop(kind, status);
                self.completed();
            }
            "incomplete" => {
                let reason = response
                    .incomplete_details
                    .as_ref()
                    .and_then(|d| d.get("reason"))
                    .and_then(Value::as_str)
                    .unwrap_or("incomplete");
                let kind = match reason {
                    "max_output_tokens" => StopKind::MaxTokens,
                    "content_filter" => StopKind::Refusal,
                    _ => StopKind::Other,
                };
                self.stop(kind, reason);
                self.completed();
            }
            "failed" | "cancelled" => {
                let kind = if status == "failed" {
                    StopKind::Error
                } else {
                    StopKind::Aborted
                };
                self.stop(kind, status);
                let error = response
                    .error
                    .filter(|e| !e.is_null())
                    .unwrap_or_else(|| Value::String(format!("the response {status}")));
                self.fail(&error, span, items, diagnostics);
            }
            _ => {} // in_progress, queued: a background response, still running
        }
    }

    // Shared --------------------------------------------------------------------------------

    fn user_text(&mut self, content: &StrOr<'_, Value>, span: Source, items: &mut Vec<Item>) {
        let text = content.text("\n");
        if !text.is_empty() {
            items.push(item(
                ContentBlock::text(Fidelity::AgentEmitted, text),
                Role::User,
                None,
                span,
            ));
        }
    }

    fn tool_result(
        &mut self,
        tool_id: String,
        content: Value,
        span: Source,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        self.tools
            .answer(&tool_id, span.line, span.offset, diagnostics);
        let block = ContentBlock::tool_result(Fidelity::AgentEmitted, tool_id, content);
        items.push(item(block, Role::User, None, span));
    }

    /// A fatal error from the provider: what was open is handed out, marked incomplete.
    fn fail(
        &mut self,
        error: &Value,
        span: Source,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        self.saw_response = true;
        self.flush(false, items, diagnostics);
        self.streaming = false;
        self.meta.status = RunStatus::Failed;
        if self
            .meta
            .stop_reason
            .as_ref()
            .is_none_or(|s| s.kind != StopKind::Aborted)
        {
            self.stop(StopKind::Error, "error");
        }
        self.meta.errors.push(RunError {
            message: error_text(error),
            fatal: true,
            line: span.line,
        });
    }

    /// Hands out every open choice and item; `complete` says whether their response ended.
    fn flush(&mut self, complete: bool, items: &mut Vec<Item>, diagnostics: &mut Vec<Diagnostic>) {
        for (_, assembly) in std::mem::take(&mut self.choices) {
            self.emit(assembly, complete, items, diagnostics);
        }
        for open in std::mem::take(&mut self.items) {
            self.emit(open.assembly, complete, items, diagnostics);
        }
    }

    /// Hands out an assembled message: thinking, text, then each tool call (and its
    /// command).
    fn emit(
        &mut self,
        assembly: Assembly,
        complete: bool,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        if assembly.is_empty() {
            return;
        }
        let message_id = self.response_id.clone();
        let incomplete = |diagnostics: &mut Vec<Diagnostic>, what: &str, span: Source| {
            if !complete {
                diagnostics.push(Diagnostic::new(
                    DiagnosticKind::IncompleteBlock,
                    span.line,
                    span.offset,
                    format!(
                        "{what} still streaming when the input ended; kept as far as it arrived"
                    ),
                ));
            }
        };
        if let Some(span) = assembly.thinking_span {
            incomplete(diagnostics, "thinking", span);
            let block = Block::Thinking {
                thinking: assembly.thinking,
                signature: assembly.signature,
                redacted: false,
            };
            let block = ContentBlock::new(Fidelity::AgentEmitted, block);
            items.push(item(block, Role::Assistant, message_id.clone(), span));
        }
        if let Some(span) = assembly.text_span {
            incomplete(diagnostics, "assistant text", span);
            let block = ContentBlock::text(Fidelity::AgentEmitted, assembly.text);
            items.push(item(block, Role::Assistant, message_id.clone(), span));
        }
        for call in assembly.calls {
            let span = call.span;
            let what = super::tools::describe_tool(&call.name, &call.id);
            incomplete(diagnostics, &what, span);
            let tool_input = match call.value {
                Some(value) => value,
                None if call.arguments.trim().is_empty() => Value::Object(Default::default()),
                None => match serde_json::from_str::<Value>(&call.arguments) {
                    Ok(value) => value,
                    Err(error) => {
                        if complete {
                            diagnostics.push(Diagnostic::new(
                                DiagnosticKind::InvalidToolInput,
                                span.line,
                                span.offset,
                                format!(
                                    "{what}: arguments are not JSON ({error}); kept as a string"
                                ),
                            ));
                        }
                        Value::String(call.arguments)
                    }
                },
            };
            self.tools
                .open(&call.id, &call.name, span.line, span.offset);
            self.calls_in_response += 1;
            let command = shell_command(&call.name, &tool_input);
            let block = Block::ToolUse {
                tool_name: call.name,
                tool_id: call.id.clone(),
                tool_input,
                server: false,
                incomplete: !complete,
            };
            let block = ContentBlock::new(Fidelity::AgentEmitted, block);
            items.push(item(block, Role::Assistant, message_id.clone(), span));
            if let Some(command) = command {
                let block = Block::Command {
                    command,
                    tool_id: Some(call.id).filter(|id| !id.is_empty()),
                };
                let block = ContentBlock::new(Fidelity::AgentEmitted, block);
                items.push(item(block, Role::Assistant, message_id.clone(), span));
            }
        }
    }

    fn finish(&mut self, out: &mut Output) {
        if let Some(document) = self.document.take() {
            out.diagnostics.push(document.truncated());
        }
        let open = self.streaming || !self.choices.is_empty() || !self.items.is_empty();
        self.flush(false, &mut out.items, &mut out.diagnostics);
        self.tools.report_dangling(&mut out.diagnostics);
        if open || !self.saw_response {
            let (line, offset) = self.last_record;
            let what = if self.saw_response {
                "the end of its response (finish_reason, [DONE] or a terminal event)"
            } else {
                "a response"
            };
            out.diagnostics.push(missing_terminal(line, offset, what));
        }
    }
}

/// The top-level fields of a Responses body, as the object a terminal event carries.
fn top_response(wire: Wire<'_>) -> WireResponse<'_> {
    WireResponse {
        id: wire.id,
        model: wire.model,
        status: wire.status,
        usage: wire.usage,
        output: wire.output,
        error: wire.error,
        incomplete_details: wire.incomplete_details,
    }
}

/// Usage of either API, in axt's convention (cached input taken out of the input).
fn usage_of(raw: &Value) -> Usage {
    let count = |path: &[&str]| {
        path.iter()
            .try_fold(raw, |value, key| value.get(*key))
            .and_then(Value::as_u64)
    };
    let input = count(&["prompt_tokens"])
        .or(count(&["input_tokens"]))
        .unwrap_or(0);
    let cached = count(&["prompt_tokens_details", "cached_tokens"])
        .or(count(&["input_tokens_details", "cached_tokens"]))
        .or(count(&["prompt_cache_hit_tokens"]))
        .unwrap_or(0);
    Usage {
        input_tokens: input.saturating_sub(cached),
        output_tokens: count(&["completion_tokens"])
            .or(count(&["output_tokens"]))
            .unwrap_or(0),
        cache_read_tokens: cached,
        cache_write_tokens: 0,
        reasoning_tokens: count(&["completion_tokens_details", "reasoning_tokens"])
            .or(count(&["output_tokens_details", "reasoning_tokens"]))
            .unwrap_or(0),
    }
}

fn finish_kind(reason: &str) -> StopKind {
    match reason {
        "stop" | "end_turn" => StopKind::EndTurn,
        "length" => StopKind::MaxTokens,
        "tool_calls" | "function_call" => StopKind::ToolUse,
        "content_filter" => StopKind::Refusal,
        "error" => StopKind::Error,
        _ => StopKind::Other,
    }
}

/// An error object as one line of text: `code: message`, or the JSON.
fn error_text(error: &Value) -> String {
    let message = match error.get("message") {
        Some(Value::String(text)) => text.clone(),
        _ => match error {
            Value::String(text) => return text.clone(),
            other => return other.to_string(),
        },
    };
    let code = error.get("code").or_else(|| error.get("type"));
    match code {
        Some(Value::String(code)) if !code.is_empty() => format!("{code}: {message}"),
        Some(Value::Number(code)) => format!("{code}: {message}"),
        _ => message,
    }
}

/// The command line of a shell tool call, for its `command` block.
fn shell_command(tool_name: &str, input: &Value) -> Option<String> {
    if !matches!(tool_name, "shell" | "bash" | "exec_command" | "local_shell") {
        return None;
    }
    match input.get("command").or_else(|| input.get("cmd"))? {
        Value::String(command) => Some(command.clone()),
        Value::Array(argv) => Some(shell_join(argv)),
        _ => None,
    }
}

fn item(block: ContentBlock, role: Role, message_id: Option<String>, source: Source) -> Item {
    Item {
        block,
        role,
        message_id,
        agent: None,
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn claims_openai_records_and_nothing_of_the_others() {
        for record in [
            json!({"object": "chat.completion", "choices": []}),
            json!({"id": "c", "object": "chat.completion.chunk", "choices": []}),
            json!({"id": "r", "object": "response", "output": []}),
            json!({"type": "response.created", "response": {}}),
            json!({"model": "gpt-4.1", "messages": []}),
            json!({"model": "gpt-4.1", "input": "hi"}),
            json!({"choices": [{"delta": {}}]}),
        ] {
            assert!(claims(&record), "{record}");
        }
        for record in [
            json!({"type": "system", "subtype": "init", "session_id": "s", "model": "m"}),
            json!({"type": "thread.started", "thread_id": "t"}),
            json!({"type": "error", "message": "x"}),
            json!({"model": "m", "sandbox": "read-only"}),
            json!({"prompt": "hi"}),
            json!({"type": "init", "timestamp": "t", "session_id": "s", "model": "m"}),
            json!({"error": {"message": "boom"}}),
        ] {
            assert!(!claims(&record), "{record}");
        }
    }

    #[test]
    fn sse_detection_reads_the_first_data_line() {
        assert!(detect_sse(
            b": ping\n\ndata: {\"object\":\"chat.completion.chunk\"}\n"
        ));
        assert!(detect_sse(
            b"event: response.created\r\ndata: {\"type\":\"response.created\"}\r\n"
        ));
        assert!(detect_sse(b"data: :keepalive\n\ndata: [DONE]\n"));
        assert!(!detect_sse(b"data: {\"type\":\"message_start\"}\n"));
        assert!(!detect_sse(b"{\"type\":\"init\"}\n"));
    }

    #[test]
    fn usage_takes_cached_tokens_out_of_the_input() {
        let chat = json!({"prompt_tokens": 2006, "completion_tokens": 300,
            "prompt_tokens_details": {"cached_tokens": 1920},
            "completion_tokens_details": {"reasoning_tokens": 128}});
        assert_eq!(
            usage_of(&chat),
            Usage {
                input_tokens: 86,
                output_tokens: 300,
                cache_read_tokens: 1920,
                cache_write_tokens: 0,
                reasoning_tokens: 128
            }
        );
        let deepseek = json!({"prompt_tokens": 100, "completion_tokens": 5,
            "prompt_cache_hit_tokens": 64, "prompt_cache_miss_tokens": 36});
        assert_eq!(usage_of(&deepseek).input_tokens, 36);
        let responses = json!({"input_tokens": 50, "output_tokens": 9,
            "input_tokens_details": {"cached_tokens": 10},
            "output_tokens_details": {"reasoning_tokens": 4}});
        assert_eq!(usage_of(&responses).cache_read_tokens, 10);
        assert_eq!(usage_of(&responses).reasoning_tokens, 4);
    }
}
