//! A command item's line read by a skim, without the JSON parser.
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
//! It gives up (`None`; the line is then parsed as before) at anything it cannot read
//! exactly as the parser would: whitespace between tokens, another event or item type, a
//! field twice, a field the item does not have here (the input report counts those), a
//! `null` other than a started command's exit code, an escaped key, id, type or status, an
//! empty id, a command that is not a string, an exit code that is not a whole number an
//! `i64` holds (or `-0`), invalid UTF-8, a control character, an escape JSON does not have,
//! and an output escaped otherwise than the writer escapes it (`\/`, `\u00e9`, ...). What it
//! accepts, the parser accepts, with the same fields ([`tests`] holds the two readings to
//! each other). The line is read through [`Compact`], the compact-line reader the adapters'
//! skims share.
//!
//! Where the time goes now (callgrind, `axt normalize -p codex` of the bench's 5 MB stream:
//! 88.5M instructions, from 104.7M parsed): this skim 29.1M, of it [`writers_string_end`]
//! 19.9M (4.5 instructions a byte: the bench's outputs have a backslash every 12 bytes),
//! copying the output into its [`ToolOutput`] 4.5M, the UTF-8 check 2.4M. Reusing a word's
//! flags after each escape instead of loading the word again measured no better there
//! (19.9M -> 20.5M over the bench's outputs, in a harness). Outside the adapter: a failed
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

/// The command item `bytes` holds (see the module docs); `None` when it is no line this
/// reading takes.
pub(super) fn skim(bytes: &[u8]) -> Option<Command<'_>> {
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
fn members(line: &str, at: usize, done: bool) -> Option<Command<'_>> {
    let mut reader = Compact::new(line, at);
    let mut kind = None;
    let mut id = None;
    let mut command = None;
    let mut output = None;
    let mut exit_code = None;
    let mut status = None;
    loop {
        match reader.key()? {
            "type" => {
                let text = reader.plain()?;
                if text != "command_execution" {
                    return None;
                }
                once(&mut kind, text)?;
            }
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
    kind?;
    Some(Command {
        done,
        id: id.filter(|id: &&str| !id.is_empty())?,
        command: command?,
        // Two bytes are the empty string's quotes.
        output: output
            .filter(|json| json.len() > 2)
            .map(|json| ToolOutput::escaped(&line.as_bytes()[json])),
        exit_code: exit_code.flatten(),
        status,
    })
}

// The bench's generator, for the test that reads its stream both ways.
#[cfg(test)]
#[allow(dead_code)]
#[path = "../../../benches/codex_stream/mod.rs"]
mod codex_stream;
#[cfg(test)]
#[allow(dead_code)]
#[path = "../../../benches/gen_common/mod.rs"]
mod gen_common;
#[cfg(test)]
#[allow(dead_code)]
#[path = "../../../benches/measure/mod.rs"]
mod measure;

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::super::State;
    use super::codex_stream;
    use super::*;
    use crate::normalize::driver::Driver;
    use crate::normalize::framing::Lines;
    use crate::normalize::{Diagnostic, Item, Normalizer, Options, Output, RunMeta};

    /// What the adapter makes of `input`, command lines skimmed or parsed.
    fn read(input: &[u8], skim: bool) -> (Vec<Item>, RunMeta, Vec<Diagnostic>) {
        let mut state = State::new();
        state.skim = skim;
        let mut normalizer = Driver::<Lines, State>::new(&Options::default(), state);
        let mut out = Output::default();
        normalizer.push(input, &mut out);
        normalizer.finish(&mut out);
        (out.items, normalizer.meta().clone(), out.diagnostics)
    }

    /// The two readings of `input` alike: the same items (outputs held alike, escaped or
    /// not), run metadata with its input report, and diagnostics. How many of its lines
    /// the skim takes.
    fn alike(input: &[u8]) -> usize {
        let skimmed = read(input, true);
        let parsed = read(input, false);
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
        assert_eq!(held(&skimmed.0), held(&parsed.0), "{shown}");
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
        let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
        let mut inputs = Vec::new();
        let mut dirs = vec![corpus];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).expect("corpus dir") {
                let path = entry.expect("entry").path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.to_string_lossy().contains("codex")
                    && path.extension().is_some_and(|e| e == "jsonl")
                {
                    inputs.push(path);
                }
            }
        }
        assert!(inputs.len() >= 20, "{inputs:?}");
        let mut taken = 0;
        for path in &inputs {
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
    /// writer does not write (output) or one the parse refuses.
    #[test]
    fn a_command_is_skimmed_as_the_parse_reads_it_wherever_its_escapes_fall() {
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
            "\\u001B",
            "\\u000a",
            "\\u00e9",
            "\\u2028",
            "\\ud83d\\ude00",
            "\\ud800",
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
        let writers = |piece: &str| {
            serde_json::from_str::<String>(&format!("\"{piece}\"")).is_ok_and(|text| {
                serde_json::to_string(&text).is_ok_and(|json| json == format!("\"{piece}\""))
            })
        };
        let mut taken = 0;
        for len in 0..=40 {
            for piece in pieces {
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
                        assert!(!writers(piece), "{output}");
                    }
                    if skims[0].is_none() {
                        let lone = piece == "\\ud800";
                        let refused =
                            serde_json::from_str::<String>(&format!("\"{piece}\"")).is_err();
                        assert!(lone || refused, "{command}");
                    }
                }
            }
        }
        assert!(taken > 1_500, "{taken}");
    }

    #[test]
    fn lines_other_than_a_compact_command_item_are_given_up_and_read_alike() {
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
            r#"{"type":"item.completed","item":{"id":"item_1","type":"reasoning","text":"a"}}"#.to_owned(),
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
