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
//! # Token usage, provider by provider
//!
//! Every adapter converts its provider's counts to the one convention of [`Usage`] (the
//! wire format's, [`crate::model#token-usage`]):
//!
//! | provider (record) | `input_tokens` | `cache_read_tokens` | `cache_write_tokens` | `output_tokens` | `reasoning_tokens` |
//! |---|---|---|---|---|---|
//! | Claude Code (`result.modelUsage` summed over its models, else `result.usage`, else the last snapshot per message; see [`UsageScope`] for what it spans) | `input_tokens` (`inputTokens`; Anthropic's is already uncached) | `cache_read_input_tokens` (`cacheReadInputTokens`) | `cache_creation_input_tokens` (`cacheCreationInputTokens`) | `output_tokens` (`outputTokens`; thinking included, as Anthropic counts) | 0: not reported |
//! | Anthropic Messages API (per message, its last usage snapshot: `message_start`'s, then `message_delta`'s; summed over messages) | `input_tokens` (already uncached) | `cache_read_input_tokens` | `cache_creation_input_tokens` | `output_tokens` (thinking included) | 0: not reported |
//! | Codex (`turn.completed.usage`, `token_count`) | `input_tokens − cached_input_tokens` | `cached_input_tokens` | 0 | `output_tokens` (reasoning included: the Responses API's count) | `reasoning_output_tokens` |
//! | Gemini stream-json (`result.stats`) | `input`, else `input_tokens − cached` | `cached` | 0 | `output_tokens` + the thoughts | the thoughts: `total_tokens − input_tokens − output_tokens` (stream-json's `output_tokens` counts the candidates alone, and Gemini's `thoughtsTokenCount` is not in `candidatesTokenCount`) |
//! | Gemini json (`stats.models.*.tokens`) | `input` (else `prompt − cached`) + `tool` | `cached` | 0 | `candidates + thoughts` | `thoughts` |
//! | Gemini API (per response, its last `usageMetadata`: a stream's chunks repeat the running counts; summed over responses) | `promptTokenCount − cachedContentTokenCount` + `toolUsePromptTokenCount` | `cachedContentTokenCount` | 0 | `candidatesTokenCount + thoughtsTokenCount` | `thoughtsTokenCount` |
//! | Bedrock Converse (per message, `metadata.usage` of a stream, `usage` of a body; summed over messages) | `inputTokens` (already uncached) | `cacheReadInputTokens` | `cacheWriteInputTokens` | `outputTokens` | 0: not reported |
//! | Copilot (`assistant.usage`, else the sum of `outputTokens`) | `inputTokens − cacheReadTokens − cacheWriteTokens` | `cacheReadTokens` | `cacheWriteTokens` | `outputTokens` (its OpenAI-style API counts reasoning in) | `reasoningTokens` |
//! | OpenAI Chat Completions, and Groq, DeepSeek, vLLM, Ollama, OpenRouter, Mistral, Perplexity | `prompt_tokens − cached` | `prompt_tokens_details.cached_tokens` (DeepSeek `prompt_cache_hit_tokens`) | 0 | `completion_tokens` (reasoning included) | `completion_tokens_details.reasoning_tokens` |
//! | OpenAI Responses | `input_tokens − cached` | `input_tokens_details.cached_tokens` | 0 | `output_tokens` (reasoning included) | `output_tokens_details.reasoning_tokens` |
//! | xAI (Grok), either API | as OpenAI | as OpenAI | 0 | `completion_tokens + reasoning_tokens`: xAI counts reasoning beside the completion | `reasoning_tokens` |
//! | Cursor CLI (`result.usage`), Letta Code (`usage_statistics` summed, else `result.usage`), Amp (per message), Factory Droid (`completion.usage`, Claude's names) | as Claude Code (`inputTokens`, `cacheReadTokens`, `cacheWriteTokens`; Letta's `prompt_tokens`) | as Claude Code | as Claude Code | as Claude Code (Letta's `completion_tokens`) | 0 |
//! | ACP (each `session/prompt` response's unstable `usage`, summed over turns) | `inputTokens`, less `cachedReadTokens + cachedWriteTokens` when `totalTokens` shows the input counts them | `cachedReadTokens` | `cachedWriteTokens` | `outputTokens`, + `thoughtTokens` when `totalTokens` shows they are beside it | `thoughtTokens` |
//! | OpenCode (`step_finish.tokens`, summed over steps) | `input` (uncached) | `cache.read` | `cache.write` | `output + reasoning` | `reasoning` |
//! | Pi (each assistant message's `usage`, summed) | `input` (uncached) | `cacheRead` | `cacheWrite` | `output` (reasoning included: pi keeps its providers' count) | `reasoning`, where given |
//!
//! xAI is told apart by the record's arithmetic: its `total_tokens` is prompt + completion +
//! reasoning, where OpenAI's is prompt + completion. A usage without `total_tokens` is
//! taken as xAI's when the model is a Grok model (`grok-*`, also as `vendor/grok-*`).
//!
//! Two entry points sit on top, as a tolerant and a strict pair: [`normalize_lossy`] never
//! fails and returns what it could read plus diagnostics; [`normalize`] is a thin `Result`
//! wrapper that fails on the first error diagnostic.
//!
//! # Files
//!
//! This file is the one place that names every adapter (the factory
//! [`Provider::normalizer`], detection [`Provider::detect`] and the two entry points). The
//! vocabulary adapters speak lives beside it, one file per role, re-exported here:
//! `normalizer.rs` ([`Normalizer`], [`Options`], [`Output`], [`Item`], [`Source`],
//! [`Normalized`], [`Given`]), `diagnostic.rs` ([`Diagnostic`] and its kinds), `detect.rs`
//! (who sent an error-only body). The run metadata adapters fill ([`RunMeta`] and its parts)
//! and the names of the providers ([`Provider`]) are wire format, in [`crate::model`]; they
//! are re-exported here for one release. The shared machinery (framing, the JSON door, SSE,
//! the line driver, the input report, tool bookkeeping, a request's history read once) sits
//! beside them, and the adapters on top.
//!
//! This module owns the provider dialects and nothing downstream of them: turning items into
//! transcript events is `axt::transcribe`'s, writing them is the recorder's.
//!
//! Adapters: [`claude`] (Claude Code `--output-format stream-json`, and its session-log
//! entries; the Claude-compatible family, Amp, Qwen Code, Letta Code, Cursor CLI, Factory Droid and Kimi
//! CLI, each named in the run metadata), [`codex`] (Codex CLI `exec --json`, all three generations), [`gemini`] (Gemini
//! CLI `--output-format stream-json` and `json`), [`copilot`] (Copilot CLI `-p
//! --output-format json`, and its session logs), [`gemini_api`] (Google's Gemini API as AI
//! Studio and Vertex AI serve it: bodies, SSE and JSON array streams), [`bedrock`] (Amazon
//! Bedrock's Converse API: bodies, binary and decoded `ConverseStream` events), [`anthropic`] (Anthropic's Messages API:
//! bodies and SSE streams, as Anthropic, Vertex AI and Bedrock serve it), [`openai`]
//! (OpenAI HTTP: Chat Completions and Responses, JSON bodies and SSE streams, from OpenAI or
//! any compatible server), [`acp`] (a captured Agent Client Protocol exchange, any ACP agent,
//! v1 and the v2 draft), [`opencode`] (OpenCode `run --format json`), [`pi`] (pi `-p --mode
//! json`).

// The vocabulary every adapter speaks, one file per role; nothing here names an adapter.
mod detect;
mod diagnostic;
mod normalizer;

// The shared machinery adapters are built from.
mod driver;
mod framing;
mod history;
mod json;
pub(crate) mod lenient;
// A record's few fields read as serde_json reads them, unparsed (the importers' plans, Copilot's
// ignored deltas).
pub(crate) mod messages_api;
pub mod report;
pub(crate) mod skim;
// Public only for the SSE fuzz target (its `SseSplitter` seam): not part of axt's API.
#[doc(hidden)]
pub use framing::sse;
// Public only for the event-stream fuzz target (its `EventStreamSplitter` seam).
#[doc(hidden)]
pub use framing::eventstream;
mod tools;

// The adapters, one dialect each.
pub mod acp;
pub mod anthropic;
pub mod bedrock;
pub mod claude;
pub mod codex;
pub mod copilot;
pub mod gemini;
pub mod gemini_api;
pub mod openai;
pub mod opencode;
pub mod pi;

use serde_json::Value;

pub(crate) use detect::{ErrorBody, error_body};
pub(crate) use diagnostic::describe;
pub use diagnostic::{Diagnostic, DiagnosticKind, Severity};
pub use normalizer::{
    DEFAULT_MAX_RECORD_BYTES, Given, Item, Normalized, Normalizer, Options, Output, Source,
};
// The run metadata is wire format and lives in `axt::model`; these re-exports keep the old
// paths (`axt::normalize::RunMeta`, ...) working for one release. New code names `model`.
pub use crate::model::{
    InputReport, PASSTHROUGH_BYTES, PASSTHROUGH_LIMIT, Passthrough, ProcessEnd, Provider,
    RecordCounts, Retraction, RunError, RunMeta, RunStatus, SourceTimes, StopKind, StopReason,
    Usage, UsageScope,
};

/// The providers whose output is an HTTP API's bodies, in the order detection asks them:
/// what a pretty-printed document, a JSON array stream or a binary event stream can be.
const HTTP_APIS: [Provider; 4] = [
    Provider::GeminiApi,
    Provider::Bedrock,
    Provider::Anthropic,
    Provider::OpenAi,
];

impl Provider {
    /// A normalizer for this provider's output.
    pub fn normalizer(self, options: Options) -> Box<dyn Normalizer + Send> {
        match self {
            Provider::Claude => Box::new(claude::normalizer(options)),
            Provider::Codex => Box::new(codex::normalizer(options)),
            Provider::Gemini => Box::new(gemini::normalizer(options)),
            Provider::Copilot => Box::new(copilot::normalizer(options)),
            Provider::GeminiApi => Box::new(gemini_api::normalizer(options)),
            Provider::Bedrock => Box::new(bedrock::normalizer(options)),
            Provider::Anthropic => Box::new(anthropic::normalizer(options)),
            Provider::OpenAi => Box::new(openai::normalizer(options)),
            Provider::Acp => Box::new(acp::normalizer(options)),
            Provider::OpenCode => Box::new(opencode::normalizer(options)),
            Provider::Pi => Box::new(pi::normalizer(options)),
        }
    }

    /// Guesses the provider from the first bytes of its output: the first complete JSON
    /// record that some adapter recognizes decides; else an SSE stream, by its first `data`
    /// record; else a pretty-printed document (Gemini's json mode, an OpenAI body). `None`
    /// when nothing fits (yet).
    pub fn detect(head: &[u8]) -> Option<Provider> {
        if framing::eventstream::EventStream::starts(head) {
            // Binary: no lines to look at; the framing's first message decides.
            return Provider::detect_framed(head);
        }
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
            .or_else(|| Provider::detect_sse(complete))
            // A pretty-printed, multi-line document: an HTTP body, whose adapters know it by
            // its `type` or `object`, so they are asked first; Gemini's `--output-format
            // json` has no such marker. (The agent CLIs print one record a line.)
            .or_else(|| {
                let document = gemini::leading_document(complete)?;
                HTTP_APIS
                    .into_iter()
                    .find(|p| p.claims(&document))
                    .or_else(|| gemini::claims_document(&document).then_some(Provider::Gemini))
            })
            // A JSON array stream (Gemini's default stream), or a line before a binary event
            // stream: the HTTP framing's first record.
            .or_else(|| Provider::detect_framed(complete))
    }

    /// The provider of the first record the HTTP framing makes of `head` (an array
    /// stream's first element, an event stream's first message), as every adapter is asked
    /// to claim it.
    fn detect_framed(head: &[u8]) -> Option<Provider> {
        use framing::{Frame, Framing};
        let mut http = framing::Http::new(DETECT_BYTES);
        let mut first = None;
        http.push(head, &mut |frame| {
            if let (Frame::Record(record), None) = (frame, &first) {
                first = Some(json::to_value(record.bytes));
            }
        });
        let record = first?;
        // Only an HTTP API sends an array stream or a binary one: an agent CLI's records
        // written over many lines are no stream of theirs (and get the CLI's hint).
        HTTP_APIS.into_iter().find(|p| p.claims(&record))
    }

    /// The provider of an SSE stream, by its first event's data (see
    /// [`sse::first_data`]), which each adapter is asked to claim. Data no adapter claims,
    /// `[DONE]` or an error object of no known shape, is OpenAI's: the SSE dialect every
    /// compatible server speaks.
    fn detect_sse(head: &[u8]) -> Option<Provider> {
        let data = sse::first_data(head)?;
        if data == b"[DONE]" {
            return Some(Provider::OpenAi);
        }
        let record = json::to_value(data);
        Provider::ALL
            .into_iter()
            .find(|p| p.claims(&record))
            .or_else(|| {
                let error = record.get("error").is_some_and(Value::is_object);
                error.then_some(Provider::OpenAi)
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
                "an error record of the Anthropic API's shape (`type: error`) that is none of its bodies",
            ),
            ErrorBody::Unknown => Some(
                "an error body whose error object has no field that says which provider sent it",
            ),
            ErrorBody::OpenAi | ErrorBody::Gemini | ErrorBody::GeminiApi => None,
        }
    }

    fn claims(self, record: &Value) -> bool {
        match self {
            Provider::Claude => claude::claims(record),
            Provider::Codex => codex::claims(record),
            Provider::Gemini => gemini::claims(record),
            Provider::Copilot => copilot::claims(record),
            Provider::GeminiApi => gemini_api::claims(record),
            Provider::Bedrock => bedrock::claims(record),
            Provider::Anthropic => anthropic::claims(record),
            Provider::OpenAi => openai::claims(record),
            Provider::Acp => acp::claims(record),
            Provider::OpenCode => opencode::claims(record),
            Provider::Pi => pi::claims(record),
        }
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

/// What [`detect_head`] makes of the bytes read so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detection {
    /// The provider whose output this is.
    Found(Provider),
    /// No decision yet: read more and ask again.
    NeedMore,
    /// The input ended before any byte.
    Empty,
    /// The first record is longer than the record size limit.
    RecordTooLong,
    /// No provider fits, and reading on will not change that; the reason, in words.
    Undetected(&'static str),
}

/// How many bytes of complete records auto-detection looks at before it gives up; it reads
/// on past this while the first record is not complete (up to the record size limit).
pub const DETECT_BYTES: usize = 1 << 20;

/// Auto-detection over a stream, one step: `head` is everything read so far, `at_end` says
/// the input has ended, `max_record_bytes` is the record size limit. A caller reads chunks,
/// appends them to `head` and asks again while this says [`Detection::NeedMore`]; then it
/// feeds `head` to the normalizer first, so nothing read for detection is lost.
pub fn detect_head(head: &[u8], at_end: bool, max_record_bytes: usize) -> Detection {
    if let Some(provider) = Provider::detect(head) {
        return Detection::Found(provider);
    }
    let complete = head
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |at| at + 1);
    let too_long = head.len() - complete > max_record_bytes;
    if !(at_end || complete >= DETECT_BYTES || too_long) {
        return Detection::NeedMore;
    }
    if !too_long && !head.ends_with(b"\n") && !head.is_empty() {
        // Let a last record without LF be looked at too.
        let mut terminated = head.to_vec();
        terminated.push(b'\n');
        if let Some(provider) = Provider::detect(&terminated) {
            return Detection::Found(provider);
        }
    }
    if head.is_empty() {
        Detection::Empty
    } else if too_long {
        Detection::RecordTooLong
    } else {
        Detection::Undetected(
            Provider::why_undetected(head).unwrap_or("no provider's records recognized"),
        )
    }
}

#[cfg(test)]
mod bench_streams;
#[cfg(test)]
mod streamed_property;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_sse_stream_is_detected_by_its_first_data_record() {
        let detect = |head: &[u8]| Provider::detect(head);
        let chunk = b": ping\n\ndata: {\"object\":\"chat.completion.chunk\"}\n";
        assert_eq!(detect(chunk), Some(Provider::OpenAi));
        let responses = b"event: response.created\r\ndata: {\"type\":\"response.created\"}\r\n";
        assert_eq!(detect(responses), Some(Provider::OpenAi));
        assert_eq!(
            detect(b"data: :keepalive\n\ndata: [DONE]\n"),
            Some(Provider::OpenAi)
        );
        let error = b"data: {\"error\": {\"message\": \"rate limited\"}}\n";
        assert_eq!(detect(error), Some(Provider::OpenAi));
        assert_eq!(detect(b"data: {\"kind\":\"unknown\"}\n"), None);
    }

    #[test]
    fn detection_reads_on_until_a_record_decides() {
        let record = br#"{"type":"system","subtype":"init","session_id":"s"}"#;
        assert_eq!(detect_head(b"", false, 100), Detection::NeedMore);
        assert_eq!(detect_head(b"", true, 100), Detection::Empty);
        assert_eq!(detect_head(&record[..20], false, 100), Detection::NeedMore);
        // A last record without its LF is looked at once the input has ended.
        assert_eq!(detect_head(record, false, 100), Detection::NeedMore);
        let claude = Detection::Found(Provider::Claude);
        assert_eq!(detect_head(record, true, 100), claude);
        assert_eq!(
            detect_head(&[b'x'; 200], false, 100),
            Detection::RecordTooLong
        );
        assert!(matches!(
            detect_head(b"hello\n", true, 100),
            Detection::Undetected(_)
        ));
    }
}
