//! The serde_json typed baseline of this provider's stream (`benches/normalize.rs`): a
//! borrowed struct with the fields a normalizer reads (strings as `Cow`, parts' calls and
//! usage as `RawValue`), deserialized line by line.
#![allow(dead_code)]

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

/// A chunk's data, or a request body.
#[derive(Deserialize)]
struct GeminiRecord<'a> {
    #[serde(borrow, default)]
    candidates: Option<Vec<GeminiCandidate<'a>>>,
    #[serde(rename = "usageMetadata", borrow, default)]
    usage: Option<&'a RawValue>,
    #[serde(rename = "modelVersion", borrow, default)]
    model: Option<Cow<'a, str>>,
    #[serde(rename = "responseId", borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    contents: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct GeminiCandidate<'a> {
    #[serde(borrow, default)]
    content: Option<GeminiContent<'a>>,
    #[serde(rename = "finishReason", borrow, default)]
    finish: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct GeminiContent<'a> {
    #[serde(borrow, default)]
    parts: Vec<GeminiPart<'a>>,
}

#[derive(Deserialize)]
struct GeminiPart<'a> {
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(default)]
    thought: Option<bool>,
    #[serde(rename = "thoughtSignature", borrow, default)]
    signature: Option<Cow<'a, str>>,
    #[serde(rename = "functionCall", borrow, default)]
    call: Option<&'a RawValue>,
}

/// How many `data:` values (SSE) and request lines of `input` parse as [`GeminiRecord`].
pub(crate) fn parse(input: &[u8]) -> usize {
    let lines = super::super::measure::lines(input);
    let data = lines.map(|line| line.strip_prefix(b"data: ").unwrap_or(line));
    super::super::measure::typed::<GeminiRecord<'_>>(data)
}
