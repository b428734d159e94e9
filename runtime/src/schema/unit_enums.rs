//! `CollapseUnitEnums`: a `oneOf` of documented constants becomes a plain `enum`.
//!
//! schemars renders a unit enum whose variants have doc comments as
//! `oneOf: [{const: "celsius", description: "Degrees Celsius."}, …]`. Gemini rejects `oneOf`
//! and `const`; every provider handles `enum` best. The variant docs are not dropped: they move
//! into the node's description, next to the value they explain.

use schemars::Schema;
use schemars::transform::Transform;
use serde_json::{Map, Value};

use super::describe::{append_sentences, join_texts, variants_sentence};
use super::node::json_type;
use super::walk::{recording, transform_subschemas_tracked};
use crate::report::{ChangeKind, Recorder};

/// Collapses a `oneOf`/`anyOf` whose every branch is one constant (`{const: C}` or
/// `{enum: [C]}`, with optional `type`, `title`, `description`) into
/// `{"type": T, "enum": [C…]}`, listing every value with its doc in the description:
/// "One of: `celsius`: Degrees Celsius; `fahrenheit`: Degrees Fahrenheit."
#[derive(Debug, Clone, Default)]
pub(crate) struct CollapseUnitEnums {
    pub(crate) rec: Recorder,
}

impl Transform for CollapseUnitEnums {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(node) = schema.as_object_mut()
            && let Some((keyword, n, change)) = collapse(node)
        {
            self.rec.record(change);
            let here = self.rec.pointer.clone();
            for i in 0..n {
                self.rec
                    .moved(format!("{here}/{keyword}/{i}"), here.clone());
            }
        }
        transform_subschemas_tracked(self, schema);
    }
}

recording!(CollapseUnitEnums);

/// One branch of a unit enum: its value, its doc, its declared type.
struct Variant {
    value: Value,
    doc: Option<String>,
    ty: Option<String>,
}

/// The node's unit enum collapsed: the keyword it was under, how many branches it had, and
/// the change.
fn collapse(node: &mut Map<String, Value>) -> Option<(&'static str, usize, ChangeKind)> {
    if node.contains_key("enum") || node.contains_key("const") {
        return None;
    }
    for key in ["oneOf", "anyOf"] {
        let Some(Value::Array(branches)) = node.get(key) else {
            continue;
        };
        let n = branches.len();
        let Some(variants) = unit_variants(branches) else {
            continue;
        };
        let Some(index) = node.keys().position(|k| k == key) else {
            continue;
        };
        node.shift_remove(key);
        let values: Vec<Value> = variants.iter().map(|v| v.value.clone()).collect();
        node.shift_insert(index, "enum".into(), Value::Array(values));
        if let (false, Some(ty)) = (node.contains_key("type"), shared_type(&variants)) {
            node.shift_insert(index, "type".into(), ty.into());
        }
        let documented = variants.iter().any(|v| v.doc.is_some());
        if documented {
            let listed: Vec<(Value, Option<String>)> =
                variants.into_iter().map(|v| (v.value, v.doc)).collect();
            append_sentences(node, &[variants_sentence(&listed)]);
        }
        return Some((
            key,
            n,
            ChangeKind::Rewritten {
                from: format!("`{key}` of constants"),
                to: if documented {
                    "`enum`, with each value's doc in the description".to_owned()
                } else {
                    "`enum`".to_owned()
                },
            },
        ));
    }
    None
}

/// The branches as unit variants, or `None` if any branch is more than a documented constant.
/// A branch may hold several undocumented constants: schemars gathers the undocumented
/// variants of an enum into one `enum` branch, before the documented ones.
fn unit_variants(branches: &[Value]) -> Option<Vec<Variant>> {
    if branches.is_empty() {
        return None;
    }
    let mut variants = Vec::new();
    for branch in branches {
        variants.extend(unit_variant(branch)?);
    }
    Some(variants)
}

fn unit_variant(branch: &Value) -> Option<Vec<Variant>> {
    let branch = branch.as_object()?;
    let allowed = ["const", "enum", "type", "description", "title"];
    if !branch.keys().all(|k| allowed.contains(&k.as_str())) {
        return None;
    }
    let text = |k: &str| branch.get(k).and_then(Value::as_str).map(str::to_owned);
    let doc = match (text("title"), text("description")) {
        (Some(t), Some(d)) => Some(join_texts(&t, &d)),
        (t, d) => d.or(t),
    };
    let values = match (branch.get("const"), branch.get("enum")) {
        (Some(c), None) => vec![c.clone()],
        (None, Some(Value::Array(e))) if e.len() == 1 || (!e.is_empty() && doc.is_none()) => {
            e.clone()
        }
        _ => return None,
    };
    let ty = match branch.get("type") {
        None => None,
        Some(Value::String(t)) => Some(t.clone()),
        Some(_) => return None,
    };
    Some(
        values
            .into_iter()
            .map(|value| Variant {
                value,
                doc: doc.clone(),
                ty: ty.clone(),
            })
            .collect(),
    )
}

/// The type every variant has (declared, or else its value's), `number` for a mix of integers
/// and numbers; `None` when they differ.
fn shared_type(variants: &[Variant]) -> Option<String> {
    let mut shared: Option<&str> = None;
    for variant in variants {
        let ty = variant
            .ty
            .as_deref()
            .unwrap_or_else(|| json_type(&variant.value));
        shared = Some(match shared {
            None => ty,
            Some(s) if s == ty => s,
            Some("integer" | "number") if matches!(ty, "integer" | "number") => "number",
            _ => return None,
        });
    }
    shared.map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::test_util::check;
    use schemars::json_schema;

    #[test]
    fn documented_unit_enum() {
        check(
            CollapseUnitEnums::default(),
            json_schema!({
                "description": "Temperature units.",
                "oneOf": [
                    {"description": "Degrees Celsius.", "type": "string", "const": "celsius"},
                    {"description": "Degrees Fahrenheit.", "type": "string", "const": "fahrenheit"}
                ]
            }),
            json_schema!({
                "description": "Temperature units. One of: `celsius`: Degrees Celsius; `fahrenheit`: Degrees Fahrenheit.",
                "type": "string",
                "enum": ["celsius", "fahrenheit"]
            }),
        );
    }

    #[test]
    fn partly_documented_lists_every_value() {
        check(
            CollapseUnitEnums::default(),
            json_schema!({
                "anyOf": [
                    {"enum": ["a"], "title": "First"},
                    {"const": "b"}
                ]
            }),
            json_schema!({
                "description": "One of: `a`: First; `b`.",
                "type": "string",
                "enum": ["a", "b"]
            }),
        );
    }

    #[test]
    fn undocumented_values_need_no_sentence_and_types_may_differ() {
        check(
            CollapseUnitEnums::default(),
            json_schema!({"oneOf": [{"const": 1}, {"const": "x"}, {"const": null}]}),
            json_schema!({"enum": [1, "x", null]}),
        );
        check(
            CollapseUnitEnums::default(),
            json_schema!({"oneOf": [{"const": 1}, {"const": 2.5}]}),
            json_schema!({"type": "number", "enum": [1, 2.5]}),
        );
        check(
            CollapseUnitEnums::default(),
            json_schema!({"oneOf": [{"const": 1, "type": "integer"}, {"const": "x", "type": "string"}]}),
            json_schema!({"enum": [1, "x"]}),
        );
    }

    #[test]
    fn not_all_constants_is_left_alone() {
        let mixed = json_schema!({"oneOf": [{"const": "a"}, {"type": "null"}]});
        check(CollapseUnitEnums::default(), mixed.clone(), mixed);
        let extra = json_schema!({"oneOf": [{"const": "a", "minLength": 1}]});
        check(CollapseUnitEnums::default(), extra.clone(), extra);
        let empty = json_schema!({"oneOf": []});
        check(CollapseUnitEnums::default(), empty.clone(), empty);
        let has_enum = json_schema!({"enum": ["a"], "oneOf": [{"const": "a"}]});
        check(CollapseUnitEnums::default(), has_enum.clone(), has_enum);
        let type_array = json_schema!({"oneOf": [{"const": "a", "type": ["string"]}]});
        check(CollapseUnitEnums::default(), type_array.clone(), type_array);
        check(
            CollapseUnitEnums::default(),
            json_schema!(true),
            json_schema!(true),
        );
    }

    #[test]
    fn nested_and_keeps_existing_type() {
        check(
            CollapseUnitEnums::default(),
            json_schema!({
                "type": "object",
                "properties": {"u": {"type": "string", "oneOf": [{"const": "a"}, {"const": "b"}]}},
                "$defs": {"E": {"oneOf": [{"const": "x"}]}},
                "dependentSchemas": {"u": {"properties": {"v": {"anyOf": [{"const": 1}]}}}}
            }),
            json_schema!({
                "type": "object",
                "properties": {"u": {"type": "string", "enum": ["a", "b"]}},
                "$defs": {"E": {"type": "string", "enum": ["x"]}},
                "dependentSchemas": {"u": {"properties": {"v": {"type": "integer", "enum": [1]}}}}
            }),
        );
    }
}
