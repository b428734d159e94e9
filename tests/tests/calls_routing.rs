//! The runtime half of an MCP-to-LLM proxy: tools listed from an MCP server, converted for Chat
//! Completions, the model's calls routed back to the server (under their original names), to a
//! `ToolSet`, or to the caller; answers produced in order, for OpenAI's two APIs, Anthropic and
//! Gemini.

use rmcp::ServiceExt;
use serde_json::{Value, json};
use std::sync::OnceLock;
use tooldef::calls::{
    ChatCallAccumulator, Router, anthropic_tool_calls, anthropic_tool_results_message,
    chat_tool_calls, gemini_function_calls, gemini_function_responses_content,
    responses_tool_calls,
};
use tooldef::convert::{ConvertOptions, convert};
use tooldef::mcp::McpServer;

use tooldef::{
    CallContext, ContextError, ReturnValue, Target, Tool, ToolDefinition, ToolSet, tool,
};
use tooldef_examples::showcase;

/// Add two numbers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// `add` under a name with a dot, as many MCP servers name their tools (the `#[tool]` macro
/// refuses such names, so this is a hand-written `Tool`).
struct DottedAdd;

impl Tool for DottedAdd {
    type Args = AddArgs;
    type Output = i64;
    const NAME: &'static str = "math.add";

    fn definition(&self) -> &'static ToolDefinition {
        static DEFINITION: OnceLock<ToolDefinition> = OnceLock::new();
        DEFINITION.get_or_init(|| {
            ToolDefinition::builder("math.add")
                .description("Add two numbers.")
                .input_schema(Add.definition().input_schema().clone())
                .build()
        })
    }

    async fn call(&self, args: AddArgs, context: CallContext) -> Result<i64, ContextError> {
        Add.call(args, context).await
    }

    fn output(output: i64) -> Result<ReturnValue, String> {
        Add::output(output)
    }
}

#[tokio::test]
async fn calls_are_routed_to_the_server_the_toolset_and_the_caller_in_order() {
    // An MCP server with a tool whose name Chat Completions refuses (`math.add`).
    let (server_side, client_side) = tokio::io::duplex(1 << 20);
    let server = McpServer::new(ToolSet::builder().tool(DottedAdd).build().unwrap());
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_side).await {
            let _ = running.waiting().await;
        }
    });
    let client = ().serve(client_side).await.unwrap();
    let listed = client.list_all_tools().await.unwrap();
    let listed = json!({"tools": serde_json::to_value(&listed).unwrap()});
    let chat = convert(&listed, Target::ChatCompletions, &ConvertOptions::default()).unwrap();
    assert_eq!(chat.tools[0].to_json()["function"]["name"], "math_add");
    assert_eq!(chat.names.original("math_add"), Some("math.add"));

    let router = Router::new()
        .caller_tools(["ask_user"])
        .toolset(showcase::toolset())
        .mcp_server(client.peer().clone(), chat);

    let reply = json!({"choices": [{"message": {"role": "assistant", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "math_add", "arguments": "{\"a\": 2, \"b\": 40}"}},
        {"id": "c2", "type": "function", "function": {"name": "ask_user", "arguments": "{\"q\": \"ok?\"}"}},
        {"id": "c3", "type": "function", "function": {"name": "get_server_time", "arguments": "{}"}},
        {"id": "c4", "type": "function", "function": {"name": "nope", "arguments": "{}"}},
        {"id": "c5", "type": "function", "function": {"name": "math_add", "arguments": "{\"a\": \"x\"}"}}
    ]}}]});
    let calls = chat_tool_calls(&reply).unwrap();
    let (messages, for_caller) = router.answer_chat(&calls).await;

    let ids: Vec<&str> = messages
        .iter()
        .map(|m| m["tool_call_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        ["c1", "c3", "c4", "c5"],
        "in the order of the calls, the caller's own left out"
    );
    assert_eq!(
        messages[0],
        json!({"role": "tool", "tool_call_id": "c1", "content": "42"})
    );
    assert_eq!(messages[1]["content"], "2026-11-22T09:30:00Z");
    assert!(
        messages[2]["content"]
            .as_str()
            .unwrap()
            .contains("no tool named `nope`")
    );
    assert!(
        messages[3]["content"].as_str().unwrap().contains("/a"),
        "{}",
        messages[3]
    );
    assert_eq!(for_caller.len(), 1);
    assert_eq!(for_caller[0].name, "ask_user");

    // The same calls as a Responses reply.
    let response = json!({"output": calls.iter().map(|c| json!({
        "type": "function_call", "id": format!("fc_{}", c.id), "call_id": c.id, "name": c.name, "arguments": c.arguments
    })).collect::<Vec<Value>>()});
    let (items, _) = router
        .answer_responses(&responses_tool_calls(&response).unwrap())
        .await;
    assert_eq!(
        items[0],
        json!({"type": "function_call_output", "call_id": "c1", "output": "42"})
    );

    // The same calls as an Anthropic reply, with text between them: one `tool_result` block per
    // answered call, in order, a failure marked `is_error`, and all of them (with the caller's
    // own result) in the one user message Anthropic wants.
    let message = json!({"type": "message", "role": "assistant", "content":
        std::iter::once(json!({"type": "text", "text": "Let me check."}))
            .chain(calls.iter().map(|c| json!({"type": "tool_use", "id": c.id, "name": c.name,
                "input": serde_json::from_str::<Value>(&c.arguments).unwrap()})))
            .collect::<Vec<Value>>()});
    let anthropic_calls = anthropic_tool_calls(&message).unwrap();
    assert_eq!(anthropic_calls.len(), 5);
    let (mut blocks, for_caller) = router.answer_anthropic(&anthropic_calls).await;
    assert_eq!(
        blocks[0],
        json!({"type": "tool_result", "tool_use_id": "c1", "content": [{"type": "text", "text": "42"}]})
    );
    assert_eq!(blocks[2]["is_error"], true, "{}", blocks[2]);
    assert_eq!(blocks[3]["is_error"], true, "{}", blocks[3]);
    assert_eq!(for_caller[0].id, "c2");
    // The caller answers its own call and puts it in its place.
    blocks.insert(
        1,
        json!({"type": "tool_result", "tool_use_id": "c2", "content": "yes"}),
    );
    let turn = anthropic_tool_results_message(blocks);
    assert_eq!(turn["role"], "user");
    let order: Vec<&str> = turn["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["tool_use_id"].as_str().unwrap())
        .collect();
    assert_eq!(order, ["c1", "c2", "c3", "c4", "c5"]);

    // And as a Gemini reply, whose calls carry no ids: the answers go by name and order.
    let response = json!({"candidates": [{"content": {"role": "model", "parts":
        calls.iter().map(|c| json!({"functionCall": {"name": c.name,
            "args": serde_json::from_str::<Value>(&c.arguments).unwrap()}}))
            .collect::<Vec<Value>>()}}]});
    let gemini_calls = gemini_function_calls(&response).unwrap();
    let (parts, for_caller) = router.answer_gemini(&gemini_calls).await;
    assert_eq!(
        parts[0],
        json!({"functionResponse": {"name": "math_add", "response": {"output": "42"}}})
    );
    assert!(
        parts[2]["functionResponse"]["response"]["error"].is_string(),
        "{}",
        parts[2]
    );
    assert_eq!(for_caller[0].name, "ask_user");
    let content = gemini_function_responses_content(parts);
    assert_eq!(content["role"], "user");
    assert_eq!(content["parts"].as_array().unwrap().len(), 4);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_streamed_reply_gives_the_same_calls() {
    let mut stream = ChatCallAccumulator::new();
    let arguments = "{\"city\": \"Lisbon\", \"days\": 2}";
    let (first, rest) = arguments.split_at(9);
    for chunk in [
        json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": first}}]}}]}),
        json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": rest}}]}}]}),
    ] {
        stream.push(&chunk).unwrap();
    }
    let calls = stream.finish().unwrap();
    let (messages, _) = Router::new()
        .toolset(showcase::toolset())
        .answer_chat(&calls)
        .await;
    let forecast: Value = serde_json::from_str(messages[0]["content"].as_str().unwrap()).unwrap();
    assert_eq!(forecast["city"], "Lisbon");
    assert_eq!(forecast["days"].as_array().unwrap().len(), 2);
}
