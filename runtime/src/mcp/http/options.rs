//! What a Streamable HTTP endpoint accepts: its path, the hosts and browser origins that may
//! reach it, the bearer token it asks for, sessions or none, and how large a message may be.
//! Checked when the router is built, so that a mistake stops the server at startup with what to
//! change, instead of refusing every request later.

use std::fmt;

use axum::http::Uri;
use axum::http::uri::Authority;
use tokio_util::sync::CancellationToken;

use crate::mcp::WireLimits;

/// The hosts every endpoint answers to, whatever else is allowed: a DNS rebinding attack comes
/// with the attacker's own host name, never with these.
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// How [`McpServer::into_http_router`](crate::mcp::McpServer::into_http_router) serves MCP's
/// Streamable HTTP transport.
///
/// The defaults suit a server on this machine: endpoint `/mcp`; requests for the hosts
/// `localhost`, `127.0.0.1` and `::1` only (any port), which defeats DNS rebinding; any browser
/// origin; no token; a session per client (`Mcp-Session-Id`), so that the server can notify it
/// (`notifications/tools/list_changed`); request bodies of at most 4 MiB, nested at most 120
/// levels ([`WireLimits`]).
///
/// ```
/// use tooldef::mcp::{HttpOptions, HttpOptionsError};
///
/// // A server behind a proxy at mcp.example.com, for one web app, with a token.
/// let options = HttpOptions::new()
///     .path("/tools/mcp")
///     .allow_host("mcp.example.com")
///     .allow_origin("https://app.example.com")
///     .bearer_token("3f9a1c0e7b2d4a6f8e1c3b5d7f9a0c2e");
/// assert!(options.check().is_ok());
/// assert_eq!(options.endpoint_path(), "/tools/mcp");
///
/// // A mistake is found before any port is bound, with what to give instead.
/// let wrong = HttpOptions::new().path("mcp");
/// assert!(matches!(wrong.check(), Err(HttpOptionsError::Path { .. })));
/// ```
#[derive(Clone)]
pub struct HttpOptions {
    pub(super) path: String,
    pub(super) hosts: Vec<String>,
    pub(super) origins: Vec<String>,
    pub(super) bearer_token: Option<String>,
    pub(super) stateless: bool,
    pub(super) limits: WireLimits,
    pub(in crate::mcp) shutdown: CancellationToken,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            path: "/mcp".to_owned(),
            hosts: Vec::new(),
            origins: Vec::new(),
            bearer_token: None,
            stateless: false,
            limits: WireLimits::default(),
            shutdown: CancellationToken::new(),
        }
    }
}

/// The token is a secret: it is never printed.
impl fmt::Debug for HttpOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpOptions")
            .field("path", &self.path)
            .field("hosts", &self.hosts)
            .field("origins", &self.origins)
            .field(
                "bearer_token",
                &self.bearer_token.as_ref().map(|_| "<redacted>"),
            )
            .field("stateless", &self.stateless)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl HttpOptions {
    /// The defaults.
    pub fn new() -> Self {
        HttpOptions::default()
    }

    /// The endpoint's path (default `/mcp`): it starts with `/`, and holds no query, fragment
    /// or pattern (`{`, `}`, `*`). Every other path is answered 404 with the endpoint's path.
    #[must_use]
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }

    /// Also answer requests whose `Host` header is `host`: a name (`mcp.example.com`, any
    /// port) or a name and port (`mcp.example.com:8443`), as clients put it in `Host`. Needed
    /// when clients reach the server by another name than `localhost`, `127.0.0.1` or `::1`
    /// (its address on a network, or a public name behind a proxy); a request for any other
    /// host is refused (403).
    #[must_use]
    pub fn allow_host(mut self, host: impl Into<String>) -> Self {
        self.hosts.push(host.into());
        self
    }

    /// Accept requests from web pages of `origin` only, as browsers send it in `Origin`
    /// (`https://app.example.com`, `http://localhost:3000`; `:*` for any port,
    /// `http://localhost:*`; `null` for pages without an origin). Without a port, the scheme's
    /// default port (443 or 80). Once one origin is allowed, a request from any other is
    /// refused (403); requests without `Origin` (clients that are not browsers) are accepted.
    /// This is not CORS: a page calling the server from a browser also needs CORS headers
    /// (a CORS layer on the router).
    #[must_use]
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.origins.push(origin.into());
        self
    }

    /// Ask every request for `Authorization: Bearer <token>`; a request without it, or with
    /// another token, is answered 401 with `WWW-Authenticate: Bearer` and what to send. The
    /// token is visible ASCII without spaces (as `openssl rand -hex 32` prints), compared in
    /// constant time.
    #[must_use]
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.bearer_token = Some(token.into());
        self
    }

    /// Serve without sessions (default: with). Stateless, each POST is answered on its own,
    /// as JSON when it needs no stream, and any instance behind a load balancer can answer
    /// it; but the server cannot reach a client between its requests, so no
    /// `notifications/tools/list_changed` is sent.
    #[must_use]
    pub fn stateless(mut self, stateless: bool) -> Self {
        self.stateless = stateless;
        self
    }

    /// The bounds on each request body: its size (a larger body is refused with 413 and never
    /// kept) and its nesting. A tool's arguments have their own, lower bounds
    /// ([`Limits`](crate::Limits)); these are the transport's outer ones.
    #[must_use]
    pub fn limits(mut self, limits: WireLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Cancel `token` to end every session and open stream, and refuse new requests: what a
    /// graceful shutdown needs, since a client's open event stream would otherwise keep its
    /// connection, and the server, running.
    #[must_use]
    pub fn shutdown_token(mut self, token: CancellationToken) -> Self {
        self.shutdown = token;
        self
    }

    /// The endpoint's path, as given.
    pub fn endpoint_path(&self) -> &str {
        &self.path
    }

    /// Whether these options can work, without serving: `Err` says what to give instead. Serving
    /// checks them too; this is for refusing a bad command line before binding a port.
    pub fn check(&self) -> Result<(), HttpOptionsError> {
        self.checked().map(drop)
    }

    /// The options checked, in the form rmcp takes them.
    pub(super) fn checked(&self) -> Result<Checked, HttpOptionsError> {
        check_path(&self.path)?;
        let mut hosts: Vec<String> = LOOPBACK_HOSTS.iter().map(|&h| h.to_owned()).collect();
        for host in &self.hosts {
            hosts.push(check_host(host)?);
        }
        let origins = self
            .origins
            .iter()
            .map(|origin| check_origin(origin))
            .collect::<Result<Vec<_>, _>>()?;
        if let Some(token) = &self.bearer_token {
            check_token(token)?;
        }
        Ok(Checked { hosts, origins })
    }
}

/// The hosts and origins as rmcp matches them.
pub(super) struct Checked {
    pub(super) hosts: Vec<String>,
    pub(super) origins: Vec<String>,
}

/// Why [`HttpOptions`] cannot make an endpoint; each message says what to give instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HttpOptionsError {
    /// The endpoint path is not one a router can serve.
    #[error("the endpoint path `{path}` {why}")]
    Path {
        /// The path given.
        path: String,
        /// What is wrong with it, and what to give.
        why: &'static str,
    },
    /// An allowed host is not a host as clients send it in `Host`.
    #[error(
        "the allowed host `{host}` {why}; give a host as clients send it in the `Host` header: \
         `mcp.example.com` (any port) or `mcp.example.com:8443`"
    )]
    Host {
        /// The host given.
        host: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// An allowed origin is not an origin as browsers send it in `Origin`.
    #[error(
        "the allowed origin `{origin}` {why}; give an origin as browsers send it in the `Origin` \
         header: scheme, host and optional port, e.g. `https://app.example.com`, \
         `http://localhost:3000`, `http://localhost:*` (any port) or `null`"
    )]
    Origin {
        /// The origin given.
        origin: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// The bearer token cannot be sent in an HTTP header.
    #[error("the bearer token {why}")]
    BearerToken {
        /// What is wrong with it, and what to give.
        why: &'static str,
    },
}

fn check_path(path: &str) -> Result<(), HttpOptionsError> {
    let why = if !path.starts_with('/') {
        "does not start with `/`: give an absolute path, e.g. `/mcp`"
    } else if path.contains(['?', '#']) {
        "holds a query or fragment (`?`, `#`): give the path alone, e.g. `/mcp`"
    } else if path.contains(['{', '}', '*']) {
        "holds a pattern character (`{`, `}` or `*`): give one fixed path, e.g. `/mcp`"
    } else if path.contains(|c: char| c.is_whitespace() || c.is_control()) {
        "holds a space or control character: give a path a URL can carry, e.g. `/mcp`"
    } else {
        return Ok(());
    };
    Err(HttpOptionsError::Path {
        path: path.to_owned(),
        why,
    })
}

fn check_host(host: &str) -> Result<String, HttpOptionsError> {
    let refuse = |why| HttpOptionsError::Host {
        host: host.to_owned(),
        why,
    };
    let trimmed = host.trim();
    if trimmed.contains("://") {
        return Err(refuse("has a scheme"));
    }
    if trimmed.contains(['/', '@', '?', '#']) {
        return Err(refuse("is not a host alone"));
    }
    // An IPv6 address without brackets, as rmcp's own default `::1` is written.
    if trimmed.parse::<std::net::Ipv6Addr>().is_ok() {
        return Ok(trimmed.to_ascii_lowercase());
    }
    let authority = Authority::try_from(trimmed).map_err(|_| refuse("is not a host name"))?;
    if authority.host().is_empty() {
        return Err(refuse("has no host name"));
    }
    Ok(trimmed.to_ascii_lowercase())
}

/// An origin, with the scheme's default port made explicit where it has one: rmcp matches an
/// origin without a port against any port (deprecated, and to change), so the meaning written
/// here, the default port, is the one that holds now and later.
fn check_origin(origin: &str) -> Result<String, HttpOptionsError> {
    let refuse = |why| HttpOptionsError::Origin {
        origin: origin.to_owned(),
        why,
    };
    let trimmed = origin.trim();
    if trimmed.eq_ignore_ascii_case("null") {
        return Ok("null".to_owned());
    }
    let (base, any_port) = match trimmed.strip_suffix(":*") {
        Some(base) => (base, true),
        None => (trimmed, false),
    };
    let uri = Uri::try_from(base).map_err(|_| refuse("is not a URL"))?;
    let (Some(scheme), Some(authority)) = (uri.scheme_str(), uri.authority()) else {
        return Err(refuse("has no scheme"));
    };
    if !matches!(uri.path(), "" | "/") || uri.query().is_some() {
        return Err(refuse("has a path or query"));
    }
    if authority.as_str().contains('@') {
        return Err(refuse("has a user name"));
    }
    if any_port && authority.port().is_some() {
        return Err(refuse("has both a port and `:*`"));
    }
    let scheme = scheme.to_ascii_lowercase();
    let host = authority.host().to_ascii_lowercase();
    // `Authority::host` keeps an IPv6 address's brackets, as an origin writes it.
    Ok(match (authority.port_u16(), any_port, scheme.as_str()) {
        (Some(port), _, _) => format!("{scheme}://{host}:{port}"),
        (None, true, _) => format!("{scheme}://{host}:*"),
        (None, false, "https") => format!("{scheme}://{host}:443"),
        (None, false, "http") => format!("{scheme}://{host}:80"),
        (None, false, _) => format!("{scheme}://{host}"),
    })
}

fn check_token(token: &str) -> Result<(), HttpOptionsError> {
    let why = if token.is_empty() {
        "is empty: give a secret, e.g. what `openssl rand -hex 32` prints"
    } else if !token.bytes().all(|b| b.is_ascii_graphic()) {
        "holds a space, a control character or a non-ASCII character, which an HTTP header \
         cannot carry: use visible ASCII only, e.g. what `openssl rand -hex 32` prints"
    } else {
        return Ok(());
    };
    Err(HttpOptionsError::BearerToken { why })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_must_be_one_fixed_absolute_path() {
        assert!(check_path("/mcp").is_ok());
        assert!(check_path("/").is_ok());
        assert!(check_path("/v1/tools/mcp").is_ok());
        for bad in ["mcp", "", "/mcp?x=1", "/{id}", "/*rest", "/a b"] {
            let error = check_path(bad).unwrap_err().to_string();
            assert!(error.contains("e.g. `/mcp`"), "{bad}: {error}");
        }
    }

    #[test]
    fn hosts_are_taken_as_the_host_header_carries_them() {
        assert_eq!(check_host("MCP.example.com").unwrap(), "mcp.example.com");
        assert_eq!(check_host("10.0.0.5:8000").unwrap(), "10.0.0.5:8000");
        assert_eq!(check_host("[::1]:8000").unwrap(), "[::1]:8000");
        assert_eq!(check_host("fe80::1").unwrap(), "fe80::1");
        let error = check_host("https://mcp.example.com")
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            "the allowed host `https://mcp.example.com` has a scheme; give a host as clients \
             send it in the `Host` header: `mcp.example.com` (any port) or `mcp.example.com:8443`"
        );
        assert!(check_host("user@example.com").is_err());
        assert!(check_host("example.com/mcp").is_err());
        assert!(check_host("").is_err());
    }

    #[test]
    fn origins_get_their_default_port_written_out() {
        assert_eq!(
            check_origin("https://App.example.com").unwrap(),
            "https://app.example.com:443"
        );
        assert_eq!(
            check_origin("http://localhost").unwrap(),
            "http://localhost:80"
        );
        assert_eq!(
            check_origin("http://localhost:3000/").unwrap(),
            "http://localhost:3000"
        );
        assert_eq!(
            check_origin("http://localhost:*").unwrap(),
            "http://localhost:*"
        );
        assert_eq!(check_origin("http://[::1]:*").unwrap(), "http://[::1]:*");
        assert_eq!(check_origin("NULL").unwrap(), "null");
        for (bad, why) in [
            ("app.example.com", "has no scheme"),
            ("https://app.example.com/page", "has a path or query"),
            ("https://app.example.com:443:*", "has both a port and `:*`"),
            ("https://user@app.example.com", "has a user name"),
        ] {
            let error = check_origin(bad).unwrap_err().to_string();
            assert!(
                error.starts_with(&format!("the allowed origin `{bad}` {why}; give an origin")),
                "{error}"
            );
        }
    }

    #[test]
    fn tokens_must_fit_in_a_header() {
        assert!(check_token("0123abcd-._~+/=").is_ok());
        for bad in ["", "two words", "tab\there", "clé"] {
            assert!(check_token(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_token_is_never_printed() {
        let options = HttpOptions::new().bearer_token("s3cret-token");
        let shown = format!("{options:?}");
        assert!(!shown.contains("s3cret"), "{shown}");
        assert!(shown.contains("<redacted>"), "{shown}");
    }

    #[test]
    fn loopback_hosts_stay_allowed_beside_the_ones_added() {
        let checked = HttpOptions::new()
            .allow_host("mcp.example.com")
            .checked()
            .unwrap();
        assert_eq!(
            checked.hosts,
            ["localhost", "127.0.0.1", "::1", "mcp.example.com"]
        );
        assert!(checked.origins.is_empty());
    }
}
