//! `--quirks llamacpp`: Chat Completions and Responses answered as llama.cpp's server
//! (`llama-server`, `tools/server/server-task.cpp`) writes them, so that the gateway is tested on
//! the shapes it meets there rather than only on OpenAI's documented ones:
//!
//! - Chat: bare call ids (32 alphanumerics, no `call_`); a whole reply's message has `content: ""`
//!   beside its `tool_calls` and none of OpenAI's `refusal`/`annotations`/`logprobs`; the first
//!   chunk's delta is `{"role": "assistant", "content": null}`; no `"usage": null` in the chunks;
//!   a `timings` object on the whole completion and on the last chunk.
//! - Responses: the stream's events carry neither `output_index` nor `sequence_number` (items are
//!   found by `item_id`), `response.created`/`response.in_progress` only `{id, object, status}`,
//!   items are closed at the end, and there is no `.done` event for a call's arguments; a reply cut
//!   by the token limit is still `completed`.
//!
//! Messages' only quirk (bare `tool_use` ids) is in `messages`.

use bytes::Bytes;
use serde_json::{Map, Value, json};

use crate::chat::{self, ARGUMENTS_PIECE, CONTENT_PIECE, Meta};
use crate::responses::{Item, output_text};
use crate::script::Reply;
use crate::{ids, sse};

/// What `llama_build_info()` says of a build without version information.
const SYSTEM_FINGERPRINT: &str = "b0-unknown";

/// Chat's usage as llama.cpp writes it: no `completion_tokens_details`.
fn chat_usage(prompt_tokens: u64, completion_tokens: u64) -> Value {
    json!({
        "completion_tokens": completion_tokens,
        "prompt_tokens": prompt_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
        "prompt_tokens_details": {"cached_tokens": 0},
    })
}

/// llama.cpp's `timings`, with plausible speeds: half a millisecond per prompt token, ten per
/// predicted token.
pub fn timings(prompt_tokens: u64, predicted_tokens: u64) -> Value {
    const PROMPT_MS: f64 = 0.5;
    const PREDICTED_MS: f64 = 10.0;
    json!({
        "cache_n": 0,
        "prompt_n": prompt_tokens,
        "prompt_ms": prompt_tokens as f64 * PROMPT_MS,
        "prompt_per_token_ms": PROMPT_MS,
        "prompt_per_second": 1000.0 / PROMPT_MS,
        "predicted_n": predicted_tokens,
        "predicted_ms": predicted_tokens as f64 * PREDICTED_MS,
        "predicted_per_token_ms": PREDICTED_MS,
        "predicted_per_second": 1000.0 / PREDICTED_MS,
    })
}

/// The whole `chat.completion`.
pub fn chat_completion(
    meta: &Meta<'_>,
    reply: &Reply,
    prompt_tokens: u64,
    completion_tokens: u64,
) -> Value {
    let mut message = json!({
        "role": "assistant",
        "content": reply.content.as_deref().unwrap_or_default(),
    });
    if !reply.calls.is_empty() {
        message["tool_calls"] = reply
            .calls
            .iter()
            .map(|call| {
                json!({
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                    "id": call.call_id,
                })
            })
            .collect();
    }
    json!({
        "choices": [{"finish_reason": chat::finish_reason(reply), "index": 0, "message": message}],
        "created": meta.created,
        "model": meta.model,
        "system_fingerprint": SYSTEM_FINGERPRINT,
        "object": "chat.completion",
        "usage": chat_usage(prompt_tokens, completion_tokens),
        "id": meta.id,
        "timings": timings(prompt_tokens, completion_tokens),
    })
}

/// The streamed completion: the role (with `content: null`), the content and each call as in
/// OpenAI's stream, the finish reason, the usage if asked for, `timings` on the last chunk, and
/// `[DONE]`.
pub fn chat_chunks(
    meta: &Meta<'_>,
    reply: &Reply,
    prompt_tokens: u64,
    completion_tokens: u64,
    include_usage: bool,
) -> Vec<Bytes> {
    let chunk = |choices: Value| {
        json!({
            "choices": choices,
            "created": meta.created,
            "id": meta.id,
            "model": meta.model,
            "system_fingerprint": SYSTEM_FINGERPRINT,
            "object": "chat.completion.chunk",
        })
    };
    let delta = |delta: Value, finish_reason: Option<&str>| {
        chunk(json!([{"finish_reason": finish_reason, "index": 0, "delta": delta}]))
    };

    let mut chunks = vec![delta(json!({"role": "assistant", "content": null}), None)];
    if let Some(content) = &reply.content {
        chunks.extend(
            sse::pieces(content, CONTENT_PIECE).map(|piece| delta(json!({"content": piece}), None)),
        );
    }
    for (index, call) in reply.calls.iter().enumerate() {
        chunks.push(delta(
            json!({"tool_calls": [{
                "index": index,
                "id": call.call_id,
                "type": "function",
                "function": {"name": call.name, "arguments": ""},
            }]}),
            None,
        ));
        chunks.extend(
            sse::pieces(&call.arguments, ARGUMENTS_PIECE).map(|fragment| {
                delta(
                    json!({"tool_calls": [{"index": index, "function": {"arguments": fragment}}]}),
                    None,
                )
            }),
        );
    }
    chunks.push(delta(json!({}), Some(chat::finish_reason(reply))));
    if include_usage {
        let mut last = chunk(json!([]));
        last["usage"] = chat_usage(prompt_tokens, completion_tokens);
        chunks.push(last);
    }
    if let Some(last) = chunks.last_mut() {
        last["timings"] = timings(prompt_tokens, completion_tokens);
    }
    chunks
        .iter()
        .map(sse::data)
        .chain([Bytes::from_static(sse::DONE.as_bytes())])
        .collect()
}

/// A Responses `call_id`: `call_` and llama.cpp's bare id (the item is `fc_` and the same id).
pub fn responses_call_id() -> String {
    format!("call_{}", ids::llamacpp_call())
}

/// The reply's items with llama.cpp's ids: a message only when there is text (llama.cpp writes no
/// empty message), then the calls, each item `fc_` and the id its `call_id` has after `call_`.
pub fn responses_items(reply: Reply) -> Vec<Item> {
    let message = reply
        .content
        .filter(|text| !text.is_empty())
        .map(|text| Item::Message {
            id: ids::llamacpp_prefixed("msg_"),
            text,
        });
    message
        .into_iter()
        .chain(reply.calls.into_iter().map(|call| {
            let bare = call.call_id.strip_prefix("call_").unwrap_or(&call.call_id);
            Item::Call {
                id: format!("fc_{bare}"),
                call,
            }
        }))
        .collect()
}

/// Responses' usage as llama.cpp writes it: no `output_tokens_details`.
pub fn responses_usage(input_tokens: u64, output_tokens: u64) -> Value {
    json!({
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "total_tokens": input_tokens + output_tokens,
        "input_tokens_details": {"cached_tokens": 0},
    })
}

/// The whole response: none of the request's settings echoed, and `completed` even when the token
/// limit cut it (llama.cpp has no `incomplete`).
pub fn responses_object(
    id: &str,
    created_at: u64,
    model: &str,
    items: &[Item],
    usage: &Value,
) -> Value {
    json!({
        "completed_at": created_at,
        "created_at": created_at,
        "id": id,
        "model": model,
        "object": "response",
        "output": items.iter().map(|item| item.done("completed")).collect::<Vec<_>>(),
        "status": "completed",
        "usage": usage,
    })
}

/// One event: its `type` first, then `fields`; no `sequence_number`.
fn event(kind: &str, fields: Value) -> Bytes {
    let mut event = Map::new();
    event.insert("type".into(), kind.into());
    if let Value::Object(fields) = fields {
        event.extend(fields);
    }
    sse::named(kind, &Value::Object(event))
}

/// The streamed response, in llama.cpp's order: created and in progress (`{id, object, status}`
/// only), each item added and its deltas as they are generated, then every item closed, then
/// `response.completed` with the whole response (`done`, less its `completed_at`).
pub fn responses_events(id: &str, items: &[Item], done: &Value) -> Vec<Bytes> {
    let started = json!({"response": {"id": id, "object": "response", "status": "in_progress"}});
    let mut events = vec![
        event("response.created", started.clone()),
        event("response.in_progress", started),
    ];
    for item in items {
        let item_id = item.id();
        events.push(event(
            "response.output_item.added",
            json!({"item": item.in_progress()}),
        ));
        match item {
            Item::Message { text, .. } => {
                events.push(event(
                    "response.content_part.added",
                    json!({"item_id": item_id, "part": {"type": "output_text", "text": ""}}),
                ));
                events.extend(sse::pieces(text, CONTENT_PIECE).map(|piece| {
                    event(
                        "response.output_text.delta",
                        json!({"item_id": item_id, "delta": piece}),
                    )
                }));
            }
            Item::Call { call, .. } => {
                events.extend(sse::pieces(&call.arguments, ARGUMENTS_PIECE).map(|piece| {
                    event(
                        "response.function_call_arguments.delta",
                        json!({"delta": piece, "item_id": item_id}),
                    )
                }));
            }
        }
    }
    for item in items {
        if let Item::Message { id, text } = item {
            events.push(event(
                "response.output_text.done",
                json!({"item_id": id, "text": text}),
            ));
            events.push(event(
                "response.content_part.done",
                json!({"item_id": id, "part": output_text(text)}),
            ));
        }
        events.push(event(
            "response.output_item.done",
            json!({"item": item.done("completed")}),
        ));
    }
    let mut response = done.clone();
    if let Some(response) = response.as_object_mut() {
        response.remove("completed_at");
    }
    events.push(event("response.completed", json!({"response": response})));
    events
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script::Call;

    fn meta() -> Meta<'static> {
        Meta {
            id: "chatcmpl-llama".into(),
            created: 1,
            model: "m",
        }
    }

    fn calling(cut: bool) -> Reply {
        Reply {
            content: None,
            calls: vec![Call {
                call_id: "QZidzsG6PoI5ZLuNmhOHungR4U3wNWgi".into(),
                name: "get_weather".into(),
                arguments: r#"{"city": "Lisbon", "days": 1}"#.into(),
                namespace: None,
                tool_search: false,
            }],
            cut,
        }
    }

    fn parsed(events: Vec<Bytes>) -> Vec<(Option<String>, String)> {
        let bytes = events.concat();
        sse::parse(std::str::from_utf8(&bytes).unwrap())
    }

    #[test]
    fn a_whole_chat_completion_is_llamacpps() {
        let completion = chat_completion(&meta(), &calling(false), 361, 38);
        assert_eq!(
            completion["choices"],
            json!([{"finish_reason": "tool_calls", "index": 0, "message": {
                "role": "assistant",
                "content": "",
                "tool_calls": [{
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": r#"{"city": "Lisbon", "days": 1}"#},
                    "id": "QZidzsG6PoI5ZLuNmhOHungR4U3wNWgi",
                }],
            }}])
        );
        assert_eq!(completion["system_fingerprint"], "b0-unknown");
        assert_eq!(completion["object"], "chat.completion");
        assert_eq!(
            completion["usage"],
            json!({"completion_tokens": 38, "prompt_tokens": 361, "total_tokens": 399, "prompt_tokens_details": {"cached_tokens": 0}})
        );
        assert_eq!(completion["timings"]["prompt_n"], 361);
        assert_eq!(completion["timings"]["predicted_n"], 38);
        assert!(completion.get("service_tier").is_none());
        assert_eq!(
            chat_completion(&meta(), &calling(true), 1, 1)["choices"][0]["finish_reason"],
            "length"
        );
    }

    #[test]
    fn chat_chunks_are_llamacpps() {
        let events = parsed(chat_chunks(&meta(), &calling(false), 10, 5, true));
        assert_eq!(events.last().unwrap().1, "[DONE]");
        let chunks: Vec<Value> = events[..events.len() - 1]
            .iter()
            .map(|(name, data)| {
                assert_eq!(*name, None);
                serde_json::from_str(data).unwrap()
            })
            .collect();
        assert_eq!(
            chunks[0]["choices"],
            json!([{"finish_reason": null, "index": 0, "delta": {"role": "assistant", "content": null}}])
        );
        assert_eq!(
            chunks[1]["choices"][0]["delta"]["tool_calls"][0]["id"],
            "QZidzsG6PoI5ZLuNmhOHungR4U3wNWgi"
        );
        assert!(
            chunks
                .iter()
                .all(|chunk| chunk.get("usage").is_none() || !chunk["usage"].is_null())
        );
        assert!(chunks.iter().all(|chunk| {
            chunk["choices"]
                .get(0)
                .is_none_or(|choice| choice.get("logprobs").is_none())
        }));
        let finish = &chunks[chunks.len() - 2];
        assert_eq!(finish["choices"][0]["finish_reason"], "tool_calls");
        assert!(finish.get("timings").is_none());
        let last = chunks.last().unwrap();
        assert_eq!(last["choices"], json!([]));
        assert_eq!(last["usage"]["total_tokens"], 15);
        assert_eq!(last["timings"]["predicted_n"], 5);
        // Without usage the finish chunk is the last, and has the timings.
        let events = parsed(chat_chunks(&meta(), &calling(false), 10, 5, false));
        let last: Value = serde_json::from_str(&events[events.len() - 2].1).unwrap();
        assert_eq!(last["choices"][0]["finish_reason"], "tool_calls");
        assert_eq!(last["timings"]["prompt_n"], 10);
    }

    #[test]
    fn responses_events_are_llamacpps() {
        let call_id = "call_k83";
        let reply = Reply {
            content: Some("Hi".into()),
            calls: vec![Call {
                call_id: call_id.into(),
                name: "get_weather".into(),
                arguments: "{".into(),
                namespace: None,
                tool_search: false,
            }],
            cut: true,
        };
        let items = responses_items(reply);
        assert_eq!(items[1].id(), "fc_k83");
        let usage = responses_usage(362, 14);
        let done = responses_object("resp_RH9", 7, "m", &items, &usage);
        // llama.cpp says nothing of the cut.
        assert_eq!(done["status"], "completed");
        assert_eq!(done["output"][1]["status"], "completed");
        let events: Vec<(String, Value)> = parsed(responses_events("resp_RH9", &items, &done))
            .into_iter()
            .map(|(name, data)| (name.unwrap(), serde_json::from_str(&data).unwrap()))
            .collect();
        let names: Vec<&str> = events.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(
            names,
            [
                "response.created",
                "response.in_progress",
                "response.output_item.added",
                "response.content_part.added",
                "response.output_text.delta",
                "response.output_item.added",
                "response.function_call_arguments.delta",
                "response.output_text.done",
                "response.content_part.done",
                "response.output_item.done",
                "response.output_item.done",
                "response.completed",
            ]
        );
        for (name, event) in &events {
            assert_eq!(event["type"], name.as_str());
            assert!(event.get("sequence_number").is_none());
            assert!(event.get("output_index").is_none());
        }
        assert_eq!(
            events[0].1,
            json!({"type": "response.created", "response": {"id": "resp_RH9", "object": "response", "status": "in_progress"}})
        );
        assert_eq!(
            events[5].1,
            json!({"type": "response.output_item.added", "item": {
                "id": "fc_k83", "type": "function_call", "status": "in_progress",
                "call_id": "call_k83", "name": "get_weather", "arguments": "",
            }})
        );
        assert_eq!(
            events[6].1,
            json!({"type": "response.function_call_arguments.delta", "delta": "{", "item_id": "fc_k83"})
        );
        assert_eq!(
            events[10].1,
            json!({"type": "response.output_item.done", "item": {
                "id": "fc_k83", "type": "function_call", "status": "completed",
                "call_id": "call_k83", "name": "get_weather", "arguments": "{",
            }})
        );
        let completed = &events[11].1["response"];
        assert_eq!(completed["status"], "completed");
        assert!(completed.get("completed_at").is_none());
        assert_eq!(completed["created_at"], 7);
        assert_eq!(
            completed["usage"],
            json!({"input_tokens": 362, "output_tokens": 14, "total_tokens": 376, "input_tokens_details": {"cached_tokens": 0}})
        );
    }

    #[test]
    fn an_empty_message_is_no_item() {
        let reply = Reply {
            content: Some(String::new()),
            calls: vec![],
            cut: false,
        };
        assert!(responses_items(reply).is_empty());
        let id = responses_call_id();
        assert!(id.starts_with("call_") && id.len() == 5 + 32);
    }
}
