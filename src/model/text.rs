//! A string of the model that may be held as the JSON the provider escaped it to: a failed
//! tool call's `error`, which is its output's text.
//!
//! A failed command's error is the whole of its output (Codex, Copilot and OpenCode fill it
//! so). The output is held as its record's JSON ([`ToolOutput`](super::ToolOutput)); an
//! error held as a `String` made the mapper unescape that JSON for it and the writer escape
//! it again (8.0M and ~4M of Codex's 80M instructions on the 5 MB bench stream). A [`Text`]
//! holds the same bytes instead ([`Escaped`], the piece `ToolOutput` holds them in too): the
//! writer copies them, and a reader that reads the text gets it unescaped once.

use std::borrow::Cow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::escaped::Escaped;

/// A string, read as a `&str` through `Deref` (or [`Text::as_str`]).
///
/// It may hold the string as its JSON escaping instead of its text (made by an adapter from
/// a record it read the string from). The invariant of that form: the bytes are, quotes
/// included, exactly what the writer writes for the string (serde_json's escaping), so the
/// writer copies them and transcripts are the same bytes either way. The text is unescaped
/// on the first read and kept; [`Text::to_mut`] makes it a plain `String` (the bytes would
/// no longer be the text's once it changes). It compares, hashes, prints and serializes as
/// its string, whichever way it is held.
pub struct Text(Form);

enum Form {
    Plain(String),
    Escaped(Box<Escaped<String>>),
}

impl Text {
    /// The string `text`.
    pub fn new(text: impl Into<String>) -> Self {
        Text(Form::Plain(text.into()))
    }

    /// The string whose JSON (quotes included) is `json`. The caller vouches for the
    /// invariant in the type's docs (debug builds check it).
    pub(crate) fn escaped(json: &[u8]) -> Self {
        Text(Form::Escaped(Box::new(Escaped::new(json))))
    }

    /// The string's JSON as the writer writes it (quotes included), when it is held so.
    pub(crate) fn json(&self) -> Option<&[u8]> {
        match &self.0 {
            Form::Plain(_) => None,
            Form::Escaped(escaped) => Some(escaped.json()),
        }
    }

    /// The string (unescaped on the first read of a string held as its JSON, and kept).
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Form::Plain(text) => text,
            Form::Escaped(escaped) => escaped.get(),
        }
    }

    /// Whether the string is empty, known without unescaping it.
    pub fn is_empty(&self) -> bool {
        match &self.0 {
            Form::Plain(text) => text.is_empty(),
            Form::Escaped(escaped) => escaped.is_empty(),
        }
    }

    /// The string to change in place: a string held as its JSON becomes its text, and the
    /// JSON is dropped, so what is written is always what was last set.
    pub fn to_mut(&mut self) -> &mut String {
        if let Form::Escaped(escaped) = &mut self.0 {
            let text = escaped.take();
            self.0 = Form::Plain(text);
        }
        match &mut self.0 {
            Form::Plain(text) => text,
            Form::Escaped(_) => unreachable!("made plain above"),
        }
    }

    /// The string, taken out (a string held as its JSON is unescaped if it was not read).
    pub fn into_string(self) -> String {
        match self.0 {
            Form::Plain(text) => text,
            Form::Escaped(escaped) => escaped.into_text(),
        }
    }

    /// The string: borrowed when it is held as text (or was read before), else unescaped
    /// for this call and not kept (for a reader that reads it once).
    pub fn text(&self) -> Cow<'_, str> {
        match &self.0 {
            Form::Escaped(escaped) if escaped.read().is_none() => Cow::Owned(escaped.unescape()),
            _ => Cow::Borrowed(self.as_str()),
        }
    }
}

impl Deref for Text {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Default for Text {
    /// The empty string.
    fn default() -> Self {
        Text::new(String::new())
    }
}

impl From<String> for Text {
    fn from(text: String) -> Self {
        Text::new(text)
    }
}

impl From<&str> for Text {
    fn from(text: &str) -> Self {
        Text::new(text)
    }
}

impl From<Text> for String {
    fn from(text: Text) -> Self {
        text.into_string()
    }
}

impl Clone for Text {
    fn clone(&self) -> Self {
        Text(match &self.0 {
            Form::Plain(text) => Form::Plain(text.clone()),
            Form::Escaped(escaped) => Form::Escaped(escaped.clone()),
        })
    }
}

/// Equal when the strings are: two held as JSON compare their bytes (the escaping is
/// one-to-one), any other pair their text.
impl PartialEq for Text {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Form::Escaped(one), Form::Escaped(other)) => one == other,
            _ => self.as_str() == other.as_str(),
        }
    }
}

impl Eq for Text {}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Text {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

/// As its string (so equal texts hash alike, whichever way they are held).
impl Hash for Text {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

/// As its string.
impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

/// As its string.
impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// As its string.
impl Serialize for Text {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Text::new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::escaped::test_texts as texts;

    fn escaped(text: &str) -> Text {
        Text::escaped(&serde_json::to_vec(text).unwrap())
    }

    #[test]
    fn the_escaped_form_reads_and_compares_as_its_string() {
        use std::hash::BuildHasher;
        let state = std::collections::hash_map::RandomState::new();
        for text in texts() {
            let held = escaped(&text);
            let plain = Text::new(text.clone());
            assert_eq!(held.json(), Some(&serde_json::to_vec(&text).unwrap()[..]));
            assert_eq!(plain.json(), None);
            assert_eq!(held.is_empty(), text.is_empty());
            assert_eq!(&*held, text);
            assert_eq!(held, *text);
            assert_eq!(held, text.as_str());
            assert_eq!(held, plain);
            assert_eq!(plain, held);
            assert_eq!(held, escaped(&text));
            assert_ne!(held, escaped(&format!("{text}x")));
            assert_ne!(held, Text::new(format!("{text}x")));
            assert_eq!(state.hash_one(&held), state.hash_one(&plain));
            assert_eq!(format!("{held:?}"), format!("{text:?}"));
            assert_eq!(held.to_string(), text);
            assert_eq!(
                serde_json::to_string(&held).unwrap(),
                serde_json::to_string(&text).unwrap()
            );
            let clone = held.clone();
            assert_eq!(clone.json(), held.json());
            assert_eq!(clone, held);
            assert_eq!(escaped(&text).into_string(), text);
            assert_eq!(String::from(held), text);
            let read: Text = serde_json::from_str(&serde_json::to_string(&text).unwrap()).unwrap();
            assert_eq!(read.json(), None);
            assert_eq!(read, text);
        }
        assert!(Text::default().is_empty());
    }

    #[test]
    fn its_text_is_read_once_or_borrowed() {
        for text in texts() {
            assert_eq!(escaped(&text).text(), text);
            let held = escaped(&text);
            let _ = held.as_str();
            assert!(matches!(held.text(), Cow::Borrowed(read) if read == text));
            assert!(matches!(Text::new(text.clone()).text(), Cow::Borrowed(read) if read == text));
        }
    }

    #[test]
    fn changing_it_drops_the_escaped_form() {
        let mut held = escaped("a\"b");
        // A read keeps it.
        assert_eq!(held.as_str(), "a\"b");
        assert!(held.json().is_some());
        held.to_mut().push('c');
        assert_eq!(held.json(), None);
        assert_eq!(held, "a\"bc");
        // Never read before.
        let mut held = escaped("a\nb");
        held.to_mut().truncate(1);
        assert_eq!(held.json(), None);
        assert_eq!(held, "a");
    }

    /// The writer copies the escaped form of a tool's `error`, and its line is the one the
    /// string gives; an empty one is refused either way.
    #[test]
    fn the_writer_writes_either_form_alike() {
        use crate::model::{
            EventType, ExchangeEvent, Fidelity, Payload, ToolPayload, encode_event,
        };
        let line = |error: Text| {
            let mut tool =
                ToolPayload::call("shell", "c1", serde_json::Value::Null, Fidelity::Router);
            tool.error = Some(error);
            let mut event =
                ExchangeEvent::new("r", EventType::ToolResult, "a", Payload::Tool(tool));
            event.seq = 1;
            // One time for both lines compared.
            event.timestamp = crate::model::Timestamp::from_unix_nanos(0);
            let mut line = Vec::new();
            let written = encode_event(&event, &mut line).map(|()| line);
            (written, serde_json::to_vec(&event).ok())
        };
        for text in texts() {
            let (written, serialized) = line(escaped(&text));
            let (plain, plain_serialized) = line(Text::new(text.clone()));
            assert_eq!(written.is_err(), text.is_empty(), "{text:?}");
            assert_eq!(written.ok(), plain.ok());
            assert_eq!(serialized, plain_serialized);
        }
    }

    #[test]
    fn it_is_no_larger_than_a_string() {
        assert_eq!(size_of::<Text>(), size_of::<String>());
        assert_eq!(size_of::<Option<Text>>(), size_of::<Option<String>>());
    }
}
