//! Google's Gemini API over HTTP, as AI Studio (`generativelanguage.googleapis.com`) and
//! Vertex AI (`aiplatform.googleapis.com`) serve it: `generateContent` bodies and
//! `streamGenerateContent` streams, and request bodies for the function responses they carry.
//! (The Gemini CLI's own output is the `gemini` provider's: another vocabulary, stamped by the
//! CLI, with sessions and stats; the two share a vendor, not a format.)
//!
//! Shapes follow the REST reference (`GenerateContentResponse`, `Candidate`, `Part`,
//! `UsageMetadata`) and google-genai's types; the framing was learned from real streams.
//!
//! # Input
//!
//! HTTP bodies (the `Http` framing), in any of the forms the API sends and people save:
//!
//! * a response body (`generateContent`), on one line or pretty-printed;
//! * a stream as SSE (`streamGenerateContent?alt=sse`: each event's data one chunk), or as
//!   the API's default, one JSON array sent element by element (`[{...}\n,\r\n{...}\n]`),
//!   each element one chunk; Vertex AI wraps a stream's error in the same array;
//! * chunks one a line (an SDK's chunks saved as JSON);
//! * an error, `{"error": {code, message, status, details}}`, as a body or mid-stream;
//! * a request body, `{contents, systemInstruction, tools, generationConfig, ...}`.
//!
//! Every field reads in the server's camelCase and in snake_case (the SDKs' saved objects);
//! enums as names or as numbers (`$alt=json;enum-encoding=int`, see `wire::finish_reason`).
//!
//! **Conversation files.** As for the other HTTP adapters: each request followed by the
//! response that answered it; a request repeats the history (`contents`), so only the
//! contents after those already read (the previous request's, plus one per response since)
//! are read again.
//!
//! # Mapping
//!
//! * A response is one message, its `responseId` the message id; a stream's chunks are one
//!   response while their `responseId` stays the same (without one, until the chunk after a
//!   `finishReason`). Its parts, candidate by candidate (`parts.rs`): text, joined across
//!   chunks; `thought: true` text, a thinking block; a `thoughtSignature`, kept (on the
//!   thought it signs, else as a thinking block of its own before the part it was on);
//!   `functionCall`, a tool call (its `id`, or `<name>#<n>` for the Gemini versions that
//!   give none, `n` counting the run's calls), several in one chunk each its own, plus a
//!   `command` block for a shell tool; `executableCode` and its `codeExecutionResult`, a
//!   server tool call (`code_execution`) and its assistant-side result, failed unless
//!   `OUTCOME_OK`. A part of another kind (`inlineData`, `fileData`) is kept in the metadata
//!   (`part/<kind>`, an `unknown-block-type` warning).
//! * A candidate's other fields (`safetyRatings`, `citationMetadata`, `groundingMetadata`,
//!   `urlContextMetadata`, log probabilities, `finishMessage`) are kept as passthrough
//!   (`candidate/<field>`) each time they change; so are `promptFeedback` and `modelStatus`.
//! * Requests: user text is user text; a `functionResponse` is a user-side `tool_result`
//!   (its `response` the content, failed when it has an `error` and no `output`), paired by
//!   `id`, or, without one, with the oldest call of its name still waiting; model contents
//!   of the history are assistant blocks, read as a body's; the system instruction and the
//!   tools are kept as metadata (`request/system`, `request/tools`) when they change, and so
//!   is every other part of a user content (`request/part/<kind>`).
//! * Metadata: `modelVersion` as the model; Vertex AI's `createTime` as the source time (AI
//!   Studio stamps nothing: events take the clock's time); the stop reason from
//!   `finishReason` (`STOP` is `tool_use` when the candidate called a function, `end_turn`
//!   otherwise; `MAX_TOKENS`; the safety and recitation stops and blocks are `refusal`; the
//!   rest `other`), its raw word kept; a prompt blocked before any candidate
//!   (`promptFeedback.blockReason`) is a `refusal`. Usage per response is its last
//!   `usageMetadata` (a stream's chunks repeat the running counts), summed over responses:
//!   see the table in [`crate::normalize`]; the last one is kept verbatim.
//! * Errors: an `error` is a fatal run error (`RESOURCE_EXHAUSTED: ...`), the stop reason
//!   `error` (raw: its `status`), the run failed; text still open is handed out as far as it
//!   came (an `incomplete-block` warning).
//!
//! A stream that ends before a `finishReason` (or an input with no response at all) hands out
//! what it has and says so with a `missing-terminal` warning.

use serde_json::Value;

use super::driver::{Adapter, Driver};
use super::framing::{Http, Record};
use super::history::reading_past;
use super::json::{JsonParser, Parsed, to_value};
use super::report::Fate;
use super::tools::{PendingTools, missing_terminal};
use super::{
    Diagnostic, DiagnosticKind, ErrorBody, Item, Normalizer, Options, Output, Provider, RunError,
    RunMeta, RunStatus, Source, StopKind, StopReason, Usage, error_body,
};
use crate::model::{Block, ContentBlock, Fidelity, Role};

// The files of the adapter: this one holds detection, the state and the dispatch of a
// record; `responses` a response's chunks; `bodies` requests; `parts` the assembly of a
// candidate's parts; `wire` the record shapes; `skim` the reading of a text chunk without
// the parser.
mod bodies;
mod parts;
mod responses;
mod skim;
#[cfg(test)]
mod tests;
mod wire;

use parts::{Made, Out};
use wire::{Counts, Wire, WireShape};

/// Whether a record is the Gemini API's: a response or a chunk (`candidates`, or the
/// `usageMetadata` or `promptFeedback` of one), an error of the API's shape (`status`), or a
/// request (`contents` of parts).
pub(crate) fn claims(record: &Value) -> bool {
    let Some(object) = record.as_object() else {
        return false;
    };
    if let Some(body) = error_body(record) {
        return body == ErrorBody::GeminiApi;
    }
    if object.contains_key("object") || object.contains_key("type") {
        return false;
    }
    let has = |camel: &str, snake: &str| {
        object
            .get(camel)
            .or_else(|| object.get(snake))
            .is_some_and(|v| !v.is_null())
    };
    if object.get("candidates").is_some_and(Value::is_array) {
        return true;
    }
    if has("promptFeedback", "prompt_feedback") {
        return true;
    }
    if has("usageMetadata", "usage_metadata")
        && (has("modelVersion", "model_version") || has("responseId", "response_id"))
    {
        return true;
    }
    object
        .get("contents")
        .and_then(Value::as_array)
        .is_some_and(|contents| {
            !contents.is_empty()
                && contents
                    .iter()
                    .all(|content| content.get("parts").is_some_and(Value::is_array))
        })
}

/// The Gemini API normalizer: HTTP bodies, driven through this adapter's state.
pub(crate) fn normalizer(options: Options) -> impl Normalizer + Send + use<> {
    Driver::<Http, State>::new(&options, State::new())
}

/// The response a stream is streaming (or a body being read).
struct Response {
    id: Option<String>,
    /// The last usage snapshot.
    usage: Counts,
    /// Candidates by index.
    candidates: Vec<(u64, parts::Candidate)>,
    /// A `finishReason` (or a blocked prompt) ended it.
    finished: bool,
    /// The last `promptFeedback` and `modelStatus` kept.
    kept: serde_json::Map<String, Value>,
}

struct State {
    meta: RunMeta,
    tools: PendingTools,
    response: Option<Response>,
    /// Usage of the responses that ended.
    usage: Usage,
    /// A response (a body, a stream, an error) was seen.
    saw_response: bool,
    /// Contents of the conversation read so far, for requests that repeat the history.
    history: usize,
    /// The last request's system instruction and tools, kept again only when they change.
    system: Option<Value>,
    declared: Option<Value>,
    /// Calls given an id of axt's (`<name>#<n>`), for the next one's `n`.
    named_calls: u64,
    /// The members of the `usageMetadata` kept in `meta.raw_usage`, in order
    /// ([`wire::UsageMembers::keep_in`]).
    usage_members: Vec<(String, Value)>,
    /// Text chunks are read by a skim ([`skim::chunk`]); off, they are parsed (the tests'
    /// reference the skim is held to).
    skim: bool,
}

impl State {
    fn new() -> Self {
        State {
            meta: RunMeta::new(Provider::GeminiApi),
            tools: PendingTools::default(),
            response: None,
            usage: Usage::default(),
            saw_response: false,
            history: 0,
            system: None,
            declared: None,
            named_calls: 0,
            usage_members: Vec::new(),
            skim: true,
        }
    }

    /// One parsed record, whatever its kind.
    fn wire(
        &mut self,
        wire: Wire<'_>,
        record: Record<'_>,
        parsed: Parsed<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Fate {
        if let Some(error) = wire.error {
            self.fail(&error, record, items, diagnostics);
        } else if wire.contents.is_some() {
            self.request(wire, record, parsed, items, diagnostics);
        } else if wire.candidates.is_some()
            || wire.usage.is_some()
            || wire.prompt_feedback.is_some()
        {
            self.chunk(wire, record, items, diagnostics);
        } else {
            self.meta
                .keep(record.span.line, "record", || to_value(record.bytes));
            return Fate::Passthrough;
        }
        Fate::Mapped
    }

    /// An id of axt's for a call that has none: `<name>#<n>`.
    fn next_id(named_calls: &mut u64, name: &str) -> String {
        *named_calls += 1;
        format!("{name}#{named_calls}")
    }

    /// A fatal error from the API: what was streaming is handed out, marked incomplete.
    fn fail(
        &mut self,
        error: &Value,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        self.saw_response = true;
        self.end_response("the stream's error ended it", items, diagnostics);
        let field = |name: &str| error.get(name).and_then(Value::as_str);
        let status = field("status")
            .map(str::to_owned)
            .or_else(|| error.get("code").map(Value::to_string))
            .unwrap_or_else(|| "error".to_owned());
        let message = match field("message") {
            Some(text) => format!("{status}: {text}"),
            None => format!("{status}: {error}"),
        };
        self.meta.status = RunStatus::Failed;
        self.meta.stop_reason = Some(StopReason {
            kind: StopKind::Error,
            raw: status,
        });
        self.meta.errors.push(RunError {
            message,
            fatal: true,
            line: record.span.line,
        });
    }

    /// The response being read is over (`why` when it ended before its candidates
    /// finished): its open text is handed out, its usage counted, the conversation one
    /// content longer.
    fn end_response(
        &mut self,
        why: &str,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let Some(mut response) = self.response.take() else {
            return;
        };
        let id = response.id.clone();
        for (index, candidate) in &mut response.candidates {
            let cut = candidate.is_open() && !candidate.finished;
            let mut out = Out::default();
            candidate.close(&mut out);
            for made in out.blocks {
                if cut {
                    let what = match &id {
                        Some(id) => format!("the text of candidate {index} of response {id}"),
                        None => format!("the text of candidate {index}"),
                    };
                    diagnostics.push(Diagnostic::new(
                        DiagnosticKind::IncompleteBlock,
                        made.source.line,
                        made.source.offset,
                        format!("{what} was still streaming when {why}; kept as far as it arrived"),
                    ));
                }
                self.deliver(made, Role::Assistant, &id, items, diagnostics);
            }
        }
        self.usage.add(&to_usage(response.usage));
        self.history += 1;
    }

    /// Hands out a block: its item, and the tool call it opens or answers.
    fn deliver(
        &mut self,
        made: Made,
        role: Role,
        message_id: &Option<String>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let Made { mut block, source } = made;
        match &mut block {
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
            block: ContentBlock::new(Fidelity::AgentEmitted, block),
            role,
            message_id: message_id.clone(),
            agent: None,
            subagent: None,
            source,
            time: None,
        });
    }

    /// Keeps the parts of a kind axt has no form for, saying so.
    fn unknown(
        &mut self,
        unknown: Vec<(String, Value)>,
        prefix: &str,
        source: Source,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        for (kind, part) in unknown {
            diagnostics.push(Diagnostic::new(
                DiagnosticKind::UnknownBlockType,
                source.line,
                source.offset,
                format!("a {kind:?} part has no canonical form; kept in the run metadata"),
            ));
            self.meta
                .keep(source.line, &format!("{prefix}{kind}"), || part);
        }
    }

    /// A response ended as the API meant it to (unless the run failed already).
    fn completed(&mut self) {
        if self.meta.status != RunStatus::Failed {
            self.meta.status = RunStatus::Completed;
        }
    }
}

/// A `usageMetadata` snapshot in the one convention of [`Usage`]: the cached tokens are part
/// of the prompt's count, and the tool-use prompt is input beside it; thoughts are output
/// beside the candidates.
fn to_usage(counts: Counts) -> Usage {
    Usage {
        input_tokens: counts.prompt.saturating_sub(counts.cached) + counts.tool_use_prompt,
        cache_read_tokens: counts.cached,
        cache_write_tokens: 0,
        output_tokens: counts.candidates + counts.thoughts,
        reasoning_tokens: counts.thoughts,
    }
}

impl Adapter for State {
    const PROVIDER: Provider = Provider::GeminiApi;
    // AI Studio stamps nothing; Vertex AI's `createTime` is read where it comes, but items
    // are not held for a stamp that may never come.
    const STAMPED: bool = false;

    fn record(&mut self, parser: &mut JsonParser, record: Record<'_>, out: &mut Output) {
        let Output { items, diagnostics } = out;
        // A text chunk read by the skim goes to the handler the parse would hand it to,
        // counted as the parse counts a chunk (its members are all known ones).
        if self.skim
            && let Some(wire) = skim::chunk(record.bytes)
        {
            let slot = parser.tally.see(("response", None));
            self.chunk(wire, record, items, diagnostics);
            parser.tally.fate(slot, Fate::Mapped);
            return;
        }
        // A request's contents already read are not built again.
        reading_past(self.history, || {
            parser.parse_in::<WireShape>(record, diagnostics, |wire, parsed, diagnostics| {
                self.wire(wire, record, parsed, items, diagnostics)
            })
        });
    }

    fn finish(&mut self, last: (u64, u64), out: &mut Output) {
        let open = self
            .response
            .as_ref()
            .is_some_and(|response| !response.finished);
        self.end_response("the input ended", &mut out.items, &mut out.diagnostics);
        self.tools.report_dangling(&mut out.diagnostics);
        self.meta.usage = self.usage;
        if (open || !self.saw_response) && self.meta.status != RunStatus::Failed {
            let (line, offset) = last;
            let what = if self.saw_response {
                "its response's end (a finishReason)"
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
