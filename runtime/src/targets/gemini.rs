//! Gemini `functionDeclarations[]` entries: `parameters` in the OpenAPI 3.0 subset, or
//! `parametersJsonSchema` in JSON Schema (the two are mutually exclusive).

use serde::{Deserialize, Serialize};

use super::JsonObject;

/// A Gemini function declaration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GeminiFunctionDeclaration {
    /// The function's name.
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// The arguments' schema in the OpenAPI 3.0 subset ([`Target::Gemini`](crate::Target));
    /// omitted for a function without parameters, as Gemini asks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<JsonObject>,
    /// The arguments' schema in JSON Schema
    /// ([`Target::GeminiJsonSchema`](crate::Target)); omitted for a function without
    /// parameters.
    #[serde(
        default,
        rename = "parametersJsonSchema",
        skip_serializing_if = "Option::is_none"
    )]
    pub parameters_json_schema: Option<JsonObject>,
    /// The result's schema in the OpenAPI 3.0 subset (with `parameters`, for
    /// [`Target::Gemini`](crate::Target)); sent only when the tool has an output schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<JsonObject>,
    /// The result's schema in JSON Schema (with `parametersJsonSchema`, for
    /// [`Target::GeminiJsonSchema`](crate::Target)); sent only when the tool has an output
    /// schema.
    #[serde(
        default,
        rename = "responseJsonSchema",
        skip_serializing_if = "Option::is_none"
    )]
    pub response_json_schema: Option<JsonObject>,
}

impl GeminiFunctionDeclaration {
    /// A declaration with `parameters` (OpenAPI subset); dropped when it has no properties.
    pub fn new(name: String, description: String, parameters: JsonObject) -> Self {
        GeminiFunctionDeclaration {
            name,
            description,
            parameters: with_properties(parameters),
            parameters_json_schema: None,
            response: None,
            response_json_schema: None,
        }
    }

    /// A declaration with `parametersJsonSchema`; dropped when it has no properties and takes
    /// no other keys (a map of arguments, `additionalProperties`, is kept: JSON Schema can say
    /// it).
    pub fn with_json_schema(name: String, description: String, schema: JsonObject) -> Self {
        let open = schema
            .get("additionalProperties")
            .is_some_and(|extra| extra != &serde_json::Value::Bool(false));
        let parameters_json_schema = if open {
            Some(schema)
        } else {
            with_properties(schema)
        };
        GeminiFunctionDeclaration {
            name,
            description,
            parameters: None,
            parameters_json_schema,
            response: None,
            response_json_schema: None,
        }
    }

    /// The schema of the arguments, whichever field carries it.
    pub fn schema(&self) -> Option<&JsonObject> {
        self.parameters
            .as_ref()
            .or(self.parameters_json_schema.as_ref())
    }
}

/// `schema` when it declares a property: an object schema without any says the function takes
/// no arguments, which Gemini wants said by leaving the field out.
fn with_properties(schema: JsonObject) -> Option<JsonObject> {
    let has_properties = schema
        .get("properties")
        .and_then(|p| p.as_object())
        .is_some_and(|p| !p.is_empty());
    has_properties.then_some(schema)
}
