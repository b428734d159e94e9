//! OpenAI Responses (`POST /v1/responses`), as OpenAI speaks it and as llama.cpp and vLLM copy
//! it: requests, replies and stream events, read into the conversation of [`ir`](super::ir) and
//! written from it.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::chat::empty_schema;
use super::common::{
    calls, effective_finish, effort_of_budget, id_with_prefix, is_empty, misplaced, new_id, now,
    null_as_default, parse, parse_reply, push_result, push_text, push_user, read_detail,
    system_text, unknown_field, untranslatable,
};
use super::ir::{
    Call, Delta, ErrorBody, Finish, Message, Part, Refusal, Reply, Request, ResponseFormat, Role,
    Tool, ToolChoice, ToolResult, Usage,
};

/// The API's name in refusals.
const API: &str = "Responses";

// ---------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------

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

/// `input`: a string (one user message), or items.
fn read_input(value: &Value) -> Result<Vec<Message>, Refusal> {
    let mut messages = Vec::new();
    match value {
        Value::String(text) => {
            let mut parts = Vec::new();
            push_text(&mut parts, text);
            messages.push(Message {
                role: Role::User,
                parts,
            });
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                read_item(item, &format!("input[{index}]"), &mut messages)?;
            }
        }
        _ => {
            return Err(Refusal::new(
                "input",
                "`input` is neither a string nor a list of items.",
            ));
        }
    }
    Ok(messages)
}

/// A message item (`type` may be absent).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MessageItem {
    #[serde(rename = "type")]
    _kind: Option<String>,
    role: String,
    content: Value,
    /// The id and status of an earlier reply's message: OpenAI's names for it, not content.
    #[serde(rename = "id")]
    _id: Option<String>,
    #[serde(rename = "status")]
    _status: Option<String>,
}

/// A call of an earlier reply.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FunctionCallItem {
    #[serde(rename = "type")]
    _kind: String,
    call_id: String,
    name: String,
    arguments: String,
    #[serde(rename = "id")]
    _id: Option<String>,
    #[serde(rename = "status")]
    _status: Option<String>,
}

/// A call's output.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FunctionCallOutputItem {
    #[serde(rename = "type")]
    _kind: String,
    call_id: String,
    output: Value,
    #[serde(rename = "id")]
    _id: Option<String>,
    #[serde(rename = "status")]
    _status: Option<String>,
}

/// The reasoning of an earlier reply.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReasoningItem {
    #[serde(rename = "type")]
    _kind: String,
    #[serde(default)]
    summary: Vec<ReasoningText>,
    #[serde(default)]
    content: Option<Vec<ReasoningText>>,
    encrypted_content: Option<String>,
    #[serde(rename = "id")]
    _id: Option<String>,
    #[serde(rename = "status")]
    _status: Option<String>,
}

/// A `summary_text` or a `reasoning_text`.
#[derive(Deserialize)]
struct ReasoningText {
    text: String,
}

/// The words of a reasoning item: its full text when it has one (`content`, which vLLM and
/// llama.cpp give), else its summaries, a blank line between them.
fn reasoning_text(summary: &[ReasoningText], content: Option<&[ReasoningText]>) -> String {
    match content {
        Some(content) if content.iter().any(|text| !text.text.is_empty()) => {
            content.iter().map(|text| text.text.as_str()).collect()
        }
        _ => summary
            .iter()
            .map(|text| text.text.as_str())
            .collect::<Vec<_>>()
            .join("\n\n"),
    }
}

/// Adds one input item to the conversation: a message, a call (to the assistant's message
/// before it, as the items of one reply come one after the other), a call's output (a result in
/// a user message), or reasoning.
fn read_item(item: &Value, at: &str, messages: &mut Vec<Message>) -> Result<(), Refusal> {
    let kind = match item.get("type") {
        None | Some(Value::Null) => "message",
        Some(Value::String(kind)) => kind.as_str(),
        Some(_) => {
            return Err(Refusal::new(
                "input",
                format!("`{at}.type` is not a string."),
            ));
        }
    };
    match kind {
        "message" => {
            let message: MessageItem = parse("input", at, item)?;
            read_message(message, at, messages)?;
        }
        "function_call" => {
            let call: FunctionCallItem = parse("input", at, item)?;
            push_assistant(
                messages,
                Part::Call(Call {
                    id: call.call_id,
                    name: call.name,
                    arguments: call.arguments,
                }),
            );
        }
        "function_call_output" => {
            let output: FunctionCallOutputItem = parse("input", at, item)?;
            let content = read_output(&output.output, &format!("{at}.output"))?;
            push_result(
                messages,
                ToolResult {
                    call_id: output.call_id,
                    content,
                    is_error: false,
                },
            );
        }
        "reasoning" => {
            let reasoning: ReasoningItem = parse("input", at, item)?;
            let text = reasoning_text(&reasoning.summary, reasoning.content.as_deref());
            if text.is_empty() {
                if reasoning.encrypted_content.is_some() {
                    return Err(Refusal::new(
                        "input",
                        format!(
                            "`{at}` is reasoning OpenAI encrypted, which only OpenAI can read: \
                             an upstream that speaks another API cannot take it. Remove it, or \
                             point the gateway at an upstream that speaks the Responses API."
                        ),
                    ));
                }
                // Reasoning without words or content says nothing.
                return Ok(());
            }
            // The encrypted content beside words is OpenAI's copy of them, which only OpenAI
            // reads: the words are what another API can take.
            push_assistant(
                messages,
                Part::Reasoning {
                    text,
                    signature: None,
                },
            );
        }
        other => {
            return Err(Refusal::new(
                "input",
                format!(
                    "`{at}` is an item of type `{other}`, which only the Responses API has: an \
                     upstream that speaks another API cannot take it. Remove it, or point the \
                     gateway at an upstream that speaks the Responses API."
                ),
            ));
        }
    }
    Ok(())
}

/// Adds a part of the assistant's to its message: the items of one reply (reasoning, message,
/// calls) are one message.
fn push_assistant(messages: &mut Vec<Message>, part: Part) {
    match messages.last_mut() {
        Some(last) if last.role == Role::Assistant => last.parts.push(part),
        _ => messages.push(Message {
            role: Role::Assistant,
            parts: vec![part],
        }),
    }
}

fn read_message(
    message: MessageItem,
    at: &str,
    messages: &mut Vec<Message>,
) -> Result<(), Refusal> {
    let at = format!("{at}.content");
    match message.role.as_str() {
        "system" | "developer" => {
            let parts = read_content(&message.content, &at, Media::None)?;
            messages.push(Message {
                role: Role::System,
                parts,
            });
        }
        "user" => {
            let parts = read_content(&message.content, &at, Media::Input)?;
            push_user(messages, parts);
        }
        "assistant" => {
            for part in read_content(&message.content, &at, Media::None)? {
                push_assistant(messages, part);
            }
        }
        other => {
            return Err(Refusal::new(
                "input",
                format!(
                    "The role `{other}` of `{at}` is not one of `user`, `assistant`, `system`, \
                     `developer`."
                ),
            ));
        }
    }
    Ok(())
}

/// Which parts a content may hold beside text.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Media {
    /// Text only (system and assistant messages).
    None,
    /// Images and files too (user messages, call outputs).
    Input,
}

fn read_content(content: &Value, at: &str, media: Media) -> Result<Vec<Part>, Refusal> {
    let mut parts = Vec::new();
    match content {
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
                "input",
                format!("`{at}` is neither a string nor a list of parts."),
            ));
        }
    }
    Ok(parts)
}

/// A call's `output`: a string, or parts.
fn read_output(output: &Value, at: &str) -> Result<Vec<Part>, Refusal> {
    read_content(output, at, Media::Input)
}

/// `input_text` and `output_text` (whose annotations and log probabilities are about the text,
/// not part of it).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TextPart {
    #[serde(rename = "type")]
    _kind: String,
    text: String,
    #[serde(rename = "annotations")]
    _annotations: Option<Value>,
    #[serde(rename = "logprobs")]
    _logprobs: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RefusalPart {
    #[serde(rename = "type")]
    _kind: String,
    refusal: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ImagePart {
    #[serde(rename = "type")]
    _kind: String,
    image_url: Option<String>,
    file_id: Option<String>,
    detail: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FilePart {
    #[serde(rename = "type")]
    _kind: String,
    file_data: Option<String>,
    filename: Option<String>,
    file_id: Option<String>,
    file_url: Option<String>,
}

fn read_part(item: &Value, at: &str, media: Media) -> Result<Option<Part>, Refusal> {
    let kind = item.get("type").and_then(Value::as_str).unwrap_or_default();
    let part = match (kind, media) {
        ("input_text" | "output_text", _) => {
            let part: TextPart = parse("input", at, item)?;
            if part.text.is_empty() {
                return Ok(None);
            }
            Part::Text { text: part.text }
        }
        ("refusal", _) => {
            let part: RefusalPart = parse("input", at, item)?;
            Part::Text { text: part.refusal }
        }
        ("input_image", Media::Input) => {
            let part: ImagePart = parse("input", at, item)?;
            match (part.image_url, part.file_id) {
                (Some(url), _) => Part::Image {
                    url,
                    detail: read_detail(part.detail),
                },
                (None, _) => return Err(uploaded(at, "image_url")),
            }
        }
        ("input_file", Media::Input) => {
            let part: FilePart = parse("input", at, item)?;
            match (part.file_data, part.file_id.or(part.file_url)) {
                (Some(data), _) => Part::File {
                    data,
                    filename: part.filename,
                },
                (None, _) => return Err(uploaded(at, "file_data")),
            }
        }
        ("input_audio", _) => {
            return Err(Refusal::new(
                "input",
                format!(
                    "`{at}` is audio, which the gateway cannot carry to an upstream that speaks \
                     another API: give a transcript as text."
                ),
            ));
        }
        (other, _) => {
            return Err(Refusal::new(
                "input",
                format!(
                    "`{at}` is a part of type `{other}`, which this message cannot hold here: \
                     user messages and call outputs hold `input_text`, `input_image` and \
                     `input_file`, the others text."
                ),
            ));
        }
    };
    Ok(Some(part))
}

/// A part that names a file kept by OpenAI (or a URL only OpenAI fetches for files).
fn uploaded(at: &str, instead: &str) -> Refusal {
    Refusal::new(
        "input",
        format!(
            "`{at}` names a file kept by OpenAI (`file_id`, `file_url`), which an upstream that \
             speaks another API cannot read: give its content as `{instead}`, or point the \
             gateway at an upstream that speaks the Responses API."
        ),
    )
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

/// Writes a Responses request. The first message, when it is a system message, is the
/// `instructions`.
pub fn write_request(request: &Request) -> Result<Map<String, Value>, Refusal> {
    if !request.stop.is_empty() {
        return Err(Refusal::new(
            "stop",
            "The gateway's upstream speaks the Responses API, which has no stop sequences: \
             remove them.",
        ));
    }
    let mut body = Map::new();
    if let Some(model) = &request.model {
        body.insert("model".into(), json!(model));
    }
    let mut messages = request.messages.as_slice();
    if let Some((first, rest)) = messages.split_first()
        && first.role == Role::System
    {
        body.insert(
            "instructions".into(),
            json!(system_text(first, "instructions")?),
        );
        messages = rest;
    }
    body.insert("input".into(), Value::Array(write_input(messages)?));
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
        body.insert("max_output_tokens".into(), json!(max_tokens));
    }
    if let Some(temperature) = request.temperature {
        body.insert("temperature".into(), json!(temperature));
    }
    if let Some(top_p) = request.top_p {
        body.insert("top_p".into(), json!(top_p));
    }
    if let Some(format) = &request.response_format {
        body.insert("text".into(), json!({"format": write_format(format)}));
    }
    // A Messages thinking budget is said as the effort that spends about as much.
    let effort = request.reasoning_effort.clone().or_else(|| {
        request
            .thinking_budget
            .map(|budget| effort_of_budget(budget).to_owned())
    });
    if let Some(effort) = effort {
        body.insert("reasoning".into(), json!({"effort": effort}));
    }
    if let Some(user) = &request.user {
        body.insert("user".into(), json!(user));
    }
    if let Some(metadata) = &request.metadata {
        body.insert("metadata".into(), Value::Object(metadata.clone()));
    }
    // A client of another API never asked OpenAI to keep its conversation (Responses keeps it
    // unless told not to); the gateway sends the whole conversation every time.
    body.insert("store".into(), json!(request.store.unwrap_or(false)));
    if let Some(previous) = &request.previous_response_id {
        body.insert("previous_response_id".into(), json!(previous));
    }
    if request.stream {
        body.insert("stream".into(), json!(true));
    }
    // `seed` is not written: Responses has none, and even Chat's is a best-effort hint that
    // promises no determinism.
    Ok(body)
}

fn write_input(messages: &[Message]) -> Result<Vec<Value>, Refusal> {
    let mut items = Vec::new();
    for message in messages {
        match message.role {
            Role::System => items.push(json!({
                "type": "message",
                "role": "system",
                "content": system_text(message, "input")?,
            })),
            Role::User => write_user(message, &mut items)?,
            Role::Assistant => write_assistant(message, &mut items)?,
        }
    }
    Ok(items)
}

/// A user message: its results first, as `function_call_output` items, then its words.
fn write_user(message: &Message, items: &mut Vec<Value>) -> Result<(), Refusal> {
    let mut own = Vec::new();
    for part in &message.parts {
        match part {
            Part::Result(result) => {
                // A failure (`is_error`) is in the output's words: Responses has no flag for it.
                let output = match result.content.as_slice() {
                    [] => json!(""),
                    [Part::Text { text }] => json!(text),
                    parts => Value::Array(
                        parts
                            .iter()
                            .map(write_input_part)
                            .collect::<Result<_, _>>()?,
                    ),
                };
                items.push(json!({
                    "type": "function_call_output",
                    "call_id": result.call_id,
                    "output": output,
                }));
            }
            other => own.push(write_input_part(other)?),
        }
    }
    let had_results = message
        .parts
        .iter()
        .any(|part| matches!(part, Part::Result(_)));
    if !own.is_empty() || !had_results {
        items.push(json!({"type": "message", "role": "user", "content": own}));
    }
    Ok(())
}

fn write_input_part(part: &Part) -> Result<Value, Refusal> {
    match part {
        Part::Text { text } => Ok(json!({"type": "input_text", "text": text})),
        // The SDK's type requires a detail; `auto` is the API's default.
        Part::Image { url, detail } => Ok(json!({
            "type": "input_image",
            "image_url": url,
            "detail": detail.as_deref().unwrap_or("auto"),
        })),
        Part::File { data, filename } => {
            let mut file = json!({"type": "input_file", "file_data": data});
            if let Some(filename) = filename {
                file["filename"] = json!(filename);
            }
            Ok(file)
        }
        other => Err(misplaced("input", Role::User, other)),
    }
}

/// An assistant message: its texts and calls as items, in order. Its reasoning is left out:
/// a Responses server takes back only reasoning it made, by its id or its encrypted content,
/// and no other API carries either (OpenAI answers an item it did not make with an error). This
/// is the one thing written nowhere, and it costs the model only its own earlier thoughts, which
/// OpenAI's models are not given back either unless the client kept OpenAI's copy.
fn write_assistant(message: &Message, items: &mut Vec<Value>) -> Result<(), Refusal> {
    for part in &message.parts {
        match part {
            Part::Text { text } => items.push(json!({
                "type": "message",
                "role": "assistant",
                "content": text,
            })),
            Part::Call(call) => items.push(json!({
                "type": "function_call",
                "call_id": call.id,
                "name": call.name,
                "arguments": call.arguments,
            })),
            Part::Reasoning { .. } => {}
            other => return Err(misplaced("input", Role::Assistant, other)),
        }
    }
    Ok(())
}

/// A function tool. A tool whose strictness was not said is written not strict: that is what
/// Chat and Messages mean by saying nothing, while Responses would make it strict (and refuse a
/// schema strict mode cannot take).
fn write_tool(tool: &Tool) -> Value {
    let mut written = json!({"type": "function", "name": tool.name});
    if let Some(description) = &tool.description {
        written["description"] = json!(description);
    }
    written["parameters"] = tool.parameters.clone();
    written["strict"] = json!(tool.strict.unwrap_or(false));
    written
}

fn write_tool_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Auto => json!("auto"),
        ToolChoice::None => json!("none"),
        ToolChoice::Required => json!("required"),
        ToolChoice::Named(name) => json!({"type": "function", "name": name}),
    }
}

fn write_format(format: &ResponseFormat) -> Value {
    match format {
        ResponseFormat::Text => json!({"type": "text"}),
        ResponseFormat::JsonObject => json!({"type": "json_object"}),
        ResponseFormat::JsonSchema {
            name,
            schema,
            strict,
            description,
        } => {
            let mut written = json!({"type": "json_schema", "name": name});
            if let Some(description) = description {
                written["description"] = json!(description);
            }
            written["schema"] = schema.clone();
            if let Some(strict) = strict {
                written["strict"] = json!(strict);
            }
            written
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Replies
// ---------------------------------------------------------------------------------------------

/// A whole response, or the one in a stream's `response.*` event.
#[derive(Deserialize)]
struct Response {
    #[serde(default, deserialize_with = "null_as_default")]
    id: String,
    model: Option<String>,
    created_at: Option<Value>,
    status: Option<String>,
    #[serde(default, deserialize_with = "null_as_default")]
    output: Vec<Value>,
    usage: Option<ResponsesUsage>,
    incomplete_details: Option<IncompleteDetails>,
    error: Option<ResponseError>,
}

#[derive(Deserialize)]
struct IncompleteDetails {
    reason: Option<String>,
}

#[derive(Deserialize)]
struct ResponseError {
    #[serde(default, deserialize_with = "null_as_default")]
    message: String,
    code: Option<String>,
}

#[derive(Deserialize)]
struct ResponsesUsage {
    #[serde(default, deserialize_with = "null_as_default")]
    input_tokens: u64,
    #[serde(default, deserialize_with = "null_as_default")]
    output_tokens: u64,
    input_tokens_details: Option<InputDetails>,
    output_tokens_details: Option<OutputDetails>,
}

#[derive(Deserialize)]
struct InputDetails {
    cached_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct OutputDetails {
    reasoning_tokens: Option<u64>,
}

impl ResponsesUsage {
    fn read(self) -> Usage {
        Usage {
            input: self.input_tokens,
            output: self.output_tokens,
            cached_input: self
                .input_tokens_details
                .and_then(|details| details.cached_tokens),
            reasoning: self
                .output_tokens_details
                .and_then(|details| details.reasoning_tokens),
        }
    }
}

impl Response {
    /// When it was made: OpenAI writes seconds, some servers a fraction of them.
    fn created(&self) -> Option<i64> {
        match &self.created_at {
            Some(Value::Number(number)) => number.as_i64().or_else(|| {
                // The fraction is dropped (`as` saturates: an absurd time cannot overflow).
                number.as_f64().map(|seconds| seconds as i64)
            }),
            _ => None,
        }
    }

    /// Why it ended, as its status says (a response that completed with calls ended for them).
    fn finish(&self, called: bool) -> Result<Finish, ErrorBody> {
        match self.status.as_deref() {
            None | Some("completed") => Ok(if called {
                Finish::ToolCalls
            } else {
                Finish::Stop
            }),
            Some("incomplete") => Ok(
                match self
                    .incomplete_details
                    .as_ref()
                    .and_then(|details| details.reason.as_deref())
                {
                    Some("max_output_tokens") => Finish::Length,
                    Some("content_filter") => Finish::ContentFilter,
                    Some(other) => Finish::Other(other.to_owned()),
                    None => Finish::Other("incomplete".to_owned()),
                },
            ),
            Some("failed") => Err(self.failure()),
            Some(other) => Ok(Finish::Other(other.to_owned())),
        }
    }

    fn failure(&self) -> ErrorBody {
        let error = self.error.as_ref();
        ErrorBody {
            message: error
                .map(|error| error.message.clone())
                .filter(|message| !message.is_empty())
                .unwrap_or_else(|| "The upstream's response failed.".to_owned()),
            kind: "upstream_error".to_owned(),
            code: error.and_then(|error| error.code.clone()),
            param: None,
        }
    }
}

/// The parts an output item says: a message's texts (a refusal is what the model said), a
/// reasoning's words, a call. Other items (a built-in tool's call, which a request the gateway
/// translated cannot have asked for) say nothing to a client of another API.
fn item_parts(item: &Value) -> Vec<Part> {
    let mut parts = Vec::new();
    match item.get("type").and_then(Value::as_str) {
        Some("message") => {
            for content in item
                .get("content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let text = content
                    .get("text")
                    .or_else(|| content.get("refusal"))
                    .and_then(Value::as_str);
                push_text(&mut parts, text.unwrap_or_default());
            }
        }
        Some("reasoning") => {
            let text = item_text(item);
            if !text.is_empty() {
                parts.push(Part::Reasoning {
                    text,
                    signature: None,
                });
            }
        }
        Some("function_call") => parts.push(Part::Call(Call {
            id: string_field(item, "call_id"),
            name: string_field(item, "name"),
            arguments: string_field(item, "arguments"),
        })),
        _ => {}
    }
    parts
}

/// The whole text of an item: a message's texts, a reasoning's words, a call's arguments.
fn item_text(item: &Value) -> String {
    match item.get("type").and_then(Value::as_str) {
        Some("message") => item_parts(item)
            .into_iter()
            .map(|part| match part {
                Part::Text { text } => text,
                _ => String::new(),
            })
            .collect(),
        Some("reasoning") => {
            let texts = |field: &str| -> Vec<ReasoningText> {
                item.get(field)
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .map(|text| ReasoningText {
                        text: string_field(text, "text"),
                    })
                    .collect()
            };
            reasoning_text(&texts("summary"), Some(&texts("content")))
        }
        Some("function_call") => string_field(item, "arguments"),
        _ => String::new(),
    }
}

fn string_field(value: &Value, field: &str) -> String {
    value
        .get(field)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// Reads a whole response of a Responses upstream.
pub fn read_reply(reply: &Value) -> Result<Reply, String> {
    if let Some(error) = super::chat::read_error(reply).filter(|_| reply.get("output").is_none()) {
        return Err(error.message);
    }
    let response: Response = parse_reply("The Responses reply", reply)?;
    let parts: Vec<Part> = response.output.iter().flat_map(item_parts).collect();
    let called = calls(&parts).next().is_some();
    let finish = response.finish(called).map_err(|error| error.message)?;
    let created = response.created();
    Ok(Reply {
        id: response.id,
        model: response.model,
        created,
        parts,
        finish,
        usage: response.usage.map(ResponsesUsage::read),
    })
}

/// The response's status for how it ended, and why it is incomplete if it is.
fn status(finish: &Finish) -> (&'static str, Value) {
    match finish {
        Finish::Length => ("incomplete", json!({"reason": "max_output_tokens"})),
        Finish::ContentFilter => ("incomplete", json!({"reason": "content_filter"})),
        _ => ("completed", Value::Null),
    }
}

/// What the response says of itself beside its output: the client's request, echoed as the
/// openai SDK's `Response` has it.
struct Head<'a> {
    id: &'a str,
    created_at: i64,
    model: &'a str,
}

/// A response object: in progress (`finish` is `None`, as in a stream's first events) or ended.
fn response(
    request: &Request,
    head: &Head<'_>,
    finish: Option<&Finish>,
    output: Vec<Value>,
    usage: Option<&Usage>,
) -> Value {
    let (status, incomplete_details) = finish.map_or(("in_progress", Value::Null), status);
    let instructions = request
        .messages
        .iter()
        .filter(|message| message.role == Role::System)
        .flat_map(|message| &message.parts)
        .filter_map(|part| match part {
            Part::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>();
    json!({
        "id": head.id,
        "object": "response",
        "created_at": head.created_at,
        "status": status,
        "model": head.model,
        "output": output,
        "usage": usage.map(write_usage),
        "error": null,
        "incomplete_details": incomplete_details,
        "instructions": if instructions.is_empty() {
            Value::Null
        } else {
            json!(instructions.join("\n\n"))
        },
        "max_output_tokens": request.max_tokens,
        "metadata": request.metadata.clone().unwrap_or_default(),
        "parallel_tool_calls": request.parallel_tool_calls.unwrap_or(true),
        "previous_response_id": request.previous_response_id,
        "reasoning": {"effort": request.reasoning_effort, "summary": null},
        "store": request.store.unwrap_or(true),
        "temperature": request.temperature,
        "text": {"format": write_format(request.response_format.as_ref().unwrap_or(&ResponseFormat::Text))},
        "tool_choice": write_tool_choice(request.tool_choice.as_ref().unwrap_or(&ToolChoice::Auto)),
        "tools": request.tools.iter().map(write_tool).collect::<Vec<_>>(),
        "top_p": request.top_p,
        "truncation": "disabled",
        "user": request.user,
    })
}

fn write_usage(usage: &Usage) -> Value {
    json!({
        "input_tokens": usage.input,
        "input_tokens_details": {"cached_tokens": usage.cached_input.unwrap_or(0)},
        "output_tokens": usage.output,
        "output_tokens_details": {"reasoning_tokens": usage.reasoning.unwrap_or(0)},
        "total_tokens": usage.input + usage.output,
    })
}

fn message_item(id: &str, text: &str, status: &str) -> Value {
    json!({
        "id": id,
        "type": "message",
        "status": status,
        "role": "assistant",
        "content": if status == "in_progress" { json!([]) } else { json!([output_text(text)]) },
    })
}

fn output_text(text: &str) -> Value {
    json!({"type": "output_text", "text": text, "annotations": [], "logprobs": []})
}

fn reasoning_item(id: &str, text: &str, done: bool) -> Value {
    json!({
        "id": id,
        "type": "reasoning",
        "summary": if done { json!([{"type": "summary_text", "text": text}]) } else { json!([]) },
    })
}

fn call_item(id: &str, call: &Call, status: &str) -> Value {
    json!({
        "id": id,
        "type": "function_call",
        "status": status,
        "call_id": call.id,
        "name": call.name,
        "arguments": call.arguments,
    })
}

/// Writes a whole reply as a response: its parts as output items, in order (one message for
/// each run of text).
pub fn write_reply(reply: &Reply, request: &Request) -> Value {
    let mut output = Vec::new();
    let mut text = String::new();
    let flush = |text: &mut String, output: &mut Vec<Value>| {
        if !text.is_empty() {
            output.push(message_item(&new_id("msg_"), text, "completed"));
            text.clear();
        }
    };
    for part in &reply.parts {
        match part {
            Part::Text { text: piece } => text.push_str(piece),
            Part::Reasoning { text: words, .. } => {
                flush(&mut text, &mut output);
                output.push(reasoning_item(&new_id("rs_"), words, true));
            }
            Part::Call(call) => {
                flush(&mut text, &mut output);
                output.push(call_item(&new_id("fc_"), call, "completed"));
            }
            // A reply holds no images, files or results.
            _ => {}
        }
    }
    flush(&mut text, &mut output);
    let called = calls(&reply.parts).next().is_some();
    let finish = effective_finish(&reply.finish, called);
    let id = id_with_prefix(&reply.id, "resp_");
    let model = reply
        .model
        .as_ref()
        .or(request.model.as_ref())
        .cloned()
        .unwrap_or_default();
    let head = Head {
        id: &id,
        created_at: reply.created.unwrap_or_else(now),
        model: &model,
    };
    response(request, &head, Some(&finish), output, reply.usage.as_ref())
}

// ---------------------------------------------------------------------------------------------
// Streams: reading
// ---------------------------------------------------------------------------------------------

/// What a reader knows of an output item.
#[derive(Debug)]
struct ItemState {
    /// Its id, when the upstream gave one.
    id: Option<String>,
    /// Its place in the output, when the upstream gave one (llama.cpp does not).
    output_index: Option<u64>,
    /// Its index among the reply's calls, when it is a call.
    call: Option<usize>,
    /// Whether it is reasoning (its deltas are reasoning, not text).
    reasoning: bool,
    /// Which of a reasoning's texts (summary, or full text) the deltas gave: the first given.
    reasoning_source: Option<&'static str>,
    /// The text (or arguments) its deltas have given so far.
    given: String,
}

/// Reads a Responses upstream's events. Events may come with or without `output_index` and
/// `sequence_number` (llama.cpp gives neither): an item is found by its id, else its place.
#[derive(Debug, Default)]
pub struct Reader {
    started: bool,
    items: Vec<ItemState>,
    calls: usize,
}

impl Reader {
    /// The deltas of one event.
    pub fn read(&mut self, event: &Value) -> Result<Vec<Delta>, ErrorBody> {
        let mut deltas = Vec::new();
        let kind = event
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        match kind {
            "response.created" | "response.in_progress" if !self.started => {
                let response = read_response(event)?;
                self.start(&response, &mut deltas);
            }
            "response.output_item.added" => {
                if let Some(item) = event.get("item") {
                    let at = self.find_item(item.get("id"), event.get("output_index"));
                    let at = at.unwrap_or_else(|| self.add_item(item, event, &mut deltas));
                    self.complete(at, item, &mut deltas);
                }
            }
            "response.output_text.delta" | "response.refusal.delta" => {
                let at = self.item_of(event, false);
                self.give(at, event, None, &mut deltas);
            }
            "response.reasoning_summary_text.delta" => {
                let at = self.item_of(event, true);
                self.give(at, event, Some("summary"), &mut deltas);
            }
            "response.reasoning_text.delta" => {
                let at = self.item_of(event, true);
                self.give(at, event, Some("content"), &mut deltas);
            }
            "response.reasoning_summary_part.added" => {
                // The summaries of one reasoning are one text, a blank line between them (as a
                // whole reply's are read).
                let at = self.item_of(event, true);
                let item = &mut self.items[at];
                if item.reasoning_source == Some("summary") && !item.given.is_empty() {
                    item.given.push_str("\n\n");
                    deltas.push(Delta::Reasoning("\n\n".to_owned()));
                }
            }
            "response.function_call_arguments.delta" => {
                if let Some(at) = self.find_item(event.get("item_id"), event.get("output_index")) {
                    self.give(at, event, None, &mut deltas);
                }
                // Arguments of a call never announced have no name to start it with: the
                // item's `output_item.done` will give the whole call.
            }
            "response.output_text.done" => {
                if let Some(text) = event.get("text").and_then(Value::as_str) {
                    let at = self.item_of(event, false);
                    self.give_missing(at, text, &mut deltas);
                }
            }
            "response.function_call_arguments.done" => {
                let at = self.find_item(event.get("item_id"), event.get("output_index"));
                if let (Some(at), Some(arguments)) =
                    (at, event.get("arguments").and_then(Value::as_str))
                {
                    self.give_missing(at, arguments, &mut deltas);
                }
            }
            "response.output_item.done" => {
                if let Some(item) = event.get("item") {
                    self.complete_item(item, event, &mut deltas);
                }
            }
            "response.completed" | "response.incomplete" => {
                let response = read_response(event)?;
                self.start(&response, &mut deltas);
                // A server that gave an item only whole, in the final response, has given it
                // now.
                for item in &response.output {
                    self.complete_item(item, &Value::Null, &mut deltas);
                }
                let finish = response.finish(self.calls > 0)?;
                if let Some(usage) = response.usage {
                    deltas.push(Delta::Usage(usage.read()));
                }
                deltas.push(Delta::Finish(finish));
            }
            "response.failed" => return Err(read_response(event)?.failure()),
            "error" => return Err(read_error_event(event)),
            // Events that say nothing of the reply's content (`response.content_part.added`,
            // the `.done` of parts, a built-in tool's progress) or that a newer API added.
            _ => {}
        }
        Ok(deltas)
    }

    fn start(&mut self, response: &Response, deltas: &mut Vec<Delta>) {
        if !self.started {
            self.started = true;
            deltas.push(Delta::Start {
                id: response.id.clone(),
                model: response.model.clone(),
                created: response.created(),
            });
        }
    }

    /// The item an event is about, by its `item_id`, else its `output_index`.
    fn find_item(&self, id: Option<&Value>, output_index: Option<&Value>) -> Option<usize> {
        if let Some(id) = id.and_then(Value::as_str)
            && let Some(at) = self
                .items
                .iter()
                .position(|item| item.id.as_deref() == Some(id))
        {
            return Some(at);
        }
        let output_index = output_index.and_then(Value::as_u64)?;
        self.items
            .iter()
            .position(|item| item.output_index == Some(output_index))
    }

    /// The item a text or reasoning event is about: one found, else the last of its kind,
    /// else a new one (a server that gave deltas without announcing their item).
    fn item_of(&mut self, event: &Value, reasoning: bool) -> usize {
        if let Some(at) = self.find_item(event.get("item_id"), event.get("output_index")) {
            return at;
        }
        let has_place = event.get("item_id").is_some() || event.get("output_index").is_some();
        if !has_place
            && let Some(at) = self
                .items
                .iter()
                .rposition(|item| item.call.is_none() && item.reasoning == reasoning)
        {
            return at;
        }
        self.items.push(ItemState {
            id: event
                .get("item_id")
                .and_then(Value::as_str)
                .map(str::to_owned),
            output_index: event.get("output_index").and_then(Value::as_u64),
            call: None,
            reasoning,
            reasoning_source: None,
            given: String::new(),
        });
        self.items.len() - 1
    }

    /// Takes a new item; a call starts.
    fn add_item(&mut self, item: &Value, event: &Value, deltas: &mut Vec<Delta>) -> usize {
        let kind = item.get("type").and_then(Value::as_str);
        let call = (kind == Some("function_call")).then(|| {
            let index = self.calls;
            self.calls += 1;
            deltas.push(Delta::CallStart {
                index,
                id: string_field(item, "call_id"),
                name: string_field(item, "name"),
            });
            index
        });
        self.items.push(ItemState {
            id: item.get("id").and_then(Value::as_str).map(str::to_owned),
            output_index: event.get("output_index").and_then(Value::as_u64),
            call,
            reasoning: kind == Some("reasoning"),
            reasoning_source: None,
            given: String::new(),
        });
        self.items.len() - 1
    }

    /// A whole item (`output_item.done`, or one in the final response): whatever of it its
    /// deltas did not give.
    fn complete_item(&mut self, item: &Value, event: &Value, deltas: &mut Vec<Delta>) {
        let output_index = event.get("output_index");
        let at = self.find_item(item.get("id"), output_index);
        let at = at.unwrap_or_else(|| self.add_item(item, event, deltas));
        self.complete(at, item, deltas);
    }

    fn complete(&mut self, at: usize, item: &Value, deltas: &mut Vec<Delta>) {
        let text = item_text(item);
        self.give_missing(at, &text, deltas);
    }

    /// A delta event's piece.
    fn give(
        &mut self,
        at: usize,
        event: &Value,
        source: Option<&'static str>,
        deltas: &mut Vec<Delta>,
    ) {
        let Some(piece) = event.get("delta").and_then(Value::as_str) else {
            return;
        };
        let item = &mut self.items[at];
        if let Some(source) = source {
            // A server giving both a reasoning's summary and its full text gives the same
            // thoughts twice: the first given is kept.
            if *item.reasoning_source.get_or_insert(source) != source {
                return;
            }
        }
        item.given.push_str(piece);
        if let Some(delta) = Self::delta(item, piece.to_owned()) {
            deltas.push(delta);
        }
    }

    /// What a whole text says beyond what the deltas gave: nothing when they gave it all, or
    /// when they gave something else (which cannot be taken back).
    fn give_missing(&mut self, at: usize, whole: &str, deltas: &mut Vec<Delta>) {
        let item = &mut self.items[at];
        let Some(missing) = whole.strip_prefix(item.given.as_str()) else {
            return;
        };
        if missing.is_empty() {
            return;
        }
        let missing = missing.to_owned();
        item.given.push_str(&missing);
        if let Some(delta) = Self::delta(item, missing) {
            deltas.push(delta);
        }
    }

    fn delta(item: &ItemState, piece: String) -> Option<Delta> {
        if piece.is_empty() {
            return None;
        }
        Some(match (item.call, item.reasoning) {
            (Some(index), _) => Delta::CallArguments {
                index,
                delta: piece,
            },
            (None, true) => Delta::Reasoning(piece),
            (None, false) => Delta::Text(piece),
        })
    }
}

/// The response of a `response.*` event.
fn read_response(event: &Value) -> Result<Response, ErrorBody> {
    let response = event.get("response").unwrap_or(&Value::Null);
    parse_reply("The response of a Responses event", response).map_err(|message| ErrorBody {
        message,
        kind: "upstream_error".to_owned(),
        code: None,
        param: None,
    })
}

/// An `error` event: `{"type": "error", "code", "message", "param"}` (or, from some servers,
/// an OpenAI error body with its `error` object).
fn read_error_event(event: &Value) -> ErrorBody {
    if let Some(error) = super::chat::read_error(event) {
        return error;
    }
    let text = |field: &str| event.get(field).and_then(Value::as_str).map(str::to_owned);
    ErrorBody {
        message: text("message").unwrap_or_else(|| event.to_string()),
        kind: text("code")
            .filter(|code| code.ends_with("_error"))
            .unwrap_or_else(|| "api_error".to_owned()),
        code: text("code"),
        param: text("param"),
    }
}

// ---------------------------------------------------------------------------------------------
// Streams: writing
// ---------------------------------------------------------------------------------------------

/// The item a writer has open.
#[derive(Debug)]
enum Open {
    Message { at: usize, id: String, text: String },
    Reasoning { at: usize, id: String, text: String },
    Call { at: usize, call: usize },
}

/// Writes deltas as Responses events, for a Responses client: `response.created` and
/// `response.in_progress`, each item's events (an item is closed when the next starts, or at the
/// end), and `response.completed` or `response.incomplete` with the whole response. Every event
/// has its `sequence_number`; item events their `output_index` and `item_id`.
#[derive(Debug)]
pub struct Writer {
    /// The client's request, echoed in every response object (boxed: it is large, and a
    /// writer is moved around by value).
    request: Box<Request>,
    id: String,
    created_at: i64,
    model: String,
    sequence: u64,
    started: bool,
    /// The items so far, as the final response will have them (an open item in its state so
    /// far).
    output: Vec<Value>,
    /// Each call's output index and item id, by its index among the reply's calls.
    calls: Vec<(usize, String)>,
    open: Option<Open>,
    finish: Option<Finish>,
    usage: Option<Usage>,
    finished: bool,
}

impl Writer {
    /// A writer for a client whose request was `request`.
    pub fn new(request: &Request) -> Writer {
        Writer {
            request: Box::new(request.clone()),
            id: new_id("resp_"),
            created_at: now(),
            model: request.model.clone().unwrap_or_default(),
            sequence: 0,
            started: false,
            output: Vec::new(),
            calls: Vec::new(),
            open: None,
            finish: None,
            usage: None,
            finished: false,
        }
    }

    /// The events that say `delta`.
    pub fn write(&mut self, delta: Delta) -> Vec<Value> {
        let mut events = Vec::new();
        if let Delta::Start { id, model, created } = &delta {
            self.id = id_with_prefix(id, "resp_");
            if let Some(model) = model {
                self.model.clone_from(model);
            }
            if let Some(created) = created {
                self.created_at = *created;
            }
        }
        self.start(&mut events);
        match delta {
            Delta::Start { .. } | Delta::ReasoningSignature(_) => {}
            Delta::Text(text) => self.text(text, &mut events),
            Delta::Reasoning(text) => self.reasoning(text, &mut events),
            Delta::CallStart { index, id, name } => self.call_start(index, id, name, &mut events),
            Delta::CallArguments { index, delta } => self.arguments(index, delta, &mut events),
            Delta::Finish(finish) => self.finish = Some(finish),
            Delta::Usage(usage) => self.usage = Some(usage),
        }
        events
    }

    /// Closes the open item and writes the whole response.
    pub fn finish(&mut self) -> Vec<Value> {
        if self.finished {
            return Vec::new();
        }
        self.finished = true;
        let mut events = Vec::new();
        self.start(&mut events);
        self.close(&mut events);
        let called = !self.calls.is_empty();
        let finish = effective_finish(self.finish.as_ref().unwrap_or(&Finish::Stop), called);
        let kind = match finish {
            Finish::Length | Finish::ContentFilter => "response.incomplete",
            _ => "response.completed",
        };
        let response = self.response(Some(&finish));
        events.push(self.event(kind, json!({"response": response})));
        events
    }

    fn response(&self, finish: Option<&Finish>) -> Value {
        let head = Head {
            id: &self.id,
            created_at: self.created_at,
            model: &self.model,
        };
        let (output, usage) = match finish {
            Some(_) => (self.output.clone(), self.usage.as_ref()),
            None => (Vec::new(), None),
        };
        response(&self.request, &head, finish, output, usage)
    }

    fn event(&mut self, kind: &str, fields: Value) -> Value {
        let mut event = json!({"type": kind});
        if let (Some(event), Value::Object(fields)) = (event.as_object_mut(), fields) {
            event.extend(fields);
        }
        event["sequence_number"] = json!(self.sequence);
        self.sequence += 1;
        event
    }

    fn start(&mut self, events: &mut Vec<Value>) {
        if self.started {
            return;
        }
        self.started = true;
        let response = self.response(None);
        events.push(self.event("response.created", json!({"response": response})));
        events.push(self.event("response.in_progress", json!({"response": response})));
    }

    /// Adds an item in progress; its output index.
    fn add(&mut self, item: Value, events: &mut Vec<Value>) -> usize {
        let at = self.output.len();
        self.output.push(item.clone());
        events.push(self.event(
            "response.output_item.added",
            json!({"output_index": at, "item": item}),
        ));
        at
    }

    fn text(&mut self, piece: String, events: &mut Vec<Value>) {
        if !matches!(self.open, Some(Open::Message { .. })) {
            self.close(events);
            let id = new_id("msg_");
            let at = self.add(message_item(&id, "", "in_progress"), events);
            events.push(self.event(
                "response.content_part.added",
                json!({"item_id": id, "output_index": at, "content_index": 0, "part": output_text("")}),
            ));
            self.open = Some(Open::Message {
                at,
                id,
                text: String::new(),
            });
        }
        if let Some(Open::Message { at, id, text }) = &mut self.open {
            text.push_str(&piece);
            let fields = json!({
                "item_id": id,
                "output_index": at,
                "content_index": 0,
                "delta": piece,
                "logprobs": [],
            });
            events.push(self.event("response.output_text.delta", fields));
        }
    }

    fn reasoning(&mut self, piece: String, events: &mut Vec<Value>) {
        if !matches!(self.open, Some(Open::Reasoning { .. })) {
            self.close(events);
            let id = new_id("rs_");
            let at = self.add(reasoning_item(&id, "", false), events);
            events.push(self.event(
                "response.reasoning_summary_part.added",
                json!({
                    "item_id": id,
                    "output_index": at,
                    "summary_index": 0,
                    "part": {"type": "summary_text", "text": ""},
                }),
            ));
            self.open = Some(Open::Reasoning {
                at,
                id,
                text: String::new(),
            });
        }
        if let Some(Open::Reasoning { at, id, text }) = &mut self.open {
            text.push_str(&piece);
            let fields = json!({
                "item_id": id,
                "output_index": at,
                "summary_index": 0,
                "delta": piece,
            });
            events.push(self.event("response.reasoning_summary_text.delta", fields));
        }
    }

    fn call_start(&mut self, index: usize, call_id: String, name: String, events: &mut Vec<Value>) {
        self.close(events);
        let id = new_id("fc_");
        let call = Call {
            id: call_id,
            name,
            arguments: String::new(),
        };
        let at = self.add(call_item(&id, &call, "in_progress"), events);
        // The deltas number the calls in order; one numbered otherwise is kept at its place.
        while self.calls.len() < index {
            self.calls.push((usize::MAX, String::new()));
        }
        if index < self.calls.len() {
            self.calls[index] = (at, id);
        } else {
            self.calls.push((at, id));
        }
        self.open = Some(Open::Call { at, call: index });
    }

    /// A piece of a call's arguments. A piece for a call already closed (a server that
    /// interleaves its calls) still goes to that call's item, by its output index: the final
    /// response has the call whole.
    fn arguments(&mut self, index: usize, piece: String, events: &mut Vec<Value>) {
        let Some((at, id)) = self.calls.get(index).cloned() else {
            return;
        };
        let Some(item) = self.output.get_mut(at) else {
            return;
        };
        if let Some(Value::String(arguments)) = item.get_mut("arguments") {
            arguments.push_str(&piece);
        }
        events.push(self.event(
            "response.function_call_arguments.delta",
            json!({"item_id": id, "output_index": at, "delta": piece}),
        ));
    }

    /// The open item's closing events, and its whole self in the output.
    fn close(&mut self, events: &mut Vec<Value>) {
        match self.open.take() {
            None => {}
            Some(Open::Message { at, id, text }) => {
                events.push(self.event(
                    "response.output_text.done",
                    json!({"item_id": id, "output_index": at, "content_index": 0, "text": text, "logprobs": []}),
                ));
                events.push(self.event(
                    "response.content_part.done",
                    json!({"item_id": id, "output_index": at, "content_index": 0, "part": output_text(&text)}),
                ));
                self.done(at, message_item(&id, &text, "completed"), events);
            }
            Some(Open::Reasoning { at, id, text }) => {
                events.push(self.event(
                    "response.reasoning_summary_text.done",
                    json!({"item_id": id, "output_index": at, "summary_index": 0, "text": text}),
                ));
                events.push(self.event(
                    "response.reasoning_summary_part.done",
                    json!({
                        "item_id": id,
                        "output_index": at,
                        "summary_index": 0,
                        "part": {"type": "summary_text", "text": text},
                    }),
                ));
                self.done(at, reasoning_item(&id, &text, true), events);
            }
            Some(Open::Call { at, call }) => {
                let Some(mut item) = self.output.get(at).cloned() else {
                    return;
                };
                let id = self
                    .calls
                    .get(call)
                    .map(|(_, id)| id.clone())
                    .unwrap_or_default();
                let arguments = item.get("arguments").cloned().unwrap_or_else(|| json!(""));
                events.push(self.event(
                    "response.function_call_arguments.done",
                    json!({"item_id": id, "output_index": at, "arguments": arguments}),
                ));
                item["status"] = json!("completed");
                self.done(at, item, events);
            }
        }
    }

    fn done(&mut self, at: usize, item: Value, events: &mut Vec<Value>) {
        if let Some(slot) = self.output.get_mut(at) {
            slot.clone_from(&item);
        }
        events.push(self.event(
            "response.output_item.done",
            json!({"output_index": at, "item": item}),
        ));
    }
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/// An error as the last event of a Responses stream.
pub fn write_error_event(error: &ErrorBody) -> Value {
    json!({
        "type": "error",
        "code": error.code.as_deref().unwrap_or(&error.kind),
        "message": error.message,
        "param": error.param,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::super::fixtures::{
        self, call, check_responses_events, conversation, llama_responses_stream, masked, object,
        read_all, text,
    };
    use super::super::ir::{
        Delta, Finish, Message, Part, Reply, Request, ResponseFormat, Role, ToolChoice, ToolResult,
        Usage,
    };
    use super::{
        Reader, Writer, read_reply, read_request, write_error_event, write_reply, write_request,
    };

    /// The conversation of [`fixtures::conversation`], as a Responses client writes it.
    fn conversation_json() -> Value {
        json!({
            "model": "m",
            "instructions": "You are terse.",
            "input": [
                {"type": "message", "role": "user", "content": [
                    {"type": "input_text", "text": "What is the weather in Paris and Rome? Here is a map."},
                    {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo=", "detail": "auto"},
                ]},
                {"type": "message", "role": "assistant", "content": "Let me look."},
                {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": "{\"city\":\"Paris\"}"},
                {"type": "function_call", "call_id": "call_2", "name": "get_weather", "arguments": "{\"city\":\"Rome\"}"},
                {"type": "function_call_output", "call_id": "call_1", "output": "18°C"},
                {"type": "function_call_output", "call_id": "call_2", "output": "24°C"},
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Which is warmer?"}]},
            ],
            "tools": [{
                "type": "function",
                "name": "get_weather",
                "description": "The weather in a city",
                "parameters": {
                    "type": "object",
                    "properties": {"city": {"type": "string"}},
                    "required": ["city"],
                },
                "strict": false,
            }],
            "tool_choice": "auto",
            "max_output_tokens": 512,
            "temperature": 0.5,
            "user": "u-1",
            "store": false,
        })
    }

    #[test]
    fn reads_the_conversation() {
        let read = read_request(&object(conversation_json())).unwrap();
        let expected = Request {
            store: Some(false),
            ..conversation()
        };
        assert_eq!(read, expected);
    }

    /// The exact request written for the conversation, as the Responses API has it.
    #[test]
    fn writes_the_conversation() {
        let written = write_request(&conversation()).unwrap();
        assert_eq!(Value::Object(written), conversation_json());
    }

    #[test]
    fn a_request_read_and_written_is_the_same() {
        let request = json!({
            "model": "m",
            "input": [
                {"role": "user", "content": "Describe these."},
                {"type": "message", "role": "user", "content": [
                    {"type": "input_image", "image_url": "https://example.com/a.png", "detail": "low"},
                    {"type": "input_file", "file_data": "data:application/pdf;base64,JVBERi0=", "filename": "a.pdf"},
                ]},
                {"type": "function_call", "id": "fc_1", "call_id": "call_a", "name": "look", "arguments": "{}", "status": "completed"},
                {"type": "function_call_output", "call_id": "call_a", "output": [
                    {"type": "input_text", "text": "a cat"},
                    {"type": "input_image", "image_url": "https://example.com/cat.png", "detail": "high"},
                ]},
                {"role": "developer", "content": "Be brief."},
                {"type": "message", "role": "assistant", "id": "msg_1", "status": "completed", "content": [
                    {"type": "output_text", "text": "A cat.", "annotations": []},
                ]},
            ],
            "tools": [{"type": "function", "name": "look", "parameters": {"type": "object", "properties": {}}, "strict": true}],
            "tool_choice": {"type": "function", "name": "look"},
            "parallel_tool_calls": false,
            "max_output_tokens": 100,
            "top_p": 0.9,
            "text": {"format": {"type": "json_schema", "name": "things", "description": "What they are", "schema": {"type": "object"}, "strict": true}},
            "reasoning": {"effort": "low", "summary": "auto"},
            "user": "u",
            "metadata": {"tag": "x"},
            "store": true,
            "previous_response_id": "resp_0",
            "stream": true,
            "max_tool_calls": 3,
            "include": [],
            "background": false,
            "truncation": "disabled",
            "service_tier": null,
        });
        let read = read_request(&object(request)).unwrap();
        let written = Value::Object(write_request(&read).unwrap());
        assert_eq!(
            written,
            json!({
                "model": "m",
                "input": [
                    // Two user messages in a row are two messages still.
                    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Describe these."}]},
                    {"type": "message", "role": "user", "content": [
                        {"type": "input_image", "image_url": "https://example.com/a.png", "detail": "low"},
                        {"type": "input_file", "file_data": "data:application/pdf;base64,JVBERi0=", "filename": "a.pdf"},
                    ]},
                    {"type": "function_call", "call_id": "call_a", "name": "look", "arguments": "{}"},
                    {"type": "function_call_output", "call_id": "call_a", "output": [
                        {"type": "input_text", "text": "a cat"},
                        {"type": "input_image", "image_url": "https://example.com/cat.png", "detail": "high"},
                    ]},
                    {"type": "message", "role": "system", "content": "Be brief."},
                    {"type": "message", "role": "assistant", "content": "A cat."},
                ],
                "tools": [{"type": "function", "name": "look", "parameters": {"type": "object", "properties": {}}, "strict": true}],
                "tool_choice": {"type": "function", "name": "look"},
                "parallel_tool_calls": false,
                "max_output_tokens": 100,
                "top_p": 0.9,
                "text": {"format": {"type": "json_schema", "name": "things", "description": "What they are", "schema": {"type": "object"}, "strict": true}},
                "reasoning": {"effort": "low"},
                "user": "u",
                "metadata": {"tag": "x"},
                "store": true,
                "previous_response_id": "resp_0",
                "stream": true,
            })
        );
    }

    /// A reasoning item with words is reasoning; its encrypted copy is OpenAI's only; it is not
    /// written back to a Responses upstream, which takes back only its own.
    #[test]
    fn reasoning_is_read_and_not_written_back() {
        let request = json!({"input": [
            {"role": "user", "content": "hi"},
            {"type": "reasoning", "id": "rs_1", "summary": [
                {"type": "summary_text", "text": "One."}, {"type": "summary_text", "text": "Two."},
            ], "encrypted_content": "gAAAA"},
            {"type": "reasoning", "id": "rs_2", "summary": [], "content": [{"type": "reasoning_text", "text": "Full."}]},
            {"type": "reasoning", "id": "rs_3", "summary": []},
            {"type": "message", "role": "assistant", "content": "Hello."},
        ]});
        let read = read_request(&object(request)).unwrap();
        assert_eq!(
            read.messages[1],
            Message {
                role: Role::Assistant,
                parts: vec![
                    Part::Reasoning {
                        text: "One.\n\nTwo.".to_owned(),
                        signature: None
                    },
                    Part::Reasoning {
                        text: "Full.".to_owned(),
                        signature: None
                    },
                    text("Hello."),
                ],
            }
        );
        let written = write_request(&read).unwrap();
        assert_eq!(
            written["input"][1],
            json!({"type": "message", "role": "assistant", "content": "Hello."})
        );
        assert_eq!(written["input"].as_array().unwrap().len(), 2);
    }

    #[test]
    fn a_string_input_is_a_user_message_and_tools_left_unsaid_are_not_strict() {
        let read = read_request(&object(json!({"input": "hi", "tools": [
            {"type": "function", "name": "f", "parameters": {"type": "object"}},
        ]})))
        .unwrap();
        assert_eq!(
            read.messages,
            vec![Message {
                role: Role::User,
                parts: vec![text("hi")]
            }]
        );
        assert_eq!(write_request(&read).unwrap()["tools"][0]["strict"], false);
    }

    /// Each refused thing names its field and says what to do.
    #[test]
    fn refusals_name_the_field_and_what_to_do() {
        let web_search = "`tools[0]` is `web_search`, a built-in tool of OpenAI's; an upstream \
            that speaks another API than Responses has no such tool: remove it, or point the \
            gateway at an upstream that speaks the Responses API.";
        let cases = [
            (json!({"background": true}), "background", "Remove it"),
            (
                json!({"conversation": "conv_1"}),
                "conversation",
                "Responses API",
            ),
            (
                json!({"prompt": {"id": "pmpt_1"}}),
                "prompt",
                "Responses API",
            ),
            (
                json!({"include": ["reasoning.encrypted_content"]}),
                "include",
                "Remove it",
            ),
            (json!({"truncation": "auto"}), "truncation", "Remove it"),
            (json!({"top_logprobs": 3}), "top_logprobs", "Remove it"),
            (json!({"service_tier": "flex"}), "service_tier", "Remove it"),
            (json!({"text": {"verbosity": "low"}}), "text", "remove it"),
            (json!({"sneaky": 1}), "request", "`sneaky`"),
            (
                json!({"max_output_tokens": -1}),
                "max_output_tokens",
                "`max_output_tokens`",
            ),
            (
                json!({"tools": [{"type": "web_search"}]}),
                "tools",
                web_search,
            ),
            (
                json!({"tools": [{"type": "code_interpreter", "container": {}}]}),
                "tools",
                "`code_interpreter`, a built-in tool",
            ),
            (
                json!({"tools": [{"type": "custom", "name": "x"}]}),
                "tools",
                "`custom`, a built-in tool",
            ),
            (
                json!({"tool_choice": {"type": "allowed_tools", "mode": "auto", "tools": []}}),
                "tool_choice",
                "`allowed_tools`",
            ),
            (
                json!({"tool_choice": {"type": "file_search"}}),
                "tool_choice",
                "point the gateway",
            ),
            (
                json!({"input": [{"type": "item_reference", "id": "msg_1"}]}),
                "input",
                "`item_reference`",
            ),
            (
                json!({"input": [{"type": "web_search_call", "id": "ws_1"}]}),
                "input",
                "`web_search_call`",
            ),
            (
                json!({"input": [{"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA"}]}),
                "input",
                "encrypted",
            ),
            (
                json!({"input": [{"role": "user", "content": [{"type": "input_image", "file_id": "file-1"}]}]}),
                "input",
                "`image_url`",
            ),
            (
                json!({"input": [{"role": "user", "content": [{"type": "input_file", "file_id": "file-1"}]}]}),
                "input",
                "`file_data`",
            ),
            (
                json!({"input": [{"role": "user", "content": [{"type": "input_file", "file_url": "https://x/a.pdf"}]}]}),
                "input",
                "`file_data`",
            ),
            (
                json!({"input": [{"role": "user", "content": [{"type": "input_audio"}]}]}),
                "input",
                "transcript",
            ),
            (
                json!({"input": [{"role": "tool", "content": "x"}]}),
                "input",
                "`tool`",
            ),
            (json!({"input": 5}), "input", "neither"),
        ];
        for (request, param, words) in cases {
            let refusal = read_request(&object(request)).unwrap_err();
            assert_eq!(refusal.param, param, "{refusal:?}");
            assert!(refusal.message.contains(words), "{words}: {refusal:?}");
        }
        let refusal = write_request(&Request {
            stop: vec!["END".to_owned()],
            ..Request::default()
        })
        .unwrap_err();
        assert_eq!(refusal.param, "stop");
    }

    /// The exact response written for a reply, as the openai SDK's `Response` has it.
    #[test]
    fn writes_a_reply() {
        let written = masked(write_reply(&fixtures::reply(), &conversation()));
        assert_eq!(
            written,
            json!({
                "id": "resp_*",
                "object": "response",
                "created_at": 1_700_000_000,
                "status": "completed",
                "model": "m",
                "output": [
                    {"id": "rs_*", "type": "reasoning", "summary": [{"type": "summary_text", "text": "Paris is cooler."}]},
                    {"id": "msg_*", "type": "message", "status": "completed", "role": "assistant", "content": [
                        {"type": "output_text", "text": "Rome is warmer.", "annotations": [], "logprobs": []},
                    ]},
                    {"id": "fc_*", "type": "function_call", "status": "completed", "call_id": "call_3", "name": "get_weather", "arguments": "{\"city\":\"Milan\"}"},
                ],
                "usage": {
                    "input_tokens": 100,
                    "input_tokens_details": {"cached_tokens": 40},
                    "output_tokens": 20,
                    "output_tokens_details": {"reasoning_tokens": 5},
                    "total_tokens": 120,
                },
                "error": null,
                "incomplete_details": null,
                "instructions": "You are terse.",
                "max_output_tokens": 512,
                "metadata": {},
                "parallel_tool_calls": true,
                "previous_response_id": null,
                "reasoning": {"effort": null, "summary": null},
                "store": true,
                "temperature": 0.5,
                "text": {"format": {"type": "text"}},
                "tool_choice": "auto",
                "tools": [{
                    "type": "function",
                    "name": "get_weather",
                    "description": "The weather in a city",
                    "parameters": fixtures::weather_schema(),
                    "strict": false,
                }],
                "top_p": null,
                "truncation": "disabled",
                "user": "u-1",
            })
        );
        let read = read_reply(&write_reply(&fixtures::reply(), &conversation())).unwrap();
        assert_eq!(read.parts, fixtures::reply().parts);
        assert_eq!(read.finish, Finish::ToolCalls);
        assert_eq!(read.usage, fixtures::reply().usage);
    }

    #[test]
    fn a_cut_reply_is_incomplete() {
        let reply = Reply {
            finish: Finish::Length,
            ..fixtures::reply()
        };
        let written = write_reply(&reply, &Request::default());
        assert_eq!(written["status"], "incomplete");
        assert_eq!(
            written["incomplete_details"],
            json!({"reason": "max_output_tokens"})
        );
        assert_eq!(read_reply(&written).unwrap().finish, Finish::Length);
        let reply = Reply {
            finish: Finish::ContentFilter,
            ..fixtures::reply()
        };
        let written = write_reply(&reply, &Request::default());
        assert_eq!(
            written["incomplete_details"],
            json!({"reason": "content_filter"})
        );
    }

    #[test]
    fn reads_a_reply() {
        let reply = json!({
            "id": "resp_1",
            "object": "response",
            "created_at": 1_741_476_542.5,
            "status": "completed",
            "model": "gpt",
            "output": [
                {"id": "rs_1", "type": "reasoning", "summary": [{"type": "summary_text", "text": "Think."}], "encrypted_content": "gAAA"},
                {"id": "ws_1", "type": "web_search_call", "status": "completed"},
                {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed", "content": [
                    {"type": "output_text", "text": "Hello.", "annotations": []},
                    {"type": "refusal", "refusal": "No."},
                ]},
                {"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "f", "arguments": "{}", "status": "completed"},
            ],
            "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15},
        });
        assert_eq!(
            read_reply(&reply).unwrap(),
            Reply {
                id: "resp_1".to_owned(),
                model: Some("gpt".to_owned()),
                created: Some(1_741_476_542),
                parts: vec![
                    Part::Reasoning {
                        text: "Think.".to_owned(),
                        signature: None
                    },
                    text("Hello."),
                    text("No."),
                    Part::Call(super::super::ir::Call {
                        id: "call_1".to_owned(),
                        name: "f".to_owned(),
                        arguments: "{}".to_owned(),
                    }),
                ],
                finish: Finish::ToolCalls,
                usage: Some(Usage {
                    input: 10,
                    output: 5,
                    cached_input: None,
                    reasoning: None
                }),
            }
        );
        let failed = json!({"id": "resp_1", "status": "failed", "output": [], "error": {"code": "server_error", "message": "boom"}});
        assert_eq!(read_reply(&failed).unwrap_err(), "boom");
        assert_eq!(
            read_reply(&json!({"error": {"message": "nope"}})).unwrap_err(),
            "nope"
        );
    }

    #[test]
    fn reads_llama_cpps_stream_without_indexes() {
        let mut reader = Reader::default();
        let deltas = read_all(|event| reader.read(event), &llama_responses_stream());
        assert_eq!(
            deltas,
            vec![
                Delta::Start {
                    id: "resp_RH9".to_owned(),
                    model: None,
                    created: None
                },
                Delta::CallStart {
                    index: 0,
                    id: "call_k83".to_owned(),
                    name: "get_weather".to_owned()
                },
                Delta::CallArguments {
                    index: 0,
                    delta: "{".to_owned()
                },
                Delta::Usage(Usage {
                    input: 362,
                    output: 14,
                    cached_input: Some(361),
                    reasoning: None
                }),
                Delta::Finish(Finish::ToolCalls),
            ]
        );
    }

    /// What deltas did not give, a `.done` or the final response gives; what they gave is not
    /// given twice.
    #[test]
    fn whole_items_give_what_deltas_did_not() {
        let mut reader = Reader::default();
        let events = [
            json!({"type": "response.created", "sequence_number": 0, "response": {"id": "resp_1", "model": "m", "created_at": 5}}),
            json!({"type": "response.output_item.added", "output_index": 0, "item": {"id": "rs_1", "type": "reasoning", "summary": []}}),
            json!({"type": "response.reasoning_summary_part.added", "output_index": 0, "item_id": "rs_1", "summary_index": 0}),
            json!({"type": "response.reasoning_summary_text.delta", "output_index": 0, "item_id": "rs_1", "delta": "A"}),
            json!({"type": "response.reasoning_summary_part.added", "output_index": 0, "item_id": "rs_1", "summary_index": 1}),
            json!({"type": "response.reasoning_summary_text.delta", "output_index": 0, "item_id": "rs_1", "delta": "B"}),
            json!({"type": "response.output_item.done", "output_index": 0, "item": {"id": "rs_1", "type": "reasoning", "summary": [
                {"type": "summary_text", "text": "A"}, {"type": "summary_text", "text": "B"},
            ]}}),
            json!({"type": "response.output_item.added", "output_index": 1, "item": {"id": "msg_1", "type": "message", "content": []}}),
            json!({"type": "response.output_text.delta", "output_index": 1, "item_id": "msg_1", "content_index": 0, "delta": "Hel"}),
            json!({"type": "response.output_text.done", "output_index": 1, "item_id": "msg_1", "content_index": 0, "text": "Hello"}),
            json!({"type": "response.output_item.done", "output_index": 1, "item": {"id": "msg_1", "type": "message", "content": [{"type": "output_text", "text": "Hello"}]}}),
            json!({"type": "response.completed", "response": {"id": "resp_1", "status": "completed", "output": [
                {"id": "rs_1", "type": "reasoning", "summary": [{"type": "summary_text", "text": "A"}, {"type": "summary_text", "text": "B"}]},
                {"id": "msg_1", "type": "message", "content": [{"type": "output_text", "text": "Hello"}]},
                {"id": "fc_9", "type": "function_call", "call_id": "call_9", "name": "f", "arguments": "{}"},
            ]}}),
        ];
        let deltas = read_all(|event| reader.read(event), &events);
        assert_eq!(
            deltas,
            vec![
                Delta::Start {
                    id: "resp_1".to_owned(),
                    model: Some("m".to_owned()),
                    created: Some(5)
                },
                Delta::Reasoning("A".to_owned()),
                Delta::Reasoning("\n\n".to_owned()),
                Delta::Reasoning("B".to_owned()),
                Delta::Text("Hel".to_owned()),
                Delta::Text("lo".to_owned()),
                Delta::CallStart {
                    index: 0,
                    id: "call_9".to_owned(),
                    name: "f".to_owned()
                },
                Delta::CallArguments {
                    index: 0,
                    delta: "{}".to_owned()
                },
                Delta::Finish(Finish::ToolCalls),
            ]
        );
    }

    #[test]
    fn reads_errors_and_cut_streams() {
        let mut reader = Reader::default();
        let error = reader
            .read(&json!({"type": "error", "code": "rate_limit_exceeded", "message": "slow down", "param": null}))
            .unwrap_err();
        assert_eq!(error.message, "slow down");
        assert_eq!(error.code.as_deref(), Some("rate_limit_exceeded"));
        let error = reader
            .read(&json!({"type": "response.failed", "response": {"id": "r", "status": "failed", "error": {"code": "server_error", "message": "boom"}}}))
            .unwrap_err();
        assert_eq!(error.message, "boom");
        let deltas = reader
            .read(&json!({"type": "response.incomplete", "response": {"id": "r", "status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}}}))
            .unwrap();
        assert_eq!(deltas.last(), Some(&Delta::Finish(Finish::Length)));
        assert!(
            reader
                .read(&json!({"type": "response.something_new"}))
                .unwrap()
                .is_empty()
        );
    }

    /// The exact events written for a short stream of text.
    #[test]
    fn writes_the_events_of_a_text() {
        let request = Request {
            model: Some("m".to_owned()),
            ..Request::default()
        };
        let mut writer = Writer::new(&request);
        let mut events = Vec::new();
        for delta in [
            Delta::Start {
                id: "chatcmpl-1".to_owned(),
                model: None,
                created: Some(9),
            },
            Delta::Text("Hi".to_owned()),
            Delta::Text("!".to_owned()),
            Delta::Finish(Finish::Stop),
            Delta::Usage(Usage {
                input: 3,
                output: 2,
                cached_input: None,
                reasoning: None,
            }),
        ] {
            events.extend(writer.write(delta));
        }
        events.extend(writer.finish());
        let response = |status: &str, output: Value, usage: Value| {
            json!({
                "id": "resp_*", "object": "response", "created_at": 9, "status": status,
                "model": "m", "output": output, "usage": usage, "error": null,
                "incomplete_details": null, "instructions": null, "max_output_tokens": null,
                "metadata": {}, "parallel_tool_calls": true, "previous_response_id": null,
                "reasoning": {"effort": null, "summary": null}, "store": true,
                "temperature": null, "text": {"format": {"type": "text"}}, "tool_choice": "auto",
                "tools": [], "top_p": null, "truncation": "disabled", "user": null,
            })
        };
        let part = |text: &str| json!({"type": "output_text", "text": text, "annotations": [], "logprobs": []});
        let item = |status: &str, content: Value| json!({"id": "msg_*", "type": "message", "status": status, "role": "assistant", "content": content});
        let at = json!({"item_id": "msg_*", "output_index": 0, "content_index": 0});
        let with = |kind: &str, number: u64, fields: Value| {
            let mut event = json!({"type": kind});
            for (key, value) in fields.as_object().unwrap() {
                event[key] = value.clone();
            }
            event["sequence_number"] = json!(number);
            event
        };
        let merged = |extra: Value| {
            let mut fields = at.clone();
            for (key, value) in extra.as_object().unwrap() {
                fields[key] = value.clone();
            }
            fields
        };
        assert_eq!(
            masked(Value::Array(events)),
            json!([
                with(
                    "response.created",
                    0,
                    json!({"response": response("in_progress", json!([]), Value::Null)})
                ),
                with(
                    "response.in_progress",
                    1,
                    json!({"response": response("in_progress", json!([]), Value::Null)})
                ),
                with(
                    "response.output_item.added",
                    2,
                    json!({"output_index": 0, "item": item("in_progress", json!([]))})
                ),
                with(
                    "response.content_part.added",
                    3,
                    merged(json!({"part": part("")}))
                ),
                with(
                    "response.output_text.delta",
                    4,
                    merged(json!({"delta": "Hi", "logprobs": []}))
                ),
                with(
                    "response.output_text.delta",
                    5,
                    merged(json!({"delta": "!", "logprobs": []}))
                ),
                with(
                    "response.output_text.done",
                    6,
                    merged(json!({"text": "Hi!", "logprobs": []}))
                ),
                with(
                    "response.content_part.done",
                    7,
                    merged(json!({"part": part("Hi!")}))
                ),
                with(
                    "response.output_item.done",
                    8,
                    json!({"output_index": 0, "item": item("completed", json!([part("Hi!")]))})
                ),
                with(
                    "response.completed",
                    9,
                    json!({"response": response(
                        "completed",
                        json!([item("completed", json!([part("Hi!")]))]),
                        json!({"input_tokens": 3, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 2, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 5}),
                    )})
                ),
            ])
        );
    }

    /// Reasoning, text, calls, and text after a call (a new message): every item closed in
    /// order, every event numbered.
    #[test]
    fn writes_items_in_a_valid_order() {
        let mut writer = Writer::new(&conversation());
        let mut events = Vec::new();
        for delta in [
            Delta::Reasoning("Hm".to_owned()),
            Delta::Reasoning("m.".to_owned()),
            Delta::Text("Let me look.".to_owned()),
            Delta::CallStart {
                index: 0,
                id: "call_1".to_owned(),
                name: "f".to_owned(),
            },
            Delta::CallArguments {
                index: 0,
                delta: "{\"a\":".to_owned(),
            },
            Delta::CallArguments {
                index: 0,
                delta: "1}".to_owned(),
            },
            Delta::CallStart {
                index: 1,
                id: "call_2".to_owned(),
                name: "g".to_owned(),
            },
            Delta::Text("And more.".to_owned()),
            Delta::Finish(Finish::ToolCalls),
        ] {
            events.extend(writer.write(delta));
        }
        events.extend(writer.finish());
        let response = check_responses_events(&events);
        let read = read_reply(&response).unwrap();
        assert_eq!(
            read.parts,
            vec![
                Part::Reasoning {
                    text: "Hmm.".to_owned(),
                    signature: None
                },
                text("Let me look."),
                Part::Call(super::super::ir::Call {
                    id: "call_1".to_owned(),
                    name: "f".to_owned(),
                    arguments: "{\"a\":1}".to_owned()
                }),
                Part::Call(super::super::ir::Call {
                    id: "call_2".to_owned(),
                    name: "g".to_owned(),
                    arguments: String::new()
                }),
                text("And more."),
            ]
        );
        assert_eq!(response["status"], "completed");
        assert_eq!(response["instructions"], "You are terse.");
    }

    #[test]
    fn an_error_event() {
        let error = super::super::ir::ErrorBody {
            message: "boom".to_owned(),
            kind: "server_error".to_owned(),
            code: None,
            param: None,
        };
        assert_eq!(
            write_error_event(&error),
            json!({"type": "error", "code": "server_error", "message": "boom", "param": null})
        );
    }

    #[test]
    fn results_first_then_words_and_an_empty_output() {
        let request = Request {
            messages: vec![Message {
                role: Role::User,
                parts: vec![
                    text("and?"),
                    Part::Result(ToolResult {
                        call_id: "a".to_owned(),
                        content: vec![],
                        is_error: true,
                    }),
                ],
            }],
            tool_choice: Some(ToolChoice::Required),
            response_format: Some(ResponseFormat::JsonObject),
            ..Request::default()
        };
        let written = write_request(&request).unwrap();
        assert_eq!(
            written["input"],
            json!([
                {"type": "function_call_output", "call_id": "a", "output": ""},
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "and?"}]},
            ])
        );
        assert_eq!(written["tool_choice"], "required");
        assert_eq!(written["text"], json!({"format": {"type": "json_object"}}));
        let _ = call;
    }
}
