//! Anthropic Messages, `POST /v1/messages`: `system`, content blocks, `tool_use` blocks and the
//! `tool_result` blocks of the next user message; one message (or one stream: one
//! `message_start`, one `message_stop`) made of every round's blocks, its `stop_reason` the
//! client's (`tool_use` for its own calls, `max_tokens` when cut). Anthropic's MCP connector
//! chooses the servers (`crate::mcp_connector`), whose calls the client is shown as
//! `mcp_tool_use` and `mcp_tool_result` blocks. `stream.rs` is the client's stream.

mod count_tokens;
mod stream;

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value, json};
use tooldef::calls::{ToolCall, anthropic_tool_result};

use super::{AfterCalls, Api, Choice, ClientApi, Names, Prepare};
use crate::disposition::Disposition;
use crate::error::ApiError;
use crate::execute::arguments_are_an_object;
use crate::injection::Injection;
use crate::mcp_tool::McpEntry;
use crate::rounds::{End, Forced, Round};
use crate::servers::CallOutcome;
use crate::store::{self, Kept, Key};
use crate::translate::ir::Finish;

pub use count_tokens::{PATH as COUNT_TOKENS_PATH, count_tokens};
pub use stream::MessagesStream;

/// A Messages request across its rounds.
pub struct Messages {
    /// The blocks the client is shown, across the rounds.
    visible: Vec<Value>,
    /// Whether its MCP connector chose its servers: their calls are shown.
    hosted: bool,
}

fn blocks(message: &Value) -> &[Value] {
    message
        .get("content")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice)
}

fn kind(block: &Value) -> Option<&str> {
    block.get("type").and_then(Value::as_str)
}

/// The `tool_use` ids of an assistant message.
fn call_ids(message: &Value) -> impl Iterator<Item = &str> {
    let assistant = message.get("role").and_then(Value::as_str) == Some("assistant");
    blocks(message)
        .iter()
        .filter(move |block| assistant && kind(block) == Some("tool_use"))
        .filter_map(|block| block.get("id").and_then(Value::as_str))
}

/// Whether a user message says something (not only `tool_result` blocks): a new turn.
fn is_users_turn(message: &Value) -> bool {
    message.get("role").and_then(Value::as_str) == Some("user")
        && (message.get("content").is_some_and(Value::is_string)
            || blocks(message)
                .iter()
                .any(|block| kind(block) != Some("tool_result")))
}

/// A `stop_reason` as the loop reads it.
pub fn finish_of(reason: Option<&str>) -> Finish {
    match reason {
        None | Some("end_turn" | "stop_sequence") => Finish::Stop,
        Some("max_tokens" | "model_context_window_exceeded") => Finish::Length,
        Some("tool_use") => Finish::ToolCalls,
        Some("refusal") => Finish::ContentFilter,
        Some(other) => Finish::Other(other.to_owned()),
    }
}

/// The calls of a reply's `tool_use` blocks: their input as JSON text (an input that is not an
/// object, as a stream cut short leaves it, as it came).
fn calls_of(reply: &Value, injection: &Injection) -> Vec<(ToolCall, Disposition)> {
    blocks(reply)
        .iter()
        .filter(|block| kind(block) == Some("tool_use"))
        .map(|block| {
            let call = ToolCall {
                id: block["id"].as_str().unwrap_or_default().to_owned(),
                name: block["name"].as_str().unwrap_or_default().to_owned(),
                arguments: match block.get("input") {
                    None | Some(Value::Null) => "{}".to_owned(),
                    Some(Value::String(partial)) => partial.clone(),
                    Some(input) => input.to_string(),
                },
            };
            let disposition = injection.disposition(&call.name, false);
            (call, disposition)
        })
        .collect()
}

/// The assistant message of a round as it goes back upstream: every block the model made, a
/// `tool_use` input that is not an object `{}` (it was not run).
fn assistant_message(round: &Round) -> Value {
    let content: Vec<Value> = blocks(&round.reply)
        .iter()
        .map(|block| {
            let mut block = block.clone();
            if kind(&block) == Some("tool_use") && !block["input"].is_object() {
                let object = block["input"]
                    .as_str()
                    .filter(|text| arguments_are_an_object(text))
                    .and_then(|text| serde_json::from_str(text).ok())
                    .unwrap_or_else(|| json!({}));
                block["input"] = object;
            }
            block
        })
        .collect();
    json!({"role": "assistant", "content": content})
}

/// The `stop_reason` the client gets: cut short wins, then its own calls; a round that called
/// only the gateway's tools and was not run (the last) ended its turn.
fn client_stop(round: &Round, client_calls: bool) -> Value {
    match &round.finish {
        Finish::Length => json!("max_tokens"),
        _ if client_calls => json!("tool_use"),
        Finish::ToolCalls | Finish::Stop => json!("end_turn"),
        Finish::ContentFilter => json!("refusal"),
        Finish::Other(other) => json!(other),
    }
}

impl ClientApi for Messages {
    const API: Api = Api::Messages;
    const CONVERSATION: &'static str = "messages";

    type Stream = MessagesStream;

    fn take_entries(request: &mut Map<String, Value>) -> Result<Vec<McpEntry>, ApiError> {
        crate::mcp_connector::take_entries(request)
    }

    fn store_keys(request: &Map<String, Value>) -> (Vec<String>, bool) {
        let messages = request
            .get("messages")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        let since = store::in_progress(
            messages.iter().rposition(is_users_turn),
            messages.iter().rposition(|m| {
                m.get("role").and_then(Value::as_str) == Some("assistant")
                    && call_ids(m).next().is_none()
            }),
        );
        store::call_keys(messages, since, call_ids, Key::messages_call)
    }

    async fn prepare(context: Prepare<'_>) -> Result<Messages, ApiError> {
        let hosted = !context.entries.is_empty();
        if let Some(Value::Array(messages)) = context.request.get_mut("messages") {
            reinsert(messages, context.kept);
            if hosted {
                let inner = context.inner;
                *messages = crate::mcp_connector::translate(
                    std::mem::take(messages),
                    &inner.sources,
                    context.injection,
                    &inner.config.separator,
                );
            }
        }
        Ok(Messages {
            visible: Vec::new(),
            hosted,
        })
    }

    fn tool_choice(&self, choice: Choice, client: Option<&Value>) -> Value {
        let mut written = json!({"type": match choice {
            Choice::Auto => "auto",
            Choice::None => "none",
            Choice::Required => "any",
        }});
        if choice != Choice::None
            && let Some(flag) = client.and_then(|c| c.get("disable_parallel_tool_use"))
        {
            written["disable_parallel_tool_use"] = flag.clone();
        }
        written
    }

    fn forced(choice: &Value) -> Option<Forced> {
        match choice.get("type").and_then(Value::as_str) {
            Some("any") => Some(Forced::Any),
            Some("tool") => choice
                .get("name")
                .and_then(Value::as_str)
                .map(|name| Forced::Tool(name.to_owned())),
            _ => None,
        }
    }

    fn forbids_calls(choice: &Value) -> bool {
        choice.get("type").and_then(Value::as_str) == Some("none")
    }

    fn tool_name(tool: &Value) -> Option<&str> {
        tool.get("name").and_then(Value::as_str)
    }

    fn read_reply(&self, reply: Value, injection: &Injection) -> Result<Round, String> {
        if !reply.get("content").is_some_and(Value::is_array) {
            return Err("The upstream's answer has no `content` list.".to_owned());
        }
        Ok(Round {
            id: reply["id"].clone(),
            created: Value::Null,
            calls: calls_of(&reply, injection),
            finish: finish_of(reply.get("stop_reason").and_then(Value::as_str)),
            usage: reply.get("usage").cloned(),
            reply,
        })
    }

    fn absorb(&mut self, round: &Round) {
        self.visible.extend(
            blocks(&round.reply)
                .iter()
                .filter(|block| {
                    !(kind(block) == Some("tool_use")
                        && block["id"].as_str().is_some_and(|id| round.is_gateways(id)))
                })
                .cloned(),
        );
    }

    fn after_calls(
        &mut self,
        round: &Round,
        ran: &[(ToolCall, CallOutcome)],
        added: &mut Vec<Value>,
        names: &Names<'_>,
    ) -> AfterCalls {
        // With Anthropic's tool search, the search's result loads the tools it found.
        let references = names
            .injection
            .discovery
            .as_ref()
            .filter(|discovery| discovery.loads_by_reference());
        let results: Vec<Value> = ran
            .iter()
            .map(|(call, outcome)| match references {
                Some(discovery) if discovery.is_search(&call.name) => {
                    crate::tool_reference::result(call, outcome)
                }
                _ => anthropic_tool_result(call, &outcome.output, outcome.is_error),
            })
            .collect();
        let assistant = assistant_message(round);
        let mut shown = Vec::new();
        if self.hosted {
            for (call, outcome) in ran {
                if let Some((label, tool)) = names.server_and_tool(&call.name) {
                    shown.extend(crate::mcp_connector::shown(call, label, tool, outcome));
                }
            }
            self.visible.extend(shown.iter().cloned());
        }
        let client: Vec<&ToolCall> = round.of(Disposition::Client).collect();
        if client.is_empty() {
            added.push(assistant);
            added.push(json!({"role": "user", "content": results}));
            return AfterCalls {
                ends: false,
                keep: Vec::new(),
                shown,
            };
        }
        let keys = client
            .iter()
            .map(|call| Key::messages_call(&call.id))
            .collect();
        let kept = Kept::MessagesTurn {
            earlier: std::mem::take(added),
            assistant,
            results,
        };
        AfterCalls {
            ends: true,
            keep: vec![(keys, kept)],
            shown,
        }
    }

    /// The last message, under the first one's id, with every round's blocks.
    fn answer(&mut self, last: Round, end: &End) -> Value {
        let client = last.of(Disposition::Client).next().is_some();
        let stop = client_stop(&last, client);
        let mut message = last.reply;
        message["id"] = end.id.clone();
        message["content"] = Value::Array(std::mem::take(&mut self.visible));
        message["stop_reason"] = stop;
        if !end.usage.is_null() {
            message["usage"] = end.usage.clone();
        }
        if let Some(member) = super::chat::incomplete_member(end) {
            message[crate::conversation::EXTENSION] = member;
        }
        message
    }
}

/// Puts the kept turns back into the client's messages: the client's assistant message becomes
/// the model's whole message again, preceded by the rounds before it, and the injected calls'
/// results go first in the user message after it, beside the client's.
fn reinsert(messages: &mut Vec<Value>, kept: &HashMap<String, Arc<Kept>>) {
    let ids = |message: &Value| {
        call_ids(message)
            .map(str::to_owned)
            .collect::<Vec<_>>()
            .into_iter()
    };
    super::reinsert_turns(
        messages,
        kept,
        Key::messages_call,
        ids,
        |kept| match kept {
            Kept::MessagesTurn {
                earlier,
                assistant,
                results,
            } => Some(super::Turn {
                earlier,
                assistant,
                results,
            }),
            _ => None,
        },
        place_results,
    );
}

/// The injected calls' `tool_result` blocks first in the user message after the model's, beside
/// the client's own (a user message of their own when the client sent none).
fn place_results(messages: &mut Vec<Value>, i: usize, results: &[Value]) -> usize {
    match messages.get_mut(i + 1) {
        Some(next) if next.get("role").and_then(Value::as_str) == Some("user") => {
            let mut content: Vec<Value> = results.to_vec();
            match next.get("content") {
                Some(Value::Array(theirs)) => content.extend(theirs.iter().cloned()),
                Some(Value::String(text)) => content.push(json!({"type": "text", "text": text})),
                _ => {}
            }
            next["content"] = Value::Array(content);
        }
        _ => messages.insert(i + 1, json!({"role": "user", "content": results})),
    }
    1
}
