//! The serde_json typed baseline of this provider's stream (`benches/normalize.rs`): a
//! borrowed struct with the fields a normalizer reads (strings as `Cow`, nested tool input,
//! results and usage as `RawValue`), deserialized line by line.
#![allow(dead_code)]

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

/// Copilot `--output-format json`: the envelope, its `data`, and the flat `result` line.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct CopilotLine<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    agent_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    data: Option<CopilotData<'a>>,
    #[serde(borrow, default)]
    session_id: Option<Cow<'a, str>>,
    #[serde(default)]
    exit_code: Option<i64>,
    #[serde(borrow, default)]
    usage: Option<&'a RawValue>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct CopilotData<'a> {
    #[serde(borrow, default)]
    message_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool_requests: Option<Vec<CopilotRequest<'a>>>,
    #[serde(borrow, default)]
    reasoning_text: Option<Cow<'a, str>>,
    #[serde(default)]
    output_tokens: Option<u64>,
    #[serde(borrow, default)]
    tool_call_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool_name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
    #[serde(default)]
    success: Option<bool>,
    #[serde(borrow, default)]
    result: Option<CopilotResult<'a>>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
    #[serde(borrow, default)]
    model: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct CopilotRequest<'a> {
    #[serde(borrow)]
    tool_call_id: Cow<'a, str>,
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct CopilotResult<'a> {
    #[serde(borrow, default)]
    content: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    detailed_content: Option<Cow<'a, str>>,
}

/// How many lines of `input` parse as [`CopilotLine`].
pub(crate) fn parse(input: &[u8]) -> usize {
    let lines = super::super::measure::lines(input);
    super::super::measure::typed::<CopilotLine<'_>>(lines)
}
