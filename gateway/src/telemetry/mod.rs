//! What each client request records: a span for the request (from its handler to the end of its
//! answer, the task a stream goes on in included), a span for each upstream call (a round) and
//! each tool call under it, and the gateway's [metrics](crate::metrics) for all three.
//!
//! Spans say where a request went and how it ended: its API, model and status, each round's
//! number and status, each tool call's server, tool and outcome; never the conversation, the
//! tools' arguments or results, nor a header, unless `trace_content` asks for the tool calls'
//! arguments and results (a debugging aid: they may hold anything). The W3C trace context goes
//! with them ([`trace_context`](crate::trace_context)).
//!
//! Numbers are recorded as `i64`: tracing-opentelemetry writes an unsigned one as text.
//!
//! A request's telemetry travels with it as a task-local, so that the upstream client and the
//! tool calls, several modules down and in the task a stream continues in ([`spawn`]), find it
//! without every signature on the way carrying it.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU32, Ordering};
use std::task::{Context, Poll};
use std::time::Instant;

use axum::body::{Body, Bytes, HttpBody};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::{Map, Value};
use tooldef::calls::ToolCall;
use tracing::field::Empty;
use tracing::{Instrument, Span};

use crate::api::Api;
use crate::metrics::Metrics;
use crate::servers::CallOutcome;
use crate::trace_context::{self, Carried};

tokio::task_local! {
    /// The client request being served.
    static REQUEST: Arc<Request>;
    /// Set when the tool call being run ran out of time.
    static TIMED_OUT: Arc<AtomicBool>;
}

/// The most of a tool call's arguments or result a span keeps, with `trace_content`.
const CONTENT_LIMIT: usize = 8 * 1024;

/// The gateway's telemetry: its metrics, and what its spans may record.
pub struct Telemetry {
    /// The gateway's own recorder, rendered at `/metrics`.
    pub metrics: Arc<Metrics>,
    /// Tool calls' spans record their arguments and results.
    trace_content: bool,
}

/// How a tool call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Ok,
    Error,
    Timeout,
}

impl Outcome {
    fn as_str(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Error => "error",
            Outcome::Timeout => "timeout",
        }
    }
}

/// One client request's telemetry.
struct Request {
    api: Api,
    span: Span,
    metrics: Arc<Metrics>,
    trace_content: bool,
    /// The client's trace context, passed on as it came when the gateway records no spans.
    client_trace: Option<Carried>,
    started: Instant,
    rounds: AtomicU32,
    tool_calls: AtomicU32,
    /// The answer's status; 0 until there is one.
    status: AtomicU16,
}

impl Telemetry {
    /// Telemetry for a gateway; `trace_content` puts tool calls' arguments and results on their
    /// spans.
    pub fn new(trace_content: bool) -> Telemetry {
        Telemetry {
            metrics: Arc::new(Metrics::new()),
            trace_content,
        }
    }

    /// A client request of `api` begins: its span (the client's trace context its parent), its
    /// count as a live conversation. [`Begun::serve`] answers it.
    pub fn begin(
        &self,
        api: Api,
        headers: &HeaderMap,
        request: Option<&Map<String, Value>>,
    ) -> Begun {
        let span = tracing::info_span!(
            "request",
            otel.name = format!("POST {}", api.path()),
            otel.kind = "server",
            otel.status_code = Empty,
            http.request.method = "POST",
            url.path = api.path(),
            http.response.status_code = Empty,
            tooldef.api = api.as_str(),
            gen_ai.request.model = Empty,
            tooldef.stream = Empty,
            tooldef.rounds = Empty,
            tooldef.tool_calls = Empty,
        );
        let client_trace = Carried::from_headers(headers);
        // Only a span someone records is worth reading the body for.
        if !span.is_disabled() {
            if let Some(client) = &client_trace {
                trace_context::adopt(&span, client);
            }
            let field = |key: &str| request.and_then(|request| request.get(key));
            if let Some(model) = field("model").and_then(Value::as_str) {
                span.record("gen_ai.request.model", model);
            }
            span.record(
                "tooldef.stream",
                field("stream") == Some(&Value::Bool(true)),
            );
        }
        self.metrics.request_started(api.as_str());
        let request = Arc::new(Request {
            api,
            span,
            metrics: self.metrics.clone(),
            trace_content: self.trace_content,
            client_trace,
            started: Instant::now(),
            rounds: AtomicU32::new(0),
            tool_calls: AtomicU32::new(0),
            status: AtomicU16::new(0),
        });
        Begun {
            request: request.clone(),
            end: End(request),
        }
    }
}

/// A client request being served.
pub struct Begun {
    request: Arc<Request>,
    /// Dropped with the answer's body, or with the request if the client goes first.
    end: End,
}

impl Begun {
    /// Runs `handler` in the request's span and with its telemetry; the answer's body, when it
    /// ends, ends the request's count as a live conversation and its duration.
    pub async fn serve(self, handler: impl Future<Output = Response>) -> Response {
        let Begun { request, end } = self;
        let span = request.span.clone();
        let response = REQUEST
            .scope(request.clone(), handler)
            .instrument(span)
            .await;
        request.answered(response.status());
        response.map(|body| {
            Body::new(Tracked {
                body,
                end: Some(end),
            })
        })
    }
}

impl Request {
    fn answered(&self, status: StatusCode) {
        self.status.store(status.as_u16(), Ordering::Relaxed);
        self.span
            .record("http.response.status_code", i64::from(status.as_u16()));
        if status.is_server_error() {
            self.span.record("otel.status_code", "ERROR");
        }
        self.metrics
            .request_answered(self.api.as_str(), status.as_u16().to_string());
    }
}

/// The end of a request: its answer's body is done or dropped.
struct End(Arc<Request>);

impl Drop for End {
    fn drop(&mut self) {
        let request = &self.0;
        let api = request.api.as_str();
        if request.status.load(Ordering::Relaxed) == 0 {
            request
                .metrics
                .request_answered(api, "cancelled".to_owned());
        }
        request
            .metrics
            .request_ended(api, request.started.elapsed());
        let count = |counter: &AtomicU32| i64::from(counter.load(Ordering::Relaxed));
        request
            .span
            .record("tooldef.rounds", count(&request.rounds));
        request
            .span
            .record("tooldef.tool_calls", count(&request.tool_calls));
    }
}

/// An answer's body that ends its request when it is done: at its last frame (before hyper
/// writes it, so that a client that read the answer finds it counted) or when it is dropped.
struct Tracked {
    body: Body,
    end: Option<End>,
}

impl HttpBody for Tracked {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        let this = &mut *self;
        let polled = Pin::new(&mut this.body).poll_frame(cx);
        if matches!(polled, Poll::Ready(None | Some(Err(_)))) || this.body.is_end_stream() {
            this.end.take();
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// `task` as part of the request being served, if any: it runs in the request's span and with
/// its telemetry, so that the request's span lasts until the task (the rest of a streamed
/// answer, run as its body is read) ends, and its rounds and tool calls are counted.
pub fn carried(
    task: impl Future<Output = ()> + Send + 'static,
) -> std::pin::Pin<Box<dyn Future<Output = ()> + Send>> {
    match REQUEST.try_with(Arc::clone) {
        Ok(request) => {
            let span = request.span.clone();
            Box::pin(REQUEST.scope(request, task).instrument(span))
        }
        Err(_) => Box::pin(task.in_current_span()),
    }
}

/// One request to the upstream, made by the request being served: a round.
pub struct UpstreamCall {
    span: Span,
    request: Option<Arc<Request>>,
    started: Instant,
}

impl UpstreamCall {
    /// The next round of the request being served, to `path`.
    pub fn start(path: &str) -> UpstreamCall {
        let request = REQUEST.try_with(Arc::clone).ok();
        let round = request
            .as_ref()
            .map_or(1, |r| r.rounds.fetch_add(1, Ordering::Relaxed) + 1);
        let api = request.as_ref().map_or("", |r| r.api.as_str());
        let span = tracing::info_span!(
            "upstream",
            otel.name = format!("{api} round {round}"),
            otel.kind = "client",
            otel.status_code = Empty,
            http.request.method = "POST",
            url.path = path,
            http.response.status_code = Empty,
            error.type = Empty,
            tooldef.api = api,
            tooldef.round = i64::from(round),
        );
        UpstreamCall {
            span,
            request,
            started: Instant::now(),
        }
    }

    /// Its span, for the call to run in.
    pub fn span(&self) -> &Span {
        &self.span
    }

    /// Puts this call's trace context into `headers` (the upstream's parent is this span), or
    /// the client's as it came when the gateway records no spans.
    pub fn propagate(&self, headers: &mut HeaderMap) {
        let client = self.request.as_ref().and_then(|r| r.client_trace.as_ref());
        if let Some(context) = trace_context::outgoing(&self.span, client) {
            context.write_headers(headers);
        }
    }

    /// The upstream answered with `status`, or (`None`) could not be reached.
    pub fn finish(self, status: Option<StatusCode>) {
        match status {
            Some(status) => {
                self.span
                    .record("http.response.status_code", i64::from(status.as_u16()));
                if !status.is_success() {
                    self.span.record("error.type", status.as_str());
                    self.span.record("otel.status_code", "ERROR");
                }
            }
            None => {
                self.span.record("error.type", "unreachable");
                self.span.record("otel.status_code", "ERROR");
            }
        }
        if let Some(request) = &self.request {
            request.metrics.upstream_called(
                request.api.as_str(),
                status.map(|s| s.as_u16()),
                self.started.elapsed(),
            );
        }
    }
}

/// Runs `run`, the call `call` of the request being served to `tool` (its name at `server`), in
/// a span of its own, and counts it.
pub async fn tool_call(
    server: &str,
    tool: &str,
    call: &ToolCall,
    run: impl Future<Output = CallOutcome>,
) -> CallOutcome {
    let request = REQUEST.try_with(Arc::clone).ok();
    let span = tracing::info_span!(
        "tool_call",
        otel.name = format!("execute_tool {tool}"),
        otel.kind = "client",
        otel.status_code = Empty,
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = call.name.as_str(),
        gen_ai.tool.call.id = call.id.as_str(),
        gen_ai.tool.call.arguments = Empty,
        gen_ai.tool.call.result = Empty,
        tooldef.server = server,
        tooldef.tool = tool,
        tooldef.outcome = Empty,
    );
    let content = request.as_ref().is_some_and(|r| r.trace_content);
    if content {
        span.record("gen_ai.tool.call.arguments", clipped(&call.arguments));
    }
    let timed_out = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let outcome = TIMED_OUT
        .scope(timed_out.clone(), run)
        .instrument(span.clone())
        .await;
    let took = started.elapsed();
    let ended = if timed_out.load(Ordering::Relaxed) {
        Outcome::Timeout
    } else if outcome.is_error {
        Outcome::Error
    } else {
        Outcome::Ok
    };
    span.record("tooldef.outcome", ended.as_str());
    if ended != Outcome::Ok {
        span.record("otel.status_code", "ERROR");
    }
    if content {
        span.record("gen_ai.tool.call.result", clipped(&outcome.text()));
    }
    if let Some(request) = request {
        request.tool_calls.fetch_add(1, Ordering::Relaxed);
        request
            .metrics
            .tool_called(server, tool, ended.as_str(), took);
    }
    outcome
}

/// Says that the tool call running now ran out of its time (its outcome is `timeout`).
pub fn timed_out() {
    let _ = TIMED_OUT.try_with(|flag| flag.store(true, Ordering::Relaxed));
}

/// The `_meta` of an MCP request made now: the trace context of the span it is made in.
pub fn mcp_meta() -> Map<String, Value> {
    let client = REQUEST.try_with(|r| r.client_trace.clone()).ok().flatten();
    trace_context::outgoing(&Span::current(), client.as_ref())
        .map(|context| context.meta())
        .unwrap_or_default()
}

/// `text`, cut to [`CONTENT_LIMIT`] bytes (at a character boundary) with how much was left out.
fn clipped(text: &str) -> String {
    if text.len() <= CONTENT_LIMIT {
        return text.to_owned();
    }
    let mut end = CONTENT_LIMIT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} more bytes)", &text[..end], text.len() - end)
}

#[cfg(test)]
mod tests;
