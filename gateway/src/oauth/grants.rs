//! How [`Authorizer`] obtains a new token, by grant: the authorization code through the user's
//! browser (with the client registration it needs), client_credentials, and enterprise-managed
//! authorization.

use oauth2::TokenResponse;
use reqwest::Url;
use rmcp::transport::auth::{
    AuthError, AuthorizationRequest, AuthorizationSession, ClientCredentialsConfig,
    StoredCredentials,
};

use super::authorizer::{State, failed, now_secs};
use super::user::Waiting;
use super::{Authorizer, IdentityProvider, Registration, UserAgent};

impl Authorizer {
    /// The client_credentials grant (SEP-1046).
    pub(super) async fn client_credentials(
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
    pub(super) async fn enterprise(
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
    pub(super) async fn authorize(
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
