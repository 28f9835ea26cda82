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
//!   it ran one command), `tool_search_output` (the tools; a server-side search's call and
//!   output both have `call_id: null`, the call is then known by its item id and the output
//!   answers the oldest search still waiting), `mcp_approval_response` (the approval; a
//!   declined one is an error). In a request they are user-side results; in a response's
//!   output (a shell in a hosted container, a server-side tool search) assistant-side.
//! * Programmatic tool calling: a `program` item is a call the provider runs
//!   (`programmatic_tool_calling`, `server`, input its `code`, `tool_id` = `call_id`; the
//!   replay `fingerprint` kept in `extras`). The calls its code makes come back to the client
//!   as ordinary calls whose `caller` (`{"type": "program", "caller_id"}`) names it: they and
//!   their results are the program's scope (each item's `agent` is the program's call id,
//!   a step under the program's call in the transcript), a result without `caller` taking
//!   its call's. Its `program_output` (responses later: the result, an error when
//!   `incomplete`) is its result, and ends the scope.
//! * Responses server tools (the provider runs them and reports the result in the same
//!   item) are `tool_use` blocks with `server`, `tool_id` = the item id, each followed by its
//!   assistant-side `tool_result`: `web_search_call` (`web_search`, input the action),
//!   `file_search_call` (`file_search`, the queries), `code_interpreter_call`
//!   (`code_interpreter`, code and container), `image_generation_call` (`image_generation`,
//!   its parameters), `mcp_call` (`mcp__<server>__<tool>`, the parsed arguments),
//!   `mcp_list_tools` (`mcp_list_tools`, the server label), xAI's `x_search_call`
//!   (`x_search`, input the search it ran, `name`, and its parsed `arguments`) and the
//!   searches xAI streams as `custom_tool_call`s of its own (named `x_keyword_search`,
//!   `x_semantic_search`, `x_user_search`, `x_thread_fetch`, `view_x_video`, with a
//!   `call_id` `xs_call_<n>`, and never an output: `x_search` too). The result is an object of the
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
//! * Namespaced Responses tools (`namespace`) are named `<namespace>__<name>`, except a
//!   function tool search loaded by its own name, which comes with itself as its namespace
//!   and is named once; the namespace is kept in `extras` either way. A Responses
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
use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;

use super::driver::{Adapter, Driver};
use super::framing::{Http, Record};
use super::json::{JsonParser, Parsed, to_value};
use super::report::Fate;
use super::tools::{PendingTools, missing_terminal};
use super::{
    Diagnostic, DiagnosticKind, ErrorBody, Item, Normalizer, Options, Output, Provider, RunError,
    RunMeta, RunStatus, Source, StopKind, StopReason, Usage, error_body,
};
use crate::model::{Citation, Timestamp};

// The files of the adapter. This one holds detection, the normalizer around the framers
// and the `State` core: how a frame becomes a record (a line, an SSE event, a multi-line
// document), which handler a record goes to, a response's start, the run's status and
// errors, and handing out what is still open when a response or the input ends. Each file
// below uses only `State` and the files listed after it, so `chat` and `responses` never
// lean on each other.
//
// Chat Completions records: chunks, bodies, requests, `[DONE]`.
mod chat;
// Responses records: stream events, response objects, requests.
mod responses;
// Handing out what was assembled as blocks, with the bookkeeping of open tool calls.
mod emit;
// What each Responses item kind means: output, a call, a server tool, a result.
mod items;
// One assistant message put together from deltas, copies and whole messages.
mod assembly;
// What servers add that axt has no field for, kept per response.
mod extras;
// Token counts and cost in axt's convention.
mod usage;
// The record shapes, borrowed from the input.
mod wire;
// Responses deltas read without the parser, into the record shape.
mod skim;

use assembly::Assembly;
use extras::Extras;
use responses::OpenItem;
use wire::{Wire, WireShape, top_response, unboxed};

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

/// The OpenAI normalizer: HTTP bodies (JSON lines, documents, SSE streams), driven through
/// this adapter's state.
pub(crate) fn normalizer(options: Options) -> impl Normalizer + Send + use<> {
    Driver::<Http, State>::new(&options, State::new())
}

/// The adapter's reading of Responses items, one at a time, for another adapter whose
/// records carry them: Codex's session files keep the conversation as Responses items, and
/// they mean there what they mean in a request's input (user messages are user text,
/// assistant output assistant blocks, a call opens a tool call, an output answers it
/// user-side; system and developer messages and every other kind are kept whole). The
/// caller's metadata takes what an item says of the run.
pub(crate) struct ResponsesItems(State);

impl ResponsesItems {
    pub(crate) fn new() -> Self {
        ResponsesItems(State::new())
    }

    /// One item, `item` (the JSON the record carries) read at `record`'s place. Returns
    /// false, with a diagnostic, for an item that is no Responses item.
    pub(crate) fn item(
        &mut self,
        item: &Value,
        record: Record<'_>,
        meta: &mut RunMeta,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> bool {
        let wire = match wire::WireItem::deserialize(item) {
            Ok(wire) => wire,
            Err(error) => {
                diagnostics.push(Diagnostic::new(
                    DiagnosticKind::UnexpectedShape,
                    record.line,
                    record.offset,
                    format!("not a Responses item: {error}"),
                ));
                return false;
            }
        };
        // What the item says of the run goes into the caller's metadata, for the call.
        std::mem::swap(&mut self.0.meta, meta);
        self.0
            .input_item(wire, || item.clone(), None, record.span, items, diagnostics);
        std::mem::swap(&mut self.0.meta, meta);
        true
    }

    /// A call's output item that has no member but its `type` (`function_call_output`,
    /// `custom_tool_call_output` or `local_shell_call_output`), `call_id` and `output` (a
    /// string), read by the caller's skim of its record, the output held as the record
    /// escaped it: what [`ResponsesItems::item`] makes of that item (the three kinds answer
    /// their call alike, never as an error; such an item says nothing of the run).
    pub(crate) fn call_output(
        &mut self,
        call_id: &str,
        output: crate::model::ToolOutput,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let result = items::ItemResult {
            tool_id: call_id.to_owned(),
            content: output,
            is_error: false,
            exit_code: None,
            unnamed: None,
            program: None,
        };
        let role = crate::model::Role::User;
        self.0
            .tool_result(result, role, record.span, items, diagnostics);
    }

    /// The input has ended: calls that never got their output are reported.
    pub(crate) fn finish(&mut self, diagnostics: &mut Vec<Diagnostic>) {
        self.0.tools.report_dangling(diagnostics);
    }
}

impl Adapter for State {
    const PROVIDER: Provider = Provider::OpenAi;
    // A record's `created` (or its response's `created_at`); requests have none.
    const STAMPED: bool = true;

    fn record(&mut self, parser: &mut JsonParser, record: Record<'_>, out: &mut Output) {
        if record.bytes.trim_ascii() == b"[DONE]" {
            self.done(&mut out.items, &mut out.diagnostics);
            return;
        }
        let Output { items, diagnostics } = out;
        // A delta read by the skim goes where `State::record` sends a Responses event, counted
        // as the parse counts it (its members are all known ones).
        if self.skim
            && let Some((kind, wire)) = skim::delta(record.bytes)
        {
            let slot = parser.tally.see((kind, None));
            let fate = self.responses_event(kind, wire, record, record.span, items, diagnostics);
            parser.tally.fate(slot, fate);
            return;
        }
        parser.parse_in::<WireShape>(record, diagnostics, |wire, parsed, diagnostics| {
            self.record(wire, record, parsed, items, diagnostics)
        });
    }

    fn finish(&mut self, last: (u64, u64), out: &mut Output) {
        let open = self.streaming || !self.choices.is_empty() || !self.items.is_empty();
        self.flush(false, &mut out.items, &mut out.diagnostics);
        self.keep_extras();
        self.tools.report_dangling(&mut out.diagnostics);
        if open || !self.saw_response {
            let (line, offset) = last;
            let what = if self.saw_response {
                "the end of its response (finish_reason, [DONE] or a terminal event)"
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

/// What the adapter knows between records. Its fields are private to this folder: the
/// handlers of each API and the hand-out (`chat`, `responses`, `emit`, ...) are `impl
/// State` blocks in their own files; this file keeps the ones every record goes through.
struct State {
    meta: RunMeta,
    extras: Extras,
    /// The sources of the response being read (Perplexity), cited by its choices' text.
    sources: Vec<Citation>,
    /// The cost of the responses before this one.
    cost_before: Option<f64>,
    /// The last Responses request's `instructions`.
    instructions: Option<Value>,
    /// The last request's `tools`, kept again only when they change.
    offered: Option<Value>,
    tools: PendingTools,
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
    /// The calls a program made (programmatic tool calling), by call id: the program's
    /// call id, the scope their results are in too.
    program_calls: HashMap<String, String>,
    /// A response has started and not reached its terminal record.
    streaming: bool,
    saw_response: bool,
    /// Messages (or input items) of the conversation read so far, for requests that repeat
    /// the history.
    history: usize,
    /// Responses deltas are read by a skim ([`skim::delta`]); off, they are parsed (the
    /// tests' reference the skim is held to).
    skim: bool,
}

impl State {
    fn new() -> Self {
        State {
            meta: RunMeta::new(Provider::OpenAi),
            extras: Extras::default(),
            sources: Vec::new(),
            cost_before: None,
            instructions: None,
            offered: None,
            tools: PendingTools::default(),
            response_id: None,
            usage_before: Usage::default(),
            choices: Vec::new(),
            items: Vec::new(),
            streamed_items: false,
            calls_in_response: 0,
            program_calls: HashMap::new(),
            streaming: false,
            saw_response: false,
            history: 0,
            skim: true,
        }
    }

    /// One parsed record, whatever its kind.
    fn record(
        &mut self,
        mut wire: Wire<'_>,
        record: Record<'_>,
        parsed: Parsed<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Fate {
        let span = record.span;
        let created = wire.created.or(wire.created_at).or(wire
            .response
            .as_ref()
            .and_then(|response| response.created_at));
        if let Some(seconds) = created.and_then(|created| created.0) {
            let time = Timestamp::from_unix_nanos(i128::from(seconds) * 1_000_000_000);
            self.meta.saw_timestamp(time);
        }
        // Taken out of the record (it borrows the input, not the record), so that the record
        // can move on to its handler without the name being copied.
        let named = wire.kind.take();
        // The SSE event's name only where the record has no `type` (a Responses stream's
        // records all have one): decoded here, not for every event. Valid UTF-8 (every real
        // event name) is checked by `from_utf8`'s ASCII fast path, not the lossy decoder's
        // walk.
        let event = match named {
            Some(_) => None,
            None => record.event.map(|name| match std::str::from_utf8(name) {
                Ok(name) => Cow::Borrowed(name),
                Err(_) => String::from_utf8_lossy(name),
            }),
        };
        let kind = named.as_deref().or(event.as_deref()).unwrap_or("");
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
                && named.is_none()
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
                return self.responses_event(kind, wire, record, span, items, diagnostics);
            }
            _ if wire.choices.is_some() => self.completion(wire, span, items, diagnostics),
            _ if wire.messages.is_some() => {
                self.chat_request(wire, parsed, span, items, diagnostics)
            }
            _ if wire.input.is_some() => {
                self.responses_request(wire, record, parsed, span, items, diagnostics)
            }
            _ if wire.error.as_ref().is_some_and(|e| !e.is_null()) => {
                let error = unboxed(wire.error).unwrap_or(Value::Null);
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

    /// What the adapter made of `input`, whole, as text to compare: items, diagnostics and
    /// the run's metadata with its input report; read with the skim on or off.
    fn read_with(skim: bool, input: &[u8]) -> String {
        let mut state = State::new();
        state.skim = skim;
        crate::normalize::bench_streams::read_whole::<crate::normalize::framing::Http, _>(
            state, input,
        )
    }

    /// Deltas skimmed or parsed, alike, over every input of the corpus, deltas the skim
    /// must give up (each with a member it does not read, or not as the parse reads it) and
    /// the bench's generated stream, most of whose deltas it takes.
    #[test]
    fn every_delta_the_skim_takes_is_read_as_the_parse_reads_it() {
        let mut inputs = crate::normalize::bench_streams::corpus_inputs("openai");
        let mut edges = String::from(
            "data: {\"type\":\"response.created\",\"response\":{\"id\":\"r\",\"model\":\"m\",\"created_at\":1}}\n\n",
        );
        for delta in [
            r#""item_id":"m1","output_index":0,"content_index":0,"delta":"a\n\u00e9""#,
            r#""item_id":"m1","output_index":0,"content_index":0,"delta":"b","obfuscation":"x","logprobs":[]"#,
            r#""item_id":"m1","output_index":0,"content_index":1,"delta":null"#,
            r#""item_id":null,"output_index":0, "content_index":0,"delta":"c""#,
            r#""item_id":"m2","delta":"d""#,
            r#""item_id":"m1","output_index":0,"delta":"\ud83d\ude00""#,
            r#""item_id":"m1","output_index":0,"delta":"e","delta":"f""#,
            r#""item_id":"m1","output_index":-1,"delta":"g""#,
            r#""item_id":"m1","output_index":0,"delta":{"text":"h"}"#,
            r#""item_id":"m1","output_index":0,"delta":"i","extra":1"#,
            r#""item_id":"m\u0031","output_index":0,"delta":"j""#,
        ] {
            for kind in [
                "response.output_text.delta",
                "response.reasoning_summary_text.delta",
                "response.function_call_arguments.delta",
                "response.unknown.delta",
            ] {
                let summary = if kind.contains("summary") {
                    ",\"summary_index\":1"
                } else {
                    ""
                };
                edges.push_str(&format!(
                    "event: {kind}\ndata: {{\"type\":\"{kind}\",\"sequence_number\":1{summary},{delta}}}\n\n"
                ));
            }
        }
        edges.push_str("data: {\"type\":\"response.completed\",\"response\":{\"id\":\"r\",\"status\":\"completed\",\"output\":[]}}\n\n");
        inputs.push(("edges".to_owned(), edges.into_bytes()));
        let bench = crate::normalize::bench_streams::openai_stream::openai_stream(1 << 20, 7);
        inputs.push(("bench".to_owned(), bench));
        for (name, input) in &inputs {
            assert_eq!(read_with(true, input), read_with(false, input), "{name}");
        }
        let (_, bench) = inputs.last().expect("the bench's stream");
        let deltas = (bench.split(|&b| b == b'\n'))
            .filter_map(|line| line.strip_prefix(b"data: "))
            .filter(|data| data.windows(7).any(|w| w == b".delta\""));
        let (mut taken, mut all) = (0, 0);
        for data in deltas {
            all += 1;
            taken += usize::from(skim::delta(data).is_some());
        }
        assert!(all > 100 && taken * 100 / all > 90, "{taken} of {all}");
    }
}
