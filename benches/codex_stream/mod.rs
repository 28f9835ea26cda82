//! A deterministic generator of realistic `codex exec --json` output (the current format),
//! for benchmarks.
//!
//! It follows the Codex corpus of `performance.md`: threads with a `thread.started` line and
//! 1-4 turns (`turn.started` ... `turn.completed` with the thread's cumulative usage); a turn
//! has 3-40 items: 35% `reasoning` (60-900 B), 45% `command_execution` (an `item.started`
//! line with empty output and `exit_code:null`, then an `item.completed` line with a
//! `bash -lc` command, `aggregated_output` from the tool-output size mix, the exit code and
//! `failed` status 10% of the time), 8% `file_change`, 6% `todo_list` (`item.started`, then
//! `item.updated`), 3% `mcp_tool_call` (started and completed, arguments and a result from
//! the size mix) and 3% `web_search`; each turn ends with an `agent_message` (40-3000 B).
//!
//! Shares its PRNG and text with the other generators (`gen_common`); checked by
//! `tests/axt/bench_stream.rs` to normalize without a diagnostic.

use super::gen_common::{PROSE, Rng, lit, output_size, sessions, text};

pub(crate) mod typed;

/// The block kinds a generated stream yields, every one of them.
pub(crate) const KINDS: &[&str] = &["thinking", "text", "tool_use", "command", "tool_result"];

const COMMANDS: &[&str] = &[
    "cargo test --quiet",
    "rg -n \"fn parse\" src",
    "sed -n \"1,200p\" src/lib.rs",
    "git diff --stat",
    "cargo build --release 2>&1 | tail -40",
    "ls -la src/normalize",
];

/// One thread's worth of state while writing it.
struct Thread<'a> {
    rng: &'a mut Rng,
    out: &'a mut Vec<u8>,
    /// The next item number (`item_N`), counted over the thread.
    next_item: usize,
    /// The thread's cumulative usage, as `turn.completed` reports it.
    usage: [usize; 3],
}

impl Thread<'_> {
    fn line(&mut self, body: &str) {
        self.out.extend_from_slice(body.as_bytes());
        self.out.push(b'\n');
    }

    fn item_id(&mut self) -> String {
        let id = format!("item_{}", self.next_item);
        self.next_item += 1;
        id
    }

    fn item(&mut self, event: &str, body: &str) {
        self.line(&format!(
            "{{\"type\":\"item.{event}\",\"item\":{{{body}}}}}"
        ));
    }

    fn reasoning(&mut self) {
        let id = self.item_id();
        let len = self.rng.range(60, 900);
        let summary = format!(
            "**{} the {}**\n\n{}",
            self.rng
                .pick(&["Inspecting", "Planning", "Checking", "Fixing"]),
            self.rng.pick(PROSE),
            text(self.rng, len)
        );
        self.item(
            "completed",
            &format!(
                "\"id\":\"{id}\",\"type\":\"reasoning\",\"text\":{}",
                lit(&summary)
            ),
        );
    }

    fn command(&mut self) {
        let id = self.item_id();
        let command = lit(&format!(
            "/bin/bash -lc '{} {}'",
            self.rng.pick(COMMANDS),
            self.rng.pick(PROSE)
        ));
        self.item(
            "started",
            &format!(
                "\"id\":\"{id}\",\"type\":\"command_execution\",\"command\":{command},\"aggregated_output\":\"\",\"exit_code\":null,\"status\":\"in_progress\""
            ),
        );
        let size = output_size(self.rng);
        let output = lit(&text(self.rng, size));
        let (exit_code, status) = if self.rng.chance(10) {
            (self.rng.pick(&["1", "2", "101", "127"]), "failed")
        } else {
            ("0", "completed")
        };
        self.item(
            "completed",
            &format!(
                "\"id\":\"{id}\",\"type\":\"command_execution\",\"command\":{command},\"aggregated_output\":{output},\"exit_code\":{exit_code},\"status\":\"{status}\""
            ),
        );
    }

    fn file_change(&mut self) {
        let id = self.item_id();
        let changes: Vec<String> = (0..self.rng.range(1, 3))
            .map(|_| {
                let path = lit(&format!("/home/dev/src/axt/src/{}.rs", self.rng.pick(PROSE)));
                if self.rng.chance(20) {
                    format!("{{\"path\":{path},\"kind\":\"add\"}}")
                } else {
                    let (old, new) = (self.rng.range(20, 300), self.rng.range(20, 300));
                    let diff = format!(
                        "@@ -1,3 +1,3 @@\n-{}\n+{}\n",
                        text(self.rng, old),
                        text(self.rng, new)
                    );
                    format!(
                        "{{\"path\":{path},\"kind\":{{\"type\":\"update\",\"move_path\":null}},\"diff\":{}}}",
                        lit(&diff)
                    )
                }
            })
            .collect();
        let status = if self.rng.chance(5) {
            "failed"
        } else {
            "completed"
        };
        self.item(
            "completed",
            &format!(
                "\"id\":\"{id}\",\"type\":\"file_change\",\"changes\":[{}],\"status\":\"{status}\"",
                changes.join(",")
            ),
        );
    }

    /// The turn's plan: started the first time, updated after that.
    fn todo_list(&mut self, todo: &mut Option<String>) {
        let (event, id) = match todo {
            Some(id) => ("updated", id.clone()),
            None => ("started", todo.insert(self.item_id()).clone()),
        };
        let entries: Vec<String> = (0..self.rng.range(2, 6))
            .map(|_| {
                let len = self.rng.range(20, 80);
                format!(
                    "{{\"text\":{},\"completed\":{}}}",
                    lit(text(self.rng, len).trim_end()),
                    self.rng.chance(50)
                )
            })
            .collect();
        self.item(
            event,
            &format!(
                "\"id\":\"{id}\",\"type\":\"todo_list\",\"items\":[{}]",
                entries.join(",")
            ),
        );
    }

    fn mcp_tool_call(&mut self) {
        let id = self.item_id();
        let tool = self
            .rng
            .pick(&["get_issue", "search_code", "list_projects"]);
        let arguments = format!(
            "{{\"query\":{},\"limit\":{}}}",
            lit(self.rng.pick(PROSE)),
            self.rng.range(1, 50)
        );
        let head = format!(
            "\"id\":\"{id}\",\"type\":\"mcp_tool_call\",\"server\":\"github\",\"tool\":\"{tool}\",\"arguments\":{arguments}"
        );
        self.item(
            "started",
            &format!("{head},\"result\":null,\"error\":null,\"status\":\"in_progress\""),
        );
        let size = output_size(self.rng);
        let result = lit(&text(self.rng, size));
        self.item(
            "completed",
            &format!(
                "{head},\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":{result}}}],\"structured_content\":null}},\"error\":null,\"status\":\"completed\""
            ),
        );
    }

    fn web_search(&mut self) {
        let id = self.item_id();
        let query = lit(&format!(
            "rust {} {}",
            self.rng.pick(PROSE),
            self.rng.pick(PROSE)
        ));
        self.item(
            "completed",
            &format!(
                "\"id\":\"{id}\",\"type\":\"web_search\",\"query\":{query},\"action\":{{\"type\":\"search\",\"query\":{query}}}"
            ),
        );
    }

    fn turn(&mut self) {
        self.line("{\"type\":\"turn.started\"}");
        let mut todo = None;
        for _ in 0..self.rng.range(3, 40) {
            match self.rng.range(0, 99) {
                0..=34 => self.reasoning(),
                35..=79 => self.command(),
                80..=87 => self.file_change(),
                88..=93 => self.todo_list(&mut todo),
                94..=96 => self.mcp_tool_call(),
                _ => self.web_search(),
            }
        }
        let id = self.item_id();
        let len = self.rng.range(40, 3000);
        let said = lit(&text(self.rng, len));
        self.item(
            "completed",
            &format!("\"id\":\"{id}\",\"type\":\"agent_message\",\"text\":{said}"),
        );
        let input = self.rng.range(5000, 40000);
        self.usage[0] += input;
        self.usage[1] += input * 4 / 5;
        self.usage[2] += self.rng.range(50, 3000);
        let [input, cached, output] = self.usage;
        self.line(&format!(
            "{{\"type\":\"turn.completed\",\"usage\":{{\"input_tokens\":{input},\"cached_input_tokens\":{cached},\"output_tokens\":{output}}}}}"
        ));
    }
}

/// `codex exec --json` output of at least `bytes` bytes (whole threads), from `seed`.
pub(crate) fn codex_stream(bytes: usize, seed: u64) -> Vec<u8> {
    sessions(bytes, seed, |rng, out| {
        let id = rng.uuid();
        let mut thread = Thread {
            rng,
            out,
            next_item: 0,
            usage: [0; 3],
        };
        thread.line(&format!(
            "{{\"type\":\"thread.started\",\"thread_id\":\"{id}\"}}"
        ));
        for _ in 0..thread.rng.range(1, 4) {
            thread.turn();
        }
    })
}
