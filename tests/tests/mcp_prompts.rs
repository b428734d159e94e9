//! Prompts, resources and completion served by tooldef's own `McpServer` from one `ToolSet`:
//! the `mcp_server` example with `--mcp-features` (its travel desk, examples/src/travel_desk.rs),
//! driven by rmcp's client over stdio and Streamable HTTP, on MCP 2025-11-25 (`initialize`, a
//! session, `resources/subscribe`) and 2026-07-28 (`server/discover`, stateless requests,
//! `subscriptions/listen`).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    ArgumentInfo, CallToolRequestParams, CompleteRequestParams, ErrorCode, GetPromptRequestParams,
    ProtocolVersion, ReadResourceRequestParams, Reference, ResourceContents,
    ResourceUpdatedNotificationParam, SubscribeRequestParams, UnsubscribeRequestParams,
};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt, NotificationContext, RunningService, ServiceError,
};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, RoleClient};
use serde_json::{Value, json};
use tokio::process::Command;
use tooldef_tests::served::Served;

#[derive(Debug, Clone, Copy)]
enum Wire {
    Stdio,
    Http,
}

/// The client: it remembers the resource updates it heard of.
#[derive(Clone, Default)]
struct Client {
    updated: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for Client {
    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.updated.lock().unwrap().push(params.uri);
    }
}

async fn start(
    wire: Wire,
    version: ProtocolVersion,
    client: Client,
) -> (RunningService<RoleClient, Client>, Option<Served>) {
    let modern = version == ProtocolVersion::V_2026_07_28;
    let lifecycle = if modern {
        ClientLifecycleMode::Discover {
            preferred_versions: vec![version.clone()],
        }
    } else {
        ClientLifecycleMode::Initialize
    };
    let (running, served) = match wire {
        Wire::Stdio => {
            let mut command = Command::new(tooldef_tests::mcp_server_example());
            command.arg("--mcp-features");
            let transport = TokioChildProcess::new(command).expect("the server starts");
            (
                client.serve_with_lifecycle(transport, lifecycle).await,
                None,
            )
        }
        Wire::Http => {
            let args: &'static [&'static str] = if modern {
                &["--mcp-features", "--stateless"]
            } else {
                &["--mcp-features"]
            };
            let served = tokio::task::spawn_blocking(move || Served::example(args))
                .await
                .expect("the server starts");
            let transport = StreamableHttpClientTransport::from_uri(served.url());
            (
                client.serve_with_lifecycle(transport, lifecycle).await,
                Some(served),
            )
        }
    };
    let running = running.expect("the client starts");
    assert_eq!(running.peer_info().unwrap().protocol_version, version);
    (running, served)
}

fn code(error: &ServiceError) -> Option<ErrorCode> {
    match error {
        ServiceError::McpError(data) => Some(data.code),
        _ => None,
    }
}

fn message(error: &ServiceError) -> String {
    match error {
        ServiceError::McpError(data) => data.message.to_string(),
        other => other.to_string(),
    }
}

fn arguments(value: Value) -> serde_json::Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => unreachable!("arguments are objects"),
    }
}

/// Listing, getting, reading and completing, and every error a client can cause.
async fn served(wire: Wire, version: ProtocolVersion) {
    // MCP 2026-07-28 answers a resource that is not there with -32602 (rmcp rewrites the
    // -32002 of earlier versions).
    let not_found = if version == ProtocolVersion::V_2026_07_28 {
        ErrorCode::INVALID_PARAMS
    } else {
        ErrorCode::RESOURCE_NOT_FOUND
    };
    let (client, _served) = start(wire, version, Client::default()).await;
    let capabilities = &client.peer_info().unwrap().capabilities;
    assert!(capabilities.prompts.is_some(), "{capabilities:?}");
    assert!(capabilities.completions.is_some(), "{capabilities:?}");
    let resources = capabilities.resources.as_ref().expect("resources declared");
    assert_eq!(resources.subscribe, Some(true));
    assert_eq!(resources.list_changed, Some(true));

    // prompts/list: the functions' docs and parameters.
    let prompts = client.list_all_prompts().await.unwrap();
    let listed = serde_json::to_value(&prompts).unwrap();
    assert_eq!(
        listed[0],
        json!({
            "name": "plan_trip",
            "title": "Plan a trip",
            "description": "Plan a trip to a city, with the weather and the flights in mind.",
            "arguments": [
                {"name": "city", "description": "The city to visit.", "required": true},
                {"name": "days", "description": "How many days the trip lasts.", "required": false}
            ]
        })
    );
    assert_eq!(listed[1]["name"], "cancellation_help");

    // prompts/get: arguments read through FromStr, the default used, messages of both roles.
    let got = client
        .get_prompt(
            GetPromptRequestParams::new("plan_trip")
                .with_arguments(arguments(json!({"city": "Lisbon", "days": "5"}))),
        )
        .await
        .unwrap();
    let messages = serde_json::to_value(&got.messages).unwrap();
    assert_eq!(messages[0]["role"], "user");
    assert!(
        messages[0]["content"]["text"]
            .as_str()
            .unwrap()
            .starts_with("Plan a 5-day trip to Lisbon."),
        "{messages}"
    );
    assert_eq!(messages[1]["role"], "assistant");
    let got = client
        .get_prompt(
            GetPromptRequestParams::new("plan_trip")
                .with_arguments(arguments(json!({"city": "Porto"}))),
        )
        .await
        .unwrap();
    let text = serde_json::to_value(&got.messages).unwrap()[0]["content"]["text"].clone();
    assert!(
        text.as_str().unwrap().contains("3-day trip to Porto"),
        "{text}"
    );
    // An embedded resource in a message.
    let help = client
        .get_prompt(GetPromptRequestParams::new("cancellation_help"))
        .await
        .unwrap();
    let embedded = serde_json::to_value(&help.messages).unwrap()[1]["content"].clone();
    assert_eq!(embedded["type"], "resource");
    assert_eq!(embedded["resource"]["uri"], "travel://rules/cancellations");
    assert_eq!(embedded["resource"]["mimeType"], "text/plain");

    // What the client got wrong is -32602, in words it can show.
    for (params, words) in [
        (
            json!({"city": "Lisbon", "days": "five"}),
            "argument `days`: \"five\" is not valid here",
        ),
        (json!({"days": "2"}), "argument `city` is required"),
        (
            json!({"city": "Lisbon", "nights": "2"}),
            "there is no argument `nights`",
        ),
        (json!({"city": ["Lisbon"]}), "must be a string"),
    ] {
        let error = client
            .get_prompt(GetPromptRequestParams::new("plan_trip").with_arguments(arguments(params)))
            .await
            .unwrap_err();
        assert_eq!(code(&error), Some(ErrorCode::INVALID_PARAMS), "{error:?}");
        assert!(message(&error).contains(words), "{}", message(&error));
    }
    let error = client
        .get_prompt(GetPromptRequestParams::new("plan_trp"))
        .await
        .unwrap_err();
    assert_eq!(code(&error), Some(ErrorCode::INVALID_PARAMS));
    assert!(
        message(&error).contains("Did you mean `plan_trip`?"),
        "{}",
        message(&error)
    );
    // The function's own error is the server's (-32603), with its words.
    let error = client
        .get_prompt(
            GetPromptRequestParams::new("plan_trip")
                .with_arguments(arguments(json!({"city": "Lisbon", "days": "0"}))),
        )
        .await
        .unwrap_err();
    assert_eq!(code(&error), Some(ErrorCode::INTERNAL_ERROR));
    assert!(
        message(&error).contains("`days` is at least 1"),
        "{}",
        message(&error)
    );

    // resources/list and resources/templates/list.
    let listed = client.list_all_resources().await.unwrap();
    let listed = serde_json::to_value(&listed).unwrap();
    assert_eq!(
        listed,
        json!([{
            "uri": "travel://airports",
            "name": "airports",
            "description": "The airports the flight search knows, as JSON.",
            "mimeType": "application/json"
        }])
    );
    let templates = client.list_all_resource_templates().await.unwrap();
    let templates: Vec<Value> = serde_json::to_value(&templates)
        .unwrap()
        .as_array()
        .unwrap()
        .clone();
    let uris: Vec<&str> = templates
        .iter()
        .map(|t| t["uriTemplate"].as_str().unwrap())
        .collect();
    assert_eq!(uris, ["travel://guides/{city}", "travel://maps/{city}.png"]);

    // resources/read: text with its MIME type, a template's variables, bytes as base64.
    let read = client
        .read_resource(ReadResourceRequestParams::new("travel://airports"))
        .await
        .unwrap();
    match &read.contents[..] {
        [
            ResourceContents::TextResourceContents {
                uri,
                mime_type,
                text,
                ..
            },
        ] => {
            assert_eq!(uri, "travel://airports");
            assert_eq!(mime_type.as_deref(), Some("application/json"));
            assert!(serde_json::from_str::<Value>(text).is_ok(), "{text}");
        }
        other => panic!("{other:?}"),
    }
    let read = client
        .read_resource(ReadResourceRequestParams::new("travel://guides/lisbon"))
        .await
        .unwrap();
    let read = serde_json::to_value(&read.contents).unwrap();
    assert!(
        read[0]["text"].as_str().unwrap().starts_with("# Lisbon"),
        "{read}"
    );
    assert_eq!(read[0]["uri"], "travel://guides/lisbon");
    assert_eq!(read[0]["mimeType"], "text/markdown");
    let map = client
        .read_resource(ReadResourceRequestParams::new("travel://maps/Paris.png"))
        .await
        .unwrap();
    let map = serde_json::to_value(&map.contents).unwrap();
    assert_eq!(map[0]["mimeType"], "image/png");
    // The map's bytes, base64-encoded: the same 1×1 PNG the conformance example writes so.
    assert_eq!(map[0]["blob"], tooldef_examples::conformance::IMAGE_PNG);
    // A URI nothing serves is -32002; the function's error is the server's.
    let error = client
        .read_resource(ReadResourceRequestParams::new("travel://nowhere"))
        .await
        .unwrap_err();
    assert_eq!(code(&error), Some(not_found), "{error:?}");
    let error = client
        .read_resource(ReadResourceRequestParams::new("travel://guides/Atlantis"))
        .await
        .unwrap_err();
    assert!(
        message(&error).contains("there is no guide for Atlantis"),
        "{}",
        message(&error)
    );

    // completion/complete, for a prompt's argument and a template's variable.
    let completed = client
        .complete(CompleteRequestParams::new(
            Reference::for_prompt("plan_trip"),
            ArgumentInfo::new("city", "l"),
        ))
        .await
        .unwrap();
    assert_eq!(completed.completion.values, ["Lisbon", "London", "Lyon"]);
    let completed = client
        .complete(CompleteRequestParams::new(
            Reference::for_resource("travel://guides/{city}"),
            ArgumentInfo::new("city", "P"),
        ))
        .await
        .unwrap();
    assert_eq!(completed.completion.values, ["Paris", "Porto"]);
    let error = client
        .complete(CompleteRequestParams::new(
            Reference::for_prompt("plan_trip"),
            ArgumentInfo::new("nights", "1"),
        ))
        .await
        .unwrap_err();
    assert_eq!(code(&error), Some(ErrorCode::INVALID_PARAMS));
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn served_over_stdio_on_2025_11_25() {
    served(Wire::Stdio, ProtocolVersion::V_2025_11_25).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn served_over_stdio_on_2026_07_28() {
    served(Wire::Stdio, ProtocolVersion::V_2026_07_28).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn served_over_http_on_2025_11_25() {
    served(Wire::Http, ProtocolVersion::V_2025_11_25).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn served_over_http_on_2026_07_28() {
    served(Wire::Http, ProtocolVersion::V_2026_07_28).await;
}

/// A session that subscribed to a guide hears that a tool changed it, and no more once it
/// unsubscribed; a URI nothing serves cannot be subscribed to. (`resources/subscribe` is MCP
/// 2025-11-25's, which rmcp's client marks deprecated for 2026-07-28's `subscriptions/listen`.)
#[allow(deprecated)]
async fn subscribed(wire: Wire) {
    let client = Client::default();
    let (running, _served) = start(wire, ProtocolVersion::V_2025_11_25, client.clone()).await;
    running
        .subscribe(SubscribeRequestParams::new("travel://guides/Lisbon"))
        .await
        .unwrap();
    let note = |city: &str| {
        CallToolRequestParams::new("guide_note").with_arguments(arguments(
            json!({"city": city, "note": "Tram 28 is crowded"}),
        ))
    };
    let result = running.call_tool(note("Lisbon")).await.unwrap();
    assert_eq!(result.is_error, Some(false), "{result:?}");
    // The notification was sent before the call's answer, on the same session.
    let heard = wait_for(&client, 1).await;
    assert_eq!(heard, ["travel://guides/Lisbon"]);
    let read = running
        .read_resource(ReadResourceRequestParams::new("travel://guides/Lisbon"))
        .await
        .unwrap();
    let text = serde_json::to_value(&read.contents).unwrap()[0]["text"].clone();
    assert!(
        text.as_str().unwrap().contains("- Tram 28 is crowded"),
        "{text}"
    );
    // Another guide, not subscribed to: nothing.
    running.call_tool(note("Paris")).await.unwrap();
    running
        .unsubscribe(UnsubscribeRequestParams::new("travel://guides/Lisbon"))
        .await
        .unwrap();
    running.call_tool(note("Lisbon")).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(client.updated.lock().unwrap().len(), 1);
    let error = running
        .subscribe(SubscribeRequestParams::new("travel://nowhere"))
        .await
        .unwrap_err();
    assert_eq!(code(&error), Some(ErrorCode::RESOURCE_NOT_FOUND));
    running.cancel().await.unwrap();
}

async fn wait_for(client: &Client, count: usize) -> Vec<String> {
    for _ in 0..50 {
        let heard = client.updated.lock().unwrap().clone();
        if heard.len() >= count {
            return heard;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    client.updated.lock().unwrap().clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscriptions_over_stdio() {
    subscribed(Wire::Stdio).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscriptions_over_http() {
    subscribed(Wire::Http).await;
}

/// MCP 2026-07-28: a `subscriptions/listen` stream that names a guide hears that a tool changed
/// it; a URI nothing serves is left out of what the server acknowledges.
async fn listened(wire: Wire) {
    let (running, _served) = start(wire, ProtocolVersion::V_2026_07_28, Client::default()).await;
    let filter = rmcp::model::SubscriptionFilter::builder()
        .resource_subscription("travel://guides/Lisbon")
        .resource_subscription("travel://nowhere")
        .build();
    let mut subscription = running.listen(filter).await.expect("subscriptions/listen");
    assert_eq!(
        subscription.acknowledged().resource_subscriptions,
        Some(vec!["travel://guides/Lisbon".to_owned()])
    );
    let result = running
        .call_tool(
            CallToolRequestParams::new("guide_note").with_arguments(arguments(
                json!({"city": "Lisbon", "note": "Miradouros at dusk"}),
            )),
        )
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(false), "{result:?}");
    let heard = tokio::time::timeout(Duration::from_secs(5), subscription.next())
        .await
        .expect("a notification within 5 s")
        .expect("the stream is open")
        .expect("a notification");
    match heard {
        rmcp::model::ServerNotification::ResourceUpdatedNotification(updated) => {
            assert_eq!(updated.params.uri, "travel://guides/Lisbon");
        }
        other => panic!("{other:?}"),
    }
    running.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listening_over_stdio_on_2026_07_28() {
    listened(Wire::Stdio).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listening_over_http_on_2026_07_28() {
    listened(Wire::Http).await;
}
