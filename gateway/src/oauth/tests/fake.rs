//! The authorization server and the protected MCP endpoint the tests talk to (axum on the
//! loopback interface, recording what they are sent), and the browsers: one whose user
//! consents, one that cannot be used.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex as StdMutex};

use axum::Router;
use axum::extract::{Query, State as AxumState};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures_util::future::BoxFuture;
use reqwest::Url;
use serde_json::{Value, json};

use crate::oauth::authorizer::access_token;
use crate::oauth::{
    Authorizer, Callback, ClientIdentity, Grant, MemoryStore, OAuth, Redirect, Saved, TokenStore,
    UserAgent,
};

/// One request the fake servers saw: its path and its parameters (query or form).
#[derive(Clone, Debug)]
pub(super) struct Seen {
    pub(super) path: &'static str,
    pub(super) params: BTreeMap<String, String>,
    pub(super) basic_auth: bool,
}

/// How the fake servers behave.
#[derive(Clone, Default)]
pub(super) struct Setup {
    /// The protected resource's `scopes_supported`.
    pub(super) resource_scopes: Option<Vec<&'static str>>,
    /// No metadata anywhere, no registration: a server that takes some other credential.
    pub(super) no_oauth: bool,
}

pub(super) struct Fake {
    pub(super) base: String,
    pub(super) setup: Setup,
    pub(super) seen: StdMutex<Vec<Seen>>,
    pub(super) issued: StdMutex<u32>,
}

pub(super) type Shared = Arc<Fake>;

impl Fake {
    pub(super) fn see(
        &self,
        path: &'static str,
        params: BTreeMap<String, String>,
        basic_auth: bool,
    ) {
        self.seen.lock().unwrap().push(Seen {
            path,
            params,
            basic_auth,
        });
    }

    pub(super) fn seen(&self, path: &str) -> Vec<Seen> {
        self.seen
            .lock()
            .unwrap()
            .iter()
            .filter(|s| s.path == path)
            .cloned()
            .collect()
    }

    pub(super) fn challenge(&self, scope: Option<&str>) -> String {
        let scope = scope
            .map(|s| format!(", scope=\"{s}\""))
            .unwrap_or_default();
        format!(
            "Bearer resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\"{scope}",
            self.base
        )
    }
}

pub(super) fn form(body: &str) -> BTreeMap<String, String> {
    Url::parse(&format!("http://form/?{body}"))
        .map(|u| u.query_pairs().into_owned().collect())
        .unwrap_or_default()
}

pub(super) async fn resource_metadata(AxumState(fake): AxumState<Shared>) -> Response {
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

pub(super) async fn server_metadata(AxumState(fake): AxumState<Shared>) -> Response {
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
pub(super) fn authorized(fake: &Fake, headers: &HeaderMap) -> bool {
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
pub(super) async fn mcp(
    AxumState(fake): AxumState<Shared>,
    headers: HeaderMap,
    body: String,
) -> Response {
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

pub(super) async fn authorize(
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

pub(super) async fn register(AxumState(fake): AxumState<Shared>, body: String) -> Response {
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

pub(super) async fn token(
    AxumState(fake): AxumState<Shared>,
    headers: HeaderMap,
    body: String,
) -> Response {
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

pub(super) async fn serve(setup: Setup) -> Shared {
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
pub(super) struct Consenting;

pub(super) struct Consent {
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
pub(super) struct Headless;

impl UserAgent for Headless {
    fn listen<'a>(
        &'a self,
        _previous: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Box<dyn Redirect>, String>> {
        Box::pin(async { Err("no browser here".to_owned()) })
    }
}

pub(super) fn browser_flow() -> OAuth {
    OAuth {
        grant: Grant::AuthorizationCode(Arc::new(Consenting)),
        client: ClientIdentity {
            name: "tooldef-test".to_owned(),
            ..ClientIdentity::default()
        },
        scopes: Vec::new(),
    }
}

pub(super) async fn authorizer(
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

pub(super) fn kept_token(store: &MemoryStore) -> Option<String> {
    access_token(&store.load().unwrap())
}
