//! The ranges of the Rust number types that receive the arguments, which the renderings leave
//! unsaid (32- and 64-bit integers, `f32`) and the call still enforces.

use serde_json::Value;

use crate::ArgumentProblem;
use crate::describe_value::received;
use crate::instance;

use super::Shape;

/// Numbers outside the range of the Rust type that receives them, which the schema states only
/// as the canonical schema's `format` (`int32`, `uint64`, `float`…): the renderings leave out
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
        let exact = number
            .as_i64()
            .map(i128::from)
            .or_else(|| number.as_u64().map(i128::from));
        match exact {
            Some(n) => self.holds_integer(n),
            None => number.as_f64().is_some_and(|f| self.holds_float(f)),
        }
    }

    fn holds_integer(self, n: i128) -> bool {
        match self {
            NumberRange::Integer(min, max) => (min..=max).contains(&n),
            NumberRange::Float32 => self.holds_float(n as f64),
        }
    }

    fn holds_float(self, f: f64) -> bool {
        match self {
            // Compared as a float (it is not exact past 2^53 anyway).
            NumberRange::Integer(min, max) => {
                f >= min as f64 && f <= max as f64 && (f as i128) <= max
            }
            // What `as f32` keeps finite: up to half a unit past `f32::MAX` rounds to it, so
            // `3.4028235e38`, its shortest spelling, is in.
            NumberRange::Float32 => (f as f32).is_finite(),
        }
    }
}

/// The ranges of every Rust number type a canonical schema names, found once per tool. A range
/// holds every number between two it holds, so when each range holds the smallest and the
/// largest number of a call, [`range_problems`] would find nothing and need not walk.
#[derive(Debug, Clone, Default)]
pub(crate) struct TypeRanges(Vec<NumberRange>);

impl TypeRanges {
    /// Every `format` naming a ranged number type, anywhere in `canonical` (a value that only
    /// looks like one, inside a `default`, makes the check stricter, never wrong).
    pub(crate) fn of(canonical: &Value) -> TypeRanges {
        let mut ranges = Vec::new();
        let mut pending = vec![canonical];
        while let Some(value) = pending.pop() {
            match value {
                Value::Object(map) => {
                    if let Some(range) = map
                        .get("format")
                        .and_then(Value::as_str)
                        .and_then(NumberRange::of)
                    {
                        ranges.push(range);
                    }
                    pending.extend(map.values());
                }
                Value::Array(items) => pending.extend(items),
                _ => {}
            }
        }
        TypeRanges(ranges)
    }

    /// Whether every range holds every number of `shape`.
    pub(crate) fn hold(&self, shape: &Shape) -> bool {
        self.0.iter().all(|range| {
            shape
                .integers
                .is_none_or(|(low, high)| range.holds_integer(low) && range.holds_integer(high))
                && shape
                    .floats
                    .is_none_or(|(low, high)| range.holds_float(low) && range.holds_float(high))
        })
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// What the shortcut says must agree with the walk: when every range holds the extremes,
    /// the walk finds nothing.
    #[test]
    fn the_ranges_hold_only_what_the_walk_accepts() {
        let canonical = json!({
            "type": "object",
            "properties": {
                "small": {"type": "integer", "format": "uint8", "minimum": 0},
                "big": {"type": "integer", "format": "int64"},
                "ratio": {"type": "number", "format": "float"},
                "plain": {"type": "number"},
            },
        });
        let ranges = TypeRanges::of(&canonical);
        for (data, holds) in [
            (
                json!({"small": 3, "big": 200, "ratio": 0.5, "plain": 7}),
                true,
            ),
            // Conservative: `-7` is fine for `plain`, but outside `uint8`, so the walk decides.
            (json!({"plain": -7}), false),
            (json!({"plain": 255}), true),
            (json!({"plain": 256}), false),
            (json!({"plain": -1}), false),
            (json!({"plain": 2.5}), true),
            (json!({"plain": 255.5}), false),
            (json!({"big": 1e300}), false),
            (json!({"small": 256}), false),
        ] {
            let shape = Shape::of(&data);
            assert_eq!(ranges.hold(&shape), holds, "{data}");
            if holds {
                assert!(range_problems(&data, &canonical).is_empty(), "{data}");
            }
        }
        // Out of the narrowest range, the walk decides: `256` for `small` is refused, for
        // `plain` (no format) it is not.
        assert_eq!(range_problems(&json!({"small": 256}), &canonical).len(), 1);
        assert!(range_problems(&json!({"plain": 256}), &canonical).is_empty());
        // A schema that names no ranged type holds everything.
        let free =
            TypeRanges::of(&json!({"type": "object", "properties": {"n": {"type": "number"}}}));
        assert!(free.hold(&Shape::of(&json!({"n": -1e308}))));
    }
}
