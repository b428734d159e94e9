//! Whether what reached the function means what the model sent, judged by the canonical
//! schema (which keeps what the renderings drop: `format: float`, the `default`s):
//!
//! - a property left out means its `default` where the schema has one, and nothing (`null`)
//!   otherwise;
//! - integers are equal by value, so `3` and `3.0` are the same integer; a `number` is a double,
//!   equal to the double nearest to what was sent (`18446744073709551615` is
//!   `1.8446744073709552e19`); under `format: float` (an `f32`) two numbers are equal when
//!   they are the same `f32`; `0.0` and `-0.0` are equal;
//! - `date-time`s are equal when they denote the same instant (whatever the offset), `date`,
//!   `partial-time` and `partial-date-time` when they denote the same day or time (`08:00:00.5`
//!   is `08:00:00.500`), `uuid`s regardless of case, `uri`s when the WHATWG URL parser reads
//!   them as the same URL, IP addresses when they are the same address;
//! - arrays with `uniqueItems` (sets) regardless of order, others item by item;
//! - objects property by property, and nothing reached the function that the model did not
//!   send or the schema does not describe;
//! - a union (`anyOf`/`oneOf`) when some branch finds them equal.

use std::net::IpAddr;

use serde_json::Value;

use super::branch::{escape, item_schema};
use super::formats;
use super::node::{self, as_integer, json_equal};

/// Where and how what reached the function differs from what the model meant.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    /// A JSON Pointer into the arguments.
    pub pointer: String,
    /// What the model meant (`None`: nothing).
    pub meant: Option<Value>,
    /// What reached the function (`None`: nothing).
    pub got: Option<Value>,
    /// Why they differ.
    pub why: String,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let show = |v: &Option<Value>| v.as_ref().map_or("(nothing)".to_owned(), Value::to_string);
        write!(
            f,
            "at `{}`: sent {}, the function got {} ({})",
            self.pointer,
            shorten(&show(&self.meant)),
            shorten(&show(&self.got)),
            self.why
        )
    }
}

fn shorten(s: &str) -> String {
    match s.char_indices().nth(200) {
        Some((cut, _)) => format!("{}…", &s[..cut]),
        None => s.to_owned(),
    }
}

/// Compares what the model `sent` (its `null`s for optional properties already removed) with
/// what the function `got`, under the canonical schema `root`.
pub fn compare(root: &Value, sent: &Value, got: &Value) -> Result<(), Box<Mismatch>> {
    Comparer { root }.compare(root, Some(sent), Some(got), "")
}

struct Comparer<'r> {
    root: &'r Value,
}

impl Comparer<'_> {
    fn mismatch(
        &self,
        pointer: &str,
        meant: Option<&Value>,
        got: Option<&Value>,
        why: impl Into<String>,
    ) -> Box<Mismatch> {
        Box::new(Mismatch {
            pointer: pointer.to_owned(),
            meant: meant.cloned(),
            got: got.cloned(),
            why: why.into(),
        })
    }

    fn compare(
        &self,
        schema: &Value,
        sent: Option<&Value>,
        got: Option<&Value>,
        pointer: &str,
    ) -> Result<(), Box<Mismatch>> {
        // The default beside a `$ref` describes the field: read it before resolving.
        let default = schema.get("default").cloned();
        let node = node::plain(self.root, schema);
        let default = default.or_else(|| node.get("default").cloned());
        let sent = match (sent, &default) {
            (Some(sent), _) => Some(sent),
            (None, Some(default)) => Some(default),
            (None, None) => None,
        };
        let Some(sent) = sent else {
            return match got {
                None | Some(Value::Null) => Ok(()),
                Some(other) => Err(self.mismatch(
                    pointer,
                    None,
                    Some(other),
                    "nothing was sent and the schema has no default",
                )),
            };
        };
        for key in ["anyOf", "oneOf"] {
            if let Some(branches) = node.get(key).and_then(Value::as_array) {
                // The deepest mismatch of any branch: the branch the value was meant for
                // gets furthest.
                let mut first_error: Option<Box<Mismatch>> = None;
                for branch in branches {
                    // `sent` is known by now: the node's `default` no longer matters.
                    let merged = node::with_branch(self.root, &node, key, branch);
                    match self.compare(&merged, Some(sent), got, pointer) {
                        Ok(()) => return Ok(()),
                        Err(e) => {
                            if first_error
                                .as_ref()
                                .is_none_or(|f| e.pointer.len() > f.pointer.len())
                            {
                                first_error = Some(e);
                            }
                        }
                    }
                }
                return Err(first_error
                    .unwrap_or_else(|| self.mismatch(pointer, Some(sent), got, "no branch")));
            }
        }
        let Some(got) = got else {
            return Err(self.mismatch(pointer, Some(sent), None, "nothing reached the function"));
        };
        match (sent, got) {
            (Value::Null, Value::Null) => Ok(()),
            (Value::Number(a), Value::Number(b)) => {
                let float = node.get("format").and_then(Value::as_str) == Some("float");
                let types = node::declared_types(&node).unwrap_or_default();
                let integer =
                    types.iter().any(|t| t == "integer") && !types.iter().any(|t| t == "number");
                let equal = if float {
                    let (x, y) = (
                        a.as_f64().unwrap_or(f64::NAN) as f32,
                        b.as_f64().unwrap_or(f64::NAN) as f32,
                    );
                    x == y
                } else if integer || types.is_empty() {
                    match (as_integer(a), as_integer(b)) {
                        (Some(x), Some(y)) => x == y,
                        _ => a.as_f64() == b.as_f64(),
                    }
                } else {
                    // A `number` is a double: the nearest double to what was sent.
                    a.as_f64() == b.as_f64()
                };
                if equal {
                    Ok(())
                } else if float {
                    Err(self.mismatch(pointer, Some(sent), Some(got), "not the same f32"))
                } else {
                    Err(self.mismatch(pointer, Some(sent), Some(got), "a different number"))
                }
            }
            (Value::String(a), Value::String(b)) => {
                let format = node.get("format").and_then(Value::as_str).unwrap_or("");
                if same_string(format, a, b) {
                    Ok(())
                } else {
                    Err(self.mismatch(
                        pointer,
                        Some(sent),
                        Some(got),
                        if format.is_empty() {
                            "a different string".to_owned()
                        } else {
                            format!("a different `{format}`")
                        },
                    ))
                }
            }
            (Value::Array(a), Value::Array(b)) => {
                if a.len() != b.len() {
                    return Err(self.mismatch(
                        pointer,
                        Some(sent),
                        Some(got),
                        format!("{} items sent, {} received", a.len(), b.len()),
                    ));
                }
                if node.get("uniqueItems") == Some(&Value::Bool(true)) {
                    let mut unused: Vec<bool> = vec![true; b.len()];
                    for (i, item) in a.iter().enumerate() {
                        let schema = item_schema(&node, i);
                        let found = (0..b.len()).find(|&j| {
                            unused[j]
                                && self
                                    .compare(schema, Some(item), Some(&b[j]), pointer)
                                    .is_ok()
                        });
                        match found {
                            Some(j) => unused[j] = false,
                            None => {
                                return Err(self.mismatch(
                                    &format!("{pointer}/{i}"),
                                    Some(item),
                                    None,
                                    "this item of a set did not reach the function",
                                ));
                            }
                        }
                    }
                    return Ok(());
                }
                for (i, (x, y)) in a.iter().zip(b).enumerate() {
                    self.compare(
                        item_schema(&node, i),
                        Some(x),
                        Some(y),
                        &format!("{pointer}/{i}"),
                    )?;
                }
                Ok(())
            }
            (Value::Object(a), Value::Object(b)) => {
                let properties = node.get("properties").and_then(Value::as_object);
                for (key, property) in properties.into_iter().flatten() {
                    self.compare(
                        property,
                        a.get(key),
                        b.get(key),
                        &format!("{pointer}/{}", escape(key)),
                    )?;
                }
                let anything = Value::Bool(true);
                let extra = node.get("additionalProperties").unwrap_or(&anything);
                for (key, value) in a {
                    if properties.is_some_and(|p| p.contains_key(key)) {
                        continue;
                    }
                    self.compare(
                        extra,
                        Some(value),
                        b.get(key),
                        &format!("{pointer}/{}", escape(key)),
                    )?;
                }
                for (key, value) in b {
                    if !a.contains_key(key) && !properties.is_some_and(|p| p.contains_key(key)) {
                        return Err(self.mismatch(
                            &format!("{pointer}/{}", escape(key)),
                            None,
                            Some(value),
                            "the function got a property that was not sent",
                        ));
                    }
                }
                Ok(())
            }
            _ if json_equal(sent, got) => Ok(()),
            _ => Err(self.mismatch(pointer, Some(sent), Some(got), "a different value")),
        }
    }
}

/// Whether two strings of `format` mean the same value.
pub fn same_string(format: &str, a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    match format {
        "date-time" => formats::instant(a).is_some() && formats::instant(a) == formats::instant(b),
        "date" => {
            parse::<chrono::NaiveDate>(a).is_some() && parse::<chrono::NaiveDate>(a) == parse(b)
        }
        "partial-time" => {
            parse::<chrono::NaiveTime>(a).is_some() && parse::<chrono::NaiveTime>(a) == parse(b)
        }
        "partial-date-time" => {
            parse::<chrono::NaiveDateTime>(a).is_some()
                && parse::<chrono::NaiveDateTime>(a) == parse(b)
        }
        "uuid" => a.eq_ignore_ascii_case(b),
        "uri" => url::Url::parse(a).is_ok() && url::Url::parse(a).ok() == url::Url::parse(b).ok(),
        "ip" | "ipv4" | "ipv6" => {
            a.parse::<IpAddr>().is_ok() && a.parse::<IpAddr>().ok() == b.parse().ok()
        }
        _ => false,
    }
}

fn parse<T: std::str::FromStr>(s: &str) -> Option<T> {
    s.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn meaning_not_spelling() {
        let schema = json!({
            "type": "object",
            "properties": {
                "n": {"type": "integer"},
                "f": {"type": "number", "format": "float"},
                "at": {"type": "string", "format": "date-time"},
                "set": {"type": "array", "uniqueItems": true, "items": {"type": "integer"}},
                "d": {"type": "integer", "default": 3},
                "o": {"type": ["string", "null"]}
            }
        });
        let sent = json!({"n": 3.0, "f": 0.1, "at": "2024-01-01T01:00:00+01:00", "set": [1, 2]});
        let got = json!({"n": 3, "f": 0.10000000149011612, "at": "2024-01-01T00:00:00Z", "set": [2, 1], "d": 3, "o": null});
        assert_eq!(compare(&schema, &sent, &got), Ok(()));
        let wrong = json!({"n": 3, "f": 0.1, "at": "2024-01-01T00:00:00Z", "set": [2, 1], "d": 4, "o": null});
        assert_eq!(compare(&schema, &sent, &wrong).unwrap_err().pointer, "/d");
    }
}
