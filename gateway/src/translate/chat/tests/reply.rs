//! Tests of whole Chat replies: llama.cpp's read, the gateway's written.

use serde_json::json;

use crate::translate::chat::{read_reply, write_reply};
use crate::translate::fixtures::{self, call, conversation, masked};
use crate::translate::ir::{Finish, Part, Reply, Usage};

#[test]
fn reads_a_llama_cpp_reply() {
    let reply = json!({
        "choices": [{"finish_reason": "tool_calls", "index": 0, "message": {
            "role": "assistant",
            "content": "",
            "reasoning_content": "The user wants weather.",
            "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}, "id": "1Vg6C9Ta"}],
        }}],
        "created": 1_795_795_995,
        "model": "m",
        "system_fingerprint": "b0-unknown",
        "object": "chat.completion",
        "usage": {"completion_tokens": 20, "prompt_tokens": 100, "total_tokens": 120, "prompt_tokens_details": {"cached_tokens": 90}},
        "id": "chatcmpl-DW68",
        "timings": {"prompt_n": 10},
    });
    assert_eq!(
        read_reply(&reply).unwrap(),
        Reply {
            id: "chatcmpl-DW68".to_owned(),
            model: Some("m".to_owned()),
            created: Some(1_795_795_995),
            parts: vec![
                Part::Reasoning {
                    text: "The user wants weather.".to_owned(),
                    signature: None,
                },
                call("1Vg6C9Ta", r#"{"city":"Paris"}"#),
            ],
            finish: Finish::ToolCalls,
            usage: Some(Usage {
                input: 100,
                output: 20,
                cached_input: Some(90),
                reasoning: None,
            }),
        }
    );
    assert!(read_reply(&json!({"error": {"message": "boom"}})).is_err());
    assert!(read_reply(&json!({"choices": []})).is_err());
    assert!(
        read_reply(&json!({"choices": "many"}))
            .unwrap_err()
            .contains("choices")
    );
}

/// The exact reply written, as the Chat Completions API has it.
#[test]
fn writes_a_reply() {
    let written = masked(write_reply(&fixtures::reply(), &conversation()));
    assert_eq!(
        written,
        json!({
            "id": "chatcmpl-*",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": "m",
            "choices": [{
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "Rome is warmer.",
                    "refusal": null,
                    "tool_calls": [{"id": "call_3", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Milan\"}"}}],
                    "reasoning_content": "Paris is cooler.",
                },
                "logprobs": null,
                "finish_reason": "tool_calls",
            }],
            "usage": {
                "prompt_tokens": 100,
                "completion_tokens": 20,
                "total_tokens": 120,
                "prompt_tokens_details": {"cached_tokens": 40},
                "completion_tokens_details": {"reasoning_tokens": 5},
            },
        })
    );
    let reply = read_reply(&write_reply(&fixtures::reply(), &conversation())).unwrap();
    assert_eq!(reply.parts, fixtures::reply().parts);
    assert_eq!(reply.usage, fixtures::reply().usage);
}

#[test]
fn a_reply_that_called_without_saying_so_ended_for_its_calls() {
    let mut reply = fixtures::reply();
    reply.finish = Finish::Stop;
    let written = write_reply(&reply, &conversation());
    assert_eq!(written["choices"][0]["finish_reason"], "tool_calls");
    reply.parts.truncate(2);
    reply.finish = Finish::ToolCalls;
    let written = write_reply(&reply, &conversation());
    assert_eq!(written["choices"][0]["finish_reason"], "stop");
    assert!(written["choices"][0]["message"].get("tool_calls").is_none());
}
