//! A JSON string's text: where a run of its bytes that stand for themselves ends
//! ([`plain_end`], every skim's), and the string unescaped as simd-json reads it, for the
//! skims that read a text out of a line instead of holding its escaped bytes: onto an open
//! text ([`unescape`]: Gemini CLI's deltas, Claude's) or into a new string ([`unescaped`]:
//! Codex's messages, OpenCode's text parts). Both give up (`None`) where simd-json and
//! serde_json could differ (a `\u` surrogate) and where the parse would refuse.

use crate::model::{block_mask, escape_mask};

/// The first quote, backslash or control character at or after `at`, or the end of `bytes`:
/// where a run of a string's bytes that stand for themselves ends. Eight bytes at a time, by
/// the writer's own test of a word ([`escape_mask`]: exact for the lowest byte it flags).
#[inline]
pub(crate) fn plain_end(bytes: &[u8], mut at: usize) -> usize {
    while let Some(word) = bytes.get(at..at + 8) {
        let found = escape_mask(u64::from_le_bytes(word.try_into().expect("eight bytes")));
        if found != 0 {
            return at + found.trailing_zeros() as usize / 8;
        }
        at += 8;
    }
    while bytes
        .get(at)
        .is_some_and(|&b| b >= 0x20 && b != b'"' && b != b'\\')
    {
        at += 1;
    }
    at
}

/// The string whose opening quote is before `at`, unescaped onto `text` as simd-json reads
/// it: where it ends (past its closing quote). `None` at a control character, an escape JSON
/// has not, or a `\u` surrogate (simd-json reads pairs and refuses lone ones: not told apart
/// here). One pass: runs between escapes are found by [`plain_end`], as
/// [`string_end`](super::string_end) finds them. (Gemini CLI's delta skim's, and Claude's.)
pub(crate) fn unescape(line: &str, mut at: usize, text: &mut String) -> Option<usize> {
    let bytes = line.as_bytes();
    let mut run = at;
    loop {
        at = plain_end(bytes, at);
        match *bytes.get(at)? {
            b'"' => {
                text.push_str(&line[run..at]);
                return Some(at + 1);
            }
            b'\\' => {
                text.push_str(&line[run..at]);
                let (unescaped, length) = match *bytes.get(at + 1)? {
                    b'"' => ('"', 2),
                    b'\\' => ('\\', 2),
                    b'/' => ('/', 2),
                    b'b' => ('\u{8}', 2),
                    b'f' => ('\u{c}', 2),
                    b'n' => ('\n', 2),
                    b'r' => ('\r', 2),
                    b't' => ('\t', 2),
                    b'u' => {
                        let hex = bytes.get(at + 2..at + 6)?;
                        let point = hex.iter().try_fold(0, |point, &digit| {
                            Some(point << 4 | char::from(digit).to_digit(16)?)
                        })?;
                        // A surrogate, of a pair or alone, is no `char` of its own.
                        (char::from_u32(point)?, 6)
                    }
                    _ => return None,
                };
                text.push(unescaped);
                at += length;
                run = at;
            }
            // A control character.
            _ => return None,
        }
    }
}

/// The string whose opening quote is before `at`, as simd-json reads it: borrowed when it
/// has no escape, else unescaped by [`unescape`] (which gives up where it gives up); where
/// it ends (past its closing quote). For a stream's short texts, read by the API adapters'
/// skims of their deltas.
pub(crate) fn text_at(line: &str, at: usize) -> Option<(std::borrow::Cow<'_, str>, usize)> {
    let bytes = line.as_bytes();
    let end = plain_end(bytes, at);
    if bytes.get(end) == Some(&b'"') {
        return Some((std::borrow::Cow::Borrowed(line.get(at..end)?), end + 1));
    }
    let mut text = String::with_capacity(end - at + 16);
    let end = unescape(line, at, &mut text)?;
    Some((std::borrow::Cow::Owned(text), end))
}

/// Past `token`, when `bytes` has it at `at`: a skim's fixed piece of a line (a key with its
/// quotes and colon, a value's opening quote) compared whole.
#[inline]
pub(crate) fn token(bytes: &[u8], at: usize, token: &[u8]) -> Option<usize> {
    let end = at + token.len();
    (bytes.get(at..end)? == token).then_some(end)
}

/// The whole number at `at` as JSON writes it (no sign, fraction, exponent or leading
/// zero), of at most 18 digits: a `u64` simd-json and serde_json read alike; and where its
/// digits end. The caller reads what follows (a fraction or an exponent there is no token
/// of its own, and gives up).
pub(crate) fn small_count(bytes: &[u8], at: usize) -> Option<(u64, usize)> {
    let mut end = at;
    while let Some(b'0'..=b'9') = bytes.get(end) {
        end += 1;
    }
    let digits = bytes.get(at..end)?;
    if digits.is_empty() || digits.len() > 18 || (digits[0] == b'0' && digits.len() > 1) {
        return None;
    }
    Some((
        digits.iter().fold(0, |n, &d| n * 10 + u64::from(d - b'0')),
        end,
    ))
}

/// The string whose opening quote is before `from`, unescaped as [`unescape`] unescapes it
/// (as simd-json reads it), into a new string; where it ends (past its closing quote).
/// Sixteen bytes at a time: each block is copied whole onto the text and cut back to its
/// first quote, backslash or control character ([`block_mask`]), so a run between escapes
/// costs no copy call of its own, where [`unescape`] pushes each run and each escape onto a
/// `String` (a text part of the OpenCode bench stream, an escape every 16 bytes: 6.9
/// instructions a byte there). The text is held as bytes, cut only at ASCII bytes of a line
/// checked as UTF-8, and checked once more as the string is made (there is no unsafe code).
/// Their room is the rest of the line and a block: no escape is shorter than what it stands
/// for, so it is never grown.
pub(crate) fn unescaped(line: &str, from: usize) -> Option<(String, usize)> {
    let bytes = line.as_bytes();
    let mut text = Vec::with_capacity(bytes.len().saturating_sub(from) + 16);
    let mut at = from;
    loop {
        // The next quote, backslash or control character, the run before it copied.
        at = loop {
            let Some(block) = bytes.get(at..at + 16) else {
                let end = plain_end(bytes, at);
                text.extend_from_slice(bytes.get(at..end)?);
                break end;
            };
            let block: &[u8; 16] = block.try_into().ok()?;
            let mask = block_mask(block);
            text.extend_from_slice(block);
            if mask != 0 {
                let run = mask.trailing_zeros() as usize;
                text.truncate(text.len() - 16 + run);
                break at + run;
            }
            at += 16;
        };
        match *bytes.get(at)? {
            // Checked by simdutf8 and copied into a string of its length: core's check
            // (`String::from_utf8`, a byte at a time past the ASCII) was 1.1 instructions a
            // byte of the OpenCode bench stream's texts.
            b'"' => return Some((simdutf8::basic::from_utf8(&text).ok()?.to_owned(), at + 1)),
            b'\\' => {
                let byte = match *bytes.get(at + 1)? {
                    b'"' => b'"',
                    b'\\' => b'\\',
                    b'/' => b'/',
                    b'b' => 0x08,
                    b'f' => 0x0c,
                    b'n' => b'\n',
                    b'r' => b'\r',
                    b't' => b'\t',
                    b'u' => {
                        let hex = bytes.get(at + 2..at + 6)?;
                        let point = hex.iter().try_fold(0, |point, &digit| {
                            Some(point << 4 | char::from(digit).to_digit(16)?)
                        })?;
                        // A surrogate, of a pair or alone, is no `char` of its own.
                        let unescaped = char::from_u32(point)?;
                        text.extend_from_slice(unescaped.encode_utf8(&mut [0; 4]).as_bytes());
                        at += 6;
                        continue;
                    }
                    _ => return None,
                };
                text.push(byte);
                at += 2;
            }
            // A control character.
            _ => return None,
        }
    }
}

// The readings of a string's end (`string_end`, the parent's) held to serde_json's and to
// the byte-by-byte reading the blocks replaced: here, beside the text's, so that the
// skim's file stays under its length.
#[cfg(test)]
mod tests {
    use super::super::string_end_as;
    use super::super::tests::valid;

    /// Escapes, quotes and control characters at every place in and across the eight-byte
    /// words a string is read in: a skim reads them as serde_json does.
    #[test]
    fn a_string_is_skipped_as_serde_json_skips_it_wherever_its_escapes_fall() {
        let pieces = [
            "\\\"", "\\\\", "\\n", "\\u00e9", "\\u12", "\\x", "#", "]", " ", "\t", "\"", "\\",
            "\u{e9}", "ab",
        ];
        for pad in 0..9 {
            for a in pieces {
                for b in pieces {
                    for c in ["", "\\\\\\\"", "\\u0022x", "\\\"\\\""] {
                        let case = format!(
                            "{{\"k\":\"{}{a}{}{b}{c}{}\"}}",
                            "x".repeat(pad),
                            "y".repeat(pad % 3),
                            "z".repeat(9 - pad)
                        );
                        let serde = serde_json::from_str::<serde::de::IgnoredAny>(&case).is_ok();
                        assert_eq!(valid(&case), serde, "{case}");
                    }
                }
            }
        }
    }

    /// [`string_end_as`] as it read byte by byte before it read blocks: the reading it must
    /// equal.
    fn string_end_bytewise<const SIMD: bool>(bytes: &[u8], from: usize) -> Option<(usize, bool)> {
        let mut at = from;
        let mut escaped = false;
        loop {
            match *bytes.get(at)? {
                b'"' => return Some((at + 1, escaped)),
                b'\\' => {
                    escaped = true;
                    match bytes.get(at + 1)? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => at += 2,
                        b'u' => {
                            let hex = bytes.get(at + 2..at + 6)?;
                            if !hex.iter().all(u8::is_ascii_hexdigit)
                                || (SIMD
                                    && matches!(hex[0], b'd' | b'D')
                                    && matches!(hex[1], b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F'))
                            {
                                return None;
                            }
                            at += 6;
                        }
                        _ => return None,
                    }
                }
                0..0x20 => return None,
                _ => at += 1,
            }
        }
    }

    /// The end of a string and whether it had an escape, by blocks, as byte by byte: every
    /// escape (valid or not, surrogates included), quote and control character at every
    /// place across the sixteen-byte start, the 64-byte blocks and the padded last block,
    /// the string cut short anywhere, in both readings (serde_json's, simd-json's).
    #[test]
    fn a_string_ends_where_a_reading_byte_by_byte_ends_it() {
        let pieces = [
            "\\\"", "\\\\", "\\/", "\\n", "\\u00e9", "\\u001b", "\\uD83D", "\\ud800x", "\\uDbFf",
            "\\ue000", "\\u12", "\\u12g4", "\\x", "\\\t", "\t", "\u{1f}", "\"", "\\", "\\\\\\\"",
            "\u{e9}", "ab",
        ];
        let mut checked = 0;
        for pad in (0..20).chain(44..70).chain(120..132) {
            for a in pieces {
                for b in pieces {
                    let body = format!("{}{a}{}{b}", "x".repeat(pad), "y".repeat(pad % 5));
                    for after in ["\",\"n\":1}", "", "\\"] {
                        let record = format!("{{\"k\":\"{body}{after}");
                        let bytes = record.as_bytes();
                        let from = "{\"k\":\"".len();
                        for cut in [bytes.len(), from + pad + a.len(), from + pad / 2] {
                            let bytes = &bytes[..cut.min(bytes.len())];
                            assert_eq!(
                                string_end_as::<false>(bytes, from),
                                string_end_bytewise::<false>(bytes, from),
                                "{:?}",
                                String::from_utf8_lossy(bytes)
                            );
                            assert_eq!(
                                string_end_as::<true>(bytes, from),
                                string_end_bytewise::<true>(bytes, from),
                                "{:?}",
                                String::from_utf8_lossy(bytes)
                            );
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert!(checked > 50_000);
    }
}
