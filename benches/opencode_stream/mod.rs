//! A deterministic generator of realistic OpenCode `run --format json`, for benchmarks.
//!
//! Each session is 2-20 steps: a `step_start`, a `reasoning` part (40% of steps), the
//! assistant's `text` part (40-3000 B, whole: OpenCode prints a text once it is complete),
//! then 0-3 `tool_use` parts (`bash` 60%, `read` 40%, each the call and its output from the
//! tool-output size mix; 8% `error`), and a `step_finish` with tokens and cost (`tool-calls`
//! when tools ran, `stop` for the last step, which has none). Every event carries a
//! millisecond `timestamp`.
//!
//! Shares its PRNG and text with the other generators (`gen_common`); checked by
//! `tests/axt/bench_stream.rs` to normalize without a diagnostic.

use super::gen_common::{PROSE, Rng, lit, output_size, sessions, text};

pub(crate) mod typed;

/// The block kinds a generated stream yields, every one of them.
pub(crate) const KINDS: &[&str] = &["thinking", "text", "tool_use", "command", "tool_result"];

/// One session's worth of state while writing it.
struct Session<'a> {
    rng: &'a mut Rng,
    out: &'a mut Vec<u8>,
    session: String,
    clock: usize,
}

impl Session<'_> {
    fn event(&mut self, kind: &str, part: &str) {
        self.clock += self.rng.range(1, 900);
        let time = 1_767_036_059_338 + self.clock;
        let session = self.session.clone();
        let line = format!(
            "{{\"type\":\"{kind}\",\"timestamp\":{time},\"sessionID\":\"{session}\",\"part\":{{\"id\":\"prt_{}\",\"sessionID\":\"{session}\",{part}}}}}\n",
            self.rng.base62(26)
        );
        self.out.extend_from_slice(line.as_bytes());
    }

    fn tool(&mut self, message: &str) {
        let shell = self.rng.chance(60);
        let call = self.rng.base62(16);
        let (tool, input) = if shell {
            let command = format!("cargo test --quiet {} 2>&1", self.rng.pick(PROSE));
            (
                "bash",
                format!(
                    "{{\"command\":{},\"description\":\"Run the tests\"}}",
                    lit(&command)
                ),
            )
        } else {
            let path = format!("/home/dev/src/axt/src/{}.rs", self.rng.pick(PROSE));
            ("read", format!("{{\"filePath\":{}}}", lit(&path)))
        };
        let size = output_size(self.rng);
        let output = lit(&text(self.rng, size));
        let state = if self.rng.chance(8) {
            format!(
                "{{\"status\":\"error\",\"input\":{input},\"error\":{output},\"time\":{{\"start\":1,\"end\":2}}}}"
            )
        } else {
            format!(
                "{{\"status\":\"completed\",\"input\":{input},\"output\":{output},\"title\":\"{tool}\",\"metadata\":{{\"exit\":0}},\"time\":{{\"start\":1,\"end\":2}}}}"
            )
        };
        self.event(
            "tool_use",
            &format!("\"messageID\":\"{message}\",\"type\":\"tool\",\"callID\":\"{call}\",\"tool\":\"{tool}\",\"state\":{state}"),
        );
    }
}

/// OpenCode `run --format json` of at least `bytes` bytes (whole sessions), from `seed`.
pub(crate) fn opencode_stream(bytes: usize, seed: u64) -> Vec<u8> {
    sessions(bytes, seed, |rng, out| {
        let session = format!("ses_{}", rng.base62(26));
        let mut s = Session {
            rng,
            out,
            session,
            clock: 0,
        };
        let steps = s.rng.range(2, 20);
        for step in 1..=steps {
            let message = format!("msg_{}", s.rng.base62(26));
            let snapshot = s.rng.hex(40);
            s.event("step_start", &format!("\"messageID\":\"{message}\",\"type\":\"step-start\",\"snapshot\":\"{snapshot}\""));
            if s.rng.chance(40) {
                let len = s.rng.range(40, 600);
                let thought = lit(&text(s.rng, len));
                s.event("reasoning", &format!("\"messageID\":\"{message}\",\"type\":\"reasoning\",\"text\":{thought},\"time\":{{\"start\":1,\"end\":2}}"));
            }
            let len = s.rng.range(40, 3000);
            let said = lit(&text(s.rng, len));
            s.event("text", &format!("\"messageID\":\"{message}\",\"type\":\"text\",\"text\":{said},\"time\":{{\"start\":1,\"end\":2}}"));
            let calls = if step == steps { 0 } else { s.rng.range(0, 3) };
            for _ in 0..calls {
                s.tool(&message);
            }
            let reason = if step == steps {
                "stop"
            } else if calls > 0 {
                "tool-calls"
            } else {
                "stop"
            };
            let reason = if step < steps && calls == 0 {
                "tool-calls"
            } else {
                reason
            };
            let input = s.rng.range(500, 30000);
            let output = s.rng.range(8, 900);
            let read = s.rng.range(0, 20000);
            let snapshot = s.rng.hex(40);
            s.event("step_finish", &format!("\"messageID\":\"{message}\",\"type\":\"step-finish\",\"reason\":\"{reason}\",\"snapshot\":\"{snapshot}\",\"cost\":0,\"tokens\":{{\"input\":{input},\"output\":{output},\"reasoning\":0,\"cache\":{{\"read\":{read},\"write\":0}}}}"));
        }
    })
}
