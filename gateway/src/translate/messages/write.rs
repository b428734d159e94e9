//! Writing a Messages request for a Messages upstream: what Messages requires (a
//! `max_tokens`, alternating roles), the tools, the choice and the thinking.

use serde_json::{Map, Value, json};

use crate::translate::common::{
    arguments_object, budget_of_effort, misplaced, split_data_url, system_text,
};
use crate::translate::ir::{
    Call, Message, Part, Refusal, Request, ResponseFormat, Role, Tool, ToolChoice,
};

/// The `max_tokens` written when the client gave none: Messages requires one, and the OpenAI
/// APIs let the model run to its context's end. 4096 is what Anthropic's own examples ask for
/// and every Claude model can give; a thinking budget is added to it, since `max_tokens` must
/// exceed the budget.
pub const DEFAULT_MAX_TOKENS: u64 = 4096;

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
pub(super) fn tool_use(call: &Call) -> Value {
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
