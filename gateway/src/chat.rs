//! `POST /v1/chat/completions`: the client's request with the injected tools; in execute mode,
//! the model's calls to them run here and the upstream is asked again, round after round, and
//! the client gets one completion (or one stream) as if the model had answered directly.

use std::collections::HashMap;
use std::sync::Arc;

use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures_util::StreamExt;
use serde_json::{Map, Value, json};
use tooldef::Target;
use tooldef::calls::{ChatCallAccumulator, ToolCall, chat_tool_calls, chat_tool_message};

use crate::body::Outgoing;
use crate::catalog::execute_within;
use crate::conversation::{Budget, STOPPED, Texts, add_usage, forces_a_call, request_object};
use crate::error::ApiError;
use crate::gateway::{Injection, Inner};
use crate::mcp_tool::take_entries;
use crate::sse::{Gone, Writer, events};
use crate::store::{self, Kept, KeptStore, StoreError};
use crate::upstream::{informative_headers, passthrough, whole};

const PATH: &str = "/v1/chat/completions";

/// Answers one Chat Completions request.
pub async fn complete(inner: Arc<Inner>, headers: HeaderMap, body: Bytes) -> Response {
    match run(inner, headers, body).await {
        Ok(response) | Err(response) => response,
    }
}

async fn run(inner: Arc<Inner>, headers: HeaderMap, body: Bytes) -> Result<Response, Response> {
    let mut request = request_object(&body).map_err(IntoResponse::into_response)?;
    let budget = Budget::of_request(&inner.config, &mut request, false)
        .map_err(IntoResponse::into_response)?;
    // OpenAI's hosted-MCP entries choose this request's servers and tools; no upstream sees them.
    let entries = take_entries(&mut request).map_err(IntoResponse::into_response)?;
    let adhoc = inner
        .connect_remotes(&entries, Target::ChatCompletions)
        .await
        .map_err(IntoResponse::into_response)?;
    let unread = match request.get_mut("messages") {
        Some(Value::Array(messages)) => reinsert(&inner, messages)
            .await
            .map_err(IntoResponse::into_response)?,
        _ => None,
    };
    let injection = inner
        .inject(Target::ChatCompletions, &request, &entries, adhoc)
        .map_err(IntoResponse::into_response)?;
    let upstream_headers = inner.upstream.headers(&headers, true);
    let mut conflicts = injection.headers(&inner.sources);
    conflicts.extend(unread.map(|_| store::unread_header()));
    if !inner.executes() || !injection.active {
        let answer = inner
            .upstream
            .post_json(
                PATH,
                &upstream_headers,
                &Outgoing {
                    request: &request,
                    conversation: None,
                    tool_choice: None,
                    injection: &injection,
                },
            )
            .await
            .map_err(IntoResponse::into_response)?;
        let mut response = passthrough(answer);
        response.headers_mut().extend(conflicts);
        return Ok(response);
    }
    if request
        .get("n")
        .and_then(Value::as_u64)
        .is_some_and(|n| n > 1)
    {
        return Err(ApiError::invalid(
            "`n` greater than 1 cannot be combined with tools the gateway runs: each choice would need its own rounds. Ask for one choice, or use the gateway in inject mode.",
            "unsupported_n",
        )
        .param("n")
        .into_response());
    }
    let messages = match request.remove("messages") {
        Some(Value::Array(messages)) => messages,
        _ => {
            return Err(
                ApiError::invalid("`messages` must be an array.", "invalid_messages")
                    .param("messages")
                    .into_response(),
            );
        }
    };
    let rounds = Rounds {
        inner,
        injection,
        headers: upstream_headers,
        forced: forces_a_call(request.get("tool_choice")),
        budget,
        request,
        messages,
        earlier: Vec::new(),
    };
    if rounds.request.get("stream") == Some(&Value::Bool(true)) {
        rounds.stream(conflicts).await
    } else {
        rounds.whole(conflicts).await
    }
}

/// The store's key for a Chat call id.
fn key(id: &str) -> String {
    format!("chat:{id}")
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

/// Puts back the injected calls of a reply that also called the client's tools: the client's
/// assistant message becomes the model's whole message again, preceded by the rounds before it
/// and followed by the injected calls' results, so the upstream sees the conversation the model
/// had.
///
/// Every assistant call id is looked up (in one read). When the store cannot be read, a request
/// with calls in the turn in progress (see [`store::in_progress`]: the follow-up the store is
/// for) is answered 503; one whose calls are all of earlier turns carries on as the client wrote
/// it, as it would once they expired, and the error is given back to say so.
async fn reinsert(
    inner: &Inner,
    messages: &mut Vec<Value>,
) -> Result<Option<StoreError>, ApiError> {
    // Inject mode keeps nothing, so it has nothing to read.
    if !inner.executes() {
        return Ok(None);
    }
    let is_user = |m: &Value| m.get("role").and_then(Value::as_str) == Some("user");
    let since = store::in_progress(
        messages.iter().rposition(is_user),
        messages.iter().rposition(|m| {
            m.get("role").and_then(Value::as_str) == Some("assistant")
                && call_ids(m).next().is_none()
        }),
    );
    let mut keys = Vec::new();
    let mut latest = false;
    for (i, message) in messages.iter().enumerate() {
        for id in call_ids(message) {
            keys.push(key(id));
            latest |= since.is_none_or(|since| i > since);
        }
    }
    if keys.is_empty() {
        return Ok(None);
    }
    keys.sort_unstable();
    keys.dedup();
    let found = match inner.store.get_many(&keys).await {
        Ok(found) => found,
        Err(err) if latest => return Err(err.on_read()),
        Err(err) => {
            tracing::warn!(
                "{err}: the earlier turns of a conversation are sent as the client wrote them"
            );
            return Ok(Some(err));
        }
    };
    let kept: HashMap<&str, Arc<Kept>> = keys
        .iter()
        .zip(found)
        .filter_map(|(key, kept)| Some((key.as_str(), kept?)))
        .collect();
    let mut i = 0;
    while i < messages.len() && !kept.is_empty() {
        let found = call_ids(&messages[i]).find_map(|id| kept.get(key(id).as_str()).cloned());
        let Some(Kept::ChatTurn {
            earlier,
            assistant,
            results,
        }) = found.as_deref()
        else {
            i += 1;
            continue;
        };
        if call_ids(&messages[i]).count() >= call_ids(assistant).count() {
            // The client sent the whole turn itself.
            i += 1;
            continue;
        }
        messages[i] = assistant.clone();
        messages.splice(i + 1..i + 1, results.iter().cloned());
        messages.splice(i..i, earlier.iter().cloned());
        i += earlier.len() + 1 + results.len();
    }
    Ok(None)
}

/// One client request's conversation with the upstream.
struct Rounds {
    inner: Arc<Inner>,
    injection: Injection,
    headers: HeaderMap,
    /// Whether the client's `tool_choice` forces a call (sent in the first round only).
    forced: bool,
    /// The request's bounds, and the calls run so far.
    budget: Budget,
    /// The request without its messages.
    request: Map<String, Value>,
    /// The client's messages.
    messages: Vec<Value>,
    /// What the rounds so far added: assistant turns calling injected tools, and the results.
    earlier: Vec<Value>,
}

/// What one round's reply asked for.
struct Turn {
    /// The assistant message to append (content and every call).
    assistant: Value,
    /// Calls to injected tools.
    injected: Vec<ToolCall>,
    /// The client's own calls, as the model sent them.
    client: Vec<Value>,
}

impl Rounds {
    /// The request of round `round` (from 1).
    fn body(&self, round: u32) -> Outgoing<'_> {
        let tool_choice = if self.budget.bound_at(round).is_some() {
            // The last round: the model must answer rather than leave a call dangling.
            Some("none")
        } else if round > 1 && self.forced {
            Some("auto")
        } else {
            None
        };
        Outgoing {
            request: &self.request,
            conversation: Some(("messages", &self.messages, &self.earlier)),
            tool_choice,
            injection: &self.injection,
        }
    }

    /// Splits a reply's calls into injected ones and the client's.
    fn turn(&self, content: Option<&str>, calls: Vec<ToolCall>, raw: &[Value]) -> Turn {
        let mut injected = Vec::new();
        let mut client = Vec::new();
        for (call, raw) in calls.into_iter().zip(raw) {
            if self.injection.is_injected(&call.name) {
                injected.push(call);
            } else {
                client.push(raw.clone());
            }
        }
        let mut assistant = json!({"role": "assistant", "content": content});
        if !raw.is_empty() {
            assistant["tool_calls"] = Value::Array(raw.to_vec());
        }
        Turn {
            assistant,
            injected,
            client,
        }
    }

    /// Runs a turn's injected calls. `Some` when the turn also called the client's tools: it is
    /// kept for the client's follow-up, and the client's calls end the rounds; an error when it
    /// could not be kept, so that the client is not given a turn it could not follow up.
    async fn execute(&mut self, turn: Turn) -> Result<Option<Vec<Value>>, StoreError> {
        let outcomes = execute_within(
            &mut self.budget,
            &self.inner.sources,
            &self.injection,
            &turn.injected,
            std::time::Duration::from_secs(self.inner.config.tool_timeout_secs),
        )
        .await;
        let results: Vec<Value> = turn
            .injected
            .iter()
            .zip(outcomes)
            .map(|(call, outcome)| chat_tool_message(&call.id, &outcome.text()))
            .collect();
        if turn.client.is_empty() {
            self.earlier.push(turn.assistant);
            self.earlier.extend(results);
            return Ok(None);
        }
        let keys = turn
            .client
            .iter()
            .filter_map(|call| call.get("id").and_then(Value::as_str))
            .map(key)
            .collect::<Vec<_>>();
        self.inner
            .store
            .put(
                keys,
                Kept::ChatTurn {
                    earlier: std::mem::take(&mut self.earlier),
                    assistant: turn.assistant,
                    results,
                },
            )
            .await?;
        Ok(Some(turn.client))
    }

    async fn whole(
        mut self,
        conflicts: Vec<(HeaderName, HeaderValue)>,
    ) -> Result<Response, Response> {
        let mut texts = Texts::default();
        let mut usage = Value::Null;
        let mut first: Option<(Value, Value)> = None;
        let mut round = 0;
        loop {
            round += 1;
            let answer = self
                .inner
                .upstream
                .post_json(PATH, &self.headers, &self.body(round))
                .await
                .map_err(IntoResponse::into_response)?;
            let status = answer.status();
            let answer_headers = answer.headers().clone();
            let bytes = answer.bytes().await.map_err(|err| {
                ApiError::upstream(format!("The upstream's answer broke off: {err}"))
                    .into_response()
            })?;
            if !status.is_success() {
                return Err(whole(status, &answer_headers, bytes));
            }
            let mut completion: Value = serde_json::from_slice(&bytes).map_err(|err| {
                ApiError::upstream(format!("The upstream's answer is not JSON: {err}"))
                    .into_response()
            })?;
            if let Some(more) = completion.get("usage") {
                add_usage(&mut usage, more);
            }
            let (id, created) = first
                .get_or_insert_with(|| (completion["id"].clone(), completion["created"].clone()))
                .clone();
            let calls = chat_tool_calls(&completion).map_err(|err| {
                ApiError::upstream(format!("The upstream's tool calls are unreadable: {err}"))
                    .into_response()
            })?;
            let message = completion
                .pointer("/choices/0/message")
                .cloned()
                .unwrap_or(Value::Null);
            let content = message.get("content").and_then(Value::as_str);
            texts.push(content);
            let raw: Vec<Value> = message
                .get("tool_calls")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let turn = self.turn(content, calls, &raw);
            let last = self.budget.bound_at(round);
            let client_calls = if turn.injected.is_empty() || last.is_some() {
                if !turn.injected.is_empty() {
                    tracing::warn!(
                        round,
                        "the model called tools in the last round; they were not run"
                    );
                }
                turn.client
            } else {
                match self.execute(turn).await {
                    Ok(None) => continue,
                    Ok(Some(client)) => client,
                    Err(err) => return Err(err.on_write().into_response()),
                }
            };
            // The answer: the last completion, under the first one's id, with every round's text.
            completion["id"] = id;
            completion["created"] = created;
            if !usage.is_null() {
                completion["usage"] = usage;
            }
            if let Some(choice) = completion.pointer_mut("/choices/0") {
                let message = &mut choice["message"];
                message["content"] = texts.joined().map_or(Value::Null, Value::String);
                if let Some(message) = message.as_object_mut() {
                    if client_calls.is_empty() {
                        message.remove("tool_calls");
                    } else {
                        message.insert("tool_calls".to_owned(), Value::Array(client_calls.clone()));
                    }
                }
                if !client_calls.is_empty() {
                    choice["finish_reason"] = json!("tool_calls");
                } else if choice["finish_reason"] == "tool_calls" {
                    choice["finish_reason"] = json!("stop");
                }
            }
            tracing::info!(
                rounds = round,
                client_calls = client_calls.len(),
                "chat completion"
            );
            let mut response = (StatusCode::OK, axum::Json(completion)).into_response();
            let headers = response.headers_mut();
            headers.extend(informative_headers(&answer_headers));
            headers.extend(conflicts);
            headers.insert(
                HeaderName::from_static("x-tooldef-rounds"),
                HeaderValue::from(round),
            );
            if let Some(bound) = last {
                // Chat Completions has no status for an answer cut short; the header says it.
                headers.insert(
                    HeaderName::from_static("x-tooldef-incomplete"),
                    HeaderValue::from_static(bound.as_str()),
                );
            }
            return Ok(response);
        }
    }

    async fn stream(self, conflicts: Vec<(HeaderName, HeaderValue)>) -> Result<Response, Response> {
        // The first round is asked before answering, so that its error reaches the client with
        // its own status rather than inside a stream.
        let answer = self
            .inner
            .upstream
            .post_json(PATH, &self.headers, &self.body(1))
            .await
            .map_err(IntoResponse::into_response)?;
        if !answer.status().is_success() {
            return Err(passthrough(answer));
        }
        let informative = informative_headers(answer.headers());
        let (mut response, writer) = crate::sse::response();
        response.headers_mut().extend(informative);
        response.headers_mut().extend(conflicts);
        let inner = self.inner.clone();
        crate::telemetry::spawn(async move {
            let mut stream = ChatStream::new(self.request.get("stream_options"));
            let cut = tokio::select! {
                ran = stream.run(self, answer, &writer) => {
                    if let Err(Gone) = ran {
                        tracing::info!("the client went away during a streamed completion");
                    }
                    false
                }
                () = inner.deadline() => true,
            };
            if cut {
                let _ = stream.fail(&writer, STOPPED.to_owned()).await;
            }
        });
        Ok(response)
    }
}

/// One streamed completion as the client sees it, across the rounds.
struct ChatStream {
    id: Value,
    created: Value,
    /// The fields of the upstream's chunks besides `choices` and `usage` (`model`,
    /// `system_fingerprint`, `service_tier`…), as of the latest chunk.
    template: Map<String, Value>,
    role_sent: bool,
    wrote_text: bool,
    include_usage: bool,
    usage: Value,
    /// The client's calls so far, by index in the client's stream.
    client_calls: usize,
}

impl ChatStream {
    fn new(stream_options: Option<&Value>) -> ChatStream {
        ChatStream {
            id: Value::Null,
            created: Value::Null,
            template: Map::new(),
            role_sent: false,
            wrote_text: false,
            include_usage: stream_options
                .and_then(|o| o.get("include_usage"))
                .and_then(Value::as_bool)
                .unwrap_or(false),
            usage: Value::Null,
            client_calls: 0,
        }
    }

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

    async fn fail(&self, writer: &Writer, message: String) -> Result<(), Gone> {
        tracing::warn!("{message}");
        writer.data(&ApiError::upstream(message).body()).await?;
        writer.done().await
    }

    async fn run(
        &mut self,
        mut rounds: Rounds,
        first: reqwest::Response,
        writer: &Writer,
    ) -> Result<(), Gone> {
        let mut answer = first;
        let mut round = 1;
        loop {
            let mut calls = ChatCallAccumulator::new();
            // Per upstream index: the client's index for the client's calls, `None` for injected.
            let mut indexes: HashMap<u64, Option<usize>> = HashMap::new();
            let mut text = String::new();
            let mut finish = Value::Null;
            let mut events = std::pin::pin!(events(answer));
            while let Some(event) = events.next().await {
                let event = match event {
                    Ok(event) => event,
                    Err(why) => return self.fail(writer, why).await,
                };
                if event.data.trim() == "[DONE]" {
                    break;
                }
                let chunk: Value = match serde_json::from_str(&event.data) {
                    Ok(chunk) => chunk,
                    Err(err) => {
                        return self
                            .fail(
                                writer,
                                format!("The upstream sent an unreadable chunk: {err}"),
                            )
                            .await;
                    }
                };
                if chunk.get("error").is_some() {
                    writer.data(&chunk).await?;
                    return writer.done().await;
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
                if let Err(err) = calls.push(&chunk) {
                    return self
                        .fail(
                            writer,
                            format!("The upstream's tool calls are unreadable: {err}"),
                        )
                        .await;
                }
                if let Some(usage) = chunk.get("usage").filter(|u| !u.is_null()) {
                    add_usage(&mut self.usage, usage);
                }
                let Some(choice) = chunk.pointer("/choices/0") else {
                    continue;
                };
                if !choice["finish_reason"].is_null() {
                    finish = choice["finish_reason"].clone();
                }
                let Some(delta) = choice.get("delta").and_then(Value::as_object) else {
                    continue;
                };
                let mut out = Map::new();
                // The role is said once, in the first round; the empty content and `refusal`
                // that come with it in every round are said with it only.
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
                                if text.is_empty() && self.wrote_text {
                                    piece.insert_str(0, Texts::SEPARATOR);
                                }
                                text.push_str(value.as_str().unwrap_or_default());
                                self.wrote_text = true;
                                out.insert(key.clone(), Value::String(piece));
                            } else if forward_role {
                                out.insert(key.clone(), value.clone());
                            }
                        }
                        "tool_calls" => {
                            let mut forwarded = Vec::new();
                            for fragment in value.as_array().into_iter().flatten() {
                                let Some(index) = fragment.get("index").and_then(Value::as_u64)
                                else {
                                    continue;
                                };
                                let known = match indexes.get(&index) {
                                    Some(known) => *known,
                                    None => {
                                        let Some(name) = fragment
                                            .pointer("/function/name")
                                            .and_then(Value::as_str)
                                        else {
                                            continue;
                                        };
                                        let client =
                                            (!rounds.injection.is_injected(name)).then(|| {
                                                self.client_calls += 1;
                                                self.client_calls - 1
                                            });
                                        indexes.insert(index, client);
                                        client
                                    }
                                };
                                if let Some(client_index) = known {
                                    let mut fragment = fragment.clone();
                                    fragment["index"] = json!(client_index);
                                    forwarded.push(fragment);
                                }
                            }
                            if !forwarded.is_empty() {
                                out.insert(key.clone(), Value::Array(forwarded));
                            }
                        }
                        _ if value.is_null() && !forward_role => {}
                        _ => {
                            out.insert(key.clone(), value.clone());
                        }
                    }
                }
                if !out.is_empty() {
                    writer.data(&self.chunk(out, Value::Null)).await?;
                }
            }
            let calls = match calls.finish() {
                Ok(calls) => calls,
                Err(err) => {
                    return self
                        .fail(
                            writer,
                            format!("The upstream's tool calls are unreadable: {err}"),
                        )
                        .await;
                }
            };
            let raw: Vec<Value> = calls
                .iter()
                .map(|c| json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}))
                .collect();
            let turn = rounds.turn((!text.is_empty()).then_some(text.as_str()), calls, &raw);
            let has_client_calls = !turn.client.is_empty();
            let last = rounds.budget.bound_at(round);
            if turn.injected.is_empty() || last.is_some() {
                if let Some(bound) = last {
                    // A stream's headers are gone by now, and a chunk has no place for it.
                    writer
                        .comment(&format!("tooldef: incomplete ({})", bound.as_str()))
                        .await?;
                }
                return self.finish(writer, has_client_calls, finish, round).await;
            }
            writer
                .comment(&format!(
                    "tooldef: running {} tool call(s)",
                    turn.injected.len()
                ))
                .await?;
            match rounds.execute(turn).await {
                Ok(Some(_)) => return self.finish(writer, true, finish, round).await,
                Ok(None) => {}
                Err(err) => {
                    // The client's calls are streamed already: the stream ends with an error
                    // instead of the finish that would tell the client it may follow up.
                    let error = err.on_write();
                    tracing::warn!("{}", error.message);
                    writer.data(&error.body()).await?;
                    return writer.done().await;
                }
            }
            round += 1;
            answer = match rounds
                .inner
                .upstream
                .post_json(PATH, &rounds.headers, &rounds.body(round))
                .await
            {
                Ok(answer) if answer.status().is_success() => answer,
                Ok(answer) => {
                    let status = answer.status();
                    let body = answer.text().await.unwrap_or_default();
                    let error = serde_json::from_str::<Value>(&body)
                        .ok()
                        .filter(|v| v.get("error").is_some())
                        .unwrap_or_else(|| {
                            ApiError::upstream(format!(
                                "The upstream answered round {round} with {status}: {body}"
                            ))
                            .body()
                        });
                    writer.data(&error).await?;
                    return writer.done().await;
                }
                Err(err) => return self.fail(writer, err.message).await,
            };
        }
    }

    async fn finish(
        &self,
        writer: &Writer,
        client_calls: bool,
        finish: Value,
        rounds: u32,
    ) -> Result<(), Gone> {
        let finish = if client_calls {
            json!("tool_calls")
        } else if finish == "tool_calls" || finish.is_null() {
            json!("stop")
        } else {
            finish
        };
        writer.data(&self.chunk(Map::new(), finish)).await?;
        if self.include_usage {
            let mut chunk = self.chunk(Map::new(), Value::Null);
            chunk["choices"] = json!([]);
            chunk["usage"] = self.usage.clone();
            writer.data(&chunk).await?;
        }
        tracing::info!(rounds, "streamed chat completion");
        writer.done().await
    }
}
