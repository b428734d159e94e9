//! The root of an input schema: every target wants a JSON object (`"type": "object"`).

use schemars::Schema;
use serde_json::{Map, Value, json};

use super::canonical::drop_dialect_and_title;
use super::describe::short;
use super::node::take;
use crate::report::{ChangeKind, Recorder};
use crate::{SchemaError, Target};

/// Keywords that leave a root "without parameters" when they are all it has.
const NO_PARAMETERS: &[&str] = &["description", "$comment", "$id", "$defs", "definitions"];

/// Prepares a root before the transforms: drops `$schema` and `title` (as `canonicalize` does,
/// for roots that skipped it), turns "no parameters" (`true`, `{}`) into
/// `{"type": "object", "properties": {}}`, and adds `type: object` to a root that declares
/// `properties` without a type.
pub(crate) fn normalize_root(schema: &mut Schema, rec: &mut Recorder) {
    if schema.as_bool() == Some(true) {
        *schema = Schema::from(Map::new());
    }
    let Some(root) = schema.as_object_mut() else {
        return;
    };
    drop_dialect_and_title(root, rec);
    let added = |keyword: &str, why: &str| ChangeKind::Added {
        keyword: keyword.to_owned(),
        why: why.to_owned(),
    };
    if root.keys().all(|k| NO_PARAMETERS.contains(&k.as_str())) {
        root.shift_insert(0, "type".into(), json!("object"));
        root.shift_insert(1, "properties".into(), json!({}));
        rec.record(added(
            "properties",
            "`{}` with `type: object`: the tool takes no arguments",
        ));
        return;
    }
    match root.get("type") {
        None if root.get("properties").is_some_and(Value::is_object) => {
            root.shift_insert(0, "type".into(), json!("object"));
            rec.record(added("type", "`object`: the root declares properties"));
        }
        Some(Value::Array(types)) if types.as_slice() == [json!("object")] => {
            root.insert("type".into(), json!("object"));
            rec.record(ChangeKind::Rewritten {
                from: "`type: [\"object\"]`".to_owned(),
                to: "`type: \"object\"`".to_owned(),
            });
        }
        _ => {}
    }
}

/// The rendered root as a JSON object, or [`SchemaError::RootNotObject`] saying what it is.
pub(crate) fn object_root(
    schema: Schema,
    target: Target,
) -> Result<Map<String, Value>, SchemaError> {
    match schema.to_value() {
        // Gemini spells "or null" as `nullable`; arguments are an object, never null.
        Value::Object(mut root) if root.get("nullable") == Some(&Value::Bool(true)) => {
            take(&mut root, "nullable");
            let found = format!("{} or null", describe_root(&Value::Object(root)));
            Err(SchemaError::RootNotObject { target, found })
        }
        Value::Object(root) if root.get("type") == Some(&json!("object")) => Ok(root),
        other => Err(SchemaError::RootNotObject {
            target,
            found: describe_root(&other),
        }),
    }
}

/// What a root that is not an object is, in words: "a string", "an `anyOf` of 2 schemas".
fn describe_root(root: &Value) -> String {
    let Value::Object(node) = root else {
        return match root {
            Value::Bool(false) => "the `false` schema, which accepts nothing".to_owned(),
            other => format!("`{other}`"),
        };
    };
    if !node.contains_key("type") {
        for (keyword, article) in [("anyOf", "an"), ("oneOf", "a"), ("allOf", "an")] {
            if let Some(Value::Array(branches)) = node.get(keyword) {
                let n = branches.len();
                let unit = if n == 1 { "schema" } else { "schemas" };
                return format!("{article} `{keyword}` of {n} {unit}");
            }
        }
    }
    match short(root).as_str() {
        "any value" => "a schema without `\"type\": \"object\"`".to_owned(),
        words => words.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::test_util::assert_same;
    use schemars::json_schema;

    fn normalized(mut schema: Schema) -> Schema {
        normalize_root(&mut schema, &mut Recorder::default());
        schema
    }

    #[test]
    fn no_parameters_become_an_empty_object() {
        let empty = json_schema!({"type": "object", "properties": {}});
        assert_same(&normalized(json_schema!(true)), &empty);
        assert_same(&normalized(json_schema!({})), &empty);
        assert_same(
            &normalized(json_schema!({"$schema": "x", "title": "T", "description": "None."})),
            &json_schema!({"type": "object", "properties": {}, "description": "None."}),
        );
    }

    #[test]
    fn missing_or_single_array_type_is_fixed() {
        assert_same(
            &normalized(json_schema!({"properties": {"a": {}}})),
            &json_schema!({"type": "object", "properties": {"a": {}}}),
        );
        assert_same(
            &normalized(json_schema!({"type": ["object"], "properties": {}})),
            &json_schema!({"type": "object", "properties": {}}),
        );
        let other = json_schema!({"type": "string"});
        assert_same(&normalized(other.clone()), &other);
        assert_same(&normalized(json_schema!(false)), &json_schema!(false));
    }

    #[test]
    fn non_object_roots_are_refused_in_words() {
        let found = |schema: Schema| match object_root(schema, Target::Mcp) {
            Err(SchemaError::RootNotObject {
                target: Target::Mcp,
                found,
            }) => found,
            other => panic!("{other:?}"),
        };
        assert_eq!(found(json_schema!({"type": "string"})), "a string");
        assert_eq!(
            found(json_schema!({"anyOf": [{}, {}]})),
            "an `anyOf` of 2 schemas"
        );
        assert_eq!(
            found(json_schema!({"oneOf": [{}]})),
            "a `oneOf` of 1 schema"
        );
        assert_eq!(
            found(json_schema!({"type": ["object", "null"]})),
            "an object or null"
        );
        assert_eq!(
            found(json_schema!(false)),
            "the `false` schema, which accepts nothing"
        );
        assert_eq!(
            found(json_schema!({"description": "x"})),
            "a schema without `\"type\": \"object\"`"
        );
        assert_eq!(
            found(json_schema!({"type": "object", "nullable": true})),
            "an object or null"
        );
        assert!(object_root(json_schema!({"type": "object"}), Target::Mcp).is_ok());
    }
}
