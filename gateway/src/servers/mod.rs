//! The MCP servers a gateway injects tools from, each kept connected by its own supervisor: a
//! stdio server is started as a child process and started again, with backoff, whenever it
//! dies; a Streamable HTTP server is reconnected the same way. Their tools are listed on every
//! (re)connection and whenever the server says its list changed.

use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use rmcp::model::ClientConfig;
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, Peer, RoleClient, ServiceExt};
use serde_json::Value;
use tokio::io::AsyncBufReadExt;
use tokio::sync::oneshot;
use tokio::time::Instant;
use tooldef::ToolOutput;
use tooldef::calls::{Answer, call_mcp_with_meta};
use tooldef::convert::Converted;

use crate::config::ServerConfig;
use crate::oauth::{Authorizer, MemoryStore};
use crate::remote::{ConnectFailure, RemoteServer};

/// The first restart comes this soon after a death; each further one waits twice as long.
const FIRST_BACKOFF: Duration = Duration::from_millis(500);
/// The longest wait between two restarts.
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// A server that stayed up this long is healthy again: its next restart is quick.
const HEALTHY_AFTER: Duration = Duration::from_secs(60);
/// How long a server may take to start and list its tools (`npx` may download first).
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// Where a server is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Being started (or reconnected).
    Starting,
    /// Connected: calls go through.
    Running,
    /// Dead or unreachable; a restart is scheduled.
    Down,
}

impl Phase {
    fn as_str(self) -> &'static str {
        match self {
            Phase::Starting => "starting",
            Phase::Running => "running",
            Phase::Down => "down",
        }
    }
}

struct State {
    phase: Phase,
    peer: Option<Peer<RoleClient>>,
    /// The admitted tools as the server listed them. Kept while it is down, so that a call the
    /// model makes to one of them is answered "not running" rather than taken for a client's
    /// call; requests are not sent them meanwhile (see [`Server::is_running`]).
    tools: Arc<Vec<Value>>,
    restarts: u32,
    pid: Option<u32>,
    last_error: Option<String>,
}

/// One configured MCP server.
pub struct Server {
    /// Its name in the configuration.
    pub name: String,
    /// How it is reached and which tools it gives.
    pub config: ServerConfig,
    /// The longest a call may take.
    pub timeout: Duration,
    /// Turns for calls, when `max_concurrent_calls` bounds them.
    turns: Option<tokio::sync::Semaphore>,
    state: Mutex<State>,
    /// Bumped whenever any server's tools change, so the catalog knows to rebuild.
    generation: Arc<AtomicU64>,
    /// Its OAuth client (`oauth` in its configuration), made at the first start and kept across
    /// reconnections, so that tokens obtained or refreshed (a rotated refresh token above all)
    /// outlive a connection.
    authorizer: tokio::sync::OnceCell<Arc<Authorizer>>,
}

/// What a call to a tool gave: its whole output (each API takes what it can carry of it: the
/// Responses API images and PDFs, Chat Completions text) and whether it is an error.
pub struct CallOutcome {
    /// The tool's output, or the words that say why there is none.
    pub output: ToolOutput,
    /// The call failed; the output says why.
    pub is_error: bool,
}

impl CallOutcome {
    pub(crate) fn error(text: String) -> CallOutcome {
        CallOutcome {
            output: ToolOutput::text(text),
            is_error: true,
        }
    }

    /// A call that ran past its time limit (`name` as the model called it).
    pub(crate) fn abandoned(name: &str, limit: Duration) -> CallOutcome {
        CallOutcome::error(format!(
            "`{name}` did not finish within {} s and was abandoned.",
            limit.as_secs_f64()
        ))
    }

    /// The output in words (every content block; see `tooldef::ToolOutput::to_text`), for an
    /// API whose tool results are text.
    pub fn text(&self) -> String {
        self.output.to_text()
    }
}

impl Server {
    /// A server not started yet; [`start`](Self::start) starts its supervisor.
    pub fn new(
        name: String,
        config: ServerConfig,
        timeout: Duration,
        generation: Arc<AtomicU64>,
    ) -> Arc<Server> {
        let turns = config
            .max_concurrent_calls
            .map(|n| tokio::sync::Semaphore::new(n as usize));
        Arc::new(Server {
            name,
            config,
            timeout,
            turns,
            state: Mutex::new(State {
                phase: Phase::Starting,
                peer: None,
                tools: Arc::new(Vec::new()),
                restarts: 0,
                pid: None,
                last_error: None,
            }),
            generation,
            authorizer: tokio::sync::OnceCell::new(),
        })
    }

    /// Its OAuth client, made the first time (its secrets read from the environment then).
    async fn authorizer(&self, url: &str) -> Result<Option<Arc<Authorizer>>, String> {
        let Some(oauth) = &self.config.oauth else {
            return Ok(None);
        };
        let authorizer = self
            .authorizer
            .get_or_try_init(|| async {
                let (oauth, saved) = oauth.resolve(&self.name)?;
                Authorizer::new(url, oauth, Arc::new(MemoryStore::new(saved))).await
            })
            .await
            .map_err(|why| format!("its OAuth settings cannot be used: {why}"))?;
        Ok(Some(authorizer.clone()))
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while holding this lock leaves plain data behind: carry on with it.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The admitted tools, as last listed.
    pub fn tools(&self) -> Arc<Vec<Value>> {
        self.state().tools.clone()
    }

    /// Whether it is connected: its tools go into requests only then.
    pub fn is_running(&self) -> bool {
        self.state().phase == Phase::Running
    }

    /// Ends its process group, for a gateway that is stopping: SIGTERM, then SIGKILL for what is
    /// left after `grace`. A stdio server runs in a group of its own (`npx` starts `node`, a
    /// wrapper script its program), which dropping the connection alone would leave behind.
    pub async fn stop(&self, grace: Duration) {
        let pid = self.state().pid;
        if let Some(pid) = pid {
            signal_group(pid, Signal::Terminate);
            let deadline = Instant::now() + grace;
            while group_alive(pid) && Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            signal_group(pid, Signal::Kill);
            tracing::info!(server = %self.name, pid, "MCP server stopped");
        }
    }

    /// Its health, for `/healthz`.
    pub fn status(&self) -> Value {
        let state = self.state();
        serde_json::json!({
            "name": self.name,
            "transport": if self.config.url.is_some() { "http" } else { "stdio" },
            "state": state.phase.as_str(),
            "tools": state.tools.len(),
            "restarts": state.restarts,
            "pid": state.pid,
            "last_error": state.last_error,
        })
    }

    /// Starts the supervisor; the receiver fires once the first connection has succeeded or
    /// failed, so that a gateway can wait for its tools before it takes requests.
    pub fn start(self: &Arc<Self>) -> oneshot::Receiver<()> {
        let (ready, first) = oneshot::channel();
        tokio::spawn(supervise(Arc::downgrade(self), ready));
        first
    }

    /// Calls `converted` (one of this server's tools) as the model asked (`tooldef::calls::
    /// call_mcp`: the source's name, the arguments restored), within the server's time limit.
    pub async fn call(&self, converted: &Converted, arguments: &str) -> CallOutcome {
        let peer = {
            let state = self.state();
            match (&state.peer, state.phase) {
                (Some(peer), Phase::Running) => peer.clone(),
                _ => {
                    return CallOutcome::error(format!(
                        "The MCP server `{}` is not running (it is being restarted), so `{}` was \
                         not called. Try again in a moment, or answer without it.",
                        self.name,
                        converted.name()
                    ));
                }
            }
        };
        let turns = self.turns.as_ref().map(|turns| Turns {
            turns,
            server: &self.name,
            max: self.config.max_concurrent_calls.unwrap_or_default(),
        });
        call_peer(&peer, converted, arguments, self.timeout, turns).await
    }

    fn set_down(&self, why: String) {
        let mut state = self.state();
        let was_running = state.phase == Phase::Running;
        state.phase = Phase::Down;
        state.peer = None;
        if let Some(pid) = state.pid.take() {
            // What the server started may outlive it: its whole group goes with it.
            signal_group(pid, Signal::Kill);
        }
        tracing::warn!(
            server = %self.name,
            "MCP server down, its tools left out of requests until it is back: {why}"
        );
        state.last_error = Some(why);
        if was_running {
            // The requests' tools change: without this server's.
            self.generation.fetch_add(1, Ordering::Release);
        }
    }

    fn set_tools(&self, tools: Vec<Value>) {
        let tools: Vec<Value> = tools
            .into_iter()
            .filter(|tool| {
                tool.get("name")
                    .and_then(Value::as_str)
                    .is_some_and(|name| self.config.admits(name))
            })
            .collect();
        let mut state = self.state();
        if *state.tools != tools {
            state.tools = Arc::new(tools);
            self.generation.fetch_add(1, Ordering::Release);
        }
    }
}

/// The client side of one connection: says who we are, and re-lists the tools when the server
/// says they changed.
struct Client {
    server: Weak<Server>,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        info.client_info.name = "tooldef-gateway".to_owned();
        info.client_info.version = env!("CARGO_PKG_VERSION").to_owned();
        info
    }

    async fn on_tool_list_changed(&self, context: NotificationContext<RoleClient>) {
        let Some(server) = self.server.upgrade() else {
            return;
        };
        match tokio::time::timeout(START_TIMEOUT, context.peer.list_all_tools()).await {
            Ok(Ok(tools)) => {
                tracing::info!(server = %server.name, count = tools.len(), "tools changed");
                server.set_tools(to_json(tools));
            }
            Ok(Err(err)) => tracing::warn!(server = %server.name, "re-listing tools failed: {err}"),
            Err(_) => tracing::warn!(server = %server.name, "re-listing tools timed out"),
        }
    }
}

fn to_json(tools: Vec<rmcp::model::Tool>) -> Vec<Value> {
    tools
        .into_iter()
        .filter_map(|tool| serde_json::to_value(tool).ok())
        .collect()
}

/// Keeps one server connected until the gateway is dropped.
async fn supervise(server: Weak<Server>, ready: oneshot::Sender<()>) {
    let mut ready = Some(ready);
    let mut backoff = FIRST_BACKOFF;
    loop {
        let Some(strong) = server.upgrade() else {
            return;
        };
        strong.state().phase = Phase::Starting;
        let connected = connect(&strong).await;
        match connected {
            Ok((running, pid)) => {
                let listed = tokio::time::timeout(
                    START_TIMEOUT,
                    running.peer().list_all_tools_with_cache_hint(),
                )
                .await;
                match listed {
                    Ok(Ok(listed)) => {
                        let tools = listed.items;
                        tracing::info!(server = %strong.name, count = tools.len(), pid, ttl_ms = listed.ttl_ms, "MCP server running");
                        strong.set_tools(to_json(tools));
                        if let Some(ttl) = listed.ttl_ms {
                            tokio::spawn(relist_when_stale(
                                Arc::downgrade(&strong),
                                running.peer().clone(),
                                ttl,
                            ));
                        }
                        {
                            let mut state = strong.state();
                            state.phase = Phase::Running;
                            state.peer = Some(running.peer().clone());
                            state.pid = pid;
                            state.last_error = None;
                        }
                        // The requests' tools change: with this server's again.
                        strong.generation.fetch_add(1, Ordering::Release);
                        if let Some(ready) = ready.take() {
                            let _ = ready.send(());
                        }
                        let up = Instant::now();
                        drop(strong);
                        let why = match running.waiting().await {
                            Ok(reason) => format!("the connection ended ({reason:?})"),
                            Err(err) => format!("the connection failed: {err}"),
                        };
                        let Some(strong) = server.upgrade() else {
                            return;
                        };
                        strong.set_down(why);
                        if up.elapsed() >= HEALTHY_AFTER {
                            backoff = FIRST_BACKOFF;
                        }
                    }
                    Ok(Err(err)) => strong.set_down(format!("listing its tools failed: {err}")),
                    Err(_) => strong.set_down(format!(
                        "it did not list its tools within {} s",
                        START_TIMEOUT.as_secs()
                    )),
                }
            }
            Err(why) => strong.set_down(why),
        }
        if let Some(ready) = ready.take() {
            let _ = ready.send(());
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(MAX_BACKOFF);
        match server.upgrade() {
            Some(strong) => strong.state().restarts += 1,
            None => return,
        }
    }
}

/// A signal for a server's process group.
#[derive(Clone, Copy)]
enum Signal {
    Terminate,
    Kill,
}

/// Sends `signal` to the process group `pid` leads (nothing if it is gone).
fn signal_group(pid: u32, signal: Signal) {
    #[cfg(unix)]
    if let Ok(pid) = libc::pid_t::try_from(pid) {
        let signal = match signal {
            Signal::Terminate => libc::SIGTERM,
            Signal::Kill => libc::SIGKILL,
        };
        // SAFETY: `killpg` only sends a signal; a group that no longer exists is an error
        // (ESRCH) we have nothing to do about.
        unsafe {
            libc::killpg(pid, signal);
        }
    }
    #[cfg(not(unix))]
    let _ = (pid, signal);
}

/// Whether any process of the group `pid` leads is left.
fn group_alive(pid: u32) -> bool {
    #[cfg(unix)]
    {
        libc::pid_t::try_from(pid).is_ok_and(|pid| {
            // SAFETY: signal 0 sends nothing; it only asks whether the group exists.
            unsafe { libc::killpg(pid, 0) == 0 }
        })
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        false
    }
}

/// The shortest a server's tool list is kept before it is listed again, whatever its `ttlMs`
/// says: a server that says 0 ("stale at once") is not listed in a loop.
const MIN_RELIST: Duration = Duration::from_secs(1);

/// Lists a server's tools again each time the last listing's `ttlMs` (MCP 2026-07-28: how long
/// the list may be treated as fresh) runs out, for as long as this connection lasts and the
/// server keeps saying one. Servers that announce `notifications/tools/list_changed` are also
/// re-listed then (`Client::on_tool_list_changed`); this is for those that only give a lifetime.
async fn relist_when_stale(server: Weak<Server>, peer: Peer<RoleClient>, mut ttl_ms: u64) {
    loop {
        tokio::time::sleep(Duration::from_millis(ttl_ms).max(MIN_RELIST)).await;
        let Some(strong) = server.upgrade() else {
            return;
        };
        if peer.is_transport_closed() {
            return;
        }
        match tokio::time::timeout(START_TIMEOUT, peer.list_all_tools_with_cache_hint()).await {
            Ok(Ok(listed)) => {
                tracing::debug!(server = %strong.name, count = listed.items.len(), "tools listed again: their ttlMs ran out");
                strong.set_tools(to_json(listed.items));
                match listed.ttl_ms {
                    Some(next) => ttl_ms = next,
                    None => return,
                }
            }
            // The connection's end is the supervisor's to notice; a failed listing keeps the last.
            Ok(Err(err)) => {
                tracing::warn!(server = %strong.name, "listing the tools again failed: {err}");
                return;
            }
            Err(_) => {
                tracing::warn!(server = %strong.name, "listing the tools again timed out");
                return;
            }
        }
    }
}

/// A server's bound on the calls running at once, and what to say of it.
pub(crate) struct Turns<'a> {
    turns: &'a tokio::sync::Semaphore,
    server: &'a str,
    max: u32,
}

/// Calls `converted` on `peer` (`tooldef::calls::call_mcp_with_meta`: the source's name, the
/// arguments restored, the trace context in `_meta`) once it has a turn, all within `limit`;
/// every way it can end is an outcome.
pub(crate) async fn call_peer(
    peer: &Peer<RoleClient>,
    converted: &Converted,
    arguments: &str,
    limit: Duration,
    turns: Option<Turns<'_>>,
) -> CallOutcome {
    let call = call_mcp_with_meta(peer, converted, arguments, crate::telemetry::mcp_meta());
    let ran = in_turn(turns.as_ref().map(|t| t.turns), limit, call).await;
    if ran.is_err() {
        crate::telemetry::timed_out();
    }
    match ran {
        Ok(Answer::Answered {
            output, is_error, ..
        }) => CallOutcome { output, is_error },
        // `call_mcp` answers every call itself.
        Ok(Answer::Caller) => CallOutcome::error(format!(
            "`{}` was handed back unanswered.",
            converted.name()
        )),
        Err(Late::Waiting) => {
            let (server, max) = turns.map_or(("", 0), |t| (t.server, t.max));
            CallOutcome::error(format!(
                "`{}` did not get its turn within {} s: the MCP server `{server}` runs at most \
                 {max} calls at once, and they were all busy. Try again later, or answer without it.",
                converted.name(),
                limit.as_secs_f64(),
            ))
        }
        Err(Late::Running) => CallOutcome::abandoned(converted.name(), limit),
    }
}

/// Why a call ran out of time.
#[derive(Debug, PartialEq, Eq)]
enum Late {
    /// Still waiting for a turn (`max_concurrent_calls` were all busy).
    Waiting,
    /// Running.
    Running,
}

/// Runs `call` once one of `turns` is free (when they bound the calls), waiting and running
/// within `limit` together, so that no request waits longer than its calls' time limit.
async fn in_turn<T>(
    turns: Option<&tokio::sync::Semaphore>,
    limit: Duration,
    call: impl std::future::Future<Output = T>,
) -> Result<T, Late> {
    let deadline = tokio::time::Instant::now() + limit;
    let _turn = match turns {
        Some(turns) => match tokio::time::timeout_at(deadline, turns.acquire()).await {
            Ok(turn) => Some(turn),
            Err(_) => return Err(Late::Waiting),
        },
        None => None,
    };
    tokio::time::timeout_at(deadline, call)
        .await
        .map_err(|_| Late::Running)
}

type Running = RunningService<RoleClient, Client>;

/// One connection attempt: the running client and, for a child process, its pid.
async fn connect(server: &Arc<Server>) -> Result<(Running, Option<u32>), String> {
    let client = Client {
        server: Arc::downgrade(server),
    };
    let config = &server.config;
    if let Some(url) = &config.url {
        let mut remote = RemoteServer::new(url)?;
        for line in config.expanded_headers()? {
            remote = remote.header(&line)?;
        }
        if let Some(var) = &config.bearer_token_env {
            let token = std::env::var(var)
                .map_err(|_| format!("the environment variable `{var}` is not set"))?;
            remote = remote.bearer_token(token)?;
        }
        if let Some(authorizer) = server.authorizer(url).await? {
            remote = remote.oauth(authorizer)?;
        }
        let running = tokio::time::timeout(START_TIMEOUT, client.serve(remote.transport()))
            .await
            .map_err(|_| format!("`{url}` did not answer `initialize` in time"))?
            .map_err(|err| {
                let why = ConnectFailure::of_start(&err)
                    .map_or_else(|| err.to_string(), |f| f.to_string());
                format!("`{url}` did not start an MCP session: {why}")
            })?;
        return Ok((running, None));
    }
    let program = config.command.as_deref().unwrap_or_default();
    let mut command = tokio::process::Command::new(program);
    command
        .args(&config.args)
        .envs(config.expanded_env()?)
        .kill_on_drop(true);
    // A group of its own: what it starts ends with it (`Server::stop`, `set_down`), and a
    // Ctrl-C in the gateway's terminal reaches the gateway, which stops it in order.
    #[cfg(unix)]
    command.process_group(0);
    if let Some(cwd) = &config.cwd {
        command.current_dir(cwd);
    }
    let (transport, stderr) = TokioChildProcess::builder(command)
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|err| format!("cannot start `{program}`: {err}"))?;
    let pid = transport.id();
    if let Some(stderr) = stderr {
        // Its log, line by line, under its name; never mixed into the protocol.
        let name = server.name.clone();
        tokio::spawn(async move {
            let mut lines = tokio::io::BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                tracing::info!(server = %name, "{line}");
            }
        });
    }
    let running = tokio::time::timeout(START_TIMEOUT, client.serve(transport))
        .await
        .map_err(|_| format!("`{program}` did not answer `initialize` in time"))?
        .map_err(|err| format!("`{program}` did not start as an MCP server: {err}"))?;
    Ok((running, pid))
}

#[cfg(test)]
mod tests;
