use opentelemetry::trace::{SpanId, TraceId, TracerProvider};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use tracing_subscriber::layer::SubscriberExt;

use super::*;
use crate::trace_context::TRACEPARENT;

const TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN: &str = "00f067aa0ba902b7";

fn attribute(span: &SpanData, key: &str) -> Option<String> {
    span.attributes
        .iter()
        .find(|kv| kv.key.as_str() == key)
        .map(|kv| kv.value.to_string())
}

/// Spans recorded in memory through tracing-opentelemetry, for as long as the guard lives
/// (on this thread: the tests' runtime runs on their own thread only).
fn recording() -> (
    InMemorySpanExporter,
    SdkTracerProvider,
    tracing::subscriber::DefaultGuard,
) {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("test")));
    let guard = tracing::subscriber::set_default(subscriber);
    (exporter, provider, guard)
}

/// The parent id of a `traceparent`.
fn parent_of(traceparent: &str) -> SpanId {
    assert!(
        traceparent.starts_with(&format!("00-{TRACE}-")),
        "{traceparent}"
    );
    SpanId::from_hex(&traceparent[36..52]).unwrap()
}

#[tokio::test]
async fn a_request_continues_the_clients_trace_and_hands_its_own_spans_on() {
    let (exporter, provider, _default) = recording();

    let telemetry = Telemetry::new(true);
    let mut headers = HeaderMap::new();
    let client = format!("00-{TRACE}-{CLIENT_SPAN}-01");
    headers.insert(TRACEPARENT, client.parse().unwrap());
    let body = serde_json::json!({"model": "m-1", "stream": true, "messages": []});
    let call = ToolCall {
        id: "call_1".to_owned(),
        name: "example__crash".to_owned(),
        arguments: r#"{"message": "boom"}"#.to_owned(),
    };
    let mut upstream = HeaderMap::new();
    let mut meta = Map::new();
    let response = telemetry
        .begin(Api::Chat, &headers, body.as_object())
        .serve(async {
            let round = UpstreamCall::start("/v1/chat/completions");
            round.propagate(&mut upstream);
            round.finish(Some(StatusCode::OK));
            let run = async {
                meta = mcp_meta();
                CallOutcome::error("it crashed".to_owned())
            };
            tool_call("example", "crash", &call, run).await;
            Response::new(Body::from("answer"))
        })
        .await;
    drop(response);
    provider.force_flush().unwrap();
    let spans = exporter.get_finished_spans().unwrap();
    let find = |name: &str| {
        spans
            .iter()
            .find(|s| s.name.starts_with(name))
            .unwrap_or_else(|| panic!("no span {name}: {spans:?}"))
    };
    let (request, round, tool) = (
        find("POST /v1/chat/completions"),
        find("chat round 1"),
        find("execute_tool crash"),
    );
    let trace = TraceId::from_hex(TRACE).unwrap();
    for span in [request, round, tool] {
        assert_eq!(span.span_context.trace_id(), trace, "{}", span.name);
    }
    // The client's span is the request's parent; the request the round's and the call's.
    assert_eq!(
        request.parent_span_id,
        SpanId::from_hex(CLIENT_SPAN).unwrap()
    );
    assert_eq!(round.parent_span_id, request.span_context.span_id());
    assert_eq!(tool.parent_span_id, request.span_context.span_id());
    // The upstream and the MCP server get their own span as their parent, not the client's.
    assert_eq!(
        parent_of(upstream[TRACEPARENT].to_str().unwrap()),
        round.span_context.span_id()
    );
    assert_eq!(
        parent_of(meta["traceparent"].as_str().unwrap()),
        tool.span_context.span_id()
    );
    assert_eq!(
        attribute(request, "gen_ai.request.model").as_deref(),
        Some("m-1")
    );
    assert_eq!(attribute(request, "tooldef.rounds").as_deref(), Some("1"));
    assert_eq!(
        attribute(request, "tooldef.tool_calls").as_deref(),
        Some("1")
    );
    assert_eq!(
        attribute(request, "http.response.status_code").as_deref(),
        Some("200")
    );
    assert_eq!(attribute(round, "tooldef.round").as_deref(), Some("1"));
    assert_eq!(
        attribute(tool, "tooldef.server").as_deref(),
        Some("example")
    );
    assert_eq!(attribute(tool, "tooldef.tool").as_deref(), Some("crash"));
    assert_eq!(attribute(tool, "tooldef.outcome").as_deref(), Some("error"));
    // Asked for, the call's content is there.
    assert_eq!(
        attribute(tool, "gen_ai.tool.call.arguments").as_deref(),
        Some(r#"{"message": "boom"}"#)
    );
    assert_eq!(
        attribute(tool, "gen_ai.tool.call.result").as_deref(),
        Some("it crashed")
    );

    let text = telemetry.metrics.render();
    for line in [
        r#"tooldef_gateway_requests_total{api="chat",status="200"} 1"#,
        r#"tooldef_gateway_rounds_total{api="chat"} 1"#,
        r#"tooldef_gateway_tool_calls_total{server="example",tool="crash",outcome="error"} 1"#,
        r#"tooldef_gateway_live_conversations{api="chat"} 0"#,
    ] {
        assert!(text.lines().any(|l| l == line), "no `{line}` in:\n{text}");
    }
}

#[tokio::test]
async fn content_stays_off_spans_unless_asked_and_a_timeout_is_its_own_outcome() {
    let (exporter, provider, _default) = recording();
    let telemetry = Telemetry::new(false);
    let call = ToolCall {
        id: "call_2".to_owned(),
        name: "example__sleep".to_owned(),
        arguments: r#"{"millis": 5000}"#.to_owned(),
    };
    let response = telemetry
        .begin(Api::Responses, &HeaderMap::new(), None)
        .serve(async {
            let run = async {
                timed_out();
                CallOutcome::error("too slow".to_owned())
            };
            tool_call("example", "sleep", &call, run).await;
            Response::new(Body::empty())
        })
        .await;
    drop(response);
    provider.force_flush().unwrap();
    let spans = exporter.get_finished_spans().unwrap();
    let tool = spans
        .iter()
        .find(|s| s.name == "execute_tool sleep")
        .unwrap();
    assert_eq!(
        attribute(tool, "tooldef.outcome").as_deref(),
        Some("timeout")
    );
    assert_eq!(attribute(tool, "gen_ai.tool.call.arguments"), None);
    assert_eq!(attribute(tool, "gen_ai.tool.call.result"), None);
    // No client context: the request is a trace of its own.
    let request = spans
        .iter()
        .find(|s| s.name == "POST /v1/responses")
        .unwrap();
    assert_eq!(request.parent_span_id, SpanId::INVALID);
    let text = telemetry.metrics.render();
    let line =
        r#"tooldef_gateway_tool_calls_total{server="example",tool="sleep",outcome="timeout"} 1"#;
    assert!(text.lines().any(|l| l == line), "no `{line}` in:\n{text}");
}

#[test]
fn content_is_clipped_at_a_character() {
    // Byte CONTENT_LIMIT is inside an `é`: the cut comes before it.
    let long = format!("a{}", "é".repeat(CONTENT_LIMIT));
    let clipped = clipped(&long);
    let kept = CONTENT_LIMIT - 1;
    assert_eq!(
        clipped,
        format!("{}… ({} more bytes)", &long[..kept], long.len() - kept)
    );
    assert_eq!(super::clipped("short"), "short");
}
