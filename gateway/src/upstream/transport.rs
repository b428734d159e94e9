//! How a request reaches the upstream: hyper's pooled HTTP/1 client with rustls and the
//! platform's roots, as reqwest builds it, but with each connection's reads bounded.
//!
//! hyper grows a connection's read buffer while reads fill it, up to about 400 KB, and keeps
//! what it grew for the connection's life. A Responses upstream's events echo the request's
//! tools (115 KB for 100 injected tools), so each connection's buffer grew to 128–400 KB: with
//! heaptrack, 100 MB at 300 streamed Responses conversations at once, against 8 KB a
//! connection for Chat (docs/BENCHMARKS.md). Reads of [`READ_SIZE`] keep every connection at
//! a Chat stream's size; a 115 KB event takes a few more reads.
//!
//! reqwest has no such setting, so it stays only where it is needed: when the environment names
//! a proxy for the upstream (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`, less `NO_PROXY`), which
//! reqwest honours and this client does not.

use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, Response, Uri};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::proxy::matcher::Matcher;
use hyper_util::rt::{TokioExecutor, TokioTimer};

/// The upstream's answer: its status, headers and body.
pub type Answer = Response<Body>;

/// The most a connection reads at once, and so the size of its read buffer. hyper also refuses
/// an answer whose head is larger; an upstream's is a few hundred bytes.
const READ_SIZE: usize = 16 * 1024;
/// How long a connection may take to open.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Idle connections kept open for the next requests, and for how long (reqwest's 90 s).
const MAX_IDLE: usize = 256;
const IDLE_TIMEOUT: Duration = Duration::from_secs(90);

/// The client requests go to the upstream with.
pub enum Transport {
    /// Straight to the upstream.
    Direct(Client<HttpsConnector<HttpConnector>, Body>),
    /// Through the proxy the environment names for it.
    Proxied(reqwest::Client),
}

/// Why a request got no answer.
pub struct Unreached {
    /// What went wrong, every cause included.
    pub why: String,
    /// The connection was refused, reset or closed before any answer came: sending the request
    /// again on a new connection is safe for the upstream's reading of it.
    pub lost_connection: bool,
}

impl Transport {
    /// The client for an upstream at `base`, through the proxy the environment names for it.
    pub fn new(base: &str) -> Result<Transport, String> {
        Transport::with_proxies(base, &Matcher::from_env())
    }

    /// The client for an upstream at `base`, through the proxy `proxies` name for it.
    fn with_proxies(base: &str, proxies: &Matcher) -> Result<Transport, String> {
        let uri: Uri = base
            .parse()
            .map_err(|err| format!("`{base}` is not a URL: {err}"))?;
        if let Some(proxy) = proxies.intercept(&uri) {
            let mut through = reqwest::Proxy::all(proxy.uri().to_string())
                .map_err(|err| format!("the proxy for `{base}` is not a URL: {err}"))?;
            if let Some(auth) = proxy.basic_auth() {
                through = through.custom_http_auth(auth.clone());
            }
            let client = reqwest::Client::builder()
                .proxy(through)
                .connect_timeout(CONNECT_TIMEOUT)
                .pool_max_idle_per_host(MAX_IDLE)
                .pool_idle_timeout(IDLE_TIMEOUT)
                .build()
                .map_err(|err| format!("cannot make the HTTP client: {err}"))?;
            return Ok(Transport::Proxied(client));
        }
        let mut http = HttpConnector::new();
        http.enforce_http(false);
        http.set_nodelay(true);
        http.set_connect_timeout(Some(CONNECT_TIMEOUT));
        let https = hyper_rustls::HttpsConnectorBuilder::new()
            .with_provider_and_platform_verifier(rustls::crypto::aws_lc_rs::default_provider())
            .map_err(|err| format!("cannot load the platform's TLS roots: {err}"))?
            .https_or_http()
            .enable_http1()
            .wrap_connector(http);
        let client = Client::builder(TokioExecutor::new())
            .pool_timer(TokioTimer::new())
            .pool_idle_timeout(IDLE_TIMEOUT)
            .pool_max_idle_per_host(MAX_IDLE)
            .http1_read_buf_exact_size(READ_SIZE)
            .build(https);
        Ok(Transport::Direct(client))
    }

    /// Sends `request` (its URI absolute) and waits for the answer's head.
    pub async fn send(&self, request: Request<Body>) -> Result<Answer, Unreached> {
        match self {
            Transport::Direct(client) => match client.request(request).await {
                Ok(answer) => Ok(answer.map(Body::new)),
                Err(err) => Err(Unreached::from_error(err.is_connect(), &err)),
            },
            Transport::Proxied(client) => {
                let (parts, body) = request.into_parts();
                // A body already whole (a round's JSON) goes with its length, as it does
                // directly; a forwarded one streams.
                let body = if http_body::Body::size_hint(&body).exact().is_some() {
                    let whole = axum::body::to_bytes(body, usize::MAX)
                        .await
                        .map_err(|err| Unreached::from_error(false, &err))?;
                    reqwest::Body::from(whole)
                } else {
                    reqwest::Body::wrap_stream(body.into_data_stream())
                };
                let request = Request::from_parts(parts, body)
                    .try_into()
                    .map_err(|err: reqwest::Error| Unreached::from_error(false, &err))?;
                match client.execute(request).await {
                    Ok(answer) => Ok(Response::from(answer).map(Body::new)),
                    Err(err) => Err(Unreached::from_error(err.is_connect(), &err)),
                }
            }
        }
    }
}

impl Unreached {
    fn from_error(is_connect: bool, err: &(dyn std::error::Error + 'static)) -> Unreached {
        let mut why = err.to_string();
        let mut lost_connection = is_connect;
        let mut source = err.source();
        while let Some(cause) = source {
            why = format!("{why}: {cause}");
            if let Some(io) = cause.downcast_ref::<std::io::Error>() {
                lost_connection |= matches!(
                    io.kind(),
                    std::io::ErrorKind::ConnectionReset
                        | std::io::ErrorKind::ConnectionAborted
                        | std::io::ErrorKind::BrokenPipe
                );
            }
            source = cause.source();
        }
        Unreached {
            why,
            lost_connection,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    /// A server that reads one request's head, answers `answer` and closes; the head it read.
    async fn one_answer(answer: &'static str) -> (String, tokio::task::JoinHandle<String>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let served = tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut head = Vec::new();
            let mut buffer = [0; 4096];
            while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                let read = socket.read(&mut buffer).await.unwrap();
                if read == 0 {
                    break;
                }
                head.extend_from_slice(&buffer[..read]);
            }
            socket.write_all(answer.as_bytes()).await.unwrap();
            let _ = socket.shutdown().await;
            String::from_utf8_lossy(&head).into_owned()
        });
        (address, served)
    }

    fn post(uri: &str) -> Request<Body> {
        Request::post(uri).body(Body::from("{}")).unwrap()
    }

    /// `transport`'s answer to a POST to `uri`, checked to be a `200`.
    async fn ok(transport: &Transport, uri: &str) -> Answer {
        let Ok(answer) = transport.send(post(uri)).await else {
            panic!("no answer from {uri}");
        };
        assert_eq!(answer.status(), 200);
        answer
    }

    #[tokio::test]
    async fn a_plain_upstream_is_reached_directly() {
        let (address, served) = one_answer("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok").await;
        let base = format!("http://{address}/v1");
        let transport = Transport::with_proxies(&base, &Matcher::builder().build()).unwrap();
        assert!(matches!(transport, Transport::Direct(_)));
        let answer = ok(&transport, &format!("{base}/chat/completions")).await;
        let body = axum::body::to_bytes(answer.into_body(), 16).await.unwrap();
        assert_eq!(&body[..], b"ok");
        let head = served.await.unwrap();
        assert!(
            head.starts_with("POST /v1/chat/completions HTTP/1.1\r\n"),
            "{head}"
        );
    }

    #[tokio::test]
    async fn an_https_upstream_is_spoken_to_in_tls() {
        // A server that answers in plain HTTP at once: the client's TLS handshake fails on it.
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            let _ = socket.write_all(b"HTTP/1.1 200 OK\r\n\r\n").await;
        });
        let base = format!("https://{address}/v1");
        let transport = Transport::with_proxies(&base, &Matcher::builder().build()).unwrap();
        let Err(unreached) = transport.send(post(&format!("{base}/responses"))).await else {
            panic!("a plain answer to a TLS handshake was taken");
        };
        assert!(
            unreached.why.contains("client error (Connect)"),
            "{}",
            unreached.why
        );
        assert!(unreached.lost_connection);
    }

    #[tokio::test]
    async fn the_proxy_named_for_the_upstream_is_used_with_its_credentials() {
        let (proxy, served) = one_answer("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n").await;
        let proxies = Matcher::builder()
            .http(format!("http://user:secret@{proxy}"))
            .no("localhost")
            .build();
        let base = "http://upstream.example/v1";
        let transport = Transport::with_proxies(base, &proxies).unwrap();
        assert!(matches!(transport, Transport::Proxied(_)));
        ok(&transport, &format!("{base}/chat/completions")).await;
        let head = served.await.unwrap();
        assert!(
            head.starts_with("POST http://upstream.example/v1/chat/completions HTTP/1.1\r\n"),
            "{head}"
        );
        assert!(head.contains("content-length: 2\r\n"), "{head}");
        // `user:secret`, in Basic.
        assert!(
            head.contains("proxy-authorization: Basic dXNlcjpzZWNyZXQ=\r\n"),
            "{head}"
        );
        // An upstream the proxy settings leave out is reached directly.
        let local = Transport::with_proxies("http://localhost:9/v1", &proxies).unwrap();
        assert!(matches!(local, Transport::Direct(_)));
    }

    #[tokio::test]
    async fn an_upstream_that_is_not_there_is_a_lost_connection_with_its_cause() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        drop(listener);
        let base = format!("http://{address}/v1");
        let transport = Transport::with_proxies(&base, &Matcher::builder().build()).unwrap();
        let Err(unreached) = transport.send(post(&format!("{base}/responses"))).await else {
            panic!("a closed port answered");
        };
        assert!(unreached.lost_connection);
        assert!(
            unreached.why.contains("Connection refused"),
            "{}",
            unreached.why
        );
    }
}
