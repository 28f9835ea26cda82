//! The lines most of a Copilot session is, read by a skim of the line as Copilot CLI writes
//! it, not by the JSON parser: the streaming deltas the adapter ignores ([`skim_ignored`]:
//! their envelope alone) and the tool results whose output it copies ([`skim_complete`]:
//! the output's bytes held as the record escaped them, never unescaped). Each gives up
//! (`None`) at anything it does not read exactly as [`super::wire::Event`] reads it through
//! simd-json; the caller then parses the line. The tests hold the two readings to each other.

use std::ops::Range;

use super::super::skim::{Compact, once};

/// What [`Event`](super::wire::Event) reads of an ignored event (see [`ignored`](super::wire::ignored)) and the adapter asks of
/// one: its type, its time and whether it is enveloped as `claims` wants it.
pub(super) struct Skimmed<'a> {
    pub(super) kind: &'static str,
    pub(super) timestamp: Option<&'a str>,
    pub(super) id: bool,
    pub(super) data_object: bool,
}

/// The types of events whose `data` the adapter never reads (each with a dot: `claims`
/// asks for one).
pub(super) const IGNORED: [&str; 5] = [
    "assistant.message_delta",
    "assistant.reasoning_delta",
    "assistant.streaming_delta",
    "tool.execution_partial_result",
    "tool.execution_progress",
];

/// An ignored event read by a skim, not parsed: `None` for any other record, and for one
/// the skim does not read exactly as [`Event`](super::wire::Event) reads it through simd-json (the caller then
/// parses it). The streaming deltas are most of a stdout stream's lines (11,690 of the
/// normalize bench's 14,427) and only their envelope is read, but parsing each into
/// simd-json's tape and reading it cost ~4,700 instructions a delta.
///
/// Read only as Copilot writes an event: compact (no whitespace between tokens), `type`
/// first and plain; `data` an object of scalar members, or null; `timestamp`, `agentId` and
/// `sessionId` plain strings or null, each once, `id` once. Given up at a nested value, at
/// `exitCode` or `usage` (typed reads), at an escaped key or an escaped string of these
/// fields, at invalid UTF-8 (the parser's repair reports it), and at what simd-json refuses
/// but JSON's grammar allows: a `\u` escape of a surrogate, and any number but an integer
/// of at most 18 digits.
pub(super) fn skim_ignored(bytes: &[u8]) -> Option<Skimmed<'_>> {
    const TYPE: &[u8] = b"{\"type\":\"";
    let rest = bytes.strip_prefix(TYPE)?;
    let kind = IGNORED
        .into_iter()
        .find(|kind| rest.starts_with(kind.as_bytes()) && rest.get(kind.len()) == Some(&b'"'))?;
    let text = simdutf8::basic::from_utf8(bytes).ok()?;
    let mut read = Compact::new(text, TYPE.len() + kind.len() + 1);
    let (mut timestamp, mut agent, mut session) = (None, None, None);
    let (mut data, mut id) = (None, None);
    while read.next()? {
        match read.key()? {
            "timestamp" => once(&mut timestamp, read.plain_or_null()?)?,
            "agentId" => once(&mut agent, read.plain_or_null()?)?,
            "sessionId" => once(&mut session, read.plain_or_null()?)?,
            "data" if data.is_none() => {
                if read.literal(b"null").is_some() {
                    data = Some(false);
                    continue;
                }
                data = Some(true);
                read.eat(b'{')?;
                if read.eat(b'}').is_none() {
                    loop {
                        read.key()?;
                        scalar(&mut read)?;
                        if !read.next()? {
                            break;
                        }
                    }
                }
            }
            "id" if id.is_none() => {
                id = Some(());
                scalar(&mut read)?;
            }
            "type" | "data" | "id" | "exitCode" | "usage" => return None,
            _ => scalar(&mut read)?,
        }
    }
    (read.position() == bytes.len()).then_some(Skimmed {
        kind,
        timestamp: timestamp.flatten(),
        id: id.is_some(),
        data_object: data == Some(true),
    })
}

/// What [`Event`](super::wire::Event) and [`Data`](super::wire::Data) read of a `tool.execution_complete` the adapter takes by a
/// skim ([`skim_complete`]), and what the adapter asks of it.
pub(super) struct Completed<'a> {
    pub(super) timestamp: Option<&'a str>,
    pub(super) agent_id: Option<&'a str>,
    pub(super) id: bool,
    pub(super) tool_call_id: Option<&'a str>,
    pub(super) model: Option<&'a str>,
    pub(super) success: Option<bool>,
    /// The output's JSON (quotes included), exactly as the writer writes it: what
    /// [`ToolOutput::content`](super::wire::ToolOutput::content) would read and [`Lent::output`](crate::normalize::json::Lent::output) hold.
    pub(super) output: &'a [u8],
}

/// The members of a `tool.execution_complete`'s `data` a skim takes and does not read
/// (none of them is a field of [`Data`](super::wire::Data)): their values are skipped, validated.
const COMPLETE_SKIPPED: [&str; 9] = [
    "interactionId",
    "toolTelemetry",
    "isUserRequested",
    "mcpMeta",
    "parentToolCallId",
    "rte",
    "sandboxed",
    "toolDescription",
    "turnId",
];

/// A `tool.execution_complete` read by a skim, not parsed: `None` for any other record, and
/// for one the skim does not read exactly as [`Event`](super::wire::Event) reads it through simd-json (the
/// caller then parses it). A tool's output is most of a session's bytes (3.0 of the
/// normalize bench's 5.3 MB): the parse unescaped it, for the writer to escape it again
/// (session 15's profile: 57 of Copilot's 68M instructions of escaping), or, held as the
/// record escaped it ([`Lent::output`](crate::normalize::json::Lent::output)), to throw the unescaped text away. The skim finds
/// where it ends ([`writers_string_end`]) and hands on its bytes, never unescaped.
///
/// Read only as Copilot CLI writes the event (1.0.x, the stdout of `copilot -p
/// --output-format json` and the session logs alike: `{"type":"tool.execution_complete",
/// "data":{"toolCallId","model","interactionId","success","result":{"content",
/// "detailedContent"},"toolTelemetry"},"id","timestamp","parentId"}`; the members in any
/// order): compact, `type` first and plain; `data` an object of the members [`Data`](super::wire::Data) reads
/// for it (`toolCallId` and `model` plain strings or null, `success` a boolean or null,
/// `result` an object, `error` a value of scalars) and of [`COMPLETE_SKIPPED`], each once;
/// the first of `result`'s `content`, `detailedContent` and `contents` that is not null a
/// string escaped exactly as the writer escapes it (the others strings so escaped, null, or
/// values of scalars); the envelope's `timestamp` and `agentId` plain strings or null, `id`
/// a scalar, each once. Given up at everything else, as [`skim_ignored`] gives up: a member
/// of `data` the report would count as unknown, an escaped key or field, whitespace, a
/// nesting deeper than the telemetry's, invalid UTF-8, an output escaped otherwise (`\/`,
/// a `\u` the writer does not write: the parse keeps such a one as its text), no output
/// (the error's message is the content then), and numbers simd-json may read otherwise.
pub(super) fn skim_complete(bytes: &[u8]) -> Option<Completed<'_>> {
    const TYPE: &[u8] = b"{\"type\":\"tool.execution_complete\"";
    if !bytes.starts_with(TYPE) {
        return None;
    }
    // Checked whole, once: every piece taken below is cut at an ASCII byte.
    let text = simdutf8::basic::from_utf8(bytes).ok()?;
    let mut read = Compact::new(text, TYPE.len());
    let (mut timestamp, mut agent, mut id) = (None, None, None);
    let mut data = None;
    while read.next()? {
        match read.key()? {
            "timestamp" => once(&mut timestamp, read.plain_or_null()?)?,
            "agentId" => once(&mut agent, read.plain_or_null()?)?,
            "data" if data.is_none() => data = Some(complete_data(&mut read)?),
            "id" if id.is_none() => {
                id = Some(());
                scalar(&mut read)?;
            }
            "type" | "data" | "id" | "exitCode" | "usage" | "sessionId" => return None,
            _ => scalar(&mut read)?,
        }
    }
    let (tool_call_id, model, success, output) = data?;
    (read.position() == bytes.len()).then_some(Completed {
        timestamp: timestamp.flatten(),
        agent_id: agent.flatten(),
        id: id.is_some(),
        tool_call_id,
        model,
        success,
        output: &bytes[output],
    })
}

/// What [`skim_complete`] takes of `data`: `toolCallId`, `model`, `success` and the output.
type CompleteData<'a> = (Option<&'a str>, Option<&'a str>, Option<bool>, Range<usize>);

/// A `tool.execution_complete`'s `data` object (see [`skim_complete`]).
fn complete_data<'t>(read: &mut Compact<'t>) -> Option<CompleteData<'t>> {
    let (mut tool_call_id, mut model, mut success, mut result) = (None, None, None, None);
    let mut error = None;
    read.eat(b'{')?;
    if read.eat(b'}').is_some() {
        return None;
    }
    loop {
        match read.key()? {
            "toolCallId" => once(&mut tool_call_id, read.plain_or_null()?)?,
            "model" => once(&mut model, read.plain_or_null()?)?,
            "success" if success.is_none() => {
                success = Some(match read.peek()? {
                    b't' => read.literal(b"true").map(|()| Some(true))?,
                    b'f' => read.literal(b"false").map(|()| Some(false))?,
                    _ => read.literal(b"null").map(|()| None)?,
                });
            }
            "result" if result.is_none() => result = Some(complete_result(read)?),
            // Read (as a value) only when there is no output: there is one.
            "error" if error.is_none() => {
                error = Some(());
                nested(read, 0)?;
            }
            key if COMPLETE_SKIPPED.contains(&key) => nested(read, 0)?,
            _ => return None,
        }
        if !read.next()? {
            break;
        }
    }
    Some((
        tool_call_id.flatten(),
        model.flatten(),
        success.flatten(),
        result??,
    ))
}

/// A `result` object: where the JSON of the first of `content`, `detailedContent` and
/// `contents` that is not null is in the record, when it is a string escaped as the
/// writer escapes it (`None` inside when all three are absent or null; `None` when the
/// first is any other value, which the parse reads as a tree).
fn complete_result(read: &mut Compact<'_>) -> Option<Option<Range<usize>>> {
    // Each as read: `Some(None)` for a value other than a string (or null).
    let mut fields: [Option<Option<Range<usize>>>; 3] = [None, None, None];
    read.eat(b'{')?;
    if read.eat(b'}').is_none() {
        loop {
            let slot = match read.key()? {
                "content" => 0,
                "detailedContent" => 1,
                "contents" => 2,
                _ => {
                    nested(read, 0)?;
                    if !read.next()? {
                        break;
                    }
                    continue;
                }
            };
            // A field given twice counts as its last copy (as the parse reads it).
            fields[slot] = if read.literal(b"null").is_some() {
                None
            } else if read.peek() == Some(b'"') {
                Some(Some(read.writers_string()?))
            } else {
                nested(read, 0)?;
                Some(None)
            };
            if !read.next()? {
                break;
            }
        }
    }
    match fields.into_iter().flatten().next() {
        Some(json) => json.map(Some),
        None => Some(None),
    }
}

/// A scalar (see [`scalar`]), or an object or array of them, nested at most four deep (a
/// tool's telemetry), keys without escapes.
fn nested(read: &mut Compact<'_>, depth: u32) -> Option<()> {
    match read.peek()? {
        b'{' if depth < 4 => {
            read.eat(b'{')?;
            if read.eat(b'}').is_some() {
                return Some(());
            }
            loop {
                read.key()?;
                nested(read, depth + 1)?;
                if !read.next()? {
                    return Some(());
                }
            }
        }
        b'[' if depth < 4 => {
            read.eat(b'[')?;
            if read.eat(b']').is_some() {
                return Some(());
            }
            loop {
                nested(read, depth + 1)?;
                if read.eat(b',').is_none() {
                    return read.eat(b']');
                }
            }
        }
        b'{' | b'[' => None,
        _ => scalar(read),
    }
}

/// A string, `true`, `false`, `null`, or an integer of at most 18 digits.
fn scalar(read: &mut Compact<'_>) -> Option<()> {
    match read.peek()? {
        b'"' => {
            let (json, escaped) = read.string()?;
            let string = &read.bytes()[json];
            // simd-json refuses a lone surrogate: not told apart here.
            let surrogate = |at: usize| matches!(string.get(at + 2), Some(b'd' | b'D'));
            (!escaped || !memchr::memmem::find_iter(string, b"\\u").any(surrogate)).then_some(())
        }
        b't' => read.literal(b"true"),
        b'f' => read.literal(b"false"),
        b'n' => read.literal(b"null"),
        _ => {
            read.eat(b'-');
            let digits = read.digits();
            let fraction = matches!(read.peek(), Some(b'.' | b'e' | b'E'));
            let leading_zero = digits.len() > 1 && digits[0] == b'0';
            (!digits.is_empty() && digits.len() <= 18 && !fraction && !leading_zero).then_some(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::copilot::wire::{Event, EventShape, ignored};
    use crate::normalize::json::{Borrowed, Lent, RecordShape};
    use serde_json::Value;

    /// An event read as the parser reads it: the line into simd-json, then [`Event`].
    fn parsed(line: &str) -> Option<(String, Option<String>, bool, bool)> {
        let mut bytes = line.as_bytes().to_vec();
        let event = simd_json::serde::from_slice::<Event<'_>>(&mut bytes).ok()?;
        Some((
            event.kind.into_owned(),
            event.timestamp.map(Borrowed::into_owned),
            event.id.0,
            event.data_object,
        ))
    }

    fn skimmed(line: &str) -> Option<(String, Option<String>, bool, bool)> {
        let read = skim_ignored(line.as_bytes())?;
        Some((
            read.kind.to_owned(),
            read.timestamp.map(str::to_owned),
            read.id,
            read.data_object,
        ))
    }

    const DELTA: &str = r#"{"type":"assistant.message_delta","data":{"messageId":"m-1","deltaContent":"a \"b\"\n\u00e9 ß"},"id":"e-2","timestamp":"2026-04-02T15:00:00.640Z","parentId":"e-1","ephemeral":true}"#;

    /// What a skim reads, the parser reads the same; what it does not read exactly is
    /// given up (the parser reads it): every change of a delta below is one or the other.
    #[test]
    fn a_skimmed_event_is_read_as_the_parser_reads_it() {
        let head = r#"{"type":"assistant.message_delta""#;
        let taken = [
            DELTA.to_owned(),
            format!(r#"{head},"data":null,"id":null,"timestamp":null}}"#),
            format!(r#"{head},"data":{{}},"agentId":"a","sessionId":null}}"#),
            format!(r#"{head}}}"#),
            format!(r#"{head},"data":{{"n":-12,"z":0,"b":false,"x":null}},"id":7,"k":1,"k":"2"}}"#),
            format!(r#"{head},"x":"\u00e9\uabcd\\x","id":"e","timestamp":"t","data":{{}}}}"#),
            format!(r#"{head},"data":{{"big":999999999999999999}}}}"#),
            DELTA.replace("assistant.message_delta", "tool.execution_progress"),
            DELTA.replace("assistant.message_delta", "tool.execution_partial_result"),
            DELTA.replace("assistant.message_delta", "assistant.reasoning_delta"),
            DELTA.replace("assistant.message_delta", "assistant.streaming_delta"),
        ];
        for line in &taken {
            let read = skimmed(line);
            assert!(read.is_some(), "skimmed: {line}");
            assert_eq!(read, parsed(line), "{line}");
        }
        let given_up = [
            format!(" {DELTA}"),
            format!("{DELTA} "),
            format!("{DELTA}x"),
            DELTA[..DELTA.len() - 1].to_owned(),
            DELTA.replace(r#""id""#, r#" "id""#),
            DELTA.replace("message_delta", r"message\u005fdelta"),
            DELTA.replace("assistant.message_delta", "assistant.message"),
            DELTA.replace("assistant.message_delta", "assistant.message_deltas"),
            DELTA.replace(r#""timestamp":"2026"#, r#""timestamp":"\u0032026"#),
            DELTA.replace(
                r#""timestamp":"2026-04-02T15:00:00.640Z""#,
                r#""timestamp":5"#,
            ),
            DELTA.replace(r#""parentId""#, r#""timestamp":null,"parentId""#),
            DELTA.replace(r#""parentId""#, r#""id":null,"parentId""#),
            DELTA.replace(r#""parentId""#, r#""data":null,"parentId""#),
            DELTA.replace(r#""parentId""#, r#""type":"x","parentId""#),
            DELTA.replace(r#""parentId""#, r#""exitCode":0,"parentId""#),
            DELTA.replace(r#""parentId""#, r#""usage":{},"parentId""#),
            DELTA.replace(r#""parentId""#, r#""agentId":3,"parentId""#),
            DELTA.replace(r#""parentId""#, r#""p\u0061rentId""#),
            DELTA.replace(r#""ephemeral":true"#, r#""ephemeral":tru"#),
            DELTA.replace(r#""ephemeral":true"#, r#""ephemeral":{"a":1}"#),
            DELTA.replace(r#""ephemeral":true"#, r#""ephemeral":[]"#),
            DELTA.replace(r#""ephemeral":true"#, r#""ephemeral":01"#),
            DELTA.replace(r#""ephemeral":true"#, r#""ephemeral":1.5"#),
            DELTA.replace(r#""ephemeral":true"#, r#""ephemeral":1e5"#),
            DELTA.replace(r#""ephemeral":true"#, r#""ephemeral":-"#),
            DELTA.replace(r#""ephemeral":true"#, r#""ephemeral":1234567890123456789"#),
            DELTA.replace(
                r#""ephemeral":true"#,
                r#""ephemeral":99999999999999999999999"#,
            ),
            DELTA
                .replace(r#""data":{"#, r#""data":["#)
                .replace(r#""},"id""#, r#""],"id""#),
            DELTA.replace(r#""data":{"messageId":"m-1","#, r#""data":"m","x":{"#),
            DELTA.replace("ß", r"\ud800"),
            DELTA.replace("ß", r"\uDC00"),
            DELTA.replace("ß", r"\ud83d\ude00"),
            DELTA.replace("ß", r"\x"),
            DELTA.replace("ß", r"\u12"),
            DELTA.replace("ß", "\t"),
            DELTA.replace("ß", "\u{1}"),
        ];
        for line in &given_up {
            assert_eq!(skimmed(line), None, "given up: {line}");
        }
        // Lines the skim gives up on whichever way the parser reads them (refused or not).
        let refused = given_up
            .iter()
            .filter(|line| parsed(line).is_none())
            .count();
        assert!(refused > 10 && refused < given_up.len(), "{refused}");
        // Invalid UTF-8 (the parser's repair reports it).
        let mut bytes = DELTA.as_bytes().to_vec();
        let at = DELTA.find('ß').expect("ß");
        bytes[at + 1] = b'x';
        assert!(skim_ignored(&bytes).is_none());
    }

    /// A `tool.execution_complete` as the parser reads it, as [`skim_complete`] hands it
    /// on: the envelope, the members of `data` the adapter reads, the output's text; `None`
    /// when the parser refuses it, when it is another event, or when the report would count
    /// a member of its `data` as unknown.
    type Complete = (
        Option<String>,
        Option<String>,
        bool,
        Option<String>,
        Option<String>,
        Option<bool>,
        String,
    );

    fn parsed_complete(line: &str) -> Option<Complete> {
        let mut bytes = line.as_bytes().to_vec();
        let event = simd_json::serde::from_slice::<Event<'_>>(&mut bytes).ok()?;
        if event.kind != "tool.execution_complete" || !event.data_object {
            return None;
        }
        let value: Value = serde_json::from_str(line).ok()?;
        let fields = EventShape::fields((&event.kind, None))?;
        let keys = value.get("data")?.as_object()?;
        if !keys.keys().all(|key| (fields.known)(key)) {
            return None;
        }
        let data = event.data?.data;
        let output = match data.result.content()? {
            Lent::Text(text) => text.into_owned(),
            Lent::Other(_) => return None,
        };
        Some((
            event.timestamp.map(Borrowed::into_owned),
            event.agent_id.map(Borrowed::into_owned),
            event.id.0,
            data.tool_call_id.map(Borrowed::into_owned),
            data.model.map(Borrowed::into_owned),
            data.success,
            output,
        ))
    }

    fn skimmed_complete(line: &str) -> Option<Complete> {
        let read = skim_complete(line.as_bytes())?;
        // What the writer writes for the text: the bytes held.
        let output: String = serde_json::from_slice(read.output).expect("a string");
        assert_eq!(
            serde_json::to_vec(&output).expect("JSON"),
            read.output,
            "{line}"
        );
        Some((
            read.timestamp.map(str::to_owned),
            read.agent_id.map(str::to_owned),
            read.id,
            read.tool_call_id.map(str::to_owned),
            read.model.map(str::to_owned),
            read.success,
            output,
        ))
    }

    const COMPLETE: &str = r#"{"type":"tool.execution_complete","data":{"toolCallId":"toolu_1","model":"claude-sonnet-4.5","interactionId":"i-1","success":true,"result":{"content":"OUT","detailedContent":"x\ty"},"toolTelemetry":{"properties":{"command":"view"},"metrics":{"resultLength":1149}}},"id":"e-2","timestamp":"2026-05-14T09:00:01.215Z","parentId":"e-1"}"#;

    /// Every escape and character at every place of outputs of 0 to 40 bytes: a line the
    /// skim takes is read alike by the parser, with the output held as the writer writes
    /// it; one it gives up has an escape the writer does not write, or is one the parser
    /// refuses.
    #[test]
    fn a_completion_is_skimmed_as_the_parser_reads_it_wherever_its_escapes_fall() {
        let pieces = [
            "\\\"",
            "\\\\",
            "\\n",
            "\\t",
            "\\r",
            "\\b",
            "\\f",
            "\\u0000",
            "\\u001b",
            "\\u001f",
            "\\u007f",
            "\\u0008",
            "\\u00e9",
            "\\/",
            "\\u2028",
            "\\uFFFF",
            "\\ud83d\\ude00",
            "\\ud800",
            "\\u12",
            "\\x",
            "\\",
            "\"",
            "\t",
            "\u{1}",
            "\u{e9}",
            "\u{7f}",
            "→",
            "}",
            ",",
            "ab",
        ];
        let (mut taken, mut given_up) = (0, 0);
        for len in 0..=40 {
            for piece in pieces {
                for at in [0, len / 2, len] {
                    let output = format!("{}{piece}{}", "a".repeat(at), "b".repeat(len - at));
                    let line = COMPLETE.replace("OUT", &output);
                    let skimmed = skimmed_complete(&line);
                    if skimmed.is_some() {
                        taken += 1;
                        assert_eq!(skimmed, parsed_complete(&line), "{line}");
                    } else {
                        given_up += 1;
                        // The parser refuses it, or its output is escaped otherwise than
                        // the writer escapes it.
                        let json = format!("\"{output}\"");
                        let writers = serde_json::from_str::<String>(&json)
                            .is_ok_and(|text| serde_json::to_string(&text).ok() == Some(json));
                        assert!(
                            !writers || parsed_complete(&line).is_none(),
                            "given up: {line}"
                        );
                    }
                }
            }
        }
        assert!(taken > 1000 && given_up > 100, "{taken} {given_up}");
    }

    /// The shapes a skim takes, and those it leaves to the parser.
    #[test]
    fn a_completion_the_skim_does_not_read_exactly_is_given_up() {
        let taken = [
            COMPLETE.to_owned(),
            COMPLETE.replace(r#","detailedContent":"x\ty""#, ""),
            COMPLETE.replace(r#""content":"OUT","#, ""),
            COMPLETE.replace(r#""content":"OUT""#, r#""content":null"#),
            COMPLETE.replace(r#""content":"OUT""#, r#""content":"a","content":"b""#),
            COMPLETE.replace(
                r#""detailedContent":"x\ty""#,
                r#""contents":[{"type":"text"}]"#,
            ),
            COMPLETE.replace(r#""model":"claude-sonnet-4.5""#, r#""model":null"#),
            COMPLETE.replace(r#""success":true"#, r#""success":false"#),
            COMPLETE.replace(r#""success":true"#, r#""success":null"#),
            COMPLETE.replace(r#""success":true,"#, ""),
            COMPLETE.replace(r#""toolCallId":"toolu_1","#, ""),
            COMPLETE.replace(r#""toolCallId":"toolu_1""#, r#""toolCallId":null"#),
            COMPLETE.replace(r#""id":"e-2""#, r#""id":null"#),
            COMPLETE.replace(r#""id":"e-2","#, ""),
            COMPLETE.replace(
                r#""timestamp":"2026-05-14T09:00:01.215Z""#,
                r#""timestamp":null"#,
            ),
            COMPLETE.replace(r#""parentId":"e-1""#, r#""agentId":"a-1""#),
            COMPLETE.replace(r#""parentId":"e-1""#, r#""ephemeral":true,"x":-12"#),
            COMPLETE.replace(r#""interactionId":"i-1","#, r#""turnId":"3","rte":false,"#),
            COMPLETE.replace(
                r#""success":true,"#,
                r#""success":false,"error":{"message":"m","code":"failure"},"#,
            ),
            COMPLETE.replace(r#"{"resultLength":1149}"#, "[1,[2,{}],null]"),
        ];
        for line in &taken {
            let read = skimmed_complete(line);
            assert!(read.is_some(), "skimmed: {line}");
            assert_eq!(read, parsed_complete(line), "{line}");
        }
        let given_up = [
            format!(" {COMPLETE}"),
            format!("{COMPLETE} "),
            format!("{COMPLETE}x"),
            COMPLETE[..COMPLETE.len() - 1].to_owned(),
            COMPLETE.replace(r#","id""#, r#", "id""#),
            COMPLETE.replace(r#"{"content""#, r#"{ "content""#),
            COMPLETE.replace("execution_complete", r"execution\u005fcomplete"),
            COMPLETE.replace("execution_complete", "execution_completed"),
            COMPLETE.replace(r#""content":"OUT","#, r#""content":["OUT"],"#),
            COMPLETE.replace(r#""content":"OUT","#, r#""content":{"a":1},"#),
            COMPLETE.replace(r#""content":"OUT","#, r#""content":7,"#),
            COMPLETE.replace(r#""content":"OUT","detailedContent":"x\ty""#, ""),
            COMPLETE.replace(
                r#""content":"OUT","detailedContent":"x\ty""#,
                r#""content":null"#,
            ),
            COMPLETE.replace(r#""result":{"#, r#""result":"s","x":{"#),
            COMPLETE.replace(
                r#""result":{"content":"OUT","detailedContent":"x\ty"}"#,
                r#""result":null"#,
            ),
            COMPLETE.replace(r#""toolCallId":"toolu_1""#, r#""toolCallId":"t\u0031""#),
            COMPLETE.replace(r#""toolCallId":"toolu_1""#, r#""toolCallId":1"#),
            COMPLETE.replace(
                r#""model":"claude-sonnet-4.5""#,
                r#""model":"m","model":"n""#,
            ),
            COMPLETE.replace(r#""success":true"#, r#""success":"yes""#),
            COMPLETE.replace(r#""success":true"#, r#""success":true,"success":true"#),
            COMPLETE.replace(r#""success":true"#, r#""success":tru"#),
            COMPLETE.replace(r#""interactionId""#, r#""message""#),
            COMPLETE.replace(r#""interactionId""#, r#""newField""#),
            COMPLETE.replace(r#""interactionId""#, r#""content""#),
            COMPLETE.replace(
                r#""success":true,"#,
                r#""error":{"message":"m"},"error":null,"success":true,"#,
            ),
            COMPLETE.replace(r#"{"resultLength":1149}"#, r#"{"resultLength":1.5}"#),
            COMPLETE.replace(r#"{"resultLength":1149}"#, r#"{"a":{"b":{"c":{"d":{}}}}}"#),
            COMPLETE.replace(r#""data":{"#, r#""data":{},"x":{"#),
            COMPLETE.replace(r#""parentId":"e-1""#, r#""data":null"#),
            COMPLETE.replace(r#""parentId":"e-1""#, r#""id":"e-3""#),
            COMPLETE.replace(r#""parentId":"e-1""#, r#""timestamp":null"#),
            COMPLETE.replace(r#""parentId":"e-1""#, r#""sessionId":"s""#),
            COMPLETE.replace(r#""parentId":"e-1""#, r#""exitCode":0"#),
            COMPLETE.replace(r#""parentId":"e-1""#, r#""parentId":{"a":[1]}"#),
            COMPLETE.replace("OUT", r"\ud800"),
            COMPLETE.replace("OUT", "\t"),
            COMPLETE.replace("OUT", r"a\/b"),
        ];
        for line in &given_up {
            assert_eq!(skimmed_complete(line), None, "given up: {line}");
        }
        // Invalid UTF-8 (the parser's repair reports it).
        let mut bytes = COMPLETE.replace("OUT", "ß").into_bytes();
        let at = bytes.iter().position(|b| *b == 0xc3).expect("ß");
        bytes[at + 1] = b'x';
        assert!(skim_complete(&bytes).is_none());
    }

    /// Every record of the corpus the skim reads, the parser reads alike, and every
    /// ignored event of it is read by the skim.
    #[test]
    fn the_corpus_deltas_are_skimmed_as_they_are_parsed() {
        let corpus = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/normalize/copilot");
        let mut skimmed_lines = 0;
        for outcome in ["ok", "err"] {
            let dir = std::fs::read_dir(format!("{corpus}/{outcome}")).expect("the corpus");
            for entry in dir {
                let input = std::fs::read(entry.expect("a fixture").path()).expect("a fixture");
                for line in input.split(|b| *b == b'\n') {
                    let Ok(line) = std::str::from_utf8(line) else {
                        continue;
                    };
                    let read = skimmed(line);
                    if read.is_some() {
                        skimmed_lines += 1;
                        assert_eq!(read, parsed(line), "{line}");
                    } else if let Some(event) = parsed(line) {
                        assert!(!ignored(&event.0), "not skimmed: {line}");
                    }
                }
            }
        }
        assert!(skimmed_lines >= 9, "{skimmed_lines}");
    }
}
