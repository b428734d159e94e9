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

/// Keywords Gemini documents for JSON Schema (`parametersJsonSchema`, and structured output's
/// `responseJsonSchema`): anything else is ignored, so a constraint there is one the model never
/// sees.
pub const GEMINI_JSON_KEYWORDS: &[&str] = &[
    "$ref",
    "$defs",
    "type",
    "format",
    "title",
    "description",
    "enum",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "anyOf",
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
            tool.get("strict") == Some(&Value::Bool(true)),
        ),
        Target::Gemini => (
            tool.get("name"),
            tool.get("description"),
            tool.get("parameters"),
            false,
        ),
        Target::GeminiJsonSchema => (
            tool.get("name"),
            tool.get("description"),
            tool.get("parametersJsonSchema"),
            false,
        ),
    };
    if target.is_gemini() && tool.get("parameters").is_some() == (target != Target::Gemini) {
        out.say(
            "the tool",
            "`parameters` and `parametersJsonSchema` mixed up".to_owned(),
        );
    }
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
        (Target::Gemini | Target::GeminiJsonSchema, None) => {}
        (_, None) => out.say("the tool", "no parameter schema".to_owned()),
        (_, Some(schema)) => match target {
            Target::Mcp => json_schema(schema, target, &mut out),
            Target::Anthropic => {
                json_schema(schema, target, &mut out);
                if strict {
                    anthropic_strict(schema, &mut out);
                }
            }
            Target::ChatCompletions | Target::Responses => {
                json_schema(schema, target, &mut out);
                openai(schema, strict, &mut out);
            }
            Target::Gemini => gemini(schema, &mut out),
            Target::GeminiJsonSchema => {
                json_schema(schema, target, &mut out);
                gemini_json(schema, &mut out);
            }
        },
    }
    out.0
}

/// Every reason `target` would refuse one request carrying `tools` (their wire JSON, in order),
/// beyond what it refuses in each tool: more tools than it takes, two of one name, and
/// Anthropic's limits on the strict tools of a request (structured-outputs documentation: at
/// most 20 strict tools, 24 optional parameters and 16 parameters with union types, `anyOf` or a
/// list of types, across them).
pub fn request_refusals(tools: &[Value], target: Target) -> Vec<String> {
    let mut out = Vec::new();
    let most = match target {
        Target::ChatCompletions | Target::Responses => Some(128),
        Target::Gemini | Target::GeminiJsonSchema => Some(512),
        Target::Mcp | Target::Anthropic => None,
    };
    if let Some(most) = most.filter(|most| tools.len() > *most) {
        out.push(format!("{} tools, more than {most}", tools.len()));
    }
    let name = |tool: &Value| {
        tool.get("name")
            .or_else(|| tool.pointer("/function/name"))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let mut names: Vec<String> = tools.iter().filter_map(name).collect();
    names.sort();
    for pair in names.windows(2).filter(|pair| pair[0] == pair[1]) {
        out.push(format!("two tools named `{}`", pair[0]));
    }
    if target == Target::Anthropic {
        let strict: Vec<&Value> = tools
            .iter()
            .filter(|tool| tool.get("strict") == Some(&Value::Bool(true)))
            .collect();
        let (mut optional, mut unions) = (0, 0);
        for tool in &strict {
            for node in walk(&tool["input_schema"]) {
                let required: Vec<&str> = node
                    .schema
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                optional += property_names(node.schema)
                    .iter()
                    .filter(|name| !required.contains(name))
                    .count();
                let type_list = node
                    .schema
                    .get("type")
                    .and_then(Value::as_array)
                    .is_some_and(|types| types.len() > 1);
                if type_list || node.schema.get("anyOf").is_some() {
                    unions += 1;
                }
            }
        }
        for (count, most, what) in [
            (strict.len(), 20, "strict tools"),
            (optional, 24, "optional parameters across the strict tools"),
            (
                unions,
                16,
                "parameters with union types across the strict tools",
            ),
        ] {
            if count > most {
                out.push(format!("{count} {what}, more than {most}"));
            }
        }
    }
    out
}

/// Whether `name` is a tool name `target` takes.
pub fn name_accepted(name: &str, target: Target) -> bool {
    let allowed = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    match target {
        Target::Mcp => {
            (1..=128).contains(&name.len())
                && name.chars().all(|c| allowed(c) || c == '.' || c == '/')
        }
        Target::Gemini | Target::GeminiJsonSchema => {
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

/// Anthropic's strict mode (structured-outputs documentation, "JSON Schema limitations"): only
/// the keywords it lists, `additionalProperties: false` on every object, the ten formats,
/// `minItems` 0 or 1, primitive enums, `allOf` without `$ref`, local non-recursive `$ref`s, and
/// patterns without lookaround, backreferences or word boundaries.
fn anthropic_strict(schema: &Value, out: &mut Refusals) {
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
    for node in walk(schema) {
        let at = format!("`{}`", node.pointer);
        let Some(object) = node.schema.as_object() else {
            if !(node.pointer.ends_with("/additionalProperties") && node.schema == false) {
                out.say(&at, "a boolean schema in strict mode".to_owned());
            }
            continue;
        };
        for key in object.keys().filter(|k| !KEYWORDS.contains(&k.as_str())) {
            out.say(&at, format!("`{key}` in strict mode"));
        }
        if let Some(format) = object.get("format")
            && !FORMATS.contains(&format.as_str().unwrap_or_default())
        {
            out.say(&at, format!("format {format} in strict mode"));
        }
        if let Some(min) = object.get("minItems").filter(|m| *m != 0 && *m != 1) {
            out.say(&at, format!("`minItems` {min} in strict mode"));
        }
        if let Some(Value::Array(values)) = object.get("enum")
            && values.iter().any(|v| v.is_object() || v.is_array())
        {
            out.say(&at, "an enum of complex values in strict mode".to_owned());
        }
        if let Some(pattern) = object.get("pattern").and_then(Value::as_str) {
            let refused = ["(?=", "(?!", "(?<=", "(?<!", "\\b", "\\B"]
                .iter()
                .any(|p| pattern.contains(p))
                || has_backreference(pattern);
            if refused {
                out.say(&at, format!("pattern `{pattern}` in strict mode"));
            }
        }
        if let Some(Value::Array(branches)) = object.get("allOf")
            && (object.contains_key("$ref") || branches.iter().any(|b| b.get("$ref").is_some()))
        {
            out.say(&at, "`allOf` with `$ref` in strict mode".to_owned());
        }
        if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
            // A definition that refers to itself is recursive (the renderings keep a `$ref`
            // only for recursion, and only a direct or mutual one makes one).
            let recursive = reference == "#"
                || reference.strip_prefix("#/$defs/").is_some_and(|name| {
                    node.pointer.starts_with(&format!("/$defs/{name}/"))
                        || schema["$defs"][name]
                            .to_string()
                            .contains(&format!("\"#/$defs/{name}\""))
                        || defs_refer_back(schema, name)
                });
            if !reference.starts_with("#/$defs/") || recursive {
                out.say(
                    &at,
                    format!("`$ref` `{reference}` (not local, or recursive) in strict mode"),
                );
            }
        }
        if type_names(node.schema).contains(&"array") && !object.contains_key("items") {
            out.say(&at, "an array without `items` in strict mode".to_owned());
        }
        if is_object_node(node.schema)
            && object.get("additionalProperties") != Some(&Value::Bool(false))
        {
            out.say(
                &at,
                "an object without `additionalProperties: false`".to_owned(),
            );
        }
        let typed = ["type", "enum", "const", "anyOf", "allOf", "$ref"]
            .iter()
            .any(|k| object.contains_key(*k));
        if !typed {
            out.say(&at, "an untyped value in strict mode".to_owned());
        }
    }
}

/// Whether a definition `name` is reached again from the definitions it refers to.
fn defs_refer_back(schema: &Value, name: &str) -> bool {
    let Some(defs) = schema.get("$defs").and_then(Value::as_object) else {
        return false;
    };
    let mut seen = vec![name.to_owned()];
    let mut stack = vec![name.to_owned()];
    while let Some(current) = stack.pop() {
        let text = defs.get(&current).map(Value::to_string).unwrap_or_default();
        for other in defs.keys() {
            if text.contains(&format!("\"#/$defs/{other}\"")) {
                if other == name && current != name {
                    return true;
                }
                if !seen.contains(other) {
                    seen.push(other.clone());
                    stack.push(other.clone());
                }
            }
        }
    }
    false
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

/// Gemini `parametersJsonSchema`: only the keywords Gemini documents (it ignores the others, so a
/// constraint left there is lost on the model), and formats among `date-time`, `date`, `time`.
fn gemini_json(schema: &Value, out: &mut Refusals) {
    for node in walk(schema) {
        let at = format!("`{}`", node.pointer);
        let Some(object) = node.schema.as_object() else {
            continue;
        };
        for key in object.keys() {
            if !GEMINI_JSON_KEYWORDS.contains(&key.as_str()) {
                out.say(&at, format!("`{key}` is ignored"));
            }
        }
        if let Some(format) = object.get("format")
            && !["date-time", "date", "time"].contains(&format.as_str().unwrap_or_default())
        {
            out.say(&at, format!("format {format} is ignored"));
        }
    }
}
