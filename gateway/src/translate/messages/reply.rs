//! A whole Messages reply, read from an upstream and written for a client, with its stop
//! reason and usage.

use serde::Deserialize;
use serde_json::{Value, json};

use crate::translate::common::{
    calls, effective_finish, id_with_prefix, null_as_default, parse_reply,
};
use crate::translate::ir::{Call, Finish, Part, Reply, Request, Usage};

use super::error::read_error;
use super::write::tool_use;

#[derive(Deserialize)]
pub(super) struct MessagesReply {
    #[serde(default, deserialize_with = "null_as_default")]
    pub(super) id: String,
    pub(super) model: Option<String>,
    #[serde(default, deserialize_with = "null_as_default")]
    content: Vec<Value>,
    stop_reason: Option<String>,
    pub(super) usage: Option<MessagesUsage>,
}

#[derive(Debug, Deserialize, Default)]
pub(super) struct MessagesUsage {
    pub(super) input_tokens: Option<u64>,
    pub(super) output_tokens: Option<u64>,
    pub(super) cache_read_input_tokens: Option<u64>,
    pub(super) cache_creation_input_tokens: Option<u64>,
}

impl MessagesUsage {
    /// The prompt's tokens: Messages counts those read from and written to its cache apart from
    /// `input_tokens`; the IR counts them all.
    pub(super) fn input(&self) -> Option<u64> {
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
pub(super) fn block_part(block: &Value) -> Option<Part> {
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

pub(super) fn read_stop(reason: &str) -> Finish {
    match reason {
        "end_turn" | "stop_sequence" => Finish::Stop,
        "max_tokens" => Finish::Length,
        "tool_use" => Finish::ToolCalls,
        "refusal" => Finish::ContentFilter,
        other => Finish::Other(other.to_owned()),
    }
}

pub(super) fn write_stop(finish: &Finish, called: bool) -> String {
    match effective_finish(finish, called) {
        Finish::Stop => "end_turn".to_owned(),
        Finish::Length => "max_tokens".to_owned(),
        Finish::ToolCalls => "tool_use".to_owned(),
        Finish::ContentFilter => "refusal".to_owned(),
        Finish::Other(reason) => reason,
    }
}

/// Usage as Messages counts it: `input_tokens` without those read from the cache.
pub(super) fn write_usage(usage: &Usage) -> Value {
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
