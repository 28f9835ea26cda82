//! A parsed string's own bytes in its record, when they are exactly what the transcript
//! writer would write for it: then they can be copied out instead of the string being
//! escaped again ([`EscapedCopy`](crate::model::EscapedCopy)).
//!
//! The parser unescapes each string in place, from the byte after its opening quote
//! ([`Parsed`]), so a string borrowed from a record's parse starts at the offset of its own
//! bytes in the record (simd-json 0.19's `parse_str` writes the unescaped bytes back over
//! the escaped ones, from the same start). Its end is found, and its escapes checked, with
//! the memchr crate's SIMD searches, never byte by byte:
//!
//! * every escape is longer than what it stands for, so the closing quote is the first
//!   unescaped `"` at or past the string's unescaped length;
//! * the parser took the bytes between as a JSON string: valid UTF-8, no raw control
//!   character (simd-json's first stage refuses them), no raw `"` or `\`, every escape a
//!   valid one. The writer writes all but two kinds of valid escape (serde_json's
//!   escaping: `\"` `\\` `\b` `\t` `\n` `\f` `\r`, and `\u00xx` in lower case for the other
//!   control characters): an escaped solidus (`\/`) and any other `\u`. Those are searched for
//!   (an escaped backslash before a `/` or `u` is told apart by the run of backslashes
//!   before it); when neither is there, the bytes are the writer's escaping of the string.
//!
//! An earlier version measured the writer's escaped length of the string instead (a
//! branch-free pass over the text, software popcount) and cost more than the escaping it
//! saved. This one, timed on the generated Codex stream's 794 command outputs (3.3 MB, an
//! escape every 17 bytes; best of 60 passes, alternated, CPU under load): escaping them
//! 0.58 ns a byte, finding their bytes 0.16, and with the copy's hash (twice) and its box
//! 0.29; a walk from backslash to backslash (memchr, or eight bytes at a time) 1.1-1.5 and
//! 0.85 of escaping's time: a branch per escape.
//!
//! This file owns that finding and its checks; which strings are worth it is the adapters'
//! business (long ones that go out unchanged: tool output).

use memchr::{memchr, memmem};

use super::json::Parsed;

/// The bytes between the quotes of `text`'s own JSON string in `record`, when they are
/// exactly the writer's escaping of `text`; `None` when they are not (escaped otherwise:
/// `\/`, `\u00e9`, upper-case hex), when the record was repaired before parsing, or when
/// `text` is not a whole string of this record's parse.
pub(crate) fn escaped<'r>(record: &'r [u8], parsed: Parsed, text: &str) -> Option<&'r [u8]> {
    let at = (text.as_ptr() as usize).checked_sub(parsed.start)?;
    if at == 0 || at >= parsed.len || parsed.len != record.len() {
        return None;
    }
    // A whole string starts after an unescaped quote: any quote inside a string is escaped.
    if record[at - 1] != b'"' || escaped_at(record, at - 1) {
        return None;
    }
    let raw = &record[at..];
    let mut from = text.len();
    let end = loop {
        let quote = from + memchr(b'"', raw.get(from..)?)?;
        if !escaped_at(raw, quote) {
            break quote;
        }
        from = quote + 1;
    };
    let raw = &raw[..end];
    if memmem::find_iter(raw, br"\/").any(|at| !escaped_at(raw, at)) {
        return None;
    }
    let writers = |at: usize| {
        escaped_at(raw, at)
            || matches!(
                raw.get(at + 2..at + 6),
                Some(&[b'0', b'0', high @ (b'0' | b'1'), low @ (b'0'..=b'9' | b'a'..=b'f')])
                    if !matches!((high, low), (b'0', b'8' | b'9' | b'a' | b'c' | b'd'))
            )
    };
    memmem::find_iter(raw, br"\u").all(writers).then_some(raw)
}

/// Whether `bytes[at]` follows an odd run of backslashes (is escaped).
fn escaped_at(bytes: &[u8], at: usize) -> bool {
    bytes[..at]
        .iter()
        .rev()
        .take_while(|byte| **byte == b'\\')
        .count()
        % 2
        == 1
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use serde::Deserialize;

    use super::*;
    use crate::normalize::framing::Record;
    use crate::normalize::json::{JsonParser, RecordShape};
    use crate::normalize::report::{Fate, Fields, Kind};

    #[derive(Deserialize)]
    struct Line<'a> {
        #[serde(borrow)]
        s: Cow<'a, str>,
    }
    struct Shape;
    impl RecordShape for Shape {
        type Of<'a> = Line<'a>;
        fn kind<'v>(_: &'v Line<'_>) -> Kind<'v> {
            ("line", None)
        }
        fn fields(_: Kind<'_>) -> Option<Fields> {
            None
        }
    }

    /// What `escaped` finds for field `s` of `record`, parsed as the adapters parse.
    fn found(record: &[u8]) -> Option<Vec<u8>> {
        let mut found = None;
        let record = Record::line(record, 1, 0, true);
        let read =
            JsonParser::default().parse_in::<Shape>(record, &mut Vec::new(), |line, parsed, _| {
                found = escaped(record.bytes, parsed, &line.s).map(<[u8]>::to_vec);
                Fate::Mapped
            });
        assert!(read);
        found
    }

    #[test]
    fn the_writers_own_escaping_is_found_as_the_record_has_it() {
        for record in [
            r#"{"s":"plain"}"#,
            r#"{"s":""}"#,
            r#"{"a":"x","s":"line\n\t\"quoted\" back\\slash \u001b[0m é ✓ 😀","b":"y"}"#,
            r#"{"s":"ends in a backslash\\"}"#,
        ] {
            let value: serde_json::Value = serde_json::from_str(record).unwrap();
            let writer = serde_json::to_string(&value["s"]).unwrap();
            let writer = writer.as_bytes()[1..writer.len() - 1].to_vec();
            assert_eq!(found(record.as_bytes()), Some(writer), "{record}");
        }
    }

    #[test]
    fn any_other_escaping_is_escaped_again() {
        for record in [
            r#"{"s":"a\/b"}"#,
            r#"{"s":"caf\u00e9"}"#,
            r#"{"s":"ansi \u001B[0m"}"#,
            r#"{"s":"tab \u0009"}"#,
            r#"{"s":"\ud83d\ude00"}"#,
        ] {
            assert_eq!(found(record.as_bytes()), None, "{record}");
        }
    }

    #[test]
    fn a_repaired_record_or_part_of_a_string_has_no_bytes_of_its_own() {
        // A raw control character: the record is parsed repaired, shifted.
        assert_eq!(found(b"{\"s\":\"a\x01b\"}"), None);
        let mut part = None;
        let record = Record::line(br#"{"s":"abc\"def\""}"#, 1, 0, true);
        JsonParser::default().parse_in::<Shape>(record, &mut Vec::new(), |line, parsed, _| {
            part = Some(escaped(record.bytes, parsed, &line.s[4..]).is_none());
            Fate::Mapped
        });
        assert_eq!(part, Some(true));
    }

    /// Every character the writer escapes, and a plain one, at every place in strings of
    /// every length from 1 to 40, written as the writer writes them: found whole.
    #[test]
    fn every_escape_at_every_place_of_every_length_is_found() {
        let specials = [
            '"', '\\', '\n', '\t', '\r', '\u{8}', '\u{c}', '\0', '\u{1b}', '\u{1f}', '/', 'é',
            '\u{7f}',
        ];
        for len in 1..=40 {
            for place in 0..len {
                for special in specials {
                    let text: String = (0..len)
                        .map(|at| if at == place { special } else { 'a' })
                        .collect();
                    let json = serde_json::to_string(&text).unwrap();
                    let record = format!(r#"{{"x":"\\\"","s":{json},"y":"\\"}}"#);
                    let writer = json.as_bytes()[1..json.len() - 1].to_vec();
                    assert_eq!(found(record.as_bytes()), Some(writer), "{record}");
                }
            }
        }
        assert_eq!(found(br#"{"s":""}"#), Some(Vec::new()));
    }

    /// Each escape the writer would not write, at every place: escaped again.
    #[test]
    fn every_other_escape_at_every_place_is_escaped_again() {
        let others = [
            r"\/",
            r"\u0041",
            r"\u00e9",
            r"\u001B",
            r"\u0008",
            r"\u0009",
            r"\u000a",
            r"\u000c",
            r"\u000d",
            r"\u0022",
            r"\u005c",
            r"\u2028",
            r"\ud83d\ude00",
        ];
        for len in 0..=20 {
            for place in 0..=len {
                for other in others {
                    let text = format!("{}{other}{}", "a".repeat(place), "b".repeat(len - place));
                    let record = format!(r#"{{"s":"{text}"}}"#);
                    assert_eq!(found(record.as_bytes()), None, "{record}");
                }
            }
        }
        // What looks like one after an escaped backslash is a backslash and a letter.
        let record = br#"{"s":"C:\\u0041\\/x"}"#;
        assert_eq!(found(record), Some(br"C:\\u0041\\/x".to_vec()));
    }

    /// Not UTF-8 (replaced before parsing) or a lone surrogate: never the record's bytes.
    #[test]
    fn what_the_parser_had_to_change_is_escaped_again() {
        assert_eq!(found(b"{\"s\":\"caf\xe9\"}"), None);
        let mut read = None;
        let record = Record::line(br#"{"s":"lone \ud800 surrogate"}"#, 1, 0, true);
        JsonParser::default().parse_in::<Shape>(record, &mut Vec::new(), |line, parsed, _| {
            read = Some(escaped(record.bytes, parsed, &line.s).is_none());
            Fate::Mapped
        });
        assert_ne!(read, Some(false));
    }

    /// A string that is not the parse's (a copy of it) has no bytes in the record.
    #[test]
    fn a_string_from_elsewhere_has_no_bytes_in_the_record() {
        let mut none = None;
        let record = Record::line(br#"{"s":"abc"}"#, 1, 0, true);
        JsonParser::default().parse_in::<Shape>(record, &mut Vec::new(), |line, parsed, _| {
            let copy = line.s.to_string();
            none = Some(escaped(record.bytes, parsed, &copy).is_none());
            Fate::Mapped
        });
        assert_eq!(none, Some(true));
    }
}
