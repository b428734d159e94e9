//! The authorizer against an authorization server and a protected resource in the test's
//! process (`fake.rs`), with a browser that follows the authorization server's redirect as a
//! user who consents would.

mod fake;

use std::sync::Arc;

use rmcp::transport::auth::{AuthError, StoredCredentials};
use serde_json::json;

use super::authorizer::{expired, now_secs};
use super::*;
use fake::*;

#[tokio::test]
async fn the_first_sign_in_asks_for_the_challenges_scope_else_the_resources_else_none() {
    for (resource_scopes, challenged, expected) in [
        (Some(vec!["a", "b"]), Some("files:read"), Some("files:read")),
        (Some(vec!["a", "b"]), None, Some("a b")),
        (None, None, None),
    ] {
        let fake = serve(Setup {
            resource_scopes,
            ..Setup::default()
        })
        .await;
        let (auth, store) = authorizer(&fake, browser_flow(), Saved::default()).await;
        assert_eq!(auth.token().await.unwrap(), None);
        let token = auth
            .unauthorized(&fake.challenge(challenged), None)
            .await
            .unwrap();
        assert_eq!(token, "access-1");
        assert_eq!(kept_token(&store).as_deref(), Some("access-1"));
        let authorized = fake.seen("/authorize");
        assert_eq!(authorized.len(), 1);
        let params = &authorized[0].params;
        assert_eq!(params.get("scope").map(String::as_str), expected);
        // PKCE S256, the resource (RFC 8707) and the client registered on the way (RFC 7591).
        assert_eq!(params["code_challenge_method"], "S256");
        assert_eq!(params["resource"], format!("{}/mcp", fake.base));
        assert_eq!(params["client_id"], "registered-client");
        let exchanged = &fake.seen("/token")[0].params;
        assert_eq!(exchanged["grant_type"], "authorization_code");
        assert!(exchanged.contains_key("code_verifier"));
        assert_eq!(exchanged["resource"], format!("{}/mcp", fake.base));
        let registration = store.load().unwrap().registration.unwrap();
        assert_eq!(registration.client_id, "registered-client");
        assert_eq!(registration.issuer.as_deref(), Some(fake.base.as_str()));
        // The token is what is sent from now on.
        assert_eq!(auth.token().await.unwrap().as_deref(), Some("access-1"));
    }
}

#[tokio::test]
async fn a_step_up_asks_for_what_is_held_and_what_is_wanted_and_stops_when_it_cannot_help() {
    let fake = serve(Setup::default()).await;
    let (auth, _store) = authorizer(&fake, browser_flow(), Saved::default()).await;
    let first = auth
        .unauthorized(&fake.challenge(Some("files:read")), None)
        .await
        .unwrap();
    let refusal = format!(
        "{}, error=\"insufficient_scope\"",
        fake.challenge(Some("files:write"))
    );
    let mut attempts = 0;
    let second = auth
        .insufficient_scope(&refusal, Some(&first), &mut attempts)
        .await
        .unwrap();
    assert_ne!(first, second);
    assert_eq!(attempts, 1);
    let authorized = fake.seen("/authorize");
    assert_eq!(authorized[1].params["scope"], "files:read files:write");
    // The registration made for the first sign-in is the one used again.
    assert_eq!(fake.seen("/register").len(), 1);
    assert_eq!(authorized[1].params["client_id"], "registered-client");
    // Asked again for a scope the token has: no more sign-ins.
    let why = auth
        .insufficient_scope(&refusal, Some(&second), &mut attempts)
        .await
        .unwrap_err();
    assert!(why.to_string().contains("already carries"), "{why}");
    assert_eq!(fake.seen("/authorize").len(), 2);
    // Another request that sent the old token is given the new one without a sign-in.
    let mut other = 0;
    assert_eq!(
        auth.insufficient_scope(&refusal, Some(&first), &mut other)
            .await
            .unwrap(),
        second
    );
    assert_eq!(fake.seen("/authorize").len(), 2);
}

/// Credentials for `registered-client` of `fake`'s authorization server, received `age`
/// seconds ago, living an hour, with its registration (on a port free now).
fn kept(fake: &Fake, refresh: &str, age: u64) -> Saved {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let token = serde_json::from_value(json!({
        "access_token": "old-access",
        "token_type": "Bearer",
        "expires_in": 3600,
        "refresh_token": refresh,
    }))
    .unwrap();
    Saved {
        credentials: Some(
            StoredCredentials::new(
                "registered-client".to_owned(),
                Some(token),
                vec!["files:read".to_owned()],
                Some(now_secs() - age),
            )
            .with_issuer(Some(fake.base.clone())),
        ),
        registration: Some(Registration {
            client_id: "registered-client".to_owned(),
            client_secret: Some("registered-secret".to_owned()),
            redirect_uri: Some(format!("http://127.0.0.1:{port}/callback")),
            issuer: Some(fake.base.clone()),
        }),
    }
}

#[tokio::test]
async fn a_token_about_to_expire_is_refreshed_before_it_is_sent() {
    let fake = serve(Setup::default()).await;
    // A fresh one is sent as it is, without a word to the authorization server.
    let (fresh, _) = authorizer(&fake, browser_flow(), kept(&fake, "refresh-0", 60)).await;
    assert_eq!(fresh.token().await.unwrap().as_deref(), Some("old-access"));
    assert!(fake.seen("/token").is_empty());
    // One with 20 s left is refreshed, with the kept client's secret and the resource.
    let (auth, store) = authorizer(&fake, browser_flow(), kept(&fake, "refresh-0", 3580)).await;
    assert_eq!(auth.token().await.unwrap().as_deref(), Some("access-1"));
    let refreshed = fake.seen("/token");
    assert_eq!(refreshed.len(), 1);
    let params = &refreshed[0].params;
    assert_eq!(params["grant_type"], "refresh_token");
    assert_eq!(params["refresh_token"], "refresh-0");
    assert_eq!(params["client_id"], "registered-client");
    // The server takes client_secret_post (not basic): the secret goes in the form.
    assert_eq!(params["client_secret"], "registered-secret");
    assert!(!refreshed[0].basic_auth);
    assert_eq!(params["resource"], format!("{}/mcp", fake.base));
    // The new tokens are kept (the refresh token rotated) and used without refreshing again.
    let saved = store.load().unwrap();
    let token = serde_json::to_value(saved.credentials.unwrap().token_response).unwrap();
    assert_eq!(token["refresh_token"], "refresh-1");
    assert_eq!(auth.token().await.unwrap().as_deref(), Some("access-1"));
    assert_eq!(fake.seen("/token").len(), 1);
}

#[tokio::test]
async fn a_refused_refresh_token_is_dropped_and_the_user_signs_in_again() {
    let fake = serve(Setup::default()).await;
    let (auth, store) = authorizer(&fake, browser_flow(), kept(&fake, "revoked", 4000)).await;
    assert_eq!(auth.token().await.unwrap(), None);
    assert!(store.load().unwrap().credentials.is_none());
    // The registration stays, and the next sign-in uses it.
    let token = auth
        .unauthorized(&fake.challenge(None), None)
        .await
        .unwrap();
    assert_eq!(token, "access-1");
    assert!(fake.seen("/register").is_empty());
}

#[tokio::test]
async fn given_tokens_are_refreshed_and_never_replaced_by_a_sign_in() {
    let fake = serve(Setup::default()).await;
    let oauth = OAuth {
        grant: Grant::RefreshToken,
        client: ClientIdentity {
            id: Some("gateway".to_owned()),
            ..ClientIdentity::default()
        },
        scopes: Vec::new(),
    };
    // Only a refresh token: the first token comes from it.
    let saved = given_tokens(Some("gateway"), None, Some("refresh-given")).unwrap();
    let (auth, _) = authorizer(&fake, oauth.clone(), saved).await;
    assert_eq!(auth.token().await.unwrap().as_deref(), Some("access-1"));
    assert_eq!(
        fake.seen("/token")[0].params["refresh_token"],
        "refresh-given"
    );
    // A server that refuses a token that cannot be refreshed is an error, not a sign-in.
    let saved = given_tokens(Some("gateway"), Some("at"), None).unwrap();
    let (auth, _) = authorizer(&fake, oauth, saved).await;
    assert_eq!(auth.token().await.unwrap().as_deref(), Some("at"));
    let why = auth
        .unauthorized(&fake.challenge(None), Some("at"))
        .await
        .unwrap_err();
    assert!(why.to_string().contains("cannot be refreshed"), "{why}");
    assert!(fake.seen("/authorize").is_empty());
}

#[tokio::test]
async fn the_client_credentials_grant_asks_for_its_own_token() {
    let fake = serve(Setup {
        resource_scopes: Some(vec!["svc"]),
        ..Setup::default()
    })
    .await;
    let oauth = OAuth {
        grant: Grant::ClientCredentials,
        client: ClientIdentity {
            id: Some("service".to_owned()),
            secret: Some("service-secret".to_owned()),
            ..ClientIdentity::default()
        },
        scopes: Vec::new(),
    };
    let (auth, _) = authorizer(&fake, oauth, Saved::default()).await;
    let token = auth
        .unauthorized(&fake.challenge(None), None)
        .await
        .unwrap();
    assert_eq!(token, "access-1");
    let params = &fake.seen("/token")[0].params;
    assert_eq!(params["grant_type"], "client_credentials");
    assert_eq!(params["client_id"], "service");
    assert_eq!(params["client_secret"], "service-secret");
    assert_eq!(params["scope"], "svc");
    assert_eq!(params["resource"], format!("{}/mcp", fake.base));
    assert!(fake.seen("/authorize").is_empty());
}

#[tokio::test]
async fn a_server_without_oauth_metadata_is_left_to_other_credentials() {
    let fake = serve(Setup {
        no_oauth: true,
        ..Setup::default()
    })
    .await;
    // With a browser, the 2025-03-26 default registration endpoint is tried, and refuses.
    let (auth, _) = authorizer(&fake, browser_flow(), Saved::default()).await;
    let err = auth.unauthorized("Bearer", None).await.unwrap_err();
    assert!(matches!(err, AuthError::NoAuthorizationSupport), "{err}");
    assert_eq!(fake.seen("/register").len(), 1);
    assert!(fake.seen("/authorize").is_empty());
    // Without one, nothing more is tried.
    let headless = OAuth {
        grant: Grant::AuthorizationCode(Arc::new(Headless)),
        ..browser_flow()
    };
    let (auth, _) = authorizer(&fake, headless, Saved::default()).await;
    let err = auth.unauthorized("Bearer", None).await.unwrap_err();
    assert!(matches!(err, AuthError::NoAuthorizationSupport), "{err}");
    assert_eq!(fake.seen("/register").len(), 1);
}

#[tokio::test]
async fn no_browser_is_said_and_tokens_of_another_client_are_not_sent() {
    let fake = serve(Setup::default()).await;
    let headless = OAuth {
        grant: Grant::AuthorizationCode(Arc::new(Headless)),
        ..browser_flow()
    };
    let (auth, _) = authorizer(&fake, headless, Saved::default()).await;
    let why = auth
        .unauthorized(&fake.challenge(None), None)
        .await
        .unwrap_err();
    assert!(why.to_string().contains("no browser here"), "{why}");
    let named = OAuth {
        client: ClientIdentity {
            id: Some("another-client".to_owned()),
            ..ClientIdentity::default()
        },
        ..browser_flow()
    };
    let (auth, store) = authorizer(&fake, named, kept(&fake, "refresh-0", 60)).await;
    assert_eq!(auth.token().await.unwrap(), None);
    assert!(store.load().unwrap().credentials.is_none());
}

#[test]
fn expiry_is_judged_with_a_margin_and_a_token_without_a_life_lasts() {
    let credentials = |life: Option<u64>, received: Option<u64>, access: &str| {
        let mut token = json!({"access_token": access, "token_type": "Bearer"});
        if let Some(life) = life {
            token["expires_in"] = json!(life);
        }
        StoredCredentials::new(
            "c".to_owned(),
            Some(serde_json::from_value(token).unwrap()),
            Vec::new(),
            received,
        )
    };
    let now = 1_000_000;
    assert!(!expiring(
        &credentials(Some(3600), Some(now - 100), "t"),
        now
    ));
    assert!(expiring(
        &credentials(Some(3600), Some(now - 3571), "t"),
        now
    ));
    assert!(expiring(
        &credentials(Some(3600), Some(now - 9999), "t"),
        now
    ));
    // A 20 s token is refreshed in its last 10 s, not at once.
    assert!(!expiring(&credentials(Some(20), Some(now - 5), "t"), now));
    assert!(expiring(&credentials(Some(20), Some(now - 11), "t"), now));
    assert!(!expiring(&credentials(None, Some(now - 99_999), "t"), now));
    assert!(expiring(&credentials(Some(3600), Some(now), ""), now));
    // Expiring is not yet expired: a token in its last seconds may still be sent.
    assert!(!expired(
        &credentials(Some(3600), Some(now - 3590), "t"),
        now
    ));
    assert!(expired(
        &credentials(Some(3600), Some(now - 3600), "t"),
        now
    ));
    assert!(!expired(&credentials(None, Some(now - 99_999), "t"), now));
}

#[tokio::test]
async fn a_token_not_yet_expired_is_sent_while_its_refresh_cannot_be_made() {
    let fake = serve(Setup::default()).await;
    let saved = kept(&fake, "refresh-0", 3580);
    // The server and its authorization server are gone: the refresh fails, and the token
    // (20 s left) goes.
    let unreachable = "http://127.0.0.1:9/mcp";
    let store = Arc::new(MemoryStore::new(saved));
    let auth = Authorizer::new(unreachable, browser_flow(), store.clone())
        .await
        .unwrap();
    assert_eq!(auth.token().await.unwrap().as_deref(), Some("old-access"));
    // Past its end, the failure is the answer.
    let store = Arc::new(MemoryStore::new(kept(&fake, "refresh-0", 4000)));
    let auth = Authorizer::new(unreachable, browser_flow(), store)
        .await
        .unwrap();
    assert!(auth.token().await.is_err());
}

#[test]
fn a_grant_is_checked_for_what_it_needs() {
    let with = |grant: Grant, id: Option<&str>, secret: Option<&str>| OAuth {
        grant,
        client: ClientIdentity {
            id: id.map(str::to_owned),
            secret: secret.map(str::to_owned),
            ..ClientIdentity::default()
        },
        scopes: Vec::new(),
    };
    assert!(
        with(Grant::ClientCredentials, Some("a"), Some("s"))
            .check()
            .is_ok()
    );
    assert!(
        with(Grant::ClientCredentials, Some("a"), None)
            .check()
            .is_err()
    );
    assert!(with(Grant::RefreshToken, None, Some("s")).check().is_err());
    let mut cimd = browser_flow();
    cimd.client.metadata_url = Some("http://example.com/client.json".to_owned());
    assert!(cimd.check().unwrap_err().contains("https://"));
    cimd.client.metadata_url = Some("https://example.com/client.json".to_owned());
    assert!(cimd.check().is_ok());
    // Secrets never show in what is printed.
    let shown = format!(
        "{:?}",
        with(Grant::ClientCredentials, Some("a"), Some("s3cret"))
    );
    assert!(!shown.contains("s3cret"), "{shown}");
}

#[tokio::test]
async fn a_session_is_authorized_at_its_first_request_and_goes_on() {
    use rmcp::ServiceExt;

    let fake = serve(Setup::default()).await;
    let oauth = OAuth {
        grant: Grant::ClientCredentials,
        client: ClientIdentity {
            id: Some("service".to_owned()),
            secret: Some("service-secret".to_owned()),
            ..ClientIdentity::default()
        },
        scopes: Vec::new(),
    };
    let (auth, _) = authorizer(&fake, oauth, Saved::default()).await;
    let remote = crate::remote::RemoteServer::new(&format!("{}/mcp", fake.base))
        .and_then(|r| r.oauth(auth))
        .unwrap();
    let client = ().serve(remote.transport()).await.unwrap();
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 1);
    // One token, obtained when `initialize` was refused, and every request sent with it.
    assert_eq!(fake.seen("/token").len(), 1);
    let methods: Vec<String> = fake
        .seen("/mcp")
        .iter()
        .map(|s| s.params["method"].clone())
        .collect();
    assert_eq!(
        methods,
        ["initialize", "notifications/initialized", "tools/list"]
    );
    let _ = client.cancel().await;
}
