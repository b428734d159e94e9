//! OAuth 2.1 for MCP servers over Streamable HTTP, as MCP's authorization (2025-11-25) has a
//! client do it, on top of rmcp's `auth` support:
//!
//! - a request answered 401 with a `WWW-Authenticate` challenge starts discovery: the protected
//!   resource's metadata (RFC 9728: the challenge's `resource_metadata`, else the well-known
//!   locations), then its authorization server's (RFC 8414, with OpenID Connect discovery's
//!   forms); a `resource` that is not this server stops it there (rmcp's checks);
//! - a token is then obtained by the [`Grant`]: the authorization code with PKCE S256 through
//!   the user's browser ([`UserAgent`], the CLI's loopback redirect), as a pre-registered
//!   client, a client ID metadata document (CIMD) where the server supports them, or a client
//!   registered dynamically (RFC 7591, kept in the [`TokenStore`] for the next run); or the
//!   client_credentials grant (a secret or a private key, `private_key_jwt`); or the user's ID
//!   token from their identity provider, exchanged (SEP-990, enterprise-managed); or only the
//!   tokens given (refreshed, never replaced by a new authorization);
//! - every token request carries `resource` (RFC 8707); the first authorization asks for the
//!   challenge's `scope`, else the resource's `scopes_supported`, else no scope;
//! - a 403 `insufficient_scope` asks again for the scopes held and those wanted, a bounded
//!   number of times ([`MAX_STEP_UPS`]), and not at all when the token already has them;
//! - a token about to expire is refreshed before it is sent, and a refused one once.
//!
//! [`AuthorizedHttp`] is the HTTP client rmcp's Streamable HTTP transport sends through: it
//! answers challenges by itself and sends the request again, so an MCP session goes on across
//! an authorization (a server may ask for one at any request, not only at `initialize`).
//! Tokens, secrets and authorization codes are never logged or put in an error.

mod authorizer;
mod grants;
mod http;
mod scopes;
mod store;
#[cfg(test)]
mod tests;
mod user;

use std::fmt;
use std::sync::Arc;

use reqwest::Url;
use rmcp::transport::auth::StoredCredentials;

pub use authorizer::{Authorizer, expiring};
pub use http::AuthorizedHttp;
pub use rmcp::transport::JwtSigningAlgorithm;
pub use scopes::MAX_STEP_UPS;
pub use store::{MemoryStore, Registration, Saved, TokenStore};
pub use user::{Callback, Redirect, UserAgent, UserTime};

/// The identity provider's metadata (OpenID Connect discovery at its issuer): its token
/// endpoint, checked to be the issuer's own. `Err` says why it cannot be used.
pub async fn identity_provider_token_endpoint(issuer: &str) -> Result<String, String> {
    let url = format!(
        "{}/.well-known/openid-configuration",
        issuer.trim_end_matches('/')
    );
    let answer = reqwest::Client::new()
        .get(&url)
        .timeout(std::time::Duration::from_secs(30))
        .send()
        .await
        .map_err(|err| format!("cannot read {url}: {err}"))?;
    if !answer.status().is_success() {
        return Err(format!("{url} answered HTTP {}", answer.status().as_u16()));
    }
    let metadata: serde_json::Value = answer
        .json()
        .await
        .map_err(|err| format!("{url} is not JSON metadata: {err}"))?;
    let said = metadata["issuer"].as_str().unwrap_or_default();
    if said.trim_end_matches('/') != issuer.trim_end_matches('/') {
        return Err(format!(
            "{url} names the issuer `{said}`, not `{issuer}` (OpenID Connect discovery, 4.3)"
        ));
    }
    metadata["token_endpoint"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("{url} names no token endpoint"))
}

/// How a client obtains its tokens.
#[derive(Clone)]
pub enum Grant {
    /// The authorization code with PKCE, through the user's browser: for a person at a
    /// terminal.
    AuthorizationCode(Arc<dyn UserAgent>),
    /// The client_credentials grant: the client is the one authorized, with its secret or its
    /// private key (SEP-1046); for services.
    ClientCredentials,
    /// Only the tokens already in the store, refreshed with their refresh token; a server that
    /// refuses them and a refresh that fails are errors, never a new authorization.
    RefreshToken,
    /// Enterprise-managed authorization (SEP-990): the user's ID token from their identity
    /// provider is exchanged there for an identity assertion (an ID-JAG, RFC 8693), which the
    /// server's authorization server takes as a JWT bearer grant (RFC 7523); no browser.
    Enterprise(IdentityProvider),
}

/// The user's identity provider, for [`Grant::Enterprise`].
#[derive(Clone)]
pub struct IdentityProvider {
    /// Its issuer.
    pub issuer: String,
    /// Its token endpoint, where the ID token is exchanged.
    pub token_endpoint: String,
    /// This client's id there.
    pub client_id: String,
    /// This client's secret there, if it has one.
    pub client_secret: Option<String>,
    /// The user's ID token it issued.
    pub id_token: String,
}

/// The ID token and the secret are never printed.
impl fmt::Debug for IdentityProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IdentityProvider")
            .field("issuer", &self.issuer)
            .field("token_endpoint", &self.token_endpoint)
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for Grant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Grant::AuthorizationCode(_) => "AuthorizationCode",
            Grant::ClientCredentials => "ClientCredentials",
            Grant::RefreshToken => "RefreshToken",
            Grant::Enterprise(_) => "Enterprise",
        })
    }
}

/// A private key for `private_key_jwt` (RFC 7523): the client signs an assertion instead of
/// sending a secret.
#[derive(Clone)]
pub struct PrivateKey {
    /// The key, PEM (PKCS#8 or the algorithm's own form).
    pub pem: Vec<u8>,
    /// The algorithm it signs with.
    pub algorithm: JwtSigningAlgorithm,
}

/// The algorithm named `name` (`ES256`, `ES384`, `RS256`, `RS384`, `RS512`), as JOSE names them.
pub fn signing_algorithm(name: &str) -> Result<JwtSigningAlgorithm, String> {
    Ok(match name {
        "ES256" => JwtSigningAlgorithm::ES256,
        "ES384" => JwtSigningAlgorithm::ES384,
        "RS256" => JwtSigningAlgorithm::RS256,
        "RS384" => JwtSigningAlgorithm::RS384,
        "RS512" => JwtSigningAlgorithm::RS512,
        other => {
            return Err(format!(
                "`{other}` is not a signing algorithm: give ES256, ES384, RS256, RS384 or RS512"
            ));
        }
    })
}

/// Who the client is. Everything is optional: without an id, a client ID metadata document
/// or dynamic registration gives one.
#[derive(Clone, Default)]
pub struct ClientIdentity {
    /// A client id registered with the authorization server beforehand.
    pub id: Option<String>,
    /// Its secret (a confidential client).
    pub secret: Option<String>,
    /// Its private key, for the client_credentials grant with `private_key_jwt`.
    pub private_key: Option<PrivateKey>,
    /// The HTTPS URL of this client's metadata document (CIMD), used as its id where the
    /// authorization server advertises `client_id_metadata_document_supported`.
    pub metadata_url: Option<String>,
    /// The name it registers under (dynamic registration).
    pub name: String,
}

/// Secrets and keys are never printed.
impl fmt::Debug for ClientIdentity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientIdentity")
            .field("id", &self.id)
            .field("secret", &self.secret.as_ref().map(|_| "<redacted>"))
            .field(
                "private_key",
                &self.private_key.as_ref().map(|_| "<redacted>"),
            )
            .field("metadata_url", &self.metadata_url)
            .field("name", &self.name)
            .finish()
    }
}

/// How one server's tokens are obtained.
#[derive(Clone, Debug)]
pub struct OAuth {
    /// The grant.
    pub grant: Grant,
    /// The client.
    pub client: ClientIdentity,
    /// The scopes to ask for; empty to let the server's challenge and metadata choose.
    pub scopes: Vec<String>,
}

impl OAuth {
    /// Whether the grant has what it needs; `Err` says what is missing.
    pub fn check(&self) -> Result<(), String> {
        let client = &self.client;
        if client.secret.is_some() && client.private_key.is_some() {
            return Err("a client secret and a private key were both given: give one".to_owned());
        }
        if (client.secret.is_some() || client.private_key.is_some()) && client.id.is_none() {
            return Err("a client secret or key was given without the client id".to_owned());
        }
        match self.grant {
            Grant::ClientCredentials
                if client.id.is_none()
                    || (client.secret.is_none() && client.private_key.is_none()) =>
            {
                return Err(
                    "the client_credentials grant needs the client id and its secret or \
                     private key"
                        .to_owned(),
                );
            }
            Grant::Enterprise(_) if client.id.is_none() => {
                return Err(
                    "enterprise-managed authorization needs the client id registered with the \
                     server's authorization server"
                        .to_owned(),
                );
            }
            Grant::AuthorizationCode(_) | Grant::Enterprise(_) if client.private_key.is_some() => {
                return Err(
                    "a private key authenticates the client_credentials grant only".to_owned(),
                );
            }
            _ => {}
        }
        if let Some(url) = &client.metadata_url {
            let parsed = Url::parse(url)
                .map_err(|err| format!("the client metadata URL `{url}` is not a URL ({err})"))?;
            if parsed.scheme() != "https" || parsed.path() == "/" {
                return Err(format!(
                    "the client metadata URL `{url}` must be https:// with a path (it is the \
                     client's id)"
                ));
            }
        }
        Ok(())
    }
}

/// Tokens given in a configuration, as a store's first content: the refresh token grant then
/// keeps them fresh. `client_id` is the client they were issued to (a refresh needs it).
pub fn given_tokens(
    client_id: Option<&str>,
    access_token: Option<&str>,
    refresh_token: Option<&str>,
) -> Result<Saved, String> {
    let mut token = serde_json::json!({
        "access_token": access_token.unwrap_or(""),
        "token_type": "Bearer",
    });
    if let Some(refresh) = refresh_token {
        token["refresh_token"] = serde_json::Value::String(refresh.to_owned());
    }
    let token = serde_json::from_value(token)
        .map_err(|err| format!("the tokens cannot be read as an OAuth token: {err}"))?;
    Ok(Saved {
        credentials: Some(StoredCredentials::new(
            client_id.unwrap_or_default().to_owned(),
            Some(token),
            Vec::new(),
            None,
        )),
        registration: None,
    })
}
