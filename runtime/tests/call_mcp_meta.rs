//! `tooldef::calls::call_mcp_with_meta` against a real MCP server in this process: the `_meta`
//! given reaches the server's `tools/call` request, and `call_mcp` sends none.
#![cfg(feature = "mcp")]

use rmcp::ServiceExt;
use serde_json::{Map, Value, json};
use tooldef::calls::{Answer, call_mcp, call_mcp_with_meta};
use tooldef::convert::{ConvertOptions, convert};
use tooldef::mcp::{McpRequestMeta, McpServer};
use tooldef::{State, Target, ToolSet, tool};

/// Says the `_meta` of the request that called it.
#[tool]
fn request_meta(State(meta): State<McpRequestMeta>) -> String {
    Value::Object(meta.0).to_string()
}

async fn call(meta: Option<Map<String, Value>>) -> Value {
    let (server_side, client_side) = tokio::io::duplex(1 << 16);
    let tools = ToolSet::builder().tool(RequestMeta).build().unwrap();
    tokio::spawn(async move {
        if let Ok(running) = McpServer::new(tools).serve(server_side).await {
            let _ = running.waiting().await;
        }
    });
    let client = ().serve(client_side).await.unwrap();
    let listed = serde_json::to_value(client.list_all_tools().await.unwrap()).unwrap();
    let conversion = convert(&listed, Target::ChatCompletions, &ConvertOptions::default()).unwrap();
    let converted = &conversion.tools[0];
    let answer = match meta {
        Some(meta) => call_mcp_with_meta(client.peer(), converted, "{}", meta).await,
        None => call_mcp(client.peer(), converted, "{}").await,
    };
    let Answer::Answered {
        output, is_error, ..
    } = answer
    else {
        panic!("the call was handed back");
    };
    assert!(!is_error, "{}", output.to_text());
    serde_json::from_str(&output.to_text()).unwrap()
}

#[tokio::test]
async fn the_meta_given_reaches_the_server_and_none_is_sent_otherwise() {
    let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let meta = json!({"traceparent": traceparent, "tracestate": "k=v"});
    let seen = call(Some(meta.as_object().unwrap().clone())).await;
    assert_eq!(seen["traceparent"], traceparent, "{seen}");
    assert_eq!(seen["tracestate"], "k=v", "{seen}");
    let seen = call(None).await;
    assert!(seen.get("traceparent").is_none(), "{seen}");
}
