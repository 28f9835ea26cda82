//! The serde_json typed baseline of this provider's stream (`benches/normalize.rs`): a
//! borrowed struct with the fields a normalizer reads (strings as `Cow`, nested tool input,
//! results and usage as `RawValue`), deserialized line by line.
#![allow(dead_code)]

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

/// OpenAI Responses events and request bodies: the fields a normalizer reads.
#[derive(Deserialize)]
#[allow(dead_code)]
struct OpenAiEvent<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    item_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    delta: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    item: Option<&'a RawValue>,
    #[serde(borrow, default)]
    response: Option<&'a RawValue>,
    #[serde(borrow, default)]
    input: Option<&'a RawValue>,
}

/// How many `data:` values (SSE) parse as [`OpenAiEvent`].
pub(crate) fn parse(input: &[u8]) -> usize {
    let lines = super::super::measure::lines(input);
    let data = lines.map(|line| line.strip_prefix(b"data: ").unwrap_or(line));
    super::super::measure::typed::<OpenAiEvent<'_>>(data)
}
