//! A stream's text chunks read by a skim, without the JSON parser.
//!
//! Most events of a `streamGenerateContent?alt=sse` stream are chunks of one text part,
//! written by the API as `{"candidates": [{"content": {"parts": [{"text": "..."}],"role":
//! "model"},"index": 0}],"usageMetadata": {...},"modelVersion": "...","responseId": "..."}`:
//! a few hundred bytes whose every byte the parse copied, indexed and read into a [`Wire`]
//! through serde's derive (a candidate's and a part's other fields are a `flatten`ed map,
//! which makes serde buffer every member of both), about 11,600 instructions a chunk
//! (callgrind, the normalize bench's stream). [`chunk`] reads such a line token by token as
//! the API writes it into the same [`Wire`] the parse would make, and the adapter hands it
//! to the same handler (`State::chunk`): only the reading differs. (Read key by key through
//! the general [`Skim`](crate::normalize::skim::Skim) instead, a chunk measured 5,900
//! instructions; token by token, as Gemini CLI's deltas are read, 2,700, a third of it
//! the text's unescaping.)
//!
//! It gives up (`None`; the record is then parsed) at anything it does not read exactly as
//! the parse would: other whitespace, members or order than the API's, invalid UTF-8, a
//! part other than one text (a thought's flag `true` allowed), a `finishReason`, a
//! signature, safety ratings, `createTime` (every member the parse would keep, count as
//! unknown or read otherwise), a usage count that is not a plain whole number of at most 18
//! digits, a key or an id with an escape, a text with a control character, an escape JSON
//! has not or a `\u` surrogate ([`unescape`](crate::normalize::skim::unescape)). What it
//! accepts the parse accepts, with the same values (`tests.rs` holds the two readings to
//! each other over the corpus and the bench's stream).

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::wire::{Candidate, Content, Part, UsageMembers, Wire};
use crate::normalize::json::Borrowed;
use crate::normalize::lenient::Slot;
use crate::normalize::skim::{plain_end, small_count, text_at};

/// A chunk's start, through its one part's text's opening quote.
const HEAD: &[u8] = b"{\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"";

/// The chunk `bytes` holds, as the parse reads it; `None` where the skim gives up (see the
/// module docs).
pub(super) fn chunk(bytes: &[u8]) -> Option<Wire<'_>> {
    // Request bodies (most of a conversation's bytes) and everything else are turned away
    // before the UTF-8 check of the whole line.
    if !bytes.starts_with(HEAD) {
        return None;
    }
    // Checked whole, once: every piece taken below is cut at an ASCII byte.
    let line = std::str::from_utf8(bytes).ok()?;
    let mut read = Reader {
        line,
        at: HEAD.len(),
    };
    let text = read.text()?;
    let thought = read.token(b",\"thought\": true").map(|()| true);
    read.token(b"}],\"role\": \"model\"},\"index\": ")?;
    let index = read.count()?;
    read.token(b"}],\"usageMetadata\": {")?;
    // Each member as `UsageMembers` keeps it (a name given twice, twice): its name borrowed,
    // its count the `Value` the parse makes of a plain whole number.
    let mut members = Vec::new();
    loop {
        read.token(b"\"")?;
        let name = read.plain()?;
        read.token(b": ")?;
        members.push((Cow::Borrowed(name), Value::from(read.count()?)));
        if read.token(b"}").is_some() {
            break;
        }
        read.token(b",")?;
    }
    read.token(b",\"modelVersion\": \"")?;
    let model = read.plain()?;
    read.token(b",\"responseId\": \"")?;
    let id = read.plain()?;
    read.token(b"}")?;
    (read.at == bytes.len()).then_some(())?;
    let part = Part {
        text: Some(Borrowed(text)),
        thought,
        thought_signature: None,
        function_call: None,
        function_response: None,
        executable_code: None,
        code_execution_result: None,
        rest: Map::new(),
    };
    let candidate = Candidate {
        content: Some(Content {
            role: Some(Borrowed(Cow::Borrowed("model"))),
            parts: vec![part],
        }),
        finish_reason: None,
        index: Some(index),
        rest: Map::new(),
    };
    Some(Wire {
        candidates: Some(vec![candidate]),
        usage: Some(Slot::Read(UsageMembers(members))),
        prompt_feedback: None,
        model_version: Some(Borrowed(Cow::Borrowed(model))),
        response_id: Some(Borrowed(Cow::Borrowed(id))),
        create_time: None,
        model_status: None,
        error: None,
        contents: None,
        system_instruction: None,
        tools: None,
    })
}

/// A line (checked as UTF-8) read from byte `at` on.
struct Reader<'a> {
    line: &'a str,
    at: usize,
}

impl<'a> Reader<'a> {
    /// `token` here, read.
    fn token(&mut self, token: &[u8]) -> Option<()> {
        let bytes = self.line.as_bytes().get(self.at..)?;
        bytes.starts_with(token).then(|| self.at += token.len())
    }

    /// The string whose opening quote was read, through its closing quote, when it has no
    /// escape nor control character.
    fn plain(&mut self) -> Option<&'a str> {
        let end = plain_end(self.line.as_bytes(), self.at);
        (self.line.as_bytes().get(end) == Some(&b'"')).then_some(())?;
        let plain = self.line.get(self.at..end)?;
        self.at = end + 1;
        Some(plain)
    }

    /// The string whose opening quote was read, unescaped as simd-json reads it (borrowed
    /// when it has no escape).
    fn text(&mut self) -> Option<Cow<'a, str>> {
        let (text, end) = text_at(self.line, self.at)?;
        self.at = end;
        Some(text)
    }

    /// A whole number as JSON writes it, of at most 18 digits ([`small_count`]).
    fn count(&mut self) -> Option<u64> {
        let (count, end) = small_count(self.line.as_bytes(), self.at)?;
        self.at = end;
        Some(count)
    }
}
