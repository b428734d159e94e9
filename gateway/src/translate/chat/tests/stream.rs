//! Tests of Chat streams: llama.cpp's chunks and others read, deltas written as chunks.

use serde_json::{Value, json};

use crate::translate::chat::{Reader, Writer, read_reply};
use crate::translate::fixtures::{llama_chat_stream, masked, read_all};
use crate::translate::ir::{Delta, ErrorBody, Finish, Request, Usage};

#[test]
fn reads_llama_cpps_stream() {
    let mut reader = Reader::default();
    let deltas = read_all(|event| reader.read(event), &llama_chat_stream());
    assert_eq!(
        deltas,
        vec![
            Delta::Start {
                id: "chatcmpl-DW68".to_owned(),
                model: Some("m".to_owned()),
                created: Some(1_795_795_995),
            },
            Delta::CallStart {
                index: 0,
                id: "1Vg6C9Ta3dAGao6WR54B455yecsZs1M0".to_owned(),
                name: "get_weather".to_owned(),
            },
            Delta::CallArguments {
                index: 0,
                delta: "{".to_owned()
            },
            Delta::CallArguments {
                index: 0,
                delta: "\"".to_owned()
            },
            Delta::CallArguments {
                index: 0,
                delta: "city".to_owned()
            },
            Delta::CallArguments {
                index: 0,
                delta: "\":".to_owned()
            },
            Delta::Finish(Finish::Length),
        ]
    );
}

#[test]
fn reads_calls_numbered_alike_and_usage_and_errors() {
    let chunk = |delta: Value| json!({"id": "x", "choices": [{"index": 0, "delta": delta, "finish_reason": null}]});
    let mut reader = Reader::default();
    let events = [
        chunk(json!({"content": "Hi", "reasoning_content": "hm"})),
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "a", "function": {"name": "f", "arguments": "{}"}}]}),
        ),
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "b", "function": {"name": "g", "arguments": ""}}]}),
        ),
        chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": "[]"}}]})),
        json!({"id": "x", "choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 4}}),
    ];
    let deltas = read_all(|event| reader.read(event), &events);
    assert_eq!(
        deltas[1..],
        [
            Delta::Reasoning("hm".to_owned()),
            Delta::Text("Hi".to_owned()),
            Delta::CallStart {
                index: 0,
                id: "a".to_owned(),
                name: "f".to_owned()
            },
            Delta::CallArguments {
                index: 0,
                delta: "{}".to_owned()
            },
            Delta::CallStart {
                index: 1,
                id: "b".to_owned(),
                name: "g".to_owned()
            },
            Delta::CallArguments {
                index: 1,
                delta: "[]".to_owned()
            },
            Delta::Usage(Usage {
                input: 3,
                output: 4,
                cached_input: None,
                reasoning: None
            }),
        ]
    );
    let error = reader
        .read(&json!({"error": {"code": 500, "message": "out of memory", "type": "server_error"}}))
        .unwrap_err();
    assert_eq!(
        error,
        ErrorBody {
            message: "out of memory".to_owned(),
            kind: "server_error".to_owned(),
            code: Some("500".to_owned()),
            param: None,
        }
    );
    assert!(reader.read(&json!({"choices": 3})).is_err());
}

/// Some servers write `null` for what is empty: it is read as empty.
#[test]
fn reads_nulls_as_empty() {
    let mut reader = Reader::default();
    let chunk = json!({
        "id": null,
        "choices": [{"index": null, "delta": null, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": null, "completion_tokens": 2, "prompt_tokens_details": null},
    });
    assert_eq!(
        reader.read(&chunk).unwrap(),
        vec![
            Delta::Start {
                id: String::new(),
                model: None,
                created: None
            },
            Delta::Finish(Finish::Stop),
            Delta::Usage(Usage {
                input: 0,
                output: 2,
                cached_input: None,
                reasoning: None
            }),
        ]
    );
    let reply = json!({"id": null, "choices": [{"message": {"content": null, "tool_calls": null}, "finish_reason": null}]});
    assert_eq!(read_reply(&reply).unwrap().parts, vec![]);
}

/// The exact chunks written for a stream, as the Chat Completions API has them.
#[test]
fn writes_chunks() {
    let request = Request {
        model: Some("m".to_owned()),
        include_usage: true,
        ..Request::default()
    };
    let mut writer = Writer::new(&request);
    let mut chunks = Vec::new();
    for delta in [
        Delta::Start {
            id: "resp_x".to_owned(),
            model: None,
            created: Some(7),
        },
        Delta::Reasoning("Hm.".to_owned()),
        Delta::Text("Let me look.".to_owned()),
        Delta::CallStart {
            index: 0,
            id: "call_1".to_owned(),
            name: "get_weather".to_owned(),
        },
        Delta::CallArguments {
            index: 0,
            delta: "{}".to_owned(),
        },
        Delta::Finish(Finish::ToolCalls),
        Delta::Usage(Usage {
            input: 5,
            output: 6,
            cached_input: None,
            reasoning: None,
        }),
    ] {
        chunks.extend(writer.write(delta));
    }
    chunks.extend(writer.finish());
    assert!(writer.finish().is_empty());
    let id = chunks[0]["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("chatcmpl-") && id.len() == 41, "{id}");
    let chunk = |delta: Value, finish: Value| {
        json!({
            "id": "chatcmpl-*", "object": "chat.completion.chunk", "created": 7, "model": "m",
            "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
        })
    };
    assert_eq!(
        masked(Value::Array(chunks)),
        json!([
            chunk(json!({"role": "assistant", "content": null}), Value::Null),
            chunk(json!({"reasoning_content": "Hm."}), Value::Null),
            chunk(json!({"content": "Let me look."}), Value::Null),
            chunk(json!({"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]}), Value::Null),
            chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]}), Value::Null),
            chunk(json!({}), json!("tool_calls")),
            {"id": "chatcmpl-*", "object": "chat.completion.chunk", "created": 7, "model": "m",
             "choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 6, "total_tokens": 11}},
        ])
    );
}

#[test]
fn no_usage_chunk_unless_asked_and_stop_by_default() {
    let mut writer = Writer::new(&Request::default());
    assert_eq!(writer.write(Delta::Usage(Usage::default())).len(), 1);
    let chunks = writer.finish();
    assert_eq!(chunks.len(), 1);
    assert_eq!(chunks[0]["choices"][0]["finish_reason"], "stop");
}
