//! The object a call's arguments text stands for, when a reply must show them as an object
//! (Messages' `tool_use.input`) but the script wrote them as text that is not one: arguments cut
//! short by the token limit (`{"city": "Lisbon", "days":`), or malformed on purpose.
//!
//! Anthropic's streams carry a cut call's input only as its `partial_json` text; its whole replies
//! carry `input` as an object, and its SDKs read partial JSON leniently (the complete members, the
//! open containers closed). This does the same: the longest prefix of the text that, once its open
//! objects and arrays are closed, is a JSON object; else `{}`.

use serde_json::{Map, Value};

/// `text` parsed when it is a JSON object, else the object its longest closable prefix is, else
/// `{}`.
pub fn object(text: &str) -> Map<String, Value> {
    if let Ok(Value::Object(object)) = serde_json::from_str(text) {
        return object;
    }
    cut_points(text)
        .into_iter()
        .rev()
        .find_map(|(end, closers)| {
            match serde_json::from_str(&format!("{}{closers}", &text[..end])) {
                Ok(Value::Object(object)) => Some(object),
                _ => None,
            }
        })
        .unwrap_or_default()
}

/// Where a prefix of `text` could end, outside any string, right after a complete token (a
/// string, a number or literal followed by a delimiter, a bracket), with the brackets that close
/// what is open there. Whether the prefix then parses (a key without its value does not) is left
/// to the parser.
fn cut_points(text: &str) -> Vec<(usize, String)> {
    let bytes = text.as_bytes();
    let mut open: Vec<char> = Vec::new();
    let closers = |open: &[char]| open.iter().rev().collect::<String>();
    let mut points = Vec::new();
    let mut in_string = false;
    let mut escaped = false;
    for (at, &byte) in bytes.iter().enumerate() {
        if in_string {
            if escaped {
                escaped = false;
            } else if byte == b'\\' {
                escaped = true;
            } else if byte == b'"' {
                in_string = false;
                points.push((at + 1, closers(&open)));
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'{' | b'[' => {
                open.push(if byte == b'{' { '}' } else { ']' });
                points.push((at + 1, closers(&open)));
            }
            b'}' | b']' => {
                open.pop();
                points.push((at + 1, closers(&open)));
            }
            b',' | b':' => {}
            _ if byte.is_ascii_whitespace() => {}
            // A number or literal is complete only where something follows it: at the end of the
            // text it may have been cut (`12` of `125`, `tr` of `true`).
            _ => {
                let next = bytes.get(at + 1);
                if next.is_some_and(|next| {
                    matches!(next, b',' | b'}' | b']') || next.is_ascii_whitespace()
                }) {
                    points.push((at + 1, closers(&open)));
                }
            }
        }
    }
    points
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn of(text: &str) -> Value {
        Value::Object(object(text))
    }

    #[test]
    fn whole_objects_are_kept() {
        assert_eq!(
            of(r#"{"a": [1, {"b": null}]}"#),
            json!({"a": [1, {"b": null}]})
        );
    }

    #[test]
    fn cut_arguments_keep_their_complete_members() {
        assert_eq!(
            of(r#"{"city": "Lisbon", "days":"#),
            json!({"city": "Lisbon"})
        );
        assert_eq!(of(r#"{"city": "Lisbon", "#), json!({"city": "Lisbon"}));
        assert_eq!(of(r#"{"city": "Lis"#), json!({}));
        assert_eq!(of(r#"{"days": 12"#), json!({}));
        assert_eq!(of(r#"{"days": 12, "x": tr"#), json!({"days": 12}));
        assert_eq!(
            of(r#"{"a": {"b": [1, 2, "x\"}"#),
            json!({"a": {"b": [1, 2]}})
        );
        assert_eq!(
            of(r#"{"a": {"b": true}, "c": ["#),
            json!({"a": {"b": true}, "c": []})
        );
    }

    #[test]
    fn what_is_no_object_reads_as_an_empty_one() {
        assert_eq!(of("{oops"), json!({}));
        assert_eq!(of("[1, 2]"), json!({}));
        assert_eq!(of("5"), json!({}));
        assert_eq!(of(""), json!({}));
        assert_eq!(of(r#"{"a": 1} and more"#), json!({"a": 1}));
    }
}
