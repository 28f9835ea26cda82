//! A content block's fingerprint: a hash of its wire form, for telling whether two copies
//! of a block (Claude Code's consolidated lines, its streamed deltas) are the same.
//!
//! The block is walked by its own `Serialize` (the wire form's fields, in its order), but
//! into a hasher rather than into JSON text: strings are hashed as they are, never escaped,
//! and numbers as their bits, never formatted, which made hashing the JSON text cost about
//! what writing the block out does. Every value is tagged and every string, sequence and
//! map prefixed with its length, so distinct wire forms hash apart (up to collisions of a
//! 64-bit hash). This room owns the hashing only; which blocks are compared, and when, is
//! the adapter's business.

use std::hash::{BuildHasher, Hasher};

use serde::ser::{self, Serialize};

use crate::model::ContentBlock;

/// A hash of a block's wire form: equal blocks, equal prints.
pub(crate) fn fingerprint(block: &ContentBlock) -> u64 {
    // foldhash, not SipHash: no adversary picks the keys of a table here (prints are only
    // compared). The fixed seed keeps prints equal across runs.
    let mut print = Print(foldhash::quality::FixedState::with_seed(0x6178_7400).build_hasher());
    // Hashing cannot fail: nothing is written anywhere.
    let _ = block.serialize(&mut print);
    print.0.finish()
}

/// The hasher, as a serializer.
struct Print(foldhash::quality::FoldHasher<'static>);

/// What each value starts with, so that no two kinds of value hash alike.
#[derive(Clone, Copy)]
#[repr(u8)]
enum Tag {
    Bool = 1,
    Signed,
    Unsigned,
    Float,
    Str,
    Bytes,
    None,
    Some,
    Unit,
    Variant,
    Seq,
    Map,
    Struct,
}

impl Print {
    fn tag(&mut self, tag: Tag) {
        self.0.write_u8(tag as u8);
    }

    fn str(&mut self, text: &str) {
        self.0.write_usize(text.len());
        self.0.write(text.as_bytes());
    }

    fn compound(&mut self, tag: Tag, len: Option<usize>) -> &mut Self {
        self.tag(tag);
        // A length the serializer does not know up front is told by the end marker.
        self.0.write_usize(len.map_or(usize::MAX, |len| len));
        self
    }
}

type Done = Result<(), std::fmt::Error>;

impl ser::Serializer for &mut Print {
    type Ok = ();
    type Error = std::fmt::Error;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Self;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Self;

    fn serialize_bool(self, v: bool) -> Done {
        self.tag(Tag::Bool);
        self.0.write_u8(u8::from(v));
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Done {
        self.serialize_i64(v.into())
    }
    fn serialize_i16(self, v: i16) -> Done {
        self.serialize_i64(v.into())
    }
    fn serialize_i32(self, v: i32) -> Done {
        self.serialize_i64(v.into())
    }
    fn serialize_i64(self, v: i64) -> Done {
        self.tag(Tag::Signed);
        self.0.write_i64(v);
        Ok(())
    }
    fn serialize_u8(self, v: u8) -> Done {
        self.serialize_u64(v.into())
    }
    fn serialize_u16(self, v: u16) -> Done {
        self.serialize_u64(v.into())
    }
    fn serialize_u32(self, v: u32) -> Done {
        self.serialize_u64(v.into())
    }
    fn serialize_u64(self, v: u64) -> Done {
        self.tag(Tag::Unsigned);
        self.0.write_u64(v);
        Ok(())
    }
    fn serialize_f32(self, v: f32) -> Done {
        self.serialize_f64(v.into())
    }
    fn serialize_f64(self, v: f64) -> Done {
        self.tag(Tag::Float);
        self.0.write_u64(v.to_bits());
        Ok(())
    }
    fn serialize_char(self, v: char) -> Done {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Done {
        self.tag(Tag::Str);
        self.str(v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Done {
        self.tag(Tag::Bytes);
        self.0.write_usize(v.len());
        self.0.write(v);
        Ok(())
    }
    fn serialize_none(self) -> Done {
        self.tag(Tag::None);
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Done {
        self.tag(Tag::Some);
        value.serialize(self)
    }
    fn serialize_unit(self) -> Done {
        self.tag(Tag::Unit);
        Ok(())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Done {
        self.serialize_unit()
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Done {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Done {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Done {
        self.tag(Tag::Variant);
        self.str(variant);
        value.serialize(self)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Self, std::fmt::Error> {
        Ok(self.compound(Tag::Seq, len))
    }
    fn serialize_tuple(self, len: usize) -> Result<Self, std::fmt::Error> {
        Ok(self.compound(Tag::Seq, Some(len)))
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Self, std::fmt::Error> {
        Ok(self.compound(Tag::Seq, Some(len)))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self, std::fmt::Error> {
        self.tag(Tag::Variant);
        self.str(variant);
        Ok(self.compound(Tag::Seq, Some(len)))
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Self, std::fmt::Error> {
        Ok(self.compound(Tag::Map, len))
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Self, std::fmt::Error> {
        // Fields a struct skips change its length; the field names tell them apart.
        Ok(self.compound(Tag::Struct, None))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Self, std::fmt::Error> {
        self.tag(Tag::Variant);
        self.str(variant);
        Ok(self.compound(Tag::Struct, None))
    }
}

/// The end of a compound value.
fn end(print: &mut Print) -> Done {
    print.0.write_u8(0);
    Ok(())
}

/// serde's seven compound traits, each the same here: a value or a named field hashed in
/// turn, then the end marker.
macro_rules! compound {
    ($($trait:ident :: $method:ident),* ; $($named:ident),*) => {
        $(impl ser::$trait for &mut Print {
            type Ok = ();
            type Error = std::fmt::Error;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Done {
                value.serialize(&mut **self)
            }
            fn end(self) -> Done {
                end(self)
            }
        })*
        $(impl ser::$named for &mut Print {
            type Ok = ();
            type Error = std::fmt::Error;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Done {
                self.str(key);
                value.serialize(&mut **self)
            }
            fn end(self) -> Done {
                end(self)
            }
        })*
    };
}

compound!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field;
    SerializeStruct,
    SerializeStructVariant
);

impl ser::SerializeMap for &mut Print {
    type Ok = ();
    type Error = std::fmt::Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Done {
        key.serialize(&mut **self)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Done {
        value.serialize(&mut **self)
    }
    fn end(self) -> Done {
        end(self)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::model::{Block, Fidelity};

    fn tool(input: serde_json::Value) -> ContentBlock {
        ContentBlock::new(
            Fidelity::AgentEmitted,
            Block::ToolUse {
                tool_name: "Bash".to_owned(),
                tool_id: "toolu_1".to_owned(),
                tool_input: input,
                server: false,
                incomplete: false,
                permission: None,
            },
        )
    }

    #[test]
    fn equal_blocks_print_alike_and_different_ones_apart() {
        let text = |t: &str| ContentBlock::text(Fidelity::AgentEmitted, t.to_owned());
        assert_eq!(
            fingerprint(&text("a \"quoted\"\nline")),
            fingerprint(&text("a \"quoted\"\nline"))
        );
        let prints = [
            fingerprint(&text("ab")),
            fingerprint(&text("a")),
            fingerprint(&text("")),
            fingerprint(&tool(json!({"command": "ls"}))),
            fingerprint(&tool(json!({"command": "ls -l"}))),
            fingerprint(&tool(json!({"command": 1}))),
            fingerprint(&tool(json!({"command": 1.0}))),
            fingerprint(&tool(json!({"command": "1"}))),
            fingerprint(&tool(json!({"command": ["ls"]}))),
            fingerprint(&tool(json!({"command": null}))),
            fingerprint(&tool(json!({"a": "b", "c": "d"}))),
            fingerprint(&tool(json!({"a": "bc", "": "d"}))),
            fingerprint(&tool(json!({}))),
            fingerprint(&tool(json!([]))),
        ];
        let mut distinct = prints.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), prints.len(), "{prints:?}");
    }
}
