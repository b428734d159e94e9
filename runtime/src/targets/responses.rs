//! OpenAI Responses API: the flat `{"type": "function", "name", …, "strict"}`.

use serde::{Deserialize, Serialize};

use super::JsonObject;

/// A Responses API function tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResponsesTool {
    /// Always `"function"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The function's name.
    pub name: String,
    /// What it does, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the arguments (root `"type": "object"`).
    pub parameters: JsonObject,
    /// Always sent: when it is missing the Responses API tries strict mode and silently falls
    /// back.
    pub strict: bool,
    /// JSON Schema of the function's result (the tool's output schema), for the model to read
    /// what the result means; sent only when the tool has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<JsonObject>,
    /// Loaded only when the model searches for it (through a `tool_search` tool in the
    /// request); sent only when `true`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub defer_loading: bool,
}

impl ResponsesTool {
    /// A function tool, loaded up front, without an output schema.
    pub fn function(
        name: String,
        description: Option<String>,
        parameters: JsonObject,
        strict: bool,
    ) -> ResponsesTool {
        ResponsesTool {
            kind: "function".to_owned(),
            name,
            description,
            parameters,
            strict,
            output_schema: None,
            defer_loading: false,
        }
    }
}
