//! OpenAI Chat Completions, `POST /v1/chat/completions`: messages, `tool_calls` and `tool`
//! messages; one completion (or one stream of chunks) made of every round: the rounds' texts a
//! blank line apart, the client's calls, one `finish_reason`.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value, json};
use tooldef::calls::{ChatCallAccumulator, ToolCall, chat_tool_calls, chat_tool_message};

use super::{AfterCalls, Api, ClientApi, Event, Failure, Names, Prepare, StreamFace};
use crate::conversation::{Texts, add_usage};
use crate::disposition::Disposition;
use crate::error::ApiError;
use crate::execute::arguments_are_an_object;
use crate::injection::Injection;
use crate::mcp_tool::{McpEntry, take_entries};
use crate::rounds::{End, Forced, Round};
use crate::servers::CallOutcome;
use crate::store::{self, Kept, Key};
use crate::translate::ir::{ErrorBody, Finish};

/// A Chat Completions request across its rounds: the texts of the rounds so far.
pub struct Chat {
    texts: Texts,
}

/// The call ids of an assistant message.
fn call_ids(message: &Value) -> impl Iterator<Item = &str> {
    message
        .get("tool_calls")
        .and_then(Value::as_array)
        .filter(|_| message.get("role").and_then(Value::as_str) == Some("assistant"))
        .into_iter()
        .flatten()
        .filter_map(|call| call.get("id").and_then(Value::as_str))
}

fn messages(request: &Map<String, Value>) -> &[Value] {
    request
        .get("messages")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice)
}

/// A `finish_reason` as the loop reads it.
pub fn finish_of(reason: &Value) -> Finish {
    match reason.as_str() {
        None | Some("stop") => Finish::Stop,
        Some("length") => Finish::Length,
        Some("tool_calls" | "function_call") => Finish::ToolCalls,
        Some("content_filter") => Finish::ContentFilter,
        Some(other) => Finish::Other(other.to_owned()),
    }
}

/// The assistant message of a round as it goes back upstream: the model's message, whose calls'
/// arguments that are not a JSON object are `{}` (they were not run).
fn assistant_message(round: &Round) -> Value {
    let mut message = round
        .reply
        .pointer("/choices/0/message")
        .cloned()
        .unwrap_or_else(|| json!({"role": "assistant", "content": null}));
    if let Some(calls) = message.get_mut("tool_calls").and_then(Value::as_array_mut) {
        for call in calls {
            if let Some(arguments) = call.pointer_mut("/function/arguments")
                && !arguments.as_str().is_some_and(arguments_are_an_object)
            {
                *arguments = json!("{}");
            }
        }
    }
    message
}

/// The raw `tool_calls` entries of a round's reply that are the client's.
fn client_calls(round: &Round) -> Vec<Value> {
    round
        .reply
        .pointer("/choices/0/message/tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|call| {
            call.get("id")
                .and_then(Value::as_str)
                .is_none_or(|id| !round.is_gateways(id))
        })
        .cloned()
        .collect()
}

/// The `finish_reason` the client gets: cut short wins, then its own calls; a round that called
/// only the gateway's tools and was not run (the last) answered in words.
fn client_finish(round: &Round, client_calls: bool) -> Value {
    match &round.finish {
        Finish::Length => json!("length"),
        _ if client_calls => json!("tool_calls"),
        Finish::ToolCalls | Finish::Stop => json!("stop"),
        Finish::ContentFilter => json!("content_filter"),
        Finish::Other(other) => json!(other),
    }
}

/// The gateway's own member of an answer its bound cut short: Chat Completions has no status
/// for it, and the body alone must say so.
pub fn incomplete_member(end: &End) -> Option<Value> {
    end.bound
        .map(|bound| json!({"incomplete": {"reason": bound.as_str()}, "rounds": end.rounds}))
}

impl ClientApi for Chat {
    const API: Api = Api::Chat;
    const CONVERSATION: &'static str = "messages";
    const NAMED_EVENTS: bool = false;
    const DONE: Option<&'static str> = Some("[DONE]");

    type Stream = ChatStream;

    fn take_entries(request: &mut Map<String, Value>) -> Result<Vec<McpEntry>, ApiError> {
        take_entries(request)
    }

    fn store_keys(request: &Map<String, Value>) -> (Vec<String>, bool) {
        let messages = messages(request);
        let since = store::in_progress(
            messages
                .iter()
                .rposition(|m| m.get("role").and_then(Value::as_str) == Some("user")),
            messages.iter().rposition(|m| {
                m.get("role").and_then(Value::as_str) == Some("assistant")
                    && call_ids(m).next().is_none()
            }),
        );
        store::call_keys(messages, since, call_ids, Key::chat_call)
    }

    /// Puts back the injected calls of a reply that also called the client's tools: the
    /// client's assistant message becomes the model's whole message again, preceded by the
    /// rounds before it and followed by the injected calls' results, so the upstream sees the
    /// conversation the model had.
    async fn prepare(context: Prepare<'_>) -> Result<Chat, ApiError> {
        if let Some(Value::Array(messages)) = context.request.get_mut("messages") {
            reinsert(messages, context.kept);
        }
        Ok(Chat {
            texts: Texts::default(),
        })
    }

    fn check_rounds(request: &Map<String, Value>) -> Result<(), ApiError> {
        if request
            .get("n")
            .and_then(Value::as_u64)
            .is_some_and(|n| n > 1)
        {
            return Err(ApiError::invalid(
                "`n` greater than 1 cannot be combined with tools the gateway runs: each choice would need its own rounds. Ask for one choice, or use the gateway in inject mode.",
                "unsupported_n",
            )
            .param("n"));
        }
        Ok(())
    }

    fn forced(choice: &Value) -> Option<Forced> {
        match choice {
            Value::String(choice) if choice == "required" => Some(Forced::Any),
            Value::Object(_) => choice
                .pointer("/function/name")
                .or_else(|| choice.get("name"))
                .and_then(Value::as_str)
                .map(|name| Forced::Tool(name.to_owned())),
            _ => None,
        }
    }

    fn tool_name(tool: &Value) -> Option<&str> {
        tool.pointer("/function/name").and_then(Value::as_str)
    }

    fn read_reply(&self, reply: Value, injection: &Injection) -> Result<Round, String> {
        let calls = chat_tool_calls(&reply)
            .map_err(|err| format!("The upstream's tool calls are unreadable: {err}"))?;
        Ok(Round {
            id: reply["id"].clone(),
            created: reply["created"].clone(),
            calls: with_dispositions(calls, injection),
            finish: finish_of(
                reply
                    .pointer("/choices/0/finish_reason")
                    .unwrap_or(&Value::Null),
            ),
            usage: reply.get("usage").cloned(),
            reply,
        })
    }

    fn absorb(&mut self, round: &Round) {
        self.texts.push(
            round
                .reply
                .pointer("/choices/0/message/content")
                .and_then(Value::as_str),
        );
    }

    fn after_calls(
        &mut self,
        round: &Round,
        ran: &[(ToolCall, CallOutcome)],
        added: &mut Vec<Value>,
        _names: &Names<'_>,
    ) -> AfterCalls {
        let results: Vec<Value> = ran
            .iter()
            .map(|(call, outcome)| chat_tool_message(&call.id, &outcome.text()))
            .collect();
        let assistant = assistant_message(round);
        let client: Vec<&ToolCall> = round.of(Disposition::Client).collect();
        if client.is_empty() {
            added.push(assistant);
            added.extend(results);
            return AfterCalls {
                ends: false,
                keep: Vec::new(),
                shown: Vec::new(),
            };
        }
        let keys = client.iter().map(|call| Key::chat_call(&call.id)).collect();
        let kept = Kept::ChatTurn {
            earlier: std::mem::take(added),
            assistant,
            results,
        };
        AfterCalls {
            ends: true,
            keep: vec![(keys, kept)],
            shown: Vec::new(),
        }
    }

    /// The last completion, under the first one's id, with every round's text.
    fn answer(&mut self, mut last: Round, end: &End) -> Value {
        let client = client_calls(&last);
        let finish = client_finish(&last, !client.is_empty());
        let mut completion = std::mem::take(&mut last.reply);
        completion["id"] = end.id.clone();
        completion["created"] = end.created.clone();
        if !end.usage.is_null() {
            completion["usage"] = end.usage.clone();
        }
        if let Some(choice) = completion.pointer_mut("/choices/0") {
            let message = &mut choice["message"];
            message["content"] = self.texts.joined().map_or(Value::Null, Value::String);
            if let Some(message) = message.as_object_mut() {
                if client.is_empty() {
                    message.remove("tool_calls");
                } else {
                    message.insert("tool_calls".to_owned(), Value::Array(client));
                }
            }
            choice["finish_reason"] = finish;
        }
        if let Some(member) = incomplete_member(end) {
            completion[crate::conversation::EXTENSION] = member;
        }
        completion
    }
}

/// A reply's calls, each with what happens to it (Chat Completions shows no approval requests:
/// a call that needs one is the client's).
pub fn with_dispositions(
    calls: Vec<ToolCall>,
    injection: &Injection,
) -> Vec<(ToolCall, Disposition)> {
    calls
        .into_iter()
        .map(|call| {
            let disposition = injection.disposition(&call.name, false);
            (call, disposition)
        })
        .collect()
}

/// Puts the kept turns back into the client's messages: the injected calls' `tool` messages right
/// after the model's whole message.
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
        Key::chat_call,
        ids,
        |kept| match kept {
            Kept::ChatTurn {
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
        |messages, i, results| {
            messages.splice(i + 1..i + 1, results.iter().cloned());
            results.len()
        },
    );
}

/// One streamed completion as the client sees it, across the rounds.
pub struct ChatStream {
    id: Value,
    created: Value,
    /// The fields of the upstream's chunks besides `choices` and `usage` (`model`,
    /// `system_fingerprint`, `service_tier`…), as of the latest chunk.
    template: Map<String, Value>,
    role_sent: bool,
    wrote_text: bool,
    include_usage: bool,
    /// The client's calls so far, by index in the client's stream.
    client_calls: usize,
    /// This round's: its calls, per upstream index the client's index (`None`: the gateway's),
    /// its text, its finish and usage.
    calls: ChatCallAccumulator,
    indexes: HashMap<u64, Option<usize>>,
    text: String,
    finish: Value,
    usage: Option<Value>,
    /// Whether the client's calls were streamed in any round (they end the rounds).
    any_client_calls: bool,
}

impl ChatStream {
    /// A chunk of the client's stream: the first round's id and time, the latest chunk's other
    /// fields.
    fn chunk(&self, delta: Map<String, Value>, finish_reason: Value) -> Value {
        let mut chunk = self.template.clone();
        chunk.insert("id".to_owned(), self.id.clone());
        chunk.insert("object".to_owned(), json!("chat.completion.chunk"));
        chunk.insert("created".to_owned(), self.created.clone());
        chunk.insert(
            "choices".to_owned(),
            json!([{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish_reason}]),
        );
        Value::Object(chunk)
    }

    /// The fragments of the client's calls in a delta's `tool_calls`, re-indexed.
    fn client_fragments(&mut self, fragments: &Value, injection: &Injection) -> Vec<Value> {
        let mut forwarded = Vec::new();
        for fragment in fragments.as_array().into_iter().flatten() {
            let Some(index) = fragment.get("index").and_then(Value::as_u64) else {
                continue;
            };
            let known = match self.indexes.get(&index) {
                Some(known) => *known,
                None => {
                    let Some(name) = fragment.pointer("/function/name").and_then(Value::as_str)
                    else {
                        continue;
                    };
                    let client = (!injection.disposition(name, false).is_gateways()).then(|| {
                        self.client_calls += 1;
                        self.client_calls - 1
                    });
                    self.indexes.insert(index, client);
                    client
                }
            };
            if let Some(client_index) = known {
                let mut fragment = fragment.clone();
                fragment["index"] = json!(client_index);
                forwarded.push(fragment);
            }
        }
        forwarded
    }
}

impl StreamFace<Chat> for ChatStream {
    fn new(_api: &Chat, request: &Map<String, Value>) -> ChatStream {
        ChatStream {
            id: Value::Null,
            created: Value::Null,
            template: Map::new(),
            role_sent: false,
            wrote_text: false,
            include_usage: request
                .get("stream_options")
                .and_then(|o| o.get("include_usage"))
                .and_then(Value::as_bool)
                .unwrap_or(false),
            client_calls: 0,
            calls: ChatCallAccumulator::new(),
            indexes: HashMap::new(),
            text: String::new(),
            finish: Value::Null,
            usage: None,
            any_client_calls: false,
        }
    }

    fn event(
        &mut self,
        _api: &Chat,
        injection: &Injection,
        _round: u32,
        chunk: Value,
    ) -> Result<Vec<Event>, Failure> {
        if chunk.get("error").is_some() {
            return Err(Failure::Upstream(chunk));
        }
        if self.id.is_null() {
            self.id = chunk["id"].clone();
            self.created = chunk["created"].clone();
        }
        if let Some(fields) = chunk.as_object() {
            self.template = fields
                .iter()
                .filter(|(key, _)| !matches!(key.as_str(), "choices" | "usage"))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
        }
        self.calls.push(&chunk).map_err(|err| {
            Failure::Gateway(ErrorBody::upstream(format!(
                "The upstream's tool calls are unreadable: {err}"
            )))
        })?;
        if let Some(usage) = chunk.get("usage").filter(|u| !u.is_null()) {
            self.usage = Some(usage.clone());
        }
        let Some(choice) = chunk.pointer("/choices/0") else {
            return Ok(Vec::new());
        };
        if !choice["finish_reason"].is_null() {
            self.finish = choice["finish_reason"].clone();
        }
        let Some(delta) = choice.get("delta").and_then(Value::as_object) else {
            return Ok(Vec::new());
        };
        let mut out = Map::new();
        // The role is said once, in the first round; the empty content and `refusal` that come
        // with it in every round are said with it only.
        let forward_role = !self.role_sent && delta.contains_key("role");
        for (key, value) in delta {
            match key.as_str() {
                "role" => {
                    if forward_role {
                        self.role_sent = true;
                        out.insert(key.clone(), value.clone());
                    }
                }
                "content" => {
                    if let Some(piece) = value.as_str().filter(|p| !p.is_empty()) {
                        let mut piece = piece.to_owned();
                        if self.text.is_empty() && self.wrote_text {
                            piece.insert_str(0, Texts::SEPARATOR);
                        }
                        self.text.push_str(value.as_str().unwrap_or_default());
                        self.wrote_text = true;
                        out.insert(key.clone(), Value::String(piece));
                    } else if forward_role {
                        out.insert(key.clone(), value.clone());
                    }
                }
                "tool_calls" => {
                    let forwarded = self.client_fragments(value, injection);
                    if !forwarded.is_empty() {
                        self.any_client_calls = true;
                        out.insert(key.clone(), Value::Array(forwarded));
                    }
                }
                _ if value.is_null() && !forward_role => {}
                _ => {
                    out.insert(key.clone(), value.clone());
                }
            }
        }
        if out.is_empty() {
            return Ok(Vec::new());
        }
        Ok(vec![self.chunk(out, Value::Null)])
    }

    fn round(&mut self, _api: &Chat, injection: &Injection) -> Result<Round, Failure> {
        let calls = std::mem::take(&mut self.calls).finish().map_err(|err| {
            Failure::Gateway(ErrorBody::upstream(format!(
                "The upstream's tool calls are unreadable: {err}"
            )))
        })?;
        let raw: Vec<Value> = calls
            .iter()
            .map(|c| json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}))
            .collect();
        let text = std::mem::take(&mut self.text);
        let mut message =
            json!({"role": "assistant", "content": (!text.is_empty()).then_some(text)});
        if !raw.is_empty() {
            message["tool_calls"] = Value::Array(raw);
        }
        self.indexes.clear();
        let finish = std::mem::take(&mut self.finish);
        Ok(Round {
            id: self.id.clone(),
            created: self.created.clone(),
            calls: with_dispositions(calls, injection),
            finish: finish_of(&finish),
            usage: self.usage.take(),
            reply: json!({"choices": [{"index": 0, "message": message, "finish_reason": finish}]}),
        })
    }

    fn running(&mut self, _api: &Chat, _round: &Round, _names: &Names<'_>) -> Vec<Event> {
        Vec::new()
    }

    fn ran(&mut self, _api: &Chat, _shown: Vec<Value>) -> Vec<Event> {
        Vec::new()
    }

    fn finish(&mut self, _api: &mut Chat, last: Round, end: &End) -> Vec<Event> {
        let finish = client_finish(&last, self.any_client_calls);
        let mut closing = self.chunk(Map::new(), finish);
        if let Some(member) = incomplete_member(end) {
            closing[crate::conversation::EXTENSION] = member;
        }
        let mut events = vec![closing];
        if self.include_usage {
            let mut chunk = self.chunk(Map::new(), Value::Null);
            chunk["choices"] = json!([]);
            let mut usage = Value::Null;
            add_usage(&mut usage, &end.usage);
            chunk["usage"] = usage;
            events.push(chunk);
        }
        events
    }

    fn fail(&mut self, error: &ErrorBody) -> Event {
        crate::translate::write_error_event(Api::Chat, error)
    }
}
