//! Anthropic's strict mode (`strict: true`): can Anthropic take this rendering as it is?
//!
//! Unlike OpenAI's, nothing is rewritten for it: the Anthropic rendering is strict exactly when
//! it already uses only what strict mode accepts, so strict mode loses nothing. The rules are
//! Anthropic's structured-outputs documentation ("JSON Schema limitations", PROVIDERS.md,
//! "Anthropic"): the types, primitive `enum`, `const`, `anyOf`, `allOf` (not with `$ref`),
//! local non-recursive `$ref`/`$defs`, `default`, `required`, `additionalProperties: false` on
//! every object, ten string `format`s, `minItems` 0 or 1, and a `pattern` without lookaround,
//! backreferences or word boundaries. Anything else (`minimum`, `maxLength`, `maxItems`, `not`,
//! an open map…) keeps the tool non-strict, each with its place and why.
//!
//! The request limits (20 strict tools, 24 optional and 16 union parameters across them) are
//! counted here too ([`strict_cost`]); a tool that is over one on its own is not strict.

use std::collections::{BTreeMap, BTreeSet};

use schemars::Schema;
use serde_json::{Map, Value};

use super::node::{property_names, required_names};
use super::strict_check::{Problem, StrictWalk, has_any, shared_rules};
use super::unsupported::is_plain_pattern;
use super::walk::for_each_subschema;
use crate::targets::StrictLimit;

/// Every keyword Anthropic's strict mode documents; any other keeps a tool non-strict.
/// Annotations it documents (`description`, `title`, `default`) are among them; others
/// (`examples`, `deprecated`…) are not, since Anthropic's own SDK moves them into the
/// description before sending a strict tool.
const KEYWORDS: &[&str] = &[
    "type",
    "enum",
    "const",
    "anyOf",
    "allOf",
    "$ref",
    "$defs",
    "default",
    "required",
    "properties",
    "additionalProperties",
    "items",
    "minItems",
    "format",
    "pattern",
    "description",
    "title",
];

/// Keywords that give a node a type (or a set of values) in Anthropic's strict mode.
const TYPING: &[&str] = &["type", "enum", "const", "anyOf", "allOf", "$ref"];

/// The string formats Anthropic's strict mode takes.
const FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
    "uuid",
];

/// The reasons Anthropic would refuse `schema` (an Anthropic rendering) with `strict: true`;
/// empty when it takes it.
pub(crate) fn anthropic_strict_problems(schema: &Schema) -> Vec<Problem> {
    let recursive = recursive_definitions(schema);
    let mut walk = StrictWalk::default();
    walk.run(schema, &mut |walk, node| {
        check_node(walk, node, &recursive);
    });
    let mut problems = walk.problems;
    if let Some(node) = schema.as_object() {
        let cost = strict_cost(node);
        for (limit, count) in [
            (StrictLimit::OptionalParameters, cost.optional),
            (StrictLimit::UnionParameters, cost.unions),
        ] {
            if count > limit.max() {
                problems.push((
                    String::new(),
                    format!(
                        "it has {count} {}, more than the {} Anthropic takes across the \
                         strict tools of one request",
                        limit.counted(),
                        limit.max()
                    ),
                ));
            }
        }
    }
    problems
}

/// Anthropic's rules for one node, beyond the ones every strict mode shares.
fn check_node(walk: &mut StrictWalk, node: &Map<String, Value>, recursive: &BTreeSet<String>) {
    for keyword in node.keys().filter(|k| !KEYWORDS.contains(&k.as_str())) {
        walk.problem(&format!("`{keyword}` is not supported in strict mode"));
    }
    shared_rules(walk, node, TYPING);
    if let Some(format) = node.get("format").and_then(Value::as_str)
        && !FORMATS.contains(&format)
    {
        walk.problem(&format!(
            "format `{format}` is not supported in strict mode (it takes {})",
            FORMATS.join(", ")
        ));
    }
    if let Some(min) = node.get("minItems").filter(|m| *m != 0 && *m != 1) {
        walk.problem(&format!(
            "`minItems` of {min} is not supported in strict mode (only 0 or 1)"
        ));
    }
    if let Some(Value::Array(values)) = node.get("enum")
        && values.iter().any(|v| v.is_object() || v.is_array())
    {
        walk.problem("an `enum` with objects or arrays among its values cannot be strict");
    }
    if let Some(pattern) = node.get("pattern").and_then(Value::as_str)
        && (!is_plain_pattern(pattern) || has_word_boundary(pattern))
    {
        walk.problem(&format!(
            "the `pattern` `{pattern}` uses lookaround, a backreference or a word boundary, \
                 which strict mode refuses"
        ));
    }
    let ref_in_all_of = node
        .get("allOf")
        .and_then(Value::as_array)
        .is_some_and(|branches| branches.iter().any(|b| b.get("$ref").is_some()));
    if ref_in_all_of || node.contains_key("allOf") && node.contains_key("$ref") {
        walk.problem("an `allOf` with a `$ref` is not supported in strict mode");
    }
    if let Some(reference) = node.get("$ref").and_then(Value::as_str) {
        match definition_name(reference) {
            _ if reference == "#" => {
                walk.problem("a recursive schema (a `$ref` to the root) cannot be strict");
            }
            Some(name) if recursive.contains(&name) => walk.problem(&format!(
                "a recursive schema (`{reference}` refers to itself) cannot be strict"
            )),
            Some(_) => {}
            None => walk.problem(&format!(
                "a `$ref` to `{reference}`, outside the schema's `$defs`, cannot be strict"
            )),
        }
    }
}

/// Whether a regular expression uses a word boundary (`\b`, `\B`), which Anthropic's strict
/// mode refuses (its documentation, "Regex limitations").
fn has_word_boundary(pattern: &str) -> bool {
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c == '\\' && matches!(chars.next(), Some('b' | 'B')) {
            return true;
        }
    }
    false
}

/// The definition a local `$ref` names (`#/$defs/Point` → `Point`, `~1` and `~0` unescaped),
/// or `None` for any other reference.
fn definition_name(reference: &str) -> Option<String> {
    let rest = reference.strip_prefix("#/$defs/")?;
    let name = rest.split('/').next()?;
    Some(name.replace("~1", "/").replace("~0", "~"))
}

/// The root's `$defs` that reach themselves through `$ref`s: the recursive types.
fn recursive_definitions(schema: &Schema) -> BTreeSet<String> {
    let Some(Value::Object(defs)) = schema.get("$defs") else {
        return BTreeSet::new();
    };
    let refers: BTreeMap<&str, BTreeSet<String>> = defs
        .iter()
        .map(|(name, def)| {
            let mut names = BTreeSet::new();
            if let Ok(def) = Schema::try_from(def.clone()) {
                references(&def, &mut names);
            }
            (name.as_str(), names)
        })
        .collect();
    let reaches_itself = |start: &str| {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<&str> = refers[start].iter().map(String::as_str).collect();
        while let Some(name) = stack.pop() {
            if name == start {
                return true;
            }
            if seen.insert(name) {
                stack.extend(refers.get(name).into_iter().flatten().map(String::as_str));
            }
        }
        false
    };
    refers
        .keys()
        .filter(|name| reaches_itself(name))
        .map(|name| (*name).to_owned())
        .collect()
}

/// The definitions `schema` refers to anywhere inside it.
fn references(schema: &Schema, names: &mut BTreeSet<String>) {
    if let Some(name) = schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(definition_name)
    {
        names.insert(name);
    }
    for_each_subschema(schema, |_, sub| references(sub, names));
}

/// What a strict tool's schema counts against Anthropic's per-request limits.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct StrictCost {
    /// Properties not listed in their object's `required`, at any depth.
    pub optional: usize,
    /// Nodes that allow several types: an `anyOf`, or a `type` listing more than one.
    pub unions: usize,
}

/// What `schema` counts against the per-request limits, counted as Anthropic's errors count
/// ("too many optional parameters (87)"; "too many parameters with union types (24
/// parameters with type arrays or anyOf)"): every node of the schema as written, `$defs`
/// included, so a shared definition counts once.
pub(crate) fn strict_cost(schema: &Map<String, Value>) -> StrictCost {
    let mut cost = StrictCost::default();
    add_cost(schema, &mut cost);
    cost
}

fn add_cost(node: &Map<String, Value>, cost: &mut StrictCost) {
    let required = required_names(node);
    cost.optional += property_names(node)
        .iter()
        .filter(|name| !required.contains(name))
        .count();
    let type_list = matches!(node.get("type"), Some(Value::Array(types)) if types.len() > 1);
    if type_list || has_any(node, &["anyOf"]) {
        cost.unions += 1;
    }
    let schema = Schema::from(node.clone());
    for_each_subschema(&schema, |_, sub| {
        if let Some(sub) = sub.as_object() {
            add_cost(sub, cost);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use schemars::json_schema;

    fn reasons(schema: Schema) -> Vec<String> {
        anthropic_strict_problems(&schema)
            .into_iter()
            .map(|(at, why)| format!("{at}: {why}"))
            .collect()
    }

    #[test]
    fn what_strict_mode_documents_is_taken() {
        let schema = json_schema!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "Where.", "pattern": "^[A-Z][a-z]+$"},
                "when": {"type": "string", "format": "date-time"},
                "unit": {"type": "string", "enum": ["c", "f"], "default": "c"},
                "kind": {"const": "weather"},
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                "n": {"type": ["integer", "null"]},
                "at": {"anyOf": [{"$ref": "#/$defs/Point"}, {"type": "null"}]},
                "both": {"allOf": [{"type": "object", "properties": {}, "additionalProperties": false}]}
            },
            "additionalProperties": false,
            "required": ["city"],
            "$defs": {"Point": {"type": "object", "properties": {"x": {"type": "number"}}, "additionalProperties": false, "required": ["x"]}}
        });
        assert_eq!(reasons(schema), Vec::<String>::new());
    }

    #[test]
    fn each_refused_feature_is_reported_where_it_is() {
        let schema = json_schema!({
            "type": "object",
            "properties": {
                "days": {"type": "integer", "minimum": 1, "maximum": 14},
                "step": {"type": "number", "multipleOf": 0.5},
                "name": {"type": "string", "minLength": 1},
                "site": {"type": "string", "format": "uri-reference"},
                "ids": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "uniqueItems": true},
                "tags": {"type": "object", "additionalProperties": {"type": "string"}},
                "any": {"description": "Anything."},
                "word": {"type": "string", "pattern": "\\bfoo(?=bar)"},
                "one": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
                "pick": {"enum": [{"a": 1}]},
                "tree": {"$ref": "#/$defs/Tree"},
                "mixed": {"allOf": [{"$ref": "#/$defs/Tree"}]}
            },
            "additionalProperties": false,
            "$defs": {"Tree": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}}, "additionalProperties": false}}
        });
        assert_eq!(
            reasons(schema),
            [
                "/properties/days: `minimum` is not supported in strict mode",
                "/properties/days: `maximum` is not supported in strict mode",
                "/properties/step: `multipleOf` is not supported in strict mode",
                "/properties/name: `minLength` is not supported in strict mode",
                "/properties/site: format `uri-reference` is not supported in strict mode (it takes date-time, time, date, duration, email, hostname, uri, ipv4, ipv6, uuid)",
                "/properties/ids: `uniqueItems` is not supported in strict mode",
                "/properties/ids: `minItems` of 2 is not supported in strict mode (only 0 or 1)",
                "/properties/tags: an open map (`additionalProperties` is a schema) cannot be strict",
                "/properties/any: accepts any value (no `type`), which strict mode cannot express",
                "/properties/word: the `pattern` `\\bfoo(?=bar)` uses lookaround, a backreference or a word boundary, which strict mode refuses",
                "/properties/one: `oneOf` is not supported in strict mode",
                "/properties/one: accepts any value (no `type`), which strict mode cannot express",
                "/properties/pick: an `enum` with objects or arrays among its values cannot be strict",
                "/properties/tree: a recursive schema (`#/$defs/Tree` refers to itself) cannot be strict",
                "/properties/mixed: an `allOf` with a `$ref` is not supported in strict mode",
                "/properties/mixed/allOf/0: a recursive schema (`#/$defs/Tree` refers to itself) cannot be strict",
                "/$defs/Tree/properties/kids/items: a recursive schema (`#/$defs/Tree` refers to itself) cannot be strict",
            ]
        );
    }

    #[test]
    fn optional_and_union_parameters_are_counted_at_every_depth() {
        let schema = json_schema!({
            "type": "object",
            "properties": {
                "a": {"type": ["string", "null"]},
                "b": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                "c": {"type": "object", "properties": {"d": {"type": ["integer", "null"]}, "e": {"type": "string"}}, "required": ["e"], "additionalProperties": false},
                "f": {"type": ["string"]}
            },
            "required": ["a"],
            "additionalProperties": false
        });
        assert_eq!(
            strict_cost(schema.as_object().unwrap()),
            StrictCost {
                optional: 4,
                unions: 3
            }
        );
    }

    #[test]
    fn a_tool_over_a_request_limit_on_its_own_is_not_strict() {
        let properties: Map<String, Value> = (0..25)
            .map(|i| (format!("p{i}"), serde_json::json!({"type": "string"})))
            .collect();
        let schema = Schema::try_from(serde_json::json!({
            "type": "object", "properties": properties, "additionalProperties": false
        }))
        .unwrap();
        assert_eq!(
            reasons(schema),
            [
                ": it has 25 optional parameters, more than the 24 Anthropic takes across the strict tools of one request"
            ]
        );
    }
}
