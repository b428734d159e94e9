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

mod http;
mod scopes;
mod store;
#[cfg(test)]
mod tests;

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures_util::future::BoxFuture;
use oauth2::TokenResponse;
use reqwest::Url;
use rmcp::transport::auth::{
    AuthError, AuthorizationManager, AuthorizationMetadata, AuthorizationRequest,
    AuthorizationSession, ClientCredentialsConfig, OAuthClientConfig, StoredCredentials,
    WWWAuthenticateParams,
};
use tokio::sync::{Mutex, watch};
use tokio::time::Instant;

pub use http::AuthorizedHttp;
pub use rmcp::transport::JwtSigningAlgorithm;
pub use scopes::MAX_STEP_UPS;
pub use store::{MemoryStore, Registration, Saved, TokenStore};

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

use store::Credentials;

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

/// The user's browser, for the authorization code grant: it is given the authorization URL and
/// comes back to the redirect URI with the code.
pub trait UserAgent: Send + Sync {
    /// Starts listening for the redirect; `previous` is the redirect URI a kept registration
    /// was made with, to be reused when it can be (some servers match it exactly). `Err` says
    /// why no browser can be used.
    fn listen<'a>(
        &'a self,
        previous: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Box<dyn Redirect>, String>>;
}

/// A redirect URI being listened on.
pub trait Redirect: Send {
    /// The URI the authorization server sends the browser back to.
    fn uri(&self) -> &str;
    /// Sends the user to `authorization_url` and waits for the redirect carrying `state`;
    /// others are answered and ignored. `Err` says why none came (a refusal, a timeout).
    fn visit(
        self: Box<Self>,
        authorization_url: String,
        state: String,
    ) -> BoxFuture<'static, Result<Callback, String>>;
}

/// What the authorization server sent back to the redirect URI.
#[derive(Clone, PartialEq, Eq)]
pub struct Callback {
    /// The authorization code.
    pub code: String,
    /// The `state`, as sent.
    pub state: String,
    /// The `iss` parameter (RFC 9207), when the server sends one.
    pub issuer: Option<String>,
}

/// The code is a credential: never printed.
impl fmt::Debug for Callback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Callback")
            .field("code", &"<redacted>")
            .field("issuer", &self.issuer)
            .finish()
    }
}

/// The time spent waiting for the user in the browser, which a caller's own time limit leaves
/// out: a person signing in is not a server that does not answer.
#[derive(Clone)]
pub struct UserTime {
    /// Time spent in finished waits, and the start of the one going on.
    state: watch::Sender<(Duration, Option<Instant>)>,
}

impl Default for UserTime {
    fn default() -> UserTime {
        UserTime {
            state: watch::Sender::new((Duration::ZERO, None)),
        }
    }
}

impl UserTime {
    /// The time spent waiting for the user so far, and whether a wait is going on.
    pub fn spent(&self) -> (Duration, bool) {
        let (done, since) = *self.state.borrow();
        match since {
            Some(since) => (done + since.elapsed(), true),
            None => (done, false),
        }
    }

    /// Resolves when a wait starts or ends.
    pub async fn changed(&self) {
        let mut receiver = self.state.subscribe();
        // The sender lives in `self`, so the channel never closes under this wait.
        let _ = receiver.changed().await;
    }

    fn begin(&self) {
        self.state
            .send_modify(|(_, since)| *since = Some(Instant::now()));
    }

    fn end(&self) {
        self.state.send_modify(|(done, since)| {
            if let Some(since) = since.take() {
                *done += since.elapsed();
            }
        });
    }
}

/// Ends a wait for the user however the wait ends.
struct Waiting<'a>(&'a UserTime);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.end();
    }
}

/// What the authorizer learned in this process.
struct State {
    /// rmcp's manager; taken out while an authorization session holds it.
    manager: Option<AuthorizationManager>,
    /// The authorization server's metadata, once discovered.
    metadata: Option<AuthorizationMetadata>,
    /// The metadata was synthesized from the server's root (`/authorize`, `/token`,
    /// `/register`: MCP 2025-03-26's fallback), for want of any published.
    legacy: bool,
}

/// One server's OAuth client: its tokens, how it gets new ones, and rmcp's manager doing the
/// protocol. Shared by every request to the server (and every connection: the gateway keeps
/// one per configured server across reconnections).
pub struct Authorizer {
    url: Url,
    oauth: OAuth,
    store: Arc<dyn TokenStore>,
    state: Mutex<State>,
    user_time: UserTime,
}

impl fmt::Debug for Authorizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Authorizer")
            .field("url", &self.url.as_str())
            .field("oauth", &self.oauth)
            .finish_non_exhaustive()
    }
}

/// A token this close to its expiry is refreshed before it is sent (at most half its life).
const REFRESH_BEFORE: u64 = 30;

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn failed(why: impl Into<String>) -> AuthError {
    AuthError::AuthorizationFailed(why.into())
}

/// The access token kept, when there is one.
fn access_token(saved: &Saved) -> Option<String> {
    let token = saved.credentials.as_ref()?.token_response.as_ref()?;
    let secret = token.access_token().secret();
    (!secret.is_empty()).then(|| secret.clone())
}

/// Whether kept credentials are expired or about to be: within [`REFRESH_BEFORE`] seconds (or
/// half the token's life, for a short-lived one) of their end. A token that says nothing of its
/// life is used until a server refuses it; an empty one (only a refresh token was given) is
/// expired.
pub fn expiring(credentials: &StoredCredentials, now: u64) -> bool {
    let Some(token) = credentials.token_response.as_ref() else {
        return true;
    };
    if token.access_token().secret().is_empty() {
        return true;
    }
    let (Some(life), Some(received)) = (token.expires_in(), credentials.token_received_at) else {
        return false;
    };
    let remaining = life.as_secs().saturating_sub(now.saturating_sub(received));
    remaining < REFRESH_BEFORE.min(life.as_secs() / 2).max(1)
}

/// Whether kept credentials have run out (by what they said of their life).
fn expired(credentials: &StoredCredentials, now: u64) -> bool {
    let Some(token) = credentials.token_response.as_ref() else {
        return true;
    };
    match (token.expires_in(), credentials.token_received_at) {
        (Some(life), Some(received)) => now.saturating_sub(received) >= life.as_secs(),
        _ => token.access_token().secret().is_empty(),
    }
}

impl Authorizer {
    /// The OAuth client of the MCP server at `url`, keeping its tokens in `store`.
    pub async fn new(
        url: &str,
        oauth: OAuth,
        store: Arc<dyn TokenStore>,
    ) -> Result<Arc<Authorizer>, String> {
        oauth.check()?;
        let mut url = Url::parse(url).map_err(|err| format!("`{url}` is not a URL ({err})"))?;
        // RFC 8707: a resource indicator has no fragment.
        url.set_fragment(None);
        // Tokens issued to another client than the one named are not this client's to send.
        let mut saved = store.load()?;
        if let (Some(id), Some(credentials)) = (&oauth.client.id, &saved.credentials)
            && &credentials.client_id != id
        {
            saved.credentials = None;
            store.save(&saved)?;
        }
        let mut manager = AuthorizationManager::new(url.as_str())
            .await
            .map_err(|err| format!("cannot set up OAuth for `{url}`: {err}"))?;
        manager.set_credential_store(Credentials(store.clone()));
        Ok(Arc::new(Authorizer {
            url,
            oauth,
            store,
            state: Mutex::new(State {
                manager: Some(manager),
                metadata: None,
                legacy: false,
            }),
            user_time: UserTime::default(),
        }))
    }

    /// The server's endpoint, the resource the tokens are for.
    pub fn url(&self) -> &str {
        self.url.as_str()
    }

    /// The time spent waiting for the user.
    pub fn user_time(&self) -> UserTime {
        self.user_time.clone()
    }

    fn load(&self) -> Result<Saved, AuthError> {
        self.store.load().map_err(AuthError::CredentialStoreError)
    }

    fn save(&self, saved: &Saved) -> Result<(), AuthError> {
        self.store
            .save(saved)
            .map_err(AuthError::CredentialStoreError)
    }

    /// The token to send: the one kept, refreshed first when it is about to expire; `None`
    /// when there is none yet (the request goes without, and the server's challenge starts
    /// the authorization).
    pub async fn token(&self) -> Result<Option<String>, AuthError> {
        let mut state = self.state.lock().await;
        let saved = self.load()?;
        let Some(credentials) = &saved.credentials else {
            return Ok(None);
        };
        let now = now_secs();
        if !expiring(credentials, now) {
            return Ok(access_token(&saved));
        }
        match self.refresh(&mut state, &saved).await {
            Ok(Some(token)) => return Ok(Some(token)),
            Ok(None) => {}
            // The authorization server is not answering; a token that has not run out yet is
            // still worth sending meanwhile.
            Err(err) if !expired(credentials, now) => {
                tracing::warn!(server = %self.url, "refreshing the token failed, the current one is used meanwhile: {err}");
                return Ok(access_token(&saved));
            }
            Err(err) => return Err(err),
        }
        // A client_credentials client asks for another token itself, once it knows where.
        if matches!(self.oauth.grant, Grant::ClientCredentials) && state.metadata.is_some() {
            return self.client_credentials(&mut state, None).await.map(Some);
        }
        Ok(None)
    }

    /// The server refused `sent` (or the lack of a token) with a 401 and this challenge: a
    /// token it may take, refreshed or newly obtained by the grant.
    pub async fn unauthorized(
        &self,
        challenge: &str,
        sent: Option<&str>,
    ) -> Result<String, AuthError> {
        let mut state = self.state.lock().await;
        let saved = self.load()?;
        if let Some(current) = access_token(&saved)
            && Some(current.as_str()) != sent
        {
            // Another request has already been through this.
            return Ok(current);
        }
        self.discover(&mut state, Some(challenge)).await?;
        let saved = self.load()?;
        if let Some(token) = self.refresh(&mut state, &saved).await?
            && Some(token.as_str()) != sent
        {
            return Ok(token);
        }
        self.obtain(&mut state, None).await
    }

    /// The server refused `sent` with a 403 `insufficient_scope` and this challenge, after
    /// `attempts` step-ups for this request: a token with the scopes held and those asked for.
    pub async fn insufficient_scope(
        &self,
        challenge: &str,
        sent: Option<&str>,
        attempts: &mut u32,
    ) -> Result<String, AuthError> {
        let mut state = self.state.lock().await;
        let saved = self.load()?;
        if let Some(current) = access_token(&saved)
            && Some(current.as_str()) != sent
        {
            return Ok(current);
        }
        let params = WWWAuthenticateParams::parse(challenge, &self.url);
        let granted = saved
            .credentials
            .as_ref()
            .map(|c| c.granted_scopes.clone())
            .unwrap_or_default();
        let scopes =
            scopes::step_up(&granted, params.scope.as_deref(), *attempts).map_err(failed)?;
        *attempts += 1;
        self.discover(&mut state, Some(challenge)).await?;
        self.obtain(&mut state, Some(scopes)).await
    }

    fn manager(state: &mut State) -> Result<&mut AuthorizationManager, AuthError> {
        state
            .manager
            .as_mut()
            .ok_or_else(|| AuthError::InternalError("the OAuth manager is in use".to_owned()))
    }

    /// Discovers the authorization server, from the challenge when there is one; forgets
    /// tokens and registrations another authorization server issued.
    async fn discover(&self, state: &mut State, challenge: Option<&str>) -> Result<(), AuthError> {
        let manager = Self::manager(state)?;
        let resolution = manager.resolve_metadata_from_challenge(challenge).await?;
        let legacy = !resolution.source.is_discovered();
        let metadata = resolution.metadata;
        let mut saved = self.load()?;
        let issuer = metadata.issuer.as_deref();
        let other = |kept: Option<&str>| matches!((kept, issuer), (Some(k), Some(i)) if k != i);
        let mut changed = false;
        if saved
            .credentials
            .as_ref()
            .is_some_and(|c| other(c.issuer.as_deref()))
        {
            saved.credentials = None;
            changed = true;
        }
        if saved
            .registration
            .as_ref()
            .is_some_and(|r| other(r.issuer.as_deref()))
        {
            saved.registration = None;
            changed = true;
        }
        if changed {
            tracing::info!(server = %self.url, "the authorization server changed; its former tokens are dropped");
            self.save(&saved)?;
        }
        manager.set_metadata(metadata.clone());
        state.metadata = Some(metadata);
        state.legacy = legacy;
        Ok(())
    }

    /// Refreshes the kept token with the kept refresh token: the new access token, or `None`
    /// when there is nothing to refresh with or the server refused the refresh token (which is
    /// then dropped).
    async fn refresh(&self, state: &mut State, saved: &Saved) -> Result<Option<String>, AuthError> {
        let Some(credentials) = &saved.credentials else {
            return Ok(None);
        };
        if credentials
            .token_response
            .as_ref()
            .and_then(|t| t.refresh_token())
            .is_none()
        {
            return Ok(None);
        }
        if state.metadata.is_none() {
            self.discover(state, None).await?;
        }
        let client_id = credentials.client_id.clone();
        let registration = saved
            .registration
            .as_ref()
            .filter(|r| r.client_id == client_id);
        let secret = if self.oauth.client.id.as_deref() == Some(client_id.as_str()) {
            self.oauth.client.secret.clone()
        } else {
            registration.and_then(|r| r.client_secret.clone())
        };
        let redirect_uri = registration
            .and_then(|r| r.redirect_uri.clone())
            .unwrap_or_else(|| self.url.to_string());
        let mut config = OAuthClientConfig::new(client_id, redirect_uri);
        if let Some(secret) = secret {
            config = config.with_client_secret(secret);
        }
        let manager = Self::manager(state)?;
        manager.configure_client(config)?;
        match manager.refresh_token().await {
            Ok(token) => Ok(Some(token.access_token().secret().clone())),
            Err(AuthError::TokenRefreshRejected(_) | AuthError::AuthorizationRequired) => {
                tracing::info!(server = %self.url, "the refresh token was refused; a new authorization is needed");
                let mut saved = self.load()?;
                saved.credentials = None;
                self.save(&saved)?;
                Ok(None)
            }
            Err(err) => Err(err),
        }
    }

    /// A new token by the grant, for `scopes` (else the ones configured, else those the
    /// server's challenge and metadata call for).
    async fn obtain(
        &self,
        state: &mut State,
        scopes: Option<Vec<String>>,
    ) -> Result<String, AuthError> {
        let scopes =
            scopes.or_else(|| (!self.oauth.scopes.is_empty()).then(|| self.oauth.scopes.clone()));
        match &self.oauth.grant {
            Grant::AuthorizationCode(agent) => self.authorize(state, agent.as_ref(), scopes).await,
            Grant::ClientCredentials => self.client_credentials(state, scopes).await,
            Grant::Enterprise(idp) => self.enterprise(state, idp, scopes).await,
            Grant::RefreshToken => Err(failed(format!(
                "`{}` refused the configured token, and it cannot be refreshed: give a new one",
                self.url
            ))),
        }
    }

    /// The scopes of a first authorization: the challenge's, else the resource's
    /// `scopes_supported`, else none (with `offline_access` where the server lists it).
    async fn initial_scopes(state: &mut State) -> Result<Vec<String>, AuthError> {
        Ok(Self::manager(state)?.select_initial_scopes(&[]).await)
    }

    /// The client_credentials grant (SEP-1046).
    async fn client_credentials(
        &self,
        state: &mut State,
        scopes: Option<Vec<String>>,
    ) -> Result<String, AuthError> {
        if state.metadata.is_none() {
            self.discover(state, None).await?;
        }
        if state.legacy {
            return Err(AuthError::NoAuthorizationSupport);
        }
        let scopes = match scopes {
            Some(scopes) => scopes,
            None => Self::initial_scopes(state).await?,
        };
        let client = &self.oauth.client;
        let (Some(client_id), resource) = (client.id.clone(), Some(self.url.to_string())) else {
            return Err(failed("the client_credentials grant needs a client id"));
        };
        let config = match (&client.secret, &client.private_key) {
            (Some(secret), _) => ClientCredentialsConfig::ClientSecret {
                client_id,
                client_secret: secret.clone(),
                scopes,
                resource,
            },
            (None, Some(key)) => ClientCredentialsConfig::PrivateKeyJwt {
                client_id,
                signing_key: key.pem.clone(),
                signing_algorithm: key.algorithm,
                token_endpoint_audience: None,
                scopes,
                resource,
            },
            (None, None) => {
                return Err(failed(
                    "the client_credentials grant needs the client's secret or private key",
                ));
            }
        };
        let manager = Self::manager(state)?;
        manager.validate_client_credentials_metadata(&config)?;
        manager.configure_client_credentials(&config)?;
        // rmcp 3.11's `exchange_client_credentials` keeps a form serializer across an await
        // when `private_key_jwt` is compiled in, so its future is not `Send` and cannot be
        // awaited in a transport's task: it is driven on a blocking thread of this runtime,
        // the manager lent to it and given back.
        let manager = state
            .manager
            .take()
            .ok_or_else(|| AuthError::InternalError("the OAuth manager is in use".to_owned()))?;
        let runtime = tokio::runtime::Handle::current();
        let joined = tokio::task::spawn_blocking(move || {
            let exchanged = runtime.block_on(manager.exchange_client_credentials(&config));
            (manager, exchanged)
        })
        .await;
        let (manager, exchanged) = joined.map_err(|err| {
            AuthError::InternalError(format!("the client_credentials exchange failed: {err}"))
        })?;
        state.manager = Some(manager);
        Ok(exchanged?.access_token().secret().clone())
    }

    /// Enterprise-managed authorization (SEP-990), with rmcp's exchange: the ID token for an
    /// ID-JAG at the identity provider, the ID-JAG for an access token at the server's
    /// authorization server (this client authenticated as that server takes it).
    async fn enterprise(
        &self,
        state: &mut State,
        idp: &IdentityProvider,
        scopes: Option<Vec<String>>,
    ) -> Result<String, AuthError> {
        use rmcp::transport::auth::enterprise::{
            EmaAuthorizationServer, EmaClientAuthentication, EmaExchangeRequest,
        };
        if state.metadata.is_none() {
            self.discover(state, None).await?;
        }
        let (Some(metadata), false) = (state.metadata.clone(), state.legacy) else {
            return Err(AuthError::NoAuthorizationSupport);
        };
        let Some(issuer) = metadata.issuer.clone() else {
            return Err(failed(
                "the authorization server's metadata names no issuer, which an identity \
                 assertion is addressed to",
            ));
        };
        let scopes = match scopes {
            Some(scopes) => scopes,
            None => Self::initial_scopes(state).await?,
        };
        let client = &self.oauth.client;
        let client_id = client
            .id
            .clone()
            .ok_or_else(|| failed("enterprise-managed authorization needs a client id"))?;
        // Its secret goes as the server takes it: in the form when it takes only that.
        let post_only = metadata
            .additional_fields
            .get("token_endpoint_auth_methods_supported")
            .and_then(serde_json::Value::as_array)
            .is_some_and(|methods| {
                methods.iter().any(|m| m == "client_secret_post")
                    && !methods.iter().any(|m| m == "client_secret_basic")
            });
        let secret = |secret: &Option<String>, post: bool| match secret {
            Some(secret) if post => {
                EmaClientAuthentication::ClientSecretPost(oauth2::ClientSecret::new(secret.clone()))
            }
            Some(secret) => EmaClientAuthentication::ClientSecretBasic(oauth2::ClientSecret::new(
                secret.clone(),
            )),
            None => EmaClientAuthentication::None,
        };
        let identity =
            EmaAuthorizationServer::new(&idp.issuer, &idp.token_endpoint, &idp.client_id)
                .with_client_authentication(secret(&idp.client_secret, false));
        let resource_server =
            EmaAuthorizationServer::new(&issuer, &metadata.token_endpoint, &client_id)
                .with_client_authentication(secret(&client.secret, post_only));
        let http = rmcp::transport::auth::default_oauth_http_client()?;
        let resource = self.url.to_string();
        let token = EmaExchangeRequest::new_with_id_token(
            identity,
            resource_server,
            &resource,
            &idp.id_token,
        )
        .with_scopes(scopes.clone())
        .exchange(&http, &http)
        .await
        .map_err(|err| failed(format!("enterprise-managed authorization failed: {err}")))?;
        let mut response = serde_json::json!({
            "access_token": token.access_token.secret(),
            "token_type": "Bearer",
        });
        if let Some(life) = token.expires_in {
            response["expires_in"] = life.as_secs().into();
        }
        let granted: Vec<String> = if token.scopes.is_empty() {
            scopes
        } else {
            token.scopes.iter().cloned().collect()
        };
        let response = serde_json::from_value(response)
            .map_err(|err| AuthError::InternalError(format!("the token: {err}")))?;
        let mut saved = self.load()?;
        saved.credentials = Some(
            StoredCredentials::new(client_id, Some(response), granted, Some(now_secs()))
                .with_issuer(Some(issuer)),
        );
        self.save(&saved)?;
        Ok(token.access_token.secret().clone())
    }

    /// The authorization code grant through the user's browser.
    async fn authorize(
        &self,
        state: &mut State,
        agent: &dyn UserAgent,
        scopes: Option<Vec<String>>,
    ) -> Result<String, AuthError> {
        let Some(metadata) = state.metadata.clone() else {
            return Err(AuthError::InternalError(
                "authorizing before discovery".to_owned(),
            ));
        };
        let mut saved = self.load()?;
        let client = &self.oauth.client;
        // A registration kept from an earlier run, for this authorization server, unless the
        // user names the client.
        let kept = saved
            .registration
            .clone()
            .filter(|r| client.id.is_none() && r.issuer == metadata.issuer);
        let redirect = match agent
            .listen(kept.as_ref().and_then(|r| r.redirect_uri.as_deref()))
            .await
        {
            Ok(redirect) => redirect,
            // A server that published no metadata may take no OAuth at all: that says more
            // than why no browser could be used.
            Err(_) if state.legacy => return Err(AuthError::NoAuthorizationSupport),
            Err(why) => return Err(failed(why)),
        };
        let redirect_uri = redirect.uri().to_owned();
        let scopes = match scopes {
            Some(scopes) => scopes,
            None => Self::initial_scopes(state).await?,
        };
        let mut request =
            AuthorizationRequest::new(redirect_uri.clone()).with_client_name(client.name.clone());
        request = if scopes.is_empty() {
            // rmcp's own choice would fall back on the authorization server's
            // `scopes_supported`; MCP asks for no scope then.
            request.with_initial_scope_selection()
        } else {
            request.with_scopes(scopes.clone())
        };
        let supports_cimd = metadata
            .additional_fields
            .get("client_id_metadata_document_supported")
            .and_then(serde_json::Value::as_bool)
            .unwrap_or(false);
        let mut registered = None;
        if let Some(id) = &client.id {
            request = request.with_preregistered_client(id.clone());
            if let Some(secret) = &client.secret {
                request = request.with_client_secret(secret.clone());
            }
        } else if let Some(kept) = kept.filter(|r| r.redirect_uri.as_deref() == Some(&redirect_uri))
        {
            request = request.with_preregistered_client(kept.client_id.clone());
            if let Some(secret) = kept.client_secret {
                request = request.with_client_secret(secret);
            }
        } else if let (Some(url), true, false) = (&client.metadata_url, supports_cimd, state.legacy)
        {
            request = request.with_client_metadata_url(url.clone());
            registered = Some(Registration {
                client_id: url.clone(),
                client_secret: None,
                redirect_uri: Some(redirect_uri.clone()),
                issuer: metadata.issuer.clone(),
            });
        } else {
            let legacy = state.legacy;
            let manager = Self::manager(state)?;
            let scope_refs: Vec<&str> = scopes.iter().map(String::as_str).collect();
            let config = match manager
                .register_client(&client.name, &redirect_uri, &scope_refs)
                .await
            {
                Ok(config) => config,
                Err(_) if legacy => return Err(AuthError::NoAuthorizationSupport),
                Err(AuthError::RegistrationFailed(why))
                    if metadata.registration_endpoint.is_none() =>
                {
                    return Err(failed(format!(
                        "the authorization server registers no clients ({why}): give a client \
                         registered with it beforehand"
                    )));
                }
                Err(err) => return Err(err),
            };
            request = request.with_preregistered_client(config.client_id.clone());
            if let Some(secret) = &config.client_secret {
                request = request.with_client_secret(secret.clone());
            }
            let registration = Registration {
                client_id: config.client_id,
                client_secret: config.client_secret,
                redirect_uri: Some(redirect_uri.clone()),
                issuer: metadata.issuer.clone(),
            };
            // Kept at once: a registration is worth keeping even if this sign-in fails.
            saved.registration = Some(registration);
            self.save(&saved)?;
        }
        let manager = state
            .manager
            .take()
            .ok_or_else(|| AuthError::InternalError("the OAuth manager is in use".to_owned()))?;
        let session = match AuthorizationSession::new(manager, request).await {
            Ok(session) => session,
            Err((manager, err)) => {
                state.manager = Some(manager);
                return Err(err);
            }
        };
        let url = session.get_authorization_url().to_owned();
        let expected = Url::parse(&url)
            .ok()
            .and_then(|u| {
                u.query_pairs()
                    .find(|(k, _)| k == "state")
                    .map(|(_, v)| v.into_owned())
            })
            .unwrap_or_default();
        let callback = {
            self.user_time.begin();
            let _waiting = Waiting(&self.user_time);
            redirect.visit(url, expected).await
        };
        let exchanged = match callback {
            Ok(callback) => session
                .handle_callback_with_issuer(
                    &callback.code,
                    &callback.state,
                    callback.issuer.as_deref(),
                )
                .await
                .map(|token| token.access_token().secret().clone()),
            Err(why) => Err(failed(why)),
        };
        state.manager = Some(session.auth_manager);
        let token = exchanged?;
        if let Some(registration) = registered {
            let mut saved = self.load()?;
            saved.registration = Some(registration);
            self.save(&saved)?;
        }
        Ok(token)
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
