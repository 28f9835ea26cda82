//! The lines most of an exchange is, read by a skim, without the JSON parser: a message or
//! thought chunk's, and a tool call update's with the call's output.
//!
//! Most lines of an exchange are `session/update` notifications of a chunk of text, written
//! by the agents (Gemini CLI, Claude Code's and Codex's adapters, OpenCode, the SDKs) as
//! `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"...","update":
//! {"sessionUpdate":"agent_message_chunk","messageId":"...","content":{"type":"text",
//! "text":"..."}}}}` (`messageId` only where the agent names its messages): short lines (the
//! bench's are 150-200 bytes) that simd-json parsed whole, to append `text` to the open
//! message. [`skim`] reads such a line token by token as the agents write it, up to the
//! text ([`Head`]); [`text`] unescapes the text straight onto the caller's string (the open
//! message's, where the chunk continues it) and checks the rest of the line.
//!
//! Most of its bytes are the tools' outputs, each in the `tool_call_update` that completes
//! its call: `{..."update":{"sessionUpdate":"tool_call_update","toolCallId":"...","status":
//! "completed","content":[{"type":"content","content":{"type":"text","text":"..."}}]}}}}`,
//! the output held as the line escaped it ([`ToolOutput`]), which the parse unescaped
//! first, to be thrown away. [`skim`] reads it ([`Skimmed::Call`]), the output found by
//! [`writers_string_end`] and never unescaped; and the updates without content (`status`
//! alone) alike.
//!
//! It gives up (`None`; the line is then parsed as before) at anything it cannot read
//! exactly as the parse would: whitespace between tokens, members in another order, a member
//! the shapes above do not have (an `id`, `_meta`, annotations, a call's `title`), a member
//! twice, a wrapper (`{"direction":...,"message":{...}}`), another kind of update, content
//! of another type or of more than one part, a `null`, an escaped key, kind, id or status,
//! an id that is no string, invalid UTF-8, a control character, an escape JSON does not
//! have, a `\u` surrogate in a chunk's text (simd-json reads pairs and refuses lone ones:
//! not told apart here), an output escaped otherwise than the writer escapes it (`\/`,
//! `\u00e9`, ...) or empty. What it accepts, the parse accepts, with the same kind, ids, text
//! and fields ([`tests`] and the state's tests hold the two readings to each other).
//!
//! [`writers_string_end`]: crate::normalize::skim::writers_string_end

use super::wire::Patch;
use crate::model::ToolOutput;
use crate::normalize::skim::{plain_end, token, unescape, writers_string_end};

/// A line the skim takes.
pub(super) enum Skimmed<'a> {
    /// A chunk, read up to its text ([`text`] reads the text).
    Chunk(Head<'a>),
    /// A `tool_call_update`: the call's id, and what it sets.
    Call { id: &'a str, patch: Patch },
}

/// What precedes a chunk's text, as the line has it.
pub(super) struct Head<'a> {
    /// The line, checked as UTF-8.
    line: &'a str,
    /// `agent_message_chunk`, `agent_thought_chunk` or `user_message_chunk`.
    pub(super) kind: &'a str,
    pub(super) message_id: Option<&'a str>,
    /// Where the text's JSON is, past its opening quote.
    text: usize,
}

/// Everything a skimmed line has before its `sessionId` (or its `update`).
const START: &[u8] = br#"{"jsonrpc":"2.0","method":"session/update","params":{"#;

/// The line `bytes` holds, when it is one this reading takes (see the module docs).
///
/// The tokens between the ids, the kind and the strings read are compared whole, as fixed
/// bytes: read key by key through [`Compact`](crate::normalize::skim::Compact) (a `plain`
/// string each), a chunk's head cost 1,150 instructions a line (callgrind, the bench's 5 MB
/// stream, 11,197 chunk lines: 12.9M of 81.9M).
pub(super) fn skim(bytes: &[u8]) -> Option<Skimmed<'_>> {
    let mut at = token(bytes, 0, START)?;
    if let Some(id) = token(bytes, at, br#""sessionId":""#) {
        at = token(bytes, plain(bytes, id)?, b",")?;
    }
    at = token(bytes, at, br#""update":{"sessionUpdate":""#)?;
    if let Some(at) = token(bytes, at, br#"tool_call_update","toolCallId":""#) {
        return call(bytes, at);
    }
    let kind = at;
    at = KINDS.iter().find_map(|kind| token(bytes, at, kind))?;
    let kind = kind..at - 1;
    let mut message_id = None;
    if let Some(id) = token(bytes, at, br#","messageId":""#) {
        at = plain(bytes, id)?;
        message_id = Some(id..at - 1);
    }
    at = token(bytes, at, br#","content":{"type":"text","text":""#)?;
    // Checked whole, once, and only now: a line of another kind is not checked for
    // nothing. Every piece taken is cut at an ASCII byte.
    let line = simdutf8::basic::from_utf8(bytes).ok()?;
    Some(Skimmed::Chunk(Head {
        line,
        kind: line.get(kind)?,
        message_id: match message_id {
            Some(id) => Some(line.get(id)?),
            None => None,
        },
        text: at,
    }))
}

/// A `tool_call_update`'s members from its id's first byte, `id` (see the module docs).
fn call(bytes: &[u8], id: usize) -> Option<Skimmed<'_>> {
    let mut at = plain(bytes, id)?;
    let id = id..at - 1;
    let mut status = None;
    if let Some(from) = token(bytes, at, br#","status":""#) {
        at = plain(bytes, from)?;
        status = Some(from..at - 1);
    }
    // Checked whole, once: `writers_string_end` reads text.
    let line = simdutf8::basic::from_utf8(bytes).ok()?;
    let mut output = None;
    const PART: &[u8] = br#","content":[{"type":"content","content":{"type":"text","text":""#;
    if let Some(from) = token(bytes, at, PART) {
        at = writers_string_end(bytes, from)?;
        // Two bytes are the empty string's quotes: an empty output is left to the parse.
        if at - from < 2 {
            return None;
        }
        output = Some(from - 1..at);
        at = token(bytes, at, b"}}]")?;
    }
    // The update, the params and the line close.
    if bytes.get(at..)? != b"}}}" {
        return None;
    }
    Some(Skimmed::Call {
        id: line.get(id)?,
        patch: Patch {
            status: match status {
                Some(status) => Some(Some(line.get(status)?.to_owned())),
                None => None,
            },
            content: output.is_some().then(Vec::new),
            said: match output {
                Some(json) => Some(ToolOutput::escaped(bytes.get(json)?)),
                None => None,
            },
            ..Patch::default()
        },
    })
}

/// The kinds of update a chunk is, each with its closing quote.
const KINDS: [&[u8]; 3] = [
    b"agent_message_chunk\"",
    b"agent_thought_chunk\"",
    b"user_message_chunk\"",
];

/// Past the closing quote of the string whose opening quote is before `at`, when it has no
/// escape (nor a control character).
#[inline]
fn plain(bytes: &[u8], at: usize) -> Option<usize> {
    let end = plain_end(bytes, at);
    (bytes.get(end)? == &b'"').then_some(end + 1)
}

/// The chunk's text unescaped onto `text`, and the rest of the line read: `None` when the
/// line is no chunk this reading takes, `text` then as it was.
pub(super) fn text(head: &Head<'_>, text: &mut String) -> Option<()> {
    let start = text.len();
    let end = unescape(head.line, head.text, text);
    // The text closes its content, the update, the params and the line.
    let rest = end.and_then(|end| head.line.as_bytes().get(end..));
    if rest == Some(b"}}}}") {
        return Some(());
    }
    text.truncate(start);
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the skim reads of a line: its kind, message id and text.
    fn skimmed(line: &str) -> Option<(String, Option<String>, String)> {
        let Skimmed::Chunk(head) = skim(line.as_bytes())? else {
            return None;
        };
        let mut said = "before".to_owned();
        let read = text(&head, &mut said);
        let kind = head.kind.to_owned();
        let id = head.message_id.map(str::to_owned);
        match read {
            Some(()) => Some((kind, id, said["before".len()..].to_owned())),
            None => {
                assert_eq!(said, "before", "{line}");
                None
            }
        }
    }

    /// What the parse reads of a line, as the adapter's hot path takes it: a chunk's kind,
    /// message id and text; `None` for any other line, or one the parse refuses.
    fn parsed(line: &str) -> Option<(String, Option<String>, String)> {
        let record = crate::normalize::framing::Record::line(line.as_bytes(), 1, 0, true);
        let mut read = None;
        let mut parser = crate::normalize::json::JsonParser::default();
        parser.parse_in::<super::super::wire::LineShape>(
            record,
            &mut Vec::new(),
            |mut line, parsed, _| {
                if let Some(super::super::wire::Hot::Chunk {
                    kind,
                    message_id,
                    text,
                }) = line.hot(parsed)
                {
                    read = Some((
                        kind.into_owned(),
                        message_id.map(|id| id.into_owned()),
                        text.into_owned(),
                    ));
                }
                crate::normalize::report::Fate::Mapped
            },
        );
        read
    }

    fn line(kind: &str, message_id: &str, said: &str) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"s-1","update":{{"sessionUpdate":"{kind}",{message_id}"content":{{"type":"text","text":"{said}"}}}}}}}}"#
        )
    }

    /// Every escape and character at every place of texts of 0 to 40 bytes, of each kind,
    /// with and without a message id: a line the skim takes is read alike by the parse; one
    /// it gives up is one the parse refuses, or one with a `\u` surrogate or a control
    /// character.
    #[test]
    fn a_chunk_is_skimmed_as_the_parse_reads_it_wherever_its_escapes_fall() {
        let pieces = [
            "\\\"",
            "\\\\",
            "\\/",
            "\\b",
            "\\f",
            "\\n",
            "\\r",
            "\\t",
            "\\u00e9",
            "\\u0000",
            "\\u001b",
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
            "\u{e9}",
            "\u{1F600}",
            "}",
            "}}}}",
            ",",
            "ab",
        ];
        let mut taken = 0;
        for (kind, id) in [
            ("agent_message_chunk", ""),
            ("agent_thought_chunk", r#""messageId":"m-1","#),
            ("user_message_chunk", r#""messageId":"u1","#),
        ] {
            for len in 0..=40 {
                for piece in pieces {
                    for at in [0, len / 2, len] {
                        let mut said = "x".repeat(len);
                        said.insert_str(at, piece);
                        let line = line(kind, id, &said);
                        let skim = skimmed(&line);
                        let parse = parsed(&line);
                        if skim.is_some() {
                            taken += 1;
                            assert_eq!(skim, parse, "{line}");
                        } else {
                            let surrogate = piece.starts_with("\\ud");
                            let control = piece.bytes().any(|b| b < 0x20);
                            assert!(parse.is_none() || surrogate || control, "{line}");
                        }
                    }
                }
            }
        }
        assert!(taken > 6_000, "{taken}");
    }

    /// Lines of other shapes than a compact chunk's are given up, whatever the parse makes
    /// of them; the shapes it takes, it reads as the parse does.
    #[test]
    fn lines_other_than_a_compact_chunk_are_given_up() {
        let given_up = [
            // Another update, method or message.
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message","content":{"type":"text","text":"a"}}}}"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_content_chunk","content":{"type":"text","text":"a"}}}}"#,
            r#"{"jsonrpc":"2.0","method":"session/updates","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a"}}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a"}}}}"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a"}}},"id":1}"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a"}}},"id":null}"#,
            // Wrapped.
            r#"{"direction":"agent_to_client","message":{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a"}}}}}"#,
            // Content of another type, shape or order; annotations.
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"image","data":"AAAA"}}}}"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"text":"a","type":"text"}}}}"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a","annotations":{}}}}}"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a","text":"b"}}}}"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":7}}}}"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":null}}}}"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":[{"type":"text","text":"a"}]}}}"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"t\u0065xt","text":"a"}}}}"#,
            // Members after the content, twice, escaped, of another type or order.
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a"},"messageId":"m"}}}"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a"},"content":{"type":"text","text":"b"}}}}"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a"}},"sessionId":"s"}}"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a"}}},"params":{}}"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"content":{"type":"text","text":"a"},"sessionUpdate":"agent_message_chunk"}}}"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","messageId":7,"content":{"type":"text","text":"a"}}}}"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","messageId":null,"content":{"type":"text","text":"a"}}}}"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","messageId":"m\"","content":{"type":"text","text":"a"}}}}"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","_meta":{},"content":{"type":"text","text":"a"}}}}"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","sessionId":"t","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a"}}}}"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":7,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a"}}}}"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_m\u0065ssage_chunk","content":{"type":"text","text":"a"}}}}"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"up\u0064ate":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a"}}}}"#,
            // Whitespace, a torn or longer line.
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a"}}}} "#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk", "content":{"type":"text","text":"a"}}}}"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a"}}}"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a"}}}}}"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a\u0000\ud800"}}}}"#,
        ];
        for line in given_up {
            assert_eq!(skimmed(line), None, "{line}");
        }
        let mut invalid = line("agent_message_chunk", "", "caf").into_bytes();
        let at = invalid.len() - 5;
        invalid.insert(at, 0xE9);
        assert!(skim(&invalid).is_none());
        // Taken: with and without the session and message ids.
        for line in [
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a\nb"}}}}"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_thought_chunk","messageId":"","content":{"type":"text","text":""}}}}"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"user_message_chunk","messageId":"m","content":{"type":"text","text":"\u00e9\/"}}}}"#,
        ] {
            assert!(skimmed(line).is_some(), "{line}");
            assert_eq!(skimmed(line), parsed(line), "{line}");
        }
    }
    /// A tool call's update as the skim reads it: its id and patch, shown.
    fn skimmed_call(line: &str) -> Option<String> {
        match skim(line.as_bytes())? {
            Skimmed::Call { id, patch } => Some(shown(Some(id), &patch)),
            Skimmed::Chunk(_) => None,
        }
    }

    /// A tool call's update as the parse reads it on the hot path: its id and patch, shown;
    /// `None` for any other line, or one the parse refuses.
    fn parsed_call(line: &str) -> Option<String> {
        let record = crate::normalize::framing::Record::line(line.as_bytes(), 1, 0, true);
        let mut read = None;
        let mut parser = crate::normalize::json::JsonParser::default();
        parser.parse_in::<super::super::wire::LineShape>(
            record,
            &mut Vec::new(),
            |mut line, parsed, _| {
                if let Some(super::super::wire::Hot::Call { id, patch }) = line.hot(parsed) {
                    read = Some(shown(id.as_deref(), &patch));
                }
                crate::normalize::report::Fate::Mapped
            },
        );
        read
    }

    /// Every field of a patch, the output's held JSON too.
    fn shown(id: Option<&str>, patch: &Patch) -> String {
        let Patch {
            title,
            kind,
            status,
            raw_input,
            raw_output,
            locations,
            content,
            said,
        } = patch;
        let held = said.as_ref().map(|said| said.json().map(<[u8]>::to_vec));
        format!(
            "{id:?} {title:?} {kind:?} {status:?} {raw_input:?} {raw_output:?} {locations:?} \
             {content:?} {said:?} {held:?}"
        )
    }

    fn update(members: &str) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"s-1","update":{{"sessionUpdate":"tool_call_update","toolCallId":"call_1"{members}}}}}}}"#
        )
    }

    fn completed(output: &str) -> String {
        update(&format!(
            r#","status":"completed","content":[{{"type":"content","content":{{"type":"text","text":"{output}"}}}}]"#
        ))
    }

    /// Every escape and character at every place of outputs of 0 to 40 bytes: a line the
    /// skim takes is read alike by the parse, the output held as the same JSON; one it gives
    /// up has an escape the writer does not write, or one the parse refuses, or is empty.
    #[test]
    fn a_call_is_skimmed_as_the_parse_reads_it_wherever_its_escapes_fall() {
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
            "\\u001b",
            "\\u001B",
            "\\u000a",
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
            "}}]}}}",
            ",",
            "ab",
            "",
        ];
        let mut taken = 0;
        for len in 0..=40 {
            for piece in pieces {
                for at in [0, len / 2, len] {
                    let mut output = "x".repeat(len);
                    output.insert_str(at, piece);
                    let line = completed(&output);
                    let skim = skimmed_call(&line);
                    let parse = parsed_call(&line);
                    if skim.is_some() {
                        taken += 1;
                        assert_eq!(skim, parse, "{line}");
                    } else {
                        let writers = serde_json::from_str::<String>(&format!("\"{output}\""))
                            .is_ok_and(|text| {
                                !text.is_empty()
                                    && serde_json::to_string(&text)
                                        .is_ok_and(|again| again == format!("\"{output}\""))
                            });
                        assert!(parse.is_none() || !writers, "{line}");
                    }
                }
            }
        }
        assert!(taken > 1_500, "{taken}");
    }

    /// Updates of other shapes than the skim's are given up; those it takes, it reads as
    /// the parse does.
    #[test]
    fn calls_of_other_shapes_are_given_up() {
        for members in [
            r#","status":"completed","content":[{"type":"content","content":{"type":"text","text":"a"}},{"type":"content","content":{"type":"text","text":"b"}}]"#,
            r#","status":"completed","content":[{"type":"diff","path":"a","newText":"b"}]"#,
            r#","status":"completed","content":[{"type":"content","content":{"type":"text","text":"a"},"type":"x"}]"#,
            r#","status":"completed","content":[{"type":"content","content":{"type":"text","text":"a","annotations":{}}}]"#,
            r#","status":"completed","content":[]"#,
            r#","status":"completed","content":null"#,
            r#","status":"completed","content":[{"type":"content","content":{"type":"text","text":""}}]"#,
            r#","status":"completed","content":[{"type":"content","content":{"type":"text","text":7}}]"#,
            r#","status":null"#,
            r#","status":"in_progress","status":"completed""#,
            r#","status":"in_progress","title":"t""#,
            r#","title":"t","status":"in_progress""#,
            r#","status":"in_\u0070rogress""#,
            r#","status":"completed","rawOutput":{"ok":true}"#,
            r#","content":[{"type":"content","content":{"type":"text","text":"a"}}],"status":"completed""#,
            r#","status":"completed"} "#,
            r#","status":"completed"}"#,
        ] {
            let line = update(members);
            assert_eq!(skimmed_call(&line), None, "{line}");
        }
        for line in [
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"tool_call_update","status":"completed"}}}"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"tool_call_update","toolCallId":7,"status":"completed"}}}"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"tool_call","toolCallId":"c","status":"completed"}}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"session/update","params":{"update":{"sessionUpdate":"tool_call_update","toolCallId":"c","status":"completed"}}}"#,
        ] {
            assert_eq!(skimmed_call(line), None, "{line}");
        }
        for members in [
            "",
            r#","status":"in_progress""#,
            r#","status":"""#,
            r#","status":"completed","content":[{"type":"content","content":{"type":"text","text":"a\nb"}}]"#,
            r#","content":[{"type":"content","content":{"type":"text","text":"\u001b[0m"}}]"#,
        ] {
            let line = update(members);
            assert!(skimmed_call(&line).is_some(), "{line}");
            assert_eq!(skimmed_call(&line), parsed_call(&line), "{line}");
        }
    }
}
