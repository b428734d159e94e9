//! The `mcp_server` example, started as a child process and driven by rmcp's own client; and an
//! in-process server for pagination and `list_changed`. Each rmcp-client test runs over stdio
//! and over Streamable HTTP (the example with `--http 127.0.0.1:0`; the in-process server's
//! router on a free port); what is particular to HTTP is in `mcp_http.rs`.

use std::time::Duration;

use rmcp::model::{CallToolRequestParams, ErrorCode, PaginatedRequestParams};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService, ServiceError};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};
use tokio::process::Command;
use tooldef::Target;
use tooldef::mcp::{HttpOptions, McpServer};
use tooldef::targets::McpOutputRules;
use tooldef_examples::showcase;
use tooldef_tests::served::Served;

/// How a test reaches its server.
#[derive(Debug, Clone, Copy)]
enum Wire {
    Stdio,
    Http,
}

/// The example server with its test tools, and a client initialised with it. Over HTTP the
/// server is the returned guard's child, killed when the guard is dropped (a failing test
/// included); over stdio rmcp's transport kills it with the client.
async fn start(wire: Wire) -> (RunningService<RoleClient, ()>, Option<Served>) {
    match wire {
        Wire::Stdio => {
            let mut command = Command::new(tooldef_tests::mcp_server_example());
            command.arg("--test-tools");
            let transport = TokioChildProcess::new(command).expect("the server starts");
            let client = ().serve(transport).await.expect("the client initialises");
            (client, None)
        }
        Wire::Http => {
            let served = tokio::task::spawn_blocking(|| Served::example(&["--test-tools"]))
                .await
                .expect("the server starts");
            let transport = StreamableHttpClientTransport::from_uri(served.url());
            let client = ().serve(transport).await.expect("the client initialises");
            (client, Some(served))
        }
    }
}

/// `server`'s Streamable HTTP router, served in this test's runtime on a free port: its URL.
async fn serve_http(server: McpServer) -> String {
    let router = server
        .into_http_router(HttpOptions::new())
        .expect("the default options work");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a free port");
    let address = listener.local_addr().expect("a bound address");
    tokio::spawn(async move { axum::serve(listener, router).await });
    format!("http://{address}/mcp")
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
async fn the_example_server_lists_and_calls_every_tool_and_survives_bad_calls_over_stdio() {
    lists_and_calls_every_tool_and_survives_bad_calls(Wire::Stdio).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_example_server_lists_and_calls_every_tool_and_survives_bad_calls_over_http() {
    lists_and_calls_every_tool_and_survives_bad_calls(Wire::Http).await;
}

async fn lists_and_calls_every_tool_and_survives_bad_calls(wire: Wire) {
    let (client, _server) = start(wire).await;

    // tools/list: what the client receives is the MCP rendering, in order.
    let listed = client.list_all_tools().await.expect("tools/list");
    let listed: Vec<Value> = listed
        .iter()
        .map(|t| serde_json::to_value(t).unwrap())
        .collect();
    // The rmcp client negotiates 2025-11-25 with `initialize`, whose `outputSchema` must be an
    // object: a non-object one comes wrapped (`McpOutputRules::ObjectOnly`).
    let expected: Vec<Value> = showcase::toolset()
        .list(Target::Mcp)
        .unwrap()
        .iter()
        .map(|tool| {
            let mut tool = tool.clone();
            if let Some(Value::Object(schema)) = tool.get_mut("outputSchema") {
                *schema = McpOutputRules::ObjectOnly
                    .output_schema(schema)
                    .into_owned();
            }
            tool
        })
        .collect();
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

/// A server and a client with `handler` connected in process: through a pipe, or over HTTP on
/// a free port; the client starts with `initialize` (MCP 2025-11-25).
async fn in_process<H: rmcp::ClientHandler>(
    server: McpServer,
    handler: H,
    wire: Wire,
) -> RunningService<RoleClient, H> {
    in_process_with(server, handler, wire, ClientLifecycleMode::Initialize).await
}

/// [`in_process`], the client starting as `lifecycle` says (`server/discover` for 2026-07-28).
async fn in_process_with<H: rmcp::ClientHandler>(
    server: McpServer,
    handler: H,
    wire: Wire,
    lifecycle: ClientLifecycleMode,
) -> RunningService<RoleClient, H> {
    match wire {
        Wire::Stdio => {
            let (server_side, client_side) = tokio::io::duplex(1 << 20);
            tokio::spawn(async move {
                if let Ok(running) = server.serve(server_side).await {
                    let _ = running.waiting().await;
                }
            });
            handler.serve_with_lifecycle(client_side, lifecycle).await
        }
        Wire::Http => {
            let url = serve_http(server).await;
            handler
                .serve_with_lifecycle(StreamableHttpClientTransport::from_uri(url), lifecycle)
                .await
        }
    }
    .expect("the client starts")
}

#[tokio::test]
async fn tools_list_pages_with_opaque_cursors_over_stdio() {
    tools_list_pages_with_opaque_cursors(Wire::Stdio).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_list_pages_with_opaque_cursors_over_http() {
    tools_list_pages_with_opaque_cursors(Wire::Http).await;
}

async fn tools_list_pages_with_opaque_cursors(wire: Wire) {
    let server = McpServer::new(showcase::toolset()).with_page_size(4);
    let client = in_process(server, (), wire).await;
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

/// The names of every tool the client is given now, in order.
async fn tool_names<H: rmcp::ClientHandler>(client: &RunningService<RoleClient, H>) -> Vec<String> {
    client
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t.name.to_string())
        .collect()
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
async fn replacing_the_tools_notifies_the_client_over_stdio() {
    replacing_the_tools_notifies_the_client(Wire::Stdio).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replacing_the_tools_notifies_the_client_over_http() {
    replacing_the_tools_notifies_the_client(Wire::Http).await;
}

async fn replacing_the_tools_notifies_the_client(wire: Wire) {
    let server = McpServer::new(showcase::toolset());
    let counter = Counting::default();
    let client = in_process(server.clone(), counter.clone(), wire).await;
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
    let names = tool_names(&client).await;
    assert_eq!(names, ["get_weather", "get_server_time"]);
}

#[tokio::test]
async fn a_2026_07_28_client_hears_of_changes_on_its_subscription_over_stdio() {
    a_2026_07_28_client_hears_of_changes_on_its_subscription(Wire::Stdio).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_07_28_client_hears_of_changes_on_its_subscription_over_http() {
    a_2026_07_28_client_hears_of_changes_on_its_subscription(Wire::Http).await;
}

/// MCP 2026-07-28 has no sessions: a client asks for `tools/list_changed` on a
/// `subscriptions/listen` stream, and hears it there (and is not sent what it did not ask for).
async fn a_2026_07_28_client_hears_of_changes_on_its_subscription(wire: Wire) {
    use rmcp::model::{ProtocolVersion, ServerNotification, SubscriptionFilter};

    let server = McpServer::new(showcase::toolset());
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    let counter = Counting::default();
    let client = in_process_with(server.clone(), counter.clone(), wire, lifecycle).await;
    assert_eq!(client.list_all_tools().await.unwrap().len(), 9);

    let mut subscription = client
        .listen(SubscriptionFilter::builder().tools_list_changed().build())
        .await
        .expect("subscriptions/listen is acknowledged");
    assert_eq!(subscription.acknowledged().tools_list_changed, Some(true));

    let smaller = tooldef::toolset![showcase::GetWeather].build().unwrap();
    server.replace_tools(smaller).await;
    let heard = tokio::time::timeout(Duration::from_secs(5), subscription.next())
        .await
        .expect("the notification within 5 s")
        .expect("the stream is open");
    assert!(
        matches!(
            heard,
            Some(ServerNotification::ToolListChangedNotification(_))
        ),
        "{heard:?}"
    );
    // Nothing outside the subscription: no session, so no bare notification either.
    assert_eq!(counter.0.load(std::sync::atomic::Ordering::SeqCst), 0);
    let names = tool_names(&client).await;
    assert_eq!(names, ["get_weather"]);
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
