//! Gemini `functionDeclarations[]` entries, with `parameters` in the OpenAPI 3.0 subset.

use serde::{Deserialize, Serialize};

use super::JsonObject;

/// A Gemini function declaration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GeminiFunctionDeclaration {
    /// The function's name.
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// The arguments' schema (OpenAPI 3.0 subset); omitted for a function without parameters,
    /// as Gemini asks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<JsonObject>,
}

impl GeminiFunctionDeclaration {
    /// A declaration; `parameters` is dropped when it has no properties.
    pub fn new(name: String, description: String, parameters: JsonObject) -> Self {
        let has_properties = parameters
            .get("properties")
            .and_then(|p| p.as_object())
            .is_some_and(|p| !p.is_empty());
        GeminiFunctionDeclaration {
            name,
            description,
            parameters: has_properties.then_some(parameters),
        }
    }
}
