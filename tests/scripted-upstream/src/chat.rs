//! `POST /v1/chat/completions`: the request read and validated, its turn played, and the reply
//! written as a `chat.completion`, or streamed as `chat.completion.chunk`s ending in `[DONE]` (in
//! llama.cpp's variants of those with `--quirks llamacpp`: see `llamacpp`).

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, Uri};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde_json::{Map, Value, json};

use crate::error::ApiError;
use crate::options::Quirks;
use crate::script::{
    self, Outcome, Reply, Situation, ToolResult, content_text, token_limit, tokens,
};
use crate::server::{App, with_request_id};
use crate::validate::{self, OpenAi, role};
use crate::{ids, llamacpp, sse};

/// Characters per content delta, and per arguments fragment, of a streamed reply.
pub const CONTENT_PIECE: usize = 4;
pub const ARGUMENTS_PIECE: usize = 7;

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
    let request = validate::request_object(body)?;
    let messages = match request.get("messages") {
        Some(Value::Array(messages)) => messages.as_slice(),
        None | Some(Value::Null) => return Err(ApiError::missing("messages")),
        Some(other) => return Err(ApiError::invalid_type("messages", "an array", other)),
    };
    let names = validate::tools(OpenAi::Chat, request.get("tools"))?;
    validate::tool_choice(OpenAi::Chat, &request, names.as_deref())?;
    validate::chat_messages(messages)?;

    let situation = situation(
        messages,
        names.unwrap_or_default(),
        request.get("tool_choice"),
    );
    let llamacpp = app.quirks == Quirks::LlamaCpp;
    let new_call_id = if llamacpp {
        ids::llamacpp_call
    } else {
        ids::call
    };
    let plan = script::plan(&situation, new_call_id)
        .map_err(|message| ApiError::invalid(message, None))?;
    if !plan.delay.is_zero() {
        tokio::time::sleep(plan.delay).await;
    }
    // A mid-stream failure has no documented form in a Chat stream: the status is answered.
    let reply = match plan.outcome {
        Outcome::Error(failure) => {
            return Ok((failure.status, Json(failure.openai_body())).into_response());
        }
        Outcome::Reply(reply) => reply,
    };

    let meta = Meta {
        id: if llamacpp {
            ids::llamacpp_completion()
        } else {
            ids::chat_completion()
        },
        created: ids::unix_now(),
        model: request["model"].as_str().unwrap_or_default(),
    };
    let prompt_tokens = tokens(body.len());
    // `max_tokens` is the deprecated name of `max_completion_tokens`; both still limit a reply.
    let completion_tokens = reply.output_tokens(token_limit(
        &request,
        &["max_completion_tokens", "max_tokens"],
    ));
    let stream = request.get("stream") == Some(&Value::Bool(true));
    let include_usage = request
        .get("stream_options")
        .and_then(|options| options.get("include_usage"))
        == Some(&Value::Bool(true));
    let response = match (llamacpp, stream) {
        (false, true) => sse::response(
            chunks(
                &meta,
                &reply,
                include_usage.then(|| usage(prompt_tokens, completion_tokens)),
            ),
            plan.stream_gap,
        ),
        (false, false) => Json(completion(
            &meta,
            &reply,
            usage(prompt_tokens, completion_tokens),
        ))
        .into_response(),
        (true, true) => sse::response(
            llamacpp::chat_chunks(
                &meta,
                &reply,
                prompt_tokens,
                completion_tokens,
                include_usage,
            ),
            plan.stream_gap,
        ),
        (true, false) => Json(llamacpp::chat_completion(
            &meta,
            &reply,
            prompt_tokens,
            completion_tokens,
        ))
        .into_response(),
    };
    Ok(with_request_id(response))
}

/// The turn to play and what placeholders quote, read from the messages.
pub fn situation(messages: &[Value], tools: Vec<String>, tool_choice: Option<&Value>) -> Situation {
    let last_user = messages
        .iter()
        .rposition(|message| role(message) == Some("user"));
    let (last_user_text, after) = match last_user {
        Some(at) => (
            Some(content_text(&messages[at]["content"], Some("text"), "\n")),
            &messages[at + 1..],
        ),
        None => (None, messages),
    };
    Situation {
        last_user_text,
        turn: after
            .iter()
            .filter(|message| role(message) == Some("assistant"))
            .count(),
        tool_results: after
            .iter()
            .filter(|message| role(message) == Some("tool"))
            .map(|message| ToolResult::text(content_text(&message["content"], Some("text"), "")))
            .collect(),
        tools,
        tool_choice_none: tool_choice.and_then(Value::as_str) == Some("none"),
    }
}

/// What every chunk of one reply shares.
pub struct Meta<'a> {
    pub id: String,
    pub created: u64,
    pub model: &'a str,
}

/// `length` for a reply cut short, whatever it holds (OpenAI and llama.cpp alike).
pub fn finish_reason(reply: &Reply) -> &'static str {
    if reply.cut {
        "length"
    } else if reply.calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    }
}

pub fn usage(prompt_tokens: u64, completion_tokens: u64) -> Value {
    json!({
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    })
}

/// The whole `chat.completion`.
pub fn completion(meta: &Meta<'_>, reply: &Reply, usage: Value) -> Value {
    let mut message = json!({
        "role": "assistant",
        "content": reply.content,
        "refusal": null,
        "annotations": [],
    });
    if !reply.calls.is_empty() {
        message["tool_calls"] = reply
            .calls
            .iter()
            .map(|call| {
                json!({
                    "id": call.call_id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                })
            })
            .collect();
    }
    json!({
        "id": meta.id,
        "object": "chat.completion",
        "created": meta.created,
        "model": meta.model,
        "system_fingerprint": null,
        "choices": [{
            "index": 0,
            "message": message,
            "logprobs": null,
            "finish_reason": finish_reason(reply),
        }],
        "usage": usage,
        "service_tier": "default",
    })
}

/// The streamed reply's events: the role, the content in pieces, each call's header and its
/// arguments in fragments, the finish reason, the usage if asked for, and `[DONE]`.
pub fn chunks(meta: &Meta<'_>, reply: &Reply, usage: Option<Value>) -> Vec<Bytes> {
    let include_usage = usage.is_some();
    let chunk = |choices: Value, usage: Option<Value>| -> Bytes {
        let mut chunk = Map::new();
        chunk.insert("id".into(), meta.id.clone().into());
        chunk.insert("object".into(), "chat.completion.chunk".into());
        chunk.insert("created".into(), meta.created.into());
        chunk.insert("model".into(), meta.model.into());
        chunk.insert("system_fingerprint".into(), Value::Null);
        chunk.insert("choices".into(), choices);
        // With `include_usage`, OpenAI puts `"usage": null` in every chunk but the last.
        if include_usage {
            chunk.insert("usage".into(), usage.unwrap_or(Value::Null));
        }
        sse::data(&Value::Object(chunk))
    };
    let delta = |delta: Value, finish_reason: Option<&str>| {
        chunk(
            json!([{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish_reason}]),
            None,
        )
    };

    let mut events = vec![delta(
        json!({"role": "assistant", "content": "", "refusal": null}),
        None,
    )];
    if let Some(content) = &reply.content {
        events.extend(
            sse::pieces(content, CONTENT_PIECE).map(|piece| delta(json!({"content": piece}), None)),
        );
    }
    for (index, call) in reply.calls.iter().enumerate() {
        events.push(delta(
            json!({"tool_calls": [{
                "index": index,
                "id": call.call_id,
                "type": "function",
                "function": {"name": call.name, "arguments": ""},
            }]}),
            None,
        ));
        events.extend(
            sse::pieces(&call.arguments, ARGUMENTS_PIECE).map(|fragment| {
                delta(
                    json!({"tool_calls": [{"index": index, "function": {"arguments": fragment}}]}),
                    None,
                )
            }),
        );
    }
    events.push(delta(json!({}), Some(finish_reason(reply))));
    if let Some(usage) = usage {
        events.push(chunk(json!([]), Some(usage)));
    }
    events.push(Bytes::from_static(sse::DONE.as_bytes()));
    events
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script::Call;

    #[test]
    fn turn_counts_assistant_messages_after_the_last_user_message() {
        let messages = json!([
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "old"},
            {"role": "assistant", "content": "old answer"},
            {"role": "user", "content": [{"type": "text", "text": "first"}, {"type": "text", "text": "SCRIPT: []"}]},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "a"}, {"id": "b"}]},
            {"role": "tool", "tool_call_id": "a", "content": "one"},
            {"role": "tool", "tool_call_id": "b", "content": [{"type": "text", "text": "tw"}, {"type": "text", "text": "o"}]},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "c"}]},
            {"role": "tool", "tool_call_id": "c", "content": "three"},
        ]);
        let situation = situation(
            messages.as_array().unwrap(),
            vec!["t".into()],
            Some(&json!("none")),
        );
        assert_eq!(
            situation.last_user_text.as_deref(),
            Some("first\nSCRIPT: []")
        );
        assert_eq!(situation.turn, 2);
        let texts: Vec<&str> = situation
            .tool_results
            .iter()
            .map(|result| result.text.as_str())
            .collect();
        assert_eq!(texts, ["one", "two", "three"]);
        assert!(situation.tool_results.iter().all(|result| !result.is_error));
        assert!(situation.tool_choice_none);
    }

    #[test]
    fn a_streamed_reply_parses_back() {
        let reply = Reply {
            content: Some("Let me check that.".into()),
            calls: vec![
                Call {
                    call_id: "call_1".into(),
                    name: "get_weather".into(),
                    arguments: r#"{"city":"Lisbon","days":3}"#.into(),
                    namespace: None,
                    tool_search: false,
                },
                Call {
                    call_id: "call_2".into(),
                    name: "get_time".into(),
                    arguments: "{}".into(),
                    namespace: None,
                    tool_search: false,
                },
            ],
            cut: false,
        };
        let meta = Meta {
            id: "chatcmpl-x".into(),
            created: 1,
            model: "m",
        };
        let bytes: Vec<u8> = chunks(&meta, &reply, Some(usage(10, 5))).concat();
        let events = sse::parse(std::str::from_utf8(&bytes).unwrap());
        assert_eq!(events.last().unwrap().1, "[DONE]");
        let chunks: Vec<Value> = events[..events.len() - 1]
            .iter()
            .map(|(name, data)| {
                assert_eq!(*name, None);
                serde_json::from_str(data).unwrap()
            })
            .collect();

        // Reassembled as a client does.
        let mut content = String::new();
        let mut calls: Vec<(String, String, String)> = Vec::new();
        let mut finish = None;
        for chunk in &chunks {
            assert_eq!(chunk["id"], "chatcmpl-x");
            assert_eq!(chunk["object"], "chat.completion.chunk");
            let Some(choice) = chunk["choices"].get(0) else {
                continue;
            };
            let delta = &choice["delta"];
            content.push_str(delta["content"].as_str().unwrap_or_default());
            for call in delta["tool_calls"].as_array().into_iter().flatten() {
                let index = call["index"].as_u64().unwrap() as usize;
                if let Some(id) = call["id"].as_str() {
                    assert_eq!(index, calls.len());
                    calls.push((
                        id.into(),
                        call["function"]["name"].as_str().unwrap().into(),
                        String::new(),
                    ));
                }
                calls[index]
                    .2
                    .push_str(call["function"]["arguments"].as_str().unwrap());
            }
            if let Some(reason) = choice["finish_reason"].as_str() {
                finish = Some(reason.to_owned());
            }
        }
        assert_eq!(
            chunks[0]["choices"][0]["delta"],
            json!({"role": "assistant", "content": "", "refusal": null})
        );
        assert_eq!(content, "Let me check that.");
        assert_eq!(
            calls[0],
            (
                "call_1".into(),
                "get_weather".into(),
                r#"{"city":"Lisbon","days":3}"#.into()
            )
        );
        assert_eq!(calls[1], ("call_2".into(), "get_time".into(), "{}".into()));
        assert_eq!(finish.as_deref(), Some("tool_calls"));
        let last = chunks.last().unwrap();
        assert_eq!(last["choices"], json!([]));
        assert_eq!(last["usage"]["total_tokens"], 15);
        assert!(
            chunks[..chunks.len() - 1]
                .iter()
                .all(|chunk| chunk["usage"].is_null())
        );
    }

    #[test]
    fn a_whole_reply_has_openais_shape() {
        let reply = Reply {
            content: None,
            calls: vec![Call {
                call_id: "call_1".into(),
                name: "f".into(),
                arguments: "{}".into(),
                namespace: None,
                tool_search: false,
            }],
            cut: false,
        };
        let meta = Meta {
            id: "chatcmpl-x".into(),
            created: 1,
            model: "m",
        };
        let completion = completion(&meta, &reply, usage(1, 1));
        assert_eq!(completion["choices"][0]["finish_reason"], "tool_calls");
        assert_eq!(completion["choices"][0]["message"]["content"], Value::Null);
        assert_eq!(
            completion["choices"][0]["message"]["tool_calls"][0]["function"]["name"],
            "f"
        );
        let text = completion_of_text();
        assert!(text["choices"][0]["message"].get("tool_calls").is_none());
        assert_eq!(text["choices"][0]["finish_reason"], "stop");
    }

    fn completion_of_text() -> Value {
        let reply = Reply {
            content: Some("hi".into()),
            calls: vec![],
            cut: false,
        };
        completion(
            &Meta {
                id: "chatcmpl-y".into(),
                created: 1,
                model: "m",
            },
            &reply,
            usage(1, 1),
        )
    }
}
