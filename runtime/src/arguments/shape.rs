//! What one walk over parsed arguments tells before any schema: how deep they are, how long they
//! can be as text, and whether anything in them could need rewriting or a range check. It lets a
//! call skip the walks along the schema (`rewrite`, `range_problems`) that would find nothing,
//! which on a small call cost more than everything else tooldef does.

use serde_json::{Number, Value};

/// What a parsed value holds, in the terms the argument pipeline asks about.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Shape {
    /// The deepest nesting of arrays and objects.
    pub depth: usize,
    /// At least the length of the value as compact JSON text (each string counted as if every
    /// byte needed a six-byte escape, each number at its longest): the exact length needs
    /// computing only when this passes the limit.
    pub len_bound: usize,
    /// Whether a `null` appears anywhere.
    pub has_null: bool,
    /// The smallest and largest integer, when there is one.
    pub integers: Option<(i128, i128)>,
    /// The smallest and largest number that is not an integer (`3.0`, `2.5`), when there is one.
    pub floats: Option<(f64, f64)>,
}

/// Widens `span` to take `x`.
fn widen<T: PartialOrd + Copy>(span: &mut Option<(T, T)>, x: T) {
    *span = Some(match *span {
        None => (x, x),
        Some((low, high)) => (
            if x < low { x } else { low },
            if x > high { x } else { high },
        ),
    });
}

/// The longest a number is as JSON text (`-1.7976931348623157e308`, `18446744073709551615`).
const LONGEST_NUMBER: usize = 24;

impl Shape {
    /// One walk over `value`, iterative (a hostile value must not overflow the stack). Only
    /// nested arrays and objects wait on a stack, so flat arguments (nearly every call)
    /// allocate nothing.
    pub(crate) fn of(value: &Value) -> Shape {
        let mut shape = Shape {
            depth: 0,
            len_bound: 0,
            has_null: false,
            integers: None,
            floats: None,
        };
        let mut pending = Vec::new();
        let mut next = shape.visit(value, 0).then_some((value, 1));
        while let Some((container, depth)) = next.take().or_else(|| pending.pop()) {
            let children: &mut dyn Iterator<Item = &Value> = match container {
                Value::Array(items) => &mut items.iter(),
                Value::Object(map) => &mut map.values(),
                _ => &mut std::iter::empty(),
            };
            for child in children {
                if shape.visit(child, depth) {
                    pending.push((child, depth + 1));
                }
            }
        }
        shape
    }

    /// Notes `value`, met at `depth`; whether it is an array or object, whose children are
    /// to be visited next.
    fn visit(&mut self, value: &Value, depth: usize) -> bool {
        self.len_bound = self.len_bound.saturating_add(match value {
            Value::Null => {
                self.has_null = true;
                4
            }
            Value::Bool(_) => 5,
            Value::Number(number) => {
                self.note(number);
                LONGEST_NUMBER
            }
            Value::String(text) => string_bound(text),
            // Brackets, and a comma after each item.
            Value::Array(items) => 2 + items.len(),
            // Braces, and a colon and comma after each key.
            Value::Object(map) => 2 + map.keys().map(|key| string_bound(key) + 2).sum::<usize>(),
        });
        let container = matches!(value, Value::Array(_) | Value::Object(_));
        if container {
            self.depth = self.depth.max(depth + 1);
        }
        container
    }

    fn note(&mut self, number: &Number) {
        match (number.as_i64(), number.as_u64()) {
            (Some(n), _) => widen(&mut self.integers, i128::from(n)),
            (None, Some(n)) => widen(&mut self.integers, i128::from(n)),
            // JSON has no NaN: every other number is a finite `f64`.
            (None, None) => widen(&mut self.floats, number.as_f64().unwrap_or_default()),
        }
    }

    /// Whether a number that is not an integer (`3.0`, `2.5`) appears anywhere.
    pub(crate) fn has_float(&self) -> bool {
        self.floats.is_some()
    }
}

/// The most bytes `text` takes as a JSON string.
fn string_bound(text: &str) -> usize {
    2 + 6 * text.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn depth_nulls_and_floats() {
        let shape = Shape::of(&json!({"a": [1, {"b": []}], "c": null}));
        assert_eq!(shape.depth, 4);
        assert!(shape.has_null);
        assert!(!shape.has_float());
        assert_eq!(Shape::of(&json!(1)).depth, 0);
        assert!(Shape::of(&json!({"x": 3.0})).has_float());
        assert!(!Shape::of(&json!({"x": "null"})).has_null);
    }

    #[test]
    fn the_length_bound_is_never_below_the_text() {
        for value in [
            json!({"a": "x\"\\\n\u{1}é", "b": [1, -2.5e300, null, true, {}], "ü": 18446744073709551615u64}),
            json!([]),
            json!("\u{0}\u{0}"),
            json!({"": {"": [[[]]]}}),
        ] {
            let text = serde_json::to_string(&value).unwrap();
            assert!(Shape::of(&value).len_bound >= text.len(), "{text}");
        }
    }

    #[test]
    fn the_extremes_are_exact_for_large_integers() {
        let shape = Shape::of(&json!([
            9007199254740993u64,
            9007199254740992u64,
            -1.5,
            2.5
        ]));
        assert_eq!(shape.integers, Some((9007199254740992, 9007199254740993)));
        assert_eq!(shape.floats, Some((-1.5, 2.5)));
        assert_eq!(Shape::of(&json!({"a": "1"})).integers, None);
    }
}
