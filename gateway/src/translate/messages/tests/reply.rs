//! Tests of whole Messages replies: Anthropic's and llama.cpp's read, the gateway's written.

use serde_json::json;

use crate::translate::fixtures::{self, call, conversation, masked, text};
use crate::translate::ir::{Finish, Part, Reply, Request, Usage};
use crate::translate::messages::{read_reply, write_reply};

/// The exact message written for a reply, as the Messages API has it.
#[test]
fn writes_a_reply() {
    let written = masked(write_reply(&fixtures::reply(), &conversation()));
    assert_eq!(
        written,
        json!({
            "id": "msg_*",
            "type": "message",
            "role": "assistant",
            "model": "m",
            "content": [
                {"type": "thinking", "thinking": "Paris is cooler.", "signature": ""},
                {"type": "text", "text": "Rome is warmer."},
                {"type": "tool_use", "id": "call_3", "name": "get_weather", "input": {"city": "Milan"}},
            ],
            "stop_reason": "tool_use",
            "stop_sequence": null,
            "usage": {"input_tokens": 60, "output_tokens": 20, "cache_read_input_tokens": 40},
        })
    );
    let read = read_reply(&write_reply(&fixtures::reply(), &conversation())).unwrap();
    assert_eq!(read.parts, fixtures::reply().parts);
    assert_eq!(read.finish, Finish::ToolCalls);
    assert_eq!(
        read.usage,
        Some(Usage {
            reasoning: None,
            ..fixtures::reply().usage.unwrap()
        })
    );
}

#[test]
fn a_cut_call_has_an_empty_input() {
    let reply = Reply {
        parts: vec![call("c", r#"{"city":"#)],
        finish: Finish::Length,
        ..fixtures::reply()
    };
    let written = write_reply(&reply, &Request::default());
    assert_eq!(written["content"][0]["input"], json!({}));
    assert_eq!(written["stop_reason"], "max_tokens");
    assert_eq!(written["id"].as_str().unwrap().len(), 36);
    let reply = Reply {
        id: "msg_01X".to_owned(),
        ..reply
    };
    assert_eq!(write_reply(&reply, &Request::default())["id"], "msg_01X");
}

#[test]
fn reads_replies_of_anthropic_and_llama_cpp() {
    let anthropic = json!({
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude",
        "content": [
            {"type": "thinking", "thinking": "Hm.", "signature": "EqoB"},
            {"type": "redacted_thinking", "data": "xyz"},
            {"type": "text", "text": "Hi."},
            {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"a": 1}},
        ],
        "stop_reason": "tool_use", "stop_sequence": null,
        "usage": {"input_tokens": 10, "cache_creation_input_tokens": 5, "cache_read_input_tokens": 20, "output_tokens": 7},
    });
    assert_eq!(
        read_reply(&anthropic).unwrap(),
        Reply {
            id: "msg_01".to_owned(),
            model: Some("claude".to_owned()),
            created: None,
            parts: vec![
                Part::Reasoning {
                    text: "Hm.".to_owned(),
                    signature: Some("EqoB".to_owned())
                },
                text("Hi."),
                Part::Call(crate::translate::ir::Call {
                    id: "toolu_1".to_owned(),
                    name: "f".to_owned(),
                    arguments: r#"{"a":1}"#.to_owned()
                }),
            ],
            finish: Finish::ToolCalls,
            usage: Some(Usage {
                input: 35,
                output: 7,
                cached_input: Some(20),
                reasoning: None
            }),
        }
    );
    let llama = json!({
        "id": "chatcmpl-x", "type": "message", "role": "assistant", "model": "m",
        "content": [{"type": "text", "text": ""}, {"type": "tool_use", "id": "Abc123", "name": "f", "input": {}}],
        "stop_reason": "tool_use", "usage": {"input_tokens": 3, "output_tokens": 4},
    });
    let read = read_reply(&llama).unwrap();
    assert_eq!(
        read.parts,
        vec![Part::Call(crate::translate::ir::Call {
            id: "Abc123".to_owned(),
            name: "f".to_owned(),
            arguments: "{}".to_owned()
        })]
    );
    assert_eq!(
        read_reply(
            &json!({"type": "error", "error": {"type": "overloaded_error", "message": "busy"}})
        )
        .unwrap_err(),
        "busy"
    );
}
