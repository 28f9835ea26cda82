//! A deterministic generator of realistic Gemini CLI `--output-format stream-json`, for
//! benchmarks.
//!
//! Each session has an `init` line, the user prompt echoed once, then 2-20 rounds: the
//! assistant's text (40-3000 B) as `message` lines with `delta:true` of 8-60 bytes each (the
//! many small lines), then 0-3 parallel `tool_use` lines (`run_shell_command` 60%,
//! `read_file` 40%) followed by their `tool_result` lines (output from the tool-output size
//! mix; 8% `status:"error"` with an `error` object). The last round has no tool calls, and a
//! `result` line with stats ends the session. Every line carries an ISO `timestamp`.
//!
//! Shares its PRNG and text with the other generators (`gen_common`); checked by
//! `tests/axt/bench_stream.rs` to normalize without a diagnostic.

use super::gen_common::{PROSE, Rng, cut, lit, output_size, sessions, text, timestamp};

pub(crate) mod typed;

/// The block kinds a generated stream yields, every one of them.
pub(crate) const KINDS: &[&str] = &["text", "tool_use", "command", "tool_result"];

const MODEL: &str = "gemini-2.5-pro";

/// One session's worth of state while writing it.
struct Session<'a> {
    rng: &'a mut Rng,
    out: &'a mut Vec<u8>,
    /// Milliseconds since the session started, for timestamps and tool ids.
    clock: usize,
}

impl Session<'_> {
    /// Starts a line of type `kind` with its timestamp; the caller adds the rest and `}`.
    fn open(&mut self, kind: &str) -> String {
        self.clock += self.rng.range(1, 900);
        let ms = self.clock;
        format!("{{\"type\":\"{kind}\",\"timestamp\":\"{}\"", timestamp(ms))
    }

    fn line(&mut self, body: &str) {
        self.out.extend_from_slice(body.as_bytes());
        self.out.extend_from_slice(b"}\n");
    }

    fn deltas(&mut self, said: &str) {
        let mut rest = said;
        while !rest.is_empty() {
            let (piece, tail) = rest.split_at(cut(self.rng, rest, 8, 60));
            rest = tail;
            let head = self.open("message");
            self.line(&format!(
                "{head},\"role\":\"assistant\",\"content\":{},\"delta\":true",
                lit(piece)
            ));
        }
    }

    /// A `tool_use` line; the call's id.
    fn tool_use(&mut self, shell: bool) -> String {
        let name = if shell {
            "run_shell_command"
        } else {
            "read_file"
        };
        let id = format!(
            "{name}-{}-{}",
            1_778_749_334_015 + self.clock,
            self.rng.hex(13)
        );
        let path = format!("/home/dev/src/axt/src/{}.rs", self.rng.pick(PROSE));
        let parameters = if shell {
            format!(
                "{{\"command\":{},\"description\":\"Run the tests\"}}",
                lit(&format!("cargo test --quiet {} 2>&1", self.rng.pick(PROSE)))
            )
        } else {
            format!("{{\"absolute_path\":{}}}", lit(&path))
        };
        let head = self.open("tool_use");
        self.line(&format!(
            "{head},\"tool_name\":\"{name}\",\"tool_id\":\"{id}\",\"parameters\":{parameters}"
        ));
        id
    }

    fn tool_result(&mut self, id: &str) {
        let head = self.open("tool_result");
        if self.rng.chance(8) {
            let len = self.rng.range(40, 400);
            let message = lit(&text(self.rng, len));
            self.line(&format!(
                "{head},\"tool_id\":\"{id}\",\"status\":\"error\",\"error\":{{\"type\":\"execution_failed\",\"message\":{message}}}"
            ));
        } else {
            let size = output_size(self.rng);
            let output = lit(&text(self.rng, size));
            self.line(&format!(
                "{head},\"tool_id\":\"{id}\",\"status\":\"success\",\"output\":{output}"
            ));
        }
    }

    fn result(&mut self, tool_calls: usize) {
        let input = self.rng.range(5000, 90000);
        let cached = input * 3 / 4;
        let output = self.rng.range(20, 4000);
        let total = input + output;
        let uncached = input - cached;
        let counts = format!(
            "\"total_tokens\":{total},\"input_tokens\":{input},\"output_tokens\":{output},\"cached\":{cached},\"input\":{uncached}"
        );
        let head = self.open("result");
        let duration = self.clock;
        self.line(&format!(
            "{head},\"status\":\"success\",\"stats\":{{{counts},\"duration_ms\":{duration},\"tool_calls\":{tool_calls},\"models\":{{\"{MODEL}\":{{{counts}}}}}}}"
        ));
    }
}

/// Gemini CLI stream-json of at least `bytes` bytes (whole sessions), from `seed`.
pub(crate) fn gemini_stream(bytes: usize, seed: u64) -> Vec<u8> {
    sessions(bytes, seed, |rng, out| {
        let id = rng.uuid();
        let mut session = Session { rng, out, clock: 0 };
        let head = session.open("init");
        session.line(&format!(
            "{head},\"session_id\":\"{id}\",\"model\":\"{MODEL}\""
        ));
        let len = session.rng.range(20, 400);
        let prompt = lit(&text(session.rng, len));
        let head = session.open("message");
        session.line(&format!("{head},\"role\":\"user\",\"content\":{prompt}"));
        let rounds = session.rng.range(2, 20);
        let mut tool_calls = 0;
        for round in 1..=rounds {
            let len = session.rng.range(40, 3000);
            let said = text(session.rng, len);
            session.deltas(&said);
            let calls = if round == rounds {
                0
            } else {
                session.rng.range(0, 3)
            };
            let ids: Vec<String> = (0..calls)
                .map(|_| {
                    let shell = session.rng.chance(60);
                    session.tool_use(shell)
                })
                .collect();
            for id in &ids {
                session.tool_result(id);
            }
            tool_calls += calls;
        }
        session.result(tool_calls);
    })
}
