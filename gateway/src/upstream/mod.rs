//! The model server behind the gateway: requests forwarded with the client's own headers (its
//! `Authorization` included, which goes here and nowhere else), answers read whole or as a
//! stream. Which APIs it speaks is `apis.rs`'s; a round sent in the upstream's API, translated
//! when the client's is another, is `link.rs`'s.

mod apis;
mod lean;
mod link;

pub use apis::Apis;
pub use link::{Link, Sent};

use axum::body::Body;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, header};
use axum::response::Response;
use tracing::Instrument;

use crate::error::ApiError;
use crate::telemetry::UpstreamCall;

/// Headers that belong to one connection, not to the request (RFC 9110, 7.6.1), and those the
/// gateway sets itself.
const NOT_FORWARDED: [&str; 11] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
];

/// The header clients present the gateway's own key in.
pub const KEY_HEADER: &str = crate::headers::KEY;

/// The upstream API.
pub struct Upstream {
    client: reqwest::Client,
    /// Its base URL without a trailing `/`, e.g. `https://api.openai.com/v1`.
    base: String,
    /// Sent as `Authorization: Bearer` when the client sends none.
    key: Option<String>,
    /// The APIs it speaks.
    pub apis: Apis,
}

impl Upstream {
    /// An upstream at `base` (with its version path), speaking `apis` (found out by asking
    /// when empty).
    pub fn new(
        base: &str,
        key: Option<String>,
        apis: &[crate::api::Api],
    ) -> Result<Upstream, String> {
        let client = reqwest::Client::builder()
            .connect_timeout(std::time::Duration::from_secs(10))
            .pool_max_idle_per_host(256)
            .build()
            .map_err(|err| format!("cannot make the HTTP client: {err}"))?;
        Ok(Upstream {
            client,
            base: base.trim_end_matches('/').to_owned(),
            key,
            apis: Apis::new(apis),
        })
    }

    /// The upstream URL for a path the client asked the gateway for: `/v1/models` is
    /// `{base}/models`, whatever the base's own path is.
    pub fn url(&self, path_and_query: &str) -> String {
        let rest = path_and_query
            .strip_prefix("/v1")
            .filter(|rest| rest.is_empty() || rest.starts_with(['/', '?']))
            .unwrap_or(path_and_query);
        format!("{}{rest}", self.base)
    }

    /// The client's headers as they go upstream. `rewritten` says the gateway reads and
    /// rewrites the answer, so it asks for it uncompressed.
    pub fn headers(&self, from_client: &HeaderMap, rewritten: bool) -> HeaderMap {
        let mut headers = HeaderMap::with_capacity(from_client.len());
        for (name, value) in from_client {
            let name_str = name.as_str();
            if NOT_FORWARDED.contains(&name_str)
                || name_str == KEY_HEADER
                || (rewritten && name_str == "accept-encoding")
            {
                continue;
            }
            headers.append(name.clone(), value.clone());
        }
        if !headers.contains_key(header::AUTHORIZATION)
            && let Some(value) = self
                .key
                .as_ref()
                .and_then(|key| HeaderValue::from_str(&format!("Bearer {key}")).ok())
        {
            headers.insert(header::AUTHORIZATION, value);
        }
        headers
    }

    /// Sends a JSON request the gateway made (a round of a conversation).
    pub async fn post_json(
        &self,
        path: &str,
        headers: &HeaderMap,
        body: &impl serde::Serialize,
    ) -> Result<reqwest::Response, ApiError> {
        let body = serde_json::to_vec(body)
            .map_err(|err| ApiError::upstream(format!("cannot encode the request: {err}")))?;
        let mut headers = headers.clone();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        // A round: its span is the upstream's parent, and it is counted.
        let call = UpstreamCall::start(path);
        call.propagate(&mut headers);
        let body = bytes::Bytes::from(body);
        let send = || {
            self.client
                .post(self.url(path))
                .headers(headers.clone())
                .body(body.clone())
                .send()
        };
        let sent = async {
            match send().await {
                // A kept-alive connection the upstream closed as the request went out (seen at
                // 1,000 conversations at once): no answer was read, so it is sent once more on a
                // new one, as OpenAI's SDKs retry a connection error.
                Err(err) if lost_connection(&err) => {
                    tracing::debug!("the upstream's connection was lost; sending again: {err}");
                    // A moment for an upstream whose queue of new connections was full.
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                    send().await
                }
                sent => sent,
            }
        }
        .instrument(call.span().clone())
        .await;
        call.finish(sent.as_ref().ok().map(reqwest::Response::status));
        sent.map_err(|err| ApiError::upstream(unreachable(&self.base, &err)))
    }

    /// Forwards a request unchanged, its body streamed both ways.
    pub async fn forward(
        &self,
        method: Method,
        path_and_query: &str,
        headers: &HeaderMap,
        body: Body,
    ) -> Result<Response, ApiError> {
        let stream = body.into_data_stream();
        let answer = self
            .client
            .request(method, self.url(path_and_query))
            .headers(self.headers(headers, false))
            .body(reqwest::Body::wrap_stream(stream))
            .send()
            .await
            .map_err(|err| ApiError::upstream(unreachable(&self.base, &err)))?;
        Ok(passthrough(answer))
    }
}

fn unreachable(base: &str, err: &reqwest::Error) -> String {
    let mut why = err.to_string();
    let mut source = std::error::Error::source(err);
    while let Some(inner) = source {
        why = format!("{why}: {inner}");
        source = inner.source();
    }
    format!("The upstream `{base}` could not be reached: {why}")
}

/// An upstream answer as the client's answer: status, headers and a streamed body.
pub fn passthrough(answer: reqwest::Response) -> Response {
    let mut response = Response::builder().status(answer.status());
    if let Some(headers) = response.headers_mut() {
        copy_answer_headers(answer.headers(), headers);
    }
    response
        .body(Body::from_stream(answer.bytes_stream()))
        .unwrap_or_else(|_| Response::new(Body::empty()))
}

/// The upstream's answer headers that describe the answer, not the connection.
pub fn copy_answer_headers(from: &HeaderMap, to: &mut HeaderMap) {
    for (name, value) in from {
        if NOT_FORWARDED.contains(&name.as_str()) {
            continue;
        }
        to.append(name.clone(), value.clone());
    }
}

/// The upstream's answer headers worth keeping on an answer the gateway rewrote: request ids
/// and rate limits, which clients read.
pub fn informative_headers(from: &HeaderMap) -> Vec<(HeaderName, HeaderValue)> {
    from.iter()
        .filter(|(name, _)| {
            let name = name.as_str();
            name == "x-request-id"
                || name.starts_with("openai-")
                || name.starts_with("x-ratelimit-")
        })
        .map(|(n, v)| (n.clone(), v.clone()))
        .collect()
}

/// Whether a request failed because its connection was refused, reset or closed before any
/// answer came: sending it again on a new connection is safe for the upstream's reading of it.
fn lost_connection(err: &reqwest::Error) -> bool {
    if err.is_connect() {
        return true;
    }
    let mut source: Option<&dyn std::error::Error> = std::error::Error::source(err);
    while let Some(cause) = source {
        if let Some(io) = cause.downcast_ref::<std::io::Error>() {
            return matches!(
                io.kind(),
                std::io::ErrorKind::ConnectionReset
                    | std::io::ErrorKind::ConnectionAborted
                    | std::io::ErrorKind::BrokenPipe
            );
        }
        source = cause.source();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_join_the_base() {
        let upstream = Upstream::new("http://h:1/v1/", None, &[]).unwrap();
        assert_eq!(
            upstream.url("/v1/chat/completions"),
            "http://h:1/v1/chat/completions"
        );
        assert_eq!(upstream.url("/v1/models?x=1"), "http://h:1/v1/models?x=1");
        assert_eq!(upstream.url("/v1"), "http://h:1/v1");
        assert_eq!(upstream.url("/v10/x"), "http://h:1/v1/v10/x");
        let openrouter = Upstream::new("https://openrouter.ai/api/v1", None, &[]).unwrap();
        assert_eq!(
            openrouter.url("/v1/models"),
            "https://openrouter.ai/api/v1/models"
        );
    }

    #[test]
    fn the_key_header_and_connection_headers_stay_here() {
        let upstream = Upstream::new("http://h/v1", Some("sk-gw".into()), &[]).unwrap();
        let mut client = HeaderMap::new();
        client.insert(KEY_HEADER, HeaderValue::from_static("secret"));
        client.insert("connection", HeaderValue::from_static("keep-alive"));
        client.insert("accept-encoding", HeaderValue::from_static("gzip"));
        client.insert("openai-organization", HeaderValue::from_static("org"));
        let sent = upstream.headers(&client, true);
        assert!(sent.get(KEY_HEADER).is_none());
        assert!(sent.get("connection").is_none());
        assert!(sent.get("accept-encoding").is_none());
        assert_eq!(sent["openai-organization"], "org");
        assert_eq!(sent["authorization"], "Bearer sk-gw");
        client.insert(
            "authorization",
            HeaderValue::from_static("Bearer sk-client"),
        );
        assert_eq!(
            upstream.headers(&client, false)["authorization"],
            "Bearer sk-client"
        );
        assert_eq!(upstream.headers(&client, false)["accept-encoding"], "gzip");
    }
}
