//! An [`McpServer`] over MCP's Streamable HTTP transport (feature `http`), as an axum
//! [`Router`] around rmcp's `StreamableHttpService`.
//!
//! Each request goes through, in order: the bearer token ([`HttpOptions::bearer_token`], every
//! request, 401 without it); for a POST, its body read within [`WireLimits::max_bytes`] and
//! judged as the stdio transport judges a line (malformed JSON, a batch, a wrong `jsonrpc`, an
//! unusable id: a 400 with a JSON-RPC error carrying the request's id where it can be known; a
//! body over the bound: a 413 the same way); then rmcp: the `Host` and `Origin` checks (403,
//! said with what is allowed), the `Accept` and `Content-Type` checks, the session, and the
//! server. A body is judged before the `Host` and `Origin` checks, so a refused site may learn
//! that its body was malformed, never more: nothing reaches the server before those checks.
//!
//! Every session gets a clone of the server, so all share its tools, and
//! [`McpServer::replace_tools`] notifies every client that keeps a session open. Sessions live
//! in this process (rmcp's `LocalSessionManager`), and one idle for five minutes is closed;
//! behind a load balancer, use sticky sessions or [stateless](HttpOptions::stateless) mode.

mod auth;
mod body;
mod options;

pub use options::{HttpOptions, HttpOptionsError};

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::header::{CONTENT_TYPE, HOST, ORIGIN};
use axum::http::{HeaderValue, Method, StatusCode};
use axum::response::Response;
use axum::routing::any;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use super::{McpServer, WireLimits};

/// The most bytes of an rmcp refusal read to explain it; rmcp's are one short line.
const MAX_REFUSAL_BYTES: usize = 4096;

impl McpServer {
    /// This server as an axum [`Router`] serving MCP's Streamable HTTP transport at
    /// [`HttpOptions::endpoint_path`] (default `/mcp`); `Err` when an option cannot work,
    /// saying what to give instead.
    ///
    /// Request bodies are bounded by the options' [`WireLimits`] (4 MiB and 120 levels of
    /// nesting by default): a larger body is answered 413 with a JSON-RPC error, and never
    /// kept (one up to 16 times the bound is read to its end and dropped first, so that the
    /// client, still sending, reads the answer; a larger one is not read further). The router
    /// can be merged into an application's or given more layers (CORS, tracing); serve it with
    /// `axum::serve`.
    ///
    /// ```no_run
    /// # #[cfg(feature = "http")]
    /// # async fn serve() -> Result<(), Box<dyn std::error::Error>> {
    /// use tooldef::mcp::{HttpOptions, McpServer};
    /// use tooldef::{tool, toolset};
    ///
    /// /// Add two numbers.
    /// #[tool]
    /// fn add(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// let server = McpServer::new(toolset![Add].build()?).with_name("calculator", "1.0.0");
    /// let options = HttpOptions::new()
    ///     .bearer_token(std::env::var("MCP_BEARER_TOKEN")?)
    ///     .allow_host("mcp.example.com");
    /// let router = server.into_http_router(options)?;
    /// let listener = tokio::net::TcpListener::bind("0.0.0.0:8000").await?;
    /// axum::serve(listener, router).await?; // clients connect to http://mcp.example.com:8000/mcp
    /// # Ok(())
    /// # }
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "http")))]
    pub fn into_http_router(self, options: HttpOptions) -> Result<Router, HttpOptionsError> {
        let checked = options.checked()?;
        let config = StreamableHttpServerConfig::default()
            .with_allowed_hosts(checked.hosts.clone())
            .with_allowed_origins(checked.origins.clone())
            .with_legacy_session_mode(!options.stateless)
            // Stateless, a reply that needs no stream is plain JSON: simpler for every client.
            .with_json_response(options.stateless)
            .with_max_request_body_bytes(options.limits.max_bytes)
            .with_cancellation_token(options.shutdown.clone());
        let server = self;
        let service = StreamableHttpService::new(
            move || Ok(server.clone()),
            Arc::new(LocalSessionManager::default()),
            config,
        );
        let endpoint = Endpoint {
            service,
            guard: Arc::new(Guard {
                path: options.path.clone(),
                bearer_token: options.bearer_token.clone(),
                limits: options.limits,
                hosts: checked.hosts,
                origins: checked.origins,
            }),
        };
        Ok(Router::new()
            .route(&options.path, any(serve))
            .fallback(elsewhere)
            .with_state(endpoint))
    }
}

/// The router's state: rmcp's service and what is checked before it.
#[derive(Clone)]
struct Endpoint {
    service: StreamableHttpService<McpServer, LocalSessionManager>,
    guard: Arc<Guard>,
}

struct Guard {
    path: String,
    bearer_token: Option<String>,
    limits: WireLimits,
    /// As rmcp matches them, for messages.
    hosts: Vec<String>,
    origins: Vec<String>,
}

async fn serve(State(endpoint): State<Endpoint>, request: Request) -> Response {
    let guard = &endpoint.guard;
    if let Some(refusal) = auth::refusal(guard.bearer_token.as_deref(), request.headers()) {
        return refusal;
    }
    let request = if request.method() == Method::POST {
        match body::admit_post(request, &guard.limits).await {
            Ok(request) => request,
            Err(answer) => return answer,
        }
    } else {
        request
    };
    let host = request.headers().get(HOST).cloned();
    let origin = request.headers().get(ORIGIN).cloned();
    let response = endpoint.service.handle(request).await.map(Body::new);
    if response.status() == StatusCode::FORBIDDEN {
        return explain_forbidden(response, guard, host.as_ref(), origin.as_ref()).await;
    }
    response
}

/// Any other path: 404, with the endpoint's path (to those with the token, when there is one).
async fn elsewhere(State(endpoint): State<Endpoint>, request: Request) -> Response {
    if let Some(refusal) = auth::refusal(endpoint.guard.bearer_token.as_deref(), request.headers())
    {
        return refusal;
    }
    text_response(
        StatusCode::NOT_FOUND,
        format!(
            "Not Found: `{}` is not this server's MCP endpoint; connect to `{}`",
            request.uri().path(),
            endpoint.guard.path
        ),
    )
}

/// rmcp refuses a disallowed `Host` or `Origin` with 403 and one bare line; this adds what is
/// allowed, what the request had, and how to be allowed.
async fn explain_forbidden(
    response: Response,
    guard: &Guard,
    host: Option<&HeaderValue>,
    origin: Option<&HeaderValue>,
) -> Response {
    let refusal = axum::body::to_bytes(response.into_body(), MAX_REFUSAL_BYTES)
        .await
        .map(|bytes| String::from_utf8_lossy(&bytes).trim().to_owned())
        .unwrap_or_else(|_| "Forbidden".to_owned());
    let shown = |value: &HeaderValue| format!("`{}`", String::from_utf8_lossy(value.as_bytes()));
    let listed = |values: &[String]| {
        values
            .iter()
            .map(|value| format!("`{value}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let origins = if guard.origins.is_empty() {
        "from any browser origin".to_owned()
    } else {
        format!("from the browser origins {}", listed(&guard.origins))
    };
    let host = host.map_or_else(
        || "no host".to_owned(),
        |host| format!("the host {}", shown(host)),
    );
    let origin = origin.map_or_else(
        || "no origin".to_owned(),
        |origin| format!("the origin {}", shown(origin)),
    );
    text_response(
        StatusCode::FORBIDDEN,
        format!(
            "{refusal}. This server answers requests for the hosts {}, {origins}; this request \
             had {host} and {origin}. Connect through an allowed host name, or have the server \
             allow this one (its allowed hosts or origins: HttpOptions::allow_host, \
             HttpOptions::allow_origin)",
            listed(&guard.hosts),
        ),
    )
}

fn text_response(status: StatusCode, text: String) -> Response {
    let mut response = Response::new(Body::from(text));
    *response.status_mut() = status;
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}
