//! The HTTP surface: the three APIs the gateway completes (each request with its telemetry, one
//! handler generic over the API), Messages' `count_tokens`, the gateway's own endpoints
//! (`/healthz`, `/metrics`, `/v1/tools`), the client's key, and every other path proxied to the
//! upstream unchanged.

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::{Query, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::json;
use tooldef::Target;

use crate::api::{Api, Chat, ClientApi, Messages, Responses};
use crate::error::ApiError;
use crate::gateway::Inner;
use crate::rounds::ClientRequest;
use crate::upstream::KEY_HEADER;

type Shared = State<Arc<Inner>>;

pub(crate) fn router(inner: Arc<Inner>) -> Router {
    let guarded = Router::new()
        .route(Api::Chat.path(), post(complete::<Chat>))
        .route(Api::Responses.path(), post(complete::<Responses>))
        .route(Api::Messages.path(), post(complete::<Messages>))
        .route(
            crate::api::COUNT_TOKENS_PATH,
            post(crate::api::count_tokens),
        )
        .route("/v1/tools", get(tools))
        .fallback(proxy)
        .layer(middleware::from_fn_with_state(inner.clone(), require_key));
    // Health and metrics are for the operator's probes and scrapers, which have no client key.
    Router::new()
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics))
        .merge(guarded)
        .with_state(inner)
}

/// Clients present the gateway's key (when it has one) in `X-Tooldef-Key`; their
/// `Authorization` is the upstream's business.
async fn require_key(State(inner): Shared, request: Request, next: Next) -> Response {
    if let Some(key) = &inner.key {
        let presented = request
            .headers()
            .get(KEY_HEADER)
            .and_then(|v| v.to_str().ok());
        if presented != Some(key.as_str()) {
            let api = if request.uri().path().starts_with(Api::Messages.path()) {
                Api::Messages
            } else {
                Api::Chat
            };
            return ApiError {
                status: StatusCode::UNAUTHORIZED,
                message: format!(
                    "This gateway needs its key in the `{KEY_HEADER}` header ({}). Your `Authorization` header is not checked here: it goes to the upstream.",
                    if presented.is_some() { "the one given is wrong" } else { "none was given" }
                ),
                kind: "authentication_error",
                param: None,
                code: Some("invalid_gateway_key"),
            }
            .answer(api);
        }
    }
    next.run(request).await
}

/// One request of a client API, with its telemetry: read once (a body that is not a JSON object
/// is refused in the API's own shape, and counted like any answer), then the rounds.
async fn complete<A: ClientApi>(
    State(inner): Shared,
    headers: HeaderMap,
    request: Result<ClientRequest<A>, Response>,
) -> Response {
    let body = request.as_ref().ok().map(|request| &request.body);
    let begun = inner.telemetry.begin(A::API, &headers, body);
    begun
        .serve(async move {
            match request {
                Ok(request) => crate::rounds::serve::<A>(inner, headers, request.body).await,
                Err(refusal) => refusal,
            }
        })
        .await
}

/// The gateway's metrics, in Prometheus' text format.
async fn metrics(State(inner): Shared) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        inner.telemetry.metrics.render(),
    )
        .into_response()
}

async fn healthz(State(inner): Shared) -> Response {
    axum::Json(json!({
        "status": "ok",
        "servers": inner.server_statuses(),
        "kept": inner.store.len(),
    }))
    .into_response()
}

#[derive(Deserialize)]
struct ToolsQuery {
    target: Option<String>,
}

/// The tools injected into requests of one API, exactly as they are sent.
async fn tools(State(inner): Shared, Query(query): Query<ToolsQuery>) -> Response {
    let target = match query.target.as_deref().unwrap_or("chat") {
        "anthropic" => Target::Anthropic,
        name => match Api::from_name(name) {
            Some(api) => api.target(),
            None => {
                return ApiError::invalid(
                    format!("Unknown target `{name}`: the gateway injects tools for `chat`, `responses` and `messages` (`anthropic`)."),
                    "unknown_target",
                )
                .param("target")
                .into_response();
            }
        },
    };
    let catalog = inner.catalog();
    axum::Json(json!({
        "object": "list",
        "target": target.short_name(),
        "data": catalog.for_target(target).listing(),
    }))
    .into_response()
}

async fn proxy(State(inner): Shared, request: Request<Body>) -> Response {
    let (parts, body) = request.into_parts();
    let path = parts
        .uri
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_owned();
    match inner
        .upstream
        .forward(parts.method.clone(), &path, &parts.headers, body)
        .await
    {
        Ok(response) => {
            tracing::info!(method = %parts.method, path = parts.uri.path(), status = response.status().as_u16(), "proxied");
            response
        }
        Err(err) => err.into_response(),
    }
}
