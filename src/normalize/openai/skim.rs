//! A Responses stream's deltas read by a skim, without the JSON parser.
//!
//! Most events of a Responses stream are deltas (`response.output_text.delta`,
//! `response.reasoning_summary_text.delta`, a call's arguments), each a short record
//! `{"type":"response.output_text.delta","sequence_number":17,"item_id":"msg_...",
//! "output_index":1,"content_index":0,"delta":"..."}` that the parse copied, indexed and
//! read into a [`Wire`], about 4,700 instructions a delta (callgrind, the normalize bench's
//! stream) for a few fields. [`delta`] reads such a record token by token as the API writes
//! it (compact; its members in any order, each a known one) into the same [`Wire`] the parse
//! would make, and the adapter hands it to the same handler (`State::responses_event`): only
//! the reading differs. (Read key by key through the general
//! [`Skim`](crate::normalize::skim::Skim) instead, a delta measured 3,150 instructions;
//! token by token 2,000, 800 of them the text's unescaping.)
//!
//! It gives up (`None`; the record is then parsed) at anything it does not read exactly as
//! the parse would: a record not starting `{"type":"response.` or whose type does not end
//! `.delta`, whitespace between tokens, invalid UTF-8, a member a delta does not have (every
//! member this reading takes is one the input report knows), a member twice, a `null`, a
//! number that is not a plain whole number of at most 18 digits, a `delta` that is no
//! string, `logprobs` other than `[]`, a key, type or id with an escape, a text with a
//! control character, an escape JSON has not or a `\u` surrogate
//! ([`unescape`](crate::normalize::skim::unescape)). What it accepts the parse accepts,
//! with the same values (`tests` in `mod.rs` hold the two readings to each other over the
//! corpus and the bench's stream).

use std::borrow::Cow;

use super::wire::{StrOr, Wire};
use crate::normalize::json::Borrowed;
use crate::normalize::skim::{plain_end, small_count, text_at};

/// A delta's start, through its type's opening quote and the type's first word.
const TYPE: &[u8] = b"{\"type\":\"response.";

/// The members a delta has after its `type`, each with its key and, where its value is
/// one token, that token: written as the API writes them, compact, and in the order it
/// writes them (an output text's content index, a summary's index; then the delta and what
/// may follow it).
const MEMBERS: [&[u8]; 8] = [
    b",\"sequence_number\":",
    b",\"item_id\":\"",
    b",\"output_index\":",
    b",\"content_index\":",
    b",\"summary_index\":",
    b",\"delta\":\"",
    b",\"obfuscation\":\"",
    b",\"logprobs\":[]",
];

/// The delta event `bytes` holds: its type and its record as the parse reads it (its
/// `type` taken out, as `State::record` takes it); `None` where the skim gives up (see the
/// module docs).
pub(super) fn delta(bytes: &[u8]) -> Option<(&str, Wire<'_>)> {
    if !bytes.starts_with(TYPE) {
        return None;
    }
    // The type, looked at before the UTF-8 check of the whole record: everything else
    // (requests, items done, response objects) is turned away first.
    let end = plain_end(bytes, TYPE.len());
    if bytes.get(end) != Some(&b'"') || !bytes[..end].ends_with(b".delta") {
        return None;
    }
    // Checked whole, once: every piece taken below is cut at an ASCII byte.
    let line = std::str::from_utf8(bytes).ok()?;
    let kind = &line[TYPE.len() - "response.".len()..end];
    let mut at = end + 1;
    let mut wire = Wire::default();
    let mut seen = [false; MEMBERS.len()];
    let mut next = 0;
    while bytes.get(at) != Some(&b'}') {
        let rest = bytes.get(at..)?;
        // The member after the last one in the API's order is looked for first: each
        // `starts_with` is a compare of its own.
        let member = match MEMBERS.get(next) {
            Some(expected) if rest.starts_with(expected) => next,
            _ => MEMBERS.iter().position(|member| rest.starts_with(member))?,
        };
        next = member + 1;
        if std::mem::replace(&mut seen[member], true) {
            return None;
        }
        at += MEMBERS[member].len();
        match member {
            0 => at = small_count(bytes, at)?.1,
            2..=4 => {
                let (count, end) = small_count(bytes, at)?;
                at = end;
                let index = Some(count);
                match member {
                    2 => wire.output_index = index,
                    3 => wire.content_index = index,
                    _ => wire.summary_index = index,
                }
            }
            1 | 6 => {
                let end = plain_end(bytes, at);
                (bytes.get(end) == Some(&b'"')).then_some(())?;
                if member == 1 {
                    wire.item_id = Some(Borrowed(Cow::Borrowed(&line[at..end])));
                }
                at = end + 1;
            }
            5 => {
                let (text, end) = text_at(line, at)?;
                at = end;
                wire.delta = Some(StrOr::Str(text));
            }
            // `logprobs: []`, whole in its token.
            _ => {}
        }
    }
    (at + 1 == bytes.len()).then_some((kind, wire))
}
