//! Gemini's OpenAPI 3.0 subset: one `type` per node, `nullable`, string-only `enum`, and
//! `propertyOrdering`.
//!
//! Gemini's `parameters` are a protobuf message: `type` is a single enum value ("Proto field is
//! not repeating" for an array), null is `nullable: true`, `enum` holds strings, and properties
//! come back in whatever order the service picks unless `propertyOrdering` fixes it.

use schemars::Schema;
use schemars::transform::Transform;
use serde_json::{Map, Value, json};

use super::describe::{
    append_sentences, before_sentence, default_sentence, ensure_period, enum_sentence,
};
use super::formats::format_type;
use super::merge::merge_ref_siblings;
use super::node::{insert_after, json_type, take, type_names};
use super::walk::{recording, transform_subschemas_tracked};
use crate::report::{ChangeKind, Recorder};

/// How many times one node may be rewritten (a merged branch can bring another nullable
/// `anyOf`); a guard against pathological input.
const MAX_ROUNDS: usize = 16;

/// Rewrites JSON Schema's ways of saying "or null" as `nullable: true`:
/// `type: ["T", "null"]` → `type: T`; `anyOf: [X, {type: null}]` → X merged into the node
/// (descriptions joined, the node's first); `null` in an `enum` is dropped. A `type` naming
/// several non-null types becomes an `anyOf` with one branch per type, each carrying the
/// keywords that apply to it.
#[derive(Debug, Clone, Default)]
pub(crate) struct GeminiNullable {
    pub(crate) rec: Recorder,
}

impl Transform for GeminiNullable {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(node) = schema.as_object_mut() {
            for _ in 0..MAX_ROUNDS {
                let changed = unwrap_null_branch(node, &mut self.rec);
                split_type_array(node, &mut self.rec);
                drop_null_from_enum(node, &mut self.rec);
                if !changed {
                    break;
                }
            }
        }
        transform_subschemas_tracked(self, schema);
    }
}

recording!(GeminiNullable);

fn rewritten(rec: &mut Recorder, from: &str, to: &str) {
    rec.record(ChangeKind::Rewritten {
        from: from.to_owned(),
        to: to.to_owned(),
    });
}

fn set_nullable(node: &mut Map<String, Value>) {
    if node.contains_key("type") {
        insert_after(node, "type", "nullable", Value::Bool(true));
    } else {
        node.insert("nullable".into(), Value::Bool(true));
    }
}

/// A branch that only says "null": `{type: "null"}`, `{type: ["null"]}`, `{enum: [null]}`,
/// `{const: null}` (descriptions allowed).
fn is_null_branch(branch: &Value) -> bool {
    let Some(node) = branch.as_object() else {
        return false;
    };
    let says_null = match (node.get("type"), node.get("enum"), node.get("const")) {
        (Some(_), None, None) => type_names(node) == ["null"],
        (None, Some(Value::Array(values)), None) => values == &[Value::Null],
        (None, None, Some(Value::Null)) => true,
        _ => false,
    };
    says_null
        && node.keys().all(|k| {
            matches!(
                k.as_str(),
                "type" | "enum" | "const" | "description" | "title"
            )
        })
}

/// Takes the null branches out of an `anyOf`; returns whether the node changed shape (a single
/// remaining branch was merged in, which may need another round).
fn unwrap_null_branch(node: &mut Map<String, Value>, rec: &mut Recorder) -> bool {
    let Some(Value::Array(branches)) = node.get("anyOf") else {
        return false;
    };
    if !branches.iter().any(is_null_branch) {
        return false;
    }
    let others: Vec<Value> = branches
        .iter()
        .filter(|b| !is_null_branch(b))
        .cloned()
        .collect();
    // What a null branch said in words (a description, a default said there) goes with it
    // into the node, so it is not lost with the branch.
    let said: Vec<String> = branches
        .iter()
        .filter(|b| is_null_branch(b))
        .filter_map(|b| b.get("description").and_then(Value::as_str))
        .map(ensure_period)
        .collect();
    rewritten(rec, "an `anyOf` with a `null` branch", "`nullable: true`");
    let only_at = branches.iter().position(|b| !is_null_branch(b));
    // A default the description already says (an MCP rendering converted again) is no
    // description of the field's own: set apart while the branch is merged in, it does not
    // hide the branch's description, and it is said last again, as for the canonical schema.
    let said_default = take_said_default(node);
    let changed = match <[Value; 1]>::try_from(others) {
        Ok([only]) => {
            if let Some(at) = only_at {
                let here = rec.pointer.clone();
                rec.moved(format!("{here}/anyOf/{at}"), here);
            }
            take(node, "anyOf");
            let siblings = std::mem::take(node);
            *node = match merge_ref_siblings(only.clone(), siblings.clone()) {
                Ok(Value::Object(merged)) => merged,
                // `true`/`false` branches: keep the node's own keywords.
                Ok(_) => siblings,
                // The branch and the node disagree on a keyword: keep the branch apart.
                Err(_) => {
                    let mut kept = siblings;
                    kept.insert("anyOf".into(), Value::Array(vec![only]));
                    kept
                }
            };
            set_nullable(node);
            true
        }
        Err(others) if others.is_empty() => {
            take(node, "anyOf");
            set_nullable(node);
            false
        }
        Err(others) => {
            node.insert("anyOf".into(), Value::Array(others));
            set_nullable(node);
            false
        }
    };
    append_sentences(node, &said);
    if let Some(sentence) = said_default {
        append_sentences(node, &[sentence]);
    }
    changed
}

/// Takes the sentence of the node's `default` off the end of its description (the whole
/// description when that is all it says), where a rendering that keeps the keyword put it.
fn take_said_default(node: &mut Map<String, Value>) -> Option<String> {
    let sentence = default_sentence(node.get("default")?);
    let description = node.get("description")?.as_str()?;
    let before = before_sentence(description, &sentence)?.to_owned();
    if before.is_empty() {
        take(node, "description");
    } else {
        node.insert("description".into(), before.into());
    }
    Some(sentence)
}

/// Which type a keyword constrains, for splitting a multi-type node.
fn keyword_type(keyword: &str) -> Option<&'static [&'static str]> {
    Some(match keyword {
        "minLength" | "maxLength" | "pattern" => &["string"],
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => {
            &["integer", "number"]
        }
        "items" | "prefixItems" | "minItems" | "maxItems" | "uniqueItems" | "contains" => {
            &["array"]
        }
        "properties"
        | "required"
        | "additionalProperties"
        | "patternProperties"
        | "propertyNames"
        | "minProperties"
        | "maxProperties"
        | "propertyOrdering" => &["object"],
        _ => return None,
    })
}

fn split_type_array(node: &mut Map<String, Value>, rec: &mut Recorder) {
    let Some(Value::Array(types)) = node.get("type") else {
        return;
    };
    let mut non_null: Vec<String> = Vec::new();
    for ty in types
        .iter()
        .filter_map(Value::as_str)
        .filter(|t| *t != "null")
    {
        if !non_null.iter().any(|t| t == ty) {
            non_null.push(ty.to_owned());
        }
    }
    let nullable = types.iter().any(|t| t == "null");
    match non_null.as_slice() {
        [] => {
            take(node, "type");
        }
        [only] => {
            node.insert("type".into(), only.as_str().into());
        }
        _ if node.contains_key("anyOf") => {
            rec.record(ChangeKind::Kept {
                keyword: "type".to_owned(),
                why: "a list of types beside an `anyOf` cannot be split into branches; Gemini \
                      may refuse it"
                    .to_owned(),
            });
            return;
        }
        _ => split_into_branches(node, &non_null),
    }
    let to = match (non_null.len(), nullable) {
        (0 | 1, true) => "one `type` and `nullable: true`",
        (0 | 1, false) => "one `type`",
        (_, true) => "an `anyOf` of one branch per type, and `nullable: true`",
        (_, false) => "an `anyOf` of one branch per type",
    };
    rewritten(rec, "a `type` list", to);
    if nullable {
        set_nullable(node);
    }
}

/// `{type: [A, B], …}` → `{anyOf: [{type: A, <A's keywords>}, {type: B, …}], <the rest>}`.
fn split_into_branches(node: &mut Map<String, Value>, types: &[String]) {
    let Some(at) = node.keys().position(|k| k == "type") else {
        return;
    };
    take(node, "type");
    let mut branches: Vec<Map<String, Value>> = types
        .iter()
        .map(|t| Map::from_iter([("type".to_owned(), Value::from(t.as_str()))]))
        .collect();
    let keys: Vec<String> = node.keys().cloned().collect();
    for key in keys {
        let owners: Vec<&str> = match (key.as_str(), node.get(&key)) {
            ("format", Some(Value::String(f))) => vec![format_type(f)],
            ("enum", Some(Value::Array(_))) => types.iter().map(String::as_str).collect(),
            (k, _) => match keyword_type(k) {
                Some(owners) => owners.to_vec(),
                None => continue,
            },
        };
        let Some(value) = take(node, &key) else {
            continue;
        };
        for branch in &mut branches {
            let ty = branch
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            if !owners.contains(&ty.as_str()) {
                continue;
            }
            let value = match (&key[..], &value) {
                ("enum", Value::Array(values)) => Value::Array(
                    values
                        .iter()
                        .filter(|v| value_has_type(v, &ty))
                        .cloned()
                        .collect(),
                ),
                _ => value.clone(),
            };
            branch.insert(key.clone(), value);
        }
    }
    let branches: Vec<Value> = branches.into_iter().map(Value::Object).collect();
    node.shift_insert(at.min(node.len()), "anyOf".into(), Value::Array(branches));
}

fn value_has_type(value: &Value, ty: &str) -> bool {
    let actual = json_type(value);
    actual == ty || (ty == "number" && actual == "integer")
}

fn drop_null_from_enum(node: &mut Map<String, Value>, rec: &mut Recorder) {
    let Some(Value::Array(values)) = node.get_mut("enum") else {
        return;
    };
    if !values.contains(&Value::Null) {
        return;
    }
    values.retain(|v| !v.is_null());
    if values.is_empty() {
        take(node, "enum");
    }
    set_nullable(node);
    rewritten(rec, "`null` in an `enum`", "`nullable: true`");
}

/// Keeps `enum` only on string nodes (the only place Gemini takes it): a `type`-less enum of
/// strings gets `type: "string"`; any other enum is removed and described ("Must be one of: 1,
/// 2, 3.").
#[derive(Debug, Clone, Default)]
pub(crate) struct StringOnlyEnums {
    pub(crate) rec: Recorder,
}

impl Transform for StringOnlyEnums {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(node) = schema.as_object_mut() {
            string_only_enum(node, &mut self.rec);
        }
        transform_subschemas_tracked(self, schema);
    }
}

recording!(StringOnlyEnums);

fn string_only_enum(node: &mut Map<String, Value>, rec: &mut Recorder) {
    let Some(Value::Array(values)) = node.get("enum") else {
        return;
    };
    let all_strings = values.iter().all(Value::is_string);
    // Gemini refuses an empty string among the values (its enum values are names).
    let has_empty = values.iter().any(|v| v.as_str() == Some(""));
    let types = type_names(node);
    match (
        types.as_slice(),
        all_strings && !has_empty,
        node.contains_key("type"),
    ) {
        (["string"], true, _) => {}
        ([], true, false) => {
            if let Some(at) = node.keys().position(|k| k == "enum") {
                node.shift_insert(at, "type".into(), "string".into());
                rec.record(ChangeKind::Added {
                    keyword: "type".to_owned(),
                    why: "`string`: Gemini takes an `enum` only on strings".to_owned(),
                });
            }
        }
        _ => {
            let typeless_strings = all_strings && types.is_empty();
            let Some(at) = node.keys().position(|k| k == "enum") else {
                return;
            };
            let Some(Value::Array(values)) = take(node, "enum") else {
                return;
            };
            if typeless_strings {
                // The values said the type; keep saying it once they are words.
                node.shift_insert(at, "type".into(), "string".into());
                rec.record(ChangeKind::Added {
                    keyword: "type".to_owned(),
                    why: "`string`: every value of the `enum` it replaces is a string".to_owned(),
                });
            }
            let sentence = enum_sentence(&values);
            append_sentences(node, std::slice::from_ref(&sentence));
            rec.record(ChangeKind::Described {
                keywords: vec!["enum".to_owned()],
                sentence,
            });
        }
    }
}

/// Replaces boolean schemas, which Gemini's protobuf `Schema` cannot hold: `true` (any value,
/// e.g. a `serde_json::Value`) becomes `{}`, `false` becomes
/// `{"description": "Accepts no value; leave it out."}`. Runs after `additionalProperties` (the
/// usual home of `false`) is gone.
#[derive(Debug, Clone, Default)]
pub(crate) struct ReplaceBoolSchemas {
    pub(crate) rec: Recorder,
}

impl Transform for ReplaceBoolSchemas {
    fn transform(&mut self, schema: &mut Schema) {
        match schema.as_bool() {
            Some(true) => {
                *schema = Schema::from(Map::new());
                rewritten(&mut self.rec, "the `true` schema", "`{}` (any value)");
            }
            Some(false) => {
                let node = json!({"description": "Accepts no value; leave it out."});
                if let Ok(replaced) = Schema::try_from(node) {
                    *schema = replaced;
                }
                rewritten(
                    &mut self.rec,
                    "the `false` schema",
                    "a description saying it accepts no value",
                );
            }
            None => transform_subschemas_tracked(self, schema),
        }
    }
}

recording!(ReplaceBoolSchemas);

/// Adds `propertyOrdering` (the declaration order) to every object with two or more
/// properties, so Gemini keeps the order the tool's author chose.
#[derive(Debug, Clone, Default)]
pub(crate) struct GeminiPropertyOrdering {
    pub(crate) rec: Recorder,
}

impl Transform for GeminiPropertyOrdering {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(node) = schema.as_object_mut() {
            let names: Vec<Value> = match node.get("properties") {
                Some(Value::Object(p)) if p.len() >= 2 => p.keys().map(|k| json!(k)).collect(),
                _ => Vec::new(),
            };
            if !names.is_empty() && !node.contains_key("propertyOrdering") {
                insert_after(node, "properties", "propertyOrdering", Value::Array(names));
                self.rec.record(ChangeKind::Added {
                    keyword: "propertyOrdering".to_owned(),
                    why: "Gemini keeps the declared order of properties only when told".to_owned(),
                });
            }
        }
        transform_subschemas_tracked(self, schema);
    }
}

recording!(GeminiPropertyOrdering);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::test_util::check;
    use schemars::json_schema;

    #[test]
    fn type_arrays_become_nullable() {
        check(
            GeminiNullable::default(),
            json_schema!({"properties": {
                "n": {"type": ["integer", "null"], "minimum": 0},
                "s": {"type": ["string"]},
                "z": {"type": ["null"], "description": "Nothing."}
            }}),
            json_schema!({"properties": {
                "n": {"type": "integer", "nullable": true, "minimum": 0},
                "s": {"type": "string"},
                "z": {"description": "Nothing.", "nullable": true}
            }}),
        );
    }

    #[test]
    fn nullable_any_of_merges_its_branch() {
        check(
            GeminiNullable::default(),
            json_schema!({"properties": {
                "p": {"description": "where", "anyOf": [
                    {"description": "A point.", "type": "object", "properties": {"x": {"type": ["number", "null"]}}},
                    {"type": "null"}
                ]},
                "u": {"anyOf": [{"type": "string", "enum": ["c", "f"]}, {"enum": [null]}], "default": "c"},
                "several": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
                "only_null": {"anyOf": [{"type": "null"}]},
                "nested": {"anyOf": [{"anyOf": [{"type": "string"}, {"type": "null"}]}, {"type": "null"}]}
            }}),
            json_schema!({"properties": {
                "p": {"description": "where", "type": "object", "nullable": true, "properties": {"x": {"type": "number", "nullable": true}}},
                "u": {"type": "string", "nullable": true, "enum": ["c", "f"], "default": "c"},
                "several": {"anyOf": [{"type": "string"}, {"type": "integer"}], "nullable": true},
                "only_null": {"nullable": true},
                "nested": {"type": "string", "nullable": true}
            }}),
        );
    }

    #[test]
    fn a_said_default_does_not_hide_the_branch_description() {
        // An MCP rendering converted again: the default is kept and already said, which is
        // not the field's own description.
        check(
            GeminiNullable::default(),
            json_schema!({"properties": {
                "n": {"description": "Default: null.", "anyOf": [
                    {"description": "Must be at most 2 characters long.", "type": "string"},
                    {"type": "null"}
                ], "default": null},
                "d": {"description": "Name. Default: null.", "anyOf": [
                    {"description": "A string.", "type": "string"},
                    {"type": "null"}
                ], "default": null}
            }}),
            json_schema!({"properties": {
                "n": {"description": "Must be at most 2 characters long. Default: null.", "type": "string", "nullable": true, "default": null},
                "d": {"description": "Name. Default: null.", "type": "string", "nullable": true, "default": null}
            }}),
        );
    }

    #[test]
    fn multi_type_nodes_split_into_branches() {
        check(
            GeminiNullable::default(),
            json_schema!({
                "description": "Id.",
                "type": ["string", "integer", "null"],
                "minLength": 1,
                "minimum": 0,
                "format": "int64",
                "enum": ["a", 1, null]
            }),
            json_schema!({
                "description": "Id.",
                "anyOf": [
                    {"type": "string", "minLength": 1, "enum": ["a"]},
                    {"type": "integer", "minimum": 0, "format": "int64", "enum": [1]}
                ],
                "nullable": true
            }),
        );
    }

    #[test]
    fn enum_nulls_and_odd_inputs() {
        check(
            GeminiNullable::default(),
            json_schema!({"items": {"type": "string", "enum": ["a", null]}, "anyOf": [true, {"type": "null"}], "not": {"enum": [null]}}),
            json_schema!({"items": {"type": "string", "nullable": true, "enum": ["a"]}, "not": {"nullable": true}, "nullable": true}),
        );
        let odd = json_schema!({"type": 3, "anyOf": {"a": 1}, "enum": "x"});
        check(GeminiNullable::default(), odd.clone(), odd);
        check(
            GeminiNullable::default(),
            json_schema!(false),
            json_schema!(false),
        );
    }

    #[test]
    fn enums_only_on_strings() {
        check(
            StringOnlyEnums::default(),
            json_schema!({"properties": {
                "s": {"type": "string", "enum": ["a", "b"]},
                "t": {"enum": ["a"]},
                "i": {"description": "Level", "type": "integer", "enum": [1, 2, 3]},
                "one": {"type": "integer", "enum": [7]},
                "mixed": {"enum": ["a", 1]}
            }}),
            json_schema!({"properties": {
                "s": {"type": "string", "enum": ["a", "b"]},
                "t": {"type": "string", "enum": ["a"]},
                "i": {"description": "Level. Must be one of: 1, 2, 3.", "type": "integer"},
                "one": {"description": "Must be 7.", "type": "integer"},
                "mixed": {"description": "Must be one of: `a`, 1."}
            }}),
        );
    }

    #[test]
    fn bool_schemas_become_objects() {
        check(
            ReplaceBoolSchemas::default(),
            json_schema!({"properties": {"any": true, "never": false, "list": {"items": true}}}),
            json_schema!({"properties": {
                "any": {},
                "never": {"description": "Accepts no value; leave it out."},
                "list": {"items": {}}
            }}),
        );
        check(
            ReplaceBoolSchemas::default(),
            json_schema!(true),
            json_schema!({}),
        );
    }

    #[test]
    fn property_ordering_for_two_or_more() {
        check(
            GeminiPropertyOrdering::default(),
            json_schema!({
                "type": "object",
                "properties": {"z": {}, "a": {"type": "object", "properties": {"only": {}}}, "m": {"items": {"properties": {"b": {}, "a": {}}}}},
                "required": ["z"]
            }),
            json_schema!({
                "type": "object",
                "properties": {"z": {}, "a": {"type": "object", "properties": {"only": {}}}, "m": {"items": {"properties": {"b": {}, "a": {}}, "propertyOrdering": ["b", "a"]}}},
                "propertyOrdering": ["z", "a", "m"],
                "required": ["z"]
            }),
        );
    }
}
