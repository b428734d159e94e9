//! Server-sent events both ways: the upstream's stream read as events (`reader`), and the
//! client's stream, whose body runs what writes it (`response`): a client that goes away drops
//! the body and stops the writing with it.

mod reader;

use std::collections::VecDeque;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::http::{HeaderValue, header};
use axum::response::Response;
use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::upstream::Answer;
use reader::Reader;

/// One upstream event's `data:` (Responses repeats the `event:` name as the data's `type`).
pub struct Event {
    /// The `data:` field.
    pub data: String,
}

/// The upstream answer's body as events; comments and events without data are skipped. A
/// Responses upstream's (`echoes_tools`) leave out the tools it echoes as they are read.
pub fn events(
    answer: Answer,
    echoes_tools: bool,
) -> impl Stream<Item = Result<Event, String>> + Send {
    let reader = if echoes_tools {
        Reader::without_echo()
    } else {
        Reader::default()
    };
    let reading = Reading {
        body: answer.into_body().into_data_stream(),
        reader,
        ready: VecDeque::new(),
        done: false,
    };
    futures_util::stream::unfold(reading, Reading::next)
}

/// An answer's body being read.
struct Reading {
    body: axum::body::BodyDataStream,
    reader: Reader,
    /// Events read and not yet given.
    ready: VecDeque<String>,
    done: bool,
}

impl Reading {
    async fn next(mut self) -> Option<(Result<Event, String>, Reading)> {
        loop {
            if let Some(data) = self.ready.pop_front() {
                return Some((Ok(Event { data }), self));
            }
            if self.done {
                return None;
            }
            let failed = match self.body.next().await {
                Some(Ok(chunk)) => match self.reader.feed(&chunk, &mut self.ready) {
                    Ok(()) => continue,
                    Err(why) => why,
                },
                Some(Err(err)) => format!("the upstream's stream broke off: {err}"),
                None => return None,
            };
            self.done = true;
            return Some((Err(failed), self));
        }
    }
}

/// How many pending bytes go to the client without waiting for the upstream to pause: a few
/// events of a fast upstream, well above one chunk of a streamed answer.
const FLUSH_AT: usize = 32 * 1024;

/// The writing end of a client's stream.
pub struct Writer {
    tx: mpsc::Sender<Bytes>,
    /// The events written since the last `flush`, framed: they go to the client as one piece,
    /// so that the events of one upstream chunk cost one hop to the connection's task and one
    /// write to the client, not one of each per event.
    pending: Vec<u8>,
}

impl Writer {
    /// `data: JSON` (Chat Completions' events have no name).
    pub fn data(&mut self, data: &Value) {
        frame(&mut self.pending, None, data);
    }

    /// `event: NAME` and `data: JSON` (the Responses API names its events by their type).
    pub fn named(&mut self, name: &str, data: &Value) {
        frame(&mut self.pending, Some(name), data);
    }

    /// `data: TEXT` that is not JSON (Chat Completions' end of stream, `[DONE]`).
    pub fn raw_data(&mut self, text: &str) {
        self.line(b"data: ", text);
    }

    /// A comment line: ignored by clients, it keeps idle connections (and proxies) from timing
    /// out while tools run.
    pub fn comment(&mut self, text: &str) {
        self.line(b": ", text);
    }

    fn line(&mut self, prefix: &[u8], text: &str) {
        self.pending.extend_from_slice(prefix);
        self.pending.extend_from_slice(text.as_bytes());
        self.pending.extend_from_slice(b"\n\n");
    }

    /// Whether enough is pending to go to the client now, without waiting for the upstream's
    /// next bytes: an upstream that sends faster than it is read must not have its whole answer
    /// held back.
    pub fn holds_enough(&self) -> bool {
        self.pending.len() >= FLUSH_AT
    }

    /// Sends what was written since the last flush; the writer's user flushes before anything
    /// that waits (the upstream's next bytes, tools, the next round) and at the end. The
    /// receiving end lives in the answer's body with the run that writes (`Driven`), so it is
    /// there as long as the writer is: a client that goes away drops both.
    pub async fn flush(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let bytes = Bytes::from(std::mem::take(&mut self.pending));
        let _ = self.tx.send(bytes).await;
    }
}

/// One event, serialised straight onto the pending bytes.
fn frame(buffer: &mut Vec<u8>, name: Option<&str>, data: &Value) {
    if let Some(name) = name {
        buffer.extend_from_slice(b"event: ");
        buffer.extend_from_slice(name.as_bytes());
        buffer.push(b'\n');
    }
    buffer.extend_from_slice(b"data: ");
    // A `Value` always serialises.
    let _ = serde_json::to_writer(&mut *buffer, data);
    buffer.extend_from_slice(b"\n\n");
}

/// A streamed `200` answer whose events `run` writes. `run` goes on as the answer's body is
/// read, in the connection's own task: a second task, each write handed over to it through the
/// channel, cost a streamed request 0.13–0.15 ms more than a whole one, the two tasks' threads
/// waking each other (docs/BENCHMARKS.md). A client that goes away drops the body, and `run`
/// with it.
pub fn response<F>(run: impl FnOnce(Writer) -> F) -> Response
where
    F: Future<Output = ()> + Send + 'static,
{
    let (tx, rx) = mpsc::channel::<Bytes>(64);
    let writer = Writer {
        tx,
        pending: Vec::new(),
    };
    let body = Driven {
        run: Some(Box::pin(run(writer))),
        rx,
    };
    let mut response = Response::new(Body::from_stream(body));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// A body that runs what writes it each time it is asked for more.
struct Driven {
    /// What writes the events, until it ends.
    run: Option<Pin<Box<dyn Future<Output = ()> + Send>>>,
    /// What it wrote; its end, once `run` ended and dropped the writer.
    rx: mpsc::Receiver<Bytes>,
}

impl Stream for Driven {
    type Item = Result<Bytes, Infallible>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if let Some(run) = self.run.as_mut()
            && run.as_mut().poll(cx).is_ready()
        {
            self.run = None;
        }
        self.rx.poll_recv(cx).map(|bytes| bytes.map(Ok))
    }
}

impl Drop for Driven {
    fn drop(&mut self) {
        if self.run.is_some() {
            tracing::info!("the client went away during a stream; its rounds stop");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    /// What the client's connection is handed, piece by piece.
    async fn pieces(response: Response) -> Vec<String> {
        let mut body = response.into_body().into_data_stream();
        let mut pieces = Vec::new();
        while let Some(piece) = body.next().await {
            pieces.push(String::from_utf8(piece.unwrap().to_vec()).unwrap());
        }
        pieces
    }

    #[tokio::test]
    async fn events_written_together_go_as_one_piece() {
        let response = response(|mut writer| async move {
            writer.named("response.created", &json!({"type": "response.created"}));
            writer.comment("tooldef: running 1 tool call(s)");
            writer.data(&json!({"n": 1}));
            writer.flush().await;
            // Nothing pending: nothing sent.
            writer.flush().await;
            writer.raw_data("[DONE]");
            writer.flush().await;
        });
        assert_eq!(
            pieces(response).await,
            [
                "event: response.created\ndata: {\"type\":\"response.created\"}\n\n\
                 : tooldef: running 1 tool call(s)\n\n\
                 data: {\"n\":1}\n\n",
                "data: [DONE]\n\n",
            ]
        );
    }

    #[tokio::test]
    async fn enough_pending_is_said() {
        let response = response(|mut writer| async move {
            let text = "x".repeat(1024);
            let mut written = 0;
            while !writer.holds_enough() {
                writer.data(&json!(text));
                written += 1;
            }
            // 32 KiB of 1 KiB events, each with its framing.
            assert_eq!(written, 32);
            writer.flush().await;
            assert!(!writer.holds_enough());
        });
        assert_eq!(pieces(response).await.len(), 1);
    }

    #[tokio::test]
    async fn what_writes_an_answer_stops_when_the_answer_is_dropped() {
        /// Says when it is dropped.
        struct Dropped(Arc<AtomicBool>);
        impl Drop for Dropped {
            fn drop(&mut self) {
                self.0.store(true, Ordering::SeqCst);
            }
        }
        let dropped = Arc::new(AtomicBool::new(false));
        let guard = Dropped(dropped.clone());
        let response = response(|mut writer| async move {
            let _guard = guard;
            writer.data(&json!({"n": 1}));
            writer.flush().await;
            std::future::pending::<()>().await;
        });
        let mut body = response.into_body().into_data_stream();
        let first = body.next().await.unwrap().unwrap();
        assert_eq!(&first[..], b"data: {\"n\":1}\n\n");
        assert!(!dropped.load(Ordering::SeqCst));
        drop(body);
        assert!(dropped.load(Ordering::SeqCst));
    }
}
