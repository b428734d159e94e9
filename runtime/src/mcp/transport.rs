//! A newline-delimited JSON-RPC transport for rmcp's server (stdio, or any reader and writer)
//! that answers every request exactly once with its id, whatever the line holds: lines are size-
//! and depth-limited while they are read, a line too large is never buffered, and a line rmcp
//! cannot read is answered here (see `admission`) instead of being dropped.

use std::io;
use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

use super::admission::{Admission, admit};
use super::envelope::Envelope;

/// Limits on each message a client sends, applied while the line is read (before it is parsed).
///
/// The arguments of a call have their own, lower limits ([`Limits`](crate::Limits), 1 MiB and 100
/// levels by default), applied by the [`ToolSet`](crate::ToolSet) with an error the model can act
/// on; these are the transport's outer bound. Raise both together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WireLimits {
    /// The most bytes one message may have (default 4 MiB). A longer line is read to its end
    /// without being kept, and answered with an error.
    pub max_bytes: usize,
    /// The deepest nesting of arrays and objects one message may have (default 120; serde_json
    /// cannot parse more than 127).
    pub max_depth: usize,
}

impl Default for WireLimits {
    fn default() -> Self {
        WireLimits {
            max_bytes: 4 * 1024 * 1024,
            max_depth: 120,
        }
    }
}

/// After a line at least this long, the read buffer is given back rather than kept at its peak.
const KEPT_CAPACITY: usize = 64 * 1024;

/// rmcp's server side over newline-delimited JSON-RPC, with every line answered.
///
/// ```no_run
/// # #[cfg(feature = "mcp")]
/// # async fn serve(server: tooldef::mcp::McpServer) -> Result<(), Box<dyn std::error::Error>> {
/// use rmcp::ServiceExt;
///
/// let running = server.serve(tooldef::mcp::stdio()).await?;
/// running.waiting().await?;
/// # Ok(())
/// # }
/// ```
pub struct LineTransport<R, W> {
    read: BufReader<R>,
    /// The line being read, while it is within the limit.
    line: Vec<u8>,
    /// The line being read is over the limit: the rest of it is read but not kept.
    oversized: bool,
    envelope: Envelope,
    limits: WireLimits,
    /// An answer to a line, not yet handed to the writer.
    answer: Option<Vec<u8>>,
    writer: Arc<Mutex<Writer<W>>>,
}

/// The transport over this process's stdin and stdout.
pub fn stdio() -> LineTransport<tokio::io::Stdin, tokio::io::Stdout> {
    LineTransport::new(tokio::io::stdin(), tokio::io::stdout())
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> LineTransport<R, W> {
    /// The transport over `read` and `write`, with the default limits.
    pub fn new(read: R, write: W) -> Self {
        LineTransport {
            read: BufReader::new(read),
            line: Vec::new(),
            oversized: false,
            envelope: Envelope::default(),
            limits: WireLimits::default(),
            answer: None,
            writer: Arc::new(Mutex::new(Writer {
                io: Some(write),
                buffer: Vec::new(),
                written: 0,
            })),
        }
    }

    /// The same transport with other limits.
    #[must_use]
    pub fn with_limits(mut self, limits: WireLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Reads up to the end of the next line. Cancel-safe: `receive` is polled in a `select!`,
    /// so everything read is recorded (in `line`, `oversized`, `envelope`) before any await, and
    /// a dropped read resumes where it stopped.
    async fn read_line(&mut self) -> io::Result<bool> {
        loop {
            let (consumed, done) = {
                let available = self.read.fill_buf().await?;
                if available.is_empty() {
                    return Ok(false);
                }
                let newline = available.iter().position(|&b| b == b'\n');
                let take = newline.map_or(available.len(), |at| at + 1);
                let chunk = &available[..take];
                self.envelope.feed(chunk);
                if !self.oversized {
                    if self.line.len() + take > self.limits.max_bytes {
                        self.oversized = true;
                        self.line = Vec::new();
                    } else {
                        self.line.extend_from_slice(chunk);
                    }
                }
                (take, newline.is_some())
            };
            self.read.consume(consumed);
            if done {
                return Ok(true);
            }
        }
    }

    /// Decides about the line just read and gets ready for the next.
    fn take_line(&mut self) -> Admission {
        let admission = admit(
            (!self.oversized).then_some(self.line.as_slice()),
            &self.envelope,
            &self.limits,
        );
        self.oversized = false;
        self.envelope.reset();
        if self.line.capacity() > KEPT_CAPACITY {
            self.line = Vec::new();
        } else {
            self.line.clear();
        }
        admission
    }
}

impl<R, W> rmcp::transport::Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let writer = Arc::clone(&self.writer);
        let line = serde_json::to_vec(&item).map(|mut line| {
            line.push(b'\n');
            line
        });
        async move { writer.lock().await.send(&line?).await }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            // An answer of the transport's own goes out before the next line is read. The
            // answer is taken only once the lock is held, and what a cancelled write leaves is
            // finished by the next write, so a cancelled `receive` loses nothing.
            {
                let mut writer = self.writer.lock().await;
                if let Some(answer) = self.answer.take() {
                    writer.queue(&answer);
                }
                if let Err(error) = writer.flush_pending().await {
                    tracing::error!("cannot write to the client: {error}");
                    return None;
                }
            }
            match self.read_line().await {
                Ok(true) => {}
                Ok(false) => return None,
                Err(error) => {
                    tracing::error!("cannot read from the client: {error}");
                    return None;
                }
            }
            match self.take_line() {
                Admission::Deliver(message) => return Some(*message),
                Admission::Reply(line) => self.answer = Some(line),
                Admission::Ignore(why) => tracing::debug!("ignoring a line: {why}"),
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        let mut writer = self.writer.lock().await;
        if let Some(answer) = self.answer.take() {
            writer.queue(&answer);
        }
        let flushed = writer.flush_pending().await;
        writer.io = None;
        flushed
    }
}

/// The write half, shared by rmcp's sends and the transport's own answers. A message is queued
/// whole before any of it is written, and whatever a cancelled write left is written before the
/// next message, so messages never interleave.
struct Writer<W> {
    io: Option<W>,
    buffer: Vec<u8>,
    /// How much of `buffer` is written.
    written: usize,
}

impl<W: AsyncWrite + Unpin> Writer<W> {
    fn queue(&mut self, line: &[u8]) {
        self.buffer.extend_from_slice(line);
    }

    async fn send(&mut self, line: &[u8]) -> io::Result<()> {
        self.flush_pending().await?;
        self.queue(line);
        self.flush_pending().await
    }

    async fn flush_pending(&mut self) -> io::Result<()> {
        if self.written == self.buffer.len() {
            return Ok(());
        }
        let Some(io) = self.io.as_mut() else {
            return Err(io::Error::new(
                io::ErrorKind::NotConnected,
                "the transport is closed",
            ));
        };
        while self.written < self.buffer.len() {
            // `write` is cancel-safe: either these bytes were written or none were.
            let n = io.write(&self.buffer[self.written..]).await?;
            if n == 0 {
                return Err(io::ErrorKind::WriteZero.into());
            }
            self.written += n;
        }
        io.flush().await?;
        self.written = 0;
        if self.buffer.capacity() > KEPT_CAPACITY {
            self.buffer = Vec::new();
        } else {
            self.buffer.clear();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::transport::Transport;

    #[tokio::test]
    async fn lines_split_anywhere_and_oversized_ones_are_answered() {
        let (client, server) = tokio::io::duplex(64);
        let (server_read, server_write) = tokio::io::split(server);
        let mut transport = LineTransport::new(server_read, server_write).with_limits(WireLimits {
            max_bytes: 200,
            max_depth: 10,
        });
        let (mut client_read, mut client_write) = tokio::io::split(client);
        let big = "x".repeat(1000);
        let input = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}}\n\
             {{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{{\"name\":\"t\",\"arguments\":{{\"s\":\"{big}\"}}}},\"id\":2}}\n\
             {{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}}\n"
        );
        let writing = tokio::spawn(async move {
            client_write.write_all(input.as_bytes()).await.unwrap();
            client_write.shutdown().await.unwrap();
        });
        let reading = tokio::spawn(async move {
            let mut out = Vec::new();
            tokio::io::AsyncReadExt::read_to_end(&mut client_read, &mut out)
                .await
                .unwrap();
            out
        });
        let first = transport.receive().await.unwrap();
        assert!(matches!(first, rmcp::model::JsonRpcMessage::Request(_)));
        let third = transport.receive().await.unwrap();
        assert!(
            matches!(&third, rmcp::model::JsonRpcMessage::Request(r) if r.id == rmcp::model::NumberOrString::Number(3))
        );
        assert!(transport.receive().await.is_none());
        transport.close().await.unwrap();
        drop(transport);
        writing.await.unwrap();
        let out = String::from_utf8(reading.await.unwrap()).unwrap();
        let reply: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        assert_eq!(reply["id"], 2);
        assert_eq!(reply["result"]["isError"], true);
        let text = reply["result"]["content"][0]["text"].as_str().unwrap();
        assert!(text.contains("at most 200 bytes"), "{text}");
    }
}
