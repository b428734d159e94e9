//! Progress and log messages from tools: an in-process `McpServer` driven by rmcp's client (and,
//! where rmcp's client cannot be made to leave something out, by raw JSON-RPC lines), for MCP
//! 2025-11-25 sessions and 2026-07-28 requests; and the same tools called through a `ToolSet`,
//! where they report to no one.

// MCP's logging is deprecated by MCP 2026-07-28 (SEP-2577), and rmcp's types with it; these
// tests check that 2025-11-25 clients still get what they ask for.
#![allow(deprecated)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientRequest, ErrorCode, LoggingLevel,
    LoggingMessageNotificationParam, ProgressNotificationParam, ProtocolVersion, RequestMetaObject,
    ServerResult, SetLevelRequestParams,
};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt, NotificationContext, PeerRequestOptions, RunningService,
    ServiceError,
};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tooldef::mcp::McpServer;
use tooldef::{ClientLog, Progress, State, ToolSet, tool};
use tooldef_examples::batch::ProcessBatch;

/// Count up to `to`, reporting each step, then log a line at four levels.
#[tool]
async fn count(
    /// Where to stop.
    #[schemars(range(max = 20))]
    to: u32,
    progress: Progress,
    log: ClientLog,
) -> u32 {
    for step in 1..=to {
        progress
            .report(
                f64::from(step),
                Some(f64::from(to)),
                Some(&format!("step {step}")),
            )
            .await;
    }
    // Backwards: MCP wants progress to increase with every notification, so this is not sent.
    progress.report(0.5, None, Some("backwards")).await;
    log.debug("debug line").await;
    log.info("info line").await;
    log.warning(json!({"warning": "line"})).await;
    log.error("error line").await;
    to
}

/// Report progress for a while after being called, then say so on the state's `Notify`.
#[tool]
async fn outlive(
    progress: Progress,
    log: ClientLog,
    State(done): State<Arc<tokio::sync::Notify>>,
) -> u32 {
    for step in 1..=10 {
        tokio::time::sleep(Duration::from_millis(20)).await;
        progress.report(f64::from(step), None, None).await;
        log.error("still here").await;
    }
    done.notify_one();
    10
}

fn tools() -> ToolSet {
    ToolSet::builder()
        .tool(Count)
        .tool(ProcessBatch)
        .build()
        .unwrap()
}

/// What the client heard.
#[derive(Clone, Default)]
struct Heard {
    progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
    logs: Arc<Mutex<Vec<LoggingMessageNotificationParam>>>,
}

impl ClientHandler for Heard {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.lock().unwrap().push(params);
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.logs.lock().unwrap().push(params);
    }
}

impl Heard {
    /// Waits until `n` log messages came, then a moment more for any that should not have.
    async fn logs_after(&self, n: usize) -> Vec<(LoggingLevel, Option<String>, Value)> {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        while self.logs.lock().unwrap().len() < n && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        let logs = std::mem::take(&mut *self.logs.lock().unwrap());
        logs.into_iter()
            .map(|m| (m.level, m.logger, m.data))
            .collect()
    }

    /// Waits until `n` progress notifications came, then a moment more for any extra.
    async fn progress_after(&self, n: usize) -> Vec<ProgressNotificationParam> {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        while self.progress.lock().unwrap().len() < n && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        std::mem::take(&mut *self.progress.lock().unwrap())
    }
}

/// `tools` served in process to a client `heard`, through `lifecycle`.
async fn connect(
    heard: Heard,
    lifecycle: ClientLifecycleMode,
) -> RunningService<RoleClient, Heard> {
    let (server_side, client_side) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = McpServer::new(tools()).serve(server_side).await {
            let _ = running.waiting().await;
        }
    });
    heard
        .serve_with_lifecycle(client_side, lifecycle)
        .await
        .expect("the client starts")
}

fn arguments(value: Value) -> serde_json::Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => unreachable!("arguments are objects"),
    }
}

/// Calls `name` with `args`, `meta` added to the request's `_meta`; returns the result and the
/// progress token rmcp's client put there.
async fn call_with_meta(
    client: &RunningService<RoleClient, Heard>,
    name: &'static str,
    args: Value,
    meta: RequestMetaObject,
) -> (Value, rmcp::model::ProgressToken) {
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(
        CallToolRequestParams::new(name).with_arguments(arguments(args)),
    ));
    let handle = client
        .peer()
        .send_request_with_option(request, PeerRequestOptions::no_options().with_meta(meta))
        .await
        .unwrap();
    let token = handle.progress_token.clone();
    match handle.await_response().await.unwrap() {
        ServerResult::CallToolResult(result) => (serde_json::to_value(result).unwrap(), token),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn progress_reaches_the_client_in_order_with_the_requests_token() {
    let heard = Heard::default();
    let client = connect(heard.clone(), ClientLifecycleMode::Initialize).await;
    let (result, token) =
        call_with_meta(&client, "count", json!({"to": 4}), RequestMetaObject::new()).await;
    assert_eq!(
        result["structuredContent"],
        json!({"result": 4}),
        "{result}"
    );
    let progress = heard.progress_after(4).await;
    let steps: Vec<(f64, Option<f64>, Option<&str>)> = progress
        .iter()
        .map(|p| (p.progress, p.total, p.message.as_deref()))
        .collect();
    assert_eq!(
        steps,
        [
            (1.0, Some(4.0), Some("step 1")),
            (2.0, Some(4.0), Some("step 2")),
            (3.0, Some(4.0), Some("step 3")),
            (4.0, Some(4.0), Some("step 4")),
        ],
        "one notification per step, in order, and none for the step backwards"
    );
    assert!(progress.iter().all(|p| p.progress_token == token));

    // The demo tool of the examples: one notification per item.
    let (result, _) = call_with_meta(
        &client,
        "process_batch",
        json!({"items": ["a", "b", "c"], "millis_per_item": 1}),
        RequestMetaObject::new(),
    )
    .await;
    assert_eq!(
        result["structuredContent"]["results"],
        json!(["A", "B", "C"])
    );
    let progress = heard.progress_after(3).await;
    let done: Vec<f64> = progress.iter().map(|p| p.progress).collect();
    assert_eq!(done, [1.0, 2.0, 3.0]);
    client.cancel().await.unwrap();
}

/// rmcp's client gives every request a `progressToken`; a request without one is written by
/// hand here, on the raw wire, next to one whose token the client chose itself.
#[tokio::test]
async fn without_a_progress_token_no_progress_is_sent() {
    let (server_side, client_side) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = McpServer::new(tools()).serve(server_side).await {
            let _ = running.waiting().await;
        }
    });
    let (read, mut write) = tokio::io::split(client_side);
    let mut lines = BufReader::new(read).lines();
    let mut send = async |line: Value| {
        write
            .write_all(format!("{line}\n").as_bytes())
            .await
            .unwrap();
    };
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}}),
    )
    .await;
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "count", "arguments": {"to": 3}}}))
    .await;
    send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "count", "arguments": {"to": 2}, "_meta": {"progressToken": "mine"}}}))
    .await;
    let mut answered = std::collections::HashSet::new();
    let mut progress: Vec<Value> = Vec::new();
    while answered.len() < 3 {
        let line = tokio::time::timeout(Duration::from_secs(5), lines.next_line())
            .await
            .expect("the server answers in time")
            .unwrap()
            .expect("the server is still there");
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["method"] == "notifications/progress" {
            progress.push(message["params"].clone());
        } else if let Some(id) = message["id"].as_i64() {
            answered.insert(id);
        }
    }
    // Calls run concurrently: the call with a token may finish first, so count by token.
    let tokens: Vec<&Value> = progress.iter().map(|p| &p["progressToken"]).collect();
    assert_eq!(tokens, [&json!("mine"), &json!("mine")], "{progress:?}");
    let values: Vec<&Value> = progress.iter().map(|p| &p["progress"]).collect();
    assert_eq!(values, [&json!(1.0), &json!(2.0)]);
}

#[tokio::test]
async fn log_messages_follow_the_level_the_session_set() {
    let heard = Heard::default();
    let client = connect(heard.clone(), ClientLifecycleMode::Initialize).await;
    let call = CallToolRequestParams::new("count").with_arguments(arguments(json!({"to": 1})));

    // Until the client asks, every level is sent, under the tool's name.
    client.call_tool(call.clone()).await.unwrap();
    assert_eq!(
        heard.logs_after(4).await,
        [
            (
                LoggingLevel::Debug,
                Some("count".into()),
                json!("debug line")
            ),
            (LoggingLevel::Info, Some("count".into()), json!("info line")),
            (
                LoggingLevel::Warning,
                Some("count".into()),
                json!({"warning": "line"})
            ),
            (
                LoggingLevel::Error,
                Some("count".into()),
                json!("error line")
            ),
        ]
    );

    client
        .set_level(SetLevelRequestParams::new(LoggingLevel::Warning))
        .await
        .unwrap();
    client.call_tool(call.clone()).await.unwrap();
    let levels: Vec<LoggingLevel> = heard.logs_after(2).await.into_iter().map(|l| l.0).collect();
    assert_eq!(levels, [LoggingLevel::Warning, LoggingLevel::Error]);

    client
        .set_level(SetLevelRequestParams::new(LoggingLevel::Emergency))
        .await
        .unwrap();
    client.call_tool(call).await.unwrap();
    assert!(heard.logs_after(0).await.is_empty());

    // The level is the session's: another client of the same server still gets everything.
    let other = Heard::default();
    let (server_side, client_side) = tokio::io::duplex(1 << 20);
    let server = McpServer::new(tools());
    let shared = server.clone();
    tokio::spawn(async move {
        if let Ok(running) = shared.serve(server_side).await {
            let _ = running.waiting().await;
        }
    });
    let first = other.clone().serve(client_side).await.unwrap();
    first
        .set_level(SetLevelRequestParams::new(LoggingLevel::Error))
        .await
        .unwrap();
    let second_heard = Heard::default();
    let (server_side, client_side) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_side).await {
            let _ = running.waiting().await;
        }
    });
    let second = second_heard.clone().serve(client_side).await.unwrap();
    let call = CallToolRequestParams::new("count").with_arguments(arguments(json!({"to": 1})));
    first.call_tool(call.clone()).await.unwrap();
    second.call_tool(call).await.unwrap();
    assert_eq!(
        other.logs_after(1).await.len(),
        1,
        "only `error` for the first"
    );
    assert_eq!(
        second_heard.logs_after(4).await.len(),
        4,
        "all for the second"
    );
    for client in [client, first, second] {
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn on_2026_07_28_the_level_comes_with_each_request() {
    let heard = Heard::default();
    let client = connect(
        heard.clone(),
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    )
    .await;
    assert_eq!(
        client.peer_info().unwrap().protocol_version,
        ProtocolVersion::V_2026_07_28
    );
    // Without `io.modelcontextprotocol/logLevel` in `_meta`, no message may be sent.
    call_with_meta(&client, "count", json!({"to": 2}), RequestMetaObject::new()).await;
    assert!(heard.logs_after(0).await.is_empty());
    assert_eq!(
        heard.progress_after(2).await.len(),
        2,
        "progress still goes"
    );

    let mut meta = RequestMetaObject::new();
    meta.set_log_level(LoggingLevel::Info);
    call_with_meta(&client, "count", json!({"to": 1}), meta).await;
    let levels: Vec<LoggingLevel> = heard.logs_after(3).await.into_iter().map(|l| l.0).collect();
    assert_eq!(
        levels,
        [
            LoggingLevel::Info,
            LoggingLevel::Warning,
            LoggingLevel::Error
        ]
    );

    // There is no session to set a level for.
    let error = client
        .set_level(SetLevelRequestParams::new(LoggingLevel::Debug))
        .await
        .unwrap_err();
    assert!(
        matches!(&error, ServiceError::McpError(data)
            if data.code == ErrorCode::METHOD_NOT_FOUND && data.message.contains("logLevel")),
        "{error:?}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn outside_mcp_the_same_tools_report_to_no_one() {
    let output = tools().call("count", r#"{"to": 3}"#).await.unwrap();
    assert_eq!(output.structured, Some(json!(3)));
    let output = tools()
        .call("process_batch", r#"{"items": ["x"], "millis_per_item": 1}"#)
        .await
        .unwrap();
    assert_eq!(output.structured.unwrap()["processed"], 1);
}

#[tokio::test]
async fn reporting_to_a_client_that_is_gone_neither_fails_nor_hangs_the_tool() {
    let done = Arc::new(tokio::sync::Notify::new());
    let tools = ToolSet::builder()
        .tool(Outlive)
        .state(Arc::clone(&done))
        .build()
        .unwrap();
    let (server_side, client_side) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = McpServer::new(tools).serve(server_side).await {
            let _ = running.waiting().await;
        }
    });
    let heard = Heard::default();
    let client = heard.clone().serve(client_side).await.unwrap();
    let request =
        ClientRequest::CallToolRequest(CallToolRequest::new(CallToolRequestParams::new("outlive")));
    let handle = client
        .peer()
        .send_request_with_option(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    // The first reports reach the client; then it goes away mid-call. rmcp keeps the connection
    // half open for 5 s, waiting for the responses of running calls: the tool must not wait that
    // long on each report (it takes about 1.2 s in all: one report waits 1 s, the rest none).
    heard.progress_after(1).await;
    drop(handle);
    client.cancel().await.unwrap();
    tokio::time::timeout(Duration::from_secs(3), done.notified())
        .await
        .expect("the tool ran to its end");
}
