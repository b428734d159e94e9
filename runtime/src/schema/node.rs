//! Reading and editing one schema node without disturbing its key order.
//!
//! `serde_json::Map::remove` is a *swap* remove under `preserve_order`: it moves the last key into
//! the hole. Declaration order is part of what a model reads, so every removal in this module
//! tree goes through [`take`], and renames keep the key where it was.

use serde_json::{Map, Value};

/// How many keys a node may have for [`get`] to compare them one by one rather than look `key`
/// up by its hash.
const SCANNED: usize = 8;

/// The value of `key` in a node. A schema node has a handful of keys, and comparing them costs
/// far less than hashing `key` (serde_json's ordered map hashes every lookup with SipHash), which
/// every transform would otherwise pay several times on every node; a larger map (a `properties`
/// of many names) is looked up by hash. Keys are unique, so both find the same entry.
pub(crate) fn get<'a>(node: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    if node.len() > SCANNED {
        return node.get(key);
    }
    node.iter().find_map(|(k, v)| (k == key).then_some(v))
}

/// [`get`], mutably.
pub(crate) fn get_mut<'a>(node: &'a mut Map<String, Value>, key: &str) -> Option<&'a mut Value> {
    if node.len() > SCANNED {
        return node.get_mut(key);
    }
    node.iter_mut().find_map(|(k, v)| (k == key).then_some(v))
}

/// Whether a node has `key` (see [`get`]).
pub(crate) fn has(node: &Map<String, Value>, key: &str) -> bool {
    get(node, key).is_some()
}

/// Removes `key`, keeping the order of the other keys.
pub(crate) fn take(node: &mut Map<String, Value>, key: &str) -> Option<Value> {
    // Most keys asked for are not there: looking costs less than the hashed removal.
    if !has(node, key) {
        return None;
    }
    node.shift_remove(key)
}

/// Renames `from` to `to` in place (same position). Does nothing and returns `false` when `from`
/// is missing or `to` already exists.
pub(crate) fn rename(node: &mut Map<String, Value>, from: &str, to: &str) -> bool {
    if node.contains_key(to) {
        return false;
    }
    let Some(index) = node.keys().position(|k| k == from) else {
        return false;
    };
    let Some(value) = node.shift_remove(from) else {
        return false;
    };
    node.shift_insert(index, to.to_owned(), value);
    true
}

/// Inserts `key` right after `after` (or at the end when `after` is missing); an existing `key`
/// is moved there.
pub(crate) fn insert_after(node: &mut Map<String, Value>, after: &str, key: &str, value: Value) {
    take(node, key);
    match node.keys().position(|k| k == after) {
        Some(index) => {
            node.shift_insert(index + 1, key.to_owned(), value);
        }
        None => {
            node.insert(key.to_owned(), value);
        }
    }
}

/// The type names of a node's `type` keyword: one for a string, the string members of an array,
/// none when it is missing or odd.
pub(crate) fn type_names(node: &Map<String, Value>) -> Vec<&str> {
    match get(node, "type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Whether the node's `type` names `ty` (alone or in an array).
pub(crate) fn has_type(node: &Map<String, Value>, ty: &str) -> bool {
    // What `type_names(node).contains(&ty)` says, without collecting the names: this runs
    // several times on every node of every rendering.
    match get(node, "type") {
        Some(Value::String(t)) => t == ty,
        Some(Value::Array(ts)) => ts.iter().any(|t| t.as_str() == Some(ty)),
        _ => false,
    }
}

/// Whether the node describes objects: its `type` names `object`, or it declares `properties`.
pub(crate) fn is_object_node(node: &Map<String, Value>) -> bool {
    has_type(node, "object") || get(node, "properties").is_some_and(Value::is_object)
}

/// The JSON Schema type name of a JSON value (`integer` for whole numbers).
pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The names of a node's `properties`, in declaration order.
pub(crate) fn property_names(node: &Map<String, Value>) -> Vec<String> {
    get(node, "properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

/// The string members of a node's `required`.
pub(crate) fn required_names(node: &Map<String, Value>) -> Vec<String> {
    get(node, "required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// Whether a schema value accepts JSON `null` in an obvious way: `true`, `{}` (no constraint),
/// a `type` naming `null`, an `enum` containing `null`, `const: null`, or an `anyOf`/`oneOf`
/// with such a branch. Conservative: `false` when unsure.
pub(crate) fn accepts_null(value: &Value) -> bool {
    let node = match value {
        Value::Bool(b) => return *b,
        Value::Object(node) => node,
        _ => return false,
    };
    if has_type(node, "null")
        || get(node, "const") == Some(&Value::Null)
        || get(node, "enum")
            .and_then(Value::as_array)
            .is_some_and(|e| e.contains(&Value::Null))
    {
        return true;
    }
    let branch_accepts = |key: &str| {
        get(node, key)
            .and_then(Value::as_array)
            .is_some_and(|bs| bs.iter().any(accepts_null))
    };
    if branch_accepts("anyOf") || branch_accepts("oneOf") {
        return true;
    }
    !node.keys().any(|k| CONSTRAINING.contains(&k.as_str()))
}

/// Keywords that say nothing about which values are accepted: they describe (`description`,
/// `title`, `default`, `examples`…) or address schema authors (`$comment`).
pub(crate) const ANNOTATIONS: &[&str] = &[
    "description",
    "title",
    "default",
    "examples",
    "example",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// Keywords a node's `description` is read before: what bounds its values (a format, ranges,
/// lengths, a pattern, counts) and the annotations that follow a description (`default`,
/// `examples`). A property reads `type`, its shape (`enum`, `items`…), `description`, then these.
pub(crate) const AFTER_DESCRIPTION: &[&str] = &[
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minContains",
    "maxContains",
    "minProperties",
    "maxProperties",
    "default",
    "examples",
];

/// Where a `description` the node does not have yet belongs (see [`AFTER_DESCRIPTION`]).
pub(crate) fn description_index(node: &Map<String, Value>) -> usize {
    node.keys()
        .position(|k| AFTER_DESCRIPTION.contains(&k.as_str()))
        .unwrap_or(node.len())
}

/// Moves the node's `title` and `description` (in that order) before the keywords a description
/// is read before, when they come after one of them.
pub(crate) fn place_description(node: &mut Map<String, Value>) {
    for key in ["title", "description"] {
        let Some(at) = node.keys().position(|k| k == key) else {
            continue;
        };
        let before = description_index(node);
        if before < at
            && let Some(value) = node.shift_remove(key)
        {
            node.shift_insert(before, key.to_owned(), value);
        }
    }
}

/// Keywords that restrict which JSON types a value may have; a node with none of them accepts
/// values of every type.
pub(crate) const CONSTRAINING: &[&str] = &[
    "type", "enum", "const", "anyOf", "oneOf", "allOf", "$ref", "not", "if",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::test_util::map;
    use serde_json::json;

    #[test]
    fn take_keeps_order() {
        let mut m = map(json!({"a": 1, "b": 2, "c": 3}));
        take(&mut m, "a");
        assert_eq!(m.keys().collect::<Vec<_>>(), ["b", "c"]);
    }

    #[test]
    fn rename_keeps_position_and_refuses_clobbering() {
        let mut m = map(json!({"a": 1, "const": 2, "c": 3}));
        assert!(rename(&mut m, "const", "enum"));
        assert_eq!(m.keys().collect::<Vec<_>>(), ["a", "enum", "c"]);
        assert!(!rename(&mut m, "a", "c"));
        assert!(!rename(&mut m, "missing", "x"));
    }

    #[test]
    fn descriptions_are_read_before_bounds() {
        // schemars' order for a `u32` with a doc and `range(min = 1, max = 14)`.
        let mut m = map(
            json!({"type": "integer", "format": "uint32", "minimum": 1, "description": "d", "maximum": 14}),
        );
        place_description(&mut m);
        assert_eq!(
            m.keys().collect::<Vec<_>>(),
            ["type", "description", "format", "minimum", "maximum"]
        );
        let mut m = map(
            json!({"type": "string", "enum": ["a"], "default": "a", "title": "T", "description": "d"}),
        );
        place_description(&mut m);
        assert_eq!(
            m.keys().collect::<Vec<_>>(),
            ["type", "enum", "title", "description", "default"]
        );
        // Already in place: unchanged.
        let mut m = map(json!({"type": "string", "description": "d", "minLength": 1}));
        place_description(&mut m);
        assert_eq!(
            m.keys().collect::<Vec<_>>(),
            ["type", "description", "minLength"]
        );
        assert_eq!(description_index(&map(json!({"anyOf": []}))), 1);
    }

    #[test]
    fn insert_after_places_key() {
        let mut m = map(json!({"properties": {}, "required": []}));
        insert_after(&mut m, "properties", "additionalProperties", json!(false));
        assert_eq!(
            m.keys().collect::<Vec<_>>(),
            ["properties", "additionalProperties", "required"]
        );
        insert_after(&mut m, "missing", "x", json!(1));
        assert_eq!(m.keys().next_back().map(String::as_str), Some("x"));
    }

    #[test]
    fn type_names_handles_odd_shapes() {
        assert_eq!(type_names(&map(json!({"type": "string"}))), ["string"]);
        assert_eq!(
            type_names(&map(json!({"type": ["string", 3, "null"]}))),
            ["string", "null"]
        );
        assert!(type_names(&map(json!({"type": 3}))).is_empty());
    }

    #[test]
    fn accepts_null_cases() {
        assert!(accepts_null(&json!(true)));
        assert!(!accepts_null(&json!(false)));
        assert!(accepts_null(&json!({})));
        assert!(accepts_null(&json!({"description": "x"})));
        assert!(accepts_null(&json!({"type": ["integer", "null"]})));
        assert!(accepts_null(
            &json!({"anyOf": [{"type": "string"}, {"type": "null"}]})
        ));
        assert!(accepts_null(&json!({"enum": ["a", null]})));
        assert!(!accepts_null(&json!({"type": "string"})));
        assert!(!accepts_null(&json!({"$ref": "#/$defs/A"})));
        assert!(!accepts_null(&json!(3)));
    }
}
