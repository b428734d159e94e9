//! The server over HTTP, as the gateway meets it: the router served on a free port with each
//! configuration, spoken to by a small HTTP/1.1 client (the crate has no HTTP client dependency,
//! and its tests need none: one request per connection, `Connection: close`).

use std::net::SocketAddr;
use std::sync::Arc;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::options::{Api, Apis, Config, Quirks};
use crate::server::{App, router};
use crate::sse;

async fn start(config: Config) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let app = Arc::new(App::with_config(config));
    tokio::spawn(async move { axum::serve(listener, router(app)).await });
    address
}

async fn default_server() -> SocketAddr {
    start(Config::default()).await
}

async fn llamacpp_server() -> SocketAddr {
    start(Config {
        quirks: Quirks::LlamaCpp,
        ..Config::default()
    })
    .await
}

struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|error| panic!("not JSON ({error}): {}", self.body))
    }

    /// The events of a stream, named or not, their data parsed unless it is `[DONE]`.
    fn events(&self) -> Vec<(Option<String>, Value)> {
        assert_eq!(self.header("content-type"), Some("text/event-stream"));
        sse::parse(&self.body)
            .into_iter()
            .map(|(name, data)| {
                let data = if data == "[DONE]" {
                    Value::String(data)
                } else {
                    serde_json::from_str(&data).unwrap()
                };
                (name, data)
            })
            .collect()
    }

    fn named_events(&self) -> Vec<(String, Value)> {
        self.events()
            .into_iter()
            .map(|(name, data)| (name.expect("a named event"), data))
            .collect()
    }
}

/// Undoes `Transfer-Encoding: chunked`.
fn dechunk(mut raw: &str) -> String {
    let mut body = String::new();
    loop {
        let (size, rest) = raw.split_once("\r\n").expect("a chunk size");
        let size = usize::from_str_radix(size.trim(), 16).unwrap();
        if size == 0 {
            return body;
        }
        body.push_str(&rest[..size]);
        raw = &rest[size + 2..];
    }
}

async fn send(
    address: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Answer {
    let mut stream = TcpStream::connect(address).await.unwrap();
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut raw = String::new();
    stream.read_to_string(&mut raw).await.unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap();
    let mut lines = head.lines();
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(": "))
        .map(|(name, value)| (name.to_ascii_lowercase(), value.to_owned()))
        .collect();
    let chunked = headers
        .iter()
        .any(|(name, value)| name == "transfer-encoding" && value == "chunked");
    Answer {
        status,
        body: if chunked {
            dechunk(body)
        } else {
            body.to_owned()
        },
        headers,
    }
}

async fn post(address: SocketAddr, path: &str, body: &Value) -> Answer {
    send(address, "POST", path, &[], &body.to_string()).await
}

fn script(marker: &str, turns: Value) -> String {
    format!("{marker}: what is the weather?\nSCRIPT: {turns}")
}

fn weather_tool() -> Value {
    json!({"name": "get_weather", "description": "The weather", "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}})
}

/// A Messages request whose last user message holds the script.
fn messages_request(marker: &str, turns: Value) -> Value {
    json!({
        "model": "claude-test",
        "max_tokens": 256,
        "tools": [weather_tool()],
        "messages": [{"role": "user", "content": script(marker, turns)}],
    })
}

#[tokio::test]
async fn messages_play_a_script_round_after_round() {
    let server = default_server().await;
    let turns = json!([
        {"content": "Checking.", "calls": [{"name": "get_weather", "arguments": {"city": "Lisbon"}}]},
        {"content": "results {tool_results} errors {tool_errors} tools {tools}"}
    ]);
    let mut request = messages_request("M-ROUNDS", turns);
    let first = send(
        server,
        "POST",
        "/v1/messages",
        &[
            ("x-api-key", "sk-ant-test"),
            ("anthropic-version", "2023-06-01"),
        ],
        &request.to_string(),
    )
    .await;
    assert_eq!(first.status, 200, "{}", first.body);
    assert!(first.header("request-id").unwrap().starts_with("req_011C"));
    let message = first.json();
    assert!(message["id"].as_str().unwrap().starts_with("msg_01"));
    assert_eq!(message["type"], "message");
    assert_eq!(message["role"], "assistant");
    assert_eq!(message["model"], "claude-test");
    assert_eq!(message["stop_reason"], "tool_use");
    assert_eq!(message["stop_sequence"], Value::Null);
    assert_eq!(
        message["content"][0],
        json!({"type": "text", "text": "Checking."})
    );
    let call = &message["content"][1];
    assert_eq!(call["type"], "tool_use");
    assert!(call["id"].as_str().unwrap().starts_with("toolu_01"));
    assert_eq!(call["input"], json!({"city": "Lisbon"}));
    assert!(message["usage"]["input_tokens"].as_u64().unwrap() >= 1);
    assert!(message["usage"]["output_tokens"].as_u64().unwrap() >= 1);

    // The gateway answers the call, as an error, and asks again.
    let messages = request["messages"].as_array_mut().unwrap();
    messages.push(json!({"role": "assistant", "content": message["content"]}));
    messages.push(json!({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": call["id"], "content": [{"type": "text", "text": "city not found"}], "is_error": true}
    ]}));
    let second = send(
        server,
        "POST",
        "/v1/messages",
        &[("authorization", "Bearer sk-ant-test")],
        &request.to_string(),
    )
    .await;
    let message = second.json();
    assert_eq!(message["stop_reason"], "end_turn");
    assert_eq!(
        message["content"],
        json!([{"type": "text", "text": r#"results ["city not found"] errors [true] tools ["get_weather"]"#}])
    );

    // Both were recorded with their path and whichever key header they came with.
    let log = send(server, "GET", "/_log?marker=M-ROUNDS", &[], "")
        .await
        .json();
    assert_eq!(log.as_array().unwrap().len(), 2);
    assert_eq!(log[0]["path"], "/v1/messages");
    assert_eq!(log[0]["headers"]["x-api-key"], "sk-ant-test");
    assert_eq!(log[1]["headers"]["authorization"], "Bearer sk-ant-test");
    assert_eq!(
        log[1]["body"]["messages"][2]["content"][0]["is_error"],
        true
    );
}

#[tokio::test]
async fn messages_stream_anthropics_events() {
    let server = default_server().await;
    let mut request = messages_request(
        "M-STREAM",
        json!([{"content": "On it.", "calls": [{"name": "get_weather", "arguments": {"city": "Lisbon"}, "id": "toolu_scripted"}]}]),
    );
    request["stream"] = true.into();
    let answer = post(server, "/v1/messages", &request).await;
    assert_eq!(answer.status, 200);
    let events = answer.named_events();
    let names: Vec<&str> = events.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(
        names,
        [
            "message_start",
            "content_block_start",
            "ping",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "content_block_start",
            "content_block_delta",
            "content_block_delta",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop",
        ]
    );
    assert_eq!(events[6].1["content_block"]["id"], "toolu_scripted");
    let input: String = events[7..11]
        .iter()
        .map(|(_, event)| event["delta"]["partial_json"].as_str().unwrap())
        .collect();
    assert_eq!(
        serde_json::from_str::<Value>(&input).unwrap(),
        json!({"city": "Lisbon"})
    );
    assert_eq!(events[12].1["delta"]["stop_reason"], "tool_use");
}

#[tokio::test]
async fn messages_refuse_what_anthropic_refuses() {
    let server = default_server().await;
    let mut request = messages_request("M-REFUSED", json!([]));
    request.as_object_mut().unwrap().remove("max_tokens");
    let answer = post(server, "/v1/messages", &request).await;
    assert_eq!(answer.status, 400);
    assert!(answer.header("request-id").is_some());
    let body = answer.json();
    assert_eq!(body["type"], "error");
    assert_eq!(
        body["error"],
        json!({"type": "invalid_request_error", "message": "max_tokens: Field required"})
    );
    assert_eq!(body["request_id"], answer.header("request-id").unwrap());

    let mut unanswered = messages_request("M-REFUSED", json!([]));
    unanswered["messages"]
        .as_array_mut()
        .unwrap()
        .push(json!({"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_a", "name": "get_weather", "input": {}}]}));
    unanswered["messages"]
        .as_array_mut()
        .unwrap()
        .push(json!({"role": "user", "content": "and?"}));
    let body = post(server, "/v1/messages", &unanswered).await.json();
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_a.")
    );

    let bad_script = post(
        server,
        "/v1/messages",
        &messages_request("M-REFUSED", json!([{"contents": "x"}])),
    )
    .await;
    assert_eq!(bad_script.status, 400);
    assert!(
        bad_script.json()["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("Invalid SCRIPT line")
    );
}

#[tokio::test]
async fn count_tokens_counts_and_checks_without_max_tokens() {
    let server = default_server().await;
    let request = json!({"model": "claude-test", "messages": [{"role": "user", "content": "Hello there, how are you?"}]});
    let answer = post(server, "/v1/messages/count_tokens", &request).await;
    assert_eq!(answer.status, 200);
    assert_eq!(
        answer.json(),
        json!({"input_tokens": request.to_string().len() / 4})
    );
    let refused = post(
        server,
        "/v1/messages/count_tokens",
        &json!({"model": "m", "messages": [{"role": "assistant", "content": "x"}]}),
    )
    .await;
    assert_eq!(refused.status, 400);
    assert_eq!(
        refused.json()["error"]["message"],
        "messages: first message must use the \"user\" role"
    );
    let log = send(server, "GET", "/_log", &[], "").await.json();
    assert_eq!(log[0]["path"], "/v1/messages/count_tokens");
}

#[tokio::test]
async fn apis_left_out_answer_not_found() {
    let server = start(Config {
        apis: Apis::only(&[Api::Chat]),
        ..Config::default()
    })
    .await;
    let not_found =
        json!({"error": {"message": "Not Found", "type": "not_found_error", "code": "not_found"}});
    for path in ["/v1/responses", "/v1/messages", "/v1/messages/count_tokens"] {
        let answer = post(server, path, &json!({"model": "m", "input": "APIS-OUT"})).await;
        assert_eq!(answer.status, 404, "{path}");
        assert_eq!(answer.json(), not_found, "{path}");
    }
    let chat = post(
        server,
        "/v1/chat/completions",
        &json!({"model": "m", "messages": [{"role": "user", "content": "APIS-OUT hi"}]}),
    )
    .await;
    assert_eq!(chat.status, 200);
    assert_eq!(chat.json()["choices"][0]["message"]["content"], "ok");
    // What the gateway tried is in the log, refused or not.
    let log = send(server, "GET", "/_log?marker=APIS-OUT", &[], "")
        .await
        .json();
    let paths: Vec<&str> = log
        .as_array()
        .unwrap()
        .iter()
        .map(|record| record["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        [
            "/v1/responses",
            "/v1/messages",
            "/v1/messages/count_tokens",
            "/v1/chat/completions"
        ]
    );

    // A path no API has keeps OpenAI's 404.
    let unknown = post(server, "/v1/embeddings", &json!({})).await;
    assert_eq!(unknown.status, 404);
    assert_eq!(unknown.json()["error"]["code"], "unknown_url");
}

const CUT_TURN: &str = r#"[{"content": "Let me", "calls": [{"name": "get_weather", "arguments_raw": "{\"city\": \"Lisbon\", \"days\":"}], "finish": "length"}]"#;

fn cut_turn() -> Value {
    serde_json::from_str(CUT_TURN).unwrap()
}

fn chat_request(marker: &str, turns: Value) -> Value {
    json!({
        "model": "m",
        "max_completion_tokens": 16,
        "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}],
        "messages": [{"role": "user", "content": script(marker, turns)}],
    })
}

fn responses_request(marker: &str, turns: Value) -> Value {
    json!({
        "model": "m",
        "max_output_tokens": 16,
        "tools": [{"type": "function", "name": "get_weather", "parameters": {"type": "object"}}],
        "input": script(marker, turns),
    })
}

#[tokio::test]
async fn a_turn_cut_short_on_chat() {
    let server = default_server().await;
    let mut request = chat_request("CUT-CHAT", cut_turn());
    let completion = post(server, "/v1/chat/completions", &request).await.json();
    let choice = &completion["choices"][0];
    assert_eq!(choice["finish_reason"], "length");
    assert_eq!(
        choice["message"]["tool_calls"][0]["function"]["arguments"],
        r#"{"city": "Lisbon", "days":"#
    );
    assert_eq!(completion["usage"]["completion_tokens"], 16);

    request["stream"] = true.into();
    request["stream_options"] = json!({"include_usage": true});
    let events = post(server, "/v1/chat/completions", &request)
        .await
        .events();
    let chunks: Vec<&Value> = events[..events.len() - 1]
        .iter()
        .map(|(_, chunk)| chunk)
        .collect();
    let finish = chunks
        .iter()
        .find_map(|chunk| chunk["choices"][0]["finish_reason"].as_str());
    assert_eq!(finish, Some("length"));
    assert_eq!(chunks.last().unwrap()["usage"]["completion_tokens"], 16);
    // Without a limit in the request, the count is the reply's own.
    request
        .as_object_mut()
        .unwrap()
        .remove("max_completion_tokens");
    request["max_tokens"] = 9.into();
    let events = post(server, "/v1/chat/completions", &request)
        .await
        .events();
    assert_eq!(events[events.len() - 2].1["usage"]["completion_tokens"], 9);
}

#[tokio::test]
async fn a_turn_cut_short_on_responses() {
    let server = default_server().await;
    let mut request = responses_request("CUT-RESP", cut_turn());
    let response = post(server, "/v1/responses", &request).await.json();
    assert_eq!(response["status"], "incomplete");
    assert_eq!(
        response["incomplete_details"],
        json!({"reason": "max_output_tokens"})
    );
    assert_eq!(
        response["output"][1]["arguments"],
        r#"{"city": "Lisbon", "days":"#
    );
    assert_eq!(response["usage"]["output_tokens"], 16);

    request["stream"] = true.into();
    let events = post(server, "/v1/responses", &request).await.named_events();
    let (last, event) = events.last().unwrap();
    assert_eq!(last, "response.incomplete");
    assert_eq!(event["response"]["status"], "incomplete");
    assert_eq!(event["response"]["usage"]["output_tokens"], 16);
}

#[tokio::test]
async fn a_turn_cut_short_on_messages() {
    let server = default_server().await;
    let mut request = messages_request("CUT-MSG", cut_turn());
    request["max_tokens"] = 16.into();
    let message = post(server, "/v1/messages", &request).await.json();
    assert_eq!(message["stop_reason"], "max_tokens");
    assert_eq!(message["usage"]["output_tokens"], 16);
    assert_eq!(message["content"][1]["input"], json!({"city": "Lisbon"}));

    request["stream"] = true.into();
    let events = post(server, "/v1/messages", &request).await.named_events();
    let input: String = events
        .iter()
        .filter(|(_, event)| event["delta"]["type"] == "input_json_delta")
        .map(|(_, event)| event["delta"]["partial_json"].as_str().unwrap())
        .collect();
    assert_eq!(input, r#"{"city": "Lisbon", "days":"#);
    let (_, delta) = events
        .iter()
        .find(|(name, _)| name == "message_delta")
        .unwrap();
    assert_eq!(delta["delta"]["stop_reason"], "max_tokens");
    assert_eq!(delta["usage"]["output_tokens"], 16);

    // max_tokens 0 generates nothing.
    request["stream"] = false.into();
    request["max_tokens"] = 0.into();
    let nothing = post(server, "/v1/messages", &request).await.json();
    assert_eq!(nothing["content"], json!([]));
    assert_eq!(nothing["stop_reason"], "max_tokens");
    assert_eq!(nothing["usage"]["output_tokens"], 0);
}

#[tokio::test]
async fn scripted_errors_on_messages_before_and_during_the_stream() {
    let server = default_server().await;
    let turns = json!([{"content": "Half", "error": {"status": 529, "mid_stream": true}}]);
    let mut request = messages_request("M-ERR", turns.clone());
    // Whole: the status, in Anthropic's shape with the type Anthropic gives it.
    let whole = post(server, "/v1/messages", &request).await;
    assert_eq!(whole.status, 529);
    let body = whole.json();
    assert_eq!(
        body["error"],
        json!({"type": "overloaded_error", "message": "Scripted error with status 529."})
    );
    assert!(body["request_id"].as_str().unwrap().starts_with("req_011C"));
    // Streamed: 200, then the error where the stream would go on.
    request["stream"] = true.into();
    let streamed = post(server, "/v1/messages", &request).await;
    assert_eq!(streamed.status, 200);
    let events = streamed.named_events();
    let names: Vec<&str> = events.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(
        names,
        [
            "message_start",
            "content_block_start",
            "ping",
            "content_block_delta",
            "error"
        ]
    );
    assert_eq!(events[4].1["error"]["type"], "overloaded_error");
    // Without mid_stream a stream fails before it starts, as on the other APIs.
    let before = messages_request(
        "M-ERR",
        json!([{"error": {"status": 429, "body": {"type": "error", "error": {"type": "rate_limit_error", "message": "slow"}}}}]),
    );
    let mut before = before;
    before["stream"] = true.into();
    let answer = post(server, "/v1/messages", &before).await;
    assert_eq!(answer.status, 429);
    assert_eq!(answer.json()["error"]["message"], "slow");
    // The OpenAI APIs answer a mid-stream error as a status.
    let mut chat = chat_request("M-ERR", turns);
    chat["stream"] = true.into();
    let answer = post(server, "/v1/chat/completions", &chat).await;
    assert_eq!(answer.status, 529);
    assert_eq!(answer.json()["error"]["type"], "scripted_error");
}

#[tokio::test]
async fn tool_choice_none_on_messages_plays_as_elsewhere() {
    let server = default_server().await;
    let mut request = messages_request("M-NONE", json!([{"calls": [{"name": "get_weather"}]}]));
    request["tool_choice"] = json!({"type": "none"});
    let message = post(server, "/v1/messages", &request).await.json();
    assert_eq!(
        message["content"],
        json!([{"type": "text", "text": "tool_choice was none"}])
    );
    assert_eq!(message["stop_reason"], "end_turn");
}

fn is_bare_id(id: &Value) -> bool {
    id.as_str()
        .is_some_and(|id| id.len() == 32 && id.bytes().all(|b| b.is_ascii_alphanumeric()))
}

#[tokio::test]
async fn llamacpp_chat_shapes() {
    let server = llamacpp_server().await;
    let turns =
        json!([{"calls": [{"name": "get_weather", "arguments": {"city": "Lisbon", "days": 1}}]}]);
    let mut request = chat_request("LLAMA-CHAT", turns);
    let completion = post(server, "/v1/chat/completions", &request).await.json();
    let message = &completion["choices"][0]["message"];
    assert_eq!(message["content"], "");
    assert!(message.get("refusal").is_none());
    assert!(is_bare_id(&message["tool_calls"][0]["id"]));
    assert_eq!(completion["system_fingerprint"], "b0-unknown");
    assert!(completion["timings"].is_object());
    assert_eq!(
        completion["id"].as_str().unwrap().len(),
        "chatcmpl-".len() + 32
    );

    request["stream"] = true.into();
    let events = post(server, "/v1/chat/completions", &request)
        .await
        .events();
    assert_eq!(events.last().unwrap().1, "[DONE]");
    let chunks: Vec<&Value> = events[..events.len() - 1]
        .iter()
        .map(|(_, chunk)| chunk)
        .collect();
    assert_eq!(
        chunks[0]["choices"][0]["delta"],
        json!({"role": "assistant", "content": null})
    );
    assert!(chunks.iter().all(|chunk| chunk.get("usage").is_none()));
    assert!(chunks.last().unwrap()["timings"].is_object());
    assert!(
        chunks[..chunks.len() - 1]
            .iter()
            .all(|chunk| chunk.get("timings").is_none())
    );
}

#[tokio::test]
async fn llamacpp_responses_shapes() {
    let server = llamacpp_server().await;
    let mut request = responses_request("LLAMA-RESP", cut_turn());
    request["stream"] = true.into();
    let events = post(server, "/v1/responses", &request).await.named_events();
    assert_eq!(
        events[0].1["response"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["id", "object", "status"]
    );
    for (_, event) in &events {
        assert!(event.get("sequence_number").is_none());
        assert!(event.get("output_index").is_none());
    }
    let (last, completed) = events.last().unwrap();
    assert_eq!(last, "response.completed");
    assert_eq!(completed["response"]["status"], "completed");
    assert_eq!(completed["response"]["usage"]["output_tokens"], 16);
    let call = &completed["response"]["output"][1];
    let call_id = call["call_id"].as_str().unwrap();
    assert!(call_id.starts_with("call_"));
    assert_eq!(call["id"], format!("fc_{}", &call_id["call_".len()..]));
    // The deltas name their item, not its index.
    assert!(events.iter().any(
        |(name, event)| name == "response.function_call_arguments.delta"
            && event["item_id"] == call["id"]
    ));

    // Whole, and continued by previous_response_id from what was stored.
    request["stream"] = false.into();
    let whole = post(server, "/v1/responses", &request).await.json();
    assert_eq!(whole["status"], "completed");
    assert!(whole.get("incomplete_details").is_none());
    let next = json!({
        "model": "m",
        "previous_response_id": whole["id"],
        "input": [{"type": "function_call_output", "call_id": whole["output"][1]["call_id"], "output": "sunny"}],
    });
    let answer = post(server, "/v1/responses", &next).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(answer.json()["output"][0]["content"][0]["text"], "done");
}

#[tokio::test]
async fn llamacpp_messages_ids_are_bare() {
    let server = llamacpp_server().await;
    let request = messages_request("LLAMA-MSG", json!([{"calls": [{"name": "get_weather"}]}]));
    let message = post(server, "/v1/messages", &request).await.json();
    assert!(is_bare_id(&message["content"][0]["id"]));
    assert_eq!(message["stop_reason"], "tool_use");
}

#[tokio::test]
async fn the_default_shapes_are_unchanged() {
    let server = default_server().await;
    let turns = json!([{"calls": [{"name": "get_weather"}]}]);
    let completion = post(
        server,
        "/v1/chat/completions",
        &chat_request("DEFAULT", turns.clone()),
    )
    .await
    .json();
    let message = &completion["choices"][0]["message"];
    assert_eq!(message["content"], Value::Null);
    assert_eq!(message["refusal"], Value::Null);
    assert!(
        message["tool_calls"][0]["id"]
            .as_str()
            .unwrap()
            .starts_with("call_")
    );
    assert!(completion.get("timings").is_none());
    let mut request = responses_request("DEFAULT", turns);
    request["stream"] = true.into();
    let events = post(server, "/v1/responses", &request).await.named_events();
    for (i, (_, event)) in events.iter().enumerate() {
        assert_eq!(event["sequence_number"], i);
    }
    assert_eq!(events.last().unwrap().0, "response.completed");
}
