//! The argument pipeline, before the tool's own types take over: limits, `null` as absent,
//! leniency, validation against the schema the model was shown, and the problems found, each
//! with its JSON Pointer.

use std::borrow::Cow;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use serde_json::{Map, Value};

use crate::ArgumentProblem;
use crate::describe_value::{received, shorten, type_name};
use crate::instance;

/// Arguments as a model or program gives them.
#[derive(Debug, Clone, PartialEq)]
pub enum Arguments<'a> {
    /// Already-parsed JSON.
    Json(Cow<'a, Value>),
    /// JSON text, as Chat Completions sends `function.arguments`.
    Text(Cow<'a, str>),
    /// JSON bytes, which may not even be UTF-8.
    Bytes(Cow<'a, [u8]>),
}

impl From<Value> for Arguments<'static> {
    fn from(value: Value) -> Self {
        Arguments::Json(Cow::Owned(value))
    }
}

impl<'a> From<&'a Value> for Arguments<'a> {
    fn from(value: &'a Value) -> Self {
        Arguments::Json(Cow::Borrowed(value))
    }
}

impl<'a> From<&'a str> for Arguments<'a> {
    fn from(text: &'a str) -> Self {
        Arguments::Text(Cow::Borrowed(text))
    }
}

impl From<String> for Arguments<'static> {
    fn from(text: String) -> Self {
        Arguments::Text(Cow::Owned(text))
    }
}

impl<'a> From<&'a [u8]> for Arguments<'a> {
    fn from(bytes: &'a [u8]) -> Self {
        Arguments::Bytes(Cow::Borrowed(bytes))
    }
}

impl From<Vec<u8>> for Arguments<'static> {
    fn from(bytes: Vec<u8>) -> Self {
        Arguments::Bytes(Cow::Owned(bytes))
    }
}

/// Limits on the arguments of one call, checked before anything else. The defaults protect a
/// server from a runaway or hostile client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The most bytes of JSON text accepted (default 1 MiB).
    pub max_bytes: usize,
    /// The deepest nesting of arrays and objects accepted (default 100). A recursive type costs
    /// two levels per level of itself when its children are in a list (`children: Vec<Node>`),
    /// so the default takes a tree 49 levels deep; serde_json itself stops at 127.
    pub max_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: 1024 * 1024,
            max_depth: 100,
        }
    }
}

/// Common model mistakes to forgive. Off by default: forgiving them hides a prompt or schema
/// problem that is better fixed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Leniency {
    /// Accept arguments double-encoded as a JSON string (`"{\"city\":\"Paris\"}"`).
    pub double_encoded: bool,
    /// Accept numbers and booleans sent as strings (`"3"`, `"true"`) where the schema wants a
    /// number, integer or boolean.
    pub stringly_typed: bool,
}

/// What one pass over JSON text tells without parsing it.
pub(crate) struct Scan {
    /// The deepest nesting of `[` and `{`.
    pub depth: usize,
    /// Whether a `null` literal appears outside strings.
    pub has_null: bool,
}

/// One linear pass over the bytes, skipping strings. Malformed text is left to the parser.
pub(crate) fn scan(bytes: &[u8]) -> Scan {
    let (mut depth, mut max_depth, mut has_null) = (0usize, 0usize, false);
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
            b'n' => has_null = true,
            _ => {}
        }
        i += 1;
    }
    Scan {
        depth: max_depth,
        has_null,
    }
}

/// The nesting depth of a parsed value (iterative: a hostile value must not overflow the stack).
pub(crate) fn depth_of(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 0usize)];
    while let Some((value, depth)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match value {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(map) => Box::new(map.values()),
            _ => continue,
        };
        deepest = deepest.max(depth + 1);
        stack.extend(children.map(|child| (child, depth + 1)));
    }
    deepest
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
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let parsed = serde::de::DeserializeSeed::deserialize(UniqueKeys, &mut deserializer)
        .and_then(|value| deserializer.end().map(|()| value));
    match parsed {
        Ok(value) => Ok(value),
        Err(error) if error.classify() != serde_json::error::Category::Data => {
            Err(syntax_problem(&error))
        }
        Err(_) => {
            let mut deserializer = serde_json::Deserializer::from_slice(bytes);
            match serde_path_to_error::deserialize::<_, UniqueValue>(&mut deserializer) {
                Err(error) => Err(deserialize_problem(error.path(), error.inner())),
                Ok(_) => Err(ArgumentProblem {
                    pointer: String::new(),
                    message: "the arguments could not be read consistently; send them again"
                        .to_owned(),
                }),
            }
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
                    "the argument `{}` is given twice; give it once",
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

/// A JSON syntax error as a problem.
pub(crate) fn syntax_problem(error: &serde_json::Error) -> ArgumentProblem {
    let message = if error.is_eof() {
        format!("the arguments are not complete JSON: they end too early ({error})")
    } else if error.to_string().contains("recursion limit") {
        "the arguments are nested too deeply".to_owned()
    } else {
        format!("the arguments are not valid JSON: {error}")
    };
    ArgumentProblem {
        pointer: String::new(),
        message,
    }
}

/// The arguments must be an object; `null` or nothing at all counts as `{}` (models send both for
/// tools without parameters).
pub(crate) fn require_object(value: Value) -> Result<Map<String, Value>, ArgumentProblem> {
    match value {
        Value::Object(map) => Ok(map),
        Value::Null => Ok(Map::new()),
        other => Err(ArgumentProblem {
            pointer: String::new(),
            message: format!(
                "the arguments must be a JSON object of named arguments, not {} ({})",
                type_name(&other),
                received(&other)
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

/// `null` for a property that the schema makes optional means "absent": strict-mode models must
/// send every property and send `null` for those they leave out, and the default must then
/// apply. Properties that are required stay as sent (their `null` is an error, or a value).
pub(crate) fn nulls_as_absent(data: &mut Value, schema: &Value) {
    instance::walk_mut(data, schema, schema, &mut |value, branches| {
        if let Value::Object(map) = value {
            map.retain(|key, value| !(value.is_null() && optional_in(key, branches)));
        }
    });
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
pub(crate) fn coerce_strings(data: &mut Value, schema: &Value) {
    instance::walk_mut(data, schema, schema, &mut |value, branches| {
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
        } else if wants.contains(&"number") {
            if let Some(n) = text
                .parse::<f64>()
                .ok()
                .and_then(serde_json::Number::from_f64)
            {
                *value = Value::Number(n);
            }
        }
    });
}

/// `3.0` → `3` where the schema wants an integer and not any number. JSON Schema counts `3.0` as
/// an integer (and so does the validator), clients such as Python's `json.dumps(3.0)` send it,
/// but serde refuses a float for every Rust integer type. A value outside the 64-bit range is
/// left as it is, for the range check to explain.
pub(crate) fn integers_as_integers(data: &mut Value, schema: &Value) {
    instance::walk_mut(data, schema, schema, &mut |value, branches| {
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
    });
}

/// Numbers outside the range of the Rust type that receives them, which the schema states only
/// as the canonical schema's `format` (`int64`, `uint64`, `float`): the renderings leave out
/// ranges no model comes near, but a value outside them must be refused with the range rather
/// than become infinity or a serde message. A number is refused when every branch that takes
/// numbers has a range and none holds it.
pub(crate) fn range_problems(data: &Value, canonical: &Value) -> Vec<ArgumentProblem> {
    let mut problems = Vec::new();
    instance::walk(
        data,
        canonical,
        canonical,
        &mut Vec::new(),
        &mut |value, branches, path| {
            let Value::Number(number) = value else { return };
            let mut ranges = branches
                .iter()
                .filter(|b| {
                    let types = instance::types(b);
                    types.contains(&"integer") || types.contains(&"number")
                })
                .map(|b| {
                    b.get("format")
                        .and_then(Value::as_str)
                        .and_then(NumberRange::of)
                });
            let Some(first) = ranges.next() else { return };
            let mut closest = first;
            let mut held = first.is_none_or(|range| range.holds(number));
            for range in ranges {
                held |= range.is_none_or(|range| range.holds(number));
                closest = closest.or(range);
            }
            if let (false, Some(range)) = (held, closest) {
                problems.push(ArgumentProblem {
                    pointer: instance::pointer(path),
                    message: format!("must be {range}, got {}", received(value)),
                });
            }
        },
    );
    problems
}

/// The range of the Rust number type a schemars `format` names.
#[derive(Debug, Clone, Copy)]
enum NumberRange {
    /// An integer type, exactly.
    Integer(i128, i128),
    /// `f32`: finite and no larger in magnitude than `f32::MAX` (larger becomes infinity).
    Float32,
}

impl NumberRange {
    fn of(format: &str) -> Option<NumberRange> {
        match format {
            "float" => Some(NumberRange::Float32),
            _ => crate::schema::integer_range(format)
                .map(|(min, max)| NumberRange::Integer(min, max)),
        }
    }

    fn holds(self, number: &serde_json::Number) -> bool {
        match self {
            NumberRange::Integer(min, max) => {
                let exact = number
                    .as_i64()
                    .map(i128::from)
                    .or_else(|| number.as_u64().map(i128::from));
                match exact {
                    Some(n) => (min..=max).contains(&n),
                    // A float: compared as one (it is not exact past 2^53 anyway).
                    None => number
                        .as_f64()
                        .is_some_and(|f| f >= min as f64 && f <= max as f64 && (f as i128) <= max),
                }
            }
            // What `as f32` keeps finite: up to half a unit past `f32::MAX` rounds to it, so
            // `3.4028235e38`, its shortest spelling, is in.
            NumberRange::Float32 => number.as_f64().is_some_and(|f| (f as f32).is_finite()),
        }
    }
}

impl std::fmt::Display for NumberRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NumberRange::Integer(min, max) => {
                let bits = [
                    i8::MAX as i128,
                    i16::MAX as i128,
                    i32::MAX as i128,
                    i64::MAX as i128,
                ]
                .iter()
                .chain(&[
                    u8::MAX as i128,
                    u16::MAX as i128,
                    u32::MAX as i128,
                    u64::MAX as i128,
                ])
                .position(|m| m == max)
                .map(|i| 8 << (i % 4));
                let kind = match (bits, *min == 0) {
                    (Some(bits), true) => format!(" (an unsigned {bits}-bit integer)"),
                    (Some(bits), false) => format!(" (a {bits}-bit integer)"),
                    (None, _) => String::new(),
                };
                write!(f, "between {min} and {max}{kind}")
            }
            NumberRange::Float32 => write!(
                f,
                "between {:e} and {:e} (a 32-bit float)",
                -f32::MAX,
                f32::MAX
            ),
        }
    }
}

/// The validator of a schema shown to a model. `format` is only an annotation in 2020-12
/// unless asked for; the model was shown it as a rule ("Must be an email address."), so it is
/// one, including the formats schemars gives chrono's types and `IpAddr`, which the validator
/// does not know.
pub(crate) fn validator(schema: &Value) -> Result<jsonschema::Validator, String> {
    jsonschema::draft202012::options()
        .should_validate_formats(true)
        .with_format("partial-time", is_partial_time)
        .with_format("ip", |s: &str| s.parse::<std::net::IpAddr>().is_ok())
        .with_format("partial-date-time", |s: &str| {
            s.split_once('T')
                .is_some_and(|(date, time)| is_date(date) && is_partial_time(time))
        })
        .build(schema)
        .map_err(|err| err.to_string())
}

/// `HH:MM:SS` with optional fractions of a second, as chrono reads a `NaiveTime` (a leap second
/// is `60`).
fn is_partial_time(s: &str) -> bool {
    let (clock, fraction) = s.split_once('.').unwrap_or((s, "0"));
    let parts: Vec<&str> = clock.split(':').collect();
    let two_digits = |p: &str| p.len() == 2 && p.bytes().all(|b| b.is_ascii_digit());
    parts.len() == 3
        && parts.iter().all(|p| two_digits(p))
        && !fraction.is_empty()
        && fraction.bytes().all(|b| b.is_ascii_digit())
        && parts[0] < "24"
        && parts[1] < "60"
        && parts[2] <= "60"
}

/// `YYYY-MM-DD`, a day that exists.
fn is_date(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    let [year, month, day] = parts.as_slice() else {
        return false;
    };
    let number = |p: &str, len: usize| {
        (p.len() == len && p.bytes().all(|b| b.is_ascii_digit()))
            .then(|| p.parse::<u32>().ok())
            .flatten()
    };
    let (Some(year), Some(month), Some(day)) = (number(year, 4), number(month, 2), number(day, 2))
    else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// A validation error as problems for the model. A value that matches none of the branches of an
/// `anyOf`/`oneOf` (a data-carrying enum, say) is reported through the branch it comes closest
/// to, the one with the fewest errors: "at `/schedule/hour`: must be at most 23" tells the model
/// what to fix, where "matches none of the allowed shapes" would not.
pub(crate) fn validation_problems(error: &jsonschema::ValidationError<'_>) -> Vec<ArgumentProblem> {
    let branches = match error.kind() {
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            context
        }
        _ => return vec![validation_problem(error)],
    };
    if let Some(problem) = unknown_discriminator(branches) {
        return vec![problem];
    }
    // A branch refused only for its discriminator (`kind` is not "daily") is not the closest.
    let closest = branches
        .iter()
        .filter(|errors| !errors.is_empty())
        .min_by_key(|errors| {
            let discriminator_only = errors.iter().all(|e| {
                matches!(
                    e.kind(),
                    ValidationErrorKind::Constant { .. } | ValidationErrorKind::Enum { .. }
                )
            });
            (discriminator_only, errors.len())
        });
    match closest {
        Some(errors) => errors.iter().flat_map(|e| validation_problems(e)).collect(),
        None => vec![validation_problem(error)],
    }
}

/// When every branch refuses the same property for its `const`/`enum` (the tag of a data-carrying
/// enum, `"kind": "weekly"`), the model chose a variant that does not exist: say which exist.
fn unknown_discriminator(
    branches: &[Vec<jsonschema::ValidationError<'static>>],
) -> Option<ArgumentProblem> {
    let mut pointer: Option<&str> = None;
    let mut allowed: Vec<String> = Vec::new();
    let mut got = None;
    for errors in branches {
        let tag = errors.iter().find(|e| {
            matches!(
                e.kind(),
                ValidationErrorKind::Constant { .. } | ValidationErrorKind::Enum { .. }
            )
        })?;
        let here = tag.instance_path().as_str();
        if pointer.is_some_and(|p| p != here) {
            return None;
        }
        pointer = Some(here);
        got = Some(received(tag.instance()));
        match tag.kind() {
            ValidationErrorKind::Constant { expected_value } => {
                allowed.push(expected_value.to_string())
            }
            ValidationErrorKind::Enum { options } => allowed.extend(
                options
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(Value::to_string),
            ),
            _ => {}
        }
    }
    let pointer = pointer?;
    if pointer.is_empty() || branches.len() < 2 {
        return None;
    }
    Some(ArgumentProblem {
        pointer: pointer.to_owned(),
        message: format!(
            "must be one of {}, got {}",
            allowed.join(", "),
            got.unwrap_or_default()
        ),
    })
}

/// "1 character", "3 characters".
fn characters(n: u64) -> String {
    format!("{n} character{}", if n == 1 { "" } else { "s" })
}

/// A validation error as a problem for the model: where, what was expected, what was received.
fn validation_problem(error: &jsonschema::ValidationError<'_>) -> ArgumentProblem {
    let instance = error.instance();
    let got = received(instance);
    let message = match error.kind() {
        ValidationErrorKind::Required { property } => {
            let name = property
                .as_str()
                .map_or_else(|| property.to_string(), str::to_owned);
            format!("the required argument `{name}` is missing")
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            let names: Vec<String> = unexpected
                .iter()
                .map(|n| format!("`{}`", shorten(n, 40)))
                .collect();
            format!(
                "unknown {} {}: remove {}",
                if names.len() == 1 {
                    "property"
                } else {
                    "properties"
                },
                names.join(", "),
                if names.len() == 1 { "it" } else { "them" }
            )
        }
        ValidationErrorKind::Type { kind } => {
            let mut expected: Vec<String> = match kind {
                TypeKind::Single(t) => vec![format!("`{t}`")],
                TypeKind::Multiple(set) => set.iter().map(|t| format!("`{t}`")).collect(),
            };
            // "`integer` or `null`": the type first, then that it may be left out.
            expected.sort_by_key(|t| t == "`null`");
            format!(
                "expected {}, got {} ({got})",
                expected.join(" or "),
                type_name(instance)
            )
        }
        ValidationErrorKind::Enum { options } => {
            format!(
                "must be one of {}, got {got}",
                shorten(&options.to_string(), 300)
            )
        }
        ValidationErrorKind::Constant { expected_value } => {
            format!("must be {expected_value}, got {got}")
        }
        ValidationErrorKind::Minimum { limit } => format!("must be at least {limit}, got {got}"),
        ValidationErrorKind::Maximum { limit } => format!("must be at most {limit}, got {got}"),
        ValidationErrorKind::ExclusiveMinimum { limit } => {
            format!("must be greater than {limit}, got {got}")
        }
        ValidationErrorKind::ExclusiveMaximum { limit } => {
            format!("must be less than {limit}, got {got}")
        }
        ValidationErrorKind::MultipleOf { multiple_of } => {
            format!("must be a multiple of {multiple_of}, got {got}")
        }
        ValidationErrorKind::MinLength { limit } => format!(
            "must be at least {} long, got {}",
            characters(*limit),
            characters(instance.as_str().map_or(0, |s| s.chars().count() as u64))
        ),
        ValidationErrorKind::MaxLength { limit } => format!(
            "must be at most {} long, got {}",
            characters(*limit),
            characters(instance.as_str().map_or(0, |s| s.chars().count() as u64))
        ),
        ValidationErrorKind::Pattern { pattern } => {
            format!("must match the regular expression `{pattern}`, got {got}")
        }
        ValidationErrorKind::Format { format } => match crate::schema::format_phrase(format) {
            Some(phrase) => format!("must be {phrase}, got {got}"),
            None => format!("must be a valid `{format}`, got {got}"),
        },
        ValidationErrorKind::MinItems { limit } => format!(
            "must have at least {limit} item{}, got {}",
            if *limit == 1 { "" } else { "s" },
            instance.as_array().map_or(0, Vec::len)
        ),
        ValidationErrorKind::MaxItems { limit } => format!(
            "must have at most {limit} item{}, got {}",
            if *limit == 1 { "" } else { "s" },
            instance.as_array().map_or(0, Vec::len)
        ),
        ValidationErrorKind::UniqueItems => "the items must be unique".to_owned(),
        ValidationErrorKind::AnyOf { .. } | ValidationErrorKind::OneOfNotValid { .. } => {
            format!("matches none of the allowed shapes, got {got}")
        }
        ValidationErrorKind::OneOfMultipleValid { .. } => {
            format!("matches more than one allowed shape, got {got}")
        }
        _ => shorten(&error.to_string(), 200),
    };
    ArgumentProblem {
        pointer: error.instance_path().as_str().to_owned(),
        message,
    }
}

/// A deserialisation error as a problem, with the path serde_path_to_error found.
pub(crate) fn deserialize_problem(
    path: &serde_path_to_error::Path,
    error: &serde_json::Error,
) -> ArgumentProblem {
    let pointer = path_to_pointer(path);
    let text = error.to_string();
    // serde_json appends " at line 1 column 12", which says nothing in a one-line argument object.
    let text = text.split(" at line ").next().unwrap_or(&text);
    ArgumentProblem {
        pointer,
        message: shorten(text, 300),
    }
}

fn path_to_pointer(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut pointer = String::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => pointer.push_str(&format!("/{index}")),
            Segment::Map { key } => {
                pointer.push('/');
                pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
            }
            Segment::Enum { variant } => {
                pointer.push('/');
                pointer.push_str(variant);
            }
            Segment::Unknown => {}
        }
    }
    pointer
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

/// Whether some subschema of `schema` has the `format` `name` (schemars' `float` for an `f32`).
pub(crate) fn has_format(schema: &Value, name: &str) -> bool {
    let mut pending = vec![schema];
    while let Some(node) = pending.pop() {
        match node {
            Value::Object(map) => {
                if map.get("format").and_then(Value::as_str) == Some(name) {
                    return true;
                }
                pending.extend(map.values());
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
    fn scan_skips_strings() {
        let s = scan(br#"{"a": "[[[null", "b": [[1]]}"#);
        assert_eq!(s.depth, 3);
        assert!(!s.has_null);
        assert!(scan(br#"{"a": null}"#).has_null);
        assert!(scan(br#"{"a": "\"", "b": null}"#).has_null);
    }

    #[test]
    fn depth_of_values() {
        assert_eq!(depth_of(&json!(1)), 0);
        assert_eq!(depth_of(&json!({"a": [1, {"b": []}]})), 4);
    }

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
        nulls_as_absent(&mut data, &schema);
        assert_eq!(
            data,
            json!({"a": null, "nested": {"x": null}, "list": [{"x": "1"}]})
        );
    }

    #[test]
    fn strings_coerced_only_where_the_schema_wants_numbers_or_booleans() {
        let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}, "f": {"type": ["number", "null"]}, "b": {"type": "boolean"}, "s": {"type": "string"}}});
        let mut data = json!({"n": "3", "f": "1.5", "b": "true", "s": "4"});
        coerce_strings(&mut data, &schema);
        assert_eq!(data, json!({"n": 3, "f": 1.5, "b": true, "s": "4"}));
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
