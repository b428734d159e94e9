//! Writing a Chat Completions request for a Chat upstream: the conversation as Chat's
//! messages (results as `tool` messages), the tools, the choice and the format.

use serde_json::{Map, Value, json};

use crate::translate::common::{effort_of_budget, misplaced, system_text};
use crate::translate::ir::{
    Call, Message, Part, Refusal, Request, ResponseFormat, Role, Tool, ToolChoice,
};

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

pub(super) fn write_call(call: &Call) -> Value {
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
