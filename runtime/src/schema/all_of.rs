//! `SimplifyAllOf`: merging `allOf` branches into the node that holds them.
//!
//! Draft-07-style foreign schemas wrap a `$ref` with siblings as `allOf: [{$ref}]`, and some
//! generators compose objects with `allOf`. OpenAI strict mode and Gemini reject `allOf`; one
//! node that says the same thing is accepted everywhere and reads better.

use schemars::Schema;
use schemars::transform::Transform;
use serde_json::{Map, Value};

use super::describe::{all_of_sentence, append_sentences};
use super::merge::{Conflict, merge_conjunction};
use super::node::take;
use super::walk::{recording, transform_subschemas_tracked};
use crate::report::{ChangeKind, Recorder};

/// How many nested `allOf`s one node may unfold; a guard against pathological input.
const MAX_ROUNDS: usize = 32;

/// Merges every `allOf` into its node when its branches combine without conflict (see
/// [`merge_conjunction`]: disjoint keywords, unions of `properties` and `required`, joined
/// descriptions). An `allOf` that cannot be merged is kept with a note, or — with
/// `describe_unmergeable` (Gemini, which has no `allOf`) — removed and described.
#[derive(Debug, Clone, Default)]
pub(crate) struct SimplifyAllOf {
    /// Replace an unmergeable `allOf` by a sentence instead of keeping it.
    pub describe_unmergeable: bool,
    /// What was merged, kept or described.
    pub rec: Recorder,
}

impl SimplifyAllOf {
    /// Keeps unmergeable `allOf`s (`describe_unmergeable: false`) or describes them (`true`).
    pub(crate) fn new(describe_unmergeable: bool) -> Self {
        SimplifyAllOf {
            describe_unmergeable,
            ..Self::default()
        }
    }

    fn simplify(&mut self, node: &mut Map<String, Value>) {
        for _ in 0..MAX_ROUNDS {
            let Some(Value::Array(branches)) = node.get("allOf") else {
                return;
            };
            let branches = branches.clone();
            match merged(node, &branches) {
                Ok(merged) => {
                    *node = merged;
                    let here = self.rec.pointer.clone();
                    for i in 0..branches.len() {
                        self.rec.moved(format!("{here}/allOf/{i}"), here.clone());
                    }
                    self.rec.record(ChangeKind::Rewritten {
                        from: "`allOf`".to_owned(),
                        to: "one schema (its branches merged)".to_owned(),
                    });
                }
                Err(Conflict(keyword)) => {
                    self.unmergeable(node, &keyword);
                    return;
                }
            }
        }
    }

    fn unmergeable(&mut self, node: &mut Map<String, Value>, keyword: &str) {
        if !self.describe_unmergeable {
            self.rec.record(ChangeKind::Kept {
                keyword: "allOf".to_owned(),
                why: format!(
                    "its branches conflict on `{keyword}`, so they cannot be merged into one schema"
                ),
            });
            return;
        }
        if let Some(all_of) = take(node, "allOf") {
            // The type every branch agrees on still holds; only the rest goes into words.
            let types: Vec<Option<&Value>> = all_of
                .as_array()
                .map(|branches| branches.iter().map(|b| b.get("type")).collect())
                .unwrap_or_default();
            if let (false, Some(Some(ty))) = (node.contains_key("type"), types.first())
                && types.iter().all(|t| *t == Some(*ty))
            {
                node.insert("type".to_owned(), (*ty).clone());
            }
            let sentence = all_of_sentence(&all_of);
            append_sentences(node, std::slice::from_ref(&sentence));
            self.rec.record(ChangeKind::Described {
                keywords: vec!["allOf".to_owned()],
                sentence,
            });
        }
    }
}

/// The node without its `allOf`, with every branch merged in.
fn merged(node: &Map<String, Value>, branches: &[Value]) -> Result<Map<String, Value>, Conflict> {
    let mut merged = node.clone();
    take(&mut merged, "allOf");
    for branch in branches {
        merge_conjunction(&mut merged, branch)?;
    }
    Ok(merged)
}

impl Transform for SimplifyAllOf {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(node) = schema.as_object_mut() {
            self.simplify(node);
        }
        transform_subschemas_tracked(self, schema);
    }
}

recording!(SimplifyAllOf);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::test_util::check;
    use schemars::json_schema;

    #[test]
    fn single_branch_merges_into_parent() {
        let t = check(
            SimplifyAllOf::new(false),
            json_schema!({"properties": {"p": {
                "description": "Where.",
                "allOf": [{"description": "A point.", "type": "object", "properties": {"x": {"type": "number"}}}],
                "default": {"x": 0}
            }}}),
            json_schema!({"properties": {"p": {
                "description": "Where. A point.",
                "default": {"x": 0},
                "type": "object",
                "properties": {"x": {"type": "number"}}
            }}}),
        );
        assert_eq!(t.rec.changes().len(), 1);
    }

    #[test]
    fn object_branches_union() {
        check(
            SimplifyAllOf::new(false),
            json_schema!({"allOf": [
                {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]},
                true
            ]}),
            json_schema!({
                "type": "object",
                "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
                "required": ["a", "b"]
            }),
        );
    }

    #[test]
    fn nested_all_of_unfolds() {
        check(
            SimplifyAllOf::new(false),
            json_schema!({"allOf": [{"allOf": [{"minimum": 1}]}, {"maximum": 3}]}),
            json_schema!({"maximum": 3, "minimum": 1}),
        );
    }

    #[test]
    fn conflicts_are_kept_or_described() {
        let input = json_schema!({"items": {"allOf": [{"type": "string"}, {"type": "integer"}]}});
        let same_type = json_schema!({"allOf": [
            {"type": "string", "pattern": "^a"},
            {"type": "string", "pattern": "b$"}
        ]});
        check(
            SimplifyAllOf::new(true),
            same_type,
            json_schema!({
                "description": "Must match all of these schemas: `{\"type\":\"string\",\"pattern\":\"^a\"}`; `{\"type\":\"string\",\"pattern\":\"b$\"}`.",
                "type": "string"
            }),
        );
        let t = check(SimplifyAllOf::new(false), input.clone(), input.clone());
        assert_eq!(
            t.rec.changes()[0].to_string(),
            "`/items`: `allOf` kept: its branches conflict on `type`, so they cannot be merged into one schema"
        );
        let t = check(
            SimplifyAllOf::new(true),
            input,
            json_schema!({"items": {
                "description": "Must match all of these schemas: `{\"type\":\"string\"}`; `{\"type\":\"integer\"}`."
            }}),
        );
        assert_eq!(
            t.rec.changes()[0].to_string(),
            r#"`/items`: `allOf` moved into the description: "Must match all of these schemas: `{"type":"string"}`; `{"type":"integer"}`.""#
        );
    }

    #[test]
    fn odd_inputs() {
        let odd = json_schema!({"allOf": {"a": 1}, "anyOf": [{"allOf": [false]}]});
        let t = check(SimplifyAllOf::new(false), odd.clone(), odd);
        assert_eq!(t.rec.changes().len(), 1);
        check(
            SimplifyAllOf::new(false),
            json_schema!(true),
            json_schema!(true),
        );
        check(
            SimplifyAllOf::new(false),
            json_schema!({"dependentSchemas": {"a": {"allOf": [{"required": ["b"]}]}}}),
            json_schema!({"dependentSchemas": {"a": {"required": ["b"]}}}),
        );
    }
}
