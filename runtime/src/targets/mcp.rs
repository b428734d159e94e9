//! MCP `Tool`, as `tools/list` returns it (spec 2025-11-25, and 2026-07-28's output schemas of
//! any root), and [`McpOutputRules`]: how `outputSchema` and `structuredContent` differ between
//! protocol versions.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::JsonObject;
use crate::tool::ToolAnnotations;

/// An MCP tool definition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpTool {
    /// The tool's name.
    pub name: String,
    /// A human-readable title, for display.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema (2020-12) of the arguments; its root is `"type": "object"`.
    pub input_schema: JsonObject,
    /// JSON Schema of `structuredContent` in results, when the tool has one, as the tool's
    /// definition has it: any root, as MCP 2026-07-28 allows (SEP-2106). Clients of earlier
    /// versions take only an object: [`McpOutputRules::ObjectOnly`] gives their form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<JsonObject>,
    /// Behaviour hints; omitted when none is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<McpToolAnnotations>,
    /// Icons for display (`[{src, mimeType?, sizes?, theme?}]`, spec 2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<serde_json::Value>,
    /// Metadata for clients, as the tool's author gave it.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
    /// Fields of a foreign tool that tooldef does not model (`execution`, say), passed on as
    /// they came.
    #[serde(flatten)]
    pub other: JsonObject,
}

/// MCP `ToolAnnotations`: only the hints that were given are sent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpToolAnnotations {
    /// A human-readable title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not modify its environment (MCP default: false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may perform destructive updates (MCP default: true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Repeated calls with the same arguments have no further effect (MCP default: false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool interacts with an open world (MCP default: true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

impl McpToolAnnotations {
    /// The annotations for `hints`; `None` when no hint is given.
    pub fn from_hints(hints: &ToolAnnotations) -> Option<McpToolAnnotations> {
        (!hints.is_empty()).then(|| McpToolAnnotations {
            title: hints.title.as_deref().map(str::to_owned),
            read_only_hint: hints.read_only_hint,
            destructive_hint: hints.destructive_hint,
            idempotent_hint: hints.idempotent_hint,
            open_world_hint: hints.open_world_hint,
        })
    }
}

/// The property a result whose schema is not an object is wrapped in for MCP clients before
/// 2026-07-28: `{"result": …}`, as FastMCP (and the MCP Python SDK's FastMCP before it) does.
pub const WRAPPED_RESULT: &str = "result";

/// The marker FastMCP puts on a wrapped output schema; its client then unwraps `result` into
/// its `data`, so a Python client sees the value the tool returned.
const FASTMCP_WRAP_MARKER: &str = "x-fastmcp-wrap-result";

/// The rules of an MCP protocol version for a tool's `outputSchema` and `structuredContent`.
///
/// MCP 2026-07-28 (SEP-2106) takes any JSON Schema 2020-12 as `outputSchema` and any JSON value
/// as `structuredContent`; 2025-11-25 and earlier take an object schema and an object only.
/// tooldef keeps a tool's output schema whatever its root (a `Vec<T>`, a `String`, a `u32`…),
/// renders it as it is for [`Target::Mcp`](crate::Target::Mcp), and the MCP server applies
/// these rules per client: for an earlier client, a schema whose root is not `"type":
/// "object"` becomes `{"type": "object", "properties": {"result": <schema>}, "required":
/// ["result"]}` and the tool's value `{"result": <value>}`, so that the structured content
/// still validates against the output schema (which clients check: the MCP Python SDK refuses
/// a result that does not). The text block carries the value as the tool returned it.
///
/// ```
/// use serde_json::json;
/// use tooldef::targets::McpOutputRules;
///
/// let schema = json!({"type": "array", "items": {"type": "string"}});
/// let schema = schema.as_object().unwrap();
/// let rules = McpOutputRules::for_protocol_version("2025-11-25");
/// assert_eq!(rules, McpOutputRules::ObjectOnly);
/// assert_eq!(rules.output_schema(schema)["properties"]["result"]["type"], "array");
/// assert_eq!(
///     rules.structured_content(Some(schema), json!(["a", "b"])),
///     json!({"result": ["a", "b"]})
/// );
/// let rules = McpOutputRules::for_protocol_version("2026-07-28");
/// assert_eq!(rules.structured_content(Some(schema), json!(["a"])), json!(["a"]));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum McpOutputRules {
    /// MCP 2026-07-28 and later: any schema, any value, sent as they are.
    AnyValue,
    /// MCP 2025-11-25 and earlier: an object schema and an object value; anything else is
    /// wrapped in [`WRAPPED_RESULT`].
    ObjectOnly,
}

impl McpOutputRules {
    /// The rules of the protocol version `version` (`"2025-06-18"`, `"2026-07-28"`…). Versions
    /// are dates and compare as text; an unknown later one keeps 2026-07-28's rules.
    pub fn for_protocol_version(version: &str) -> McpOutputRules {
        if version >= "2026-07-28" {
            McpOutputRules::AnyValue
        } else {
            McpOutputRules::ObjectOnly
        }
    }

    /// The `outputSchema` to send for a tool whose output schema is `schema`.
    pub fn output_schema(self, schema: &JsonObject) -> Cow<'_, JsonObject> {
        if self == McpOutputRules::AnyValue || is_object_schema(schema) {
            return Cow::Borrowed(schema);
        }
        Cow::Owned(wrap_schema(schema))
    }

    /// The `structuredContent` to send for `value`, the result of a tool whose output schema is
    /// `output_schema` (as rendered for [`Target::Mcp`](crate::Target::Mcp)). Without an output
    /// schema (a tool that built its structured content itself), a value that is not an object
    /// is wrapped for [`ObjectOnly`](McpOutputRules::ObjectOnly) clients too.
    pub fn structured_content(self, output_schema: Option<&JsonObject>, value: Value) -> Value {
        let wrap = match (self, output_schema) {
            (McpOutputRules::AnyValue, _) => false,
            (McpOutputRules::ObjectOnly, Some(schema)) => !is_object_schema(schema),
            (McpOutputRules::ObjectOnly, None) => !value.is_object(),
        };
        if wrap {
            json!({ WRAPPED_RESULT: value })
        } else {
            value
        }
    }
}

/// Whether a schema's root says the value is an object, as MCP before 2026-07-28 requires of
/// `outputSchema`.
fn is_object_schema(schema: &JsonObject) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

/// `{"type": "object", "properties": {"result": schema}, "required": ["result"]}`, with the
/// schema's `$defs` at the new root, where its `$ref`s (`#/$defs/…`) look for them, and its
/// other local `$ref`s (`#`, `#/items`…) pointed into `result`.
fn wrap_schema(schema: &JsonObject) -> JsonObject {
    let mut inner = schema.clone();
    let mut definitions: Vec<(String, Value)> = ["$defs", "definitions"]
        .into_iter()
        .filter_map(|key| inner.remove(key).map(|value| (key.to_owned(), value)))
        .collect();
    for (_, definitions) in &mut definitions {
        if let Value::Object(by_name) = definitions {
            by_name.values_mut().for_each(repoint_refs);
        }
    }
    let mut inner = Value::Object(inner);
    repoint_refs(&mut inner);
    let mut wrapper = Map::new();
    wrapper.insert("type".to_owned(), json!("object"));
    wrapper.insert("properties".to_owned(), json!({ WRAPPED_RESULT: inner }));
    wrapper.insert("required".to_owned(), json!([WRAPPED_RESULT]));
    wrapper.insert(FASTMCP_WRAP_MARKER.to_owned(), Value::Bool(true));
    wrapper.extend(definitions);
    wrapper
}

/// Keywords whose values are data, not schemas: a `$ref` key inside them is not a reference.
const DATA_KEYWORDS: &[&str] = &["const", "default", "enum", "examples"];

/// Points the local `$ref`s under `value` that are not into the definitions (which moved to the
/// wrapper's root with the same paths) into the wrapped schema.
fn repoint_refs(value: &mut Value) {
    match value {
        Value::Object(node) => {
            for (key, child) in node.iter_mut() {
                match (key.as_str(), child) {
                    ("$ref", Value::String(reference)) => {
                        let into_definitions = ["#/$defs/", "#/definitions/"]
                            .iter()
                            .any(|prefix| reference.starts_with(prefix));
                        if let Some(path) = reference.strip_prefix('#')
                            && !into_definitions
                        {
                            *reference = format!("#/properties/{WRAPPED_RESULT}{path}");
                        }
                    }
                    (key, _) if DATA_KEYWORDS.contains(&key) => {}
                    (_, child) => repoint_refs(child),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(repoint_refs),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(value: Value) -> JsonObject {
        match value {
            Value::Object(map) => map,
            other => panic!("not an object: {other}"),
        }
    }

    #[test]
    fn object_schemas_and_values_are_sent_as_they_are() {
        let schema = object(json!({"type": "object", "properties": {"n": {"type": "integer"}}}));
        for rules in [McpOutputRules::AnyValue, McpOutputRules::ObjectOnly] {
            assert_eq!(*rules.output_schema(&schema), schema);
            assert_eq!(
                rules.structured_content(Some(&schema), json!({"n": 1})),
                json!({"n": 1})
            );
        }
    }

    #[test]
    fn other_roots_are_wrapped_for_object_only_clients_with_their_definitions_at_the_root() {
        let schema = object(json!({
            "type": "array",
            "items": {"$ref": "#/$defs/Flight"},
            "$defs": {"Flight": {"type": "object", "properties": {"next": {"$ref": "#"}}}},
            "default": [{"$ref": "#"}]
        }));
        let wrapped = McpOutputRules::ObjectOnly
            .output_schema(&schema)
            .into_owned();
        assert_eq!(
            Value::Object(wrapped),
            json!({
                "type": "object",
                "properties": {"result": {
                    "type": "array",
                    "items": {"$ref": "#/$defs/Flight"},
                    "default": [{"$ref": "#"}]
                }},
                "required": ["result"],
                "x-fastmcp-wrap-result": true,
                "$defs": {"Flight": {"type": "object", "properties": {"next": {"$ref": "#/properties/result"}}}}
            })
        );
        assert_eq!(*McpOutputRules::AnyValue.output_schema(&schema), schema);
    }

    #[test]
    fn values_follow_their_schema_and_go_bare_to_any_value_clients() {
        let string = object(json!({"type": "string"}));
        let rules = McpOutputRules::ObjectOnly;
        assert_eq!(
            rules.structured_content(Some(&string), json!("hi")),
            json!({"result": "hi"})
        );
        // An `anyOf` of objects has no `"type": "object"` at its root: wrapped, value and all.
        let union = object(json!({"anyOf": [{"type": "object"}, {"type": "null"}]}));
        assert_eq!(
            rules.structured_content(Some(&union), json!({"a": 1})),
            json!({"result": {"a": 1}})
        );
        assert_eq!(
            rules.structured_content(None, json!(3)),
            json!({"result": 3})
        );
        assert_eq!(
            rules.structured_content(None, json!({"a": 1})),
            json!({"a": 1})
        );
        assert_eq!(
            McpOutputRules::AnyValue.structured_content(Some(&string), json!("hi")),
            json!("hi")
        );
    }

    #[test]
    fn protocol_versions_choose_the_rules() {
        for (version, rules) in [
            ("2024-11-05", McpOutputRules::ObjectOnly),
            ("2025-06-18", McpOutputRules::ObjectOnly),
            ("2025-11-25", McpOutputRules::ObjectOnly),
            ("2026-07-28", McpOutputRules::AnyValue),
            ("2027-01-01", McpOutputRules::AnyValue),
        ] {
            assert_eq!(
                McpOutputRules::for_protocol_version(version),
                rules,
                "{version}"
            );
        }
    }
}
