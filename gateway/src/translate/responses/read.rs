//! Reading a Responses request: its fields, tools, tool choice, text format and reasoning;
//! a field only Responses has is taken at the value that asks for nothing, or refused.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::translate::chat::empty_schema;
use crate::translate::common::{is_empty, parse, unknown_field, untranslatable};
use crate::translate::ir::{
    Message, Part, Refusal, Request, ResponseFormat, Role, Tool, ToolChoice,
};

use super::API;
use super::read_input::read_input;

/// Reads a Responses request. Every field is read or refused; a `null` or an empty list is as if
/// absent.
pub fn read_request(request: &Map<String, Value>) -> Result<Request, Refusal> {
    let mut ir = Request::default();
    let mut instructions = None;
    let mut input = Vec::new();
    let mut safety_identifier = None;
    for (key, value) in request {
        if is_empty(value) {
            continue;
        }
        match key.as_str() {
            "model" => ir.model = Some(parse("model", key, value)?),
            "input" => input = read_input(value)?,
            "instructions" => instructions = Some(parse::<String>("instructions", key, value)?),
            "tools" => ir.tools = read_tools(value)?,
            "tool_choice" => ir.tool_choice = Some(read_tool_choice(value)?),
            "parallel_tool_calls" => {
                ir.parallel_tool_calls = Some(parse("parallel_tool_calls", key, value)?);
            }
            "max_output_tokens" => ir.max_tokens = Some(parse("max_output_tokens", key, value)?),
            "temperature" => ir.temperature = Some(parse("temperature", key, value)?),
            "top_p" => ir.top_p = Some(parse("top_p", key, value)?),
            "text" => ir.response_format = read_text(value)?,
            "reasoning" => ir.reasoning_effort = read_reasoning(value)?,
            "user" => ir.user = Some(parse("user", key, value)?),
            // OpenAI's newer name for what `user` was for: the end user, for abuse detection.
            "safety_identifier" => {
                safety_identifier = Some(parse("safety_identifier", key, value)?);
            }
            "metadata" => ir.metadata = Some(parse("metadata", key, value)?),
            "store" => ir.store = Some(parse("store", key, value)?),
            "previous_response_id" => {
                ir.previous_response_id = Some(parse("previous_response_id", key, value)?);
            }
            "stream" => ir.stream = parse("stream", key, value)?,
            // The gateway bounds the calls itself, in its loop, before any upstream sees them.
            "max_tool_calls" => {}
            // A hint for OpenAI's prompt cache: it changes no answer.
            "prompt_cache_key" => {}
            // Whether OpenAI pads the events against a side channel: a matter of the transport.
            "stream_options" => {}
            other => refuse_responses_only(other, value)?,
        }
    }
    if let Some(instructions) = instructions {
        ir.messages.push(Message {
            role: Role::System,
            parts: vec![Part::Text { text: instructions }],
        });
    }
    ir.messages.extend(input);
    ir.user = ir.user.or(safety_identifier);
    Ok(ir)
}

/// The fields only Responses has (of the APIs the gateway translates between), and what each
/// asks for: taken when their value asks for nothing, refused otherwise.
const RESPONSES_ONLY: &[(&str, &str)] = &[
    (
        "background",
        "asks OpenAI to run the response in the background",
    ),
    ("conversation", "names a conversation kept by OpenAI"),
    ("prompt", "names a prompt template kept by OpenAI"),
    ("include", "asks for output only OpenAI gives"),
    ("truncation", "asks OpenAI to truncate the conversation"),
    (
        "top_logprobs",
        "asks for the likeliest tokens' log probabilities",
    ),
    ("service_tier", "asks for a service tier"),
];

fn refuse_responses_only(key: &str, value: &Value) -> Result<(), Refusal> {
    let Some((name, what)) = RESPONSES_ONLY.iter().find(|(name, _)| *name == key) else {
        return Err(unknown_field(API, key));
    };
    let default = match key {
        "background" => value == &Value::Bool(false),
        "truncation" => value.as_str() == Some("disabled"),
        "top_logprobs" => value.as_u64() == Some(0),
        "service_tier" => matches!(value.as_str(), Some("auto" | "default")),
        _ => false,
    };
    if default {
        Ok(())
    } else {
        Err(untranslatable(name, API, what))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FunctionTool {
    #[serde(rename = "type")]
    _kind: String,
    name: String,
    description: Option<String>,
    parameters: Option<Value>,
    strict: Option<bool>,
}

fn read_tools(value: &Value) -> Result<Vec<Tool>, Refusal> {
    let items: Vec<Value> = parse("tools", "tools", value)?;
    let mut tools = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let at = format!("tools[{index}]");
        let kind = item.get("type").and_then(Value::as_str).unwrap_or_default();
        if kind != "function" {
            return Err(Refusal::new(
                "tools",
                format!(
                    "`{at}` is `{kind}`, a built-in tool of OpenAI's; an upstream that speaks \
                     another API than Responses has no such tool: remove it, or point the \
                     gateway at an upstream that speaks the Responses API."
                ),
            ));
        }
        let tool: FunctionTool = parse("tools", &at, item)?;
        tools.push(Tool {
            name: tool.name,
            description: tool.description,
            parameters: tool.parameters.unwrap_or_else(empty_schema),
            strict: tool.strict,
        });
    }
    Ok(tools)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NamedChoice {
    #[serde(rename = "type")]
    _kind: String,
    name: String,
}

fn read_tool_choice(value: &Value) -> Result<ToolChoice, Refusal> {
    match value {
        Value::String(choice) => match choice.as_str() {
            "auto" => Ok(ToolChoice::Auto),
            "none" => Ok(ToolChoice::None),
            "required" => Ok(ToolChoice::Required),
            other => Err(Refusal::new(
                "tool_choice",
                format!(
                    "`tool_choice` is `{other}`: it is `auto`, `none`, `required` or \
                     `{{\"type\": \"function\", \"name\": …}}`."
                ),
            )),
        },
        _ => match value.get("type").and_then(Value::as_str) {
            Some("function") => {
                let choice: NamedChoice = parse("tool_choice", "tool_choice", value)?;
                Ok(ToolChoice::Named(choice.name))
            }
            kind => Err(Refusal::new(
                "tool_choice",
                format!(
                    "`tool_choice` of type `{}` only the Responses API has: an upstream that \
                     speaks another API can be told `auto`, `none`, `required` or one function \
                     by name. Choose one of these, or point the gateway at an upstream that \
                     speaks the Responses API.",
                    kind.unwrap_or_default()
                ),
            )),
        },
    }
}

/// `text`: the format of the reply's text, and its verbosity.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TextConfig {
    format: Option<TextFormat>,
    verbosity: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TextFormat {
    #[serde(rename = "type")]
    kind: String,
    name: Option<String>,
    schema: Option<Value>,
    strict: Option<bool>,
    description: Option<String>,
}

fn read_text(value: &Value) -> Result<Option<ResponseFormat>, Refusal> {
    let text: TextConfig = parse("text", "text", value)?;
    if text
        .verbosity
        .as_deref()
        .is_some_and(|verbosity| verbosity != "medium")
    {
        return Err(Refusal::new(
            "text",
            "`text.verbosity` asks for a verbosity other than the default, which an upstream \
             that speaks another API cannot honour: remove it, or point the gateway at an \
             upstream that speaks the Responses API.",
        ));
    }
    let Some(format) = text.format else {
        return Ok(None);
    };
    match format.kind.as_str() {
        "text" => Ok(Some(ResponseFormat::Text)),
        "json_object" => Ok(Some(ResponseFormat::JsonObject)),
        "json_schema" => Ok(Some(ResponseFormat::JsonSchema {
            name: format.name.ok_or_else(|| {
                Refusal::new(
                    "text",
                    "`text.format` of type `json_schema` needs its `name`.",
                )
            })?,
            schema: format.schema.unwrap_or_else(|| json!({})),
            strict: format.strict,
            description: format.description,
        })),
        other => Err(Refusal::new(
            "text",
            format!(
                "`text.format` of type `{other}` cannot be translated: use `text`, \
                 `json_object` or `json_schema`."
            ),
        )),
    }
}

/// `reasoning`: its effort. A `summary` setting asks for summaries of the reasoning, which an
/// upstream of another API gives as it can (its reasoning in full, or none): taken, and left to
/// it. `generate_summary` is its deprecated name.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReasoningConfig {
    effort: Option<String>,
    #[serde(rename = "summary")]
    _summary: Option<String>,
    #[serde(rename = "generate_summary")]
    _generate_summary: Option<String>,
}

fn read_reasoning(value: &Value) -> Result<Option<String>, Refusal> {
    let reasoning: ReasoningConfig = parse("reasoning", "reasoning", value)?;
    Ok(reasoning.effort)
}
