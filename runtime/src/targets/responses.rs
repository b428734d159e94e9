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
}

impl ResponsesTool {
    /// A function tool.
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
        }
    }
}
