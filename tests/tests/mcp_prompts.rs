//! The `mcp_server_prompts` example over stdio, driven by rmcp's client: rmcp's prompts, resource
//! handlers and tooldef's tools served side by side by one `ServerHandler`.

use rmcp::model::{
    CallToolRequestParams, ErrorCode, GetPromptRequestParams, ReadResourceRequestParams,
    ResourceContents,
};
use rmcp::service::{RunningService, ServiceError};
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};
use tokio::process::Command;

async fn start() -> RunningService<RoleClient, ()> {
    let command = Command::new(tooldef_tests::example("mcp_server_prompts"));
    let transport = TokioChildProcess::new(command).expect("the server starts");
    ().serve(transport).await.expect("the client initialises")
}

fn args(value: Value) -> serde_json::Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => unreachable!("arguments are objects"),
    }
}

/// That `error` is the MCP error `code`.
fn assert_code(error: &ServiceError, code: ErrorCode) {
    let got = match error {
        ServiceError::McpError(data) => Some(data.code),
        _ => None,
    };
    assert_eq!(got, Some(code), "{error:?}");
}

#[tokio::test]
async fn prompts_resources_and_tools_are_served_together() {
    let client = start().await;
    let capabilities = &client.peer_info().expect("initialised").capabilities;
    assert!(capabilities.prompts.is_some(), "{capabilities:?}");
    assert!(capabilities.resources.is_some(), "{capabilities:?}");
    assert!(capabilities.tools.is_some(), "{capabilities:?}");
    assert!(capabilities.logging.is_some(), "{capabilities:?}");

    // Prompts: rmcp's router lists them with their arguments, and fills them in.
    let prompts = client.list_all_prompts().await.unwrap();
    let mut names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["cancellation_help", "plan_trip"]);
    let plan = prompts.iter().find(|p| p.name == "plan_trip").unwrap();
    let arguments: Vec<(&str, Option<bool>)> = plan
        .arguments
        .iter()
        .flatten()
        .map(|a| (a.name.as_str(), a.required))
        .collect();
    assert_eq!(arguments, [("city", Some(true)), ("days", Some(false))]);
    let prompt = client
        .get_prompt(
            GetPromptRequestParams::new("plan_trip")
                .with_arguments(args(json!({"city": "Porto", "days": "5"}))),
        )
        .await
        .unwrap();
    let text = &prompt.messages[0]
        .content
        .as_text()
        .expect("a text message")
        .text;
    assert!(text.contains("5-day trip to Porto"), "{text}");
    let error = client
        .get_prompt(
            GetPromptRequestParams::new("plan_trip")
                .with_arguments(args(json!({"city": "Porto", "days": "a week"}))),
        )
        .await
        .unwrap_err();
    assert_code(&error, ErrorCode::INVALID_PARAMS);
    let error = client
        .get_prompt(GetPromptRequestParams::new("plan_a_heist"))
        .await
        .unwrap_err();
    assert_code(&error, ErrorCode::INVALID_PARAMS);

    // Resources: listed, read, and an unknown URI refused.
    let resources = client.list_all_resources().await.unwrap();
    let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(
        uris,
        ["guide://lisbon", "guide://kyoto", "policy://cancellation"]
    );
    let read = client
        .read_resource(ReadResourceRequestParams::new("guide://kyoto"))
        .await
        .unwrap();
    let ResourceContents::TextResourceContents {
        text, mime_type, ..
    } = &read.contents[0]
    else {
        panic!("{read:?}");
    };
    assert!(text.starts_with("# Kyoto"), "{text}");
    assert_eq!(mime_type.as_deref(), Some("text/markdown"));
    let error = client
        .read_resource(ReadResourceRequestParams::new("guide://atlantis"))
        .await
        .unwrap_err();
    assert_code(&error, ErrorCode::RESOURCE_NOT_FOUND);

    // Tools: tooldef's, listed and called through the same connection.
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert!(
        names.contains(&"get_weather") && names.contains(&"process_batch"),
        "{names:?}"
    );
    let result = client
        .call_tool(
            CallToolRequestParams::new("get_weather")
                .with_arguments(args(json!({"city": "Porto", "days": 2}))),
        )
        .await
        .unwrap();
    assert_ne!(result.is_error, Some(true), "{result:?}");
    let structured = result
        .structured_content
        .expect("get_weather is structured");
    assert_eq!(structured["city"], "Porto");
    let error = client
        .call_tool(CallToolRequestParams::new("get_wether"))
        .await
        .unwrap_err();
    assert_code(&error, ErrorCode::INVALID_PARAMS);
    client.cancel().await.unwrap();
}
