//! Any bytes into the transcript reader: whatever it decodes and the writer accepts must
//! decode again to the same event.
#![no_main]

#[path = "../../tests/axt/fuzz_regressions/check.rs"]
#[allow(dead_code)]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::decode_round_trip(data));
