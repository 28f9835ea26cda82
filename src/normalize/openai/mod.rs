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
//! The records: `chat.completion` (a response body; a chunk when its choices have a
//! `delta`, as Perplexity sends them), `chat.completion.chunk` (a stream chunk; also
//! recognised without `object`, or with an empty one, by `choices[].delta` or empty
//! `choices`), Perplexity's `chat.reasoning`, `chat.reasoning.done` and
//! `chat.completion.done` (chunks), a Responses `response` object, a Responses stream event
//! (`type: "response.*"` or `error`), a request body (`messages` for Chat Completions,
//! `input` for Responses), an in-stream or error-only `{"error": ...}`, and vLLM's
//! `{"object": "error", ...}`.
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
//!   `refusal` is text too. Content given as parts joins the text parts; Mistral's
//!   `thinking` parts are thinking; other parts (images, audio) are kept as passthrough
//!   `part/<type>`.
//! * Citations: Responses `annotations` of `output_text` parts (`url_citation`,
//!   `file_citation`, `container_file_citation`, `file_path`, streamed as
//!   `response.output_text.annotation.added` and repeated in the final copy, which wins),
//!   Chat Completions `annotations` (details nested under the type's name, in a message or a
//!   delta), and Mistral `reference` parts become the text block's citations. Offsets are
//!   moved to count from the start of the joined text (characters, as OpenAI counts); an
//!   exact repeat of a citation already read is not added again.
//! * Thinking: `reasoning ?? reasoning_content` (vLLM, Ollama, OpenRouter, DeepSeek), else the
//!   text of `reasoning_details`; a `signature` or encrypted `data` in `reasoning_details`, or
//!   a Responses reasoning item's `encrypted_content`, is kept as the block's signature, so
//!   a reasoning item with a signature and no text still yields a block. Each Responses
//!   reasoning item is its own thinking block (summary parts joined with a blank line; its
//!   `reasoning_text` content instead where present).
//! * Tool calls: fragments are joined per `index`; a fragment whose `id` is new opens a new
//!   call even at an index already used (servers that send each parallel call whole at index
//!   0), a fragment without `id` continues the call at its index (or the last call when it
//!   has no index). Responses items are found by `output_index`, else by `item_id` (some
//!   proxies give an item a new id on every event), and calls linked by `call_id`;
//!   arguments that arrive only in `function_call_arguments.done` or `output_item.done` are
//!   kept. The input is the parsed JSON of the final arguments, `{}` for empty arguments,
//!   else the raw string and an `invalid-tool-input` warning; a custom tool's free-form
//!   input is its string. A call cut off by the end of the stream is marked `incomplete`,
//!   with an `incomplete-block` warning. Shell tools (`shell`, `bash`, `exec_command`,
//!   `local_shell`, with `command`, `cmd` or `commands`) add a `command` block per command.
//! * Responses tools the client runs are tool calls like functions, `tool_id` = `call_id`:
//!   `local_shell_call` (`local_shell`, input the action), `shell_call` (`shell`, the action),
//!   `apply_patch_call` (`apply_patch`, the operation), `computer_call` (`computer`, the
//!   action(s) and pending safety checks), `tool_search_call` (`tool_search`, the
//!   arguments), `mcp_approval_request` (`mcp_approval_request`, input server label, tool
//!   name and parsed arguments, `tool_id` = its id). Their results come back as items:
//!   `*_call_output` (content the `output`; a `failed` status is an error; a shell output
//!   is an error when a command timed out or exited non-zero, and gives the exit code when
//!   it ran one command), `tool_search_output` (the tools), `mcp_approval_response` (the
//!   approval; a declined one is an error). In a request they are user-side results; in a
//!   response's output (a shell in a hosted container, a server-side tool search)
//!   assistant-side.
//! * Responses server tools (the provider runs them and reports the result in the same
//!   item) are `tool_use` blocks with `server`, `tool_id` = the item id, each followed by its
//!   assistant-side `tool_result`: `web_search_call` (`web_search`, input the action),
//!   `file_search_call` (`file_search`, the queries), `code_interpreter_call`
//!   (`code_interpreter`, code and container), `image_generation_call` (`image_generation`,
//!   its parameters), `mcp_call` (`mcp__<server>__<tool>`, the parsed arguments),
//!   `mcp_list_tools` (`mcp_list_tools`, the server label). The result is an object of the
//!   item's `status` and every other field (results, outputs, the image, the MCP output and
//!   error, fields added to the API later); a `failed` status or an `error` make it an error.
//!   Streamed, their progress events (`response.<tool>.searching`, `.completed`, ...) update
//!   the status, `mcp_call_arguments` and `code_interpreter_call_code` deltas build the
//!   input, and `output_item.done` is the final copy; a server call cut off by the end of the
//!   stream has no result (it dangles). Server calls do not make a Responses stop reason
//!   `tool_use`.
//! * Request side: user messages become user text, assistant messages assistant blocks,
//!   `role: "tool"` messages and `function_call_output` items user-side `tool_result`s,
//!   paired with their calls by id; system and developer messages are kept as metadata, and
//!   so is every item kind not named here (whole).
//! * Metadata: `model`; usage per response (the last usage of a response wins: some servers
//!   repeat cumulative usage on every chunk), summed over responses, with cached tokens taken
//!   out of the input (`prompt_tokens_details.cached_tokens`, `input_tokens_details`, or
//!   DeepSeek's `prompt_cache_hit_tokens`) and reasoning tokens counted in the output;
//!   `finish_reason` (or the Responses status and `incomplete_details.reason`) as the stop
//!   reason. A missing `finish_reason` is not an error (Ollama sends `null`).
//! * Perplexity: its full stream mode sends `"object": "chat.completion"` chunks with the
//!   whole message so far next to the delta; a chunk's `message` is read as the
//!   consolidated copy when it extends what the deltas assembled (else as more of the
//!   message), so the text is read once. Its concise mode's `chat.reasoning` and
//!   `chat.reasoning.done` records give thinking (one line per reasoning step's `thought`;
//!   the steps themselves are kept in `extras`), and `chat.completion.done` ends the stream
//!   like a final chunk. `search_results` (else the URLs of `citations`) become the
//!   citations of the choices' text; a dollar `cost` in the usage (Perplexity
//!   `cost.total_cost`, OpenRouter `cost`) is the run's cost, summed over responses.
//! * More than one choice (`n` > 1): each choice is its own message; the choices after the
//!   first have the response id with `#<index>` appended as their message id.
//! * Namespaced Responses tools (`namespace`) are named `<namespace>__<name>`. A Responses
//!   request's `instructions` (when they change) and the non-text parts of user content
//!   (images, files, audio) are kept as passthrough.
//! * Extras: what servers add to a response and axt has no field for is kept, one
//!   passthrough record `extras` per response (see `Extras`): Azure's
//!   `prompt_filter_results` and per-choice `content_filter_results` / `_offsets`, Groq's
//!   `x_groq`, OpenRouter's `provider` and `native_finish_reason`, vLLM's per-choice
//!   `stop_reason`, Perplexity's `images` and `related_questions`, token `logprobs`,
//!   `system_fingerprint`, `service_tier`, the Responses `tool_usage` and
//!   `content_filters`, and the fields of Responses output items their blocks do not carry
//!   (a message's `phase`, a call's `caller`, a shell's `environment`), as
//!   `output[<item id>].<field>`. Azure's first chunk (`"object": ""`, no choices) is a
//!   chunk. Groq's stream reports its usage only in `x_groq.usage`, which is read then.
//! * Errors: `{"error": ...}` records, Responses `error` events and `response.failed` are
//!   fatal run errors; what was still open is handed out marked incomplete.
//! * Times: a record's `created` (Chat Completions) or its Responses object's `created_at`,
//!   Unix seconds, is its source time; request bodies have none.
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
use serde_json::{Map, Value};

use super::codex::shell_join;
use super::driver::Watch;
use super::framing::{Document, Frame, LineFramer, Record};
use super::json::{JsonParser, RecordShape, to_value};
use super::report::{Fate, Fields, Kind};
use super::sse::{SseEvent, SseFrame, SseParser};
use super::tools::{PendingTools, citation_of, missing_terminal, too_large};
use super::{
    Diagnostic, DiagnosticKind, ErrorBody, Item, Normalizer, Options, Output, Provider, RunError,
    RunMeta, RunStatus, Source, StopKind, StopReason, Usage, error_body,
};
use crate::model::{Block, Citation, ContentBlock, Fidelity, Role, Timestamp};

/// Whether a record is OpenAI's: a completion, chunk or response object, a Responses event,
/// or a request body.
pub(crate) fn claims(record: &Value) -> bool {
    let Some(object) = record.as_object() else {
        return false;
    };
    if let Some(body) = error_body(record) {
        return body == ErrorBody::OpenAi;
    }
    if let Some(kind) = object
        .get("object")
        .and_then(Value::as_str)
        .filter(|kind| !kind.is_empty())
    {
        return matches!(
            kind,
            "chat.completion"
                | "chat.completion.chunk"
                | "response"
                | "chat.reasoning"
                | "chat.reasoning.done"
                | "chat.completion.done"
                // vLLM's error responses: `{"object": "error", message, type, param, code}`.
                | "error"
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
        state.watch.input(bytes);
        framer.push(bytes, &mut |frame| {
            let items = out.items.len();
            state.frame(sse, parser, frame, out);
            state.watch.stamp(&state.meta, items, out);
        });
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
        let items = out.items.len();
        framer.finish(&mut |frame| state.frame(sse, parser, frame, out));
        sse.finish(&mut |event| state.sse_event(parser, event, out));
        state.finish(out);
        let State { watch, meta, .. } = state;
        watch.finish(parser, meta, items, out);
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

    /// `object`, else `type`; else what the record's shape says it is: a chunk or a body
    /// (by `choices`), a request (`request/chat`, `request/responses`), an error.
    fn kind<'v>(wire: &'v Wire<'_>) -> Kind<'v> {
        if let Some(object) = wire.object.as_deref().or(wire.kind.as_deref()) {
            return (object, None);
        }
        let kind = match &wire.choices {
            Some(choices) if choices.iter().any(|c| c.delta.is_some()) => "chat.completion.chunk",
            Some(_) => "chat.completion",
            None if wire.messages.is_some() => return ("request", Some("chat")),
            None if wire.input.is_some() => return ("request", Some("responses")),
            None if wire.error.is_some() => "error",
            None => "record",
        };
        (kind, None)
    }

    /// The fields of chunks, bodies and stream events, as openai-python's types define them.
    fn fields(kind: Kind<'_>) -> Option<Fields> {
        let known: fn(&str) -> bool = match kind {
            ("chat.completion.chunk" | "chat.completion", _) => |f| {
                matches!(
                    f,
                    "id" | "object"
                        | "created"
                        | "model"
                        | "choices"
                        | "usage"
                        | "error"
                        | "system_fingerprint"
                        | "service_tier"
                        // Kept whole as the response's extras (see `Wire::extras`), or read
                        // as its sources (Perplexity's `citations` and `search_results`).
                        | "prompt_filter_results"
                        | "x_groq"
                        | "provider"
                        | "images"
                        | "related_questions"
                        | "tool_usage"
                        | "content_filters"
                        | "citations"
                        | "search_results"
                )
            },
            ("response", _) => |f| {
                matches!(
                    f,
                    "id" | "object"
                        | "created_at"
                        | "status"
                        | "model"
                        | "output"
                        | "usage"
                        | "error"
                        | "incomplete_details"
                        | "instructions"
                        | "max_output_tokens"
                        | "max_tool_calls"
                        | "metadata"
                        | "parallel_tool_calls"
                        | "previous_response_id"
                        | "prompt"
                        | "prompt_cache_key"
                        | "reasoning"
                        | "safety_identifier"
                        | "service_tier"
                        | "store"
                        | "temperature"
                        | "text"
                        | "tool_choice"
                        | "tools"
                        | "top_logprobs"
                        | "top_p"
                        | "truncation"
                        | "user"
                        | "background"
                        | "conversation"
                        | "output_text"
                )
            },
            (kind, _) if kind.starts_with("response.") || kind == "error" => |f| {
                matches!(
                    f,
                    "type"
                        | "sequence_number"
                        | "response"
                        | "item"
                        | "item_id"
                        | "output_index"
                        | "content_index"
                        | "summary_index"
                        | "delta"
                        | "text"
                        | "arguments"
                        | "input"
                        | "part"
                        | "annotation"
                        | "annotation_index"
                        | "logprobs"
                        | "obfuscation"
                        | "refusal"
                        | "code"
                        | "message"
                        | "param"
                        | "name"
                        // An error event's details nested in `error`; vLLM's flat error
                        // object (`"object": "error"`).
                        | "error"
                        | "object"
                        // A partial image event is kept whole (`Assembly::progress`).
                        | "partial_image_b64"
                        | "partial_image_index"
                        | "background"
                        | "output_format"
                        | "quality"
                        | "size"
                )
            },
            _ => return None,
        };
        Some(Fields {
            within: None,
            known,
        })
    }
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
    // Unix seconds: `created` on Chat Completions records, `created_at` on a Responses object.
    #[serde(default)]
    created: Option<Value>,
    #[serde(default)]
    created_at: Option<Value>,
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
    #[serde(default)]
    instructions: Option<Value>,
    // Responses events
    #[serde(borrow, default)]
    item_id: Option<Cow<'a, str>>,
    #[serde(default)]
    output_index: Option<u64>,
    #[serde(default)]
    summary_index: Option<u64>,
    #[serde(default)]
    content_index: Option<u64>,
    #[serde(default)]
    annotation: Option<Value>,
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
    // What compatible servers add to a completion or chunk (kept, see `Extras`)
    #[serde(default)]
    system_fingerprint: Option<Value>,
    #[serde(default)]
    service_tier: Option<Value>,
    #[serde(default)]
    prompt_filter_results: Option<Value>,
    #[serde(default)]
    x_groq: Option<Value>,
    #[serde(default)]
    provider: Option<Value>,
    #[serde(default)]
    images: Option<Value>,
    #[serde(default)]
    related_questions: Option<Value>,
    #[serde(default)]
    tool_usage: Option<Value>,
    #[serde(default)]
    content_filters: Option<Value>,
    /// Perplexity: the sources of the answer, as URLs and as search results.
    #[serde(default)]
    citations: Option<Value>,
    #[serde(default)]
    search_results: Option<Value>,
}

impl Wire<'_> {
    /// The top-level fields kept as extras: Azure's prompt filter results, Groq's `x_groq`,
    /// OpenRouter's `provider`, Perplexity's images and related questions, the backend
    /// fingerprint and service tier, Responses tool usage and content filters.
    fn extras(&mut self) -> [(&'static str, Option<Value>); 9] {
        [
            ("system_fingerprint", self.system_fingerprint.take()),
            ("service_tier", self.service_tier.take()),
            ("prompt_filter_results", self.prompt_filter_results.take()),
            ("x_groq", self.x_groq.take()),
            ("provider", self.provider.take()),
            ("images", self.images.take()),
            ("related_questions", self.related_questions.take()),
            ("tool_usage", self.tool_usage.take()),
            ("content_filters", self.content_filters.take()),
        ]
    }
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
    // Per choice, what servers add (kept, see `Extras`)
    #[serde(default)]
    content_filter_results: Option<Value>,
    #[serde(default)]
    content_filter_offsets: Option<Value>,
    #[serde(default)]
    native_finish_reason: Option<Value>,
    #[serde(default)]
    stop_reason: Option<Value>,
    #[serde(default)]
    logprobs: Option<Value>,
}

impl WireChoice<'_> {
    /// The per-choice fields kept as extras: Azure's content filter results and offsets,
    /// OpenRouter's `native_finish_reason`, vLLM's `stop_reason` (the stop string or token
    /// matched), token log probabilities.
    fn extras(&mut self) -> [(&'static str, Option<Value>); 5] {
        [
            ("content_filter_results", self.content_filter_results.take()),
            ("content_filter_offsets", self.content_filter_offsets.take()),
            ("native_finish_reason", self.native_finish_reason.take()),
            ("stop_reason", self.stop_reason.take()),
            ("logprobs", self.logprobs.take()),
        ]
    }
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
    /// Perplexity: the steps of its reasoning, each with a `thought`.
    #[serde(default)]
    reasoning_steps: Option<Vec<Value>>,
    #[serde(borrow, default)]
    tool_calls: Option<Vec<WireToolCall<'a>>>,
    #[serde(borrow, default)]
    tool_call_id: Option<Cow<'a, str>>,
    #[serde(default)]
    annotations: Option<Vec<Value>>,
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
    created_at: Option<Value>,
    #[serde(default)]
    usage: Option<Value>,
    #[serde(borrow, default)]
    output: Option<Vec<WireItem<'a>>>,
    #[serde(default)]
    error: Option<Value>,
    #[serde(default)]
    incomplete_details: Option<Value>,
    #[serde(default)]
    service_tier: Option<Value>,
    #[serde(default)]
    tool_usage: Option<Value>,
    #[serde(default)]
    content_filters: Option<Value>,
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
    #[serde(borrow, default)]
    status: Option<Cow<'a, str>>,
    /// Every other field: the inputs and results of the tool items, which differ by kind
    /// and grow with the API, so what is not mapped is kept rather than dropped.
    #[serde(flatten)]
    rest: Map<String, Value>,
}

impl WireItem<'_> {
    fn kind(&self) -> &str {
        self.kind.as_deref().unwrap_or("message")
    }

    /// The id results name the item by: `call_id`, else the item's `id`.
    fn call_id(&self) -> &str {
        self.call_id.as_deref().or(self.id.as_deref()).unwrap_or("")
    }

    fn field(&self, name: &str) -> Option<&Value> {
        self.rest.get(name).filter(|value| !value.is_null())
    }

    fn text_field(&self, name: &str) -> &str {
        self.field(name).and_then(Value::as_str).unwrap_or("")
    }

    /// An object of the item's fields other than `inputs` (and those read elsewhere): with
    /// the item's `status`, what a server tool produced.
    fn result_fields(&self, inputs: &[&str]) -> Map<String, Value> {
        let mut result = Map::new();
        if let Some(status) = &self.status {
            result.insert("status".into(), Value::String(status.clone().into_owned()));
        }
        if let Some(output) = &self.output {
            result.insert("output".into(), output.to_value());
        }
        for (name, value) in &self.rest {
            if !inputs.contains(&name.as_str()) && !value.is_null() {
                result.insert(name.clone(), value.clone());
            }
        }
        result
    }
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

    fn to_value(&self) -> Value {
        match self {
            StrOr::Str(text) => Value::String(text.clone().into_owned()),
            StrOr::Else(value) => value.clone(),
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
    /// `text`'s length in characters, the unit of citation offsets.
    text_chars: u64,
    text_span: Option<Source>,
    citations: Vec<Citation>,
    calls: Vec<OpenCall>,
    /// Content parts of a kind axt does not map (images, audio, ...), kept as passthrough.
    other_parts: Vec<Value>,
}

struct OpenCall {
    index: Option<u64>,
    id: String,
    name: String,
    /// What streams for the call, joined: JSON arguments (functions, MCP tools), or the
    /// free-form input of a custom tool.
    arguments: String,
    /// How the input is made from `arguments`.
    input: Input,
    /// The provider runs the tool itself (a Responses server tool).
    server: bool,
    /// What the provider reported the tool produced, for a tool it ran and reports in the
    /// same item: the content and whether it failed.
    result: Option<(Value, bool)>,
    span: Source,
}

/// How a call's input is made.
enum Input {
    /// `arguments` is JSON text, parsed when the call is handed out (`{}` when empty).
    Json,
    /// `arguments` is the input itself, a string (a custom tool's free-form input).
    Text,
    /// The input as the provider sent it, a JSON value; `arguments` is not read.
    Value(Value),
    /// These fields, with `code` set to `arguments` when code streamed or was given (the
    /// code interpreter).
    Code(Map<String, Value>),
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
            && self.citations.is_empty()
            && self.calls.is_empty()
            && self.other_parts.is_empty()
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
            self.text_chars += text.chars().count() as u64;
            widen(&mut self.text_span, source);
        }
    }

    /// Annotations of text that starts `shift` characters into this assembly's text; an
    /// exact repeat of a citation already read (servers that resend the list on every chunk)
    /// adds nothing.
    fn cite(&mut self, annotations: &[Value], shift: u64, source: Source) {
        for annotation in annotations {
            let Some(citation) = citation_of(annotation, shift) else {
                self.other_parts.push(annotation.clone());
                continue;
            };
            if !self.citations.contains(&citation) {
                self.citations.push(citation);
                widen(&mut self.text_span, source);
            }
        }
    }

    /// Content: a string, or an array of parts (Chat Completions content parts, Responses
    /// output content, Mistral's thinking and reference chunks).
    fn content(&mut self, content: &StrOr<'_, Value>, source: Source) {
        let parts = match content {
            StrOr::Str(text) => return self.say(text, source),
            StrOr::Else(Value::Array(parts)) => parts.as_slice(),
            StrOr::Else(Value::Null) => return,
            StrOr::Else(part) => std::slice::from_ref(part),
        };
        for part in parts {
            let kind = part.get("type").and_then(Value::as_str).unwrap_or("text");
            match (kind, part) {
                (_, Value::String(text)) => self.say(text, source),
                ("text" | "output_text" | "input_text", _) => {
                    let shift = self.text_chars;
                    self.say(
                        part.get("text").and_then(Value::as_str).unwrap_or(""),
                        source,
                    );
                    if let Some(Value::Array(annotations)) = part.get("annotations") {
                        self.cite(annotations, shift, source);
                    }
                }
                ("refusal", _) => {
                    self.say(
                        part.get("refusal").and_then(Value::as_str).unwrap_or(""),
                        source,
                    );
                }
                ("thinking", _) => {
                    // Mistral: `{"type": "thinking", "thinking": [{"type": "text", ...}]}`.
                    if let Some(thinking) = part.get("thinking") {
                        self.think(&parts_text(thinking, ""), source);
                    }
                }
                ("reference", _) => {
                    // Mistral: a marker citing tool results by reference id, at this point
                    // of the text.
                    let mut extra = part.as_object().cloned().unwrap_or_default();
                    extra.remove("type");
                    let citation = Citation {
                        kind: "reference".into(),
                        start_index: Some(self.text_chars),
                        end_index: Some(self.text_chars),
                        extra,
                        ..Citation::default()
                    };
                    self.citations.push(citation);
                    widen(&mut self.text_span, source);
                }
                _ => self.other_parts.push(part.clone()),
            }
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
        for step in message.reasoning_steps.iter().flatten() {
            // One line per step: the steps arrive one chunk at a time.
            if let Some(thought) = step.get("thought").and_then(Value::as_str)
                && !thought.is_empty()
            {
                if !self.thinking.is_empty() && !self.thinking.ends_with('\n') {
                    self.think("\n", source);
                }
                self.think(thought, source);
            }
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
            self.content(content, source);
        }
        if let Some(refusal) = &message.refusal {
            self.say(refusal, source);
        }
        if let Some(annotations) = &message.annotations {
            self.cite(annotations, 0, source);
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

    /// A chunk's `message`: the consolidated copy so far when it extends what was assembled
    /// (Perplexity repeats the whole message on every chunk, and again in its `.done`
    /// records), so it replaces it; otherwise more of the message.
    fn snapshot(&mut self, copy: Assembly) {
        if copy.text.starts_with(&self.text) {
            if copy.text.len() > self.text.len() || self.text_span.is_none() {
                self.text_span = self.text_span.or(copy.text_span);
            }
            self.text = copy.text;
            self.text_chars = copy.text_chars;
        } else {
            self.text.push_str(&copy.text);
            self.text_chars += copy.text_chars;
            self.text_span = self.text_span.or(copy.text_span);
        }
        if copy.thinking.starts_with(&self.thinking) {
            self.thinking_span = self.thinking_span.or(copy.thinking_span);
            self.thinking = copy.thinking;
        } else {
            self.thinking.push_str(&copy.thinking);
        }
        self.signature = copy.signature.or(self.signature.take());
        for citation in copy.citations {
            if !self.citations.contains(&citation) {
                self.citations.push(citation);
            }
        }
        if self.calls.is_empty() {
            self.calls = copy.calls;
        }
        self.other_parts.extend(copy.other_parts);
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
                input: Input::Json,
                server: false,
                result: None,
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
            Some(StrOr::Else(value)) => call.input = Input::Value(value),
        }
    }

    /// A Responses item (output or request input), as far as it carries assistant output.
    fn item(&mut self, item: &WireItem<'_>, source: Source) {
        match item.kind.as_deref().unwrap_or("message") {
            "message" => {
                if let Some(content) = &item.content {
                    self.content(content, source);
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
                // A tool of a namespace is named by both (MCP's `server__tool` spelling):
                // the name alone could be another namespace's tool.
                let name = match (item.text_field("namespace"), item.name.as_deref()) {
                    ("", name) => name.map(Cow::Borrowed),
                    (namespace, Some(name)) => Some(Cow::Owned(format!("{namespace}__{name}"))),
                    (_, None) => None,
                };
                self.call_fragment(None, id, name.as_deref(), arguments, source);
                if item.kind.as_deref() == Some("custom_tool_call")
                    && let Some(call) = self.calls.last_mut()
                    && matches!(call.input, Input::Json)
                {
                    // Free-form input is a string, not JSON arguments; it streams the same
                    // way (`custom_tool_call_input.delta`).
                    call.input = Input::Text;
                }
            }
            "local_shell_call" => {
                let action = item.action.clone().unwrap_or(Value::Null);
                self.tool_item(item, "local_shell", Input::Value(action), source);
            }
            "shell_call" => {
                let action = item.action.clone().unwrap_or(Value::Null);
                self.tool_item(item, "shell", Input::Value(action), source);
                // A shell in a container the provider hosts runs there; its output comes
                // back as a `shell_call_output` item of the response.
                let hosted = item
                    .field("environment")
                    .and_then(|e| e.get("type"))
                    .and_then(Value::as_str)
                    .is_some_and(|kind| kind != "local");
                self.last_call().server = hosted;
            }
            "apply_patch_call" => {
                let operation = item.field("operation").cloned().unwrap_or(Value::Null);
                self.tool_item(item, "apply_patch", Input::Value(operation), source);
            }
            "computer_call" => {
                let mut input = pick(item, &["actions", "pending_safety_checks"]);
                if let (Value::Object(fields), Some(action)) = (&mut input, &item.action) {
                    fields.insert("action".into(), action.clone());
                }
                self.tool_item(item, "computer", Input::Value(input), source);
            }
            "tool_search_call" => {
                let arguments = item.arguments.as_ref().map_or(Value::Null, StrOr::to_value);
                self.tool_item(item, "tool_search", Input::Value(arguments), source);
                self.last_call().server = item.text_field("execution") == "server";
            }
            "mcp_approval_request" => {
                let arguments = item.arguments.as_ref().map_or(Value::Null, StrOr::to_value);
                let mut input = pick(item, &["server_label"]);
                if let (Value::Object(fields), Some(name)) = (&mut input, &item.name) {
                    fields.insert("name".into(), Value::String(name.clone().into_owned()));
                    fields.insert("arguments".into(), parsed(arguments));
                }
                let id = item.id.as_deref().unwrap_or("");
                self.call_at(id, "mcp_approval_request", Input::Value(input), source);
            }
            "web_search_call" => {
                let action = item.action.clone().unwrap_or(Value::Null);
                let result = item.result_fields(&[]);
                self.server_item(item, "web_search", Input::Value(action), result, source);
            }
            "file_search_call" => {
                let input = pick(item, &["queries"]);
                let result = item.result_fields(&["queries"]);
                self.server_item(item, "file_search", Input::Value(input), result, source);
            }
            "code_interpreter_call" => {
                let Value::Object(input) = pick(item, &["code", "container_id"]) else {
                    unreachable!("pick makes an object")
                };
                let result = item.result_fields(&["code", "container_id"]);
                self.server_item(item, "code_interpreter", Input::Code(input), result, source);
                let code = item.text_field("code").to_owned();
                self.last_call().arguments = code;
            }
            "image_generation_call" => {
                const PARAMETERS: [&str; 5] = [
                    "revised_prompt",
                    "size",
                    "quality",
                    "background",
                    "output_format",
                ];
                let mut input = pick(item, &PARAMETERS);
                if let (Value::Object(fields), Some(action)) = (&mut input, &item.action) {
                    fields.insert("action".into(), action.clone());
                }
                let result = item.result_fields(&PARAMETERS);
                self.server_item(
                    item,
                    "image_generation",
                    Input::Value(input),
                    result,
                    source,
                );
            }
            "mcp_call" => {
                let name = format!(
                    "mcp__{}__{}",
                    item.text_field("server_label"),
                    item.name.as_deref().unwrap_or("")
                );
                let result = item.result_fields(&["server_label"]);
                self.server_item(item, &name, Input::Json, result, source);
                let id = item.id.as_deref();
                let arguments = item.arguments.as_ref().map(|a| match a {
                    StrOr::Str(text) => StrOr::Str(text.clone()),
                    StrOr::Else(value) => StrOr::Else(value.clone()),
                });
                self.call_fragment(None, id, None, arguments, source);
            }
            "mcp_list_tools" => {
                let input = pick(item, &["server_label"]);
                let result = item.result_fields(&["server_label"]);
                self.server_item(item, "mcp_list_tools", Input::Value(input), result, source);
            }
            _ => {}
        }
    }

    /// A server tool's progress: the status its result reports so far (`failed` makes it an
    /// error); an image generation's latest partial image with it.
    fn progress(&mut self, status: &str, partial: Option<Value>) {
        let Some(OpenCall {
            result: Some((Value::Object(result), failed)),
            ..
        }) = self.calls.last_mut()
        else {
            return;
        };
        if status == "partial_image" {
            for field in ["partial_image_b64", "partial_image_index"] {
                if let Some(value) = partial.as_ref().and_then(|event| event.get(field)) {
                    result.insert(field.into(), value.clone());
                }
            }
        } else {
            result.insert("status".into(), Value::String(status.to_owned()));
            *failed |= status == "failed";
        }
    }

    fn last_call(&mut self) -> &mut OpenCall {
        self.calls.last_mut().expect("a call was just added")
    }

    /// A new call with this id, name and input.
    fn call_at(&mut self, id: &str, name: &str, input: Input, source: Source) {
        self.calls.push(OpenCall {
            index: None,
            id: id.to_owned(),
            name: name.to_owned(),
            arguments: String::new(),
            input,
            server: false,
            result: None,
            span: source,
        });
    }

    /// A tool item the client runs: its result comes back as an output item of its own.
    fn tool_item(&mut self, item: &WireItem<'_>, name: &str, input: Input, source: Source) {
        self.call_at(item.call_id(), name, input, source);
    }

    /// A tool the provider ran, its result in the same item: `result` is the item's status
    /// and what the tool produced; a `failed` status or an `error` make it an error.
    fn server_item(
        &mut self,
        item: &WireItem<'_>,
        name: &str,
        input: Input,
        result: Map<String, Value>,
        source: Source,
    ) {
        let failed = item.status.as_deref() == Some("failed") || item.field("error").is_some();
        self.call_at(item.id.as_deref().unwrap_or(""), name, input, source);
        let call = self.last_call();
        call.server = true;
        call.result = Some((Value::Object(result), failed));
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
            self.text_chars = streamed.text_chars;
        } else if !streamed.text.is_empty() && streamed.text != self.text {
            mismatch("text", self.text_span);
        }
        if let Some(span) = streamed.text_span {
            self.text_span = Some(Source {
                end_line: self.text_span.map_or(span.end_line, |s| s.end_line),
                ..span
            });
        }
        if self.citations.is_empty() {
            self.citations = streamed.citations;
        } else if !streamed.citations.is_empty() && streamed.citations != self.citations {
            mismatch("citations", self.text_span);
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
            if matches!(call.input, Input::Value(_)) {
                // The copy's input is a JSON value: the deltas were its text, nothing to add.
            } else if call.arguments.is_empty() {
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

/// Fields of a response that axt keeps but has no place for (see `Wire::extras` and
/// `WireChoice::extras`), gathered while the response streams and kept as one passthrough
/// record `extras` when the next response begins or the input ends: `{"response": id,
/// <field>: [values]}`, each field with the values it took in order, a value repeated on
/// consecutive chunks listed once; a choice's fields are named `choices[<index>].<field>`.
/// Empty values (null, "", {}, []) say nothing and are not listed.
#[derive(Default)]
struct Extras {
    line: u64,
    fields: Vec<(String, Vec<Value>)>,
}

impl Extras {
    fn note(&mut self, line: u64, name: &str, value: Option<Value>) {
        let Some(value) = value else { return };
        let empty = match &value {
            Value::Null => true,
            Value::String(text) => text.is_empty(),
            Value::Array(items) => items.is_empty(),
            Value::Object(fields) => fields.is_empty(),
            _ => false,
        };
        if empty {
            return;
        }
        if self.fields.is_empty() {
            self.line = line;
        }
        match self.fields.iter_mut().find(|(known, _)| known == name) {
            Some((_, values)) if values.last() == Some(&value) => {}
            Some((_, values)) => values.push(value),
            None => self.fields.push((name.to_owned(), vec![value])),
        }
    }
}

/// A Responses output item being streamed.
struct OpenItem {
    id: String,
    output_index: Option<u64>,
    summary_index: Option<u64>,
    /// Where each content part's text starts in the assembled text, by `content_index`:
    /// annotations count from the start of their part.
    part_starts: Vec<(u64, u64)>,
    assembly: Assembly,
}

impl OpenItem {
    /// The character offset where content part `index` starts (from here, if unseen).
    fn part_start(&mut self, index: Option<u64>) -> u64 {
        let index = index.unwrap_or(0);
        match self.part_starts.iter().find(|(at, _)| *at == index) {
            Some((_, start)) => *start,
            None => {
                let start = self.assembly.text_chars;
                self.part_starts.push((index, start));
                start
            }
        }
    }
}

struct State {
    meta: RunMeta,
    extras: Extras,
    /// The sources of the response being read (Perplexity), cited by its choices' text.
    sources: Vec<Citation>,
    /// The cost of the responses before this one.
    cost_before: Option<f64>,
    /// The last Responses request's `instructions`.
    instructions: Option<Value>,
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
    /// The checks the line driver makes around every record (times, report, other
    /// providers' records).
    watch: Watch,
}

impl State {
    fn new(max_document_bytes: usize) -> Self {
        State {
            meta: RunMeta::new(Provider::OpenAi),
            extras: Extras::default(),
            sources: Vec::new(),
            cost_before: None,
            instructions: None,
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
            watch: Watch::new(Provider::OpenAi),
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
                    parser.tally.unreadable();
                    self.watch.first_record(line, offset);
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
                parser.tally.unreadable();
                self.watch.first_record(line, offset);
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
        let before = out.diagnostics.len();
        let Output { items, diagnostics } = out;
        parser.parse::<WireShape>(record, diagnostics, |wire, diagnostics| {
            self.record(wire, record, span, event, items, diagnostics)
        });
        self.watch.first_record(span.line, span.offset);
        self.watch.read(record, parser, before, out);
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
            Err(too_large) => {
                parser.tally.unreadable();
                out.diagnostics.push(too_large);
            }
        }
    }

    /// One parsed record, whatever its kind.
    fn record(
        &mut self,
        mut wire: Wire<'_>,
        record: Record<'_>,
        span: Source,
        event: Option<&str>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Fate {
        let created = wire.created.as_ref().or(wire.created_at.as_ref()).or(wire
            .response
            .as_ref()
            .and_then(|response| response.created_at.as_ref()));
        if let Some(seconds) = created.and_then(Value::as_i64) {
            let time = Timestamp::from_unix_nanos(i128::from(seconds) * 1_000_000_000);
            self.meta.saw_timestamp(time);
        }
        let kind = wire.kind.as_deref().or(event).unwrap_or("").to_owned();
        // Azure's first chunk names no object (`"object": ""`) and has no choices, only
        // the prompt's filter results.
        wire.object = wire.object.take().filter(|object| !object.is_empty());
        let has_delta = |wire: &Wire<'_>| {
            wire.choices
                .as_ref()
                .is_some_and(|c| c.iter().any(|c| c.delta.is_some()))
        };
        let is_chunk = matches!(
            wire.object.as_deref(),
            // Perplexity's stream: reasoning records and a terminal record of its own.
            Some(
                "chat.completion.chunk"
                    | "chat.reasoning"
                    | "chat.reasoning.done"
                    | "chat.completion.done"
            )
        ) || (wire.object.as_deref() == Some("chat.completion") && has_delta(&wire))
            || (wire.object.is_none()
                && wire.kind.is_none()
                && wire
                    .choices
                    .as_ref()
                    .is_some_and(|c| c.is_empty() || c.iter().any(|c| c.delta.is_some())));
        match wire.object.as_deref() {
            _ if is_chunk => self.chunk(wire, span, items, diagnostics),
            Some("chat.completion") => self.completion(wire, span, items, diagnostics),
            Some("error") => self.fail(&to_value(record.bytes), span, items, diagnostics),
            Some("response") => {
                let response = top_response(wire);
                self.response_end(response, record, "/output", span, items, diagnostics);
            }
            _ if kind.starts_with("response.") || kind == "error" => {
                return self.responses_event(&kind, wire, record, span, items, diagnostics);
            }
            _ if wire.choices.is_some() => self.completion(wire, span, items, diagnostics),
            _ if wire.messages.is_some() => self.chat_request(wire, span, items, diagnostics),
            _ if wire.input.is_some() => {
                self.responses_request(wire, record, span, items, diagnostics)
            }
            _ if wire.error.as_ref().is_some_and(|e| !e.is_null()) => {
                let error = wire.error.unwrap_or(Value::Null);
                self.fail(&error, span, items, diagnostics);
            }
            other => {
                let kind = other.map_or_else(|| "record".to_owned(), str::to_owned);
                self.meta.keep(span.line, &kind, || to_value(record.bytes));
                return Fate::Passthrough;
            }
        }
        Fate::Mapped
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
            // What came before the first id (Azure's prompt filter results) belongs to it.
            if self.response_id.is_some() {
                self.keep_extras();
            }
            self.response_id = Some(id.to_owned());
            self.usage_before = self.meta.usage;
            self.cost_before = self.meta.cost_usd;
            self.sources.clear();
            self.calls_in_response = 0;
        }
    }

    /// Keeps the extras of the response that ended.
    fn keep_extras(&mut self) {
        let extras = std::mem::take(&mut self.extras);
        if extras.fields.is_empty() {
            return;
        }
        let response = self.response_id.clone();
        self.meta.keep(extras.line, "extras", || {
            let mut raw = Map::new();
            raw.insert(
                "response".into(),
                response.map_or(Value::Null, Value::String),
            );
            for (name, values) in extras.fields {
                raw.insert(name, Value::Array(values));
            }
            Value::Object(raw)
        });
    }

    /// Notes a record's extras and its choices'.
    fn note_extras(&mut self, wire: &mut Wire<'_>, line: u64) {
        for (name, value) in wire.extras() {
            self.extras.note(line, name, value);
        }
        for choice in wire.choices.iter_mut().flatten() {
            let index = choice.index.unwrap_or(0);
            for (name, value) in choice.extras() {
                self.extras
                    .note(line, &format!("choices[{index}].{name}"), value);
            }
            // Perplexity's reasoning steps say what it searched and fetched; their
            // thoughts are read as thinking, the rest is kept here.
            for message in [&choice.delta, &choice.message].into_iter().flatten() {
                let steps = message.reasoning_steps.clone().map(Value::Array);
                self.extras
                    .note(line, &format!("choices[{index}].reasoning_steps"), steps);
            }
        }
    }

    fn usage(&mut self, raw: Option<Value>) {
        let Some(raw) = raw.filter(Value::is_object) else {
            return;
        };
        let mut usage = self.usage_before;
        usage.add(&usage_of(&raw, self.meta.model.as_deref()));
        self.meta.usage = usage;
        // A cost in dollars: OpenRouter's `cost` (credits are dollars), Perplexity's
        // `cost.total_cost`.
        let cost = raw.get("cost").and_then(|cost| {
            cost.as_f64()
                .or_else(|| cost.get("total_cost").and_then(Value::as_f64))
        });
        if let Some(cost) = cost {
            self.meta.cost_usd = Some(self.cost_before.unwrap_or(0.0) + cost);
        }
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
        mut wire: Wire<'_>,
        span: Source,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        self.begin_response(wire.id.as_deref(), wire.model.as_deref());
        // Groq reports a stream's usage only inside `x_groq`, on its last chunk.
        let groq_usage = wire
            .x_groq
            .as_ref()
            .and_then(|x| x.get("usage"))
            .filter(|usage| usage.is_object())
            .cloned();
        self.note_extras(&mut wire, span.line);
        self.sources(&mut wire);
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
            if let Some(delta) = choice.delta {
                self.choices[at].1.message(delta, span);
            }
            if let Some(message) = choice.message {
                let mut copy = Assembly::default();
                copy.message(message, span);
                self.choices[at].1.snapshot(copy);
            }
            if let Some(reason) = choice.finish_reason.filter(|r| !r.is_empty()) {
                self.stop(finish_kind(&reason), &reason);
                let (_, assembly) = self.choices.remove(at);
                self.emit_choice(index, assembly, true, items, diagnostics);
                if self.choices.is_empty() {
                    self.history += 1;
                    self.completed();
                }
            }
        }
        self.usage(wire.usage.filter(|usage| !usage.is_null()).or(groq_usage));
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
        mut wire: Wire<'_>,
        span: Source,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        self.begin_response(wire.id.as_deref(), wire.model.as_deref());
        self.note_extras(&mut wire, span.line);
        self.sources(&mut wire);
        for choice in wire.choices.into_iter().flatten() {
            let mut assembly = Assembly::default();
            if let Some(message) = choice.message.or(choice.delta) {
                assembly.message(message, span);
            }
            let index = choice.index.unwrap_or(0);
            self.emit_choice(index, assembly, true, items, diagnostics);
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
                    let result = ItemResult {
                        tool_id: message.tool_call_id.as_deref().unwrap_or("").to_owned(),
                        content: message.content.map_or(Value::Null, StrOr::into_value),
                        is_error: false,
                        exit_code: None,
                    };
                    self.tool_result(result, Role::User, span, items, diagnostics);
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
        record: Record<'_>,
        span: Source,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        // The system prompt of a Responses request, kept when it changes (every request
        // repeats it).
        if let Some(instructions) = wire.instructions.filter(|i| !i.is_null())
            && self.instructions.as_ref() != Some(&instructions)
        {
            let kept = instructions.clone();
            self.meta.keep(span.line, "instructions", || kept);
            self.instructions = Some(instructions);
        }
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
        for (at, item) in input.into_iter().enumerate().skip(skip) {
            match item.kind() {
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
                kind if OUTPUT_ITEMS.contains(&kind) => {
                    let mut assembly = Assembly::default();
                    assembly.item(&item, span);
                    self.emit(assembly, true, items, diagnostics);
                }
                kind => match result_item(&item) {
                    Some(result) => self.tool_result(result, Role::User, span, items, diagnostics),
                    None => self.meta.keep(span.line, &format!("item/{kind}"), || {
                        to_value(record.bytes)
                            .pointer_mut(&format!("/input/{at}"))
                            .map(Value::take)
                            .unwrap_or_default()
                    }),
                },
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
    ) -> Fate {
        match kind {
            "response.created" | "response.in_progress" | "response.queued" => {
                let response = wire.response.unwrap_or_default();
                let id = response.id.as_deref().filter(|id| !id.is_empty());
                if id.is_some() && self.response_id.as_deref() != id {
                    // Items still open belong to a response that was cut off; they must not
                    // take the new response's items at their output index.
                    self.flush(false, items, diagnostics);
                }
                self.begin_response(response.id.as_deref(), response.model.as_deref());
                self.streaming = true;
            }
            "response.output_item.added" => {
                self.streaming = true;
                self.saw_response = true;
                let Some(item) = wire.item else {
                    return Fate::Skipped;
                };
                let at = self.open_item(item.id.as_deref(), wire.output_index);
                self.items[at].assembly.item(&item, span);
            }
            "response.output_text.delta" | "response.refusal.delta" => {
                let at = self.item_at(&wire);
                let item = &mut self.items[at];
                item.part_start(wire.content_index);
                let delta = wire.delta.map(|d| d.text("")).unwrap_or_default();
                item.assembly.say(&delta, span);
            }
            "response.output_text.annotation.added" => {
                let at = self.item_at(&wire);
                let item = &mut self.items[at];
                let shift = item.part_start(wire.content_index);
                if let Some(annotation) = wire.annotation {
                    item.assembly.cite(&[annotation], shift, span);
                }
            }
            "response.function_call_arguments.delta"
            | "response.custom_tool_call_input.delta"
            | "response.mcp_call_arguments.delta"
            | "response.code_interpreter_call_code.delta" => {
                let at = self.item_at(&wire);
                let delta = wire.delta.map(|d| d.text("")).unwrap_or_default();
                let call = &mut self.items[at].assembly;
                call.call_fragment(None, None, None, Some(StrOr::Str(delta.into())), span);
            }
            "response.function_call_arguments.done"
            | "response.custom_tool_call_input.done"
            | "response.mcp_call_arguments.done"
            | "response.code_interpreter_call_code.done" => {
                let at = self.item_at(&wire);
                let code = match wire.code {
                    Some(Value::String(code)) => Some(StrOr::Str(Cow::Owned(code))),
                    _ => None,
                };
                let arguments = wire
                    .arguments
                    .or(code)
                    .or(wire.input.map(|input| match input {
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
                let Some(item) = wire.item else {
                    return Fate::Skipped;
                };
                let at = self.open_item(item.id.as_deref(), wire.output_index);
                let open = self.items.remove(at);
                self.streamed_items = true;
                self.output_item(&item, Some(open.assembly), span, items, diagnostics, || {
                    to_value(record.bytes)
                        .get_mut("item")
                        .map(Value::take)
                        .unwrap_or_default()
                });
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
                let output_at = "/response/output";
                self.response_end(response, record, output_at, span, items, diagnostics);
            }
            "error" => {
                // openai-python types the event flat (`code`, `message`, `param`); the API
                // also sends the details in an `error` object. Each field is taken from the
                // top level, else from inside `error`.
                let mut error = match wire.error {
                    Some(Value::Object(inner)) => inner,
                    _ => Map::new(),
                };
                let flat = [
                    ("code", wire.code),
                    ("message", wire.message.map(StrOr::into_value)),
                ];
                for (name, value) in flat {
                    if let Some(value) = value.filter(|v| !v.is_null()) {
                        error.insert(name.into(), value);
                    }
                }
                self.fail(&Value::Object(error), span, items, diagnostics);
            }
            "response.content_part.added"
            | "response.content_part.done"
            | "response.output_text.done"
            | "response.refusal.done"
            | "response.reasoning_summary_part.added"
            | "response.reasoning_summary_part.done"
            | "response.reasoning_summary_text.done"
            | "response.reasoning_text.done" => {
                // Structure only: the text is in the deltas and in `output_item.done`.
                self.streaming = true;
            }
            "response.shell_call_command.added"
            | "response.shell_call_command.delta"
            | "response.shell_call_command.done"
            | "response.shell_call_output_content.delta"
            | "response.shell_call_output_content.done" => {
                // Structure only: the commands and their output are in the `shell_call` and
                // `shell_call_output` items' `output_item.done`.
                self.streaming = true;
            }
            other => match server_tool_progress(other) {
                Some(status) => {
                    let at = self.item_at(&wire);
                    let partial = (status == "partial_image").then(|| to_value(record.bytes));
                    self.items[at].assembly.progress(status, partial);
                }
                None => {
                    self.meta.keep(span.line, other, || to_value(record.bytes));
                    return Fate::Passthrough;
                }
            },
        }
        Fate::Mapped
    }

    /// The open item an event names (by `item_id`, else `output_index`); opened if unseen.
    fn item_at(&mut self, wire: &Wire<'_>) -> usize {
        self.streaming = true;
        self.saw_response = true;
        self.open_item(wire.item_id.as_deref(), wire.output_index)
    }

    /// The open item an event is about: the one at its `output_index`, else the one with its
    /// id; a new one when neither is open. The index decides first because it is the
    /// item's place in the response, while ids are not stable everywhere: some proxies give
    /// the same item a new id on every event, and going by the id would replay its deltas
    /// as a second copy.
    fn open_item(&mut self, id: Option<&str>, output_index: Option<u64>) -> usize {
        let id = id.filter(|id| !id.is_empty());
        let by_index =
            output_index.and_then(|at| self.items.iter().position(|i| i.output_index == Some(at)));
        let found = by_index.or_else(|| {
            let id = id?;
            let at = self.items.iter().position(|i| i.id == id)?;
            self.items[at].output_index = self.items[at].output_index.or(output_index);
            Some(at)
        });
        found.unwrap_or_else(|| {
            self.items.push(OpenItem {
                id: id.unwrap_or("").to_owned(),
                output_index,
                summary_index: None,
                part_starts: Vec::new(),
                assembly: Assembly::default(),
            });
            self.items.len() - 1
        })
    }

    /// A Responses object: a whole body, or the one a terminal event carries.
    /// `output_at` is where the response's `output` is in `record` (`/output` in a body,
    /// `/response/output` in a terminal event).
    fn response_end(
        &mut self,
        mut response: WireResponse<'_>,
        record: Record<'_>,
        output_at: &str,
        span: Source,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        self.begin_response(response.id.as_deref(), response.model.as_deref());
        for (name, value) in [
            ("service_tier", response.service_tier.take()),
            ("tool_usage", response.tool_usage.take()),
            ("content_filters", response.content_filters.take()),
        ] {
            self.extras.note(span.line, name, value);
        }
        let mut count = self.items.len();
        if self.streamed_items || !self.items.is_empty() {
            // The stream said it all; the output repeats it. Items never marked done are
            // complete now that the response is.
            self.flush(true, items, diagnostics);
        } else {
            let output = response.output.unwrap_or_default();
            count = output.len();
            for (at, item) in output.iter().enumerate() {
                self.output_item(item, None, span, items, diagnostics, || {
                    let pointer = format!("{output_at}/{at}");
                    to_value(record.bytes)
                        .pointer_mut(&pointer)
                        .map(Value::take)
                        .unwrap_or_default()
                });
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
        // Parts that are not text (images, files, audio) are kept, not dropped.
        if let StrOr::Else(Value::Array(parts)) = content {
            for part in parts {
                let kind = part.get("type").and_then(Value::as_str).unwrap_or("text");
                if !matches!(kind, "text" | "input_text" | "output_text") {
                    self.meta
                        .keep(span.line, &format!("part/{kind}"), || part.clone());
                }
            }
        }
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

    /// A tool result: from a request (`Role::User`, the client ran the tool), or from a
    /// response's output (`Role::Assistant`, the provider did).
    fn tool_result(
        &mut self,
        result: ItemResult,
        role: Role,
        span: Source,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        self.tools
            .answer(&result.tool_id, span.line, span.offset, diagnostics);
        let block = Block::ToolResult {
            tool_id: result.tool_id,
            tool_content: result.content,
            is_error: result.is_error,
            exit_code: result.exit_code,
        };
        let block = ContentBlock::new(Fidelity::AgentEmitted, block);
        let message_id = match role {
            Role::User => None,
            _ => self.response_id.clone(),
        };
        items.push(item(block, role, message_id, span));
    }

    /// One item of a response's output, complete: streamed (with what its deltas
    /// assembled) or from a body. Blocks for what axt maps, a tool result for a result item,
    /// passthrough (`raw`) for the rest.
    fn output_item(
        &mut self,
        item: &WireItem<'_>,
        streamed: Option<Assembly>,
        span: Source,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
        raw: impl FnOnce() -> Value,
    ) {
        let kind = item.kind();
        if OUTPUT_ITEMS.contains(&kind) {
            let mut assembly = Assembly::default();
            assembly.item(item, span);
            if let Some(streamed) = streamed {
                assembly.fill_from(streamed, diagnostics);
            }
            self.emit(assembly, true, items, diagnostics);
            // What the item says beyond what its blocks carry (a message's `phase`, a
            // call's `caller`, a shell's environment) is kept with the response's extras.
            let id = item.id.as_deref().unwrap_or(item.call_id());
            for (name, value) in &item.rest {
                if !item_field_read(kind, name) {
                    let name = format!("output[{id}].{name}");
                    self.extras.note(span.line, &name, Some(value.clone()));
                }
            }
        } else if let Some(result) = result_item(item) {
            self.tool_result(result, Role::Assistant, span, items, diagnostics);
        } else {
            self.meta.keep(span.line, &format!("item/{kind}"), raw);
        }
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
        for (index, assembly) in std::mem::take(&mut self.choices) {
            self.emit_choice(index, assembly, complete, items, diagnostics);
        }
        for open in std::mem::take(&mut self.items) {
            self.emit(open.assembly, complete, items, diagnostics);
        }
    }

    /// Perplexity's sources of the response (`search_results`, else the bare URLs of
    /// `citations`; on every chunk in its full stream mode, so the latest list is the one).
    fn sources(&mut self, wire: &mut Wire<'_>) {
        let mut sources: Vec<Citation> = Vec::new();
        if let Some(Value::Array(results)) = wire.search_results.take() {
            for result in results {
                let mut fields = result.as_object().cloned().unwrap_or_default();
                fields.insert("type".into(), Value::String("search_result".into()));
                if let Some(citation) = citation_of(&Value::Object(fields), 0) {
                    sources.push(citation);
                }
            }
        }
        if let Some(Value::Array(urls)) = wire.citations.take() {
            for url in urls.iter().filter_map(Value::as_str) {
                // Perplexity lists each source in both; a URL its search results name is
                // read once.
                if !sources.iter().any(|s| s.url.as_deref() == Some(url)) {
                    sources.push(Citation {
                        kind: "url".into(),
                        url: Some(url.to_owned()).filter(|url| !url.is_empty()),
                        ..Citation::default()
                    });
                }
            }
        }
        if !sources.is_empty() {
            self.sources = sources;
        }
    }

    /// Hands out chat choice `index`, with the response's sources as its text's citations.
    /// The choices of a response after the first (`n` > 1) are other completions of the
    /// same prompt, not more of one message: their message id is the response id with
    /// `#<index>` appended.
    fn emit_choice(
        &mut self,
        index: u64,
        mut assembly: Assembly,
        complete: bool,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        if assembly.text_span.is_some() {
            for source in &self.sources {
                if !assembly.citations.contains(source) {
                    assembly.citations.push(source.clone());
                }
            }
        }
        if index == 0 {
            return self.emit(assembly, complete, items, diagnostics);
        }
        let response_id = self.response_id.clone();
        self.response_id = response_id.as_ref().map(|id| format!("{id}#{index}"));
        self.emit(assembly, complete, items, diagnostics);
        self.response_id = response_id;
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
            let block = Block::Text {
                text: assembly.text,
                citations: assembly.citations,
            };
            let block = ContentBlock::new(Fidelity::AgentEmitted, block);
            items.push(item(block, Role::Assistant, message_id.clone(), span));
        }
        for part in assembly.other_parts {
            let kind = part.get("type").and_then(Value::as_str).unwrap_or("");
            let line = assembly.text_span.map_or(0, |span| span.line);
            self.meta
                .keep(line, &format!("part/{kind}"), || part.clone());
        }
        for call in assembly.calls {
            let span = call.span;
            let what = super::tools::describe_tool(&call.name, &call.id);
            incomplete(diagnostics, &what, span);
            let tool_input = match call.input {
                Input::Value(value) => value,
                Input::Text => Value::String(call.arguments),
                Input::Code(mut fields) => {
                    if !call.arguments.is_empty() {
                        fields.insert("code".into(), Value::String(call.arguments));
                    }
                    Value::Object(fields)
                }
                Input::Json if call.arguments.trim().is_empty() => {
                    Value::Object(Default::default())
                }
                Input::Json => match serde_json::from_str::<Value>(&call.arguments) {
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
            if !call.server {
                // Only a call the client must run ends the turn for tools.
                self.calls_in_response += 1;
            }
            let commands = shell_commands(&call.name, &tool_input);
            let block = Block::ToolUse {
                tool_name: call.name,
                tool_id: call.id.clone(),
                tool_input,
                server: call.server,
                incomplete: !complete,
            };
            let block = ContentBlock::new(Fidelity::AgentEmitted, block);
            items.push(item(block, Role::Assistant, message_id.clone(), span));
            for command in commands {
                let block = Block::Command {
                    command,
                    tool_id: Some(call.id.clone()).filter(|id| !id.is_empty()),
                };
                let block = ContentBlock::new(Fidelity::AgentEmitted, block);
                items.push(item(block, Role::Assistant, message_id.clone(), span));
            }
            // A server tool's result is in its item; a call cut off has none yet.
            if let (Some((content, is_error)), true) = (call.result, complete) {
                self.tools
                    .answer(&call.id, span.line, span.offset, diagnostics);
                let block = Block::ToolResult {
                    tool_id: call.id,
                    tool_content: content,
                    is_error,
                    exit_code: None,
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
        self.keep_extras();
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
        created_at: wire.created_at,
        usage: wire.usage,
        output: wire.output,
        error: wire.error,
        incomplete_details: wire.incomplete_details,
        service_tier: wire.service_tier,
        tool_usage: wire.tool_usage,
        content_filters: wire.content_filters,
    }
}

/// Usage of either API, in axt's convention (see [`Usage`]): cached input taken out of the
/// input, reasoning counted in the output.
///
/// OpenAI, Groq, DeepSeek and most compatible servers count reasoning inside
/// `completion_tokens` (`output_tokens`); xAI counts it beside it, so that its
/// `total_tokens` is prompt + completion + reasoning. The arithmetic of the record decides:
/// when `total_tokens` is that sum (and not prompt + completion), the reasoning is added to
/// the output. A record without `total_tokens` is taken as xAI's when `model` is a Grok
/// model (`grok-*`, also behind a `vendor/` prefix), else as OpenAI's.
fn usage_of(raw: &Value, model: Option<&str>) -> Usage {
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
    let output = count(&["completion_tokens"])
        .or(count(&["output_tokens"]))
        .unwrap_or(0);
    let reasoning = count(&["completion_tokens_details", "reasoning_tokens"])
        .or(count(&["output_tokens_details", "reasoning_tokens"]))
        .unwrap_or(0);
    let reasoning_beside_output = match count(&["total_tokens"]) {
        Some(total) if reasoning > 0 && total == input + output + reasoning => true,
        Some(total) if total == input + output => false,
        _ => model.is_some_and(is_grok),
    };
    Usage {
        input_tokens: input.saturating_sub(cached),
        output_tokens: if reasoning_beside_output {
            output + reasoning
        } else {
            output
        },
        cache_read_tokens: cached,
        cache_write_tokens: 0,
        reasoning_tokens: reasoning,
    }
}

/// Whether a model name is xAI's Grok (`grok-4`, `xai/grok-4.1-fast-reasoning`).
fn is_grok(model: &str) -> bool {
    let name = model.rsplit('/').next().unwrap_or(model);
    name.get(..4)
        .is_some_and(|prefix| prefix.eq_ignore_ascii_case("grok"))
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

/// Whether `Assembly::item` reads the undeclared field `name` of an output item of `kind`
/// (the server tools read them all: they are the result).
fn item_field_read(kind: &str, name: &str) -> bool {
    match kind {
        "function_call" | "custom_tool_call" => name == "namespace",
        "apply_patch_call" => name == "operation",
        "computer_call" => matches!(name, "actions" | "pending_safety_checks"),
        "tool_search_call" => name == "execution",
        "mcp_approval_request" => name == "server_label",
        "message" | "reasoning" | "local_shell_call" | "shell_call" => false,
        _ => true,
    }
}

/// The status a server tool's progress event (`response.web_search_call.searching`, ...)
/// reports; `None` for other events.
fn server_tool_progress(event: &str) -> Option<&str> {
    let (tool, status) = event.strip_prefix("response.")?.rsplit_once('.')?;
    matches!(
        tool,
        "web_search_call"
            | "file_search_call"
            | "code_interpreter_call"
            | "image_generation_call"
            | "mcp_call"
            | "mcp_list_tools"
    )
    .then_some(status)
}

/// The Responses item kinds read as assistant output: messages, reasoning and tool calls.
const OUTPUT_ITEMS: [&str; 16] = [
    "message",
    "reasoning",
    "function_call",
    "custom_tool_call",
    "local_shell_call",
    "shell_call",
    "apply_patch_call",
    "computer_call",
    "tool_search_call",
    "mcp_approval_request",
    "web_search_call",
    "file_search_call",
    "code_interpreter_call",
    "image_generation_call",
    "mcp_call",
    "mcp_list_tools",
];

/// What a result item says about the call it answers.
struct ItemResult {
    tool_id: String,
    content: Value,
    is_error: bool,
    exit_code: Option<i64>,
}

/// The result a Responses result item carries (`*_output`, `mcp_approval_response`);
/// `None` for other items.
fn result_item(item: &WireItem<'_>) -> Option<ItemResult> {
    let output = || item.output.as_ref().map_or(Value::Null, StrOr::to_value);
    let failed = item.status.as_deref() == Some("failed");
    let mut exit_code = None;
    let (tool_id, content, is_error) = match item.kind() {
        "function_call_output" | "custom_tool_call_output" | "local_shell_call_output" => {
            (item.call_id(), output(), false)
        }
        "computer_call_output" | "apply_patch_call_output" => (item.call_id(), output(), failed),
        "shell_call_output" => {
            let content = output();
            let outcomes: Vec<&Value> = content
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|part| part.get("outcome"))
                .collect();
            let code = |outcome: &Value| outcome.get("exit_code").and_then(Value::as_i64);
            // A command that timed out or exited non-zero failed.
            let failed = failed
                || outcomes.iter().any(|outcome| {
                    outcome.get("type").and_then(Value::as_str) == Some("timeout")
                        || code(outcome).is_some_and(|code| code != 0)
                });
            if let [outcome] = outcomes.as_slice() {
                exit_code = code(outcome);
            }
            (item.call_id(), content, failed)
        }
        "tool_search_output" => {
            let tools = item.field("tools").cloned().unwrap_or(Value::Null);
            (item.call_id(), tools, failed)
        }
        "mcp_approval_response" => {
            let declined = item.field("approve").and_then(Value::as_bool) == Some(false);
            let answer = pick(item, &["approve", "reason"]);
            (item.text_field("approval_request_id"), answer, declined)
        }
        _ => return None,
    };
    Some(ItemResult {
        tool_id: tool_id.to_owned(),
        content,
        is_error,
        exit_code,
    })
}

/// An object of the item's `fields` that are present.
fn pick(item: &WireItem<'_>, fields: &[&str]) -> Value {
    let mut picked = Map::new();
    for name in fields {
        if let Some(value) = item.field(name) {
            picked.insert((*name).to_owned(), value.clone());
        }
    }
    Value::Object(picked)
}

/// Arguments sent as a JSON string, parsed; anything else (and text that is not JSON) as it
/// was.
fn parsed(arguments: Value) -> Value {
    match &arguments {
        Value::String(text) => serde_json::from_str(text).unwrap_or(arguments),
        _ => arguments,
    }
}

/// The command lines of a shell tool call, for its `command` blocks: its `command` (or
/// `cmd`, a string or an argv), or each of the Responses shell tool's `commands`.
fn shell_commands(tool_name: &str, input: &Value) -> Vec<String> {
    if !matches!(tool_name, "shell" | "bash" | "exec_command" | "local_shell") {
        return Vec::new();
    }
    if let Some(Value::Array(commands)) = input.get("commands") {
        return commands
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect();
    }
    match input.get("command").or_else(|| input.get("cmd")) {
        Some(Value::String(command)) => vec![command.clone()],
        Some(Value::Array(argv)) => vec![shell_join(argv)],
        _ => Vec::new(),
    }
}

fn item(block: ContentBlock, role: Role, message_id: Option<String>, source: Source) -> Item {
    Item {
        block,
        role,
        message_id,
        agent: None,
        source,
        time: None,
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
            usage_of(&chat, None),
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
        assert_eq!(usage_of(&deepseek, None).input_tokens, 36);
        let responses = json!({"input_tokens": 50, "output_tokens": 9,
            "input_tokens_details": {"cached_tokens": 10},
            "output_tokens_details": {"reasoning_tokens": 4}});
        assert_eq!(usage_of(&responses, None).cache_read_tokens, 10);
        assert_eq!(usage_of(&responses, None).reasoning_tokens, 4);
    }

    #[test]
    fn reasoning_counted_beside_the_output_is_added_to_it() {
        // xAI: total = prompt + completion + reasoning.
        let xai = json!({"prompt_tokens": 32, "completion_tokens": 9, "total_tokens": 135,
            "prompt_tokens_details": {"cached_tokens": 6},
            "completion_tokens_details": {"reasoning_tokens": 94}});
        let usage = usage_of(&xai, Some("grok-4-0709"));
        assert_eq!((usage.output_tokens, usage.reasoning_tokens), (103, 94));
        // The arithmetic decides over the name: OpenAI's total has the reasoning inside.
        let openai = json!({"prompt_tokens": 32, "completion_tokens": 103, "total_tokens": 135,
            "completion_tokens_details": {"reasoning_tokens": 94}});
        assert_eq!(usage_of(&openai, Some("grok-4")).output_tokens, 103);
        // Without a total, the model name.
        let bare = json!({"prompt_tokens": 32, "completion_tokens": 9,
            "completion_tokens_details": {"reasoning_tokens": 94}});
        assert_eq!(
            usage_of(&bare, Some("xai/grok-4.1-fast-reasoning")).output_tokens,
            103
        );
        assert_eq!(usage_of(&bare, Some("gpt-5")).output_tokens, 9);
    }
}
