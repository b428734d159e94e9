//! An MCP server reached over Streamable HTTP with rmcp's client: where it is, the token (or
//! the OAuth client, `oauth::Authorizer`) and headers sent with every request, and why a
//! connection failed, in words. Shared by the gateway's servers and `tooldef list --url` /
//! `tooldef call --url`.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use http::{HeaderName, HeaderValue};
use reqwest::Url;
use rmcp::service::{ClientInitializeError, ServiceError};
use rmcp::transport::auth::AuthError;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClientTransportConfig, StreamableHttpError,
};
use rmcp::transport::{DynamicTransportError, StreamableHttpClientTransport};

use crate::oauth::{AuthorizedHttp, Authorizer};

/// Headers rmcp's client sets itself, and refuses to be given.
const RESERVED: [&str; 4] = [
    "accept",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
];

/// An MCP server's Streamable HTTP endpoint and what to send it.
#[derive(Clone)]
pub struct RemoteServer {
    url: String,
    bearer_token: Option<String>,
    headers: HashMap<HeaderName, HeaderValue>,
    oauth: Option<Arc<Authorizer>>,
}

/// Tokens and header values are secrets: they are never printed.
impl fmt::Debug for RemoteServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RemoteServer")
            .field("url", &self.url)
            .field(
                "bearer_token",
                &self.bearer_token.as_ref().map(|_| "<redacted>"),
            )
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .field("oauth", &self.oauth.is_some())
            .finish()
    }
}

impl RemoteServer {
    /// The server whose endpoint is `url` (`http://` or `https://`); `Err` says what to give.
    pub fn new(url: &str) -> Result<RemoteServer, String> {
        let parsed = Url::parse(url).map_err(|err| {
            format!(
                "`{url}` is not a URL ({err}): give the server's MCP endpoint, e.g. \
                 `http://127.0.0.1:8000/mcp`"
            )
        })?;
        if !matches!(parsed.scheme(), "http" | "https") || parsed.host().is_none() {
            return Err(format!(
                "`{url}` is not an http:// or https:// URL: give the server's MCP endpoint, \
                 e.g. `http://127.0.0.1:8000/mcp`"
            ));
        }
        Ok(RemoteServer {
            url: url.to_owned(),
            bearer_token: None,
            headers: HashMap::new(),
            oauth: None,
        })
    }

    /// Sends `Authorization: Bearer <token>` with every request.
    pub fn bearer_token(mut self, token: impl Into<String>) -> Result<RemoteServer, String> {
        if self.headers.contains_key(&http::header::AUTHORIZATION) || self.oauth.is_some() {
            return Err(ONE_CREDENTIAL.to_owned());
        }
        self.bearer_token = Some(token.into());
        Ok(self)
    }

    /// Sends the header `line` (`Name: value`) with every request.
    pub fn header(mut self, line: &str) -> Result<RemoteServer, String> {
        let (name, value) = parse_header(line)?;
        if name == http::header::AUTHORIZATION
            && (self.bearer_token.is_some() || self.oauth.is_some())
        {
            return Err(ONE_CREDENTIAL.to_owned());
        }
        self.headers.insert(name, value);
        Ok(self)
    }

    /// Authorizes every request through `authorizer` (OAuth: its tokens, refreshed, and a new
    /// authorization when the server asks for one), instead of a fixed token.
    pub fn oauth(mut self, authorizer: Arc<Authorizer>) -> Result<RemoteServer, String> {
        if self.bearer_token.is_some() || self.headers.contains_key(&http::header::AUTHORIZATION) {
            return Err(ONE_CREDENTIAL.to_owned());
        }
        self.oauth = Some(authorizer);
        Ok(self)
    }

    /// The endpoint, as given.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// rmcp's client transport to it, to `serve` a client handler over.
    pub fn transport(&self) -> StreamableHttpClientTransport<AuthorizedHttp> {
        let mut config = StreamableHttpClientTransportConfig::with_uri(self.url.as_str())
            .custom_headers(self.headers.clone());
        if let Some(token) = &self.bearer_token {
            config = config.auth_header(token.clone());
        }
        let client = AuthorizedHttp::new(reqwest::Client::new(), self.oauth.clone());
        StreamableHttpClientTransport::with_client(client, config)
    }
}

/// Two ways of authorizing the same requests.
const ONE_CREDENTIAL: &str =
    "more than one of a bearer token, an `Authorization` header and OAuth were given: give one";

/// A header given as `Name: value`, checked as HTTP and rmcp take it; `Err` says what to give.
pub fn parse_header(line: &str) -> Result<(HeaderName, HeaderValue), String> {
    let Some((name, value)) = line.split_once(':') else {
        return Err(format!(
            "`{line}` is not a header: give it as `Name: value`, e.g. `X-Api-Key: abc123`"
        ));
    };
    let name = HeaderName::try_from(name.trim()).map_err(|_| {
        format!(
            "`{}` is not a header name: use letters, digits and `-`, e.g. `X-Api-Key: abc123`",
            name.trim()
        )
    })?;
    if RESERVED.contains(&name.as_str()) {
        return Err(format!(
            "the header `{name}` is set by the MCP client itself and cannot be given"
        ));
    }
    let value = HeaderValue::try_from(value.trim()).map_err(|_| {
        format!("the value of `{name}` holds a character an HTTP header cannot carry")
    })?;
    Ok((name, value))
}

/// Why an MCP server over HTTP could not be reached or used, read from rmcp's error.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConnectFailure {
    /// Nothing answered: refused, unreachable, a name that does not resolve, a TLS failure.
    Unreachable(String),
    /// 401: the server wants a (different) token; its `WWW-Authenticate` challenge.
    Unauthorized(String),
    /// 403, with what the server said.
    Forbidden(String),
    /// OAuth did not give a token the server takes: discovery, registration, the user's
    /// sign-in or a token request failed, in words.
    Authorization(String),
    /// 404, 405 or 410 on the first request: no MCP endpoint at this path.
    NoEndpoint(String),
    /// Something answered, but not as an MCP server does.
    NotMcp(String),
    /// Anything else, as rmcp words it.
    Other(String),
}

impl ConnectFailure {
    /// Why starting a session (rmcp's `serve`) failed, when the HTTP transport says.
    pub fn of_start(error: &ClientInitializeError) -> Option<ConnectFailure> {
        match error {
            ClientInitializeError::TransportError { error, .. } => Self::of_transport(error),
            _ => None,
        }
    }

    /// Why a request in a session failed, when the HTTP transport says.
    pub fn of_request(error: &ServiceError) -> Option<ConnectFailure> {
        match error {
            ServiceError::TransportSend(error) => Self::of_transport(error),
            _ => None,
        }
    }

    /// rmcp keeps the transport's error in a field it does not give as the source, so the
    /// chain is walked from there.
    fn of_transport(error: &DynamicTransportError) -> Option<ConnectFailure> {
        let mut current: Option<&(dyn std::error::Error + 'static)> = Some(error.error.as_ref());
        while let Some(error) = current {
            if let Some(http) = error.downcast_ref::<StreamableHttpError<reqwest::Error>>() {
                return Some(classify(http));
            }
            current = error.source();
        }
        None
    }
}

fn classify(error: &StreamableHttpError<reqwest::Error>) -> ConnectFailure {
    match error {
        StreamableHttpError::Client(error) if error.is_connect() || error.is_timeout() => {
            ConnectFailure::Unreachable(innermost(error))
        }
        StreamableHttpError::Client(error) => ConnectFailure::Other(innermost(error)),
        StreamableHttpError::AuthRequired(required) => {
            ConnectFailure::Unauthorized(required.www_authenticate_header.clone())
        }
        StreamableHttpError::Auth(AuthError::NoAuthorizationSupport) => {
            ConnectFailure::Unauthorized(
                "Bearer (and no OAuth metadata is published for it)".to_owned(),
            )
        }
        // rmcp words this one "OAuth authorization failed: …"; the reason is what tells.
        StreamableHttpError::Auth(AuthError::AuthorizationFailed(why)) => {
            ConnectFailure::Authorization(why.clone())
        }
        StreamableHttpError::Auth(error) => ConnectFailure::Authorization(error.to_string()),
        StreamableHttpError::InsufficientScope(scope) => ConnectFailure::Forbidden(format!(
            "insufficient scope (`WWW-Authenticate: {}`)",
            scope.www_authenticate_header
        )),
        StreamableHttpError::UnexpectedServerResponse(text) => {
            let text = text.trim();
            // rmcp words a refusal `HTTP <code> <reason>: <body>`; the body says the most.
            let status = text
                .strip_prefix("HTTP ")
                .and_then(|rest| rest.get(..3))
                .and_then(|code| code.parse::<u16>().ok());
            let Some(status) = status else {
                return ConnectFailure::NotMcp(text.to_owned());
            };
            let body = text.split_once(": ").map_or("", |(_, body)| body.trim());
            let said = if body.is_empty() {
                format!("HTTP {status}")
            } else {
                format!("HTTP {status}: {body}")
            };
            match status {
                401 => ConnectFailure::Unauthorized(said),
                403 => ConnectFailure::Forbidden(said),
                404 | 405 | 410 => ConnectFailure::NoEndpoint(said),
                _ => ConnectFailure::Other(format!("it answered {said}")),
            }
        }
        StreamableHttpError::HttpStatus(error) => {
            let reason = http::StatusCode::from_u16(error.status)
                .ok()
                .and_then(|status| status.canonical_reason())
                .unwrap_or("");
            ConnectFailure::Other(format!(
                "it answered HTTP {} {reason}, a server error (or this is not an MCP endpoint)",
                error.status
            ))
        }
        StreamableHttpError::UnexpectedContentType(content_type) => {
            ConnectFailure::NotMcp(format!(
                "it answered with {} instead of JSON or an event stream",
                content_type
                    .as_deref()
                    .map_or_else(|| "no content type".to_owned(), |ct| format!("`{ct}`"))
            ))
        }
        StreamableHttpError::Deserialize(error) => {
            ConnectFailure::NotMcp(format!("its answer is not JSON-RPC: {error}"))
        }
        StreamableHttpError::Sse(error) => {
            ConnectFailure::NotMcp(format!("its event stream is not one: {error}"))
        }
        other => ConnectFailure::Other(other.to_string()),
    }
}

/// reqwest's own message says only "error sending request"; the reason is at the end of its
/// source chain ("Connection refused (os error 111)", "dns error").
fn innermost(error: &reqwest::Error) -> String {
    let mut reason: &dyn std::error::Error = error;
    while let Some(source) = reason.source() {
        reason = source;
    }
    reason.to_string()
}

impl fmt::Display for ConnectFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConnectFailure::Unreachable(why) => write!(f, "cannot connect: {why}"),
            ConnectFailure::Unauthorized(challenge) => {
                write!(
                    f,
                    "unauthorised (HTTP 401, `WWW-Authenticate: {challenge}`)"
                )
            }
            ConnectFailure::Forbidden(why) => write!(f, "forbidden ({why})"),
            ConnectFailure::Authorization(why) => write!(f, "not authorized: {why}"),
            ConnectFailure::NoEndpoint(why) => write!(f, "no MCP endpoint at this path ({why})"),
            ConnectFailure::NotMcp(why) => write!(f, "not an MCP server: {why}"),
            ConnectFailure::Other(why) => f.write_str(why),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_must_be_http_endpoints() {
        assert!(RemoteServer::new("http://127.0.0.1:8000/mcp").is_ok());
        assert!(RemoteServer::new("https://mcp.example.com/mcp").is_ok());
        for bad in [
            "127.0.0.1:8000/mcp",
            "ftp://example.com/mcp",
            "not a url",
            "http://",
        ] {
            let error = RemoteServer::new(bad).unwrap_err();
            assert!(
                error.contains("e.g. `http://127.0.0.1:8000/mcp`"),
                "{error}"
            );
        }
    }

    #[test]
    fn headers_are_name_colon_value() {
        let (name, value) = parse_header("X-Api-Key:  abc 123 ").unwrap();
        assert_eq!(name, "x-api-key");
        assert_eq!(value, "abc 123");
        assert!(
            parse_header("X-Api-Key abc")
                .unwrap_err()
                .contains("`Name: value`")
        );
        assert!(
            parse_header("Bad Name: 1")
                .unwrap_err()
                .contains("not a header name")
        );
        assert!(
            parse_header("Accept: text/html")
                .unwrap_err()
                .contains("set by the MCP client")
        );
        assert!(
            parse_header("X-A: a\u{7f}b")
                .unwrap_err()
                .contains("cannot carry")
        );
    }

    #[test]
    fn a_token_and_an_authorization_header_are_one_too_many() {
        let server = RemoteServer::new("http://127.0.0.1:1/mcp").unwrap();
        let both = server
            .clone()
            .bearer_token("t")
            .and_then(|s| s.header("Authorization: Basic eDp5"));
        assert!(both.unwrap_err().contains("give one"));
        let both = server
            .header("authorization: Basic eDp5")
            .and_then(|s| s.bearer_token("t"));
        assert!(both.unwrap_err().contains("give one"));
    }

    #[test]
    fn the_token_is_never_printed() {
        let server = RemoteServer::new("http://127.0.0.1:1/mcp")
            .and_then(|s| s.bearer_token("s3cret"))
            .and_then(|s| s.header("X-Api-Key: hidden"))
            .unwrap();
        let shown = format!("{server:?}");
        assert!(
            !shown.contains("s3cret") && !shown.contains("hidden"),
            "{shown}"
        );
    }

    #[test]
    fn refusals_are_told_by_their_status() {
        let failure = |text: &'static str| {
            classify(&StreamableHttpError::UnexpectedServerResponse(text.into()))
        };
        assert_eq!(
            failure("HTTP 404 Not Found: Not Found: connect to `/mcp`"),
            ConnectFailure::NoEndpoint("HTTP 404: Not Found: connect to `/mcp`".to_owned())
        );
        assert_eq!(
            failure("HTTP 403 Forbidden: Forbidden: Host header is not allowed"),
            ConnectFailure::Forbidden("HTTP 403: Forbidden: Host header is not allowed".to_owned())
        );
        assert!(matches!(
            failure("HTTP 401 Unauthorized: x"),
            ConnectFailure::Unauthorized(_)
        ));
        assert_eq!(
            failure("HTTP 400 Bad Request: "),
            ConnectFailure::Other("it answered HTTP 400".to_owned())
        );
        assert!(matches!(
            failure("could not parse JSON"),
            ConnectFailure::NotMcp(_)
        ));
    }
}
