//! A deterministic generator of realistic Gemini API traffic, for benchmarks: what an agent
//! loop sends and receives, request bodies as JSON lines and each response as its raw SSE
//! stream (`streamGenerateContent?alt=sse`).
//!
//! Each session starts with a request body (system instruction, the user's prompt, two
//! function declarations), then 2-10 rounds, each a streamed response: thought-summary chunks
//! (60%) of 8-60 bytes, text chunks (40-3000 B in pieces of 8-60 bytes, the many small
//! chunks), 0-3 `functionCall`s (`bash` 60%, `read_file` 40%) in one chunk, the first one
//! signed, and a last chunk with `finishReason` and usage; every chunk repeats the running
//! `usageMetadata`, as the API does. A round with calls is followed by the next request,
//! which repeats the whole conversation and adds one `functionResponse` per call (output from
//! the tool-output size mix). The last round has no calls.
//!
//! Shares its PRNG and text with the other generators (`gen_common`); checked by
//! `tests/axt/bench_stream.rs` to normalize without a diagnostic.

use super::gen_common::{ApiConversation, PROSE, Rng, api_rounds, cut, lit, sessions, text};

pub(crate) mod typed;

/// The block kinds a generated stream yields, every one of them.
pub(crate) const KINDS: &[&str] = &["thinking", "text", "tool_use", "command", "tool_result"];

const MODEL: &str = "gemini-2.5-pro";

struct Session<'a> {
    rng: &'a mut Rng,
    out: &'a mut Vec<u8>,
    /// The conversation so far, each content as its JSON.
    history: Vec<String>,
}

impl Session<'_> {
    /// One SSE event holding a chunk of `parts` (JSON), usage, and the rest of the candidate.
    fn chunk(&mut self, id: &str, parts: &str, finish: &str, usage: &str) {
        let line = format!(
            "data: {{\"candidates\": [{{\"content\": {{\"parts\": [{parts}],\"role\": \"model\"}}{finish},\"index\": 0}}],\"usageMetadata\": {{{usage}}},\"modelVersion\": \"{MODEL}\",\"responseId\": \"{id}\"}}\r\n\r\n"
        );
        self.out.extend_from_slice(line.as_bytes());
    }

    /// The request that asks for the next response: the whole conversation so far.
    fn request(&mut self) {
        let body = format!(
            "{{\"contents\":[{}],\"systemInstruction\":{{\"parts\":[{{\"text\":{}}}]}},\"tools\":[{{\"functionDeclarations\":[{{\"name\":\"bash\",\"parameters\":{{\"type\":\"OBJECT\"}}}},{{\"name\":\"read_file\",\"parameters\":{{\"type\":\"OBJECT\"}}}}]}}],\"generationConfig\":{{\"thinkingConfig\":{{\"includeThoughts\":true}}}}}}",
            self.history.join(","),
            lit("You are a careful coding agent.")
        );
        self.out.extend_from_slice(body.as_bytes());
        self.out.push(b'\n');
    }

    /// Text in pieces of 8-60 bytes, each a chunk.
    fn pieces(&mut self, id: &str, said: &str, thought: bool, usage: &str) {
        let flag = if thought { ",\"thought\": true" } else { "" };
        let mut rest = said;
        while !rest.is_empty() {
            let (piece, tail) = rest.split_at(cut(self.rng, rest, 8, 60));
            rest = tail;
            let part = format!("{{\"text\": {}{flag}}}", lit(piece));
            self.chunk(id, &part, "", usage);
        }
    }

    /// One streamed response; the calls it made (id, name). Its content joins the history.
    fn response(&mut self, calls: usize) -> Vec<(String, &'static str)> {
        let id = self.rng.base62(22);
        let prompt = self.rng.range(2000, 90000);
        let cached = self.rng.range(0, prompt);
        let thoughts = self.rng.range(0, 2000);
        let running = format!(
            "\"promptTokenCount\": {prompt},\"totalTokenCount\": {},\"cachedContentTokenCount\": {cached},\"thoughtsTokenCount\": {thoughts}",
            prompt + thoughts
        );
        let mut content = Vec::new();
        if self.rng.chance(60) {
            let len = self.rng.range(40, 600);
            let thought = text(self.rng, len);
            self.pieces(&id, &thought, true, &running);
            content.push(format!("{{\"text\":{},\"thought\":true}}", lit(&thought)));
        }
        let len = self.rng.range(40, 3000);
        let said = text(self.rng, len);
        self.pieces(&id, &said, false, &running);
        content.push(format!("{{\"text\":{}}}", lit(&said)));
        let mut made = Vec::new();
        let mut parts = Vec::new();
        for n in 0..calls {
            let call_id = self.rng.base62(8);
            let (name, args) = if self.rng.chance(60) {
                let command = format!("cargo test --quiet {} 2>&1", self.rng.pick(PROSE));
                ("bash", format!("{{\"command\": {}}}", lit(&command)))
            } else {
                let path = format!("src/{}.rs", self.rng.pick(PROSE));
                ("read_file", format!("{{\"path\": {}}}", lit(&path)))
            };
            let signature = if n == 0 {
                format!(",\"thoughtSignature\": \"{}\"", self.rng.base62(160))
            } else {
                String::new()
            };
            let part = format!(
                "{{\"functionCall\": {{\"name\": \"{name}\",\"args\": {args},\"id\": \"{call_id}\"}}{signature}}}"
            );
            content.push(part.clone());
            parts.push(part);
            made.push((call_id, name));
        }
        let output = self.rng.range(20, 4000);
        let last = format!(
            "\"promptTokenCount\": {prompt},\"candidatesTokenCount\": {output},\"totalTokenCount\": {},\"cachedContentTokenCount\": {cached},\"thoughtsTokenCount\": {thoughts}",
            prompt + output + thoughts
        );
        let parts = if parts.is_empty() {
            "{\"text\": \"\"}".to_owned()
        } else {
            parts.join(",")
        };
        self.chunk(&id, &parts, ",\"finishReason\": \"STOP\"", &last);
        self.history.push(format!(
            "{{\"role\":\"model\",\"parts\":[{}]}}",
            content.join(",")
        ));
        made
    }
}

impl ApiConversation for Session<'_> {
    /// The call's id and its function's name (a `functionResponse` names both).
    type Call = (String, &'static str);

    fn rng(&mut self) -> &mut Rng {
        self.rng
    }

    fn request(&mut self) {
        Session::request(self);
    }

    fn response(&mut self, calls: usize) -> Vec<(String, &'static str)> {
        Session::response(self, calls)
    }

    fn user_text(&mut self, text: &str) {
        (self.history).push(format!(
            "{{\"role\":\"user\",\"parts\":[{{\"text\":{text}}}]}}"
        ));
    }

    fn user_results(&mut self, results: Vec<((String, &'static str), String)>) {
        let results: Vec<String> = (results.into_iter())
            .map(|((call_id, name), output)| format!("{{\"functionResponse\":{{\"id\":\"{call_id}\",\"name\":\"{name}\",\"response\":{{\"output\":{output}}}}}}}"))
            .collect();
        (self.history).push(format!(
            "{{\"role\":\"user\",\"parts\":[{}]}}",
            results.join(",")
        ));
    }
}

/// Gemini API traffic of at least `bytes` bytes (whole sessions), from `seed`.
pub(crate) fn gemini_api_stream(bytes: usize, seed: u64) -> Vec<u8> {
    sessions(bytes, seed, |rng, out| {
        let len = rng.range(20, 400);
        let prompt = lit(&text(rng, len));
        let history = vec![format!(
            "{{\"role\":\"user\",\"parts\":[{{\"text\":{prompt}}}]}}"
        )];
        api_rounds(&mut Session { rng, out, history });
    })
}
