//! The five targets a tool definition is rendered for, and their wire types.

use std::fmt;
use std::str::FromStr;

/// An LLM API (or protocol) that a tool definition is rendered for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    /// An MCP `Tool`, as listed by `tools/list` (spec 2025-11-25).
    Mcp,
    /// An OpenAI Chat Completions tool: `{"type":"function","function":{…}}`.
    ChatCompletions,
    /// An OpenAI Responses API function tool: `{"type":"function", "name", …}`.
    Responses,
    /// An Anthropic Messages API tool: `{name, description, input_schema}`.
    Anthropic,
    /// A Gemini function declaration whose `parameters` use the OpenAPI 3.0 subset.
    Gemini,
}

impl Target {
    /// Every target, in a fixed order.
    pub const ALL: [Target; 5] = [
        Target::Mcp,
        Target::ChatCompletions,
        Target::Responses,
        Target::Anthropic,
        Target::Gemini,
    ];

    /// The short name used on command lines and in file names: `mcp`, `chat`, `responses`,
    /// `anthropic`, `gemini`.
    pub const fn short_name(self) -> &'static str {
        match self {
            Target::Mcp => "mcp",
            Target::ChatCompletions => "chat",
            Target::Responses => "responses",
            Target::Anthropic => "anthropic",
            Target::Gemini => "gemini",
        }
    }

    /// Whether this target is one of OpenAI's (strict mode applies).
    pub const fn is_openai(self) -> bool {
        matches!(self, Target::ChatCompletions | Target::Responses)
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Target::Mcp => "MCP",
            Target::ChatCompletions => "OpenAI Chat Completions",
            Target::Responses => "OpenAI Responses",
            Target::Anthropic => "Anthropic",
            Target::Gemini => "Gemini",
        })
    }
}

/// The error for a target name that is not one of [`Target::ALL`]'s short names.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown target `{0}`: expected one of mcp, chat, responses, anthropic, gemini")]
pub struct UnknownTarget(pub String);

impl FromStr for Target {
    type Err = UnknownTarget;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Target::ALL
            .into_iter()
            .find(|t| t.short_name() == s)
            .ok_or_else(|| UnknownTarget(s.to_owned()))
    }
}

mod anthropic;
mod chat;
mod gemini;
mod mcp;
mod responses;

pub use anthropic::AnthropicTool;
pub use chat::{ChatFunction, ChatTool};
pub use gemini::GeminiFunctionDeclaration;
pub use mcp::{McpTool, McpToolAnnotations};
pub use responses::ResponsesTool;

use serde::Serialize;

use crate::tool::ToolDefinition;
use crate::{SchemaError, schema};

/// A JSON object, as the schemas inside wire types are.
pub type JsonObject = serde_json::Map<String, serde_json::Value>;

/// A tool rendered for one target: the wire value and what rendering had to change.
#[derive(Debug, Clone, PartialEq)]
pub struct Rendering {
    /// The tool in the target's wire shape.
    pub tool: TargetTool,
    /// What was rewritten, moved into descriptions, or why strict mode was not possible.
    pub notes: Vec<String>,
}

impl Rendering {
    /// The wire value as JSON.
    pub fn to_json(&self) -> serde_json::Value {
        // Wire types are plain maps, strings and bools: serialising them cannot fail.
        serde_json::to_value(&self.tool).unwrap_or(serde_json::Value::Null)
    }

    /// The wire value as JSON, moving the schemas rather than copying them (for a rendering made
    /// once and not cached, as in [`convert`](crate::convert)).
    pub fn into_json(self) -> serde_json::Value {
        self.tool.into_json()
    }
}

impl TargetTool {
    /// The wire value as JSON, moving the schemas. Field for field what `Serialize` writes
    /// (`into_json_matches_serialize` tests it).
    pub fn into_json(self) -> serde_json::Value {
        use serde_json::Value;
        fn put(map: &mut JsonObject, key: &str, value: impl Into<Value>) {
            map.insert(key.to_owned(), value.into());
        }
        fn put_opt(map: &mut JsonObject, key: &str, value: Option<impl Into<Value>>) {
            if let Some(value) = value {
                put(map, key, value);
            }
        }
        let mut out = JsonObject::new();
        match self {
            // MCP carries annotations and output schemas: its derived form is the reference.
            TargetTool::Mcp(tool) => {
                return serde_json::to_value(tool).unwrap_or(Value::Null);
            }
            TargetTool::ChatCompletions(tool) => {
                let mut function = JsonObject::new();
                put(&mut function, "name", tool.function.name);
                put_opt(&mut function, "description", tool.function.description);
                put(
                    &mut function,
                    "parameters",
                    Value::Object(tool.function.parameters),
                );
                put(&mut function, "strict", tool.function.strict);
                put(&mut out, "type", tool.kind);
                put(&mut out, "function", Value::Object(function));
            }
            TargetTool::Responses(tool) => {
                put(&mut out, "type", tool.kind);
                put(&mut out, "name", tool.name);
                put_opt(&mut out, "description", tool.description);
                put(&mut out, "parameters", Value::Object(tool.parameters));
                put(&mut out, "strict", tool.strict);
            }
            TargetTool::Anthropic(tool) => {
                put(&mut out, "name", tool.name);
                put_opt(&mut out, "description", tool.description);
                put(&mut out, "input_schema", Value::Object(tool.input_schema));
            }
            TargetTool::Gemini(tool) => {
                put(&mut out, "name", tool.name);
                put(&mut out, "description", tool.description);
                put_opt(&mut out, "parameters", tool.parameters.map(Value::Object));
            }
        }
        Value::Object(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn into_json_matches_serialize() {
        let schema = schemars::json_schema!({
            "type": "object", "properties": {"a": {"type": "integer", "default": 1}}
        });
        for description in [Some("Does a thing."), None] {
            let mut builder = ToolDefinition::builder("t").input_schema(schema.clone());
            if let Some(d) = description {
                builder = builder.description(d);
            }
            let definition = builder.build();
            for target in Target::ALL {
                let rendering = render(&definition, target).unwrap();
                let copied = rendering.to_json();
                let moved = rendering.into_json();
                assert_eq!(
                    serde_json::to_string(&moved).unwrap(),
                    serde_json::to_string(&copied).unwrap(),
                    "{target}"
                );
            }
        }
    }
}

/// A tool in one target's wire shape; serialises to exactly the provider's JSON.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum TargetTool {
    /// See [`McpTool`].
    Mcp(McpTool),
    /// See [`ChatTool`].
    ChatCompletions(ChatTool),
    /// See [`ResponsesTool`].
    Responses(ResponsesTool),
    /// See [`AnthropicTool`].
    Anthropic(AnthropicTool),
    /// See [`GeminiFunctionDeclaration`].
    Gemini(GeminiFunctionDeclaration),
}

/// Renders `definition` for `target`; [`ToolDefinition::render`] caches the result.
pub(crate) fn render(
    definition: &ToolDefinition,
    target: Target,
) -> Result<Rendering, SchemaError> {
    let input = schema::render_for(definition.input_schema(), target, definition.strict())?;
    let mut notes = input.notes;
    let name = definition.name().to_owned();
    let description = definition.description().map(str::to_owned);
    let tool = match target {
        Target::Mcp => {
            let output_schema = match definition.output_schema() {
                Some(output) => {
                    let rendered = schema::render_output_for(output, Target::Mcp)?;
                    notes.extend(rendered.notes);
                    Some(rendered.schema)
                }
                None => None,
            };
            TargetTool::Mcp(McpTool {
                name,
                title: definition.title().map(str::to_owned),
                description,
                input_schema: input.schema,
                output_schema,
                annotations: McpToolAnnotations::from_hints(definition.annotations()),
            })
        }
        Target::ChatCompletions => TargetTool::ChatCompletions(ChatTool::function(ChatFunction {
            name,
            description,
            parameters: input.schema,
            strict: input.strict,
        })),
        Target::Responses => TargetTool::Responses(ResponsesTool::function(
            name,
            description,
            input.schema,
            input.strict,
        )),
        Target::Anthropic => TargetTool::Anthropic(AnthropicTool {
            name,
            description,
            input_schema: input.schema,
        }),
        Target::Gemini => TargetTool::Gemini(GeminiFunctionDeclaration::new(
            name,
            description.unwrap_or_default(),
            input.schema,
        )),
    };
    Ok(Rendering { tool, notes })
}
