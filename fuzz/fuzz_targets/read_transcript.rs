//! Any bytes as a transcript file, read whole and in two parts (resumed at the reader's
//! position; the first two bytes choose the cut): no panic; every problem inside the input;
//! every event yielded re-encodes; the two readings agree (see `check::read_transcript`).
#![no_main]

#[path = "../../tests/axt/fuzz_regressions/check.rs"]
#[allow(dead_code)]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::read_transcript(data));
