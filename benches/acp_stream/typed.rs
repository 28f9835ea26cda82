//! The serde_json typed baseline of this provider's stream (`benches/normalize.rs`): a
//! borrowed struct with the fields a normalizer reads (strings as `Cow`, nested values as
//! `RawValue`), deserialized line by line.
#![allow(dead_code)]

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

/// ACP: the JSON-RPC envelope, the update's kind, content and tool call fields borrowed,
/// the rest raw.
#[derive(Deserialize)]
#[allow(dead_code)]
struct AcpMessage<'a> {
    #[serde(borrow, default)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    params: Option<AcpParams<'a>>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct AcpParams<'a> {
    #[serde(rename = "sessionId", borrow, default)]
    session_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    update: Option<AcpUpdate<'a>>,
    #[serde(borrow, default)]
    prompt: Option<&'a RawValue>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct AcpUpdate<'a> {
    #[serde(rename = "sessionUpdate", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
    #[serde(rename = "toolCallId", borrow, default)]
    tool_call_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    status: Option<Cow<'a, str>>,
    #[serde(rename = "rawInput", borrow, default)]
    raw_input: Option<&'a RawValue>,
}

/// How many lines of `input` parse as [`AcpMessage`].
pub(crate) fn parse(input: &[u8]) -> usize {
    let lines = super::super::measure::lines(input);
    super::super::measure::typed::<AcpMessage<'_>>(lines)
}
