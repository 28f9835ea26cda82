//! The serde_json typed baseline of this provider's stream (`benches/normalize.rs`): a
//! borrowed struct with the fields a normalizer reads (strings as `Cow`, whole blocks and
//! usage as `RawValue`), deserialized line by line.
#![allow(dead_code)]

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

/// An event, or a request body.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ConverseRecord<'a> {
    #[serde(borrow, default)]
    message_start: Option<&'a RawValue>,
    #[serde(borrow, default)]
    content_block_start: Option<&'a RawValue>,
    #[serde(borrow, default)]
    content_block_delta: Option<BlockDelta<'a>>,
    #[serde(borrow, default)]
    content_block_stop: Option<&'a RawValue>,
    #[serde(borrow, default)]
    message_stop: Option<&'a RawValue>,
    #[serde(borrow, default)]
    metadata: Option<&'a RawValue>,
    #[serde(borrow, default)]
    messages: Option<&'a RawValue>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct BlockDelta<'a> {
    #[serde(default)]
    content_block_index: u64,
    #[serde(borrow, default)]
    delta: Option<Delta<'a>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Delta<'a> {
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool_use: Option<&'a RawValue>,
    #[serde(borrow, default)]
    reasoning_content: Option<&'a RawValue>,
}

/// How many lines of `input` parse as [`ConverseRecord`].
pub(crate) fn parse(input: &[u8]) -> usize {
    super::super::measure::typed::<ConverseRecord<'_>>(super::super::measure::lines(input))
}
