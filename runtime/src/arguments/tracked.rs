//! Deserialising a tool's arguments from a `serde_json::Value`, with the path to the value being
//! read kept only when asked: the same code reads the arguments on every call and, when they do
//! not deserialise, reads them again to say where. `serde_path_to_error` would do the second read
//! with a second instantiation of every argument type's `Deserialize`, which for a crate of 100
//! tools is a quarter of its build time; here it is a run-time switch on one instantiation.
//!
//! Everything is serde_json's own deserialiser for `&Value`, to which each method delegates, except
//! where a value holds others (objects, arrays, `Some`, newtypes): there the children are read
//! through this deserialiser too, so that their steps are known.

use std::cell::RefCell;

use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Error, Map, Value};

use crate::instance::{Step, pointer};

/// The path to the value being read, when tracking: each object or array being read pushes the
/// step to the child it reads, and pops it once the child has been read. A child that fails
/// leaves its steps, so after an error the path leads to the value at fault.
#[derive(Debug, Default)]
pub(crate) struct Track<'de>(RefCell<Vec<Step<'de>>>);

impl Track<'_> {
    /// The JSON Pointer of the value at fault.
    pub(crate) fn pointer(&self) -> String {
        pointer(&self.0.borrow())
    }
}

/// `value` as a serde deserialiser, tracking its path into `track` when there is one.
#[derive(Clone, Copy)]
pub(crate) struct Tracked<'de, 't> {
    value: &'de Value,
    track: Option<&'t Track<'de>>,
}

impl<'de, 't> Tracked<'de, 't> {
    pub(crate) fn new(value: &'de Value, track: Option<&'t Track<'de>>) -> Self {
        Tracked { value, track }
    }

    fn child(&self, value: &'de Value) -> Self {
        Tracked {
            value,
            track: self.track,
        }
    }
}

/// Where a map or sequence access keeps its place in the path.
#[derive(Clone, Copy)]
struct Place<'de, 't> {
    track: Option<&'t Track<'de>>,
    /// The length of the path at this object or array: a step pushed by a child whose error a
    /// visitor recovered from is cut off before the next child's.
    depth: usize,
}

impl<'de, 't> Place<'de, 't> {
    fn of(track: Option<&'t Track<'de>>) -> Self {
        let depth = track.map_or(0, |t| t.0.borrow().len());
        Place { track, depth }
    }

    /// Reads a child with its step on the path, taken off again when it was read.
    fn read<T: DeserializeSeed<'de>>(
        self,
        step: Step<'de>,
        seed: T,
        child: Tracked<'de, 't>,
    ) -> Result<T::Value, Error> {
        let Some(track) = self.track else {
            return seed.deserialize(child);
        };
        {
            let mut path = track.0.borrow_mut();
            path.truncate(self.depth);
            path.push(step);
        }
        let read = seed.deserialize(child);
        if read.is_ok() {
            track.0.borrow_mut().truncate(self.depth);
        }
        read
    }
}

/// What serde_json answers for a map or array the visitor did not read to the end.
fn check_all_read<T>(
    read: T,
    remaining: usize,
    len: usize,
    what: &'static str,
) -> Result<T, Error> {
    if remaining == 0 {
        Ok(read)
    } else {
        Err(de::Error::invalid_length(len, &what))
    }
}

impl<'de, 't> Tracked<'de, 't> {
    fn visit_array<V: Visitor<'de>>(
        self,
        items: &'de [Value],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let mut access = Items {
            items: items.iter().enumerate(),
            place: Place::of(self.track),
            parent: self,
        };
        let read = visitor.visit_seq(&mut access)?;
        check_all_read(
            read,
            access.items.len(),
            items.len(),
            "fewer elements in array",
        )
    }

    fn visit_object<V: Visitor<'de>>(
        self,
        map: &'de Map<String, Value>,
        visitor: V,
    ) -> Result<V::Value, Error> {
        let mut access = Members {
            members: map.iter(),
            value: None,
            place: Place::of(self.track),
            parent: self,
        };
        let read = visitor.visit_map(&mut access)?;
        check_all_read(
            read,
            access.members.len(),
            map.len(),
            "fewer elements in map",
        )
    }
}

/// Methods serde_json's `&Value` answers alone: nothing in them holds another value.
macro_rules! delegate {
    ($($method:ident),* $(,)?) => {
        $(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
                de::Deserializer::$method(self.value, visitor)
            }
        )*
    };
}

impl<'de> de::Deserializer<'de> for Tracked<'de, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Array(items) => self.visit_array(items, visitor),
            Value::Object(map) => self.visit_object(map, visitor),
            other => other.deserialize_any(visitor),
        }
    }

    delegate!(
        deserialize_bool,
        deserialize_i8,
        deserialize_i16,
        deserialize_i32,
        deserialize_i64,
        deserialize_i128,
        deserialize_u8,
        deserialize_u16,
        deserialize_u32,
        deserialize_u64,
        deserialize_u128,
        deserialize_f32,
        deserialize_f64,
        deserialize_char,
        deserialize_str,
        deserialize_string,
        deserialize_unit,
        deserialize_identifier,
        deserialize_ignored_any,
    );

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        // serde_json's private newtypes (`RawValue`) are its own business.
        if name.starts_with("$serde_json::") {
            return de::Deserializer::deserialize_newtype_struct(self.value, name, visitor);
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Array(items) => self.visit_array(items, visitor),
            other => other.deserialize_bytes(visitor),
        }
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_unit_struct(self.value, name, visitor)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Array(items) => self.visit_array(items, visitor),
            other => other.deserialize_seq(visitor),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Object(map) => self.visit_object(map, visitor),
            other => other.deserialize_map(visitor),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.value {
            Value::Array(items) => self.visit_array(items, visitor),
            Value::Object(map) => self.visit_object(map, visitor),
            other => other.deserialize_struct(name, fields, visitor),
        }
    }

    /// An enum's content is read by serde_json: the path ends at the enum.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_enum(self.value, name, variants, visitor)
    }
}

/// An array's items.
struct Items<'de, 't> {
    items: std::iter::Enumerate<std::slice::Iter<'de, Value>>,
    place: Place<'de, 't>,
    parent: Tracked<'de, 't>,
}

impl<'de> SeqAccess<'de> for Items<'de, '_> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        match self.items.next() {
            Some((index, item)) => self
                .place
                .read(Step::Index(index), seed, self.parent.child(item))
                .map(Some),
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

/// An object's members. Keys are read by serde_json (a key is read as its object would read it
/// from text: `"3"` for a `u32` key).
struct Members<'de, 't> {
    members: serde_json::map::Iter<'de>,
    value: Option<(&'de str, &'de Value)>,
    place: Place<'de, 't>,
    parent: Tracked<'de, 't>,
}

impl<'de> MapAccess<'de> for Members<'de, '_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        match self.members.next() {
            Some((key, value)) => {
                self.value = Some((key, value));
                seed.deserialize(Key(key)).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Error> {
        match self.value.take() {
            Some((key, value)) => self
                .place
                .read(Step::Key(key), seed, self.parent.child(value)),
            None => Err(de::Error::custom("value is missing")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.members.len())
    }
}

/// An object's key, read as serde_json reads keys: a string, or a number, boolean or unit
/// variant spelled as one.
struct Key<'de>(&'de str);

/// Key methods that read the key's text as JSON of that type, as serde_json does.
macro_rules! parsed_key {
    ($($method:ident),* $(,)?) => {
        $(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
                let Key(key) = self;
                // serde_json's text parser reads the number, and nothing may come before or
                // after it (not even whitespace).
                let starts_right = matches!(key.as_bytes().first(), Some(b'0'..=b'9' | b'-'));
                let ends_right = !key.ends_with(|c: char| c.is_ascii_whitespace());
                if !starts_right || !ends_right {
                    return Err(not_numeric());
                }
                let mut parser = serde_json::Deserializer::from_str(key);
                let read = de::Deserializer::$method(&mut parser, visitor)?;
                parser.end().map_err(|_| not_numeric())?;
                Ok(read)
            }
        )*
    };
}

/// serde_json's words for a key that is not the number its map's key type needs.
fn not_numeric() -> Error {
    de::Error::custom("invalid value: expected key to be a number in quotes")
}

impl<'de> de::Deserializer<'de> for Key<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_borrowed_str(self.0)
    }

    parsed_key!(
        deserialize_i8,
        deserialize_i16,
        deserialize_i32,
        deserialize_i64,
        deserialize_i128,
        deserialize_u8,
        deserialize_u16,
        deserialize_u32,
        deserialize_u64,
        deserialize_u128,
        deserialize_f32,
        deserialize_f64,
    );

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            "true" => visitor.visit_bool(true),
            "false" => visitor.visit_bool(false),
            other => Err(de::Error::invalid_type(
                de::Unexpected::Str(other),
                &visitor,
            )),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_enum(self.0.into_deserializer(), name, variants, visitor)
    }

    serde::forward_to_deserialize_any! {
        char str string bytes byte_buf unit unit_struct seq tuple tuple_struct map struct
        identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashMap};
    use std::fmt::Debug;

    use serde::Deserialize;
    use serde::de::DeserializeOwned;
    use serde_json::json;

    use super::*;

    #[derive(Debug, PartialEq, Deserialize)]
    struct Item {
        n: u8,
        tags: Option<Vec<String>>,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "snake_case")]
    enum Shape {
        Dot,
        Circle { radius: f32 },
        Pair(i8, i8),
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(untagged)]
    enum Loose {
        Number(u64),
        Words { words: Vec<String> },
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(tag = "kind")]
    enum Tagged {
        A { a: bool },
        B,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    struct Newtype(Vec<Item>);

    #[derive(Debug, PartialEq, Deserialize)]
    struct Flat {
        id: String,
        #[serde(flatten)]
        rest: BTreeMap<String, Value>,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Args {
        items: Vec<Item>,
        shape: Option<Shape>,
        by_number: Option<HashMap<u32, String>>,
        flags: Option<BTreeMap<String, bool>>,
        pair: Option<(u8, String)>,
        loose: Option<Loose>,
        tagged: Option<Tagged>,
        newtype: Option<Newtype>,
        flat: Option<Flat>,
        #[serde(default)]
        unit: (),
    }

    /// Reads `value` as `T` through serde_json's `&Value` and through [`Tracked`], tracking and
    /// not: the same value, or errors with the same message.
    fn same<T: DeserializeOwned + PartialEq + Debug>(value: &Value) -> Option<String> {
        let plain = T::deserialize(value).map_err(|e| e.to_string());
        let untracked = T::deserialize(Tracked::new(value, None)).map_err(|e| e.to_string());
        let track = Track::default();
        let tracked = T::deserialize(Tracked::new(value, Some(&track))).map_err(|e| e.to_string());
        assert_eq!(plain, untracked, "{value}");
        assert_eq!(plain, tracked, "{value}");
        plain.err().map(|_| track.pointer())
    }

    #[test]
    fn reads_as_serde_json_reads_a_value() {
        let good = json!({
            "items": [{"n": 1, "tags": ["a"]}, {"n": 255, "tags": null}],
            "shape": {"circle": {"radius": 2.5}},
            "by_number": {"3": "three", "0": "zero"},
            "flags": {"x": true},
            "pair": [7, "seven"],
            "loose": {"words": ["w"]},
            "tagged": {"kind": "A", "a": false},
            "newtype": [{"n": 3}],
            "flat": {"id": "i", "more": [1, {"b": null}]},
            "unit": null,
        });
        assert_eq!(same::<Args>(&good), None);
        for shape in [json!("dot"), json!({"pair": [-1, 1]})] {
            assert_eq!(same::<Args>(&json!({"items": [], "shape": shape})), None);
        }
        assert_eq!(same::<Args>(&json!({"items": [], "loose": 12})), None);
        assert_eq!(
            same::<Args>(&json!({"items": [], "tagged": {"kind": "B"}})),
            None
        );
        assert_eq!(
            same::<Item>(&json!([1, ["t"]])),
            None,
            "a struct from an array"
        );
    }

    #[test]
    fn errors_say_the_same_and_where() {
        for (value, pointer) in [
            (json!({"items": [{"n": 1}, {"n": 256}]}), "/items/1/n"),
            (
                json!({"items": [{"n": 1, "tags": ["a", 2]}]}),
                "/items/0/tags/1",
            ),
            (json!({"items": [], "by_number": {"x": "?"}}), "/by_number"),
            (json!({"items": [], "by_number": {"3 ": "?"}}), "/by_number"),
            (json!({"items": [], "by_number": {"3": 3}}), "/by_number/3"),
            (json!({"items": [], "pair": [1, "a", 3]}), "/pair"),
            (json!({"items": [], "pair": [1, 2]}), "/pair/1"),
            (
                json!({"items": [], "shape": {"circle": {"radius": "big"}}}),
                "/shape",
            ),
            (json!({"items": [], "shape": "square"}), "/shape"),
            (json!({"items": [], "loose": "neither"}), "/loose"),
            (json!({"items": [], "newtype": [{"n": -1}]}), "/newtype/0/n"),
            (json!({"items": [], "surplus": 1}), ""),
            (json!({"items": {}}), "/items"),
            (json!({}), ""),
            (json!("text"), ""),
        ] {
            assert_eq!(same::<Args>(&value).as_deref(), Some(pointer), "{value}");
        }
    }

    #[test]
    fn keys_read_as_serde_json_reads_them() {
        for key in [
            "1",
            "-1",
            "01",
            "1.5",
            "true",
            "",
            " 1",
            "1 ",
            "18446744073709551616",
        ] {
            let value = json!({ key: 0 });
            same::<HashMap<u64, u8>>(&value);
            same::<HashMap<i8, u8>>(&value);
            same::<HashMap<bool, u8>>(&value);
            same::<HashMap<String, u8>>(&value);
            same::<BTreeMap<u16, u8>>(&value);
        }
    }
}
