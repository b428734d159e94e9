//! `DropIntegerFormats`, `GeminiNumberFormats` and `StateNumericFormats`: schemars' numeric
//! `format`s.
//!
//! schemars writes `format: "uint32"`, `"int64"`, `"double"`… on numbers. They are not JSON
//! Schema formats: OpenAI rejects or ignores them, and Gemini only knows `int32`/`int64` and
//! `float`/`double`. What a format implies for the model — the range of a 16-bit or smaller
//! integer, or that an unsigned one is never negative — is kept as `minimum`/`maximum`.
//!
//! MCP keeps every one of them beside those bounds (`StateNumericFormats`): in MCP's JSON Schema
//! an unknown format is an annotation, rmcp servers send schemars' formats as they are, and a
//! tool list converted again from the MCP rendering (another MCP hop) must still know that a
//! number is an `f64` (Gemini's `double`) or an integer an `i64`.

use schemars::Schema;
use schemars::transform::Transform;
use serde_json::{Map, Value};

use super::node::{has_type, take};
use super::walk::{recording, transform_subschemas_tracked};
use crate::report::{ChangeKind, Recorder};

/// Drops schemars' integer formats (`int8`…`uint128`, `int`, `uint`) from integer nodes, adding
/// the bounds a format of 16 bits or fewer implies (and `minimum: 0` for unsigned ones) unless
/// tighter ones are present; drops `float`/`double` from number nodes.
#[derive(Debug, Clone, Default)]
pub(crate) struct DropIntegerFormats {
    pub(crate) rec: Recorder,
}

impl Transform for DropIntegerFormats {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(node) = schema.as_object_mut() {
            for change in numeric_format(node, |_| false) {
                self.rec.record(change);
            }
        }
        transform_subschemas_tracked(self, schema);
    }
}

recording!(DropIntegerFormats);

/// Gemini's numeric formats: keeps `int32`/`int64` on integers and `float`/`double` on numbers
/// (exactly what Gemini's OpenAPI subset has); every other schemars integer format is dropped
/// as [`DropIntegerFormats`] does.
#[derive(Debug, Clone, Default)]
pub(crate) struct GeminiNumberFormats {
    pub(crate) rec: Recorder,
}

impl Transform for GeminiNumberFormats {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(node) = schema.as_object_mut() {
            for change in numeric_format(node, |f| {
                matches!(f, "int32" | "int64" | "float" | "double")
            }) {
                self.rec.record(change);
            }
        }
        transform_subschemas_tracked(self, schema);
    }
}

recording!(GeminiNumberFormats);

/// MCP's numeric formats: every schemars format is kept where it stands (an annotation in
/// JSON Schema 2020-12), with the bounds [`DropIntegerFormats`] would state added after it,
/// so that the MCP rendering, converted again for another target, renders as the canonical
/// schema does.
#[derive(Debug, Clone, Default)]
pub(crate) struct StateNumericFormats {
    pub(crate) rec: Recorder,
}

impl Transform for StateNumericFormats {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(node) = schema.as_object_mut() {
            for change in numeric_format(node, |_| true) {
                self.rec.record(change);
            }
        }
        transform_subschemas_tracked(self, schema);
    }
}

recording!(StateNumericFormats);

/// The type a `format` a target keeps belongs to: OpenAPI's `int32`/`int64` describe integers
/// and `float`/`double` numbers; every other format describes strings. Gemini takes a format
/// only on its own type (`int64` on a string is refused), and so a format is kept only there.
pub(crate) fn format_type(format: &str) -> &'static str {
    match format {
        "int32" | "int64" => "integer",
        "float" | "double" => "number",
        _ => "string",
    }
}

/// The range of the Rust integer type schemars names by `format`; `None` when it is not one of
/// schemars' integer formats. The one table of these ranges: the renderings state bounds from
/// it, and the argument pipeline uses it to tell which bounds serde already enforces.
pub(crate) fn integer_range(format: &str) -> Option<(i128, i128)> {
    Some(match format {
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        "int64" | "int" => (i64::MIN.into(), i64::MAX.into()),
        "int128" => (i128::MIN, i128::MAX),
        "uint8" => (0, u8::MAX.into()),
        "uint16" => (0, u16::MAX.into()),
        "uint32" => (0, u32::MAX.into()),
        "uint64" | "uint" => (0, u64::MAX.into()),
        // Beyond any integer a JSON parser without arbitrary precision gives.
        "uint128" => (0, i128::MAX),
        _ => return None,
    })
}

/// The bounds a rendering states for an integer format: both for 16 bits or fewer (255 or
/// 32767 is a limit a model can meet, and must know); from 32 bits on, the type's full range is
/// not a limit meant for the model (`"maximum": 4294967295` reads as one, and costs tokens on
/// every `u32`; past 2^53 it is not even exact in JSON), and only an unsigned type's
/// `minimum: 0` is said. The call still refuses a number outside the type, naming the range
/// (`arguments::range_problems`).
fn implied_bounds(format: &str) -> Option<(Option<i64>, Option<i64>)> {
    let (min, max) = integer_range(format)?;
    let small = min >= i16::MIN.into() && max <= u16::MAX.into();
    Some(if small {
        (Some(min as i64), Some(max as i64))
    } else {
        ((min == 0).then_some(0), None)
    })
}

/// A schemars numeric `format` on the node: the bounds it implies added where none as tight
/// are stated, and the format removed unless `keep` says otherwise. The changes made: one
/// `Rewritten` (format into bounds) or `Removed` for a dropped format, one `Added` per bound
/// beside a kept one.
fn numeric_format(node: &mut Map<String, Value>, keep: impl Fn(&str) -> bool) -> Vec<ChangeKind> {
    let Some(Value::String(format)) = node.get("format") else {
        return Vec::new();
    };
    let format = format.clone();
    let kept = keep(&format);
    let dropped = |why: &str| ChangeKind::Removed {
        keyword: "format".to_owned(),
        why: format!("`{format}` is not a format the target knows; {why}"),
    };
    if has_type(node, "number") && matches!(format.as_str(), "float" | "double") {
        if kept {
            return Vec::new();
        }
        take(node, "format");
        return vec![dropped("the type already says it is a number")];
    }
    if !has_type(node, "integer") {
        return Vec::new();
    }
    let Some((min, max)) = implied_bounds(&format) else {
        return Vec::new();
    };
    let Some(mut at) = node.keys().position(|k| k == "format") else {
        return Vec::new();
    };
    if kept {
        // The bounds follow the format, where they would stand once it is dropped.
        at += 1;
    } else {
        take(node, "format");
    }
    let mut added = Vec::new();
    if let Some(min) = min {
        let tighter = [("minimum", 0), ("exclusiveMinimum", -1)]
            .iter()
            .any(|(k, slack)| number(node, k).is_some_and(|v| v >= min as f64 + f64::from(*slack)));
        if !tighter {
            at = put(node, "minimum", min, at);
            added.push(("minimum", min));
        }
    }
    if let Some(max) = max {
        let tighter = [("maximum", 0), ("exclusiveMaximum", 1)]
            .iter()
            .any(|(k, slack)| number(node, k).is_some_and(|v| v <= max as f64 + f64::from(*slack)));
        if !tighter {
            // After the lower bound, which may already have stood after the format.
            let after_minimum = node
                .keys()
                .position(|k| k == "minimum" || k == "exclusiveMinimum")
                .map_or(at, |i| at.max(i + 1));
            put(node, "maximum", max, after_minimum);
            added.push(("maximum", max));
        }
    }
    if kept {
        return added
            .into_iter()
            .map(|(keyword, value)| ChangeKind::Added {
                keyword: keyword.to_owned(),
                why: format!("{value}, the bound `format: {format}` implies"),
            })
            .collect();
    }
    vec![if added.is_empty() {
        dropped("its bounds are already stated, or too wide to matter")
    } else {
        let added: Vec<String> = added.iter().map(|(k, v)| format!("`{k}: {v}`")).collect();
        ChangeKind::Rewritten {
            from: format!("`format: {format}`"),
            to: format!("the bounds it implies ({})", added.join(", ")),
        }
    }]
}

fn number(node: &Map<String, Value>, key: &str) -> Option<f64> {
    node.get(key).and_then(Value::as_f64)
}

/// Sets `key` in place when present, else inserts it at `at`; returns where the next new key
/// goes.
fn put(node: &mut Map<String, Value>, key: &str, value: i64, at: usize) -> usize {
    if node.contains_key(key) {
        node.insert(key.to_owned(), value.into());
        at
    } else {
        node.shift_insert(at.min(node.len()), key.to_owned(), value.into());
        at + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::test_util::check;
    use schemars::json_schema;

    #[test]
    fn small_formats_become_bounds() {
        check(
            DropIntegerFormats::default(),
            json_schema!({"properties": {
                "a": {"type": "integer", "format": "int8", "description": "x"},
                "b": {"type": "integer", "format": "uint32", "minimum": 0},
                "c": {"type": "integer", "format": "uint32", "minimum": 1, "maximum": 14},
                "d": {"type": "integer", "format": "uint16", "maximum": 1e10},
                "e": {"type": "integer", "format": "int32", "exclusiveMaximum": 10}
            }}),
            json_schema!({"properties": {
                "a": {"type": "integer", "minimum": -128, "maximum": 127, "description": "x"},
                "b": {"type": "integer", "minimum": 0},
                "c": {"type": "integer", "minimum": 1, "maximum": 14},
                "d": {"type": "integer", "minimum": 0, "maximum": 65535},
                "e": {"type": "integer", "exclusiveMaximum": 10}
            }}),
        );
    }

    #[test]
    fn a_32_bit_range_is_not_said() {
        // `i32`'s and `u32`'s full ranges are no limit a model should plan around; `u32` is
        // still never negative, and `u16` keeps its range.
        check(
            DropIntegerFormats::default(),
            json_schema!({"properties": {
                "i": {"type": "integer", "format": "int32", "description": "x"},
                "u": {"type": "integer", "format": "uint32", "minimum": 0},
                "s": {"type": "integer", "format": "uint16", "minimum": 0}
            }}),
            json_schema!({"properties": {
                "i": {"type": "integer", "description": "x"},
                "u": {"type": "integer", "minimum": 0},
                "s": {"type": "integer", "minimum": 0, "maximum": 65535}
            }}),
        );
    }

    #[test]
    fn wide_formats_are_dropped() {
        check(
            DropIntegerFormats::default(),
            json_schema!({"anyOf": [
                {"type": ["integer", "null"], "format": "uint64", "minimum": 0},
                {"type": "integer", "format": "uint"},
                {"type": "integer", "format": "int64"},
                {"type": "number", "format": "double"},
                {"type": "number", "format": "float"}
            ]}),
            json_schema!({"anyOf": [
                {"type": ["integer", "null"], "minimum": 0},
                {"type": "integer", "minimum": 0},
                {"type": "integer"},
                {"type": "number"},
                {"type": "number"}
            ]}),
        );
    }

    #[test]
    fn other_formats_and_odd_inputs_are_left_alone() {
        let other = json_schema!({
            "items": [{"type": "string", "format": "int64"}, {"type": "integer", "format": "int24"},
                      {"format": "uint8"}, {"type": "integer", "format": 8}],
            "dependentSchemas": {"x": true}
        });
        check(DropIntegerFormats::default(), other.clone(), other);
        check(
            DropIntegerFormats::default(),
            json_schema!(false),
            json_schema!(false),
        );
    }

    #[test]
    fn mcp_keeps_every_format_beside_its_bounds() {
        check(
            StateNumericFormats::default(),
            json_schema!({"properties": {
                "a": {"type": "integer", "format": "int8", "description": "x"},
                "b": {"type": "integer", "format": "uint32", "minimum": 0},
                "c": {"type": "integer", "format": "uint16", "maximum": 10},
                "d": {"type": "integer", "format": "int64"},
                "e": {"type": ["number", "null"], "format": "double"},
                "f": {"type": "number", "format": "float"},
                "g": {"type": "string", "format": "int64"}
            }}),
            json_schema!({"properties": {
                "a": {"type": "integer", "format": "int8", "minimum": -128, "maximum": 127, "description": "x"},
                "b": {"type": "integer", "format": "uint32", "minimum": 0},
                "c": {"type": "integer", "format": "uint16", "minimum": 0, "maximum": 10},
                "d": {"type": "integer", "format": "int64"},
                "e": {"type": ["number", "null"], "format": "double"},
                "f": {"type": "number", "format": "float"},
                "g": {"type": "string", "format": "int64"}
            }}),
        );
    }

    #[test]
    fn dropping_a_kept_format_later_gives_the_same_node() {
        // What converting the MCP rendering again does: the bounds `StateNumericFormats` put
        // after the format stand where `DropIntegerFormats` alone puts them.
        for node in [
            json_schema!({"type": "integer", "format": "uint8", "description": "x"}),
            json_schema!({"type": "integer", "minimum": 1, "format": "uint16", "title": "t"}),
            json_schema!({"type": "integer", "format": "int16", "exclusiveMaximum": 3}),
            json_schema!({"type": "integer", "format": "uint64"}),
        ] {
            let mut direct = node.clone();
            DropIntegerFormats::default().transform(&mut direct);
            let mut again = node;
            StateNumericFormats::default().transform(&mut again);
            DropIntegerFormats::default().transform(&mut again);
            assert_eq!(
                serde_json::to_string(&again).unwrap(),
                serde_json::to_string(&direct).unwrap()
            );
        }
    }

    #[test]
    fn gemini_keeps_exact_formats() {
        check(
            GeminiNumberFormats::default(),
            json_schema!({"properties": {
                "a": {"type": "integer", "format": "int32"},
                "b": {"type": "integer", "format": "int64"},
                "c": {"type": "number", "format": "double"},
                "d": {"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255},
                "e": {"type": "integer", "format": "uint64", "minimum": 0},
                "f": {"type": "integer", "format": "int16"}
            }}),
            json_schema!({"properties": {
                "a": {"type": "integer", "format": "int32"},
                "b": {"type": "integer", "format": "int64"},
                "c": {"type": "number", "format": "double"},
                "d": {"type": "integer", "minimum": 0, "maximum": 255},
                "e": {"type": "integer", "minimum": 0},
                "f": {"type": "integer", "minimum": -32768, "maximum": 32767}
            }}),
        );
    }
}
