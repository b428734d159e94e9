//! `StrictRequiredNullable`: OpenAI strict mode's "every property is required".
//!
//! Strict mode has no optional properties: each one must be listed in `required`, and an
//! optional one is expressed as accepting `null`. The runtime maps a `null` argument back to
//! "absent" (and so to the field's default), using the canonical schema.

use schemars::Schema;
use schemars::transform::Transform;
use serde_json::{Map, Value, json};

use super::node::{accepts_null, get, get_mut, has, insert_after, take};
use super::walk::{recording, transform_subschemas_tracked};
use crate::report::{ChangeKind, Recorder};

/// Keywords whose presence means adding `null` to `type`/`enum` would not be enough (the value
/// must also satisfy them), so the node is wrapped in an `anyOf` instead.
const COMPOSED: &[&str] = &["anyOf", "oneOf", "allOf", "$ref", "not", "if"];

/// On every object with `properties`: lists every property in `required` (in declaration
/// order), and makes each one that was optional nullable — `"string"` → `["string", "null"]`
/// (with `null` added to an `enum`), an `anyOf` gains a `{"type": "null"}` branch, anything
/// else is wrapped as `{"description", "anyOf": [<node>, {"type": "null"}], "default"}`.
#[derive(Debug, Clone, Default)]
pub(crate) struct StrictRequiredNullable {
    pub(crate) rec: Recorder,
}

impl Transform for StrictRequiredNullable {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(node) = schema.as_object_mut() {
            require_all(node, &mut self.rec);
        }
        transform_subschemas_tracked(self, schema);
    }
}

recording!(StrictRequiredNullable);

fn require_all(node: &mut Map<String, Value>, rec: &mut Recorder) {
    if !get(node, "properties").is_some_and(Value::is_object) {
        return;
    }
    // The names `required` lists move into the new list rather than being copied.
    let mut listed = match get_mut(node, "required") {
        Some(Value::Array(names)) => std::mem::take(names),
        _ => Vec::new(),
    };
    let Some(Value::Object(properties)) = get_mut(node, "properties") else {
        return;
    };
    // Declaration order (each property not yet listed made nullable), then any names `required`
    // listed that are not properties.
    let mut all = Vec::with_capacity(properties.len());
    for (name, property) in properties.iter_mut() {
        match listed.iter_mut().find(|n| n.as_str() == Some(name)) {
            Some(listed_name) => all.push(listed_name.take()),
            None => {
                let nullable = make_nullable(property);
                rec.record(ChangeKind::MadeRequired {
                    property: name.clone(),
                    nullable,
                });
                all.push(Value::from(name.clone()));
            }
        }
    }
    all.extend(listed.into_iter().filter(|n| {
        n.as_str()
            .is_some_and(|n| !properties.keys().any(|name| name == n))
    }));
    match get_mut(node, "required") {
        Some(required) => *required = Value::Array(all),
        None => {
            let after = if has(node, "additionalProperties") {
                "additionalProperties"
            } else {
                "properties"
            };
            insert_after(node, after, "required", Value::Array(all));
        }
    }
}

/// Makes a property schema accept `null` as well (see [`StrictRequiredNullable`]); whether it
/// had to (it did not accept `null` before).
fn make_nullable(schema: &mut Value) -> bool {
    if accepts_null(schema) {
        return false;
    }
    let node = match schema {
        Value::Object(node) => node,
        // `false`: the property can never be present; `null` is the only way to say "absent".
        _ => {
            *schema = json!({"type": "null"});
            return true;
        }
    };
    let composed = node.keys().any(|k| COMPOSED.contains(&k.as_str()));
    if !composed && add_null_type(node) {
        if let Some(Value::Array(values)) = get_mut(node, "enum") {
            values.push(Value::Null);
        }
        return true;
    }
    let only_any_of = has(node, "anyOf")
        && !node.keys().any(|k| {
            [
                "type", "enum", "const", "oneOf", "allOf", "$ref", "not", "if",
            ]
            .contains(&k.as_str())
        });
    if let (true, Some(Value::Array(branches))) = (only_any_of, get_mut(node, "anyOf")) {
        branches.push(json!({"type": "null"}));
        return true;
    }
    wrap(node);
    true
}

/// Adds `null` to a string or array `type`; `false` when there is no usable `type`.
fn add_null_type(node: &mut Map<String, Value>) -> bool {
    match get_mut(node, "type") {
        Some(ty @ Value::String(_)) => {
            // Built directly: `json!` would serialise the value to copy it.
            *ty = Value::Array(vec![ty.take(), Value::from("null")]);
            true
        }
        Some(Value::Array(types)) => {
            types.push("null".into());
            true
        }
        _ => false,
    }
}

/// `{"description", "anyOf": [<node>, {"type": "null"}], "default"}`: the annotations stay
/// outside, where a model reads them for the property as a whole.
fn wrap(node: &mut Map<String, Value>) {
    let description = take(node, "description");
    let default = take(node, "default");
    let inner = std::mem::take(node);
    if let Some(description) = description {
        node.insert("description".into(), description);
    }
    node.insert("anyOf".into(), json!([inner, {"type": "null"}]));
    if let Some(default) = default {
        node.insert("default".into(), default);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::test_util::check;
    use schemars::json_schema;

    #[test]
    fn optional_properties_become_required_and_nullable() {
        check(
            StrictRequiredNullable::default(),
            json_schema!({
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "days": {"type": "integer", "default": 3},
                    "units": {"type": "string", "enum": ["c", "f"]},
                    "n": {"type": ["integer", "null"]},
                    "shape": {"description": "Shape.", "anyOf": [{"type": "object"}, {"type": "string"}]},
                    "p": {"description": "Where.", "type": "object", "properties": {"x": {"type": "number"}}, "additionalProperties": false, "default": {"x": 0}, "allOf": []},
                    "e": {"enum": [1, 2]},
                    "any": {},
                    "never": false,
                    "r": {"$ref": "#"}
                },
                "additionalProperties": false,
                "required": ["city", "ghost"]
            }),
            json_schema!({
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "days": {"type": ["integer", "null"], "default": 3},
                    "units": {"type": ["string", "null"], "enum": ["c", "f", null]},
                    "n": {"type": ["integer", "null"]},
                    "shape": {"description": "Shape.", "anyOf": [{"type": "object"}, {"type": "string"}, {"type": "null"}]},
                    "p": {"description": "Where.", "anyOf": [
                        {"type": "object", "properties": {"x": {"type": ["number", "null"]}}, "additionalProperties": false, "required": ["x"], "allOf": []},
                        {"type": "null"}
                    ], "default": {"x": 0}},
                    "e": {"anyOf": [{"enum": [1, 2]}, {"type": "null"}]},
                    "any": {},
                    "never": {"type": "null"},
                    "r": {"anyOf": [{"$ref": "#"}, {"type": "null"}]}
                },
                "additionalProperties": false,
                "required": ["city", "days", "units", "n", "shape", "p", "e", "any", "never", "r", "ghost"]
            }),
        );
    }

    #[test]
    fn required_is_added_after_additional_properties() {
        check(
            StrictRequiredNullable::default(),
            json_schema!({"items": {"properties": {"a": {"type": "boolean"}}, "additionalProperties": false, "description": "x"}}),
            json_schema!({"items": {
                "properties": {"a": {"type": ["boolean", "null"]}},
                "additionalProperties": false,
                "required": ["a"],
                "description": "x"
            }}),
        );
    }

    #[test]
    fn odd_inputs() {
        let odd = json_schema!({"properties": [1], "required": "x", "anyOf": [true, false]});
        check(StrictRequiredNullable::default(), odd.clone(), odd);
        check(
            StrictRequiredNullable::default(),
            json_schema!(true),
            json_schema!(true),
        );
        check(
            StrictRequiredNullable::default(),
            json_schema!({"properties": {"t": {"type": 5}}}),
            json_schema!({"properties": {"t": {"anyOf": [{"type": 5}, {"type": "null"}]}}, "required": ["t"]}),
        );
    }
}
