//! A deterministic generator of realistic pi `-p --mode json`, for benchmarks.
//!
//! Each session is a `session` header, `agent_start`, the user's prompt, then 2-12 turns.
//! A turn streams one assistant message as pi does: `message_start` (empty), a thinking block
//! (30% of turns) and a text block (40-3000 B), each as 2-8 `message_update` deltas whose
//! `message` is the snapshot so far (pi repeats the whole message in every update), then
//! 0-3 `toolCall`s (`bash` 60%, `read` 40%) each with its `toolcall_end`, the whole
//! `message_end` with usage and cost; then per call `tool_execution_start`, `_update`,
//! `_end` and the `toolResult` message (output from the tool-output size mix, 8% errors);
//! and the `turn_end` repeating the message (`toolUse` while tools ran, `stop` for the last
//! turn, which has none). Messages carry millisecond timestamps.
//!
//! Shares its PRNG and text with the other generators (`gen_common`); checked by
//! `tests/axt/bench_stream.rs` to normalize without a diagnostic.

use super::gen_common::{PROSE, Rng, cut, lit, output_size, sessions, text};

pub(crate) mod typed;

/// The block kinds a generated stream yields, every one of them.
pub(crate) const KINDS: &[&str] = &["thinking", "text", "tool_use", "command", "tool_result"];

/// One session's worth of state while writing it.
struct Session<'a> {
    rng: &'a mut Rng,
    out: &'a mut Vec<u8>,
    clock: usize,
}

impl Session<'_> {
    fn line(&mut self, line: &str) {
        self.out.extend_from_slice(line.as_bytes());
        self.out.push(b'\n');
    }

    fn time(&mut self) -> usize {
        self.clock += self.rng.range(1, 900);
        1_770_259_166_905 + self.clock
    }

    /// An assistant message whose content so far is `blocks` (JSON objects, joined).
    fn assistant(&mut self, blocks: &[String], usage: &str, stop: &str, time: usize) -> String {
        format!(
            "{{\"role\":\"assistant\",\"content\":[{}],\"api\":\"anthropic-messages\",\"provider\":\"anthropic\",\"model\":\"claude-sonnet-4-5\",\"usage\":{usage},\"stopReason\":\"{stop}\",\"timestamp\":{time}}}",
            blocks.join(",")
        )
    }

    /// A text or thinking block streamed as deltas after the blocks `done`; returns it.
    fn streamed(
        &mut self,
        done: &[String],
        kind: &str,
        field: &str,
        said: &str,
        time: usize,
    ) -> String {
        let index = done.len();
        let zero = ZERO_USAGE;
        let mut at = 0;
        while at < said.len() {
            let step = cut(
                self.rng,
                &said[at..],
                said.len() / 8 + 1,
                said.len() / 2 + 1,
            );
            let delta = &said[at..at + step];
            at += step;
            let mut blocks = done.to_vec();
            blocks.push(format!(
                "{{\"type\":\"{kind}\",\"{field}\":{}}}",
                lit(&said[..at])
            ));
            let snapshot = self.assistant(&blocks, zero, "stop", time);
            self.line(&format!(
                "{{\"type\":\"message_update\",\"assistantMessageEvent\":{{\"type\":\"{kind}_delta\",\"contentIndex\":{index},\"delta\":{}}},\"message\":{snapshot}}}",
                lit(delta)
            ));
        }
        format!("{{\"type\":\"{kind}\",\"{field}\":{}}}", lit(said))
    }
}

const ZERO_USAGE: &str = "{\"input\":0,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0,\"totalTokens\":0,\"cost\":{\"input\":0,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0,\"total\":0}}";

/// pi `-p --mode json` of at least `bytes` bytes (whole sessions), from `seed`.
pub(crate) fn pi_stream(bytes: usize, seed: u64) -> Vec<u8> {
    sessions(bytes, seed, |rng, out| {
        let mut s = Session { rng, out, clock: 0 };
        let id = s.rng.uuid();
        s.line(&format!(
            "{{\"type\":\"session\",\"version\":3,\"id\":\"{id}\",\"timestamp\":\"2026-02-05T02:39:26.125Z\",\"cwd\":\"/home/dev/src/axt\"}}"
        ));
        s.line("{\"type\":\"agent_start\"}");
        s.line("{\"type\":\"turn_start\"}");
        let len = s.rng.range(20, 400);
        let prompt = lit(&text(s.rng, len));
        let time = s.time();
        let user = format!(
            "{{\"role\":\"user\",\"content\":[{{\"type\":\"text\",\"text\":{prompt}}}],\"timestamp\":{time}}}"
        );
        s.line(&format!(
            "{{\"type\":\"message_start\",\"message\":{user}}}"
        ));
        s.line(&format!("{{\"type\":\"message_end\",\"message\":{user}}}"));
        let turns = s.rng.range(2, 12);
        for turn in 1..=turns {
            if turn > 1 {
                s.line("{\"type\":\"turn_start\"}");
            }
            let time = s.time();
            let empty = s.assistant(&[], ZERO_USAGE, "stop", time);
            s.line(&format!(
                "{{\"type\":\"message_start\",\"message\":{empty}}}"
            ));
            let mut blocks = Vec::new();
            if s.rng.chance(30) {
                let len = s.rng.range(40, 600);
                let thought = text(s.rng, len);
                let block = s.streamed(&blocks, "thinking", "thinking", &thought, time);
                blocks.push(block);
            }
            let len = s.rng.range(40, 3000);
            let said = text(s.rng, len);
            let block = s.streamed(&blocks, "text", "text", &said, time);
            blocks.push(block);
            let calls = if turn == turns { 0 } else { s.rng.range(1, 3) };
            let mut tools = Vec::new();
            for _ in 0..calls {
                let id = format!("toolu_01{}", s.rng.base62(22));
                let (name, args) = if s.rng.chance(60) {
                    let command = format!("cargo test --quiet {} 2>&1", s.rng.pick(PROSE));
                    ("bash", format!("{{\"command\":{}}}", lit(&command)))
                } else {
                    let path = format!("src/{}.rs", s.rng.pick(PROSE));
                    ("read", format!("{{\"path\":{}}}", lit(&path)))
                };
                let call = format!(
                    "{{\"type\":\"toolCall\",\"id\":\"{id}\",\"name\":\"{name}\",\"arguments\":{args}}}"
                );
                blocks.push(call.clone());
                let snapshot = s.assistant(&blocks, ZERO_USAGE, "stop", time);
                let index = blocks.len() - 1;
                s.line(&format!("{{\"type\":\"message_update\",\"assistantMessageEvent\":{{\"type\":\"toolcall_end\",\"contentIndex\":{index},\"toolCall\":{call}}},\"message\":{snapshot}}}"));
                tools.push((id, name, args));
            }
            let (input, output, read) = (
                s.rng.range(1, 40),
                s.rng.range(8, 900),
                s.rng.range(500, 30000),
            );
            let usage = format!(
                "{{\"input\":{input},\"output\":{output},\"cacheRead\":{read},\"cacheWrite\":0,\"totalTokens\":{},\"cost\":{{\"input\":0,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0,\"total\":0.0042}}}}",
                input + output + read
            );
            let stop = if calls > 0 { "toolUse" } else { "stop" };
            let whole = s.assistant(&blocks, &usage, stop, time);
            s.line(&format!("{{\"type\":\"message_end\",\"message\":{whole}}}"));
            let mut results = Vec::new();
            for (id, name, args) in tools {
                let size = output_size(s.rng);
                let output = lit(&text(s.rng, size));
                let error = s.rng.chance(8);
                let result = format!(
                    "{{\"content\":[{{\"type\":\"text\",\"text\":{output}}}],\"details\":{{}}}}"
                );
                s.line(&format!("{{\"type\":\"tool_execution_start\",\"toolCallId\":\"{id}\",\"toolName\":\"{name}\",\"args\":{args}}}"));
                s.line(&format!("{{\"type\":\"tool_execution_update\",\"toolCallId\":\"{id}\",\"toolName\":\"{name}\",\"args\":{args},\"partialResult\":{result}}}"));
                s.line(&format!("{{\"type\":\"tool_execution_end\",\"toolCallId\":\"{id}\",\"toolName\":\"{name}\",\"result\":{result},\"isError\":{error}}}"));
                let time = s.time();
                let message = format!(
                    "{{\"role\":\"toolResult\",\"toolCallId\":\"{id}\",\"toolName\":\"{name}\",\"content\":[{{\"type\":\"text\",\"text\":{output}}}],\"isError\":{error},\"timestamp\":{time}}}"
                );
                s.line(&format!(
                    "{{\"type\":\"message_start\",\"message\":{message}}}"
                ));
                s.line(&format!(
                    "{{\"type\":\"message_end\",\"message\":{message}}}"
                ));
                results.push(message);
            }
            s.line(&format!(
                "{{\"type\":\"turn_end\",\"message\":{whole},\"toolResults\":[{}]}}",
                results.join(",")
            ));
        }
    })
}
