//! axt's integration tests: one binary, one module per area.

mod agentlog;
mod bench_stream;
mod claude_code;
mod cli;
mod codex;
mod corpus_docs;
mod equivalence;
mod exec;
mod fuzz_regressions;
mod gemini_copilot;
mod golden;
mod model;
mod normalize;
mod openai;
mod partial_messages;
mod read;
mod record;
mod times;
mod transcript;
