//! The normalize bench's stream generators (`benches/<provider>_stream/`), for the tests
//! that read a bench stream both ways (a skim against the parse: Codex's items, ACP's
//! chunks and tool calls, OpenCode's parts, the Gemini API's text chunks, OpenAI's
//! Responses deltas, Anthropic's and Bedrock's text deltas). Loaded once, here, beside the
//! pieces they share, which they reach as their siblings (`gen_common`, `measure`).

// The tests call the generators, not the bench's typed readers or timing.
#![allow(dead_code)]

use crate::normalize::driver::{Adapter, Driver};
use crate::normalize::framing::Framing;
use crate::normalize::{Normalizer, Options, Output};

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

/// Every input of `corpus/normalize/<provider>/ok` and `err`, named by its path: the
/// fixtures a skim's test reads with the skim on and off.
pub(super) fn corpus_inputs(provider: &str) -> Vec<(String, Vec<u8>)> {
    let corpus = format!("{}/corpus/normalize/{provider}", env!("CARGO_MANIFEST_DIR"));
    let mut inputs = Vec::new();
    for outcome in ["ok", "err"] {
        let dir = std::fs::read_dir(format!("{corpus}/{outcome}")).expect("the corpus");
        for entry in dir {
            let path = entry.expect("a fixture").path();
            let input = std::fs::read(&path).expect("a fixture");
            inputs.push((path.display().to_string(), input));
        }
    }
    assert!(inputs.len() > 10, "the corpus of {provider} is read");
    inputs
}

/// What `adapter` made of `input` through framing `F`, whole, as text to compare: items,
/// diagnostics and the run's metadata with its input report (a skim's test reads each
/// input with the skim on and off and compares the two).
pub(super) fn read_whole<F: Framing, A: Adapter>(adapter: A, input: &[u8]) -> String {
    let mut normalizer = Driver::<F, A>::new(&Options::default(), adapter);
    let mut out = Output::default();
    normalizer.push(input, &mut out);
    normalizer.finish(&mut out);
    format!(
        "{:#?}\n{:#?}\n{:#?}",
        out.items,
        out.diagnostics,
        normalizer.meta()
    )
}
