//! The HTTP client under rmcp's Streamable HTTP transport, with OAuth: each request carries the
//! server's token, and a challenge is answered (an authorization, a refresh, a step-up) before
//! the same request is sent again, so that the MCP session goes on.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use futures_util::stream::BoxStream;
use http::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::auth::AuthError;
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};
use sse_stream::Sse;

use super::Authorizer;

type Error = StreamableHttpError<reqwest::Error>;

/// reqwest's client for rmcp's transport, with a server's [`Authorizer`] when it takes OAuth;
/// without one, requests go with the token the transport was configured with, as reqwest's
/// client sends them.
#[derive(Clone, Debug)]
pub struct AuthorizedHttp {
    http: reqwest::Client,
    auth: Option<Arc<Authorizer>>,
}

impl AuthorizedHttp {
    /// Requests through `http`, authorized by `auth` when given.
    pub fn new(http: reqwest::Client, auth: Option<Arc<Authorizer>>) -> AuthorizedHttp {
        AuthorizedHttp { http, auth }
    }

    /// Runs `call` with the token to send, answering the server's challenges: a 401 once (a
    /// refresh or a new authorization), a 403 `insufficient_scope` up to
    /// [`MAX_STEP_UPS`](super::MAX_STEP_UPS) times for the request.
    async fn send<T, F, Fut>(&self, given: Option<String>, call: F) -> Result<T, Error>
    where
        F: Fn(Option<String>) -> Fut,
        Fut: Future<Output = Result<T, Error>>,
    {
        let Some(auth) = &self.auth else {
            return call(given).await;
        };
        let mut token = auth.token().await?;
        let mut reauthorized = false;
        let mut step_ups = 0;
        loop {
            match call(token.clone()).await {
                Err(StreamableHttpError::AuthRequired(challenge)) if !reauthorized => {
                    reauthorized = true;
                    match auth
                        .unauthorized(&challenge.www_authenticate_header, token.as_deref())
                        .await
                    {
                        Ok(fresh) => token = Some(fresh),
                        // A server that publishes no OAuth metadata takes another credential:
                        // its own refusal says the most.
                        Err(AuthError::NoAuthorizationSupport) => {
                            return Err(StreamableHttpError::AuthRequired(challenge));
                        }
                        Err(err) => return Err(err.into()),
                    }
                }
                Err(StreamableHttpError::InsufficientScope(refusal)) => {
                    token = Some(
                        auth.insufficient_scope(
                            &refusal.www_authenticate_header,
                            token.as_deref(),
                            &mut step_ups,
                        )
                        .await?,
                    );
                }
                other => return other,
            }
        }
    }
}

impl StreamableHttpClient for AuthorizedHttp {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, Error> {
        self.send(auth_header, |token| {
            self.http.post_message(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                token,
                custom_headers.clone(),
            )
        })
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, Error> {
        self.send(auth_header, |token| {
            self.http.post_message_with_max_sse_event_size(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                token,
                custom_headers.clone(),
                max_sse_event_size,
            )
        })
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, Error> {
        self.send(auth_header, |token| {
            self.http.post_message_with_response_limits(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                token,
                custom_headers.clone(),
                limits,
            )
        })
        .await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), Error> {
        self.send(auth_header, |token| {
            self.http.delete_session(
                uri.clone(),
                session_id.clone(),
                token,
                custom_headers.clone(),
            )
        })
        .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, Error> {
        self.send(auth_header, |token| {
            self.http.get_stream(
                uri.clone(),
                session_id.clone(),
                last_event_id.clone(),
                token,
                custom_headers.clone(),
            )
        })
        .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, Error> {
        self.send(auth_header, |token| {
            self.http.get_stream_with_max_sse_event_size(
                uri.clone(),
                session_id.clone(),
                last_event_id.clone(),
                token,
                custom_headers.clone(),
                max_sse_event_size,
            )
        })
        .await
    }
}
