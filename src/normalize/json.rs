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
use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use simd_json::{Deserializer, Tape};

use super::framing::Record;
use super::lenient::Text;
use super::report::{Fate, Fields, Kind, Tally};
use super::{Diagnostic, DiagnosticKind};
use crate::model::ToolOutput;

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
/// not repaired): a tool's output can be kept as the record escaped it ([`Parsed`]).
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
        self.parse_in::<S>(record, diagnostics, |value, _, diagnostics| {
            handle(value, diagnostics)
        })
    }

    /// [`JsonParser::parse`], also handing `handle` where the record was parsed
    /// ([`Parsed`]), so that a tool's output read as a string can be kept as the record
    /// escaped it ([`Parsed::output`]).
    pub(crate) fn parse_in<S: RecordShape>(
        &mut self,
        record: Record<'_>,
        diagnostics: &mut Vec<Diagnostic>,
        handle: impl for<'a> FnOnce(S::Of<'a>, Parsed<'a>, &mut Vec<Diagnostic>) -> Fate,
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
            let parsed = Parsed {
                record: record.bytes,
                scratch: (preparation == Preparation::AsIs).then_some(scratch.as_ptr() as usize),
            };
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
                        let fate = handle(value, parsed, diagnostics);
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

/// A value of a record as the parse lent it: a string borrowed where it needed no unescaping
/// (for [`Parsed::output`] to keep it as the record escaped it), any other value as its tree.
/// What an adapter reads a tool's output as (Claude's and the Messages API's block `content`,
/// Gemini CLI's `output`, OpenCode's `state.output`).
pub(crate) enum Lent<'a> {
    Text(Cow<'a, str>),
    Other(Value),
}

impl<'a> Lent<'a> {
    /// The content as a tree.
    pub(crate) fn into_value(self) -> Value {
        match self {
            Lent::Text(text) => Value::String(text.into_owned()),
            Lent::Other(value) => value,
        }
    }

    /// The content as a tool's output: a string held as the record escaped it when that is
    /// the writer's escaping (`Parsed::output`), anything else as its tree.
    pub(crate) fn output(self, parsed: Parsed<'_>) -> ToolOutput {
        match self {
            Lent::Text(text) => parsed.output(text),
            Lent::Other(value) => value.into(),
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Lent<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Lent<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: serde::de::Error>(
                self,
                text: &'de str,
            ) -> Result<Self::Value, E> {
                Ok(Lent::Text(Cow::Borrowed(text)))
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Self::Value, E> {
                Ok(Lent::Text(Cow::Owned(text.to_owned())))
            }
            fn visit_string<E: serde::de::Error>(self, text: String) -> Result<Self::Value, E> {
                Ok(Lent::Text(Cow::Owned(text)))
            }
            fn visit_bool<E: serde::de::Error>(self, value: bool) -> Result<Self::Value, E> {
                Ok(Lent::Other(Value::Bool(value)))
            }
            fn visit_i64<E: serde::de::Error>(self, value: i64) -> Result<Self::Value, E> {
                Ok(Lent::Other(Value::from(value)))
            }
            fn visit_u64<E: serde::de::Error>(self, value: u64) -> Result<Self::Value, E> {
                Ok(Lent::Other(Value::from(value)))
            }
            fn visit_f64<E: serde::de::Error>(self, value: f64) -> Result<Self::Value, E> {
                Ok(Lent::Other(Value::from(value)))
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
                Ok(Lent::Other(Value::Null))
            }
            fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
                Ok(Lent::Other(Value::Null))
            }
            fn visit_some<D2: serde::Deserializer<'de>>(
                self,
                inner: D2,
            ) -> Result<Self::Value, D2::Error> {
                Lent::deserialize(inner)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                seq: A,
            ) -> Result<Self::Value, A::Error> {
                Value::deserialize(serde::de::value::SeqAccessDeserializer::new(seq))
                    .map(Lent::Other)
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<Self::Value, A::Error> {
                Value::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(Lent::Other)
            }
        }
        deserializer.deserialize_any(Visit)
    }
}

/// A JSON value as the parse lent it, whole: strings borrowed where the parse lends them,
/// objects' members in the record's order (a name given twice kept twice;
/// [`Tree::into_value`] keeps the later one, as `Value` does). For a reader that finds one
/// string in a value it otherwise keeps as `Value` reads it: a tool's output inside a
/// request's message (Bedrock's `toolResult` content, the Gemini API's `functionResponse`),
/// held by [`Parsed::output`] as the record escaped it.
pub(crate) enum Tree<'a> {
    Str(Cow<'a, str>),
    Array(Vec<Tree<'a>>),
    Object(Vec<(Cow<'a, str>, Tree<'a>)>),
    /// `null`, a boolean or a number.
    Scalar(Value),
}

/// (For a derived reader's bound of a `default` member.)
impl Default for Tree<'_> {
    fn default() -> Self {
        Tree::Scalar(Value::Null)
    }
}

/// An object's members (as [`Tree`] holds them) as `Value` reads the object.
pub(crate) fn tree_object(members: Vec<(Cow<'_, str>, Tree<'_>)>) -> Map<String, Value> {
    (members.into_iter())
        .map(|(name, value)| (name.into_owned(), value.into_value()))
        .collect()
}

impl Tree<'_> {
    /// The value as `Value` reads it.
    pub(crate) fn into_value(self) -> Value {
        match self {
            Tree::Str(text) => Value::String(text.into_owned()),
            Tree::Array(items) => Value::Array(items.into_iter().map(Tree::into_value).collect()),
            Tree::Object(object) => Value::Object(tree_object(object)),
            Tree::Scalar(value) => value,
        }
    }
}

/// An object's members, each name borrowed where the parse lends it.
pub(crate) fn tree_members<'de, A: MapAccess<'de>>(
    mut map: A,
) -> Result<Vec<(Cow<'de, str>, Tree<'de>)>, A::Error> {
    let mut members = Vec::new();
    while let Some(Text(name)) = map.next_key::<Text<'de>>()? {
        members.push((name.unwrap_or_default(), map.next_value()?));
    }
    Ok(members)
}

impl<'de: 'a, 'a> Deserialize<'de> for Tree<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = Tree<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any valid JSON value")
            }
            fn visit_borrowed_str<E: serde::de::Error>(
                self,
                text: &'de str,
            ) -> Result<Self::Value, E> {
                Ok(Tree::Str(Cow::Borrowed(text)))
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Self::Value, E> {
                Ok(Tree::Str(Cow::Owned(text.to_owned())))
            }
            fn visit_string<E: serde::de::Error>(self, text: String) -> Result<Self::Value, E> {
                Ok(Tree::Str(Cow::Owned(text)))
            }
            fn visit_bool<E: serde::de::Error>(self, value: bool) -> Result<Self::Value, E> {
                Ok(Tree::Scalar(Value::Bool(value)))
            }
            fn visit_i64<E: serde::de::Error>(self, value: i64) -> Result<Self::Value, E> {
                Ok(Tree::Scalar(Value::from(value)))
            }
            fn visit_u64<E: serde::de::Error>(self, value: u64) -> Result<Self::Value, E> {
                Ok(Tree::Scalar(Value::from(value)))
            }
            fn visit_f64<E: serde::de::Error>(self, value: f64) -> Result<Self::Value, E> {
                Ok(Tree::Scalar(Value::from(value)))
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
                Ok(Tree::Scalar(Value::Null))
            }
            fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
                Ok(Tree::Scalar(Value::Null))
            }
            fn visit_some<D2: serde::Deserializer<'de>>(
                self,
                inner: D2,
            ) -> Result<Self::Value, D2::Error> {
                Tree::deserialize(inner)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Tree::Array(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                tree_members(map).map(Tree::Object)
            }
        }
        deserializer.deserialize_any(Visit)
    }
}

/// Where a record was parsed, while its parse lives: the record's bytes and, when the
/// parser read them as they are (not repaired), the address of the scratch buffer holding
/// them. simd-json unescapes each string in place, from the byte after its opening quote
/// (simd-json 0.19's `parse_str` writes the unescaped bytes back from the same start), so
/// a string borrowed from the parse starts at the offset of its own JSON in the record.
/// The address is only compared, never read through.
#[derive(Clone, Copy)]
pub(crate) struct Parsed<'a> {
    record: &'a [u8],
    scratch: Option<usize>,
}

impl<'a> Parsed<'a> {
    /// A tool's output that is the string `text`, a whole string of this record as the
    /// parse lent it: held as the record's own JSON for it when that is exactly what the
    /// writer would write ([`ToolOutput`]'s invariant; the writer then copies it and never
    /// escapes the text), else as the text. The one line an adapter adopts where it builds
    /// an output it does not read: `tool_content: parsed.output(text)`.
    pub(crate) fn output(self, text: Cow<'_, str>) -> ToolOutput {
        match self.json_of(&text) {
            Some(json) => {
                // A prefix of a string passes `json_of`'s checks when the rest has no escape
                // the writer does not write: the caller's promise, checked where tests run.
                debug_assert!(
                    serde_json::from_slice::<String>(json).is_ok_and(|whole| whole == text),
                    "not a whole string of the record: {text:?}"
                );
                ToolOutput::escaped(json)
            }
            None => ToolOutput::new(serde_json::Value::String(text.into_owned())),
        }
    }

    /// The JSON of `text` in the record, quotes included, when `text` is a whole string
    /// of this parse and its JSON is the writer's escaping of it; `None` for a record that
    /// was repaired, a string not borrowed from the parse (copied, or from elsewhere), or
    /// one escaped otherwise (`\/`, `\u00e9`, upper-case hex, a surrogate pair).
    ///
    /// Found with memchr's SIMD searches, never byte by byte (git 7b5d7db measured this at
    /// 0.16 ns a byte on Codex's command outputs, against 0.58 for escaping them):
    ///
    /// * every escape is longer than what it stands for, so the closing quote is the first
    ///   unescaped `"` at or past the string's unescaped length;
    /// * the parser took the bytes between as a JSON string: valid UTF-8, no raw control
    ///   character (simd-json refuses them; such a record is parsed repaired), no raw `"`
    ///   or `\`, every escape valid. The writer writes all but two kinds of valid escape:
    ///   an escaped solidus (`\/`) and a `\u` other than its lower-case `\u00xx` for a
    ///   control character without a short form. Those are searched for (an escaped
    ///   backslash before a `/` or `u` is told apart by the run of backslashes before it).
    ///
    /// `text` must be the whole string, not a part of it that starts where it does (a
    /// prefix would be taken for the string): debug builds check every string found.
    fn json_of(self, text: &str) -> Option<&'a [u8]> {
        let record = self.record;
        let at = (text.as_ptr() as usize).checked_sub(self.scratch?)?;
        // A whole string starts after an unescaped quote: any quote inside one is escaped.
        if at == 0 || at > record.len() || record[at - 1] != b'"' || escaped_at(record, at - 1) {
            return None;
        }
        let body = &record[at..];
        let mut from = text.len();
        let end = loop {
            let quote = from + memchr::memchr(b'"', body.get(from..)?)?;
            if !escaped_at(body, quote) {
                break quote;
            }
            from = quote + 1;
        };
        let json = &record[at - 1..=at + end];
        // As long as the text: nothing escaped.
        if end == text.len() {
            return Some(json);
        }
        let body = &body[..end];
        if memchr::memmem::find_iter(body, br"\/").any(|at| !escaped_at(body, at)) {
            return None;
        }
        let writers = |at: usize| {
            escaped_at(body, at)
                || matches!(
                    body.get(at + 2..at + 6),
                    Some(&[b'0', b'0', high @ (b'0' | b'1'), low @ (b'0'..=b'9' | b'a'..=b'f')])
                        if !matches!((high, low), (b'0', b'8' | b'9' | b'a' | b'c' | b'd'))
                )
        };
        memchr::memmem::find_iter(body, br"\u")
            .all(writers)
            .then_some(json)
    }
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

    /// What `check` says of field `s` of `record`, parsed as the adapters parse; `None`
    /// when the record is not read.
    fn parsed<T>(record: &[u8], check: impl FnOnce(&Line<'_>, Parsed<'_>) -> T) -> Option<T> {
        let mut seen = None;
        let record = Record::line(record, 1, 0, true);
        JsonParser::default().parse_in::<Shape>(record, &mut Vec::new(), |line, parsed, _| {
            seen = Some(check(&line, parsed));
            Fate::Mapped
        });
        seen
    }

    /// The JSON `Parsed::json_of` finds for field `s`, and checks that `Parsed::output`
    /// holds the string either way.
    fn found(record: &[u8]) -> Option<Vec<u8>> {
        parsed(record, |line, parsed| {
            let output = parsed.output(Cow::Borrowed(&line.s));
            assert_eq!(*output, serde_json::Value::String(line.s.to_string()));
            let json = parsed.json_of(&line.s).map(<[u8]>::to_vec);
            assert_eq!(output.json(), json.as_deref());
            json
        })
        .expect("the record is read")
    }

    #[test]
    fn the_writers_own_escaping_is_found_as_the_record_has_it() {
        for record in [
            r#"{"s":"plain"}"#,
            r#"{"s":""}"#,
            r#"{"a":"x","s":"line\n\t\"quoted\" back\\slash \u001b[0m \u0000 é ✓ 😀","b":"y"}"#,
            r#"{"s":"ends in a backslash\\"}"#,
            r#"{"s":"\u0000"}"#,
            r#"{"s" : "spaced" }"#,
        ] {
            let value: serde_json::Value = serde_json::from_str(record).unwrap();
            let writer = serde_json::to_vec(&value["s"]).unwrap();
            assert_eq!(found(record.as_bytes()), Some(writer), "{record}");
        }
    }

    /// Every character the writer escapes, and plain ones, at every place in strings of
    /// every length from 0 to 40, written as the writer writes them, between strings that
    /// end in escaped backslashes and quotes: found whole.
    #[test]
    fn every_escape_at_every_place_of_every_length_is_found() {
        let specials = [
            '"', '\\', '\n', '\t', '\r', '\u{8}', '\u{c}', '\0', '\u{1b}', '\u{1f}', '/', 'u', 'é',
            '\u{7f}', '😀',
        ];
        for len in 1..=40 {
            for place in 0..len {
                for special in specials {
                    let text: String = (0..len)
                        .map(|at| if at == place { special } else { 'a' })
                        .collect();
                    let json = serde_json::to_string(&text).unwrap();
                    let record = format!(r#"{{"x":"\\\"","s":{json},"y":"\\"}}"#);
                    assert_eq!(
                        found(record.as_bytes()),
                        Some(json.into_bytes()),
                        "{record}"
                    );
                }
            }
        }
        assert_eq!(found(br#"{"s":""}"#), Some(b"\"\"".to_vec()));
    }

    /// Each valid escape the writer would not write, at every place: held as the text.
    #[test]
    fn every_other_escape_at_every_place_is_the_text() {
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
            r"\u007f",
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
        assert_eq!(found(record), Some(br#""C:\\u0041\\/x""#.to_vec()));
    }

    /// A record repaired before parsing (a raw control character, bytes that are not
    /// UTF-8) has no bytes of its own in the parse; a lone surrogate is never the writer's.
    #[test]
    fn what_the_parser_had_to_change_is_the_text() {
        assert_eq!(found(b"{\"s\":\"a\x01b\"}"), None);
        assert_eq!(found(b"{\"s\":\"a\x00b\"}"), None);
        assert_eq!(found(b"{\"s\":\"caf\xe9\"}"), None);
        let lone = parsed(br#"{"s":"lone \ud800 surrogate"}"#, |line, parsed| {
            parsed.json_of(&line.s).is_none()
        });
        assert_ne!(lone, Some(false));
    }

    /// A string that is not the parse's whole string (a copy, a part after its start, one
    /// from elsewhere) has no JSON in the record.
    #[test]
    fn a_string_from_elsewhere_has_no_json_in_the_record() {
        let record = br#"{"s":"abc\"def\""}"#;
        let none = parsed(record, |line, parsed| {
            let copy = line.s.to_string();
            [
                parsed.json_of(&copy),
                parsed.json_of(&line.s[4..]),
                parsed.json_of(&line.s[1..]),
                parsed.json_of("abc"),
                parsed.json_of(""),
            ]
            .iter()
            .all(Option::is_none)
        });
        assert_eq!(none, Some(true));
        // `output` of such a string holds the text.
        let output = parsed(record, |line, parsed| {
            parsed.output(Cow::Owned(line.s.to_string()))
        })
        .unwrap();
        assert_eq!(output.json(), None);
        assert_eq!(output, serde_json::Value::String("abc\"def\"".into()));
    }

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

    /// A [`Tree`] read through simd-json (as the adapters read records) is the value
    /// `Value` reads, whatever it holds, a name given twice included; its strings are lent
    /// by the parse.
    #[test]
    fn a_tree_reads_as_the_value_does_and_lends_its_strings() {
        #[derive(Deserialize)]
        struct Record<'a> {
            #[serde(borrow, default)]
            v: Option<Tree<'a>>,
        }
        fn lent(tree: &Tree<'_>) -> bool {
            match tree {
                Tree::Str(text) => matches!(text, Cow::Borrowed(_)),
                Tree::Array(items) => items.iter().all(lent),
                Tree::Object(members) => members
                    .iter()
                    .all(|(name, value)| matches!(name, Cow::Borrowed(_)) && lent(value)),
                Tree::Scalar(_) => true,
            }
        }
        for value in [
            r#"{"output":"ran\n\"ok\" \u001b[1m"}"#,
            r#"{"outp\u0075t":"escaped name"}"#,
            r#"{"output":"first","output":"second","error":null}"#,
            r#"{"b":[1,-2,2.5,1e300,18446744073709551615,true,false,null],"a":{"c":{}}}"#,
            r#"[{"text":"a"},["b",[]],{}]"#,
            r#""a string""#,
            "-7",
            "1.5e3",
            "true",
            "null",
        ] {
            let json = format!(r#"{{"v":{value}}}"#);
            let tree: Value = serde_json::from_str(&json).unwrap();
            let mut bytes = json.clone().into_bytes();
            let read: Record<'_> = simd_json::serde::from_slice(&mut bytes).unwrap();
            assert!(read.v.as_ref().is_none_or(lent), "not lent: {json}");
            assert_eq!(
                read.v.map_or(Value::Null, Tree::into_value),
                tree["v"],
                "{json}"
            );
        }
    }
}
