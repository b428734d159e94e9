//! `FoldRootCombinators`: an argument object written as `anyOf`/`oneOf`/`allOf` at the root.
//!
//! MCP servers built on zod, pydantic or schemars send discriminated unions and "one of these
//! fields is required" as root combinators. Anthropic refuses them ("input_schema does not
//! support oneOf, allOf, or anyOf at the top level"), OpenAI strict mode refuses a root `anyOf`,
//! and Gemini, which wants one object, used to lose every parameter. Folded here into one
//! object: an `allOf`'s branches are merged (conflicting properties keep both schemas as a
//! property-level `allOf`), and the branches of an `anyOf`/`oneOf` give the union of their
//! properties, required where every branch requires them, with the forms said in the
//! description. No parameter is lost; what the model may combine more freely than before is
//! said in words, and the server still checks the call against its own schema.
//!
//! For MCP (`fold: false`) the combinators stay, and a root without `type` whose branches are
//! all objects gets `"type": "object"`, which MCP requires of every `inputSchema`.

use schemars::Schema;
use schemars::transform::Transform;
use serde_json::{Map, Value, json};

use super::describe::{append_sentences, inline_value};
use super::merge::{Conflict, merge_conjunction};
use super::node::{is_object_node, property_names, required_names, take, type_names};
use super::walk::recording;
use crate::report::{ChangeKind, Recorder};

/// Folds the root's combinators into one object (see the module documentation); with
/// `keep: true`, only gives such a root its `"type": "object"`.
#[derive(Debug, Clone, Default)]
pub(crate) struct FoldRootCombinators {
    /// Keep the combinators (MCP takes them), only adding the root's `type`.
    pub keep: bool,
    pub(crate) rec: Recorder,
}

recording!(FoldRootCombinators);

impl Transform for FoldRootCombinators {
    fn transform(&mut self, schema: &mut Schema) {
        let Some(root) = schema.as_object_mut() else {
            return;
        };
        if !COMBINATORS.iter().any(|k| root.contains_key(*k)) {
            return;
        }
        if self.keep {
            add_object_type(root, &mut self.rec);
            return;
        }
        if let Some(Value::Array(branches)) = root.get("allOf").cloned() {
            take(root, "allOf");
            self.fold_all_of(root, branches);
        }
        for keyword in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = root.get(keyword).cloned() {
                self.fold_alternatives(root, keyword, branches);
            }
        }
        add_object_type(root, &mut self.rec);
    }
}

const COMBINATORS: &[&str] = &["allOf", "anyOf", "oneOf"];

/// Whether a branch describes an object: `type: object`, or object keywords without a `type`.
fn object_branch(branch: &Value) -> bool {
    let Some(node) = branch.as_object() else {
        return false;
    };
    let types = type_names(node);
    if types.is_empty() {
        node.contains_key("properties") || node.contains_key("required")
    } else {
        types.contains(&"object")
    }
}

/// `"type": "object"` for a root that lacks it and whose combinators describe only objects.
fn add_object_type(root: &mut Map<String, Value>, rec: &mut Recorder) {
    if root.contains_key("type") {
        return;
    }
    let only_objects = COMBINATORS.iter().all(|k| match root.get(*k) {
        Some(Value::Array(branches)) => branches.iter().all(object_branch),
        Some(_) => false,
        None => true,
    });
    if only_objects || is_object_node(root) {
        root.shift_insert(0, "type".to_owned(), json!("object"));
        rec.record(ChangeKind::Added {
            keyword: "type".to_owned(),
            why: "`object`: the arguments are always an object, and every branch says so"
                .to_owned(),
        });
    }
}

impl FoldRootCombinators {
    /// Merges every branch into the root; what conflicts stays exact one level down.
    fn fold_all_of(&mut self, root: &mut Map<String, Value>, branches: Vec<Value>) {
        let n = branches.len();
        for (i, branch) in branches.into_iter().enumerate() {
            if merge_conjunction(root, &branch).is_ok() {
                continue;
            }
            let Value::Object(branch) = branch else {
                self.rec.record(ChangeKind::Removed {
                    keyword: format!("allOf/{i}"),
                    why: "it is not an object schema, and the arguments are an object".to_owned(),
                });
                continue;
            };
            for (key, value) in branch {
                self.conjoin(root, &key, value, i);
            }
        }
        self.rec.record(ChangeKind::Rewritten {
            from: format!("a root `allOf` of {n} schemas"),
            to: "one object (their properties and requirements together)".to_owned(),
        });
    }

    /// One keyword of an `allOf` branch into the root, when the whole branch would not merge.
    fn conjoin(&mut self, root: &mut Map<String, Value>, key: &str, value: Value, branch: usize) {
        match (key, root.get_mut(key), value) {
            ("properties", Some(Value::Object(own)), Value::Object(theirs)) => {
                for (name, schema) in theirs {
                    match own.get_mut(&name) {
                        None => {
                            own.insert(name, schema);
                        }
                        Some(existing) if *existing == schema => {}
                        Some(existing) => {
                            // Both apply: keep both, exactly, where nested `allOf` is allowed.
                            let first = std::mem::take(existing);
                            *existing = json!({"allOf": [first, schema]});
                        }
                    }
                }
            }
            (key, _, value) => {
                let single = Value::Object(Map::from_iter([(key.to_owned(), value.clone())]));
                if let Err(Conflict(conflict)) = merge_conjunction(root, &single) {
                    let sentence = format!("Must also match `{}`.", single);
                    append_sentences(root, std::slice::from_ref(&sentence));
                    self.rec.record(ChangeKind::Described {
                        keywords: vec![format!("allOf/{branch}/{conflict}")],
                        sentence,
                    });
                }
            }
        }
    }

    /// The branches of a root `anyOf`/`oneOf` as one object whose description says the forms.
    fn fold_alternatives(
        &mut self,
        root: &mut Map<String, Value>,
        keyword: &str,
        branches: Vec<Value>,
    ) {
        let mut forms: Vec<Map<String, Value>> = Vec::new();
        let mut dropped = Vec::new();
        for (i, branch) in branches.into_iter().enumerate() {
            match branch {
                Value::Object(node) if object_branch(&Value::Object(node.clone())) => {
                    forms.push(node)
                }
                other => dropped.push(ChangeKind::Removed {
                    keyword: format!("{keyword}/{i}"),
                    why: format!(
                        "the arguments are always an object, and this branch ({}) is not one",
                        super::describe::short(&other)
                    ),
                }),
            }
        }
        if forms.is_empty() {
            // Nothing to fold into: the root keeps what it had and is refused as a non-object.
            return;
        }
        for change in dropped {
            self.rec.record(change);
        }
        take(root, keyword);
        let own_required = required_names(root);
        let at = root.keys().position(|k| k == "properties");
        let declared = at.is_some() || forms.iter().any(|f| f.contains_key("properties"));
        let mut merged: Map<String, Value> = match take(root, "properties") {
            Some(Value::Object(own)) => own,
            _ => Map::new(),
        };
        // Each property's schemas across the forms, in order of first appearance.
        let mut variants: Vec<(String, Vec<Value>)> = Vec::new();
        for form in &forms {
            if let Some(Value::Object(properties)) = form.get("properties") {
                for (name, schema) in properties {
                    match variants.iter_mut().find(|(n, _)| n == name) {
                        Some((_, list)) if list.contains(schema) => {}
                        Some((_, list)) => list.push(schema.clone()),
                        None => variants.push((name.clone(), vec![schema.clone()])),
                    }
                }
            }
        }
        for (name, schemas) in variants {
            let combined = one_of_variants(schemas);
            match merged.get_mut(&name) {
                None => {
                    merged.insert(name, combined);
                }
                Some(own) if *own == combined => {}
                Some(own) => {
                    // The root's own schema applies as well as the form's.
                    let merged = match own {
                        Value::Object(own_node) => merge_conjunction(own_node, &combined).is_ok(),
                        _ => false,
                    };
                    if !merged {
                        let first = std::mem::take(own);
                        *own = json!({"allOf": [first, combined]});
                    }
                }
            }
        }
        // Required where every form requires it, and what the root requires itself.
        let mut required = own_required;
        let per_form: Vec<Vec<String>> = forms.iter().map(required_names).collect();
        if let Some(first) = per_form.first() {
            for name in first {
                if per_form.iter().all(|r| r.contains(name)) && !required.contains(name) {
                    required.push(name.clone());
                }
            }
        }
        // One form is the object itself: nothing to choose.
        let sentence = (forms.len() > 1).then(|| forms_sentence(keyword, &forms));
        let n = forms.len();
        for (i, form) in forms.iter().enumerate() {
            for extra in form.keys().filter(|k| !FORM_KEYWORDS.contains(&k.as_str())) {
                self.rec.record(ChangeKind::Removed {
                    keyword: format!("{keyword}/{i}/{extra}"),
                    why: "folding the forms into one object keeps their properties and which \
                          are required; this rule of one form is left to the server to check"
                        .to_owned(),
                });
            }
        }
        if declared {
            let at = at.unwrap_or(root.len()).min(root.len());
            root.shift_insert(at, "properties".to_owned(), Value::Object(merged));
        }
        if !required.is_empty() {
            root.insert(
                "required".to_owned(),
                Value::Array(required.into_iter().map(Value::from).collect()),
            );
        }
        append_sentences(root, sentence.as_slice());
        self.rec.record(ChangeKind::Rewritten {
            from: format!(
                "a root `{keyword}` of {n} object schema{}",
                if n == 1 { "" } else { "s" }
            ),
            to: "one object with all their properties, required where every form requires \
                 them, the forms said in the description"
                .to_owned(),
        });
    }
}

/// What a form's fold keeps; any other keyword of a form is reported as left out.
const FORM_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "description",
    "title",
    "additionalProperties",
];

/// One schema for a property that several forms declare differently: an `anyOf` of them, with
/// a description they all share moved outside (so a discriminator's `const`s collapse into one
/// `enum` with a single description).
fn one_of_variants(mut schemas: Vec<Value>) -> Value {
    if schemas.len() == 1 {
        return schemas.pop().unwrap_or(Value::Bool(true));
    }
    let first_description = schemas[0].get("description").cloned();
    let shared =
        first_description.filter(|d| schemas.iter().all(|s| s.get("description") == Some(d)));
    let mut node = Map::new();
    if let Some(description) = shared {
        for schema in &mut schemas {
            if let Some(map) = schema.as_object_mut() {
                take(map, "description");
            }
        }
        node.insert("description".to_owned(), description);
    }
    node.insert("anyOf".to_owned(), Value::Array(schemas));
    Value::Object(node)
}

/// "Give the arguments in one of these forms: 1) A circle: `kind` = `circle`, `radius`;
/// 2) `kind` = `square`, `side`, `label` (optional)."
fn forms_sentence(keyword: &str, forms: &[Map<String, Value>]) -> String {
    let listed: Vec<String> = forms
        .iter()
        .enumerate()
        .map(|(i, form)| {
            let required = required_names(form);
            let declared = property_names(form);
            let mut fields: Vec<String> = declared
                .iter()
                .map(|name| {
                    let schema = form.get("properties").and_then(|p| p.get(name));
                    let mut field = format!("`{name}`");
                    if let Some(value) = schema.and_then(constant) {
                        field.push_str(&format!(" = {}", inline_value(&value)));
                    }
                    if !required.contains(name) {
                        field.push_str(" (optional)");
                    }
                    field
                })
                .collect();
            fields.extend(
                required
                    .iter()
                    .filter(|r| !declared.contains(r))
                    .map(|r| format!("`{r}`")),
            );
            let description = form
                .get("description")
                .or_else(|| form.get("title"))
                .and_then(Value::as_str)
                .map(|d| d.trim().trim_end_matches('.').to_owned())
                .filter(|d| !d.is_empty());
            let fields = if fields.is_empty() {
                "any fields".to_owned()
            } else {
                fields.join(", ")
            };
            match description {
                Some(d) => format!("{}) {d}: {fields}", i + 1),
                None => format!("{}) {fields}", i + 1),
            }
        })
        .collect();
    let which = if keyword == "oneOf" {
        "exactly one"
    } else {
        "one"
    };
    format!(
        "Give the arguments in {which} of these forms, leaving out the fields of the others: {}.",
        listed.join("; ")
    )
}

/// The one value a schema allows (`const`, or an `enum` of one).
fn constant(schema: &Value) -> Option<Value> {
    if let Some(value) = schema.get("const") {
        return Some(value.clone());
    }
    match schema.get("enum") {
        Some(Value::Array(values)) if values.len() == 1 => Some(values[0].clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::test_util::check;
    use schemars::json_schema;

    #[test]
    fn a_discriminated_union_becomes_one_object() {
        let t = check(
            FoldRootCombinators::default(),
            json_schema!({"oneOf": [
                {"type": "object", "description": "A circle.", "properties": {
                    "kind": {"type": "string", "const": "circle", "description": "The shape."},
                    "radius": {"type": "number"}
                }, "required": ["kind", "radius"]},
                {"type": "object", "properties": {
                    "kind": {"type": "string", "const": "square", "description": "The shape."},
                    "side": {"type": "number"},
                    "label": {"type": "string"}
                }, "required": ["kind", "side"]}
            ]}),
            json_schema!({
                "type": "object",
                "description": "Give the arguments in exactly one of these forms, leaving out the fields of the others: 1) A circle: `kind` = `circle`, `radius`; 2) `kind` = `square`, `side`, `label` (optional).",
                "properties": {
                    "kind": {"description": "The shape.", "anyOf": [
                        {"type": "string", "const": "circle"},
                        {"type": "string", "const": "square"}
                    ]},
                    "radius": {"type": "number"},
                    "side": {"type": "number"},
                    "label": {"type": "string"}
                },
                "required": ["kind"]
            }),
        );
        assert_eq!(t.rec.changes().len(), 2, "{:?}", t.rec.changes());
    }

    #[test]
    fn required_only_branches_say_which_field_to_give() {
        check(
            FoldRootCombinators::default(),
            json_schema!({
                "type": "object",
                "properties": {"id": {"type": "string"}, "title": {"type": "string"}, "body": {"type": "string"}},
                "required": ["id"],
                "anyOf": [{"required": ["title"]}, {"required": ["body"]}]
            }),
            json_schema!({
                "description": "Give the arguments in one of these forms, leaving out the fields of the others: 1) `title`; 2) `body`.",
                "type": "object",
                "properties": {"id": {"type": "string"}, "title": {"type": "string"}, "body": {"type": "string"}},
                "required": ["id"]
            }),
        );
    }

    #[test]
    fn all_of_merges_and_keeps_conflicts_exact() {
        check(
            FoldRootCombinators::default(),
            json_schema!({"allOf": [
                {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["b"]}
            ]}),
            json_schema!({
                "type": "object",
                "properties": {"a": {"allOf": [{"type": "string"}, {"type": "integer"}]}, "b": {"type": "integer"}},
                "required": ["a", "b"]
            }),
        );
    }

    #[test]
    fn non_object_branches_are_dropped_and_mcp_keeps_combinators() {
        let t = check(
            FoldRootCombinators::default(),
            json_schema!({"anyOf": [
                {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
                {"type": "null"}
            ]}),
            json_schema!({
                "type": "object",
                "properties": {"q": {"type": "string"}},
                "required": ["q"]
            }),
        );
        assert!(t.rec.changes()[0].to_string().contains("`anyOf/1` removed"));
        let union = json_schema!({"oneOf": [{"type": "object", "properties": {}}, {"properties": {"a": {}}}]});
        let mut typed = union.clone();
        typed
            .as_object_mut()
            .unwrap()
            .shift_insert(0, "type".into(), json!("object"));
        check(
            FoldRootCombinators {
                keep: true,
                ..Default::default()
            },
            union,
            typed,
        );
        let strings = json_schema!({"anyOf": [{"type": "string"}]});
        check(
            FoldRootCombinators::default(),
            strings.clone(),
            json_schema!({"anyOf": [{"type": "string"}]}),
        );
    }
}
