//! A string held as the JSON the writer writes for it: the one piece behind the escaped
//! forms of [`ToolOutput`](super::ToolOutput) and [`Text`](super::Text).
//!
//! Tool output is most of a transcript's bytes, and escaping it is most of the writer's
//! time; a failed call's error is that same output's text. An adapter that reads such a
//! string from its record and never looks inside it can keep the record's own bytes for
//! it: the writer copies them, and the text is unescaped only if something reads it (and
//! then kept, so it is unescaped once).

use std::sync::OnceLock;

/// A JSON string, quotes included, exactly as the writer writes it (serde_json's escaping:
/// `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, lower-case `\u00xx` for the other control
/// characters, every other character as itself), and its text of type `T` once read.
///
/// That escaping is one-to-one, so two of these are equal exactly when their strings are:
/// equality compares the bytes.
pub(super) struct Escaped<T> {
    json: Box<[u8]>,
    text: OnceLock<T>,
}

/// What a string is read as: a `String`, or a `Value::String` (a tool output is any value).
pub(super) trait FromText {
    fn from_text(text: String) -> Self;
}

impl FromText for String {
    fn from_text(text: String) -> Self {
        text
    }
}

impl FromText for serde_json::Value {
    fn from_text(text: String) -> Self {
        serde_json::Value::String(text)
    }
}

impl<T: FromText> Escaped<T> {
    /// The string whose JSON (quotes included) is `json`. The caller vouches for the
    /// invariant in the type's docs (`normalize::json::Parsed::output` checks it of a
    /// string in its record); debug builds check it here.
    pub(super) fn new(json: &[u8]) -> Self {
        debug_assert!(
            serde_json::from_slice::<String>(json)
                .is_ok_and(|text| serde_json::to_vec(&text).is_ok_and(|again| again == json)),
            "not the writer's escaping of a string: {}",
            String::from_utf8_lossy(json)
        );
        Escaped {
            json: json.into(),
            text: OnceLock::new(),
        }
    }

    /// The string's JSON as the writer writes it, quotes included.
    pub(super) fn json(&self) -> &[u8] {
        &self.json
    }

    /// Whether the string is `""` (known without unescaping it).
    pub(super) fn is_empty(&self) -> bool {
        self.json.len() == 2
    }

    /// The text, unescaped on the first read and kept.
    pub(super) fn get(&self) -> &T {
        self.text.get_or_init(|| T::from_text(self.unescape()))
    }

    /// The text if it was read before.
    pub(super) fn read(&self) -> Option<&T> {
        self.text.get()
    }

    /// The text, taken out (unescaped now if it was never read).
    pub(super) fn into_text(self) -> T {
        let Escaped { json, text } = self;
        text.into_inner()
            .unwrap_or_else(|| T::from_text(unescape(&json)))
    }

    /// The text, taken out and left unread (unescaped now if it was never read): for a
    /// writer about to drop these bytes for the text it changes.
    pub(super) fn take(&mut self) -> T {
        self.text
            .take()
            .unwrap_or_else(|| T::from_text(unescape(&self.json)))
    }

    /// The string, unescaped for this call and not kept (for a reader that reads it once).
    pub(super) fn unescape(&self) -> String {
        unescape(&self.json)
    }
}

/// The string `json` stands for. An [`Escaped`] holds only JSON strings (its invariant),
/// which serde_json reads.
fn unescape(json: &[u8]) -> String {
    match serde_json::from_slice::<String>(json) {
        Ok(text) => text,
        Err(error) => unreachable!("an escaped string is a JSON string: {error}"),
    }
}

impl<T: Clone> Clone for Escaped<T> {
    fn clone(&self) -> Self {
        Escaped {
            json: self.json.clone(),
            text: self.text.clone(),
        }
    }
}

/// Equal when the strings are: the escaping is one-to-one.
impl<T> PartialEq for Escaped<T> {
    fn eq(&self, other: &Self) -> bool {
        self.json == other.json
    }
}

/// Strings with every character the writer escapes, and some it does not: the texts the
/// tests of both escaped forms ([`ToolOutput`](super::ToolOutput)'s, [`Text`](super::Text)'s)
/// hold each way.
#[cfg(test)]
pub(super) fn test_texts() -> Vec<String> {
    let mut texts: Vec<String> = [
        "",
        "plain",
        "line\n\t\"quoted\" back\\slash \u{1b}[0m é ✓ 😀 \u{7f} /",
        "\0",
        "ends in a backslash\\",
    ]
    .map(str::to_owned)
    .into();
    texts.push((0u8..0x20).map(char::from).collect());
    texts
}
