//! The gateway: its sources of tools, the catalog converted from them, the upstream, the store,
//! and what every request does first (inject the tools).

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::serve::ListenerExt;
use serde_json::Value;
use tokio::net::TcpListener;
use tooldef::{Target, ToolSet};

use crate::catalog::{Catalog, Source};
use crate::config::{Config, ConfigError, Mode, ServerConfig};
use crate::servers::Server;
use crate::store::Store;
use crate::upstream::Upstream;

/// How long the streams cut at the shutdown's deadline have to write their last event.
const FLUSH_AFTER_DEADLINE: Duration = Duration::from_secs(2);
/// How long an MCP server has to end after SIGTERM before its group is killed.
const SERVER_STOP_GRACE: Duration = Duration::from_secs(3);

/// How many keys the store keeps at most in memory.
const STORE_CAPACITY: usize = 100_000;

/// A running gateway: MCP servers connected and supervised, ready to serve.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use tooldef_gateway::{Gateway, ServerConfig};
///
/// let gateway = Gateway::builder("https://api.openai.com/v1")
///     .server("git", ServerConfig::stdio("uvx", ["mcp-server-git".to_owned()]))
///     .start()
///     .await?;
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
/// gateway.serve(listener).await?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Gateway {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub config: Config,
    pub sources: Vec<Source>,
    generation: Arc<AtomicU64>,
    catalog: Mutex<Arc<Catalog>>,
    pub upstream: Upstream,
    pub store: Store,
    /// The key clients must present.
    pub key: Option<String>,
    /// Becomes `true` when the grace a stopping gateway gives its conversations is over.
    pub shutdown: tokio::sync::watch::Sender<bool>,
    /// Its metrics, and what its spans record.
    pub telemetry: crate::telemetry::Telemetry,
}

impl Inner {
    /// Resolves once a stopping gateway's grace is over: streams still running end then.
    pub async fn deadline(&self) {
        let mut passed = self.shutdown.subscribe();
        let _ = passed.wait_for(|passed| *passed).await;
    }
}

/// Builds a [`Gateway`].
pub struct GatewayBuilder {
    config: Config,
    toolsets: Vec<(String, String, ToolSet)>,
    key: Option<String>,
    upstream_key: Option<String>,
}

/// Why a gateway could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The configuration cannot run.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// An environment variable the configuration names is not set.
    #[error("the environment variable `{0}` ({1}) is not set")]
    MissingEnv(String, &'static str),
    /// The upstream client could not be made.
    #[error("{0}")]
    Upstream(String),
    /// The store could not be made (a Redis that cannot be reached is not this: it is
    /// connected when a request needs it).
    #[error("{0}")]
    Store(String),
}

impl Gateway {
    /// A builder forwarding to `upstream` (an OpenAI-compatible base URL with its version
    /// path, e.g. `https://api.openai.com/v1`).
    pub fn builder(upstream: impl Into<String>) -> GatewayBuilder {
        GatewayBuilder::from_config(Config::new(upstream))
    }

    /// The router serving the gateway's endpoints, to serve or to nest in an application.
    pub fn router(&self) -> axum::Router {
        crate::app::router(self.inner.clone())
    }

    /// Serves on `listener` until the process is asked to stop (Ctrl-C or SIGTERM). Then it
    /// takes no new connections, and the conversations in flight have `shutdown_grace_secs` to
    /// finish: streams still running after that end with an error event, requests still waiting
    /// for their answer are cut, and the MCP servers' process groups are ended.
    pub async fn serve(self, listener: TcpListener) -> std::io::Result<()> {
        // Streamed events are small: they must not wait for the client's delayed ACK.
        let listener = listener.tap_io(|tcp| {
            if let Err(err) = tcp.set_nodelay(true) {
                tracing::debug!("TCP_NODELAY not set: {err}");
            }
        });
        let grace = Duration::from_secs(self.inner.config.shutdown_grace_secs);
        let (asked, stopping) = tokio::sync::oneshot::channel::<()>();
        let server = axum::serve(listener, self.router()).with_graceful_shutdown(async move {
            shutdown_signal().await;
            tracing::info!(
                grace_secs = grace.as_secs(),
                "stopping: no new requests; the conversations in flight may finish"
            );
            let _ = asked.send(());
        });
        let inner = self.inner.clone();
        let deadline = async move {
            if stopping.await.is_err() {
                return std::future::pending().await;
            }
            tokio::time::sleep(grace).await;
            tracing::warn!("the shutdown's grace is over: ending the streams still running");
            inner.shutdown.send_replace(true);
            // Time for those streams' last events to be written.
            tokio::time::sleep(FLUSH_AFTER_DEADLINE).await;
        };
        let served = tokio::select! {
            served = server.into_future() => served,
            () = deadline => Ok(()),
        };
        let stops = self.inner.sources.iter().filter_map(|source| match source {
            Source::Mcp(server) => Some(server.stop(SERVER_STOP_GRACE)),
            Source::Tools { .. } => None,
        });
        futures_util::future::join_all(stops).await;
        served
    }

    /// The tools injected for `target` (Chat Completions or Responses), in their wire form.
    pub fn tools(&self, target: Target) -> Vec<Value> {
        self.inner.catalog().for_target(target).listing()
    }

    /// Each MCP server's health: name, transport, state, tools, restarts, pid.
    pub fn servers(&self) -> Vec<Value> {
        self.inner.server_statuses()
    }

    /// Where it listens by its configuration.
    pub fn listen_address(&self) -> SocketAddr {
        self.inner.config.listen
    }
}

impl GatewayBuilder {
    /// A builder for `config`; keys named by `key_env` and `upstream_key_env` are read when it
    /// starts.
    pub fn from_config(config: Config) -> GatewayBuilder {
        GatewayBuilder {
            config,
            toolsets: Vec::new(),
            key: None,
            upstream_key: None,
        }
    }

    /// An MCP server, whose tools are injected as `NAME{separator}TOOL`.
    #[must_use]
    pub fn server(mut self, name: impl Into<String>, server: ServerConfig) -> Self {
        self.config.servers.insert(name.into(), server);
        self
    }

    /// Rust tools, injected as `NAME{separator}TOOL` (as `TOOL` when `name` is empty) and run
    /// in this process.
    #[must_use]
    pub fn toolset(mut self, name: impl Into<String>, tools: ToolSet) -> Self {
        let name = name.into();
        self.toolsets.push((name.clone(), name, tools));
        self
    }

    /// Execute injected calls (the default) or hand them to the client.
    #[must_use]
    pub fn mode(mut self, mode: Mode) -> Self {
        self.config.mode = mode;
        self
    }

    /// The most upstream requests per client request (at least 2).
    #[must_use]
    pub fn max_rounds(mut self, rounds: u32) -> Self {
        self.config.max_rounds = rounds;
        self
    }

    /// The most injected tool calls one client request may run (no bound by default).
    #[must_use]
    pub fn max_tool_calls(mut self, calls: u32) -> Self {
        self.config.max_tool_calls = Some(calls);
        self
    }

    /// How long a tool call may take unless its server says otherwise.
    #[must_use]
    pub fn tool_timeout(mut self, timeout: Duration) -> Self {
        self.config.tool_timeout_secs = timeout.as_secs().max(1);
        self
    }

    /// Between a prefix and a tool's name (`__` by default).
    #[must_use]
    pub fn separator(mut self, separator: impl Into<String>) -> Self {
        self.config.separator = separator.into();
        self
    }

    /// The key clients must present in `X-Tooldef-Key`.
    #[must_use]
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }

    /// The key sent upstream when a client sends no `Authorization` of its own.
    #[must_use]
    pub fn upstream_key(mut self, key: impl Into<String>) -> Self {
        self.upstream_key = Some(key.into());
        self
    }

    /// Starts the MCP servers and waits until each has listed its tools or failed to start
    /// (a failed one keeps being retried in the background).
    pub async fn start(self) -> Result<Gateway, StartError> {
        let GatewayBuilder {
            config,
            toolsets,
            key,
            upstream_key,
        } = self;
        config.check()?;
        if config.max_rounds < 2 {
            return Err(ConfigError::Invalid(
                "`max_rounds` must be at least 2: one round in which the model calls tools, one in which it answers".to_owned(),
            )
            .into());
        }
        let key = match (key, &config.key_env) {
            (Some(key), _) => Some(key),
            (None, Some(var)) => Some(
                std::env::var(var)
                    .map_err(|_| StartError::MissingEnv(var.clone(), "the gateway's key"))?,
            ),
            (None, None) => None,
        };
        let upstream_key = match (upstream_key, &config.upstream_key_env) {
            (Some(key), _) => Some(key),
            (None, Some(var)) => Some(
                std::env::var(var)
                    .map_err(|_| StartError::MissingEnv(var.clone(), "the upstream's key"))?,
            ),
            (None, None) => None,
        };
        let upstream = Upstream::new(&config.upstream, upstream_key, &config.upstream_apis)
            .map_err(StartError::Upstream)?;
        let generation = Arc::new(AtomicU64::new(1));
        let mut sources = Vec::new();
        let mut waiting = Vec::new();
        for (name, server) in &config.servers {
            let server = Server::new(
                name.clone(),
                server.clone(),
                config.tool_timeout(server),
                generation.clone(),
            );
            waiting.push(server.start());
            sources.push(Source::Mcp(server));
        }
        for (name, prefix, set) in toolsets {
            let listed = set
                .list(Target::Mcp)
                .map(|tools| tools.to_vec())
                .unwrap_or_else(|err| {
                    tracing::error!(toolset = %name, "its tools cannot be listed: {err}");
                    Vec::new()
                });
            sources.push(Source::Tools {
                name,
                prefix,
                set,
                listed: Arc::new(listed),
            });
        }
        for first in waiting {
            let _ = first.await;
        }
        let store = Store::open(&config, STORE_CAPACITY).map_err(StartError::Store)?;
        store.probe().await;
        let catalog = Catalog::build(
            &sources,
            &config.separator,
            generation.load(Ordering::Acquire),
            config.tool_grouping == crate::config::ToolGrouping::Namespace,
        );
        let inner = Inner {
            telemetry: crate::telemetry::Telemetry::new(config.trace_content),
            config,
            sources,
            generation,
            catalog: Mutex::new(Arc::new(catalog)),
            upstream,
            store,
            key,
            shutdown: tokio::sync::watch::Sender::new(false),
        };
        Ok(Gateway {
            inner: Arc::new(inner),
        })
    }
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
}

impl Inner {
    /// The catalog for the sources' current tools, rebuilt if any changed since.
    pub fn catalog(&self) -> Arc<Catalog> {
        let generation = self.generation.load(Ordering::Acquire);
        let mut catalog = self.catalog.lock().unwrap_or_else(|e| e.into_inner());
        if catalog.generation != generation {
            *catalog = Arc::new(Catalog::build(
                &self.sources,
                &self.config.separator,
                generation,
                self.config.tool_grouping == crate::config::ToolGrouping::Namespace,
            ));
            tracing::info!(
                generation,
                "the catalog is rebuilt from the sources' new tools"
            );
        }
        catalog.clone()
    }

    pub fn server_statuses(&self) -> Vec<Value> {
        self.sources
            .iter()
            .filter_map(|source| match source {
                Source::Mcp(server) => Some(server.status()),
                Source::Tools { .. } => None,
            })
            .collect()
    }

    /// Whether calls are executed here.
    pub fn executes(&self) -> bool {
        self.config.mode == Mode::Execute
    }
}
