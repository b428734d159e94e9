//! MCP `Tool`, as `tools/list` returns it (spec 2025-11-25).

use serde::{Deserialize, Serialize};

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
    /// JSON Schema of `structuredContent` in results, when the tool has one.
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
