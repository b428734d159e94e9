//! Reading a Chat Completions request: its fields, tools, tool choice and response format;
//! a field only Chat has is taken at the value that asks for nothing, or refused.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::translate::common::{is_empty, parse, unknown_field, untranslatable};
use crate::translate::ir::{Refusal, Request, ResponseFormat, Tool, ToolChoice};

use super::API;
use super::read_messages::read_messages;

/// Reads a Chat Completions request. Every field is read or refused: one the other APIs cannot
/// say is taken only with the value that asks for nothing (`n: 1`, `logprobs: false`…).
pub fn read_request(request: &Map<String, Value>) -> Result<Request, Refusal> {
    let mut ir = Request::default();
    let mut max_completion_tokens = None;
    let mut max_tokens = None;
    let mut safety_identifier = None;
    let mut messages = None;
    for (key, value) in request {
        if is_empty(value) {
            continue;
        }
        match key.as_str() {
            "model" => ir.model = Some(parse("model", "model", value)?),
            "messages" => messages = Some(read_messages(value)?),
            "tools" => ir.tools = read_tools(value)?,
            "tool_choice" => ir.tool_choice = Some(read_tool_choice(value)?),
            "parallel_tool_calls" => {
                ir.parallel_tool_calls = Some(parse("parallel_tool_calls", key, value)?);
            }
            "max_completion_tokens" => {
                max_completion_tokens = Some(parse("max_completion_tokens", key, value)?);
            }
            "max_tokens" => max_tokens = Some(parse("max_tokens", key, value)?),
            "temperature" => ir.temperature = Some(parse("temperature", key, value)?),
            "top_p" => ir.top_p = Some(parse("top_p", key, value)?),
            "stop" => ir.stop = parse::<Stop>("stop", key, value)?.into_list(),
            "stream" => ir.stream = parse("stream", key, value)?,
            "stream_options" => {
                let options: StreamOptions = parse("stream_options", key, value)?;
                ir.include_usage = options.include_usage.unwrap_or(false);
            }
            "response_format" => ir.response_format = Some(read_response_format(value)?),
            "reasoning_effort" => {
                ir.reasoning_effort = Some(parse("reasoning_effort", key, value)?);
            }
            "user" => ir.user = Some(parse("user", key, value)?),
            // OpenAI's newer name for what `user` was for: the end user, for abuse detection.
            "safety_identifier" => {
                safety_identifier = Some(parse("safety_identifier", key, value)?);
            }
            "metadata" => ir.metadata = Some(parse("metadata", key, value)?),
            "seed" => ir.seed = Some(parse("seed", key, value)?),
            // A hint for OpenAI's prompt cache, as Messages' `cache_control` is for Anthropic's:
            // it changes no answer, and no other API has the same hint.
            "prompt_cache_key" => {}
            "functions" | "function_call" => {
                return Err(Refusal::new(
                    if key == "functions" {
                        "functions"
                    } else {
                        "function_call"
                    },
                    format!(
                        "`{key}` is the deprecated form of `tools` and `tool_choice`: write the \
                         functions as `tools` of type `function`."
                    ),
                ));
            }
            other => refuse_chat_only(other, value)?,
        }
    }
    ir.messages = messages.ok_or_else(|| {
        Refusal::new(
            "messages",
            "`messages` is missing: a Chat Completions request needs the conversation.",
        )
    })?;
    ir.max_tokens = max_completion_tokens.or(max_tokens);
    ir.user = ir.user.or(safety_identifier);
    Ok(ir)
}

/// The fields only Chat Completions has (of the APIs the gateway translates between), and what
/// each asks for: taken when their value asks for nothing, refused otherwise.
const CHAT_ONLY: &[(&str, &str)] = &[
    ("n", "asks for more than one choice"),
    ("logprobs", "asks for the tokens' log probabilities"),
    (
        "top_logprobs",
        "asks for the likeliest tokens' log probabilities",
    ),
    ("frequency_penalty", "penalises frequent tokens"),
    ("presence_penalty", "penalises tokens already present"),
    ("logit_bias", "biases tokens"),
    ("modalities", "asks for output other than text"),
    ("audio", "asks for audio output"),
    ("prediction", "gives a predicted output"),
    ("service_tier", "asks for a service tier"),
    ("store", "asks OpenAI to store the completion"),
    ("verbosity", "asks for a verbosity"),
    ("web_search_options", "asks for OpenAI's web search"),
];

/// Takes a field only Chat has when its value is the default, refuses it otherwise, and refuses
/// any field Chat does not have.
fn refuse_chat_only(key: &str, value: &Value) -> Result<(), Refusal> {
    let Some((name, what)) = CHAT_ONLY.iter().find(|(name, _)| *name == key) else {
        return Err(unknown_field(API, key));
    };
    let default = match key {
        "n" => value.as_u64() == Some(1),
        "logprobs" | "store" => value == &Value::Bool(false),
        "top_logprobs" => value.as_u64() == Some(0),
        "frequency_penalty" | "presence_penalty" => value.as_f64() == Some(0.0),
        "logit_bias" => value.as_object().is_some_and(Map::is_empty),
        "modalities" => value == &json!(["text"]),
        "service_tier" => matches!(value.as_str(), Some("auto" | "default")),
        "verbosity" => value.as_str() == Some("medium"),
        _ => false,
    };
    if default {
        Ok(())
    } else {
        Err(untranslatable(name, API, what))
    }
}

/// `stop`: one sequence or several.
#[derive(Deserialize)]
#[serde(untagged)]
enum Stop {
    One(String),
    Many(Vec<String>),
}

impl Stop {
    fn into_list(self) -> Vec<String> {
        match self {
            Stop::One(stop) => vec![stop],
            Stop::Many(stops) => stops,
        }
    }
}

/// `stream_options`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StreamOptions {
    include_usage: Option<bool>,
    /// Whether OpenAI pads the chunks against a side channel: a matter of the transport, not of
    /// the reply.
    #[serde(rename = "include_obfuscation")]
    _include_obfuscation: Option<bool>,
}

/// A function tool.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChatTool {
    #[serde(rename = "type")]
    _kind: String,
    function: FunctionTool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FunctionTool {
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
                    "`{at}` is a `{kind}` tool, which an upstream that speaks another API does \
                     not have: only `function` tools can be translated. Remove it, or point the \
                     gateway at an upstream that speaks the Chat Completions API."
                ),
            ));
        }
        let function = parse::<ChatTool>("tools", &at, item)?.function;
        tools.push(Tool {
            name: function.name,
            description: function.description,
            parameters: function.parameters.unwrap_or_else(empty_schema),
            strict: function.strict,
        });
    }
    Ok(tools)
}

/// The schema of a tool that takes no arguments, for a tool that gave none (Messages needs
/// one).
pub(in crate::translate) fn empty_schema() -> Value {
    json!({"type": "object", "properties": {}})
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NamedChoice {
    #[serde(rename = "type")]
    kind: String,
    function: Option<NamedFunction>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NamedFunction {
    name: String,
}

fn read_tool_choice(value: &Value) -> Result<ToolChoice, Refusal> {
    if let Some(choice) = value.as_str() {
        return match choice {
            "auto" => Ok(ToolChoice::Auto),
            "none" => Ok(ToolChoice::None),
            "required" => Ok(ToolChoice::Required),
            other => Err(Refusal::new(
                "tool_choice",
                format!(
                    "`tool_choice` is `{other}`: it is `auto`, `none`, `required` or \
                     `{{\"type\": \"function\", \"function\": {{\"name\": …}}}}`."
                ),
            )),
        };
    }
    let choice: NamedChoice = parse("tool_choice", "tool_choice", value)?;
    match (choice.kind.as_str(), choice.function) {
        ("function", Some(function)) => Ok(ToolChoice::Named(function.name)),
        (other, _) => Err(Refusal::new(
            "tool_choice",
            format!(
                "`tool_choice` of type `{other}` cannot be translated: choose `auto`, `none`, \
                 `required` or one function by name."
            ),
        )),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChatResponseFormat {
    #[serde(rename = "type")]
    kind: String,
    json_schema: Option<JsonSchema>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonSchema {
    name: String,
    schema: Option<Value>,
    strict: Option<bool>,
    description: Option<String>,
}

fn read_response_format(value: &Value) -> Result<ResponseFormat, Refusal> {
    let format: ChatResponseFormat = parse("response_format", "response_format", value)?;
    match (format.kind.as_str(), format.json_schema) {
        ("text", _) => Ok(ResponseFormat::Text),
        ("json_object", _) => Ok(ResponseFormat::JsonObject),
        ("json_schema", Some(schema)) => Ok(ResponseFormat::JsonSchema {
            name: schema.name,
            schema: schema.schema.unwrap_or_else(|| json!({})),
            strict: schema.strict,
            description: schema.description,
        }),
        ("json_schema", None) => Err(Refusal::new(
            "response_format",
            "`response_format` of type `json_schema` needs its `json_schema`.",
        )),
        (other, _) => Err(Refusal::new(
            "response_format",
            format!(
                "`response_format` of type `{other}` cannot be translated: use `text`, \
                 `json_object` or `json_schema`."
            ),
        )),
    }
}
