//! A deterministic generator of realistic Bedrock Converse traffic, for benchmarks: what an
//! agent loop sends and receives, request bodies and each response's `ConverseStream` events
//! as JSON lines (boto3's decoded events, saved one a line; the binary framing's own cost is
//! the event-stream framing's, measured by its fuzz target and tests, not here).
//!
//! Each session starts with a request (system prompt, the user's prompt, two tools), then
//! 2-10 rounds, each a streamed message: reasoning (60%) in deltas of 8-60 bytes and its
//! signature, text (40-3000 B in deltas of 8-60 bytes, the many small events), 0-3 `toolUse`
//! blocks (`bash` 60%, `read_file` 40%) whose input comes in two deltas, `messageStop` and
//! `metadata` with usage and latency. A round with calls is followed by the next request,
//! which repeats the whole conversation and adds one `toolResult` per call (output from the
//! tool-output size mix). The last round has no calls.
//!
//! Shares its PRNG and text with the other generators (`gen_common`); checked by
//! `tests/axt/bench_stream.rs` to normalize without a diagnostic.

use super::gen_common::{ApiConversation, PROSE, Rng, api_rounds, cut, lit, sessions, text};

pub(crate) mod typed;

/// The block kinds a generated stream yields, every one of them.
pub(crate) const KINDS: &[&str] = &["thinking", "text", "tool_use", "command", "tool_result"];

struct Session<'a> {
    rng: &'a mut Rng,
    out: &'a mut Vec<u8>,
    /// The conversation so far, each message as its JSON.
    history: Vec<String>,
}

impl Session<'_> {
    fn line(&mut self, line: &str) {
        self.out.extend_from_slice(line.as_bytes());
        self.out.push(b'\n');
    }

    /// The request that asks for the next message: the whole conversation so far.
    fn request(&mut self) {
        let body = format!(
            "{{\"modelId\":\"anthropic.claude-sonnet-4-5-20250929-v1:0\",\"messages\":[{}],\"system\":[{{\"text\":{}}}],\"toolConfig\":{{\"tools\":[{{\"toolSpec\":{{\"name\":\"bash\",\"inputSchema\":{{\"json\":{{\"type\":\"object\"}}}}}}}},{{\"toolSpec\":{{\"name\":\"read_file\",\"inputSchema\":{{\"json\":{{\"type\":\"object\"}}}}}}}}]}}}}",
            self.history.join(","),
            lit("You are a careful coding agent.")
        );
        self.line(&body);
    }

    /// Text in deltas of 8-60 bytes of block `index`, `wrap` making each delta's JSON.
    fn deltas(&mut self, index: usize, said: &str, wrap: fn(&str) -> String) {
        let mut rest = said;
        while !rest.is_empty() {
            let (piece, tail) = rest.split_at(cut(self.rng, rest, 8, 60));
            rest = tail;
            let line = format!(
                "{{\"contentBlockDelta\":{{\"contentBlockIndex\":{index},\"delta\":{}}}}}",
                wrap(&lit(piece))
            );
            self.line(&line);
        }
    }

    fn stop(&mut self, index: usize) {
        self.line(&format!(
            "{{\"contentBlockStop\":{{\"contentBlockIndex\":{index}}}}}"
        ));
    }

    /// One streamed message; the calls it made (id, name). Its content joins the history.
    fn message(&mut self, calls: usize) -> Vec<String> {
        self.line("{\"messageStart\":{\"role\":\"assistant\"}}");
        let mut content = Vec::new();
        let mut index = 0;
        if self.rng.chance(60) {
            let len = self.rng.range(40, 600);
            let thought = text(self.rng, len);
            self.deltas(index, &thought, |t| {
                format!("{{\"reasoningContent\":{{\"text\":{t}}}}}")
            });
            let signature = self.rng.base62(160);
            self.line(&format!(
                "{{\"contentBlockDelta\":{{\"contentBlockIndex\":{index},\"delta\":{{\"reasoningContent\":{{\"signature\":\"{signature}\"}}}}}}}}"
            ));
            self.stop(index);
            content.push(format!(
                "{{\"reasoningContent\":{{\"reasoningText\":{{\"text\":{},\"signature\":\"{signature}\"}}}}}}",
                lit(&thought)
            ));
            index += 1;
        }
        let len = self.rng.range(40, 3000);
        let said = text(self.rng, len);
        self.deltas(index, &said, |t| format!("{{\"text\":{t}}}"));
        self.stop(index);
        content.push(format!("{{\"text\":{}}}", lit(&said)));
        let mut made = Vec::new();
        for _ in 0..calls {
            index += 1;
            let call_id = format!("tooluse_{}", self.rng.base62(22));
            let (name, input) = if self.rng.chance(60) {
                let command = format!("cargo test --quiet {} 2>&1", self.rng.pick(PROSE));
                ("bash", format!("{{\"command\": {}}}", lit(&command)))
            } else {
                let path = format!("src/{}.rs", self.rng.pick(PROSE));
                ("read_file", format!("{{\"path\": {}}}", lit(&path)))
            };
            self.line(&format!(
                "{{\"contentBlockStart\":{{\"contentBlockIndex\":{index},\"start\":{{\"toolUse\":{{\"toolUseId\":\"{call_id}\",\"name\":\"{name}\"}}}}}}}}"
            ));
            let (head, tail) = input.split_at(input.len() / 2);
            for piece in [head, tail] {
                self.line(&format!(
                    "{{\"contentBlockDelta\":{{\"contentBlockIndex\":{index},\"delta\":{{\"toolUse\":{{\"input\":{}}}}}}}}}",
                    lit(piece)
                ));
            }
            self.stop(index);
            content.push(format!(
                "{{\"toolUse\":{{\"toolUseId\":\"{call_id}\",\"name\":\"{name}\",\"input\":{input}}}}}"
            ));
            made.push(call_id);
        }
        let stop = if calls > 0 { "tool_use" } else { "end_turn" };
        self.line(&format!(
            "{{\"messageStop\":{{\"stopReason\":\"{stop}\"}}}}"
        ));
        let input = self.rng.range(2000, 90000);
        let cached = self.rng.range(0, input);
        let output = self.rng.range(20, 4000);
        let latency = self.rng.range(300, 9000);
        self.line(&format!(
            "{{\"metadata\":{{\"usage\":{{\"inputTokens\":{input},\"outputTokens\":{output},\"cacheReadInputTokens\":{cached},\"cacheWriteInputTokens\":0,\"totalTokens\":{}}},\"metrics\":{{\"latencyMs\":{latency}}}}}}}",
            input + output + cached
        ));
        self.history.push(format!(
            "{{\"role\":\"assistant\",\"content\":[{}]}}",
            content.join(",")
        ));
        made
    }
}

impl ApiConversation for Session<'_> {
    type Call = String;

    fn rng(&mut self) -> &mut Rng {
        self.rng
    }

    fn request(&mut self) {
        Session::request(self);
    }

    fn response(&mut self, calls: usize) -> Vec<String> {
        self.message(calls)
    }

    fn user_text(&mut self, text: &str) {
        (self.history).push(format!(
            "{{\"role\":\"user\",\"content\":[{{\"text\":{text}}}]}}"
        ));
    }

    fn user_results(&mut self, results: Vec<(String, String)>) {
        let results: Vec<String> = (results.into_iter())
            .map(|(call_id, output)| format!("{{\"toolResult\":{{\"toolUseId\":\"{call_id}\",\"content\":[{{\"text\":{output}}}],\"status\":\"success\"}}}}"))
            .collect();
        (self.history).push(format!(
            "{{\"role\":\"user\",\"content\":[{}]}}",
            results.join(",")
        ));
    }
}

/// Bedrock Converse traffic of at least `bytes` bytes (whole sessions), from `seed`.
pub(crate) fn bedrock_stream(bytes: usize, seed: u64) -> Vec<u8> {
    sessions(bytes, seed, |rng, out| {
        let len = rng.range(20, 400);
        let prompt = lit(&text(rng, len));
        let history = vec![format!(
            "{{\"role\":\"user\",\"content\":[{{\"text\":{prompt}}}]}}"
        )];
        api_rounds(&mut Session { rng, out, history });
    })
}
