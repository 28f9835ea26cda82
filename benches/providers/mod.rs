//! Every provider's bench stream, the one list of them: its deterministic generator
//! (`benches/<provider>_stream/mod.rs`), its serde_json typed baseline (`typed.rs` beside it)
//! and the block kinds it must yield. `benches/normalize.rs`, `benches/read.rs` and
//! `tests/axt/bench_stream.rs` include this file with `#[path]`; a new provider adds its
//! folder and one arm below (the match is exhaustive, so it does not compile without).
#![allow(dead_code)] // Each includer uses part of it.

#[path = "../acp_stream/mod.rs"]
pub(crate) mod acp_stream;
#[path = "../anthropic_stream/mod.rs"]
pub(crate) mod anthropic_stream;
#[path = "../bedrock_stream/mod.rs"]
pub(crate) mod bedrock_stream;
#[path = "../claude_stream/mod.rs"]
pub(crate) mod claude_stream;
#[path = "../codex_stream/mod.rs"]
pub(crate) mod codex_stream;
#[path = "../copilot_stream/mod.rs"]
pub(crate) mod copilot_stream;
#[path = "../gemini-api_stream/mod.rs"]
pub(crate) mod gemini_api_stream;
#[path = "../gemini_stream/mod.rs"]
pub(crate) mod gemini_stream;
#[path = "../gen_common/mod.rs"]
mod gen_common;
#[path = "../measure/mod.rs"]
pub(crate) mod measure;
#[path = "../openai_stream/mod.rs"]
pub(crate) mod openai_stream;
#[path = "../opencode_stream/mod.rs"]
pub(crate) mod opencode_stream;
#[path = "../pi_stream/mod.rs"]
pub(crate) mod pi_stream;

use axt::model::Provider;
use measure::Generate;

/// One provider's bench stream.
#[derive(Clone, Copy)]
pub(crate) struct Stream {
    /// At least `bytes` bytes of whole sessions from a seed.
    pub(crate) generate: Generate,
    /// How many lines of a stream the typed baseline parses.
    pub(crate) typed: fn(&[u8]) -> usize,
    /// The block kinds a stream normalizes into, every one of them.
    pub(crate) kinds: &'static [&'static str],
}

/// The bench stream of `provider`.
pub(crate) fn stream(provider: Provider) -> Stream {
    match provider {
        Provider::Claude => Stream {
            generate: claude_stream::claude_stream,
            typed: claude_stream::typed::parse,
            kinds: claude_stream::KINDS,
        },
        Provider::Codex => Stream {
            generate: codex_stream::codex_stream,
            typed: codex_stream::typed::parse,
            kinds: codex_stream::KINDS,
        },
        Provider::Gemini => Stream {
            generate: gemini_stream::gemini_stream,
            typed: gemini_stream::typed::parse,
            kinds: gemini_stream::KINDS,
        },
        Provider::Copilot => Stream {
            generate: copilot_stream::copilot_stream,
            typed: copilot_stream::typed::parse,
            kinds: copilot_stream::KINDS,
        },
        Provider::GeminiApi => Stream {
            generate: gemini_api_stream::gemini_api_stream,
            typed: gemini_api_stream::typed::parse,
            kinds: gemini_api_stream::KINDS,
        },
        Provider::Bedrock => Stream {
            generate: bedrock_stream::bedrock_stream,
            typed: bedrock_stream::typed::parse,
            kinds: bedrock_stream::KINDS,
        },
        Provider::Anthropic => Stream {
            generate: anthropic_stream::anthropic_stream,
            typed: anthropic_stream::typed::parse,
            kinds: anthropic_stream::KINDS,
        },
        Provider::OpenAi => Stream {
            generate: openai_stream::openai_stream,
            typed: openai_stream::typed::parse,
            kinds: openai_stream::KINDS,
        },
        Provider::Acp => Stream {
            generate: acp_stream::acp_stream,
            typed: acp_stream::typed::parse,
            kinds: acp_stream::KINDS,
        },
        Provider::OpenCode => Stream {
            generate: opencode_stream::opencode_stream,
            typed: opencode_stream::typed::parse,
            kinds: opencode_stream::KINDS,
        },
        Provider::Pi => Stream {
            generate: pi_stream::pi_stream,
            typed: pi_stream::typed::parse,
            kinds: pi_stream::KINDS,
        },
    }
}
