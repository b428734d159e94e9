//! `null` and absence. tooldef treats `null` for an optional property as the property left
//! out (OpenAI strict mode makes models send every property, `null` for those they leave
//! out), so an instance is judged against the canonical constraints with those `null`s
//! removed; and an instance of the MCP schema becomes a strict target's instance by sending
//! every absent property as `null`.

use serde_json::{Map, Value};

use super::branch::{branch_for, item_schema, property_schema, required};

/// `instance` without the `null`s of properties that `schema` (the MCP rendering) declares and
/// does not require, at every depth.
pub fn optional_nulls_removed(root: &Value, instance: &Value, schema: &Value) -> Value {
    let node = branch_for(root, instance, schema);
    match instance {
        Value::Object(object) => {
            let required = required(&node);
            let declared = node.get("properties").and_then(Value::as_object);
            let mut out = Map::new();
            for (key, value) in object {
                let optional =
                    declared.is_some_and(|d| d.contains_key(key)) && !required.contains(key);
                if value.is_null() && optional {
                    continue;
                }
                let anything = Value::Bool(true);
                let child = property_schema(&node, key).unwrap_or(&anything);
                out.insert(key.clone(), optional_nulls_removed(root, value, child));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, item)| optional_nulls_removed(root, item, item_schema(&node, i)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `instance` with every property `schema` (a strict rendering) declares but the instance
/// lacks sent as `null`, at every depth.
pub fn absent_as_null(root: &Value, instance: &Value, schema: &Value) -> Value {
    let node = branch_for(root, instance, schema);
    match instance {
        Value::Object(object) => {
            let mut out = Map::new();
            if let Some(properties) = node.get("properties").and_then(Value::as_object) {
                for key in properties.keys() {
                    if !object.contains_key(key) {
                        out.insert(key.clone(), Value::Null);
                    }
                }
            }
            for (key, value) in object {
                let anything = Value::Bool(true);
                let child = property_schema(&node, key).unwrap_or(&anything);
                out.insert(key.clone(), absent_as_null(root, value, child));
            }
            // The declared order, as a model would write it.
            let mut ordered = Map::new();
            if let Some(properties) = node.get("properties").and_then(Value::as_object) {
                for key in properties.keys() {
                    if let Some(value) = out.remove(key) {
                        ordered.insert(key.clone(), value);
                    }
                }
            }
            ordered.extend(out);
            Value::Object(ordered)
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, item)| absent_as_null(root, item, item_schema(&node, i)))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn optional_nulls_go_required_ones_stay() {
        let schema = json!({
            "type": "object",
            "properties": {
                "a": {"type": ["integer", "null"]},
                "b": {"type": ["integer", "null"]},
                "c": {"$ref": "#/$defs/C"}
            },
            "required": ["a"],
            "$defs": {"C": {"type": "object", "properties": {"x": {"type": ["string", "null"]}}}}
        });
        let instance = json!({"a": null, "b": null, "c": {"x": null}});
        assert_eq!(
            optional_nulls_removed(&schema, &instance, &schema),
            json!({"a": null, "c": {}})
        );
        assert_eq!(
            absent_as_null(&schema, &json!({"c": {}}), &schema),
            json!({"a": null, "b": null, "c": {"x": null}})
        );
    }
}
