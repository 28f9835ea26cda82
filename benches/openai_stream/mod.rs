//! A deterministic generator of realistic OpenAI Responses API traffic, for benchmarks: what
//! an agent loop such as Codex sends and receives, request bodies as JSON lines and each
//! response as its raw SSE stream.
//!
//! Each session starts with a request body (the user prompt), then 2-20 rounds, each a
//! streamed response: `response.created`, a reasoning item whose summary arrives as
//! `reasoning_summary_text` deltas (8-60 B) with an `encrypted_content` at `output_item.done`,
//! a message whose text (40-3000 B) arrives as `output_text` deltas of 8-60 bytes (the many
//! small events), 0-3 `function_call` items (`shell` 60%, `read_file` 40%) whose arguments
//! arrive as `function_call_arguments` deltas keyed by `item_id`, and `response.completed`
//! with usage. The response objects of `response.created` and `response.completed` carry
//! `created_at` (Unix seconds, moving forward a few seconds to minutes per round), as the
//! API's do: the adapter stamps what it hands out with it. A round with calls is followed by a request with `previous_response_id` and one
//! `function_call_output` per call (output from the tool-output size mix). The last round has
//! no calls.
//!
//! Shares its PRNG and text with the other generators (`gen_common`); checked by
//! `tests/axt/bench_stream.rs` to normalize without a diagnostic.

use super::gen_common::{PROSE, Rng, cut, lit, output_size, sessions, text};

pub(crate) mod typed;

/// The block kinds a generated stream yields, every one of them.
pub(crate) const KINDS: &[&str] = &["thinking", "text", "tool_use", "command", "tool_result"];

const MODEL: &str = "gpt-5-codex";

struct Session<'a> {
    rng: &'a mut Rng,
    out: &'a mut Vec<u8>,
    seq: usize,
    /// The session's clock, Unix seconds: each response's `created_at`.
    clock: usize,
}

impl Session<'_> {
    /// One SSE event: `event: <kind>` and its data, `fields` being the JSON after `type`.
    fn event(&mut self, kind: &str, fields: &str) {
        self.seq += 1;
        let data = format!(
            "{{\"type\":\"{kind}\",\"sequence_number\":{}{fields}}}",
            self.seq
        );
        self.out.extend_from_slice(b"event: ");
        self.out.extend_from_slice(kind.as_bytes());
        self.out.extend_from_slice(b"\ndata: ");
        self.out.extend_from_slice(data.as_bytes());
        self.out.extend_from_slice(b"\n\n");
    }

    fn line(&mut self, body: &str) {
        self.out.extend_from_slice(body.as_bytes());
        self.out.push(b'\n');
    }

    /// `kind` deltas of `said` for item `id` at `index`.
    fn deltas(&mut self, kind: &str, id: &str, index: usize, said: &str, extra: &str) {
        let mut rest = said;
        while !rest.is_empty() {
            let (piece, tail) = rest.split_at(cut(self.rng, rest, 8, 60));
            rest = tail;
            let fields = format!(
                ",\"item_id\":\"{id}\",\"output_index\":{index}{extra},\"delta\":{}",
                lit(piece)
            );
            self.event(kind, &fields);
        }
    }

    /// One streamed response; the call ids it made.
    fn response(&mut self, calls: usize) -> (String, Vec<String>) {
        let id = format!("resp_{}", self.rng.hex(32));
        self.clock += self.rng.range(2, 180);
        let created = self.clock;
        let head = format!(
            ",\"response\":{{\"id\":\"{id}\",\"object\":\"response\",\"created_at\":{created},\"status\":\"in_progress\",\"model\":\"{MODEL}\",\"output\":[],\"usage\":null}}"
        );
        self.event("response.created", &head);

        let rs = format!("rs_{}", self.rng.hex(24));
        let len = self.rng.range(40, 600);
        let summary = text(self.rng, len);
        self.event(
            "response.output_item.added",
            &format!(",\"output_index\":0,\"item\":{{\"id\":\"{rs}\",\"type\":\"reasoning\",\"summary\":[]}}"),
        );
        self.deltas(
            "response.reasoning_summary_text.delta",
            &rs,
            0,
            &summary,
            ",\"summary_index\":0",
        );
        let encrypted = self.rng.base62(120);
        self.event(
            "response.output_item.done",
            &format!(
                ",\"output_index\":0,\"item\":{{\"id\":\"{rs}\",\"type\":\"reasoning\",\"summary\":[{{\"type\":\"summary_text\",\"text\":{}}}],\"encrypted_content\":\"{encrypted}\"}}",
                lit(&summary)
            ),
        );

        let msg = format!("msg_{}", self.rng.hex(24));
        let len = self.rng.range(40, 3000);
        let said = text(self.rng, len);
        self.event(
            "response.output_item.added",
            &format!(",\"output_index\":1,\"item\":{{\"id\":\"{msg}\",\"type\":\"message\",\"status\":\"in_progress\",\"role\":\"assistant\",\"content\":[]}}"),
        );
        self.deltas(
            "response.output_text.delta",
            &msg,
            1,
            &said,
            ",\"content_index\":0",
        );
        self.event(
            "response.output_item.done",
            &format!(
                ",\"output_index\":1,\"item\":{{\"id\":\"{msg}\",\"type\":\"message\",\"status\":\"completed\",\"role\":\"assistant\",\"content\":[{{\"type\":\"output_text\",\"annotations\":[],\"text\":{}}}]}}",
                lit(&said)
            ),
        );

        let mut call_ids = Vec::new();
        for n in 0..calls {
            let index = 2 + n;
            let fc = format!("fc_{}", self.rng.hex(24));
            let call_id = format!("call_{}", self.rng.base62(24));
            let (name, arguments) = if self.rng.chance(60) {
                let command = format!("cargo test --quiet {} 2>&1", self.rng.pick(PROSE));
                ("shell", format!("{{\"command\":{}}}", lit(&command)))
            } else {
                let path = format!("src/{}.rs", self.rng.pick(PROSE));
                ("read_file", format!("{{\"path\":{}}}", lit(&path)))
            };
            self.event(
                "response.output_item.added",
                &format!(",\"output_index\":{index},\"item\":{{\"id\":\"{fc}\",\"type\":\"function_call\",\"status\":\"in_progress\",\"arguments\":\"\",\"call_id\":\"{call_id}\",\"name\":\"{name}\"}}"),
            );
            self.deltas(
                "response.function_call_arguments.delta",
                &fc,
                index,
                &arguments,
                "",
            );
            self.event(
                "response.output_item.done",
                &format!(
                    ",\"output_index\":{index},\"item\":{{\"id\":\"{fc}\",\"type\":\"function_call\",\"status\":\"completed\",\"arguments\":{},\"call_id\":\"{call_id}\",\"name\":\"{name}\"}}",
                    lit(&arguments)
                ),
            );
            call_ids.push(call_id);
        }

        let input = self.rng.range(5000, 90000);
        let cached = input * 3 / 4;
        let output = self.rng.range(20, 4000);
        let reasoning = output / 3;
        let total = input + output;
        self.event(
            "response.completed",
            &format!(
                ",\"response\":{{\"id\":\"{id}\",\"object\":\"response\",\"created_at\":{created},\"status\":\"completed\",\"model\":\"{MODEL}\",\"output\":[],\"usage\":{{\"input_tokens\":{input},\"input_tokens_details\":{{\"cached_tokens\":{cached}}},\"output_tokens\":{output},\"output_tokens_details\":{{\"reasoning_tokens\":{reasoning}}},\"total_tokens\":{total}}}}}"
            ),
        );
        (id, call_ids)
    }
}

/// Responses API traffic of at least `bytes` bytes (whole sessions), from `seed`.
pub(crate) fn openai_stream(bytes: usize, seed: u64) -> Vec<u8> {
    // One clock for the whole stream: its sessions follow each other in time.
    let mut clock = 1_767_225_600;
    sessions(bytes, seed, |rng, out| {
        clock += rng.range(60, 3600);
        let mut session = Session {
            rng,
            out,
            seq: 0,
            clock,
        };
        let len = session.rng.range(20, 400);
        let prompt = lit(&text(session.rng, len));
        session.line(&format!(
            "{{\"model\":\"{MODEL}\",\"stream\":true,\"input\":[{{\"role\":\"user\",\"content\":{prompt}}}]}}"
        ));
        let rounds = session.rng.range(2, 20);
        for round in 1..=rounds {
            session.seq = 0;
            let calls = if round == rounds {
                0
            } else {
                session.rng.range(0, 3)
            };
            let (id, call_ids) = session.response(calls);
            if call_ids.is_empty() {
                continue;
            }
            let outputs: Vec<String> = call_ids
                .iter()
                .map(|call_id| {
                    let size = output_size(session.rng);
                    let output = lit(&text(session.rng, size));
                    format!("{{\"type\":\"function_call_output\",\"call_id\":\"{call_id}\",\"output\":{output}}}")
                })
                .collect();
            session.line(&format!(
                "{{\"model\":\"{MODEL}\",\"stream\":true,\"previous_response_id\":\"{id}\",\"input\":[{}]}}",
                outputs.join(",")
            ));
        }
        clock = session.clock;
    })
}
