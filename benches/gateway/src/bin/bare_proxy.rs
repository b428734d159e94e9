//! `bare-proxy`: the floor of one more HTTP hop on loopback, for `gateway-bench`'s "own share".
//!
//! It forwards every request to `--upstream` and streams the answer back, with the gateway's own
//! HTTP stack (axum's server, hyper-util's pooled client, nodelay) and nothing else: no JSON
//! read or written, no tools injected. What it adds to a direct request is what any proxy on
//! this machine pays for the hop; what the gateway adds beyond it is the gateway's own work.
//!
//! ```text
//! bare-proxy --listen 127.0.0.1:18082 --upstream http://127.0.0.1:18080
//! ```

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;

#[derive(Clone)]
struct Proxy {
    client: Client<HttpConnector, Body>,
    upstream: String,
}

async fn forward(State(proxy): State<Proxy>, mut request: Request) -> Response {
    let path = request.uri().path_and_query().map_or("/", |p| p.as_str());
    let uri: Uri = match format!("{}{path}", proxy.upstream).parse() {
        Ok(uri) => uri,
        Err(err) => return (StatusCode::BAD_REQUEST, err.to_string()).into_response(),
    };
    *request.uri_mut() = uri;
    request.headers_mut().remove(axum::http::header::HOST);
    match proxy.client.request(request).await {
        Ok(answer) => answer.map(Body::new),
        Err(err) => (StatusCode::BAD_GATEWAY, err.to_string()).into_response(),
    }
}

#[tokio::main]
async fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let (mut listen, mut upstream) = (None, None);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--listen" => listen = args.next(),
            "--upstream" => upstream = args.next(),
            other => return Err(format!("bare-proxy: unknown argument {other}")),
        }
    }
    let (Some(listen), Some(upstream)) = (listen, upstream) else {
        return Err("usage: bare-proxy --listen ADDR --upstream http://HOST:PORT".to_owned());
    };
    let mut connector = HttpConnector::new();
    connector.set_nodelay(true);
    let client = Client::builder(TokioExecutor::new()).build(connector);
    let proxy = Proxy {
        client,
        upstream: upstream.trim_end_matches('/').to_owned(),
    };
    let app = axum::Router::new().fallback(forward).with_state(proxy);
    let listener = tokio::net::TcpListener::bind(&listen)
        .await
        .map_err(|err| format!("bare-proxy: {listen}: {err}"))?;
    eprintln!(
        "bare-proxy: listening on http://{}",
        listener.local_addr().unwrap()
    );
    // As the gateway does: streamed events must not wait for the client's delayed ACK.
    let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, app)
        .await
        .map_err(|err| err.to_string())
}
