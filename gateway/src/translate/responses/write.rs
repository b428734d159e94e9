//! Writing a Responses request for a Responses upstream: the conversation as `input`
//! items, the tools, the choice and the format.

use serde_json::{Map, Value, json};

use crate::translate::common::{effort_of_budget, misplaced, system_text};
use crate::translate::ir::{
    Message, Part, Refusal, Request, ResponseFormat, Role, Tool, ToolChoice,
};

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
pub(super) fn write_tool(tool: &Tool) -> Value {
    let mut written = json!({"type": "function", "name": tool.name});
    if let Some(description) = &tool.description {
        written["description"] = json!(description);
    }
    written["parameters"] = tool.parameters.clone();
    written["strict"] = json!(tool.strict.unwrap_or(false));
    written
}

pub(super) fn write_tool_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Auto => json!("auto"),
        ToolChoice::None => json!("none"),
        ToolChoice::Required => json!("required"),
        ToolChoice::Named(name) => json!({"type": "function", "name": name}),
    }
}

pub(super) fn write_format(format: &ResponseFormat) -> Value {
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
