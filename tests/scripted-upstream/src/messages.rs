//! `POST /v1/messages`: Anthropic's Messages API. The request read and validated as Anthropic
//! does (see `validate`), its turn played, and the reply written as a `message`, or streamed as
//! Anthropic's typed events. `POST /v1/messages/count_tokens` answers a request's token count.
//!
//! The shapes are anthropic-sdk-python's types (`Message`, `Usage`, `RawMessageStartEvent`,
//! `RawContentBlockStartEvent`, `RawContentBlockDeltaEvent` with `TextDelta` and `InputJSONDelta`,
//! `RawContentBlockStopEvent`, `RawMessageDeltaEvent` with `MessageDeltaUsage`,
//! `RawMessageStopEvent`) and the stream's order that of Anthropic's streaming docs: the message
//! started, a `ping` after the first block starts, each block started, written in deltas and
//! stopped, the stop reason with the output tokens, the message stopped. With `--quirks llamacpp`
//! only the `tool_use` ids change: llama.cpp's are bare (32 alphanumerics, no `toolu_`).

mod validate;

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, Uri};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde_json::{Map, Value, json};

use crate::error::{AnthropicError, anthropic_kind, with_anthropic_request_id};
use crate::options::Quirks;
use crate::script::{
    self, Failure, Outcome, Reply, Situation, ToolResult, content_text, runs, tokens,
};
use crate::server::App;
use crate::validate::role;
use crate::{ids, partial_json, sse};
use validate::Endpoint;

/// Characters per text delta of a streamed reply.
const TEXT_PIECE: usize = 4;
/// Anthropic streams a tool's input as an empty `partial_json` and then a few larger pieces.
const INPUT_PIECES: usize = 3;

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

/// `POST /v1/messages/count_tokens`: `{"input_tokens": N}` for a request `/v1/messages` would take
/// but for its `max_tokens`, N the plausible count of the body's bytes.
pub async fn count_tokens(
    State(app): State<Arc<App>>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    app.log.record(uri.path(), &headers, &body);
    let counted = validate::request_object(&body)
        .and_then(|request| validate::check(&request, Endpoint::CountTokens));
    match counted {
        Ok(_) => with_anthropic_request_id(
            Json(json!({"input_tokens": tokens(body.len())})).into_response(),
            ids::anthropic_request(),
        ),
        Err(error) => error.into_response(),
    }
}

async fn respond(app: &App, body: &Bytes) -> Result<Response, AnthropicError> {
    let request = validate::request_object(body)?;
    let checked = validate::check(&request, Endpoint::Create)?;
    let messages = request["messages"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    let situation = situation(messages, checked.tools, checked.tool_choice_none);
    let new_call_id = match app.quirks {
        Quirks::LlamaCpp => ids::llamacpp_call,
        Quirks::None => ids::tool_use,
    };
    let plan = script::plan(&situation, new_call_id).map_err(AnthropicError::invalid)?;
    // A deferred tool is not in the model's context until a `tool_reference` loads it: a script
    // calling one earlier stands for a gateway that did not load it.
    if let Outcome::Reply(reply) = &plan.outcome
        && let Some(call) = reply
            .calls
            .iter()
            .find(|call| checked.unloaded.contains(&call.name))
    {
        return Err(AnthropicError::invalid(format!(
            "The model cannot call the deferred tool '{}' (`defer_loading: true`): no `tool_result` of the conversation holds a `tool_reference` to it.",
            call.name
        )));
    }
    if !plan.delay.is_zero() {
        tokio::time::sleep(plan.delay).await;
    }

    let meta = Meta {
        id: ids::anthropic_message(),
        model: request["model"].as_str().unwrap_or_default(),
        input_tokens: tokens(body.len()),
    };
    let stream = request.get("stream") == Some(&Value::Bool(true));
    let request_id = ids::anthropic_request();
    let response = match plan.outcome {
        Outcome::Reply(reply) => {
            // `max_tokens: 0` generates nothing (it only warms the prompt cache).
            let reply = if checked.max_tokens == Some(0) {
                Reply {
                    content: None,
                    calls: Vec::new(),
                    cut: true,
                }
            } else {
                reply
            };
            let output_tokens = reply.output_tokens(checked.max_tokens);
            if stream {
                sse::response(events(&meta, &reply, output_tokens, None), plan.stream_gap)
            } else {
                Json(message(&meta, &reply, output_tokens)).into_response()
            }
        }
        Outcome::Error(failure) => match &failure.mid_stream {
            Some(before) if stream => sse::response(
                events(&meta, before, 0, Some(error_event(&failure))),
                plan.stream_gap,
            ),
            _ => (failure.status, Json(error_body(&failure, &request_id))).into_response(),
        },
    };
    Ok(with_anthropic_request_id(response, request_id))
}

/// Whether a message has text the script can be read from: a string `content`, or `text`
/// blocks. A user message of `tool_result` blocks only is the gateway answering calls, not the
/// user speaking.
fn has_text(message: &Value) -> bool {
    match message.get("content") {
        Some(Value::String(_)) => true,
        Some(Value::Array(blocks)) => blocks
            .iter()
            .any(|block| block.get("type").and_then(Value::as_str) == Some("text")),
        _ => false,
    }
}

/// The turn to play and what placeholders quote: the script from the last user message with
/// text, the turn the number of runs of assistant messages after it (Anthropic combines
/// consecutive messages of one role into one turn), the tool results its `tool_result` blocks.
pub fn situation(messages: &[Value], tools: Vec<String>, tool_choice_none: bool) -> Situation {
    let last_user = messages
        .iter()
        .rposition(|message| role(message) == Some("user") && has_text(message));
    let (last_user_text, after) = match last_user {
        Some(at) => (
            Some(content_text(&messages[at]["content"], Some("text"), "\n")),
            &messages[at + 1..],
        ),
        None => (None, messages),
    };
    let tool_results = after
        .iter()
        .filter(|message| role(message) == Some("user"))
        .filter_map(|message| message.get("content").and_then(Value::as_array))
        .flatten()
        .filter(|block| block.get("type").and_then(Value::as_str) == Some("tool_result"))
        .map(|block| ToolResult {
            // `content` is a string or a list of blocks, of which the text ones are quoted, and
            // the tools the `tool_reference` ones load, by name.
            text: block.get("content").map(result_text).unwrap_or_default(),
            is_error: block.get("is_error") == Some(&Value::Bool(true)),
        })
        .collect();
    Situation {
        last_user_text,
        turn: runs(
            after
                .iter()
                .map(|message| role(message) == Some("assistant")),
        ),
        tool_results,
        tools,
        tool_choice_none,
    }
}

/// A `tool_result`'s `content` as placeholders quote it: its text, then the names of the tools its
/// `tool_reference` blocks load, comma-separated (as a Responses `tool_search_output` is quoted).
fn result_text(content: &Value) -> String {
    let text = content_text(content, Some("text"), "");
    let references: Vec<&str> = content
        .as_array()
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .filter(|block| block.get("type").and_then(Value::as_str) == Some("tool_reference"))
        .filter_map(|block| block.get("tool_name").and_then(Value::as_str))
        .collect();
    match (text.is_empty(), references.is_empty()) {
        (_, true) => text,
        (true, false) => references.join(", "),
        (false, false) => format!("{text}{}", references.join(", ")),
    }
}

/// What every event of one reply shares.
pub struct Meta<'a> {
    pub id: String,
    pub model: &'a str,
    pub input_tokens: u64,
}

fn stop_reason(reply: &Reply) -> &'static str {
    if reply.cut {
        "max_tokens"
    } else if reply.calls.is_empty() {
        "end_turn"
    } else {
        "tool_use"
    }
}

/// A content block as a whole reply shows it: a call's `input` is the object its arguments are,
/// or the object a cut or malformed arguments text begins (see `partial_json`).
fn blocks(reply: &Reply) -> Vec<Value> {
    let text = reply
        .content
        .as_ref()
        .map(|text| json!({"type": "text", "text": text}));
    text.into_iter()
        .chain(reply.calls.iter().map(|call| {
            json!({
                "type": "tool_use",
                "id": call.call_id,
                "name": call.name,
                "input": partial_json::object(&call.arguments),
            })
        }))
        .collect()
}

/// The whole `message`.
pub fn message(meta: &Meta<'_>, reply: &Reply, output_tokens: u64) -> Value {
    json!({
        "id": meta.id,
        "type": "message",
        "role": "assistant",
        "model": meta.model,
        "content": blocks(reply),
        "stop_reason": stop_reason(reply),
        "stop_sequence": null,
        "usage": {"input_tokens": meta.input_tokens, "output_tokens": output_tokens},
    })
}

/// One event: `event: TYPE` and the data, its `type` first.
fn event(kind: &str, fields: Value) -> Bytes {
    let mut event = Map::new();
    event.insert("type".into(), kind.into());
    if let Value::Object(fields) = fields {
        event.extend(fields);
    }
    sse::named(kind, &Value::Object(event))
}

/// `text` in at most `count` pieces of about equal length.
fn few_pieces(text: &str, count: usize) -> impl Iterator<Item = &str> {
    let chars = text.chars().count().div_ceil(count).max(1);
    sse::pieces(text, chars)
}

/// The streamed reply. With `error`, the stream fails where the last block would have been
/// stopped: the `error` event instead of the rest.
pub fn events(
    meta: &Meta<'_>,
    reply: &Reply,
    output_tokens: u64,
    error: Option<Value>,
) -> Vec<Bytes> {
    let mut events = vec![event(
        "message_start",
        json!({"message": {
            "id": meta.id,
            "type": "message",
            "role": "assistant",
            "model": meta.model,
            "content": [],
            "stop_reason": null,
            "stop_sequence": null,
            // The first token is counted as the message starts, as Anthropic's example shows.
            "usage": {"input_tokens": meta.input_tokens, "output_tokens": output_tokens.min(1)},
        }}),
    )];
    let ping = || event("ping", json!({}));
    let text = reply.content.as_deref().map(|text| {
        let deltas: Vec<Value> = sse::pieces(text, TEXT_PIECE)
            .map(|piece| json!({"type": "text_delta", "text": piece}))
            .collect();
        (json!({"type": "text", "text": ""}), deltas)
    });
    let calls = reply.calls.iter().map(|call| {
        let deltas: Vec<Value> = std::iter::once("")
            .chain(few_pieces(&call.arguments, INPUT_PIECES))
            .map(|piece| json!({"type": "input_json_delta", "partial_json": piece}))
            .collect();
        let start = json!({"type": "tool_use", "id": call.call_id, "name": call.name, "input": {}});
        (start, deltas)
    });
    let all: Vec<(Value, Vec<Value>)> = text.into_iter().chain(calls).collect();
    if all.is_empty() {
        events.push(ping());
    }
    for (index, (start, deltas)) in all.iter().enumerate() {
        events.push(event(
            "content_block_start",
            json!({"index": index, "content_block": start}),
        ));
        if index == 0 {
            events.push(ping());
        }
        events.extend(deltas.iter().map(|delta| {
            event(
                "content_block_delta",
                json!({"index": index, "delta": delta}),
            )
        }));
        if error.is_some() && index + 1 == all.len() {
            break;
        }
        events.push(event("content_block_stop", json!({"index": index})));
    }
    if let Some(error) = error {
        events.push(sse::named("error", &error));
        return events;
    }
    events.push(event(
        "message_delta",
        json!({
            "delta": {"stop_reason": stop_reason(reply), "stop_sequence": null},
            "usage": {"output_tokens": output_tokens},
        }),
    ));
    events.push(event("message_stop", json!({})));
    events
}

/// A scripted error's body: the script's, or Anthropic's shape with the type its status has.
fn error_body(failure: &Failure, request_id: &str) -> Value {
    failure.body.clone().unwrap_or_else(|| {
        let mut body = error_event(failure);
        body["request_id"] = request_id.into();
        body
    })
}

/// The `error` event of a stream that fails: the script's body, or Anthropic's shape.
fn error_event(failure: &Failure) -> Value {
    failure.body.clone().unwrap_or_else(|| {
        json!({"type": "error", "error": {
            "type": anthropic_kind(failure.status),
            "message": failure.message(),
        }})
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script::Call;

    fn meta() -> Meta<'static> {
        Meta {
            id: "msg_01x".into(),
            model: "claude-test",
            input_tokens: 12,
        }
    }

    fn call(id: &str, arguments: &str) -> Call {
        Call {
            call_id: id.into(),
            name: "get_weather".into(),
            arguments: arguments.into(),
            namespace: None,
            tool_search: false,
        }
    }

    fn parsed(events: Vec<Bytes>) -> Vec<(String, Value)> {
        let bytes = events.concat();
        sse::parse(std::str::from_utf8(&bytes).unwrap())
            .into_iter()
            .map(|(name, data)| {
                let data: Value = serde_json::from_str(&data).unwrap();
                let name = name.unwrap();
                assert_eq!(
                    data["type"],
                    name.as_str(),
                    "the data's type is the event's"
                );
                (name, data)
            })
            .collect()
    }

    #[test]
    fn the_script_comes_from_the_last_user_message_with_text() {
        let messages = json!([
            {"role": "user", "content": "old"},
            {"role": "assistant", "content": "old answer"},
            {"role": "user", "content": [{"type": "text", "text": "first"}, {"type": "text", "text": "SCRIPT: []"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "checking"}, {"type": "tool_use", "id": "a", "name": "f", "input": {}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "a", "content": "one"},
            ]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "b", "name": "f", "input": {}}, {"type": "tool_use", "id": "c", "name": "f", "input": {}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "b", "content": [{"type": "text", "text": "tw"}, {"type": "image", "source": {}}, {"type": "text", "text": "o"}], "is_error": true},
                {"type": "tool_result", "tool_use_id": "c"},
            ]},
        ]);
        let situation = situation(messages.as_array().unwrap(), vec!["f".into()], true);
        assert_eq!(
            situation.last_user_text.as_deref(),
            Some("first\nSCRIPT: []")
        );
        assert_eq!(situation.turn, 2);
        assert_eq!(
            situation.tool_results,
            [
                ToolResult::text("one".into()),
                ToolResult {
                    text: "two".into(),
                    is_error: true
                },
                ToolResult::text(String::new()),
            ]
        );
        assert_eq!(situation.tools, ["f"]);
        assert!(situation.tool_choice_none);

        // Consecutive assistant messages are one turn, as Anthropic combines them.
        let combined = json!([
            {"role": "user", "content": "SCRIPT: []"},
            {"role": "assistant", "content": "a"},
            {"role": "assistant", "content": "b"},
        ]);
        assert_eq!(situation_of(&combined).turn, 1);
        // A user message with text after tool results starts the count again.
        let again = json!([
            {"role": "user", "content": "x"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "f", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": "r"}, {"type": "text", "text": "SCRIPT: [1]"}]},
        ]);
        let again = situation_of(&again);
        assert_eq!(again.last_user_text.as_deref(), Some("SCRIPT: [1]"));
        assert_eq!(again.turn, 0);
        assert!(again.tool_results.is_empty());
    }

    fn situation_of(messages: &Value) -> Situation {
        situation(messages.as_array().unwrap(), Vec::new(), false)
    }

    #[test]
    fn a_whole_reply_has_anthropics_shape() {
        let reply = Reply {
            content: Some("Let me check.".into()),
            calls: vec![call("toolu_1", r#"{"city":"Lisbon"}"#)],
            cut: false,
        };
        assert_eq!(
            message(&meta(), &reply, 9),
            json!({
                "id": "msg_01x",
                "type": "message",
                "role": "assistant",
                "model": "claude-test",
                "content": [
                    {"type": "text", "text": "Let me check."},
                    {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Lisbon"}},
                ],
                "stop_reason": "tool_use",
                "stop_sequence": null,
                "usage": {"input_tokens": 12, "output_tokens": 9},
            })
        );
        let text = Reply {
            content: Some("hi".into()),
            calls: vec![],
            cut: false,
        };
        assert_eq!(message(&meta(), &text, 1)["stop_reason"], "end_turn");
        // Cut short: the call's input is what its partial arguments begin.
        let cut = Reply {
            content: None,
            calls: vec![call("toolu_2", r#"{"city": "Lisbon", "days":"#)],
            cut: true,
        };
        let cut = message(&meta(), &cut, 5);
        assert_eq!(cut["stop_reason"], "max_tokens");
        assert_eq!(
            cut["content"],
            json!([{"type": "tool_use", "id": "toolu_2", "name": "get_weather", "input": {"city": "Lisbon"}}])
        );
    }

    #[test]
    fn a_streamed_reply_is_anthropics_event_sequence() {
        let reply = Reply {
            content: Some("Let me check.".into()),
            calls: vec![call("toolu_1", r#"{"city":"Lisbon","days":3}"#)],
            cut: false,
        };
        let streamed = parsed(events(&meta(), &reply, 9, None));
        let names: Vec<&str> = streamed.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(
            names,
            [
                "message_start",
                "content_block_start",
                "ping",
                "content_block_delta",
                "content_block_delta",
                "content_block_delta",
                "content_block_delta",
                "content_block_stop",
                "content_block_start",
                "content_block_delta",
                "content_block_delta",
                "content_block_delta",
                "content_block_delta",
                "content_block_stop",
                "message_delta",
                "message_stop",
            ]
        );
        assert_eq!(
            streamed[0].1,
            json!({"type": "message_start", "message": {
                "id": "msg_01x", "type": "message", "role": "assistant", "model": "claude-test",
                "content": [], "stop_reason": null, "stop_sequence": null,
                "usage": {"input_tokens": 12, "output_tokens": 1},
            }})
        );
        assert_eq!(
            streamed[1].1,
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})
        );
        assert_eq!(
            streamed[3].1,
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Let "}})
        );
        assert_eq!(
            streamed[8].1,
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}})
        );
        assert_eq!(
            streamed[9].1,
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": ""}})
        );
        let text: String = streamed[3..7]
            .iter()
            .map(|(_, event)| event["delta"]["text"].as_str().unwrap())
            .collect();
        assert_eq!(text, "Let me check.");
        let input: String = streamed[9..13]
            .iter()
            .map(|(_, event)| event["delta"]["partial_json"].as_str().unwrap())
            .collect();
        assert_eq!(input, r#"{"city":"Lisbon","days":3}"#);
        assert_eq!(
            streamed[13].1,
            json!({"type": "content_block_stop", "index": 1})
        );
        assert_eq!(
            streamed[14].1,
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null}, "usage": {"output_tokens": 9}})
        );
        assert_eq!(streamed[15].1, json!({"type": "message_stop"}));
    }

    #[test]
    fn an_empty_reply_still_pings_and_a_cut_one_stops_at_max_tokens() {
        let empty = Reply {
            content: None,
            calls: vec![],
            cut: true,
        };
        let nothing = parsed(events(&meta(), &empty, 0, None));
        let names: Vec<&str> = nothing.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(
            names,
            ["message_start", "ping", "message_delta", "message_stop"]
        );
        assert_eq!(nothing[0].1["message"]["usage"]["output_tokens"], 0);
        assert_eq!(nothing[2].1["delta"]["stop_reason"], "max_tokens");

        let raw = r#"{"city": "Lisbon", "days":"#;
        let cut = Reply {
            content: None,
            calls: vec![call("toolu_3", raw)],
            cut: true,
        };
        let streamed = parsed(events(&meta(), &cut, 64, None));
        let input: String = streamed
            .iter()
            .filter(|(name, _)| name == "content_block_delta")
            .map(|(_, event)| event["delta"]["partial_json"].as_str().unwrap())
            .collect();
        assert_eq!(input, raw);
        let (_, delta) = streamed
            .iter()
            .find(|(name, _)| name == "message_delta")
            .unwrap();
        assert_eq!(delta["delta"]["stop_reason"], "max_tokens");
        assert_eq!(delta["usage"]["output_tokens"], 64);
    }

    #[test]
    fn a_stream_failing_midway_ends_on_an_error_event() {
        let before = Reply {
            content: Some("Work".into()),
            calls: vec![],
            cut: false,
        };
        let failure = Failure {
            status: axum::http::StatusCode::from_u16(529).unwrap(),
            body: None,
            mid_stream: Some(before.clone()),
        };
        let failed = parsed(events(&meta(), &before, 0, Some(error_event(&failure))));
        let names: Vec<&str> = failed.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(
            names,
            [
                "message_start",
                "content_block_start",
                "ping",
                "content_block_delta",
                "error"
            ]
        );
        assert_eq!(
            failed[4].1,
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "Scripted error with status 529."}})
        );
        assert_eq!(
            error_body(
                &Failure {
                    status: axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                    body: None,
                    mid_stream: None
                },
                "req_1"
            ),
            json!({"type": "error", "error": {"type": "api_error", "message": "Scripted error with status 500."}, "request_id": "req_1"})
        );
    }
}
