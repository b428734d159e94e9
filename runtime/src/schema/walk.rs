//! Visiting every subschema of a schema node.
//!
//! `schemars::transform::transform_subschemas` skips `dependentSchemas`, `unevaluated*`,
//! `contentSchema` and others, so a transform built on it would leave whole branches of a
//! foreign schema untouched. Every recursive transform here uses [`transform_subschemas_tracked`]
//! (or [`for_each_subschema_mut`]) instead, which also keeps the pointer each transform records
//! its changes at.

use std::fmt::Write as _;

use schemars::Schema;
use schemars::transform::Transform;
use serde_json::Value;

use crate::report::Recorder;

/// How a keyword holds subschemas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    /// One schema.
    Single,
    /// An array of schemas.
    List,
    /// An object whose values are schemas.
    Map,
    /// `items`: one schema (2020-12) or an array of schemas (draft-07 tuples).
    SingleOrList,
}

/// Where a keyword keeps its subschemas; `None` for keywords without subschemas (`enum`,
/// `default`, `examples`… hold data, never schemas).
fn slot(keyword: &str) -> Option<Slot> {
    Some(match keyword {
        "additionalProperties"
        | "unevaluatedProperties"
        | "unevaluatedItems"
        | "additionalItems"
        | "propertyNames"
        | "contains"
        | "not"
        | "if"
        | "then"
        | "else"
        | "contentSchema" => Slot::Single,
        "allOf" | "anyOf" | "oneOf" | "prefixItems" => Slot::List,
        // `dependencies` (draft-07) mixes schemas and arrays of names; arrays are skipped below
        // because they are not schemas.
        "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas"
        | "dependencies" => Slot::Map,
        "items" => Slot::SingleOrList,
        _ => return None,
    })
}

/// The position of a subschema inside its parent: the keyword, and the property name or array
/// index below it when the keyword holds several.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Loc<'a> {
    /// The keyword holding the subschema (`properties`, `anyOf`, `items`…).
    pub keyword: &'a str,
    /// The entry under the keyword, if it holds several.
    pub child: Child<'a>,
}

/// The entry of a keyword that holds several subschemas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Child<'a> {
    /// The keyword holds exactly one schema.
    None,
    /// A key of a map of schemas (`properties/<name>`).
    Name(&'a str),
    /// An index into an array of schemas (`anyOf/<i>`).
    Index(usize),
}

impl Loc<'_> {
    /// Appends this location to a JSON Pointer (`/properties/city`), escaping `~` and `/`.
    pub(crate) fn push_to(&self, pointer: &mut String) {
        // Keywords never need escaping; this runs for every node every transform visits.
        pointer.push('/');
        pointer.push_str(self.keyword);
        match self.child {
            Child::None => {}
            Child::Name(name) => push_segment(pointer, name),
            Child::Index(i) if i < 10 => {
                pointer.push('/');
                pointer.push(char::from(b'0' + i as u8));
            }
            Child::Index(i) => {
                // Writing to a String cannot fail.
                let _ = write!(pointer, "/{i}");
            }
        }
    }
}

fn push_segment(pointer: &mut String, segment: &str) {
    pointer.push('/');
    // Nearly every segment needs no escaping: skip the two allocations `replace` would make.
    if segment.bytes().any(|b| b == b'~' || b == b'/') {
        pointer.push_str(&segment.replace('~', "~0").replace('/', "~1"));
    } else {
        pointer.push_str(segment);
    }
}

/// Gives a walk's pointer room for the depths schemas have, once: grown a segment at a time, it
/// would be copied several times over in every walk.
pub(crate) fn reserve_pointer(pointer: &mut String) {
    if pointer.capacity() == 0 {
        pointer.reserve(64);
    }
}

/// Calls `f` on every direct subschema of `schema` (in key order), with its location. Values
/// that are not schemas (numbers, strings, arrays of names) are skipped.
pub(crate) fn for_each_subschema_mut(schema: &mut Schema, mut f: impl FnMut(Loc<'_>, &mut Schema)) {
    let Some(node) = schema.as_object_mut() else {
        return;
    };
    for (key, value) in node.iter_mut() {
        let Some(slot) = slot(key) else { continue };
        let keyword = key.as_str();
        match (slot, value) {
            (Slot::List | Slot::SingleOrList, Value::Array(items)) => {
                for (i, item) in items.iter_mut().enumerate() {
                    if let Ok(sub) = <&mut Schema>::try_from(item) {
                        f(
                            Loc {
                                keyword,
                                child: Child::Index(i),
                            },
                            sub,
                        );
                    }
                }
            }
            (Slot::Single | Slot::SingleOrList, value) => {
                if let Ok(sub) = <&mut Schema>::try_from(value) {
                    f(
                        Loc {
                            keyword,
                            child: Child::None,
                        },
                        sub,
                    );
                }
            }
            (Slot::Map, Value::Object(entries)) => {
                for (name, entry) in entries.iter_mut() {
                    if let Ok(sub) = <&mut Schema>::try_from(entry) {
                        f(
                            Loc {
                                keyword,
                                child: Child::Name(name),
                            },
                            sub,
                        );
                    }
                }
            }
            _ => {}
        }
    }
}

/// Calls `f` on every direct subschema of `schema` (in key order), with its location.
pub(crate) fn for_each_subschema(schema: &Schema, mut f: impl FnMut(Loc<'_>, &Schema)) {
    let Some(node) = schema.as_object() else {
        return;
    };
    for (key, value) in node {
        let Some(slot) = slot(key) else { continue };
        let keyword = key.as_str();
        match (slot, value) {
            (Slot::List | Slot::SingleOrList, Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    if let Ok(sub) = <&Schema>::try_from(item) {
                        f(
                            Loc {
                                keyword,
                                child: Child::Index(i),
                            },
                            sub,
                        );
                    }
                }
            }
            (Slot::Single | Slot::SingleOrList, value) => {
                if let Ok(sub) = <&Schema>::try_from(value) {
                    f(
                        Loc {
                            keyword,
                            child: Child::None,
                        },
                        sub,
                    );
                }
            }
            (Slot::Map, Value::Object(entries)) => {
                for (name, entry) in entries {
                    if let Ok(sub) = <&Schema>::try_from(entry) {
                        f(
                            Loc {
                                keyword,
                                child: Child::Name(name),
                            },
                            sub,
                        );
                    }
                }
            }
            _ => {}
        }
    }
}

/// A transform that records what it changes, with where (see [`Recorder`]).
pub(crate) trait Recording: Transform {
    /// The transform's recorder, whose pointer names the node being visited.
    fn recorder(&mut self) -> &mut Recorder;
}

/// Implements [`Recording`] for transforms that keep their recorder in a field `rec`.
macro_rules! recording {
    ($($transform:ty),+ $(,)?) => {
        $(
            impl $crate::schema::walk::Recording for $transform {
                fn recorder(&mut self) -> &mut $crate::report::Recorder {
                    &mut self.rec
                }
            }
        )+
    };
}
pub(crate) use recording;

/// Applies `t` to every direct subschema of `schema`, at every subschema location of draft
/// 2020-12 (and draft-07's `definitions`, `dependencies`, `additionalItems`, array `items`),
/// keeping the pointer of `t`'s recorder in step.
pub(crate) fn transform_subschemas_tracked<T: Recording + ?Sized>(t: &mut T, schema: &mut Schema) {
    reserve_pointer(&mut t.recorder().pointer);
    for_each_subschema_mut(schema, |loc, sub| {
        let len = t.recorder().pointer.len();
        loc.push_to(&mut t.recorder().pointer);
        t.transform(sub);
        t.recorder().pointer.truncate(len);
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use schemars::json_schema;

    /// Records the pointer of every node visited.
    #[derive(Default)]
    struct Visits {
        rec: Recorder,
        seen: Vec<String>,
    }

    impl Transform for Visits {
        fn transform(&mut self, schema: &mut Schema) {
            self.seen.push(self.rec.pointer.clone());
            transform_subschemas_tracked(self, schema);
        }
    }

    impl Recording for Visits {
        fn recorder(&mut self) -> &mut Recorder {
            &mut self.rec
        }
    }

    #[test]
    fn visits_every_location() {
        let mut schema = json_schema!({
            "properties": {"a/b": {"items": {}}, "c": true},
            "patternProperties": {"^x": {}},
            "additionalProperties": {},
            "prefixItems": [{}, false],
            "items": [{}],
            "contains": {},
            "anyOf": [{}], "oneOf": [{}], "allOf": [{}],
            "not": {}, "if": {}, "then": {}, "else": {},
            "dependentSchemas": {"c": {}},
            "dependencies": {"c": ["a"], "d": {}},
            "propertyNames": {},
            "unevaluatedProperties": {}, "unevaluatedItems": {},
            "$defs": {"D": {}}, "definitions": {"E": {}},
            "contentSchema": {},
            "additionalItems": {},
            "enum": [{"type": "string"}],
            "default": {"properties": {}},
            "examples": [{}]
        });
        let mut v = Visits::default();
        v.transform(&mut schema);
        assert_eq!(
            v.seen,
            [
                "",
                "/properties/a~1b",
                "/properties/a~1b/items",
                "/properties/c",
                "/patternProperties/^x",
                "/additionalProperties",
                "/prefixItems/0",
                "/prefixItems/1",
                "/items/0",
                "/contains",
                "/anyOf/0",
                "/oneOf/0",
                "/allOf/0",
                "/not",
                "/if",
                "/then",
                "/else",
                "/dependentSchemas/c",
                "/dependencies/d",
                "/propertyNames",
                "/unevaluatedProperties",
                "/unevaluatedItems",
                "/$defs/D",
                "/definitions/E",
                "/contentSchema",
                "/additionalItems",
            ]
        );
    }

    #[test]
    fn odd_values_are_skipped() {
        let mut schema = json_schema!({
            "properties": 3, "anyOf": {"a": {}}, "items": "x", "not": [1]
        });
        let mut v = Visits::default();
        v.transform(&mut schema);
        assert_eq!(v.seen, [""]);
        let mut b = json_schema!(true);
        v.transform(&mut b);
    }

    #[test]
    fn read_only_walk_matches() {
        let schema = json_schema!({"properties": {"a": {}}, "items": {}});
        let mut seen = Vec::new();
        for_each_subschema(&schema, |loc, _| {
            let mut p = String::new();
            loc.push_to(&mut p);
            let name = match loc.child {
                Child::Name(name) => Some(name.to_owned()),
                _ => None,
            };
            seen.push((p, name));
        });
        assert_eq!(
            seen,
            [
                ("/properties/a".to_owned(), Some("a".to_owned())),
                ("/items".to_owned(), None)
            ]
        );
    }
}
