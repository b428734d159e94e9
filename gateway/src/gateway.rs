//! The gateway: its sources of tools, the catalog converted from them, the upstream, the store,
//! and what every request does first (inject the tools).

use std::collections::HashSet;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::{HeaderName, HeaderValue};
use axum::serve::ListenerExt;
use serde_json::{Map, Value};
use tokio::net::TcpListener;
use tooldef::{Target, ToolSet};

use crate::adhoc::Adhoc;
use crate::catalog::{Catalog, Injected, Source};
use crate::config::{Config, ConfigError, Mode, RequireApproval, ServerConfig};
use crate::discovery::{Discovery, SEARCH_TOOL};
use crate::error::ApiError;
use crate::mcp_tool::McpEntry;
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
        self.inner.catalog().for_target(target).tools.clone()
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
        let upstream =
            Upstream::new(&config.upstream, upstream_key).map_err(StartError::Upstream)?;
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

/// The tools of one request: what was injected, and the client's tools that won a name.
pub(crate) struct Injection {
    pub catalog: Arc<Catalog>,
    pub target: Target,
    /// Whether any tools were injected (not for `tool_choice: "none"`, nor without tools).
    pub active: bool,
    /// Injected names the client's own tools took.
    pub conflicts: Vec<String>,
    /// The injected tools this request gets when its `mcp` tools chose some; all otherwise.
    pub offered: Option<HashSet<String>>,
    /// Injected tools whose calls need approval: they go back to the client as its own calls.
    pub approval: HashSet<String>,
    /// The servers the request named by URL, connected for it.
    pub adhoc: Vec<Arc<Adhoc>>,
    /// When its tools are more than one request can carry: the pinned ones, and a search for
    /// the others.
    pub discovery: Option<Discovery>,
    /// The sources (by position) whose tools this request would get but which are down: their
    /// tools are not sent, and calls to them are answered "not running".
    pub down: Vec<usize>,
}

impl Injection {
    /// The injected tools for the request's API.
    pub fn injected(&self) -> &Injected {
        self.catalog.for_target(self.target)
    }

    /// Whether an injected tool is sent with this request: not displaced by a client's tool,
    /// and chosen by its `mcp` tools if it has any (a server it named by URL, all of whose
    /// admitted tools it gets, included).
    pub fn offers(&self, name: &str) -> bool {
        self.active && !self.conflicts.iter().any(|c| c == name) && self.chose(name)
    }

    /// Whether an injected tool is among those the request's `mcp` tools chose (all of them when
    /// it has none), whether or not it is sent this time.
    pub fn chose(&self, name: &str) -> bool {
        self.offered
            .as_ref()
            .is_none_or(|offered| offered.contains(name))
            || self.adhoc_route(name).is_some()
    }

    /// Whether a round's request carries the injected tool `name`: offered, and, when there
    /// are too many to send, pinned or found.
    pub fn sends(&self, name: &str) -> bool {
        self.offers(name)
            && !self.is_down(name)
            && self
                .discovery
                .as_ref()
                .is_none_or(|discovery| discovery.sends(name))
    }

    /// Whether an injected tool's server is down.
    fn is_down(&self, name: &str) -> bool {
        !self.down.is_empty()
            && self
                .injected()
                .routes
                .get(name)
                .is_some_and(|route| self.down.contains(&route.source))
    }

    /// The headers that tell the client what became of its request's tools: which of its own
    /// took an injected tool's name (`x-tooldef-conflicts`), and which servers were left out
    /// because they are down (`x-tooldef-servers-down`).
    pub fn headers(&self, sources: &[Source]) -> Vec<(HeaderName, HeaderValue)> {
        let down: Vec<&str> = self.down.iter().map(|&i| sources[i].name()).collect();
        [
            ("x-tooldef-conflicts", self.conflicts.join(", ")),
            ("x-tooldef-servers-down", down.join(", ")),
        ]
        .into_iter()
        .filter(|(_, value)| !value.is_empty())
        .filter_map(|(name, value)| {
            Some((
                HeaderName::from_static(name),
                HeaderValue::from_str(&value).ok()?,
            ))
        })
        .collect()
    }

    /// Whether a call goes to an injected tool the gateway runs without asking (the search
    /// tool included).
    pub fn is_injected(&self, name: &str) -> bool {
        (self.needs_approval(name) == Some(false) && self.offers(name))
            || (name == SEARCH_TOOL && self.discovery.is_some())
    }

    /// Whether a call goes to an injected tool offered to this request whose calls need approval.
    pub fn asks(&self, name: &str) -> bool {
        self.needs_approval(name) == Some(true) && self.offers(name)
    }

    /// For an injected tool, whether its calls need approval; `None` for any other name.
    fn needs_approval(&self, name: &str) -> Option<bool> {
        match self.adhoc_route(name) {
            Some((adhoc, _)) => Some(adhoc.approval.contains(name)),
            None if self.injected().routes.contains_key(name) => Some(self.approval.contains(name)),
            None => None,
        }
    }

    /// The server (its `server_label`: a configured source's name, or a request's own server's
    /// label) and the tool's own name that an injected name stands for.
    pub fn server_and_tool<'a>(
        &'a self,
        sources: &'a [Source],
        name: &str,
    ) -> Option<(&'a str, &'a str)> {
        if let Some((adhoc, route)) = self.adhoc_route(name) {
            return Some((&adhoc.label, &route.converted.original_name));
        }
        let route = self.injected().routes.get(name)?;
        Some((sources[route.source].name(), &route.converted.original_name))
    }

    /// The injected name of a server's tool, as [`Injection::server_and_tool`] reads it back.
    pub fn injected_name(&self, sources: &[Source], label: &str, tool: &str) -> Option<String> {
        let routes = std::iter::once(self.injected())
            .chain(self.adhoc.iter().map(|adhoc| &adhoc.injected))
            .flat_map(|injected| injected.routes.keys());
        routes
            .into_iter()
            .find(|name| self.server_and_tool(sources, name) == Some((label, tool)))
            .cloned()
    }

    /// The server named by URL that gives the injected tool `name`, and its route.
    pub fn adhoc_route(&self, name: &str) -> Option<(&Adhoc, &crate::catalog::Route)> {
        self.adhoc.iter().find_map(|adhoc| {
            adhoc
                .injected
                .routes
                .get(name)
                .map(|route| (&**adhoc, route))
        })
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
            ));
            tracing::info!(
                chat = catalog.chat.tools.len(),
                responses = catalog.responses.tools.len(),
                "injected tools converted"
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

    /// Connects the servers a request's `mcp` entries name by URL. Their labels become their
    /// tools' prefix, so a label must not be one of the gateway's own servers' names or prefixes.
    pub async fn connect_remotes(
        &self,
        entries: &[McpEntry],
        target: Target,
    ) -> Result<Vec<Arc<Adhoc>>, ApiError> {
        let mut connected = Vec::new();
        for entry in entries {
            let Some(remote) = &entry.remote else {
                continue;
            };
            if self
                .sources
                .iter()
                .any(|source| source.name() == entry.label || source.prefix() == entry.label)
            {
                return Err(ApiError::invalid(
                    format!(
                        "The `mcp` tool with `server_url` is labelled `{}`, which is the name of one of this gateway's own servers: give it another `server_label`.",
                        entry.label
                    ),
                    "invalid_mcp_tool",
                )
                .param("tools"));
            }
            connected.push(Arc::new(
                Adhoc::connect(&self.config, entry, remote, target).await?,
            ));
        }
        Ok(connected)
    }

    /// The injected tools a request's `mcp` entries choose (`None`: no entries, all of them), and
    /// those whose calls need approval: as the entry of its server says, or else as the server's
    /// configuration does.
    fn selection(
        &self,
        injected: &Injected,
        entries: &[McpEntry],
    ) -> (Option<HashSet<String>>, HashSet<String>) {
        // The common request: no entries, and no server that asks first. Nothing to walk.
        let asks = |source: &Source| match source {
            Source::Mcp(server) => server.config.require_approval == RequireApproval::Always,
            Source::Tools { .. } => false,
        };
        if entries.is_empty() && !self.sources.iter().any(asks) {
            return (None, HashSet::new());
        }
        let mut offered = HashSet::new();
        let mut approval = HashSet::new();
        for (name, route) in &injected.routes {
            let source = &self.sources[route.source];
            let original = route.converted.original_name.as_str();
            let entry = entries.iter().find(|entry| entry.label == source.name());
            if !entries.is_empty() {
                let chosen = entry.is_some_and(|entry| {
                    entry
                        .allowed
                        .as_ref()
                        .is_none_or(|allowed| allowed.admits(original, route.read_only))
                });
                if !chosen {
                    continue;
                }
                offered.insert(name.clone());
            }
            let required = match entry.and_then(|entry| entry.approval.as_ref()) {
                Some(approval) => approval.required(original),
                None => asks(source),
            };
            if required {
                approval.insert(name.clone());
            }
        }
        ((!entries.is_empty()).then_some(offered), approval)
    }

    /// Which injected tools a request gets (written after the client's own by
    /// [`Outgoing`](crate::body::Outgoing)): those of the servers its `mcp` tools name, as they
    /// filter them, or all when it has none; but not those whose names the client's tools take,
    /// and none for `tool_choice: "none"`; refuses more tools than the API takes.
    pub fn inject(
        &self,
        target: Target,
        request: &Map<String, Value>,
        entries: &[McpEntry],
        adhoc: Vec<Arc<Adhoc>>,
    ) -> Result<Injection, ApiError> {
        let catalog = self.catalog();
        for entry in entries.iter().filter(|entry| entry.remote.is_none()) {
            if !self
                .sources
                .iter()
                .any(|source| source.name() == entry.label)
            {
                let labels: Vec<&str> = self.sources.iter().map(Source::name).collect();
                return Err(ApiError::invalid(
                    format!(
                        "This gateway has no MCP server labelled `{}`: its servers are {}.",
                        entry.label,
                        labels.join(", ")
                    ),
                    "unknown_mcp_server",
                )
                .param("tools"));
            }
        }
        let (offered, approval) = self.selection(catalog.for_target(target), entries);
        let mut injection = Injection {
            catalog: catalog.clone(),
            target,
            active: false,
            conflicts: Vec::new(),
            offered,
            approval,
            adhoc,
            discovery: None,
            down: Vec::new(),
        };
        if request.get("tool_choice").and_then(Value::as_str) == Some("none") {
            return Ok(injection);
        }
        let injected = catalog.for_target(target);
        injection.down = self
            .sources
            .iter()
            .enumerate()
            .filter(|(_, source)| matches!(source, Source::Mcp(server) if !server.is_running()))
            .filter(|(_, source)| {
                entries.is_empty() || entries.iter().any(|entry| entry.label == source.name())
            })
            .map(|(i, _)| i)
            .collect();
        // Walked only when a server is down: the common request has none.
        let left_out = if injection.down.is_empty() {
            0
        } else {
            injected
                .routes
                .iter()
                .filter(|(name, _)| injection.is_down(name) && injection.chose(name))
                .count()
        };
        let offered = injection
            .offered
            .as_ref()
            .map_or(injected.tools.len(), HashSet::len)
            + injection
                .adhoc
                .iter()
                .map(|adhoc| adhoc.injected.names.len())
                .sum::<usize>()
            - left_out;
        if offered == 0 {
            return Ok(injection);
        }
        let client: &[Value] = match request.get("tools") {
            None | Some(Value::Null) => &[],
            Some(Value::Array(tools)) => tools,
            Some(_) => {
                return Err(
                    ApiError::invalid("`tools` must be an array.", "invalid_tools").param("tools"),
                );
            }
        };
        // The client's tools take their names: a Chat tool's `function.name`, a Responses
        // tool's `name`.
        let conflicts: Vec<String> = client
            .iter()
            .filter_map(|tool| {
                tool.get("function")
                    .and_then(|f| f.get("name"))
                    .or_else(|| tool.get("name"))
                    .and_then(Value::as_str)
            })
            .filter(|name| {
                (injected.routes.contains_key(*name)
                    && injection
                        .offered
                        .as_ref()
                        .is_none_or(|offered| offered.contains(*name)))
                    || injection.adhoc_route(name).is_some()
            })
            .map(str::to_owned)
            .collect();
        let total = client.len() + offered - conflicts.len();
        if !conflicts.is_empty() {
            tracing::warn!(
                tools = %conflicts.join(", "),
                "the client's own tools take these names: the injected ones are left out"
            );
        }
        injection.active = true;
        injection.conflicts = conflicts;
        let limit = match (target.max_tools(), self.config.max_tools) {
            (Some(api), Some(configured)) => Some(api.min(configured)),
            (api, configured) => api.or(configured),
        };
        if let Some(limit) = limit.filter(|limit| total > *limit) {
            injection.discovery = Some(self.discovery(&injection, client.len(), limit)?);
        }
        Ok(injection)
    }

    /// The search for a request whose tools are more than `limit`: its pinned tools are sent,
    /// with the search tool, and as many found ones as there is room for.
    fn discovery(
        &self,
        injection: &Injection,
        client: usize,
        limit: usize,
    ) -> Result<Discovery, ApiError> {
        let injected = std::iter::once(injection.injected())
            .chain(injection.adhoc.iter().map(|adhoc| &adhoc.injected));
        let mut pinned = std::collections::HashSet::new();
        let mut candidates = Vec::new();
        for injected in injected {
            for (name, tool) in injected.names.iter().zip(&injected.tools) {
                if !injection.offers(name) || injection.is_down(name) {
                    continue;
                }
                let server = injection
                    .server_and_tool(&self.sources, name)
                    .map(|(server, _)| server);
                let pin = self
                    .config
                    .pinned
                    .iter()
                    .any(|pin| pin == name || Some(pin.as_str()) == server);
                if pin {
                    pinned.insert(name.clone());
                } else {
                    candidates.push((name.clone(), tool.clone()));
                }
            }
        }
        // The client's tools, the pinned ones, the search tool, and at least one found.
        let fixed = client + pinned.len() + 1;
        if fixed >= limit {
            return Err(ApiError::invalid(
                format!(
                    "This request would carry {} tools ({client} of yours and {} injected by the \
                     gateway), more than the {limit} one request may carry; the gateway finds \
                     tools by search when there are too many, but your {client} and the {} it \
                     pins leave no room for the search. Send fewer tools, or pin fewer \
                     (`pinned` in the gateway's configuration).",
                    client + pinned.len() + candidates.len(),
                    pinned.len() + candidates.len(),
                    pinned.len(),
                ),
                "too_many_tools",
            )
            .param("tools"));
        }
        tracing::info!(
            pinned = pinned.len(),
            searchable = candidates.len(),
            limit,
            "more tools than a request carries: sending the pinned ones and the search tool"
        );
        Ok(Discovery::new(
            injection.target,
            pinned,
            candidates,
            limit - fixed,
        ))
    }

    /// Whether calls are executed here.
    pub fn executes(&self) -> bool {
        self.config.mode == Mode::Execute
    }
}
