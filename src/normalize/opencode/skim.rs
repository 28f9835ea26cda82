//! A tool part's line, a step's and a text's, read by a skim of the line, without the JSON
//! parser.
//!
//! Most of a `run --format json` stream's bytes are `tool_use` events, each a tool part
//! whose `state.output` is the tool's whole output (72% of the bench stream's bytes; OpenCode's
//! bash tool repeats it in `state.metadata.output`). The parser unescaped every output, which
//! [`ToolOutput`] then kept as the record escaped it, the text thrown away. [`skim`] reads such
//! a line token by token as OpenCode writes it (`JSON.stringify`, compact; OpenCode 1.18's
//! `run.ts`, the captures in `shared/captures/opencode/`): the output's JSON taken as it is
//! ([`writers_string_end`]: exactly the writer's escaping, so never unescaped), every other
//! string skipped the same way, the tool's input read as a tree. `step_start` and
//! `step_finish` events (a step's tokens, cost and reason) are read alike, and `text` and
//! `reasoning` events (13% of the bench stream's bytes), whose text is unescaped in one pass
//! straight into the block's string ([`Compact::unescaped`]), as the parse unescapes it.
//!
//! It gives up (`None`; the line is then parsed as before) at anything it does not read
//! exactly as the parse would: whitespace between tokens, a field twice, a top-level field
//! an event does not have (the input report counts those), an escaped key, id, name or
//! status, a string other than a text escaped otherwise than the writer escapes (`\/`, a
//! `\u` other than a control character's, which leaves out the surrogates simd-json refuses
//! alone), a text that is no string or has a `\u` escape of a surrogate (simd-json reads a
//! pair and refuses a lone one: not told apart), a number past 18 digits or with an
//! exponent, `-0`, a field the mapping reads as a string or an object that is not one, a
//! tool part without its `state`, nesting deeper than [`COMPACT_DEPTH`], invalid UTF-8.
//! What it accepts, the parse accepts, and it hands back what [`super::State::event`] takes
//! of the parsed event ([`tests`] holds the two readings to each other over every fixture,
//! the bench's stream and generated lines). The line is read through [`Compact`], the
//! compact-line reader the adapters' skims share.
//!
//! [`writers_string_end`]: crate::normalize::skim::writers_string_end
//! [`COMPACT_DEPTH`]: crate::normalize::skim::COMPACT_DEPTH

use std::ops::Range;

use serde_json::Value;

use super::parts::{Said, Step, TokenCounts, counts_usage, outcome, stop_reason};
use crate::model::ToolOutput;
use crate::normalize::skim::{Compact, once};

/// What [`super::State::event`] takes of an event the skim read.
pub(super) struct Skimmed<'a> {
    pub(super) kind: &'a str,
    pub(super) timestamp: Option<i64>,
    pub(super) session_id: Option<&'a str>,
    pub(super) message_id: Option<&'a str>,
    pub(super) said: Said,
    /// The part as a step's end, for a `step_finish` event.
    pub(super) step: Option<Step>,
}

/// The event `bytes` holds, when it is one this reading takes (see the module docs).
pub(super) fn skim(bytes: &[u8]) -> Option<Skimmed<'_>> {
    const TYPE: &[u8] = b"{\"type\":\"";
    if !bytes.starts_with(TYPE) {
        return None;
    }
    // Checked whole, once: every piece taken below is cut at an ASCII byte.
    let line = simdutf8::basic::from_utf8(bytes).ok()?;
    let mut reader = Compact::new(line, TYPE.len() - 1);
    let kind = reader.plain()?;
    if !matches!(
        kind,
        "tool_use" | "step_start" | "step_finish" | "text" | "reasoning"
    ) {
        return None;
    }
    let (mut timestamp, mut session_id, mut part) = (None, None, None);
    reader.members_after_first(|reader, key| match key {
        "timestamp" => once(&mut timestamp, reader.integer()?),
        "sessionID" => once(&mut session_id, reader.plain()?),
        "part" => once(&mut part, PartRead::read(reader)?),
        _ => None,
    })?;
    if reader.position() != bytes.len() {
        return None;
    }
    let mut part: PartRead<'_> = part?;
    let said = part.said(line)?;
    Some(Skimmed {
        kind,
        timestamp,
        session_id,
        message_id: part.message_id,
        said,
        step: (kind == "step_finish").then(|| part.step()),
    })
}

/// A part's members the mapping reads (as [`super::parts::Part`] reads them; a field given
/// twice gives up, where serde derive refuses it and the lenient part reader takes the last:
/// either way, the parse decides).
#[derive(Default)]
struct PartRead<'a> {
    kind: Option<&'a str>,
    message_id: Option<&'a str>,
    tool: Option<&'a str>,
    call_id: Option<&'a str>,
    /// Unescaped as the parse reads it.
    text: Option<String>,
    state: Option<StateRead<'a>>,
    tokens: Option<TokenCounts>,
    /// As `Value::as_f64` reads it.
    cost: Option<Option<f64>>,
    reason: Option<&'a str>,
}

/// A tool part's `state`, as [`super::parts`]'s `ToolState` reads it.
#[derive(Default)]
struct StateRead<'a> {
    status: Option<&'a str>,
    input: Option<Range<usize>>,
    exit: Option<Option<i64>>,
    /// The string's JSON, quotes included.
    output: Option<Range<usize>>,
    error: Option<Range<usize>>,
}

impl<'a> PartRead<'a> {
    fn read(reader: &mut Compact<'a>) -> Option<Self> {
        let mut part = PartRead::default();
        reader.object(|reader, key| match key {
            "type" => once(&mut part.kind, reader.plain()?),
            "messageID" => once(&mut part.message_id, reader.plain()?),
            // Unescaped straight into the text block's string.
            "text" => once(&mut part.text, reader.unescaped()?),
            "tool" => once(&mut part.tool, reader.plain()?),
            "callID" => once(&mut part.call_id, reader.plain()?),
            "state" => once(&mut part.state, StateRead::read(reader)?),
            "tokens" => once(&mut part.tokens, tokens(reader)?),
            "cost" => once(&mut part.cost, reader.float(1)?),
            "reason" => once(&mut part.reason, reader.plain()?),
            _ => reader.value(1).map(drop),
        })?;
        Some(part)
    }

    /// What of the part becomes blocks, as `Part::said` reads it.
    fn said(&mut self, line: &str) -> Option<Said> {
        match self.kind {
            Some(kind @ ("text" | "reasoning")) => Some(match self.text.take() {
                Some(text) if !text.is_empty() => Said::Text {
                    thinking: kind == "reasoning",
                    text,
                },
                _ => Said::Nothing,
            }),
            Some("tool") => {
                let state = self.state.as_ref()?;
                let status = outcome(state.status);
                let content = match status {
                    Some(true) => state.output.clone(),
                    Some(false) => state.error.clone(),
                    None => None,
                };
                let input = match &state.input {
                    Some(input) => serde_json::from_str(&line[input.clone()]).ok()?,
                    None => Value::Object(Default::default()),
                };
                Some(Said::Tool {
                    tool_name: self.tool.unwrap_or_default().to_owned(),
                    tool_id: self.call_id.unwrap_or_default().to_owned(),
                    input,
                    status,
                    exit_code: state.exit.flatten(),
                    content: match content {
                        Some(json) => ToolOutput::escaped(&line.as_bytes()[json]),
                        None => Value::Null.into(),
                    },
                })
            }
            _ => Some(Said::Nothing),
        }
    }

    /// The part as a step's end, as `Part::step` reads it.
    fn step(self) -> Step {
        Step {
            usage: self.tokens.map(counts_usage),
            cost: self.cost.flatten(),
            stop: self.reason.map(stop_reason),
        }
    }
}

impl<'a> StateRead<'a> {
    fn read(reader: &mut Compact<'a>) -> Option<Self> {
        let mut state = StateRead::default();
        reader.object(|reader, key| match key {
            "status" => once(&mut state.status, reader.plain()?),
            "input" => once(&mut state.input, reader.value(2)?),
            "metadata" => once(&mut state.exit, exit(reader)?),
            "output" => once(&mut state.output, reader.writers_string()?),
            "error" => once(&mut state.error, reader.writers_string()?),
            _ => reader.value(2).map(drop),
        })?;
        Some(state)
    }
}

/// A tool state's `metadata`: its `exit` as `Value::as_i64` reads it (`Some(None)` for no
/// exit code).
fn exit(reader: &mut Compact<'_>) -> Option<Option<i64>> {
    if reader.peek() != Some(b'{') {
        reader.value(3)?;
        return Some(None);
    }
    let mut exit = None;
    reader.object(|reader, key| match key {
        "exit" => once(&mut exit, reader.whole(4)?),
        _ => reader.value(4).map(drop),
    })?;
    Some(exit.flatten())
}

/// A part's `tokens`, as `tokens_usage` reads them from their tree.
fn tokens(reader: &mut Compact<'_>) -> Option<TokenCounts> {
    let mut counts = TokenCounts::default();
    let mut seen = [false; 4];
    let count =
        |reader: &mut Compact<'_>| Some(reader.whole(3)?.and_then(|n| u64::try_from(n).ok()));
    reader.object(|reader, key| {
        let (slot, index) = match key {
            "input" => (&mut counts.input, 0),
            "output" => (&mut counts.output, 1),
            "reasoning" => (&mut counts.reasoning, 2),
            "cache" => {
                if std::mem::replace(&mut seen[3], true) {
                    return None;
                }
                if reader.peek() != Some(b'{') {
                    return reader.value(3).map(drop);
                }
                let (mut read, mut write) = (None, None);
                reader.object(|reader, key| match key {
                    "read" => once(&mut read, count(reader)?),
                    "write" => once(&mut write, count(reader)?),
                    _ => reader.value(4).map(drop),
                })?;
                counts.cache_read = read.flatten();
                counts.cache_write = write.flatten();
                return Some(());
            }
            _ => return reader.value(3).map(drop),
        };
        if std::mem::replace(&mut seen[index], true) {
            return None;
        }
        *slot = count(reader)?;
        Some(())
    })?;
    Some(counts)
}

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;

    use super::*;
    use crate::normalize::framing::Record;
    use crate::normalize::json::JsonParser;
    use crate::normalize::lenient::Slot;
    use crate::normalize::report::Fate;

    /// Whether a tool part's output is held as its JSON.
    fn held(said: &Said) -> Option<bool> {
        match said {
            Said::Tool { content, .. } => Some(content.json().is_some()),
            _ => None,
        }
    }

    /// What the adapter takes of `line` as the parse reads it, when it reads it as an event
    /// with a part, every field known.
    fn parsed(line: &str) -> Option<String> {
        let record = Record::line(line.as_bytes(), 1, 0, true);
        let mut seen = None;
        let mut parser = JsonParser::default();
        parser.parse_in::<super::super::EventShape>(record, &mut Vec::new(), |event, parsed, _| {
            if let Some(Slot::Read(mut part)) = event.part {
                let step = (event.kind == "step_finish").then(|| part.step());
                let message = part.message_id.take();
                let said = part.said(parsed);
                seen = Some(format!(
                    "{} {:?} {:?} {:?} {step:?} {:?} {:?}",
                    event.kind,
                    event.timestamp,
                    event.session_id.as_deref(),
                    message.as_deref(),
                    held(&said),
                    said.blocks()
                ));
            }
            Fate::Mapped
        });
        let report = parser.tally.report();
        let all_known = report.records.values().all(|r| r.unknown_fields.is_empty());
        seen.filter(|_| all_known)
    }

    fn skimmed(line: &str) -> Option<String> {
        let event = skim(line.as_bytes())?;
        Some(format!(
            "{} {:?} {:?} {:?} {:?} {:?} {:?}",
            event.kind,
            event.timestamp,
            event.session_id,
            event.message_id,
            event.step,
            held(&event.said),
            event.said.blocks()
        ))
    }

    /// `line` skimmed: `None` when the skim gives it up, else what it reads, which must be
    /// what the parse reads.
    fn agrees(line: &str) -> Option<String> {
        let skim = skimmed(line)?;
        assert_eq!(Some(&skim), parsed(line).as_ref(), "{line}");
        Some(skim)
    }

    const TOOL: &str = r#"{"type":"tool_use","timestamp":1767036061199,"sessionID":"ses_4947","part":{"id":"prt_b6b8","sessionID":"ses_4947","messageID":"msg_b6b8","type":"tool","callID":"r9bQ","tool":"bash","state":{"status":"completed","input":{"command":"echo hello","description":"Print","env":{"CI":"true"}},"output":"OUT","title":"Print","metadata":{"output":"OUT","exit":0,"description":"Print","truncated":false},"time":{"start":1767036061123,"end":1767036061173}}}}"#;
    const TEXT: &str = r#"{"type":"text","timestamp":1767036060500,"sessionID":"ses_93be","part":{"id":"prt_cef1","sessionID":"ses_93be","messageID":"msg_2ee2","type":"text","text":"TEXT","time":{"start":1767036060071,"end":1767036060074}}}"#;
    const STEP: &str = r#"{"type":"step_finish","timestamp":1767036061205,"sessionID":"ses_4947","part":{"id":"prt_b6b8","sessionID":"ses_4947","messageID":"msg_b6b8","type":"step-finish","reason":"tool-calls","snapshot":"ee34","cost":0,"tokens":{"input":21772,"output":110,"reasoning":0,"cache":{"read":0,"write":0}}}}"#;

    /// Every line of the corpus the skim takes is read alike by the parse, and it takes the
    /// tool and step lines.
    #[test]
    fn a_corpus_line_is_skimmed_as_the_parse_reads_it() {
        let corpus = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/normalize/opencode");
        let (mut lines, mut taken) = (0, 0);
        for outcome in ["ok", "err"] {
            for entry in std::fs::read_dir(format!("{corpus}/{outcome}")).expect("the corpus") {
                let input = std::fs::read_to_string(entry.expect("a fixture").path());
                for line in input.expect("a fixture").lines() {
                    lines += 1;
                    taken += usize::from(agrees(line).is_some());
                }
            }
        }
        assert!(lines > 80 && taken > 30, "{taken} of {lines}");
        assert!(agrees(TOOL).is_some() && agrees(STEP).is_some() && agrees(TEXT).is_some());
    }

    /// Every line of the bench's generated stream: read alike by the skim and the parse, and
    /// every line of it taken (it is written as OpenCode writes).
    #[test]
    fn the_bench_stream_is_skimmed_as_the_parse_reads_it() {
        let stream = crate::normalize::bench_streams::opencode_stream::opencode_stream(2 << 20, 7);
        let text = std::str::from_utf8(&stream).expect("text");
        let (mut lines, mut taken, mut texts) = (0, 0, 0);
        for line in text.lines() {
            lines += 1;
            if agrees(line).is_some() {
                taken += 1;
                texts += usize::from(
                    line.starts_with("{\"type\":\"text\"")
                        || line.starts_with("{\"type\":\"reasoning\""),
                );
            }
        }
        assert!(
            taken == lines && texts > lines / 5,
            "{taken} ({texts} texts) of {lines}"
        );
    }

    /// Every escape and character at every place of texts of 0 to 24 bytes, in a text part
    /// and a reasoning part: a line the skim takes is read alike by the parse, as a text; one
    /// it gives up is one the parse refuses, or has a `\u` surrogate (simd-json reads a pair,
    /// not told apart here) or a control character as itself (simd-json takes it).
    #[test]
    fn a_text_is_skimmed_as_the_parse_reads_it_wherever_its_escapes_fall() {
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
            "\\u0001",
            "\\u001F",
            "\\u0041",
            "\\u00e9",
            "\\u00E9",
            "\\u2028",
            "\\uffff",
            "\\ud83d\\ude00",
            "\\ud800",
            "\\udc00",
            "\\u12",
            "\\u12g4",
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
        for len in 0..=24 {
            for piece in pieces {
                for at in [0, len / 2, len] {
                    let mut said = "x".repeat(len);
                    said.insert_str(at, piece);
                    let text = TEXT.replace("\"TEXT\"", &format!("\"{said}\""));
                    let reasoning = text.replace("\"type\":\"text\"", "\"type\":\"reasoning\"");
                    for line in [text, reasoning] {
                        let surrogate = piece.starts_with("\\ud");
                        match agrees(&line) {
                            Some(read) => {
                                taken += 1;
                                assert!(!surrogate, "{line}");
                                assert!(
                                    read.contains("Text") || read.contains("Thinking"),
                                    "{line}"
                                );
                            }
                            // A control character the parse takes as it is.
                            None => assert!(
                                surrogate
                                    || piece.bytes().any(|b| b < 0x20)
                                    || parsed(&line).is_none(),
                                "{line}"
                            ),
                        }
                    }
                }
            }
        }
        assert!(taken > 2_500, "{taken}");
    }

    /// A string is unescaped alike by the block-wise `skim::unescaped` (the texts' reading)
    /// and by `skim::unescape`, wherever its escapes fall against the blocks and the line's
    /// end; each gives up alike. (Here, not in `skim`'s own tests: that file is at its
    /// length limit.)
    #[test]
    fn a_string_is_unescaped_alike_one_block_or_one_run_at_a_time() {
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
            "\\u001f",
            "\\u0041",
            "\\u00e9",
            "\\u00E9",
            "\\u2028",
            "\\uFFFF",
            "\\ud83d\\ude00",
            "\\ud800",
            "\\u12",
            "\\u12g4",
            "\\x",
            "\\",
            "\t",
            "\u{7f}",
            "\u{e9}",
            "\u{1F600}",
            "ab",
        ];
        let mut read = 0;
        for len in 0..=40_usize {
            for piece in pieces {
                for at in [0, len.min(1), len / 2, len.saturating_sub(1), len] {
                    let mut said = "x".repeat(len);
                    said.insert_str(at, piece);
                    for after in ["", ",\"n\":1}", ",\"time\":{\"start\":1767036060071}}}"] {
                        let line = format!("{{\"text\":\"{said}\"{after}");
                        let mut one = String::new();
                        let runs = crate::normalize::skim::unescape(&line, 9, &mut one)
                            .map(|end| (one, end));
                        let blocks = crate::normalize::skim::unescaped(&line, 9);
                        assert_eq!(blocks, runs, "{line}");
                        read += usize::from(blocks.is_some());
                    }
                }
            }
        }
        assert!(read > 3_000, "{read}");
    }

    /// Every escape and character at every place of outputs of 0 to 24 bytes, in the output,
    /// the error and the fields skipped: a line the skim takes is read alike by the parse,
    /// its output held; one it gives up has an escape the writer does not write there.
    #[test]
    fn an_output_is_skimmed_as_the_parse_reads_it_wherever_its_escapes_fall() {
        let pieces = [
            "\\\"",
            "\\\\",
            "\\/",
            "\\b",
            "\\f",
            "\\n",
            "\\r",
            "\\t",
            "\\u0001",
            "\\u001f",
            "\\u001F",
            "\\u000a",
            "\\u0041",
            "\\u00e9",
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
        let mut taken = 0;
        for len in 0..=24 {
            for piece in pieces {
                for at in [0, len / 2, len] {
                    let mut output = "x".repeat(len);
                    output.insert_str(at, piece);
                    let json = format!("\"{output}\"");
                    let writers = serde_json::from_str::<String>(&json)
                        .is_ok_and(|text| serde_json::to_string(&text).ok() == Some(json.clone()));
                    let variants = [
                        TOOL.replace("\"OUT\",\"title\"", &format!("{json},\"title\"")),
                        TOOL.replace(
                            "\"output\":\"OUT\",\"exit\"",
                            &format!("\"output\":{json},\"exit\""),
                        ),
                        TOOL.replace("\"completed\"", "\"error\"")
                            .replace(",\"title\"", &format!(",\"error\":{json},\"title\"")),
                        TOOL.replace("echo hello", &output),
                    ];
                    for line in variants {
                        match agrees(&line) {
                            Some(read) => {
                                taken += 1;
                                assert!(read.contains("Some(true)"), "{line}");
                            }
                            None => assert!(!writers || line.contains("echo"), "{line}"),
                        }
                    }
                }
            }
        }
        assert!(taken > 2_500, "{taken}");
    }

    /// Numbers, literals, types, orders, duplicates, whitespace and unknown fields where the
    /// skim reads and skips: what it takes, the parse reads alike.
    #[test]
    fn edges_are_skimmed_as_the_parse_reads_them_or_given_up() {
        let numbers = [
            "0",
            "7",
            "-7",
            "-0",
            "01",
            "1.5",
            "-1.5",
            "0.25",
            "1.",
            ".5",
            "1e3",
            "1E3",
            "-",
            "123456789012345678",
            "1234567890123456789",
            "12345678901234567890",
            "-0.5",
            "0.123456789012345",
            "0.1234567890123456",
            "9007199254740993.0",
            "true",
            "null",
            "\"5\"",
            "[]",
            "{}",
            "[1,{\"a\":[null]}]",
        ];
        let mut lines = vec![];
        for number in numbers {
            lines.push(TOOL.replace("1767036061199", number));
            lines.push(TOOL.replace("\"exit\":0", &format!("\"exit\":{number}")));
            lines.push(TOOL.replace("\"start\":1767036061123", &format!("\"start\":{number}")));
            lines.push(TOOL.replace(
                "\"command\":\"echo hello\"",
                &format!("\"command\":{number}"),
            ));
            lines.push(STEP.replace("\"cost\":0", &format!("\"cost\":{number}")));
            lines.push(STEP.replace("21772", number));
            lines.push(STEP.replace("\"reasoning\":0", &format!("\"reasoning\":{number}")));
            lines.push(STEP.replace("\"read\":0", &format!("\"read\":{number}")));
            lines.push(STEP.replace("{\"read\":0,\"write\":0}", number));
            lines.push(STEP.replace("{\"input\":21772,", &format!("{{\"input\":{number},")));
            lines.push(TOOL.replace("{\"output\":\"OUT\",\"exit\":0,", &format!("{number},{{")));
        }
        let swaps = [
            ("\"status\":\"completed\"", "\"status\":\"running\""),
            ("\"status\":\"completed\"", "\"status\":\"error\""),
            ("\"status\":\"completed\"", "\"status\":null"),
            (
                "\"status\":\"completed\"",
                "\"status\":\"completed\",\"status\":\"error\"",
            ),
            ("\"output\":\"OUT\",\"title\"", "\"title\""),
            ("\"output\":\"OUT\",\"title\"", "\"output\":null,\"title\""),
            (
                "\"output\":\"OUT\",\"title\"",
                "\"output\":{\"a\":1},\"title\"",
            ),
            (
                "\"output\":\"OUT\",\"title\"",
                "\"output\":\"OUT\",\"output\":\"2\",\"title\"",
            ),
            ("\"exit\":0", "\"exit\":0,\"exit\":1"),
            ("\"exit\":0", "\"ex\\u0069t\":3"),
            ("\"metadata\":{", "\"metadata\":{\"x\":{},\"y\":[],"),
            ("\"type\":\"tool\"", "\"type\":\"patch\""),
            ("\"type\":\"tool\"", "\"type\":\"step-start\""),
            ("\"type\":\"tool\"", "\"type\":\"text\",\"text\":\"hi\""),
            ("\"type\":\"tool\"", "\"type\":7"),
            ("\"type\":\"tool\",", ""),
            ("\"tool\":\"bash\"", "\"tool\":\"b\\u0061sh\""),
            ("\"tool\":\"bash\"", "\"tool\":\"bash\",\"tool\":\"read\""),
            ("\"callID\":\"r9bQ\",", ""),
            ("\"messageID\":\"msg_b6b8\",", ""),
            ("\"messageID\":\"msg_b6b8\"", "\"messageID\":null"),
            ("\"input\":{", "\"input\":{\"n\":null,\"a\":[1.5,-2,true],"),
            (
                "\"input\":{\"command\":\"echo hello\",\"description\":\"Print\",\"env\":{\"CI\":\"true\"}},",
                "",
            ),
            ("\"input\":{", "\"input\":{\"command\":\"x\","),
            ("\"state\":{", "\"state\":{\"extra\":[{}],"),
            ("\"state\":{\"status\"", "\"state\":[],\"s\":{\"status\""),
            ("\"sessionID\":\"ses_4947\",\"part\"", "\"part\""),
            (
                "\"sessionID\":\"ses_4947\",\"part\"",
                "\"sessionID\":null,\"part\"",
            ),
            ("\"timestamp\":1767036061199,", ""),
            (
                "\"timestamp\":1767036061199,",
                "\"timestamp\":1,\"timestamp\":2,",
            ),
            ("\"part\":{", "\"extra\":1,\"part\":{"),
            ("\"part\":{", "\"part\":{},\"part\":{"),
            ("{\"type\":\"tool_use\"", "{\"type\":\"text\""),
            ("{\"type\":\"tool_use\"", "{\"type\":\"step_finish\""),
            ("{\"type\":\"tool_use\"", "{\"type\":\"reasoning\""),
            ("{\"type\":\"tool_use\"", "{\"type\":\"error\""),
            ("\"id\":\"prt_b6b8\",", "\"id\" :\"prt_b6b8\","),
            ("\"id\":\"prt_b6b8\",", "\"id\":\"prt_b6b8\" ,"),
            ("\"id\":\"prt_b6b8\",", "\"id\":\"prt_b6b8\",,"),
            ("\"id\":\"prt_b6b8\",", "\"id\":\"prt\\/b6b8\","),
            ("\"id\":\"prt_b6b8\",", "\"id\":\"prt\\ud800\","),
            ("\"id\":\"prt_b6b8\",", "\"id\":nul,"),
            ("}}}}", "}}} }"),
            ("}}}}", "}}}"),
            ("}}}}", "}}}}}"),
            ("}}}}", "}}}},"),
        ];
        for (from, to) in swaps {
            lines.push(TOOL.replacen(from, to, 1));
        }
        for (from, to) in [
            ("\"reason\":\"tool-calls\"", "\"reason\":\"stop\""),
            ("\"reason\":\"tool-calls\",", ""),
            ("\"reason\":\"tool-calls\"", "\"reason\":5"),
            ("\"tokens\":{", "\"tokens\":{\"x\":[1],"),
            ("\"tokens\":{", "\"tokens\":{\"input\":1,"),
            ("\"cache\":{", "\"cache\":{\"read\":1,"),
            (
                "\"cache\":{\"read\":0,\"write\":0}",
                "\"cache\":{},\"cache\":{}",
            ),
            (
                ",\"tokens\":{\"input\":21772,\"output\":110,\"reasoning\":0,\"cache\":{\"read\":0,\"write\":0}}",
                "",
            ),
            ("\"cost\":0,", ""),
            ("\"cost\":0,", "\"cost\":1,\"cost\":2,"),
            ("\"type\":\"step-finish\"", "\"type\":\"tool\""),
            ("{\"type\":\"step_finish\"", "{\"type\":\"step_start\""),
        ] {
            lines.push(STEP.replacen(from, to, 1));
        }
        let mut invalid = TOOL.as_bytes().to_vec();
        invalid.insert(TOOL.find("OUT").expect("an output"), 0xE9);
        assert!(skim(&invalid).is_none());
        let mut taken = String::new();
        for line in &lines {
            if agrees(line).is_some() {
                writeln!(taken, "{line}").expect("a string");
            }
        }
        // Some of every kind are taken, not all.
        let count = taken.lines().count();
        assert!(
            count > 100 && count < lines.len() - 60,
            "{count} of {}",
            lines.len()
        );
    }
}
