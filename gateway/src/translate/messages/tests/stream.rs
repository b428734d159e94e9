//! Tests of Messages streams: Anthropic's events read, deltas written as events.

use serde_json::{Value, json};

use crate::translate::fixtures::{check_messages_events, messages_stream, read_all};
use crate::translate::ir::{Delta, Finish, Request, Usage};
use crate::translate::messages::{Reader, Writer};

#[test]
fn reads_a_stream() {
    let mut reader = Reader::default();
    let deltas = read_all(|event| reader.read(event), &messages_stream());
    assert_eq!(
        deltas,
        vec![
            Delta::Start {
                id: "msg_01ABC".to_owned(),
                model: Some("claude".to_owned()),
                created: None
            },
            Delta::Usage(Usage {
                input: 60,
                output: 1,
                cached_input: Some(10),
                reasoning: None
            }),
            Delta::Text("Let me ".to_owned()),
            Delta::Text("look.".to_owned()),
            Delta::CallStart {
                index: 0,
                id: "toolu_01X".to_owned(),
                name: "get_weather".to_owned()
            },
            Delta::CallArguments {
                index: 0,
                delta: "{\"city\": ".to_owned()
            },
            Delta::CallArguments {
                index: 0,
                delta: "\"Paris\"}".to_owned()
            },
            Delta::Finish(Finish::ToolCalls),
            Delta::Usage(Usage {
                input: 60,
                output: 30,
                cached_input: Some(10),
                reasoning: None
            }),
        ]
    );
    let error = reader
        .read(&json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}))
        .unwrap_err();
    assert_eq!(error.kind, "overloaded_error");
}

#[test]
fn reads_thinking_with_its_signature_and_a_whole_input() {
    let mut reader = Reader::default();
    let events = [
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Hm."}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "EqoB"}}),
        json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "t", "name": "f", "input": {"a": 1}}}),
        json!({"type": "content_block_start", "index": 2, "content_block": {"type": "text", "text": "Hi"}}),
    ];
    assert_eq!(
        read_all(|event| reader.read(event), &events),
        vec![
            Delta::Reasoning("Hm.".to_owned()),
            Delta::ReasoningSignature("EqoB".to_owned()),
            Delta::CallStart {
                index: 0,
                id: "t".to_owned(),
                name: "f".to_owned()
            },
            Delta::CallArguments {
                index: 0,
                delta: r#"{"a":1}"#.to_owned()
            },
            Delta::Text("Hi".to_owned()),
        ]
    );
}

/// The exact events written for a stream.
#[test]
fn writes_events() {
    let request = Request {
        model: Some("m".to_owned()),
        ..Request::default()
    };
    let mut writer = Writer::new(&request);
    let mut events = Vec::new();
    for delta in [
        Delta::Start {
            id: "msg_01".to_owned(),
            model: None,
            created: None,
        },
        Delta::Usage(Usage {
            input: 50,
            output: 0,
            cached_input: Some(10),
            reasoning: None,
        }),
        Delta::Reasoning("Hm.".to_owned()),
        Delta::ReasoningSignature("EqoB".to_owned()),
        Delta::Text("Let me look.".to_owned()),
        Delta::CallStart {
            index: 0,
            id: "call_1".to_owned(),
            name: "f".to_owned(),
        },
        Delta::CallArguments {
            index: 0,
            delta: "{}".to_owned(),
        },
        Delta::Finish(Finish::ToolCalls),
        Delta::Usage(Usage {
            input: 50,
            output: 9,
            cached_input: Some(10),
            reasoning: None,
        }),
    ] {
        events.extend(writer.write(delta));
    }
    events.extend(writer.finish());
    assert_eq!(
        Value::Array(events.clone()),
        json!([
            {"type": "message_start", "message": {
                "id": "msg_01", "type": "message", "role": "assistant", "model": "m", "content": [],
                "stop_reason": null, "stop_sequence": null,
                "usage": {"input_tokens": 40, "output_tokens": 0, "cache_read_input_tokens": 10},
            }},
            {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Hm."}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "EqoB"}},
            {"type": "content_block_stop", "index": 0},
            {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
            {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Let me look."}},
            {"type": "content_block_stop", "index": 1},
            {"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": "call_1", "name": "f", "input": {}}},
            {"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": "{}"}},
            {"type": "content_block_stop", "index": 2},
            {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null},
             "usage": {"input_tokens": 40, "output_tokens": 9, "cache_read_input_tokens": 10}},
            {"type": "message_stop"},
        ])
    );
    let message = check_messages_events(&events);
    assert_eq!(message["content"][2]["input"], json!({}));
    assert!(writer.finish().is_empty());
}

#[test]
fn an_empty_stream_is_a_whole_message() {
    let mut writer = Writer::new(&Request::default());
    let events = writer.finish();
    let message = check_messages_events(&events);
    assert_eq!(message["stop_reason"], "end_turn");
    assert_eq!(message["content"], json!([]));
}
