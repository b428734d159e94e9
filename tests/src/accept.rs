//! What each provider would refuse in a tool, checked from the published rules
//! (`docs/PROVIDERS.md`) independently of the library's own lists: the acceptance checks every
//! suite shares.

use serde_json::Value;
use tooldef::Target;

use crate::{OPENAI_FORMATS, is_object_node, property_names, walk};

/// Keywords Gemini's `parameters` (an OpenAPI 3.0 subset) take.
pub const GEMINI_KEYWORDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "properties",
    "required",
    "propertyOrdering",
    "items",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "anyOf",
    "minLength",
    "maxLength",
    "pattern",
    "minProperties",
    "maxProperties",
    "example",
];

/// Every reason `target` would refuse `tool` (its wire JSON, as tooldef renders it); empty
/// when it would take it.
pub fn refusals(tool: &Value, target: Target) -> Vec<String> {
    let mut out = Refusals(Vec::new());
    let (name, description, schema, strict) = match target {
        Target::Mcp => (
            tool.get("name"),
            tool.get("description"),
            tool.get("inputSchema"),
            false,
        ),
        Target::ChatCompletions => (
            tool.pointer("/function/name"),
            tool.pointer("/function/description"),
            tool.pointer("/function/parameters"),
            tool.pointer("/function/strict") == Some(&Value::Bool(true)),
        ),
        Target::Responses => (
            tool.get("name"),
            tool.get("description"),
            tool.get("parameters"),
            tool.get("strict") == Some(&Value::Bool(true)),
        ),
        Target::Anthropic => (
            tool.get("name"),
            tool.get("description"),
            tool.get("input_schema"),
            false,
        ),
        Target::Gemini => (
            tool.get("name"),
            tool.get("description"),
            tool.get("parameters"),
            false,
        ),
    };
    let name = name.and_then(Value::as_str).unwrap_or_default();
    if !name_accepted(name, target) {
        out.say("the tool", format!("name `{name}` is refused"));
    }
    if target.is_openai() {
        let chars = description
            .and_then(Value::as_str)
            .map_or(0, |d| d.chars().count());
        if chars > 1024 {
            out.say(
                "the tool",
                format!("description of {chars} characters (string_above_max_length)"),
            );
        }
        if tool.pointer("/function/strict").is_none() && tool.get("strict").is_none() {
            out.say("the tool", "`strict` is not sent".to_owned());
        }
    }
    match (target, schema) {
        (Target::Gemini, None) => {}
        (_, None) => out.say("the tool", "no parameter schema".to_owned()),
        (_, Some(schema)) => match target {
            Target::Mcp | Target::Anthropic => json_schema(schema, target, &mut out),
            Target::ChatCompletions | Target::Responses => {
                json_schema(schema, target, &mut out);
                openai(schema, strict, &mut out);
            }
            Target::Gemini => gemini(schema, &mut out),
        },
    }
    out.0
}

/// Whether `name` is a tool name `target` takes.
pub fn name_accepted(name: &str, target: Target) -> bool {
    let allowed = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    match target {
        Target::Mcp => {
            (1..=128).contains(&name.len())
                && name.chars().all(|c| allowed(c) || c == '.' || c == '/')
        }
        Target::Gemini => {
            (1..=64).contains(&name.len())
                && name.chars().all(allowed)
                && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        }
        _ => (1..=64).contains(&name.len()) && name.chars().all(allowed),
    }
}

struct Refusals(Vec<String>);

impl Refusals {
    fn say(&mut self, at: &str, what: String) {
        self.0.push(format!("{at}: {what}"));
    }
}

/// JSON Schema targets: valid 2020-12 that compiles, an object root, and (Anthropic) no
/// combinator at the top level.
fn json_schema(schema: &Value, target: Target, out: &mut Refusals) {
    if schema.get("type") != Some(&Value::from("object")) {
        out.say("the root", "`type` is not `object`".to_owned());
    }
    if target != Target::Mcp {
        for combinator in ["anyOf", "oneOf", "allOf"] {
            if schema.get(combinator).is_some() {
                out.say(
                    "the root",
                    format!("`{combinator}` at the top level is refused"),
                );
            }
        }
    }
    if let Err(err) = jsonschema::draft202012::meta::validate(schema) {
        out.say("the schema", format!("not valid 2020-12: {err}"));
    } else if let Err(err) = jsonschema::draft202012::new(schema) {
        out.say("the schema", format!("does not compile: {err}"));
    }
}

/// OpenAI: what it refuses strict or not, and strict mode's own rules.
fn openai(schema: &Value, strict: bool, out: &mut Refusals) {
    for node in walk(schema) {
        let at = format!("`{}`", node.pointer);
        let Some(object) = node.schema.as_object() else {
            // The only boolean schema strict mode allows: a closed object's `false`.
            if strict && !(node.pointer.ends_with("/additionalProperties") && node.schema == false)
            {
                out.say(&at, "a boolean schema in strict mode".to_owned());
            }
            continue;
        };
        for banned in [
            "default",
            "$schema",
            "title",
            "const",
            "minLength",
            "maxLength",
            "prefixItems",
        ] {
            if object.contains_key(banned) {
                out.say(&at, format!("`{banned}`"));
            }
        }
        if let Some(format) = object.get("format") {
            let format = format.as_str().unwrap_or_default();
            if !OPENAI_FORMATS.contains(&format) {
                out.say(&at, format!("format `{format}`"));
            }
        }
        if type_names(node.schema).contains(&"array") && !object.contains_key("items") {
            out.say(&at, "array schema missing items".to_owned());
        }
        if !strict {
            continue;
        }
        for banned in ["oneOf", "allOf", "not", "if"] {
            if object.contains_key(banned) {
                out.say(&at, format!("`{banned}` in strict mode"));
            }
        }
        let looks_around = |pattern: &&str| {
            ["(?=", "(?!", "(?<=", "(?<!"]
                .iter()
                .any(|look| pattern.contains(look))
                || has_backreference(pattern)
        };
        if let Some(pattern) = object
            .get("pattern")
            .and_then(Value::as_str)
            .filter(looks_around)
        {
            out.say(
                &at,
                format!("regex lookaround is not supported: `{pattern}`"),
            );
        }
        if object.contains_key("$ref") && object.len() > 1 {
            out.say(
                &at,
                "a `$ref` with keywords beside it in strict mode".to_owned(),
            );
        }
        if is_object_node(node.schema) {
            if object.get("additionalProperties") != Some(&Value::Bool(false)) {
                out.say(
                    &at,
                    "an object without `additionalProperties: false`".to_owned(),
                );
            }
            let required: Vec<&str> = object
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if required != property_names(node.schema) {
                out.say(&at, "not every property is required, in order".to_owned());
            }
        }
    }
}

/// Whether a regular expression refers back to a group (`\1`…`\9`, `\k<name>`).
fn has_backreference(pattern: &str) -> bool {
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c == '\\' && matches!(chars.next(), Some('1'..='9' | 'k')) {
            return true;
        }
    }
    false
}

fn type_names(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Gemini `parameters`: the OpenAPI subset, one type per node, string enums without empty
/// values, `items` on every array, `required` naming declared properties, object keywords on
/// objects only.
fn gemini(schema: &Value, out: &mut Refusals) {
    if schema.get("type") != Some(&Value::from("object")) {
        out.say("the root", "`type` is not `object`".to_owned());
    }
    for node in walk(schema) {
        let at = format!("`{}`", node.pointer);
        let Some(object) = node.schema.as_object() else {
            out.say(&at, "a boolean schema".to_owned());
            continue;
        };
        for key in object.keys() {
            if !GEMINI_KEYWORDS.contains(&key.as_str()) {
                out.say(&at, format!("Unknown name \"{key}\""));
            }
        }
        let ty = object.get("type");
        if !matches!(ty, None | Some(Value::String(_))) {
            out.say(&at, format!("type {ty:?}: Proto field is not repeating"));
        }
        let ty = ty.and_then(Value::as_str);
        if let Some(values) = object.get("enum") {
            if ty != Some("string") {
                out.say(&at, "enum on a non-string".to_owned());
            }
            let values = values.as_array().cloned().unwrap_or_default();
            if !values.iter().all(Value::is_string) {
                out.say(&at, "enum values that are not strings".to_owned());
            }
            if values.iter().any(|v| v == "") {
                out.say(&at, "enum value cannot be empty".to_owned());
            }
        }
        if let Some(format) = object.get("format") {
            let allowed: &[&str] = match ty {
                Some("string") => &["enum", "date-time"],
                Some("integer") => &["int32", "int64"],
                Some("number") => &["float", "double"],
                _ => &[],
            };
            if !allowed.contains(&format.as_str().unwrap_or_default()) {
                out.say(&at, format!("format {format}"));
            }
        }
        if ty == Some("array") && !object.contains_key("items") {
            out.say(&at, "items: missing field".to_owned());
        }
        if ty.is_some_and(|t| t != "object")
            && (object.contains_key("properties") || object.contains_key("required"))
        {
            out.say(&at, "`properties` or `required` on a non-object".to_owned());
        }
        if let Some(Value::Array(required)) = object.get("required") {
            let declared = property_names(node.schema);
            for name in required.iter().filter_map(Value::as_str) {
                if !declared.contains(&name) {
                    out.say(&at, format!("required property `{name}` is not defined"));
                }
            }
        }
        if let Some(ordering) = object.get("propertyOrdering") {
            let ordering: Vec<&str> = ordering
                .as_array()
                .map(|o| o.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if ordering != property_names(node.schema) {
                out.say(
                    &at,
                    "propertyOrdering differs from the properties".to_owned(),
                );
            }
        }
    }
}
