//! `RepairLooseLists`: the lists JSON Schema wants unique (`required`, `type`), written loosely.
//!
//! MCP servers send `"required": ["path", "path"]`, `"required": "path"` and
//! `"type": ["string", "null", "string"]`: not valid JSON Schema (every dialect wants `required`
//! an array of unique names and a `type` list unique), but what they mean is plain, and a
//! validator would refuse the whole tool for it. Each is repaired and recorded, with "not valid
//! JSON Schema" in the note, before the schema is checked against its dialect
//! (`dialect::dialect_problems`) and made canonical.

use schemars::Schema;
use schemars::transform::Transform;
use serde_json::{Map, Value};

use super::walk::{for_each_subschema, recording, transform_subschemas_tracked};
use crate::report::{ChangeKind, Recorder};

/// Makes a `required` that is one string a list of it, and drops repeated entries from
/// `required` and from a `type` list (the first of each is kept, so order holds).
#[derive(Debug, Clone, Default)]
pub(crate) struct RepairLooseLists {
    pub(crate) rec: Recorder,
}

recording!(RepairLooseLists);

impl Transform for RepairLooseLists {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(node) = schema.as_object_mut() {
            repair(node, &mut self.rec);
        }
        transform_subschemas_tracked(self, schema);
    }
}

fn repair(node: &mut Map<String, Value>, rec: &mut Recorder) {
    if let Some(required) = node.get_mut("required") {
        if let Value::String(name) = required {
            let name = std::mem::take(name);
            rec.record(ChangeKind::Rewritten {
                from: format!("`\"required\": \"{name}\"`"),
                to: format!(
                    "`[\"{name}\"]`: `required` is a list of names; one name alone is not valid \
                     JSON Schema"
                ),
            });
            *required = Value::Array(vec![Value::String(name)]);
        }
        if let Value::Array(names) = required {
            for repeated in drop_repeats(names) {
                rec.record(ChangeKind::Removed {
                    keyword: "required".to_owned(),
                    why: format!(
                        "`{repeated}` listed again: a name listed twice is not valid JSON Schema"
                    ),
                });
            }
        }
    }
    if let Some(Value::Array(types)) = node.get_mut("type") {
        for repeated in drop_repeats(types) {
            rec.record(ChangeKind::Removed {
                keyword: "type".to_owned(),
                why: format!(
                    "`{repeated}` listed again: a type listed twice is not valid JSON Schema"
                ),
            });
        }
    }
}

/// Removes the later copies of repeated values, keeping the first of each in place; returns the
/// values removed, as written in text (strings without quotes).
/// Whether [`RepairLooseLists`] has anything to repair in `schema`: a read-only look, so that
/// the schemas written tightly (nearly all) are neither copied to be repaired nor walked with a
/// recorder. It finds exactly what `repair` changes.
pub(crate) fn has_loose_lists(schema: &Schema) -> bool {
    let here = schema.as_object().is_some_and(|node| {
        node.iter().any(|(key, value)| match (key.as_str(), value) {
            ("required", Value::String(_)) => true,
            ("required" | "type", Value::Array(values)) => has_repeats(values),
            _ => false,
        })
    });
    let mut below = false;
    if !here {
        for_each_subschema(schema, |_, sub| below = below || has_loose_lists(sub));
    }
    here || below
}

/// Whether [`drop_repeats`] would drop anything.
fn has_repeats(values: &[Value]) -> bool {
    values
        .iter()
        .enumerate()
        .any(|(i, value)| values[..i].contains(value))
}

fn drop_repeats(values: &mut Vec<Value>) -> Vec<String> {
    let mut removed = Vec::new();
    let mut i = 0;
    while i < values.len() {
        if values[..i].contains(&values[i]) {
            let value = values.remove(i);
            removed.push(match value {
                Value::String(s) => s,
                other => other.to_string(),
            });
        } else {
            i += 1;
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::test_util::check;
    use schemars::json_schema;

    #[test]
    fn loose_lists_are_made_valid_and_recorded() {
        let t = check(
            RepairLooseLists::default(),
            json_schema!({"type": "object", "properties": {
                "a": {"type": ["string", "null", "string"]},
                "b": {"type": "object", "properties": {"x": {}}, "required": "x"},
                "c": {"type": "string"}
            }, "required": ["b", "a", "b", "b"]}),
            json_schema!({"type": "object", "properties": {
                "a": {"type": ["string", "null"]},
                "b": {"type": "object", "properties": {"x": {}}, "required": ["x"]},
                "c": {"type": "string"}
            }, "required": ["b", "a"]}),
        );
        let at: Vec<(&str, String)> = t
            .rec
            .changes()
            .iter()
            .map(|c| (c.pointer.as_str(), c.kind.to_string()))
            .collect();
        assert_eq!(at.len(), 4, "{at:?}");
        assert_eq!(at[0].0, "");
        assert!(at[0].1.contains("`b` listed again"), "{at:?}");
        assert_eq!(at[2].0, "/properties/a");
        assert_eq!(at[3].0, "/properties/b");
        assert!(at[3].1.contains("not valid JSON Schema"), "{at:?}");
    }

    #[test]
    fn loose_lists_are_found_where_the_repair_would_change_something() {
        for loose in [
            json_schema!({"properties": {"a": {"type": ["string", "null", "string"]}}}),
            json_schema!({"items": {"required": "x"}}),
            json_schema!({"anyOf": [{"required": ["a", "b", "a"]}]}),
        ] {
            assert!(has_loose_lists(&loose), "{loose:?}");
        }
        for tight in [
            json_schema!({"type": ["string", "null"], "required": ["a", "b"],
                          "properties": {"r": {"required": true}}}),
            json_schema!({"enum": [["a", "a"]], "default": {"required": "x"}}),
            json_schema!(true),
        ] {
            assert!(!has_loose_lists(&tight), "{tight:?}");
        }
    }

    #[test]
    fn valid_and_odd_lists_are_left_alone() {
        let valid = json_schema!({"type": ["string", "null"], "required": ["a", "b"],
                                  "properties": {"r": {"required": true}}});
        let t = check(RepairLooseLists::default(), valid.clone(), valid);
        assert!(t.rec.changes().is_empty());
    }
}
