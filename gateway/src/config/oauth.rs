//! `[servers.NAME.oauth]`: an HTTP server the gateway reaches with OAuth (MCP's authorization):
//! as a client of its own (the client_credentials grant, with a secret or a private key), or
//! with tokens obtained elsewhere (refreshed with their refresh token). Secrets are named by
//! environment variable or file, never written here, and read when the server is first started.

use std::path::PathBuf;

use serde::Deserialize;

use crate::oauth::{
    ClientIdentity, Grant, OAuth, PrivateKey, Saved, given_tokens, signing_algorithm,
};

/// How the gateway obtains a server's tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OAuthGrant {
    /// The gateway is the client: `client_id` with `client_secret_env` or `private_key_file`.
    ClientCredentials,
    /// Tokens obtained elsewhere (`access_token_env`, `refresh_token_env`), refreshed; a new
    /// authorization is the operator's to make.
    RefreshToken,
}

/// OAuth for one HTTP server.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerOAuth {
    /// The grant.
    pub grant: OAuthGrant,
    /// The client id registered with the server's authorization server.
    #[serde(default)]
    pub client_id: Option<String>,
    /// The environment variable holding the client's secret.
    #[serde(default)]
    pub client_secret_env: Option<String>,
    /// A PEM private key the client signs its assertions with (`private_key_jwt`), instead of
    /// a secret.
    #[serde(default)]
    pub private_key_file: Option<PathBuf>,
    /// The key's algorithm: `ES256`, `ES384`, `RS256`, `RS384` or `RS512`.
    #[serde(default)]
    pub signing_algorithm: Option<String>,
    /// The environment variable holding an access token to start with.
    #[serde(default)]
    pub access_token_env: Option<String>,
    /// The environment variable holding the refresh token that renews it.
    #[serde(default)]
    pub refresh_token_env: Option<String>,
    /// The scopes to ask for; the server's challenge and metadata choose when empty.
    #[serde(default)]
    pub scopes: Vec<String>,
}

impl ServerOAuth {
    /// Whether the settings fit together (the variables and files are read at start).
    pub fn check(&self) -> Result<(), String> {
        let secret = self.client_secret_env.is_some();
        let key = self.private_key_file.is_some();
        let tokens = self.access_token_env.is_some() || self.refresh_token_env.is_some();
        if secret && key {
            return Err(
                "`oauth`: give one of `client_secret_env` and `private_key_file`".to_owned(),
            );
        }
        if key != self.signing_algorithm.is_some() {
            return Err(
                "`oauth`: `private_key_file` and `signing_algorithm` go together".to_owned(),
            );
        }
        if let Some(algorithm) = &self.signing_algorithm {
            signing_algorithm(algorithm)
                .map_err(|why| format!("`oauth.signing_algorithm`: {why}"))?;
        }
        if (secret || key) && self.client_id.is_none() {
            return Err("`oauth`: a client secret or key needs its `client_id`".to_owned());
        }
        match self.grant {
            OAuthGrant::ClientCredentials => {
                if self.client_id.is_none() || !(secret || key) {
                    return Err(
                        "`oauth`: `grant = \"client_credentials\"` needs `client_id` and \
                         `client_secret_env` or `private_key_file`"
                            .to_owned(),
                    );
                }
                if tokens {
                    return Err(
                        "`oauth`: `grant = \"client_credentials\"` obtains its own tokens: \
                         `access_token_env` and `refresh_token_env` are for `grant = \
                         \"refresh_token\"`"
                            .to_owned(),
                    );
                }
            }
            OAuthGrant::RefreshToken => {
                if !tokens {
                    return Err(
                        "`oauth`: `grant = \"refresh_token\"` needs `access_token_env`, \
                         `refresh_token_env` or both"
                            .to_owned(),
                    );
                }
                if self.refresh_token_env.is_some() && self.client_id.is_none() {
                    return Err(
                        "`oauth`: a refresh token is sent with the `client_id` it was issued to"
                            .to_owned(),
                    );
                }
                if key {
                    return Err(
                        "`oauth`: `private_key_file` is for `grant = \"client_credentials\"`"
                            .to_owned(),
                    );
                }
            }
        }
        Ok(())
    }

    /// The OAuth client and the tokens it starts with, the secrets read from the gateway's
    /// environment and files; `Err` names what is missing.
    pub fn resolve(&self, name: &str) -> Result<(OAuth, Saved), String> {
        self.check()?;
        let var = |var: &String| {
            std::env::var(var)
                .ok()
                .filter(|value| !value.is_empty())
                .ok_or_else(|| format!("the environment variable `{var}` is not set"))
        };
        let secret = self.client_secret_env.as_ref().map(var).transpose()?;
        let private_key = match (&self.private_key_file, &self.signing_algorithm) {
            (Some(file), Some(algorithm)) => Some(PrivateKey {
                pem: std::fs::read(file).map_err(|err| {
                    format!(
                        "cannot read `oauth.private_key_file` {}: {err}",
                        file.display()
                    )
                })?,
                algorithm: signing_algorithm(algorithm)?,
            }),
            _ => None,
        };
        let saved = match self.grant {
            OAuthGrant::ClientCredentials => Saved::default(),
            OAuthGrant::RefreshToken => {
                let access = self.access_token_env.as_ref().map(var).transpose()?;
                let refresh = self.refresh_token_env.as_ref().map(var).transpose()?;
                given_tokens(
                    self.client_id.as_deref(),
                    access.as_deref(),
                    refresh.as_deref(),
                )?
            }
        };
        let oauth = OAuth {
            grant: match self.grant {
                OAuthGrant::ClientCredentials => Grant::ClientCredentials,
                OAuthGrant::RefreshToken => Grant::RefreshToken,
            },
            client: ClientIdentity {
                id: self.client_id.clone(),
                secret,
                private_key,
                metadata_url: None,
                name: format!("tooldef-gateway ({name})"),
            },
            scopes: self.scopes.clone(),
        };
        Ok((oauth, saved))
    }
}
