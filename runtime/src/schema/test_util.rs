//! Test helpers shared by the schema transforms' tests.

use schemars::Schema;
use schemars::transform::Transform;
use serde_json::{Map, Value};

/// Asserts that two schemas are equal *including key order* (`serde_json::Map` equality ignores
/// order under `preserve_order`, and order is part of what we promise).
#[track_caller]
pub(crate) fn assert_same(actual: &Schema, expected: &Schema) {
    let actual_text = pretty(actual);
    let expected_text = pretty(expected);
    assert!(
        actual_text == expected_text,
        "schemas differ\n--- actual\n{actual_text}\n--- expected\n{expected_text}"
    );
}

/// The schema as pretty JSON, in its own key order (`Schema`'s `Serialize` moves some keywords,
/// such as `$defs`, to the end; the underlying value does not).
pub(crate) fn pretty(schema: &Schema) -> String {
    serde_json::to_string_pretty(schema.as_value()).unwrap_or_default()
}

/// Applies `t` to `input` and asserts the result is `expected` (key order included).
#[track_caller]
pub(crate) fn check<T: Transform>(mut t: T, mut input: Schema, expected: Schema) -> T {
    t.transform(&mut input);
    assert_same(&input, &expected);
    t
}

/// The object inside a `json!` value (an empty map for anything else).
pub(crate) fn map(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}
