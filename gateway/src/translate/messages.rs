//! Anthropic Messages (`POST /v1/messages`), as Anthropic speaks it and as llama.cpp copies it:
//! requests, replies, stream events and errors, read into the conversation of
//! [`ir`](super::ir) and written from it.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::common::{
    arguments_object, budget_of_effort, calls, data_url, effective_finish, id_with_prefix,
    is_empty, misplaced, new_id, null_as_default, parse, parse_reply, push_text, split_data_url,
    system_text, unknown_field, untranslatable,
};
use super::ir::{
    Call, Delta, ErrorBody, Finish, Message, Part, Refusal, Reply, Request, ResponseFormat, Role,
    Tool, ToolChoice, ToolResult, Usage,
};

/// The API's name in refusals.
const API: &str = "Messages";

/// The `max_tokens` written when the client gave none: Messages requires one, and the OpenAI
/// APIs let the model run to its context's end. 4096 is what Anthropic's own examples ask for
/// and every Claude model can give; a thinking budget is added to it, since `max_tokens` must
/// exceed the budget.
pub const DEFAULT_MAX_TOKENS: u64 = 4096;

// ---------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------

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

/// A text block (of `system`, a message, or a tool result).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TextBlock {
    #[serde(rename = "type")]
    _kind: String,
    text: String,
    citations: Option<Value>,
    #[serde(rename = "cache_control")]
    _cache_control: Option<Value>,
}

impl TextBlock {
    fn read(self, at: &str, param: &'static str) -> Result<Option<Part>, Refusal> {
        if self
            .citations
            .as_ref()
            .is_some_and(|citations| !is_empty(citations))
        {
            return Err(Refusal::new(
                param,
                format!(
                    "`{at}.citations` cites documents as only Anthropic can: an upstream that \
                     speaks another API cannot take citations. Remove them."
                ),
            ));
        }
        Ok((!self.text.is_empty()).then_some(Part::Text { text: self.text }))
    }
}

fn read_system(value: &Value) -> Result<Vec<Part>, Refusal> {
    let mut parts = Vec::new();
    match value {
        Value::String(text) => push_text(&mut parts, text),
        _ => {
            let blocks: Vec<Value> = parse("system", "system", value)?;
            for (index, block) in blocks.iter().enumerate() {
                let at = format!("system[{index}]");
                let kind = block
                    .get("type")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                if kind != "text" {
                    return Err(Refusal::new(
                        "system",
                        format!("`{at}` is a `{kind}` block: the system prompt is text."),
                    ));
                }
                let block: TextBlock = parse("system", &at, block)?;
                parts.extend(block.read(&at, "system")?);
            }
        }
    }
    Ok(parts)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MessageParam {
    role: String,
    content: Value,
}

fn read_messages(value: &Value) -> Result<Vec<Message>, Refusal> {
    let items: Vec<Value> = parse("messages", "messages", value)?;
    let mut messages = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let at = format!("messages[{index}]");
        let message: MessageParam = parse("messages", &at, item)?;
        let role = match message.role.as_str() {
            "user" => Role::User,
            "assistant" => Role::Assistant,
            other => {
                return Err(Refusal::new(
                    "messages",
                    format!(
                        "`{at}.role` is `{other}`: a message is the `user`'s or the `assistant`'s."
                    ),
                ));
            }
        };
        let at = format!("{at}.content");
        let mut parts = Vec::new();
        match &message.content {
            Value::String(text) => push_text(&mut parts, text),
            content => {
                let blocks: Vec<Value> = parse("messages", &at, content)?;
                for (index, block) in blocks.iter().enumerate() {
                    parts.extend(read_block(block, &format!("{at}[{index}]"), role)?);
                }
            }
        }
        messages.push(Message { role, parts });
    }
    Ok(messages)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ImageBlock {
    #[serde(rename = "type")]
    _kind: String,
    source: Value,
    #[serde(rename = "cache_control")]
    _cache_control: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DocumentBlock {
    #[serde(rename = "type")]
    _kind: String,
    source: Value,
    title: Option<String>,
    context: Option<String>,
    citations: Option<Value>,
    #[serde(rename = "cache_control")]
    _cache_control: Option<Value>,
}

/// A base64 source (of an image or a document).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Base64Source {
    #[serde(rename = "type")]
    _kind: String,
    media_type: String,
    data: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UrlSource {
    #[serde(rename = "type")]
    _kind: String,
    url: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolUseBlock {
    #[serde(rename = "type")]
    _kind: String,
    id: String,
    name: String,
    input: Value,
    #[serde(rename = "cache_control")]
    _cache_control: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolResultBlock {
    #[serde(rename = "type")]
    _kind: String,
    tool_use_id: String,
    content: Option<Value>,
    is_error: Option<bool>,
    #[serde(rename = "cache_control")]
    _cache_control: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ThinkingBlock {
    #[serde(rename = "type")]
    _kind: String,
    thinking: String,
    signature: Option<String>,
    #[serde(rename = "cache_control")]
    _cache_control: Option<Value>,
}

/// One content block of a message.
fn read_block(block: &Value, at: &str, role: Role) -> Result<Option<Part>, Refusal> {
    let kind = block
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let part = match kind {
        "text" => return parse::<TextBlock>("messages", at, block)?.read(at, "messages"),
        "image" => {
            let block: ImageBlock = parse("messages", at, block)?;
            read_image(&block.source, &format!("{at}.source"))?
        }
        "document" => {
            let block: DocumentBlock = parse("messages", at, block)?;
            read_document(block, at)?
        }
        "tool_use" => {
            let block: ToolUseBlock = parse("messages", at, block)?;
            Part::Call(Call {
                id: block.id,
                name: block.name,
                arguments: block.input.to_string(),
            })
        }
        "tool_result" => {
            let block: ToolResultBlock = parse("messages", at, block)?;
            let content = match &block.content {
                None => Vec::new(),
                Some(content) => read_result_content(content, &format!("{at}.content"))?,
            };
            Part::Result(ToolResult {
                call_id: block.tool_use_id,
                content,
                is_error: block.is_error.unwrap_or(false),
            })
        }
        "thinking" => {
            let block: ThinkingBlock = parse("messages", at, block)?;
            Part::Reasoning {
                text: block.thinking,
                signature: block.signature.filter(|signature| !signature.is_empty()),
            }
        }
        "redacted_thinking" => {
            return Err(Refusal::new(
                "messages",
                format!(
                    "`{at}` is thinking Anthropic encrypted, which only Anthropic can read: an \
                     upstream that speaks another API cannot take it. Remove it, or point the \
                     gateway at an upstream that speaks the Messages API."
                ),
            ));
        }
        other => {
            return Err(Refusal::new(
                "messages",
                format!(
                    "`{at}` is a `{other}` block, which only Anthropic's Messages API has: an \
                     upstream that speaks another API cannot take it. Remove it, or point the \
                     gateway at an upstream that speaks the Messages API."
                ),
            ));
        }
    };
    let fits = match (&part, role) {
        (Part::Call(_) | Part::Reasoning { .. }, Role::Assistant) => true,
        (Part::Call(_) | Part::Reasoning { .. }, _) => false,
        (Part::Result(_) | Part::Image { .. } | Part::File { .. }, Role::User) => true,
        (Part::Result(_) | Part::Image { .. } | Part::File { .. }, _) => false,
        (Part::Text { .. }, _) => true,
    };
    if fits {
        Ok(Some(part))
    } else {
        Err(misplaced("messages", role, &part))
    }
}

/// An image's source: base64 data (a `data:` URL here) or a URL.
fn read_image(source: &Value, at: &str) -> Result<Part, Refusal> {
    match source.get("type").and_then(Value::as_str) {
        Some("base64") => {
            let source: Base64Source = parse("messages", at, source)?;
            Ok(Part::Image {
                url: data_url(&source.media_type, &source.data),
                detail: None,
            })
        }
        Some("url") => {
            let source: UrlSource = parse("messages", at, source)?;
            Ok(Part::Image {
                url: source.url,
                detail: None,
            })
        }
        kind => Err(Refusal::new(
            "messages",
            format!(
                "`{at}` is an image source of type `{}`, which an upstream that speaks another \
                 API cannot read: give the image as `base64` data or a `url`.",
                kind.unwrap_or_default()
            ),
        )),
    }
}

/// A document: a PDF given as base64 data is a file; its title is its name.
fn read_document(block: DocumentBlock, at: &str) -> Result<Part, Refusal> {
    if block.context.is_some() || block.citations.is_some() {
        return Err(Refusal::new(
            "messages",
            format!(
                "`{at}` has `context` or `citations`, which only Anthropic's Messages API has: \
                 remove them, or say the context in a text block."
            ),
        ));
    }
    let at = format!("{at}.source");
    let base64 = block.source.get("type").and_then(Value::as_str) == Some("base64");
    let source = base64
        .then(|| parse::<Base64Source>("messages", &at, &block.source))
        .transpose()?
        .filter(|source| source.media_type == "application/pdf");
    match source {
        Some(source) => Ok(Part::File {
            data: data_url(&source.media_type, &source.data),
            filename: block.title,
        }),
        None => Err(Refusal::new(
            "messages",
            format!(
                "`{at}` is not a PDF given as base64 data, the one kind of document an upstream \
                 that speaks another API can take: give the text in a text block, or the PDF as \
                 `{{\"type\": \"base64\", \"media_type\": \"application/pdf\", \"data\": …}}`."
            ),
        )),
    }
}

/// A tool result's content: a string, or text, image and document blocks.
fn read_result_content(content: &Value, at: &str) -> Result<Vec<Part>, Refusal> {
    let mut parts = Vec::new();
    match content {
        Value::String(text) => push_text(&mut parts, text),
        _ => {
            let blocks: Vec<Value> = parse("messages", at, content)?;
            for (index, block) in blocks.iter().enumerate() {
                let at = format!("{at}[{index}]");
                match block.get("type").and_then(Value::as_str) {
                    Some("text" | "image" | "document") => {
                        parts.extend(read_block(block, &at, Role::User)?);
                    }
                    kind => {
                        return Err(Refusal::new(
                            "messages",
                            format!(
                                "`{at}` is a `{}` block: a tool result the gateway can carry \
                                 holds text, images and PDF documents.",
                                kind.unwrap_or_default()
                            ),
                        ));
                    }
                }
            }
        }
    }
    Ok(parts)
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

/// Writes a Messages request. All system messages are the `system` prompt (a blank line between
/// them); consecutive messages of one role are one message (Messages requires the roles to
/// alternate); a user message's tool results come first in it. When the request has no
/// `max_tokens`, [`DEFAULT_MAX_TOKENS`] (plus the thinking budget) is written. A reasoning
/// effort is a thinking budget: `low` 1024, `medium` 4096, `high` 16384 (`minimal`: no
/// thinking).
pub fn write_request(request: &Request) -> Result<Map<String, Value>, Refusal> {
    if request.previous_response_id.is_some() {
        return Err(Refusal::new(
            "previous_response_id",
            "`previous_response_id` names a conversation kept by a Responses server, and this \
             gateway's upstream speaks Anthropic's Messages API, which keeps none: send the \
             whole conversation in `input`.",
        ));
    }
    let mut body = Map::new();
    if let Some(model) = &request.model {
        body.insert("model".into(), json!(model));
    }
    let thinking = thinking_budget(request)?;
    let max_tokens = request
        .max_tokens
        .unwrap_or(DEFAULT_MAX_TOKENS + thinking.unwrap_or(0));
    // A budget from an effort is cut to fit the client's limit (Messages requires the budget
    // below `max_tokens`, and counts the thinking in it as OpenAI counts reasoning); one too
    // small for Messages' least (1024) is no thinking.
    let thinking = match (thinking, request.thinking_budget) {
        (Some(budget), None) if budget >= max_tokens => {
            Some(max_tokens.saturating_sub(1)).filter(|&budget| budget >= 1024)
        }
        (budget, _) => budget,
    };
    body.insert("max_tokens".into(), json!(max_tokens));
    let system = request
        .messages
        .iter()
        .filter(|message| message.role == Role::System)
        .map(|message| system_text(message, "messages"))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .filter(|text| !text.is_empty())
        .collect::<Vec<_>>();
    if !system.is_empty() {
        body.insert("system".into(), json!(system.join("\n\n")));
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
        if let Some(choice) = write_tool_choice(request) {
            body.insert("tool_choice".into(), choice);
        }
    }
    if let Some(temperature) = request.temperature {
        body.insert("temperature".into(), json!(temperature));
    }
    if let Some(top_p) = request.top_p {
        body.insert("top_p".into(), json!(top_p));
    }
    if !request.stop.is_empty() {
        body.insert("stop_sequences".into(), json!(request.stop));
    }
    if request.stream {
        body.insert("stream".into(), json!(true));
    }
    if let Some(user) = &request.user {
        body.insert("metadata".into(), json!({"user_id": user}));
    }
    if let Some(budget) = thinking {
        body.insert(
            "thinking".into(),
            json!({"type": "enabled", "budget_tokens": budget}),
        );
    }
    match &request.response_format {
        None | Some(ResponseFormat::Text) => {}
        Some(ResponseFormat::JsonObject) => {
            return Err(Refusal::new(
                "response_format",
                "The gateway's upstream speaks Anthropic's Messages API, which has no JSON mode \
                 without a schema: give a `json_schema`, or ask for JSON in the prompt.",
            ));
        }
        // The schema's name, description and strictness have no place in Messages, whose
        // structured outputs always follow the schema.
        Some(ResponseFormat::JsonSchema { schema, .. }) => {
            body.insert(
                "output_format".into(),
                json!({"type": "json_schema", "schema": schema}),
            );
        }
    }
    // Not written: OpenAI's `metadata` (tags of OpenAI's stored objects: Messages' metadata is
    // the user's id only, and no answer depends on them), `seed` (a best-effort hint even at
    // OpenAI, which Messages has not), `store` (the gateway keeps replies itself).
    Ok(body)
}

/// The thinking budget: the client's (Messages), or its reasoning effort's.
fn thinking_budget(request: &Request) -> Result<Option<u64>, Refusal> {
    match (request.thinking_budget, &request.reasoning_effort) {
        (Some(budget), _) => Ok(Some(budget)),
        (None, Some(effort)) => budget_of_effort(effort),
        (None, None) => Ok(None),
    }
}

/// The messages, system messages left out (they are the `system` prompt), each role's
/// consecutive messages merged.
fn write_messages(messages: &[Message]) -> Result<Vec<Value>, Refusal> {
    let mut written: Vec<(Role, Vec<Value>)> = Vec::new();
    for message in messages {
        let blocks = match message.role {
            Role::System => continue,
            Role::User => write_user(message)?,
            Role::Assistant => write_assistant(message)?,
        };
        if blocks.is_empty() {
            continue;
        }
        match written.last_mut() {
            Some((role, last)) if *role == message.role => last.extend(blocks),
            _ => written.push((message.role, blocks)),
        }
    }
    Ok(written
        .into_iter()
        .map(|(role, mut blocks)| {
            if role == Role::User {
                // Messages requires a turn's tool results first in the user's message.
                blocks.sort_by_key(|block| block.get("type") != Some(&json!("tool_result")));
            }
            let role = if role == Role::User {
                "user"
            } else {
                "assistant"
            };
            json!({"role": role, "content": blocks})
        })
        .collect())
}

fn write_user(message: &Message) -> Result<Vec<Value>, Refusal> {
    let mut blocks = Vec::new();
    for part in &message.parts {
        match part {
            Part::Result(result) => {
                let mut content = Vec::new();
                for part in &result.content {
                    content.extend(write_media(part)?);
                }
                let mut block = json!({"type": "tool_result", "tool_use_id": result.call_id});
                match content.as_slice() {
                    [] => {}
                    [text] if text["type"] == "text" => block["content"] = text["text"].clone(),
                    _ => block["content"] = Value::Array(content),
                }
                if result.is_error {
                    block["is_error"] = json!(true);
                }
                blocks.push(block);
            }
            other => blocks.extend(write_media(other)?),
        }
    }
    Ok(blocks)
}

/// A text, image or file part as a block (an empty text is none: Messages refuses empty text
/// blocks). An image's `detail` is a hint Messages has no place for.
fn write_media(part: &Part) -> Result<Option<Value>, Refusal> {
    match part {
        Part::Text { text } if text.is_empty() => Ok(None),
        Part::Text { text } => Ok(Some(json!({"type": "text", "text": text}))),
        Part::Image { url, .. } => Ok(Some(match split_data_url(url) {
            Some((media_type, data)) => json!({
                "type": "image",
                "source": {"type": "base64", "media_type": media_type, "data": data},
            }),
            None => json!({"type": "image", "source": {"type": "url", "url": url}}),
        })),
        Part::File { data, filename } => match split_data_url(data) {
            Some(("application/pdf", pdf)) => {
                let mut block = json!({
                    "type": "document",
                    "source": {"type": "base64", "media_type": "application/pdf", "data": pdf},
                });
                if let Some(filename) = filename {
                    block["title"] = json!(filename);
                }
                Ok(Some(block))
            }
            _ => Err(Refusal::new(
                "messages",
                format!(
                    "The file {} is not a PDF given as a base64 `data:` URL, the one kind of \
                     file Anthropic's Messages API takes: give its text as text.",
                    filename.as_deref().unwrap_or("given")
                ),
            )),
        },
        other => Err(misplaced("messages", Role::User, other)),
    }
}

/// An assistant message's blocks, in order. Reasoning without a signature is left out:
/// Messages refuses thinking it did not sign, and reasoning from another API's model is that
/// model's own notes, which Anthropic strips from earlier turns anyway. Refusing the request
/// instead would end any conversation begun on a reasoning model of another API.
fn write_assistant(message: &Message) -> Result<Vec<Value>, Refusal> {
    let mut blocks = Vec::new();
    for part in &message.parts {
        match part {
            Part::Text { text } if text.is_empty() => {}
            Part::Text { text } => blocks.push(json!({"type": "text", "text": text})),
            Part::Reasoning {
                text,
                signature: Some(signature),
            } => blocks.push(json!({
                "type": "thinking",
                "thinking": text,
                "signature": signature,
            })),
            Part::Reasoning {
                signature: None, ..
            } => {}
            Part::Call(call) => blocks.push(tool_use(call)),
            other => return Err(misplaced("messages", Role::Assistant, other)),
        }
    }
    Ok(blocks)
}

/// A call as a `tool_use` block: its arguments as the `input` object.
fn tool_use(call: &Call) -> Value {
    json!({
        "type": "tool_use",
        "id": call.id,
        "name": call.name,
        "input": arguments_object(&call.arguments),
    })
}

fn write_tool(tool: &Tool) -> Value {
    let mut written = json!({"name": tool.name});
    if let Some(description) = &tool.description {
        written["description"] = json!(description);
    }
    written["input_schema"] = tool.parameters.clone();
    if let Some(strict) = tool.strict {
        written["strict"] = json!(strict);
    }
    written
}

/// `tool_choice`, with `disable_parallel_tool_use` when the client allowed one call at a time.
fn write_tool_choice(request: &Request) -> Option<Value> {
    let mut choice = match &request.tool_choice {
        Some(ToolChoice::Auto) => json!({"type": "auto"}),
        Some(ToolChoice::None) => json!({"type": "none"}),
        Some(ToolChoice::Required) => json!({"type": "any"}),
        Some(ToolChoice::Named(name)) => json!({"type": "tool", "name": name}),
        None if request.parallel_tool_calls == Some(false) => json!({"type": "auto"}),
        None => return None,
    };
    if request.parallel_tool_calls == Some(false) {
        choice["disable_parallel_tool_use"] = json!(true);
    }
    Some(choice)
}

// ---------------------------------------------------------------------------------------------
// Replies
// ---------------------------------------------------------------------------------------------

#[derive(Deserialize)]
struct MessagesReply {
    #[serde(default, deserialize_with = "null_as_default")]
    id: String,
    model: Option<String>,
    #[serde(default, deserialize_with = "null_as_default")]
    content: Vec<Value>,
    stop_reason: Option<String>,
    usage: Option<MessagesUsage>,
}

#[derive(Debug, Deserialize, Default)]
struct MessagesUsage {
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    cache_read_input_tokens: Option<u64>,
    cache_creation_input_tokens: Option<u64>,
}

impl MessagesUsage {
    /// The prompt's tokens: Messages counts those read from and written to its cache apart from
    /// `input_tokens`; the IR counts them all.
    fn input(&self) -> Option<u64> {
        self.input_tokens.map(|input| {
            input
                + self.cache_read_input_tokens.unwrap_or(0)
                + self.cache_creation_input_tokens.unwrap_or(0)
        })
    }
}

/// The parts of a reply's content block. Blocks of Anthropic's server tools (which a translated
/// request cannot have asked for) and redacted thinking (which only Anthropic reads) say nothing
/// to a client of another API.
fn block_part(block: &Value) -> Option<Part> {
    let text = |field: &str| block.get(field).and_then(Value::as_str).unwrap_or_default();
    match block.get("type").and_then(Value::as_str)? {
        "text" => (!text("text").is_empty()).then(|| Part::Text {
            text: text("text").to_owned(),
        }),
        "thinking" => Some(Part::Reasoning {
            text: text("thinking").to_owned(),
            signature: Some(text("signature").to_owned()).filter(|signature| !signature.is_empty()),
        }),
        "tool_use" => Some(Part::Call(Call {
            id: text("id").to_owned(),
            name: text("name").to_owned(),
            arguments: block
                .get("input")
                .map_or_else(|| "{}".to_owned(), Value::to_string),
        })),
        _ => None,
    }
}

/// Reads a whole Messages reply.
pub fn read_reply(reply: &Value) -> Result<Reply, String> {
    if let Some(error) = read_error(reply) {
        return Err(error.message);
    }
    let reply: MessagesReply = parse_reply("The Messages reply", reply)?;
    let parts = reply.content.iter().filter_map(block_part).collect();
    let usage = reply.usage.map(|usage| Usage {
        input: usage.input().unwrap_or(0),
        output: usage.output_tokens.unwrap_or(0),
        cached_input: usage.cache_read_input_tokens,
        reasoning: None,
    });
    Ok(Reply {
        id: reply.id,
        model: reply.model,
        created: None,
        parts,
        finish: reply.stop_reason.as_deref().map_or(Finish::Stop, read_stop),
        usage,
    })
}

fn read_stop(reason: &str) -> Finish {
    match reason {
        "end_turn" | "stop_sequence" => Finish::Stop,
        "max_tokens" => Finish::Length,
        "tool_use" => Finish::ToolCalls,
        "refusal" => Finish::ContentFilter,
        other => Finish::Other(other.to_owned()),
    }
}

fn write_stop(finish: &Finish, called: bool) -> String {
    match effective_finish(finish, called) {
        Finish::Stop => "end_turn".to_owned(),
        Finish::Length => "max_tokens".to_owned(),
        Finish::ToolCalls => "tool_use".to_owned(),
        Finish::ContentFilter => "refusal".to_owned(),
        Finish::Other(reason) => reason,
    }
}

/// Usage as Messages counts it: `input_tokens` without those read from the cache.
fn write_usage(usage: &Usage) -> Value {
    let cached = usage.cached_input.unwrap_or(0);
    let mut written = json!({
        "input_tokens": usage.input.saturating_sub(cached),
        "output_tokens": usage.output,
    });
    if let Some(cached) = usage.cached_input {
        written["cache_read_input_tokens"] = json!(cached);
    }
    written
}

/// Writes a whole reply as a Messages message. Reasoning is a `thinking` block, with its
/// signature, or an empty one when the upstream gave none (a model of another API): the client
/// sees the reasoning as it would in a stream, and when it gives it back the gateway reads it
/// as unsigned, which no Anthropic upstream is sent.
pub fn write_reply(reply: &Reply, request: &Request) -> Value {
    let mut content = Vec::new();
    for part in &reply.parts {
        match part {
            Part::Text { text } if !text.is_empty() => {
                content.push(json!({"type": "text", "text": text}));
            }
            Part::Reasoning { text, signature } => content.push(json!({
                "type": "thinking",
                "thinking": text,
                "signature": signature.as_deref().unwrap_or_default(),
            })),
            Part::Call(call) => content.push(tool_use(call)),
            _ => {}
        }
    }
    let called = calls(&reply.parts).next().is_some();
    json!({
        "id": id_with_prefix(&reply.id, "msg_"),
        "type": "message",
        "role": "assistant",
        "model": reply.model.as_ref().or(request.model.as_ref()).cloned().unwrap_or_default(),
        "content": content,
        "stop_reason": write_stop(&reply.finish, called),
        "stop_sequence": null,
        "usage": write_usage(reply.usage.as_ref().unwrap_or(&Usage::default())),
    })
}

// ---------------------------------------------------------------------------------------------
// Streams: reading
// ---------------------------------------------------------------------------------------------

/// What a content block of a stream is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Block {
    Text,
    Thinking,
    /// A call: its index among the reply's calls.
    Call(usize),
    /// A block that says nothing to a client of another API.
    Other,
}

/// Reads a Messages upstream's events.
#[derive(Debug, Default)]
pub struct Reader {
    /// The blocks so far, by their index.
    blocks: Vec<(u64, Block)>,
    calls: usize,
    /// The usage of `message_start` (its input tokens), which `message_delta` completes.
    usage: MessagesUsage,
}

impl Reader {
    /// The deltas of one event.
    pub fn read(&mut self, event: &Value) -> Result<Vec<Delta>, ErrorBody> {
        let mut deltas = Vec::new();
        match event
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
        {
            "message_start" => {
                let message = event.get("message").unwrap_or(&Value::Null);
                let start: MessagesReply =
                    parse_reply("A Messages `message_start`", message).map_err(upstream_error)?;
                deltas.push(Delta::Start {
                    id: start.id,
                    model: start.model,
                    created: None,
                });
                self.usage = start.usage.unwrap_or_default();
                if let Some(usage) = self.usage() {
                    deltas.push(Delta::Usage(usage));
                }
            }
            "content_block_start" => {
                let index = event
                    .get("index")
                    .and_then(Value::as_u64)
                    .unwrap_or_default();
                let block = event.get("content_block").unwrap_or(&Value::Null);
                self.start_block(index, block, &mut deltas);
            }
            "content_block_delta" => {
                let index = event
                    .get("index")
                    .and_then(Value::as_u64)
                    .unwrap_or_default();
                let delta = event.get("delta").unwrap_or(&Value::Null);
                self.block_delta(index, delta, &mut deltas);
            }
            "message_delta" => {
                let usage: MessagesUsage = match event.get("usage") {
                    Some(usage) => parse_reply("A Messages `message_delta`'s usage", usage)
                        .map_err(upstream_error)?,
                    None => MessagesUsage::default(),
                };
                // The delta's counts are cumulative; what it does not give, the start gave.
                let merge = |new: Option<u64>, old: Option<u64>| new.or(old);
                self.usage = MessagesUsage {
                    input_tokens: merge(usage.input_tokens, self.usage.input_tokens),
                    output_tokens: merge(usage.output_tokens, self.usage.output_tokens),
                    cache_read_input_tokens: merge(
                        usage.cache_read_input_tokens,
                        self.usage.cache_read_input_tokens,
                    ),
                    cache_creation_input_tokens: merge(
                        usage.cache_creation_input_tokens,
                        self.usage.cache_creation_input_tokens,
                    ),
                };
                if let Some(reason) = event.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    deltas.push(Delta::Finish(read_stop(reason)));
                }
                if let Some(usage) = self.usage() {
                    deltas.push(Delta::Usage(usage));
                }
            }
            "error" => {
                return Err(read_error(event).unwrap_or_else(|| upstream_error(event.to_string())));
            }
            // `ping`, `message_stop`, `content_block_stop`, and events a newer API added.
            _ => {}
        }
        Ok(deltas)
    }

    fn usage(&self) -> Option<Usage> {
        Some(Usage {
            input: self.usage.input()?,
            output: self.usage.output_tokens.unwrap_or(0),
            cached_input: self.usage.cache_read_input_tokens,
            reasoning: None,
        })
    }

    fn start_block(&mut self, index: u64, block: &Value, deltas: &mut Vec<Delta>) {
        let kind = match block.get("type").and_then(Value::as_str) {
            Some("text") => Block::Text,
            Some("thinking") => Block::Thinking,
            Some("tool_use") => {
                let call = self.calls;
                self.calls += 1;
                Block::Call(call)
            }
            _ => Block::Other,
        };
        self.blocks.push((index, kind));
        // A start may already hold some of the block (llama.cpp's text, a whole `input`).
        match (kind, block_part(block)) {
            (Block::Text, Some(Part::Text { text })) => deltas.push(Delta::Text(text)),
            (Block::Thinking, Some(Part::Reasoning { text, signature })) => {
                if !text.is_empty() {
                    deltas.push(Delta::Reasoning(text));
                }
                if let Some(signature) = signature {
                    deltas.push(Delta::ReasoningSignature(signature));
                }
            }
            (Block::Call(index), Some(Part::Call(call))) => {
                deltas.push(Delta::CallStart {
                    index,
                    id: call.id,
                    name: call.name,
                });
                let input = block.get("input");
                if input
                    .and_then(Value::as_object)
                    .is_some_and(|input| !input.is_empty())
                {
                    deltas.push(Delta::CallArguments {
                        index,
                        delta: call.arguments,
                    });
                }
            }
            _ => {}
        }
    }

    fn block_delta(&mut self, index: u64, delta: &Value, deltas: &mut Vec<Delta>) {
        let Some(&(_, kind)) = self.blocks.iter().rev().find(|(at, _)| *at == index) else {
            return;
        };
        let text = |field: &str| {
            delta
                .get(field)
                .and_then(Value::as_str)
                .filter(|text| !text.is_empty())
                .map(str::to_owned)
        };
        let read = match (delta.get("type").and_then(Value::as_str), kind) {
            (Some("text_delta"), _) => text("text").map(Delta::Text),
            (Some("thinking_delta"), _) => text("thinking").map(Delta::Reasoning),
            (Some("signature_delta"), _) => text("signature").map(Delta::ReasoningSignature),
            (Some("input_json_delta"), Block::Call(index)) => {
                text("partial_json").map(|delta| Delta::CallArguments { index, delta })
            }
            // Citations of a text, and what a newer API added.
            _ => None,
        };
        deltas.extend(read);
    }
}

fn upstream_error(message: String) -> ErrorBody {
    ErrorBody {
        message,
        kind: "upstream_error".to_owned(),
        code: None,
        param: None,
    }
}

// ---------------------------------------------------------------------------------------------
// Streams: writing
// ---------------------------------------------------------------------------------------------

/// Writes deltas as Messages events, for a Messages client: `message_start`, each block's
/// `content_block_start`, `content_block_delta`s and `content_block_stop` (a block is closed when
/// another starts), and at the end `message_delta` and `message_stop`.
#[derive(Debug)]
pub struct Writer {
    id: String,
    model: String,
    started: bool,
    /// The open block: its index and kind.
    open: Option<(usize, Block)>,
    blocks: usize,
    /// Each call's block index, by its index among the reply's calls.
    calls: Vec<usize>,
    finish: Option<Finish>,
    usage: Option<Usage>,
    finished: bool,
}

impl Writer {
    /// A writer for a client whose request was `request`.
    pub fn new(request: &Request) -> Writer {
        Writer {
            id: new_id("msg_"),
            model: request.model.clone().unwrap_or_default(),
            started: false,
            open: None,
            blocks: 0,
            calls: Vec::new(),
            finish: None,
            usage: None,
            finished: false,
        }
    }

    /// The events that say `delta`. `message_start` waits for the first content, so that it
    /// can have the input tokens an upstream gave at its start.
    pub fn write(&mut self, delta: Delta) -> Vec<Value> {
        let mut events = Vec::new();
        match delta {
            Delta::Start { id, model, .. } => {
                self.id = id_with_prefix(&id, "msg_");
                if let Some(model) = model {
                    self.model = model;
                }
            }
            Delta::Text(text) => {
                self.block(
                    Block::Text,
                    json!({"type": "text", "text": ""}),
                    &mut events,
                );
                self.delta(json!({"type": "text_delta", "text": text}), &mut events);
            }
            Delta::Reasoning(text) => {
                self.block(
                    Block::Thinking,
                    json!({"type": "thinking", "thinking": "", "signature": ""}),
                    &mut events,
                );
                self.delta(
                    json!({"type": "thinking_delta", "thinking": text}),
                    &mut events,
                );
            }
            Delta::ReasoningSignature(signature) => {
                if matches!(self.open, Some((_, Block::Thinking))) {
                    self.delta(
                        json!({"type": "signature_delta", "signature": signature}),
                        &mut events,
                    );
                }
            }
            Delta::CallStart { index, id, name } => {
                self.start(&mut events);
                self.close(&mut events);
                let at = self.open_block(
                    Block::Call(index),
                    json!({"type": "tool_use", "id": id, "name": name, "input": {}}),
                    &mut events,
                );
                while self.calls.len() <= index {
                    self.calls.push(usize::MAX);
                }
                self.calls[index] = at;
            }
            Delta::CallArguments { index, delta } => {
                // A piece for a call whose block was closed (a server that interleaves its
                // calls) still goes to that block, by its index.
                if let Some(&at) = self.calls.get(index).filter(|&&at| at != usize::MAX) {
                    self.start(&mut events);
                    events.push(json!({
                        "type": "content_block_delta",
                        "index": at,
                        "delta": {"type": "input_json_delta", "partial_json": delta},
                    }));
                }
            }
            Delta::Finish(finish) => self.finish = Some(finish),
            Delta::Usage(usage) => self.usage = Some(usage),
        }
        events
    }

    /// Closes the open block; `message_delta` with why the reply ended and its usage;
    /// `message_stop`.
    pub fn finish(&mut self) -> Vec<Value> {
        if self.finished {
            return Vec::new();
        }
        self.finished = true;
        let mut events = Vec::new();
        self.start(&mut events);
        self.close(&mut events);
        let called = !self.calls.is_empty();
        let finish = self.finish.clone().unwrap_or(Finish::Stop);
        // The delta's usage is cumulative: with the input tokens too when they are known (an
        // upstream of another API gives them only at the end).
        let usage = match &self.usage {
            Some(usage) => write_usage(usage),
            None => json!({"output_tokens": 0}),
        };
        events.push(json!({
            "type": "message_delta",
            "delta": {"stop_reason": write_stop(&finish, called), "stop_sequence": null},
            "usage": usage,
        }));
        events.push(json!({"type": "message_stop"}));
        events
    }

    fn start(&mut self, events: &mut Vec<Value>) {
        if self.started {
            return;
        }
        self.started = true;
        let mut usage = json!({"input_tokens": 0, "output_tokens": 0});
        if let Some(known) = &self.usage {
            usage = write_usage(known);
            usage["output_tokens"] = json!(0);
        }
        events.push(json!({
            "type": "message_start",
            "message": {
                "id": self.id,
                "type": "message",
                "role": "assistant",
                "model": self.model,
                "content": [],
                "stop_reason": null,
                "stop_sequence": null,
                "usage": usage,
            },
        }));
    }

    /// Makes a block of `kind` the open one, unless it is.
    fn block(&mut self, kind: Block, start: Value, events: &mut Vec<Value>) {
        self.start(events);
        if self.open.is_some_and(|(_, open)| open == kind) {
            return;
        }
        self.close(events);
        self.open_block(kind, start, events);
    }

    fn open_block(&mut self, kind: Block, start: Value, events: &mut Vec<Value>) -> usize {
        let at = self.blocks;
        self.blocks += 1;
        events.push(json!({"type": "content_block_start", "index": at, "content_block": start}));
        self.open = Some((at, kind));
        at
    }

    fn delta(&mut self, delta: Value, events: &mut Vec<Value>) {
        if let Some((at, _)) = self.open {
            events.push(json!({"type": "content_block_delta", "index": at, "delta": delta}));
        }
    }

    fn close(&mut self, events: &mut Vec<Value>) {
        if let Some((at, _)) = self.open.take() {
            events.push(json!({"type": "content_block_stop", "index": at}));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/// Reads an error body in Anthropic's shape: `{"type": "error", "error": {"type", "message"}}`.
pub fn read_error(body: &Value) -> Option<ErrorBody> {
    if body.get("type").and_then(Value::as_str) != Some("error") {
        return None;
    }
    let error = body.get("error")?;
    let text = |field: &str| error.get(field).and_then(Value::as_str).map(str::to_owned);
    Some(ErrorBody {
        message: text("message").unwrap_or_else(|| error.to_string()),
        kind: text("type").unwrap_or_else(|| "api_error".to_owned()),
        code: None,
        param: None,
    })
}

/// An error body in Anthropic's shape; OpenAI's and llama.cpp's kinds become Anthropic's.
pub fn write_error(error: &ErrorBody) -> Value {
    let kind = match error.kind.as_str() {
        kind @ ("invalid_request_error"
        | "authentication_error"
        | "permission_error"
        | "not_found_error"
        | "rate_limit_error"
        | "api_error"
        | "overloaded_error"
        | "request_too_large") => kind,
        "exceed_context_size_error" | "not_supported_error" => "invalid_request_error",
        "insufficient_quota" | "rate_limit_exceeded" => "rate_limit_error",
        "unavailable_error" => "overloaded_error",
        // `upstream_error`, `server_error`, `mcp_error`, and kinds the gateway does not know.
        _ => "api_error",
    };
    json!({"type": "error", "error": {"type": kind, "message": error.message}})
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::super::fixtures::{
        self, call, check_messages_events, conversation, masked, messages_stream, object, read_all,
        text,
    };
    use super::super::ir::{
        Delta, ErrorBody, Finish, Message, Part, Reply, Request, ResponseFormat, Role, ToolChoice,
        ToolResult, Usage,
    };
    use super::{
        Reader, Writer, read_error, read_reply, read_request, write_error, write_reply,
        write_request,
    };

    /// The conversation of [`fixtures::conversation`], as a Messages client writes it.
    fn conversation_json() -> Value {
        json!({
            "model": "m",
            "max_tokens": 512,
            "system": "You are terse.",
            "messages": [
                {"role": "user", "content": [
                    {"type": "text", "text": "What is the weather in Paris and Rome? Here is a map."},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
                ]},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "Let me look."},
                    {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Paris"}},
                    {"type": "tool_use", "id": "call_2", "name": "get_weather", "input": {"city": "Rome"}},
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "call_1", "content": "18°C"},
                    {"type": "tool_result", "tool_use_id": "call_2", "content": "24°C"},
                    {"type": "text", "text": "Which is warmer?"},
                ]},
            ],
            "tools": [{
                "name": "get_weather",
                "description": "The weather in a city",
                "input_schema": {
                    "type": "object",
                    "properties": {"city": {"type": "string"}},
                    "required": ["city"],
                },
                "strict": false,
            }],
            "tool_choice": {"type": "auto"},
            "temperature": 0.5,
            "metadata": {"user_id": "u-1"},
        })
    }

    #[test]
    fn reads_the_conversation() {
        let read = read_request(&object(conversation_json())).unwrap();
        assert_eq!(read, conversation());
    }

    /// The exact request written for the conversation, as the Messages API has it.
    #[test]
    fn writes_the_conversation() {
        let written = write_request(&conversation()).unwrap();
        assert_eq!(Value::Object(written), conversation_json());
    }

    #[test]
    fn a_request_read_and_written_is_the_same() {
        let request = json!({
            "model": "claude",
            "max_tokens": 20000,
            "system": "Be careful.",
            "messages": [
                {"role": "user", "content": [
                    {"type": "text", "text": "Read this.", "cache_control": {"type": "ephemeral"}},
                    {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0="}, "title": "a.pdf"},
                    {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}},
                ]},
                {"role": "assistant", "content": [
                    {"type": "thinking", "thinking": "A PDF.", "signature": "EqoB"},
                    {"type": "tool_use", "id": "toolu_1", "name": "look", "input": {"page": 1, "zoom": [1, 2]}},
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "is_error": true, "content": [
                        {"type": "text", "text": "blurry"},
                        {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "/9j/"}},
                    ]},
                ]},
            ],
            "tools": [{"type": "custom", "name": "look", "input_schema": {"type": "object", "properties": {}}, "cache_control": {"type": "ephemeral"}}],
            "tool_choice": {"type": "tool", "name": "look", "disable_parallel_tool_use": true},
            "top_p": 0.9,
            "stop_sequences": ["END"],
            "stream": true,
            "thinking": {"type": "enabled", "budget_tokens": 10000},
            "output_format": {"type": "json_schema", "schema": {"type": "object"}},
            "service_tier": "auto",
        });
        let read = read_request(&object(request)).unwrap();
        assert_eq!(read.parallel_tool_calls, Some(false));
        assert_eq!(read.thinking_budget, Some(10000));
        let written = Value::Object(write_request(&read).unwrap());
        assert_eq!(
            written,
            json!({
                "model": "claude",
                "max_tokens": 20000,
                "system": "Be careful.",
                "messages": [
                    {"role": "user", "content": [
                        {"type": "text", "text": "Read this."},
                        {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0="}, "title": "a.pdf"},
                        {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}},
                    ]},
                    {"role": "assistant", "content": [
                        {"type": "thinking", "thinking": "A PDF.", "signature": "EqoB"},
                        {"type": "tool_use", "id": "toolu_1", "name": "look", "input": {"page": 1, "zoom": [1, 2]}},
                    ]},
                    {"role": "user", "content": [
                        {"type": "tool_result", "tool_use_id": "toolu_1", "content": [
                            {"type": "text", "text": "blurry"},
                            {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "/9j/"}},
                        ], "is_error": true},
                    ]},
                ],
                "tools": [{"name": "look", "input_schema": {"type": "object", "properties": {}}}],
                "tool_choice": {"type": "tool", "name": "look", "disable_parallel_tool_use": true},
                "top_p": 0.9,
                "stop_sequences": ["END"],
                "stream": true,
                "thinking": {"type": "enabled", "budget_tokens": 10000},
                "output_format": {"type": "json_schema", "schema": {"type": "object"}},
            })
        );
    }

    /// Messages wants one system prompt, alternating roles, results first, no unsigned
    /// thinking, and an object for every call's input.
    #[test]
    fn writes_what_messages_requires() {
        let request = Request {
            messages: vec![
                Message {
                    role: Role::System,
                    parts: vec![text("One.")],
                },
                Message {
                    role: Role::User,
                    parts: vec![text("hi")],
                },
                Message {
                    role: Role::System,
                    parts: vec![text("Two.")],
                },
                Message {
                    role: Role::User,
                    parts: vec![text("there")],
                },
                Message {
                    role: Role::Assistant,
                    parts: vec![
                        Part::Reasoning {
                            text: "from another model".to_owned(),
                            signature: None,
                        },
                        text(""),
                        call("c1", r#"{"city":"#),
                    ],
                },
                Message {
                    role: Role::User,
                    parts: vec![text("and?")],
                },
                Message {
                    role: Role::User,
                    parts: vec![Part::Result(ToolResult {
                        call_id: "c1".to_owned(),
                        content: vec![],
                        is_error: false,
                    })],
                },
                Message {
                    role: Role::Assistant,
                    parts: vec![Part::Reasoning {
                        text: "only this".to_owned(),
                        signature: None,
                    }],
                },
            ],
            ..Request::default()
        };
        let written = write_request(&request).unwrap();
        assert_eq!(written["max_tokens"], 4096);
        assert_eq!(written["system"], "One.\n\nTwo.");
        assert_eq!(
            written["messages"],
            json!([
                {"role": "user", "content": [{"type": "text", "text": "hi"}, {"type": "text", "text": "there"}]},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "get_weather", "input": {}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "c1"},
                    {"type": "text", "text": "and?"},
                ]},
            ])
        );
    }

    #[test]
    fn an_effort_is_a_budget_within_the_limit() {
        let effort = |effort: &str, max_tokens: Option<u64>| {
            let request = Request {
                reasoning_effort: Some(effort.to_owned()),
                max_tokens,
                ..Request::default()
            };
            let written = write_request(&request).unwrap();
            (
                written["max_tokens"].clone(),
                written.get("thinking").cloned(),
            )
        };
        assert_eq!(
            effort("high", None),
            (
                json!(4096 + 16384),
                Some(json!({"type": "enabled", "budget_tokens": 16384}))
            )
        );
        assert_eq!(
            effort("medium", Some(3000)),
            (
                json!(3000),
                Some(json!({"type": "enabled", "budget_tokens": 2999}))
            )
        );
        assert_eq!(effort("low", Some(800)), (json!(800), None));
        assert_eq!(effort("minimal", None), (json!(4096), None));
        let refusal = write_request(&Request {
            reasoning_effort: Some("max".to_owned()),
            ..Request::default()
        })
        .unwrap_err();
        assert_eq!(refusal.param, "reasoning_effort");
    }

    #[test]
    fn parallel_calls_turned_off_without_a_choice() {
        let request = Request {
            tools: vec![fixtures::weather_tool()],
            parallel_tool_calls: Some(false),
            ..Request::default()
        };
        assert_eq!(
            write_request(&request).unwrap()["tool_choice"],
            json!({"type": "auto", "disable_parallel_tool_use": true})
        );
        // No tools, no choice: Messages refuses a choice without tools.
        let request = Request {
            tool_choice: Some(ToolChoice::Required),
            ..Request::default()
        };
        assert!(
            write_request(&request)
                .unwrap()
                .get("tool_choice")
                .is_none()
        );
    }

    /// Each refused thing names its field and says what to do.
    #[test]
    fn refusals_name_the_field_and_what_to_do() {
        let cases = [
            (json!({"top_k": 5}), "top_k", "Remove it"),
            (json!({"container": "c"}), "container", "Remove it"),
            (
                json!({"context_management": {}}),
                "context_management",
                "Remove it",
            ),
            (
                json!({"mcp_servers": [{"url": "x"}]}),
                "mcp_servers",
                "Remove it",
            ),
            (
                json!({"service_tier": "standard_only"}),
                "service_tier",
                "Remove it",
            ),
            (json!({"sneaky": 1}), "request", "`sneaky`"),
            (json!({"max_tokens": "many"}), "max_tokens", "`max_tokens`"),
            (
                json!({"metadata": {"user_id": "u", "team": "t"}}),
                "metadata",
                "`team`",
            ),
            (
                json!({"thinking": {"type": "adaptive"}}),
                "thinking",
                "`enabled`",
            ),
            (
                json!({"output_format": {"type": "json"}}),
                "output_format",
                "`json_schema`",
            ),
            (
                json!({"tool_choice": {"type": "tool"}}),
                "tool_choice",
                "`name`",
            ),
            (
                json!({"tools": [{"type": "web_search_20250305", "name": "web_search"}]}),
                "tools",
                "server tool of Anthropic's",
            ),
            (
                json!({"tools": [{"type": "bash_20250124", "name": "bash"}]}),
                "tools",
                "point the gateway",
            ),
            (
                json!({"tools": [{"type": "mcp_toolset", "mcp_server_name": "x"}]}),
                "tools",
                "remove it",
            ),
            (json!({"system": [{"type": "image"}]}), "system", "text"),
        ];
        for (request, param, words) in cases {
            let refusal = read_request(&object(request)).unwrap_err();
            assert_eq!(refusal.param, param, "{refusal:?}");
            assert!(refusal.message.contains(words), "{words}: {refusal:?}");
        }
        let blocks = [
            (
                json!({"role": "assistant", "content": [{"type": "redacted_thinking", "data": "x"}]}),
                "encrypted",
            ),
            (
                json!({"role": "assistant", "content": [{"type": "server_tool_use", "id": "s", "name": "web_search", "input": {}}]}),
                "`server_tool_use`",
            ),
            (
                json!({"role": "user", "content": [{"type": "web_search_tool_result", "tool_use_id": "s", "content": []}]}),
                "`web_search_tool_result`",
            ),
            (
                json!({"role": "assistant", "content": [{"type": "mcp_tool_use", "id": "m", "name": "x", "server_name": "s", "input": {}}]}),
                "`mcp_tool_use`",
            ),
            (
                json!({"role": "user", "content": [{"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "x"}}]}),
                "PDF",
            ),
            (
                json!({"role": "user", "content": [{"type": "image", "source": {"type": "file", "file_id": "f"}}]}),
                "`file`",
            ),
            (
                json!({"role": "user", "content": [{"type": "text", "text": "x", "citations": [{"type": "char_location"}]}]}),
                "citations",
            ),
            (
                json!({"role": "user", "content": [{"type": "thinking", "thinking": "x", "signature": "s"}]}),
                "Reasoning cannot be in a user message",
            ),
            (
                json!({"role": "assistant", "content": [{"type": "tool_result", "tool_use_id": "x"}]}),
                "A tool result cannot be in an assistant message",
            ),
            (json!({"role": "system", "content": "x"}), "`system`"),
            (
                json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x", "content": [{"type": "search_result"}]}]}),
                "`search_result`",
            ),
        ];
        for (message, words) in blocks {
            let refusal = read_request(&object(json!({"messages": [message]}))).unwrap_err();
            assert_eq!(refusal.param, "messages", "{refusal:?}");
            assert!(refusal.message.contains(words), "{words}: {refusal:?}");
        }
        let refusal = write_request(&Request {
            response_format: Some(ResponseFormat::JsonObject),
            ..Request::default()
        })
        .unwrap_err();
        assert_eq!(refusal.param, "response_format");
        assert!(refusal.message.contains("json_schema"));
        let refusal = write_request(&Request {
            messages: vec![Message {
                role: Role::User,
                parts: vec![Part::File {
                    data: "data:text/csv;base64,YQ==".to_owned(),
                    filename: None,
                }],
            }],
            ..Request::default()
        })
        .unwrap_err();
        assert!(refusal.message.contains("PDF"), "{refusal:?}");
        let refusal = write_request(&Request {
            previous_response_id: Some("resp_1".to_owned()),
            ..Request::default()
        })
        .unwrap_err();
        assert_eq!(refusal.param, "previous_response_id");
    }

    /// The exact message written for a reply, as the Messages API has it.
    #[test]
    fn writes_a_reply() {
        let written = masked(write_reply(&fixtures::reply(), &conversation()));
        assert_eq!(
            written,
            json!({
                "id": "msg_*",
                "type": "message",
                "role": "assistant",
                "model": "m",
                "content": [
                    {"type": "thinking", "thinking": "Paris is cooler.", "signature": ""},
                    {"type": "text", "text": "Rome is warmer."},
                    {"type": "tool_use", "id": "call_3", "name": "get_weather", "input": {"city": "Milan"}},
                ],
                "stop_reason": "tool_use",
                "stop_sequence": null,
                "usage": {"input_tokens": 60, "output_tokens": 20, "cache_read_input_tokens": 40},
            })
        );
        let read = read_reply(&write_reply(&fixtures::reply(), &conversation())).unwrap();
        assert_eq!(read.parts, fixtures::reply().parts);
        assert_eq!(read.finish, Finish::ToolCalls);
        assert_eq!(
            read.usage,
            Some(Usage {
                reasoning: None,
                ..fixtures::reply().usage.unwrap()
            })
        );
    }

    #[test]
    fn a_cut_call_has_an_empty_input() {
        let reply = Reply {
            parts: vec![call("c", r#"{"city":"#)],
            finish: Finish::Length,
            ..fixtures::reply()
        };
        let written = write_reply(&reply, &Request::default());
        assert_eq!(written["content"][0]["input"], json!({}));
        assert_eq!(written["stop_reason"], "max_tokens");
        assert_eq!(written["id"].as_str().unwrap().len(), 36);
        let reply = Reply {
            id: "msg_01X".to_owned(),
            ..reply
        };
        assert_eq!(write_reply(&reply, &Request::default())["id"], "msg_01X");
    }

    #[test]
    fn reads_replies_of_anthropic_and_llama_cpp() {
        let anthropic = json!({
            "id": "msg_01", "type": "message", "role": "assistant", "model": "claude",
            "content": [
                {"type": "thinking", "thinking": "Hm.", "signature": "EqoB"},
                {"type": "redacted_thinking", "data": "xyz"},
                {"type": "text", "text": "Hi."},
                {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"a": 1}},
            ],
            "stop_reason": "tool_use", "stop_sequence": null,
            "usage": {"input_tokens": 10, "cache_creation_input_tokens": 5, "cache_read_input_tokens": 20, "output_tokens": 7},
        });
        assert_eq!(
            read_reply(&anthropic).unwrap(),
            Reply {
                id: "msg_01".to_owned(),
                model: Some("claude".to_owned()),
                created: None,
                parts: vec![
                    Part::Reasoning {
                        text: "Hm.".to_owned(),
                        signature: Some("EqoB".to_owned())
                    },
                    text("Hi."),
                    Part::Call(super::super::ir::Call {
                        id: "toolu_1".to_owned(),
                        name: "f".to_owned(),
                        arguments: r#"{"a":1}"#.to_owned()
                    }),
                ],
                finish: Finish::ToolCalls,
                usage: Some(Usage {
                    input: 35,
                    output: 7,
                    cached_input: Some(20),
                    reasoning: None
                }),
            }
        );
        let llama = json!({
            "id": "chatcmpl-x", "type": "message", "role": "assistant", "model": "m",
            "content": [{"type": "text", "text": ""}, {"type": "tool_use", "id": "Abc123", "name": "f", "input": {}}],
            "stop_reason": "tool_use", "usage": {"input_tokens": 3, "output_tokens": 4},
        });
        let read = read_reply(&llama).unwrap();
        assert_eq!(
            read.parts,
            vec![Part::Call(super::super::ir::Call {
                id: "Abc123".to_owned(),
                name: "f".to_owned(),
                arguments: "{}".to_owned()
            })]
        );
        assert_eq!(
            read_reply(
                &json!({"type": "error", "error": {"type": "overloaded_error", "message": "busy"}})
            )
            .unwrap_err(),
            "busy"
        );
    }

    #[test]
    fn reads_a_stream() {
        let mut reader = Reader::default();
        let deltas = read_all(|event| reader.read(event), &messages_stream());
        assert_eq!(
            deltas,
            vec![
                Delta::Start {
                    id: "msg_01ABC".to_owned(),
                    model: Some("claude".to_owned()),
                    created: None
                },
                Delta::Usage(Usage {
                    input: 60,
                    output: 1,
                    cached_input: Some(10),
                    reasoning: None
                }),
                Delta::Text("Let me ".to_owned()),
                Delta::Text("look.".to_owned()),
                Delta::CallStart {
                    index: 0,
                    id: "toolu_01X".to_owned(),
                    name: "get_weather".to_owned()
                },
                Delta::CallArguments {
                    index: 0,
                    delta: "{\"city\": ".to_owned()
                },
                Delta::CallArguments {
                    index: 0,
                    delta: "\"Paris\"}".to_owned()
                },
                Delta::Finish(Finish::ToolCalls),
                Delta::Usage(Usage {
                    input: 60,
                    output: 30,
                    cached_input: Some(10),
                    reasoning: None
                }),
            ]
        );
        let error = reader
            .read(&json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}))
            .unwrap_err();
        assert_eq!(error.kind, "overloaded_error");
    }

    #[test]
    fn reads_thinking_with_its_signature_and_a_whole_input() {
        let mut reader = Reader::default();
        let events = [
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Hm."}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "EqoB"}}),
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "t", "name": "f", "input": {"a": 1}}}),
            json!({"type": "content_block_start", "index": 2, "content_block": {"type": "text", "text": "Hi"}}),
        ];
        assert_eq!(
            read_all(|event| reader.read(event), &events),
            vec![
                Delta::Reasoning("Hm.".to_owned()),
                Delta::ReasoningSignature("EqoB".to_owned()),
                Delta::CallStart {
                    index: 0,
                    id: "t".to_owned(),
                    name: "f".to_owned()
                },
                Delta::CallArguments {
                    index: 0,
                    delta: r#"{"a":1}"#.to_owned()
                },
                Delta::Text("Hi".to_owned()),
            ]
        );
    }

    /// The exact events written for a stream.
    #[test]
    fn writes_events() {
        let request = Request {
            model: Some("m".to_owned()),
            ..Request::default()
        };
        let mut writer = Writer::new(&request);
        let mut events = Vec::new();
        for delta in [
            Delta::Start {
                id: "msg_01".to_owned(),
                model: None,
                created: None,
            },
            Delta::Usage(Usage {
                input: 50,
                output: 0,
                cached_input: Some(10),
                reasoning: None,
            }),
            Delta::Reasoning("Hm.".to_owned()),
            Delta::ReasoningSignature("EqoB".to_owned()),
            Delta::Text("Let me look.".to_owned()),
            Delta::CallStart {
                index: 0,
                id: "call_1".to_owned(),
                name: "f".to_owned(),
            },
            Delta::CallArguments {
                index: 0,
                delta: "{}".to_owned(),
            },
            Delta::Finish(Finish::ToolCalls),
            Delta::Usage(Usage {
                input: 50,
                output: 9,
                cached_input: Some(10),
                reasoning: None,
            }),
        ] {
            events.extend(writer.write(delta));
        }
        events.extend(writer.finish());
        assert_eq!(
            Value::Array(events.clone()),
            json!([
                {"type": "message_start", "message": {
                    "id": "msg_01", "type": "message", "role": "assistant", "model": "m", "content": [],
                    "stop_reason": null, "stop_sequence": null,
                    "usage": {"input_tokens": 40, "output_tokens": 0, "cache_read_input_tokens": 10},
                }},
                {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}},
                {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Hm."}},
                {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "EqoB"}},
                {"type": "content_block_stop", "index": 0},
                {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
                {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Let me look."}},
                {"type": "content_block_stop", "index": 1},
                {"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": "call_1", "name": "f", "input": {}}},
                {"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": "{}"}},
                {"type": "content_block_stop", "index": 2},
                {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null},
                 "usage": {"input_tokens": 40, "output_tokens": 9, "cache_read_input_tokens": 10}},
                {"type": "message_stop"},
            ])
        );
        let message = check_messages_events(&events);
        assert_eq!(message["content"][2]["input"], json!({}));
        assert!(writer.finish().is_empty());
    }

    #[test]
    fn an_empty_stream_is_a_whole_message() {
        let mut writer = Writer::new(&Request::default());
        let events = writer.finish();
        let message = check_messages_events(&events);
        assert_eq!(message["stop_reason"], "end_turn");
        assert_eq!(message["content"], json!([]));
    }

    #[test]
    fn errors() {
        let error = read_error(
            &json!({"type": "error", "error": {"type": "rate_limit_error", "message": "slow"}}),
        )
        .unwrap();
        assert_eq!(error.kind, "rate_limit_error");
        assert_eq!(read_error(&json!({"error": {"message": "x"}})), None);
        let openai = |kind: &str| ErrorBody {
            message: "m".to_owned(),
            kind: kind.to_owned(),
            code: None,
            param: None,
        };
        for (kind, anthropic) in [
            ("invalid_request_error", "invalid_request_error"),
            ("authentication_error", "authentication_error"),
            ("permission_error", "permission_error"),
            ("not_found_error", "not_found_error"),
            ("rate_limit_error", "rate_limit_error"),
            ("overloaded_error", "overloaded_error"),
            ("upstream_error", "api_error"),
            ("server_error", "api_error"),
            ("mcp_error", "api_error"),
            ("exceed_context_size_error", "invalid_request_error"),
            ("something", "api_error"),
        ] {
            assert_eq!(
                write_error(&openai(kind)),
                json!({"type": "error", "error": {"type": anthropic, "message": "m"}}),
                "{kind}"
            );
        }
    }
}
