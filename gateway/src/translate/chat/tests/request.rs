//! Tests of Chat requests: the conversation read and written, the fields only Chat has,
//! and the refusals.

use serde_json::{Value, json};

use crate::translate::chat::{read_request, write_request};
use crate::translate::fixtures::{conversation, object, text};
use crate::translate::ir::{Part, Request};

/// The conversation of [`fixtures::conversation`], as a Chat client writes it.
fn conversation_json() -> Value {
    json!({
        "model": "m",
        "messages": [
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": [
                {"type": "text", "text": "What is the weather in Paris and Rome? Here is a map."},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
            ]},
            {"role": "assistant", "content": "Let me look.", "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}},
                {"id": "call_2", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Rome\"}"}},
            ]},
            {"role": "tool", "tool_call_id": "call_1", "content": "18°C"},
            {"role": "tool", "tool_call_id": "call_2", "content": "24°C"},
            {"role": "user", "content": "Which is warmer?"},
        ],
        "tools": [{"type": "function", "function": {
            "name": "get_weather",
            "description": "The weather in a city",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
            "strict": false,
        }}],
        "tool_choice": "auto",
        "max_tokens": 512,
        "temperature": 0.5,
        "user": "u-1",
    })
}

#[test]
fn reads_the_conversation() {
    let read = read_request(&object(conversation_json())).unwrap();
    assert_eq!(read, conversation());
}

/// The exact request written for the conversation, as the Chat Completions API has it.
#[test]
fn writes_the_conversation() {
    let written = write_request(&conversation()).unwrap();
    assert_eq!(Value::Object(written), conversation_json());
}

#[test]
fn a_request_read_and_written_is_the_same() {
    let request = json!({
        "model": "m",
        "messages": [
            {"role": "developer", "content": "Answer in JSON."},
            {"role": "user", "content": [
                {"type": "text", "text": "Describe these."},
                {"type": "image_url", "image_url": {"url": "https://example.com/a.png", "detail": "low"}},
                {"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBERi0=", "filename": "a.pdf"}},
            ]},
            {"role": "assistant", "content": null, "reasoning_content": "Two things.", "tool_calls": [
                {"id": "1Vg6C9Ta", "type": "function", "function": {"name": "look", "arguments": "{}"}},
            ]},
            {"role": "tool", "tool_call_id": "1Vg6C9Ta", "content": [
                {"type": "text", "text": "a cat"}, {"type": "text", "text": "a dog"},
            ]},
        ],
        "tools": [{"type": "function", "function": {"name": "look", "parameters": {"type": "object", "properties": {}}}}],
        "tool_choice": {"type": "function", "function": {"name": "look"}},
        "parallel_tool_calls": false,
        "max_tokens": 100,
        "top_p": 0.9,
        "stop": ["END", "STOP"],
        "stream": true,
        "stream_options": {"include_usage": true},
        "response_format": {"type": "json_schema", "json_schema": {
            "name": "things", "description": "What they are", "schema": {"type": "object"}, "strict": true,
        }},
        "reasoning_effort": "low",
        "user": "u",
        "metadata": {"tag": "x"},
        "seed": 7,
    });
    let mut expected = request.clone();
    // The system prompt is written as `system`, a developer's as any other.
    expected["messages"][0]["role"] = json!("system");
    let read = read_request(&object(request)).unwrap();
    assert_eq!(Value::Object(write_request(&read).unwrap()), expected);
}

#[test]
fn tool_messages_and_the_next_user_message_are_one_message() {
    let request = json!({"messages": [
        {"role": "tool", "tool_call_id": "a", "content": "1"},
        {"role": "tool", "tool_call_id": "b", "content": "2"},
        {"role": "user", "content": "and?"},
        {"role": "user", "content": "well?"},
    ]});
    let read = read_request(&object(request)).unwrap();
    assert_eq!(read.messages.len(), 2);
    assert_eq!(read.messages[0].parts.len(), 3);
    assert_eq!(read.messages[1].parts, vec![text("well?")]);
}

#[test]
fn max_completion_tokens_wins_and_max_tokens_is_written() {
    let request = json!({
        "messages": [{"role": "user", "content": "hi"}],
        "max_completion_tokens": 9,
        "max_tokens": 3,
    });
    let read = read_request(&object(request)).unwrap();
    assert_eq!(read.max_tokens, Some(9));
    assert_eq!(write_request(&read).unwrap()["max_tokens"], 9);
}

#[test]
fn a_thinking_budget_is_an_effort() {
    let request = Request {
        thinking_budget: Some(10_000),
        ..Request::default()
    };
    assert_eq!(
        write_request(&request).unwrap()["reasoning_effort"],
        "medium"
    );
}

#[test]
fn defaults_of_fields_only_chat_has_are_taken() {
    let request = json!({
        "messages": [{"role": "user", "content": "hi"}],
        "n": 1, "logprobs": false, "frequency_penalty": 0, "presence_penalty": 0.0,
        "logit_bias": {}, "service_tier": "auto", "store": false, "modalities": ["text"],
        "prompt_cache_key": "k", "temperature": null, "stop": [],
    });
    assert!(read_request(&object(request)).is_ok());
}

/// Each refused thing names its field and says what to do.
#[test]
fn refusals_name_the_field_and_what_to_do() {
    let cases = [
        (json!({"n": 2}), "n", "only the Chat Completions API"),
        (json!({"logprobs": true}), "logprobs", "Remove it"),
        (
            json!({"frequency_penalty": 0.5}),
            "frequency_penalty",
            "Remove it",
        ),
        (
            json!({"functions": [{"name": "f"}]}),
            "functions",
            "`tools`",
        ),
        (json!({"sneaky": 1}), "request", "`sneaky`"),
        (
            json!({"temperature": "hot"}),
            "temperature",
            "`temperature`",
        ),
        (
            json!({"tools": [{"type": "custom", "custom": {"name": "x"}}]}),
            "tools",
            "`custom` tool",
        ),
        (
            json!({"tool_choice": {"type": "allowed_tools"}}),
            "tool_choice",
            "choose",
        ),
        (
            json!({"response_format": {"type": "grammar"}}),
            "response_format",
            "use `text`",
        ),
    ];
    for (fields, param, words) in cases {
        let mut request = object(fields);
        request.insert(
            "messages".into(),
            json!([{"role": "user", "content": "hi"}]),
        );
        let refusal = read_request(&request).unwrap_err();
        assert_eq!(refusal.param, param, "{refusal:?}");
        assert!(refusal.message.contains(words), "{refusal:?}");
    }
    let messages = [
        (
            json!({"role": "user", "content": [{"type": "file", "file": {"file_id": "file-1"}}]}),
            "file_data",
        ),
        (
            json!({"role": "user", "content": [{"type": "input_audio", "input_audio": {}}]}),
            "transcript",
        ),
        (
            json!({"role": "user", "content": "hi", "name": "ann"}),
            "`messages[0].name`",
        ),
        (
            json!({"role": "user", "content": "hi", "reasoning_content": "x"}),
            "assistant",
        ),
        (json!({"role": "tool", "content": "1"}), "tool_call_id"),
        (json!({"role": "narrator", "content": "hi"}), "`narrator`"),
        (
            json!({"role": "user", "content": 5}),
            "`messages[0].content`",
        ),
        (
            json!({"role": "user", "content": [{"type": "text", "txt": "hi"}]}),
            "`messages[0].content[0].txt`",
        ),
        (
            json!({"role": "assistant", "tool_calls": [{"id": "a", "type": "custom", "function": {"name": "f"}}]}),
            "`custom` call",
        ),
    ];
    for (message, words) in messages {
        let request = object(json!({"messages": [message]}));
        let refusal = read_request(&request).unwrap_err();
        assert_eq!(refusal.param, "messages", "{refusal:?}");
        assert!(refusal.message.contains(words), "{words}: {refusal:?}");
    }
    let refusal = read_request(&object(json!({"model": "m"}))).unwrap_err();
    assert_eq!(refusal.param, "messages");
    let refusal = write_request(&Request {
        previous_response_id: Some("resp_1".to_owned()),
        ..Request::default()
    })
    .unwrap_err();
    assert_eq!(refusal.param, "previous_response_id");
}

/// A result's image, which a `tool` message cannot hold, is given right after it.
#[test]
fn a_results_image_follows_it_in_a_user_message() {
    let request = Request {
        messages: vec![crate::translate::ir::Message {
            role: crate::translate::ir::Role::User,
            parts: vec![Part::Result(crate::translate::ir::ToolResult {
                call_id: "a".to_owned(),
                content: vec![
                    text("a screenshot"),
                    Part::Image {
                        url: "https://example.com/s.png".to_owned(),
                        detail: None,
                    },
                ],
                is_error: true,
            })],
        }],
        ..Request::default()
    };
    let written = write_request(&request).unwrap();
    assert_eq!(
        written["messages"],
        json!([
            {"role": "tool", "tool_call_id": "a", "content": "a screenshot"},
            {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://example.com/s.png"}}]},
        ])
    );
}
