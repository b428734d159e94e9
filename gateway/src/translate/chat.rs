//! OpenAI Chat Completions (`POST /v1/chat/completions`), as OpenAI and the servers that copy
//! it (llama.cpp, vLLM, Ollama, DeepSeek) speak it: requests, replies, stream chunks and errors,
//! read into the conversation of [`ir`](super::ir) and written from it.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::common::{
    effective_finish, effort_of_budget, id_with_prefix, is_empty, misplaced, new_id, now,
    null_as_default, parse, parse_reply, push_result, push_text, push_user, read_detail,
    system_text, unknown_field, untranslatable,
};
use super::ir::{
    Call, Delta, ErrorBody, Finish, Message, Part, Refusal, Reply, Request, ResponseFormat, Role,
    Tool, ToolChoice, ToolResult, Usage,
};

/// The API's name in refusals.
const API: &str = "Chat Completions";

/// The prefix of a completion's id.
const ID_PREFIX: &str = "chatcmpl-";

// ---------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------

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

/// A message of the request, as the API has them all (which fields a role may have is checked
/// when it is read).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChatMessage {
    role: String,
    #[serde(default)]
    content: Value,
    /// A participant's name: only a `tool` message's (the tool's) is taken, as it repeats what
    /// the call says.
    name: Option<String>,
    tool_calls: Option<Vec<ToolCall>>,
    tool_call_id: Option<String>,
    /// The reasoning of an earlier reply (llama.cpp, vLLM, DeepSeek).
    reasoning_content: Option<String>,
    /// The same, as vLLM and OpenRouter now name it.
    reasoning: Option<String>,
    /// An earlier reply's refusal, which is what the model said.
    refusal: Option<String>,
    /// Citations of an earlier reply's text (web search): where the text came from, derived
    /// from it and not read by the model.
    #[serde(rename = "annotations")]
    _annotations: Option<Value>,
    /// A reply's fields that a client echoing the whole reply message sends back empty.
    audio: Option<Value>,
    function_call: Option<Value>,
}

/// A call of an assistant message, in a request or a reply.
#[derive(Deserialize)]
struct ToolCall {
    id: String,
    #[serde(rename = "type")]
    kind: Option<String>,
    function: FunctionCall,
}

#[derive(Deserialize)]
struct FunctionCall {
    name: String,
    #[serde(default, deserialize_with = "null_as_default")]
    arguments: String,
}

fn read_messages(value: &Value) -> Result<Vec<Message>, Refusal> {
    let items: Vec<Value> = parse("messages", "messages", value)?;
    let mut messages = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let at = format!("messages[{index}]");
        let message: ChatMessage = parse("messages", &at, item)?;
        read_message(message, &at, &mut messages)?;
    }
    Ok(messages)
}

/// Adds one Chat message to the conversation: a `tool` message is a result in a user message
/// (consecutive ones in one), and a user message right after results joins them.
fn read_message(
    message: ChatMessage,
    at: &str,
    messages: &mut Vec<Message>,
) -> Result<(), Refusal> {
    if message.audio.is_some() || message.function_call.is_some() {
        return Err(Refusal::new(
            "messages",
            format!(
                "`{at}` has `audio` or `function_call`, which only OpenAI's Chat Completions has: \
                 give the reply's text and `tool_calls` instead."
            ),
        ));
    }
    if message.name.is_some() && message.role != "tool" {
        return Err(Refusal::new(
            "messages",
            format!(
                "`{at}.name` names a participant, which only OpenAI's Chat Completions can say: \
                 remove it, or say the name in the message's text."
            ),
        ));
    }
    // Each field but `role` and `content` belongs to one role: on another it would be dropped.
    let misfits = [
        ("tool_calls", message.tool_calls.is_some(), "assistant"),
        (
            "reasoning_content",
            message.reasoning_content.is_some(),
            "assistant",
        ),
        ("reasoning", message.reasoning.is_some(), "assistant"),
        ("refusal", message.refusal.is_some(), "assistant"),
        ("tool_call_id", message.tool_call_id.is_some(), "tool"),
    ];
    for (field, present, role) in misfits {
        if present && message.role != role {
            return Err(Refusal::new(
                "messages",
                format!("`{at}.{field}` belongs to `{role}` messages, and this one is not one."),
            ));
        }
    }
    match message.role.as_str() {
        "system" | "developer" => {
            let parts = read_content(&message.content, &format!("{at}.content"), false)?;
            messages.push(Message {
                role: Role::System,
                parts,
            });
        }
        "user" => {
            let parts = read_content(&message.content, &format!("{at}.content"), true)?;
            push_user(messages, parts);
        }
        "assistant" => {
            let mut parts = Vec::new();
            // Chat says the reasoning apart from the text; it came first.
            if let Some(text) = message.reasoning_content.or(message.reasoning)
                && !text.is_empty()
            {
                parts.push(Part::Reasoning {
                    text,
                    signature: None,
                });
            }
            parts.extend(read_content(
                &message.content,
                &format!("{at}.content"),
                false,
            )?);
            if let Some(refusal) = message.refusal {
                push_text(&mut parts, &refusal);
            }
            for (index, call) in message.tool_calls.into_iter().flatten().enumerate() {
                parts.push(Part::Call(read_call(
                    call,
                    &format!("{at}.tool_calls[{index}]"),
                )?));
            }
            messages.push(Message {
                role: Role::Assistant,
                parts,
            });
        }
        "tool" => {
            let call_id = message.tool_call_id.ok_or_else(|| {
                Refusal::new(
                    "messages",
                    format!("`{at}` is a `tool` message without the `tool_call_id` it answers."),
                )
            })?;
            let content = read_content(&message.content, &format!("{at}.content"), false)?;
            push_result(
                messages,
                ToolResult {
                    call_id,
                    content,
                    is_error: false,
                },
            );
        }
        other => {
            return Err(Refusal::new(
                "messages",
                format!(
                    "`{at}.role` is `{other}`: a Chat message is `system`, `developer`, `user`, \
                     `assistant` or `tool`."
                ),
            ));
        }
    }
    Ok(())
}

fn read_call(call: ToolCall, at: &str) -> Result<Call, Refusal> {
    match call.kind.as_deref() {
        None | Some("function") => Ok(Call {
            id: call.id,
            name: call.function.name,
            arguments: call.function.arguments,
        }),
        Some(other) => Err(Refusal::new(
            "messages",
            format!("`{at}` is a `{other}` call: only `function` calls can be translated."),
        )),
    }
}

/// A message's `content`: a string, or parts. `media` says whether images and files may be in
/// it (user messages); the other roles' parts are text (or an assistant's refusal).
fn read_content(content: &Value, at: &str, media: bool) -> Result<Vec<Part>, Refusal> {
    let mut parts = Vec::new();
    match content {
        Value::Null => {}
        Value::String(text) => push_text(&mut parts, text),
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                if let Some(part) = read_part(item, &format!("{at}[{index}]"), media)? {
                    parts.push(part);
                }
            }
        }
        _ => {
            return Err(Refusal::new(
                "messages",
                format!("`{at}` is neither a string nor a list of parts."),
            ));
        }
    }
    Ok(parts)
}

/// A text part.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TextPart {
    #[serde(rename = "type")]
    _kind: String,
    text: String,
    /// A prompt-caching hint some clients add for Anthropic models: it changes no answer.
    #[serde(rename = "cache_control")]
    _cache_control: Option<Value>,
}

/// An image part.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ImagePart {
    #[serde(rename = "type")]
    _kind: String,
    image_url: ImageUrl,
    #[serde(rename = "cache_control")]
    _cache_control: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ImageUrl {
    url: String,
    detail: Option<String>,
}

/// A file part.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FilePart {
    #[serde(rename = "type")]
    _kind: String,
    file: FileData,
    #[serde(rename = "cache_control")]
    _cache_control: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileData {
    file_data: Option<String>,
    file_id: Option<String>,
    filename: Option<String>,
}

/// A refusal part of an earlier reply.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RefusalPart {
    #[serde(rename = "type")]
    _kind: String,
    refusal: String,
}

fn read_part(item: &Value, at: &str, media: bool) -> Result<Option<Part>, Refusal> {
    let kind = item.get("type").and_then(Value::as_str).unwrap_or_default();
    let part = match kind {
        "text" => {
            let part: TextPart = parse("messages", at, item)?;
            if part.text.is_empty() {
                return Ok(None);
            }
            Part::Text { text: part.text }
        }
        "refusal" if !media => {
            let part: RefusalPart = parse("messages", at, item)?;
            Part::Text { text: part.refusal }
        }
        "image_url" if media => {
            let part: ImagePart = parse("messages", at, item)?;
            Part::Image {
                url: part.image_url.url,
                detail: read_detail(part.image_url.detail),
            }
        }
        "file" if media => {
            let part: FilePart = parse("messages", at, item)?;
            match (part.file.file_data, part.file.file_id) {
                (Some(data), _) => Part::File {
                    data,
                    filename: part.file.filename,
                },
                (None, _) => {
                    return Err(Refusal::new(
                        "messages",
                        format!(
                            "`{at}` names a file uploaded to OpenAI (`file_id`), which an \
                             upstream that speaks another API cannot read: give the file's \
                             content as `file_data`."
                        ),
                    ));
                }
            }
        }
        "input_audio" => {
            return Err(Refusal::new(
                "messages",
                format!(
                    "`{at}` is audio, which the gateway cannot carry to an upstream that speaks \
                     another API: give a transcript as text."
                ),
            ));
        }
        other => {
            return Err(Refusal::new(
                "messages",
                format!(
                    "`{at}` is a part of type `{other}`, which this message cannot hold here: \
                     user messages hold `text`, `image_url` and `file` parts, the others `text`."
                ),
            ));
        }
    };
    Ok(Some(part))
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
pub(super) fn empty_schema() -> Value {
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

/// Writes a Chat Completions request. `max_tokens` is written, not `max_completion_tokens`:
/// llama.cpp, vLLM and Ollama read `max_tokens`, and OpenAI still takes it for models that do not
/// reason. A streamed request always asks for usage, so that it can be reported.
pub fn write_request(request: &Request) -> Result<Map<String, Value>, Refusal> {
    if request.previous_response_id.is_some() {
        return Err(Refusal::new(
            "previous_response_id",
            "`previous_response_id` names a conversation kept by a Responses server, and this \
             gateway's upstream speaks Chat Completions, which keeps none: send the whole \
             conversation in `input`.",
        ));
    }
    let mut body = Map::new();
    if let Some(model) = &request.model {
        body.insert("model".into(), json!(model));
    }
    body.insert(
        "messages".into(),
        Value::Array(write_messages(&request.messages)?),
    );
    if !request.tools.is_empty() {
        body.insert(
            "tools".into(),
            request.tools.iter().map(write_tool).collect(),
        );
    }
    if let Some(choice) = &request.tool_choice {
        body.insert("tool_choice".into(), write_tool_choice(choice));
    }
    if let Some(parallel) = request.parallel_tool_calls {
        body.insert("parallel_tool_calls".into(), json!(parallel));
    }
    if let Some(max_tokens) = request.max_tokens {
        body.insert("max_tokens".into(), json!(max_tokens));
    }
    if let Some(temperature) = request.temperature {
        body.insert("temperature".into(), json!(temperature));
    }
    if let Some(top_p) = request.top_p {
        body.insert("top_p".into(), json!(top_p));
    }
    if !request.stop.is_empty() {
        body.insert("stop".into(), json!(request.stop));
    }
    if request.stream {
        body.insert("stream".into(), json!(true));
        body.insert("stream_options".into(), json!({"include_usage": true}));
    }
    if let Some(format) = &request.response_format {
        body.insert("response_format".into(), write_response_format(format));
    }
    // A Messages thinking budget is said as the effort that spends about as much.
    let effort = request.reasoning_effort.clone().or_else(|| {
        request
            .thinking_budget
            .map(|budget| effort_of_budget(budget).to_owned())
    });
    if let Some(effort) = effort {
        body.insert("reasoning_effort".into(), json!(effort));
    }
    if let Some(user) = &request.user {
        body.insert("user".into(), json!(user));
    }
    if let Some(metadata) = &request.metadata {
        body.insert("metadata".into(), Value::Object(metadata.clone()));
    }
    if let Some(seed) = request.seed {
        body.insert("seed".into(), json!(seed));
    }
    // `store` is Responses' keeping of a reply for a later `previous_response_id`, which the
    // gateway does itself for a Chat upstream; Chat's own `store` is something else (OpenAI's
    // stored completions), so it is not written.
    Ok(body)
}

fn write_messages(messages: &[Message]) -> Result<Vec<Value>, Refusal> {
    let mut written = Vec::new();
    for message in messages {
        match message.role {
            Role::System => {
                written.push(json!({
                    "role": "system",
                    "content": system_text(message, "messages")?,
                }));
            }
            Role::User => write_user(message, &mut written)?,
            Role::Assistant => written.push(write_assistant(message)?),
        }
    }
    Ok(written)
}

/// A user message: its results first, as `tool` messages (they must follow the assistant's
/// calls), then its other parts as a user message. A result's images and files, which a `tool`
/// message cannot hold, go first in that user message: the model still sees them, right after
/// the result they belong to.
fn write_user(message: &Message, written: &mut Vec<Value>) -> Result<(), Refusal> {
    let mut moved = Vec::new();
    let mut own = Vec::new();
    for part in &message.parts {
        match part {
            Part::Result(result) => {
                let mut texts = Vec::new();
                for part in &result.content {
                    match part {
                        Part::Text { text } => texts.push(text.as_str()),
                        Part::Image { .. } | Part::File { .. } => moved.push(part),
                        other => return Err(misplaced("messages", Role::User, other)),
                    }
                }
                // The result's failure (`is_error`) is in its words: Chat has no flag for it.
                let content = match texts.as_slice() {
                    [text] => json!(text),
                    texts => texts
                        .iter()
                        .map(|text| json!({"type": "text", "text": text}))
                        .collect(),
                };
                written.push(json!({
                    "role": "tool",
                    "tool_call_id": result.call_id,
                    "content": content,
                }));
            }
            Part::Text { .. } | Part::Image { .. } | Part::File { .. } => own.push(part),
            other => return Err(misplaced("messages", Role::User, other)),
        }
    }
    let had_results = message
        .parts
        .iter()
        .any(|part| matches!(part, Part::Result(_)));
    moved.extend(own);
    if moved.is_empty() && had_results {
        return Ok(());
    }
    let content = match moved.as_slice() {
        [Part::Text { text }] => json!(text),
        [] => json!(""),
        parts => parts.iter().map(|part| write_user_part(part)).collect(),
    };
    written.push(json!({"role": "user", "content": content}));
    Ok(())
}

fn write_user_part(part: &Part) -> Value {
    match part {
        Part::Image { url, detail } => {
            let mut image = json!({"url": url});
            if let Some(detail) = detail {
                image["detail"] = json!(detail);
            }
            json!({"type": "image_url", "image_url": image})
        }
        Part::File { data, filename } => {
            let mut file = json!({"file_data": data});
            if let Some(filename) = filename {
                file["filename"] = json!(filename);
            }
            json!({"type": "file", "file": file})
        }
        Part::Text { text } => json!({"type": "text", "text": text}),
        // Only the three above are given here.
        _ => Value::Null,
    }
}

/// An assistant message: its texts as `content` (a string when there is one), its calls as
/// `tool_calls`, its reasoning as `reasoning_content` (which llama.cpp, vLLM and DeepSeek take
/// back). Chat cannot say where the text was among the calls: the text comes first.
fn write_assistant(message: &Message) -> Result<Value, Refusal> {
    let mut texts = Vec::new();
    let mut reasoning = Vec::new();
    let mut tool_calls = Vec::new();
    for part in &message.parts {
        match part {
            Part::Text { text } => texts.push(text.as_str()),
            Part::Reasoning { text, .. } => reasoning.push(text.as_str()),
            Part::Call(call) => tool_calls.push(write_call(call)),
            other => return Err(misplaced("messages", Role::Assistant, other)),
        }
    }
    let content = match texts.as_slice() {
        [] => Value::Null,
        [text] => json!(text),
        texts => texts
            .iter()
            .map(|text| json!({"type": "text", "text": text}))
            .collect(),
    };
    let mut written = json!({"role": "assistant", "content": content});
    if !tool_calls.is_empty() {
        written["tool_calls"] = Value::Array(tool_calls);
    }
    if !reasoning.is_empty() {
        written["reasoning_content"] = json!(reasoning.join("\n\n"));
    }
    Ok(written)
}

fn write_call(call: &Call) -> Value {
    json!({
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": call.arguments},
    })
}

fn write_tool(tool: &Tool) -> Value {
    let mut function = json!({"name": tool.name});
    if let Some(description) = &tool.description {
        function["description"] = json!(description);
    }
    function["parameters"] = tool.parameters.clone();
    if let Some(strict) = tool.strict {
        function["strict"] = json!(strict);
    }
    json!({"type": "function", "function": function})
}

fn write_tool_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Auto => json!("auto"),
        ToolChoice::None => json!("none"),
        ToolChoice::Required => json!("required"),
        ToolChoice::Named(name) => json!({"type": "function", "function": {"name": name}}),
    }
}

fn write_response_format(format: &ResponseFormat) -> Value {
    match format {
        ResponseFormat::Text => json!({"type": "text"}),
        ResponseFormat::JsonObject => json!({"type": "json_object"}),
        ResponseFormat::JsonSchema {
            name,
            schema,
            strict,
            description,
        } => {
            let mut json_schema = json!({"name": name});
            if let Some(description) = description {
                json_schema["description"] = json!(description);
            }
            json_schema["schema"] = schema.clone();
            if let Some(strict) = strict {
                json_schema["strict"] = json!(strict);
            }
            json!({"type": "json_schema", "json_schema": json_schema})
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Replies
// ---------------------------------------------------------------------------------------------

/// A whole reply.
#[derive(Deserialize)]
struct ChatReply {
    #[serde(default, deserialize_with = "null_as_default")]
    id: String,
    model: Option<String>,
    created: Option<i64>,
    #[serde(default, deserialize_with = "null_as_default")]
    choices: Vec<Choice>,
    usage: Option<ChatUsage>,
}

#[derive(Deserialize)]
struct Choice {
    message: ReplyMessage,
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct ReplyMessage {
    #[serde(default)]
    content: Value,
    reasoning_content: Option<String>,
    reasoning: Option<String>,
    tool_calls: Option<Vec<ToolCall>>,
    refusal: Option<String>,
}

/// Usage, in a reply or the last chunk of a stream.
#[derive(Deserialize)]
struct ChatUsage {
    #[serde(default, deserialize_with = "null_as_default")]
    prompt_tokens: u64,
    #[serde(default, deserialize_with = "null_as_default")]
    completion_tokens: u64,
    prompt_tokens_details: Option<PromptDetails>,
    completion_tokens_details: Option<CompletionDetails>,
}

#[derive(Deserialize)]
struct PromptDetails {
    cached_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct CompletionDetails {
    reasoning_tokens: Option<u64>,
}

impl ChatUsage {
    fn read(self) -> Usage {
        Usage {
            input: self.prompt_tokens,
            output: self.completion_tokens,
            cached_input: self
                .prompt_tokens_details
                .and_then(|details| details.cached_tokens),
            reasoning: self
                .completion_tokens_details
                .and_then(|details| details.reasoning_tokens),
        }
    }
}

/// Reads a whole Chat Completions reply (its first choice).
pub fn read_reply(reply: &Value) -> Result<Reply, String> {
    if let Some(error) = read_error(reply) {
        return Err(error.message);
    }
    let reply: ChatReply = parse_reply("The Chat Completions reply", reply)?;
    let choice = reply
        .choices
        .into_iter()
        .next()
        .ok_or("The Chat Completions reply has no choice.")?;
    let message = choice.message;
    let mut parts = Vec::new();
    if let Some(text) = message.reasoning_content.or(message.reasoning)
        && !text.is_empty()
    {
        parts.push(Part::Reasoning {
            text,
            signature: None,
        });
    }
    match &message.content {
        Value::String(text) => push_text(&mut parts, text),
        Value::Array(items) => {
            for item in items {
                if let Some(text) = item.get("text").and_then(Value::as_str) {
                    push_text(&mut parts, text);
                }
            }
        }
        _ => {}
    }
    if let Some(refusal) = &message.refusal {
        push_text(&mut parts, refusal);
    }
    for call in message.tool_calls.into_iter().flatten() {
        parts.push(Part::Call(Call {
            id: call.id,
            name: call.function.name,
            arguments: call.function.arguments,
        }));
    }
    Ok(Reply {
        id: reply.id,
        model: reply.model,
        created: reply.created,
        parts,
        finish: choice
            .finish_reason
            .as_deref()
            .map_or(Finish::Stop, read_finish),
        usage: reply.usage.map(ChatUsage::read),
    })
}

fn read_finish(reason: &str) -> Finish {
    match reason {
        "stop" => Finish::Stop,
        "length" => Finish::Length,
        "tool_calls" | "function_call" => Finish::ToolCalls,
        "content_filter" => Finish::ContentFilter,
        other => Finish::Other(other.to_owned()),
    }
}

/// `finish_reason` for a reply that ended so and did or did not call tools.
fn write_finish(finish: &Finish, called: bool) -> String {
    match effective_finish(finish, called) {
        Finish::Stop => "stop".to_owned(),
        Finish::Length => "length".to_owned(),
        Finish::ToolCalls => "tool_calls".to_owned(),
        Finish::ContentFilter => "content_filter".to_owned(),
        Finish::Other(reason) => reason,
    }
}

/// Writes a whole reply as a Chat completion.
pub fn write_reply(reply: &Reply, request: &Request) -> Value {
    let mut text = String::new();
    let mut reasoning = Vec::new();
    let mut tool_calls = Vec::new();
    for part in &reply.parts {
        match part {
            Part::Text { text: piece } => text.push_str(piece),
            Part::Reasoning { text, .. } => reasoning.push(text.as_str()),
            Part::Call(call) => tool_calls.push(write_call(call)),
            // A reply holds no images, files or results.
            _ => {}
        }
    }
    let called = !tool_calls.is_empty();
    let mut message = json!({
        "role": "assistant",
        "content": if text.is_empty() { Value::Null } else { json!(text) },
        "refusal": null,
    });
    if called {
        message["tool_calls"] = Value::Array(tool_calls);
    }
    if !reasoning.is_empty() {
        message["reasoning_content"] = json!(reasoning.join("\n\n"));
    }
    let mut written = json!({
        "id": id_with_prefix(&reply.id, ID_PREFIX),
        "object": "chat.completion",
        "created": reply.created.unwrap_or_else(now),
        "model": reply.model.as_ref().or(request.model.as_ref()).cloned().unwrap_or_default(),
        "choices": [{
            "index": 0,
            "message": message,
            "logprobs": null,
            "finish_reason": write_finish(&reply.finish, called),
        }],
    });
    if let Some(usage) = &reply.usage {
        written["usage"] = write_usage(usage);
    }
    written
}

fn write_usage(usage: &Usage) -> Value {
    let mut written = json!({
        "prompt_tokens": usage.input,
        "completion_tokens": usage.output,
        "total_tokens": usage.input + usage.output,
    });
    if let Some(cached) = usage.cached_input {
        written["prompt_tokens_details"] = json!({"cached_tokens": cached});
    }
    if let Some(reasoning) = usage.reasoning {
        written["completion_tokens_details"] = json!({"reasoning_tokens": reasoning});
    }
    written
}

// ---------------------------------------------------------------------------------------------
// Streams
// ---------------------------------------------------------------------------------------------

/// A chunk of a streamed reply.
#[derive(Deserialize)]
struct Chunk {
    #[serde(default, deserialize_with = "null_as_default")]
    id: String,
    model: Option<String>,
    created: Option<i64>,
    #[serde(default, deserialize_with = "null_as_default")]
    choices: Vec<ChunkChoice>,
    usage: Option<ChatUsage>,
}

#[derive(Deserialize)]
struct ChunkChoice {
    #[serde(default, deserialize_with = "null_as_default")]
    index: u64,
    #[serde(default, deserialize_with = "null_as_default")]
    delta: ChunkDelta,
    finish_reason: Option<String>,
}

#[derive(Deserialize, Default)]
struct ChunkDelta {
    content: Option<String>,
    reasoning_content: Option<String>,
    reasoning: Option<String>,
    refusal: Option<String>,
    tool_calls: Option<Vec<CallFragment>>,
}

#[derive(Deserialize)]
struct CallFragment {
    #[serde(default, deserialize_with = "null_as_default")]
    index: u64,
    id: Option<String>,
    function: Option<FunctionFragment>,
}

#[derive(Deserialize)]
struct FunctionFragment {
    name: Option<String>,
    arguments: Option<String>,
}

/// Reads a Chat upstream's chunks.
#[derive(Debug, Default)]
pub struct Reader {
    started: bool,
    /// The calls started so far: the index Chat gave each, and its id.
    calls: Vec<(u64, String)>,
}

impl Reader {
    /// The deltas of one chunk.
    pub fn read(&mut self, event: &Value) -> Result<Vec<Delta>, ErrorBody> {
        if let Some(error) = read_error(event) {
            return Err(error);
        }
        let chunk: Chunk =
            parse_reply("A Chat Completions chunk", event).map_err(|message| ErrorBody {
                message,
                kind: "upstream_error".to_owned(),
                code: None,
                param: None,
            })?;
        let mut deltas = Vec::new();
        if !self.started {
            self.started = true;
            deltas.push(Delta::Start {
                id: chunk.id,
                model: chunk.model,
                created: chunk.created,
            });
        }
        // One choice is asked for (`n` other than 1 is refused): another is not this reply.
        for choice in chunk.choices.into_iter().filter(|choice| choice.index == 0) {
            self.read_delta(choice.delta, &mut deltas);
            if let Some(reason) = choice.finish_reason {
                deltas.push(Delta::Finish(read_finish(&reason)));
            }
        }
        if let Some(usage) = chunk.usage {
            deltas.push(Delta::Usage(usage.read()));
        }
        Ok(deltas)
    }

    fn read_delta(&mut self, delta: ChunkDelta, deltas: &mut Vec<Delta>) {
        if let Some(text) = delta.reasoning_content.or(delta.reasoning)
            && !text.is_empty()
        {
            deltas.push(Delta::Reasoning(text));
        }
        for text in [delta.content, delta.refusal].into_iter().flatten() {
            if !text.is_empty() {
                deltas.push(Delta::Text(text));
            }
        }
        for fragment in delta.tool_calls.into_iter().flatten() {
            self.read_fragment(fragment, deltas);
        }
    }

    /// A fragment of a call: one with an index not seen, or with an id other than that index's
    /// call (a server that numbers every call 0), starts a call; the others add to the
    /// arguments of the call of their index.
    fn read_fragment(&mut self, fragment: CallFragment, deltas: &mut Vec<Delta>) {
        let (name, arguments) = fragment
            .function
            .map_or((None, None), |function| (function.name, function.arguments));
        let known = self
            .calls
            .iter()
            .rposition(|(index, _)| *index == fragment.index);
        let starts = match (known, &fragment.id) {
            (None, _) => true,
            (Some(position), Some(id)) => !id.is_empty() && self.calls[position].1 != *id,
            (Some(_), None) => false,
        };
        let position = if starts {
            let id = fragment
                .id
                .filter(|id| !id.is_empty())
                .unwrap_or_else(|| new_id("call_"));
            deltas.push(Delta::CallStart {
                index: self.calls.len(),
                id: id.clone(),
                name: name.unwrap_or_default(),
            });
            self.calls.push((fragment.index, id));
            self.calls.len() - 1
        } else {
            known.unwrap_or_default()
        };
        if let Some(arguments) = arguments.filter(|arguments| !arguments.is_empty()) {
            deltas.push(Delta::CallArguments {
                index: position,
                delta: arguments,
            });
        }
    }
}

/// Writes deltas as Chat chunks, for a Chat client.
#[derive(Debug)]
pub struct Writer {
    id: String,
    created: i64,
    model: String,
    include_usage: bool,
    started: bool,
    called: bool,
    finish: Option<Finish>,
    usage: Option<Usage>,
    finished: bool,
}

impl Writer {
    /// A writer for a client whose request was `request`.
    pub fn new(request: &Request) -> Writer {
        Writer {
            id: new_id(ID_PREFIX),
            created: now(),
            model: request.model.clone().unwrap_or_default(),
            include_usage: request.include_usage,
            started: false,
            called: false,
            finish: None,
            usage: None,
            finished: false,
        }
    }

    /// The chunks that say `delta`.
    pub fn write(&mut self, delta: Delta) -> Vec<Value> {
        let mut chunks = Vec::new();
        if let Delta::Start { id, model, created } = &delta {
            self.id = id_with_prefix(id, ID_PREFIX);
            if let Some(model) = model {
                self.model.clone_from(model);
            }
            if let Some(created) = created {
                self.created = *created;
            }
        }
        self.start(&mut chunks);
        match delta {
            Delta::Start { .. } | Delta::ReasoningSignature(_) => {}
            Delta::Text(text) => chunks.push(self.chunk(json!({"content": text}), None)),
            Delta::Reasoning(text) => {
                chunks.push(self.chunk(json!({"reasoning_content": text}), None));
            }
            Delta::CallStart { index, id, name } => {
                self.called = true;
                chunks.push(self.chunk(
                    json!({"tool_calls": [{
                        "index": index,
                        "id": id,
                        "type": "function",
                        "function": {"name": name, "arguments": ""},
                    }]}),
                    None,
                ));
            }
            Delta::CallArguments { index, delta } => chunks.push(self.chunk(
                json!({"tool_calls": [{"index": index, "function": {"arguments": delta}}]}),
                None,
            )),
            Delta::Finish(finish) => self.finish = Some(finish),
            Delta::Usage(usage) => self.usage = Some(usage),
        }
        chunks
    }

    /// The chunk with the `finish_reason` and, when the client asked for it and it is known,
    /// the chunk of usage.
    pub fn finish(&mut self) -> Vec<Value> {
        if self.finished {
            return Vec::new();
        }
        self.finished = true;
        let mut chunks = Vec::new();
        self.start(&mut chunks);
        let finish = self.finish.clone().unwrap_or(Finish::Stop);
        let reason = write_finish(&finish, self.called);
        chunks.push(self.chunk(json!({}), Some(reason)));
        if let (true, Some(usage)) = (self.include_usage, &self.usage) {
            let mut chunk = self.envelope();
            chunk["choices"] = json!([]);
            chunk["usage"] = write_usage(usage);
            chunks.push(chunk);
        }
        chunks
    }

    /// The first chunk, which says who speaks.
    fn start(&mut self, chunks: &mut Vec<Value>) {
        if !self.started {
            self.started = true;
            chunks.push(self.chunk(json!({"role": "assistant", "content": null}), None));
        }
    }

    fn envelope(&self) -> Value {
        json!({
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
        })
    }

    fn chunk(&self, delta: Value, finish_reason: Option<String>) -> Value {
        let mut chunk = self.envelope();
        chunk["choices"] = json!([{
            "index": 0,
            "delta": delta,
            "logprobs": null,
            "finish_reason": finish_reason,
        }]);
        chunk
    }
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/// Reads an error body in OpenAI's shape (`{"error": {"message", "type", "param", "code"}}`),
/// llama.cpp's (a numeric `code`), or a bare `{"error": "…"}`.
pub fn read_error(body: &Value) -> Option<ErrorBody> {
    let error = body.get("error")?;
    let text = |value: Option<&Value>| match value {
        Some(Value::String(text)) => Some(text.clone()),
        Some(Value::Number(number)) => Some(number.to_string()),
        _ => None,
    };
    match error {
        Value::String(message) => Some(ErrorBody {
            message: message.clone(),
            kind: "api_error".to_owned(),
            code: None,
            param: None,
        }),
        Value::Object(error) => Some(ErrorBody {
            message: text(error.get("message"))
                .unwrap_or_else(|| Value::Object(error.clone()).to_string()),
            kind: text(error.get("type")).unwrap_or_else(|| "api_error".to_owned()),
            code: text(error.get("code")),
            param: text(error.get("param")),
        }),
        _ => None,
    }
}

/// An error body in OpenAI's shape.
pub fn write_error(error: &ErrorBody) -> Value {
    json!({"error": {
        "message": error.message,
        "type": error.kind,
        "param": error.param,
        "code": error.code,
    }})
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::super::fixtures::{
        self, call, conversation, llama_chat_stream, masked, object, read_all, text,
    };
    use super::super::ir::{Delta, ErrorBody, Finish, Part, Reply, Request, Usage};
    use super::{
        Reader, Writer, read_error, read_reply, read_request, write_error, write_reply,
        write_request,
    };

    /// The conversation of [`fixtures::conversation`], as a Chat client writes it.
    fn conversation_json() -> Value {
        json!({
            "model": "m",
            "messages": [
                {"role": "system", "content": "You are terse."},
                {"role": "user", "content": [
                    {"type": "text", "text": "What is the weather in Paris and Rome? Here is a map."},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
                ]},
                {"role": "assistant", "content": "Let me look.", "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}},
                    {"id": "call_2", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Rome\"}"}},
                ]},
                {"role": "tool", "tool_call_id": "call_1", "content": "18°C"},
                {"role": "tool", "tool_call_id": "call_2", "content": "24°C"},
                {"role": "user", "content": "Which is warmer?"},
            ],
            "tools": [{"type": "function", "function": {
                "name": "get_weather",
                "description": "The weather in a city",
                "parameters": {
                    "type": "object",
                    "properties": {"city": {"type": "string"}},
                    "required": ["city"],
                },
                "strict": false,
            }}],
            "tool_choice": "auto",
            "max_tokens": 512,
            "temperature": 0.5,
            "user": "u-1",
        })
    }

    #[test]
    fn reads_the_conversation() {
        let read = read_request(&object(conversation_json())).unwrap();
        assert_eq!(read, conversation());
    }

    /// The exact request written for the conversation, as the Chat Completions API has it.
    #[test]
    fn writes_the_conversation() {
        let written = write_request(&conversation()).unwrap();
        assert_eq!(Value::Object(written), conversation_json());
    }

    #[test]
    fn a_request_read_and_written_is_the_same() {
        let request = json!({
            "model": "m",
            "messages": [
                {"role": "developer", "content": "Answer in JSON."},
                {"role": "user", "content": [
                    {"type": "text", "text": "Describe these."},
                    {"type": "image_url", "image_url": {"url": "https://example.com/a.png", "detail": "low"}},
                    {"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBERi0=", "filename": "a.pdf"}},
                ]},
                {"role": "assistant", "content": null, "reasoning_content": "Two things.", "tool_calls": [
                    {"id": "1Vg6C9Ta", "type": "function", "function": {"name": "look", "arguments": "{}"}},
                ]},
                {"role": "tool", "tool_call_id": "1Vg6C9Ta", "content": [
                    {"type": "text", "text": "a cat"}, {"type": "text", "text": "a dog"},
                ]},
            ],
            "tools": [{"type": "function", "function": {"name": "look", "parameters": {"type": "object", "properties": {}}}}],
            "tool_choice": {"type": "function", "function": {"name": "look"}},
            "parallel_tool_calls": false,
            "max_tokens": 100,
            "top_p": 0.9,
            "stop": ["END", "STOP"],
            "stream": true,
            "stream_options": {"include_usage": true},
            "response_format": {"type": "json_schema", "json_schema": {
                "name": "things", "description": "What they are", "schema": {"type": "object"}, "strict": true,
            }},
            "reasoning_effort": "low",
            "user": "u",
            "metadata": {"tag": "x"},
            "seed": 7,
        });
        let mut expected = request.clone();
        // The system prompt is written as `system`, a developer's as any other.
        expected["messages"][0]["role"] = json!("system");
        let read = read_request(&object(request)).unwrap();
        assert_eq!(Value::Object(write_request(&read).unwrap()), expected);
    }

    #[test]
    fn tool_messages_and_the_next_user_message_are_one_message() {
        let request = json!({"messages": [
            {"role": "tool", "tool_call_id": "a", "content": "1"},
            {"role": "tool", "tool_call_id": "b", "content": "2"},
            {"role": "user", "content": "and?"},
            {"role": "user", "content": "well?"},
        ]});
        let read = read_request(&object(request)).unwrap();
        assert_eq!(read.messages.len(), 2);
        assert_eq!(read.messages[0].parts.len(), 3);
        assert_eq!(read.messages[1].parts, vec![text("well?")]);
    }

    #[test]
    fn max_completion_tokens_wins_and_max_tokens_is_written() {
        let request = json!({
            "messages": [{"role": "user", "content": "hi"}],
            "max_completion_tokens": 9,
            "max_tokens": 3,
        });
        let read = read_request(&object(request)).unwrap();
        assert_eq!(read.max_tokens, Some(9));
        assert_eq!(write_request(&read).unwrap()["max_tokens"], 9);
    }

    #[test]
    fn a_thinking_budget_is_an_effort() {
        let request = Request {
            thinking_budget: Some(10_000),
            ..Request::default()
        };
        assert_eq!(
            write_request(&request).unwrap()["reasoning_effort"],
            "medium"
        );
    }

    #[test]
    fn defaults_of_fields_only_chat_has_are_taken() {
        let request = json!({
            "messages": [{"role": "user", "content": "hi"}],
            "n": 1, "logprobs": false, "frequency_penalty": 0, "presence_penalty": 0.0,
            "logit_bias": {}, "service_tier": "auto", "store": false, "modalities": ["text"],
            "prompt_cache_key": "k", "temperature": null, "stop": [],
        });
        assert!(read_request(&object(request)).is_ok());
    }

    /// Each refused thing names its field and says what to do.
    #[test]
    fn refusals_name_the_field_and_what_to_do() {
        let cases = [
            (json!({"n": 2}), "n", "only the Chat Completions API"),
            (json!({"logprobs": true}), "logprobs", "Remove it"),
            (
                json!({"frequency_penalty": 0.5}),
                "frequency_penalty",
                "Remove it",
            ),
            (
                json!({"functions": [{"name": "f"}]}),
                "functions",
                "`tools`",
            ),
            (json!({"sneaky": 1}), "request", "`sneaky`"),
            (
                json!({"temperature": "hot"}),
                "temperature",
                "`temperature`",
            ),
            (
                json!({"tools": [{"type": "custom", "custom": {"name": "x"}}]}),
                "tools",
                "`custom` tool",
            ),
            (
                json!({"tool_choice": {"type": "allowed_tools"}}),
                "tool_choice",
                "choose",
            ),
            (
                json!({"response_format": {"type": "grammar"}}),
                "response_format",
                "use `text`",
            ),
        ];
        for (fields, param, words) in cases {
            let mut request = object(fields);
            request.insert(
                "messages".into(),
                json!([{"role": "user", "content": "hi"}]),
            );
            let refusal = read_request(&request).unwrap_err();
            assert_eq!(refusal.param, param, "{refusal:?}");
            assert!(refusal.message.contains(words), "{refusal:?}");
        }
        let messages = [
            (
                json!({"role": "user", "content": [{"type": "file", "file": {"file_id": "file-1"}}]}),
                "file_data",
            ),
            (
                json!({"role": "user", "content": [{"type": "input_audio", "input_audio": {}}]}),
                "transcript",
            ),
            (
                json!({"role": "user", "content": "hi", "name": "ann"}),
                "`messages[0].name`",
            ),
            (
                json!({"role": "user", "content": "hi", "reasoning_content": "x"}),
                "assistant",
            ),
            (json!({"role": "tool", "content": "1"}), "tool_call_id"),
            (json!({"role": "narrator", "content": "hi"}), "`narrator`"),
            (
                json!({"role": "user", "content": 5}),
                "`messages[0].content`",
            ),
            (
                json!({"role": "user", "content": [{"type": "text", "txt": "hi"}]}),
                "`messages[0].content[0].txt`",
            ),
            (
                json!({"role": "assistant", "tool_calls": [{"id": "a", "type": "custom", "function": {"name": "f"}}]}),
                "`custom` call",
            ),
        ];
        for (message, words) in messages {
            let request = object(json!({"messages": [message]}));
            let refusal = read_request(&request).unwrap_err();
            assert_eq!(refusal.param, "messages", "{refusal:?}");
            assert!(refusal.message.contains(words), "{words}: {refusal:?}");
        }
        let refusal = read_request(&object(json!({"model": "m"}))).unwrap_err();
        assert_eq!(refusal.param, "messages");
        let refusal = write_request(&Request {
            previous_response_id: Some("resp_1".to_owned()),
            ..Request::default()
        })
        .unwrap_err();
        assert_eq!(refusal.param, "previous_response_id");
    }

    /// A result's image, which a `tool` message cannot hold, is given right after it.
    #[test]
    fn a_results_image_follows_it_in_a_user_message() {
        let request = Request {
            messages: vec![super::super::ir::Message {
                role: super::super::ir::Role::User,
                parts: vec![Part::Result(super::super::ir::ToolResult {
                    call_id: "a".to_owned(),
                    content: vec![
                        text("a screenshot"),
                        Part::Image {
                            url: "https://example.com/s.png".to_owned(),
                            detail: None,
                        },
                    ],
                    is_error: true,
                })],
            }],
            ..Request::default()
        };
        let written = write_request(&request).unwrap();
        assert_eq!(
            written["messages"],
            json!([
                {"role": "tool", "tool_call_id": "a", "content": "a screenshot"},
                {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://example.com/s.png"}}]},
            ])
        );
    }

    #[test]
    fn reads_a_llama_cpp_reply() {
        let reply = json!({
            "choices": [{"finish_reason": "tool_calls", "index": 0, "message": {
                "role": "assistant",
                "content": "",
                "reasoning_content": "The user wants weather.",
                "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}, "id": "1Vg6C9Ta"}],
            }}],
            "created": 1_795_795_995,
            "model": "m",
            "system_fingerprint": "b0-unknown",
            "object": "chat.completion",
            "usage": {"completion_tokens": 20, "prompt_tokens": 100, "total_tokens": 120, "prompt_tokens_details": {"cached_tokens": 90}},
            "id": "chatcmpl-DW68",
            "timings": {"prompt_n": 10},
        });
        assert_eq!(
            read_reply(&reply).unwrap(),
            Reply {
                id: "chatcmpl-DW68".to_owned(),
                model: Some("m".to_owned()),
                created: Some(1_795_795_995),
                parts: vec![
                    Part::Reasoning {
                        text: "The user wants weather.".to_owned(),
                        signature: None,
                    },
                    call("1Vg6C9Ta", r#"{"city":"Paris"}"#),
                ],
                finish: Finish::ToolCalls,
                usage: Some(Usage {
                    input: 100,
                    output: 20,
                    cached_input: Some(90),
                    reasoning: None,
                }),
            }
        );
        assert!(read_reply(&json!({"error": {"message": "boom"}})).is_err());
        assert!(read_reply(&json!({"choices": []})).is_err());
        assert!(
            read_reply(&json!({"choices": "many"}))
                .unwrap_err()
                .contains("choices")
        );
    }

    /// The exact reply written, as the Chat Completions API has it.
    #[test]
    fn writes_a_reply() {
        let written = masked(write_reply(&fixtures::reply(), &conversation()));
        assert_eq!(
            written,
            json!({
                "id": "chatcmpl-*",
                "object": "chat.completion",
                "created": 1_700_000_000,
                "model": "m",
                "choices": [{
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": "Rome is warmer.",
                        "refusal": null,
                        "tool_calls": [{"id": "call_3", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Milan\"}"}}],
                        "reasoning_content": "Paris is cooler.",
                    },
                    "logprobs": null,
                    "finish_reason": "tool_calls",
                }],
                "usage": {
                    "prompt_tokens": 100,
                    "completion_tokens": 20,
                    "total_tokens": 120,
                    "prompt_tokens_details": {"cached_tokens": 40},
                    "completion_tokens_details": {"reasoning_tokens": 5},
                },
            })
        );
        let reply = read_reply(&write_reply(&fixtures::reply(), &conversation())).unwrap();
        assert_eq!(reply.parts, fixtures::reply().parts);
        assert_eq!(reply.usage, fixtures::reply().usage);
    }

    #[test]
    fn a_reply_that_called_without_saying_so_ended_for_its_calls() {
        let mut reply = fixtures::reply();
        reply.finish = Finish::Stop;
        let written = write_reply(&reply, &conversation());
        assert_eq!(written["choices"][0]["finish_reason"], "tool_calls");
        reply.parts.truncate(2);
        reply.finish = Finish::ToolCalls;
        let written = write_reply(&reply, &conversation());
        assert_eq!(written["choices"][0]["finish_reason"], "stop");
        assert!(written["choices"][0]["message"].get("tool_calls").is_none());
    }

    #[test]
    fn reads_llama_cpps_stream() {
        let mut reader = Reader::default();
        let deltas = read_all(|event| reader.read(event), &llama_chat_stream());
        assert_eq!(
            deltas,
            vec![
                Delta::Start {
                    id: "chatcmpl-DW68".to_owned(),
                    model: Some("m".to_owned()),
                    created: Some(1_795_795_995),
                },
                Delta::CallStart {
                    index: 0,
                    id: "1Vg6C9Ta3dAGao6WR54B455yecsZs1M0".to_owned(),
                    name: "get_weather".to_owned(),
                },
                Delta::CallArguments {
                    index: 0,
                    delta: "{".to_owned()
                },
                Delta::CallArguments {
                    index: 0,
                    delta: "\"".to_owned()
                },
                Delta::CallArguments {
                    index: 0,
                    delta: "city".to_owned()
                },
                Delta::CallArguments {
                    index: 0,
                    delta: "\":".to_owned()
                },
                Delta::Finish(Finish::Length),
            ]
        );
    }

    #[test]
    fn reads_calls_numbered_alike_and_usage_and_errors() {
        let chunk = |delta: Value| json!({"id": "x", "choices": [{"index": 0, "delta": delta, "finish_reason": null}]});
        let mut reader = Reader::default();
        let events = [
            chunk(json!({"content": "Hi", "reasoning_content": "hm"})),
            chunk(
                json!({"tool_calls": [{"index": 0, "id": "a", "function": {"name": "f", "arguments": "{}"}}]}),
            ),
            chunk(
                json!({"tool_calls": [{"index": 0, "id": "b", "function": {"name": "g", "arguments": ""}}]}),
            ),
            chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": "[]"}}]})),
            json!({"id": "x", "choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 4}}),
        ];
        let deltas = read_all(|event| reader.read(event), &events);
        assert_eq!(
            deltas[1..],
            [
                Delta::Reasoning("hm".to_owned()),
                Delta::Text("Hi".to_owned()),
                Delta::CallStart {
                    index: 0,
                    id: "a".to_owned(),
                    name: "f".to_owned()
                },
                Delta::CallArguments {
                    index: 0,
                    delta: "{}".to_owned()
                },
                Delta::CallStart {
                    index: 1,
                    id: "b".to_owned(),
                    name: "g".to_owned()
                },
                Delta::CallArguments {
                    index: 1,
                    delta: "[]".to_owned()
                },
                Delta::Usage(Usage {
                    input: 3,
                    output: 4,
                    cached_input: None,
                    reasoning: None
                }),
            ]
        );
        let error = reader
            .read(&json!({"error": {"code": 500, "message": "out of memory", "type": "server_error"}}))
            .unwrap_err();
        assert_eq!(
            error,
            ErrorBody {
                message: "out of memory".to_owned(),
                kind: "server_error".to_owned(),
                code: Some("500".to_owned()),
                param: None,
            }
        );
        assert!(reader.read(&json!({"choices": 3})).is_err());
    }

    /// Some servers write `null` for what is empty: it is read as empty.
    #[test]
    fn reads_nulls_as_empty() {
        let mut reader = Reader::default();
        let chunk = json!({
            "id": null,
            "choices": [{"index": null, "delta": null, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": null, "completion_tokens": 2, "prompt_tokens_details": null},
        });
        assert_eq!(
            reader.read(&chunk).unwrap(),
            vec![
                Delta::Start {
                    id: String::new(),
                    model: None,
                    created: None
                },
                Delta::Finish(Finish::Stop),
                Delta::Usage(Usage {
                    input: 0,
                    output: 2,
                    cached_input: None,
                    reasoning: None
                }),
            ]
        );
        let reply = json!({"id": null, "choices": [{"message": {"content": null, "tool_calls": null}, "finish_reason": null}]});
        assert_eq!(read_reply(&reply).unwrap().parts, vec![]);
    }

    /// The exact chunks written for a stream, as the Chat Completions API has them.
    #[test]
    fn writes_chunks() {
        let request = Request {
            model: Some("m".to_owned()),
            include_usage: true,
            ..Request::default()
        };
        let mut writer = Writer::new(&request);
        let mut chunks = Vec::new();
        for delta in [
            Delta::Start {
                id: "resp_x".to_owned(),
                model: None,
                created: Some(7),
            },
            Delta::Reasoning("Hm.".to_owned()),
            Delta::Text("Let me look.".to_owned()),
            Delta::CallStart {
                index: 0,
                id: "call_1".to_owned(),
                name: "get_weather".to_owned(),
            },
            Delta::CallArguments {
                index: 0,
                delta: "{}".to_owned(),
            },
            Delta::Finish(Finish::ToolCalls),
            Delta::Usage(Usage {
                input: 5,
                output: 6,
                cached_input: None,
                reasoning: None,
            }),
        ] {
            chunks.extend(writer.write(delta));
        }
        chunks.extend(writer.finish());
        assert!(writer.finish().is_empty());
        let id = chunks[0]["id"].as_str().unwrap().to_owned();
        assert!(id.starts_with("chatcmpl-") && id.len() == 41, "{id}");
        let chunk = |delta: Value, finish: Value| {
            json!({
                "id": "chatcmpl-*", "object": "chat.completion.chunk", "created": 7, "model": "m",
                "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
            })
        };
        assert_eq!(
            masked(Value::Array(chunks)),
            json!([
                chunk(json!({"role": "assistant", "content": null}), Value::Null),
                chunk(json!({"reasoning_content": "Hm."}), Value::Null),
                chunk(json!({"content": "Let me look."}), Value::Null),
                chunk(json!({"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]}), Value::Null),
                chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]}), Value::Null),
                chunk(json!({}), json!("tool_calls")),
                {"id": "chatcmpl-*", "object": "chat.completion.chunk", "created": 7, "model": "m",
                 "choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 6, "total_tokens": 11}},
            ])
        );
    }

    #[test]
    fn no_usage_chunk_unless_asked_and_stop_by_default() {
        let mut writer = Writer::new(&Request::default());
        assert_eq!(writer.write(Delta::Usage(Usage::default())).len(), 1);
        let chunks = writer.finish();
        assert_eq!(chunks.len(), 1);
        assert_eq!(chunks[0]["choices"][0]["finish_reason"], "stop");
    }

    #[test]
    fn errors() {
        let error = read_error(&json!({"error": {"message": "bad", "type": "invalid_request_error", "param": "model", "code": "model_not_found"}})).unwrap();
        assert_eq!(
            write_error(&error),
            json!({"error": {"message": "bad", "type": "invalid_request_error", "param": "model", "code": "model_not_found"}})
        );
        assert_eq!(
            read_error(&json!({"error": "nope"})).unwrap().message,
            "nope"
        );
        assert_eq!(read_error(&json!({"ok": true})), None);
    }
}
