//! Tests of Responses streams: llama.cpp's events and others read, deltas written as
//! events in a valid order.

use serde_json::{Value, json};

use crate::translate::fixtures::{
    check_responses_events, conversation, llama_responses_stream, masked, read_all, text,
};
use crate::translate::ir::{Delta, Finish, Part, Request, Usage};
use crate::translate::responses::{Reader, Writer, read_reply};

#[test]
fn reads_llama_cpps_stream_without_indexes() {
    let mut reader = Reader::default();
    let deltas = read_all(|event| reader.read(event), &llama_responses_stream());
    assert_eq!(
        deltas,
        vec![
            Delta::Start {
                id: "resp_RH9".to_owned(),
                model: None,
                created: None
            },
            Delta::CallStart {
                index: 0,
                id: "call_k83".to_owned(),
                name: "get_weather".to_owned()
            },
            Delta::CallArguments {
                index: 0,
                delta: "{".to_owned()
            },
            Delta::Usage(Usage {
                input: 362,
                output: 14,
                cached_input: Some(361),
                reasoning: None
            }),
            Delta::Finish(Finish::ToolCalls),
        ]
    );
}

/// What deltas did not give, a `.done` or the final response gives; what they gave is not
/// given twice.
#[test]
fn whole_items_give_what_deltas_did_not() {
    let mut reader = Reader::default();
    let events = [
        json!({"type": "response.created", "sequence_number": 0, "response": {"id": "resp_1", "model": "m", "created_at": 5}}),
        json!({"type": "response.output_item.added", "output_index": 0, "item": {"id": "rs_1", "type": "reasoning", "summary": []}}),
        json!({"type": "response.reasoning_summary_part.added", "output_index": 0, "item_id": "rs_1", "summary_index": 0}),
        json!({"type": "response.reasoning_summary_text.delta", "output_index": 0, "item_id": "rs_1", "delta": "A"}),
        json!({"type": "response.reasoning_summary_part.added", "output_index": 0, "item_id": "rs_1", "summary_index": 1}),
        json!({"type": "response.reasoning_summary_text.delta", "output_index": 0, "item_id": "rs_1", "delta": "B"}),
        json!({"type": "response.output_item.done", "output_index": 0, "item": {"id": "rs_1", "type": "reasoning", "summary": [
            {"type": "summary_text", "text": "A"}, {"type": "summary_text", "text": "B"},
        ]}}),
        json!({"type": "response.output_item.added", "output_index": 1, "item": {"id": "msg_1", "type": "message", "content": []}}),
        json!({"type": "response.output_text.delta", "output_index": 1, "item_id": "msg_1", "content_index": 0, "delta": "Hel"}),
        json!({"type": "response.output_text.done", "output_index": 1, "item_id": "msg_1", "content_index": 0, "text": "Hello"}),
        json!({"type": "response.output_item.done", "output_index": 1, "item": {"id": "msg_1", "type": "message", "content": [{"type": "output_text", "text": "Hello"}]}}),
        json!({"type": "response.completed", "response": {"id": "resp_1", "status": "completed", "output": [
            {"id": "rs_1", "type": "reasoning", "summary": [{"type": "summary_text", "text": "A"}, {"type": "summary_text", "text": "B"}]},
            {"id": "msg_1", "type": "message", "content": [{"type": "output_text", "text": "Hello"}]},
            {"id": "fc_9", "type": "function_call", "call_id": "call_9", "name": "f", "arguments": "{}"},
        ]}}),
    ];
    let deltas = read_all(|event| reader.read(event), &events);
    assert_eq!(
        deltas,
        vec![
            Delta::Start {
                id: "resp_1".to_owned(),
                model: Some("m".to_owned()),
                created: Some(5)
            },
            Delta::Reasoning("A".to_owned()),
            Delta::Reasoning("\n\n".to_owned()),
            Delta::Reasoning("B".to_owned()),
            Delta::Text("Hel".to_owned()),
            Delta::Text("lo".to_owned()),
            Delta::CallStart {
                index: 0,
                id: "call_9".to_owned(),
                name: "f".to_owned()
            },
            Delta::CallArguments {
                index: 0,
                delta: "{}".to_owned()
            },
            Delta::Finish(Finish::ToolCalls),
        ]
    );
}

#[test]
fn reads_errors_and_cut_streams() {
    let mut reader = Reader::default();
    let error = reader
        .read(&json!({"type": "error", "code": "rate_limit_exceeded", "message": "slow down", "param": null}))
        .unwrap_err();
    assert_eq!(error.message, "slow down");
    assert_eq!(error.code.as_deref(), Some("rate_limit_exceeded"));
    let error = reader
        .read(&json!({"type": "response.failed", "response": {"id": "r", "status": "failed", "error": {"code": "server_error", "message": "boom"}}}))
        .unwrap_err();
    assert_eq!(error.message, "boom");
    let deltas = reader
        .read(&json!({"type": "response.incomplete", "response": {"id": "r", "status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}}}))
        .unwrap();
    assert_eq!(deltas.last(), Some(&Delta::Finish(Finish::Length)));
    assert!(
        reader
            .read(&json!({"type": "response.something_new"}))
            .unwrap()
            .is_empty()
    );
}

/// The exact events written for a short stream of text.
#[test]
fn writes_the_events_of_a_text() {
    let request = Request {
        model: Some("m".to_owned()),
        ..Request::default()
    };
    let mut writer = Writer::new(&request);
    let mut events = Vec::new();
    for delta in [
        Delta::Start {
            id: "chatcmpl-1".to_owned(),
            model: None,
            created: Some(9),
        },
        Delta::Text("Hi".to_owned()),
        Delta::Text("!".to_owned()),
        Delta::Finish(Finish::Stop),
        Delta::Usage(Usage {
            input: 3,
            output: 2,
            cached_input: None,
            reasoning: None,
        }),
    ] {
        events.extend(writer.write(delta));
    }
    events.extend(writer.finish());
    let response = |status: &str, output: Value, usage: Value| {
        json!({
            "id": "resp_*", "object": "response", "created_at": 9, "status": status,
            "model": "m", "output": output, "usage": usage, "error": null,
            "incomplete_details": null, "instructions": null, "max_output_tokens": null,
            "metadata": {}, "parallel_tool_calls": true, "previous_response_id": null,
            "reasoning": {"effort": null, "summary": null}, "store": true,
            "temperature": null, "text": {"format": {"type": "text"}}, "tool_choice": "auto",
            "tools": [], "top_p": null, "truncation": "disabled", "user": null,
        })
    };
    let part = |text: &str| json!({"type": "output_text", "text": text, "annotations": [], "logprobs": []});
    let item = |status: &str, content: Value| json!({"id": "msg_*", "type": "message", "status": status, "role": "assistant", "content": content});
    let at = json!({"item_id": "msg_*", "output_index": 0, "content_index": 0});
    let with = |kind: &str, number: u64, fields: Value| {
        let mut event = json!({"type": kind});
        for (key, value) in fields.as_object().unwrap() {
            event[key] = value.clone();
        }
        event["sequence_number"] = json!(number);
        event
    };
    let merged = |extra: Value| {
        let mut fields = at.clone();
        for (key, value) in extra.as_object().unwrap() {
            fields[key] = value.clone();
        }
        fields
    };
    assert_eq!(
        masked(Value::Array(events)),
        json!([
            with(
                "response.created",
                0,
                json!({"response": response("in_progress", json!([]), Value::Null)})
            ),
            with(
                "response.in_progress",
                1,
                json!({"response": response("in_progress", json!([]), Value::Null)})
            ),
            with(
                "response.output_item.added",
                2,
                json!({"output_index": 0, "item": item("in_progress", json!([]))})
            ),
            with(
                "response.content_part.added",
                3,
                merged(json!({"part": part("")}))
            ),
            with(
                "response.output_text.delta",
                4,
                merged(json!({"delta": "Hi", "logprobs": []}))
            ),
            with(
                "response.output_text.delta",
                5,
                merged(json!({"delta": "!", "logprobs": []}))
            ),
            with(
                "response.output_text.done",
                6,
                merged(json!({"text": "Hi!", "logprobs": []}))
            ),
            with(
                "response.content_part.done",
                7,
                merged(json!({"part": part("Hi!")}))
            ),
            with(
                "response.output_item.done",
                8,
                json!({"output_index": 0, "item": item("completed", json!([part("Hi!")]))})
            ),
            with(
                "response.completed",
                9,
                json!({"response": response(
                    "completed",
                    json!([item("completed", json!([part("Hi!")]))]),
                    json!({"input_tokens": 3, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 2, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 5}),
                )})
            ),
        ])
    );
}

/// Reasoning, text, calls, and text after a call (a new message): every item closed in
/// order, every event numbered.
#[test]
fn writes_items_in_a_valid_order() {
    let mut writer = Writer::new(&conversation());
    let mut events = Vec::new();
    for delta in [
        Delta::Reasoning("Hm".to_owned()),
        Delta::Reasoning("m.".to_owned()),
        Delta::Text("Let me look.".to_owned()),
        Delta::CallStart {
            index: 0,
            id: "call_1".to_owned(),
            name: "f".to_owned(),
        },
        Delta::CallArguments {
            index: 0,
            delta: "{\"a\":".to_owned(),
        },
        Delta::CallArguments {
            index: 0,
            delta: "1}".to_owned(),
        },
        Delta::CallStart {
            index: 1,
            id: "call_2".to_owned(),
            name: "g".to_owned(),
        },
        Delta::Text("And more.".to_owned()),
        Delta::Finish(Finish::ToolCalls),
    ] {
        events.extend(writer.write(delta));
    }
    events.extend(writer.finish());
    let response = check_responses_events(&events);
    let read = read_reply(&response).unwrap();
    assert_eq!(
        read.parts,
        vec![
            Part::Reasoning {
                text: "Hmm.".to_owned(),
                signature: None
            },
            text("Let me look."),
            Part::Call(crate::translate::ir::Call {
                id: "call_1".to_owned(),
                name: "f".to_owned(),
                arguments: "{\"a\":1}".to_owned()
            }),
            Part::Call(crate::translate::ir::Call {
                id: "call_2".to_owned(),
                name: "g".to_owned(),
                arguments: String::new()
            }),
            text("And more."),
        ]
    );
    assert_eq!(response["status"], "completed");
    assert_eq!(response["instructions"], "You are terse.");
}
