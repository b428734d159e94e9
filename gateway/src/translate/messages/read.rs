//! Reading a Messages request: its fields, tools, tool choice, thinking and output format;
//! a field only Messages has is refused.

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::translate::common::{is_empty, parse, unknown_field, untranslatable};
use crate::translate::ir::{Message, Refusal, Request, ResponseFormat, Role, Tool, ToolChoice};

use super::API;
use super::read_messages::{read_messages, read_system};

/// Reads a Messages request. Every field is read or refused. `cache_control`, wherever it is,
/// is taken and dropped: it is a hint to Anthropic's prompt cache, not content, and changes no
/// answer.
pub fn read_request(request: &Map<String, Value>) -> Result<Request, Refusal> {
    let mut ir = Request::default();
    let mut system = Vec::new();
    let mut messages = Vec::new();
    for (key, value) in request {
        if is_empty(value) {
            continue;
        }
        match key.as_str() {
            "model" => ir.model = Some(parse("model", key, value)?),
            "max_tokens" => ir.max_tokens = Some(parse("max_tokens", key, value)?),
            "system" => system = read_system(value)?,
            "messages" => messages = read_messages(value)?,
            "tools" => ir.tools = read_tools(value)?,
            "tool_choice" => {
                let (choice, parallel) = read_tool_choice(value)?;
                ir.tool_choice = Some(choice);
                ir.parallel_tool_calls = parallel;
            }
            "temperature" => ir.temperature = Some(parse("temperature", key, value)?),
            "top_p" => ir.top_p = Some(parse("top_p", key, value)?),
            "stop_sequences" => ir.stop = parse("stop_sequences", key, value)?,
            "stream" => ir.stream = parse("stream", key, value)?,
            "metadata" => {
                let metadata: Metadata = parse("metadata", key, value)?;
                ir.user = metadata.user_id;
            }
            "thinking" => ir.thinking_budget = read_thinking(value)?,
            "output_format" => ir.response_format = Some(read_output_format(value)?),
            "service_tier" if value.as_str() == Some("auto") => {}
            other => refuse_messages_only(other)?,
        }
    }
    if !system.is_empty() {
        ir.messages.push(Message {
            role: Role::System,
            parts: system,
        });
    }
    ir.messages.extend(messages);
    Ok(ir)
}

/// The fields only Messages has (of the APIs the gateway translates between), and what each
/// asks for.
const MESSAGES_ONLY: &[(&str, &str)] = &[
    ("top_k", "samples from the k likeliest tokens"),
    (
        "container",
        "names a container of Anthropic's code execution",
    ),
    ("context_management", "asks Anthropic to manage the context"),
    ("mcp_servers", "asks Anthropic to call MCP servers"),
    ("service_tier", "asks for a service tier"),
];

fn refuse_messages_only(key: &str) -> Result<(), Refusal> {
    match MESSAGES_ONLY.iter().find(|(name, _)| *name == key) {
        Some((name, what)) => Err(untranslatable(name, API, what)),
        None => Err(unknown_field(API, key)),
    }
}

/// `metadata`: Messages has only the user's id.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Metadata {
    user_id: Option<String>,
}

/// A custom tool. A server tool (`web_search_20250305`, `bash_…`, `text_editor_…`,
/// `code_execution_…`, `mcp_toolset`…) has a `type` of its own, and is refused.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CustomTool {
    #[serde(rename = "type")]
    _kind: Option<String>,
    name: String,
    description: Option<String>,
    input_schema: Value,
    strict: Option<bool>,
    #[serde(rename = "cache_control")]
    _cache_control: Option<Value>,
}

fn read_tools(value: &Value) -> Result<Vec<Tool>, Refusal> {
    let items: Vec<Value> = parse("tools", "tools", value)?;
    let mut tools = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let at = format!("tools[{index}]");
        match item.get("type") {
            None | Some(Value::Null) => {}
            Some(Value::String(kind)) if kind == "custom" => {}
            Some(kind) => {
                return Err(Refusal::new(
                    "tools",
                    format!(
                        "`{at}` is {kind}, a server tool of Anthropic's; an upstream that speaks \
                         another API than Messages has no such tool: remove it, or point the \
                         gateway at an upstream that speaks the Messages API."
                    ),
                ));
            }
        }
        let tool: CustomTool = parse("tools", &at, item)?;
        tools.push(Tool {
            name: tool.name,
            description: tool.description,
            parameters: tool.input_schema,
            strict: tool.strict,
        });
    }
    Ok(tools)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolChoiceParam {
    #[serde(rename = "type")]
    kind: String,
    name: Option<String>,
    disable_parallel_tool_use: Option<bool>,
}

/// `tool_choice`, and whether it allows parallel calls (`disable_parallel_tool_use: false` is
/// the default, and says nothing).
fn read_tool_choice(value: &Value) -> Result<(ToolChoice, Option<bool>), Refusal> {
    let choice: ToolChoiceParam = parse("tool_choice", "tool_choice", value)?;
    let parallel = choice
        .disable_parallel_tool_use
        .filter(|&disable| disable)
        .map(|_| false);
    let choice = match (choice.kind.as_str(), choice.name) {
        ("auto", _) => ToolChoice::Auto,
        ("any", _) => ToolChoice::Required,
        ("none", _) => ToolChoice::None,
        ("tool", Some(name)) => ToolChoice::Named(name),
        ("tool", None) => {
            return Err(Refusal::new(
                "tool_choice",
                "`tool_choice` of type `tool` needs the tool's `name`.",
            ));
        }
        (other, _) => {
            return Err(Refusal::new(
                "tool_choice",
                format!(
                    "`tool_choice` of type `{other}` cannot be translated: use `auto`, `any`, \
                     `none` or `tool`."
                ),
            ));
        }
    };
    Ok((choice, parallel))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ThinkingParam {
    #[serde(rename = "type")]
    kind: String,
    budget_tokens: Option<u64>,
}

/// `thinking`: its budget when enabled.
fn read_thinking(value: &Value) -> Result<Option<u64>, Refusal> {
    let thinking: ThinkingParam = parse("thinking", "thinking", value)?;
    match (thinking.kind.as_str(), thinking.budget_tokens) {
        ("enabled", Some(budget)) => Ok(Some(budget)),
        ("disabled", _) => Ok(None),
        ("enabled", None) => Err(Refusal::new(
            "thinking",
            "`thinking` of type `enabled` needs its `budget_tokens`.",
        )),
        (other, _) => Err(Refusal::new(
            "thinking",
            format!(
                "`thinking` of type `{other}` cannot be translated: use `enabled` with a \
                 `budget_tokens`, or `disabled`."
            ),
        )),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OutputFormat {
    #[serde(rename = "type")]
    kind: String,
    schema: Option<Value>,
}

/// `output_format`: JSON of a schema, named `output` (the OpenAI APIs need a name, Messages
/// gives none).
fn read_output_format(value: &Value) -> Result<ResponseFormat, Refusal> {
    let format: OutputFormat = parse("output_format", "output_format", value)?;
    match (format.kind.as_str(), format.schema) {
        ("json_schema", Some(schema)) => Ok(ResponseFormat::JsonSchema {
            name: "output".to_owned(),
            schema,
            strict: None,
            description: None,
        }),
        (kind, _) => Err(Refusal::new(
            "output_format",
            format!(
                "`output_format` of type `{kind}` cannot be translated: use `json_schema` with \
                 its `schema`."
            ),
        )),
    }
}
