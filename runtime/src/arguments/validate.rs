//! What to validate and with what: the validator of the shown schema (with the formats it does
//! not know), whether serde alone enforces a schema, and what a schema says that no call can
//! reach.

use serde_json::Value;

use crate::instance;

/// The validator of a schema shown to a model. `format` is only an annotation in 2020-12
/// unless asked for; the model was shown it as a rule ("Must be an email address."), so it is
/// one, including the formats schemars gives chrono's types and `IpAddr`, which the validator
/// does not know, and with domain names read as their RFCs read them (`formats`).
pub(crate) fn validator(schema: &Value) -> Result<jsonschema::Validator, String> {
    validator_in(schema, jsonschema::Draft::Draft202012)
}

/// [`validator`] for a schema of the dialect `draft`: one its author wrote may declare an older
/// draft, whose keywords mean what that draft says (`items` as a list, `exclusiveMinimum` as a
/// flag), and `$ref`s are resolved within the schema as that draft resolves them.
pub(crate) fn validator_in(
    schema: &Value,
    draft: jsonschema::Draft,
) -> Result<jsonschema::Validator, String> {
    let options = jsonschema::options()
        .with_draft(draft)
        .should_validate_formats(true);
    super::formats::with_formats(options, draft)
        .build(schema)
        .map_err(|err| err.to_string())
}

/// Whether deserialising the tool's argument type already enforces every rule of its schema, so
/// that validating a parsed `Value` first would check nothing new. True only for a closed object
/// (`deny_unknown_fields`) of strings, booleans, integers (with no bounds but those their Rust
/// type implies), numbers, `Option`s and arrays of those: serde checks each of these exactly.
pub(crate) fn serde_enforces_schema(canonical: &Value) -> bool {
    let root = canonical;
    root.get("additionalProperties") == Some(&Value::Bool(false))
        && root.get("type") == Some(&Value::from("object"))
        && root.as_object().is_some_and(|o| {
            o.keys().all(|k| {
                matches!(
                    k.as_str(),
                    "type" | "properties" | "required" | "additionalProperties" | "description"
                )
            })
        })
        && root
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|props| props.values().all(|p| plain_value(p, 0)))
}

/// A scalar (or array of scalars) whose only constraints are those its Rust type implies.
fn plain_value(schema: &Value, depth: usize) -> bool {
    let Some(object) = schema.as_object() else {
        return false;
    };
    let types: Vec<&str> = match object.get("type") {
        Some(Value::String(t)) => vec![t],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => return false,
    };
    let format = object.get("format").and_then(Value::as_str);
    object.iter().all(|(key, value)| match key.as_str() {
        "type" | "description" | "default" | "title" => true,
        "format" => {
            // Not `float`: serde turns an `f32` out of range into infinity without a word.
            value.as_str() == Some("double") || implied_bounds(format).is_some()
        }
        "minimum" => implied_bounds(format).is_some_and(|(min, _)| value.as_f64() == Some(min)),
        "maximum" => implied_bounds(format).is_some_and(|(_, max)| value.as_f64() == Some(max)),
        "items" => depth == 0 && types.contains(&"array") && plain_value(value, depth + 1),
        _ => false,
    }) && types.iter().all(|t| {
        matches!(
            *t,
            "string" | "boolean" | "integer" | "number" | "null" | "array"
        )
    })
}

/// The properties that admit `null` but default to something else, each with where it is in
/// the arguments and its default: since `null` means "absent" there, their `None` cannot be
/// reached. Found by walking the schema from its root through `properties`, `items` and
/// `$ref`s (each definition once).
pub(crate) fn unreachable_nones(schema: &Value) -> Vec<(String, Value)> {
    let mut found = Vec::new();
    let mut seen: Vec<*const Value> = Vec::new();
    let mut pending = vec![(schema, String::new())];
    while let Some((node, at)) = pending.pop() {
        for branch in instance::branches(node, schema) {
            if seen.contains(&(branch as *const Value)) {
                continue;
            }
            seen.push(branch);
            let properties = branch.get("properties").and_then(Value::as_object);
            for (key, property) in properties.into_iter().flatten() {
                let here = format!("{at}/{}", key.replace('~', "~0").replace('/', "~1"));
                let branches = instance::branches(property, schema);
                let nullable = instance::types_of(&branches).contains(&"null");
                let default = branches.iter().find_map(|b| b.get("default"));
                if let (true, Some(default)) = (nullable, default.filter(|d| !d.is_null())) {
                    found.push((here.clone(), default.clone()));
                }
                pending.push((property, here));
            }
            if let Some(items) = branch.get("items").filter(|i| i.is_object()) {
                pending.push((items, format!("{at}/0")));
            }
        }
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found
}

/// Whether some subschema of `schema` has the `format` `name` (schemars' `float` for an `f32`).
pub(crate) fn has_format(schema: &Value, name: &str) -> bool {
    let mut pending = vec![schema];
    while let Some(node) = pending.pop() {
        match node {
            // Each object's few keys compared, rather than `format` hashed for every object:
            // this runs on every schema converted.
            Value::Object(map) => {
                for (key, value) in map {
                    if key == "format" && value.as_str() == Some(name) {
                        return true;
                    }
                    pending.push(value);
                }
            }
            Value::Array(items) => pending.extend(items),
            _ => {}
        }
    }
    false
}

/// The range of the Rust integer type a schemars `format` names: bounds equal to it are what
/// deserialising that type enforces.
fn implied_bounds(format: Option<&str>) -> Option<(f64, f64)> {
    crate::schema::integer_range(format?).map(|(min, max)| (min as f64, max as f64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numeric_formats_are_annotations() {
        // The MCP rendering keeps schemars' numeric formats: the validator builds on each, on
        // integers and numbers, and checks what the bounds say, not the format.
        for format in [
            "int8", "int16", "int32", "int64", "int", "uint8", "uint16", "uint32", "uint64",
            "uint", "int128", "uint128", "float", "double",
        ] {
            let schema = json!({"type": "object", "properties": {
                "i": {"type": "integer", "format": format, "minimum": 0},
                "n": {"type": ["number", "null"], "format": format}
            }});
            let validator = validator(&schema).unwrap_or_else(|err| panic!("{format}: {err}"));
            assert!(validator.is_valid(&json!({"i": 5, "n": 1.5})), "{format}");
            assert!(
                validator.is_valid(&json!({"i": 5_000_000_000_u64, "n": null})),
                "{format}"
            );
            assert!(!validator.is_valid(&json!({"i": -1})), "{format}");
            assert!(!validator.is_valid(&json!({"n": "1.5"})), "{format}");
        }
    }

    #[test]
    fn plain_schemas_need_no_separate_validation() {
        let plain = json!({"type": "object", "properties": {"a": {"type": "integer", "format": "int64"}, "b": {"type": ["string", "null"]}, "c": {"type": "integer", "format": "uint32", "minimum": 0}}, "additionalProperties": false, "required": ["a"]});
        assert!(serde_enforces_schema(&plain));
        assert!(!serde_enforces_schema(
            &json!({"type": "object", "properties": {"e": {"type": "string", "format": "email"}}, "additionalProperties": false})
        ));
        let ranged = json!({"type": "object", "properties": {"d": {"type": "integer", "format": "uint32", "minimum": 1, "maximum": 14}}, "additionalProperties": false});
        assert!(!serde_enforces_schema(&ranged));
        let open = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        assert!(!serde_enforces_schema(&open));
        let nested = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}, "additionalProperties": false});
        assert!(!serde_enforces_schema(&nested));
    }
}
