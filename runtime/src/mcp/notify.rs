//! Progress and log messages from a tool to the MCP client that called it: the sinks
//! [`McpServer::call`](super::McpServer::call) installs in the call's context, and the log level
//! each client session asked for.
//!
//! rmcp marks MCP's logging deprecated, as MCP 2026-07-28 does (SEP-2577); clients of
//! 2025-11-25 still show the messages, so they are still sent, hence the `allow`.
#![allow(deprecated)]

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rmcp::model::{
    LoggingLevel, LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken,
};
use rmcp::service::{RequestContext, ServiceError};
use rmcp::{Peer, RoleServer};

use super::sessions::{NoSession, Sessions};
use crate::{ClientLog, LogLevel, LogMessage, LogSink, Progress, ProgressSink, SinkFuture};

/// The level of a session that never sent `logging/setLevel`: everything, as the MCP
/// TypeScript SDK does (the specification names no default before 2026-07-28, where a request
/// without a level gets nothing).
const UNSET_SESSION_LEVEL: LogLevel = LogLevel::Debug;

/// How long a notification may wait to be taken before the client counts as gone.
///
/// rmcp answers `send_notification` once the message is written. When the client closes its
/// end, rmcp stops writing but keeps the channel open while it waits (up to 5 s) for the
/// responses of the calls still running, so a tool would wait that long on each notification;
/// and a client that stops reading would hold the tool for ever. After this long, the
/// notification is left to rmcp (which still sends it in order, if it can) and the call's
/// further notifications are dropped.
const GONE_AFTER: Duration = Duration::from_secs(1);

/// The notifications of one call to its client: sent in order, until the client does not take
/// one in time.
struct Delivery {
    peer: Peer<RoleServer>,
    gone: AtomicBool,
}

impl Delivery {
    /// Sends what `notify` sends, unless the client is gone.
    async fn send<F>(&self, notify: impl FnOnce(Peer<RoleServer>) -> F)
    where
        F: Future<Output = Result<(), ServiceError>>,
    {
        if self.gone.load(Ordering::Relaxed) || self.peer.is_transport_closed() {
            return;
        }
        match tokio::time::timeout(GONE_AFTER, notify(self.peer.clone())).await {
            Ok(Ok(())) => {}
            // The connection is closed, or the client does not read: the tool goes on without
            // telling it anything more.
            Ok(Err(_)) | Err(_) => self.gone.store(true, Ordering::Relaxed),
        }
    }
}

/// Sends a call's progress as `notifications/progress` with its request's `progressToken`.
struct PeerProgress {
    delivery: Arc<Delivery>,
    token: ProgressToken,
}

impl ProgressSink for PeerProgress {
    fn send(&self, update: crate::ProgressUpdate) -> SinkFuture<'_> {
        Box::pin(async move {
            let mut notification =
                ProgressNotificationParam::new(self.token.clone(), update.progress);
            notification.total = update.total;
            notification.message = update.message;
            self.delivery
                .send(|peer| async move { peer.notify_progress(notification).await })
                .await;
        })
    }
}

/// The progress reporter and the log of a call, which share its delivery (a client that is
/// gone is gone for both).
///
/// Progress goes to the client when the request carries a `progressToken`, nowhere otherwise.
/// The log is named after the tool; its messages go at the level the request's `_meta` asks for
/// (`io.modelcontextprotocol/logLevel`, MCP 2026-07-28's way); without it, none on 2026-07-28
/// (which forbids them), and at the session's level before.
pub(super) fn for_call(
    context: &RequestContext<RoleServer>,
    modern: bool,
    levels: &Arc<SessionLevels>,
    tool: &str,
) -> (Progress, ClientLog) {
    let delivery = Arc::new(Delivery {
        peer: context.peer.clone(),
        gone: AtomicBool::new(false),
    });
    let progress = match context.meta.get_progress_token() {
        Some(token) => Progress::new(PeerProgress {
            delivery: Arc::clone(&delivery),
            token,
        }),
        None => Progress::disabled(),
    };
    let level = match context.meta.log_level() {
        Some(level) => Level::Fixed(Some(from_rmcp(level))),
        None if modern => Level::Fixed(None),
        None => Level::Session(Arc::clone(levels)),
    };
    let log = ClientLog::new(PeerLog { delivery, level }).named(tool);
    (progress, log)
}

/// Where a call's log level comes from.
enum Level {
    /// The request said (or its protocol version decides), once for the whole call.
    Fixed(Option<LogLevel>),
    /// The client's session, which may change it during the call.
    Session(Arc<SessionLevels>),
}

/// Sends a call's log messages as `notifications/message`.
struct PeerLog {
    delivery: Arc<Delivery>,
    level: Level,
}

impl LogSink for PeerLog {
    fn level(&self) -> Option<LogLevel> {
        match &self.level {
            Level::Fixed(level) => *level,
            Level::Session(levels) => Some(
                levels
                    .get(&self.delivery.peer)
                    .unwrap_or(UNSET_SESSION_LEVEL),
            ),
        }
    }

    fn send(&self, message: LogMessage) -> SinkFuture<'_> {
        Box::pin(async move {
            let mut notification =
                LoggingMessageNotificationParam::new(to_rmcp(message.level), message.data);
            notification.logger = message.logger;
            self.delivery
                .send(|peer| async move { peer.notify_logging_message(notification).await })
                .await;
        })
    }
}

/// The levels clients set with `logging/setLevel`, one per session.
#[derive(Default)]
pub(super) struct SessionLevels {
    sessions: Sessions<LogLevel>,
}

impl SessionLevels {
    /// Sets the level of `peer`'s session, or says that it has none (a client that did not
    /// go through `initialize`).
    pub(super) fn set(
        &self,
        peer: &Peer<RoleServer>,
        level: LoggingLevel,
    ) -> Result<(), NoSession> {
        let level = from_rmcp(level);
        self.sessions.update(peer, || level, |set| *set = level)
    }

    /// The level `peer`'s session set, if it did.
    fn get(&self, peer: &Peer<RoleServer>) -> Option<LogLevel> {
        self.sessions.get(peer, |level| *level)
    }
}

fn from_rmcp(level: LoggingLevel) -> LogLevel {
    match level {
        LoggingLevel::Debug => LogLevel::Debug,
        LoggingLevel::Info => LogLevel::Info,
        LoggingLevel::Notice => LogLevel::Notice,
        LoggingLevel::Warning => LogLevel::Warning,
        LoggingLevel::Error => LogLevel::Error,
        LoggingLevel::Critical => LogLevel::Critical,
        LoggingLevel::Alert => LogLevel::Alert,
        LoggingLevel::Emergency => LogLevel::Emergency,
    }
}

fn to_rmcp(level: LogLevel) -> LoggingLevel {
    match level {
        LogLevel::Debug => LoggingLevel::Debug,
        LogLevel::Info => LoggingLevel::Info,
        LogLevel::Notice => LoggingLevel::Notice,
        LogLevel::Warning => LoggingLevel::Warning,
        LogLevel::Error => LoggingLevel::Error,
        LogLevel::Critical => LoggingLevel::Critical,
        LogLevel::Alert => LoggingLevel::Alert,
        LogLevel::Emergency => LoggingLevel::Emergency,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_convert_both_ways() {
        for level in LogLevel::ALL {
            assert_eq!(from_rmcp(to_rmcp(level)), level);
            // rmcp spells them as MCP does, and so does `LogLevel::as_str`.
            assert_eq!(
                serde_json::to_value(to_rmcp(level)).unwrap(),
                serde_json::Value::from(level.as_str())
            );
        }
    }
}
