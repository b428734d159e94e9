//! Merging two schema nodes into one: a `$ref` with the keywords beside it, an `allOf` branch
//! with its parent, a nullable `anyOf` branch with the node holding it.

use serde_json::{Map, Value};

use super::describe::{join_texts, prepend_text};

/// A referenced schema merged with the keywords written next to its `$ref`.
///
/// The referenced keywords come first; a sibling replaces the referenced keyword of the same name
/// (the field knows better than its type), except `description`: both texts are kept, the
/// sibling's (the field's doc) first. When both have different titles, the referenced title is
/// folded into the referenced description so it is not lost.
pub(crate) fn merge_ref_siblings(target: Value, mut siblings: Map<String, Value>) -> Value {
    let mut merged = match target {
        Value::Object(map) => map,
        Value::Bool(true) if siblings.is_empty() => return Value::Bool(true),
        Value::Bool(true) => return Value::Object(siblings),
        Value::Bool(false) if siblings.is_empty() => return Value::Bool(false),
        Value::Bool(false) => {
            // `false` accepts nothing; keep that while keeping the siblings' annotations.
            siblings.insert("not".into(), Value::Object(Map::new()));
            return Value::Object(siblings);
        }
        // Not a schema: resolution refuses these before we get here; keep the siblings.
        _ => return Value::Object(siblings),
    };
    if let (Some(Value::String(own)), Some(Value::String(theirs))) =
        (merged.get("title"), siblings.get("title"))
    {
        if own != theirs {
            let own = own.clone();
            prepend_text(&mut merged, &own);
        }
    }
    for (key, value) in siblings {
        match (key.as_str(), merged.get("description"), &value) {
            ("description", Some(Value::String(referenced)), Value::String(field)) => {
                let combined = join_texts(field, referenced);
                merged.insert(key, combined.into());
            }
            _ => {
                merged.insert(key, value);
            }
        }
    }
    Value::Object(merged)
}

/// The keyword on which two nodes disagree, so they cannot become one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Conflict(pub String);

/// Merges `branch` into `node` so that the result accepts exactly what both accept (the meaning
/// of `allOf`), as far as keywords allow: disjoint keywords are combined, `properties` and
/// `required` are unions, descriptions are joined (node first), equal keywords are kept once.
/// Anything else is a [`Conflict`], and `node` is left unchanged.
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
                match own.get(name) {
                    None => {
                        own.insert(name.clone(), schema.clone());
                    }
                    Some(same) if same == schema => {}
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
        _ => return conflict(),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::test_util::map;
    use serde_json::json;

    #[test]
    fn ref_siblings_override_but_descriptions_join() {
        let merged = merge_ref_siblings(
            json!({"description": "Temperature units.", "type": "string", "enum": ["c"]}),
            map(json!({"description": "Units to use", "default": "c", "type": "string"})),
        );
        assert_eq!(
            merged.to_string(),
            r#"{"description":"Units to use. Temperature units.","type":"string","enum":["c"],"default":"c"}"#
        );
    }

    #[test]
    fn ref_siblings_equal_descriptions_once_and_titles_folded() {
        let merged = merge_ref_siblings(
            json!({"title": "Point", "description": "A point."}),
            map(json!({"title": "Origin", "description": "A point."})),
        );
        assert_eq!(
            merged,
            json!({"title": "Origin", "description": "A point. Point. A point."})
        );
        let merged = merge_ref_siblings(
            json!({"description": "A."}),
            map(json!({"description": "A."})),
        );
        assert_eq!(merged, json!({"description": "A."}));
    }

    #[test]
    fn ref_siblings_with_bool_targets() {
        assert_eq!(merge_ref_siblings(json!(true), Map::new()), json!(true));
        assert_eq!(
            merge_ref_siblings(json!(true), map(json!({"description": "x"}))),
            json!({"description": "x"})
        );
        assert_eq!(merge_ref_siblings(json!(false), Map::new()), json!(false));
        assert_eq!(
            merge_ref_siblings(json!(false), map(json!({"description": "x"}))),
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
    fn conjunction_conflicts_leave_node_alone() {
        let mut node = map(json!({"type": "string", "minLength": 1}));
        let before = node.clone();
        assert_eq!(
            merge_conjunction(&mut node, &json!({"minLength": 2, "maxLength": 3})),
            Err(Conflict("minLength".into()))
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
            Err(Conflict("properties/a".into()))
        );
    }
}
