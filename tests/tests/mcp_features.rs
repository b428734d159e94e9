//! What MCP 2026-07-28 lets a tool be, end to end: the `mcp_server` example with
//! `--mcp-features`, started as a child process and driven by rmcp's client over stdio and over
//! Streamable HTTP, once negotiating 2025-11-25 (`initialize`, a session) and once 2026-07-28
//! (`server/discover`, stateless requests; over HTTP the server runs with `--stateless`).
//!
//! - `delete_files` asks the user to confirm (an `Elicit` parameter): on 2025-11-25 through the
//!   server's `elicitation/create`, on 2026-07-28 through an `input_required` result and the
//!   client's retry; accepted, declined, cancelled, and with a client that cannot ask.
//! - `build_report` (`#[tool(task)]`) runs as a task of the `io.modelcontextprotocol/tasks`
//!   extension: started, polled with its progress as the status, completed; another cancelled.
//! - `regional_price` shows its icons, `_meta` and `x-mcp-header` in `tools/list`, beside the
//!   list's cache hints; over HTTP its header argument reaches it, and a header that
//!   contradicts the body is refused.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams,
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationCapability, FormElicitationCapability, GetTaskParams, Implementation, InputRequest,
    ProtocolVersion, TaskPayload, TaskStatus,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RequestContext, RunningService};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ErrorData, RoleClient};
use serde_json::{Value, json};
use tokio::process::Command;
use tooldef_tests::served::Served;

#[derive(Debug, Clone, Copy)]
enum Wire {
    Stdio,
    Http,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Version {
    /// `initialize`, a session, server-to-client requests.
    V2025_11_25,
    /// `server/discover`, every request on its own.
    V2026_07_28,
}

/// The user, as the client plays them: what they answer, and what they were asked.
#[derive(Clone)]
struct User {
    /// `None`: the client does not declare elicitation.
    answer: Option<ElicitationAction>,
    /// The messages the user was shown, with the form.
    asked: Arc<Mutex<Vec<(String, Value)>>>,
    /// Whether the client declares the tasks extension.
    tasks: bool,
    /// The progress notifications it heard.
    progress: Arc<Mutex<Vec<f64>>>,
}

impl User {
    fn answering(answer: Option<ElicitationAction>) -> User {
        User {
            answer,
            asked: Arc::default(),
            tasks: true,
            progress: Arc::default(),
        }
    }

    fn without_tasks(self) -> User {
        User {
            tasks: false,
            ..self
        }
    }

    fn asked(&self) -> Vec<(String, Value)> {
        self.asked.lock().unwrap().clone()
    }
}

impl rmcp::ClientHandler for User {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } = request
        else {
            panic!("only forms are asked for");
        };
        self.asked
            .lock()
            .unwrap()
            .push((message, serde_json::to_value(&requested_schema).unwrap()));
        let action = self
            .answer
            .clone()
            .expect("asked only when it said it can be");
        let mut result = ElicitResult::new(action.clone());
        if action == ElicitationAction::Accept {
            result.content = Some(json!({"confirm": true}));
        }
        Ok(result)
    }

    async fn on_progress(
        &self,
        params: rmcp::model::ProgressNotificationParam,
        _context: rmcp::service::NotificationContext<RoleClient>,
    ) {
        self.progress.lock().unwrap().push(params.progress);
    }

    fn get_info(&self) -> ClientConfig {
        let mut capabilities = if self.tasks {
            ClientCapabilities::builder().enable_tasks().build()
        } else {
            ClientCapabilities::default()
        };
        if self.answer.is_some() {
            capabilities.elicitation =
                Some(ElicitationCapability::new().with_form(FormElicitationCapability::default()));
        }
        ClientConfig::new(
            capabilities,
            Implementation::new("mcp-features-test", "1.0.0"),
        )
    }
}

/// The example server with `--mcp-features`, and `user`'s client connected to it.
async fn start(
    wire: Wire,
    version: Version,
    user: User,
) -> (RunningService<RoleClient, User>, Option<Served>) {
    let lifecycle = match version {
        Version::V2025_11_25 => ClientLifecycleMode::Initialize,
        Version::V2026_07_28 => ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    };
    let (client, served) = match wire {
        Wire::Stdio => {
            let mut command = Command::new(tooldef_tests::mcp_server_example());
            command.arg("--mcp-features");
            let transport = TokioChildProcess::new(command).expect("the server starts");
            let client = user.serve_with_lifecycle(transport, lifecycle).await;
            (client.expect("the client starts"), None)
        }
        Wire::Http => {
            // A 2026-07-28 server is deployed without sessions: every request on its own.
            let args: &'static [&'static str] = match version {
                Version::V2025_11_25 => &["--mcp-features"],
                Version::V2026_07_28 => &["--mcp-features", "--stateless"],
            };
            let served = tokio::task::spawn_blocking(move || Served::example(args))
                .await
                .expect("the server starts");
            let transport = StreamableHttpClientTransport::from_uri(served.url());
            let client = user.serve_with_lifecycle(transport, lifecycle).await;
            (client.expect("the client starts"), Some(served))
        }
    };
    let negotiated = client.peer_info().expect("the server said who it is");
    let expected = match version {
        Version::V2025_11_25 => ProtocolVersion::V_2025_11_25,
        Version::V2026_07_28 => ProtocolVersion::V_2026_07_28,
    };
    assert_eq!(negotiated.protocol_version, expected);
    (client, served)
}

fn call(name: &'static str, arguments: Value) -> CallToolRequestParams {
    let Value::Object(arguments) = arguments else {
        unreachable!("arguments are objects")
    };
    CallToolRequestParams::new(name).with_arguments(arguments)
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|t| t.text.clone()))
        .collect()
}

const DELETE: fn() -> CallToolRequestParams =
    || call("delete_files", json!({"folder": "/tmp/old", "count": 3}));

async fn asking(wire: Wire, version: Version) {
    for (answer, said) in [
        (
            Some(ElicitationAction::Accept),
            "deleted 3 files in /tmp/old",
        ),
        (
            Some(ElicitationAction::Decline),
            "kept the files in /tmp/old: the user declined",
        ),
        (
            Some(ElicitationAction::Cancel),
            "kept the files in /tmp/old: the user cancelled",
        ),
        (None, "the user cannot be asked here"),
    ] {
        let user = User::answering(answer.clone());
        let (client, _served) = start(wire, version, user.clone()).await;
        let result = client.call_tool(DELETE()).await.expect("tools/call");
        assert_eq!(result.is_error, Some(false), "{result:?}");
        assert!(
            text(&result).contains(said),
            "{answer:?}: {}",
            text(&result)
        );
        let asked = user.asked();
        if answer.is_some() {
            assert_eq!(asked.len(), 1, "asked once: {asked:?}");
            let (message, form) = &asked[0];
            assert_eq!(message, "Delete 3 files in /tmp/old?");
            assert_eq!(
                form,
                &json!({
                    "type": "object",
                    "title": "Confirm",
                    "description": "The question [`delete_files`] asks.",
                    "properties": {"confirm": {"type": "boolean", "description": "Delete the files?"}},
                    "required": ["confirm"]
                })
            );
        } else {
            assert!(asked.is_empty(), "{asked:?}");
        }
        client.cancel().await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn asking_the_user_over_stdio_on_2025_11_25() {
    asking(Wire::Stdio, Version::V2025_11_25).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn asking_the_user_over_stdio_on_2026_07_28() {
    asking(Wire::Stdio, Version::V2026_07_28).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn asking_the_user_over_http_on_2025_11_25() {
    asking(Wire::Http, Version::V2025_11_25).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn asking_the_user_over_http_on_2026_07_28() {
    asking(Wire::Http, Version::V2026_07_28).await;
}

/// On 2026-07-28 the question is a result: `input_required` with the form under a key and a
/// `requestState`; the retry with the answer finishes the call, and one without it is asked
/// again. A state from nowhere runs the tool afresh with the answers given.
async fn the_round_trip(wire: Wire) {
    let user = User::answering(Some(ElicitationAction::Accept));
    let (client, _served) = start(wire, Version::V2026_07_28, user).await;
    let CallToolResponse::InputRequired(asks) = client.call_tool_once(DELETE()).await.unwrap()
    else {
        panic!("the first answer asks");
    };
    let requests = asks.input_requests.clone().expect("a question");
    let (key, request) = requests.iter().next().expect("one question");
    assert_eq!(key, "elicit-1");
    assert!(
        matches!(request, InputRequest::Elicitation(_)),
        "{request:?}"
    );
    let state = asks.request_state.clone().expect("a state");

    // Retried without the answer: the same question, under a new state.
    let retry = DELETE().with_request_state(state.clone());
    let CallToolResponse::InputRequired(again) = client.call_tool_once(retry).await.unwrap() else {
        panic!("asked again");
    };
    assert_eq!(again.input_requests.as_ref().map(|r| r.len()), Some(1));
    let state = again.request_state.expect("a new state");

    let accepted = serde_json::to_value({
        let mut result = ElicitResult::new(ElicitationAction::Accept);
        result.content = Some(json!({"confirm": false}));
        result
    })
    .unwrap();
    let answers = [("elicit-1".to_owned(), accepted)].into_iter().collect();
    let retry = DELETE()
        .with_request_state(state.clone())
        .with_input_responses(answers);
    let CallToolResponse::Complete(done) = client.call_tool_once(retry.clone()).await.unwrap()
    else {
        panic!("done");
    };
    assert_eq!(text(&done), "kept the files in /tmp/old: the user said no");

    // The same state again: used up, so the tool runs afresh and takes the answer given.
    let CallToolResponse::Complete(afresh) = client.call_tool_once(retry).await.unwrap() else {
        panic!("done afresh");
    };
    assert_eq!(
        text(&afresh),
        "kept the files in /tmp/old: the user said no"
    );

    // A state for other arguments is not taken: the call asks.
    let CallToolResponse::InputRequired(_) = client
        .call_tool_once(
            call("delete_files", json!({"folder": "/tmp/other", "count": 3}))
                .with_request_state(state),
        )
        .await
        .unwrap()
    else {
        panic!("other arguments ask afresh");
    };
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_2026_07_28_round_trip_over_stdio() {
    the_round_trip(Wire::Stdio).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_2026_07_28_round_trip_over_http() {
    the_round_trip(Wire::Http).await;
}

/// Polls `task` until it ends (within 20 s); gives its last state and every status message seen.
async fn poll_to_the_end(
    client: &RunningService<RoleClient, User>,
    task: &str,
) -> (rmcp::model::DetailedTask, Vec<String>) {
    let mut messages = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let got = client
            .get_task(GetTaskParams::new(task.to_owned()))
            .await
            .expect("tasks/get");
        if let Some(message) = &got.task.task.status_message
            && messages.last() != Some(message)
        {
            messages.push(message.clone());
        }
        if got.task.status().is_terminal() {
            return (got.task, messages);
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the task did not end: {got:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// `build_report` (`#[tool(task)]`) for a client that declares the tasks extension: a task,
/// polled to its result with its progress as the status message; another cancelled midway.
async fn tasks(wire: Wire, version: Version) {
    let (client, _served) = start(wire, version, User::answering(None)).await;
    let report = call("build_report", json!({"pages": 4, "millis_per_page": 100}));
    let CallToolResponse::Task(created) = client.call_tool_once(report).await.unwrap() else {
        panic!("a task");
    };
    assert_eq!(created.task.status, TaskStatus::Working);
    let (done, messages) = poll_to_the_end(&client, &created.task.task_id).await;
    let TaskPayload::Completed { result } = done.payload else {
        panic!("completed: {done:?}");
    };
    let result: CallToolResult = serde_json::from_value(Value::Object(result)).unwrap();
    assert_eq!(result.structured_content, Some(json!({"pages": 4})));
    assert!(
        messages.iter().any(|m| m.starts_with("page ")),
        "the progress is the status: {messages:?}"
    );

    let long = call(
        "build_report",
        json!({"pages": 100, "millis_per_page": 200}),
    );
    let CallToolResponse::Task(created) = client.call_tool_once(long).await.unwrap() else {
        panic!("a task");
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    client
        .cancel_task(CancelTaskParams::new(created.task.task_id.clone()))
        .await
        .expect("tasks/cancel");
    let (cancelled, _) = poll_to_the_end(&client, &created.task.task_id).await;
    assert_eq!(cancelled.status(), TaskStatus::Cancelled, "{cancelled:?}");
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_over_stdio_on_2025_11_25() {
    tasks(Wire::Stdio, Version::V2025_11_25).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_over_stdio_on_2026_07_28() {
    tasks(Wire::Stdio, Version::V2026_07_28).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_over_http_on_2025_11_25() {
    tasks(Wire::Http, Version::V2025_11_25).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_over_http_on_2026_07_28() {
    tasks(Wire::Http, Version::V2026_07_28).await;
}

/// `tools/list` shows `regional_price`'s icons, `_meta` and `x-mcp-header`, with the cache
/// hints of a tool set that does not change; the header argument reaches the tool.
async fn listing(wire: Wire, version: Version) {
    let (client, _served) = start(wire, version, User::answering(None)).await;
    let page = client.list_tools(None).await.expect("tools/list");
    assert_eq!(page.ttl_ms, Some(3_600_000));
    assert_eq!(page.cache_scope, Some(CacheScope::Public));
    let tool = page
        .tools
        .iter()
        .find(|tool| tool.name == "regional_price")
        .expect("listed");
    let tool = serde_json::to_value(tool).unwrap();
    assert_eq!(
        tool["icons"],
        json!([
            {"src": "https://example.com/icons/price.png", "mimeType": "image/png", "sizes": ["48x48"], "theme": "light"},
            {"src": "https://example.com/icons/price-dark.svg", "mimeType": "image/svg+xml", "sizes": ["any"], "theme": "dark"}
        ])
    );
    assert_eq!(
        tool["_meta"],
        json!({"com.example/team": "pricing", "com.example/cost": {"units": 1}})
    );
    assert_eq!(
        tool["inputSchema"]["properties"]["region"]["x-mcp-header"],
        "Region"
    );
    assert_eq!(tool["annotations"]["readOnlyHint"], true);

    // rmcp's client sends the argument as `Mcp-Param-Region` too over HTTP on 2026-07-28,
    // and the server checks it against the body before the tool runs.
    let result = client
        .call_tool(call(
            "regional_price",
            json!({"region": "eu-west", "product": "p1"}),
        ))
        .await
        .expect("tools/call");
    assert_eq!(text(&result), "p1 costs 10 EUR in eu-west");
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listing_over_stdio_on_2025_11_25() {
    listing(Wire::Stdio, Version::V2025_11_25).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listing_over_stdio_on_2026_07_28() {
    listing(Wire::Stdio, Version::V2026_07_28).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listing_over_http_on_2025_11_25() {
    listing(Wire::Http, Version::V2025_11_25).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listing_over_http_on_2026_07_28() {
    listing(Wire::Http, Version::V2026_07_28).await;
}

/// A 2026-07-28 request over HTTP whose `Mcp-Param-Region` says another region than its body
/// is refused before the tool runs (SEP-2243: middle boxes route on the header); the same
/// request with the header that agrees is answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_header_argument_is_checked_against_the_body_over_http() {
    let served =
        tokio::task::spawn_blocking(|| Served::example(&["--mcp-features", "--stateless"]))
            .await
            .expect("the server starts");
    let http = reqwest::Client::new();
    let send = |region: &'static str| {
        let body = json!({
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {
                "name": "regional_price",
                "arguments": {"region": "eu-west", "product": "p1"},
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
                    "io.modelcontextprotocol/clientCapabilities": {}
                }
            }
        });
        http.post(served.url())
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "regional_price")
            .header("mcp-param-region", region)
            .json(&body)
            .send()
    };
    let agreeing = send("eu-west").await.unwrap();
    let status = agreeing.status();
    let said = agreeing.text().await.unwrap();
    assert!(status.is_success(), "{status}: {said}");
    assert!(said.contains("p1 costs 10 EUR in eu-west"), "{said}");

    let contradicting = send("us-east").await.unwrap();
    let status = contradicting.status();
    let said = contradicting.text().await.unwrap();
    assert!(!said.contains("costs"), "the tool did not run: {said}");
    assert!(said.contains("Mcp-Param-Region"), "{status}: {said}");
}

/// Outside MCP (an agent loop calling a `ToolSet`), the application answers the tool's
/// questions with a handler of its own; without one, the tool hears that nobody can be asked.
#[tokio::test]
async fn outside_mcp_the_application_answers_or_nobody_does() {
    use tooldef::{CallContext, Content, Elicit, ElicitAnswer, ElicitRequest, ToolSet};

    let tools = tooldef_examples::mcp_features::add_to(ToolSet::builder())
        .build()
        .unwrap();
    let arguments = json!({"folder": "/tmp/old", "count": 3});
    let said = |output: tooldef::ToolOutput| match output.content.as_slice() {
        [Content::Text(text)] => text.clone(),
        other => panic!("one text block: {other:?}"),
    };

    let alone = tools
        .call_with("delete_files", arguments.clone(), CallContext::new())
        .await
        .unwrap();
    assert!(said(alone).contains("the user cannot be asked here"));

    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&asked);
    let yes = Elicit::new(move |question: ElicitRequest| {
        seen.lock().unwrap().push(question.message.clone());
        let mut values = serde_json::Map::new();
        values.insert("confirm".into(), Value::Bool(true));
        async move { Ok(ElicitAnswer::Accept(values)) }
    });
    let answered = tools
        .call_with(
            "delete_files",
            arguments,
            CallContext::new().with_elicit(yes),
        )
        .await
        .unwrap();
    assert_eq!(said(answered), "deleted 3 files in /tmp/old");
    assert_eq!(*asked.lock().unwrap(), ["Delete 3 files in /tmp/old?"]);
}

/// A `#[tool(task)]` tool called by a client without the tasks extension is a plain call, whose
/// progress reaches the client as notifications on the call's own stream (over HTTP on
/// 2026-07-28 too, where rmcp ties them to the request the handler serves).
async fn progress_of_a_plain_call(wire: Wire, version: Version) {
    let user = User::answering(None).without_tasks();
    let (client, _served) = start(wire, version, user.clone()).await;
    let result = client
        .call_tool(call(
            "build_report",
            json!({"pages": 3, "millis_per_page": 20}),
        ))
        .await
        .expect("tools/call");
    assert_eq!(result.structured_content, Some(json!({"pages": 3})));
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while user.progress.lock().unwrap().len() < 3 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(*user.progress.lock().unwrap(), [1.0, 2.0, 3.0]);
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_of_a_plain_call_over_http_on_2026_07_28() {
    progress_of_a_plain_call(Wire::Http, Version::V2026_07_28).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_of_a_plain_call_over_stdio_on_2025_11_25() {
    progress_of_a_plain_call(Wire::Stdio, Version::V2025_11_25).await;
}

/// A task that asks the user: its question waits in `tasks/get` (`input_required`), the client
/// answers it with `tasks/update`, and the task goes on to its result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_asks_through_tasks_get_and_is_answered_with_tasks_update() {
    use rmcp::ServiceExt;
    use rmcp::model::UpdateTaskParams;
    use tooldef::mcp::McpServer;
    use tooldef::{Elicit, ToolSet, tool};
    use tooldef_examples::mcp_features::Confirm;

    /// Archive a folder, once the user has confirmed it.
    #[tool(task)]
    async fn archive(
        /// The folder.
        folder: String,
        elicit: Elicit,
    ) -> String {
        match elicit.ask::<Confirm>(format!("Archive {folder}?")).await {
            Ok(Confirm { confirm: true }) => format!("archived {folder}"),
            Ok(_) => "kept".into(),
            Err(error) => format!("kept: {error}"),
        }
    }

    for version in [Version::V2025_11_25, Version::V2026_07_28] {
        let (server_side, client_side) = tokio::io::duplex(1 << 20);
        let tools = ToolSet::builder().tool(Archive).build().unwrap();
        tokio::spawn(async move {
            if let Ok(running) = McpServer::new(tools).serve(server_side).await {
                let _ = running.waiting().await;
            }
        });
        let lifecycle = match version {
            Version::V2025_11_25 => ClientLifecycleMode::Initialize,
            Version::V2026_07_28 => ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        };
        // The client shows forms, but the question comes through the task, not to its handler.
        let user = User::answering(Some(ElicitationAction::Decline));
        let client = user
            .clone()
            .serve_with_lifecycle(client_side, lifecycle)
            .await
            .expect("the client starts");
        let CallToolResponse::Task(created) = client
            .call_tool_once(call("archive", json!({"folder": "/srv/logs"})))
            .await
            .unwrap()
        else {
            panic!("a task");
        };
        let id = created.task.task_id.clone();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        let key = loop {
            let got = client
                .get_task(GetTaskParams::new(id.clone()))
                .await
                .unwrap();
            if let TaskPayload::InputRequired { input_requests } = &got.task.payload {
                let (key, request) = input_requests.iter().next().expect("a question");
                let InputRequest::Elicitation(request) = request else {
                    panic!("an elicitation: {request:?}");
                };
                let ElicitRequestParams::FormElicitationParams { message, .. } = &request.params
                else {
                    panic!("a form");
                };
                assert_eq!(message, "Archive /srv/logs?");
                break key.clone();
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "no question: {got:?}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        let mut accepted = ElicitResult::new(ElicitationAction::Accept);
        accepted.content = Some(json!({"confirm": true}));
        let answers = [(key, serde_json::to_value(accepted).unwrap())]
            .into_iter()
            .collect();
        client
            .update_task(UpdateTaskParams::new(id.clone(), answers))
            .await
            .expect("tasks/update");
        let (done, _) = poll_to_the_end(&client, &id).await;
        let TaskPayload::Completed { result } = done.payload else {
            panic!("completed: {done:?}");
        };
        let result: CallToolResult = serde_json::from_value(Value::Object(result)).unwrap();
        assert_eq!(text(&result), "archived /srv/logs", "{version:?}");
        assert!(
            user.asked().is_empty(),
            "the client's handler was not asked"
        );
        client.cancel().await.unwrap();
    }
}
