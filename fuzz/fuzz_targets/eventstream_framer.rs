//! Any bytes as an AWS event stream (`application/vnd.amazon.eventstream`, Bedrock's binary
//! framing) through the event-stream framing, fed in fuzzer-chosen chunks and whole: the same
//! frames; positions inside the input, in order; records within the limit. The first two
//! bytes choose the chunking (see `check::chunk_sizes`).
#![no_main]

#[path = "../../tests/axt/fuzz_regressions/check.rs"]
#[allow(dead_code)]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::eventstream_framer(data));
