//! Any bytes as a Claude Code session log, imported: no panic; every entry in a thread or
//! counted as kept out; the transcripts written pass `axt check` clean; the streaming
//! import writes what the in-memory conversion writes (see `check::import_claude_code`).
#![no_main]

#[path = "../../tests/axt/fuzz_regressions/check.rs"]
#[allow(dead_code)]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::import_claude_code(data));
