//! What an authorized client keeps between requests, and between runs where its store is a
//! file: the tokens (rmcp's `StoredCredentials`) and the client registration they were issued to.

use std::fmt;
use std::sync::{Arc, Mutex};

use rmcp::transport::auth::{AuthError, CredentialStore, StoredCredentials};
use serde::{Deserialize, Serialize};

/// The client an authorization server knows this client as: given by the user (pre-registered)
/// or registered dynamically (RFC 7591), kept so that a later run refreshes and re-authorizes
/// as the same client instead of registering again.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Registration {
    /// The client id.
    pub client_id: String,
    /// The secret the server issued with it (a confidential client), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// The redirect URI it was registered with (the loopback's port matters to some servers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirect_uri: Option<String>,
    /// The authorization server (its `issuer`) that issued it; another server does not know it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
}

/// The secret is never printed.
impl fmt::Debug for Registration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registration")
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "<redacted>"),
            )
            .field("redirect_uri", &self.redirect_uri)
            .field("issuer", &self.issuer)
            .finish()
    }
}

/// Everything kept for one server.
#[derive(Clone, Default, Serialize, Deserialize)]
pub struct Saved {
    /// The tokens and what they were granted, as rmcp keeps them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials: Option<StoredCredentials>,
    /// The client registration those tokens were issued to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registration: Option<Registration>,
}

/// Tokens are never printed (rmcp's `StoredCredentials` redacts its own).
impl fmt::Debug for Saved {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Saved")
            .field("credentials", &self.credentials)
            .field("registration", &self.registration)
            .finish()
    }
}

/// Where [`Saved`] is kept: in memory for the gateway (tokens come from its configuration and
/// its environment), in a file under the user's configuration directory for the CLI. Reads and
/// writes are small and local, so the trait is synchronous; `Err` says why in words.
pub trait TokenStore: Send + Sync {
    /// What was kept; [`Saved::default`] when nothing was.
    fn load(&self) -> Result<Saved, String>;
    /// Keeps `saved` in place of what was kept.
    fn save(&self, saved: &Saved) -> Result<(), String>;
}

/// A store that lasts as long as the process.
#[derive(Default)]
pub struct MemoryStore {
    saved: Mutex<Saved>,
}

impl MemoryStore {
    /// A store holding `saved` at first.
    pub fn new(saved: Saved) -> MemoryStore {
        MemoryStore {
            saved: Mutex::new(saved),
        }
    }
}

impl TokenStore for MemoryStore {
    fn load(&self) -> Result<Saved, String> {
        // A panic while holding the lock leaves plain data behind: carry on with it.
        Ok(self.saved.lock().unwrap_or_else(|e| e.into_inner()).clone())
    }

    fn save(&self, saved: &Saved) -> Result<(), String> {
        *self.saved.lock().unwrap_or_else(|e| e.into_inner()) = saved.clone();
        Ok(())
    }
}

/// rmcp's `AuthorizationManager` reads and writes tokens through its own `CredentialStore`
/// trait; this one keeps them in a [`TokenStore`], beside the registration, so that the two are
/// written together.
pub(crate) struct Credentials(pub(crate) Arc<dyn TokenStore>);

fn store_error(why: String) -> AuthError {
    AuthError::CredentialStoreError(why)
}

#[async_trait::async_trait]
impl CredentialStore for Credentials {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        Ok(self.0.load().map_err(store_error)?.credentials)
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let mut saved = self.0.load().map_err(store_error)?;
        saved.credentials = Some(credentials);
        self.0.save(&saved).map_err(store_error)
    }

    async fn clear(&self) -> Result<(), AuthError> {
        let mut saved = self.0.load().map_err(store_error)?;
        saved.credentials = None;
        self.0.save(&saved).map_err(store_error)
    }
}
