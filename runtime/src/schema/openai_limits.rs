//! OpenAI strict mode's size limits: is the schema that is sent small enough for `strict: true`?
//!
//! OpenAI documents five limits on a Structured Outputs schema (the "Supported schemas" section
//! of its structured-outputs guide, <https://developers.openai.com/api/docs/guides/structured-outputs#supported-schemas>),
//! and refuses a request with a strict function past any of them ("6000 parameters exceeds
//! limit of 5000", "11 levels of nesting exceeds limit of 10"): the whole request fails, not
//! only that tool. A tool past a limit is therefore sent without strict mode, as any other tool
//! strict mode cannot take, with the limit, the figure and where in the report.
//!
//! How each figure is taken (`docs/TARGET_RULES.md`, "OpenAI strict mode's size limits"): on
//! the schema as it is sent, `$defs` included, each definition counted once; nesting counts
//! the object and array schemas from the root, the root being level 1; characters are Unicode
//! scalar values (what Python's `len` counts); an `enum` or `const` value that is not a string
//! counts as its JSON text (`null` is 4). Where the documentation leaves a reading open, the
//! reading that finds more is taken: a tool wrongly kept strict makes the whole request fail,
//! a tool wrongly sent without strict still works.

use schemars::Schema;
use serde_json::{Map, Value};

use super::node::{get, has, has_type, is_object_node};
use super::strict_check::Problem;
use super::walk::{for_each_subschema, reserve_pointer};

/// "A schema may have up to 5000 object properties total".
const MAX_PROPERTIES: usize = 5_000;
/// "… with up to 10 levels of nesting".
const MAX_NESTING: usize = 10;
/// "A schema may have up to 1000 enum values across all enum properties".
const MAX_ENUM_VALUES: usize = 1_000;
/// "For a single enum property with string values, the total string length of all enum values
/// cannot exceed 15,000 characters when there are more than 250 enum values".
const LARGE_ENUM: usize = 250;
/// See [`LARGE_ENUM`].
const MAX_LARGE_ENUM_CHARS: usize = 15_000;
/// "In a schema, total string length of all property names, definition names, enum values, and
/// const values cannot exceed 120,000 characters".
const MAX_TOTAL_CHARS: usize = 120_000;

/// The characters `StrictRequiredNullable` may add per property: a `null` joining an `enum`.
const NULL_CHARS: usize = 4;

/// What OpenAI's size limits measure in one schema.
#[derive(Debug, Default)]
pub(crate) struct Size {
    /// Entries of every `properties`.
    properties: usize,
    /// The deepest nesting of object and array schemas (the root is 1).
    nesting: usize,
    /// The first node found past [`MAX_NESTING`].
    too_deep_at: Option<String>,
    /// Values of every `enum`, plus one per `const`.
    enum_values: usize,
    /// Property names, definition names, `enum` and `const` values, in characters.
    chars: usize,
    /// Each `enum` of more than [`LARGE_ENUM`] strings whose strings are longer in all than
    /// [`MAX_LARGE_ENUM_CHARS`]: where, how many strings, how many characters.
    large_enums: Vec<(String, usize, usize)>,
}

impl Size {
    /// Measures `schema` and every subschema in it.
    pub(crate) fn of(schema: &Schema) -> Size {
        let mut size = Size::default();
        let mut pointer = String::new();
        reserve_pointer(&mut pointer);
        size.visit(schema, &mut pointer, 0);
        size
    }

    fn visit(&mut self, schema: &Schema, pointer: &mut String, level: usize) {
        let Some(node) = schema.as_object() else {
            return;
        };
        let level = level + usize::from(is_object_node(node) || is_array_node(node));
        self.nesting = self.nesting.max(level);
        if level > MAX_NESTING && self.too_deep_at.is_none() {
            self.too_deep_at = Some(pointer.clone());
        }
        self.count(node, pointer);
        for_each_subschema(schema, |loc, sub| {
            let len = pointer.len();
            loc.push_to(pointer);
            self.visit(sub, pointer, level);
            pointer.truncate(len);
        });
    }

    fn count(&mut self, node: &Map<String, Value>, pointer: &str) {
        if let Some(Value::Object(properties)) = get(node, "properties") {
            self.properties += properties.len();
            self.chars += properties.keys().map(|k| k.chars().count()).sum::<usize>();
        }
        for defs in ["$defs", "definitions"] {
            if let Some(Value::Object(definitions)) = get(node, defs) {
                self.chars += definitions.keys().map(|k| k.chars().count()).sum::<usize>();
            }
        }
        if let Some(Value::Array(values)) = get(node, "enum") {
            self.enum_values += values.len();
            self.chars += values.iter().map(value_chars).sum::<usize>();
            let strings: Vec<&str> = values.iter().filter_map(Value::as_str).collect();
            let string_chars: usize = strings.iter().map(|s| s.chars().count()).sum();
            if strings.len() > LARGE_ENUM && string_chars > MAX_LARGE_ENUM_CHARS {
                self.large_enums
                    .push((pointer.to_owned(), strings.len(), string_chars));
            }
        }
        if let Some(value) = get(node, "const") {
            self.enum_values += 1;
            self.chars += value_chars(value);
        }
    }

    /// Whether making every property required and nullable (`StrictRequiredNullable`, which
    /// adds at most one `null` to one `enum` per property) could take this schema past a
    /// limit it is within: only then must the figures be taken again after it.
    pub(crate) fn near_limits(&self) -> bool {
        self.enum_values + self.properties > MAX_ENUM_VALUES
            || self.chars + NULL_CHARS * self.properties > MAX_TOTAL_CHARS
    }

    /// The limits this schema is past, each with the figure and the limit; empty when strict
    /// mode takes its size.
    pub(crate) fn problems(&self) -> Vec<Problem> {
        let mut problems = Vec::new();
        if self.properties > MAX_PROPERTIES {
            problems.push((
                String::new(),
                format!(
                    "the schema has {} object properties in all, more than the {} OpenAI's \
                     strict mode takes",
                    thousands(self.properties),
                    thousands(MAX_PROPERTIES)
                ),
            ));
        }
        if let Some(at) = &self.too_deep_at {
            problems.push((
                at.clone(),
                format!(
                    "objects and arrays are nested {} levels deep (counting the root as 1), \
                     more than the {MAX_NESTING} OpenAI's strict mode takes",
                    self.nesting
                ),
            ));
        }
        if self.enum_values > MAX_ENUM_VALUES {
            problems.push((
                String::new(),
                format!(
                    "the schema has {} `enum` and `const` values in all, more than the {} \
                     OpenAI's strict mode takes",
                    thousands(self.enum_values),
                    thousands(MAX_ENUM_VALUES)
                ),
            ));
        }
        for (at, strings, chars) in &self.large_enums {
            problems.push((
                at.clone(),
                format!(
                    "this `enum` has {} string values of {} characters in all; OpenAI's strict \
                     mode takes at most {} characters for an `enum` of more than {LARGE_ENUM} \
                     strings",
                    thousands(*strings),
                    thousands(*chars),
                    thousands(MAX_LARGE_ENUM_CHARS)
                ),
            ));
        }
        if self.chars > MAX_TOTAL_CHARS {
            problems.push((
                String::new(),
                format!(
                    "property names, definition names and `enum` and `const` values come to {} \
                     characters in all, more than the {} OpenAI's strict mode takes",
                    thousands(self.chars),
                    thousands(MAX_TOTAL_CHARS)
                ),
            ));
        }
        problems
    }
}

/// Whether the node describes arrays: its `type` names `array`, or it says what its items are.
fn is_array_node(node: &Map<String, Value>) -> bool {
    has_type(node, "array") || has(node, "items") || has(node, "prefixItems")
}

/// A string's length in characters; any other value's, as its JSON text.
fn value_chars(value: &Value) -> usize {
    match value {
        Value::String(s) => s.chars().count(),
        other => other.to_string().chars().count(),
    }
}

/// `5000` as `5,000`, as the documentation writes its figures.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(value: Value) -> Schema {
        Schema::try_from(value).unwrap()
    }

    fn closed(properties: Map<String, Value>) -> Value {
        let names: Vec<Value> = properties.keys().cloned().map(Value::from).collect();
        json!({"type": "object", "properties": properties, "additionalProperties": false, "required": names})
    }

    fn why(problems: &[Problem]) -> Vec<&str> {
        problems.iter().map(|(_, why)| why.as_str()).collect()
    }

    #[test]
    fn figures_are_written_as_the_documentation_writes_them() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(120_001), "120,001");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }

    #[test]
    fn properties_are_counted_everywhere_definitions_included() {
        let mut props = Map::new();
        for i in 0..4_999 {
            props.insert(format!("p{i}"), json!({"type": "boolean"}));
        }
        let mut root = closed(props);
        root["$defs"] =
            json!({"D": closed(Map::from_iter([("x".to_owned(), json!({"type": "string"}))]))});
        let size = Size::of(&schema(root.clone()));
        assert_eq!(size.properties, 5_000);
        assert!(size.problems().is_empty(), "{:?}", size.problems());
        root["$defs"]["D"]["properties"]["y"] = json!({"type": "string"});
        let problems = Size::of(&schema(root)).problems();
        assert_eq!(
            why(&problems),
            [
                "the schema has 5,001 object properties in all, more than the 5,000 OpenAI's strict \
              mode takes"
            ]
        );
        assert_eq!(problems[0].0, "");
    }

    /// `levels` nested schemas, alternating objects and arrays, the root an object, `leaf`
    /// innermost.
    fn nested_with(levels: usize, leaf: Value) -> Value {
        let mut inner = leaf;
        for level in (1..=levels).rev() {
            inner = if level % 2 == 1 {
                closed(Map::from_iter([("n".to_owned(), inner)]))
            } else {
                json!({"type": "array", "items": inner})
            };
        }
        inner
    }

    fn nested(levels: usize) -> Value {
        nested_with(levels, json!({"type": "string"}))
    }

    #[test]
    fn nesting_counts_objects_and_arrays_from_the_root() {
        assert_eq!(Size::of(&schema(nested(10))).nesting, 10);
        assert!(Size::of(&schema(nested(10))).problems().is_empty());
        let problems = Size::of(&schema(nested(11))).problems();
        assert_eq!(
            why(&problems),
            [
                "objects and arrays are nested 11 levels deep (counting the root as 1), more than \
              the 10 OpenAI's strict mode takes"
            ]
        );
        // The node at level 11, an object: the root, then five arrays and five objects.
        assert_eq!(
            problems[0].0,
            "/properties/n/items/properties/n/items/properties/n/items/properties/n/items/properties/n/items"
        );
        // Combinators and scalars add no level: a nullable wrapper is the node it wraps.
        let wrapped = nested_with(10, json!({"anyOf": [{"type": "string"}, {"type": "null"}]}));
        assert_eq!(Size::of(&schema(wrapped)).nesting, 10);
    }

    #[test]
    fn deep_nesting_is_reported_once_at_the_first_node_past_the_limit() {
        let problems = Size::of(&schema(nested(14))).problems();
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].1.contains("nested 14 levels deep"));
    }

    #[test]
    fn enum_values_are_counted_across_the_schema() {
        let values = |n: usize, from: usize| -> Value {
            Value::Array(
                (from..from + n)
                    .map(|i| Value::from(format!("v{i}")))
                    .collect(),
            )
        };
        let root = closed(Map::from_iter([
            (
                "a".to_owned(),
                json!({"type": "string", "enum": values(600, 0)}),
            ),
            (
                "b".to_owned(),
                json!({"type": "string", "enum": values(399, 600)}),
            ),
            ("c".to_owned(), json!({"const": "only"})),
        ]));
        let size = Size::of(&schema(root.clone()));
        assert_eq!(size.enum_values, 1_000);
        assert!(size.problems().is_empty());
        let mut over = root;
        over["properties"]["b"]["enum"] = values(400, 600);
        assert_eq!(
            why(&Size::of(&schema(over)).problems()),
            [
                "the schema has 1,001 `enum` and `const` values in all, more than the 1,000 \
              OpenAI's strict mode takes"
            ]
        );
    }

    /// An enum of `n` strings of `total` characters in all.
    fn strings(n: usize, total: usize) -> Value {
        let each = total / n;
        let mut values: Vec<Value> = (0..n)
            .map(|i| {
                let tag = format!("{i:04}");
                Value::from(format!("{tag}{}", "x".repeat(each - tag.len())))
            })
            .collect();
        let short = total - each * n;
        let last = values.last_mut().unwrap();
        *last = Value::from(format!("{}{}", last.as_str().unwrap(), "y".repeat(short)));
        Value::Array(values)
    }

    #[test]
    fn a_large_string_enum_has_its_own_character_limit() {
        let with = |values: Value| {
            schema(closed(Map::from_iter([(
                "e".to_owned(),
                json!({"type": "string", "enum": values}),
            )])))
        };
        assert!(Size::of(&with(strings(251, 15_000))).problems().is_empty());
        let problems = Size::of(&with(strings(251, 15_001))).problems();
        assert_eq!(
            why(&problems),
            [
                "this `enum` has 251 string values of 15,001 characters in all; OpenAI's strict \
              mode takes at most 15,000 characters for an `enum` of more than 250 strings"
            ]
        );
        assert_eq!(problems[0].0, "/properties/e");
        // 250 strings may be longer.
        assert!(Size::of(&with(strings(250, 20_000))).problems().is_empty());
        // `null`, which strict mode adds to an optional enum, is not one of its strings.
        let mut with_null = strings(250, 20_000);
        with_null.as_array_mut().unwrap().push(Value::Null);
        assert!(Size::of(&with(with_null)).problems().is_empty());
    }

    #[test]
    fn names_and_values_share_one_character_limit() {
        // A definition name of 10 characters, a property name of 1, and enum values.
        let build = |enum_chars: usize| {
            let mut root = closed(Map::from_iter([(
                "e".to_owned(),
                json!({"type": "string", "enum": strings(100, enum_chars)}),
            )]));
            root["$defs"] = json!({"Definition": {"type": "integer", "enum": [1, null]}});
            schema(root)
        };
        // 1 + 10 + "1" + "null" = 16 characters besides the strings.
        let size = Size::of(&build(120_000 - 16));
        assert_eq!(size.chars, 120_000);
        assert!(size.problems().is_empty());
        assert_eq!(
            why(&Size::of(&build(120_000 - 15)).problems()),
            [
                "property names, definition names and `enum` and `const` values come to 120,001 \
              characters in all, more than the 120,000 OpenAI's strict mode takes"
            ]
        );
        // Characters, not bytes.
        let accented = schema(closed(Map::from_iter([(
            "é".to_owned(),
            json!({"enum": ["ü"]}),
        )])));
        assert_eq!(Size::of(&accented).chars, 2);
    }

    #[test]
    fn near_limits_says_when_nulls_could_tip_a_figure() {
        let small = Size::of(&schema(nested(3)));
        assert!(!small.near_limits());
        let size = Size {
            properties: 2,
            enum_values: 999,
            ..Size::default()
        };
        assert!(size.near_limits());
        let size = Size {
            properties: 2,
            chars: 119_993,
            ..Size::default()
        };
        assert!(size.near_limits());
    }
}
