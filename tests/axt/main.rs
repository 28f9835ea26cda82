//! axt's integration tests: one binary, one module per area.

mod bench_stream;
mod cli;
mod codex;
mod corpus_docs;
mod equivalence;
mod exec;
mod fuzz_regressions;
mod gemini;
mod golden_export;
mod golden_import;
mod golden_normalize;
mod golden_read;
mod model;
mod normalize;
mod openai;
mod read;
mod record;
mod times;
