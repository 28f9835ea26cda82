//! The serde_json typed baseline of this provider's stream (`benches/normalize.rs`): a
//! borrowed struct with the fields a normalizer reads (strings as `Cow`, nested tool input,
//! results and usage as `RawValue`), deserialized line by line.
#![allow(dead_code)]

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

/// Claude: the fields a normalizer reads, borrowed; raw JSON for tool input, results and
/// usage.
#[derive(Deserialize)]
#[allow(dead_code)]
struct ClaudeLine<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    subtype: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    message: Option<ClaudeMessage<'a>>,
    #[serde(borrow, default)]
    session_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    uuid: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct ClaudeMessage<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    model: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    role: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<ClaudeContent<'a>>,
    #[serde(borrow, default)]
    usage: Option<&'a RawValue>,
}

/// `message.content`: a string or an array of blocks, read by a small visitor (an
/// `untagged` enum would buffer every line's content first).
#[allow(dead_code)]
enum ClaudeContent<'a> {
    Text(Cow<'a, str>),
    Blocks(Vec<ClaudeBlock<'a>>),
}

impl<'de: 'a, 'a> Deserialize<'de> for ClaudeContent<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Content;
        impl<'de> serde::de::Visitor<'de> for Content {
            type Value = ClaudeContent<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string or an array of blocks")
            }
            fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(ClaudeContent::Text(Cow::Borrowed(text)))
            }
            fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
                Ok(ClaudeContent::Text(Cow::Owned(text.to_owned())))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Self::Value, A::Error> {
                let mut blocks = Vec::new();
                while let Some(block) = seq.next_element()? {
                    blocks.push(block);
                }
                Ok(ClaudeContent::Blocks(blocks))
            }
        }
        deserializer.deserialize_any(Content)
    }
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct ClaudeBlock<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    thinking: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    input: Option<&'a RawValue>,
    #[serde(borrow, default)]
    tool_use_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
    #[serde(default)]
    is_error: Option<bool>,
}

/// How many lines of `input` parse as [`ClaudeLine`].
pub(crate) fn parse(input: &[u8]) -> usize {
    let lines = super::super::measure::lines(input);
    super::super::measure::typed::<ClaudeLine<'_>>(lines)
}
