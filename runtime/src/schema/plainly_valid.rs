//! A foreign schema that is plainly valid 2020-12, told without the meta-schema.
//!
//! Validating a schema against the 2020-12 meta-schema (`dialect::dialect_problems`) cost more
//! than rendering it, and nearly every schema an MCP server sends is made of a few keywords with
//! values of the plainest kind: `type`, `description`, `properties`, `required`, `enum`, bounds.
//! For those keywords, what the meta-schema asks is short (each rule below is the meta-schema's
//! own), so a schema made only of them is checked here in one pass. Anything else (another
//! keyword, an odd value) is not judged here: the meta-schema decides, so a schema is refused
//! exactly when it was before.

use serde_json::Value;

/// The meta-schema's `simpleTypes`.
const SIMPLE_TYPES: &[&str] = &[
    "array", "boolean", "integer", "null", "number", "object", "string",
];

/// Whether `schema` is valid against the 2020-12 meta-schema by the rules of its keywords alone;
/// `false` says only that this look cannot tell (the meta-schema must).
pub(crate) fn plainly_valid(schema: &Value) -> bool {
    let node = match schema {
        Value::Bool(_) => return true,
        Value::Object(node) => node,
        _ => return false,
    };
    node.iter().all(|(keyword, value)| match keyword.as_str() {
        // `simpleTypes`, or a non-empty list of them, each once.
        "type" => match value {
            Value::String(name) => SIMPLE_TYPES.contains(&name.as_str()),
            Value::Array(names) => {
                !names.is_empty()
                    && names
                        .iter()
                        .all(|n| n.as_str().is_some_and(|n| SIMPLE_TYPES.contains(&n)))
                    && unique(names)
            }
            _ => false,
        },
        "title" | "description" | "format" | "$comment" => value.is_string(),
        "default" | "const" => true,
        "enum" | "examples" => value.is_array(),
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => value.is_number(),
        // `nonNegativeInteger`.
        "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties" | "maxProperties" => {
            value.is_u64()
        }
        "uniqueItems" | "deprecated" | "readOnly" | "writeOnly" => value.is_boolean(),
        // `stringArray`.
        "required" => value
            .as_array()
            .is_some_and(|names| names.iter().all(Value::is_string) && unique(names)),
        "properties" | "$defs" => value
            .as_object()
            .is_some_and(|entries| entries.values().all(plainly_valid)),
        "items" | "additionalProperties" | "not" => plainly_valid(value),
        // `schemaArray`.
        "anyOf" | "oneOf" | "allOf" => value
            .as_array()
            .is_some_and(|branches| !branches.is_empty() && branches.iter().all(plainly_valid)),
        _ => false,
    })
}

/// Whether no entry of `values` repeats an earlier one (`uniqueItems`).
fn unique(values: &[Value]) -> bool {
    values
        .iter()
        .enumerate()
        .all(|(i, value)| !values[..i].contains(value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// What the meta-schema says, for the schemas this look judges.
    fn meta_valid(schema: &Value) -> bool {
        jsonschema::draft202012::meta::validator().is_valid(schema)
    }

    /// Every subschema of every fixture, and odd cases: whatever is plainly valid, the
    /// meta-schema takes.
    #[test]
    fn plainly_valid_schemas_are_valid() {
        let odd = [
            json!({"type": []}),
            json!({"type": ["string", "string"]}),
            json!({"type": ["string", 3]}),
            json!({"type": "strnig"}),
            json!({"type": "integer", "minimum": "5"}),
            json!({"type": "string", "minLength": -1}),
            json!({"type": "string", "minLength": 1.5}),
            json!({"type": "string", "maxLength": 2.0}),
            json!({"required": "a"}),
            json!({"required": ["a", "a"]}),
            json!({"required": [1]}),
            json!({"enum": []}),
            json!({"enum": "a"}),
            json!({"anyOf": []}),
            json!({"anyOf": [{"type": "string"}, true]}),
            json!({"items": "string"}),
            json!({"properties": {"a": 3}}),
            json!({"properties": [{"type": "string"}]}),
            json!({"description": 3}),
            json!({"uniqueItems": "yes"}),
            json!({"$defs": {"A": {"type": "object"}}}),
            json!({"default": null, "const": {"a": 1}, "examples": [1]}),
            json!({"not": false, "additionalProperties": {"type": ["object", "null"]}}),
            json!(true),
            json!(3),
        ];
        let mut schemas: Vec<Value> = odd.to_vec();
        let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures");
        collect_fixtures(std::path::Path::new(fixtures), &mut schemas);
        let mut plain = 0;
        for schema in &schemas {
            if plainly_valid(schema) {
                plain += 1;
                assert!(meta_valid(schema), "plainly valid, but not valid: {schema}");
            }
        }
        assert!(plain > 100, "only {plain} plainly valid schemas");
        for valid in [
            json!({"type": "object", "properties": {"a": {"type": ["string", "null"], "enum": []}}, "required": ["a"]}),
            json!({"type": "integer", "minimum": -3, "maximum": 1.5, "minLength": 0}),
        ] {
            assert!(plainly_valid(&valid), "{valid}");
        }
    }

    /// Every value below a tool's `inputSchema` in the fixtures that is an object: schemas, and
    /// objects that are not (a `properties` map, a `default`), which are judged all the same.
    fn collect_fixtures(dir: &std::path::Path, out: &mut Vec<Value>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for path in entries.filter_map(Result::ok).map(|e| e.path()) {
            if path.is_dir() {
                collect_fixtures(&path, out);
            } else if path.extension().is_some_and(|e| e == "json") {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                if let Ok(value) = serde_json::from_str::<Value>(&text) {
                    collect_objects(&value, out);
                }
            }
        }
    }

    fn collect_objects(value: &Value, out: &mut Vec<Value>) {
        match value {
            Value::Object(map) => {
                out.push(value.clone());
                map.values().for_each(|v| collect_objects(v, out));
            }
            Value::Array(items) => items.iter().for_each(|v| collect_objects(v, out)),
            _ => {}
        }
    }
}
