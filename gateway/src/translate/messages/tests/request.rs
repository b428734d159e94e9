//! Tests of Messages requests: the conversation read and written, what Messages requires,
//! and the refusals.

use serde_json::{Value, json};

use crate::translate::fixtures::{self, call, conversation, object, text};
use crate::translate::ir::{Message, Part, Request, ResponseFormat, Role, ToolChoice, ToolResult};
use crate::translate::messages::{read_request, write_request};

/// The conversation of [`fixtures::conversation`], as a Messages client writes it.
fn conversation_json() -> Value {
    json!({
        "model": "m",
        "max_tokens": 512,
        "system": "You are terse.",
        "messages": [
            {"role": "user", "content": [
                {"type": "text", "text": "What is the weather in Paris and Rome? Here is a map."},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
            ]},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Let me look."},
                {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Paris"}},
                {"type": "tool_use", "id": "call_2", "name": "get_weather", "input": {"city": "Rome"}},
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "call_1", "content": "18°C"},
                {"type": "tool_result", "tool_use_id": "call_2", "content": "24°C"},
                {"type": "text", "text": "Which is warmer?"},
            ]},
        ],
        "tools": [{
            "name": "get_weather",
            "description": "The weather in a city",
            "input_schema": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
            "strict": false,
        }],
        "tool_choice": {"type": "auto"},
        "temperature": 0.5,
        "metadata": {"user_id": "u-1"},
    })
}

#[test]
fn reads_the_conversation() {
    let read = read_request(&object(conversation_json())).unwrap();
    assert_eq!(read, conversation());
}

/// The exact request written for the conversation, as the Messages API has it.
#[test]
fn writes_the_conversation() {
    let written = write_request(&conversation()).unwrap();
    assert_eq!(Value::Object(written), conversation_json());
}

#[test]
fn a_request_read_and_written_is_the_same() {
    let request = json!({
        "model": "claude",
        "max_tokens": 20000,
        "system": "Be careful.",
        "messages": [
            {"role": "user", "content": [
                {"type": "text", "text": "Read this.", "cache_control": {"type": "ephemeral"}},
                {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0="}, "title": "a.pdf"},
                {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}},
            ]},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "A PDF.", "signature": "EqoB"},
                {"type": "tool_use", "id": "toolu_1", "name": "look", "input": {"page": 1, "zoom": [1, 2]}},
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "is_error": true, "content": [
                    {"type": "text", "text": "blurry"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "/9j/"}},
                ]},
            ]},
        ],
        "tools": [{"type": "custom", "name": "look", "input_schema": {"type": "object", "properties": {}}, "cache_control": {"type": "ephemeral"}}],
        "tool_choice": {"type": "tool", "name": "look", "disable_parallel_tool_use": true},
        "top_p": 0.9,
        "stop_sequences": ["END"],
        "stream": true,
        "thinking": {"type": "enabled", "budget_tokens": 10000},
        "output_format": {"type": "json_schema", "schema": {"type": "object"}},
        "service_tier": "auto",
    });
    let read = read_request(&object(request)).unwrap();
    assert_eq!(read.parallel_tool_calls, Some(false));
    assert_eq!(read.thinking_budget, Some(10000));
    let written = Value::Object(write_request(&read).unwrap());
    assert_eq!(
        written,
        json!({
            "model": "claude",
            "max_tokens": 20000,
            "system": "Be careful.",
            "messages": [
                {"role": "user", "content": [
                    {"type": "text", "text": "Read this."},
                    {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0="}, "title": "a.pdf"},
                    {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}},
                ]},
                {"role": "assistant", "content": [
                    {"type": "thinking", "thinking": "A PDF.", "signature": "EqoB"},
                    {"type": "tool_use", "id": "toolu_1", "name": "look", "input": {"page": 1, "zoom": [1, 2]}},
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": [
                        {"type": "text", "text": "blurry"},
                        {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "/9j/"}},
                    ], "is_error": true},
                ]},
            ],
            "tools": [{"name": "look", "input_schema": {"type": "object", "properties": {}}}],
            "tool_choice": {"type": "tool", "name": "look", "disable_parallel_tool_use": true},
            "top_p": 0.9,
            "stop_sequences": ["END"],
            "stream": true,
            "thinking": {"type": "enabled", "budget_tokens": 10000},
            "output_format": {"type": "json_schema", "schema": {"type": "object"}},
        })
    );
}

/// Messages wants one system prompt, alternating roles, results first, no unsigned
/// thinking, and an object for every call's input.
#[test]
fn writes_what_messages_requires() {
    let request = Request {
        messages: vec![
            Message {
                role: Role::System,
                parts: vec![text("One.")],
            },
            Message {
                role: Role::User,
                parts: vec![text("hi")],
            },
            Message {
                role: Role::System,
                parts: vec![text("Two.")],
            },
            Message {
                role: Role::User,
                parts: vec![text("there")],
            },
            Message {
                role: Role::Assistant,
                parts: vec![
                    Part::Reasoning {
                        text: "from another model".to_owned(),
                        signature: None,
                    },
                    text(""),
                    call("c1", r#"{"city":"#),
                ],
            },
            Message {
                role: Role::User,
                parts: vec![text("and?")],
            },
            Message {
                role: Role::User,
                parts: vec![Part::Result(ToolResult {
                    call_id: "c1".to_owned(),
                    content: vec![],
                    is_error: false,
                })],
            },
            Message {
                role: Role::Assistant,
                parts: vec![Part::Reasoning {
                    text: "only this".to_owned(),
                    signature: None,
                }],
            },
        ],
        ..Request::default()
    };
    let written = write_request(&request).unwrap();
    assert_eq!(written["max_tokens"], 4096);
    assert_eq!(written["system"], "One.\n\nTwo.");
    assert_eq!(
        written["messages"],
        json!([
            {"role": "user", "content": [{"type": "text", "text": "hi"}, {"type": "text", "text": "there"}]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "get_weather", "input": {}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "c1"},
                {"type": "text", "text": "and?"},
            ]},
        ])
    );
}

#[test]
fn an_effort_is_a_budget_within_the_limit() {
    let effort = |effort: &str, max_tokens: Option<u64>| {
        let request = Request {
            reasoning_effort: Some(effort.to_owned()),
            max_tokens,
            ..Request::default()
        };
        let written = write_request(&request).unwrap();
        (
            written["max_tokens"].clone(),
            written.get("thinking").cloned(),
        )
    };
    assert_eq!(
        effort("high", None),
        (
            json!(4096 + 16384),
            Some(json!({"type": "enabled", "budget_tokens": 16384}))
        )
    );
    assert_eq!(
        effort("medium", Some(3000)),
        (
            json!(3000),
            Some(json!({"type": "enabled", "budget_tokens": 2999}))
        )
    );
    assert_eq!(effort("low", Some(800)), (json!(800), None));
    assert_eq!(effort("minimal", None), (json!(4096), None));
    let refusal = write_request(&Request {
        reasoning_effort: Some("max".to_owned()),
        ..Request::default()
    })
    .unwrap_err();
    assert_eq!(refusal.param, "reasoning_effort");
}

#[test]
fn parallel_calls_turned_off_without_a_choice() {
    let request = Request {
        tools: vec![fixtures::weather_tool()],
        parallel_tool_calls: Some(false),
        ..Request::default()
    };
    assert_eq!(
        write_request(&request).unwrap()["tool_choice"],
        json!({"type": "auto", "disable_parallel_tool_use": true})
    );
    // No tools, no choice: Messages refuses a choice without tools.
    let request = Request {
        tool_choice: Some(ToolChoice::Required),
        ..Request::default()
    };
    assert!(
        write_request(&request)
            .unwrap()
            .get("tool_choice")
            .is_none()
    );
}

/// Each refused thing names its field and says what to do.
#[test]
fn refusals_name_the_field_and_what_to_do() {
    let cases = [
        (json!({"top_k": 5}), "top_k", "Remove it"),
        (json!({"container": "c"}), "container", "Remove it"),
        (
            json!({"context_management": {}}),
            "context_management",
            "Remove it",
        ),
        (
            json!({"mcp_servers": [{"url": "x"}]}),
            "mcp_servers",
            "Remove it",
        ),
        (
            json!({"service_tier": "standard_only"}),
            "service_tier",
            "Remove it",
        ),
        (json!({"sneaky": 1}), "request", "`sneaky`"),
        (json!({"max_tokens": "many"}), "max_tokens", "`max_tokens`"),
        (
            json!({"metadata": {"user_id": "u", "team": "t"}}),
            "metadata",
            "`team`",
        ),
        (
            json!({"thinking": {"type": "adaptive"}}),
            "thinking",
            "`enabled`",
        ),
        (
            json!({"output_format": {"type": "json"}}),
            "output_format",
            "`json_schema`",
        ),
        (
            json!({"tool_choice": {"type": "tool"}}),
            "tool_choice",
            "`name`",
        ),
        (
            json!({"tools": [{"type": "web_search_20250305", "name": "web_search"}]}),
            "tools",
            "server tool of Anthropic's",
        ),
        (
            json!({"tools": [{"type": "bash_20250124", "name": "bash"}]}),
            "tools",
            "point the gateway",
        ),
        (
            json!({"tools": [{"type": "mcp_toolset", "mcp_server_name": "x"}]}),
            "tools",
            "remove it",
        ),
        (json!({"system": [{"type": "image"}]}), "system", "text"),
    ];
    for (request, param, words) in cases {
        let refusal = read_request(&object(request)).unwrap_err();
        assert_eq!(refusal.param, param, "{refusal:?}");
        assert!(refusal.message.contains(words), "{words}: {refusal:?}");
    }
    let blocks = [
        (
            json!({"role": "assistant", "content": [{"type": "redacted_thinking", "data": "x"}]}),
            "encrypted",
        ),
        (
            json!({"role": "assistant", "content": [{"type": "server_tool_use", "id": "s", "name": "web_search", "input": {}}]}),
            "`server_tool_use`",
        ),
        (
            json!({"role": "user", "content": [{"type": "web_search_tool_result", "tool_use_id": "s", "content": []}]}),
            "`web_search_tool_result`",
        ),
        (
            json!({"role": "assistant", "content": [{"type": "mcp_tool_use", "id": "m", "name": "x", "server_name": "s", "input": {}}]}),
            "`mcp_tool_use`",
        ),
        (
            json!({"role": "user", "content": [{"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "x"}}]}),
            "PDF",
        ),
        (
            json!({"role": "user", "content": [{"type": "image", "source": {"type": "file", "file_id": "f"}}]}),
            "`file`",
        ),
        (
            json!({"role": "user", "content": [{"type": "text", "text": "x", "citations": [{"type": "char_location"}]}]}),
            "citations",
        ),
        (
            json!({"role": "user", "content": [{"type": "thinking", "thinking": "x", "signature": "s"}]}),
            "Reasoning cannot be in a user message",
        ),
        (
            json!({"role": "assistant", "content": [{"type": "tool_result", "tool_use_id": "x"}]}),
            "A tool result cannot be in an assistant message",
        ),
        (json!({"role": "system", "content": "x"}), "`system`"),
        (
            json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x", "content": [{"type": "search_result"}]}]}),
            "`search_result`",
        ),
    ];
    for (message, words) in blocks {
        let refusal = read_request(&object(json!({"messages": [message]}))).unwrap_err();
        assert_eq!(refusal.param, "messages", "{refusal:?}");
        assert!(refusal.message.contains(words), "{words}: {refusal:?}");
    }
    let refusal = write_request(&Request {
        response_format: Some(ResponseFormat::JsonObject),
        ..Request::default()
    })
    .unwrap_err();
    assert_eq!(refusal.param, "response_format");
    assert!(refusal.message.contains("json_schema"));
    let refusal = write_request(&Request {
        messages: vec![Message {
            role: Role::User,
            parts: vec![Part::File {
                data: "data:text/csv;base64,YQ==".to_owned(),
                filename: None,
            }],
        }],
        ..Request::default()
    })
    .unwrap_err();
    assert!(refusal.message.contains("PDF"), "{refusal:?}");
    let refusal = write_request(&Request {
        previous_response_id: Some("resp_1".to_owned()),
        ..Request::default()
    })
    .unwrap_err();
    assert_eq!(refusal.param, "previous_response_id");
}
