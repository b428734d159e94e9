//! Arguments a model sent for a rendering, put back into the shape the original schema expects.
//!
//! OpenAI strict mode makes every optional property required and nullable, so a strict model
//! sends `null` for each field it leaves out. A server that never said its field accepts `null`
//! refuses that (`"expected boolean, received null"`). The rendering's report records each such
//! property ([`ChangeKind::MadeRequired`] with `nullable: true`) at the JSON Pointer of its
//! object in the rendered schema; the arguments are walked alongside that schema, and a `null`
//! for one of those properties is removed: left out, as the original schema allows.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::report::{ChangeKind, Place, Report};

/// How deep arguments are followed; deeper values are left as they are (limits on arguments are
/// enforced before this, by whoever parsed them).
const MAX_DEPTH: usize = 128;

/// Removes the `null`s that stand for left-out fields (see the module documentation). `schema`
/// is the rendered input schema the model was shown; `report` its rendering's report.
pub(crate) fn restore(arguments: &mut Value, schema: &Map<String, Value>, report: &Report) {
    let mut absent_when_null: HashMap<&str, Vec<&str>> = HashMap::new();
    for change in report.changes() {
        if let (
            Place::Input,
            ChangeKind::MadeRequired {
                property,
                nullable: true,
            },
        ) = (change.place, &change.kind)
        {
            absent_when_null
                .entry(change.pointer.as_str())
                .or_default()
                .push(property.as_str());
        }
    }
    if absent_when_null.is_empty() {
        return;
    }
    let root = Value::Object(schema.clone());
    let walk = Walk {
        root: &root,
        absent_when_null: &absent_when_null,
    };
    walk.value(arguments, &root, String::new(), 0);
}

struct Walk<'a> {
    root: &'a Value,
    absent_when_null: &'a HashMap<&'a str, Vec<&'a str>>,
}

impl<'a> Walk<'a> {
    fn value(&self, data: &mut Value, schema: &'a Value, pointer: String, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let branches = self.branches(schema, pointer);
        match data {
            Value::Object(map) => self.object(map, &branches, depth),
            Value::Array(items) => {
                let Some((item_schema, at)) = branches
                    .iter()
                    .find_map(|(b, p)| b.get("items").map(|i| (i, format!("{p}/items"))))
                else {
                    return;
                };
                for item in items {
                    self.value(item, item_schema, at.clone(), depth + 1);
                }
            }
            _ => {}
        }
    }

    fn object(&self, map: &mut Map<String, Value>, branches: &[(&'a Value, String)], depth: usize) {
        let chosen = chosen_branches(map, branches);
        for (_, pointer) in &chosen {
            if let Some(properties) = self.absent_when_null.get(pointer.as_str()) {
                map.retain(|key, value| !(value.is_null() && properties.contains(&key.as_str())));
            }
        }
        for (key, value) in map.iter_mut() {
            let found = chosen.iter().find_map(|(b, p)| {
                b.get("properties")
                    .and_then(|props| props.get(key))
                    .map(|s| (s, format!("{p}/properties/{}", escape(key))))
            });
            let found = found.or_else(|| {
                chosen.iter().find_map(|(b, p)| {
                    b.get("additionalProperties")
                        .filter(|a| a.is_object())
                        .map(|s| (s, format!("{p}/additionalProperties")))
                })
            });
            if let Some((schema, at)) = found {
                self.value(value, schema, at, depth + 1);
            }
        }
    }

    /// The schema (its `$ref` resolved) and the branches of its `anyOf`/`oneOf`/`allOf`,
    /// flattened, each with its pointer in the rendered schema.
    fn branches(&self, schema: &'a Value, pointer: String) -> Vec<(&'a Value, String)> {
        let mut out = Vec::new();
        let mut pending = vec![(schema, pointer)];
        // Bounded: references that loop without data between them must not loop here.
        let mut budget = 64;
        while let Some((schema, pointer)) = pending.pop() {
            if budget == 0 {
                break;
            }
            budget -= 1;
            let (schema, pointer) = self.resolve(schema, pointer);
            for key in ["anyOf", "oneOf", "allOf"] {
                if let Some(list) = schema.get(key).and_then(Value::as_array) {
                    for (i, branch) in list.iter().enumerate().rev() {
                        pending.push((branch, format!("{pointer}/{key}/{i}")));
                    }
                }
            }
            out.push((schema, pointer));
        }
        out
    }

    fn resolve(&self, schema: &'a Value, pointer: String) -> (&'a Value, String) {
        let (mut schema, mut pointer) = (schema, pointer);
        for _ in 0..16 {
            let Some(reference) = schema.get("$ref").and_then(Value::as_str) else {
                break;
            };
            let Some(at) = reference.strip_prefix('#') else {
                break;
            };
            let Some(target) = self.root.pointer(at) else {
                break;
            };
            schema = target;
            pointer = at.to_owned();
        }
        (schema, pointer)
    }
}

/// The object branches that describe `map`: where one declares exactly its keys (as a strict
/// model sends every property of the branch it means), that one; else those that declare all
/// of its keys; else every branch with properties.
fn chosen_branches<'b, 'a>(
    map: &Map<String, Value>,
    branches: &'b [(&'a Value, String)],
) -> Vec<&'b (&'a Value, String)> {
    let objects: Vec<&(&Value, String)> = branches
        .iter()
        .filter(|(b, _)| b.get("properties").is_some_and(Value::is_object))
        .collect();
    let declares_all = |b: &Value| {
        let properties = b.get("properties").and_then(Value::as_object);
        map.keys()
            .all(|k| properties.is_some_and(|p| p.contains_key(k)))
    };
    let exact: Vec<_> = objects
        .iter()
        .copied()
        .filter(|(b, _)| {
            declares_all(b)
                && b.get("properties")
                    .and_then(Value::as_object)
                    .is_some_and(|p| p.len() == map.len())
        })
        .collect();
    if exact.len() == 1 {
        return exact;
    }
    let covering: Vec<_> = objects
        .iter()
        .copied()
        .filter(|(b, _)| declares_all(b))
        .collect();
    if covering.is_empty() {
        objects
    } else {
        covering
    }
}

fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Change;
    use serde_json::json;

    fn made(pointer: &str, property: &str) -> Change {
        Change {
            place: Place::Input,
            pointer: pointer.to_owned(),
            kind: ChangeKind::MadeRequired {
                property: property.to_owned(),
                nullable: true,
            },
        }
    }

    fn restored(schema: Value, changes: Vec<Change>, mut arguments: Value) -> Value {
        let Value::Object(schema) = schema else {
            panic!("an object schema")
        };
        restore(&mut arguments, &schema, &Report::from_changes(changes));
        arguments
    }

    #[test]
    fn nulls_for_left_out_fields_go_at_every_depth() {
        let schema = json!({"type": "object", "properties": {
            "q": {"type": "string"},
            "limit": {"type": ["integer", "null"]},
            "since": {"type": ["string", "null"]},
            "filter": {"anyOf": [
                {"type": "object", "properties": {"tag": {"type": ["string", "null"]}}},
                {"type": "null"}
            ]},
            "items": {"type": "array", "items": {"type": "object", "properties": {
                "n": {"type": ["integer", "null"]}
            }}},
            "tree": {"$ref": "#/$defs/Node"}
        }, "$defs": {"Node": {"type": "object", "properties": {
            "child": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]}
        }}}});
        let changes = vec![
            made("", "limit"),
            made("", "filter"),
            made("/properties/filter/anyOf/0", "tag"),
            made("/properties/items/items", "n"),
            made("/$defs/Node", "child"),
        ];
        let arguments = json!({
            "q": "x", "limit": null, "since": null,
            "filter": {"tag": null},
            "items": [{"n": null}, {"n": 2}],
            "tree": {"child": {"child": null}}
        });
        assert_eq!(
            restored(schema, changes, arguments),
            // `since` was nullable in the original: its `null` stays.
            json!({"q": "x", "since": null, "filter": {}, "items": [{}, {"n": 2}], "tree": {"child": {}}})
        );
    }

    #[test]
    fn the_branch_a_strict_model_filled_is_the_one_restored() {
        let schema = json!({"type": "object", "properties": {"shape": {"anyOf": [
            {"type": "object", "properties": {"r": {"type": "number"}, "x": {"type": ["integer", "null"]}}},
            {"type": "object", "properties": {"side": {"type": "number"}, "x": {"type": ["integer", "null"]}}}
        ]}}});
        // Only the second branch made `x` nullable; the first had it nullable all along.
        let changes = vec![made("/properties/shape/anyOf/1", "x")];
        assert_eq!(
            restored(
                schema.clone(),
                changes.clone(),
                json!({"shape": {"r": 1, "x": null}})
            ),
            json!({"shape": {"r": 1, "x": null}})
        );
        assert_eq!(
            restored(schema, changes, json!({"shape": {"side": 1, "x": null}})),
            json!({"shape": {"side": 1}})
        );
    }

    #[test]
    fn nothing_to_do_and_odd_input() {
        let schema = json!({"type": "object", "properties": {"a": {"type": ["string", "null"]}}});
        assert_eq!(
            restored(schema.clone(), vec![], json!({"a": null})),
            json!({"a": null})
        );
        assert_eq!(
            restored(schema.clone(), vec![made("", "a")], json!("text")),
            json!("text")
        );
        let mut deep = json!(null);
        for _ in 0..1_000 {
            deep = json!({"a": deep});
        }
        let _ = restored(schema, vec![made("", "a")], deep);
    }
}
