//! The load: the six kinds of request the benchmark sends (Chat Completions, Responses and
//! Messages, whole and streamed), each one's body, and sending many of them at a given concurrency over
//! kept-alive connections, timing each until its whole answer (the whole stream) is read.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use reqwest::Client;
use reqwest::header::CONTENT_TYPE;
use serde_json::{Value, json};

/// The system message (about 300 bytes).
const SYSTEM: &str = "You are a careful assistant for a software team. Answer in plain English, \
    briefly, and say when you are unsure. When a question is about a repository, look things up \
    with the tools you have rather than guessing; quote issue and pull request numbers exactly as \
    they appear, and never invent a URL or a commit hash.";

/// The user message (about 300 bytes, no `SCRIPT:` line: the upstream answers "ok").
const USER: &str = "Our CI has been failing on the main branch since yesterday afternoon. Could \
    you look at the latest workflow runs of octo-org/octo-repo, tell me which job fails first and \
    with what error, and whether any pull request merged in that window touched the build \
    configuration? A short summary is enough, with links to the runs.";

/// The model the scripted upstream plays.
const MODEL: &str = "scripted-1";

/// One of the six kinds of request.
#[derive(Clone, Copy, PartialEq)]
pub enum Kind {
    Chat,
    ChatStream,
    Responses,
    ResponsesStream,
    Messages,
    MessagesStream,
}

/// The API of a kind of request.
#[derive(Clone, Copy, PartialEq)]
pub enum Api {
    Chat,
    Responses,
    Messages,
}

impl Api {
    /// Its name in the gateway's `/v1/tools?target=`.
    pub fn name(self) -> &'static str {
        match self {
            Api::Chat => "chat",
            Api::Responses => "responses",
            Api::Messages => "messages",
        }
    }
}

impl Kind {
    pub const ALL: [Kind; 6] = [
        Kind::Chat,
        Kind::ChatStream,
        Kind::Responses,
        Kind::ResponsesStream,
        Kind::Messages,
        Kind::MessagesStream,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Kind::Chat => "Chat Completions",
            Kind::ChatStream => "Chat Completions, streamed",
            Kind::Responses => "Responses",
            Kind::ResponsesStream => "Responses, streamed",
            Kind::Messages => "Messages",
            Kind::MessagesStream => "Messages, streamed",
        }
    }

    /// Its API.
    pub fn api(self) -> Api {
        match self {
            Kind::Chat | Kind::ChatStream => Api::Chat,
            Kind::Responses | Kind::ResponsesStream => Api::Responses,
            Kind::Messages | Kind::MessagesStream => Api::Messages,
        }
    }

    fn streams(self) -> bool {
        matches!(
            self,
            Kind::ChatStream | Kind::ResponsesStream | Kind::MessagesStream
        )
    }

    /// Below the base URL (which ends in `/v1`).
    pub fn path(self) -> &'static str {
        match self.api() {
            Api::Chat => "/chat/completions",
            Api::Responses => "/responses",
            Api::Messages => "/messages",
        }
    }

    /// The request, with `tools` when given (the tools the gateway would inject).
    pub fn body(self, tools: Option<&[Value]>) -> Bytes {
        // The same conversation; Chat calls it `messages`, Responses `input`, and Messages has
        // its system prompt apart and a `max_tokens` it requires.
        let mut body = json!({"model": MODEL, "temperature": 0.2});
        let conversation = json!([
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": USER},
        ]);
        match self.api() {
            Api::Chat => body["messages"] = conversation,
            Api::Responses => body["input"] = conversation,
            Api::Messages => {
                body["system"] = json!(SYSTEM);
                body["max_tokens"] = json!(1024);
                body["messages"] = json!([{"role": "user", "content": USER}]);
            }
        }
        if self.streams() {
            body["stream"] = json!(true);
        }
        if let Some(tools) = tools {
            body["tools"] = Value::Array(tools.to_vec());
        }
        Bytes::from(body.to_string())
    }

    /// Whether a whole answer's text is the scripted "ok" answer of this kind.
    pub fn answered(self, text: &str) -> bool {
        let end = match self {
            Kind::Chat | Kind::Responses | Kind::Messages => "",
            Kind::ChatStream => "data: [DONE]",
            Kind::ResponsesStream => "response.completed",
            Kind::MessagesStream => "message_stop",
        };
        // Streamed or not, the text "ok" comes whole in one string (one delta, or the answer).
        text.contains("\"ok\"") && text.contains(end)
    }
}

/// One request to send: where, and what.
#[derive(Clone)]
pub struct Request {
    pub url: String,
    pub body: Bytes,
}

/// The benchmark's HTTP client: connections kept alive, no proxy.
pub fn client() -> Result<Client, String> {
    Client::builder()
        .no_proxy()
        .pool_max_idle_per_host(256)
        .tcp_nodelay(true)
        .timeout(Duration::from_secs(60))
        .build()
        .map_err(|err| format!("cannot make the HTTP client: {err}"))
}

/// Sends one request and reads its whole answer; its latency.
pub async fn send(client: &Client, request: &Request) -> Result<Duration, String> {
    let started = Instant::now();
    let mut response = client
        .post(&request.url)
        .header(CONTENT_TYPE, "application/json")
        .body(request.body.clone())
        .send()
        .await
        .map_err(|err| format!("POST {}: {err}", request.url))?;
    if !response.status().is_success() {
        let status = response.status();
        let text = response.text().await.unwrap_or_default();
        return Err(format!("POST {}: {status}: {text}", request.url));
    }
    while response
        .chunk()
        .await
        .map_err(|err| format!("POST {}: the answer broke off: {err}", request.url))?
        .is_some()
    {}
    Ok(started.elapsed())
}

/// Sends one request and returns its whole answer's text.
pub async fn fetch_text(client: &Client, request: &Request) -> Result<String, String> {
    let response = client
        .post(&request.url)
        .header(CONTENT_TYPE, "application/json")
        .body(request.body.clone())
        .send()
        .await
        .map_err(|err| format!("POST {}: {err}", request.url))?;
    let status = response.status();
    let text = response
        .text()
        .await
        .map_err(|err| format!("POST {}: {err}", request.url))?;
    if !status.is_success() {
        return Err(format!("POST {}: {status}: {text}", request.url));
    }
    Ok(text)
}

/// `count` requests, `concurrency` at a time, the `i`-th being `requests[i % len]`: each one's
/// latency (in no particular order) and the wall time of the whole run.
pub async fn run(
    client: &Client,
    requests: &[Request],
    count: usize,
    concurrency: usize,
) -> Result<(Vec<Duration>, Duration), String> {
    let requests: Arc<[Request]> = requests.into();
    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let mut workers = tokio::task::JoinSet::new();
    for _ in 0..concurrency.clamp(1, count.max(1)) {
        let client = client.clone();
        let requests = requests.clone();
        let next = next.clone();
        workers.spawn(async move {
            let mut latencies = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= count {
                    return Ok::<_, String>(latencies);
                }
                latencies.push(send(&client, &requests[i % requests.len()]).await?);
            }
        });
    }
    let mut latencies = Vec::with_capacity(count);
    while let Some(done) = workers.join_next().await {
        let mine = done.map_err(|err| format!("a worker failed: {err}"))??;
        latencies.extend(mine);
    }
    Ok((latencies, started.elapsed()))
}

/// The `p`-th percentile (nearest rank) of sorted samples.
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}
