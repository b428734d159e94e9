//! The schema each target shows the model, as JSON Schema 2020-12 that the generator and the
//! `jsonschema` crate read: found in the target's tool JSON, and for Gemini translated from its
//! OpenAPI 3.0 dialect (`nullable: true` → the type `null`; upper-case types lower-cased;
//! `format: int32`/`int64`/`float` → the ranges those formats mean, `float` up to
//! ±3.4028235e38, the shortest spelling of `f32::MAX`; `propertyOrdering` dropped). Validators assert formats, including those schemars writes for chrono's naive
//! types (`partial-time`, `partial-date-time`) and `std::net::IpAddr` (`ip`), which the
//! `jsonschema` crate would otherwise ignore.

use serde_json::{Value, json};
use tooldef::Target;

use super::formats;

/// The input schema inside a target's tool JSON (`None`: Gemini's tool without parameters).
pub fn input_schema_of(tool: &Value, target: Target) -> Option<Value> {
    crate::input_schema_in(tool, target).cloned()
}

/// Whether the target's tool JSON asks for strict mode (OpenAI `strict: true`): the model then
/// sends every property, `null` for those it leaves out.
pub fn is_strict(tool: &Value, target: Target) -> bool {
    let strict = match target {
        Target::ChatCompletions => tool.pointer("/function/strict"),
        Target::Responses => tool.get("strict"),
        _ => None,
    };
    strict == Some(&Value::Bool(true))
}

/// The schema the model is shown for `target`, as JSON Schema 2020-12. A Gemini tool without
/// `parameters` takes no arguments: the empty closed object.
pub fn shown_schema(tool: &Value, target: Target) -> Value {
    match input_schema_of(tool, target) {
        Some(schema) if target == Target::Gemini => {
            let mut schema = schema;
            openapi_as_json_schema(&mut schema);
            schema
        }
        Some(schema) => schema,
        None => json!({"type": "object", "properties": {}, "additionalProperties": false}),
    }
}

/// Gemini's OpenAPI 3.0 keywords as JSON Schema, at every schema position.
pub fn openapi_as_json_schema(schema: &mut Value) {
    let Value::Object(map) = schema else { return };
    map.remove("propertyOrdering");
    if let Some(Value::String(ty)) = map.get_mut("type") {
        *ty = ty.to_lowercase();
    }
    let ty = map.get("type").and_then(Value::as_str).map(str::to_owned);
    match (ty.as_deref(), map.get("format").and_then(Value::as_str)) {
        (Some("integer"), Some("int32")) => {
            tighten(map, i64::from(i32::MIN).into(), i64::from(i32::MAX).into());
            map.remove("format");
        }
        (Some("integer"), Some("int64")) => {
            tighten(map, i64::MIN.into(), i64::MAX.into());
            map.remove("format");
        }
        (Some("number"), Some("float")) => {
            // The decimal that rounds to `f32::MAX` (its shortest spelling), not `f32::MAX`
            // widened, which is a little less.
            tighten(map, json!(-3.4028235e38), json!(3.4028235e38));
            map.remove("format");
        }
        (Some("number"), Some("double")) => {
            map.remove("format");
        }
        _ => {}
    }
    if map.get("nullable") == Some(&Value::Bool(true)) {
        map.remove("nullable");
        if let Some(ty) = &ty {
            map.insert("type".to_owned(), json!([ty, "null"]));
        } else if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
            branches.push(json!({"type": "null"}));
        }
        if let Some(Value::Array(values)) = map.get_mut("enum") {
            values.push(Value::Null);
        }
    } else {
        map.remove("nullable");
    }
    for (key, value) in map.iter_mut() {
        match key.as_str() {
            "properties" => value
                .as_object_mut()
                .into_iter()
                .flatten()
                .for_each(|(_, s)| openapi_as_json_schema(s)),
            "items" => openapi_as_json_schema(value),
            "anyOf" | "oneOf" | "allOf" => value
                .as_array_mut()
                .into_iter()
                .flatten()
                .for_each(openapi_as_json_schema),
            _ => {}
        }
    }
}

/// `minimum`/`maximum` made at least as tight as `lo`/`hi`.
fn tighten(map: &mut serde_json::Map<String, Value>, lo: Value, hi: Value) {
    let tighter = |existing: Option<&Value>, bound: &Value, keep_larger: bool| match existing {
        Some(e) if e.as_f64().is_some() => {
            let (e_f, b_f) = (e.as_f64().unwrap_or(0.0), bound.as_f64().unwrap_or(0.0));
            if (e_f >= b_f) == keep_larger {
                e.clone()
            } else {
                bound.clone()
            }
        }
        _ => bound.clone(),
    };
    let min = tighter(map.get("minimum"), &lo, true);
    let max = tighter(map.get("maximum"), &hi, false);
    map.insert("minimum".to_owned(), min);
    map.insert("maximum".to_owned(), max);
}

/// A draft 2020-12 validator for `schema`, formats asserted (also `partial-time`,
/// `partial-date-time` and `ip`; host names and mailboxes read apart from the library, by the
/// `idna` and `email_address` crates).
pub fn validator(schema: &Value) -> Result<jsonschema::Validator, String> {
    jsonschema::draft202012::options()
        .should_validate_formats(true)
        .with_format("partial-time", formats::is_partial_time)
        .with_format("partial-date-time", formats::is_partial_date_time)
        .with_format("ip", formats::is_ip)
        .with_format("hostname", formats::is_hostname)
        .with_format("idn-hostname", formats::is_idn_hostname)
        .with_format("email", formats::is_email)
        .with_format("idn-email", formats::is_idn_email)
        .build(schema)
        .map_err(|err| format!("the schema does not compile: {err}\n{schema}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gemini_nullable_and_formats_become_json_schema() {
        let mut schema = json!({
            "type": "OBJECT",
            "properties": {
                "a": {"type": "integer", "format": "int32", "nullable": true},
                "b": {"type": "number", "format": "float", "minimum": 0},
                "c": {"anyOf": [{"type": "string"}], "nullable": true},
                "d": {"type": "string", "enum": ["x"], "nullable": true}
            },
            "propertyOrdering": ["a", "b", "c", "d"]
        });
        openapi_as_json_schema(&mut schema);
        assert_eq!(
            schema,
            json!({
                "type": "object",
                "properties": {
                    "a": {"type": ["integer", "null"], "minimum": -2147483648i64, "maximum": 2147483647},
                    "b": {"type": "number", "minimum": 0, "maximum": 3.4028235e38},
                    "c": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                    "d": {"type": ["string", "null"], "enum": ["x", null]}
                }
            })
        );
    }
}
