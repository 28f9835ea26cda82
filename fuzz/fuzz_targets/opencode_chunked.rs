//! opencode output fed in fuzzer-chosen chunks and whole: same items, diagnostics and
//! metadata; diagnostics inside the input; every event accepted by the strict writer.
//! The first two bytes choose the chunking (see `check::chunk_sizes`).
#![no_main]

#[path = "../../tests/axt/fuzz_regressions/check.rs"]
#[allow(dead_code)]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::chunked(axt::normalize::Provider::OpenCode, data));
