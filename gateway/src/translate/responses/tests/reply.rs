//! Tests of whole responses, read and written.

use serde_json::json;

use crate::translate::fixtures::{self, conversation, masked, text};
use crate::translate::ir::{Finish, Part, Reply, Request, Usage};
use crate::translate::responses::{read_reply, write_reply};

/// The exact response written for a reply, as the openai SDK's `Response` has it.
#[test]
fn writes_a_reply() {
    let written = masked(write_reply(&fixtures::reply(), &conversation()));
    assert_eq!(
        written,
        json!({
            "id": "resp_*",
            "object": "response",
            "created_at": 1_700_000_000,
            "status": "completed",
            "model": "m",
            "output": [
                {"id": "rs_*", "type": "reasoning", "summary": [{"type": "summary_text", "text": "Paris is cooler."}]},
                {"id": "msg_*", "type": "message", "status": "completed", "role": "assistant", "content": [
                    {"type": "output_text", "text": "Rome is warmer.", "annotations": [], "logprobs": []},
                ]},
                {"id": "fc_*", "type": "function_call", "status": "completed", "call_id": "call_3", "name": "get_weather", "arguments": "{\"city\":\"Milan\"}"},
            ],
            "usage": {
                "input_tokens": 100,
                "input_tokens_details": {"cached_tokens": 40},
                "output_tokens": 20,
                "output_tokens_details": {"reasoning_tokens": 5},
                "total_tokens": 120,
            },
            "error": null,
            "incomplete_details": null,
            "instructions": "You are terse.",
            "max_output_tokens": 512,
            "metadata": {},
            "parallel_tool_calls": true,
            "previous_response_id": null,
            "reasoning": {"effort": null, "summary": null},
            "store": true,
            "temperature": 0.5,
            "text": {"format": {"type": "text"}},
            "tool_choice": "auto",
            "tools": [{
                "type": "function",
                "name": "get_weather",
                "description": "The weather in a city",
                "parameters": fixtures::weather_schema(),
                "strict": false,
            }],
            "top_p": null,
            "truncation": "disabled",
            "user": "u-1",
        })
    );
    let read = read_reply(&write_reply(&fixtures::reply(), &conversation())).unwrap();
    assert_eq!(read.parts, fixtures::reply().parts);
    assert_eq!(read.finish, Finish::ToolCalls);
    assert_eq!(read.usage, fixtures::reply().usage);
}

#[test]
fn a_cut_reply_is_incomplete() {
    let reply = Reply {
        finish: Finish::Length,
        ..fixtures::reply()
    };
    let written = write_reply(&reply, &Request::default());
    assert_eq!(written["status"], "incomplete");
    assert_eq!(
        written["incomplete_details"],
        json!({"reason": "max_output_tokens"})
    );
    assert_eq!(read_reply(&written).unwrap().finish, Finish::Length);
    let reply = Reply {
        finish: Finish::ContentFilter,
        ..fixtures::reply()
    };
    let written = write_reply(&reply, &Request::default());
    assert_eq!(
        written["incomplete_details"],
        json!({"reason": "content_filter"})
    );
}

#[test]
fn reads_a_reply() {
    let reply = json!({
        "id": "resp_1",
        "object": "response",
        "created_at": 1_741_476_542.5,
        "status": "completed",
        "model": "gpt",
        "output": [
            {"id": "rs_1", "type": "reasoning", "summary": [{"type": "summary_text", "text": "Think."}], "encrypted_content": "gAAA"},
            {"id": "ws_1", "type": "web_search_call", "status": "completed"},
            {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed", "content": [
                {"type": "output_text", "text": "Hello.", "annotations": []},
                {"type": "refusal", "refusal": "No."},
            ]},
            {"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "f", "arguments": "{}", "status": "completed"},
        ],
        "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15},
    });
    assert_eq!(
        read_reply(&reply).unwrap(),
        Reply {
            id: "resp_1".to_owned(),
            model: Some("gpt".to_owned()),
            created: Some(1_741_476_542),
            parts: vec![
                Part::Reasoning {
                    text: "Think.".to_owned(),
                    signature: None
                },
                text("Hello."),
                text("No."),
                Part::Call(crate::translate::ir::Call {
                    id: "call_1".to_owned(),
                    name: "f".to_owned(),
                    arguments: "{}".to_owned(),
                }),
            ],
            finish: Finish::ToolCalls,
            usage: Some(Usage {
                input: 10,
                output: 5,
                cached_input: None,
                reasoning: None
            }),
        }
    );
    let failed = json!({"id": "resp_1", "status": "failed", "output": [], "error": {"code": "server_error", "message": "boom"}});
    assert_eq!(read_reply(&failed).unwrap_err(), "boom");
    assert_eq!(
        read_reply(&json!({"error": {"message": "nope"}})).unwrap_err(),
        "nope"
    );
}
