//! What is particular to serving MCP over Streamable HTTP (`McpServer::into_http_router`): the
//! bearer token, the `Origin` and `Host` checks, stateless mode, a custom path, bodies that are
//! malformed or too large, concurrent sessions, and `tools/list_changed` reaching HTTP clients.
//! Against the `mcp_server` example started with `--http 127.0.0.1:0` (killed when each test
//! ends, passed or failed), driven by rmcp's client and by raw HTTP requests; and an in-process
//! server for notifications.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};
use tooldef::mcp::{HttpOptions, McpServer};
use tooldef_examples::showcase;
use tooldef_gateway::{ConnectFailure, RemoteServer};
use tooldef_tests::served::Served;

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;

/// The example with `args`, started off the async runtime (it may build first).
async fn example(args: &'static [&'static str]) -> Served {
    tokio::task::spawn_blocking(move || Served::example(args))
        .await
        .expect("the server starts")
}

/// A raw POST with the headers a Streamable HTTP client sends, and `extra`: the status, the
/// headers and the body (whole, so not for streams that stay open).
async fn post(
    url: &str,
    extra: &[(&str, &str)],
    body: impl Into<reqwest::Body>,
) -> (StatusCode, HeaderMap, String) {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .body(body);
    for (name, value) in extra {
        request = request.header(*name, *value);
    }
    let response = request.send().await.expect("the server answers");
    let status = response.status();
    let headers = response.headers().clone();
    let body = response.text().await.expect("a body");
    (status, headers, body)
}

/// The JSON-RPC answer in a JSON body or in the `data:` lines of an event stream.
fn answer(body: &str) -> Value {
    let json = body
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(str::trim)
        .find(|data| !data.is_empty())
        .unwrap_or(body);
    serde_json::from_str(json).unwrap_or_else(|err| panic!("not JSON-RPC ({err}): {body}"))
}

/// An rmcp client initialised with `remote`.
async fn client(remote: &RemoteServer) -> RunningService<RoleClient, ()> {
    ().serve(remote.transport())
        .await
        .unwrap_or_else(|err| panic!("the client initialises with {}: {err}", remote.url()))
}

fn weather(city: &str) -> CallToolRequestParams {
    let arguments = json!({"city": city, "days": 2});
    let Value::Object(arguments) = arguments else {
        unreachable!("an object")
    };
    CallToolRequestParams::new("get_weather").with_arguments(arguments)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_request_needs_the_bearer_token() {
    let server = example(&["--bearer-token", "s3cret-t0ken"]).await;
    let url = server.url();

    let (status, headers, body) = post(url, &[], INITIALIZE).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(headers["www-authenticate"], "Bearer");
    assert!(
        body.contains("send the header `Authorization: Bearer <token>`"),
        "{body}"
    );

    let wrong = [("Authorization", "Bearer s3cret-t0ke")];
    let (status, headers, body) = post(url, &wrong, INITIALIZE).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        headers["www-authenticate"],
        "Bearer error=\"invalid_token\""
    );
    assert!(body.contains("not the server's bearer token"), "{body}");

    // Every request: the event stream, another path, a malformed body.
    let response = reqwest::Client::new()
        .get(url)
        .header("Accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    let elsewhere = format!("{}/elsewhere", server.origin());
    let (status, _, body) = post(&elsewhere, &[], INITIALIZE).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
    let (status, _, _) = post(url, &[], "not json").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    // rmcp's client: refused without the token, and said why.
    let remote = RemoteServer::new(url).unwrap();
    let error = ().serve(remote.transport()).await.unwrap_err();
    assert_eq!(
        ConnectFailure::of_start(&error),
        Some(ConnectFailure::Unauthorized("Bearer".to_owned())),
        "{error}"
    );

    // With it: served.
    let right = [("Authorization", "Bearer s3cret-t0ken")];
    let (status, _, body) = post(url, &right, INITIALIZE).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        answer(&body)["result"]["serverInfo"]["name"],
        "tooldef-showcase"
    );
    let client = client(&remote.bearer_token("s3cret-t0ken").unwrap()).await;
    assert_eq!(client.list_all_tools().await.unwrap().len(), 9);
    let result = client.call_tool(weather("Lisbon")).await.unwrap();
    assert_ne!(result.is_error, Some(true), "{result:?}");
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_token_can_come_from_the_environment() {
    let mut command = std::process::Command::new(tooldef_tests::mcp_server_example());
    command
        .args(["--http", "127.0.0.1:0"])
        .env("MCP_BEARER_TOKEN", "from-the-env");
    let server = tokio::task::spawn_blocking(move || Served::start(command))
        .await
        .unwrap();
    let (status, _, _) = post(server.url(), &[], INITIALIZE).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let right = [("Authorization", "Bearer from-the-env")];
    let (status, _, _) = post(server.url(), &right, INITIALIZE).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_disallowed_origin_or_host_is_refused_saying_what_is_allowed() {
    let server = example(&["--allowed-origin", "http://app.example:3000"]).await;
    let url = server.url();

    let (status, _, body) = post(url, &[("Origin", "http://evil.example")], INITIALIZE).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert!(
        body.starts_with("Forbidden: Origin header is not allowed"),
        "{body}"
    );
    assert!(
        body.contains("from the browser origins `http://app.example:3000`")
            && body.contains("the origin `http://evil.example`"),
        "{body}"
    );
    // The same host on another port is another origin.
    let (status, _, _) = post(url, &[("Origin", "http://app.example:3001")], INITIALIZE).await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    let (status, _, body) = post(url, &[("Origin", "http://app.example:3000")], INITIALIZE).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // Clients that are not browsers send no `Origin`.
    let (status, _, _) = post(url, &[], INITIALIZE).await;
    assert_eq!(status, StatusCode::OK);

    // DNS rebinding: a request for another host name is refused.
    let (status, _, body) = post(url, &[("Host", "evil.example")], INITIALIZE).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert!(
        body.starts_with("Forbidden: Host header is not allowed"),
        "{body}"
    );
    assert!(
        body.contains("the hosts `localhost`, `127.0.0.1`, `::1`")
            && body.contains("the host `evil.example`"),
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_allowed_host_is_served_beside_the_loopback_names() {
    let server = example(&["--allowed-host", "mcp.example"]).await;
    let (status, _, body) = post(server.url(), &[("Host", "mcp.example")], INITIALIZE).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, _, _) = post(server.url(), &[("Host", "other.example")], INITIALIZE).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, _, _) = post(server.url(), &[], INITIALIZE).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stateless_mode_lists_and_calls_without_sessions() {
    let server = example(&["--stateless"]).await;
    assert!(
        server.log().contains("over Streamable HTTP at ") && server.log().contains("(stateless)"),
        "{}",
        server.log()
    );

    // No `initialize` and no session: each request stands alone, answered as plain JSON.
    let list = r#"{"jsonrpc":"2.0","id":"l","method":"tools/list"}"#;
    let (status, headers, body) = post(server.url(), &[], list).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(headers["content-type"], "application/json");
    assert!(!headers.contains_key("mcp-session-id"));
    let listed = answer(&body);
    assert_eq!(listed["id"], "l");
    assert_eq!(listed["result"]["tools"].as_array().map(Vec::len), Some(9));

    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"convert_currency","arguments":{"amount":10,"from":"EUR","to":"USD"}}}"#;
    let (status, _, body) = post(server.url(), &[], call).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(answer(&body)["result"]["isError"], false, "{body}");

    // rmcp's client works the same.
    let client = client(&RemoteServer::new(server.url()).unwrap()).await;
    assert_eq!(client.list_all_tools().await.unwrap().len(), 9);
    let result = client.call_tool(weather("Porto")).await.unwrap();
    assert_eq!(result.structured_content.unwrap()["city"], "Porto");
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_custom_path_is_served_and_other_paths_point_to_it() {
    let server = example(&["--path", "/tools/mcp"]).await;
    assert!(server.url().ends_with("/tools/mcp"), "{}", server.url());
    let client = client(&RemoteServer::new(server.url()).unwrap()).await;
    assert_eq!(client.list_all_tools().await.unwrap().len(), 9);
    client.cancel().await.unwrap();

    let (status, _, body) = post(&format!("{}/mcp", server.origin()), &[], INITIALIZE).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(
        body,
        "Not Found: `/mcp` is not this server's MCP endpoint; connect to `/tools/mcp`"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_and_oversized_bodies_get_clear_errors_and_the_server_keeps_serving() {
    let server = example(&[]).await;
    let url = server.url();
    // A session open before the garbage, to use after it.
    let before = client(&RemoteServer::new(url).unwrap()).await;

    let refused = |body: &'static str, code: i64, id: Value, says: &'static str| {
        let id = id.clone();
        async move {
            let (status, headers, text) = post(url, &[], body).await;
            assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {text}");
            assert_eq!(headers["content-type"], "application/json");
            let answer: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(answer["jsonrpc"], "2.0");
            assert_eq!(answer["id"], id, "{body}: {text}");
            assert_eq!(answer["error"]["code"], code, "{body}: {text}");
            let message = answer["error"]["message"].as_str().unwrap();
            assert!(message.contains(says), "{body}: {message}");
        }
    };
    refused("this is not json", -32700, Value::Null, "Parse error").await;
    refused(
        r#"{"jsonrpc":"2.0","id":3,"#,
        -32700,
        Value::Null,
        "Parse error",
    )
    .await;
    refused("", -32600, Value::Null, "the request body is empty").await;
    // A batch: each request in it refused under its own id, as JSON-RPC answers a batch.
    let (status, _, text) = post(url, &[], r#"[{"jsonrpc":"2.0","id":4,"method":"ping"}]"#).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{text}");
    let answers: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(answers[0]["id"], 4, "{text}");
    assert_eq!(answers[0]["error"]["code"], -32600, "{text}");
    let message = answers[0]["error"]["message"].as_str().unwrap();
    assert!(message.contains("batches are not supported"), "{message}");
    refused(
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/list","params":[1]}"#,
        -32602,
        json!(5),
        "`params` must be an object",
    )
    .await;
    refused(
        r#"{"jsonrpc":"1.0","id":"six","method":"ping"}"#,
        -32600,
        json!("six"),
        "`jsonrpc` must be \"2.0\"",
    )
    .await;
    refused(
        r#"{"jsonrpc":"2.0","id":7,"method":"ping","method":"tools/list"}"#,
        -32600,
        json!(7),
        "`method`",
    )
    .await;

    // Arguments at fault are the model's to correct: a tool error, as over stdio.
    let duplicate = r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Rome","city":"Oslo"}}}"#;
    let (status, _, text) = post(url, &[], duplicate).await;
    assert_eq!(status, StatusCode::OK, "{text}");
    let reply = answer(&text);
    assert_eq!(reply["id"], 8);
    assert_eq!(reply["result"]["isError"], true);
    assert!(
        reply["result"]["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("get_weather") && t.contains("city")),
        "{text}"
    );

    // Over 4 MiB: refused with 413, with its id. The body is read to its end (and dropped)
    // first, so that a client still sending reads the answer instead of a broken connection.
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{{"name":"get_weather","arguments":{{"city":"{}"}}}}}}"#,
        "x".repeat(5 << 20)
    );
    let length = big.len();
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> = big
        .clone()
        .into_bytes()
        .chunks(64 << 10)
        .map(|chunk| Ok(chunk.to_vec()))
        .collect();
    // With a `Content-Length`, then streamed without one.
    let streamed = reqwest::Body::wrap_stream(futures_util::stream::iter(chunks));
    for body in [reqwest::Body::from(big), streamed] {
        let (status, _, text) = post(url, &[], body).await;
        assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{text}");
        let reply: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(reply["id"], "big", "{text}");
        assert_eq!(reply["error"]["code"], -32600);
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("is {length} bytes"))
                && message.contains("at most 4194304 bytes")
                && message.contains("send less data"),
            "{message}"
        );
    }

    // Still serving: the session from before, and a new one.
    let result = before.call_tool(weather("Lisbon")).await.unwrap();
    assert_ne!(result.is_error, Some(true), "{result:?}");
    let after = client(&RemoteServer::new(url).unwrap()).await;
    assert_eq!(after.list_all_tools().await.unwrap().len(), 9);
    before.cancel().await.unwrap();
    after.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_sessions_each_get_their_own_answers() {
    let server = example(&[]).await;
    let remote = RemoteServer::new(server.url()).unwrap();
    let sessions = (0..8).map(|i| {
        let remote = remote.clone();
        tokio::spawn(async move {
            let client = client(&remote).await;
            let calls = (0..10).map(|j| {
                let peer = client.peer().clone();
                async move {
                    let city = format!("City {i}-{j}");
                    let result = peer.call_tool(weather(&city)).await.unwrap();
                    assert_eq!(result.structured_content.unwrap()["city"], city);
                }
            });
            futures_util::future::join_all(calls).await;
            assert_eq!(client.list_all_tools().await.unwrap().len(), 9);
            client.cancel().await.unwrap();
        })
    });
    for session in futures_util::future::join_all(sessions).await {
        session.expect("every session passed");
    }
}

/// Counts `notifications/tools/list_changed`.
#[derive(Clone, Default)]
struct Counting(Arc<AtomicUsize>);

impl ClientHandler for Counting {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replacing_the_tools_notifies_every_http_session() {
    let server = McpServer::new(showcase::toolset());
    let router = server.clone().into_http_router(HttpOptions::new()).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });

    let counters = [Counting::default(), Counting::default()];
    let mut clients = Vec::new();
    for counter in &counters {
        let transport = StreamableHttpClientTransport::from_uri(url.as_str());
        let client = counter.clone().serve(transport).await.unwrap();
        assert_eq!(client.list_all_tools().await.unwrap().len(), 9);
        clients.push(client);
    }
    // A client that has gone away is not told, and does not keep the others from being told.
    let gone = ().serve(StreamableHttpClientTransport::from_uri(url.as_str())).await;
    gone.unwrap().cancel().await.unwrap();

    let smaller = tooldef::toolset![showcase::GetWeather, showcase::GetServerTime]
        .build()
        .unwrap();
    server.replace_tools(smaller).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while counters.iter().any(|c| c.0.load(Ordering::SeqCst) == 0) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "a session had no list_changed notification"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    for client in clients {
        let names: Vec<String> = client
            .list_all_tools()
            .await
            .unwrap()
            .iter()
            .map(|t| t.name.to_string())
            .collect();
        assert_eq!(names, ["get_weather", "get_server_time"]);
        client.cancel().await.unwrap();
    }
}

#[test]
fn options_that_cannot_work_stop_the_example_at_startup() {
    let run = |args: &[&str]| {
        let output = std::process::Command::new(tooldef_tests::mcp_server_example())
            .args(args)
            .output()
            .expect("the example runs");
        (
            output.status.code(),
            String::from_utf8(output.stderr).expect("UTF-8"),
        )
    };
    let (status, stderr) = run(&["--http", "127.0.0.1:0", "--allowed-origin", "app.example"]);
    assert_eq!(status, Some(2));
    assert!(
        stderr.starts_with(
            "mcp_server: --allowed-origin: the allowed origin `app.example` has no scheme; give an origin"
        ),
        "{stderr}"
    );
    let (status, stderr) = run(&["--http", "127.0.0.1:0", "--path", "mcp"]);
    assert_eq!(status, Some(2));
    assert!(stderr.contains("does not start with `/`"), "{stderr}");
    let (status, stderr) = run(&["--http", "127.0.0.1:0", "--bearer-token", "two words"]);
    assert_eq!(status, Some(2));
    assert!(stderr.starts_with("mcp_server: --bearer-token"), "{stderr}");
    // Unknown flags and HTTP options without --http: usage, exit status 2.
    let (status, stderr) = run(&["--verbose"]);
    assert_eq!(status, Some(2));
    assert!(stderr.contains("Usage: mcp_server"), "{stderr}");
    let (status, stderr) = run(&["--stateless"]);
    assert_eq!(status, Some(2));
    assert!(stderr.contains("--http <ADDR>"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gateway_reaches_an_http_server_and_says_why_it_cannot() {
    use tooldef_gateway::{Gateway, ServerConfig};

    let open = example(&[]).await;
    let guarded = example(&["--bearer-token", "s3cret"]).await;
    // The upstream is not asked anything here.
    let gateway = Gateway::builder("http://127.0.0.1:9/v1")
        .server("open", ServerConfig::http(open.url()))
        .server("guarded", ServerConfig::http(guarded.url()))
        .start()
        .await
        .unwrap();
    let names: Vec<String> = gateway
        .tools(tooldef::Target::ChatCompletions)
        .iter()
        .map(|t| {
            t["function"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect();
    assert!(names.contains(&"open__get_weather".to_owned()), "{names:?}");
    assert!(
        !names.iter().any(|n| n.starts_with("guarded__")),
        "{names:?}"
    );
    let guarded_status = gateway
        .servers()
        .into_iter()
        .find(|s| s["name"] == "guarded")
        .unwrap();
    assert_eq!(guarded_status["state"], "down");
    assert_eq!(
        guarded_status["last_error"],
        format!(
            "`{}` did not start an MCP session: unauthorised (HTTP 401, `WWW-Authenticate: Bearer`)",
            guarded.url()
        ),
        "{guarded_status}"
    );
}
