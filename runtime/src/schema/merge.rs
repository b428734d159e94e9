//! Merging two schema nodes into one: a `$ref` with the keywords beside it, an `allOf` branch
//! with its parent, a nullable `anyOf` branch with the node holding it.

use serde_json::{Map, Value};

use super::describe::{join_texts, prepend_text};
use super::node::{ANNOTATIONS, place_description};

/// A referenced schema merged with the keywords written next to its `$ref`, so that the result
/// accepts what both accept (draft 2020-12 applies a `$ref` and its siblings together).
///
/// The referenced keywords come first. Annotations beside the `$ref` replace the referenced
/// ones (the field knows better than its type), `description` included: a parameter's doc is
/// what the model reads about it, not that doc glued to its type's ("Which issues to include.
/// Which issues to include by their state."). schemars lets a field's description override its
/// type's in the same way, and OpenAPI 3.1 says a `description` beside a reference overrides
/// the referenced one. The type's own description stays where the field has none; when both
/// have different titles and the field no description, the referenced title is folded into the
/// referenced description so it is not lost. Constraining siblings are
/// intersected with the referenced schema (see [`merge_conjunction`]); when they cannot be
/// (the two disagree on a keyword), `Err` carries the conflicting keyword and the caller keeps
/// both as an `allOf`.
pub(crate) fn merge_ref_siblings(
    target: Value,
    mut siblings: Map<String, Value>,
) -> Result<Value, Conflict> {
    let mut merged = match target {
        Value::Object(map) => map,
        Value::Bool(true) if siblings.is_empty() => return Ok(Value::Bool(true)),
        Value::Bool(true) => return Ok(Value::Object(siblings)),
        Value::Bool(false) if siblings.is_empty() => return Ok(Value::Bool(false)),
        Value::Bool(false) => {
            // `false` accepts nothing; keep that while keeping the siblings' annotations.
            siblings.insert("not".into(), Value::Object(Map::new()));
            return Ok(Value::Object(siblings));
        }
        // Not a schema: resolution refuses these before we get here; keep the siblings.
        _ => return Ok(Value::Object(siblings)),
    };
    if let (Some(Value::String(own)), Some(Value::String(theirs))) =
        (merged.get("title"), siblings.get("title"))
        && own != theirs
        && !siblings.contains_key("description")
    {
        let own = own.clone();
        prepend_text(&mut merged, &own);
    }
    for (key, value) in siblings {
        // Beside a `$ref` the annotations describe the field, and the field's own word wins
        // over its type's.
        if ANNOTATIONS.contains(&key.as_str()) {
            merged.insert(key, value);
        } else {
            merge_keyword(&mut merged, &key, &value)?;
        }
    }
    // A field's description its type did not have is read before the type's bounds, as in
    // every node (`canonical::DescriptionsFirst`).
    place_description(&mut merged);
    Ok(Value::Object(merged))
}

/// The keyword on which two nodes disagree, so they cannot become one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Conflict(pub String);

/// Merges `branch` into `node` so that the result accepts exactly what both accept (the meaning
/// of `allOf`), as far as keywords allow: disjoint keywords are combined, `properties` and
/// `required` are unions, descriptions are joined (node first), equal keywords are kept once,
/// bounds take the tighter of the two, `type` and `enum` the values both allow. Anything else
/// is a [`Conflict`], and `node` is left unchanged.
pub(crate) fn merge_conjunction(
    node: &mut Map<String, Value>,
    branch: &Value,
) -> Result<(), Conflict> {
    let branch = match branch {
        Value::Bool(true) => return Ok(()),
        Value::Object(map) => map,
        _ => return Err(Conflict(branch.to_string())),
    };
    let mut merged = node.clone();
    for (key, value) in branch {
        merge_keyword(&mut merged, key, value)?;
    }
    *node = merged;
    Ok(())
}

/// Lower bounds: the larger wins.
const LOWER_BOUNDS: &[&str] = &[
    "minimum",
    "exclusiveMinimum",
    "minLength",
    "minItems",
    "minProperties",
    "minContains",
];

/// Upper bounds: the smaller wins.
const UPPER_BOUNDS: &[&str] = &[
    "maximum",
    "exclusiveMaximum",
    "maxLength",
    "maxItems",
    "maxProperties",
    "maxContains",
];

fn merge_keyword(node: &mut Map<String, Value>, key: &str, value: &Value) -> Result<(), Conflict> {
    let conflict = || Err(Conflict(key.to_owned()));
    if key == "$ref" {
        // A `$ref` left in place (recursion) must stay alone to remain a reference.
        return conflict();
    }
    let Some(existing) = node.get_mut(key) else {
        node.insert(key.to_owned(), value.clone());
        return Ok(());
    };
    if existing == value {
        return Ok(());
    }
    match (key, existing, value) {
        ("description", Value::String(own), Value::String(theirs)) => {
            *own = join_texts(own, theirs);
        }
        ("title", Value::String(_), Value::String(theirs)) => {
            let theirs = theirs.clone();
            let description = node
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or("");
            let joined = join_texts(description, &theirs);
            node.insert("description".into(), joined.into());
        }
        ("properties", Value::Object(own), Value::Object(theirs)) => {
            for (name, schema) in theirs {
                match own.get_mut(name) {
                    None => {
                        own.insert(name.clone(), schema.clone());
                    }
                    Some(same) if same == schema => {}
                    // Both describe the property: it must match both, as one schema if it can.
                    Some(Value::Object(property)) => merge_conjunction(property, schema)
                        .map_err(|Conflict(at)| Conflict(format!("properties/{name}/{at}")))?,
                    Some(_) => return Err(Conflict(format!("properties/{name}"))),
                }
            }
        }
        ("required", Value::Array(own), Value::Array(theirs)) => {
            for name in theirs {
                if !own.contains(name) {
                    own.push(name.clone());
                }
            }
        }
        (bound, Value::Number(own), Value::Number(theirs))
            if LOWER_BOUNDS.contains(&bound) || UPPER_BOUNDS.contains(&bound) =>
        {
            let (Some(a), Some(b)) = (own.as_f64(), theirs.as_f64()) else {
                return conflict();
            };
            let take_theirs = if LOWER_BOUNDS.contains(&bound) {
                b > a
            } else {
                b < a
            };
            if take_theirs {
                *own = theirs.clone();
            }
        }
        ("type", own, theirs) => {
            let both: Vec<String> = intersect_types(&type_set(own), &type_set(theirs))
                .into_iter()
                .map(str::to_owned)
                .collect();
            *own = match both.as_slice() {
                [] => return conflict(),
                [one] => Value::from(one.as_str()),
                many => Value::from(many.to_vec()),
            };
        }
        ("enum", Value::Array(own), Value::Array(theirs)) => {
            own.retain(|v| theirs.contains(v));
            if own.is_empty() {
                return conflict();
            }
        }
        _ => return conflict(),
    }
    Ok(())
}

/// The types both lists allow (an integer is a number).
fn intersect_types<'a>(a: &[&'a str], b: &[&str]) -> Vec<&'a str> {
    let mut both = Vec::new();
    for &t in a {
        let kept = if b.contains(&t) {
            t
        } else if (t == "number" && b.contains(&"integer"))
            || (t == "integer" && b.contains(&"number"))
        {
            "integer"
        } else {
            continue;
        };
        if !both.contains(&kept) {
            both.push(kept);
        }
    }
    both
}

/// The type names of a `type` value.
fn type_set(value: &Value) -> Vec<&str> {
    match value {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::test_util::map;
    use serde_json::json;

    #[test]
    fn ref_siblings_override_descriptions_included() {
        let merged = merge_ref_siblings(
            json!({"description": "Temperature units.", "type": "string", "enum": ["c"]}),
            map(json!({"description": "Units to use", "default": "c", "type": "string"})),
        )
        .unwrap();
        assert_eq!(
            merged.to_string(),
            r#"{"description":"Units to use","type":"string","enum":["c"],"default":"c"}"#
        );
        // Without a description of its own, the field keeps its type's.
        let merged = merge_ref_siblings(
            json!({"description": "Temperature units.", "type": "string"}),
            map(json!({"default": "c"})),
        )
        .unwrap();
        assert_eq!(
            merged,
            json!({"description": "Temperature units.", "type": "string", "default": "c"})
        );
        // A description the type had not is read before the type's bounds.
        let merged = merge_ref_siblings(
            json!({"type": "integer", "minimum": 1}),
            map(json!({"description": "Days."})),
        )
        .unwrap();
        assert_eq!(
            merged.to_string(),
            r#"{"type":"integer","description":"Days.","minimum":1}"#
        );
    }

    #[test]
    fn ref_siblings_titles_folded_only_without_a_field_description() {
        let merged = merge_ref_siblings(
            json!({"title": "Point", "description": "A point."}),
            map(json!({"title": "Origin", "description": "Where to start."})),
        )
        .unwrap();
        assert_eq!(
            merged,
            json!({"title": "Origin", "description": "Where to start."})
        );
        let merged = merge_ref_siblings(
            json!({"title": "Point", "description": "A point."}),
            map(json!({"title": "Origin"})),
        )
        .unwrap();
        assert_eq!(
            merged,
            json!({"title": "Origin", "description": "Point. A point."})
        );
        let merged = merge_ref_siblings(
            json!({"description": "A."}),
            map(json!({"description": "A."})),
        )
        .unwrap();
        assert_eq!(merged, json!({"description": "A."}));
    }

    #[test]
    fn ref_siblings_with_bool_targets() {
        assert_eq!(
            merge_ref_siblings(json!(true), Map::new()).unwrap(),
            json!(true)
        );
        assert_eq!(
            merge_ref_siblings(json!(true), map(json!({"description": "x"}))).unwrap(),
            json!({"description": "x"})
        );
        assert_eq!(
            merge_ref_siblings(json!(false), Map::new()).unwrap(),
            json!(false)
        );
        assert_eq!(
            merge_ref_siblings(json!(false), map(json!({"description": "x"}))).unwrap(),
            json!({"description": "x", "not": {}})
        );
    }

    #[test]
    fn conjunction_unions_objects() {
        let mut node = map(json!({"description": "Both.", "allOf": []}));
        merge_conjunction(
            &mut node,
            &json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}),
        )
        .unwrap();
        merge_conjunction(
            &mut node,
            &json!({"type": "object", "description": "B.", "properties": {"b": {}}, "required": ["b", "a"]}),
        )
        .unwrap();
        assert_eq!(
            Value::Object(node).to_string(),
            r#"{"description":"Both. B.","allOf":[],"type":"object","properties":{"a":{"type":"string"},"b":{}},"required":["a","b"]}"#
        );
    }

    #[test]
    fn conjunction_intersects_bounds_types_and_enums() {
        let mut node = map(
            json!({"type": ["number", "null"], "minimum": 1, "maximum": 10, "enum": [1, 2, 3]}),
        );
        merge_conjunction(
            &mut node,
            &json!({"type": "integer", "minimum": 2, "maximum": 20, "enum": [2, 3, 4]}),
        )
        .unwrap();
        assert_eq!(
            Value::Object(node),
            json!({"type": "integer", "minimum": 2, "maximum": 10, "enum": [2, 3]})
        );
    }

    #[test]
    fn ref_siblings_that_constrain_are_intersected() {
        let merged = merge_ref_siblings(
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}),
            map(json!({"description": "Owner.", "properties": {"b": {"type": "integer"}}, "required": ["b"]})),
        )
        .unwrap();
        assert_eq!(
            merged,
            json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a", "b"], "description": "Owner."})
        );
        assert_eq!(
            merge_ref_siblings(json!({"type": "string"}), map(json!({"type": "integer"}))),
            Err(Conflict("type".into()))
        );
    }

    #[test]
    fn conjunction_conflicts_leave_node_alone() {
        let mut node = map(json!({"type": "string", "minLength": 1}));
        let before = node.clone();
        assert_eq!(
            merge_conjunction(
                &mut node,
                &json!({"minLength": 2, "pattern": "a", "type": "integer"})
            ),
            Err(Conflict("type".into()))
        );
        assert_eq!(node, before);
        assert!(merge_conjunction(&mut node, &json!({"$ref": "#"})).is_err());
        assert!(merge_conjunction(&mut node, &json!(false)).is_err());
        assert!(merge_conjunction(&mut node, &json!(3)).is_err());
        assert!(merge_conjunction(&mut node, &json!(true)).is_ok());
        let mut objects = map(json!({"properties": {"a": {"type": "string"}}}));
        assert_eq!(
            merge_conjunction(
                &mut objects,
                &json!({"properties": {"a": {"type": "integer"}}})
            ),
            Err(Conflict("properties/a/type".into()))
        );
    }
}
