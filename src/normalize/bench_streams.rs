//! The normalize bench's stream generators (`benches/<provider>_stream/`), for the tests
//! that read a bench stream both ways (a skim against the parse: Codex's items, ACP's
//! chunks and tool calls, OpenCode's parts, the Gemini API's text chunks, OpenAI's
//! Responses deltas, Anthropic's and Bedrock's text deltas). Loaded once, here, beside the
//! pieces they share, which they reach as their siblings (`gen_common`, `measure`).

// The tests call the generators, not the bench's typed readers or timing.
#![allow(dead_code)]

#[path = "../../benches/gen_common/mod.rs"]
mod gen_common;
#[path = "../../benches/measure/mod.rs"]
mod measure;

#[path = "../../benches/acp_stream/mod.rs"]
pub(super) mod acp_stream;
#[path = "../../benches/anthropic_stream/mod.rs"]
pub(super) mod anthropic_stream;
#[path = "../../benches/bedrock_stream/mod.rs"]
pub(super) mod bedrock_stream;
#[path = "../../benches/codex_stream/mod.rs"]
pub(super) mod codex_stream;
#[path = "../../benches/gemini-api_stream/mod.rs"]
pub(super) mod gemini_api_stream;
#[path = "../../benches/openai_stream/mod.rs"]
pub(super) mod openai_stream;
#[path = "../../benches/opencode_stream/mod.rs"]
pub(super) mod opencode_stream;
