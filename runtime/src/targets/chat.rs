//! OpenAI Chat Completions: `{"type": "function", "function": {…}}`.

use serde::{Deserialize, Serialize};

use super::JsonObject;

/// A Chat Completions tool. Always a function tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatTool {
    /// Always `"function"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The function.
    pub function: ChatFunction,
}

impl ChatTool {
    /// A function tool.
    pub fn function(function: ChatFunction) -> ChatTool {
        ChatTool {
            kind: "function".to_owned(),
            function,
        }
    }
}

/// The `function` of a Chat Completions tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatFunction {
    /// The function's name.
    pub name: String,
    /// What it does, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the arguments (root `"type": "object"`).
    pub parameters: JsonObject,
    /// Structured Outputs for the arguments; always sent, so the API never guesses.
    pub strict: bool,
}
