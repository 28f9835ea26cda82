//! A deterministic generator of realistic Copilot CLI `-p ... --output-format json` output,
//! for benchmarks.
//!
//! Each session opens with `session.mcp_servers_loaded` and `session.tools_updated`
//! (ephemeral) and the `user.message`, then has 2-20 turns between `assistant.turn_start`
//! and `assistant.turn_end`. A turn's text (40-3000 B, in 60% of the turns that call tools,
//! always in the last) first arrives as ephemeral `assistant.message_delta` lines of 8-60
//! bytes, then consolidated in `assistant.message` with 1-3 `toolRequests` (`bash` 55%,
//! `view` 45%; none in the last turn) and `reasoningText` 30% of the time. Each request is
//! announced again by `tool.execution_start` and answered by `tool.execution_complete`
//! (`result.content` from the tool-output size mix, `success:false` 8% of the time). An
//! ephemeral `session.idle` and the flat `result` line end the session. Every event has the
//! envelope `id`, `timestamp` and `parentId` (the previous event).
//!
//! Shares its PRNG and text with the other generators (`gen_common`); checked by
//! `tests/axt/bench_stream.rs` to normalize without a diagnostic.

use super::gen_common::{PROSE, Rng, cut, lit, output_size, sessions, text, timestamp};

pub(crate) mod typed;

/// The block kinds a generated stream yields, every one of them.
pub(crate) const KINDS: &[&str] = &["thinking", "text", "tool_use", "command", "tool_result"];

const MODEL: &str = "claude-sonnet-4.5";

/// One session's worth of state while writing it.
struct Session<'a> {
    rng: &'a mut Rng,
    out: &'a mut Vec<u8>,
    /// Milliseconds since the session started, for timestamps.
    clock: usize,
    /// The previous event's id, the next event's `parentId`.
    parent: String,
    interaction: String,
}

impl Session<'_> {
    /// Writes one enveloped event of type `kind` with `data` (a JSON object).
    fn event(&mut self, kind: &str, data: &str, ephemeral: bool) {
        self.clock += self.rng.range(1, 400);
        let ms = self.clock;
        let id = self.rng.uuid();
        let parent = std::mem::replace(&mut self.parent, id.clone());
        let parent = if parent.is_empty() {
            "null".to_owned()
        } else {
            format!("\"{parent}\"")
        };
        let ephemeral = if ephemeral { ",\"ephemeral\":true" } else { "" };
        let line = format!(
            "{{\"type\":\"{kind}\",\"data\":{data},\"id\":\"{id}\",\"timestamp\":\"{}\",\"parentId\":{parent}{ephemeral}}}\n",
            timestamp(ms)
        );
        self.out.extend_from_slice(line.as_bytes());
    }

    fn deltas(&mut self, message_id: &str, said: &str) {
        let mut rest = said;
        while !rest.is_empty() {
            let (piece, tail) = rest.split_at(cut(self.rng, rest, 8, 60));
            rest = tail;
            let data = format!(
                "{{\"messageId\":\"{message_id}\",\"deltaContent\":{}}}",
                lit(piece)
            );
            self.event("assistant.message_delta", &data, true);
        }
    }

    /// A tool request: its id, name and arguments.
    fn request(&mut self) -> (String, &'static str, String) {
        let id = format!("toolu_vrtx_01{}", self.rng.hex(22));
        let path = format!("/home/dev/src/axt/src/{}.rs", self.rng.pick(PROSE));
        if self.rng.chance(55) {
            let command = format!("cargo test --quiet {} 2>&1", self.rng.pick(PROSE));
            let arguments = format!(
                "{{\"command\":{},\"description\":\"Run the tests\"}}",
                lit(&command)
            );
            (id, "bash", arguments)
        } else {
            (id, "view", format!("{{\"path\":{}}}", lit(&path)))
        }
    }

    fn execute(&mut self, id: &str, name: &str, arguments: &str) {
        let data = format!(
            "{{\"toolCallId\":\"{id}\",\"toolName\":\"{name}\",\"arguments\":{arguments}}}"
        );
        self.event("tool.execution_start", &data, false);
        let size = output_size(self.rng);
        let mut output = text(self.rng, size);
        let success = !self.rng.chance(8);
        if name == "bash" {
            let code = if success { 0 } else { 1 };
            output.push_str(&format!("<exited with exit code {code}>"));
        }
        let output = lit(&output);
        let length = output.len();
        let data = format!(
            "{{\"toolCallId\":\"{id}\",\"model\":\"{MODEL}\",\"interactionId\":\"{}\",\"success\":{success},\"result\":{{\"content\":{output}}},\"toolTelemetry\":{{\"properties\":{{\"command\":\"{name}\"}},\"metrics\":{{\"resultLength\":{length}}}}}}}",
            self.interaction
        );
        self.event("tool.execution_complete", &data, false);
    }

    fn turn(&mut self, number: usize, last: bool) {
        let data = format!(
            "{{\"turnId\":\"{number}\",\"interactionId\":\"{}\"}}",
            self.interaction
        );
        self.event("assistant.turn_start", &data, false);
        let message_id = self.rng.uuid();
        let said = if last || self.rng.chance(60) {
            let len = self.rng.range(40, 3000);
            text(self.rng, len)
        } else {
            String::new()
        };
        self.deltas(&message_id, &said);
        let requests: Vec<_> = if last {
            Vec::new()
        } else {
            (0..self.rng.range(1, 3)).map(|_| self.request()).collect()
        };
        let listed: Vec<String> = requests
            .iter()
            .map(|(id, name, arguments)| {
                format!(
                    "{{\"toolCallId\":\"{id}\",\"name\":\"{name}\",\"arguments\":{arguments},\"type\":\"function\"}}"
                )
            })
            .collect();
        let reasoning = if self.rng.chance(30) {
            let len = self.rng.range(100, 1500);
            format!(",\"reasoningText\":{}", lit(&text(self.rng, len)))
        } else {
            String::new()
        };
        let data = format!(
            "{{\"messageId\":\"{message_id}\",\"content\":{},\"toolRequests\":[{}]{reasoning},\"interactionId\":\"{}\",\"outputTokens\":{}}}",
            lit(&said),
            listed.join(","),
            self.interaction,
            self.rng.range(5, 3000)
        );
        self.event("assistant.message", &data, false);
        for (id, name, arguments) in &requests {
            self.execute(id, name, arguments);
        }
        self.event(
            "assistant.turn_end",
            &format!("{{\"turnId\":\"{number}\"}}"),
            false,
        );
    }
}

/// Copilot CLI JSONL of at least `bytes` bytes (whole sessions), from `seed`.
pub(crate) fn copilot_stream(bytes: usize, seed: u64) -> Vec<u8> {
    sessions(bytes, seed, |rng, out| {
        let interaction = rng.uuid();
        let mut session = Session {
            rng,
            out,
            clock: 0,
            parent: String::new(),
            interaction,
        };
        session.event(
                "session.mcp_servers_loaded",
                "{\"servers\":[{\"name\":\"github-mcp-server\",\"status\":\"connected\",\"source\":\"builtin\"}]}",
                true,
            );
        session.event(
            "session.tools_updated",
            &format!("{{\"model\":\"{MODEL}\"}}"),
            true,
        );
        let len = session.rng.range(20, 400);
        let prompt = lit(&text(session.rng, len));
        let data = format!(
            "{{\"content\":{prompt},\"transformedContent\":{prompt},\"attachments\":[],\"agentMode\":\"interactive\",\"interactionId\":\"{}\"}}",
            session.interaction
        );
        session.event("user.message", &data, false);
        let turns = session.rng.range(2, 20);
        for number in 0..turns {
            session.turn(number, number + 1 == turns);
        }
        session.event("session.idle", "{}", true);
        let session_id = session.rng.uuid();
        let line = format!(
            "{{\"type\":\"result\",\"timestamp\":\"{}\",\"sessionId\":\"{session_id}\",\"exitCode\":0,\"usage\":{{\"premiumRequests\":{},\"totalApiDurationMs\":{},\"sessionDurationMs\":{},\"codeChanges\":{{\"linesAdded\":0,\"linesRemoved\":0,\"filesModified\":[]}}}}}}\n",
            timestamp(session.clock + 30),
            session.rng.range(1, 9),
            session.clock / 2,
            session.clock
        );
        session.out.extend_from_slice(line.as_bytes());
    })
}
