//! An assistant delta read by a skim of its line, without the JSON parser.
//!
//! Nearly every line of a stream-json run is an assistant `message` delta, written by
//! gemini-cli as `{"type":"message","timestamp":"...","role":"assistant","content":"...",
//! "delta":true}`: a short line (most under 200 bytes) whose every byte the adapter used to
//! copy into the parser's buffer, index, read into an [`Event`](super::Event) and check field
//! by field, to append `content` to the open text. [`skim`] reads such a line token by token
//! as the CLI writes it, `content` unescaped straight into the caller's buffer, and hands back
//! what [`State::event`](super::State) takes of a delta.
//!
//! It gives up (`None`; the line is then parsed as before) at anything it cannot read
//! exactly as the parser would: whitespace between tokens, another type or role, `delta`
//! not `true`, a field twice, a field the `message` type does not have (the input report
//! counts those), a `null`, an escaped key or timestamp, invalid UTF-8, a control character,
//! an escape JSON does not have, a `\u` surrogate (simd-json reads pairs and refuses lone
//! ones: not told apart here). What it accepts, the parser accepts, with the same
//! timestamp and the same text ([`tests`] holds the two readings to each other).

use crate::normalize::skim::{string_end, unescape};

/// The members a delta has after its `type`, each with its key and, where the skim takes one
/// value only, that value: written as the CLI writes them, compact.
const MEMBERS: [&[u8]; 4] = [
    b",\"timestamp\":\"",
    b",\"role\":\"assistant\"",
    b",\"content\":\"",
    b",\"delta\":true",
];

/// The delta `bytes` holds, its `content` appended to `text` (see the module docs): its
/// `timestamp`. `None` when it is no delta this reading takes, `text` then as it was.
pub(super) fn skim<'a>(bytes: &'a [u8], text: &mut String) -> Option<&'a str> {
    const TYPE: &[u8] = b"{\"type\":\"message\"";
    if !bytes.starts_with(TYPE) {
        return None;
    }
    // Checked whole, once: every piece taken below is cut at an ASCII byte.
    let line = std::str::from_utf8(bytes).ok()?;
    let start = text.len();
    let read = members(line, TYPE.len(), text);
    if read.is_none() {
        text.truncate(start);
    }
    read
}

/// The members after `type`, through the closing brace and the line's end: the timestamp.
fn members<'a>(line: &'a str, mut at: usize, text: &mut String) -> Option<&'a str> {
    let bytes = line.as_bytes();
    let mut seen = [false; MEMBERS.len()];
    let mut timestamp = None;
    while bytes.get(at) != Some(&b'}') {
        let rest = bytes.get(at..)?;
        let member = MEMBERS.iter().position(|member| rest.starts_with(member))?;
        if std::mem::replace(&mut seen[member], true) {
            return None;
        }
        at += MEMBERS[member].len();
        match member {
            0 => {
                let (end, escaped) = string_end(bytes, at)?;
                if escaped {
                    return None;
                }
                timestamp = Some(&line[at..end - 1]);
                at = end;
            }
            2 => at = unescape(line, at, text)?,
            _ => {}
        }
    }
    (at + 1 == bytes.len() && seen[1] && seen[2] && seen[3]).then_some(timestamp?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The timestamp and text the parser reads from a delta line, or `None` when it would not
    /// take it as a delta (or refuses it).
    fn parsed(line: &str) -> Option<(String, String)> {
        let mut bytes = line.as_bytes().to_vec();
        let event = simd_json::serde::from_slice::<super::super::Event<'_>>(&mut bytes).ok()?;
        let known = |f: &str| matches!(f, "type" | "timestamp" | "role" | "content" | "delta");
        let value: serde_json::Value = serde_json::from_str(line).ok()?;
        let all_known = value.as_object()?.keys().all(|key| known(key));
        let delta = event.kind == "message"
            && event.role.as_deref() == Some("assistant")
            && event.delta == Some(true);
        (delta && all_known).then(|| {
            (
                event
                    .timestamp
                    .map(|t| t.0.into_owned())
                    .unwrap_or_default(),
                event.content.map(|c| c.0.into_owned()).unwrap_or_default(),
            )
        })
    }

    fn skimmed(line: &str) -> Option<(String, String)> {
        let mut text = "before".to_owned();
        let timestamp = skim(line.as_bytes(), &mut text);
        match &timestamp {
            None => assert_eq!(text, "before", "{line}"),
            Some(_) => assert!(text.starts_with("before"), "{line}"),
        }
        timestamp.map(|time| (time.to_owned(), text["before".len()..].to_owned()))
    }

    fn line(content: &str) -> String {
        format!(
            r#"{{"type":"message","timestamp":"2026-05-14T09:00:01.236Z","role":"assistant","content":"{content}","delta":true}}"#
        )
    }

    /// Every escape and character at every place of contents of 0 to 40 bytes: a line the
    /// skim takes is read alike by the parser; one it gives up is one the parser refuses,
    /// or one with a `\u` surrogate or a control character.
    #[test]
    fn a_delta_is_skimmed_as_the_parser_reads_it_wherever_its_escapes_fall() {
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
            "→",
            "}",
            ",",
            "ab",
        ];
        let mut taken = 0;
        for len in 0..=40 {
            for piece in pieces {
                for at in [0, len / 2, len] {
                    let mut content = "x".repeat(len);
                    content.insert_str(at, piece);
                    let line = line(&content);
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
        assert!(taken > 2_000, "{taken}");
    }

    #[test]
    fn lines_other_than_a_compact_delta_are_given_up() {
        let given_up = [
            r#"{"type":"message","timestamp":"t","role":"user","content":"a","delta":true}"#,
            r#"{"type":"message","timestamp":"t","role":"assistant","content":"a","delta":false}"#,
            r#"{"type":"message","timestamp":"t","role":"assistant","content":"a"}"#,
            r#"{"type":"message","timestamp":"t","role":"assistant","delta":true}"#,
            r#"{"type":"message","role":"assistant","content":"a","delta":true}"#,
            r#"{"type":"message","timestamp":null,"role":"assistant","content":"a","delta":true}"#,
            r#"{"type":"message","timestamp":"t","role":"assistant","content":null,"delta":true}"#,
            r#"{"type":"message","timestamp":"t","role":"assistant","content":"a","delta":true,"x":1}"#,
            r#"{"type":"message","timestamp":"t","role":"assistant","content":"a","content":"b","delta":true}"#,
            r#"{"type":"message","timestamp":"t","timestamp":"u","role":"assistant","content":"a","delta":true}"#,
            r#"{"type":"message","timestamp":"t","role":"assistant","content":"a","delta":true} "#,
            r#"{"type":"message", "timestamp":"t","role":"assistant","content":"a","delta":true}"#,
            r#"{"type":"message","timestamp":"t","role":"assistant","content":"a","delta":true"#,
            r#"{"type":"message","timestamp":"t","role":"assistant","content":"a","delta":truex}"#,
            r#"{"type":"message","timestamp":"t","role":"assistant","content":"a","delta":true,}"#,
            r#"{"type":"message","timestamp":"t\n","role":"assistant","content":"a","delta":true}"#,
            r#"{"type":"message","t\u0069mestamp":"t","role":"assistant","content":"a","delta":true}"#,
            r#"{"type":"message","timestamp":"t","role":"assistant","content":7,"delta":true}"#,
            r#"{"type":"messages","timestamp":"t","role":"assistant","content":"a","delta":true}"#,
            r#"{"type":"tool_use","timestamp":"t","role":"assistant","content":"a","delta":true}"#,
            r#"{"timestamp":"t","type":"message","role":"assistant","content":"a","delta":true}"#,
            r#"{"type":"message","timestamp":"t","role":"assistant","content":"a\u0000\ud800","delta":true}"#,
            r#"{"type":"message","timestamp":"t","role":"assistant","content":"a","delta":true}}"#,
        ];
        for line in given_up {
            assert_eq!(skimmed(line), None, "{line}");
        }
        let mut invalid = line("caf").into_bytes();
        let at = invalid.len() - 15;
        invalid.insert(at, 0xE9);
        assert!(skim(&invalid, &mut String::new()).is_none());
        // Any order of the members is the parser's too.
        let reordered = r#"{"type":"message","delta":true,"content":"a\nb","role":"assistant","timestamp":"t"}"#;
        assert_eq!(skimmed(reordered), parsed(reordered));
        assert_eq!(
            skimmed(reordered),
            Some(("t".to_owned(), "a\nb".to_owned()))
        );
    }
}
