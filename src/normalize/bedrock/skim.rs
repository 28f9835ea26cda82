//! A stream's text and reasoning deltas read by a skim, without the JSON parser.
//!
//! Most events of a `ConverseStream` are `contentBlockDelta`s of text or reasoning text, a
//! record as the AWS SDKs give it once decoded (`{"contentBlockDelta":{"contentBlockIndex":
//! 0,"delta":{"text":"..."}}}`), or as the event-stream framing makes it of a binary message
//! (the same, with the payload's padding `"p"` after the delta). The parse copied, indexed
//! and read each into a [`Wire`] through serde's derive (a `flatten`ed record); [`delta`]
//! reads it token by token as it is written into the [`BlockDelta`] the parse would make,
//! and the adapter hands it to the same handler (`State::block_delta`): only the reading
//! differs.
//!
//! It gives up (`None`; the record is then parsed) at anything it does not read exactly as
//! the parse would: other whitespace, members or order, invalid UTF-8, a delta other than a
//! `text` or a reasoning `text` (a call's input, a signature, a citation, a tool's result),
//! an index that is not a plain whole number of at most 18 digits, a padding with an
//! escape, a text with a control character, an escape JSON has not or a `\u` surrogate
//! ([`unescape`](crate::normalize::skim::unescape)). What it accepts the parse accepts, with
//! the same values (`tests.rs` holds the two readings to each other over the corpus and the
//! bench's stream).

use serde_json::Map;

use super::wire::{BlockDelta, Delta, ReasoningDelta};
use crate::normalize::json::Borrowed;
use crate::normalize::skim::{plain_end, small_count, text_at, token};

/// A delta's start, through its index's key.
const HEAD: &[u8] = b"{\"contentBlockDelta\":{\"contentBlockIndex\":";

/// The delta `bytes` holds, as the parse reads it; `None` where the skim gives up (see the
/// module docs).
pub(super) fn delta(bytes: &[u8]) -> Option<BlockDelta<'_>> {
    // Everything else (request bodies, most of a conversation's bytes) is turned away before
    // the UTF-8 check of the whole record.
    if !bytes.starts_with(HEAD) {
        return None;
    }
    // Checked whole, once: every piece taken below is cut at an ASCII byte.
    let line = std::str::from_utf8(bytes).ok()?;
    let (index, at) = small_count(bytes, HEAD.len())?;
    let (reasoning, at) = match token(bytes, at, b",\"delta\":{\"text\":\"") {
        Some(at) => (false, at),
        None => (
            true,
            token(bytes, at, b",\"delta\":{\"reasoningContent\":{\"text\":\"")?,
        ),
    };
    let (text, mut at) = text_at(line, at)?;
    at = token(bytes, at, if reasoning { b"}}" } else { b"}" })?;
    // The event-stream payload's padding, which the parse skips.
    if let Some(padding) = token(bytes, at, b",\"p\":\"") {
        let end = plain_end(bytes, padding);
        (bytes.get(end) == Some(&b'"')).then_some(())?;
        at = end + 1;
    }
    (token(bytes, at, b"}}")? == bytes.len()).then_some(())?;
    let text = Some(Borrowed(text));
    let delta = match reasoning {
        false => Delta {
            text,
            tool_use: None,
            reasoning_content: None,
            tool_result: None,
            rest: Map::new(),
        },
        true => Delta {
            text: None,
            tool_use: None,
            reasoning_content: Some(ReasoningDelta {
                text,
                signature: None,
                redacted_content: None,
            }),
            tool_result: None,
            rest: Map::new(),
        },
    };
    Some(BlockDelta {
        content_block_index: index,
        delta: Some(delta),
    })
}
