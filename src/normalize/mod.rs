//! Provider output in, canonical content blocks out.
//!
//! ```text
//! provider bytes -> framing (records) -> adapter -> Item* + RunMeta + Diagnostic*
//! ```
//!
//! A [`Normalizer`] takes bytes as they arrive ([`Normalizer::push`]) and hands out every
//! content block as soon as it is complete; [`Normalizer::finish`] flushes what is still open
//! at the end (partial text, tool calls that never got a result). Each block comes as an
//! [`Item`] that says which message and which sub-agent it belongs to and which input lines
//! it came from. Alongside the blocks a normalizer keeps the run's metadata ([`RunMeta`]:
//! session, model, usage, cost, stop reason, status, errors) and reports every problem in
//! the input as a [`Diagnostic`] with its line and byte offset, then carries on.
//!
//! Where the provider stamps its records, each item carries the provider's time for it, and
//! the metadata the first and latest stamps; the shared driver also keeps an [input
//! report](report) of every record (by type: mapped, passthrough, ignored, skipped; unknown
//! fields) and reports records of another provider's output. Both are described in the
//! driver's and the report's module docs.
//!
//! Two entry points sit on top, as a tolerant and a strict pair: [`normalize_lossy`] never
//! fails and returns what it could read plus diagnostics; [`normalize`] is a thin `Result`
//! wrapper that fails on the first error diagnostic.
//!
//! This module owns the provider dialects and nothing downstream of them: turning items into
//! transcript events is [`events`], writing them is the recorder's.
//!
//! Adapters: [`claude`] (Claude Code `--output-format stream-json`, and its session-log
//! entries), [`codex`] (Codex CLI `exec --json`, all three generations), [`gemini`] (Gemini
//! CLI `--output-format stream-json` and `json`), [`copilot`] (Copilot CLI `-p
//! --output-format json`, and its session logs), [`openai`] (OpenAI HTTP: Chat Completions
//! and Responses, JSON bodies and SSE streams, from OpenAI or any compatible server).

pub mod claude;
pub mod codex;
pub mod copilot;
mod driver;
pub mod events;
mod framing;
pub mod gemini;
mod json;
pub mod openai;
pub mod report;
mod sse;
mod tools;

use std::fmt;

use serde::Serialize;
use serde_json::Value;

use crate::model::{Block, ContentBlock, Role, Timestamp};

pub use framing::DEFAULT_MAX_RECORD_BYTES;
pub use report::{InputReport, RecordCounts};

/// The providers axt reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    /// Claude Code, `claude -p --output-format stream-json --verbose`.
    Claude,
    /// OpenAI Codex CLI, `codex exec --json` (all three generations of its output).
    Codex,
    /// Gemini CLI, `gemini --output-format stream-json` (or `json`).
    Gemini,
    /// GitHub Copilot CLI, `copilot -p ... --output-format json --silent`, and its session
    /// logs (`~/.copilot/session-state/<id>/events.jsonl`).
    Copilot,
    /// OpenAI HTTP APIs (Chat Completions, Responses) and every compatible server: response
    /// bodies, SSE streams, request bodies.
    #[serde(rename = "openai")]
    OpenAi,
}

impl Provider {
    /// Every provider, for help texts and detection.
    pub const ALL: [Provider; 5] = [
        Provider::Claude,
        Provider::Codex,
        Provider::Gemini,
        Provider::Copilot,
        Provider::OpenAi,
    ];

    /// Lower-case name used on the command line and in transcripts.
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::Claude => "claude",
            Provider::Codex => "codex",
            Provider::Gemini => "gemini",
            Provider::Copilot => "copilot",
            Provider::OpenAi => "openai",
        }
    }

    /// A normalizer for this provider's output.
    pub fn normalizer(self, options: Options) -> Box<dyn Normalizer + Send> {
        match self {
            Provider::Claude => Box::new(claude::normalizer(options)),
            Provider::Codex => Box::new(codex::normalizer(options)),
            Provider::Gemini => Box::new(gemini::normalizer(options)),
            Provider::Copilot => Box::new(copilot::normalizer(options)),
            Provider::OpenAi => Box::new(openai::normalizer(options)),
        }
    }

    /// Guesses the provider from the first bytes of its output: the first complete JSON
    /// record that some adapter recognizes decides; else an SSE stream (OpenAI's, by its
    /// first `data` record); else a pretty-printed document (Gemini's json mode, an OpenAI
    /// body). `None` when nothing fits (yet).
    pub fn detect(head: &[u8]) -> Option<Provider> {
        let complete = &head[..head
            .iter()
            .rposition(|b| *b == b'\n')
            .map_or(0, |at| at + 1)];
        complete
            .split(|b| *b == b'\n')
            .map(|line| line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line))
            .filter(|line| line.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{'))
            .map(json::to_value)
            .find_map(|record| Provider::ALL.into_iter().find(|p| p.claims(&record)))
            .or_else(|| openai::detect_sse(complete).then_some(Provider::OpenAi))
            // A pretty-printed, multi-line document: an OpenAI body names its `object`, so it
            // is asked first; Gemini's `--output-format json` has no such marker.
            .or_else(|| {
                let document = gemini::leading_document(complete)?;
                if openai::claims(&document) {
                    Some(Provider::OpenAi)
                } else {
                    gemini::claims_document(&document).then_some(Provider::Gemini)
                }
            })
    }

    /// Why [`Provider::detect`] found no provider in `head`, when it can say more than that
    /// no record was recognized: an error-only body whose error object names no provider,
    /// or one of a provider axt has no adapter for. `None` when `head` is detected.
    pub fn why_undetected(head: &[u8]) -> Option<&'static str> {
        if Provider::detect(head).is_some() {
            return None;
        }
        let first = head
            .split(|b| *b == b'\n')
            .find(|line| line.iter().any(|b| !b.is_ascii_whitespace()))?;
        let record = match json::to_value(first) {
            Value::Null => gemini::leading_document(head)?,
            record => record,
        };
        match error_body(&record)? {
            ErrorBody::Anthropic => Some(
                "an Anthropic API error body, which no adapter reads as a document (on one line it is a Claude `error` record)",
            ),
            ErrorBody::Unknown => Some(
                "an error body whose error object has no field that says which provider sent it",
            ),
            ErrorBody::OpenAi | ErrorBody::Gemini => None,
        }
    }

    fn claims(self, record: &Value) -> bool {
        match self {
            Provider::Claude => claude::claims(record),
            Provider::Codex => codex::claims(record),
            Provider::Gemini => gemini::claims(record),
            Provider::Copilot => copilot::claims(record),
            Provider::OpenAi => openai::claims(record),
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Who sent a body that is only an error (`{"error": ...}`), by the shape of the error
/// object, since the body names no provider.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ErrorBody {
    /// OpenAI and compatible servers: `{message, type, param, code}` (`param` always there,
    /// possibly null), or a snake_case `type` (`invalid_request_error`).
    OpenAi,
    /// Gemini: the API's `{code, message, status}`, or the CLI's `{type, message, code}`
    /// whose `type` is a JavaScript class name (`FatalAuthenticationError`).
    Gemini,
    /// Anthropic: `{"type": "error", "error": {type, message}}`.
    Anthropic,
    /// An error object that says none of this (`{"error": "..."}`, `{code, message}`).
    Unknown,
}

/// The sender of an error-only body; `None` when `record` is not one (it has fields beside
/// `error`, or no `error`).
pub(crate) fn error_body(record: &Value) -> Option<ErrorBody> {
    let object = record.as_object()?;
    let error = object.get("error")?;
    if object.get("type").and_then(Value::as_str) == Some("error") {
        return Some(ErrorBody::Anthropic);
    }
    if object.len() > 1 {
        return None;
    }
    let Value::Object(error) = error else {
        return Some(ErrorBody::Unknown);
    };
    if error.contains_key("param") {
        return Some(ErrorBody::OpenAi);
    }
    if error.get("status").is_some_and(Value::is_string) {
        return Some(ErrorBody::Gemini);
    }
    let body = match error.get("type").and_then(Value::as_str) {
        Some(kind) if kind.starts_with(|c: char| c.is_ascii_uppercase()) => ErrorBody::Gemini,
        Some(kind)
            if !kind.is_empty() && kind.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') =>
        {
            ErrorBody::OpenAi
        }
        _ => ErrorBody::Unknown,
    };
    Some(body)
}

/// How a normalizer treats its input.
#[derive(Clone, Debug)]
pub struct Options {
    /// Largest record (one line, without its terminator) accepted. A longer record is
    /// skipped up to its end and reported; memory stays bounded by this size.
    pub max_record_bytes: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_record_bytes: DEFAULT_MAX_RECORD_BYTES,
        }
    }
}

/// Incremental provider-output normalization: what every adapter provides.
pub trait Normalizer {
    /// Which provider's output this reads.
    fn provider(&self) -> Provider;

    /// Feeds the next bytes of output, split anywhere (inside a record, inside a UTF-8
    /// character). Blocks completed by these bytes, and problems found in them, are appended
    /// to `out` (blocks of a provider that stamps its records wait for its first stamp; see
    /// the driver).
    fn push(&mut self, bytes: &[u8], out: &mut Output);

    /// Ends the input: flushes an unterminated last record, emits what is still open
    /// (partial blocks, marked incomplete), reports tool calls left without a result, and
    /// settles the run's status. Pushing after `finish` is a logic error (ignored).
    fn finish(&mut self, out: &mut Output);

    /// The run's metadata as known so far; final after [`Normalizer::finish`].
    fn meta(&self) -> &RunMeta;
}

/// Where a normalizer appends what it produces; drain it as often as you like.
#[derive(Debug, Default)]
pub struct Output {
    /// Completed blocks, in order.
    pub items: Vec<Item>,
    /// Problems found in the input, in order.
    pub diagnostics: Vec<Diagnostic>,
}

/// One completed content block and where it belongs.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    /// The block, with fidelity `agent_emitted`.
    pub block: ContentBlock,
    /// Whose turn produced it: `Assistant` for model output, `User` for prompts and for the
    /// tool results a provider returns on the user side.
    pub role: Role,
    /// The provider's message id, when it has one; blocks of one message share it.
    pub message_id: Option<String>,
    /// The sub-agent scope: the id of the tool call that spawned the sub-agent (Claude
    /// `parent_tool_use_id`); `None` for the main thread.
    pub agent: Option<String>,
    /// On a tool call that starts a sub-agent, the sub-agent's name (the event mapper names
    /// the sub-agent's step after it); `None` otherwise.
    pub subagent: Option<String>,
    /// The input records it was made from.
    pub source: Source,
    /// The provider's time for it: the latest stamp seen when it was completed (see
    /// [`SourceTimes`]); `None` for a provider that does not stamp its records, or before
    /// the first stamp.
    pub time: Option<Timestamp>,
}

/// A span of input records: every block can be traced back to its lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Source {
    /// 1-based line of the first record.
    pub line: u64,
    /// 1-based line of the last record (the same line for single-record blocks).
    pub end_line: u64,
    /// Byte offset of the first record's first byte in the input.
    pub offset: u64,
}

impl Source {
    /// A span of one record.
    pub fn record(line: u64, offset: u64) -> Self {
        Source {
            line,
            end_line: line,
            offset,
        }
    }
}

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; everything in the record was still read.
    Warning,
    /// Part of the input could not be read, or is inconsistent.
    Error,
}

/// What kind of problem a diagnostic reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DiagnosticKind {
    /// A record that is not JSON (a banner, debug output); skipped.
    NotJson,
    /// A record that starts like JSON but does not parse; skipped.
    InvalidJson,
    /// A record with bytes that are not UTF-8; read with U+FFFD in their place.
    InvalidUtf8,
    /// A record with raw control characters inside JSON strings; read with them kept.
    ControlCharacters,
    /// A record longer than the limit; skipped.
    RecordTooLarge,
    /// The input ended inside a record (a torn or truncated last line).
    Truncated,
    /// Valid JSON that does not have the shape the provider documents; skipped.
    UnexpectedShape,
    /// A content block type this adapter does not know; kept in the run metadata.
    UnknownBlockType,
    /// A block still open when the input ended (its deltas never finished).
    IncompleteBlock,
    /// A tool call that never received a result.
    DanglingToolUse,
    /// A tool result whose call was never seen.
    OrphanToolResult,
    /// The stream ended without the provider's terminal record.
    MissingTerminal,
    /// A block assembled from partial-message deltas differs from the consolidated copy.
    StreamMismatch,
    /// A tool call's final arguments are not valid JSON; kept as the raw string.
    InvalidToolInput,
    /// A record of another provider's output (its detection claims it): kept as
    /// passthrough when it could be, but not read.
    ForeignRecord,
    /// The input had records and the adapter recognized none of them: the wrong provider,
    /// or not provider output at all.
    UnrecognizedInput,
    /// The provider withdrew output it had delivered (Claude's refusal fallback); the
    /// withdrawn blocks stay in the transcript and are listed in [`RunMeta::retracted`].
    Retracted,
}

impl DiagnosticKind {
    /// Every kind, for documentation checks and help texts.
    pub const ALL: [DiagnosticKind; 17] = [
        DiagnosticKind::NotJson,
        DiagnosticKind::InvalidJson,
        DiagnosticKind::InvalidUtf8,
        DiagnosticKind::ControlCharacters,
        DiagnosticKind::RecordTooLarge,
        DiagnosticKind::Truncated,
        DiagnosticKind::UnexpectedShape,
        DiagnosticKind::UnknownBlockType,
        DiagnosticKind::IncompleteBlock,
        DiagnosticKind::DanglingToolUse,
        DiagnosticKind::OrphanToolResult,
        DiagnosticKind::MissingTerminal,
        DiagnosticKind::StreamMismatch,
        DiagnosticKind::InvalidToolInput,
        DiagnosticKind::ForeignRecord,
        DiagnosticKind::UnrecognizedInput,
        DiagnosticKind::Retracted,
    ];

    /// The kebab-case name, as in JSON reports.
    pub fn as_str(self) -> &'static str {
        match self {
            DiagnosticKind::NotJson => "not-json",
            DiagnosticKind::InvalidJson => "invalid-json",
            DiagnosticKind::InvalidUtf8 => "invalid-utf8",
            DiagnosticKind::ControlCharacters => "control-characters",
            DiagnosticKind::RecordTooLarge => "record-too-large",
            DiagnosticKind::Truncated => "truncated",
            DiagnosticKind::UnexpectedShape => "unexpected-shape",
            DiagnosticKind::UnknownBlockType => "unknown-block-type",
            DiagnosticKind::IncompleteBlock => "incomplete-block",
            DiagnosticKind::DanglingToolUse => "dangling-tool-use",
            DiagnosticKind::OrphanToolResult => "orphan-tool-result",
            DiagnosticKind::MissingTerminal => "missing-terminal",
            DiagnosticKind::StreamMismatch => "stream-mismatch",
            DiagnosticKind::InvalidToolInput => "invalid-tool-input",
            DiagnosticKind::ForeignRecord => "foreign-record",
            DiagnosticKind::UnrecognizedInput => "unrecognized-input",
            DiagnosticKind::Retracted => "retracted",
        }
    }

    /// How bad this kind is.
    pub fn severity(self) -> Severity {
        match self {
            DiagnosticKind::ControlCharacters
            | DiagnosticKind::UnknownBlockType
            | DiagnosticKind::IncompleteBlock
            | DiagnosticKind::DanglingToolUse
            | DiagnosticKind::MissingTerminal
            | DiagnosticKind::StreamMismatch
            | DiagnosticKind::InvalidToolInput
            | DiagnosticKind::Retracted => Severity::Warning,
            _ => Severity::Error,
        }
    }
}

/// A problem in the input, with where it is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// 1-based line of the record. What never came (a terminal record) is reported at the
    /// last line read, its offset the end of the input (line 1, byte 0 for an empty input).
    pub line: u64,
    /// Byte offset in the input: the record's first byte, or the exact byte where known.
    pub offset: u64,
    /// What kind of problem.
    pub kind: DiagnosticKind,
    /// What was wrong, for a person.
    pub message: String,
}

impl Diagnostic {
    /// A diagnostic of `kind` at `line` / `offset`.
    pub fn new(kind: DiagnosticKind, line: u64, offset: u64, message: impl Into<String>) -> Self {
        Diagnostic {
            line,
            offset,
            kind,
            message: message.into(),
        }
    }

    /// How bad it is.
    pub fn severity(&self) -> Severity {
        self.kind.severity()
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let severity = match self.severity() {
            Severity::Warning => "warning",
            Severity::Error => "error",
        };
        write!(
            f,
            "line {} (byte {}): {severity}[{}]: {}",
            self.line,
            self.offset,
            self.kind.as_str(),
            self.message
        )
    }
}

/// Token counts, with every kind kept apart, in one convention for every provider (the
/// `usage` of `run.completed`; see [the wire format](crate::model#token-usage)):
///
/// * `input_tokens` counts only input that was neither read from nor written to a prompt
///   cache, so `input_tokens + cache_read_tokens + cache_write_tokens` is the whole prompt;
/// * `output_tokens` counts everything the model generated, reasoning included;
/// * `reasoning_tokens` is the part of `output_tokens` spent on reasoning, 0 where the
///   provider does not say.
///
/// So `input_tokens + cache_read_tokens + cache_write_tokens + output_tokens` is every token
/// billed, and totals are comparable across providers. How each provider's counts are
/// converted:
///
/// | provider (record) | `input_tokens` | `cache_read_tokens` | `cache_write_tokens` | `output_tokens` | `reasoning_tokens` |
/// |---|---|---|---|---|---|
/// | Claude Code (`result.usage`, else the last snapshot per message) | `input_tokens` (Anthropic's is already uncached) | `cache_read_input_tokens` | `cache_creation_input_tokens` | `output_tokens` (thinking included, as Anthropic counts) | 0: not reported |
/// | Codex (`turn.completed.usage`, `token_count`) | `input_tokens − cached_input_tokens` | `cached_input_tokens` | 0 | `output_tokens` (reasoning included: the Responses API's count) | `reasoning_output_tokens` |
/// | Gemini stream-json (`result.stats`) | `input`, else `input_tokens − cached` | `cached` | 0 | `output_tokens` + the thoughts | the thoughts: `total_tokens − input_tokens − output_tokens` (stream-json's `output_tokens` counts the candidates alone, and Gemini's `thoughtsTokenCount` is not in `candidatesTokenCount`) |
/// | Gemini json (`stats.models.*.tokens`) | `input` (else `prompt − cached`) + `tool` | `cached` | 0 | `candidates + thoughts` | `thoughts` |
/// | Copilot (`assistant.usage`, else the sum of `outputTokens`) | `inputTokens − cacheReadTokens − cacheWriteTokens` | `cacheReadTokens` | `cacheWriteTokens` | `outputTokens` (its OpenAI-style API counts reasoning in) | `reasoningTokens` |
/// | OpenAI Chat Completions, and Groq, DeepSeek, vLLM, Ollama, OpenRouter, Mistral, Perplexity | `prompt_tokens − cached` | `prompt_tokens_details.cached_tokens` (DeepSeek `prompt_cache_hit_tokens`) | 0 | `completion_tokens` (reasoning included) | `completion_tokens_details.reasoning_tokens` |
/// | OpenAI Responses | `input_tokens − cached` | `input_tokens_details.cached_tokens` | 0 | `output_tokens` (reasoning included) | `output_tokens_details.reasoning_tokens` |
/// | xAI (Grok), either API | as OpenAI | as OpenAI | 0 | `completion_tokens + reasoning_tokens`: xAI counts reasoning beside the completion | `reasoning_tokens` |
///
/// xAI is told apart by the record's arithmetic: its `total_tokens` is prompt + completion +
/// reasoning, where OpenAI's is prompt + completion. A usage without `total_tokens` is
/// taken as xAI's when the model is a Grok model (`grok-*`, also as `vendor/grok-*`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    /// Uncached input tokens.
    pub input_tokens: u64,
    /// Output tokens, reasoning included.
    pub output_tokens: u64,
    /// Input tokens read from the prompt cache.
    pub cache_read_tokens: u64,
    /// Input tokens written to the prompt cache.
    pub cache_write_tokens: u64,
    /// Output tokens spent on reasoning (part of `output_tokens`).
    pub reasoning_tokens: u64,
}

impl Usage {
    /// Adds another count to this one.
    pub fn add(&mut self, other: &Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cache_read_tokens += other.cache_read_tokens;
        self.cache_write_tokens += other.cache_write_tokens;
        self.reasoning_tokens += other.reasoning_tokens;
    }
}

/// Why the model stopped, normalized, with the provider's own words kept.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StopReason {
    /// The normalized reason.
    pub kind: StopKind,
    /// The provider's value, verbatim.
    pub raw: String,
}

/// The normalized stop reasons.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StopKind {
    /// The model finished its turn.
    EndTurn,
    /// The model stopped to call tools.
    ToolUse,
    /// The output token limit was reached.
    MaxTokens,
    /// The agent's turn limit was reached.
    MaxTurns,
    /// A stop sequence matched.
    StopSequence,
    /// The model refused, or a content filter stopped it.
    Refusal,
    /// The run was interrupted or aborted.
    Aborted,
    /// The provider stopped on an error.
    Error,
    /// A value axt does not map; see `raw`.
    Other,
}

/// How the run ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// No terminal record seen (yet).
    #[default]
    Incomplete,
    /// The provider reported success.
    Completed,
    /// The provider reported failure.
    Failed,
}

/// An error the provider reported about the run (not a problem with the input).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RunError {
    /// What the provider said.
    pub message: String,
    /// Whether it ended the run.
    pub fatal: bool,
    /// The line that reported it; 0 when the executor did ([`RunMeta::set_process`]).
    pub line: u64,
}

/// A record the provider withdrew after delivering it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Retraction {
    /// The line of the withdrawn record.
    pub line: u64,
    /// The line of the record that withdrew it.
    pub by_line: u64,
    /// The message its blocks belong to (`message_id` on their events), when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    /// The tool calls it made, or whose results it carried (`call_id` on their events).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_ids: Vec<String>,
}

/// A provider record axt keeps but does not turn into blocks (rate limits, hooks, ...).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Passthrough {
    /// The line it was on.
    pub line: u64,
    /// Its type (and subtype), as `type` or `type/subtype`.
    pub kind: String,
    /// The record, or the part of it that was not otherwise read.
    pub raw: Value,
}

/// What a run's output says about the run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunMeta {
    /// The provider.
    pub provider: Provider,
    /// The agent CLI's version, when it says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider_version: Option<String>,
    /// The provider's session (thread, conversation) id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The model that answered (the last one seen).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Token usage for the whole run.
    pub usage: Usage,
    /// The provider's usage record, verbatim, when it reported one for the run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw_usage: Option<Value>,
    /// Cost in US dollars, when the provider reports one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// Why the model stopped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<StopReason>,
    /// The run's final answer as its terminal record states it (Claude's `result.result`),
    /// when the run did not fail: usually a copy of the last assistant text, but the only
    /// copy when the assistant lines are missing. A failed run's text is in `errors`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// How the run ended.
    pub status: RunStatus,
    /// Errors the provider reported, fatal or not.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<RunError>,
    /// Output the provider withdrew after delivering it, in the order it said so. Its blocks
    /// stay in the transcript (they were written as they came): a reader that wants the run
    /// as the provider finally stands by it drops the messages and tool calls named here.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub retracted: Vec<Retraction>,
    /// Wall-clock duration in milliseconds, as the provider measured it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// Agent turns, as the provider counted them (old Claude Code versions wrote -1 for a
    /// run with no model turn; kept as written).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub num_turns: Option<i64>,
    /// Records kept as they were, the first [`PASSTHROUGH_LIMIT`] of them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub passthrough: Vec<Passthrough>,
    /// Passthrough records beyond the limit, counted by kind rather than kept, so that
    /// metadata stays bounded however long the stream (the records are in the input).
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub passthrough_omitted: std::collections::BTreeMap<String, u64>,
    /// How the agent's process ended, when axt ran it ([`crate::capture`]) and it did not
    /// simply exit with 0; normalizers, which only see output, leave it `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub process: Option<ProcessEnd>,
    /// The times the provider stamped on its records, where it does: the first and the
    /// latest seen. Events take their time from these (see [`events`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_times: Option<SourceTimes>,
    /// What the adapter saw and did, record type by record type ([`report`]); complete
    /// after [`Normalizer::finish`].
    pub report: InputReport,
}

/// The provider's own times for a run: its records' stamps, first and latest.
///
/// A record's stamp is its `timestamp` (Gemini, Copilot, Claude Code session logs), kept as
/// the provider wrote it, or `created` (OpenAI, Unix seconds, written as axt writes times).
/// The latest never goes backwards: a stamp earlier than one already seen leaves it where it
/// is. A stamp that is not an RFC 3339 date-time is not used.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SourceTimes {
    /// The first stamp seen.
    pub first: Timestamp,
    /// The latest stamp seen.
    pub last: Timestamp,
    #[serde(skip)]
    last_nanos: i128,
}

impl SourceTimes {
    /// Times that start at `first`.
    pub fn new(first: Timestamp) -> Option<Self> {
        let last_nanos = first.unix_nanos().ok()?;
        Some(SourceTimes {
            last: first.clone(),
            first,
            last_nanos,
        })
    }

    /// Moves the latest time to `time` if it is later.
    fn advance(&mut self, time: Timestamp, nanos: i128) {
        if nanos > self.last_nanos {
            self.last = time;
            self.last_nanos = nanos;
        }
    }
}

/// How an agent's process ended, as an executor observed it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ProcessEnd {
    /// The exit code, when the process exited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The signal that terminated it, when one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// What else the executor knows: it never started, it had to be killed, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl ProcessEnd {
    /// A process that exited with `code`.
    pub fn exited(code: i32) -> Self {
        ProcessEnd {
            exit_code: Some(code),
            ..ProcessEnd::default()
        }
    }

    /// How a process ended, from its wait status.
    pub fn from_status(status: std::process::ExitStatus) -> Self {
        #[cfg(unix)]
        let signal = std::os::unix::process::ExitStatusExt::signal(&status);
        #[cfg(not(unix))]
        let signal = None;
        ProcessEnd {
            exit_code: status.code(),
            signal,
            note: None,
        }
    }

    /// Whether it exited with 0 and nothing else is worth saying.
    pub fn is_clean(&self) -> bool {
        self.exit_code == Some(0) && self.signal.is_none() && self.note.is_none()
    }

    /// Why this ending is a failure, in words; `None` for a clean exit.
    pub fn failure(&self) -> Option<String> {
        if self.is_clean() {
            return None;
        }
        let status = match (self.exit_code, self.signal) {
            (Some(code), _) => Some(format!("the agent exited with code {code}")),
            (None, Some(signal)) => Some(format!(
                "the agent was killed by signal {signal}{}",
                signal_name(signal).map_or_else(String::new, |name| format!(" ({name})"))
            )),
            (None, None) => None,
        };
        let parts: Vec<String> = self.note.iter().cloned().chain(status).collect();
        Some(parts.join(": "))
    }
}

fn signal_name(signal: i32) -> Option<&'static str> {
    Some(match signal {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        6 => "SIGABRT",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        15 => "SIGTERM",
        _ => return None,
    })
}

/// How many passthrough records a run's metadata keeps verbatim.
pub const PASSTHROUGH_LIMIT: usize = 1_000;

impl RunMeta {
    /// Empty metadata for a provider's run.
    pub fn new(provider: Provider) -> Self {
        RunMeta {
            provider,
            provider_version: None,
            session_id: None,
            model: None,
            usage: Usage::default(),
            raw_usage: None,
            cost_usd: None,
            stop_reason: None,
            answer: None,
            status: RunStatus::Incomplete,
            errors: Vec::new(),
            retracted: Vec::new(),
            duration_ms: None,
            num_turns: None,
            passthrough: Vec::new(),
            passthrough_omitted: std::collections::BTreeMap::new(),
            process: None,
            source_times: None,
            report: InputReport::default(),
        }
    }

    /// Notes a record's stamp, RFC 3339 text (see [`SourceTimes`]).
    pub(crate) fn saw_time(&mut self, text: &str) {
        let Ok(time) = Timestamp::parse(text) else {
            return;
        };
        self.saw_timestamp(time);
    }

    /// Notes a record's stamp, kept as the provider wrote it.
    pub(crate) fn saw_timestamp(&mut self, time: Timestamp) {
        let Ok(nanos) = time.unix_nanos() else {
            return;
        };
        match &mut self.source_times {
            Some(times) => times.advance(time, nanos),
            None => self.source_times = SourceTimes::new(time),
        }
    }

    /// Records how the agent's process ended. An ending that is not a clean exit makes the
    /// run failed whatever its output said, with a fatal error (line 0: the executor, not
    /// the output, reported it) that says why, and whether the output was cut short.
    pub fn set_process(&mut self, end: ProcessEnd) {
        let Some(mut message) = end.failure() else {
            return;
        };
        if self.status == RunStatus::Incomplete {
            message.push_str("; the output ended before the run's terminal record");
        }
        self.status = RunStatus::Failed;
        self.errors.push(RunError {
            message,
            fatal: true,
            line: 0,
        });
        self.process = Some(end);
    }

    /// Keeps a record the adapter does not turn into blocks, or, past
    /// [`PASSTHROUGH_LIMIT`], counts it by kind (`raw` is then never built).
    pub(crate) fn keep(&mut self, line: u64, kind: &str, raw: impl FnOnce() -> Value) {
        if self.passthrough.len() < PASSTHROUGH_LIMIT {
            let kind = kind.to_owned();
            self.passthrough.push(Passthrough {
                line,
                kind,
                raw: raw(),
            });
        } else {
            *self.passthrough_omitted.entry(kind.to_owned()).or_default() += 1;
        }
    }
}

/// Everything one normalization produced.
#[derive(Clone, Debug, PartialEq)]
pub struct Normalized {
    /// Completed blocks, in order.
    pub items: Vec<Item>,
    /// The run's metadata.
    pub meta: RunMeta,
    /// Problems found in the input, in order.
    pub diagnostics: Vec<Diagnostic>,
}

impl Normalized {
    /// The blocks alone, in order.
    pub fn blocks(&self) -> impl Iterator<Item = &ContentBlock> {
        self.items.iter().map(|item| &item.block)
    }

    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity() == Severity::Error)
    }
}

/// The strict entry point failed: the input had an error.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{provider} output: {diagnostic}")]
pub struct NormalizeError {
    /// Which provider's output it was.
    pub provider: Provider,
    /// The first error found.
    pub diagnostic: Diagnostic,
}

/// Reads a whole output tolerantly: never fails; what could be read plus diagnostics.
pub fn normalize_lossy(provider: Provider, input: &[u8], options: Options) -> Normalized {
    let mut normalizer = provider.normalizer(options);
    let mut out = Output::default();
    normalizer.push(input, &mut out);
    normalizer.finish(&mut out);
    Normalized {
        items: out.items,
        meta: normalizer.meta().clone(),
        diagnostics: out.diagnostics,
    }
}

/// Reads a whole output strictly: the first error diagnostic is an error.
/// Warnings (a dangling tool call, say) do not fail it; they are in the result.
pub fn normalize(
    provider: Provider,
    input: &[u8],
    options: Options,
) -> Result<Normalized, NormalizeError> {
    let normalized = normalize_lossy(provider, input, options);
    match normalized
        .diagnostics
        .iter()
        .find(|d| d.severity() == Severity::Error)
    {
        Some(diagnostic) => Err(NormalizeError {
            provider,
            diagnostic: diagnostic.clone(),
        }),
        None => Ok(normalized),
    }
}

/// Short description of a block for diagnostics and summaries: its type and identity.
pub(crate) fn describe(block: &Block) -> String {
    match block {
        Block::ToolUse {
            tool_name, tool_id, ..
        } => format!("tool_use {tool_name} ({tool_id})"),
        Block::ToolResult { tool_id, .. } => format!("tool_result ({tool_id})"),
        other => other.type_name().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_diagnostic_kind_is_listed_once_under_its_wire_name() {
        use DiagnosticKind::*;
        // No wildcard: a new kind does not compile here until it is in `ALL` too.
        let listed = |kind: DiagnosticKind| match kind {
            NotJson | InvalidJson | InvalidUtf8 | ControlCharacters | RecordTooLarge
            | Truncated | UnexpectedShape | UnknownBlockType | IncompleteBlock
            | DanglingToolUse | OrphanToolResult | MissingTerminal | StreamMismatch
            | InvalidToolInput | ForeignRecord | UnrecognizedInput | Retracted => {
                DiagnosticKind::ALL.iter().filter(|k| **k == kind).count()
            }
        };
        for kind in DiagnosticKind::ALL {
            assert_eq!(listed(kind), 1, "{kind:?}");
            assert_eq!(
                serde_json::to_value(kind).unwrap(),
                serde_json::Value::from(kind.as_str())
            );
        }
    }
}
