//! Tests of Responses requests: the conversation read and written, reasoning, results,
//! and the refusals.

use serde_json::{Value, json};

use crate::translate::fixtures::{call, conversation, object, text};
use crate::translate::ir::{Message, Part, Request, ResponseFormat, Role, ToolChoice, ToolResult};
use crate::translate::responses::{read_request, write_request};

/// The conversation of [`fixtures::conversation`], as a Responses client writes it.
fn conversation_json() -> Value {
    json!({
        "model": "m",
        "instructions": "You are terse.",
        "input": [
            {"type": "message", "role": "user", "content": [
                {"type": "input_text", "text": "What is the weather in Paris and Rome? Here is a map."},
                {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo=", "detail": "auto"},
            ]},
            {"type": "message", "role": "assistant", "content": "Let me look."},
            {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": "{\"city\":\"Paris\"}"},
            {"type": "function_call", "call_id": "call_2", "name": "get_weather", "arguments": "{\"city\":\"Rome\"}"},
            {"type": "function_call_output", "call_id": "call_1", "output": "18°C"},
            {"type": "function_call_output", "call_id": "call_2", "output": "24°C"},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Which is warmer?"}]},
        ],
        "tools": [{
            "type": "function",
            "name": "get_weather",
            "description": "The weather in a city",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
            "strict": false,
        }],
        "tool_choice": "auto",
        "max_output_tokens": 512,
        "temperature": 0.5,
        "user": "u-1",
        "store": false,
    })
}

#[test]
fn reads_the_conversation() {
    let read = read_request(&object(conversation_json())).unwrap();
    let expected = Request {
        store: Some(false),
        ..conversation()
    };
    assert_eq!(read, expected);
}

/// The exact request written for the conversation, as the Responses API has it.
#[test]
fn writes_the_conversation() {
    let written = write_request(&conversation()).unwrap();
    assert_eq!(Value::Object(written), conversation_json());
}

#[test]
fn a_request_read_and_written_is_the_same() {
    let request = json!({
        "model": "m",
        "input": [
            {"role": "user", "content": "Describe these."},
            {"type": "message", "role": "user", "content": [
                {"type": "input_image", "image_url": "https://example.com/a.png", "detail": "low"},
                {"type": "input_file", "file_data": "data:application/pdf;base64,JVBERi0=", "filename": "a.pdf"},
            ]},
            {"type": "function_call", "id": "fc_1", "call_id": "call_a", "name": "look", "arguments": "{}", "status": "completed"},
            {"type": "function_call_output", "call_id": "call_a", "output": [
                {"type": "input_text", "text": "a cat"},
                {"type": "input_image", "image_url": "https://example.com/cat.png", "detail": "high"},
            ]},
            {"role": "developer", "content": "Be brief."},
            {"type": "message", "role": "assistant", "id": "msg_1", "status": "completed", "content": [
                {"type": "output_text", "text": "A cat.", "annotations": []},
            ]},
        ],
        "tools": [{"type": "function", "name": "look", "parameters": {"type": "object", "properties": {}}, "strict": true}],
        "tool_choice": {"type": "function", "name": "look"},
        "parallel_tool_calls": false,
        "max_output_tokens": 100,
        "top_p": 0.9,
        "text": {"format": {"type": "json_schema", "name": "things", "description": "What they are", "schema": {"type": "object"}, "strict": true}},
        "reasoning": {"effort": "low", "summary": "auto"},
        "user": "u",
        "metadata": {"tag": "x"},
        "store": true,
        "previous_response_id": "resp_0",
        "stream": true,
        "max_tool_calls": 3,
        "include": [],
        "background": false,
        "truncation": "disabled",
        "service_tier": null,
    });
    let read = read_request(&object(request)).unwrap();
    let written = Value::Object(write_request(&read).unwrap());
    assert_eq!(
        written,
        json!({
            "model": "m",
            "input": [
                // Two user messages in a row are two messages still.
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Describe these."}]},
                {"type": "message", "role": "user", "content": [
                    {"type": "input_image", "image_url": "https://example.com/a.png", "detail": "low"},
                    {"type": "input_file", "file_data": "data:application/pdf;base64,JVBERi0=", "filename": "a.pdf"},
                ]},
                {"type": "function_call", "call_id": "call_a", "name": "look", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "call_a", "output": [
                    {"type": "input_text", "text": "a cat"},
                    {"type": "input_image", "image_url": "https://example.com/cat.png", "detail": "high"},
                ]},
                {"type": "message", "role": "system", "content": "Be brief."},
                {"type": "message", "role": "assistant", "content": "A cat."},
            ],
            "tools": [{"type": "function", "name": "look", "parameters": {"type": "object", "properties": {}}, "strict": true}],
            "tool_choice": {"type": "function", "name": "look"},
            "parallel_tool_calls": false,
            "max_output_tokens": 100,
            "top_p": 0.9,
            "text": {"format": {"type": "json_schema", "name": "things", "description": "What they are", "schema": {"type": "object"}, "strict": true}},
            "reasoning": {"effort": "low"},
            "user": "u",
            "metadata": {"tag": "x"},
            "store": true,
            "previous_response_id": "resp_0",
            "stream": true,
        })
    );
}

/// A reasoning item with words is reasoning; its encrypted copy is OpenAI's only; it is not
/// written back to a Responses upstream, which takes back only its own.
#[test]
fn reasoning_is_read_and_not_written_back() {
    let request = json!({"input": [
        {"role": "user", "content": "hi"},
        {"type": "reasoning", "id": "rs_1", "summary": [
            {"type": "summary_text", "text": "One."}, {"type": "summary_text", "text": "Two."},
        ], "encrypted_content": "gAAAA"},
        {"type": "reasoning", "id": "rs_2", "summary": [], "content": [{"type": "reasoning_text", "text": "Full."}]},
        {"type": "reasoning", "id": "rs_3", "summary": []},
        {"type": "message", "role": "assistant", "content": "Hello."},
    ]});
    let read = read_request(&object(request)).unwrap();
    assert_eq!(
        read.messages[1],
        Message {
            role: Role::Assistant,
            parts: vec![
                Part::Reasoning {
                    text: "One.\n\nTwo.".to_owned(),
                    signature: None
                },
                Part::Reasoning {
                    text: "Full.".to_owned(),
                    signature: None
                },
                text("Hello."),
            ],
        }
    );
    let written = write_request(&read).unwrap();
    assert_eq!(
        written["input"][1],
        json!({"type": "message", "role": "assistant", "content": "Hello."})
    );
    assert_eq!(written["input"].as_array().unwrap().len(), 2);
}

#[test]
fn a_string_input_is_a_user_message_and_tools_left_unsaid_are_not_strict() {
    let read = read_request(&object(json!({"input": "hi", "tools": [
        {"type": "function", "name": "f", "parameters": {"type": "object"}},
    ]})))
    .unwrap();
    assert_eq!(
        read.messages,
        vec![Message {
            role: Role::User,
            parts: vec![text("hi")]
        }]
    );
    assert_eq!(write_request(&read).unwrap()["tools"][0]["strict"], false);
}

/// Each refused thing names its field and says what to do.
#[test]
fn refusals_name_the_field_and_what_to_do() {
    let web_search = "`tools[0]` is `web_search`, a built-in tool of OpenAI's; an upstream \
        that speaks another API than Responses has no such tool: remove it, or point the \
        gateway at an upstream that speaks the Responses API.";
    let cases = [
        (json!({"background": true}), "background", "Remove it"),
        (
            json!({"conversation": "conv_1"}),
            "conversation",
            "Responses API",
        ),
        (
            json!({"prompt": {"id": "pmpt_1"}}),
            "prompt",
            "Responses API",
        ),
        (
            json!({"include": ["reasoning.encrypted_content"]}),
            "include",
            "Remove it",
        ),
        (json!({"truncation": "auto"}), "truncation", "Remove it"),
        (json!({"top_logprobs": 3}), "top_logprobs", "Remove it"),
        (json!({"service_tier": "flex"}), "service_tier", "Remove it"),
        (json!({"text": {"verbosity": "low"}}), "text", "remove it"),
        (json!({"sneaky": 1}), "request", "`sneaky`"),
        (
            json!({"max_output_tokens": -1}),
            "max_output_tokens",
            "`max_output_tokens`",
        ),
        (
            json!({"tools": [{"type": "web_search"}]}),
            "tools",
            web_search,
        ),
        (
            json!({"tools": [{"type": "code_interpreter", "container": {}}]}),
            "tools",
            "`code_interpreter`, a built-in tool",
        ),
        (
            json!({"tools": [{"type": "custom", "name": "x"}]}),
            "tools",
            "`custom`, a built-in tool",
        ),
        (
            json!({"tool_choice": {"type": "allowed_tools", "mode": "auto", "tools": []}}),
            "tool_choice",
            "`allowed_tools`",
        ),
        (
            json!({"tool_choice": {"type": "file_search"}}),
            "tool_choice",
            "point the gateway",
        ),
        (
            json!({"input": [{"type": "item_reference", "id": "msg_1"}]}),
            "input",
            "`item_reference`",
        ),
        (
            json!({"input": [{"type": "web_search_call", "id": "ws_1"}]}),
            "input",
            "`web_search_call`",
        ),
        (
            json!({"input": [{"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA"}]}),
            "input",
            "encrypted",
        ),
        (
            json!({"input": [{"role": "user", "content": [{"type": "input_image", "file_id": "file-1"}]}]}),
            "input",
            "`image_url`",
        ),
        (
            json!({"input": [{"role": "user", "content": [{"type": "input_file", "file_id": "file-1"}]}]}),
            "input",
            "`file_data`",
        ),
        (
            json!({"input": [{"role": "user", "content": [{"type": "input_file", "file_url": "https://x/a.pdf"}]}]}),
            "input",
            "`file_data`",
        ),
        (
            json!({"input": [{"role": "user", "content": [{"type": "input_audio"}]}]}),
            "input",
            "transcript",
        ),
        (
            json!({"input": [{"role": "tool", "content": "x"}]}),
            "input",
            "`tool`",
        ),
        (json!({"input": 5}), "input", "neither"),
    ];
    for (request, param, words) in cases {
        let refusal = read_request(&object(request)).unwrap_err();
        assert_eq!(refusal.param, param, "{refusal:?}");
        assert!(refusal.message.contains(words), "{words}: {refusal:?}");
    }
    let refusal = write_request(&Request {
        stop: vec!["END".to_owned()],
        ..Request::default()
    })
    .unwrap_err();
    assert_eq!(refusal.param, "stop");
}

#[test]
fn results_first_then_words_and_an_empty_output() {
    let request = Request {
        messages: vec![Message {
            role: Role::User,
            parts: vec![
                text("and?"),
                Part::Result(ToolResult {
                    call_id: "a".to_owned(),
                    content: vec![],
                    is_error: true,
                }),
            ],
        }],
        tool_choice: Some(ToolChoice::Required),
        response_format: Some(ResponseFormat::JsonObject),
        ..Request::default()
    };
    let written = write_request(&request).unwrap();
    assert_eq!(
        written["input"],
        json!([
            {"type": "function_call_output", "call_id": "a", "output": ""},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "and?"}]},
        ])
    );
    assert_eq!(written["tool_choice"], "required");
    assert_eq!(written["text"], json!({"format": {"type": "json_object"}}));
    let _ = call;
}
