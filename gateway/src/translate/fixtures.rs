//! What the translation's tests share: a conversation every API can say, a reply, the real
//! streams of llama.cpp, and checks of a written stream's order.

use serde_json::{Value, json};

use super::ir::{
    Call, Delta, Finish, Message, Part, Reply, Request, Role, Tool, ToolChoice, ToolResult, Usage,
};

/// A conversation all three APIs can say: a system prompt, the user's text and image, the
/// assistant's text and two calls, their results and the user's next words; a tool, a tool
/// choice, a limit, a temperature, a user.
pub fn conversation() -> Request {
    Request {
        model: Some("m".to_owned()),
        messages: vec![
            Message {
                role: Role::System,
                parts: vec![text("You are terse.")],
            },
            Message {
                role: Role::User,
                parts: vec![
                    text("What is the weather in Paris and Rome? Here is a map."),
                    Part::Image {
                        url: "data:image/png;base64,iVBORw0KGgo=".to_owned(),
                        detail: None,
                    },
                ],
            },
            Message {
                role: Role::Assistant,
                parts: vec![
                    text("Let me look."),
                    call("call_1", r#"{"city":"Paris"}"#),
                    call("call_2", r#"{"city":"Rome"}"#),
                ],
            },
            Message {
                role: Role::User,
                parts: vec![
                    result("call_1", "18°C"),
                    result("call_2", "24°C"),
                    text("Which is warmer?"),
                ],
            },
        ],
        tools: vec![weather_tool()],
        tool_choice: Some(ToolChoice::Auto),
        max_tokens: Some(512),
        temperature: Some(0.5),
        user: Some("u-1".to_owned()),
        ..Request::default()
    }
}

/// The tool of [`conversation`].
pub fn weather_tool() -> Tool {
    Tool {
        name: "get_weather".to_owned(),
        description: Some("The weather in a city".to_owned()),
        parameters: weather_schema(),
        strict: Some(false),
    }
}

/// Its schema.
pub fn weather_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    })
}

/// A reply with reasoning, text and a call, that called tools, with every count of usage.
pub fn reply() -> Reply {
    Reply {
        id: "up-1".to_owned(),
        model: Some("m".to_owned()),
        created: Some(1_700_000_000),
        parts: vec![
            Part::Reasoning {
                text: "Paris is cooler.".to_owned(),
                signature: None,
            },
            text("Rome is warmer."),
            call("call_3", r#"{"city":"Milan"}"#),
        ],
        finish: Finish::ToolCalls,
        usage: Some(Usage {
            input: 100,
            output: 20,
            cached_input: Some(40),
            reasoning: Some(5),
        }),
    }
}

/// A text part.
pub fn text(text: &str) -> Part {
    Part::Text {
        text: text.to_owned(),
    }
}

/// A call of `get_weather`.
pub fn call(id: &str, arguments: &str) -> Part {
    Part::Call(Call {
        id: id.to_owned(),
        name: "get_weather".to_owned(),
        arguments: arguments.to_owned(),
    })
}

/// A result in words.
pub fn result(call_id: &str, words: &str) -> Part {
    Part::Result(ToolResult {
        call_id: call_id.to_owned(),
        content: vec![text(words)],
        is_error: false,
    })
}

/// A JSON object's map.
pub fn object(value: Value) -> serde_json::Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

/// `value` with every generated id (a known prefix and 32 hex digits) written as the prefix
/// and `*`, so that a written reply can be compared whole.
pub fn masked(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(map.into_iter().map(|(k, v)| (k, masked(v))).collect()),
        Value::Array(items) => Value::Array(items.into_iter().map(masked).collect()),
        Value::String(text) => {
            for prefix in ["chatcmpl-", "resp_", "msg_", "rs_", "fc_", "call_"] {
                if let Some(rest) = text.strip_prefix(prefix)
                    && rest.len() == 32
                    && rest.bytes().all(|byte| byte.is_ascii_hexdigit())
                {
                    return Value::String(format!("{prefix}*"));
                }
            }
            Value::String(text)
        }
        other => other,
    }
}

/// llama.cpp's Chat stream of a call cut at the token limit, as it sent it.
pub fn llama_chat_stream() -> Vec<Value> {
    let chunk = |delta: Value, finish: Value| {
        json!({
            "choices": [{"finish_reason": finish, "index": 0, "delta": delta}],
            "created": 1_795_795_995,
            "id": "chatcmpl-DW68",
            "model": "m",
            "system_fingerprint": "b0-unknown",
            "object": "chat.completion.chunk",
        })
    };
    let arguments = |piece: &str| {
        chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}),
            Value::Null,
        )
    };
    let mut last = chunk(json!({}), json!("length"));
    last["timings"] = json!({"prompt_n": 1, "predicted_n": 4});
    vec![
        chunk(json!({"role": "assistant", "content": null}), Value::Null),
        chunk(
            json!({"tool_calls": [{
                "index": 0,
                "id": "1Vg6C9Ta3dAGao6WR54B455yecsZs1M0",
                "type": "function",
                "function": {"name": "get_weather", "arguments": "{"},
            }]}),
            Value::Null,
        ),
        arguments("\""),
        arguments("city"),
        arguments("\":"),
        last,
    ]
}

/// llama.cpp's Responses stream of a call, without output indexes or sequence numbers, as it
/// sent it.
pub fn llama_responses_stream() -> Vec<Value> {
    let item = json!({
        "id": "fc_k83",
        "type": "function_call",
        "status": "completed",
        "arguments": "{",
        "call_id": "call_k83",
        "name": "get_weather",
    });
    vec![
        json!({"type": "response.created", "response": {"id": "resp_RH9", "object": "response", "status": "in_progress"}}),
        json!({"type": "response.in_progress", "response": {"id": "resp_RH9", "object": "response", "status": "in_progress"}}),
        json!({"type": "response.output_item.added", "item": {
            "id": "fc_k83", "arguments": "", "call_id": "call_k83", "name": "get_weather",
            "type": "function_call", "status": "in_progress",
        }}),
        json!({"type": "response.function_call_arguments.delta", "delta": "{", "item_id": "fc_k83"}),
        json!({"type": "response.output_item.done", "item": item}),
        json!({"type": "response.completed", "response": {
            "id": "resp_RH9",
            "object": "response",
            "created_at": 1_795_796_003,
            "status": "completed",
            "model": "m",
            "output": [item],
            "usage": {
                "input_tokens": 362,
                "output_tokens": 14,
                "total_tokens": 376,
                "input_tokens_details": {"cached_tokens": 361},
            },
        }}),
    ]
}

/// Anthropic's Messages stream of text and a call, as Anthropic sends it.
pub fn messages_stream() -> Vec<Value> {
    vec![
        json!({"type": "message_start", "message": {
            "id": "msg_01ABC", "type": "message", "role": "assistant", "model": "claude",
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 50, "cache_read_input_tokens": 10, "output_tokens": 1},
        }}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "ping"}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Let me "}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "look."}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "content_block_start", "index": 1, "content_block": {
            "type": "tool_use", "id": "toolu_01X", "name": "get_weather", "input": {},
        }}),
        json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": ""}}),
        json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"city\": "}}),
        json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "\"Paris\"}"}}),
        json!({"type": "content_block_stop", "index": 1}),
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null}, "usage": {"output_tokens": 30}}),
        json!({"type": "message_stop"}),
    ]
}

/// Every delta the events of one stream give.
pub fn read_all(
    mut read: impl FnMut(&Value) -> Result<Vec<Delta>, super::ir::ErrorBody>,
    events: &[Value],
) -> Vec<Delta> {
    events
        .iter()
        .flat_map(|event| read(event).expect("the stream reads"))
        .collect()
}

/// Checks that Responses events are in a valid order, numbered from 0, and rebuilds the
/// output from them as the openai SDK does; gives the final response (which must agree with
/// what the events built).
pub fn check_responses_events(events: &[Value]) -> Value {
    let kinds: Vec<&str> = events
        .iter()
        .map(|event| event["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds[..2],
        ["response.created", "response.in_progress"],
        "{kinds:?}"
    );
    for (number, event) in events.iter().enumerate() {
        assert_eq!(event["sequence_number"], json!(number), "{event}");
    }
    let mut output: Vec<Value> = Vec::new();
    let mut open: Option<usize> = None;
    for event in &events[2..events.len() - 1] {
        let kind = event["type"].as_str().unwrap();
        let at = event["output_index"].as_u64().unwrap() as usize;
        match kind {
            "response.output_item.added" => {
                assert_eq!(open, None, "an item opened before the last closed");
                assert_eq!(at, output.len(), "output indexes are consecutive");
                output.push(event["item"].clone());
                open = Some(at);
                continue;
            }
            "response.output_item.done" => {
                assert_eq!(open, Some(at));
                assert_eq!(event["item"]["id"], output[at]["id"]);
                open = None;
            }
            _ => {
                assert_eq!(open, Some(at), "{kind} is about the open item");
                assert_eq!(event["item_id"], output[at]["id"]);
            }
        }
        let item = &mut output[at];
        match kind {
            "response.content_part.added" => {
                item["content"]
                    .as_array_mut()
                    .unwrap()
                    .push(event["part"].clone());
            }
            "response.output_text.delta" => {
                let text = item["content"][0]["text"].as_str().unwrap().to_owned();
                item["content"][0]["text"] = json!(text + event["delta"].as_str().unwrap());
            }
            "response.reasoning_summary_part.added" => {
                item["summary"]
                    .as_array_mut()
                    .unwrap()
                    .push(event["part"].clone());
            }
            "response.reasoning_summary_text.delta" => {
                let text = item["summary"][0]["text"].as_str().unwrap().to_owned();
                item["summary"][0]["text"] = json!(text + event["delta"].as_str().unwrap());
            }
            "response.function_call_arguments.delta" => {
                let text = item["arguments"].as_str().unwrap().to_owned();
                item["arguments"] = json!(text + event["delta"].as_str().unwrap());
            }
            "response.output_text.done" => {
                assert_eq!(event["text"], item["content"][0]["text"]);
            }
            "response.reasoning_summary_text.done" => {
                assert_eq!(event["text"], item["summary"][0]["text"]);
            }
            "response.function_call_arguments.done" => {
                assert_eq!(event["arguments"], item["arguments"]);
            }
            "response.content_part.done"
            | "response.reasoning_summary_part.done"
            | "response.output_item.done" => {}
            other => panic!("unexpected event {other}"),
        }
        if kind == "response.output_item.done" {
            let mut built = item.clone();
            if let Some(status) = event["item"].get("status") {
                built["status"] = status.clone();
            }
            assert_eq!(built, event["item"], "the item built from the deltas");
            *item = built;
        }
    }
    assert_eq!(open, None, "every item is closed");
    let last = events.last().unwrap();
    assert!(
        matches!(
            last["type"].as_str(),
            Some("response.completed" | "response.incomplete")
        ),
        "{last}"
    );
    assert_eq!(last["response"]["output"], json!(output));
    last["response"].clone()
}

/// Checks that Messages events are in a valid order, and rebuilds the message from them as the
/// anthropic SDK does (a tool's input parsed from its pieces when they make JSON, else kept as
/// their text under `partial_json`).
pub fn check_messages_events(events: &[Value]) -> Value {
    assert_eq!(events[0]["type"], "message_start");
    let mut message = events[0]["message"].clone();
    let mut open: Option<usize> = None;
    let mut json_pieces: Vec<String> = Vec::new();
    let n = events.len();
    assert_eq!(events[n - 2]["type"], "message_delta");
    assert_eq!(events[n - 1]["type"], "message_stop");
    for event in &events[1..n - 2] {
        let at = event["index"].as_u64().unwrap() as usize;
        let content = message["content"].as_array_mut().unwrap();
        match event["type"].as_str().unwrap() {
            "content_block_start" => {
                assert_eq!(open, None, "a block started before the last stopped");
                assert_eq!(at, content.len(), "block indexes are consecutive");
                content.push(event["content_block"].clone());
                json_pieces.push(String::new());
                open = Some(at);
            }
            "content_block_delta" => {
                assert_eq!(open, Some(at), "a delta is for the open block");
                let delta = &event["delta"];
                let block = &mut content[at];
                match delta["type"].as_str().unwrap() {
                    "text_delta" => {
                        let text = block["text"].as_str().unwrap().to_owned();
                        block["text"] = json!(text + delta["text"].as_str().unwrap());
                    }
                    "thinking_delta" => {
                        let text = block["thinking"].as_str().unwrap().to_owned();
                        block["thinking"] = json!(text + delta["thinking"].as_str().unwrap());
                    }
                    "signature_delta" => block["signature"] = delta["signature"].clone(),
                    "input_json_delta" => {
                        assert_eq!(block["type"], "tool_use");
                        json_pieces[at].push_str(delta["partial_json"].as_str().unwrap());
                    }
                    other => panic!("unexpected delta {other}"),
                }
            }
            "content_block_stop" => {
                assert_eq!(open, Some(at));
                open = None;
                let block = &mut content[at];
                if block["type"] == "tool_use" && !json_pieces[at].is_empty() {
                    block["input"] = serde_json::from_str(&json_pieces[at])
                        .unwrap_or_else(|_| json!({"partial_json": json_pieces[at]}));
                }
            }
            other => panic!("unexpected event {other}"),
        }
    }
    assert_eq!(open, None, "every block is stopped");
    let delta = &events[n - 2];
    message["stop_reason"] = delta["delta"]["stop_reason"].clone();
    for (key, value) in delta["usage"].as_object().unwrap() {
        message["usage"][key] = value.clone();
    }
    message
}
