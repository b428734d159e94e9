//! The arguments as text, before any schema: one scan for depth, limits, parsing
//! with duplicate keys refused, and disposing of deep values without recursion.

use serde_json::{Map, Value};

use crate::ArgumentProblem;
use crate::describe_value::shorten;

use super::Limits;
use super::problems::{deserialize_problem, path_to_pointer};

/// What one pass over JSON text tells without parsing it.
pub(crate) struct Scan {
    /// The deepest nesting of `[` and `{`.
    pub depth: usize,
}

/// One linear pass over the bytes, skipping strings. Malformed text is left to the parser.
pub(crate) fn scan(bytes: &[u8]) -> Scan {
    let (mut depth, mut max_depth) = (0usize, 0usize);
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'[' | b'{' => {
                depth += 1;
                max_depth = max_depth.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    Scan { depth: max_depth }
}

/// How long `value` is as compact JSON text: what the byte limit counts when the arguments
/// arrive parsed (MCP's `tools/call`), as it counts the text when they arrive as text. Call it
/// only on a value within the depth limit, as serialising recurses.
pub(crate) fn json_len(value: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing a `Value` to a writer that cannot fail does not fail.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// Takes a value apart without recursion. serde_json's `Drop` for `Value` recurses, so dropping
/// a value nested 10,000 deep, which the depth limit has just refused, would overflow the stack.
pub(crate) fn dispose(value: Value) {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

/// Parses JSON text into a value, refusing duplicate keys: a `Value` keeps only the last of
/// them, so `{"city": "Paris", "city": "Rome"}` would silently become Rome, where deserialising
/// the argument type directly says "duplicate field". The error carries the path (on the error
/// path only, as serde_path_to_error needs a second parse).
pub(crate) fn parse_unique(bytes: &[u8]) -> Result<Value, ArgumentProblem> {
    read_unique(bytes, Text::Arguments).map_err(|unreadable| match unreadable {
        Unreadable::Syntax(problem) | Unreadable::Duplicate(problem) => problem,
    })
}

/// Why text could not be read as one value.
#[derive(Debug)]
pub(crate) enum Unreadable {
    /// It is not JSON.
    Syntax(ArgumentProblem),
    /// It is, but a key appears twice in one object (where, and which).
    Duplicate(ArgumentProblem),
}

/// [`parse_unique`], telling text that is not JSON from JSON with a key given twice: a JSON-RPC
/// server answers the first with a null id and the second with the request's. `text` says what
/// `bytes` are, for the words of a syntax error.
pub(crate) fn read_unique(bytes: &[u8], text: Text) -> Result<Value, Unreadable> {
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let parsed = serde::de::DeserializeSeed::deserialize(UniqueKeys, &mut deserializer)
        .and_then(|value| deserializer.end().map(|()| value));
    match parsed {
        Ok(value) => Ok(value),
        Err(error) if error.classify() != serde_json::error::Category::Data => {
            Err(Unreadable::Syntax(syntax_problem(text, &error)))
        }
        Err(_) => {
            let mut deserializer = serde_json::Deserializer::from_slice(bytes);
            Err(Unreadable::Duplicate(
                match serde_path_to_error::deserialize::<_, UniqueValue>(&mut deserializer) {
                    Err(error) => deserialize_problem(path_to_pointer(error.path()), error.inner()),
                    Ok(_) => ArgumentProblem {
                        pointer: String::new(),
                        message: format!(
                            "{} could not be read consistently; send {} again",
                            text.subject(),
                            text.pronoun()
                        ),
                    },
                },
            ))
        }
    }
}

/// A `Value` that refuses duplicate keys when deserialised.
struct UniqueValue(#[allow(dead_code)] Value);

impl<'de> serde::Deserialize<'de> for UniqueValue {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        serde::de::DeserializeSeed::deserialize(UniqueKeys, deserializer).map(UniqueValue)
    }
}

/// Builds a `Value` as serde_json's own visitor does, but refuses duplicate keys.
#[derive(Clone, Copy)]
struct UniqueKeys;

impl<'de> serde::de::DeserializeSeed<'de> for UniqueKeys {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for UniqueKeys {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(v.into())
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(v.into())
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(serde::de::Error::custom(format_args!(
                    "the key `{}` is given twice; give it once",
                    shorten(&key, 40)
                )));
            }
            let value = map.next_value_seed(self)?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

/// Problems with the text itself, before any schema.
pub(crate) fn limit_problems(
    len: Option<usize>,
    depth: usize,
    limits: &Limits,
) -> Vec<ArgumentProblem> {
    let mut problems = Vec::new();
    if let Some(len) = len.filter(|&len| len > limits.max_bytes) {
        problems.push(ArgumentProblem {
            pointer: String::new(),
            message: format!(
                "the arguments are {len} bytes long; at most {} are accepted. Send less data",
                limits.max_bytes
            ),
        });
    }
    if depth > limits.max_depth {
        problems.push(ArgumentProblem {
            pointer: String::new(),
            message: format!(
                "the arguments are nested {depth} levels deep; at most {} are accepted",
                limits.max_depth
            ),
        });
    }
    problems
}

/// What a text being read is, for the words of its problems: a tool's arguments, or a whole
/// JSON-RPC message, whose arguments (if it has any) were never reached when it is not JSON.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Text {
    Arguments,
    #[cfg_attr(
        not(feature = "mcp"),
        allow(dead_code, reason = "read by the MCP transport alone")
    )]
    Message,
}

impl Text {
    fn subject(self) -> &'static str {
        match self {
            Text::Arguments => "the arguments",
            Text::Message => "the message",
        }
    }

    fn pronoun(self) -> &'static str {
        match self {
            Text::Arguments => "them",
            Text::Message => "it",
        }
    }
}

/// A JSON syntax error in `text` as a problem.
pub(crate) fn syntax_problem(text: Text, error: &serde_json::Error) -> ArgumentProblem {
    let subject = text.subject();
    let (is, ends) = match text {
        Text::Arguments => ("are", "they end"),
        Text::Message => ("is", "it ends"),
    };
    let message = if error.is_eof() {
        format!("{subject} {is} not complete JSON: {ends} too early ({error})")
    } else if error.to_string().contains("recursion limit") {
        format!("{subject} {is} nested too deeply")
    } else {
        format!("{subject} {is} not valid JSON: {error}")
    };
    ArgumentProblem {
        pointer: String::new(),
        message,
    }
}

/// Whether a `null` appears anywhere in `value` (iteratively: the value may be deep).
pub(crate) fn has_null(value: &Value) -> bool {
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            Value::Null => return true,
            Value::Array(items) => pending.extend(items),
            Value::Object(map) => pending.extend(map.values()),
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scan_skips_strings() {
        let s = scan(br#"{"a": "[[[null", "b": [[1]]}"#);
        assert_eq!(s.depth, 3);
        assert_eq!(scan(br#"{"a": "\"[", "b": null}"#).depth, 1);
    }
}

#[cfg(test)]
mod unique_tests {
    use super::*;

    #[test]
    fn duplicate_keys_are_refused_with_their_path() {
        assert!(parse_unique(br#"{"a": {"b": 1}, "c": [1, null, "x"]}"#).is_ok());
        let top = parse_unique(br#"{"city": "Paris", "city": "Rome"}"#).unwrap_err();
        assert!(
            top.message.contains("`city` is given twice"),
            "{}",
            top.message
        );
        let nested = parse_unique(br#"{"guest": {"name": "a", "name": "b"}}"#).unwrap_err();
        assert_eq!(nested.pointer, "/guest");
        assert!(
            nested.message.contains("`name` is given twice"),
            "{}",
            nested.message
        );
    }

    #[test]
    fn deep_values_are_disposed_of_without_recursion() {
        let mut value = Value::Null;
        for _ in 0..200_000 {
            let mut map = Map::new();
            map.insert("a".to_owned(), value);
            value = Value::Object(map);
        }
        dispose(value);
    }
}
