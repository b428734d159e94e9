//! Rewriting parsed arguments along the schema the model was shown, before validation: the
//! object they must be, `null` as absent, and the leniencies.

use serde_json::{Map, Value};

use crate::ArgumentProblem;
use crate::describe_value::typed;
use crate::instance;

/// The arguments must be an object; `null` or nothing at all counts as `{}` (models send both for
/// tools without parameters).
pub(crate) fn require_object(value: Value) -> Result<Map<String, Value>, ArgumentProblem> {
    match value {
        Value::Object(map) => Ok(map),
        Value::Null => Ok(Map::new()),
        other => Err(ArgumentProblem {
            pointer: String::new(),
            message: format!(
                "the arguments must be a JSON object of named arguments, not {}",
                typed(&other)
            ),
        }),
    }
}

/// Double-encoded arguments (`"{\"a\":1}"`), decoded once.
pub(crate) fn decode_double_encoded(value: Value) -> Value {
    match value {
        Value::String(text) => match serde_json::from_str::<Value>(&text) {
            Ok(inner @ Value::Object(_)) => inner,
            _ => Value::String(text),
        },
        other => other,
    }
}

/// The rewrites along the shown schema, in one walk over the arguments (each value is visited
/// once, with the branches that describe it): `null` as absent, numbers and booleans sent as
/// strings when `stringly` (leniency), and `3.0` as `3`.
pub(crate) fn rewrite(data: &mut Value, schema: &Value, stringly: bool) {
    instance::walk_mut(data, schema, schema, &mut |value, branches| {
        nulls_as_absent(value, branches);
        if stringly {
            coerce_string(value, branches);
        }
        integer_valued(value, branches);
    });
}

/// `null` for a property that the schema makes optional means "absent": strict-mode models must
/// send every property and send `null` for those they leave out, and the default must then
/// apply. Properties that are required stay as sent (their `null` is an error, or a value).
fn nulls_as_absent(value: &mut Value, branches: &[&Value]) {
    if let Value::Object(map) = value {
        map.retain(|key, value| !(value.is_null() && optional_in(key, branches)));
    }
}

/// Whether some branch declares `key` and does not require it.
fn optional_in(key: &str, branches: &[&Value]) -> bool {
    branches.iter().any(|branch| {
        let declared = branch.get("properties").and_then(|p| p.get(key)).is_some();
        let required = branch
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|r| r.iter().any(|k| k == key));
        declared && !required
    })
}

/// `"3"` → `3` and `"true"` → `true` where the schema wants a number, integer or boolean.
fn coerce_string(value: &mut Value, branches: &[&Value]) {
    let Value::String(text) = value else { return };
    let wants = instance::types_of(branches);
    let text = text.trim();
    if wants.contains(&"boolean") && (text == "true" || text == "false") {
        *value = Value::Bool(text == "true");
    } else if wants.contains(&"integer") {
        if let Ok(n) = text.parse::<i64>() {
            *value = n.into();
        } else if let Ok(n) = text.parse::<u64>() {
            *value = n.into();
        }
    } else if wants.contains(&"number")
        && let Some(n) = text
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
    {
        *value = Value::Number(n);
    }
}

/// `3.0` → `3` where the schema wants an integer and not any number. JSON Schema counts `3.0` as
/// an integer (and so does the validator), clients such as Python's `json.dumps(3.0)` send it,
/// but serde refuses a float for every Rust integer type. A value outside the 64-bit range is
/// left as it is, for the range check to explain.
fn integer_valued(value: &mut Value, branches: &[&Value]) {
    let Some(float) = value.as_f64().filter(|_| value.is_f64()) else {
        return;
    };
    let wants = instance::types_of(branches);
    if float.fract() != 0.0 || !wants.contains(&"integer") || wants.contains(&"number") {
        return;
    }
    // `as` saturates; the comparison keeps only exact conversions.
    if (0.0..18_446_744_073_709_551_616.0).contains(&float) {
        *value = (float as u64).into();
    } else if (-9_223_372_036_854_775_808.0..0.0).contains(&float) {
        *value = (float as i64).into();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nulls_become_absent_only_where_optional() {
        let schema = json!({
            "type": "object",
            "properties": {
                "a": {"type": "integer"},
                "b": {"type": ["integer", "null"]},
                "nested": {"$ref": "#/$defs/N"},
                "list": {"type": "array", "items": {"$ref": "#/$defs/N"}}
            },
            "required": ["a"],
            "$defs": {"N": {"type": "object", "properties": {"x": {"type": "string"}, "y": {"type": "string"}}, "required": ["x"]}}
        });
        let mut data = json!({"a": null, "b": null, "nested": {"x": null, "y": null}, "list": [{"x": "1", "y": null}]});
        rewrite(&mut data, &schema, false);
        assert_eq!(
            data,
            json!({"a": null, "nested": {"x": null}, "list": [{"x": "1"}]})
        );
    }

    #[test]
    fn strings_coerced_only_where_the_schema_wants_numbers_or_booleans() {
        let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}, "f": {"type": ["number", "null"]}, "b": {"type": "boolean"}, "s": {"type": "string"}}});
        let mut data = json!({"n": "3", "f": "1.5", "b": "true", "s": "4"});
        rewrite(&mut data, &schema, true);
        assert_eq!(data, json!({"n": 3, "f": 1.5, "b": true, "s": "4"}));
    }
}
