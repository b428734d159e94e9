//! Server-sent events both ways: the upstream's stream read as events, and the client's stream
//! written through a channel that a round-running task feeds (dropped by a client that went
//! away, which stops the task at its next write).

use std::convert::Infallible;

use axum::body::Body;
use axum::http::{HeaderValue, header};
use axum::response::Response;
use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use serde_json::Value;
use sse_stream::{Sse, SseStream};
use tokio::sync::mpsc;

/// One upstream event's `data:` (Responses repeats the `event:` name as the data's `type`).
pub struct Event {
    /// The `data:` field.
    pub data: String,
}

/// The upstream answer's body as events; comments and empty events are skipped.
pub fn events(answer: reqwest::Response) -> impl Stream<Item = Result<Event, String>> + Send {
    SseStream::from_bytes_stream(answer.bytes_stream()).filter_map(|item| async move {
        match item {
            Ok(Sse {
                data: Some(data), ..
            }) => Some(Ok(Event { data })),
            Ok(_) => None,
            Err(err) => Some(Err(format!("the upstream's stream broke off: {err}"))),
        }
    })
}

/// The writing end of a client's stream.
pub struct Writer {
    tx: mpsc::Sender<Bytes>,
}

impl Writer {
    /// `data: JSON` (Chat Completions' events have no name).
    pub async fn data(&self, data: &Value) -> Result<(), Gone> {
        self.send(frame(None, data)).await
    }

    /// `event: NAME` and `data: JSON` (the Responses API names its events by their type).
    pub async fn named(&self, name: &str, data: &Value) -> Result<(), Gone> {
        self.send(frame(Some(name), data)).await
    }

    /// `data: TEXT` that is not JSON (Chat Completions' end of stream, `[DONE]`).
    pub async fn raw_data(&self, text: &str) -> Result<(), Gone> {
        self.send(Bytes::from(format!("data: {text}\n\n"))).await
    }

    /// A comment line: ignored by clients, it keeps idle connections (and proxies) from timing
    /// out while tools run.
    pub async fn comment(&self, text: &str) -> Result<(), Gone> {
        self.send(Bytes::from(format!(": {text}\n\n"))).await
    }

    async fn send(&self, bytes: Bytes) -> Result<(), Gone> {
        self.tx.send(bytes).await.map_err(|_| Gone)
    }
}

/// One event, serialised straight into its buffer.
fn frame(name: Option<&str>, data: &Value) -> Bytes {
    let mut buffer = Vec::with_capacity(256);
    if let Some(name) = name {
        buffer.extend_from_slice(b"event: ");
        buffer.extend_from_slice(name.as_bytes());
        buffer.push(b'\n');
    }
    buffer.extend_from_slice(b"data: ");
    // A `Value` always serialises.
    let _ = serde_json::to_writer(&mut buffer, data);
    buffer.extend_from_slice(b"\n\n");
    Bytes::from(buffer)
}

/// The client went away.
#[derive(Debug)]
pub struct Gone;

/// A streamed `200` answer and the writer that feeds it.
pub fn response() -> (Response, Writer) {
    let (tx, mut rx) = mpsc::channel::<Bytes>(64);
    let body = futures_util::stream::poll_fn(move |cx| rx.poll_recv(cx)).map(Ok::<_, Infallible>);
    let mut response = Response::new(Body::from_stream(body));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    (response, Writer { tx })
}
