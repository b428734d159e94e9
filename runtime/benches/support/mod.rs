//! What the listing benchmarks share: 1,000 tools of a typical shape.

use std::sync::OnceLock;

use tooldef::{CallContext, ContextError, ReturnValue, Tool, ToolDefinition, ToolSet};

/// A tool whose definition is made at run time, so that 1,000 distinct tools need no 1,000
/// types.
pub struct Numbered(pub &'static ToolDefinition);

impl Tool for Numbered {
    type Args = serde_json::Value;
    type Output = ();
    const NAME: &'static str = "numbered";

    fn definition(&self) -> &'static ToolDefinition {
        self.0
    }

    async fn call(&self, _: Self::Args, _: CallContext) -> Result<(), ContextError> {
        Ok(())
    }

    fn output(_: ()) -> Result<ReturnValue, String> {
        Ok(ReturnValue::Json(serde_json::Value::Null))
    }
}

/// 1,000 definitions of the shape of a typical tool: four parameters, one nested object, a
/// default, a range and an enum.
pub fn definitions() -> &'static [&'static ToolDefinition] {
    static DEFINITIONS: OnceLock<Vec<&'static ToolDefinition>> = OnceLock::new();
    DEFINITIONS.get_or_init(|| {
        (0..1000)
            .map(|i| {
                let schema = schemars::json_schema!({
                    "type": "object",
                    "properties": {
                        "query": {"type": "string", "description": "What to look for.", "minLength": 1},
                        "limit": {"type": "integer", "format": "uint32", "minimum": 1, "maximum": 100, "default": 10},
                        "order": {"$ref": "#/$defs/Order", "default": "asc"},
                        "filter": {"anyOf": [{"$ref": "#/$defs/Filter"}, {"type": "null"}]}
                    },
                    "additionalProperties": false,
                    "required": ["query"],
                    "$defs": {
                        "Order": {"oneOf": [{"const": "asc", "description": "Oldest first."}, {"const": "desc", "description": "Newest first."}]},
                        "Filter": {"type": "object", "properties": {"field": {"type": "string"}, "value": {"type": "string"}}, "required": ["field", "value"]}
                    }
                });
                &*Box::leak(Box::new(
                    ToolDefinition::builder(format!("tool_{i}"))
                        .description(format!("Tool number {i}."))
                        .input_schema(schema)
                        .build(),
                ))
            })
            .collect()
    })
}

pub fn toolset() -> ToolSet {
    definitions()
        .iter()
        .fold(ToolSet::builder(), |builder, &d| builder.tool(Numbered(d)))
        .build()
        .unwrap()
}
