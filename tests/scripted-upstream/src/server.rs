//! The HTTP surface: the routes, the state they share (the request log, the stored responses and
//! the server's options), and the small endpoints (models, echo, slow stream, the log, the 404s).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{DefaultBodyLimit, Query, State};
use axum::http::header::{AUTHORIZATION, CONTENT_TYPE};
use axum::http::{HeaderMap, HeaderValue, Method, Uri};
use axum::response::Response;
use axum::routing::{MethodRouter, any, get, post};
use axum::{Json, Router};
use bytes::Bytes;
use serde_json::{Value, json};

use crate::error::{self, ApiError};
use crate::log::RequestLog;
use crate::options::{Api, Apis, Config, Quirks};
use crate::store::ResponseStore;
use crate::{chat, ids, messages, responses, sse};

/// Large enough for 128 tools and a long conversation; axum's default (2 MiB) is not.
const BODY_LIMIT: usize = 64 * 1024 * 1024;

pub struct App {
    pub log: RequestLog,
    pub store: ResponseStore,
    /// Whose shapes the replies take.
    pub quirks: Quirks,
    /// The APIs whose endpoints answer; the others' answer 404.
    pub apis: Apis,
}

impl App {
    /// Every API, in the providers' documented shapes; requests recorded if `log`.
    pub fn new(log: bool) -> Self {
        Self::with_config(Config {
            log,
            ..Config::default()
        })
    }

    pub fn with_config(config: Config) -> Self {
        Self {
            log: RequestLog::new(config.log),
            store: ResponseStore::default(),
            quirks: config.quirks,
            apis: config.apis,
        }
    }
}

pub fn router(app: Arc<App>) -> Router {
    let serving = |api: Api, handler: MethodRouter<Arc<App>>| {
        if app.apis.serves(api) {
            handler
        } else {
            any(not_served)
        }
    };
    Router::new()
        .route(
            "/v1/chat/completions",
            serving(Api::Chat, post(chat::handle)),
        )
        .route(
            "/v1/responses",
            serving(Api::Responses, post(responses::handle)),
        )
        .route(
            "/v1/messages",
            serving(Api::Messages, post(messages::handle)),
        )
        .route(
            "/v1/messages/count_tokens",
            serving(Api::Messages, post(messages::count_tokens)),
        )
        .route("/v1/models", get(models))
        .route("/v1/echo", post(echo))
        .route("/v1/slow-stream", get(slow_stream))
        .route("/_log", get(read_log).delete(clear_log))
        .fallback(not_found)
        .method_not_allowed_fallback(not_found)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(app)
}

/// Adds the `x-request-id` OpenAI sends with each reply (gateways log and forward it).
pub fn with_request_id(mut response: Response) -> Response {
    if let Ok(id) = HeaderValue::from_str(&ids::request()) {
        response.headers_mut().insert("x-request-id", id);
    }
    response
}

async fn not_found(method: Method, uri: Uri) -> ApiError {
    ApiError::unknown_url(method.as_str(), uri.path())
}

/// An endpoint of an API left out of `--apis`: recorded like the others, so that a test sees the
/// gateway try it, and answered as a server without it answers.
async fn not_served(
    State(app): State<Arc<App>>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    app.log.record(uri.path(), &headers, &body);
    error::not_served()
}

async fn models() -> Json<Value> {
    Json(json!({
        "object": "list",
        "data": [{"id": "scripted-1", "object": "model", "created": 0, "owned_by": "tooldef-tests"}],
    }))
}

/// The body back as it came, with what a proxy might have changed on the way in headers.
async fn echo(State(app): State<Arc<App>>, uri: Uri, headers: HeaderMap, body: Bytes) -> Response {
    app.log.record(uri.path(), &headers, &body);
    let mut response = Response::new(Body::from(body));
    let out = response.headers_mut();
    if let Some(content_type) = headers.get(CONTENT_TYPE) {
        out.insert(CONTENT_TYPE, content_type.clone());
    }
    out.insert(
        "x-echo-authorization",
        headers
            .get(AUTHORIZATION)
            .cloned()
            .unwrap_or_else(|| HeaderValue::from_static("")),
    );
    let path_query = uri.path_and_query().map_or(uri.path(), |pq| pq.as_str());
    if let Ok(value) = HeaderValue::from_str(path_query) {
        out.insert("x-echo-path-query", value);
    }
    response
}

fn number(query: &HashMap<String, String>, key: &str, default: u64) -> Result<u64, ApiError> {
    query.get(key).map_or(Ok(default), |value| {
        value.parse().map_err(|_| {
            ApiError::invalid(
                format!(
                    "Invalid value for '{key}': expected a non-negative integer, got '{value}'."
                ),
                Some(key.to_owned()),
            )
        })
    })
}

/// `n` events `data: {"i": k}`, `ms` milliseconds apart: for checking that a proxy streams.
async fn slow_stream(Query(query): Query<HashMap<String, String>>) -> Result<Response, ApiError> {
    let n = number(&query, "n", 5)?;
    let ms = number(&query, "ms", 100)?;
    let events = (0..n)
        .map(|k| Bytes::from(format!("data: {{\"i\": {k}}}\n\n")))
        .collect();
    Ok(sse::response(events, Duration::from_millis(ms)))
}

async fn read_log(
    State(app): State<Arc<App>>,
    Query(query): Query<HashMap<String, String>>,
) -> Json<Value> {
    Json(app.log.to_json(query.get("marker").map(String::as_str)))
}

async fn clear_log(State(app): State<Arc<App>>) -> Json<Value> {
    Json(json!({"cleared": app.log.clear()}))
}
