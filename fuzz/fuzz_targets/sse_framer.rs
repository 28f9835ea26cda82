//! Any bytes as a server-sent event stream through the SSE framer, fed in fuzzer-chosen
//! chunks and whole: the same events; positions and data inside the input. The first two
//! bytes choose the chunking (see `check::chunk_sizes`).
#![no_main]

#[path = "../../tests/axt/fuzz_regressions/check.rs"]
#[allow(dead_code)]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::sse_framer(data));
