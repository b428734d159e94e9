//! The gateway as a library, with Rust tools: `Gateway::builder(…).toolset(…)` in this process,
//! the scripted upstream in this process too, a client speaking HTTP to both. The end-to-end
//! suite with MCP servers and the official SDK is `tests/python/gateway.sh`.

use std::sync::Arc;

use serde_json::{Value, json};
use tokio::net::TcpListener;
use tooldef_gateway::Gateway;

async fn serve(router: axum::Router) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    format!("http://{address}")
}

/// The upstream's URL and the gateway's, with the showcase's tools injected as `travel__…`.
async fn start() -> (String, String) {
    let upstream = serve(tooldef_scripted_upstream::router(Arc::new(
        tooldef_scripted_upstream::App::new(true),
    )))
    .await;
    let tools = tooldef_examples::showcase::toolset_builder()
        .build()
        .unwrap();
    let gateway = Gateway::builder(format!("{upstream}/v1"))
        .toolset("travel", tools)
        .start()
        .await
        .unwrap();
    (upstream, serve(gateway.router()).await)
}

fn script(marker: &str, turns: Value) -> String {
    format!("{marker}: what is the weather?\nSCRIPT: {turns}")
}

async fn logged(client: &reqwest::Client, upstream: &str, marker: &str) -> Vec<Value> {
    client
        .get(format!("{upstream}/_log?marker={marker}"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rust_tools_run_in_the_gateway_round_after_round() {
    let (upstream, gateway) = start().await;
    let client = reqwest::Client::new();
    let turns = json!([
        {"content": "Checking.", "calls": [
            {"name": "travel__get_weather", "arguments": {"city": "Lisbon", "days": null, "units": null, "include_hourly": null}},
            {"name": "travel__convert_currency", "arguments": {"amount": 10, "from": "EUR", "to": "USD", "round_to": null}}
        ]},
        {"content": "results: {tool_results}"}
    ]);
    let answer = client
        .post(format!("{gateway}/v1/chat/completions"))
        .bearer_auth("sk-library")
        .json(&json!({"model": "m", "messages": [{"role": "user", "content": script("LIB1", turns)}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    assert_eq!(answer.headers()["x-tooldef-rounds"], "2");
    let answer: Value = answer.json().await.unwrap();
    let message = &answer["choices"][0]["message"];
    let text = message["content"].as_str().unwrap();
    assert!(text.starts_with("Checking.\n\nresults: "), "{text}");
    assert!(text.contains("Lisbon"), "{text}");
    assert!(
        text.ends_with(",\"10.8\"]"),
        "10 EUR in USD at the showcase's rate: {text}"
    );
    assert!(message.get("tool_calls").is_none(), "{message}");
    assert_eq!(answer["choices"][0]["finish_reason"], "stop");

    let requests = logged(&client, &upstream, "LIB1").await;
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0]["headers"]["authorization"], "Bearer sk-library");
    let tools = requests[0]["body"]["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 9);
    let weather = tools
        .iter()
        .find(|t| t["function"]["name"] == "travel__get_weather")
        .unwrap();
    assert_eq!(weather["function"]["strict"], true);
    let followed = requests[1]["body"]["messages"].as_array().unwrap();
    assert_eq!(followed.len(), 4, "{followed:?}");
    assert_eq!(followed[1]["tool_calls"].as_array().unwrap().len(), 2);
    assert_eq!(followed[2]["role"], "tool");
    assert_eq!(
        followed[2]["tool_call_id"],
        followed[1]["tool_calls"][0]["id"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamed_response_hides_the_injected_calls() {
    let (upstream, gateway) = start().await;
    let client = reqwest::Client::new();
    let turns = json!([
        {"calls": [{"name": "travel__get_server_time", "arguments": {}}]},
        {"content": "time: {tool_results}"}
    ]);
    let body = client
        .post(format!("{gateway}/v1/responses"))
        .json(&json!({"model": "m", "stream": true, "input": script("LIB2", turns)}))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let events: Vec<Value> = body
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .map(|data| serde_json::from_str(data).unwrap())
        .collect();
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds.iter().filter(|k| **k == "response.created").count(),
        1
    );
    assert_eq!(kinds.last(), Some(&"response.completed"));
    assert!(
        !body.contains("function_call"),
        "an injected call was shown: {body}"
    );
    let sequence: Vec<u64> = events
        .iter()
        .map(|e| e["sequence_number"].as_u64().unwrap())
        .collect();
    assert!(
        sequence.windows(2).all(|w| w[1] == w[0] + 1),
        "{sequence:?}"
    );
    let completed = &events.last().unwrap()["response"];
    assert_eq!(completed["id"], events[0]["response"]["id"]);
    let output = completed["output"].as_array().unwrap();
    assert_eq!(output.len(), 1);
    let text = output[0]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("time: [\"20"), "{text}");
    assert_eq!(logged(&client, &upstream, "LIB2").await.len(), 2);
}
