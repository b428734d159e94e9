//! `CloseObjects` and `RemoveAdditionalProperties`: what an object says about other keys.
//!
//! Rust structs (without `deny_unknown_fields`) say nothing about unknown keys, and serde ignores
//! them; a model, though, does better when told the listed properties are all there is, and
//! OpenAI strict mode requires `additionalProperties: false`. Gemini's `parameters` have no
//! `additionalProperties` at all.

use schemars::Schema;
use schemars::transform::Transform;
use serde_json::{Map, Value};

use super::describe::{append_sentences, defaults_under, map_sentence};
use super::node::{get, has, insert_after, take};
use super::repair::declare_required;
use super::walk::{recording, transform_subschemas_tracked};
use crate::report::{ChangeKind, Recorder};

/// Keywords next to which closing an object would change what it accepts: their subschemas
/// may declare properties of their own, which `additionalProperties: false` would then refuse.
const COMPOSED: &[&str] = &[
    "allOf",
    "anyOf",
    "oneOf",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "dependencies",
    "$ref",
    "unevaluatedProperties",
];

/// Adds `additionalProperties: false` (right after `properties`) to every node that declares
/// `properties` and says nothing about other keys. Maps (`additionalProperties` present) and
/// bare `{"type": "object"}` (any object) stay open, and so do objects composed with
/// `allOf`/`anyOf`/`oneOf`/`if`… whose branches may add properties.
#[derive(Debug, Clone, Default)]
pub(crate) struct CloseObjects {
    pub(crate) rec: Recorder,
}

impl Transform for CloseObjects {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(node) = schema.as_object_mut()
            && closable(node)
        {
            // A name `required` lists but `properties` does not declare is a parameter of any
            // value while the object is open. Closed without it, the object would refuse the
            // very key it requires, and no call could be valid (Playwright's `browser_type`
            // requires an undeclared `ref`): it is declared first, as `RepairShapes` does.
            declare_required(node, &mut self.rec);
            insert_after(
                node,
                "properties",
                "additionalProperties",
                Value::Bool(false),
            );
            self.rec.record(ChangeKind::Added {
                keyword: "additionalProperties".to_owned(),
                why: "`false`: the listed properties are all there is".to_owned(),
            });
        }
        transform_subschemas_tracked(self, schema);
    }
}

recording!(CloseObjects);

/// Whether the node should be closed: it declares `properties` and says nothing of other keys,
/// and nothing beside it may add properties.
fn closable(node: &Map<String, Value>) -> bool {
    get(node, "properties").is_some_and(Value::is_object)
        && !has(node, "additionalProperties")
        && !node.keys().any(|k| COMPOSED.contains(&k.as_str()))
}

/// Removes every `additionalProperties` (Gemini has no such field). `false` goes silently (the
/// model sees the listed properties); a map's value schema, or `true`, is first described:
/// "An object mapping any key to a string."
#[derive(Debug, Clone, Default)]
pub(crate) struct RemoveAdditionalProperties {
    pub(crate) rec: Recorder,
}

impl Transform for RemoveAdditionalProperties {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(node) = schema.as_object_mut()
            && let Some(values) = take(node, "additionalProperties")
        {
            let has_properties = node
                .get("properties")
                .and_then(Value::as_object)
                .is_some_and(|p| !p.is_empty());
            let change = match map_sentence(&values, has_properties) {
                Some(sentence) => {
                    append_sentences(node, std::slice::from_ref(&sentence));
                    ChangeKind::Described {
                        keywords: vec!["additionalProperties".to_owned()],
                        sentence,
                    }
                }
                None => ChangeKind::Removed {
                    keyword: "additionalProperties".to_owned(),
                    why: "Gemini has no such field; the listed properties are all there is"
                        .to_owned(),
                },
            };
            self.rec.record(change);
            // The map's sentence says its values' own default; deeper ones are said apart.
            for sentence in defaults_under("additionalProperties", &values, true) {
                append_sentences(node, std::slice::from_ref(&sentence));
                self.rec.record(ChangeKind::Described {
                    keywords: vec!["additionalProperties".to_owned()],
                    sentence,
                });
            }
        }
        transform_subschemas_tracked(self, schema);
    }
}

recording!(RemoveAdditionalProperties);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::test_util::check;
    use schemars::json_schema;

    #[test]
    fn closes_declared_objects_everywhere() {
        check(
            CloseObjects::default(),
            json_schema!({
                "type": "object",
                "properties": {
                    "p": {"type": "object", "properties": {"x": {}}, "required": ["x"]},
                    "items": {"type": "array", "items": {"properties": {}}}
                },
                "required": ["p"],
                "$defs": {"D": {"properties": {"a": true}}, "E": {"dependentSchemas": {"p": {"properties": {"y": {}}}}}}
            }),
            json_schema!({
                "type": "object",
                "properties": {
                    "p": {"type": "object", "properties": {"x": {}}, "additionalProperties": false, "required": ["x"]},
                    "items": {"type": "array", "items": {"properties": {}, "additionalProperties": false}}
                },
                "additionalProperties": false,
                "required": ["p"],
                "$defs": {
                    "D": {"properties": {"a": true}, "additionalProperties": false},
                    "E": {"dependentSchemas": {"p": {"properties": {"y": {}}, "additionalProperties": false}}}
                }
            }),
        );
    }

    #[test]
    fn a_required_name_is_declared_before_its_object_is_closed() {
        // Closed as it was, `ref` would be required and refused at once: no call valid.
        check(
            CloseObjects::default(),
            json_schema!({
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["ref", "text"]
            }),
            json_schema!({
                "type": "object",
                "properties": {"text": {"type": "string"}, "ref": {}},
                "additionalProperties": false,
                "required": ["ref", "text"]
            }),
        );
    }

    #[test]
    fn maps_open_objects_and_compositions_stay_open() {
        let open = json_schema!({"anyOf": [
            {"type": "object", "additionalProperties": {"type": "string"}},
            {"type": "object"},
            {"type": "object", "properties": {"a": {}}, "additionalProperties": true},
            {"properties": {"tag": {}}, "oneOf": [{"properties": {"x": {}}, "additionalProperties": false}]},
            {"properties": {"a": {}}, "unevaluatedProperties": false},
            {"properties": 3}
        ]});
        check(CloseObjects::default(), open.clone(), open);
        check(
            CloseObjects::default(),
            json_schema!(true),
            json_schema!(true),
        );
    }

    #[test]
    fn gemini_removes_and_describes_maps() {
        check(
            RemoveAdditionalProperties::default(),
            json_schema!({
                "type": "object",
                "properties": {
                    "tags": {"type": "object", "additionalProperties": {"type": "string"}},
                    "any": {"type": "object", "additionalProperties": true},
                    "extra": {"description": "Extra.", "type": "object", "properties": {"a": {}}, "additionalProperties": {"type": "integer"}}
                },
                "additionalProperties": false
            }),
            json_schema!({
                "type": "object",
                "properties": {
                    "tags": {"description": "An object mapping any key to a string.", "type": "object"},
                    "any": {"description": "An object mapping any key to any value.", "type": "object"},
                    "extra": {"description": "Extra. Other keys are allowed, each mapping to an integer.", "type": "object", "properties": {"a": {}}}
                }
            }),
        );
    }
}
