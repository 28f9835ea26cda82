//! A deterministic generator of realistic Claude Code stream-json, for benchmarks.
//!
//! It follows the corpus of `performance.md`: sessions with a `system/init` line and 3-40
//! turns; per turn a `thinking` block (60%, with a signature), a `text` block (70%) and 0-3
//! `tool_use` blocks (Bash, Read, Grep, Edit, Glob, TodoWrite), each answered by a `user`
//! `tool_result` line (10% in array form; Bash and Read results repeat the output in
//! `tool_use_result`); tool outputs 55% 20 B-1 KB, 28% 1-10 KB, 14% 10-50 KB, 3% 50-100 KB,
//! built from code, log (ANSI escapes), prose and line-numbered lines with about 3% non-ASCII
//! words; 25% of sessions are `--include-partial-messages` sessions whose blocks also arrive
//! as `stream_event` deltas of 3-40 characters; a `result` line ends each session. Each
//! assistant block is its own line, as Claude Code writes it.
//!
//! The PRNG, text pools and output size mix come from `gen_common`. Shared by
//! `benches/normalize.rs` and a test (`tests/axt/bench_stream.rs`) that checks the
//! output normalizes without a diagnostic, so the generator cannot drift from the format.

use super::gen_common::{PROSE, Rng, cut, lit, output_size, sessions, text};

pub(crate) mod typed;

/// The block kinds a generated stream yields, every one of them.
pub(crate) const KINDS: &[&str] = &["thinking", "text", "tool_use", "command", "tool_result"];

const TOOLS: &[&str] = &["Bash", "Read", "Grep", "Edit", "Glob", "TodoWrite"];

fn tool_input(rng: &mut Rng, tool: &str) -> String {
    let path = format!("/home/dev/src/axt/src/{}.rs", rng.pick(PROSE));
    match tool {
        "Bash" => format!(
            "{{\"command\":{},\"description\":{}}}",
            lit(&format!(
                "cargo test --quiet {} 2>&1 | tail -40",
                rng.pick(PROSE)
            )),
            lit("Run the tests")
        ),
        "Read" => format!("{{\"file_path\":{}}}", lit(&path)),
        "Grep" => format!(
            "{{\"pattern\":{},\"path\":{},\"output_mode\":\"content\"}}",
            lit("fn \\w+\\(.*\\) -> Result<"),
            lit(&path)
        ),
        "Edit" => {
            let (old, new) = (rng.range(40, 400), rng.range(40, 400));
            format!(
                "{{\"file_path\":{},\"old_string\":{},\"new_string\":{}}}",
                lit(&path),
                lit(&text(rng, old)),
                lit(&text(rng, new))
            )
        }
        "Glob" => format!("{{\"pattern\":{}}}", lit("src/**/*.rs")),
        _ => format!(
            "{{\"todos\":[{{\"content\":{},\"status\":\"in_progress\",\"activeForm\":{}}}]}}",
            lit(&text(rng, 60)),
            lit("Working")
        ),
    }
}

/// One session's worth of state while writing it.
struct Session<'a> {
    rng: &'a mut Rng,
    out: &'a mut Vec<u8>,
    id: String,
    partial: bool,
}

const MODEL: &str = "claude-sonnet-4-6";

impl Session<'_> {
    fn line(&mut self, body: &str) {
        self.out.extend_from_slice(body.as_bytes());
        self.out.push(b'\n');
    }

    fn usage(&mut self) -> String {
        format!(
            "{{\"input_tokens\":{},\"cache_creation_input_tokens\":{},\"cache_read_input_tokens\":{},\"cache_creation\":{{\"ephemeral_5m_input_tokens\":0,\"ephemeral_1h_input_tokens\":{}}},\"output_tokens\":{},\"service_tier\":\"standard\",\"inference_geo\":\"not_available\"}}",
            self.rng.range(1, 9),
            self.rng.range(0, 5000),
            self.rng.range(1000, 90000),
            self.rng.range(0, 5000),
            self.rng.range(1, 3000)
        )
    }

    fn tail(&mut self) -> String {
        format!(
            "\"parent_tool_use_id\":null,\"session_id\":{},\"uuid\":{}",
            lit(&self.id),
            lit(&self.rng.uuid())
        )
    }

    fn init(&mut self) {
        let tail = self.tail();
        let body = format!(
            "{{\"type\":\"system\",\"subtype\":\"init\",\"cwd\":\"/home/dev/src/axt\",\"session_id\":{},\"tools\":[\"Task\",\"Bash\",\"Glob\",\"Grep\",\"Read\",\"Edit\",\"Write\",\"NotebookEdit\",\"WebFetch\",\"TodoWrite\",\"WebSearch\",\"BashOutput\",\"KillShell\",\"SlashCommand\"],\"mcp_servers\":[],\"model\":\"{MODEL}\",\"permissionMode\":\"bypassPermissions\",\"slash_commands\":[\"compact\",\"context\",\"cost\",\"init\",\"review\",\"security-review\",\"pr-comments\",\"release-notes\",\"todos\"],\"apiKeySource\":\"none\",\"claude_code_version\":\"2.1.178\",\"output_style\":\"default\",\"agents\":[\"general-purpose\",\"statusline-setup\",\"Explore\",\"Plan\"],\"skills\":[],\"plugins\":[],\"memory_paths\":{{\"auto\":\"/home/dev/.claude/projects/-home-dev-src-axt/memory/\"}},\"fast_mode_state\":\"off\",{}}}",
            lit(&self.id),
            &tail[tail.find("\"uuid\"").unwrap_or(0)..]
        );
        self.line(&body);
    }

    fn stream_event(&mut self, event: &str) {
        let tail = self.tail();
        self.line(&format!(
            "{{\"type\":\"stream_event\",\"event\":{event},{tail}}}"
        ));
    }

    /// Deltas of 3-40 characters over `text`, split on character boundaries.
    fn deltas(&mut self, index: usize, kind: &str, field: &str, text: &str) {
        let mut rest = text;
        while !rest.is_empty() {
            let (piece, tail) = rest.split_at(cut(self.rng, rest, 3, 40));
            rest = tail;
            self.stream_event(&format!(
                "{{\"type\":\"content_block_delta\",\"index\":{index},\"delta\":{{\"type\":\"{kind}\",\"{field}\":{}}}}}",
                lit(piece)
            ));
        }
    }

    fn turn(&mut self) {
        let message_id = format!("msg_01{}", self.rng.base62(22));
        let usage = self.usage();
        if self.partial {
            self.stream_event(&format!(
                "{{\"type\":\"message_start\",\"message\":{{\"model\":\"{MODEL}\",\"id\":\"{message_id}\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{usage}}}}}"
            ));
        }
        let mut calls: Vec<(String, &str)> = Vec::new();
        let thinking = self.rng.chance(60);
        let texting = self.rng.chance(70);
        let tools = self.rng.range(0, 3);
        let mut index = 0;
        if thinking {
            let len = self.rng.range(100, 2500);
            let thought = text(self.rng, len);
            let len = self.rng.range(200, 1200);
            let signature = self.rng.base62(len);
            if self.partial {
                self.stream_event(&format!("{{\"type\":\"content_block_start\",\"index\":{index},\"content_block\":{{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}}}}"));
                self.deltas(index, "thinking_delta", "thinking", &thought);
                self.stream_event(&format!("{{\"type\":\"content_block_delta\",\"index\":{index},\"delta\":{{\"type\":\"signature_delta\",\"signature\":\"{signature}\"}}}}"));
                self.stream_event(&format!(
                    "{{\"type\":\"content_block_stop\",\"index\":{index}}}"
                ));
            }
            let block = format!(
                "{{\"type\":\"thinking\",\"thinking\":{},\"signature\":\"{signature}\"}}",
                lit(&thought)
            );
            self.assistant(&message_id, &usage, block);
            index += 1;
        }
        if texting {
            let len = self.rng.range(40, 3000);
            let said = text(self.rng, len);
            if self.partial {
                self.stream_event(&format!("{{\"type\":\"content_block_start\",\"index\":{index},\"content_block\":{{\"type\":\"text\",\"text\":\"\"}}}}"));
                self.deltas(index, "text_delta", "text", &said);
                self.stream_event(&format!(
                    "{{\"type\":\"content_block_stop\",\"index\":{index}}}"
                ));
            }
            let block = format!("{{\"type\":\"text\",\"text\":{}}}", lit(&said));
            self.assistant(&message_id, &usage, block);
            index += 1;
        }
        for _ in 0..tools {
            let tool = self.rng.pick(TOOLS);
            let id = format!("toolu_01{}", self.rng.base62(22));
            let input = tool_input(self.rng, tool);
            if self.partial {
                self.stream_event(&format!("{{\"type\":\"content_block_start\",\"index\":{index},\"content_block\":{{\"type\":\"tool_use\",\"id\":\"{id}\",\"name\":\"{tool}\",\"input\":{{}}}}}}"));
                self.deltas(index, "input_json_delta", "partial_json", &input);
                self.stream_event(&format!(
                    "{{\"type\":\"content_block_stop\",\"index\":{index}}}"
                ));
            }
            let block = format!(
                "{{\"type\":\"tool_use\",\"id\":\"{id}\",\"name\":\"{tool}\",\"input\":{input},\"caller\":{{\"type\":\"direct\"}}}}"
            );
            self.assistant(&message_id, &usage, block);
            calls.push((id, tool));
            index += 1;
        }
        if self.partial {
            self.stream_event(&format!("{{\"type\":\"message_delta\",\"delta\":{{\"stop_reason\":\"end_turn\",\"stop_sequence\":null}},\"usage\":{usage}}}"));
            self.stream_event("{\"type\":\"message_stop\"}");
        }
        for (id, tool) in calls {
            self.tool_result(&id, tool);
        }
    }

    fn assistant(&mut self, message_id: &str, usage: &str, block: String) {
        let tail = self.tail();
        let request = self.rng.base62(24);
        self.line(&format!(
            "{{\"type\":\"assistant\",\"message\":{{\"model\":\"{MODEL}\",\"id\":\"{message_id}\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[{block}],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{usage},\"context_management\":null}},{tail},\"request_id\":\"req_011C{request}\"}}"
        ));
    }

    fn tool_result(&mut self, id: &str, tool: &str) {
        let size = output_size(self.rng);
        let output = text(self.rng, size);
        let content = if self.rng.chance(10) {
            format!("[{{\"type\":\"text\",\"text\":{}}}]", lit(&output))
        } else {
            lit(&output)
        };
        let duplicate = match tool {
            "Bash" => format!(
                ",\"tool_use_result\":{{\"stdout\":{},\"stderr\":\"\",\"interrupted\":false,\"isImage\":false}}",
                lit(&output)
            ),
            "Read" => format!(
                ",\"tool_use_result\":{{\"type\":\"text\",\"file\":{{\"filePath\":\"/home/dev/src/axt/src/lib.rs\",\"content\":{},\"numLines\":{},\"startLine\":1,\"totalLines\":{}}}}}",
                lit(&output),
                output.lines().count(),
                output.lines().count()
            ),
            _ => String::new(),
        };
        let tail = self.tail();
        self.line(&format!(
            "{{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":[{{\"tool_use_id\":\"{id}\",\"type\":\"tool_result\",\"content\":{content},\"is_error\":false}}]}},{tail},\"timestamp\":\"2026-06-25T10:33:19.904Z\"{duplicate}}}"
        ));
    }

    fn result(&mut self, turns: usize) {
        let usage = self.usage();
        let tail = self.tail();
        let uuid = &tail[tail.find("\"uuid\"").unwrap_or(0)..];
        let body = format!(
            "{{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"duration_ms\":{},\"duration_api_ms\":{},\"num_turns\":{turns},\"result\":{},\"stop_reason\":\"end_turn\",\"session_id\":{},\"total_cost_usd\":{}.{:04},\"usage\":{usage},\"modelUsage\":{{\"{MODEL}\":{{\"inputTokens\":{},\"outputTokens\":{},\"cacheReadInputTokens\":{},\"cacheCreationInputTokens\":{},\"webSearchRequests\":0,\"costUSD\":0.{:04},\"contextWindow\":200000}}}},\"permission_denials\":[],\"terminal_reason\":\"completed\",{uuid}}}",
            self.rng.range(1000, 900_000),
            self.rng.range(1000, 600_000),
            lit("All tests pass."),
            lit(&self.id),
            self.rng.range(0, 3),
            self.rng.range(0, 9999),
            self.rng.range(10, 9999),
            self.rng.range(10, 9999),
            self.rng.range(1000, 99999),
            self.rng.range(0, 9999),
            self.rng.range(0, 9999),
        );
        self.line(&body);
    }
}

/// Claude Code stream-json of at least `bytes` bytes (whole sessions), from `seed`.
pub(crate) fn claude_stream(bytes: usize, seed: u64) -> Vec<u8> {
    sessions(bytes, seed, |rng, out| {
        let id = rng.uuid();
        let partial = rng.chance(25);
        let mut session = Session {
            rng,
            out,
            id,
            partial,
        };
        session.init();
        let turns = session.rng.range(3, 40);
        for _ in 0..turns {
            session.turn();
        }
        session.result(turns);
    })
}
