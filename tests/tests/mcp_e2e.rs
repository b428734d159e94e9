//! The `mcp_server` example, started as a child process and driven by rmcp's own client; and an
//! in-process server for pagination and `list_changed`.

use std::time::Duration;

use rmcp::model::{CallToolRequestParams, ErrorCode, PaginatedRequestParams};
use rmcp::service::{RunningService, ServiceError};
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};
use tokio::process::Command;
use tooldef::Target;
use tooldef::mcp::McpServer;
use tooldef_examples::showcase;

async fn start() -> RunningService<RoleClient, ()> {
    let mut command = Command::new(tooldef_tests::mcp_server_example());
    command.arg("--test-tools");
    let transport = TokioChildProcess::new(command).expect("the server starts");
    ().serve(transport).await.expect("the client initialises")
}

fn args(value: Value) -> serde_json::Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => unreachable!("arguments are objects"),
    }
}

/// Valid arguments for every showcase tool.
fn valid_calls() -> Vec<(&'static str, Value)> {
    vec![
        ("get_server_time", json!({})),
        ("get_weather", json!({"city": "Lisbon", "days": 2})),
        (
            "convert_currency",
            json!({"amount": 10, "from": "EUR", "to": "USD", "round_to": 2}),
        ),
        (
            "search_flights",
            json!({"origin": "LIS", "destination": "JFK", "departureDate": "2026-12-01"}),
        ),
        (
            "book_hotel",
            json!({"hotel_id": "h1", "guest": {"name": "Ada", "email": "ada@example.com"}, "check_in": "2026-12-01", "nights": 2}),
        ),
        (
            "plan_itinerary",
            json!({"stops": [{"city": "Porto", "nights": 2}]}),
        ),
        (
            "set_reminder",
            json!({"text": "Pack", "schedule": {"kind": "daily", "hour": 8, "minute": 0}}),
        ),
        (
            "send_agent_message",
            json!({"to": "agent@example.com", "subject": "Hi", "body": "Hello"}),
        ),
        ("cancel_booking", json!({"reference": "BK-h1-2"})),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_example_server_lists_and_calls_every_tool_and_survives_bad_calls() {
    let client = start().await;

    // tools/list: what the client receives is the MCP rendering, in order.
    let listed = client.list_all_tools().await.expect("tools/list");
    let listed: Vec<Value> = listed
        .iter()
        .map(|t| serde_json::to_value(t).unwrap())
        .collect();
    let expected = showcase::toolset().list(Target::Mcp).unwrap();
    assert_eq!(
        listed.len(),
        expected.len() + 2,
        "the showcase plus crash and sleep"
    );
    for (got, want) in listed.iter().zip(expected.iter()) {
        assert_eq!(got, want);
    }

    // Every tool, with valid arguments.
    for (name, arguments) in valid_calls() {
        let result = client
            .call_tool(CallToolRequestParams::new(name).with_arguments(args(arguments)))
            .await
            .unwrap_or_else(|err| panic!("{name}: {err}"));
        assert_ne!(result.is_error, Some(true), "{name}: {result:?}");
        let definition = showcase::toolset().definition(name).unwrap();
        assert_eq!(
            result.structured_content.is_some(),
            definition.output_schema().is_some(),
            "{name}"
        );
    }

    // Invalid arguments: a result with isError and a message for the model.
    let result = client
        .call_tool(
            CallToolRequestParams::new("get_weather")
                .with_arguments(args(json!({"city": "Lisbon", "days": 30}))),
        )
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    let text = serde_json::to_string(&result.content).unwrap();
    assert!(
        text.contains("/days") && text.contains("at most 14"),
        "{text}"
    );

    // An unknown tool: JSON-RPC error -32602.
    let error = client
        .call_tool(CallToolRequestParams::new("get_wether").with_arguments(args(json!({}))))
        .await
        .unwrap_err();
    match error {
        ServiceError::McpError(data) => {
            assert_eq!(data.code, ErrorCode::INVALID_PARAMS);
            assert!(data.message.contains("get_weather"), "{}", data.message);
        }
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }

    // A panicking tool: an isError result, and the server goes on.
    let result = client
        .call_tool(
            CallToolRequestParams::new("crash").with_arguments(args(json!({"message": "boom"}))),
        )
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    assert!(
        !serde_json::to_string(&result.content)
            .unwrap()
            .contains("boom")
    );

    // A slow tool past its limit: timed out, and the server goes on.
    let result = client
        .call_tool(
            CallToolRequestParams::new("sleep").with_arguments(args(json!({"millis": 5000}))),
        )
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    assert!(
        serde_json::to_string(&result.content)
            .unwrap()
            .contains("did not finish")
    );

    // 100 concurrent calls, each checked against its own arguments.
    let peer = client.peer().clone();
    let calls = (0..100u32).map(|i| {
        let peer = peer.clone();
        tokio::spawn(async move {
            let days = i % 14 + 1;
            let result = peer
                .call_tool(
                    CallToolRequestParams::new("get_weather")
                        .with_arguments(args(json!({"city": format!("City {i}"), "days": days}))),
                )
                .await
                .unwrap();
            let structured = result.structured_content.unwrap();
            assert_eq!(structured["city"], format!("City {i}"));
            assert_eq!(structured["days"].as_array().unwrap().len(), days as usize);
        })
    });
    for call in calls {
        call.await.unwrap();
    }

    // Still serving after all of it.
    let result = client
        .call_tool(CallToolRequestParams::new("get_server_time").with_arguments(args(json!({}))))
        .await
        .unwrap();
    assert_ne!(result.is_error, Some(true));
    client.cancel().await.unwrap();
}

/// A server and client connected in process, through a pipe.
async fn in_process(server: McpServer) -> RunningService<RoleClient, ()> {
    let (server_side, client_side) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_side).await {
            let _ = running.waiting().await;
        }
    });
    ().serve(client_side).await.expect("the client initialises")
}

#[tokio::test]
async fn tools_list_pages_with_opaque_cursors() {
    let client = in_process(McpServer::new(showcase::toolset()).with_page_size(4)).await;
    let mut names = Vec::new();
    let mut cursor = None;
    let mut pages = 0;
    loop {
        let page = client
            .list_tools(Some(
                PaginatedRequestParams::default().with_cursor(cursor.clone()),
            ))
            .await
            .unwrap();
        pages += 1;
        assert!(page.tools.len() <= 4);
        names.extend(page.tools.iter().map(|t| t.name.to_string()));
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert_eq!(pages, 3, "9 tools, 4 a page");
    let expected: Vec<String> = showcase::definitions()
        .iter()
        .map(|d| d.name().to_owned())
        .collect();
    assert_eq!(names, expected);

    // A cursor that was never given out is refused with -32602.
    let error = client
        .list_tools(Some(
            PaginatedRequestParams::default().with_cursor(Some("bogus".into())),
        ))
        .await
        .unwrap_err();
    assert!(
        matches!(error, ServiceError::McpError(ref data) if data.code == ErrorCode::INVALID_PARAMS),
        "{error:?}"
    );
}

/// Counts `notifications/tools/list_changed`.
#[derive(Clone, Default)]
struct Counting(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl rmcp::ClientHandler for Counting {
    async fn on_tool_list_changed(&self, _context: rmcp::service::NotificationContext<RoleClient>) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}

#[tokio::test]
async fn replacing_the_tools_notifies_the_client() {
    let server = McpServer::new(showcase::toolset());
    let (server_side, client_side) = tokio::io::duplex(1 << 20);
    let serving = server.clone();
    tokio::spawn(async move {
        if let Ok(running) = serving.serve(server_side).await {
            let _ = running.waiting().await;
        }
    });
    let counter = Counting::default();
    let client = counter.clone().serve(client_side).await.unwrap();
    assert_eq!(client.list_all_tools().await.unwrap().len(), 9);

    let smaller = tooldef::toolset![showcase::GetWeather, showcase::GetServerTime]
        .build()
        .unwrap();
    server.replace_tools(smaller).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while counter.0.load(std::sync::atomic::Ordering::SeqCst) == 0 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "no list_changed notification"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let names: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(names, ["get_weather", "get_server_time"]);
}

/// Malformed JSON-RPC straight onto the server's stdin: each line gets an error, and the server
/// keeps serving the valid requests around them.
#[tokio::test]
async fn malformed_json_rpc_gets_errors_and_the_server_keeps_serving() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    let mut child = Command::new(tooldef_tests::mcp_server_example())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("the server starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let requests = [
        "this is not json",
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_server_time"}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"no/such/method"}"#,
        r#"{"id":4}"#,
        r#"[1, 2, 3]"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":7}}}"#,
        r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"get_server_time"}}"#,
    ];
    for request in requests {
        stdin.write_all(request.as_bytes()).await.unwrap();
        stdin.write_all(b"\n").await.unwrap();
    }
    stdin.flush().await.unwrap();

    let mut by_id = std::collections::HashMap::new();
    let mut without_id = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    // Calls run concurrently, so answers may come in any order: wait for all of them.
    while ![1, 2, 3, 4, 5, 6].iter().all(|id| by_id.contains_key(id)) || without_id.len() < 2 {
        let line = tokio::time::timeout_at(deadline, lines.next_line())
            .await
            .expect("the server answers in time")
            .unwrap()
            .expect("the server is still running");
        let response: Value = serde_json::from_str(&line).expect("every answer is JSON");
        match response.get("id").and_then(Value::as_i64) {
            Some(id) => {
                by_id.insert(id, response);
            }
            None => without_id.push(response),
        }
    }
    assert!(by_id[&1]["result"]["capabilities"]["tools"].is_object());
    assert_eq!(by_id[&2]["result"]["isError"], false);
    assert_eq!(by_id[&3]["error"]["code"], -32601);
    assert_eq!(by_id[&5]["result"]["isError"], true, "{}", by_id[&5]);
    assert!(
        by_id[&5]["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("/city")
    );
    assert_eq!(by_id[&6]["result"]["isError"], false);
    // `{"id":4}` lacks `jsonrpc` and `method`: answered with its id. The line that is not JSON
    // and the batch cannot say theirs: answered with `"id": null`, as JSON-RPC 2.0 requires.
    assert_eq!(by_id[&4]["error"]["code"], -32600, "{}", by_id[&4]);
    assert_eq!(without_id.len(), 2, "{without_id:?}");
    assert!(
        without_id
            .iter()
            .all(|r| r["error"]["code"].as_i64().is_some_and(|c| c < 0) && r["id"].is_null())
    );
    drop(stdin);
    let _ = child.wait().await;
}
