//! A whole response, read from an upstream (or a stream's `response.*` event) and written
//! for a client, with the items both it and a stream are made of.

use serde::Deserialize;
use serde_json::{Value, json};

use crate::translate::common::{
    calls, effective_finish, id_with_prefix, new_id, now, null_as_default, parse_reply, push_text,
};
use crate::translate::ir::{
    Call, ErrorBody, Finish, Part, Reply, Request, ResponseFormat, Role, ToolChoice, Usage,
};

use super::read_input::{ReasoningText, reasoning_text};
use super::write::{write_format, write_tool, write_tool_choice};

/// A whole response, or the one in a stream's `response.*` event.
#[derive(Deserialize)]
pub(super) struct Response {
    #[serde(default, deserialize_with = "null_as_default")]
    pub(super) id: String,
    pub(super) model: Option<String>,
    created_at: Option<Value>,
    status: Option<String>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub(super) output: Vec<Value>,
    pub(super) usage: Option<ResponsesUsage>,
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
pub(super) struct ResponsesUsage {
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
    pub(super) fn read(self) -> Usage {
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
    pub(super) fn created(&self) -> Option<i64> {
        match &self.created_at {
            Some(Value::Number(number)) => number.as_i64().or_else(|| {
                // The fraction is dropped (`as` saturates: an absurd time cannot overflow).
                number.as_f64().map(|seconds| seconds as i64)
            }),
            _ => None,
        }
    }

    /// Why it ended, as its status says (a response that completed with calls ended for them).
    pub(super) fn finish(&self, called: bool) -> Result<Finish, ErrorBody> {
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

    pub(super) fn failure(&self) -> ErrorBody {
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
pub(super) fn item_text(item: &Value) -> String {
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

pub(super) fn string_field(value: &Value, field: &str) -> String {
    value
        .get(field)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// Reads a whole response of a Responses upstream.
pub fn read_reply(reply: &Value) -> Result<Reply, String> {
    if let Some(error) =
        crate::translate::chat::read_error(reply).filter(|_| reply.get("output").is_none())
    {
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
pub(super) struct Head<'a> {
    pub(super) id: &'a str,
    pub(super) created_at: i64,
    pub(super) model: &'a str,
}

/// A response object: in progress (`finish` is `None`, as in a stream's first events) or ended.
pub(super) fn response(
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

pub(super) fn message_item(id: &str, text: &str, status: &str) -> Value {
    json!({
        "id": id,
        "type": "message",
        "status": status,
        "role": "assistant",
        "content": if status == "in_progress" { json!([]) } else { json!([output_text(text)]) },
    })
}

pub(super) fn output_text(text: &str) -> Value {
    json!({"type": "output_text", "text": text, "annotations": [], "logprobs": []})
}

pub(super) fn reasoning_item(id: &str, text: &str, done: bool) -> Value {
    json!({
        "id": id,
        "type": "reasoning",
        "summary": if done { json!([{"type": "summary_text", "text": text}]) } else { json!([]) },
    })
}

pub(super) fn call_item(id: &str, call: &Call, status: &str) -> Value {
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
