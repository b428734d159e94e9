//! The canonical form of an input schema: what every target's rendering starts from.

use schemars::Schema;

use serde_json::{Map, Value};

use super::node::take;

/// Canonical normalisation of a schemars-generated (or foreign) root schema: removes `$schema`
/// and the root `title`, and gives a closed object root (`additionalProperties: false`) without
/// `properties` an empty `properties`; nothing else changes. Draft 2020-12, declaration order kept.
///
/// The root `title` is the Rust type's name or its doc's first line; the tool's own name and
/// description already say that, and no target wants it in the parameters. A tool without
/// parameters (schemars: `{"type": "object", "additionalProperties": false}`) says so with
/// `"properties": {}`, which OpenAI requires of every object schema.
pub fn canonicalize(mut schema: Schema) -> Schema {
    if let Some(root) = schema.as_object_mut() {
        take(root, "$schema");
        take(root, "title");
        let is_object = root.get("type") == Some(&Value::from("object"));
        let closed = matches!(
            root.get("additionalProperties"),
            None | Some(Value::Bool(false))
        );
        if is_object && closed && !root.contains_key("properties") {
            let at = root.keys().position(|k| k == "type").map_or(0, |i| i + 1);
            root.shift_insert(at, "properties".to_owned(), Value::Object(Map::new()));
        }
    }
    schema
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::test_util::assert_same;
    use schemars::json_schema;

    #[test]
    fn drops_schema_and_root_title_only() {
        let schema = json_schema!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Args",
            "type": "object",
            "properties": {"b": {"title": "B", "type": "string"}, "a": {"type": "integer"}},
            "required": ["b"]
        });
        assert_same(
            &canonicalize(schema),
            &json_schema!({
                "type": "object",
                "properties": {"b": {"title": "B", "type": "string"}, "a": {"type": "integer"}},
                "required": ["b"]
            }),
        );
    }

    #[test]
    fn a_closed_object_without_properties_gets_empty_properties() {
        let schema = json_schema!({"type": "object", "additionalProperties": false});
        assert_same(
            &canonicalize(schema),
            &json_schema!({"type": "object", "properties": {}, "additionalProperties": false}),
        );
        // A map keeps its shape: it has no properties by design.
        let map = json_schema!({"type": "object", "additionalProperties": {"type": "string"}});
        assert_same(&canonicalize(map.clone()), &map);
    }

    #[test]
    fn bool_roots_are_unchanged() {
        assert_same(&canonicalize(json_schema!(true)), &json_schema!(true));
        assert_same(&canonicalize(json_schema!(false)), &json_schema!(false));
    }
}
