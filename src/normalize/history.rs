//! A request's history read past what the adapter already read.
//!
//! An HTTP API's request repeats the whole conversation (Bedrock's `messages`, the Gemini
//! API's `contents`), and an adapter reads only the messages after those it read before (the
//! previous request's, plus one per response since). Built as trees, the repeated messages
//! were most of what a conversation file cost: most of its bytes are requests, and a file of
//! n requests holds O(n²) messages. A [`History`] builds only the messages past the count
//! the adapter gives around the parse ([`reading_past`]); each message before them is read
//! as its `Shape`, a reader that accepts exactly what the message type accepts and builds
//! nothing, so a record reads (or fails, with the same error) as it did when every message
//! was built.
//!
//! The count reaches the deserializer through a thread-local set for the one parse: serde's
//! derived readers take no state, and the parser's door takes a type, not a seed. Outside
//! [`reading_past`] the count is 0: a [`History`] then builds every message.
//!
//! This module owns that skipping. It knows no provider's messages.

use std::cell::Cell;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};

thread_local! {
    /// The messages the adapter parsing a record on this thread has already read.
    static ALREADY_READ: Cell<usize> = const { Cell::new(0) };
}

/// Runs `parse` with `already` messages of any [`History`] it reads skipped (read as their
/// shape, not built); the count before is restored after, whatever happens.
pub(crate) fn reading_past<R>(already: usize, parse: impl FnOnce() -> R) -> R {
    struct Restore(usize);
    impl Drop for Restore {
        fn drop(&mut self) {
            ALREADY_READ.set(self.0);
        }
    }
    let _restore = Restore(ALREADY_READ.replace(already));
    parse()
}

/// A request's messages (`T`), those the adapter already read only counted, each checked as
/// its `Shape` (which must accept exactly what `T` accepts).
pub(crate) struct History<T, Shape> {
    len: usize,
    /// The index of `built`'s first message.
    first: usize,
    built: Vec<T>,
    shape: PhantomData<Shape>,
}

impl<T, Shape> Default for History<T, Shape> {
    fn default() -> Self {
        History {
            len: 0,
            first: 0,
            built: Vec::new(),
            shape: PhantomData,
        }
    }
}

impl<T, Shape> History<T, Shape> {
    /// How many messages the request holds.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The messages from index `skip` on. `skip` is at least the count the parse skipped
    /// (what the adapter had read then; it reads more, never less, before it asks): a message
    /// it did not build is never asked for.
    pub(crate) fn past(self, skip: usize) -> impl Iterator<Item = T> {
        debug_assert!(
            skip >= self.first || self.first == self.len,
            "messages asked for that were not built"
        );
        self.built.into_iter().skip(skip.saturating_sub(self.first))
    }
}

impl<'de, T: Deserialize<'de>, Shape: Deserialize<'de>> Deserialize<'de> for History<T, Shape> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit<T, Shape>(PhantomData<(T, Shape)>);
        impl<'de, T: Deserialize<'de>, Shape: Deserialize<'de>> Visitor<'de> for Visit<T, Shape> {
            type Value = History<T, Shape>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a sequence")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let already = ALREADY_READ.get();
                let mut history = History::default();
                while history.len < already {
                    if seq.next_element::<Shape>()?.is_none() {
                        history.first = history.len;
                        return Ok(history);
                    }
                    history.len += 1;
                }
                history.first = history.len;
                while let Some(message) = seq.next_element::<T>()? {
                    history.built.push(message);
                    history.len += 1;
                }
                Ok(history)
            }
        }
        deserializer.deserialize_seq(Visit(PhantomData))
    }
}

/// An object whose members are not read: the shape of a `Map<String, Value>`.
pub(crate) struct AnyObject;

impl<'de> Deserialize<'de> for AnyObject {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = AnyObject;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<Self::Value, A::Error> {
                super::lenient::skip_map(map).map(|()| AnyObject)
            }
        }
        deserializer.deserialize_map(Visit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize, PartialEq)]
    struct Message {
        role: String,
    }

    #[derive(Deserialize)]
    struct Shape {
        #[allow(dead_code)] // read for its type only
        role: IgnoredString,
    }

    #[derive(Deserialize)]
    struct IgnoredString(#[allow(dead_code)] String);

    fn read(json: &str, already: usize) -> Result<(usize, Vec<String>), String> {
        reading_past(already, || {
            serde_json::from_str::<History<Message, Shape>>(json)
                .map(|history| {
                    let len = history.len();
                    let roles = history.past(already.min(len)).map(|m| m.role).collect();
                    (len, roles)
                })
                .map_err(|error| error.to_string())
        })
    }

    #[test]
    fn only_the_messages_past_those_already_read_are_built() {
        let json = r#"[{"role":"a"},{"role":"b"},{"role":"c"}]"#;
        assert_eq!(
            read(json, 0),
            Ok((3, vec!["a".into(), "b".into(), "c".into()]))
        );
        assert_eq!(read(json, 2), Ok((3, vec!["c".into()])));
        assert_eq!(read(json, 3), Ok((3, vec![])));
        assert_eq!(read(json, 5), Ok((3, vec![])));
        // Outside `reading_past` nothing is skipped.
        let all = serde_json::from_str::<History<Message, Shape>>(json).unwrap();
        assert_eq!(all.past(0).count(), 3);
    }

    /// A skipped message of the wrong shape fails the record as a built one does, with the
    /// same error.
    #[test]
    fn a_skipped_message_fails_as_a_built_one_does() {
        let json = r#"[{"role":1},{"role":"b"}]"#;
        let built = read(json, 0).unwrap_err();
        assert_eq!(read(json, 1).unwrap_err(), built);
        assert!(built.contains("expected a string"), "{built}");
    }
}
