//! The tool the official MCP conformance suite's `json-schema-2020-12` scenario looks for
//! (SEP-1613): `json_schema_2020_12_tool`, whose input schema, written by hand, declares
//! `$schema`, keeps a definition in `$defs` behind a `$ref` and closes its root with
//! `additionalProperties: false`. The scenario checks that `tools/list` shows all three as
//! written; tooldef shows MCP clients a schema its author wrote as written, and validates calls
//! against it (the `address` object is open: keys beyond `street` and `city` are allowed).
//!
//! Register it with `ToolSet::builder().tool(json_schema_2020_12_tool())`.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tooldef::{CallContext, ContextError, ReturnValue, Tool, ToolDefinition};

/// The tool's name, as the scenario looks it up.
pub const NAME: &str = "json_schema_2020_12_tool";

/// The input schema the scenario's server requirements give, key for key and in their order.
pub const INPUT_SCHEMA: &str = r##"{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "$defs": {
    "address": {
      "type": "object",
      "properties": {
        "street": { "type": "string" },
        "city": { "type": "string" }
      }
    }
  },
  "properties": {
    "name": { "type": "string" },
    "address": { "$ref": "#/$defs/address" }
  },
  "additionalProperties": false
}"##;

/// The `json_schema_2020_12_tool` of the conformance scenario `json-schema-2020-12`.
///
/// ```
/// use tooldef::{Target, ToolSet};
/// use tooldef_examples::conformance_schema::json_schema_2020_12_tool;
///
/// let tools = ToolSet::builder().tool(json_schema_2020_12_tool()).build().unwrap();
/// let listed = tools.list(Target::Mcp).unwrap();
/// let schema = &listed[0]["inputSchema"];
/// assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
/// assert_eq!(schema["$defs"]["address"]["properties"]["city"]["type"], "string");
/// assert_eq!(schema["additionalProperties"], false);
/// ```
pub fn json_schema_2020_12_tool() -> JsonSchemaFeatures {
    JsonSchemaFeatures
}

/// The tool [`json_schema_2020_12_tool`] gives: a `Tool` implemented by hand, since its schema
/// is written rather than generated from its argument types.
#[derive(Debug, Clone, Copy, Default)]
pub struct JsonSchemaFeatures;

/// What the tool is called with: the schema's properties, both optional.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Shipment {
    /// `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `address`, the `$defs` entry behind the `$ref`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<Address>,
}

/// `#/$defs/address`: an open object, so the keys it does not name are kept.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Address {
    /// `street`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub street: Option<String>,
    /// `city`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub city: Option<String>,
    /// Every other key the caller sent, which the schema allows.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl Tool for JsonSchemaFeatures {
    type Args = Shipment;
    type Output = Shipment;
    const NAME: &'static str = NAME;

    fn definition(&self) -> &'static ToolDefinition {
        static DEFINITION: OnceLock<ToolDefinition> = OnceLock::new();
        DEFINITION.get_or_init(|| {
            // `INPUT_SCHEMA` is a constant of this file, and its test reads it.
            let schema = serde_json::from_str(INPUT_SCHEMA)
                .expect("INPUT_SCHEMA is a JSON Schema object (tested)");
            ToolDefinition::builder(NAME)
                .description("Tool with JSON Schema 2020-12 features")
                .input_schema(schema)
                .build()
        })
    }

    /// Gives back what it was called with, as it read it: the shipment, unknown address keys
    /// included.
    async fn call(&self, args: Shipment, _context: CallContext) -> Result<Shipment, ContextError> {
        Ok(args)
    }

    fn output(output: Shipment) -> Result<ReturnValue, String> {
        serde_json::to_value(output)
            .map(ReturnValue::Json)
            .map_err(|err| format!("the shipment could not be written as JSON: {err}"))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use tooldef::{Target, ToolError, ToolSet};

    use super::*;

    /// The scenario's `D`: the dialect `$schema` must name.
    const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

    fn tools() -> ToolSet {
        ToolSet::builder()
            .tool(json_schema_2020_12_tool())
            .build()
            .unwrap()
    }

    #[test]
    fn the_listing_passes_every_check_of_the_scenario() {
        let listed = tools().list(Target::Mcp).unwrap();
        // json-schema-2020-12-tool-found
        let tool = listed
            .iter()
            .find(|tool| tool["name"] == NAME)
            .expect("the tool is listed under the scenario's name");
        assert_eq!(
            tool["description"],
            "Tool with JSON Schema 2020-12 features"
        );
        let schema = tool["inputSchema"].as_object().unwrap();
        // json-schema-2020-12-$schema
        assert_eq!(schema.get("$schema"), Some(&json!(DIALECT)));
        // json-schema-2020-12-$defs
        assert!(schema["$defs"].as_object().unwrap().contains_key("address"));
        // json-schema-2020-12-additionalProperties
        assert_eq!(schema.get("additionalProperties"), Some(&json!(false)));
        // And the whole schema is the one the scenario gives, in its order.
        let written: Value = serde_json::from_str(INPUT_SCHEMA).unwrap();
        assert_eq!(
            serde_json::to_string(&tool["inputSchema"]).unwrap(),
            serde_json::to_string(&written).unwrap()
        );
    }

    #[tokio::test]
    async fn calls_are_checked_against_the_schema_as_written() {
        let tools = tools();
        let output = tools
            .call(
                NAME,
                json!({"name": "n", "address": {"street": "x", "zip": "1"}}),
            )
            .await
            .unwrap();
        assert_eq!(
            output.to_text(),
            r#"{"name":"n","address":{"street":"x","zip":"1"}}"#
        );
        let refused = tools
            .call(NAME, json!({"name": "n", "zip": "1"}))
            .await
            .unwrap_err();
        let ToolError::InvalidArguments { problems, .. } = &refused else {
            panic!("{refused:?}");
        };
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].message, "unknown property `zip`: remove it");
        let refused = tools
            .call(NAME, json!({"address": {"city": 7}}))
            .await
            .unwrap_err();
        let ToolError::InvalidArguments { problems, .. } = &refused else {
            panic!("{refused:?}");
        };
        assert_eq!(problems[0].pointer, "/address/city");
    }
}
