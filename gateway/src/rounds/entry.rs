//! The way into the rounds: the client's request read once (refused in its API's own shape, as
//! axum's extractors refuse), its hosted-MCP entries and bounds taken out, the upstream's API
//! chosen, its tools injected (rendered for that API), what the store kept put back; then
//! either the rounds, or, when the gateway runs nothing and the upstream speaks the client's
//! API, the upstream's answer passed through unchanged.

use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::HeaderMap;
use axum::response::Response;
use serde_json::{Map, Value};

use super::Rounds;
use crate::api::{ClientApi, Prepare};
use crate::body::Outgoing;
use crate::error::ApiError;
use crate::gateway::Inner;
use crate::store::{self, Kept, KeptStore, StoreError};
use crate::upstream::passthrough;

/// A client's request of API `A`: a JSON object, or a refusal in `A`'s shape.
pub struct ClientRequest<A> {
    /// The request.
    pub body: Map<String, Value>,
    api: PhantomData<A>,
}

impl<A: ClientApi, S: Send + Sync> FromRequest<S> for ClientRequest<A> {
    type Rejection = Response;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = Bytes::from_request(request, state)
            .await
            .map_err(|rejection| {
                ApiError::invalid(
                    format!("The request's body could not be read: {rejection}"),
                    "invalid_body",
                )
                .answer(A::API)
            })?;
        let body = match serde_json::from_slice::<Value>(&bytes) {
            Ok(Value::Object(map)) => map,
            Ok(_) => {
                return Err(ApiError::invalid(
                    "The request body must be a JSON object.",
                    "invalid_json",
                )
                .answer(A::API));
            }
            Err(err) => {
                return Err(ApiError::invalid(
                    format!(
                        "We could not parse the JSON body of your request ({err}). The gateway expects a JSON object, as the {} API does.",
                        A::API.as_str()
                    ),
                    "invalid_json",
                )
                .answer(A::API));
            }
        };
        Ok(ClientRequest {
            body,
            api: PhantomData,
        })
    }
}

/// Answers one request of the client's API `A`.
pub async fn serve<A: ClientApi>(
    inner: Arc<Inner>,
    headers: HeaderMap,
    request: Map<String, Value>,
) -> Response {
    match run::<A>(inner, headers, request).await {
        Ok(response) | Err(response) => response,
    }
}

async fn run<A: ClientApi>(
    inner: Arc<Inner>,
    headers: HeaderMap,
    mut request: Map<String, Value>,
) -> Result<Response, Response> {
    let fail = |err: ApiError| err.answer(A::API);
    let mut budget = A::budget(&inner.config, &mut request).map_err(fail)?;
    let echoed_tools = A::echoed_tools(&request);
    // The hosted-MCP entries choose this request's servers and tools; no upstream sees them.
    let entries = A::take_entries(&mut request).map_err(fail)?;
    let upstream_headers = inner.upstream.headers(&headers, true);
    let link = inner
        .upstream
        .link(A::API, &upstream_headers)
        .await
        .map_err(fail)?;
    let target = link.upstream.target();
    let adhoc = inner
        .connect_remotes(&entries, target)
        .await
        .map_err(fail)?;
    let (kept, unread) = read_kept::<A>(&inner, &request).await.map_err(fail)?;
    let forbidden = request.get("tool_choice").is_some_and(A::forbids_calls);
    let injection = inner
        .inject(A::API, target, &request, &entries, adhoc, forbidden)
        .map_err(fail)?;
    let mut api = A::prepare(Prepare {
        inner: &inner,
        request: &mut request,
        entries: &entries,
        injection: &injection,
        budget: &mut budget,
        kept: &kept,
        echoed_tools,
    })
    .await
    .map_err(fail)?;
    let mut answer_headers = injection.headers(&inner.sources);
    answer_headers.extend(unread.map(|_| store::unread_header()));
    let runs = inner.executes() && (injection.active || !entries.is_empty());
    if !runs {
        api.unrun(&mut request);
        if !link.translated() {
            let outgoing = Outgoing {
                request: &request,
                conversation: None,
                tool_choice: None,
                only: None,
                tool_name: A::tool_name,
                injection: &injection,
            };
            let sent = inner
                .upstream
                .send(&inner.store, link, &upstream_headers, &outgoing)
                .await
                .map_err(fail)?;
            let mut response = passthrough(sent.into_answer());
            response.headers_mut().extend(answer_headers);
            return Ok(response);
        }
    } else {
        A::check_rounds(&request).map_err(fail)?;
    }
    let conversation = A::conversation(&mut request).map_err(fail)?;
    let forced = request.get("tool_choice").and_then(A::forced);
    let stream = request.get("stream") == Some(&Value::Bool(true));
    let rounds = Rounds {
        inner,
        link,
        injection,
        headers: upstream_headers,
        forced,
        budget,
        request,
        conversation,
        added: Vec::new(),
        api,
    };
    if stream {
        rounds.stream(answer_headers).await
    } else {
        rounds.whole(answer_headers).await
    }
}

/// What the store keeps for the request's conversation, by key, and the store's error when it
/// could not be read but the request goes on without it (its calls are all of earlier turns).
/// When the request needs it, the error is the answer: nothing is sent to the model. Inject
/// mode keeps nothing, so it reads nothing.
async fn read_kept<A: ClientApi>(
    inner: &Inner,
    request: &Map<String, Value>,
) -> Result<(HashMap<String, Arc<Kept>>, Option<StoreError>), ApiError> {
    if !inner.executes() {
        return Ok((HashMap::new(), None));
    }
    let (mut keys, needed) = A::store_keys(request);
    if keys.is_empty() {
        return Ok((HashMap::new(), None));
    }
    keys.sort_unstable();
    keys.dedup();
    match inner.store.get_many(&keys).await {
        Ok(found) => Ok((
            keys.into_iter()
                .zip(found)
                .filter_map(|(key, kept)| Some((key, kept?)))
                .collect(),
            None,
        )),
        Err(err) if needed => Err(err.on_read()),
        Err(err) => {
            tracing::warn!(
                "{err}: the earlier turns of a conversation are sent as the client wrote them"
            );
            Ok((HashMap::new(), Some(err)))
        }
    }
}
