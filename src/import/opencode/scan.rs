//! What planning a database session reads of a message's or a part's JSON (`data`): whether
//! it is a JSON object, as serde_json's `Value` would read it, and the one or two fields
//! the plan needs, read as the tree would give them (a later member of the same name
//! winning, a key's escapes undone), without building the tree: every row is checked
//! whole ([`check`]: the grammar, a string's escapes, control characters and UTF-8, the
//! nesting limit; what only the tree can tell, such as a number with an exponent, is read
//! as a tree), then read for those fields, the rest skipped.
//!
//! This room owns that reading; what the plan decides with it is the `sqlite` room's.

use std::borrow::Cow;
use std::fmt;

use serde::Deserializer;
use serde::de::{self, Deserialize, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::model::escape_mask;
use crate::normalize::lenient::{Integer, otherwise};

/// A message's `data`, when it is a JSON object: its `time.created`, when a whole number
/// (`Value::as_i64` of `/time/created`).
pub(super) fn message(data: &[u8]) -> Option<Option<i64>> {
    let tree = || {
        let tree = serde_json::from_slice::<Value>(data)
            .ok()
            .filter(Value::is_object)?;
        Some(tree.pointer("/time/created").and_then(Value::as_i64))
    };
    match check(data).0 {
        Verdict::No => None,
        Verdict::Yes => fields(data, Member::Created)
            .map(Found::created)
            .or_else(tree),
        Verdict::Unsure => tree(),
    }
}

/// A part's `data`, when it is a JSON object: its `tool`, when a string.
pub(super) fn part(data: &[u8]) -> Option<Option<Cow<'_, str>>> {
    let tree = || {
        let tree = serde_json::from_slice::<Value>(data)
            .ok()
            .filter(Value::is_object)?;
        let tool = tree.get("tool").and_then(Value::as_str);
        Some(tool.map(|tool| Cow::Owned(tool.to_owned())))
    };
    match check(data) {
        (Verdict::No, _) => None,
        (Verdict::Yes, None) => Some(None),
        (Verdict::Yes, Some(span)) => {
            let value = &data[span];
            match value.first() {
                // Checked: UTF-8, no escapes when it has no backslash.
                Some(b'"') if !value.contains(&b'\\') => {
                    std::str::from_utf8(&value[1..value.len() - 1])
                        .ok()
                        .map(|tool| Some(Cow::Borrowed(tool)))
                        .or_else(tree)
                }
                Some(b'"') => serde_json::from_slice::<String>(value)
                    .ok()
                    .map(|tool| Some(Cow::Owned(tool)))
                    .or_else(tree),
                _ => Some(None),
            }
        }
        (Verdict::Unsure, _) => tree(),
    }
}

/// The member of a JSON object (checked: [`Verdict::Yes`]), the rest skipped.
fn fields(data: &[u8], member: Member) -> Option<Found> {
    let mut de = serde_json::Deserializer::from_slice(data);
    let found = de.deserialize_any(Object(member)).ok()?;
    de.end().ok()?;
    found
}

/// Whether a row is a JSON object `Value` reads.
#[derive(Debug, PartialEq)]
enum Verdict {
    Yes,
    No,
    /// Only the tree can tell: a number with an exponent or of many digits (whether it is
    /// out of an f64's range), an object's first member named as serde_json's raw value
    /// token (or with escapes: it might be).
    Unsure,
}

/// Whether `data` is a JSON object as `serde_json::from_slice::<Value>` reads one, and
/// where its `tool` member's value is.
fn check(data: &[u8]) -> (Verdict, Option<std::ops::Range<usize>>) {
    let mut check = Check {
        data,
        at: 0,
        tool: None,
    };
    let verdict = check.object();
    (verdict, check.tool)
}

impl Check<'_> {
    fn object(&mut self) -> Verdict {
        let data = self.data;
        let check = self;
        check.space();
        if check.peek() != Some(b'{') {
            return Verdict::No;
        }
        // A string's bytes are UTF-8 as the tree wants them when the whole row is: outside
        // strings, JSON is ASCII.
        if std::str::from_utf8(data).is_err() {
            return Verdict::No;
        }
        let value = check.value(DEPTH).and_then(|()| {
            check.space();
            match check.at == data.len() {
                true => Ok(()),
                false => Err(Verdict::No),
            }
        });
        match value {
            Ok(()) => Verdict::Yes,
            Err(verdict) => verdict,
        }
    }
}

/// serde_json's nesting limit: a value inside 127 arrays or objects is read, one inside
/// 128 is not.
const DEPTH: u32 = 128;

/// serde_json's raw value token: an object whose first member is named so is a raw value.
const RAW_VALUE_TOKEN: &[u8] = b"$serde_json::private::RawValue";

/// A row checked as serde_json reads it, byte by byte.
struct Check<'a> {
    data: &'a [u8],
    at: usize,
    /// The bytes of the top-level object's last `tool` member's value.
    tool: Option<std::ops::Range<usize>>,
}

impl Check<'_> {
    fn peek(&self) -> Option<u8> {
        self.data.get(self.at).copied()
    }

    fn next(&mut self) -> Result<u8, Verdict> {
        let byte = self.peek().ok_or(Verdict::No)?;
        self.at += 1;
        Ok(byte)
    }

    fn space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\n' | b'\t' | b'\r')) {
            self.at += 1;
        }
    }

    fn value(&mut self, depth: u32) -> Result<(), Verdict> {
        match self.next()? {
            b'{' => {
                let depth = depth - 1;
                if depth == 0 {
                    return Err(Verdict::No);
                }
                self.space();
                if self.peek() == Some(b'}') {
                    self.at += 1;
                    return Ok(());
                }
                let mut first = true;
                loop {
                    self.space();
                    if self.next()? != b'"' {
                        return Err(Verdict::No);
                    }
                    let start = self.at;
                    let escaped = self.string()?;
                    let key = &self.data[start..self.at - 1];
                    // A member of the row's object is looked up by its name: one with
                    // escapes is the tree's to read.
                    let top = depth == DEPTH - 1;
                    if (first || top) && (escaped || key == RAW_VALUE_TOKEN) {
                        return Err(Verdict::Unsure);
                    }
                    let tool = top && key == b"tool";
                    first = false;
                    self.space();
                    if self.next()? != b':' {
                        return Err(Verdict::No);
                    }
                    self.space();
                    let value = self.at;
                    self.value(depth)?;
                    if tool {
                        self.tool = Some(value..self.at);
                    }
                    self.space();
                    match self.next()? {
                        b',' => {}
                        b'}' => return Ok(()),
                        _ => return Err(Verdict::No),
                    }
                }
            }
            b'[' => {
                let depth = depth - 1;
                if depth == 0 {
                    return Err(Verdict::No);
                }
                self.space();
                if self.peek() == Some(b']') {
                    self.at += 1;
                    return Ok(());
                }
                loop {
                    self.space();
                    self.value(depth)?;
                    self.space();
                    match self.next()? {
                        b',' => {}
                        b']' => return Ok(()),
                        _ => return Err(Verdict::No),
                    }
                }
            }
            b'"' => self.string().map(drop),
            b't' => self.word(b"rue"),
            b'f' => self.word(b"alse"),
            b'n' => self.word(b"ull"),
            b'-' | b'0'..=b'9' => {
                self.at -= 1;
                self.number()
            }
            _ => Err(Verdict::No),
        }
    }

    fn word(&mut self, rest: &[u8]) -> Result<(), Verdict> {
        match self.data[self.at..].starts_with(rest) {
            true => {
                self.at += rest.len();
                Ok(())
            }
            false => Err(Verdict::No),
        }
    }

    /// A string after its opening quote, to its closing one; whether it has escapes.
    fn string(&mut self) -> Result<bool, Verdict> {
        let data = self.data;
        let mut at = self.at;
        let mut escaped = false;
        let hex = |at: usize| -> Result<u16, Verdict> {
            let digits = data.get(at..at + 4).ok_or(Verdict::No)?;
            let mut unit = 0u16;
            for &digit in digits {
                let digit = (digit as char).to_digit(16).ok_or(Verdict::No)?;
                unit = unit << 4 | digit as u16;
            }
            Ok(unit)
        };
        loop {
            // Past the bytes that need no look (no quote, backslash or control character),
            // eight at a time.
            while let Some(chunk) = data.get(at..at + 8) {
                if escape_mask(u64::from_le_bytes(chunk.try_into().expect("eight bytes"))) != 0 {
                    break;
                }
                at += 8;
            }
            let byte = *data.get(at).ok_or(Verdict::No)?;
            at += 1;
            match byte {
                b'"' => {
                    self.at = at;
                    return Ok(escaped);
                }
                b'\\' => {
                    escaped = true;
                    let byte = *data.get(at).ok_or(Verdict::No)?;
                    at += 1;
                    match byte {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                        b'u' => {
                            let unit = hex(at)?;
                            at += 4;
                            match unit {
                                0xDC00..=0xDFFF => return Err(Verdict::No),
                                0xD800..=0xDBFF => {
                                    if data.get(at..at + 2) != Some(b"\\u")
                                        || !(0xDC00..=0xDFFF).contains(&hex(at + 2)?)
                                    {
                                        return Err(Verdict::No);
                                    }
                                    at += 6;
                                }
                                _ => {}
                            }
                        }
                        _ => return Err(Verdict::No),
                    }
                }
                // A control character.
                0..0x20 => return Err(Verdict::No),
                _ => {}
            }
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.at;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.at += 1;
        }
        self.at - start
    }

    fn number(&mut self) -> Result<(), Verdict> {
        let start = self.at;
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.next()? {
            b'0' if matches!(self.peek(), Some(b'0'..=b'9')) => return Err(Verdict::No),
            b'0' => {}
            b'1'..=b'9' => {
                self.digits();
            }
            _ => return Err(Verdict::No),
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            if self.digits() == 0 {
                return Err(Verdict::No);
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.at += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.at += 1;
            }
            if self.digits() == 0 {
                return Err(Verdict::No);
            }
            // In an f64's range or not: the tree's to say.
            return Err(Verdict::Unsure);
        }
        match self.at - start > 18 {
            true => Err(Verdict::Unsure),
            false => Ok(()),
        }
    }
}

/// Which member of the object to keep.
#[derive(Clone, Copy)]
enum Member {
    /// `time.created`, a whole number.
    Created,
}

/// What was found of the member, the last of its name.
#[derive(Default)]
struct Found {
    created: Option<i64>,
}

impl Found {
    fn created(self) -> Option<i64> {
        self.created
    }
}

/// The top-level value: an object's member found (`Some`), or any other value (`None`).
struct Object(Member);

impl<'de> Visitor<'de> for Object {
    type Value = Option<Found>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = Found::default();
        while let Some(key) = map.next_key::<Key<'_>>()? {
            match (self.0, &*key.0) {
                (Member::Created, "time") => found.created = map.next_value_seed(Time)?,
                _ => map.next_value::<IgnoredAny>().map(drop)?,
            }
        }
        Ok(Some(found))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        IgnoredAny.visit_seq(seq).map(|_| None)
    }

    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }

    otherwise!(None);
}

/// `time`: an object's `created`, when a whole number that fits an i64.
struct Time;

impl<'de> DeserializeSeed<'de> for Time {
    type Value = Option<i64>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Time {
    type Value = Option<i64>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut created = None;
        while let Some(key) = map.next_key::<Key<'_>>()? {
            match &*key.0 {
                "created" => created = map.next_value::<Integer>()?.0,
                _ => map.next_value::<IgnoredAny>().map(drop)?,
            }
        }
        Ok(created)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        IgnoredAny.visit_seq(seq).map(|_| None)
    }

    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }

    otherwise!(None);
}

/// A string, borrowed when it has no escapes; any other value is none.
struct Str;

impl<'de> DeserializeSeed<'de> for Str {
    type Value = Option<Cow<'de, str>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Str {
    type Value = Option<Cow<'de, str>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Borrowed(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(v.to_owned())))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        IgnoredAny.visit_map(map).map(|_| None)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        IgnoredAny.visit_seq(seq).map(|_| None)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// A member's name, its escapes undone (`"\u0074ool"` is `tool`).
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match d.deserialize_any(Str)? {
            Some(key) => Ok(Key(key)),
            None => Err(de::Error::custom("a key that is no string")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row reads as its tree does: whether it is an object, its `time.created` and
    /// its `tool`; an escaped key is its name.
    #[test]
    fn a_row_is_read_as_its_tree_is() {
        let rows: &[&[u8]] = &[
            br#"{"role":"user","time":{"created":1700000000000}}"#,
            br#"{"\u0074ime":{"cr\u0065ated":5},"\u0074ool":"t\u0061sk"}"#,
            br#"{"time":{"created":1,"created":2},"tool":"a","tool":"task"}"#,
            br#"{"time":{"created":1},"time":[1],"tool":"task","tool":3}"#,
            br#"{"time":{"created":1.5},"tool":null}"#,
            br#"{"time":{"created":-7}}"#,
            br#"{"time":{"created":9223372036854775807}}"#,
            br#"{"time":{"created":9223372036854775808}}"#,
            br#"{"time":{"created":"1"}}"#,
            br#"{"time":"x"}"#,
            br#"  {"a":[1,{"b":null}],"time":{"created":3}}  "#,
            br#"{}"#,
            br#"[]"#,
            br#"3"#,
            br#""s""#,
            br#"null"#,
            br#"{"type":"#,
            br#"{"a":1} x"#,
            br#"{"a":"\ud800"}"#,
            br#"{"\ud800":1}"#,
            br#"{"a":"\ud83d\ude00"}"#,
            b"{\"a\":\"\xff\"}",
            b"{\"a\":\"\x01\"}",
            br#"{"a":1e999}"#,
            br#"{"a":tru}"#,
            b"\xef\xbb\xbf{}",
            br#"{"a":01}"#,
            br#"{"a":1e308,"b":-0.5E-3,"c":123456789012345678901234567890}"#,
            br#"{"a":1.8e308}"#,
            br#"{"$serde_json::private::RawValue":"{}"}"#,
            br#"{"$serde_json::private::RawValue":"x"}"#,
            br#"{"\u0024serde_json::private::RawValue":"x"}"#,
            br#"{"a":"\udc00"}"#,
            br#"{"a":"\ud800\u0041"}"#,
            br#"{"a":"\ud800x"}"#,
            br#"{"a":"\x"}"#,
            br#"{"a":"\u00g0"}"#,
            br#"{"a":[1,]}"#,
            br#"{"a":1,}"#,
            br#"{"a" 1}"#,
            br#"{"a":-}"#,
            br#"{"a":1.}"#,
            br#"{"a":.5}"#,
            br#"{"a":+1}"#,
            br#"{"a":nul}"#,
            br#"{"a":[true,false,null,"x\/y\b\f\n\r\t"]}"#,
            b"{\"a\":\"caf\xc3\xa9 \xe2\x9c\x93 long enough to skip eight at a time\"}",
            b"{\"a\":\"\xed\xa0\x80\"}",
            b"{\"a\":1}\x00",
            b"{\"a\":\"tab\there\"}",
        ];
        let deep = |n: usize| format!("{{\"a\":{}1{}}}", "[".repeat(n), "]".repeat(n));
        let deep = [deep(126), deep(127), deep(200)];
        let rows = rows
            .iter()
            .copied()
            .chain(deep.iter().map(|row| row.as_bytes()));
        for row in rows {
            let tree = serde_json::from_slice::<Value>(row).ok();
            let object = tree.as_ref().filter(|v| v.is_object());
            let shown = String::from_utf8_lossy(row);
            let created = object.map(|v| v.pointer("/time/created").and_then(Value::as_i64));
            assert_eq!(message(row), created, "{shown}");
            let tool = object.map(|v| v.get("tool").and_then(Value::as_str));
            assert_eq!(part(row).as_ref().map(|t| t.as_deref()), tool, "{shown}");
        }
    }

    /// Every row made of a few by dropping or replacing one byte with one that matters to
    /// JSON is judged as the tree judges it (or left to the tree).
    #[test]
    fn a_row_cut_or_changed_anywhere_is_judged_as_its_tree_is() {
        let rows: &[&[u8]] = &[
            br#"{"type":"tool","tool":"task","state":{"input":{"a":[1,-2.5,true,null]},"s":"\n\u00e9\ud83d\ude00"}}"#,
            br#"{"role":"user","time":{"created":1700000000000,"completed":0},"x":[[],{}]}"#,
        ];
        let bytes = b"{}[]\",:\\u0-1.eE+tfn \t\x01\xff";
        for row in rows {
            for at in 0..row.len() {
                let mut cut = row.to_vec();
                cut.remove(at);
                let mut changed: Vec<Vec<u8>> = bytes
                    .iter()
                    .map(|&byte| {
                        let mut changed = row.to_vec();
                        changed[at] = byte;
                        changed
                    })
                    .collect();
                changed.push(cut);
                for row in changed {
                    let tree = serde_json::from_slice::<Value>(&row).is_ok_and(|v| v.is_object());
                    let shown = String::from_utf8_lossy(&row);
                    match check(&row).0 {
                        Verdict::Yes => assert!(tree, "{shown}"),
                        Verdict::No => assert!(!tree, "{shown}"),
                        Verdict::Unsure => {}
                    }
                }
            }
        }
    }
}
