//! [`Authorizer`]: one server's tokens, when to refresh them, and what to do when the server
//! refuses one (a 401, a 403 `insufficient_scope`); the grants themselves are in `grants.rs`.

use std::fmt;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use oauth2::TokenResponse;
use reqwest::Url;
use rmcp::transport::auth::{
    AuthError, AuthorizationManager, AuthorizationMetadata, OAuthClientConfig, StoredCredentials,
    WWWAuthenticateParams,
};
use tokio::sync::Mutex;

use super::store::Credentials;
use super::{Grant, OAuth, Saved, TokenStore, UserTime, scopes};

/// What the authorizer learned in this process.
pub(super) struct State {
    /// rmcp's manager; taken out while an authorization session holds it.
    pub(super) manager: Option<AuthorizationManager>,
    /// The authorization server's metadata, once discovered.
    pub(super) metadata: Option<AuthorizationMetadata>,
    /// The metadata was synthesized from the server's root (`/authorize`, `/token`,
    /// `/register`: MCP 2025-03-26's fallback), for want of any published.
    pub(super) legacy: bool,
}

/// One server's OAuth client: its tokens, how it gets new ones, and rmcp's manager doing the
/// protocol. Shared by every request to the server (and every connection: the gateway keeps
/// one per configured server across reconnections).
pub struct Authorizer {
    pub(super) url: Url,
    pub(super) oauth: OAuth,
    store: Arc<dyn TokenStore>,
    state: Mutex<State>,
    pub(super) user_time: UserTime,
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

pub(super) fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

pub(super) fn failed(why: impl Into<String>) -> AuthError {
    AuthError::AuthorizationFailed(why.into())
}

/// The access token kept, when there is one.
pub(super) fn access_token(saved: &Saved) -> Option<String> {
    let token = saved.credentials.as_ref()?.token_response.as_ref()?;
    let secret = token.access_token().secret();
    (!secret.is_empty()).then(|| secret.clone())
}

/// Whether kept credentials are expired or about to be: within `REFRESH_BEFORE` seconds (or
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
pub(super) fn expired(credentials: &StoredCredentials, now: u64) -> bool {
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

    pub(super) fn load(&self) -> Result<Saved, AuthError> {
        self.store.load().map_err(AuthError::CredentialStoreError)
    }

    pub(super) fn save(&self, saved: &Saved) -> Result<(), AuthError> {
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

    pub(super) fn manager(state: &mut State) -> Result<&mut AuthorizationManager, AuthError> {
        state
            .manager
            .as_mut()
            .ok_or_else(|| AuthError::InternalError("the OAuth manager is in use".to_owned()))
    }

    /// Discovers the authorization server, from the challenge when there is one; forgets
    /// tokens and registrations another authorization server issued.
    pub(super) async fn discover(
        &self,
        state: &mut State,
        challenge: Option<&str>,
    ) -> Result<(), AuthError> {
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
    pub(super) async fn initial_scopes(state: &mut State) -> Result<Vec<String>, AuthError> {
        Ok(Self::manager(state)?.select_initial_scopes(&[]).await)
    }
}
