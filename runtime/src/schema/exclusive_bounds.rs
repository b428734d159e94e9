//! `IntegerExclusiveBounds`: exclusive bounds on integers become inclusive ones.
//!
//! Gemini has no `exclusiveMinimum`/`exclusiveMaximum`. On integers the rewrite is exact
//! (`> 0` is `≥ 1`), so the bound stays machine-checked instead of becoming a sentence. On other
//! numbers it is not exact; those are left for `DescribeUnsupported`.

use schemars::Schema;
use schemars::transform::Transform;
use serde_json::{Map, Value};

use super::node::{take, type_names};
use super::walk::{recording, transform_subschemas_tracked};
use crate::report::{ChangeKind, Recorder};

/// The largest integer a JSON number (an `f64`) holds exactly.
const EXACT: f64 = 9_007_199_254_740_992.0;

/// On integer nodes, rewrites `exclusiveMinimum: n` as `minimum: ⌊n⌋ + 1` and
/// `exclusiveMaximum: n` as `maximum: ⌈n⌉ - 1` (keeping an existing tighter inclusive bound).
#[derive(Debug, Clone, Default)]
pub(crate) struct IntegerExclusiveBounds {
    pub(crate) rec: Recorder,
}

recording!(IntegerExclusiveBounds);

impl Transform for IntegerExclusiveBounds {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(node) = schema.as_object_mut()
            && is_integer_node(node)
        {
            let changes = [
                rewrite(
                    node,
                    "exclusiveMinimum",
                    "minimum",
                    |n| n.floor() + 1.0,
                    |a, b| a >= b,
                ),
                rewrite(
                    node,
                    "exclusiveMaximum",
                    "maximum",
                    |n| n.ceil() - 1.0,
                    |a, b| a <= b,
                ),
            ];
            for change in changes.into_iter().flatten() {
                self.rec.record(change);
            }
        }
        transform_subschemas_tracked(self, schema);
    }
}

/// Integers only (optionally nullable): a `number` in the type would make the rewrite inexact.
fn is_integer_node(node: &Map<String, Value>) -> bool {
    let types = type_names(node);
    types.contains(&"integer") && types.iter().all(|t| matches!(*t, "integer" | "null"))
}

fn rewrite(
    node: &mut Map<String, Value>,
    exclusive: &str,
    inclusive: &str,
    bound_of: impl Fn(f64) -> f64,
    at_least_as_tight: impl Fn(f64, f64) -> bool,
) -> Option<ChangeKind> {
    let limit = node.get(exclusive).and_then(Value::as_f64)?;
    let bound = bound_of(limit);
    if !bound.is_finite() || bound.abs() > EXACT {
        return None;
    }
    let at = node.keys().position(|k| k == exclusive)?;
    take(node, exclusive);
    let existing = node.get(inclusive).and_then(Value::as_f64);
    if existing.is_some_and(|e| at_least_as_tight(e, bound)) {
        return Some(ChangeKind::Removed {
            keyword: exclusive.to_owned(),
            why: format!("the `{inclusive}` beside it is at least as tight"),
        });
    }
    // `bound` is a whole number within ±2^53, so the cast is exact.
    let value = Value::from(bound as i64);
    if node.contains_key(inclusive) {
        node.insert(inclusive.to_owned(), value);
    } else {
        node.shift_insert(at.min(node.len()), inclusive.to_owned(), value);
    }
    Some(ChangeKind::Rewritten {
        from: format!("`{exclusive}: {limit}`"),
        to: format!(
            "`{inclusive}: {}` (the same bound for integers)",
            bound as i64
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::test_util::check;
    use schemars::json_schema;

    #[test]
    fn integer_bounds_become_inclusive() {
        check(
            IntegerExclusiveBounds::default(),
            json_schema!({"properties": {
                "a": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 100},
                "b": {"type": ["integer", "null"], "exclusiveMinimum": 0.5},
                "c": {"type": "integer", "minimum": 5, "exclusiveMinimum": 0},
                "d": {"type": "integer", "maximum": 200, "exclusiveMaximum": 100}
            }}),
            json_schema!({"properties": {
                "a": {"type": "integer", "minimum": 1, "maximum": 99},
                "b": {"type": ["integer", "null"], "minimum": 1},
                "c": {"type": "integer", "minimum": 5},
                "d": {"type": "integer", "maximum": 99}
            }}),
        );
    }

    #[test]
    fn numbers_and_odd_inputs_are_left_alone() {
        let untouched = json_schema!({"anyOf": [
            {"type": "number", "exclusiveMinimum": 0},
            {"type": ["integer", "number"], "exclusiveMinimum": 0},
            {"exclusiveMinimum": 0},
            {"type": "integer", "exclusiveMinimum": true, "minimum": 1},
            {"type": "integer", "exclusiveMaximum": 1e300}
        ]});
        check(
            IntegerExclusiveBounds::default(),
            untouched.clone(),
            untouched,
        );
        check(
            IntegerExclusiveBounds::default(),
            json_schema!(true),
            json_schema!(true),
        );
    }
}
