//! A parsed string's own bytes in its record, when they are exactly what the transcript
//! writer would write for it: then they can be copied out instead of the string being
//! escaped again ([`EscapedCopy`](crate::model::EscapedCopy)).
//!
//! The parser unescapes each string in place, from the byte after its opening quote
//! ([`Parsed`]), so a string borrowed from a record's parse starts at the offset of its own
//! bytes in the record. What those bytes are is settled by lengths, without comparing
//! them: the writer's escaping (serde_json's) writes every character at its shortest
//! (raw UTF-8, else `\"` `\\` `\b` `\t` `\n` `\f` `\r`, else `\u00xx`), and every other
//! escaping of a character is longer (`\/`, `\u00e9`, a surrogate pair) but for the case of
//! a `\u00XX`'s hex digits. So when the record's bytes between two unescaped quotes around
//! the string are as long as the writer's escaping of it, they are that escaping, once the
//! hex digits are checked to be lower case.
//!
//! This file owns that finding and its checks; which strings are worth it is the adapters'
//! business (long ones that go out unchanged: tool output).

use memchr::memmem;

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
    let (len, unicode) = escaped_len(text.as_bytes());
    let end = at.checked_add(len)?;
    // Both quotes unescaped: the bytes between are one whole JSON string, which starts
    // where `text` does (a quote inside a string is escaped), and which is `len` long, no
    // longer than the shortest escaping of anything `text` is the start of: so it is
    // `text`, written at its shortest.
    if !unescaped_quote(record, at - 1) || !unescaped_quote(record, end) {
        return None;
    }
    let raw = &record[at..end];
    let lower_case = |escape: usize| {
        matches!(
            raw.get(escape + 2..escape + 6),
            Some([b'0', b'0', b'0'..=b'1', b'0'..=b'9' | b'a'..=b'f'])
        )
    };
    // A `\u` that is not a `\u00xx` in lower case is taken for a differing escape (at worst
    // an escaped backslash before a `u`: the string is then escaped again, as before).
    if unicode > 0 && !memmem::find_iter(raw, b"\\u").all(lower_case) {
        return None;
    }
    Some(raw)
}

/// Whether `record[at]` is a `"` that no backslash escapes (an even run of them before it).
fn unescaped_quote(record: &[u8], at: usize) -> bool {
    record.get(at) == Some(&b'"')
        && record[..at]
            .iter()
            .rev()
            .take_while(|byte| **byte == b'\\')
            .count()
            % 2
            == 0
}

/// The length of the writer's escaping of `text` (without its quotes), and how many of its
/// escapes are `\u00xx`: eight bytes at a time, no branch per byte.
fn escaped_len(text: &[u8]) -> (usize, usize) {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = ONES * 0x80;
    const LOWS: u64 = ONES * 0x7F;
    // Exact per byte (no borrow crosses a byte): the high bit of each byte below `n`, of
    // each byte equal to `n`.
    let below = |word: u64, n: u64| !((word | HIGHS) - ONES * n) & !word & HIGHS;
    let equal = |word: u64, n: u64| {
        let x = word ^ (ONES * n);
        !(((x & LOWS) + LOWS) | x) & HIGHS
    };
    let (mut extra, mut unicode) = (0u32, 0u32);
    let mut words = text.chunks_exact(8);
    for word in &mut words {
        let word = u64::from_le_bytes(word.try_into().expect("eight bytes"));
        let control = below(word, 0x20);
        // \b \t \n \f \r: 0x08..=0x0D but for 0x0B.
        let short = below(word, 0x0E) & !below(word, 0x08) & !equal(word, 0x0B);
        let two = equal(word, u64::from(b'"')) | equal(word, u64::from(b'\\')) | short;
        let six = control & !short;
        extra += two.count_ones() + 5 * six.count_ones();
        unicode += six.count_ones();
    }
    for &byte in words.remainder() {
        match byte {
            b'"' | b'\\' | 0x08..=0x0A | 0x0C | 0x0D => extra += 1,
            0..0x20 => {
                extra += 5;
                unicode += 1;
            }
            _ => {}
        }
    }
    (text.len() + extra as usize, unicode as usize)
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use serde::Deserialize;

    use super::*;
    use crate::normalize::framing::Record;
    use crate::normalize::json::{JsonParser, RecordShape};
    use crate::normalize::report::{Fate, Fields, Kind};

    #[test]
    fn the_length_is_the_writers_for_every_character_at_every_alignment() {
        let mut every = String::new();
        for code in (0u32..0x300).chain([0x2028, 0xFFFD, 0x1F600]) {
            every.push(char::from_u32(code).unwrap());
        }
        for start in 0..16 {
            let text = &every[every.char_indices().nth(start).unwrap().0..];
            let json = serde_json::to_string(text).unwrap();
            let unicode = json.matches("\\u").count();
            assert_eq!(escaped_len(text.as_bytes()), (json.len() - 2, unicode));
        }
    }

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
}
