//! The model server behind the gateway: requests forwarded with the client's own headers (its
//! `Authorization` included, which goes here and nowhere else), answers read whole or as a
//! stream. Which APIs it speaks is `apis.rs`'s; a round sent in the upstream's API, translated
//! when the client's is another, is `link.rs`'s.

mod apis;
mod echo;
mod lean;
mod link;
mod transport;

pub use apis::Apis;
pub use echo::Echo;
pub use lean::WithoutTools;
pub use link::{Link, Sent};
pub use transport::Answer;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, Request, header};
use axum::response::Response;
use tracing::Instrument;

use crate::error::ApiError;
use crate::telemetry::UpstreamCall;
use transport::{Transport, Unreached};

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
    client: Transport,
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
        let client = Transport::new(base)?;
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
    ) -> Result<Answer, ApiError> {
        // Written for each attempt rather than kept for a second one: a busy upstream answers
        // long after the body went out, and 1,000 rounds waiting each held their 105 KB (with
        // 100 tools) and the spare capacity the writing left, up to as much again.
        let encode = || {
            crate::body::to_vec_exact(body)
                .map_err(|err| ApiError::upstream(format!("cannot encode the request: {err}")))
        };
        let mut headers = headers.clone();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        // A round: its span is the upstream's parent, and it is counted.
        let call = UpstreamCall::start(path);
        call.propagate(&mut headers);
        let send = |written: Vec<u8>| {
            let mut request = Request::post(self.url(path));
            if let Some(all) = request.headers_mut() {
                *all = headers.clone();
            }
            let request = request.body(Body::from(written));
            async {
                match request {
                    Ok(request) => self.client.send(request).await,
                    Err(err) => Err(Unreached {
                        why: format!("the request cannot be made: {err}"),
                        lost_connection: false,
                    }),
                }
            }
        };
        let first = encode()?;
        let sent = async {
            match send(first).await {
                // A kept-alive connection the upstream closed as the request went out (seen at
                // 1,000 conversations at once): no answer was read, so it is sent once more on a
                // new one, as OpenAI's SDKs retry a connection error.
                Err(err) if err.lost_connection => {
                    let why = &err.why;
                    tracing::debug!("the upstream's connection was lost; sending again: {why}");
                    // A moment for an upstream whose queue of new connections was full.
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                    match encode() {
                        Ok(again) => send(again).await,
                        Err(_) => Err(err),
                    }
                }
                sent => sent,
            }
        }
        .instrument(call.span().clone())
        .await;
        call.finish(sent.as_ref().ok().map(Answer::status));
        sent.map_err(|err| ApiError::upstream(self.unreachable(&err)))
    }

    /// Forwards a request unchanged, its body streamed both ways.
    pub async fn forward(
        &self,
        method: Method,
        path_and_query: &str,
        headers: &HeaderMap,
        body: Body,
    ) -> Result<Response, ApiError> {
        let mut request = Request::builder()
            .method(method)
            .uri(self.url(path_and_query))
            .body(body)
            .map_err(|err| {
                ApiError::invalid(
                    format!("The request cannot be forwarded to the upstream: {err}"),
                    "invalid_request",
                )
            })?;
        *request.headers_mut() = self.headers(headers, false);
        let answer = self
            .client
            .send(request)
            .await
            .map_err(|err| ApiError::upstream(self.unreachable(&err)))?;
        Ok(passthrough(answer))
    }

    fn unreachable(&self, err: &Unreached) -> String {
        format!(
            "The upstream `{}` could not be reached: {}",
            self.base, err.why
        )
    }
}

/// An upstream answer as the client's answer: status, headers and a streamed body.
pub fn passthrough(answer: Answer) -> Response {
    let (parts, body) = answer.into_parts();
    let mut response = Response::new(body);
    *response.status_mut() = parts.status;
    copy_answer_headers(&parts.headers, response.headers_mut());
    response
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
