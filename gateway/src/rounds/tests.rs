//! The loop's own tests: a gateway with one Rust tool (`w__get_weather`) in front of the scripted
//! upstream (in this process), driven over HTTP, the upstream's log read to see what each round
//! sent. The scripted upstream plays the `SCRIPT:` of the last user message.

use std::sync::Arc;

use serde_json::{Value, json};
use tooldef::ToolSet;
use tooldef_scripted_upstream as scripted;

use crate::Gateway;

/// The weather of a city.
#[tooldef::tool]
fn get_weather(city: String) -> String {
    format!("Sunny in {city}")
}

async fn serve(router: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    format!("http://{address}")
}

struct Setup {
    upstream: String,
    gateway: String,
    http: reqwest::Client,
}

/// A gateway in front of a scripted upstream serving `apis`, answering with `quirks`.
async fn setup(apis: &[scripted::Api], quirks: scripted::Quirks, max_rounds: u32) -> Setup {
    let upstream = serve(scripted::router(Arc::new(scripted::App::with_config(
        scripted::Config {
            log: true,
            apis: scripted::Apis::only(apis),
            quirks,
        },
    ))))
    .await;
    let tools = ToolSet::builder().tool(GetWeather).build().unwrap();
    let gateway = Gateway::builder(format!("{upstream}/v1"))
        .toolset("w", tools)
        .max_rounds(max_rounds)
        .start()
        .await
        .unwrap();
    Setup {
        upstream,
        gateway: serve(gateway.router()).await,
        http: reqwest::Client::new(),
    }
}

async fn chat_only() -> Setup {
    setup(&[scripted::Api::Chat], scripted::Quirks::None, 10).await
}

impl Setup {
    /// A whole answer: status, body.
    async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        let answer = self
            .http
            .post(format!("{}{path}", self.gateway))
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = answer.status().as_u16();
        (status, answer.json().await.unwrap())
    }

    /// A streamed answer's events (each one's `data`, `[DONE]` as a string).
    async fn stream(&self, path: &str, mut body: Value) -> Vec<Value> {
        body["stream"] = json!(true);
        let text = self
            .http
            .post(format!("{}{path}", self.gateway))
            .json(&body)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        text.lines()
            .filter_map(|line| line.strip_prefix("data: "))
            .map(|data| serde_json::from_str(data).unwrap_or_else(|_| json!(data)))
            .collect()
    }

    /// The upstream requests whose bodies hold `marker`.
    async fn log(&self, marker: &str) -> Vec<Value> {
        let log: Value = self
            .http
            .get(format!("{}/_log?marker={marker}", self.upstream))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        log.as_array().unwrap().clone()
    }
}

fn script(marker: &str, turns: Value) -> String {
    format!("{marker}: what is the weather?\nSCRIPT: {turns}")
}

fn chat_request(marker: &str, turns: Value) -> Value {
    json!({"model": "m", "messages": [{"role": "user", "content": script(marker, turns)}]})
}

/// A call to the gateway's tool cut at the token limit: nothing of it runs, the client is told
/// the answer was cut (`length`), and the broken arguments are never sent back upstream.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_cut_at_the_token_limit_is_the_last_round() {
    let setup = chat_only().await;
    let turns = json!([
        {"content": "Let me look.", "calls": [{"name": "w__get_weather", "arguments_raw": "{\"city\": \"Lis"}], "finish": "length"},
        {"content": "never asked"}
    ]);
    let (status, completion) = setup
        .post("/v1/chat/completions", chat_request("CUT1", turns.clone()))
        .await;
    assert_eq!(status, 200, "{completion}");
    let choice = &completion["choices"][0];
    assert_eq!(choice["finish_reason"], "length", "{completion}");
    assert_eq!(choice["message"]["content"], "Let me look.");
    assert!(
        choice["message"].get("tool_calls").is_none(),
        "{completion}"
    );
    assert_eq!(setup.log("CUT1").await.len(), 1, "one round only");

    let events = setup
        .stream("/v1/chat/completions", chat_request("CUT2", turns))
        .await;
    let finishes: Vec<&Value> = events
        .iter()
        .filter_map(|event| event.pointer("/choices/0/finish_reason"))
        .filter(|finish| !finish.is_null())
        .collect();
    assert_eq!(finishes, [&json!("length")], "{events:?}");
    assert_eq!(events.last(), Some(&json!("[DONE]")));
    assert!(
        !serde_json::to_string(&events)
            .unwrap()
            .contains("w__get_weather"),
        "the gateway's call is not shown: {events:?}"
    );
    assert_eq!(setup.log("CUT2").await.len(), 1, "one round only");
}

/// A cut call to the client's own tool reaches it marked `length`, not `tool_calls`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clients_call_cut_short_is_marked_length() {
    let setup = chat_only().await;
    let turns = json!([{"calls": [{"name": "lookup", "arguments_raw": "{\"order\": "}], "finish": "length"}]);
    let mut request = chat_request("CUT3", turns);
    request["tools"] = json!([{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}]);
    let (_, completion) = setup.post("/v1/chat/completions", request).await;
    let choice = &completion["choices"][0];
    assert_eq!(choice["finish_reason"], "length", "{completion}");
    assert_eq!(
        choice["message"]["tool_calls"][0]["function"]["arguments"], "{\"order\": ",
        "the client gets what the model wrote"
    );
}

/// Arguments that are not a JSON object, in a reply that was not cut: the call is answered
/// "not run" and goes back upstream with `{}`, never as it was.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arguments_that_are_not_an_object_are_not_run_nor_sent_back() {
    let setup = chat_only().await;
    let turns = json!([
        {"calls": [{"name": "w__get_weather", "arguments_raw": "Lisbon please", "id": "call_x"}]},
        {"content": "results: {tool_results}"}
    ]);
    let (_, completion) = setup
        .post("/v1/chat/completions", chat_request("BAD1", turns))
        .await;
    let text = completion["choices"][0]["message"]["content"]
        .as_str()
        .unwrap();
    assert!(text.contains("not a JSON object"), "{text}");
    let log = setup.log("BAD1").await;
    assert_eq!(log.len(), 2);
    let sent = &log[1]["body"]["messages"][1]["tool_calls"][0]["function"]["arguments"];
    assert_eq!(sent, "{}", "{}", log[1]["body"]);
}

/// A bound of the gateway's that cut the rounds is said in the body, not only in a header.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bound_that_cut_the_rounds_is_said_in_the_body() {
    let setup = setup(&[scripted::Api::Chat], scripted::Quirks::None, 2).await;
    let call = json!({"calls": [{"name": "w__get_weather", "arguments": {"city": "Oslo"}}]});
    let turns = json!([call, call, call]);
    let (_, completion) = setup
        .post(
            "/v1/chat/completions",
            chat_request("BOUND1", turns.clone()),
        )
        .await;
    assert_eq!(
        completion["tooldef"]["incomplete"]["reason"], "max_rounds",
        "{completion}"
    );
    let log = setup.log("BOUND1").await;
    assert_eq!(log[1]["body"]["tool_choice"], "none", "the last round");
    let events = setup
        .stream("/v1/chat/completions", chat_request("BOUND2", turns))
        .await;
    assert!(
        events
            .iter()
            .any(|event| event.pointer("/tooldef/incomplete/reason") == Some(&json!("max_rounds"))),
        "{events:?}"
    );
}

/// A named `tool_choice` is sent as `required` with that tool alone in the first round, what
/// every upstream takes; the next round is `auto` with every tool.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_named_tool_choice_is_required_with_that_tool_alone() {
    let setup = chat_only().await;
    let turns = json!([
        {"calls": [{"name": "w__get_weather", "arguments": {"city": "Oslo"}}]},
        {"content": "done"}
    ]);
    let mut request = chat_request("NAMED1", turns);
    request["tools"] = json!([{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}]);
    request["tool_choice"] = json!({"type": "function", "function": {"name": "w__get_weather"}});
    let (status, _) = setup.post("/v1/chat/completions", request).await;
    assert_eq!(status, 200);
    let log = setup.log("NAMED1").await;
    let names = |body: &Value| -> Vec<String> {
        body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|tool| tool["function"]["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(log[0]["body"]["tool_choice"], "required");
    assert_eq!(names(&log[0]["body"]), ["w__get_weather"]);
    assert_eq!(log[1]["body"]["tool_choice"], "auto");
    assert_eq!(names(&log[1]["body"]), ["lookup", "w__get_weather"]);
}

/// A Responses client over an upstream that speaks only Chat Completions: the gateway finds it
/// out (the upstream's 404 on `/v1/responses`), translates both ways, and keeps the conversation
/// for `previous_response_id`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn responses_over_a_chat_only_upstream() {
    let setup = chat_only().await;
    let turns = json!([
        {"content": "Checking.", "calls": [{"name": "w__get_weather", "arguments": {"city": "Lisbon"}}]},
        {"content": "results: {tool_results}"}
    ]);
    let (status, response) = setup
        .post(
            "/v1/responses",
            json!({"model": "m", "input": script("RESP1", turns)}),
        )
        .await;
    assert_eq!(status, 200, "{response}");
    assert_eq!(response["object"], "response");
    assert_eq!(response["status"], "completed");
    let texts: Vec<&str> = response["output"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|item| item["type"] == "message")
        .flat_map(|item| item["content"].as_array().unwrap())
        .filter_map(|part| part["text"].as_str())
        .collect();
    assert!(
        texts.iter().any(|text| text.contains("Sunny in Lisbon")),
        "{response}"
    );
    let log = setup.log("RESP1").await;
    assert!(
        log.iter()
            .all(|entry| entry["path"] == "/v1/chat/completions")
    );
    assert_eq!(log.len(), 2);

    // The follow-up names the response; the upstream gets the whole conversation.
    let id = response["id"].as_str().unwrap();
    let (status, follow_up) = setup
        .post(
            "/v1/responses",
            json!({"model": "m", "previous_response_id": id, "input": "RESP1b: and tomorrow?\nSCRIPT: [{\"content\": \"same\"}]"}),
        )
        .await;
    assert_eq!(status, 200, "{follow_up}");
    let log = setup.log("RESP1b").await;
    let messages = log[0]["body"]["messages"].as_array().unwrap();
    assert!(messages.len() >= 4, "{messages:?}");
    assert!(
        serde_json::to_string(messages)
            .unwrap()
            .contains("Sunny in Lisbon"),
        "the earlier turns, the tool's result among them: {messages:?}"
    );

    // Streamed: a valid Responses stream, every event numbered, the call not shown.
    let events = setup
        .stream(
            "/v1/responses",
            json!({"model": "m", "input": script("RESP2", json!([{"content": "Checking.", "calls": [{"name": "w__get_weather", "arguments": {"city": "Oslo"}}]}, {"content": "results: {tool_results}"}]))}),
        )
        .await;
    let numbers: Vec<u64> = events
        .iter()
        .map(|event| event["sequence_number"].as_u64().unwrap())
        .collect();
    assert_eq!(numbers, (0..events.len() as u64).collect::<Vec<_>>());
    assert_eq!(events[0]["type"], "response.created");
    assert_eq!(events.last().unwrap()["type"], "response.completed");
    assert!(
        !serde_json::to_string(&events)
            .unwrap()
            .contains("w__get_weather")
    );
}

/// A Messages client over a Chat-only upstream: one message made of both rounds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn messages_over_a_chat_only_upstream() {
    let setup = chat_only().await;
    let turns = json!([
        {"content": "Checking.", "calls": [{"name": "w__get_weather", "arguments": {"city": "Lisbon"}}]},
        {"content": "results: {tool_results}"}
    ]);
    let request = json!({"model": "m", "max_tokens": 100, "messages": [{"role": "user", "content": script("MSG1", turns.clone())}]});
    let (status, message) = setup.post("/v1/messages", request.clone()).await;
    assert_eq!(status, 200, "{message}");
    assert_eq!(message["type"], "message");
    assert_eq!(message["stop_reason"], "end_turn");
    let text: String = message["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|block| block["text"].as_str())
        .collect();
    assert!(text.contains("Sunny in Lisbon"), "{message}");

    let mut request = request;
    request["messages"][0]["content"] = json!(script("MSG2", turns));
    let events = setup.stream("/v1/messages", request).await;
    let kinds: Vec<&str> = events
        .iter()
        .map(|event| event["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.first(), Some(&"message_start"), "{kinds:?}");
    assert_eq!(kinds.last(), Some(&"message_stop"), "{kinds:?}");
    assert_eq!(kinds.iter().filter(|k| **k == "message_start").count(), 1);
    assert!(
        !serde_json::to_string(&events)
            .unwrap()
            .contains("w__get_weather")
    );
}

/// llama.cpp's Responses stream (no `output_index`, no `sequence_number`): the client's stream
/// has both, and the gateway's call is held back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_responses_stream_without_output_indexes_is_read_as_it_comes() {
    let setup = setup(&scripted::Api::ALL, scripted::Quirks::LlamaCpp, 10).await;
    let turns = json!([
        {"calls": [{"name": "w__get_weather", "arguments": {"city": "Oslo"}}]},
        {"content": "results: {tool_results}"}
    ]);
    let events = setup
        .stream(
            "/v1/responses",
            json!({"model": "m", "input": script("LLAMA1", turns)}),
        )
        .await;
    assert!(
        !serde_json::to_string(&events)
            .unwrap()
            .contains("w__get_weather"),
        "{events:?}"
    );
    for (n, event) in events.iter().enumerate() {
        assert_eq!(event["sequence_number"], json!(n), "{event}");
        if event["type"]
            .as_str()
            .unwrap()
            .starts_with("response.output")
        {
            assert!(event["output_index"].is_u64(), "{event}");
        }
    }
    let last = events.last().unwrap();
    assert_eq!(last["type"], "response.completed", "{last}");
    assert!(last["response"]["created_at"].is_number(), "{last}");
}

/// The text a whole answer of `api` says.
fn answer_text(api: &str, answer: &Value) -> String {
    match api {
        "chat" => answer["choices"][0]["message"]["content"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        "responses" => answer["output"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|item| item["type"] == "message")
            .flat_map(|item| item["content"].as_array().into_iter().flatten())
            .filter_map(|part| part["text"].as_str())
            .collect(),
        _ => answer["content"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|block| block["text"].as_str())
            .collect(),
    }
}

/// The text a stream of `api` says, from its deltas.
fn streamed_text(api: &str, events: &[Value]) -> String {
    events
        .iter()
        .filter_map(|event| match api {
            "chat" => event.pointer("/choices/0/delta/content"),
            "responses" => (event["type"] == "response.output_text.delta").then(|| &event["delta"]),
            _ => event.pointer("/delta/text"),
        })
        .filter_map(Value::as_str)
        .collect()
}

/// A request of `api` asking the weather, scripted with `marker`.
fn request_of(api: &str, marker: &str, turns: Value) -> (String, Value) {
    let text = script(marker, turns);
    match api {
        "chat" => (
            "/v1/chat/completions".to_owned(),
            json!({"model": "m", "messages": [{"role": "user", "content": text}]}),
        ),
        "responses" => (
            "/v1/responses".to_owned(),
            json!({"model": "m", "input": text}),
        ),
        _ => (
            "/v1/messages".to_owned(),
            json!({"model": "m", "max_tokens": 256, "messages": [{"role": "user", "content": text}]}),
        ),
    }
}

/// Every client API over an upstream that speaks only each other one: the gateway finds it out,
/// the call runs, and the client gets one answer (whole and streamed) in its own API.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_client_api_over_every_other_upstream_api() {
    let upstreams = [
        (scripted::Api::Chat, "/v1/chat/completions"),
        (scripted::Api::Responses, "/v1/responses"),
        (scripted::Api::Messages, "/v1/messages"),
    ];
    for (upstream_api, upstream_path) in upstreams {
        let setup = setup(&[upstream_api], scripted::Quirks::None, 10).await;
        for client in ["chat", "responses", "messages"] {
            if client == upstream_api.name() {
                continue;
            }
            let turns = json!([
                {"content": "Checking.", "calls": [{"name": "w__get_weather", "arguments": {"city": "Lisbon"}}]},
                {"content": "results: {tool_results}"}
            ]);
            let marker = format!("PAIR-{client}-{}", upstream_api.name());
            let (path, request) = request_of(client, &marker, turns.clone());
            let (status, answer) = setup.post(&path, request).await;
            assert_eq!(
                status,
                200,
                "{client} over {}: {answer}",
                upstream_api.name()
            );
            let text = answer_text(client, &answer);
            assert!(
                text.contains("Sunny in Lisbon"),
                "{client} over {}: {answer}",
                upstream_api.name()
            );
            let log = setup.log(&marker).await;
            assert_eq!(
                log.len(),
                2,
                "{client} over {}: {log:?}",
                upstream_api.name()
            );
            assert!(
                log.iter().all(|entry| entry["path"] == upstream_path),
                "{log:?}"
            );

            let marker = format!("PAIRS-{client}-{}", upstream_api.name());
            let (path, request) = request_of(client, &marker, turns);
            let events = setup.stream(&path, request).await;
            let text = streamed_text(client, &events);
            assert!(
                text.contains("Sunny in Lisbon"),
                "{client} over {}, streamed: {events:?}",
                upstream_api.name()
            );
            assert!(
                !serde_json::to_string(&events)
                    .unwrap()
                    .contains("w__get_weather"),
                "{client} over {}, streamed: the gateway's call is not shown",
                upstream_api.name()
            );
        }
    }
}
