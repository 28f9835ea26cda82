//! The serde_json typed baseline of this provider's stream (`benches/normalize.rs`): a
//! borrowed struct with the fields a normalizer reads (strings as `Cow`, nested tool input,
//! results and usage as `RawValue`), deserialized line by line.
#![allow(dead_code)]

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

/// Codex `exec --json` (current format): the line and its item.
#[derive(Deserialize)]
#[allow(dead_code)]
struct CodexLine<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    thread_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    item: Option<CodexItem<'a>>,
    #[serde(borrow, default)]
    usage: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct CodexItem<'a> {
    #[serde(borrow)]
    id: Cow<'a, str>,
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    status: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    command: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    aggregated_output: Option<Cow<'a, str>>,
    #[serde(default)]
    exit_code: Option<i64>,
    #[serde(borrow, default)]
    changes: Option<&'a RawValue>,
    #[serde(borrow, default)]
    server: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
    #[serde(borrow, default)]
    query: Option<Cow<'a, str>>,
}

/// How many lines of `input` parse as [`CodexLine`].
pub(crate) fn parse(input: &[u8]) -> usize {
    let lines = super::super::measure::lines(input);
    super::super::measure::typed::<CodexLine<'_>>(lines)
}
