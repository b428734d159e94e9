//! The authorizer against an authorization server and a protected resource in the test's
//! process (axum on the loopback interface), with a browser that follows the authorization
//! server's redirect as a user who consents would.

use std::collections::BTreeMap;
use std::sync::Mutex as StdMutex;

use axum::Router;
use axum::extract::{Query, State as AxumState};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

use super::*;

/// One request the fake servers saw: its path and its parameters (query or form).
#[derive(Clone, Debug)]
struct Seen {
    path: &'static str,
    params: BTreeMap<String, String>,
    basic_auth: bool,
}

/// How the fake servers behave.
#[derive(Clone, Default)]
struct Setup {
    /// The protected resource's `scopes_supported`.
    resource_scopes: Option<Vec<&'static str>>,
    /// No metadata anywhere, no registration: a server that takes some other credential.
    no_oauth: bool,
}

struct Fake {
    base: String,
    setup: Setup,
    seen: StdMutex<Vec<Seen>>,
    issued: StdMutex<u32>,
}

type Shared = Arc<Fake>;

impl Fake {
    fn see(&self, path: &'static str, params: BTreeMap<String, String>, basic_auth: bool) {
        self.seen.lock().unwrap().push(Seen {
            path,
            params,
            basic_auth,
        });
    }

    fn seen(&self, path: &str) -> Vec<Seen> {
        self.seen
            .lock()
            .unwrap()
            .iter()
            .filter(|s| s.path == path)
            .cloned()
            .collect()
    }

    fn challenge(&self, scope: Option<&str>) -> String {
        let scope = scope
            .map(|s| format!(", scope=\"{s}\""))
            .unwrap_or_default();
        format!(
            "Bearer resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\"{scope}",
            self.base
        )
    }
}

fn form(body: &str) -> BTreeMap<String, String> {
    Url::parse(&format!("http://form/?{body}"))
        .map(|u| u.query_pairs().into_owned().collect())
        .unwrap_or_default()
}

async fn resource_metadata(AxumState(fake): AxumState<Shared>) -> Response {
    if fake.setup.no_oauth {
        return StatusCode::NOT_FOUND.into_response();
    }
    let mut document = json!({
        "resource": format!("{}/mcp", fake.base),
        "authorization_servers": [fake.base],
    });
    if let Some(scopes) = &fake.setup.resource_scopes {
        document["scopes_supported"] = json!(scopes);
    }
    axum::Json(document).into_response()
}

async fn server_metadata(AxumState(fake): AxumState<Shared>) -> Response {
    if fake.setup.no_oauth {
        return StatusCode::NOT_FOUND.into_response();
    }
    let base = &fake.base;
    axum::Json(json!({
        "issuer": base,
        "authorization_endpoint": format!("{base}/authorize"),
        "token_endpoint": format!("{base}/token"),
        "registration_endpoint": format!("{base}/register"),
        "response_types_supported": ["code"],
        "code_challenge_methods_supported": ["S256"],
        "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
        "token_endpoint_auth_methods_supported": ["client_secret_post", "none"],
    }))
    .into_response()
}

/// Whether `headers` carry a token the authorization server issued.
fn authorized(fake: &Fake, headers: &HeaderMap) -> bool {
    let issued = *fake.issued.lock().unwrap();
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer access-"))
        .and_then(|n| n.parse::<u32>().ok())
        .is_some_and(|n| (1..=issued).contains(&n))
}

/// The resource itself: an MCP endpoint (just enough of one: `initialize`, `tools/list`,
/// notifications) that refuses every request without a token the authorization server issued,
/// pointing at its metadata.
async fn mcp(AxumState(fake): AxumState<Shared>, headers: HeaderMap, body: String) -> Response {
    if !authorized(&fake, &headers) {
        let challenge = if fake.setup.no_oauth {
            "Bearer".to_owned()
        } else {
            fake.challenge(None)
        };
        return (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, challenge)],
        )
            .into_response();
    }
    let Ok(message) = serde_json::from_str::<Value>(&body) else {
        // A GET for a stream of the server's messages: there is none.
        return StatusCode::METHOD_NOT_ALLOWED.into_response();
    };
    let mut params = BTreeMap::new();
    params.insert(
        "method".to_owned(),
        message["method"].as_str().unwrap_or("").to_owned(),
    );
    fake.see("/mcp", params, false);
    let result = match message["method"].as_str() {
        Some("initialize") => json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "fake", "version": "1"},
        }),
        Some("tools/list") => json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}),
        _ => return StatusCode::ACCEPTED.into_response(),
    };
    axum::Json(json!({"jsonrpc": "2.0", "id": message["id"], "result": result})).into_response()
}

async fn authorize(
    AxumState(fake): AxumState<Shared>,
    Query(params): Query<BTreeMap<String, String>>,
) -> Response {
    fake.see("/authorize", params.clone(), false);
    let mut redirect = Url::parse(&params["redirect_uri"]).unwrap();
    redirect
        .query_pairs_mut()
        .append_pair(
            "code",
            &format!("code-for-{}", params.get("scope").map_or("", |s| s)),
        )
        .append_pair("state", &params["state"]);
    (
        StatusCode::FOUND,
        [(header::LOCATION, redirect.to_string())],
    )
        .into_response()
}

async fn register(AxumState(fake): AxumState<Shared>, body: String) -> Response {
    let request: Value = serde_json::from_str(&body).unwrap_or_default();
    let mut params = BTreeMap::new();
    params.insert("client_name".to_owned(), request["client_name"].to_string());
    fake.see("/register", params, false);
    if fake.setup.no_oauth {
        return StatusCode::NOT_FOUND.into_response();
    }
    (
        StatusCode::CREATED,
        axum::Json(json!({
            "client_id": "registered-client",
            "client_secret": "registered-secret",
            "redirect_uris": request["redirect_uris"],
        })),
    )
        .into_response()
}

async fn token(AxumState(fake): AxumState<Shared>, headers: HeaderMap, body: String) -> Response {
    let params = form(&body);
    let basic = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("Basic "));
    fake.see("/token", params.clone(), basic);
    if params.get("refresh_token").map(String::as_str) == Some("revoked") {
        return (
            StatusCode::BAD_REQUEST,
            axum::Json(json!({"error": "invalid_grant"})),
        )
            .into_response();
    }
    let n = {
        let mut issued = fake.issued.lock().unwrap();
        *issued += 1;
        *issued
    };
    let mut answer = json!({
        "access_token": format!("access-{n}"),
        "token_type": "Bearer",
        "expires_in": 3600,
        "refresh_token": format!("refresh-{n}"),
    });
    // The scope granted is the scope asked for (the code carries it for the code grant).
    let scope = params.get("scope").cloned().or_else(|| {
        params
            .get("code")
            .and_then(|c| c.strip_prefix("code-for-"))
            .map(str::to_owned)
    });
    if let Some(scope) = scope.filter(|s| !s.is_empty()) {
        answer["scope"] = json!(scope);
    }
    axum::Json(answer).into_response()
}

async fn serve(setup: Setup) -> Shared {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let fake = Arc::new(Fake {
        base,
        setup,
        seen: StdMutex::new(Vec::new()),
        issued: StdMutex::new(0),
    });
    let app = Router::new()
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            get(resource_metadata),
        )
        .route(
            "/.well-known/oauth-authorization-server",
            get(server_metadata),
        )
        .route("/mcp", get(mcp).post(mcp))
        .route("/authorize", get(authorize))
        .route("/register", post(register))
        .route("/token", post(token))
        .with_state(fake.clone());
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    fake
}

/// A browser whose user consents: it loads the authorization URL and brings back what the
/// server redirected to.
struct Consenting;

struct Consent {
    uri: String,
    _listener: tokio::net::TcpListener,
}

impl UserAgent for Consenting {
    fn listen<'a>(
        &'a self,
        previous: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Box<dyn Redirect>, String>> {
        Box::pin(async move {
            let port = previous
                .and_then(|uri| Url::parse(uri).ok())
                .and_then(|uri| uri.port())
                .unwrap_or(0);
            let listener = match tokio::net::TcpListener::bind(("127.0.0.1", port)).await {
                Ok(listener) => listener,
                Err(_) => tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap(),
            };
            let port = listener.local_addr().unwrap().port();
            Ok(Box::new(Consent {
                uri: format!("http://127.0.0.1:{port}/callback"),
                _listener: listener,
            }) as Box<dyn Redirect>)
        })
    }
}

impl Redirect for Consent {
    fn uri(&self) -> &str {
        &self.uri
    }

    fn visit(
        self: Box<Self>,
        authorization_url: String,
        state: String,
    ) -> BoxFuture<'static, Result<Callback, String>> {
        Box::pin(async move {
            let client = reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap();
            let answer = client.get(&authorization_url).send().await.unwrap();
            let location = answer.headers()[reqwest::header::LOCATION]
                .to_str()
                .unwrap();
            let location = Url::parse(location).unwrap();
            let param = |name: &str| {
                location
                    .query_pairs()
                    .find(|(k, _)| k == name)
                    .map(|(_, v)| v.into_owned())
            };
            assert_eq!(param("state").as_deref(), Some(state.as_str()));
            Ok(Callback {
                code: param("code").unwrap(),
                state,
                issuer: param("iss"),
            })
        })
    }
}

/// No browser can be used.
struct Headless;

impl UserAgent for Headless {
    fn listen<'a>(
        &'a self,
        _previous: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Box<dyn Redirect>, String>> {
        Box::pin(async { Err("no browser here".to_owned()) })
    }
}

fn browser_flow() -> OAuth {
    OAuth {
        grant: Grant::AuthorizationCode(Arc::new(Consenting)),
        client: ClientIdentity {
            name: "tooldef-test".to_owned(),
            ..ClientIdentity::default()
        },
        scopes: Vec::new(),
    }
}

async fn authorizer(
    fake: &Fake,
    oauth: OAuth,
    saved: Saved,
) -> (Arc<Authorizer>, Arc<MemoryStore>) {
    let store = Arc::new(MemoryStore::new(saved));
    let authorizer = Authorizer::new(&format!("{}/mcp", fake.base), oauth, store.clone())
        .await
        .unwrap();
    (authorizer, store)
}

fn kept_token(store: &MemoryStore) -> Option<String> {
    access_token(&store.load().unwrap())
}

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
