use proptest::prelude::*;

use super::*;

/// Text the way tool output is: runs of plain bytes, every character JSON escapes, and
/// multi-byte characters, at any length (blocks of the escaper filled and flushed).
fn tool_output() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        "[a-z ]{0,20}",
        prop::sample::select(vec!["\n", "\t", "\"", "\\", "\u{1b}[0m", "\0", "\u{7f}"])
            .prop_map(str::to_owned),
        "\\PC{0,3}",
        any::<char>().prop_map(String::from),
    ];
    prop::collection::vec(piece, 0..400).prop_map(|pieces| pieces.concat())
}

proptest! {
    /// Whatever the string, the writer escapes it byte for byte as serde_json does.
    #[test]
    fn any_string_escapes_exactly_as_serde_json(text in tool_output()) {
        let mut ours = b"[".to_vec();
        escaped(&mut ours, &text);
        let mut theirs = b"[".to_vec();
        serde_json::to_writer(&mut theirs, &text).unwrap();
        prop_assert_eq!(ours, theirs);
    }
}

#[test]
fn strings_escape_exactly_as_serde_json() {
    let mut every_byte = String::new();
    for code in 0u32..0x300 {
        every_byte.push(char::from_u32(code).unwrap());
    }
    every_byte.push_str("\u{2028}\u{2029}\u{FFFD}😀 \"quoted\" back\\slash\t");
    for start in 0..16 {
        let text = &every_byte[every_byte.char_indices().nth(start).unwrap().0..];
        let mut ours = Vec::new();
        escaped(&mut ours, text);
        assert_eq!(ours, serde_json::to_vec(text).unwrap(), "from {start}");
    }
}

/// The first escape is found at every place in strings of every length up to a few
/// words: the short ones padded, the tails tested as an overlapping word.
#[test]
fn the_first_escape_is_found_at_every_length_and_place() {
    for len in 0..40 {
        let clean = "abcdefghijklmnopqrstuvwxyz0123456789ABCD".as_bytes()[..len].to_vec();
        assert_eq!(first_escape(&clean), len, "clean, {len} bytes");
        for special in [b'"', b'\\', b'\n', 0, 0x1f] {
            for place in 0..len {
                let mut text = clean.clone();
                text[place] = special;
                // Bytes after the first escape may need escaping too.
                for later in text.iter_mut().skip(place + 1).step_by(3) {
                    *later = b'"';
                }
                assert_eq!(
                    first_escape(&text),
                    place,
                    "{special:#x} at {place} of {len}"
                );
            }
        }
    }
}

/// The sixteen-byte scan finds the first escape where the eight-byte one does, at
/// every place in strings of every length up to a few blocks.
#[test]
fn the_block_scan_finds_the_first_escape_as_the_word_scan() {
    let text = "lorem ipsum dolor sit amet, consectetur adipiscing elit ".repeat(2);
    for len in 0..100 {
        let clean = &text.as_bytes()[..len];
        assert_eq!(first_escape_long(clean), len, "clean, {len} bytes");
        for special in [b'"', b'\\', b'\n', 0, 0x1f] {
            for place in 0..len {
                let mut bytes = clean.to_vec();
                bytes[place] = special;
                for later in bytes.iter_mut().skip(place + 1).step_by(5) {
                    *later = b'"';
                }
                assert_eq!(
                    first_escape_long(&bytes),
                    place,
                    "{special:#x} at {place} of {len}"
                );
                assert_eq!(first_escape(&bytes), place);
            }
        }
    }
    // Bytes above 0x7f (UTF-8) need no escape: the compare is unsigned.
    let accented = "é→😀".repeat(10);
    assert_eq!(first_escape_long(accented.as_bytes()), accented.len());
}

/// Strings of every length around the short path's (up to a few bytes past it), clean
/// and with every kind of escape at every place, written after other bytes (a line's
/// start), are written exactly as serde_json writes them; a clean one between quotes
/// as it is by [`Out::plain`] too.
#[test]
fn short_strings_are_written_exactly_as_serde_json_at_every_length() {
    let clean: Vec<char> = "abcdefghijklmnopqrstuvwxyz0123456789ABCDéé→😀xyz~"
        .chars()
        .collect();
    let check = |text: &str| {
        let mut ours = b"{\"k\":".to_vec();
        escaped(&mut ours, text);
        let mut theirs = b"{\"k\":".to_vec();
        serde_json::to_writer(&mut theirs, text).unwrap();
        assert_eq!(ours, theirs, "{text:?}");
    };
    for len in 0..clean.len() {
        let text: String = clean[..len].iter().collect();
        check(&text);
        let mut plain = b"{".to_vec();
        plain.plain(text.as_bytes());
        assert_eq!(
            plain,
            [b"{", &serde_json::to_vec(&text).unwrap()[..]].concat()
        );
        for special in ['"', '\\', '\n', '\0', '\u{1f}', '\t', '\u{7f}'] {
            for place in 0..len {
                let mut chars = clean[..len].to_vec();
                chars[place] = special;
                check(&chars.iter().collect::<String>());
                // And every byte after it escaped too.
                for later in chars.iter_mut().skip(place) {
                    *later = special;
                }
                check(&chars.iter().collect::<String>());
            }
        }
    }
    // Into a vector that has to grow for the string's span.
    for len in [0, 1, 7, 8, 9, 39, 40, 41] {
        let text = "x".repeat(len);
        let mut ours = Vec::with_capacity(1);
        escaped(&mut ours, &text);
        assert_eq!(ours, serde_json::to_vec(&text).unwrap());
    }
}

/// The vocabulary's names, which the writer writes as constants without escaping them
/// (`vocabulary!`), need no escape, and a timestamp's bytes it copies between quotes
/// unscanned ([`Out::plain`]) are those of a checked RFC 3339 text.
#[test]
fn the_names_written_plain_need_no_escape() {
    use crate::model::{EventType, Role, Timestamp};
    let mut names: Vec<String> = EventType::VOCABULARY
        .iter()
        .map(|kind| kind.as_str().to_owned())
        .collect();
    names.extend(["user", "assistant"].map(|role| Role::from_wire(role).as_str().to_owned()));
    names.extend(
        [Fidelity::Router, Fidelity::AgentEmitted].map(|fidelity| fidelity.as_str().to_owned()),
    );
    names.extend(
        [
            "text",
            "thinking",
            "tool_use",
            "tool_result",
            "command",
            "stream",
        ]
        .map(str::to_owned),
    );
    for name in names {
        assert_eq!(first_escape(name.as_bytes()), name.len(), "{name}");
    }
    for text in [
        "2026-11-27T23:59:59.123456Z",
        "2026-11-27t23:59:59+01:00",
        "2026-11-27 23:59:60-23:59",
    ] {
        let stamp = Timestamp::parse(text).unwrap();
        assert_eq!(stamp.rfc3339_bytes(), Some(text.as_bytes()));
        assert_eq!(first_escape(text.as_bytes()), text.len());
    }
    assert_eq!(Timestamp::from_raw("not \"a\" time").rfc3339_bytes(), None);
}

/// The names written as constants with their keys (`vocabulary!`) are those
/// `Serialize` writes: every event type, role, block type and fidelity, on both kinds of
/// payload that carry a fidelity, and seq and iteration at one digit and more.
#[test]
fn every_name_is_written_as_serde_writes_it() {
    use crate::model::{MessagePayload, Timestamp};
    let fidelities = [Fidelity::Router, Fidelity::AgentEmitted];
    let blocks = |fidelity: &Fidelity| {
        let input = serde_json::json!({"a": [1, "b"]});
        vec![
            ContentBlock::text(fidelity.clone(), "t"),
            ContentBlock::thinking(fidelity.clone(), "th"),
            ContentBlock::tool_use(fidelity.clone(), "Bash", "id-1", input.clone()),
            ContentBlock::tool_result(fidelity.clone(), "id-1", input),
            ContentBlock::command(fidelity.clone(), "ls"),
            ContentBlock::stream(fidelity.clone(), "out"),
        ]
    };
    let mut payloads = vec![Payload::None];
    for fidelity in &fidelities {
        for role in [Role::User, Role::Assistant] {
            payloads.push(Payload::Message(MessagePayload::new(
                role,
                blocks(fidelity),
            )));
        }
        let mut tool = ToolPayload::call("Bash", "id-1", Value::Null, fidelity.clone());
        tool.exit_code = Some(7);
        tool.duration_ms = Some(12);
        payloads.push(Payload::Tool(tool));
    }
    let mut checked = 0;
    for (index, kind) in EventType::VOCABULARY.iter().enumerate() {
        for payload in &payloads {
            let mut event = ExchangeEvent::new("run", kind.clone(), "a.b", payload.clone());
            event.seq = [1, 9, 10, 12_345][index % 4];
            event.iteration = [0, 3, 10, 99][index % 4];
            event.timestamp = Timestamp::parse("2026-11-27T23:59:59.123Z").unwrap();
            let mut ours = Vec::new();
            super::event(&event, &mut ours).unwrap();
            assert_eq!(
                String::from_utf8(ours).unwrap(),
                serde_json::to_string(&event).unwrap()
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 10 * 7);
}

#[test]
fn the_word_mask_finds_the_first_escape_exactly() {
    for special in (0u8..0x20).chain([b'"', b'\\']) {
        for position in 0..8 {
            // Every byte after the first match matches too: borrows must not move the
            // lowest flag.
            let mut word = *b"abcdefgh";
            for byte in &mut word[position..] {
                *byte = special;
            }
            let mask = escape_mask(u64::from_le_bytes(word));
            let first = mask.trailing_zeros() / 8;
            assert_eq!(first, position as u32, "{special:#x} at {position}");
        }
    }
    let plain: [[u8; 8]; 3] = [
        *b"abcdefgh",
        *b"\x7f\x20~!#[]{",
        [0xC3, 0xA9, 0xE2, 0x86, 0x92, 0x2F, 0x21, 0x7E],
    ];
    for word in plain {
        assert_eq!(escape_mask(u64::from_le_bytes(word)), 0);
    }
}
