//! The strictness check: can OpenAI take this schema with `strict: true`?
//!
//! Run on the output of the strict pipeline. Each problem becomes a note naming where it is
//! and why, so a tool author sees what to change (a map, an untyped `serde_json::Value`…).
//!
//! The walk, boolean schemas and the rules every strict mode shares ([`StrictWalk`],
//! [`shared_rules`]) are used by Anthropic's check too (`anthropic_strict.rs`).

use schemars::Schema;
use serde_json::{Map, Value};

use super::node::{get, has, has_type, is_object_node, property_names, required_names};
use super::walk::{Loc, for_each_subschema, reserve_pointer};

/// Keywords strict mode refuses (the transforms before the check describe the rest away).
const REFUSED: &[&str] = &[
    // `ConstToEnum` rewrites every `const` it can; one left (beside a disagreeing `enum`) stays.
    "const",
    "allOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "patternProperties",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "prefixItems",
    "contains",
];

/// Keywords that give a node a type (or a set of values) strict mode accepts.
const TYPING: &[&str] = &["type", "anyOf", "enum", "const", "$ref"];

/// One reason a schema cannot be strict: where (a JSON Pointer), and why.
pub(crate) type Problem = (String, String);

/// The reasons `schema` cannot be sent with `strict: true`; empty when it can. Rendering needs
/// only [`strict_blockers`] (it makes every property required itself); this is the whole rule,
/// for tests.
#[cfg(test)]
pub(crate) fn strict_problems(schema: &Schema) -> Vec<Problem> {
    check_all(schema, true)
}

/// What keeps a schema from being made strict: its problems other than optional properties,
/// which making every property required (and nullable) would fix.
pub(crate) fn strict_blockers(schema: &Schema) -> Vec<Problem> {
    check_all(schema, false)
}

fn check_all(schema: &Schema, require_all: bool) -> Vec<Problem> {
    let mut walk = StrictWalk::default();
    if schema.as_object().is_some_and(|root| has(root, "anyOf")) {
        walk.problem("an `anyOf` cannot be the root in strict mode");
    }
    // How deep and how large the schema is, OpenAI's other limits, is `openai_limits`'.
    walk.run(schema, &mut |walk, node| {
        check_node(walk, node, require_all)
    });
    walk.problems
}

/// One strict mode's rules for an object node.
pub(super) type NodeCheck<'a> = dyn FnMut(&mut StrictWalk, &Map<String, Value>) + 'a;

/// A strict check in progress: the JSON Pointer of the node being checked, and the problems
/// found so far.
#[derive(Debug, Default)]
pub(super) struct StrictWalk {
    pointer: String,
    /// What was found, in the order the nodes were visited.
    pub problems: Vec<Problem>,
}

impl StrictWalk {
    /// Records a problem at the node being checked.
    pub fn problem(&mut self, what: &str) {
        self.problems.push((self.pointer.clone(), what.to_owned()));
    }

    /// Checks `schema` and every subschema below it: boolean schemas here (no strict mode
    /// takes `true`, nor `false` other than a closed object's `additionalProperties`), and every
    /// object node with `check`.
    pub fn run(&mut self, schema: &Schema, check: &mut NodeCheck<'_>) {
        reserve_pointer(&mut self.pointer);
        self.visit(schema, None, check);
    }

    fn visit(&mut self, schema: &Schema, loc: Option<Loc<'_>>, check: &mut NodeCheck<'_>) {
        let node = match (schema.as_object(), schema.as_bool()) {
            (Some(node), _) => node,
            (None, Some(true)) => {
                return self
                    .problem("accepts any value (no `type`), which strict mode cannot express");
            }
            (None, _) => {
                if loc.is_some_and(|l| l.keyword != "additionalProperties") {
                    self.problem("the `false` schema (accepts nothing) cannot be strict");
                }
                return;
            }
        };
        check(self, node);
        for_each_subschema(schema, |loc, sub| {
            let len = self.pointer.len();
            loc.push_to(&mut self.pointer);
            self.visit(sub, Some(loc), check);
            self.pointer.truncate(len);
        });
    }
}

/// Whether a node has one of `keywords`. A node has a handful of keys: comparing them with the
/// short keyword lists costs less than a hashed lookup per keyword, on every node of every
/// schema.
pub(super) fn has_any(node: &Map<String, Value>, keywords: &[&str]) -> bool {
    node.keys().any(|k| keywords.contains(&k.as_str()))
}

/// The rules every strict mode shares, for one node: something gives it a type (one of
/// `typing`), a `$ref` stands alone, an array says what its items are, and an object is closed.
pub(super) fn shared_rules(walk: &mut StrictWalk, node: &Map<String, Value>, typing: &[&str]) {
    if !has_any(node, typing) {
        walk.problem("accepts any value (no `type`), which strict mode cannot express");
    }
    // OpenAI refuses any keyword beside a `$ref`, a description included ("$ref cannot
    // have keywords {'description'}"); Anthropic's SDK keeps nothing beside one either.
    if has(node, "$ref") && node.len() > 1 {
        walk.problem("a `$ref` with keywords beside it cannot be strict");
    }
    // OpenAI refuses it outright ("array schema missing items"); `RepairShapes` gives every
    // array `items` before OpenAI's check runs, so this holds what a later transform might undo.
    if has_type(node, "array") && !has(node, "items") {
        walk.problem("an array without `items` cannot be strict (its items could be any value)");
    }
    if is_object_node(node) {
        match get(node, "additionalProperties") {
            Some(Value::Bool(false)) => {}
            Some(Value::Object(_)) => {
                walk.problem("an open map (`additionalProperties` is a schema) cannot be strict");
            }
            _ => walk.problem("an object that accepts any keys cannot be strict"),
        }
    }
}

/// OpenAI's rules for one node: the shared ones, its refused keywords, and (when
/// `require_all`) every property required.
fn check_node(walk: &mut StrictWalk, node: &Map<String, Value>, require_all: bool) {
    // Nearly every node has none of them: one look at its keys says so.
    if has_any(node, REFUSED) {
        for keyword in REFUSED.iter().filter(|k| has(node, k)) {
            walk.problem(&format!("`{keyword}` is not supported in strict mode"));
        }
    }
    shared_rules(walk, node, TYPING);
    if !require_all || !is_object_node(node) {
        return;
    }
    let required = required_names(node);
    let missing: Vec<String> = property_names(node)
        .into_iter()
        .filter(|n| !required.contains(n))
        .map(|n| format!("`{n}`"))
        .collect();
    match missing.as_slice() {
        [] => {}
        [one] => walk.problem(&format!("property {one} is not required")),
        many => walk.problem(&format!("properties {} are not required", many.join(", "))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schemars::json_schema;

    #[test]
    fn strict_schema_has_no_problems() {
        let schema = json_schema!({
            "type": "object",
            "properties": {
                "a": {"type": ["string", "null"]},
                "b": {"anyOf": [{"type": "object", "properties": {}, "additionalProperties": false, "required": []}, {"type": "null"}]},
                "c": {"type": "array", "items": {"$ref": "#/$defs/N"}},
                "d": {"enum": ["x"]}
            },
            "additionalProperties": false,
            "required": ["a", "b", "c", "d"],
            "$defs": {"N": {"type": "object", "properties": {}, "additionalProperties": false}}
        });
        assert_eq!(strict_problems(&schema), Vec::<Problem>::new());
    }

    #[test]
    fn every_problem_is_reported_with_its_place() {
        let schema = json_schema!({
            "anyOf": [{"type": "object", "properties": {}, "additionalProperties": false}],
            "type": "object",
            "properties": {
                "tags": {"type": "object", "additionalProperties": {"type": "string"}},
                "value": true,
                "untyped": {"description": "anything"},
                "loose": {"type": "object", "properties": {"x": {"type": "string"}}},
                "ref": {"$ref": "#", "minimum": 1},
                "both": {"oneOf": [{"type": "string"}], "anyOf": [{"type": "string"}]},
                "never": false
            },
            "additionalProperties": false,
            "required": ["tags", "value", "untyped", "loose", "ref", "both", "never"]
        });
        assert_eq!(
            strict_problems(&schema),
            [
                (
                    "".to_owned(),
                    "an `anyOf` cannot be the root in strict mode".to_owned()
                ),
                (
                    "/properties/tags".to_owned(),
                    "an open map (`additionalProperties` is a schema) cannot be strict".to_owned()
                ),
                (
                    "/properties/value".to_owned(),
                    "accepts any value (no `type`), which strict mode cannot express".to_owned()
                ),
                (
                    "/properties/untyped".to_owned(),
                    "accepts any value (no `type`), which strict mode cannot express".to_owned()
                ),
                (
                    "/properties/loose".to_owned(),
                    "an object that accepts any keys cannot be strict".to_owned()
                ),
                (
                    "/properties/loose".to_owned(),
                    "property `x` is not required".to_owned()
                ),
                (
                    "/properties/ref".to_owned(),
                    "a `$ref` with keywords beside it cannot be strict".to_owned()
                ),
                (
                    "/properties/both".to_owned(),
                    "`oneOf` is not supported in strict mode".to_owned()
                ),
                (
                    "/properties/never".to_owned(),
                    "the `false` schema (accepts nothing) cannot be strict".to_owned()
                ),
            ]
        );
    }
}
