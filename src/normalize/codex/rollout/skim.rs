//! A rollout's call output lines read by a skim, without the JSON parser.
//!
//! Nearly every byte of a session file is a tool's output (85% of the bench store's bytes):
//! a `response_item` record of a `function_call_output` item, written by the CLI (0.66.0
//! and 0.142.5 alike, `corpus/import/codex`) as
//! `{"timestamp":"...","type":"response_item","payload":{"type":"function_call_output",
//! "call_id":"call_...","output":"..."}}`. Parsed, the output was unescaped into a `Value`,
//! copied into the Responses item and escaped again by the writer: 1,741M instructions of
//! the 5,991M of `axt import codex` over the bench's 100 sessions of 2 MiB, and the JSON
//! parse of those lines 2,700M more. [`skim`] reads such a line token by token as the CLI
//! writes it: the output is found by [`writers_string_end`] and held as the line escaped it
//! ([`ToolOutput`]), never unescaped; the Responses reading of the item is handed what the
//! parse would have handed it ([`ResponsesItems::call_output`]).
//!
//! It gives up (`None`; the line is then parsed as before) at anything it does not read
//! exactly as the parse would: the envelope's members in another order or with others, an
//! item of another type, the item's `type` not first, a member the item does not have here
//! (`status`, `caller`, `id`, ...: the Responses reading keeps or reads those), one twice,
//! whitespace between tokens, an escaped key, timestamp, type or call id, an output that
//! is no string or is escaped otherwise than the writer escapes it (`\/`, `\u00e9`, ...),
//! invalid UTF-8 and anything after the closing brace. What it takes, the parse reads with
//! the same fields ([`tests`] holds the two readings to each other).
//!
//! [`writers_string_end`]: crate::normalize::skim::writers_string_end
//! [`ResponsesItems::call_output`]: crate::normalize::openai::ResponsesItems::call_output

use crate::model::ToolOutput;
use crate::normalize::skim::{Compact, once, plain_end, token};

/// A call's output item, as its line has it.
pub(crate) struct CallOutput<'a> {
    /// The record's `timestamp`.
    pub(crate) timestamp: &'a str,
    /// The item's `type`, as the input report counts it.
    pub(crate) kind: &'static str,
    pub(crate) call_id: &'a str,
    /// `output`, as the line escaped it.
    pub(crate) output: ToolOutput,
}

const TIMESTAMP: &[u8] = b"{\"timestamp\":\"";
const PAYLOAD: &[u8] = b",\"type\":\"response_item\",\"payload\":{\"type\":\"";

/// The item kinds read here: each answers its call with its `output`, never as an error.
const KINDS: [&str; 3] = [
    "function_call_output",
    "custom_tool_call_output",
    "local_shell_call_output",
];

/// The call output `bytes` holds (see the module docs); `None` when it is no line this
/// reading takes.
pub(crate) fn skim(bytes: &[u8]) -> Option<CallOutput<'_>> {
    // The fixed tokens first, byte by byte: most lines that are no call output stop here,
    // before the line is checked as UTF-8.
    let stamp = token(bytes, 0, TIMESTAMP)?;
    let stamp_end = plain_end(bytes, stamp);
    let at = token(bytes, stamp_end, b"\"")?;
    let at = token(bytes, at, PAYLOAD)?;
    let end = plain_end(bytes, at);
    let kind = KINDS
        .into_iter()
        .find(|kind| &bytes[at..end] == kind.as_bytes())?;
    let at = token(bytes, end, b"\"")?;
    // Checked whole, once: every piece taken below is cut at an ASCII byte.
    let line = simdutf8::basic::from_utf8(bytes).ok()?;
    let mut reader = Compact::new(line, at);
    let mut call_id = None;
    let mut output = None;
    while reader.next()? {
        match reader.key()? {
            "call_id" => once(&mut call_id, reader.plain()?)?,
            "output" => once(&mut output, reader.writers_string()?)?,
            _ => return None,
        }
    }
    // The envelope's closing brace, and the line's end.
    if line.as_bytes().get(reader.position()..)? != b"}" {
        return None;
    }
    Some(CallOutput {
        timestamp: &line[stamp..stamp_end],
        kind,
        call_id: call_id?,
        output: ToolOutput::escaped(&line.as_bytes()[output?]),
    })
}

#[cfg(test)]
mod tests {
    use super::super::super::{corpus_files, read_skimmed_or_parsed};
    use super::*;
    use crate::model::{EventType, ExchangeEvent, MessagePayload, Payload, Role, encode_event};
    use crate::normalize::Item;
    use crate::normalize::bench_streams::codex_stream;
    use crate::normalize::skim::held_pieces::{HELD_STRING_PIECES, writer_writes};

    /// The two readings of `input` alike: the same items, run metadata with its input
    /// report, and diagnostics, and each item's output written to the same bytes. How many
    /// of its lines the skim takes.
    fn alike(input: &[u8]) -> usize {
        let skimmed = read_skimmed_or_parsed(input, true);
        let parsed = read_skimmed_or_parsed(input, false);
        let shown = String::from_utf8_lossy(input);
        assert_eq!(skimmed, parsed, "{shown}");
        // Each item's block written as the writer writes it: an output held escaped is
        // copied, one held as a value escaped.
        let written = |items: &[Item]| -> Vec<String> {
            items
                .iter()
                .map(|item| {
                    let message = MessagePayload::new(Role::User, vec![item.block.clone()]);
                    let payload = Payload::Message(message);
                    let mut event = ExchangeEvent::new("r", EventType::MessageUser, "a", payload);
                    event.seq = 1;
                    event.timestamp = crate::model::Timestamp::from_unix_nanos(0);
                    let mut line = Vec::new();
                    encode_event(&event, &mut line).expect("written");
                    String::from_utf8(line).expect("UTF-8")
                })
                .collect()
        };
        assert_eq!(written(&skimmed.0), written(&parsed.0), "{shown}");
        input
            .split(|&b| b == b'\n')
            .filter(|line| skim(line).is_some())
            .count()
    }

    fn output(kind: &str, call_id: &str, output: &str) -> String {
        format!(
            r#"{{"timestamp":"2026-03-14T09:00:17.382Z","type":"response_item","payload":{{"type":"{kind}","call_id":"{call_id}","output":"{output}"}}}}"#
        )
    }

    fn call(call_id: &str) -> String {
        format!(
            r#"{{"timestamp":"2026-03-14T09:00:10.573Z","type":"response_item","payload":{{"type":"function_call","name":"shell_command","arguments":"{{\"command\": \"ls\"}}","call_id":"{call_id}"}}}}"#
        )
    }

    /// Every Codex rollout in the corpus, and the outputs of the bench's generated stream as
    /// a session file holds them: read alike both ways, the outputs skimmed.
    #[test]
    fn every_codex_rollout_in_the_corpus_and_the_bench_outputs_read_alike() {
        let mut taken = 0;
        for path in &corpus_files() {
            taken += alike(&std::fs::read(path).expect("fixture"));
        }
        assert!(taken >= 8, "{taken}");
        // Each command's output of the exec stream, its bytes as that line escaped them, as
        // a call's output in a session file, after its call.
        let stream = codex_stream::codex_stream(1 << 20, 7);
        let mut session = Vec::new();
        let mut outputs = 0;
        for line in stream.split(|&b| b == b'\n') {
            let Some(start) = memchr::memmem::find(line, b"\"aggregated_output\":\"") else {
                continue;
            };
            let start = start + "\"aggregated_output\":".len();
            let Some(end) = crate::normalize::skim::writers_string_end(line, start + 1) else {
                continue;
            };
            let json = std::str::from_utf8(&line[start + 1..end - 1]).expect("UTF-8");
            let id = format!("call_{outputs}");
            session.extend_from_slice(
                format!("{}\n{}\n", call(&id), output(KINDS[0], &id, json)).as_bytes(),
            );
            outputs += 1;
        }
        assert!(outputs > 100, "{outputs}");
        assert_eq!(alike(&session), outputs);
    }

    /// Every escape and character at every place of outputs of 0 to 40 bytes: a line the
    /// skim takes is read alike by the parse; one it gives up has an escape the writer does
    /// not write, or one the parse refuses.
    #[test]
    fn an_output_is_skimmed_as_the_parse_reads_it_wherever_its_escapes_fall() {
        let mut taken = 0;
        for len in 0..=40 {
            for piece in HELD_STRING_PIECES {
                for at in [0, len / 2, len] {
                    let mut text = "x".repeat(len);
                    text.insert_str(at, piece);
                    let line = output(KINDS[(len + at) % 3], "call_1", &text);
                    let input = format!("{}\n{line}\n", call("call_1"));
                    let skimmed = skim(line.as_bytes()).is_some();
                    assert_eq!(alike(input.as_bytes()), usize::from(skimmed));
                    if skimmed {
                        taken += 1;
                    } else {
                        assert!(!writer_writes(piece), "{line}");
                    }
                }
            }
        }
        assert!(taken > 1_500, "{taken}");
    }

    #[test]
    fn lines_other_than_a_compact_call_output_are_given_up_and_read_alike() {
        let typical = [
            output("function_call_output", "call_1", "Exit code: 0\\nOutput:\\n\\u001b[0m"),
            output("custom_tool_call_output", "call_1", "{\\\"output\\\": \\\"ok\\\"}"),
            output("local_shell_call_output", "call_1", ""),
            output("function_call_output", "", "a"),
            output("function_call_output", "call_1", "caf\u{e9} \u{2192} \u{1F600}"),
            r#"{"timestamp":"","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"a"}}"#.to_owned(),
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","output":"a","call_id":"call_1"}}"#.to_owned(),
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"call_\u00e9","output":"a"}}"#.replace("\\u00e9", "\u{e9}"),
        ];
        for line in &typical {
            assert!(skim(line.as_bytes()).is_some(), "{line}");
            let input = format!("{}\n{line}\n", call("call_1"));
            assert_eq!(alike(input.as_bytes()), 1);
            assert_eq!(alike(format!("{line}\n").as_bytes()), 1);
        }
        let given_up = [
            output("function_call", "call_1", "a"),
            output("message", "call_1", "a"),
            output("function_call_outputs", "call_1", "a"),
            output("function_call_output", "call_1", "a\\/b"),
            output("function_call_output", "call_1", "\\u00e9"),
            output("function_call_output", "call_1", "a\tb"),
            output("function_call_output", "call_\\u0031", "a"),
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1"}}"#.to_owned(),
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","output":"a"}}"#.to_owned(),
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":null}}"#.to_owned(),
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":7}}"#.to_owned(),
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"a"}]}}"#.to_owned(),
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":{"content":"a"}}}"#.to_owned(),
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":null,"output":"a"}}"#.to_owned(),
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"a","status":"failed"}}"#.to_owned(),
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"a","caller":{"type":"program","caller_id":"p"}}}"#.to_owned(),
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","id":"fc_1","call_id":"call_1","output":"a"}}"#.to_owned(),
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","call_id":"call_2","output":"a"}}"#.to_owned(),
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"a","output":"b"}}"#.to_owned(),
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"a","type":"message"}}"#.to_owned(),
            r#"{"timestamp":"t","type":"response_item","payload":{"call_id":"call_1","type":"function_call_output","output":"a"}}"#.to_owned(),
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"a"},"x":1}"#.to_owned(),
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"a"}} "#.to_owned(),
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"a"}}}"#.to_owned(),
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"a"}"#.to_owned(),
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"a",}}"#.to_owned(),
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output", "call_id":"call_1","output":"a"}}"#.to_owned(),
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"a"},"timestamp":"u"}"#.to_owned(),
            r#"{"timestamp":"t\u0031","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"a"}}"#.to_owned(),
            r#"{"timestamp":null,"type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"a"}}"#.to_owned(),
            r#"{"timestamp":7,"type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"a"}}"#.to_owned(),
            r#"{"type":"response_item","timestamp":"t","payload":{"type":"function_call_output","call_id":"call_1","output":"a"}}"#.to_owned(),
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_\u006futput","call_id":"call_1","output":"a"}}"#.to_owned(),
            r#"{"timestamp":"t","type":"response_item","payload":{"\u0074ype":"function_call_output","call_id":"call_1","output":"a"}}"#.to_owned(),
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_\u0069d":"call_1","output":"a"}}"#.to_owned(),
            r#"{"timestamp":"t","type":"event_msg","payload":{"type":"function_call_output","call_id":"call_1","output":"a"}}"#.to_owned(),
            r#"{"timestamp":"t","type":"response_item","payload":{}}"#.to_owned(),
            r#"{"timestamp":"t","type":"response_item","payload":{"#.to_owned(),
            r#"{"timestamp":"t""#.to_owned(),
        ];
        for line in &given_up {
            assert!(skim(line.as_bytes()).is_none(), "{line}");
            let input = format!("{}\n{line}\n", call("call_1"));
            assert_eq!(alike(input.as_bytes()), 0);
        }
        let mut invalid = output("function_call_output", "call_1", "caf").into_bytes();
        let at = invalid.len() - 5;
        invalid.insert(at, 0xE9);
        assert!(skim(&invalid).is_none());
        alike(&invalid);
    }
}
