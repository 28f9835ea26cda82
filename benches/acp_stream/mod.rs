//! A deterministic generator of a realistic captured ACP exchange (JSON-RPC, both
//! directions), for benchmarks.
//!
//! Each session is one connection as a client records it: `initialize` and its response
//! (agent `gemini-cli`), `session/new` and its session id, one `session/prompt`, then 2-20
//! rounds: a thought (0-3 `agent_thought_chunk` lines, 40% of rounds), the assistant's text
//! (40-3000 B) as `agent_message_chunk` lines of 8-60 bytes each (the many small lines), then
//! 0-3 tool calls, each a `tool_call` (`execute` 60%, `read` 40%, with its `rawInput`), a
//! `session/request_permission` and the client's answer for 30% of the shell calls, a
//! `tool_call_update` to `in_progress` and one to `completed` (8% `failed`) with the output
//! (from the tool-output size mix) as content. The last round has no tool calls; a
//! `usage_update` and the prompt's response (`end_turn`) end the session.
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
    session: String,
    /// The agent's next request id (the client's are fixed: 0, 1, 2).
    agent_id: usize,
}

impl Session<'_> {
    fn line(&mut self, body: &str) {
        self.out.extend_from_slice(body.as_bytes());
        self.out.push(b'\n');
    }

    fn update(&mut self, update: &str) {
        let session = self.session.clone();
        self.line(&format!(
            "{{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{{\"sessionId\":\"{session}\",\"update\":{{{update}}}}}}}"
        ));
    }

    fn chunks(&mut self, kind: &str, said: &str) {
        let mut rest = said;
        while !rest.is_empty() {
            let (piece, tail) = rest.split_at(cut(self.rng, rest, 8, 60));
            rest = tail;
            let content = lit(piece);
            self.update(&format!(
                "\"sessionUpdate\":\"{kind}\",\"content\":{{\"type\":\"text\",\"text\":{content}}}"
            ));
        }
    }

    fn tool_call(&mut self) {
        let shell = self.rng.chance(60);
        let id = format!("call_{}", self.rng.base62(24));
        let (kind, title, input) = if shell {
            let command = format!("cargo test --quiet {} 2>&1", self.rng.pick(PROSE));
            let input = format!(
                "{{\"command\":{},\"description\":\"Run the tests\"}}",
                lit(&command)
            );
            ("execute", command, input)
        } else {
            let path = format!("/home/dev/src/axt/src/{}.rs", self.rng.pick(PROSE));
            let input = format!("{{\"absolute_path\":{}}}", lit(&path));
            ("read", format!("ReadFile {path}"), input)
        };
        let title = lit(&title);
        self.update(&format!(
            "\"sessionUpdate\":\"tool_call\",\"toolCallId\":\"{id}\",\"status\":\"pending\",\"title\":{title},\"content\":[],\"locations\":[],\"kind\":\"{kind}\",\"rawInput\":{input}"
        ));
        if shell && self.rng.chance(30) {
            let request = self.agent_id;
            self.agent_id += 1;
            let session = self.session.clone();
            self.line(&format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{request},\"method\":\"session/request_permission\",\"params\":{{\"sessionId\":\"{session}\",\"options\":[{{\"optionId\":\"proceed_once\",\"name\":\"Allow\",\"kind\":\"allow_once\"}},{{\"optionId\":\"cancel\",\"name\":\"Reject\",\"kind\":\"reject_once\"}}],\"toolCall\":{{\"toolCallId\":\"{id}\",\"status\":\"pending\",\"title\":{title},\"kind\":\"{kind}\"}}}}}}"
            ));
            self.line(&format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{request},\"result\":{{\"outcome\":{{\"outcome\":\"selected\",\"optionId\":\"proceed_once\"}}}}}}"
            ));
        }
        self.update(&format!(
            "\"sessionUpdate\":\"tool_call_update\",\"toolCallId\":\"{id}\",\"status\":\"in_progress\""
        ));
        let status = if self.rng.chance(8) {
            "failed"
        } else {
            "completed"
        };
        let size = output_size(self.rng);
        let output = lit(&text(self.rng, size));
        self.update(&format!(
            "\"sessionUpdate\":\"tool_call_update\",\"toolCallId\":\"{id}\",\"status\":\"{status}\",\"content\":[{{\"type\":\"content\",\"content\":{{\"type\":\"text\",\"text\":{output}}}}}]"
        ));
    }
}

/// A captured ACP exchange of at least `bytes` bytes (whole sessions), from `seed`.
pub(crate) fn acp_stream(bytes: usize, seed: u64) -> Vec<u8> {
    sessions(bytes, seed, |rng, out| {
        let session = rng.uuid();
        let mut s = Session {
            rng,
            out,
            session: session.clone(),
            agent_id: 0,
        };
        s.line("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":1,\"clientCapabilities\":{\"fs\":{\"readTextFile\":true,\"writeTextFile\":true},\"terminal\":true},\"clientInfo\":{\"name\":\"axt\",\"version\":\"0.1.0\"}}}");
        s.line("{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":1,\"agentCapabilities\":{\"loadSession\":true},\"authMethods\":[],\"agentInfo\":{\"name\":\"gemini-cli\",\"version\":\"0.56.0\"}}}");
        s.line("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/new\",\"params\":{\"cwd\":\"/home/dev/src/axt\",\"mcpServers\":[]}}");
        s.line(&format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"sessionId\":\"{session}\"}}}}"
        ));
        let len = s.rng.range(20, 400);
        let prompt = lit(&text(s.rng, len));
        s.line(&format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/prompt\",\"params\":{{\"sessionId\":\"{session}\",\"prompt\":[{{\"type\":\"text\",\"text\":{prompt}}}]}}}}"
        ));
        let rounds = s.rng.range(2, 20);
        for round in 1..=rounds {
            if s.rng.chance(40) {
                let len = s.rng.range(40, 600);
                let thought = text(s.rng, len);
                s.chunks("agent_thought_chunk", &thought);
            }
            let len = s.rng.range(40, 3000);
            let said = text(s.rng, len);
            s.chunks("agent_message_chunk", &said);
            let calls = if round == rounds {
                0
            } else {
                s.rng.range(0, 3)
            };
            for _ in 0..calls {
                s.tool_call();
            }
        }
        let used = s.rng.range(5000, 90000);
        s.update(&format!(
            "\"sessionUpdate\":\"usage_update\",\"used\":{used},\"size\":1048576"
        ));
        s.line("{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"stopReason\":\"end_turn\"}}");
    })
}
