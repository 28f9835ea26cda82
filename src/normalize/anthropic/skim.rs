//! A stream's text and thinking deltas read by a skim, without the JSON parser.
//!
//! Most events of a Messages API stream are `content_block_delta`s of text or thinking,
//! written by the API as `{"type":"content_block_delta","index":0,"delta":{"type":
//! "text_delta","text":"..."}}`: a short record the parse copied, indexed and read into a
//! [`Wire`] through serde's derive, about 4,600 instructions a delta (callgrind, the
//! normalize bench's stream; the framing's share included). [`delta`] reads such a record
//! token by token as the API writes it into the same [`Wire`] the parse would make, and the
//! adapter hands it to the same handler (`State::wire`): only the reading differs.
//!
//! It gives up (`None`; the record is then parsed) at anything it does not read exactly as
//! the parse would: other whitespace, members or order than the API's, invalid UTF-8, a
//! delta other than a `text` or a `thinking` (a signature, a call's input, a citation), an
//! index that is not a plain whole number of at most 18 digits, a type with an escape, a
//! text with a control character, an escape JSON has not or a `\u` surrogate
//! ([`unescape`](crate::normalize::skim::unescape)). What it accepts the parse accepts, with
//! the same values (`tests.rs` holds the two readings to each other over the corpus and the
//! bench's stream).

use std::borrow::Cow;

use super::wire::Wire;
use crate::normalize::json::Borrowed;
use crate::normalize::messages_api::Delta;
use crate::normalize::skim::{plain_end, small_count, text_at, token};

/// A delta's start, through its index's key.
const HEAD: &[u8] = b"{\"type\":\"content_block_delta\",\"index\":";

/// The delta `bytes` holds, as the parse reads it; `None` where the skim gives up (see the
/// module docs).
pub(super) fn delta(bytes: &[u8]) -> Option<Wire<'_>> {
    // Everything else (request bodies, most of a conversation's bytes) is turned away before
    // the UTF-8 check of the whole record.
    if !bytes.starts_with(HEAD) {
        return None;
    }
    // Checked whole, once: every piece taken below is cut at an ASCII byte.
    let line = std::str::from_utf8(bytes).ok()?;
    let (index, at) = small_count(bytes, HEAD.len())?;
    let at = token(bytes, at, b",\"delta\":{\"type\":\"")?;
    let end = plain_end(bytes, at);
    (bytes.get(end) == Some(&b'"')).then_some(())?;
    let kind = &line[at..end];
    let (thinking, at) = match token(bytes, end + 1, b",\"text\":\"") {
        Some(at) => (false, at),
        None => (true, token(bytes, end + 1, b",\"thinking\":\"")?),
    };
    let (text, at) = text_at(line, at)?;
    (token(bytes, at, b"}}")? == bytes.len()).then_some(())?;
    let text = Some(Borrowed(text));
    let (text, thinking) = if thinking { (None, text) } else { (text, None) };
    Some(Wire {
        kind: Some(Borrowed(Cow::Borrowed("content_block_delta"))),
        index: Some(index),
        message: None,
        content_block: None,
        delta: Some(Delta {
            kind: Some(Borrowed(Cow::Borrowed(kind))),
            text,
            thinking,
            signature: None,
            partial_json: None,
            citation: None,
            stop_reason: None,
        }),
        usage: None,
        error: None,
        bedrock_metrics: None,
        id: None,
        model: None,
        content: None,
        stop_reason: None,
        messages: None,
        system: None,
        tools: None,
    })
}
