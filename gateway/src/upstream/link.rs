//! One round sent to the upstream in the API it speaks, and its answer read back in the client's:
//! unchanged when the two are the same API; otherwise the request is read into the gateway's
//! model of a conversation (`crate::translate`) and written in the upstream's API, with the
//! injected tools (rendered for the upstream's target) after the client's, and the reply, whole
//! or streamed, is written back in the client's API. A Responses client's conversation is kept
//! for its `previous_response_id` when the upstream keeps nothing.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;

use axum::http::{HeaderMap, HeaderName, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use futures_util::{Stream, StreamExt};
use serde_json::Value;

use super::{Answer, Upstream, informative_headers, passthrough};
use super::{Echo, WithoutTools};
use crate::api::Api;
use crate::body::Outgoing;
use crate::catalog::Catalog;
use crate::error::ApiError;
use crate::gateway::Inner;
use crate::store::{Kept, KeptStore, Key, Store};
use crate::translate::ir::{self, ErrorBody, Refusal};
use crate::translate::{self, Collector, Reader, Writer};

/// The way to the upstream for a client of one API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Link {
    /// The client's API.
    pub client: Api,
    /// The upstream's, which its requests are written in.
    pub upstream: Api,
}

impl Link {
    /// Whether requests and replies are translated.
    pub fn translated(self) -> bool {
        self.client != self.upstream
    }

    /// The headers that say how the upstream was spoken to, when not in the client's API.
    pub fn headers(self) -> Vec<(HeaderName, HeaderValue)> {
        self.translated()
            .then(|| crate::headers::text(crate::headers::UPSTREAM_API, self.upstream.as_str()))
            .flatten()
            .into_iter()
            .collect()
    }
}

/// A 400 in the client's words for what its API says and the upstream's cannot.
fn refused(link: Link, refusal: Refusal) -> ApiError {
    ApiError::invalid(
        format!(
            "{} (The gateway speaks to its upstream in the {} API, which cannot carry it.)",
            refusal.message,
            link.upstream.as_str()
        ),
        "untranslatable",
    )
    .param(refusal.param)
}

/// The client's credentials in the form the upstream's API takes them: Anthropic's
/// `x-api-key` for a Messages upstream, a bearer token for the others.
fn credentials(link: Link, mut headers: HeaderMap) -> HeaderMap {
    let api_key = HeaderName::from_static("x-api-key");
    match link.upstream {
        Api::Messages => {
            if !headers.contains_key(&api_key)
                && let Some(token) = headers
                    .get(header::AUTHORIZATION)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.strip_prefix("Bearer "))
                    .and_then(|token| HeaderValue::from_str(token).ok())
            {
                headers.remove(header::AUTHORIZATION);
                headers.insert(api_key, token);
            }
            let version = HeaderName::from_static("anthropic-version");
            if !headers.contains_key(&version) {
                headers.insert(version, HeaderValue::from_static("2023-06-01"));
            }
        }
        Api::Chat | Api::Responses => {
            if !headers.contains_key(header::AUTHORIZATION)
                && let Some(bearer) = headers
                    .get(&api_key)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|key| HeaderValue::from_str(&format!("Bearer {key}")).ok())
            {
                headers.insert(header::AUTHORIZATION, bearer);
            }
            headers.remove(&api_key);
            headers.remove("anthropic-version");
            headers.remove("anthropic-beta");
        }
    }
    headers
}

/// A round sent: the upstream's answer, and, when it was translated, the request as the
/// upstream got it (the conversation a `previous_response_id` named included).
pub struct Sent {
    link: Link,
    answer: Answer,
    translated: Option<ir::Request>,
    /// The request's catalog, when the upstream's calls come namespaced (`crate::namespacing`).
    namespaced: Option<Arc<Catalog>>,
}

/// The catalog whose Responses tools are in namespaces, when `body` goes to a Responses upstream
/// in them.
fn namespaced(link: Link, body: &Outgoing<'_>) -> Option<Arc<Catalog>> {
    let catalog = &body.injection.catalog;
    (link.upstream == Api::Responses
        && !catalog
            .for_target(tooldef::Target::Responses)
            .namespaces
            .is_empty())
    .then(|| catalog.clone())
}

impl Upstream {
    /// The link for a client of `client`.
    pub async fn link(&self, client: Api, headers: &HeaderMap) -> Result<Link, ApiError> {
        let upstream = self.apis.for_client(self, client, headers).await?;
        Ok(Link { client, upstream })
    }

    /// Sends one round.
    pub async fn send(
        &self,
        store: &Store,
        link: Link,
        headers: &HeaderMap,
        body: &Outgoing<'_>,
    ) -> Result<Sent, ApiError> {
        let namespaced = namespaced(link, body);
        if !link.translated() {
            let answer = match &namespaced {
                // Written whole first, to put back the namespaces of the calls in it.
                Some(catalog) => {
                    let mut written = match serde_json::to_value(body) {
                        Ok(Value::Object(written)) => written,
                        _ => serde_json::Map::new(),
                    };
                    let injected = catalog.for_target(tooldef::Target::Responses);
                    crate::namespacing::restore(&mut written, injected);
                    self.post_json(link.upstream.path(), headers, &written)
                        .await?
                }
                None => self.post_json(link.upstream.path(), headers, body).await?,
            };
            return Ok(Sent {
                link,
                answer,
                translated: None,
                namespaced,
            });
        }
        let mut request = translate::read_request(link.client, &body.without_injected())
            .map_err(|refusal| refused(link, refusal))?;
        if let Some(previous) = request.previous_response_id.take() {
            let kept = store
                .get(&Key::conversation(&previous))
                .await
                .map_err(|err| err.on_read())?;
            let Some(Kept::Conversation { messages }) = kept.as_deref() else {
                return Err(ApiError::invalid(
                    format!(
                        "Previous response with id '{previous}' not found: the gateway keeps the responses it makes over an upstream that keeps nothing for `store_ttl_secs`, and not those made with `store: false`."
                    ),
                    "previous_response_not_found",
                )
                .param("previous_response_id"));
            };
            request.messages.splice(0..0, messages.iter().cloned());
        }
        let mut written = translate::write_request(link.upstream, &request)
            .map_err(|refusal| refused(link, refusal))?;
        let injected: Vec<Value> = body
            .injected()
            .iter()
            .filter_map(|raw| serde_json::from_str(raw.get()).ok())
            .collect();
        if !injected.is_empty() {
            match written.get_mut("tools") {
                Some(Value::Array(tools)) => tools.extend(injected),
                _ => {
                    written.insert("tools".to_owned(), Value::Array(injected));
                }
            }
        }
        if let Some(catalog) = &namespaced {
            crate::namespacing::restore(
                &mut written,
                catalog.for_target(tooldef::Target::Responses),
            );
        }
        if let Some(discovery) =
            body.injection.discovery.as_ref().filter(|discovery| {
                link.upstream == Api::Messages && discovery.loads_by_reference()
            })
        {
            // The client's API wrote the search's answer as text: its references put back.
            crate::tool_reference::restore(&mut written, discovery);
        }
        let headers = credentials(link, headers.clone());
        let answer = self
            .post_json(link.upstream.path(), &headers, &written)
            .await?;
        Ok(Sent {
            link,
            answer,
            translated: Some(request),
            namespaced,
        })
    }
}

impl Sent {
    /// The upstream's answer as it came (a round not translated, passed through).
    pub fn into_answer(self) -> Answer {
        self.answer
    }

    /// Whether the upstream took the round.
    pub fn is_success(&self) -> bool {
        self.answer.status().is_success()
    }

    /// The upstream's answer headers worth keeping on the client's answer, and whether the
    /// round was translated.
    pub fn informative(&self) -> Vec<(HeaderName, HeaderValue)> {
        let mut headers = informative_headers(self.answer.headers());
        headers.extend(self.link.headers());
        headers
    }

    /// The upstream's refusal as the client's answer: as it came, or in the client's API's shape
    /// when the upstream speaks another.
    pub async fn refusal(self) -> Response {
        if self.translated.is_none() {
            return passthrough(self.answer);
        }
        let status = self.answer.status();
        let body = body_bytes(self.answer).await.unwrap_or_default();
        let error = translate::read_error(self.link.upstream, status, &body);
        let body = translate::write_error(self.link.client, &error);
        (status, axum::Json(body)).into_response()
    }

    /// The upstream's refusal as the error event of a stream in the client's API.
    pub async fn refusal_event(self, round: u32) -> ErrorBody {
        let status = self.answer.status();
        let body = body_bytes(self.answer).await.unwrap_or_default();
        let mut error = translate::read_error(self.link.upstream, status, &body);
        error.message = format!(
            "The upstream answered round {round} with {status}: {}",
            error.message
        );
        error
    }

    /// The whole reply, in the client's API (its `tools` echo left out); a refusal of the
    /// upstream's is the client's answer.
    pub async fn whole(self, store: &Store) -> Result<Value, Response> {
        let client = self.link.client;
        if !self.is_success() {
            return Err(self.refusal().await);
        }
        let bytes = reply_bytes(self.answer, self.link.upstream)
            .await
            .map_err(|err| {
                ApiError::upstream(format!("The upstream's answer broke off: {err}")).answer(client)
            })?;
        let mut reply = read(self.link.upstream, &bytes).map_err(|err| {
            ApiError::upstream(format!("The upstream's answer is not JSON: {err}")).answer(client)
        })?;
        if let Some(catalog) = &self.namespaced {
            crate::namespacing::flatten(&mut reply, catalog.for_target(tooldef::Target::Responses));
        }
        let Some(request) = self.translated else {
            return Ok(reply);
        };
        let reply = translate::read_reply(self.link.upstream, &reply).map_err(|why| {
            ApiError::upstream(format!("The upstream's answer is unreadable: {why}")).answer(client)
        })?;
        let written = translate::write_reply(client, &reply, &request);
        keep(store, self.link, &request, &written, Some(reply))
            .await
            .map_err(|err| err.answer(client))?;
        Ok(written)
    }

    /// The reply's events, in the client's API, each its `data` as JSON (Chat's `[DONE]` is
    /// the stream's end); an error ends them.
    pub fn events(self, inner: Arc<Inner>) -> Events {
        let state = Reading {
            link: self.link,
            events: Box::pin(crate::sse::events(
                self.answer,
                self.link.upstream == Api::Responses,
            )),
            translation: self.translated.map(|request| Translation {
                reader: Reader::new(self.link.upstream),
                writer: Writer::new(self.link.client, &request),
                collector: Collector::default(),
                request,
            }),
            pending: VecDeque::new(),
            done: false,
            inner,
            namespaced: self.namespaced,
        };
        Box::pin(futures_util::stream::unfold(state, Reading::next))
    }
}

/// An answer's whole body.
async fn body_bytes(answer: Answer) -> Result<bytes::Bytes, axum::Error> {
    axum::body::to_bytes(answer.into_body(), usize::MAX).await
}

/// A whole reply's bytes; a Responses upstream's without the tools it echoes, left out as they
/// arrive ([`Echo`]), so that the reply never holds them and reading it (`read`) does not
/// cross them again.
async fn reply_bytes(answer: Answer, api: Api) -> Result<Vec<u8>, axum::Error> {
    let mut body = answer.into_body().into_data_stream();
    let mut bytes = Vec::new();
    let mut echo = (api == Api::Responses).then(Echo::default);
    while let Some(chunk) = body.next().await {
        match &mut echo {
            Some(echo) => echo.feed(&chunk?, &mut bytes),
            None => bytes.extend_from_slice(&chunk?),
        }
    }
    Ok(bytes)
}

/// A reply of `api` read from its JSON (a Responses one without the `tools` it echoes).
fn read(api: Api, bytes: &[u8]) -> Result<Value, serde_json::Error> {
    match api {
        Api::Responses => serde_json::from_slice::<WithoutTools>(bytes).map(|lean| lean.0),
        Api::Chat | Api::Messages => serde_json::from_slice(bytes),
    }
}

/// Keeps the conversation of a response the gateway made for a Responses client over an
/// upstream that keeps nothing, under the response's id, unless the client said `store: false`.
async fn keep(
    store: &Store,
    link: Link,
    request: &ir::Request,
    written: &Value,
    reply: Option<ir::Reply>,
) -> Result<(), ApiError> {
    if link.client != Api::Responses || request.store == Some(false) {
        return Ok(());
    }
    let (Some(id), Some(reply)) = (written.get("id").and_then(Value::as_str), reply) else {
        return Ok(());
    };
    let mut messages = request.messages.clone();
    messages.push(ir::Message {
        role: ir::Role::Assistant,
        parts: reply.parts,
    });
    store
        .put(vec![Key::conversation(id)], Kept::Conversation { messages })
        .await
        .map_err(|err| err.on_write())
}

/// The client's events of one round.
pub type Events = Pin<Box<dyn Stream<Item = Result<Value, ErrorBody>> + Send>>;

/// A stream being read.
struct Reading {
    link: Link,
    events: Pin<Box<dyn Stream<Item = Result<crate::sse::Event, String>> + Send>>,
    translation: Option<Translation>,
    /// Events written and not yet given.
    pending: VecDeque<Value>,
    done: bool,
    inner: Arc<Inner>,
    /// The request's catalog, when the upstream's calls come namespaced.
    namespaced: Option<Arc<Catalog>>,
}

/// A stream in the upstream's API read and written in the client's.
struct Translation {
    reader: Reader,
    writer: Writer,
    collector: Collector,
    request: ir::Request,
}

impl Reading {
    async fn next(mut self) -> Option<(Result<Value, ErrorBody>, Reading)> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                return Some((Ok(event), self));
            }
            if self.done {
                return None;
            }
            let failed = |why: String| Err(ErrorBody::upstream(why));
            match self.events.next().await {
                Some(Ok(event)) => {
                    if event.data.trim() == "[DONE]" {
                        continue;
                    }
                    let mut value = match read(self.link.upstream, event.data.as_bytes()) {
                        Ok(value) => value,
                        Err(err) => {
                            self.done = true;
                            let why = format!("The upstream sent an unreadable event: {err}");
                            return Some((failed(why), self));
                        }
                    };
                    if let Some(catalog) = &self.namespaced {
                        crate::namespacing::flatten(
                            &mut value,
                            catalog.for_target(tooldef::Target::Responses),
                        );
                    }
                    let Some(translation) = &mut self.translation else {
                        return Some((Ok(value), self));
                    };
                    match translation.reader.read(&value) {
                        Ok(deltas) => {
                            for delta in deltas {
                                translation.collector.push(&delta);
                                self.pending.extend(translation.writer.write(delta));
                            }
                        }
                        Err(error) => {
                            self.done = true;
                            return Some((Err(error), self));
                        }
                    }
                }
                Some(Err(why)) => {
                    self.done = true;
                    return Some((failed(why), self));
                }
                None => {
                    self.done = true;
                    let Some(translation) = &mut self.translation else {
                        continue;
                    };
                    let closing = translation.writer.finish();
                    let reply = std::mem::take(&mut translation.collector).reply();
                    let id = closing
                        .iter()
                        .chain(&self.pending)
                        .find_map(|event| event.pointer("/response/id"))
                        .cloned()
                        .unwrap_or(Value::Null);
                    let written = serde_json::json!({"id": id});
                    let kept = keep(
                        &self.inner.store,
                        self.link,
                        &translation.request,
                        &written,
                        reply,
                    )
                    .await;
                    if let Err(err) = kept {
                        return Some((Err(err.into()), self));
                    }
                    self.pending.extend(closing);
                }
            }
        }
    }
}
