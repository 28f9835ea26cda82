//! The one place that parses provider JSON.
//!
//! The hot path is simd-json's serde deserializer into each adapter's typed, borrowed record
//! struct. The record is copied once, into a padded scratch buffer simd-json parses in place
//! (`fill_tape_padded`: no second, internal copy), and the scratch buffer, simd-json's
//! buffers and the tape are reused from record to record, so a record costs no allocation.
//! The tape is also where the [input report](super::report) finds each record's fields: the
//! parser counts every record by its adapter's type key, with the fate the adapter gives it.
//! A record that fails is looked at again, off the hot path:
//!
//! * raw control characters inside JSON strings (a NUL from terminal output, say) are
//!   escaped as `\u00XX` and the record parsed again: the code point is kept, the record is
//!   not corrupted, and a warning says so;
//! * bytes that are not UTF-8 are replaced with U+FFFD and the record parsed again, with an
//!   error diagnostic naming the first bad byte;
//! * anything else is re-parsed with serde_json, whose errors carry a column, to say
//!   precisely what was wrong: not JSON, cut off, or JSON of an unexpected shape.

use std::borrow::Cow;
use std::collections::BTreeMap;

use bstr::ByteSlice;
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;
use simd_json::{Deserializer, Tape};

use super::framing::Record;
use super::report::{Fate, Fields, Kind, Tally};
use super::{Diagnostic, DiagnosticKind};

/// A typed record struct that borrows from the record's bytes: `Of<'a>` is the struct for
/// bytes that live for `'a`.
pub(crate) trait RecordShape {
    type Of<'a>: Deserialize<'a>;

    /// The record's type key in the input report.
    fn kind<'v>(record: &'v Self::Of<'_>) -> Kind<'v>;

    /// Where the fields of records of this type are and which ones the adapter knows; `None`
    /// for types whose fields are not checked (kept whole, or not the adapter's).
    fn fields(kind: Kind<'_>) -> Option<Fields>;
}

/// Whether a record has a field at all, whatever its value (`null` included): for record
/// fields whose presence, not value, tells what a record is.
#[derive(Clone, Copy, Default)]
pub(crate) struct Present(pub(crate) bool);

impl<'de> Deserialize<'de> for Present {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        IgnoredAny::deserialize(deserializer).map(|_| Present(true))
    }
}

/// A string borrowed from the record wherever the parser can lend it. serde borrows a
/// `Cow<str>` field, but not one inside an `Option`: that one is always a copy (an
/// allocation and a copy of every such field of every record). An optional string field
/// read as `Option<Borrowed>` is borrowed.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, serde::Serialize)]
#[serde(transparent)]
pub(crate) struct Borrowed<'a>(#[serde(borrow)] pub(crate) Cow<'a, str>);

impl std::ops::Deref for Borrowed<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

/// What an `Option<Cow<str>>` field was used for, an `Option<Borrowed>` field does too.
impl Borrowed<'_> {
    /// The string, owned: moved when the parser had to copy it (it was escaped), else copied.
    pub(crate) fn into_owned(self) -> String {
        self.0.into_owned()
    }
}

impl PartialEq<str> for Borrowed<'_> {
    fn eq(&self, other: &str) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<&str> for Borrowed<'_> {
    fn eq(&self, other: &&str) -> bool {
        *self.0 == **other
    }
}

/// simd-json unescapes each string in place from its first byte, so a borrowed string's
/// offset in the scratch buffer is that of its own bytes in the record (when the record was
/// not repaired): a copy of a string as the record escaped it can be found from there
/// (tried for Codex's outputs and measured no faster: see the writer's `escaped_from`).
#[derive(Default)]
pub(crate) struct JsonParser {
    scratch: Vec<u8>,
    buffers: simd_json::Buffers,
    /// The last record's tape, emptied, kept for its allocation.
    tape: Option<Tape<'static>>,
    /// Every record read so far, by type and fate.
    pub(crate) tally: Tally,
}

/// How a record was prepared for an attempt.
#[derive(Clone, Copy, PartialEq)]
enum Preparation {
    AsIs,
    /// Control characters inside strings escaped; invalid UTF-8 replaced.
    Repaired,
}

impl JsonParser {
    /// Parses `record` as `S` and hands the value, and `diagnostics`, to `handle`, which
    /// says what became of the record; when the record cannot be read as `S`, reports why.
    /// Either way the record is counted in the tally. Returns whether it was read.
    pub(crate) fn parse<S: RecordShape>(
        &mut self,
        record: Record<'_>,
        diagnostics: &mut Vec<Diagnostic>,
        handle: impl FnOnce(S::Of<'_>, &mut Vec<Diagnostic>) -> Fate,
    ) -> bool {
        let first = record.bytes.iter().find(|b| !b.is_ascii_whitespace());
        if first != Some(&b'{') {
            diagnostics.push(not_json(record));
            self.tally.unreadable();
            return false;
        }
        let mut preparation = Preparation::AsIs;
        loop {
            self.scratch.clear();
            match preparation {
                Preparation::AsIs => self.scratch.extend_from_slice(record.bytes),
                Preparation::Repaired => repair(record.bytes, &mut self.scratch),
            }
            let JsonParser {
                scratch,
                buffers,
                tape,
                tally,
            } = self;
            let len = scratch.len();
            scratch.resize(len + simd_json::INPUT_PADDING, 0);
            let mut filled = tape.take().map_or_else(Tape::null, Tape::reset);
            match simd_json::fill_tape_padded(scratch, len, buffers, &mut filled) {
                Ok(()) => {
                    let mut deserializer = Deserializer::from_tape(filled);
                    let read = S::Of::deserialize(&mut deserializer);
                    // Counted and handed on where it was read: a record struct is hundreds
                    // of bytes, and every move of it (into a tuple, a `Result`, out of a
                    // `match`) was a copy of them per record.
                    if let Ok(value) = read {
                        let kind = S::kind(&value);
                        let slot = tally.see(kind);
                        if let Some(fields) = S::fields(kind) {
                            check_fields(tally, slot, &deserializer, fields);
                        }
                        *tape = Some(deserializer.into_tape().reset());
                        let fate = handle(value, diagnostics);
                        tally.fate(slot, fate);
                        return true;
                    }
                    *tape = Some(deserializer.into_tape().reset());
                }
                Err(_) => *tape = Some(filled.reset()),
            }
            if preparation == Preparation::AsIs && needs_repair(record.bytes) {
                diagnostics.extend(repair_diagnostics(record));
                preparation = Preparation::Repaired;
            } else {
                diagnostics.push(explain::<S>(record, preparation));
                tally.unreadable();
                return false;
            }
        }
    }
}

/// Counts the fields of a just-parsed record that its type does not know, read from the
/// tape: the record's keys, or those of the member that holds its payload.
fn check_fields(tally: &mut Tally, slot: usize, deserializer: &Deserializer<'_>, fields: Fields) {
    let record = deserializer.as_value();
    let holder = match fields.within {
        None => Some(record),
        Some(member) => record.get(member),
    };
    if let Some(object) = holder.as_ref().and_then(|holder| holder.as_object()) {
        tally.check_fields(slot, object.keys(), fields);
    }
}

/// A whole record as a JSON value, for the rare records kept verbatim (passthrough metadata,
/// unknown block types). Repairs it as the hot path would; `Null` if it is still not JSON.
pub(crate) fn to_value(bytes: &[u8]) -> serde_json::Value {
    serde_json::from_slice(bytes).unwrap_or_else(|_| {
        let mut repaired = Vec::with_capacity(bytes.len() + 16);
        repair(bytes, &mut repaired);
        serde_json::from_slice(&repaired).unwrap_or(serde_json::Value::Null)
    })
}

/// The string field `name` of a JSON object (`None` when the bytes are no object, or the
/// field is absent or not a string): for a framing that unwraps one field of its envelope
/// (an AWS `PayloadPart`'s `bytes`), which is then no second JSON parser.
pub(crate) fn string_field<'a>(bytes: &'a [u8], name: &str) -> Option<Cow<'a, str>> {
    #[derive(Deserialize)]
    struct Field<'a>(#[serde(borrow)] Cow<'a, str>);
    let object: BTreeMap<Cow<'a, str>, &'a RawValue> = serde_json::from_slice(bytes).ok()?;
    let raw = object.get(name)?;
    serde_json::from_str::<Field<'a>>(raw.get())
        .ok()
        .map(|Field(text)| text)
}

fn needs_repair(bytes: &[u8]) -> bool {
    bytes.iter().any(|b| *b < 0x20) || std::str::from_utf8(bytes).is_err()
}

/// What repairing a record changes, said once per record.
fn repair_diagnostics(record: Record<'_>) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    if let Err(error) = std::str::from_utf8(record.bytes) {
        let at = error.valid_up_to();
        found.push(Diagnostic::new(
            DiagnosticKind::InvalidUtf8,
            record.line,
            record.at(at),
            format!("invalid UTF-8 at byte {at} of the record; read with U+FFFD in its place"),
        ));
    }
    let controls = controls_in_strings(record.bytes);
    if let Some(first) = controls.first() {
        found.push(Diagnostic::new(
            DiagnosticKind::ControlCharacters,
            record.line,
            record.at(*first),
            format!(
                "{} raw control character(s) inside JSON strings; kept as code points",
                controls.len()
            ),
        ));
    }
    found
}

/// Copies `bytes` into `out`, escaping raw control characters inside JSON strings and
/// replacing invalid UTF-8 with U+FFFD. Outside strings nothing changes.
fn repair(bytes: &[u8], out: &mut Vec<u8>) {
    repair_pieces(bytes, |_, piece| out.extend_from_slice(piece));
}

/// [`repair`], also saying for each repaired byte which byte of `bytes` it came from, so a
/// parser's position in the repaired record can be reported as a position in the input.
fn repair_mapped(bytes: &[u8], out: &mut Vec<u8>, origin: &mut Vec<usize>) {
    repair_pieces(bytes, |at, piece| {
        out.extend_from_slice(piece);
        origin.extend(std::iter::repeat_n(at, piece.len()));
    });
}

/// The repair as a sequence of pieces, each with the offset in `bytes` it replaces.
fn repair_pieces(bytes: &[u8], mut emit: impl FnMut(usize, &[u8])) {
    let (mut in_string, mut escaped) = (false, false);
    let mut offset = 0;
    let mut byte = |at: usize, byte: u8, emit: &mut dyn FnMut(usize, &[u8])| {
        if in_string {
            if escaped {
                escaped = false;
            } else if byte == b'\\' {
                escaped = true;
            } else if byte == b'"' {
                in_string = false;
            } else if byte < 0x20 {
                emit(at, format!("\\u{byte:04x}").as_bytes());
                return;
            }
        } else if byte == b'"' {
            in_string = true;
        }
        emit(at, &[byte]);
    };
    for chunk in bytes.utf8_chunks() {
        for &b in chunk.valid().as_bytes() {
            byte(offset, b, &mut emit);
            offset += 1;
        }
        if !chunk.invalid().is_empty() {
            for &b in "\u{FFFD}".as_bytes() {
                byte(offset, b, &mut emit);
            }
            offset += chunk.invalid().len();
        }
    }
}

/// Positions of raw control characters (U+0000 to U+001F) inside JSON strings, where JSON
/// forbids them; outside strings such bytes are whitespace or plain syntax errors. They are
/// the bytes the repair escapes (six-byte pieces; U+FFFD goes out a byte at a time).
fn controls_in_strings(bytes: &[u8]) -> Vec<usize> {
    let mut found = Vec::new();
    repair_pieces(bytes, |at, piece| {
        if piece.len() > 1 {
            found.push(at);
        }
    });
    found
}

fn not_json(record: Record<'_>) -> Diagnostic {
    const SHOWN: usize = 60;
    let mut end = record.bytes.len().min(SHOWN);
    if end < record.bytes.len() {
        // Never half a word: a token cut off (a key, a password) would be quoted in part,
        // and no pattern that masks the whole (`axt exec --redact`) knows the part.
        while end > 0 && is_word(record.bytes[end - 1]) && is_word(record.bytes[end]) {
            end -= 1;
        }
    }
    let shown = &record.bytes[..end];
    let ellipsis = if record.bytes.len() > SHOWN {
        "..."
    } else {
        ""
    };
    Diagnostic::new(
        DiagnosticKind::NotJson,
        record.line,
        record.offset,
        format!(
            "not a JSON record, skipped: \"{}{ellipsis}\"",
            shown.as_bstr()
        ),
    )
}

/// A byte of a word, for where a quote may end: letters, digits, the characters tokens and
/// keys are made of, and every byte of a multi-byte character.
fn is_word(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"-_+/=.:%~".contains(&byte) || byte >= 0x80
}

/// Says why a record failed, with serde_json's position. Only called on failure.
fn explain<S: RecordShape>(record: Record<'_>, preparation: Preparation) -> Diagnostic {
    let (mut repaired, mut origin) = (Vec::new(), Vec::new());
    let bytes = match preparation {
        Preparation::AsIs => record.bytes,
        Preparation::Repaired => {
            repair_mapped(record.bytes, &mut repaired, &mut origin);
            &repaired
        }
    };
    let at = |error: &serde_json::Error| {
        // Columns are 1-based byte positions within the (single-line) record; in a repaired
        // record they are mapped back to the input byte they came from (an escaped control
        // is 6 bytes where the input had 1), so the offset never points past the record.
        let column = error.column().saturating_sub(1);
        let within = match preparation {
            Preparation::AsIs => column,
            Preparation::Repaired => origin.get(column).copied().unwrap_or(usize::MAX),
        };
        record.at(within)
    };
    let message = |error: &serde_json::Error| {
        let text = error.to_string();
        match text.rfind(" at line ") {
            Some(end) => format!("{} at column {}", &text[..end], error.column()),
            None => text,
        }
    };
    match serde_json::from_slice::<IgnoredAny>(bytes) {
        Err(error) if error.is_eof() => {
            let (kind, what) = if record.terminated {
                (DiagnosticKind::InvalidJson, "record ends inside its JSON")
            } else {
                (
                    DiagnosticKind::Truncated,
                    "input ends inside the last record",
                )
            };
            Diagnostic::new(
                kind,
                record.line,
                at(&error),
                format!("{what}: {}", message(&error)),
            )
        }
        Err(error) => Diagnostic::new(
            DiagnosticKind::InvalidJson,
            record.line,
            at(&error),
            format!("invalid JSON, record skipped: {}", message(&error)),
        ),
        Ok(_) => match serde_json::from_slice::<S::Of<'_>>(bytes) {
            Err(error) => Diagnostic::new(
                DiagnosticKind::UnexpectedShape,
                record.line,
                at(&error),
                format!("unexpected record shape, skipped: {}", message(&error)),
            ),
            // serde_json accepts what simd-json refused: report without a position.
            Ok(_) => Diagnostic::new(
                DiagnosticKind::InvalidJson,
                record.line,
                record.offset,
                "record rejected by the JSON parser, skipped",
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repair_escapes_controls_only_inside_strings() {
        let mut out = Vec::new();
        repair(b"{\"a\":\"x\0y\x1b\",\t\"b\\\"\x01\":1}", &mut out);
        assert_eq!(out, b"{\"a\":\"x\\u0000y\\u001b\",\t\"b\\\"\\u0001\":1}");
        assert_eq!(
            controls_in_strings(b"{\"a\":\"x\0y\x1b\",\t\"b\":1}"),
            [7, 9]
        );
    }

    #[test]
    fn repaired_positions_map_back_to_the_input() {
        let (mut out, mut origin) = (Vec::new(), Vec::new());
        repair_mapped(b"{\"a\":\"\0\xE2\x86x", &mut out, &mut origin);
        assert_eq!(out, "{\"a\":\"\\u0000\u{FFFD}x".as_bytes());
        assert_eq!(origin, [0, 1, 2, 3, 4, 5, 6, 6, 6, 6, 6, 6, 7, 7, 7, 9]);
    }

    #[test]
    fn repair_replaces_invalid_utf8() {
        let mut out = Vec::new();
        repair(b"{\"a\":\"\xE2\x86\"}", &mut out);
        assert_eq!(out, "{\"a\":\"\u{FFFD}\"}".as_bytes());
    }
}
