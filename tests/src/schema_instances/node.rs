//! Reading a schema node: local `$ref`s resolved against the root, the JSON types it allows,
//! and the intersection of a node with one of its branches (how `$ref` siblings, `allOf`
//! branches and the chosen `anyOf`/`oneOf` branch combine).

use std::borrow::Cow;

use serde_json::{Map, Value, json};

/// Keywords beside a `$ref` that only annotate (the target alone describes the value).
const ANNOTATIONS: &[&str] = &[
    "$ref",
    "description",
    "title",
    "default",
    "examples",
    "$comment",
];

/// The node `schema` points to after following local `$ref`s (`#`, `#/$defs/X`), its
/// constraining siblings merged in (draft 2020-12 applies both), at most 32 references deep.
/// Borrowed unless something had to be merged.
pub fn resolved<'a>(root: &'a Value, schema: &'a Value) -> Cow<'a, Value> {
    let mut current: Cow<'a, Value> = Cow::Borrowed(schema);
    for _ in 0..32 {
        let Some(reference) = current.get("$ref").and_then(Value::as_str) else {
            return current;
        };
        let target = match reference {
            "#" => root,
            other => match other.strip_prefix('#').and_then(|p| root.pointer(p)) {
                Some(target) => target,
                None => panic!("the schema has a `$ref` to `{reference}`, which is not in it"),
            },
        };
        let constraining = current
            .as_object()
            .is_some_and(|o| o.keys().any(|k| !ANNOTATIONS.contains(&k.as_str())));
        current = if constraining {
            let mut siblings = current.as_object().cloned().unwrap_or_default();
            siblings.remove("$ref");
            Cow::Owned(intersect(target, &Value::Object(siblings)))
        } else {
            Cow::Borrowed(target)
        };
    }
    panic!("more than 32 `$ref`s in a row at {schema}")
}

/// The types a node allows by its `type` keyword (`None`: not said).
pub fn declared_types(schema: &Value) -> Option<Vec<String>> {
    match schema.get("type")? {
        Value::String(t) => Some(vec![t.clone()]),
        Value::Array(ts) => Some(
            ts.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
        ),
        _ => None,
    }
}

/// The JSON type of a value as JSON Schema names it (`integer` for integral numbers).
pub fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(n) if n.as_f64().is_some_and(|f| f.fract() == 0.0) => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Whether `value` is of the JSON Schema type `ty`.
pub fn has_type(value: &Value, ty: &str) -> bool {
    match ty {
        "number" => value.is_number(),
        other => json_type(value) == other,
    }
}

/// The intersection of two schema nodes, as far as generating and comparing need it:
/// properties and `required` united (a property in both gets an `allOf` of its two schemas),
/// types and enums intersected, the tighter of two bounds, anything else from `a` unless only
/// `b` has it. Boolean schemas: `true` is neutral.
pub fn intersect(a: &Value, b: &Value) -> Value {
    let (a, b) = match (a, b) {
        (Value::Bool(true), other) | (other, Value::Bool(true)) => return other.clone(),
        (Value::Bool(false), _) | (_, Value::Bool(false)) => return Value::Bool(false),
        (Value::Object(a), Value::Object(b)) => (a, b),
        _ => return a.clone(),
    };
    let mut out: Map<String, Value> = a.clone();
    for (key, value) in b {
        let Some(mine) = out.get(key).cloned() else {
            out.insert(key.clone(), value.clone());
            continue;
        };
        let merged = match key.as_str() {
            "properties" => {
                let mut properties = mine.as_object().cloned().unwrap_or_default();
                for (name, schema) in value.as_object().into_iter().flatten() {
                    let merged = match properties.get(name) {
                        Some(existing) if existing != schema => {
                            json!({"allOf": [existing, schema]})
                        }
                        _ => schema.clone(),
                    };
                    properties.insert(name.clone(), merged);
                }
                Value::Object(properties)
            }
            "required" => {
                let mut required = mine.as_array().cloned().unwrap_or_default();
                for name in value.as_array().into_iter().flatten() {
                    if !required.contains(name) {
                        required.push(name.clone());
                    }
                }
                Value::Array(required)
            }
            "type" => {
                let theirs = declared_types(&Value::Object(b.clone())).unwrap_or_default();
                let common: Vec<Value> = declared_types(&Value::Object(a.clone()))
                    .unwrap_or_default()
                    .into_iter()
                    .filter_map(|t| {
                        if theirs.contains(&t) {
                            Some(t)
                        } else if (t == "integer" && theirs.iter().any(|x| x == "number"))
                            || (t == "number" && theirs.iter().any(|x| x == "integer"))
                        {
                            Some("integer".to_owned())
                        } else {
                            None
                        }
                    })
                    .map(Value::String)
                    .collect();
                match common.len() {
                    1 => common[0].clone(),
                    _ => Value::Array(common),
                }
            }
            "enum" => Value::Array(
                mine.as_array()
                    .into_iter()
                    .flatten()
                    .filter(|v| value.as_array().is_some_and(|o| o.contains(v)))
                    .cloned()
                    .collect(),
            ),
            "minimum" | "exclusiveMinimum" | "minLength" | "minItems" | "minProperties" => {
                if value.as_f64() > mine.as_f64() {
                    value.clone()
                } else {
                    mine
                }
            }
            "maximum" | "exclusiveMaximum" | "maxLength" | "maxItems" | "maxProperties" => {
                if value.as_f64() < mine.as_f64() {
                    value.clone()
                } else {
                    mine
                }
            }
            "allOf" => {
                let mut all = mine.as_array().cloned().unwrap_or_default();
                all.extend(value.as_array().into_iter().flatten().cloned());
                Value::Array(all)
            }
            "additionalProperties" => {
                if mine == Value::Bool(false) || *value == Value::Bool(false) {
                    Value::Bool(false)
                } else {
                    mine
                }
            }
            // Annotations and anything else: the first one's.
            _ => mine,
        };
        out.insert(key.clone(), merged);
    }
    Value::Object(out)
}

/// `schema` with its `allOf` branches merged in (and theirs, recursively); borrowed when it
/// has none.
pub fn without_all_of<'a>(root: &'a Value, schema: Cow<'a, Value>) -> Cow<'a, Value> {
    if schema.get("allOf").is_none() {
        return schema;
    }
    let mut node = schema.into_owned();
    for _ in 0..16 {
        let Some(branches) = node.as_object_mut().and_then(|o| o.remove("allOf")) else {
            break;
        };
        for branch in branches.as_array().into_iter().flatten() {
            node = intersect(&node, &resolved(root, branch));
        }
    }
    Cow::Owned(node)
}

/// Whether a node holds nothing but annotations besides `except` (a combinator about to be
/// replaced by one of its branches, which then describes the value alone).
pub fn only_annotations(node: &Value, except: &str) -> bool {
    node.as_object().is_none_or(|o| {
        o.keys()
            .all(|k| k == except || ANNOTATIONS.contains(&k.as_str()) || k == "nullable")
    })
}

/// `node` with its combinator `key` replaced by `branch`: the branch alone when the node only
/// annotates it, else their intersection.
pub fn with_branch<'a>(
    root: &'a Value,
    node: &Value,
    key: &str,
    branch: &'a Value,
) -> Cow<'a, Value> {
    if only_annotations(node, key) {
        return plain(root, branch);
    }
    let mut rest = node.clone();
    if let Some(map) = rest.as_object_mut() {
        map.remove(key);
    }
    without_all_of(root, Cow::Owned(intersect(&resolved(root, branch), &rest)))
}

/// The node describing values of `schema`: `$ref`s followed, `allOf` merged.
pub fn plain<'a>(root: &'a Value, schema: &'a Value) -> Cow<'a, Value> {
    without_all_of(root, resolved(root, schema))
}

/// Whether the node (or anything under it) holds a `$ref`: the branches to avoid when the
/// generator must stop recursing.
pub fn mentions_ref(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => map.contains_key("$ref") || map.values().any(mentions_ref),
        Value::Array(items) => items.iter().any(mentions_ref),
        _ => false,
    }
}

/// JSON equality as JSON Schema defines it: numbers by value (`1` equals `1.0`), objects
/// regardless of key order.
pub fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => numbers_equal(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

/// Two JSON numbers equal by value, exactly (64-bit integers compared as integers).
pub fn numbers_equal(x: &serde_json::Number, y: &serde_json::Number) -> bool {
    match (as_integer(x), as_integer(y)) {
        (Some(a), Some(b)) => a == b,
        (None, None) => x.as_f64() == y.as_f64(),
        _ => false,
    }
}

/// The exact integer a JSON number denotes, if it denotes one (`3.0` is 3).
pub fn as_integer(n: &serde_json::Number) -> Option<i128> {
    if let Some(i) = n.as_i64() {
        return Some(i128::from(i));
    }
    if let Some(u) = n.as_u64() {
        return Some(i128::from(u));
    }
    let f = n.as_f64()?;
    (f.is_finite() && f.fract() == 0.0 && f.abs() < 1e38).then_some(f as i128)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_resolve_with_their_siblings() {
        let root = json!({"$defs": {"A": {"type": "integer", "minimum": 0}}});
        let with_siblings = json!({"$ref": "#/$defs/A", "maximum": 9, "minimum": 2});
        let node = resolved(&root, &with_siblings);
        assert_eq!(
            *node,
            json!({"type": "integer", "minimum": 2, "maximum": 9})
        );
        let annotated = json!({"$ref": "#/$defs/A", "description": "x"});
        assert!(matches!(resolved(&root, &annotated), Cow::Borrowed(_)));
    }

    #[test]
    fn numbers_compare_by_value() {
        assert!(json_equal(&json!(3), &json!(3.0)));
        assert!(!json_equal(&json!(3), &json!(3.5)));
        assert!(json_equal(&json!({"a": [1, 2.0]}), &json!({"a": [1.0, 2]})));
        assert_eq!(
            as_integer(&serde_json::Number::from_f64(-9.223_372_036_854_776e18).unwrap()),
            Some(i128::from(i64::MIN))
        );
    }
}
