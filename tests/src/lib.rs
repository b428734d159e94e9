//! Helpers for tooldef's workspace tests: walking a JSON Schema by keyword position.
#![deny(missing_docs)]

use serde_json::Value;

pub mod accept;
pub mod foreign;
pub mod odd_schemas;
pub mod schema_instances;
pub mod served;
pub mod tricky;

// The README's example is compiled and run as a doctest, so it cannot drift from the API.
#[doc = include_str!("../../README.md")]
#[allow(dead_code)]
struct ReadmeExample;

/// The arguments' schema inside a target's tool JSON, where that target's wire shape keeps it
/// (`None` for a Gemini declaration without parameters, which Gemini wants left out).
pub fn input_schema_in(tool: &Value, target: tooldef::Target) -> Option<&Value> {
    use tooldef::Target;
    match target {
        Target::Mcp => tool.get("inputSchema"),
        Target::ChatCompletions => tool.pointer("/function/parameters"),
        Target::Responses | Target::Gemini => tool.get("parameters"),
        Target::Anthropic => tool.get("input_schema"),
        Target::GeminiJsonSchema => tool.get("parametersJsonSchema"),
    }
}

/// One schema node met by [`walk`], with its JSON Pointer from the root.
pub struct Node<'a> {
    /// Where the node is, e.g. `/properties/guest/properties/email`.
    pub pointer: String,
    /// The node itself (an object or a boolean schema).
    pub schema: &'a Value,
}

/// The string formats OpenAI strict mode accepts (PROVIDERS.md), checked against by the target
/// and corpus tests independently of the runtime's own list.
pub const OPENAI_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Keywords whose value is a map from names to schemas (names are data, not keywords).
const SCHEMA_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];
/// Keywords whose value is one schema.
const SCHEMA_SINGLE: &[&str] = &[
    "additionalProperties",
    "items",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contentSchema",
];
/// Keywords whose value is an array of schemas.
const SCHEMA_ARRAYS: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems", "items"];

/// Every schema node under (and including) `root`, depth first, in document order.
pub fn walk(root: &Value) -> Vec<Node<'_>> {
    let mut out = Vec::new();
    walk_into(root, String::new(), &mut out);
    out
}

fn walk_into<'a>(schema: &'a Value, pointer: String, out: &mut Vec<Node<'a>>) {
    let Some(object) = schema.as_object() else {
        out.push(Node { pointer, schema });
        return;
    };
    out.push(Node {
        pointer: pointer.clone(),
        schema,
    });
    for (key, value) in object {
        let here = format!("{pointer}/{}", escape(key));
        if SCHEMA_MAPS.contains(&key.as_str()) {
            for (name, sub) in value.as_object().into_iter().flatten() {
                walk_into(sub, format!("{here}/{}", escape(name)), out);
            }
        } else if SCHEMA_ARRAYS.contains(&key.as_str()) && value.is_array() {
            for (i, sub) in value.as_array().into_iter().flatten().enumerate() {
                walk_into(sub, format!("{here}/{i}"), out);
            }
        } else if SCHEMA_SINGLE.contains(&key.as_str()) && (value.is_object() || value.is_boolean())
        {
            walk_into(value, here, out);
        }
    }
}

fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Whether a node describes an object (by `type` or by having `properties`).
pub fn is_object_node(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
        || schema.get("properties").is_some()
}

/// The property names of an object node, in document order.
pub fn property_names(schema: &Value) -> Vec<&str> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

/// The JSON spelling of a default as it must appear in a description: `Default: 3.`
pub fn default_sentence(value: &Value) -> String {
    format!("Default: {value}.")
}

/// Builds the `mcp_server` example (cheap when it is up to date) and returns its path, for tests
/// that drive it as a child process.
pub fn mcp_server_example() -> std::path::PathBuf {
    example("mcp_server")
}

/// Builds the example `name` of `tooldef-examples` (cheap when it is up to date) and returns
/// its path, for tests that run it as a child process.
pub fn example(name: &str) -> std::path::PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let status = std::process::Command::new(cargo)
        .args([
            "build",
            "-q",
            "-p",
            "tooldef-examples",
            "--features",
            "mcp",
            "--example",
            name,
        ])
        .status()
        .expect("cargo runs");
    assert!(status.success(), "building the {name} example failed");
    let target = std::env::var("CARGO_TARGET_DIR").map_or_else(
        |_| std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"),
        std::path::PathBuf::from,
    );
    target.join("debug/examples").join(name)
}

/// OpenAI strict mode's rule for an object node: closed (`additionalProperties: false`), with
/// every property listed in `required`, in order. `at` says where, for the failure message.
pub fn assert_closed_with_all_required(schema: &Value, at: &str) {
    assert_eq!(
        schema.get("additionalProperties"),
        Some(&Value::Bool(false)),
        "additionalProperties {at}"
    );
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    assert_eq!(required, property_names(schema), "required {at}");
}

/// The github/github-mcp-server corpus (117 tools), copied into the repository.
pub const GITHUB_CORPUS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/fixtures/corpus/github-mcp-server.tools.json"
);

/// The FastMCP metabolic-modelling corpus (27 tools), copied into the repository.
pub const FASTMCP_CORPUS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/fixtures/corpus/fastmcp-metabolic.tools.json"
);

/// The changes of `report` about the input schema at `pointer`, in the order made.
pub fn input_changes_at<'a>(
    report: &'a tooldef::report::Report,
    pointer: &'a str,
) -> impl Iterator<Item = &'a tooldef::report::ChangeKind> + 'a {
    report
        .changes()
        .iter()
        .filter(move |c| c.place == tooldef::report::Place::Input && c.pointer == pointer)
        .map(|c| &c.kind)
}

/// The JSON Pointers (into the input schema) at which `report` says the tool cannot be strict,
/// in the order found.
pub fn not_strict_pointers(report: &tooldef::report::Report) -> Vec<&str> {
    report.not_strict().map(|c| c.pointer.as_str()).collect()
}

/// The properties `report` made required and nullable (OpenAI strict mode), as
/// `(pointer of the object, property)`.
pub fn made_nullable(report: &tooldef::report::Report) -> Vec<(&str, &str)> {
    report
        .changes()
        .iter()
        .filter_map(|c| match &c.kind {
            tooldef::report::ChangeKind::MadeRequired {
                property,
                nullable: true,
            } => Some((c.pointer.as_str(), property.as_str())),
            _ => None,
        })
        .collect()
}
