//! Item lines read by a skim, without the JSON parser: a command's start and completion, a
//! message's and a reasoning's completion.
//!
//! Nearly every byte of `codex exec --json` is a command's output: the `item.completed` line
//! of a `command_execution` item, written by the CLI (0.44 and later; the captures of
//! 2026-02 and the 0.156.1 recording alike) as
//! `{"type":"item.completed","item":{"id":"item_2","type":"command_execution","command":
//! "...","aggregated_output":"...","exit_code":0,"status":"completed"}}`, after an
//! `item.started` line of the same item with an empty output and `"exit_code":null`. The
//! adapter keeps the output as the line escaped it ([`ToolOutput`]), yet parsing the line
//! unescaped all of it first (simd-json's strings are read whole), to be thrown away.
//! [`skim`] reads such a line token by token as the CLI writes it: the output is found by
//! [`writers_string_end`] and never unescaped, and what [`State`](super::State) takes of the
//! item is handed back.
//!
//! Most of the rest is prose: a completed `reasoning` or `agent_message` item,
//! `{"type":"item.completed","item":{"id":"item_3","type":"reasoning","text":"..."}}` (6% of
//! the bench's bytes). Its text is unescaped once, as simd-json reads it, straight into the
//! block's string ([`Compact::unescaped`]), where the parse copied the line into its buffer,
//! indexed it, unescaped the text there and copied it out again.
//!
//! It gives up (`None`; the line is then parsed as before) at anything it cannot read
//! exactly as the parser would: whitespace between tokens, another event or item type, a
//! field twice, a field the item does not have here (the input report counts those), a
//! `null` other than a started command's exit code, an escaped key, id, type or status, an
//! empty command id, a command that is not a string, an exit code that is not a whole
//! number an `i64` holds (or `-0`), invalid UTF-8, a control character, an escape JSON does
//! not have, an output escaped otherwise than the writer escapes it (`\/`, `\u00e9`, ...),
//! a `\u` surrogate in a command or a text (simd-json reads pairs and refuses lone ones:
//! not told apart here), and a message's or reasoning's start or update (the parse ignores
//! those). What it accepts, the parser accepts, with the same fields ([`tests`] holds the
//! two readings to each other). The line is read through [`Compact`], the compact-line
//! reader the adapters' skims share.
//!
//! Where the time goes now (callgrind, `axt normalize -p codex` of the bench's 5 MB stream:
//! 75.7M instructions; 81.1M before messages were skimmed and [`writers_string_end`] read
//! 64 bytes a block, 104.7M before any skim): this skim 19.9M, of it [`writers_string_end`]
//! 8.6M (1.9 instructions a byte: the bench's outputs have a backslash every 12 bytes),
//! copying the output into its [`ToolOutput`] 3.8M, the UTF-8 check 2.4M, the messages'
//! text and the escaped commands unescaped 2.6M (8 instructions a byte of text: a `String`
//! push a run and an escape; pushing sixteen bytes a step into bytes checked as UTF-8 at
//! the end measured 2.4M -> 2.1M in a harness, not kept); the parse of the lines left (MCP
//! calls, file changes, plans: 9% of the bytes) 7.2M. Reusing a word's flags after each
//! escape instead of loading the word again measured no better (19.9M -> 20.5M over the
//! bench's outputs, in a harness, when words were read). Outside the adapter: a failed
//! command's error message is its output's text, unescaped by serde_json (8.0M for 55 of
//! 503 outputs) and escaped again by the writer.
//!
//! [`writers_string_end`]: crate::normalize::skim::writers_string_end

use std::borrow::Cow;

use crate::model::ToolOutput;
use crate::normalize::skim::{Compact, once};

/// A `command_execution` item's start or completion, as its line has it.
pub(super) struct Command<'a> {
    /// `item.completed`; else `item.started`.
    pub(super) done: bool,
    /// The item's id, not empty.
    pub(super) id: &'a str,
    pub(super) command: Cow<'a, str>,
    /// `aggregated_output`, as the line escaped it: held as such when not empty.
    pub(super) output: Option<ToolOutput>,
    pub(super) exit_code: Option<i64>,
    pub(super) status: Option<&'a str>,
}

impl Command<'_> {
    /// The event's name, as the input report counts it.
    pub(super) fn event(&self) -> &'static str {
        if self.done {
            "item.completed"
        } else {
            "item.started"
        }
    }
}

const STARTED: &[u8] = b"{\"type\":\"item.started\",\"item\":{";
const COMPLETED: &[u8] = b"{\"type\":\"item.completed\",\"item\":{";

/// An item line the skim takes.
pub(super) enum Skimmed<'a> {
    Command(Command<'a>),
    /// A completed `agent_message` (`assistant_message`) or `reasoning` item: its type and
    /// text.
    Said {
        kind: &'a str,
        text: String,
    },
}

/// The item `bytes` holds (see the module docs); `None` when it is no line this reading
/// takes.
pub(super) fn skim(bytes: &[u8]) -> Option<Skimmed<'_>> {
    let (done, at) = if bytes.starts_with(COMPLETED) {
        (true, COMPLETED.len())
    } else if bytes.starts_with(STARTED) {
        (false, STARTED.len())
    } else {
        return None;
    };
    // Checked whole, once: every piece taken below is cut at an ASCII byte.
    let line = simdutf8::basic::from_utf8(bytes).ok()?;
    members(line, at, done)
}

/// The item's members, through its closing brace, the line's, and the line's end.
fn members(line: &str, at: usize, done: bool) -> Option<Skimmed<'_>> {
    let mut reader = Compact::new(line, at);
    let mut kind = None;
    let mut id = None;
    let mut command = None;
    let mut output = None;
    let mut exit_code = None;
    let mut status = None;
    let mut text = None;
    loop {
        match reader.key()? {
            "type" => once(&mut kind, reader.plain()?)?,
            "text" => once(&mut text, reader.unescaped()?)?,
            "id" => once(&mut id, reader.plain()?)?,
            "status" => once(&mut status, reader.plain()?)?,
            "command" => once(&mut command, reader.text()?)?,
            "aggregated_output" => once(&mut output, reader.writers_string()?)?,
            "exit_code" => once(&mut exit_code, reader.integer_or_null()?)?,
            _ => return None,
        }
        if !reader.next()? {
            break;
        }
    }
    if line.as_bytes().get(reader.position()..)? != b"}" {
        return None;
    }
    match kind? {
        "command_execution" if text.is_none() => {}
        // Read when it completes (its start and updates are ignored), from its text alone.
        kind @ ("reasoning" | "agent_message" | "assistant_message") => {
            let alone = command.is_none() && output.is_none();
            let alone = alone && exit_code.is_none() && status.is_none();
            let text = text.filter(|_| done && alone)?;
            return Some(Skimmed::Said { kind, text });
        }
        _ => return None,
    }
    Some(Skimmed::Command(Command {
        done,
        id: id.filter(|id: &&str| !id.is_empty())?,
        command: command?,
        // Two bytes are the empty string's quotes.
        output: output
            .filter(|json| json.len() > 2)
            .map(|json| ToolOutput::escaped(&line.as_bytes()[json])),
        exit_code: exit_code.flatten(),
        status,
    }))
}

#[cfg(test)]
mod tests {
    use super::super::{corpus_files, read_skimmed_or_parsed};
    use super::*;
    use crate::normalize::Item;
    use crate::normalize::bench_streams::codex_stream;
    use crate::normalize::skim::held_pieces::{HELD_STRING_PIECES, writer_writes};

    /// The two readings of `input` alike: the same items (an output the parse holds escaped
    /// held alike; a session file's call output only the skim holds so, `rollout::skim`),
    /// run metadata with its input report, and diagnostics. How many of its lines the skim
    /// takes.
    fn alike(input: &[u8]) -> usize {
        let skimmed = read_skimmed_or_parsed(input, true);
        let parsed = read_skimmed_or_parsed(input, false);
        let shown = String::from_utf8_lossy(input);
        assert_eq!(skimmed, parsed, "{shown}");
        let held = |items: &[Item]| -> Vec<Option<Vec<u8>>> {
            items
                .iter()
                .map(|item| match &item.block.block {
                    crate::model::Block::ToolResult { tool_content, .. } => {
                        tool_content.json().map(<[u8]>::to_vec)
                    }
                    _ => None,
                })
                .collect()
        };
        for (skimmed, parsed) in held(&skimmed.0).into_iter().zip(held(&parsed.0)) {
            if parsed.is_some() {
                assert_eq!(skimmed, parsed, "{shown}");
            }
        }
        input
            .split(|&b| b == b'\n')
            .filter(|line| skim(line).is_some())
            .count()
    }

    fn started(id: &str, command: &str) -> String {
        format!(
            r#"{{"type":"item.started","item":{{"id":"{id}","type":"command_execution","command":"{command}","aggregated_output":"","exit_code":null,"status":"in_progress"}}}}"#
        )
    }

    fn completed(output: &str, exit_code: &str, status: &str) -> String {
        format!(
            r#"{{"type":"item.completed","item":{{"id":"item_1","type":"command_execution","command":"/bin/bash -lc 'ls'","aggregated_output":"{output}","exit_code":{exit_code},"status":"{status}"}}}}"#
        )
    }

    /// Every corpus input of the Codex dialect, and the bench's generated stream: read
    /// alike both ways, most of the bench's bytes skimmed.
    #[test]
    fn every_codex_corpus_input_and_the_bench_stream_read_alike() {
        let mut taken = 0;
        for path in &corpus_files() {
            taken += alike(&std::fs::read(path).expect("fixture"));
        }
        assert!(taken >= 10, "{taken}");
        let stream = codex_stream::codex_stream(2 << 20, 7);
        let lines = stream.split(|&b| b == b'\n').count();
        let taken = alike(&stream);
        assert!(taken * 100 / lines > 50, "{taken} of {lines}");
    }

    /// Every escape and character at every place of outputs and commands of 0 to 40 bytes:
    /// a line the skim takes is read alike by the parse; one it gives up has an escape the
    /// writer does not write (output), a `\u` surrogate (command) or one the parse refuses.
    #[test]
    fn a_command_is_skimmed_as_the_parse_reads_it_wherever_its_escapes_fall() {
        let mut taken = 0;
        for len in 0..=40 {
            for piece in HELD_STRING_PIECES {
                for at in [0, len / 2, len] {
                    let mut text = "x".repeat(len);
                    text.insert_str(at, piece);
                    let output = completed(&text, "1", "failed");
                    let command = started("item_1", &text);
                    let input = format!("{command}\n{output}\n");
                    let skims = [skim(command.as_bytes()), skim(output.as_bytes())];
                    assert_eq!(alike(input.as_bytes()), skims.iter().flatten().count());
                    if skims[1].is_some() {
                        taken += 1;
                    } else {
                        assert!(!writer_writes(piece), "{output}");
                    }
                    if skims[0].is_none() {
                        let surrogate = piece.starts_with("\\ud");
                        let refused =
                            serde_json::from_str::<String>(&format!("\"{piece}\"")).is_err();
                        assert!(surrogate || refused, "{command}");
                    }
                }
            }
        }
        assert!(taken > 1_500, "{taken}");
    }

    /// Every escape and character at every place of texts of 0 to 40 bytes: a message or
    /// reasoning line the skim takes is read alike by the parse; one it gives up has a `\u`
    /// surrogate, or a string the parse refuses.
    #[test]
    fn a_message_is_skimmed_as_the_parse_reads_it_wherever_its_escapes_fall() {
        let pieces = [
            "\\\"",
            "\\\\",
            "\\/",
            "\\b",
            "\\f",
            "\\n",
            "\\r",
            "\\t",
            "\\u0000",
            "\\u001b",
            "\\u00e9",
            "\\u2028",
            "\\uFFFF",
            "\\ud83d\\ude00",
            "\\ud800",
            "\\udc00",
            "\\u12",
            "\\x",
            "\\",
            "\"",
            "\t",
            "\u{1}",
            "\u{7f}",
            "\u{e9}",
            "\u{1F600}",
            "}",
            ",",
            "ab",
        ];
        let mut taken = 0;
        for len in 0..=40 {
            for piece in pieces {
                for at in [0, len / 2, len] {
                    let mut text = "x".repeat(len);
                    text.insert_str(at, piece);
                    for kind in ["reasoning", "agent_message"] {
                        let line = format!(
                            r#"{{"type":"item.completed","item":{{"id":"item_1","type":"{kind}","text":"{text}"}}}}"#
                        );
                        let skimmed = skim(line.as_bytes()).is_some();
                        assert_eq!(alike(format!("{line}\n").as_bytes()), usize::from(skimmed));
                        if skimmed {
                            taken += 1;
                        } else {
                            let surrogate = piece.starts_with("\\ud");
                            let refused =
                                serde_json::from_str::<String>(&format!("\"{piece}\"")).is_err();
                            assert!(surrogate || refused, "{line}");
                        }
                    }
                }
            }
        }
        assert!(taken > 4_000, "{taken}");
    }

    #[test]
    fn lines_other_than_a_compact_command_or_message_item_are_given_up_and_read_alike() {
        let typical = [
            started("item_2", "/bin/bash -lc 'echo step1'"),
            started("item_2", r#"/bin/bash -lc \"printf '%s' 'hi'\""#),
            completed("step1\\n", "0", "completed"),
            completed("", "42", "failed"),
            completed("x", "-1", "failed"),
            completed("x", "null", "declined"),
            completed("x", "9223372036854775807", "completed"),
            r#"{"type":"item.completed","item":{"status":"completed","exit_code":0,"aggregated_output":"a\nb","command":"ls","type":"command_execution","id":"item_1"}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"ls","exit_code":0,"status":"completed"}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"ls","aggregated_output":"a"}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"item_1","type":"reasoning","text":"a"}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"a\n\"b\" \u00e9\u001b"}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"item_1","type":"assistant_message","text":""}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"text":"a","type":"reasoning"}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"","type":"agent_message","text":"a"}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"a\/b"}}"#.to_owned(),
        ];
        for line in &typical {
            assert!(skim(line.as_bytes()).is_some(), "{line}");
            assert_eq!(alike(format!("{line}\n").as_bytes()), 1);
        }
        let given_up = [
            completed("x", "-0", "failed"),
            completed("x", "01", "failed"),
            completed("x", "1.0", "failed"),
            completed("x", "1e2", "failed"),
            completed("x", "9223372036854775808", "failed"),
            completed("x", "-", "failed"),
            completed("x", "true", "failed"),
            completed("x", "\"1\"", "failed"),
            completed("x", "0", "complet\\u0065d"),
            completed("a\\/b", "0", "completed"),
            completed("\\u00e9", "0", "completed"),
            started("", "ls"),
            started("item_\\u0031", "ls"),
            r#"{"type":"item.updated","item":{"id":"item_1","type":"command_execution","command":"ls","aggregated_output":"a","exit_code":null,"status":"in_progress"}}"#.to_owned(),
            r#"{"type":"item.started","item":{"id":"item_1","type":"reasoning","text":"a"}}"#.to_owned(),
            r#"{"type":"item.updated","item":{"id":"item_1","type":"agent_message","text":"a"}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"item_1","item_type":"reasoning","text":"a"}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"item_1","type":"error","message":"a"}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"item_1","type":"error","text":"a"}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"item_1","type":"todo_list","text":"a"}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"item_1","type":"reasoning"}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"item_1","type":"reasoning","text":null}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"item_1","type":"reasoning","text":7}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"item_1","type":"reasoning","text":"a","text":"b"}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"item_1","type":"reasoning","text":"a","status":"completed"}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"item_1","type":"reasoning","text":"a","exit_code":0}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"a","command":"ls"}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"a","summary":[]}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"\ud800"}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"a\/b"}}"#.replace("\\/", "\t\u{1}"),
            r#"{"type":"item.completed","item":{"id":"item_\u0031","type":"agent_message","text":"a"}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"ls","text":"a","aggregated_output":"a","exit_code":0,"status":"completed"}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"item_1","item_type":"command_execution","command":"ls","aggregated_output":"a","exit_code":0,"status":"completed"}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"item_1","type":"command_execution","type":"command_execution","command":"ls","aggregated_output":"a","exit_code":0,"status":"completed"}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"ls","aggregated_output":"a","aggregated_output":"b","exit_code":0,"status":"completed"}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":["bash","-lc","ls"],"aggregated_output":"a","exit_code":0,"status":"completed"}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"ls","aggregated_output":null,"exit_code":0,"status":"completed"}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"ls","aggregated_output":"a","exit_code":0,"status":null}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"ls","aggregated_output":"a","exit_code":0,"status":"completed","duration_ms":5}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"item_1","command":"ls","aggregated_output":"a","exit_code":0,"status":"completed"}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"type":"command_execution","command":"ls","aggregated_output":"a","exit_code":0,"status":"completed"}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"item_1","type":"command_execution","aggregated_output":"a","exit_code":0,"status":"completed"}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"item_1", "type":"command_execution","command":"ls","aggregated_output":"a","exit_code":0,"status":"completed"}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"ls","aggregated_output":"a","exit_code":0,"status":"completed"}} "#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"ls","aggregated_output":"a","exit_code":0,"status":"completed"}}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"ls","aggregated_output":"a","exit_code":0,"status":"completed"}"#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"ls","aggregated_output":"a","exit_code":0,"status":"completed",}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"ls","aggregated_output":"a","exit_code":0,"status":"completed"},"x":1}"#.to_owned(),
            r#"{"type":"item.completed","item":{"i\u0064":"item_1","type":"command_execution","command":"ls","aggregated_output":"a","exit_code":0,"status":"completed"}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"ls","aggregated_output":"a","exit_code":0,"status":"completed"}}"#.replace("\"a\"", "\"a\tb\""),
            r#"{"type":"item.completed","item":{}}"#.to_owned(),
            r#"{"type":"item.completed","item":{"#.to_owned(),
        ];
        for line in &given_up {
            assert!(skim(line.as_bytes()).is_none(), "{line}");
            assert_eq!(alike(format!("{line}\n").as_bytes()), 0);
        }
        let mut invalid = completed("caf", "0", "completed").into_bytes();
        let at = invalid.len() - 40;
        invalid.insert(at, 0xE9);
        assert!(skim(&invalid).is_none());
        alike(&invalid);
    }
}
