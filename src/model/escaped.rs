//! A string's JSON escaping, carried beside the string so the writer can copy it instead of
//! escaping the string again.
//!
//! Tool output is most of a transcript's bytes, and escaping it is most of the writer's time
//! (one escape every dozen bytes in shell output: each is a branch and a short copy). When
//! the provider's own bytes for a string are already exactly what the writer would write
//! (serde_json's escaping, which Codex's Rust and most JSON writers share), an adapter keeps
//! them ([`EscapedCopy::new`]) and the writer copies them verbatim.
//!
//! The copy is a cache, never the value: it holds the string's length and a hash of its
//! text, and the writer uses it only for the string it was made from ([`EscapedCopy::of`]).
//! A string changed since (redacted, cut to fit a line) no longer matches, and is escaped
//! as any other. This file owns the cache and its check; who makes one, and from which
//! bytes, is the adapters' business.

use std::hash::BuildHasher;

/// The JSON escaping (without its quotes) of one string, and what identifies that string.
#[derive(Clone)]
pub struct EscapedCopy {
    len: usize,
    hash: u64,
    json: Box<[u8]>,
}

impl EscapedCopy {
    /// The copy of `json`, the escaping of `text`. The caller vouches that `json` is what the
    /// writer would write for `text`; nothing here can check it short of escaping `text`.
    pub(crate) fn new(text: &str, json: &[u8]) -> Self {
        EscapedCopy {
            len: text.len(),
            hash: hash(text),
            json: json.into(),
        }
    }

    /// The escaping, when `text` is the string this copy was made from (its length and
    /// hash); `None` for any other.
    pub(crate) fn of(&self, text: &str) -> Option<&[u8]> {
        (text.len() == self.len && hash(text) == self.hash).then_some(&*self.json)
    }
}

/// foldhash with a fixed seed: several times faster than escaping, and a change to the
/// string misses the copy but for a 2^-64 chance. No adversary chooses these strings
/// against a cache that lives for one event.
fn hash(text: &str) -> u64 {
    foldhash::quality::FixedState::with_seed(0x6573_6361_7065).hash_one(text)
}

/// A cache, not content: two payloads are equal whatever their copies.
impl PartialEq for EscapedCopy {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for EscapedCopy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "EscapedCopy({} bytes)", self.json.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_serves_only_the_string_it_was_made_from() {
        let copy = EscapedCopy::new("a\"b\n", br#"a\"b\n"#);
        assert_eq!(copy.of("a\"b\n"), Some(&br#"a\"b\n"#[..]));
        // Same length, other text (a redaction of the same size): escaped again.
        assert_eq!(copy.of("a*b\n"), None);
        assert_eq!(copy.of("a\"b"), None);
    }

    /// The writer copies a copy that serves the output (here a valid escaping the writer
    /// would not make, so that the line shows which was written) and escapes any other.
    #[test]
    fn the_writer_copies_the_escaping_only_of_its_own_string() {
        use crate::model::{
            EventType, ExchangeEvent, Fidelity, Payload, ToolPayload, encode_event,
        };
        let line = |output: &str| {
            let mut tool = ToolPayload::call(
                "shell",
                "c1",
                serde_json::Value::Null,
                Fidelity::AgentEmitted,
            );
            tool.output = output.into();
            tool.output_escaped = Some(EscapedCopy::new("a\"b", br"a\u0022b"));
            let mut event =
                ExchangeEvent::new("r", EventType::ToolResult, "agent", Payload::Tool(tool));
            event.seq = 1;
            let mut line = Vec::new();
            encode_event(&event, &mut line).unwrap();
            String::from_utf8(line).unwrap()
        };
        assert!(line("a\"b").contains(r#""output":"a\u0022b""#));
        assert!(line("a'b").contains(r#""output":"a'b""#));
    }
}
