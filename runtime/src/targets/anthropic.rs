//! Anthropic Messages API tools: `{name, description, input_schema}`.

use serde::{Deserialize, Serialize};

use super::JsonObject;

/// An Anthropic tool, rendered non-strict (strict mode is limited to 20 tools a request, so it is
/// not a safe default); the schema is full draft 2020-12.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnthropicTool {
    /// The tool's name.
    pub name: String,
    /// What it does, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the arguments (root `"type": "object"`).
    pub input_schema: JsonObject,
}
