//! [`ClientLog`]: log messages from a tool to the client that called it (MCP's
//! `notifications/message`).
//!
//! The same arrangement as [`Progress`](crate::Progress): the tool takes a `ClientLog`
//! parameter; the caller installs a [`LogSink`] with [`CallContext::with_client_log`] (the MCP
//! server installs one that sends `notifications/message` at the level the client asked for);
//! without one, logging does nothing.

use std::fmt;
use std::sync::Arc;

use serde_json::Value;

use crate::context::{CallContext, ContextError, FromCallContext};
use crate::progress::SinkFuture;

/// The severity of a log message: the syslog levels of RFC 5424, which MCP's logging uses, from
/// the least severe to the most (so `LogLevel::Info < LogLevel::Error`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    /// Detailed information for debugging.
    Debug,
    /// Something happened, as expected.
    Info,
    /// Normal but significant.
    Notice,
    /// Something to look at, not yet an error.
    Warning,
    /// Something failed.
    Error,
    /// A component failed.
    Critical,
    /// Action must be taken now.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LogLevel {
    /// Every level, least severe first.
    pub const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];

    /// The level's name as MCP spells it (`"debug"`, `"warning"`…).
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }
}

impl fmt::Display for LogLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One log message, as MCP's `notifications/message` carries it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct LogMessage {
    /// How severe it is.
    pub level: LogLevel,
    /// Who logged it: the tool's name unless the tool named another logger.
    pub logger: Option<String>,
    /// What is logged: a string, or any JSON value.
    pub data: Value,
}

/// Where a call's log messages go, and from which level.
pub trait LogSink: Send + Sync + 'static {
    /// The least severe level wanted at this moment, or `None` for no messages at all. Asked
    /// before every message, so that a level the client changes during a call applies at once.
    fn level(&self) -> Option<LogLevel>;

    /// Passes one message on; [`ClientLog`] sends only messages at or above
    /// [`level`](LogSink::level). A sink that cannot deliver drops the message.
    fn send(&self, message: LogMessage) -> SinkFuture<'_>;
}

/// Log messages from a tool to its caller, injected into a tool parameter of this type:
///
/// ```
/// use tooldef::{ClientLog, tool};
///
/// /// Import a CSV file of contacts.
/// #[tool]
/// async fn import_contacts(
///     /// The file's path.
///     path: String,
///     log: ClientLog,
/// ) -> String {
///     log.info(format!("reading {path}")).await;
///     log.warning(serde_json::json!({"skipped_rows": [4, 17]})).await;
///     "2 contacts imported".to_owned()
/// }
/// ```
///
/// Over MCP the messages are `notifications/message` sent to the client, at and above the level
/// it asked for: per session with `logging/setLevel` (MCP 2025-11-25 and before; everything
/// until it asks), per request with the `io.modelcontextprotocol/logLevel` key of the request's
/// `_meta` (MCP 2026-07-28, where a request without it gets no messages). Elsewhere (a
/// [`ToolSet`](crate::ToolSet) called by an agent loop or the gateway, unless the application
/// installed a [`LogSink`] with [`CallContext::with_client_log`]) they go nowhere.
///
/// MCP 2026-07-28 deprecates logging (SEP-2577: servers should log to stderr or through
/// OpenTelemetry); MCP 2025-11-25 clients still show these messages to their users, which is
/// what they are for. Diagnostics for the server's operator belong in its own logs.
#[derive(Clone, Default)]
pub struct ClientLog {
    sink: Option<Arc<dyn LogSink>>,
    logger: Option<Arc<str>>,
}

impl ClientLog {
    /// A log whose messages go to `sink`.
    pub fn new(sink: impl LogSink) -> ClientLog {
        ClientLog {
            sink: Some(Arc::new(sink)),
            logger: None,
        }
    }

    /// A log that logs to no one (what a tool gets when its caller installed none).
    pub fn disabled() -> ClientLog {
        ClientLog::default()
    }

    /// The same log under the logger name `logger` (MCP `logger`; the tool's name by default
    /// over MCP).
    #[must_use]
    pub fn named(mut self, logger: impl Into<Arc<str>>) -> ClientLog {
        self.logger = Some(logger.into());
        self
    }

    /// The logger name messages are sent under, when one is set.
    pub fn logger(&self) -> Option<&str> {
        self.logger.as_deref()
    }

    /// Whether a message at `level` would be sent now: a tool may skip building a costly
    /// message when not.
    pub fn enabled(&self, level: LogLevel) -> bool {
        self.sink
            .as_ref()
            .and_then(|sink| sink.level())
            .is_some_and(|wanted| level >= wanted)
    }

    /// Logs `data` (text, or any JSON value) at `level`, if the caller wants that level.
    /// Never fails.
    pub async fn log(&self, level: LogLevel, data: impl Into<Value>) {
        let Some(sink) = self.sink.as_ref().filter(|_| self.enabled(level)) else {
            return;
        };
        sink.send(LogMessage {
            level,
            logger: self.logger.as_deref().map(str::to_owned),
            data: data.into(),
        })
        .await;
    }

    /// Logs at [`LogLevel::Debug`].
    pub async fn debug(&self, data: impl Into<Value>) {
        self.log(LogLevel::Debug, data).await;
    }

    /// Logs at [`LogLevel::Info`].
    pub async fn info(&self, data: impl Into<Value>) {
        self.log(LogLevel::Info, data).await;
    }

    /// Logs at [`LogLevel::Notice`].
    pub async fn notice(&self, data: impl Into<Value>) {
        self.log(LogLevel::Notice, data).await;
    }

    /// Logs at [`LogLevel::Warning`].
    pub async fn warning(&self, data: impl Into<Value>) {
        self.log(LogLevel::Warning, data).await;
    }

    /// Logs at [`LogLevel::Error`].
    pub async fn error(&self, data: impl Into<Value>) {
        self.log(LogLevel::Error, data).await;
    }
}

impl fmt::Debug for ClientLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientLog")
            .field("enabled", &self.sink.is_some())
            .field("logger", &self.logger)
            .finish()
    }
}

impl CallContext {
    /// Where the tools of this call send their log messages (see [`ClientLog`]).
    #[must_use]
    pub fn with_client_log(self, log: ClientLog) -> CallContext {
        self.with_state(log)
    }
}

/// Never fails: without a log in the context, the tool gets one that logs to no one.
impl FromCallContext for ClientLog {
    fn from_call_context(context: &CallContext) -> Result<Self, ContextError> {
        Ok(context.state::<ClientLog>().unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    struct Recording {
        level: Option<LogLevel>,
        seen: Arc<Mutex<Vec<LogMessage>>>,
    }

    impl LogSink for Recording {
        fn level(&self) -> Option<LogLevel> {
            self.level
        }

        fn send(&self, message: LogMessage) -> SinkFuture<'_> {
            self.seen.lock().unwrap().push(message);
            Box::pin(async {})
        }
    }

    fn run(level: Option<LogLevel>) -> Vec<(LogLevel, Option<String>, Value)> {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = ClientLog::new(Recording {
            level,
            seen: Arc::clone(&seen),
        })
        .named("importer");
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(async {
                for level in LogLevel::ALL {
                    log.log(level, level.as_str()).await;
                }
            });
        let seen = seen.lock().unwrap();
        seen.iter()
            .map(|m| (m.level, m.logger.clone(), m.data.clone()))
            .collect()
    }

    #[test]
    fn messages_below_the_wanted_level_are_not_sent() {
        let sent = run(Some(LogLevel::Error));
        let levels: Vec<LogLevel> = sent.iter().map(|(level, ..)| *level).collect();
        assert_eq!(
            levels,
            [
                LogLevel::Error,
                LogLevel::Critical,
                LogLevel::Alert,
                LogLevel::Emergency
            ]
        );
        assert_eq!(sent[0].1.as_deref(), Some("importer"));
        assert_eq!(sent[0].2, "error");
        assert!(
            run(None).is_empty(),
            "a sink that wants nothing gets nothing"
        );
    }

    #[test]
    fn without_a_sink_logging_does_nothing() {
        let log = ClientLog::from_call_context(&CallContext::new()).unwrap();
        assert!(!log.enabled(LogLevel::Emergency));
    }

    #[test]
    fn levels_are_ordered_by_severity() {
        assert!(LogLevel::ALL.windows(2).all(|pair| pair[0] < pair[1]));
        assert_eq!(LogLevel::Warning.to_string(), "warning");
    }
}
