//! `POST /v1/responses`: the request read (continuing a stored conversation when it names a
//! `previous_response_id`) and validated, its turn played, the response stored, and the reply
//! written as a `response` object, or streamed as Responses' typed events (in llama.cpp's variants
//! of those with `--quirks llamacpp`: see `llamacpp`).

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde_json::{Map, Value, json};

use crate::error::ApiError;
use crate::options::Quirks;
use crate::script::{
    self, Call, Outcome, Reply, Situation, ToolResult, content_text, runs, token_limit, tokens,
};
use crate::server::{App, with_request_id};
use crate::validate::{self, OpenAi, item_type, role};
use crate::{ids, llamacpp, sse};

/// Characters per text delta, and per arguments delta, of a streamed reply.
const TEXT_PIECE: usize = 4;
const ARGUMENTS_PIECE: usize = 7;

pub async fn handle(
    State(app): State<Arc<App>>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    app.log.record(uri.path(), &headers, &body);
    respond(&app, &body)
        .await
        .unwrap_or_else(IntoResponse::into_response)
}

async fn respond(app: &App, body: &Bytes) -> Result<Response, ApiError> {
    let mut request = validate::request_object(body)?;
    // Taken out of the request, which is echoed in the response without it.
    let input = match request.remove("input") {
        None | Some(Value::Null) => return Err(ApiError::missing("input")),
        Some(Value::String(text)) => {
            vec![json!({"type": "message", "role": "user", "content": text})]
        }
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(ApiError::invalid_type(
                "input",
                "a string or an array",
                &other,
            ));
        }
    };
    if let Some((i, item)) = input.iter().enumerate().find(|(_, item)| !item.is_object()) {
        return Err(ApiError::invalid_type(
            &format!("input[{i}]"),
            "an object",
            item,
        ));
    }
    let previous_id = match request.get("previous_response_id") {
        None | Some(Value::Null) => None,
        Some(Value::String(id)) => Some(id.as_str()),
        Some(other) => {
            return Err(ApiError::invalid_type(
                "previous_response_id",
                "a string",
                other,
            ));
        }
    };
    let mut conversation = match previous_id {
        Some(id) => app
            .store
            .get(id)
            .ok_or_else(|| not_found(id))?
            .as_ref()
            .clone(),
        None => Vec::new(),
    };
    let input_start = conversation.len();
    conversation.extend(input);

    let names = validate::tools(OpenAi::Responses, request.get("tools"))?;
    validate::tool_choice(OpenAi::Responses, &request, names.as_deref())?;
    validate::responses_items(&conversation, input_start)?;
    validate::responses_namespaces(request.get("tools"), &conversation)?;

    let situation = situation(
        &conversation,
        names.unwrap_or_default(),
        request.get("tool_choice"),
    );
    let llamacpp = app.quirks == Quirks::LlamaCpp;
    let new_call_id = if llamacpp {
        llamacpp::responses_call_id
    } else {
        ids::call
    };
    let plan = script::plan(&situation, new_call_id)
        .map_err(|message| ApiError::invalid(message, None))?;
    if !plan.delay.is_zero() {
        tokio::time::sleep(plan.delay).await;
    }
    // Responses has an `error` event, but failing mid-stream is scripted for Messages only so far:
    // here the status is answered, as for any scripted error.
    let reply = match plan.outcome {
        Outcome::Error(failure) => {
            return Ok((failure.status, Json(failure.openai_body())).into_response());
        }
        Outcome::Reply(reply) => reply,
    };

    let input_tokens = tokens(body.len());
    let output_tokens = reply.output_tokens(token_limit(&request, &["max_output_tokens"]));
    let stream = request.get("stream") == Some(&Value::Bool(true));
    let model = request["model"].as_str().unwrap_or_default();
    let (id, done, events) = if llamacpp {
        let items = llamacpp::responses_items(reply);
        let id = ids::llamacpp_prefixed("resp_");
        let usage = llamacpp::responses_usage(input_tokens, output_tokens);
        let done = llamacpp::responses_object(&id, ids::unix_now(), model, &items, &usage);
        let events = stream.then(|| llamacpp::responses_events(&id, &items, &done));
        (id, done, events)
    } else {
        let cut = reply.cut;
        let items = Item::all(reply);
        let id = ids::response();
        let base = base_object(&request, &id, ids::unix_now());
        let done = finished(
            base.clone(),
            &items,
            &usage(input_tokens, output_tokens),
            cut,
        );
        let events = stream.then(|| events(base, &items, done.clone(), cut));
        (id, done, events)
    };
    if request.get("store") != Some(&Value::Bool(false)) {
        conversation.extend(done["output"].as_array().into_iter().flatten().cloned());
        app.store.put(id, conversation);
    }
    let response = match events {
        Some(events) => sse::response(events, plan.stream_gap),
        None => Json(done).into_response(),
    };
    Ok(with_request_id(response))
}

fn not_found(id: &str) -> ApiError {
    ApiError {
        status: StatusCode::NOT_FOUND,
        message: format!("Previous response with id '{id}' not found."),
        kind: "invalid_request_error",
        param: Some("previous_response_id".into()),
        code: Some("previous_response_not_found"),
    }
}

fn is_user_message(item: &Value) -> bool {
    item_type(item) == "message" && role(item) == Some("user")
}

fn is_assistant_turn(item: &Value) -> bool {
    match item_type(item) {
        "function_call" | "tool_search_call" => true,
        "message" => role(item) == Some("assistant"),
        _ => false,
    }
}

/// The turn to play and what placeholders quote, read from the whole conversation: the turn is
/// the number of runs of assistant messages and function calls after the last user message.
pub fn situation(items: &[Value], tools: Vec<String>, tool_choice: Option<&Value>) -> Situation {
    let last_user = items.iter().rposition(is_user_message);
    let (last_user_text, after) = match last_user {
        Some(at) => (
            Some(content_text(
                &items[at]["content"],
                Some("input_text"),
                "\n",
            )),
            &items[at + 1..],
        ),
        None => (None, items),
    };
    Situation {
        last_user_text,
        turn: runs(after.iter().map(is_assistant_turn)),
        tool_results: after
            .iter()
            .filter_map(|item| match item_type(item) {
                "function_call_output" => Some(content_text(&item["output"], None, "")),
                "tool_search_output" => Some(validate::loaded_names(item).join(", ")),
                _ => None,
            })
            .map(ToolResult::text)
            .collect(),
        tools,
        tool_choice_none: tool_choice.and_then(Value::as_str) == Some("none"),
    }
}

/// An output item, with its id.
pub enum Item {
    Message { id: String, text: String },
    Call { id: String, call: Call },
}

impl Item {
    /// The reply's items: its message if it has content, then one function call per call.
    pub fn all(reply: Reply) -> Vec<Item> {
        let message = reply.content.map(|text| Item::Message {
            id: ids::message(),
            text,
        });
        message
            .into_iter()
            .chain(reply.calls.into_iter().map(|call| Item::Call {
                id: ids::function_call(),
                call,
            }))
            .collect()
    }

    pub fn id(&self) -> &str {
        match self {
            Item::Message { id, .. } | Item::Call { id, .. } => id,
        }
    }

    /// The item once written: `completed`, or `incomplete` when the token limit cut it.
    pub fn done(&self, status: &str) -> Value {
        match self {
            Item::Message { id, text } => json!({
                "id": id,
                "type": "message",
                "status": status,
                "role": "assistant",
                "content": [output_text(text)],
            }),
            Item::Call { id, call } => call_item(id, call, status, &call.arguments),
        }
    }

    /// The item as `response.output_item.added` shows it: nothing written yet.
    pub fn in_progress(&self) -> Value {
        match self {
            Item::Message { id, .. } => json!({
                "id": id,
                "type": "message",
                "status": "in_progress",
                "role": "assistant",
                "content": [],
            }),
            Item::Call { id, call } => call_item(id, call, "in_progress", ""),
        }
    }
}

/// A call's item: a `function_call` (with its `namespace` when it has one), or a client-executed
/// `tool_search_call`, whose `arguments` are an object.
fn call_item(id: &str, call: &Call, status: &str, arguments: &str) -> Value {
    if call.tool_search {
        let arguments: Value = serde_json::from_str(&call.arguments).unwrap_or_else(|_| json!({}));
        return json!({
            "id": id,
            "type": "tool_search_call",
            "status": status,
            "call_id": call.call_id,
            "execution": "client",
            "arguments": arguments,
        });
    }
    let mut item = json!({
        "id": id,
        "type": "function_call",
        "status": status,
        "call_id": call.call_id,
        "name": call.name,
        "arguments": arguments,
    });
    if let Some(namespace) = &call.namespace {
        item["namespace"] = json!(namespace);
    }
    item
}

pub fn output_text(text: &str) -> Value {
    json!({"type": "output_text", "text": text, "annotations": [], "logprobs": []})
}

pub fn usage(input_tokens: u64, output_tokens: u64) -> Value {
    json!({
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": input_tokens + output_tokens,
    })
}

/// The request's value of `key`, or `default` when it has none.
fn echoed(request: &Map<String, Value>, key: &str, default: Value) -> Value {
    match request.get(key) {
        None | Some(Value::Null) => default,
        Some(value) => value.clone(),
    }
}

/// The response object as `response.created` shows it: in progress, no output, no usage. The
/// request's settings are echoed back, as OpenAI does.
pub fn base_object(request: &Map<String, Value>, id: &str, created_at: u64) -> Value {
    json!({
        "id": id,
        "object": "response",
        "created_at": created_at,
        "status": "in_progress",
        "error": null,
        "incomplete_details": null,
        "instructions": echoed(request, "instructions", Value::Null),
        "model": request["model"],
        "output": [],
        "parallel_tool_calls": echoed(request, "parallel_tool_calls", true.into()),
        "previous_response_id": echoed(request, "previous_response_id", Value::Null),
        "store": echoed(request, "store", true.into()),
        "temperature": echoed(request, "temperature", 1.0.into()),
        "tool_choice": echoed(request, "tool_choice", "auto".into()),
        "tools": echoed(request, "tools", json!([])),
        "top_p": echoed(request, "top_p", 1.0.into()),
        "truncation": echoed(request, "truncation", "disabled".into()),
        "usage": null,
        "metadata": echoed(request, "metadata", json!({})),
        "text": echoed(request, "text", json!({"format": {"type": "text"}})),
    })
}

/// The status of item `index` of `count` once written: the last one is what the token limit cut.
fn item_status(index: usize, count: usize, cut: bool) -> &'static str {
    if cut && index + 1 == count {
        "incomplete"
    } else {
        "completed"
    }
}

/// The response once written: `completed`, or `incomplete` for lack of output tokens.
fn finished(mut response: Value, items: &[Item], usage: &Value, cut: bool) -> Value {
    if cut {
        response["status"] = "incomplete".into();
        response["incomplete_details"] = json!({"reason": "max_output_tokens"});
    } else {
        response["status"] = "completed".into();
    }
    response["output"] = items
        .iter()
        .enumerate()
        .map(|(index, item)| item.done(item_status(index, items.len(), cut)))
        .collect();
    response["usage"] = usage.clone();
    response
}

/// Responses' events, numbered in order from 0.
struct Events(Vec<Bytes>);

impl Events {
    fn push(&mut self, kind: &str, fields: Value) {
        let mut event = Map::new();
        event.insert("type".into(), kind.into());
        event.insert("sequence_number".into(), self.0.len().into());
        if let Value::Object(fields) = fields {
            event.extend(fields);
        }
        self.0.push(sse::named(kind, &Value::Object(event)));
    }
}

/// The streamed reply: created, in progress, each item added, written in deltas and done, then
/// the finished response (`response.completed`, or `response.incomplete` when cut short).
pub fn events(base: Value, items: &[Item], finished: Value, cut: bool) -> Vec<Bytes> {
    let mut events = Events(Vec::new());
    events.push("response.created", json!({"response": base}));
    events.push("response.in_progress", json!({"response": base}));
    for (output_index, item) in items.iter().enumerate() {
        let item_id = item.id();
        events.push(
            "response.output_item.added",
            json!({"output_index": output_index, "item": item.in_progress()}),
        );
        match item {
            Item::Message { text, .. } => {
                let at =
                    json!({"item_id": item_id, "output_index": output_index, "content_index": 0});
                let with = |fields: Value| {
                    let mut all = at.clone();
                    if let (Value::Object(all), Value::Object(fields)) = (&mut all, fields) {
                        all.extend(fields);
                    }
                    all
                };
                events.push(
                    "response.content_part.added",
                    with(json!({"part": output_text("")})),
                );
                for piece in sse::pieces(text, TEXT_PIECE) {
                    events.push(
                        "response.output_text.delta",
                        with(json!({"delta": piece, "logprobs": []})),
                    );
                }
                events.push(
                    "response.output_text.done",
                    with(json!({"text": text, "logprobs": []})),
                );
                events.push(
                    "response.content_part.done",
                    with(json!({"part": output_text(text)})),
                );
            }
            // A tool search's arguments come whole, in its item.
            Item::Call { call, .. } if call.tool_search => {}
            Item::Call { call, .. } => {
                for piece in sse::pieces(&call.arguments, ARGUMENTS_PIECE) {
                    events.push(
                        "response.function_call_arguments.delta",
                        json!({"item_id": item_id, "output_index": output_index, "delta": piece}),
                    );
                }
                events.push(
                    "response.function_call_arguments.done",
                    json!({"item_id": item_id, "output_index": output_index, "arguments": call.arguments}),
                );
            }
        }
        let status = item_status(output_index, items.len(), cut);
        events.push(
            "response.output_item.done",
            json!({"output_index": output_index, "item": item.done(status)}),
        );
    }
    let last = if cut {
        "response.incomplete"
    } else {
        "response.completed"
    };
    events.push(last, json!({"response": finished}));
    events.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turn_counts_runs_of_assistant_items_after_the_last_user_message() {
        let items = json!([
            {"role": "user", "content": "old"},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "x"}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "SCRIPT: []"}]},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "checking"}]},
            {"type": "function_call", "call_id": "a", "name": "f", "arguments": "{}"},
            {"type": "function_call", "call_id": "b", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "a", "output": "one"},
            {"type": "function_call_output", "call_id": "b", "output": [{"type": "input_text", "text": "two"}]},
            {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c", "output": "three"},
        ]);
        let situation = situation(items.as_array().unwrap(), vec![], None);
        assert_eq!(situation.last_user_text.as_deref(), Some("SCRIPT: []"));
        assert_eq!(situation.turn, 2);
        let texts: Vec<&str> = situation
            .tool_results
            .iter()
            .map(|result| result.text.as_str())
            .collect();
        assert_eq!(texts, ["one", "two", "three"]);
        assert!(situation.tool_results.iter().all(|result| !result.is_error));
        assert!(!situation.tool_choice_none);
    }

    #[test]
    fn a_streamed_reply_parses_back() {
        let reply = Reply {
            content: Some("Looking it up.".into()),
            calls: vec![Call {
                call_id: "call_1".into(),
                name: "get_weather".into(),
                arguments: r#"{"city":"Lisbon"}"#.into(),
                namespace: None,
                tool_search: false,
            }],
            cut: false,
        };
        let items = Item::all(reply);
        let request = json!({"model": "m", "tools": [{"type": "function", "name": "get_weather"}]});
        let base = base_object(request.as_object().unwrap(), "resp_1", 7);
        let done = finished(base.clone(), &items, &usage(3, 4), false);
        let bytes: Vec<u8> = events(base, &items, done, false).concat();
        let events: Vec<(String, Value)> = sse::parse(std::str::from_utf8(&bytes).unwrap())
            .into_iter()
            .map(|(name, data)| (name.unwrap(), serde_json::from_str(&data).unwrap()))
            .collect();

        for (i, (name, event)) in events.iter().enumerate() {
            assert_eq!(event["type"], name.as_str());
            assert_eq!(event["sequence_number"], i);
        }
        let kinds: Vec<&str> = events.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(
            kinds[..4],
            [
                "response.created",
                "response.in_progress",
                "response.output_item.added",
                "response.content_part.added"
            ]
        );
        assert_eq!(events[0].1["response"]["status"], "in_progress");
        assert_eq!(events[0].1["response"]["output"], json!([]));

        // Reassembled as a client does.
        let text: String = events
            .iter()
            .filter(|(name, _)| name == "response.output_text.delta")
            .map(|(_, event)| event["delta"].as_str().unwrap())
            .collect();
        assert_eq!(text, "Looking it up.");
        let arguments: String = events
            .iter()
            .filter(|(name, event)| {
                name == "response.function_call_arguments.delta" && event["output_index"] == 1
            })
            .map(|(_, event)| event["delta"].as_str().unwrap())
            .collect();
        assert_eq!(arguments, r#"{"city":"Lisbon"}"#);
        let added: Vec<&Value> = events
            .iter()
            .filter(|(name, _)| name == "response.output_item.added")
            .map(|(_, event)| &event["item"])
            .collect();
        assert_eq!(added[1]["arguments"], "");
        assert_eq!(added[1]["status"], "in_progress");

        let (last, completed) = events.last().unwrap();
        assert_eq!(last, "response.completed");
        let response = &completed["response"];
        assert_eq!(response["status"], "completed");
        assert_eq!(
            response["output"][0]["content"][0]["text"],
            "Looking it up."
        );
        assert_eq!(response["output"][1]["call_id"], "call_1");
        assert_eq!(response["output"][1]["id"], added[1]["id"]);
        assert_eq!(response["usage"]["total_tokens"], 7);
        assert_eq!(response["tool_choice"], "auto");
        assert!(response.get("output_text").is_none());
    }

    #[test]
    fn a_reply_cut_short_is_incomplete() {
        let reply = Reply {
            content: Some("Checking".into()),
            calls: vec![Call {
                call_id: "call_1".into(),
                name: "get_weather".into(),
                arguments: r#"{"city": "Lisbon", "days":"#.into(),
                namespace: None,
                tool_search: false,
            }],
            cut: true,
        };
        let items = Item::all(reply);
        let request = json!({"model": "m", "max_output_tokens": 16});
        let base = base_object(request.as_object().unwrap(), "resp_2", 7);
        let done = finished(base.clone(), &items, &usage(3, 16), true);
        assert_eq!(done["status"], "incomplete");
        assert_eq!(
            done["incomplete_details"],
            json!({"reason": "max_output_tokens"})
        );
        assert_eq!(done["output"][0]["status"], "completed");
        assert_eq!(done["output"][1]["status"], "incomplete");
        assert_eq!(
            done["output"][1]["arguments"],
            r#"{"city": "Lisbon", "days":"#
        );
        assert_eq!(done["usage"]["output_tokens"], 16);

        let bytes: Vec<u8> = events(base, &items, done, true).concat();
        let events: Vec<(String, Value)> = sse::parse(std::str::from_utf8(&bytes).unwrap())
            .into_iter()
            .map(|(name, data)| (name.unwrap(), serde_json::from_str(&data).unwrap()))
            .collect();
        let (last, response) = events.last().unwrap();
        assert_eq!(last, "response.incomplete");
        assert_eq!(response["response"]["status"], "incomplete");
        assert!(events.iter().all(|(name, _)| name != "response.completed"));
        let closed: Vec<&Value> = events
            .iter()
            .filter(|(name, _)| name == "response.output_item.done")
            .map(|(_, event)| &event["item"]["status"])
            .collect();
        assert_eq!(closed, [&json!("completed"), &json!("incomplete")]);
    }
}
