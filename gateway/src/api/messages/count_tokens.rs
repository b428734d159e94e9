//! `POST /v1/messages/count_tokens`: the tokens of a Messages request as the model will see it,
//! the injected tools included, counted by the upstream (only a model's own API knows its
//! tokenizer): passed on to an upstream that speaks Messages, refused clearly otherwise.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;

use super::Messages;
use crate::api::{Api, ClientApi};
use crate::body::Outgoing;
use crate::error::ApiError;
use crate::gateway::Inner;
use crate::rounds::ClientRequest;
use crate::upstream::passthrough;

/// The path, after `/v1/messages`.
pub const PATH: &str = "/v1/messages/count_tokens";

/// Counts a request's tokens with the injected tools it would carry.
pub async fn count_tokens(
    State(inner): State<Arc<Inner>>,
    headers: HeaderMap,
    request: Result<ClientRequest<Messages>, Response>,
) -> Response {
    let mut request = match request {
        Ok(request) => request.body,
        Err(refusal) => return refusal,
    };
    let fail = |err: ApiError| err.answer(Api::Messages);
    let upstream_headers = inner.upstream.headers(&headers, true);
    let link = match inner.upstream.link(Api::Messages, &upstream_headers).await {
        Ok(link) => link,
        Err(err) => return fail(err),
    };
    if link.translated() {
        return fail(ApiError {
            status: StatusCode::NOT_FOUND,
            message: format!(
                "`count_tokens` counts with the model's own tokenizer, which only an upstream that speaks the Messages API has; this gateway's upstream speaks {} (the gateway translates your messages for it, but cannot count its tokens).",
                link.upstream.path()
            ),
            kind: "not_found_error",
            param: None,
            code: Some("count_tokens_unavailable"),
        });
    }
    let entries = match Messages::take_entries(&mut request) {
        Ok(entries) => entries,
        Err(err) => return fail(err),
    };
    let adhoc = match inner
        .connect_remotes(&entries, Api::Messages.target())
        .await
    {
        Ok(adhoc) => adhoc,
        Err(err) => return fail(err),
    };
    let forbidden = request
        .get("tool_choice")
        .is_some_and(Messages::forbids_calls);
    let injection = match inner.inject(
        Api::Messages,
        Api::Messages.target(),
        &request,
        &entries,
        adhoc,
        forbidden,
    ) {
        Ok(injection) => injection,
        Err(err) => return fail(err),
    };
    let outgoing = Outgoing {
        request: &request,
        conversation: None,
        tool_choice: None,
        only: None,
        tool_name: Messages::tool_name,
        injection: &injection,
    };
    match inner
        .upstream
        .post_json(PATH, &upstream_headers, &outgoing)
        .await
    {
        Ok(answer) => passthrough(answer),
        Err(err) => fail(err),
    }
}
