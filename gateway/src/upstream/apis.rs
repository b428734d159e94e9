//! Which APIs the upstream speaks: as configured (`upstream_apis`), or found out the first time
//! a client of an API comes, by asking the API's path with an empty request (a server that has
//! the path refuses the request, 400 or 401; one that has not answers 404 or 405), and
//! remembered. A client's API is served natively where the upstream speaks it, and translated
//! to the first the upstream speaks otherwise: Chat Completions first (what every
//! OpenAI-compatible server speaks), then Responses, then Messages.

use std::sync::Mutex;

use axum::http::{HeaderMap, StatusCode};

use super::Upstream;
use crate::api::Api;
use crate::error::ApiError;

/// What the gateway knows of the upstream's APIs.
pub struct Apis {
    /// As configured; empty when they are found out.
    configured: Vec<Api>,
    /// Found out so far, by [`Api::ALL`]'s order.
    known: Mutex<[Option<bool>; 3]>,
}

impl Apis {
    /// The upstream speaks `configured`, or, when it is empty, what asking finds.
    pub fn new(configured: &[Api]) -> Apis {
        Apis {
            configured: configured.to_vec(),
            known: Mutex::new([None; 3]),
        }
    }

    /// The APIs a client of `client` may be served over, the best first: its own, then Chat
    /// Completions, Responses, Messages.
    fn preference(client: Api) -> impl Iterator<Item = Api> {
        std::iter::once(client).chain(Api::ALL.into_iter().filter(move |api| *api != client))
    }

    fn slot(api: Api) -> usize {
        Api::ALL.iter().position(|a| *a == api).unwrap_or(0)
    }

    fn known(&self, api: Api) -> Option<bool> {
        self.known.lock().unwrap_or_else(|e| e.into_inner())[Self::slot(api)]
    }

    fn learn(&self, api: Api, speaks: bool) {
        self.known.lock().unwrap_or_else(|e| e.into_inner())[Self::slot(api)] = Some(speaks);
        if speaks {
            tracing::info!(api = %api, "the upstream speaks {}", api.path());
        } else {
            tracing::info!(
                api = %api,
                "the upstream has no {}: clients of it are served in another API",
                api.path()
            );
        }
    }

    /// Whether the upstream speaks `api`, asked the first time.
    async fn speaks(&self, upstream: &Upstream, api: Api, headers: &HeaderMap) -> bool {
        if !self.configured.is_empty() {
            return self.configured.contains(&api);
        }
        if let Some(known) = self.known(api) {
            return known;
        }
        match upstream.ask(api, headers).await {
            Some(speaks) => {
                self.learn(api, speaks);
                speaks
            }
            // Not reached: the request itself will say so; nothing is learned.
            None => true,
        }
    }

    /// The API a client of `client` is served over.
    pub async fn for_client(
        &self,
        upstream: &Upstream,
        client: Api,
        headers: &HeaderMap,
    ) -> Result<Api, ApiError> {
        for api in Self::preference(client) {
            if self.speaks(upstream, api, headers).await {
                return Ok(api);
            }
        }
        let paths: Vec<&str> = Api::ALL.iter().map(|api| api.path()).collect();
        Err(ApiError::upstream(format!(
            "The upstream `{}` speaks none of the APIs this gateway serves: it has no {} (each answered 404 or 405{}). Point the gateway at a model server's base URL, e.g. `https://api.openai.com/v1` or `http://localhost:8080/v1`.",
            upstream.base,
            paths.join(", "),
            if self.configured.is_empty() {
                ""
            } else {
                ", or is not in `upstream_apis`"
            }
        )))
    }
}

impl Upstream {
    /// Asks whether the upstream has `api`'s path: `None` when it cannot be reached.
    async fn ask(&self, api: Api, headers: &HeaderMap) -> Option<bool> {
        let mut request = http::Request::post(self.url(api.path()))
            .body(axum::body::Body::from("{}"))
            .ok()?;
        *request.headers_mut() = self.headers(headers, true);
        request.headers_mut().insert(
            http::header::CONTENT_TYPE,
            http::HeaderValue::from_static("application/json"),
        );
        let answer = self.client.send(request).await.ok()?;
        Some(!matches!(
            answer.status(),
            StatusCode::NOT_FOUND | StatusCode::METHOD_NOT_ALLOWED
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_is_served_in_its_own_api_first_then_chat() {
        let order: Vec<Api> = Apis::preference(Api::Messages).collect();
        assert_eq!(order, [Api::Messages, Api::Chat, Api::Responses]);
        let order: Vec<Api> = Apis::preference(Api::Responses).collect();
        assert_eq!(order, [Api::Responses, Api::Chat, Api::Messages]);
    }

    #[tokio::test]
    async fn configured_apis_are_not_asked() {
        // Nothing listens there: a configured upstream is never asked.
        let upstream = Upstream::new("http://127.0.0.1:9/v1", None, &[Api::Chat]).unwrap();
        let headers = HeaderMap::new();
        let apis = &upstream.apis;
        assert_eq!(
            apis.for_client(&upstream, Api::Responses, &headers)
                .await
                .unwrap(),
            Api::Chat
        );
        assert_eq!(
            apis.for_client(&upstream, Api::Chat, &headers)
                .await
                .unwrap(),
            Api::Chat
        );
    }
}
