//! Anthropic's half of a tool call, on replies and streams shaped as the Messages API sends them
//! (`tests/fixtures/replies/anthropic/`, whose README says where each shape comes from): the
//! calls found, whole and streamed, and the `tool_result` blocks built for each kind of output.

use std::path::Path;

use serde_json::{Value, json};
use tooldef::calls::{
    AnthropicCallAccumulator, ToolCall, anthropic_tool_calls, anthropic_tool_result,
    anthropic_tool_results_message,
};
use tooldef::{Content, ToolOutput};

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/replies/anthropic")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn reply(name: &str) -> Value {
    serde_json::from_str(&fixture(name)).expect("the fixture is JSON")
}

/// The events of a recorded `text/event-stream` body: each `data:` line, checked against the
/// `event:` line before it (the API names each event by its `type`).
fn events(name: &str) -> Vec<Value> {
    let mut events = Vec::new();
    let mut name_line = None;
    for line in fixture(name).lines() {
        if let Some(event) = line.strip_prefix("event:") {
            name_line = Some(event.trim().to_owned());
        } else if let Some(data) = line.strip_prefix("data:") {
            let event: Value = serde_json::from_str(data.trim()).expect("each `data:` is JSON");
            assert_eq!(
                name_line.take().as_deref(),
                event["type"].as_str(),
                "`event:` names the data's type"
            );
            events.push(event);
        }
    }
    assert!(!events.is_empty(), "{name} has events");
    events
}

fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: arguments.into(),
    }
}

fn weather_and_time() -> Vec<ToolCall> {
    vec![
        call(
            "toolu_01Vd4Jq8bHcT2mXyR7sLpK3e",
            "get_weather",
            r#"{"location":"San Francisco, CA","unit":"celsius"}"#,
        ),
        call(
            "toolu_01Hn6Wc2ZtGf9pQeL4xMbR8a",
            "get_time",
            r#"{"timezone":"America/Los_Angeles"}"#,
        ),
    ]
}

#[test]
fn parallel_calls_among_text_are_read_in_order() {
    let reply = reply("parallel_with_text.json");
    assert_eq!(anthropic_tool_calls(&reply).unwrap(), weather_and_time());
    assert_eq!(
        anthropic_tool_calls(&reply["content"]).unwrap(),
        weather_and_time()
    );
}

#[test]
fn a_call_without_input_has_empty_arguments() {
    let calls = anthropic_tool_calls(&reply("empty_input.json")).unwrap();
    assert_eq!(
        calls,
        vec![call(
            "toolu_01Pz5Ry7KcW3nJ8vBq2LtX6m",
            "refresh_issue_list",
            "{}"
        )]
    );
}

#[test]
fn thinking_and_server_tool_blocks_are_skipped() {
    let calls = anthropic_tool_calls(&reply("thinking_then_tool_use.json")).unwrap();
    assert_eq!(
        calls,
        vec![call(
            "toolu_01Jc7Lq4Vx2Nh8Rb5Tm3Kw9D",
            "get_forecast",
            r#"{"city":"Lyon","days":3,"include":["temperature","rain"]}"#
        )]
    );
}

#[test]
fn a_streamed_reply_gives_the_calls_of_the_whole_one() {
    let mut acc = AnthropicCallAccumulator::new();
    let mut as_they_complete = Vec::new();
    for event in events("parallel_stream.sse") {
        let completed = acc.push(&event).unwrap();
        // A call is complete at its block's stop, not before.
        if !completed.is_empty() {
            assert_eq!(event["type"], "content_block_stop");
        }
        as_they_complete.extend(completed);
    }
    assert_eq!(as_they_complete, weather_and_time());
    // The same calls as `parallel_with_text.json`, the reply read whole.
    assert_eq!(acc.finish().unwrap(), weather_and_time());
}

#[test]
fn a_stream_cut_mid_call_gives_no_half_call() {
    let mut acc = AnthropicCallAccumulator::new();
    let mut completed = Vec::new();
    for event in events("cut_mid_call.sse") {
        completed.extend(acc.push(&event).unwrap());
    }
    // The first call was whole; the second never ended, and is not given.
    assert_eq!(
        completed,
        vec![call(
            "toolu_01Aq9Mx3Ld6Vr2Pn8Kc5Wt7B",
            "get_weather",
            r#"{"location":"Paris, France"}"#
        )]
    );
    assert_eq!(
        acc.finish().unwrap_err().to_string(),
        "the stream ended in the middle of tool call `toolu_01Rf4Gz8Yb2Hs6Jw3Nq9Tc5E` to `get_weather`"
    );
}

#[test]
fn an_error_event_is_an_error() {
    let mut acc = AnthropicCallAccumulator::new();
    let mut errors = Vec::new();
    for event in events("error_event.sse") {
        if let Err(error) = acc.push(&event) {
            assert_eq!(event["type"], "error");
            errors.push(error.to_string());
        }
    }
    let expected = "the stream reported an error (overloaded_error): Overloaded";
    assert_eq!(errors, [expected]);
    assert_eq!(acc.finish().unwrap_err().to_string(), expected);
}

fn weather_call() -> ToolCall {
    weather_and_time().remove(0)
}

#[test]
fn a_text_result() {
    assert_eq!(
        anthropic_tool_result(&weather_call(), &ToolOutput::text("18 °C, fog"), false),
        json!({
            "type": "tool_result",
            "tool_use_id": "toolu_01Vd4Jq8bHcT2mXyR7sLpK3e",
            "content": [{"type": "text", "text": "18 °C, fog"}]
        })
    );
}

#[test]
fn an_image_result_is_an_image_block() {
    let output = ToolOutput::blocks([
        Content::Text("The radar map:".into()),
        Content::Image {
            data: "iVBORw0KGgo=".into(),
            mime_type: "image/png".into(),
        },
    ]);
    assert_eq!(
        anthropic_tool_result(&weather_call(), &output, false),
        json!({
            "type": "tool_result",
            "tool_use_id": "toolu_01Vd4Jq8bHcT2mXyR7sLpK3e",
            "content": [
                {"type": "text", "text": "The radar map:"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
            ]
        })
    );
}

#[test]
fn a_resource_link_is_said_in_text() {
    let link =
        json!({"type": "resource_link", "uri": "https://example.com/sf.json", "name": "sf.json"});
    let output = ToolOutput::blocks([Content::ResourceLink(link.as_object().unwrap().clone())]);
    assert_eq!(
        anthropic_tool_result(&weather_call(), &output, false),
        json!({
            "type": "tool_result",
            "tool_use_id": "toolu_01Vd4Jq8bHcT2mXyR7sLpK3e",
            "content": [{"type": "text", "text": "[resource link: sf.json <https://example.com/sf.json>]"}]
        })
    );
}

#[test]
fn structured_content_is_sent_as_json_text() {
    let value = json!({"temperature": 18, "conditions": "fog"});
    // As a tool with an output schema returns it: the value both as text and structured.
    assert_eq!(
        anthropic_tool_result(
            &weather_call(),
            &ToolOutput::json(value.clone(), true),
            false
        ),
        json!({
            "type": "tool_result",
            "tool_use_id": "toolu_01Vd4Jq8bHcT2mXyR7sLpK3e",
            "content": [{"type": "text", "text": r#"{"temperature":18,"conditions":"fog"}"#}]
        })
    );
    // Structured content alone (an MCP server that sent no text for it).
    let output = ToolOutput {
        content: Vec::new(),
        structured: Some(value),
    };
    assert_eq!(
        anthropic_tool_result(&weather_call(), &output, false),
        json!({
            "type": "tool_result",
            "tool_use_id": "toolu_01Vd4Jq8bHcT2mXyR7sLpK3e",
            "content": [{"type": "text", "text": r#"{"temperature":18,"conditions":"fog"}"#}]
        })
    );
}

#[test]
fn an_error_result_says_so() {
    let output = ToolOutput::text("Unknown location: San Francisco, CA");
    assert_eq!(
        anthropic_tool_result(&weather_call(), &output, true),
        json!({
            "type": "tool_result",
            "tool_use_id": "toolu_01Vd4Jq8bHcT2mXyR7sLpK3e",
            "content": [{"type": "text", "text": "Unknown location: San Francisco, CA"}],
            "is_error": true
        })
    );
}

#[test]
fn a_turn_is_answered_by_one_user_message_in_call_order() {
    let calls = anthropic_tool_calls(&reply("parallel_with_text.json")).unwrap();
    let outputs = [ToolOutput::text("18 °C"), ToolOutput::text("09:41")];
    let results = calls
        .iter()
        .zip(&outputs)
        .map(|(call, output)| anthropic_tool_result(call, output, false))
        .collect();
    assert_eq!(
        anthropic_tool_results_message(results),
        json!({
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_01Vd4Jq8bHcT2mXyR7sLpK3e",
                 "content": [{"type": "text", "text": "18 °C"}]},
                {"type": "tool_result", "tool_use_id": "toolu_01Hn6Wc2ZtGf9pQeL4xMbR8a",
                 "content": [{"type": "text", "text": "09:41"}]}
            ]
        })
    );
}
