//! The ranges of Rust's number types that no rendering states (docs/TARGET_RULES.md: 32- and
//! 64-bit integers and `f32` carry no bounds beyond an unsigned type's `minimum: 0`; Gemini keeps
//! `int32`/`int64` as formats), read from the canonical
//! schema's `format`s: part of the full constraints, so that a value past them must be refused
//! with the range in words, and a value within them (`3.4028235e38`, the shortest spelling of
//! `f32::MAX`) accepted.

use serde_json::Value;

use super::branch::{branch_for, escape, item_schema, property_schema};
use super::messages::{Expected, spellings};
use super::node::as_integer;

/// The integer range a schemars `format` names.
fn integer_range(format: &str) -> Option<(i128, i128)> {
    Some(match format {
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        "int64" | "int" => (i64::MIN.into(), i64::MAX.into()),
        "uint8" => (0, u8::MAX.into()),
        "uint16" => (0, u16::MAX.into()),
        "uint32" => (0, u32::MAX.into()),
        "uint64" | "uint" => (0, u64::MAX.into()),
        _ => return None,
    })
}

/// Whether `n` fits the number type of `format` (`None`: the format names no number type).
pub fn fits_format(format: &str, n: &serde_json::Number) -> Option<bool> {
    if format == "float" {
        // `as f32` rounds to the nearest `f32`: what rounds to a finite one is an `f32`.
        return Some(n.as_f64().is_some_and(|x| (x as f32).is_finite()));
    }
    let (lo, hi) = integer_range(format)?;
    Some(match as_integer(n) {
        Some(i) => (lo..=hi).contains(&i),
        // An integer too large for `as_integer` (`1e300`) is past every integer type; a
        // fraction is not an integer at all, which is `type`'s to say.
        None => n.as_f64().is_none_or(|x| x.fract() != 0.0),
    })
}

fn bounds_words(format: &str) -> Vec<String> {
    match format {
        "float" => vec!["3.4028235e38".to_owned(), "3.4028235e+38".to_owned()],
        other => integer_range(other)
            .map(|(lo, hi)| vec![hi.to_string(), lo.to_string()])
            .unwrap_or_default(),
    }
}

/// Whether `canonical` has a number type whose range the renderings leave unsaid (32- and
/// 64-bit integers, `f32`): only then is [`range_errors`] worth its walk.
pub fn has_unstated_ranges(canonical: &Value) -> bool {
    let text = canonical.to_string();
    [
        "\"int32\"",
        "\"uint32\"",
        "\"int64\"",
        "\"uint64\"",
        "\"int\"",
        "\"uint\"",
        "\"float\"",
    ]
    .iter()
    .any(|f| text.contains(f))
}

/// The values of `instance` outside the range of their Rust number type, as the oracle's
/// errors, walking it alongside the canonical schema `root`.
pub fn range_errors(root: &Value, instance: &Value) -> Vec<Expected> {
    let mut out = Vec::new();
    walk(root, instance, root, String::new(), &mut out);
    out
}

fn walk(root: &Value, value: &Value, schema: &Value, pointer: String, out: &mut Vec<Expected>) {
    if !matches!(value, Value::Number(_) | Value::Object(_) | Value::Array(_)) {
        return;
    }
    let node = branch_for(root, value, schema);
    match value {
        Value::Number(n) => {
            if let Some(format) = node.get("format").and_then(Value::as_str)
                && fits_format(format, n) == Some(false)
            {
                out.push(Expected {
                    pointer,
                    must_say: vec![bounds_words(format)],
                    received: spellings(value),
                    union: false,
                    takes_type: false,
                    text: format!("{value} is outside the range of `{format}`"),
                });
            }
        }
        Value::Object(object) => {
            for (key, child) in object {
                if let Some(child_schema) = property_schema(&node, key) {
                    walk(
                        root,
                        child,
                        child_schema,
                        format!("{pointer}/{}", escape(key)),
                        out,
                    );
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                walk(
                    root,
                    item,
                    item_schema(&node, i),
                    format!("{pointer}/{i}"),
                    out,
                );
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn type_ranges() {
        let n = |v: Value| v.as_number().cloned().unwrap();
        assert_eq!(fits_format("float", &n(json!(3.4028235e38))), Some(true));
        assert_eq!(fits_format("float", &n(json!(3.5e38))), Some(false));
        assert_eq!(fits_format("uint64", &n(json!(u64::MAX))), Some(true));
        assert_eq!(
            fits_format("uint64", &n(json!(18446744073709551616.0))),
            Some(false)
        );
        assert_eq!(
            fits_format("int64", &n(json!(-9223372036854775808.0))),
            Some(true)
        );
        assert_eq!(fits_format("uint32", &n(json!(1e300))), Some(false));
        assert_eq!(fits_format("uint32", &n(json!(2.5))), Some(true));
        assert_eq!(fits_format("double", &n(json!(1))), None);
        let schema = json!({
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A"}},
            "$defs": {"A": {"type": "array", "items": {"type": "number", "format": "float"}}}
        });
        let errors = range_errors(&schema, &json!({"a": [1.0, 1e39]}));
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].pointer, "/a/1");
    }
}
