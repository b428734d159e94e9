//! What a `#[tool]`'s generated argument struct is read with: the pieces of serde's own derived
//! `Deserialize` for a struct of named fields that do not depend on the struct, written once here.
//!
//! serde's derive writes, for every struct, a field enum, a visitor of field names and a visitor
//! of the struct that also reads it from a sequence: about 13 kB of code a tool, instantiated for
//! every deserialiser, which made a tool's share of a touch rebuild a quarter longer than rmcp's.
//! The macro writes only the struct's own part (its fields' slots and how a missing one is
//! filled); the names are matched, a field given twice is refused and a missing one is read here,
//! with serde's own errors, so that what a model is told does not change.

use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, MapAccess, Visitor};

/// Reads a member's key as the index of the field it names, among `names` (the wire names in
/// the struct's order); a name that is not there is refused, as `deny_unknown_fields` does.
#[derive(Clone, Copy)]
pub struct Field(pub &'static [&'static str]);

impl<'de> DeserializeSeed<'de> for Field {
    type Value = usize;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<usize, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for Field {
    type Value = usize;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("field identifier")
    }

    fn visit_u64<E: de::Error>(self, index: u64) -> Result<usize, E> {
        match usize::try_from(index) {
            Ok(index) if index < self.0.len() => Ok(index),
            _ => Err(E::invalid_value(
                de::Unexpected::Unsigned(index),
                &FieldIndex(self.0.len()),
            )),
        }
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<usize, E> {
        self.0
            .iter()
            .position(|field| *field == name)
            .ok_or_else(|| E::unknown_field(name, self.0))
    }

    fn visit_bytes<E: de::Error>(self, name: &[u8]) -> Result<usize, E> {
        match std::str::from_utf8(name) {
            Ok(name) => self.visit_str(name),
            Err(_) => Err(E::unknown_field(&String::from_utf8_lossy(name), self.0)),
        }
    }
}

/// serde's words for a field index out of range.
struct FieldIndex(usize);

impl de::Expected for FieldIndex {
    fn fmt(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        write!(formatter, "field index 0 <= i < {}", self.0)
    }
}

/// The index of the next member's field, or `None` after the last member. Never inlined, as
/// `read` and `missing`: each is one function per deserialiser (and field type) that every
/// tool's reading calls, not code copied into each tool.
#[inline(never)]
pub fn next<'de, A: MapAccess<'de>>(
    map: &mut A,
    names: &'static [&'static str],
) -> Result<Option<usize>, A::Error> {
    map.next_key_seed(Field(names))
}

/// Reads the value of the field `name` into its slot; a field given twice is refused.
#[inline(never)]
pub fn read<'de, A: MapAccess<'de>, T: Deserialize<'de>>(
    map: &mut A,
    slot: &mut Option<T>,
    name: &'static str,
) -> Result<(), A::Error> {
    if slot.is_some() {
        return Err(de::Error::duplicate_field(name));
    }
    *slot = Some(map.next_value()?);
    Ok(())
}

/// The value of a field that was not given and has no default: `None` for an `Option`, as
/// serde reads one, and otherwise serde's "missing field" error.
#[inline(never)]
pub fn missing<'de, T: Deserialize<'de>, E: de::Error>(name: &'static str) -> Result<T, E> {
    T::deserialize(Missing(name, PhantomData))
}

/// A deserialiser that has nothing: an `Option` reads it as `None`, anything else fails with
/// "missing field".
struct Missing<E>(&'static str, PhantomData<E>);

impl<'de, E: de::Error> de::Deserializer<'de> for Missing<E> {
    type Error = E;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, E> {
        Err(E::missing_field(self.0))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        visitor.visit_none()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier
        ignored_any
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    /// The struct the macro writes for `fn f(query: String, limit: u32 = 20, note: Option<bool>)`,
    /// beside the one serde derives for it, to compare what each reads and says.
    struct Lean {
        query: String,
        limit: u32,
        note: Option<bool>,
    }

    const FIELDS: &[&str] = &["query", "limit", "note"];

    impl<'de> Deserialize<'de> for Lean {
        fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct Fields;
            impl<'de> Visitor<'de> for Fields {
                type Value = Lean;
                fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                    f.write_str("struct Derived")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Lean, A::Error> {
                    let (mut query, mut limit, mut note) = (None, None, None);
                    while let Some(index) = next(&mut map, FIELDS)? {
                        match index {
                            0 => read(&mut map, &mut query, "query")?,
                            1 => read(&mut map, &mut limit, "limit")?,
                            _ => read(&mut map, &mut note, "note")?,
                        }
                    }
                    Ok(Lean {
                        query: match query {
                            Some(value) => value,
                            None => missing("query")?,
                        },
                        limit: limit.unwrap_or(20),
                        note: match note {
                            Some(value) => value,
                            None => missing("note")?,
                        },
                    })
                }
            }
            deserializer.deserialize_struct("Derived", FIELDS, Fields)
        }
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Derived {
        query: String,
        #[serde(default = "twenty")]
        limit: u32,
        note: Option<bool>,
    }

    fn twenty() -> u32 {
        20
    }

    fn both(value: Value) -> (Result<String, String>, Result<String, String>) {
        let lean = serde_json::from_value::<Lean>(value.clone())
            .map(|a| format!("{} {} {:?}", a.query, a.limit, a.note))
            .map_err(|e| e.to_string());
        let derived = serde_json::from_value::<Derived>(value)
            .map(|a| format!("{} {} {:?}", a.query, a.limit, a.note))
            .map_err(|e| e.to_string());
        (lean, derived)
    }

    #[test]
    fn reads_and_refuses_as_serde_derive_does() {
        for value in [
            json!({"query": "q"}),
            json!({"query": "q", "limit": 3, "note": true}),
            json!({"query": "q", "note": null}),
            json!({"limit": 3}),
            json!({"query": "q", "extra": 1}),
            json!({"query": 5}),
            json!({"query": "q", "limit": -1}),
            json!("text"),
            json!(null),
            json!({}),
        ] {
            let (lean, derived) = both(value.clone());
            assert_eq!(lean, derived, "{value}");
        }
    }

    #[test]
    fn a_field_given_twice_is_refused_as_serde_derive_does() {
        let text = r#"{"query": "a", "query": "b"}"#;
        let lean = serde_json::from_str::<Lean>(text)
            .err()
            .map(|e| e.to_string());
        let derived = serde_json::from_str::<Derived>(text)
            .err()
            .map(|e| e.to_string());
        assert_eq!(lean, derived);
        assert!(lean.unwrap().starts_with("duplicate field `query`"));
    }
}
