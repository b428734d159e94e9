//! A whole Chat completion, read from an upstream and written for a client, with its
//! finish reason and usage.

use serde::Deserialize;
use serde_json::{Value, json};

use crate::translate::common::{
    effective_finish, id_with_prefix, now, null_as_default, parse_reply, push_text,
};
use crate::translate::ir::{Call, Finish, Part, Reply, Request, Usage};

use super::ID_PREFIX;
use super::error::read_error;
use super::read_messages::ToolCall;
use super::write::write_call;

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
pub(super) struct ChatUsage {
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
    pub(super) fn read(self) -> Usage {
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

pub(super) fn read_finish(reason: &str) -> Finish {
    match reason {
        "stop" => Finish::Stop,
        "length" => Finish::Length,
        "tool_calls" | "function_call" => Finish::ToolCalls,
        "content_filter" => Finish::ContentFilter,
        other => Finish::Other(other.to_owned()),
    }
}

/// `finish_reason` for a reply that ended so and did or did not call tools.
pub(super) fn write_finish(finish: &Finish, called: bool) -> String {
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

pub(super) fn write_usage(usage: &Usage) -> Value {
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
