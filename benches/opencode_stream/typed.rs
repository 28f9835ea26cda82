//! The serde_json typed baseline of this provider's stream (`benches/normalize.rs`): a
//! borrowed struct with the fields a normalizer reads (strings as `Cow`, nested values as
//! `RawValue`), deserialized line by line.
#![allow(dead_code)]

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

/// OpenCode: the event's envelope borrowed, its part raw.
#[derive(Deserialize)]
#[allow(dead_code)]
struct OpenCodeEvent<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default)]
    timestamp: Option<i64>,
    #[serde(rename = "sessionID", borrow, default)]
    session_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    part: Option<&'a RawValue>,
}

/// How many lines of `input` parse as [`OpenCodeEvent`].
pub(crate) fn parse(input: &[u8]) -> usize {
    let lines = super::super::measure::lines(input);
    super::super::measure::typed::<OpenCodeEvent<'_>>(lines)
}
