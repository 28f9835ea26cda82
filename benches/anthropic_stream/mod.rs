//! A deterministic generator of realistic Anthropic Messages API traffic, for benchmarks:
//! what an agent loop sends and receives, request bodies as JSON lines and each response as
//! its raw SSE stream.
//!
//! Each session starts with a request body (system prompt, the user's prompt, two tools),
//! then 2-10 rounds, each a streamed response: `message_start` with usage (cache reads and
//! writes), a `ping`, a thinking block (60%) whose text arrives as `thinking_delta`s (8-60 B)
//! then its `signature_delta`, a text block (40-3000 B) as `text_delta`s of 8-60 bytes (the
//! many small events), 0-3 `tool_use` blocks (`bash` 60%, `read_file` 40%) whose input
//! arrives as `input_json_delta`s, and `message_delta` (stop reason, cumulative usage) and
//! `message_stop`. A round with calls is followed by the next request, which repeats the
//! whole conversation, as the API requires, and adds one `tool_result` per call (output from
//! the tool-output size mix). The last round has no calls.
//!
//! Shares its PRNG and text with the other generators (`gen_common`); checked by
//! `tests/axt/bench_stream.rs` to normalize without a diagnostic.

use super::gen_common::{ApiConversation, PROSE, Rng, api_rounds, cut, lit, sessions, text};

pub(crate) mod typed;

/// The block kinds a generated stream yields, every one of them.
pub(crate) const KINDS: &[&str] = &["thinking", "text", "tool_use", "command", "tool_result"];

const MODEL: &str = "claude-sonnet-4-5-20250929";

struct Session<'a> {
    rng: &'a mut Rng,
    out: &'a mut Vec<u8>,
    /// The conversation so far, each message as its JSON.
    history: Vec<String>,
}

impl Session<'_> {
    /// One SSE event: `event: <kind>` and its data, `fields` being the JSON after `type`.
    fn event(&mut self, kind: &str, fields: &str) {
        self.out.extend_from_slice(b"event: ");
        self.out.extend_from_slice(kind.as_bytes());
        self.out.extend_from_slice(b"\ndata: {\"type\":\"");
        self.out.extend_from_slice(kind.as_bytes());
        self.out.extend_from_slice(b"\"");
        self.out.extend_from_slice(fields.as_bytes());
        self.out.extend_from_slice(b"}\n\n");
    }

    /// The request that asks for the next response: the whole conversation so far.
    fn request(&mut self) {
        let body = format!(
            "{{\"model\":\"{MODEL}\",\"max_tokens\":8192,\"stream\":true,\"system\":{},\"tools\":[{{\"name\":\"bash\",\"input_schema\":{{\"type\":\"object\"}}}},{{\"name\":\"read_file\",\"input_schema\":{{\"type\":\"object\"}}}}],\"messages\":[{}]}}",
            lit("You are a careful coding agent."),
            self.history.join(",")
        );
        self.out.extend_from_slice(body.as_bytes());
        self.out.push(b'\n');
    }

    /// `kind` deltas of `said` for block `index`, `field` naming the delta's text.
    fn deltas(&mut self, kind: &str, field: &str, index: usize, said: &str) {
        let mut rest = said;
        while !rest.is_empty() {
            let (piece, tail) = rest.split_at(cut(self.rng, rest, 8, 60));
            rest = tail;
            let fields = format!(
                ",\"index\":{index},\"delta\":{{\"type\":\"{kind}\",\"{field}\":{}}}",
                lit(piece)
            );
            self.event("content_block_delta", &fields);
        }
    }

    /// One streamed response; the call ids it made. Its message joins the history.
    fn response(&mut self, calls: usize) -> Vec<String> {
        let id = format!("msg_01{}", self.rng.base62(22));
        let (input, read) = (self.rng.range(10, 4000), self.rng.range(5000, 90000));
        let write = self.rng.range(0, 3000);
        let usage = format!(
            "\"input_tokens\":{input},\"cache_creation_input_tokens\":{write},\"cache_read_input_tokens\":{read}"
        );
        self.event(
            "message_start",
            &format!(",\"message\":{{\"id\":\"{id}\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"{MODEL}\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{{{usage},\"output_tokens\":1}}}}"),
        );
        self.event("ping", "");
        let mut content = Vec::new();
        let mut index = 0;
        if self.rng.chance(60) {
            let len = self.rng.range(40, 600);
            let thought = text(self.rng, len);
            self.event(
                "content_block_start",
                &format!(",\"index\":{index},\"content_block\":{{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}}"),
            );
            self.deltas("thinking_delta", "thinking", index, &thought);
            let signature = self.rng.base62(120);
            self.event(
                "content_block_delta",
                &format!(",\"index\":{index},\"delta\":{{\"type\":\"signature_delta\",\"signature\":\"{signature}\"}}"),
            );
            self.event("content_block_stop", &format!(",\"index\":{index}"));
            content.push(format!(
                "{{\"type\":\"thinking\",\"thinking\":{},\"signature\":\"{signature}\"}}",
                lit(&thought)
            ));
            index += 1;
        }
        let len = self.rng.range(40, 3000);
        let said = text(self.rng, len);
        self.event(
            "content_block_start",
            &format!(",\"index\":{index},\"content_block\":{{\"type\":\"text\",\"text\":\"\"}}"),
        );
        self.deltas("text_delta", "text", index, &said);
        self.event("content_block_stop", &format!(",\"index\":{index}"));
        content.push(format!("{{\"type\":\"text\",\"text\":{}}}", lit(&said)));
        index += 1;

        let mut call_ids = Vec::new();
        for _ in 0..calls {
            let call_id = format!("toolu_01{}", self.rng.base62(22));
            let (name, input) = if self.rng.chance(60) {
                let command = format!("cargo test --quiet {} 2>&1", self.rng.pick(PROSE));
                ("bash", format!("{{\"command\":{}}}", lit(&command)))
            } else {
                let path = format!("src/{}.rs", self.rng.pick(PROSE));
                ("read_file", format!("{{\"path\":{}}}", lit(&path)))
            };
            self.event(
                "content_block_start",
                &format!(",\"index\":{index},\"content_block\":{{\"type\":\"tool_use\",\"id\":\"{call_id}\",\"name\":\"{name}\",\"input\":{{}}}}"),
            );
            self.deltas("input_json_delta", "partial_json", index, &input);
            self.event("content_block_stop", &format!(",\"index\":{index}"));
            content.push(format!(
                "{{\"type\":\"tool_use\",\"id\":\"{call_id}\",\"name\":\"{name}\",\"input\":{input}}}"
            ));
            call_ids.push(call_id);
            index += 1;
        }
        let stop = if calls > 0 { "tool_use" } else { "end_turn" };
        let output = self.rng.range(20, 4000);
        self.event(
            "message_delta",
            &format!(",\"delta\":{{\"stop_reason\":\"{stop}\",\"stop_sequence\":null}},\"usage\":{{{usage},\"output_tokens\":{output}}}"),
        );
        self.event("message_stop", "");
        self.history.push(format!(
            "{{\"role\":\"assistant\",\"content\":[{}]}}",
            content.join(",")
        ));
        call_ids
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
        Session::response(self, calls)
    }

    fn user_text(&mut self, text: &str) {
        (self.history).push(format!("{{\"role\":\"user\",\"content\":{text}}}"));
    }

    fn user_results(&mut self, results: Vec<(String, String)>) {
        let results: Vec<String> = (results.into_iter())
            .map(|(call_id, output)| format!("{{\"type\":\"tool_result\",\"tool_use_id\":\"{call_id}\",\"content\":{output}}}"))
            .collect();
        (self.history).push(format!(
            "{{\"role\":\"user\",\"content\":[{}]}}",
            results.join(",")
        ));
    }
}

/// Messages API traffic of at least `bytes` bytes (whole sessions), from `seed`.
pub(crate) fn anthropic_stream(bytes: usize, seed: u64) -> Vec<u8> {
    sessions(bytes, seed, |rng, out| {
        let len = rng.range(20, 400);
        let prompt = lit(&text(rng, len));
        let history = vec![format!("{{\"role\":\"user\",\"content\":{prompt}}}")];
        api_rounds(&mut Session { rng, out, history });
    })
}
