//! The serde_json typed baseline of this provider's stream (`benches/normalize.rs`): a
//! borrowed struct with the fields a normalizer reads (strings as `Cow`, blocks, messages and
//! usage as `RawValue`), deserialized line by line.
#![allow(dead_code)]

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

/// A stream event's data, or a request body.
#[derive(Deserialize)]
struct AnthropicRecord<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(default)]
    index: Option<u64>,
    #[serde(borrow, default)]
    delta: Option<AnthropicDelta<'a>>,
    #[serde(borrow, default)]
    content_block: Option<&'a RawValue>,
    #[serde(borrow, default)]
    message: Option<&'a RawValue>,
    #[serde(borrow, default)]
    usage: Option<&'a RawValue>,
    #[serde(borrow, default)]
    messages: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct AnthropicDelta<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    thinking: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    partial_json: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    signature: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    stop_reason: Option<Cow<'a, str>>,
}

/// How many `data:` values (SSE) and request lines of `input` parse as [`AnthropicRecord`].
pub(crate) fn parse(input: &[u8]) -> usize {
    let lines = super::super::measure::lines(input);
    let data = lines.map(|line| line.strip_prefix(b"data: ").unwrap_or(line));
    super::super::measure::typed::<AnthropicRecord<'_>>(data)
}
