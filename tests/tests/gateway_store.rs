//! The gateway's store as a library user meets it, with no Redis needed: a Redis store that
//! cannot be reached (a port nothing listens on) answers what needs it with 503
//! `store_unavailable` and lets the rest through; a turn larger than the store keeps is not
//! given. Redis itself, killed and started again under two instances, is
//! `tests/python/gateway_store.sh`.

use std::sync::Arc;

use serde_json::{Value, json};
use tokio::net::TcpListener;
use tooldef_gateway::{Config, GatewayBuilder};

async fn serve(router: axum::Router) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    format!("http://{address}")
}

/// The upstream's URL and the gateway's (the showcase's tools injected as `travel__…`), with
/// `store` set as `configure` says.
async fn start(configure: impl FnOnce(&mut Config)) -> (String, String) {
    let upstream = serve(tooldef_scripted_upstream::router(Arc::new(
        tooldef_scripted_upstream::App::new(true),
    )))
    .await;
    let mut config = Config::new(format!("{upstream}/v1"));
    configure(&mut config);
    let tools = tooldef_examples::showcase::toolset_builder()
        .build()
        .unwrap();
    let gateway = GatewayBuilder::from_config(config)
        .toolset("travel", tools)
        .start()
        .await
        .unwrap();
    (upstream, serve(gateway.router()).await)
}

/// A Redis URL where nothing listens.
fn unreachable_redis() -> String {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    format!("redis://127.0.0.1:{port}/0")
}

fn user(marker: &str, turns: Value) -> Value {
    json!({"role": "user", "content": format!("{marker}\nSCRIPT: {turns}")})
}

fn lookup_order() -> Value {
    json!({"type": "function", "function": {"name": "lookup_order", "parameters": {"type": "object", "properties": {"id": {"type": "string"}}}}})
}

/// A reply that calls an injected tool and the client's `lookup_order` (with `arguments_raw`).
fn mixed(arguments: &str) -> Value {
    json!([
        {"calls": [
            {"name": "travel__get_server_time", "arguments": {}, "id": "call_injected"},
            {"name": "lookup_order", "arguments_raw": arguments, "id": "call_client"}
        ]},
        {"content": "final: {tool_results}"}
    ])
}

async fn post(gateway: &str, path: &str, body: Value) -> (u16, Option<String>, Value) {
    let answer = reqwest::Client::new()
        .post(format!("{gateway}{path}"))
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = answer.status().as_u16();
    let store = answer
        .headers()
        .get("x-tooldef-store")
        .map(|v| v.to_str().unwrap().to_owned());
    (status, store, answer.json().await.unwrap())
}

async fn logged(upstream: &str, marker: &str) -> usize {
    reqwest::get(format!("{upstream}/_log?marker={marker}"))
        .await
        .unwrap()
        .json::<Vec<Value>>()
        .await
        .unwrap()
        .len()
}

fn assert_store_unavailable(error: &Value, url: &str) {
    let error = &error["error"];
    assert_eq!(error["type"], "server_error", "{error}");
    assert_eq!(error["code"], "store_unavailable", "{error}");
    assert_eq!(error["param"], Value::Null, "{error}");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains(url) && message.contains("Retry later"),
        "{message}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_that_cannot_be_reached_fails_what_needs_it_only() {
    let url = unreachable_redis();
    let (upstream, gateway) = start(|config| config.store = Some(url.clone())).await;
    let chat = "/v1/chat/completions";

    // A follow-up answering the calls of its last turn: 503, and the model is not asked.
    let follow_up = json!({"model": "m", "tools": [lookup_order()], "messages": [
        user("STORE1", mixed("{}")),
        {"role": "assistant", "content": null, "tool_calls": [{"id": "call_client", "type": "function", "function": {"name": "lookup_order", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_client", "content": "shipped"},
    ]});
    let (status, _, error) = post(&gateway, chat, follow_up).await;
    assert_eq!(status, 503, "{error}");
    assert_store_unavailable(&error, &url);
    assert_eq!(logged(&upstream, "STORE1").await, 0);

    // `previous_response_id`, and an approval answered without its request: the same.
    let (status, _, error) = post(
        &gateway,
        "/v1/responses",
        json!({"model": "m", "previous_response_id": "resp_1", "input": [{"type": "function_call_output", "call_id": "c", "output": "x"}]}),
    )
    .await;
    assert_eq!(status, 503, "{error}");
    assert_store_unavailable(&error, &url);
    let (status, _, error) = post(
        &gateway,
        "/v1/responses",
        json!({"model": "m", "tools": [{"type": "mcp", "server_label": "travel"}],
               "input": [{"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": true}]}),
    )
    .await;
    assert_eq!(status, 503, "{error}");
    assert_store_unavailable(&error, &url);

    // A mixed turn, which must be kept for its follow-up: not given.
    let (status, _, error) = post(
        &gateway,
        chat,
        json!({"model": "m", "tools": [lookup_order()], "messages": [user("STORE2", mixed("{}"))]}),
    )
    .await;
    assert_eq!(status, 503, "{error}");
    assert_store_unavailable(&error, &url);
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not given to you"),
        "{error}"
    );

    // Injected calls only: nothing to keep.
    let turns = json!([{"calls": [{"name": "travel__get_server_time", "arguments": {}}]}, {"content": "time: {tool_results}"}]);
    let (status, store, answer) = post(
        &gateway,
        chat,
        json!({"model": "m", "messages": [user("STORE3", turns)]}),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(store, None);

    // Tool results and then a user message, before the model answered them: the turn is still
    // in progress, and needs the store.
    let called = [
        json!({"role": "user", "content": "first"}),
        json!({"role": "assistant", "content": null, "tool_calls": [{"id": "call_old", "type": "function", "function": {"name": "lookup_order", "arguments": "{}"}}]}),
        json!({"role": "tool", "tool_call_id": "call_old", "content": "shipped"}),
    ];
    let (status, _, error) = post(
        &gateway,
        chat,
        json!({"model": "m", "tools": [lookup_order()], "messages": [
            called[0], called[1], called[2], user("STORE4", json!([{"content": "welcome"}])),
        ]}),
    )
    .await;
    assert_eq!(status, 503, "{error}");
    assert_store_unavailable(&error, &url);

    // Tool calls of earlier turns only (the model answered them): sent as the client wrote
    // them, and said.
    let (status, store, answer) = post(
        &gateway,
        chat,
        json!({"model": "m", "tools": [lookup_order()], "messages": [
            called[0], called[1], called[2],
            {"role": "assistant", "content": "It shipped."},
            user("STORE4", json!([{"content": "welcome"}])),
        ]}),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["choices"][0]["message"]["content"], "welcome");
    assert_eq!(store.as_deref(), Some("unavailable"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_larger_than_the_store_keeps_is_not_given() {
    let (_, gateway) = start(|config| config.store_max_entry_bytes = 1024).await;
    let big = format!("{{\"id\": \"{}\"}}", "x".repeat(2000));
    let (status, _, error) = post(
        &gateway,
        "/v1/chat/completions",
        json!({"model": "m", "tools": [lookup_order()], "messages": [user("STORE5", mixed(&big))]}),
    )
    .await;
    assert_eq!(status, 413, "{error}");
    assert_eq!(error["error"]["code"], "store_entry_too_large", "{error}");
    let message = error["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("more than the 1 KiB") && message.contains("store_max_entry_bytes"),
        "{message}"
    );
    // A turn within the bound is given, as before.
    let (status, _, answer) = post(
        &gateway,
        "/v1/chat/completions",
        json!({"model": "m", "tools": [lookup_order()], "messages": [user("STORE6", mixed("{}"))]}),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["choices"][0]["finish_reason"], "tool_calls");
}
