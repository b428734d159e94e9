//! A foreign schema checked against the JSON Schema dialect it declares, before anything is
//! rendered from it.
//!
//! An MCP server's `inputSchema` may say anything. One that is not valid JSON Schema
//! (`"type": "strnig"`, `"type": []`, a `$ref` that is not a string) would pass through into
//! an MCP rendering that no validator takes, and into provider renderings that mean nothing.
//! So every foreign schema is first validated against the meta-schema of its dialect — the
//! `$schema` it declares; without one, 2020-12, as MCP 2025-11-25 says — with the `jsonschema`
//! crate's bundled meta-schemas (no network: `default-features = false` builds them in). What
//! is plainly meant is repaired first (`RepairLooseLists`), so only what cannot be guessed is
//! refused; each refusal names the JSON Pointer and what is wrong, with a suggestion where one
//! is plain ("`strnig` is not a type; did you mean `string`?"). A schema that is valid in its
//! dialect is then said in 2020-12 (`UpgradeDialect`) and compiled as such, which refuses what
//! the meta-schemas leave to implementations (a `pattern` that is not a regular expression, a
//! `$ref` to nothing).

use std::borrow::Cow;
use std::fmt;

use schemars::Schema;
use schemars::transform::Transform;
use serde_json::Value;

use super::loose_lists::{RepairLooseLists, has_loose_lists};
use super::node::get;
use super::plainly_valid::plainly_valid;
use super::upgrade::UpgradeDialect;
use super::walk::for_each_subschema;

/// The JSON Schema drafts a foreign schema may declare, by their meta-schema URIs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Dialect {
    Draft4,
    Draft6,
    Draft7,
    Draft201909,
    /// What MCP 2025-11-25 says a schema without `$schema` is, and what every rendering is.
    #[default]
    Draft202012,
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Dialect::Draft4 => "draft-04",
            Dialect::Draft6 => "draft-06",
            Dialect::Draft7 => "draft-07",
            Dialect::Draft201909 => "draft 2019-09",
            Dialect::Draft202012 => "draft 2020-12",
        })
    }
}

impl Dialect {
    /// The dialect a root schema declares in `$schema` (2020-12 when it declares none), or why
    /// it cannot be told.
    pub(crate) fn declared(root: &Value) -> Result<Dialect, String> {
        let uri = match root.as_object().and_then(|root| get(root, "$schema")) {
            None => return Ok(Dialect::Draft202012),
            Some(Value::String(uri)) => uri,
            Some(other) => {
                return Err(format!(
                    "`$schema` must be the URI of a JSON Schema dialect, got `{other}`"
                ));
            }
        };
        // The URIs the drafts publish, with or without `#`, over http or https.
        let bare = uri
            .trim_end_matches('#')
            .trim_start_matches("https://")
            .trim_start_matches("http://");
        Ok(match bare {
            "json-schema.org/draft/2020-12/schema" | "json-schema.org/schema" => {
                Dialect::Draft202012
            }
            "json-schema.org/draft/2019-09/schema" => Dialect::Draft201909,
            "json-schema.org/draft-07/schema" => Dialect::Draft7,
            "json-schema.org/draft-06/schema" => Dialect::Draft6,
            "json-schema.org/draft-04/schema" => Dialect::Draft4,
            _ => {
                return Err(format!(
                    "`{uri}` is not a JSON Schema dialect tooldef knows (draft-04, \
                     -06, -07, 2019-09, 2020-12); declare one of them, or leave `$schema` out \
                     for 2020-12"
                ));
            }
        })
    }

    fn meta_validator(self) -> jsonschema::meta::MetaValidator<'static> {
        match self {
            Dialect::Draft4 => jsonschema::draft4::meta::validator(),
            Dialect::Draft6 => jsonschema::draft6::meta::validator(),
            Dialect::Draft7 => jsonschema::draft7::meta::validator(),
            Dialect::Draft201909 => jsonschema::draft201909::meta::validator(),
            Dialect::Draft202012 => jsonschema::draft202012::meta::validator(),
        }
    }
}

/// One fault of a schema: the JSON Pointer of the node (`""` for the root), and what is wrong.
pub(crate) type Fault = (String, String);

/// Why `schema` (a foreign tool's schema, as sent) is not valid JSON Schema, each with the JSON
/// Pointer of the fault; empty when it is valid (after the repairs that making it canonical
/// will record).
pub(crate) fn dialect_problems(schema: &Value) -> Vec<Fault> {
    problems(schema, Repairs::Made)
}

/// Why `schema`, one its author wrote for a tool of theirs, is not valid JSON Schema, each with
/// the JSON Pointer of the fault; empty when it is valid. Nothing is repaired: MCP clients are
/// shown the schema as written, so a list written loosely (`"required": "a"`) is a fault the
/// author corrects, where a foreign schema's is repaired for the renderings made from it.
pub(crate) fn written_faults(schema: &Value) -> Vec<Fault> {
    problems(schema, Repairs::None)
}

/// The `jsonschema` draft of the dialect `schema` declares (2020-12 when it declares none, or
/// one tooldef does not know, which [`written_faults`] refuses).
pub(crate) fn declared_draft(schema: &Value) -> jsonschema::Draft {
    match Dialect::declared(schema).unwrap_or_default() {
        Dialect::Draft4 => jsonschema::Draft::Draft4,
        Dialect::Draft6 => jsonschema::Draft::Draft6,
        Dialect::Draft7 => jsonschema::Draft::Draft7,
        Dialect::Draft201909 => jsonschema::Draft::Draft201909,
        Dialect::Draft202012 => jsonschema::Draft::Draft202012,
    }
}

/// Whether the plain slips of a schema's lists are repaired before it is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Repairs {
    /// Repaired, as making the schema canonical will (a foreign schema).
    Made,
    /// Judged as written (a schema shown as written).
    None,
}

fn problems(schema: &Value, repairs: Repairs) -> Vec<Fault> {
    let dialect = match Dialect::declared(schema) {
        Ok(dialect) => dialect,
        Err(why) => return vec![("/$schema".to_owned(), why)],
    };
    // A plainly valid 2020-12 schema (nearly every one) also has no loose list to repair (its
    // lists are unique), no older draft to upgrade, and none of the keywords that need
    // compiling: there is nothing more to look at.
    if dialect == Dialect::Draft202012 && plainly_valid(schema) {
        return Vec::new();
    }
    let Ok(sent) = <&Schema>::try_from(schema) else {
        return vec![(String::new(), "not a JSON object or boolean".to_owned())];
    };
    // Repairing and upgrading work on a copy, made only when one of them has something to do:
    // nearly every schema writes its lists tightly and declares no older draft, and copying
    // a schema (then dropping the copy) cost more than the rest of this check.
    let mut repaired = Cow::Borrowed(sent);
    if repairs == Repairs::Made && has_loose_lists(sent) {
        RepairLooseLists::default().transform(repaired.to_mut());
    }
    let validator = dialect.meta_validator();
    // Collecting errors costs several times what a yes or no does, and nearly every schema is
    // valid: they are collected only for one that is not. A repaired schema may be plainly
    // valid, which costs far less to tell than the meta-schema does.
    let plain = dialect == Dialect::Draft202012 && plainly_valid(repaired.as_value());
    if !plain && !validator.is_valid(repaired.as_value()) {
        let mut problems: Vec<Fault> = Vec::new();
        for error in validator.iter_errors(repaired.as_value()) {
            let pointer = error.instance_path().as_str().to_owned();
            let what = explain(repaired.as_value(), &pointer, &error.to_string());
            let problem = (pointer, what);
            if !problems.contains(&problem) {
                problems.push(problem);
            }
        }
        if !problems.is_empty() {
            return problems;
        }
    }
    if dialect != Dialect::Draft202012 {
        UpgradeDialect::new(dialect).transform(repaired.to_mut());
    }
    if !needs_compiling(&repaired) {
        return Vec::new();
    }
    if let Err(error) = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(repaired.as_value())
    {
        return vec![(error.schema_path().as_str().to_owned(), error.to_string())];
    }
    Vec::new()
}

/// Whether compiling the schema can find what its meta-schema cannot: a `pattern` that is not a
/// regular expression, a `$ref` to nothing. Compiling (which validates against the meta-schema
/// again) cost more than the whole rest of a conversion, so a schema without such keywords (most
/// of them) is not compiled.
fn needs_compiling(schema: &Schema) -> bool {
    let here = schema.as_object().is_some_and(|node| {
        node.keys().any(|key| {
            matches!(
                key.as_str(),
                "pattern" | "patternProperties" | "$ref" | "$dynamicRef" | "$recursiveRef"
            )
        })
    });
    let mut below = false;
    if !here {
        for_each_subschema(schema, |_, sub| below = below || needs_compiling(sub));
    }
    here || below
}

/// The JSON types.
const TYPES: &[&str] = &[
    "string", "integer", "number", "boolean", "object", "array", "null",
];

/// Other languages' names for the JSON types.
fn type_alias(name: &str) -> Option<&'static str> {
    Some(match name.to_ascii_lowercase().as_str() {
        "str" | "text" => "string",
        "int" | "long" | "int32" | "int64" => "integer",
        "float" | "double" | "decimal" => "number",
        "bool" => "boolean",
        "dict" | "map" | "record" => "object",
        "list" | "tuple" => "array",
        "none" | "nil" => "null",
        _ => return None,
    })
}

/// The JSON type `name` most likely means: another spelling of one (`Object`, `bool`), or one
/// a letter or two away (`strnig`).
fn closest_type(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    if let Some(exact) = TYPES.iter().find(|t| **t == lower) {
        return Some(exact);
    }
    if let Some(alias) = type_alias(name) {
        return Some(alias);
    }
    TYPES
        .iter()
        .map(|t| (strsim::damerau_levenshtein(&lower, t), *t))
        .filter(|(distance, _)| *distance <= 2)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, t)| t)
}

/// What is wrong at `pointer`, in the words of the keyword it is: the validator's own message
/// where there is nothing plainer to say.
fn explain(schema: &Value, pointer: &str, message: &str) -> String {
    let value = schema.pointer(pointer).unwrap_or(&Value::Null);
    let mut segments = pointer.rsplit('/');
    let last = segments.next().unwrap_or_default();
    // An entry of a list (`type/1`) is judged by its list's keyword.
    let keyword = if last.parse::<usize>().is_ok() {
        segments.next().unwrap_or_default()
    } else {
        last
    };
    let numeric = |what: &str| match value {
        Value::String(text) if text.trim().parse::<f64>().is_ok() => format!(
            "`{keyword}` must be {what}, got the string `\"{text}\"`; did you mean `{}` (without quotes)?",
            text.trim()
        ),
        other => format!("`{keyword}` must be {what}, got `{other}`"),
    };
    match keyword {
        "type" => type_problem(value),
        "required" => match value {
            Value::Array(names) if names.iter().all(Value::is_string) => {
                format!("`required` must name each property once, got `{value}`")
            }
            Value::Bool(_) => format!(
                "`required` must be a list of property names; `required: {value}` on a property \
                 is draft-03's spelling: list the property in its object's `required` instead"
            ),
            _ => format!("`required` must be a list of property names, got `{value}`"),
        },
        "$ref" => format!(
            "`$ref` must be a string (a URI reference such as `#/$defs/Name`), got `{value}`"
        ),
        "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas" => {
            format!("`{keyword}` must be an object mapping names to schemas, got `{value}`")
        }
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => {
            numeric("a number")
        }
        "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties" | "maxProperties"
        | "minContains" | "maxContains" => numeric("a non-negative integer"),
        "items"
        | "additionalProperties"
        | "not"
        | "if"
        | "then"
        | "else"
        | "contains"
        | "propertyNames"
        | "additionalItems"
        | "unevaluatedItems"
        | "unevaluatedProperties" => match value {
            Value::String(name) if closest_type(name).is_some() => format!(
                "`{keyword}` must be a schema, got the string `\"{name}\"`; did you mean \
                 `{{\"type\": \"{}\"}}`?",
                closest_type(name).unwrap_or("string")
            ),
            _ => format!("`{keyword}` must be a schema (an object or a boolean), got `{value}`"),
        },
        _ => format!("`{keyword}`: {message}"),
    }
}

/// What is wrong with a `type` (or one entry of a `type` list).
fn type_problem(value: &Value) -> String {
    let one = |name: &str| match closest_type(name) {
        Some(meant) => format!("`{name}` is not a type; did you mean `{meant}`?"),
        None => format!(
            "`{name}` is not a type (the types are {})",
            TYPES
                .iter()
                .map(|t| format!("`{t}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    match value {
        Value::String(name) => one(name),
        Value::Array(names) if names.is_empty() => "an empty `type` list allows no value at all: \
             name at least one type, or leave `type` out to allow any"
            .to_owned(),
        Value::Array(names) => {
            let wrong: Vec<String> = names
                .iter()
                .filter(|n| !n.as_str().is_some_and(|n| TYPES.contains(&n)))
                .map(|n| match n {
                    Value::String(name) => one(name),
                    other => format!("`{other}` is not a type name"),
                })
                .collect();
            if wrong.is_empty() {
                format!("`type` must list each type once, got `{value}`")
            } else {
                wrong.join("; ")
            }
        }
        other => format!("`type` must be a type name or a list of them, got `{other}`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn problems(schema: Value) -> Vec<String> {
        dialect_problems(&schema)
            .into_iter()
            .map(|(at, what)| format!("`{at}`: {what}"))
            .collect()
    }

    #[test]
    fn invalid_schemas_are_explained_with_their_pointer() {
        let schema = json!({"type": "object", "properties": {
            "a": {"type": "strnig"},
            "b": {"type": []},
            "c": {"$ref": {"x": 1}},
            "d": {"type": "integer", "minimum": "5"},
            "e": {"type": "array", "items": "string"},
            "f": {"type": ["Object", "null"]},
            "g": {"type": "string", "required": true}
        }});
        let found = problems(schema);
        for expected in [
            "`/properties/a/type`: `strnig` is not a type; did you mean `string`?",
            "`/properties/b/type`: an empty `type` list allows no value",
            "`/properties/c/$ref`: `$ref` must be a string",
            "`/properties/d/minimum`: `minimum` must be a number, got the string `\"5\"`; did you mean `5`",
            "`/properties/e/items`: `items` must be a schema, got the string `\"string\"`; did you mean `{\"type\": \"string\"}`?",
            "`/properties/f/type`: `Object` is not a type; did you mean `object`?",
            "`/properties/g/required`: `required` must be a list of property names; `required: true`",
        ] {
            assert!(
                found.iter().any(|p| p.starts_with(expected)),
                "{expected}\nnot in {found:#?}"
            );
        }
    }

    #[test]
    fn loose_lists_older_dialects_and_valid_schemas_pass() {
        assert_eq!(
            problems(
                json!({"type": "object", "properties": {"a": {"type": ["string", "string"]}}, "required": "a"})
            ),
            Vec::<String>::new()
        );
        assert_eq!(
            problems(
                json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                            "properties": {"p": {"type": "array", "items": [{"type": "string"}], "additionalItems": false}},
                            "definitions": {"x": {"type": "string"}}})
            ),
            Vec::<String>::new()
        );
        assert_eq!(
            problems(
                json!({"$schema": "http://json-schema.org/draft-04/schema#", "type": "object",
                            "properties": {"n": {"type": "number", "minimum": 0, "exclusiveMinimum": true}}})
            ),
            Vec::<String>::new()
        );
        // Valid draft-07 is not valid 2020-12 and the other way round: each is judged by its own.
        assert!(!problems(json!({"$schema": "http://json-schema.org/draft-07/schema#",
                                 "type": "object", "properties": {"n": {"type": "number", "exclusiveMinimum": true}}}))
            .is_empty());
    }

    #[test]
    fn unknown_dialects_and_bad_patterns_are_refused() {
        let found = problems(json!({"$schema": "https://example.com/my-schema", "type": "object"}));
        assert!(
            found[0].contains("not a JSON Schema dialect tooldef knows"),
            "{found:?}"
        );
        let found = problems(
            json!({"type": "object", "properties": {"a": {"type": "string", "pattern": "(unclosed"}}}),
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].starts_with("`/properties/a/pattern`"), "{found:?}");
    }
}
