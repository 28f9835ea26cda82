//! A tool's output as the model holds it: a JSON value, or a string kept as the JSON the
//! provider escaped it to, when that is exactly what the writer would write.
//!
//! Tool output is most of a transcript's bytes, and escaping it is most of the writer's
//! time (an escape every dozen bytes in shell output). An adapter that reads an output as a
//! string from its record and never looks inside it can keep the record's own bytes for it
//! ([`ToolOutput::escaped`]): the writer copies them, and the text is unescaped only if
//! something reads it. Two earlier attempts kept such bytes *beside* the unescaped text
//! (git 5727c94's parent, 7b5d7db): the pipeline then paid for the text, the copy and the
//! check that they still agreed, and measured no better. Here the bytes *are* the value.
//!
//! Readers see a [`Value`] through `Deref` (the escaped form's text is unescaped on the
//! first read and kept); a writer through `DerefMut` (redaction, cutting to fit a line)
//! turns the escaped form into the value it stands for and drops the bytes, so what is
//! written is always what was last set.

use std::borrow::Cow;
use std::fmt;
use std::ops::{Deref, DerefMut};

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::escaped::Escaped;
use super::text::Text;

/// A tool's output (`tool_content` of a `tool_result` block, `output` of a tool payload):
/// any JSON value, read as a [`Value`] through `Deref`.
///
/// It may hold a string as its JSON escaping instead (made by an adapter from the record it
/// read the string from). The invariant of that form: the bytes are, quotes included,
/// exactly what the writer writes for the string (serde_json's escaping: `\"`, `\\`, `\b`,
/// `\f`, `\n`, `\r`, `\t`, lower-case `\u00xx` for the other control characters, every other
/// character as itself), so the writer copies them and transcripts are the same bytes
/// either way. Two outputs held that way are equal when their bytes are (that escaping is
/// one-to-one); any other pair compares as values.
pub struct ToolOutput(Form);

enum Form {
    Value(Value),
    Escaped(Box<Escaped<Value>>),
}

impl ToolOutput {
    /// The output `value`.
    pub fn new(value: Value) -> Self {
        ToolOutput(Form::Value(value))
    }

    /// The string whose JSON (quotes included) is `json`. The caller vouches for the
    /// invariant in the type's docs: `json` is what the writer would write for the string
    /// (`normalize::json::Parsed::output` checks it of a string in its record).
    pub(crate) fn escaped(json: &[u8]) -> Self {
        ToolOutput(Form::Escaped(Box::new(Escaped::new(json))))
    }

    /// The string's JSON as the writer writes it (quotes included), when it is held so.
    pub(crate) fn json(&self) -> Option<&[u8]> {
        match &self.0 {
            Form::Value(_) => None,
            Form::Escaped(escaped) => Some(escaped.json()),
        }
    }

    /// The output's text when it is a string: borrowed when it is held as a value (or was
    /// read before), else unescaped for this call without being kept (for a reader that
    /// reads it once).
    pub fn text(&self) -> Option<Cow<'_, str>> {
        match &self.0 {
            Form::Escaped(escaped) if escaped.read().is_none() => {
                Some(Cow::Owned(escaped.unescape()))
            }
            _ => self.as_str().map(Cow::Borrowed),
        }
    }

    /// A string output as a [`Text`] of the same string, held as the same JSON when the
    /// output is (copied, not unescaped): a failed call's error is its output's text.
    /// `None` for any other output.
    pub(crate) fn to_text(&self) -> Option<Text> {
        match &self.0 {
            Form::Escaped(escaped) => Some(Text::escaped(escaped.json())),
            Form::Value(Value::String(text)) => Some(Text::from(text.as_str())),
            Form::Value(_) => None,
        }
    }

    /// The output as a [`Value`], taken out (a string held escaped is unescaped).
    pub fn into_value(self) -> Value {
        match self.0 {
            Form::Value(value) => value,
            Form::Escaped(escaped) => escaped.into_text(),
        }
    }
}

impl Deref for ToolOutput {
    type Target = Value;

    fn deref(&self) -> &Value {
        match &self.0 {
            Form::Value(value) => value,
            Form::Escaped(escaped) => escaped.get(),
        }
    }
}

/// Writing through the output makes it the value it stands for: the escaped bytes, which
/// would no longer be the value's, are dropped.
impl DerefMut for ToolOutput {
    fn deref_mut(&mut self) -> &mut Value {
        if let Form::Escaped(escaped) = &mut self.0 {
            let value = escaped.take();
            self.0 = Form::Value(value);
        }
        match &mut self.0 {
            Form::Value(value) => value,
            Form::Escaped(_) => unreachable!("made a value above"),
        }
    }
}

impl Default for ToolOutput {
    /// `null`: no output.
    fn default() -> Self {
        ToolOutput::new(Value::Null)
    }
}

impl From<Value> for ToolOutput {
    fn from(value: Value) -> Self {
        ToolOutput::new(value)
    }
}

impl From<ToolOutput> for Value {
    fn from(output: ToolOutput) -> Self {
        output.into_value()
    }
}

impl Clone for ToolOutput {
    fn clone(&self) -> Self {
        ToolOutput(match &self.0 {
            Form::Value(value) => Form::Value(value.clone()),
            Form::Escaped(escaped) => Form::Escaped(escaped.clone()),
        })
    }
}

impl PartialEq for ToolOutput {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Form::Escaped(one), Form::Escaped(other)) => one == other,
            _ => **self == **other,
        }
    }
}

impl PartialEq<Value> for ToolOutput {
    fn eq(&self, other: &Value) -> bool {
        **self == *other
    }
}

/// As the value it stands for.
impl fmt::Debug for ToolOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

/// As the value it stands for: its JSON (`Value`'s `Display`).
impl fmt::Display for ToolOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

/// As the value it stands for.
impl Serialize for ToolOutput {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ToolOutput {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(ToolOutput::new)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::model::escaped::test_texts as texts;
    use crate::model::{EventType, ExchangeEvent, Fidelity, Payload, ToolPayload, encode_event};

    fn escaped(text: &str) -> ToolOutput {
        ToolOutput::escaped(&serde_json::to_vec(text).unwrap())
    }

    #[test]
    fn the_escaped_form_reads_writes_and_compares_as_its_value() {
        for text in texts() {
            let value = Value::String(text.clone());
            let held = escaped(&text);
            assert_eq!(held.json(), Some(&serde_json::to_vec(&text).unwrap()[..]));
            assert_eq!(*held, value, "{text:?}");
            assert_eq!(held, value);
            assert_eq!(held, ToolOutput::new(value.clone()));
            assert_eq!(ToolOutput::new(value.clone()), held);
            assert_eq!(held, escaped(&text));
            assert_ne!(held, escaped(&format!("{text}x")));
            assert_ne!(held, ToolOutput::new(json!(1)));
            assert_eq!(format!("{held:?}"), format!("{value:?}"));
            assert_eq!(held.to_string(), value.to_string());
            assert_eq!(
                serde_json::to_string(&held).unwrap(),
                serde_json::to_string(&value).unwrap()
            );
            let clone = held.clone();
            assert_eq!(clone.json(), held.json());
            assert_eq!(clone, held);
            assert_eq!(escaped(&text).into_value(), value);
            assert_eq!(Value::from(held), value);
        }
    }

    #[test]
    fn its_text_is_the_strings() {
        for text in texts() {
            assert_eq!(escaped(&text).text().as_deref(), Some(&*text));
            let held = escaped(&text);
            let _ = held.as_str();
            assert!(matches!(held.text(), Some(Cow::Borrowed(read)) if read == text));
            assert_eq!(ToolOutput::new(json!(text)).text().as_deref(), Some(&*text));
        }
        assert_eq!(ToolOutput::new(json!(["a"])).text(), None);
    }

    #[test]
    fn its_text_keeps_the_escaped_form() {
        for text in texts() {
            let held = escaped(&text).to_text().expect("a string");
            assert_eq!(held.json(), Some(&serde_json::to_vec(&text).unwrap()[..]));
            assert_eq!(held, *text);
            let plain = ToolOutput::new(json!(text)).to_text().expect("a string");
            assert_eq!(plain.json(), None);
            assert_eq!(plain, Text::new(text));
        }
        assert_eq!(ToolOutput::new(json!(["a"])).to_text(), None);
        assert_eq!(ToolOutput::default().to_text(), None);
    }

    #[test]
    fn writing_through_it_drops_the_escaped_form() {
        let mut held = escaped("a\"b");
        // A read keeps it.
        assert_eq!(held.as_str(), Some("a\"b"));
        assert!(held.json().is_some());
        *held = json!("redacted");
        assert_eq!(held.json(), None);
        assert_eq!(held, json!("redacted"));
        // Changed in place.
        let mut held = escaped("abc");
        if let Value::String(text) = &mut *held {
            text.truncate(1);
        }
        assert_eq!(held.json(), None);
        assert_eq!(held, json!("a"));
    }

    #[test]
    fn serde_reads_any_value() {
        let read: ToolOutput = serde_json::from_str(r#"{"a":[1,"b"]}"#).unwrap();
        assert_eq!(read, json!({"a": [1, "b"]}));
        assert_eq!(read.json(), None);
        assert_eq!(ToolOutput::default(), Value::Null);
    }

    /// The writer copies the escaped form, and its line is the one the value gives, for
    /// `output` and for `tool_content`.
    #[test]
    fn the_writer_writes_either_form_alike() {
        use crate::model::{Block, ContentBlock, MessagePayload, Role};
        let line = |event: &ExchangeEvent| {
            let mut line = Vec::new();
            encode_event(event, &mut line).unwrap();
            line
        };
        // One event of each kind (one timestamp), its output set.
        let call = ToolPayload::call("shell", "c1", Value::Null, Fidelity::Router);
        let mut result = ExchangeEvent::new("r", EventType::ToolResult, "a", Payload::Tool(call));
        result.seq = 1;
        let message = MessagePayload::new(Role::User, Vec::new());
        let mut user =
            ExchangeEvent::new("r", EventType::MessageUser, "a", Payload::Message(message));
        user.seq = 1;
        for text in texts() {
            let tool = |output: ToolOutput| {
                let mut event = result.clone();
                if let Payload::Tool(tool) = &mut event.payload {
                    tool.output = output;
                }
                event
            };
            let value = Value::String(text.clone());
            let written = line(&tool(escaped(&text)));
            assert_eq!(written, line(&tool(value.clone().into())));
            assert_eq!(
                written,
                serde_json::to_vec(&tool(value.clone().into())).unwrap()
            );
            let block = |output: ToolOutput| {
                let mut event = user.clone();
                if let Payload::Message(message) = &mut event.payload {
                    let block = ContentBlock::tool_result(Fidelity::AgentEmitted, "c1", output);
                    message.blocks.push(block);
                }
                event
            };
            let written = line(&block(escaped(&text)));
            assert_eq!(written, line(&block(value.clone().into())));
            assert!(matches!(
                &block(escaped(&text)).payload,
                Payload::Message(message) if matches!(
                    &message.blocks[0].block,
                    Block::ToolResult { tool_content, .. } if tool_content.json().is_some()
                )
            ));
        }
    }

    #[test]
    fn it_is_no_larger_than_a_value() {
        assert_eq!(size_of::<ToolOutput>(), size_of::<Value>());
    }
}
