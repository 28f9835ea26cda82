//! Typed readers that never refuse a JSON value: a field read as a string, an object or a
//! number where it is one, and as "something else" where it is not, so that a typed,
//! borrowed record struct reads any record the JSON tree (`serde_json::Value`) reads, and
//! as the tree would: `null` or a value of another type is no string, a later member of
//! the same name replaces an earlier one. For adapters whose hot records are read typed
//! and whose rare ones are read as a tree.
//!
//! This module owns the lenient visitors; it knows no provider's fields.

use std::borrow::Cow;
use std::fmt;

use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};

/// A field read typed where it has the type the reader reads, or not.
pub(crate) enum Slot<T> {
    Read(T),
    Other,
}

/// The visits of the scalar JSON types a lenient reader does not read: each gives `$other`,
/// so that no value of an unexpected type fails the record. `otherwise!(but integers:
/// $other)` leaves out the two integer visits, for a reader of integers ([`Integer`]).
macro_rules! otherwise {
    ($other:expr) => {
        fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
            Ok($other)
        }
        otherwise!(but integers: $other);
    };
    (but integers: $other:expr) => {
        fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_none<E>(self) -> Result<Self::Value, E> {
            Ok($other)
        }
    };
}
pub(crate) use otherwise;

/// For a hand-written struct visitor: a field given twice is an error, as in a derived
/// `Deserialize` (`slot` is the field read so far).
pub(crate) fn once<T, E: serde::de::Error>(slot: &Option<T>, name: &'static str) -> Result<(), E> {
    match slot {
        Some(_) => Err(E::duplicate_field(name)),
        None => Ok(()),
    }
}

/// The members of an object, skipped.
pub(crate) fn skip_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

/// The items of an array, skipped.
pub(crate) fn skip_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

/// A string, or `None` for a value of any other type.
pub(crate) struct Text<'a>(pub(crate) Option<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(Text(Some(Cow::Borrowed(text))))
            }
            fn visit_string<E>(self, text: String) -> Result<Self::Value, E> {
                Ok(Text(Some(Cow::Owned(text))))
            }
            fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
                Ok(Text(Some(Cow::Owned(text.to_owned()))))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                skip_map(map).map(|()| Text(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                skip_seq(seq).map(|()| Text(None))
            }
            otherwise!(Text(None));
        }
        deserializer.deserialize_any(Visit)
    }
}

/// A whole number an `i64` holds, as `Value::as_i64` reads it, or `None` for a value of any
/// other type (a float, a string of digits, an integer past `i64::MAX`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Integer(pub(crate) Option<i64>);

impl<'de> Deserialize<'de> for Integer {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = Integer;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_i64<E>(self, number: i64) -> Result<Self::Value, E> {
                Ok(Integer(Some(number)))
            }
            fn visit_u64<E>(self, number: u64) -> Result<Self::Value, E> {
                Ok(Integer(i64::try_from(number).ok()))
            }
            fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
                Ok(Integer(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                skip_map(map).map(|()| Integer(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                skip_seq(seq).map(|()| Integer(None))
            }
            otherwise!(but integers: Integer(None));
        }
        deserializer.deserialize_any(Visit)
    }
}

/// A whole number a `u64` holds, as `Value::as_u64` reads it, or `None` for a value of any
/// other type (a float, a negative number, a string of digits): a token count.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Unsigned(pub(crate) Option<u64>);

impl<'de> Deserialize<'de> for Unsigned {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = Unsigned;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_u64<E>(self, number: u64) -> Result<Self::Value, E> {
                Ok(Unsigned(Some(number)))
            }
            fn visit_i64<E>(self, number: i64) -> Result<Self::Value, E> {
                Ok(Unsigned(u64::try_from(number).ok()))
            }
            fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
                Ok(Unsigned(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                skip_map(map).map(|()| Unsigned(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                skip_seq(seq).map(|()| Unsigned(None))
            }
            otherwise!(but integers: Unsigned(None));
        }
        deserializer.deserialize_any(Visit)
    }
}

/// A typed object read member by member: `member` reads the value of each member it knows
/// (a later one of the same name replaces an earlier one, as in the tree) and skips the
/// others (`map.next_value::<IgnoredAny>()`); its name is borrowed from the record where the
/// parser can lend it, for an object that keeps its members' names. Read as `Slot<T>`:
/// `Slot::Other` where the value is no object.
pub(crate) trait Members<'de>: Default {
    fn member<A: MapAccess<'de>>(
        &mut self,
        key: Cow<'de, str>,
        map: &mut A,
    ) -> Result<(), A::Error>;
}

impl<'de, T: Members<'de>> Deserialize<'de> for Slot<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit<T>(std::marker::PhantomData<T>);
        impl<'de, T: Members<'de>> Visitor<'de> for Visit<T> {
            type Value = Slot<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut members = T::default();
                while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
                    match key {
                        Some(key) => members.member(key, &mut map)?,
                        None => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(Slot::Read(members))
            }
            fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
                Ok(Slot::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                skip_seq(seq).map(|()| Slot::Other)
            }
            otherwise!(Slot::Other);
        }
        deserializer.deserialize_any(Visit(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    /// `Integer` reads a number where the tree (`Value::as_i64`) does, and nothing where it
    /// does not, whatever the value's type; through simd-json as the adapters read records,
    /// and through serde_json as diagnostics do.
    #[test]
    fn an_integer_is_read_where_the_tree_reads_it_and_nothing_fails() {
        #[derive(Deserialize)]
        struct Record {
            #[serde(default)]
            created: Option<Integer>,
            #[serde(default)]
            after: Option<u64>,
        }
        for value in [
            "1767225600",
            "-5",
            "0",
            "9223372036854775807",
            "9223372036854775808",
            "18446744073709551615",
            "1767225600.0",
            "1.5e9",
            "\"1767225600\"",
            "true",
            "null",
            "{\"a\":[1,{\"b\":2}]}",
            "[1,[2,3],{}]",
        ] {
            let json = format!("{{\"created\":{value},\"after\":7}}");
            let tree: Value = serde_json::from_str(&json).unwrap();
            let expected = tree["created"].as_i64();
            let mut bytes = json.clone().into_bytes();
            let read: Record = simd_json::serde::from_slice(&mut bytes).unwrap();
            assert_eq!(
                read.created.and_then(|s| s.0),
                expected,
                "simd-json: {json}"
            );
            assert_eq!(read.after, Some(7), "the next member is still read: {json}");
            let read: Record = serde_json::from_str(&json).unwrap();
            assert_eq!(
                read.created.and_then(|s| s.0),
                expected,
                "serde_json: {json}"
            );
        }
    }
}
