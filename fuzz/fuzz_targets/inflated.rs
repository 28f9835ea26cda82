//! Any provider's output inflated past the transcript's limits: the first byte chooses the
//! provider and the chunking, the rest is output with inflation tokens that repeat a byte
//! up to 16 MiB times and open or close up to 1,024 brackets (see `check::inflate`), so a
//! 4 KiB input makes records up to three line limits long and nested past 128 levels. The
//! checks are the chunked targets', with the record limit above the line limit: every
//! transcript passes `axt check`, however large or deep the input.
#![no_main]

#[path = "../../tests/axt/fuzz_regressions/check.rs"]
#[allow(dead_code)]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::inflated(data));
