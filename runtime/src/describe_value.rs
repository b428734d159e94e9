//! Short renderings of values received from a model, for error messages: a 10 MB string must not
//! come back in full.

use serde_json::Value;

/// At most this many characters of a received value are quoted back.
const QUOTE_CHARS: usize = 60;

/// `s` cut to `max` characters (on a character boundary), with `…` and the full length when cut.
pub(crate) fn shorten(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_owned(),
        Some((cut, _)) => format!("{}… ({} characters)", &s[..cut], s.chars().count()),
    }
}

/// A received value as the model sent it, shortened: `"Paris"`, `30`, `an object`, `an array
/// of 3 items`.
pub(crate) fn received(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        // Escaped as JSON writes it, so that a quote, a backslash or a control character in the
        // value cannot be read as the end of the quotation (`"a\"b"`, not `"a"b"`).
        Value::String(s) => Value::String(shorten(s, QUOTE_CHARS)).to_string(),
        Value::Array(items) => match items.len() {
            1 => "an array of 1 item".to_owned(),
            n => format!("an array of {n} items"),
        },
        Value::Object(map) => match map.len() {
            0 => "an empty object".to_owned(),
            _ => "an object".to_owned(),
        },
    }
}

/// The JSON type of a value, in words.
pub(crate) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a number",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A received value's JSON type with the value itself where that says more: `null`, `a boolean
/// (true)`, `an integer (30)`, `a string ("Paris")`, `an array of 3 items`, `an empty object`.
/// [`received`] of a `null`, an array or an object already names its type, so it is not said
/// twice ("null (null)", "an array (an array of 3 items)").
pub(crate) fn typed(value: &Value) -> String {
    match value {
        Value::Null | Value::Array(_) | Value::Object(_) => received(value),
        Value::Bool(_) | Value::Number(_) | Value::String(_) => {
            format!("{} ({})", type_name(value), received(value))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn long_strings_are_cut_on_a_char_boundary() {
        let s = "é".repeat(100);
        let short = shorten(&s, 10);
        assert!(short.starts_with(&"é".repeat(10)));
        assert!(short.ends_with("(100 characters)"));
        assert_eq!(shorten("abc", 10), "abc");
    }

    #[test]
    fn received_values() {
        assert_eq!(received(&json!("x")), "\"x\"");
        assert_eq!(received(&json!("a\"b\n")), r#""a\"b\n""#);
        assert_eq!(received(&json!([1, 2])), "an array of 2 items");
        assert_eq!(received(&json!({})), "an empty object");
        assert_eq!(type_name(&json!(1.5)), "a number");
    }

    #[test]
    fn a_type_is_said_once() {
        assert_eq!(typed(&json!(null)), "null");
        assert_eq!(typed(&json!(true)), "a boolean (true)");
        assert_eq!(typed(&json!(false)), "a boolean (false)");
        assert_eq!(typed(&json!(30)), "an integer (30)");
        assert_eq!(typed(&json!(2.5)), "a number (2.5)");
        assert_eq!(typed(&json!("Paris")), "a string (\"Paris\")");
        assert_eq!(typed(&json!([1, 2])), "an array of 2 items");
        assert_eq!(typed(&json!({})), "an empty object");
        assert_eq!(typed(&json!({"a": 1})), "an object");
    }
}
