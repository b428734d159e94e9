use schemars::JsonSchema;
use serde::Deserialize;
use tooldef::{Portable, tool};
use tooldef::{Target, Tool};

/// A tree of folders.
#[derive(Deserialize, JsonSchema, Portable)]
struct Folder {
    name: String,
    children: Vec<Folder>,
    parent: Option<Box<Folder>>,
}

/// Create folders.
#[tool]
fn create(root: Folder) -> String {
    root.name
}

fn main() {
    // Fine for MCP, OpenAI and Gemini's JSON Schema (a `$ref` recurs); Gemini's OpenAPI
    // `parameters` cannot inline a recursive type, which shows at runtime.
    assert!(Create.definition().render(Target::Mcp).is_ok());
    let json_schema = Create.definition().to_json(Target::GeminiJsonSchema).unwrap();
    assert!(json_schema.to_string().contains("\"$ref\""), "{json_schema}");
    assert!(Create.definition().render(Target::Gemini).is_err());
}
