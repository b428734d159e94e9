//! `RepairShapes`: schemas valid in JSON Schema that providers refuse, given a form they take.
//!
//! MCP servers send them every day, and each one makes OpenAI or Gemini refuse the whole request:
//! an `array` without `items` (OpenAI: "array schema missing items"; Gemini: "items: missing
//! field"), `properties` or `required` on a node that is not an object (Gemini), and a
//! `required` naming a property that is not declared (Gemini; and a closed object could never
//! satisfy it). Each repair keeps what the schema accepts as far as the target can say it, and
//! is recorded.

use schemars::Schema;
use schemars::transform::Transform;
use serde_json::{Map, Value};

use super::node::{has_type, take, type_names};
use super::walk::{recording, transform_subschemas_tracked};
use crate::report::{ChangeKind, Recorder};

/// Gives every array `items` (`{}`: any item, which is what a missing `items` means), drops
/// `properties`/`required`/`additionalProperties` from nodes whose `type` rules out objects,
/// and drops from `required` the names its object does not declare when the object says no
/// other keys may appear.
#[derive(Debug, Clone, Default)]
pub(crate) struct RepairShapes {
    pub(crate) rec: Recorder,
}

recording!(RepairShapes);

impl Transform for RepairShapes {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(node) = schema.as_object_mut() {
            repair(node, &mut self.rec);
        }
        transform_subschemas_tracked(self, schema);
    }
}

/// Keywords that only say something about objects.
const OBJECT_KEYWORDS: &[&str] = &["properties", "required", "additionalProperties"];

/// Whether a node has something [`RepairShapes`] repairs: one pass over its few keys, so that
/// the schemas that need nothing (nearly all) cost no hashed lookups.
pub(crate) fn needs_repair(node: &Map<String, Value>) -> bool {
    let (mut array, mut object, mut typed, mut items) = (false, false, false, false);
    let (mut object_keywords, mut required, mut properties) = (false, None, None);
    for (key, value) in node {
        match key.as_str() {
            "type" => {
                typed = true;
                let mut each = |t: &str| {
                    array |= t == "array";
                    object |= t == "object";
                };
                match value {
                    Value::String(t) => each(t),
                    Value::Array(ts) => ts.iter().filter_map(Value::as_str).for_each(each),
                    _ => {}
                }
            }
            "items" | "prefixItems" => items = true,
            "required" => {
                object_keywords = true;
                required = value.as_array();
            }
            "properties" => {
                object_keywords = true;
                properties = value.as_object();
            }
            "additionalProperties" => object_keywords = true,
            _ => {}
        }
    }
    if array && !items || typed && !object && object_keywords {
        return true;
    }
    required.is_some_and(|names| {
        names
            .iter()
            .filter_map(Value::as_str)
            .any(|n| properties.is_none_or(|p| !p.contains_key(n)))
    })
}

fn repair(node: &mut Map<String, Value>, rec: &mut Recorder) {
    if !needs_repair(node) {
        return;
    }
    let types: Vec<String> = type_names(node).into_iter().map(str::to_owned).collect();
    if has_type(node, "array") && !node.contains_key("items") && !node.contains_key("prefixItems") {
        node.insert("items".to_owned(), Value::Object(Map::new()));
        rec.record(ChangeKind::Added {
            keyword: "items".to_owned(),
            why: "`{}` (any item): an array without `items` accepts items of any type, which \
                  the target wants said"
                .to_owned(),
        });
    }
    if !types.is_empty() && !types.iter().any(|t| t == "object") {
        let shown = types.join(" or ");
        for keyword in OBJECT_KEYWORDS {
            if take(node, keyword).is_some() {
                rec.record(ChangeKind::Removed {
                    keyword: (*keyword).to_owned(),
                    why: format!(
                        "it only applies to objects, and this node is a {shown}: it never \
                         constrained anything"
                    ),
                });
            }
        }
        return;
    }
    declare_required(node, rec);
}

/// The names `required` lists that `properties` does not declare: where other keys may appear
/// (no `additionalProperties: false`), each is a parameter of any value and is declared so
/// (`{}`), which Gemini needs; where no other key may appear, no argument could satisfy them,
/// and they are dropped.
pub(crate) fn declare_required(node: &mut Map<String, Value>, rec: &mut Recorder) {
    let Some(Value::Array(required)) = node.get("required") else {
        return;
    };
    let declared = |name: &str| {
        node.get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| p.contains_key(name))
    };
    let undeclared: Vec<String> = required
        .iter()
        .filter_map(Value::as_str)
        .filter(|name| !declared(name))
        .map(str::to_owned)
        .collect();
    if undeclared.is_empty() {
        return;
    }
    let closed = node.get("additionalProperties") == Some(&Value::Bool(false))
        && !node.contains_key("patternProperties");
    if closed {
        if let Some(Value::Array(required)) = node.get_mut("required") {
            required.retain(|name| {
                name.as_str()
                    .is_none_or(|n| !undeclared.iter().any(|u| u == n))
            });
        }
        for name in undeclared {
            rec.record(ChangeKind::Removed {
                keyword: format!("required/{name}"),
                why: format!(
                    "`{name}` is not a declared property and no other key may appear, so no call \
                     could give it"
                ),
            });
        }
        return;
    }
    let properties = node
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(properties) = properties {
        for name in &undeclared {
            properties.insert(name.clone(), Value::Object(Map::new()));
        }
    }
    for name in undeclared {
        rec.record(ChangeKind::Added {
            keyword: format!("properties/{name}"),
            why: format!("`{{}}` (any value): `{name}` is required but was not declared"),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::test_util::check;
    use schemars::json_schema;

    #[test]
    fn arrays_get_items() {
        let t = check(
            RepairShapes::default(),
            json_schema!({"type": "object", "properties": {
                "a": {"type": "array"},
                "b": {"type": ["array", "null"], "description": "Maybe."},
                "c": {"type": "array", "items": {"type": "string"}},
                "d": {"type": "array", "prefixItems": [{"type": "string"}]},
                "e": {"type": "array", "items": {"type": "array"}}
            }}),
            json_schema!({"type": "object", "properties": {
                "a": {"type": "array", "items": {}},
                "b": {"type": ["array", "null"], "description": "Maybe.", "items": {}},
                "c": {"type": "array", "items": {"type": "string"}},
                "d": {"type": "array", "prefixItems": [{"type": "string"}]},
                "e": {"type": "array", "items": {"type": "array", "items": {}}}
            }}),
        );
        let at: Vec<&str> = t.rec.changes().iter().map(|c| c.pointer.as_str()).collect();
        assert_eq!(
            at,
            ["/properties/a", "/properties/b", "/properties/e/items"]
        );
    }

    #[test]
    fn object_keywords_leave_non_objects() {
        let t = check(
            RepairShapes::default(),
            json_schema!({"type": "object", "properties": {
                "s": {"type": "string", "properties": {"x": {}}, "required": ["x"]},
                "o": {"type": ["object", "null"], "properties": {"x": {}}},
                "u": {"properties": {"x": {}}}
            }}),
            json_schema!({"type": "object", "properties": {
                "s": {"type": "string"},
                "o": {"type": ["object", "null"], "properties": {"x": {}}},
                "u": {"properties": {"x": {}}}
            }}),
        );
        assert_eq!(t.rec.changes().len(), 2);
        assert!(
            t.rec.changes()[0]
                .to_string()
                .contains("this node is a string")
        );
    }

    #[test]
    fn undeclared_required_names_are_declared_or_dropped_when_no_other_key_may_appear() {
        let t = check(
            RepairShapes::default(),
            json_schema!({"type": "object", "properties": {
                "closed": {"type": "object", "properties": {"a": {}}, "required": ["a", "ghost"], "additionalProperties": false},
                "implicit": {"type": "object", "properties": {"a": {}}, "required": ["ghost"]},
                "open": {"type": "object", "properties": {"a": {}}, "required": ["b"], "additionalProperties": true},
                "patterns": {"type": "object", "properties": {}, "required": ["x-a"], "patternProperties": {"^x-": {}}}
            }}),
            json_schema!({"type": "object", "properties": {
                "closed": {"type": "object", "properties": {"a": {}}, "required": ["a"], "additionalProperties": false},
                "implicit": {"type": "object", "properties": {"a": {}, "ghost": {}}, "required": ["ghost"]},
                "open": {"type": "object", "properties": {"a": {}, "b": {}}, "required": ["b"], "additionalProperties": true},
                "patterns": {"type": "object", "properties": {"x-a": {}}, "required": ["x-a"], "patternProperties": {"^x-": {}}}
            }}),
        );
        assert_eq!(t.rec.changes().len(), 4);
        assert_eq!(t.rec.changes()[0].pointer, "/properties/closed");
        check(
            RepairShapes::default(),
            json_schema!(true),
            json_schema!(true),
        );
    }
}
