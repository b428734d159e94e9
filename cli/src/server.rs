//! An MCP server driven with rmcp's client, started as a child process over stdio or reached
//! over Streamable HTTP (`--url`): what `tooldef list` and `tooldef call` share (start or
//! connect, list all tools, call, shut down).

use std::future::Future;
use std::process::Stdio;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientRequest, CustomRequest, CustomResult, ServerResult,
};
use rmcp::service::{ClientInitializeError, RunningService, ServiceError};
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Map, Value, json};
use tokio::time::Instant;
use tooldef_gateway::oauth::UserTime;
use tooldef_gateway::{ConnectFailure, RemoteServer};

use crate::args::{BEARER_TOKEN_ENV, ServerArgs, ServerStderr};
use crate::elicit::{Answer, Client};
use crate::failure::Failure;
use crate::group::{ProcessGroup, stop_signal};
use crate::listing::{Limits, Pages};
use crate::output;

/// How long a server that exited is given for what it wrote before to be read: past it, the
/// pipe is known to be held open by a process it started.
const AFTER_EXIT: Duration = Duration::from_millis(500);

/// How long ending an HTTP session (rmcp's `DELETE`) may take before it is given up.
const HTTP_SHUTDOWN: Duration = Duration::from_secs(5);

/// The single-threaded runtime a command drives its server with.
pub fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|err| Failure::input(format!("cannot start the async runtime: {err}")))
}

/// The command as the user typed it, for messages.
pub fn shown(command: &[String]) -> String {
    command.join(" ")
}

/// A connected server. Dropping it kills the child and its process group;
/// [`shutdown`](Self::shutdown) ends them politely.
pub struct Server {
    client: RunningService<RoleClient, Client>,
    /// The server's process group, ended after the server; none for a server over HTTP.
    group: Option<ProcessGroup>,
    /// The command or URL, for messages.
    shown: String,
    /// `--timeout`, for messages.
    timeout_secs: u64,
    /// How far `tools/list` is followed.
    limits: Limits,
    /// Whether progress lines go to stderr (`call --quiet` leaves them out).
    progress: bool,
    /// The time spent signing in (OAuth), which the deadlines leave out.
    user_time: Option<UserTime>,
}

/// How waiting for a server's answer ended.
enum Waited<T> {
    Answered(T),
    TimedOut,
    /// The server exited and its stdout stayed open: how it exited.
    Exited(String),
    /// This process was asked to stop, by this signal; whether the server is one over HTTP
    /// (which goes on running: only the session is ended).
    Stopped {
        signal: i32,
        remote: bool,
    },
}

/// Resolves at `deadline`, pushed back by the time spent signing in (`user`): a person in a
/// browser is not a server that does not answer.
async fn expired(deadline: Instant, user: Option<&UserTime>) {
    let Some(user) = user else {
        return tokio::time::sleep_until(deadline).await;
    };
    loop {
        let (spent, signing_in) = user.spent();
        if signing_in {
            user.changed().await;
            continue;
        }
        tokio::select! {
            () = tokio::time::sleep_until(deadline + spent) => {
                // A sign-in may have started and ended meanwhile: the deadline moved.
                if user.spent() == (spent, false) {
                    return;
                }
            }
            () = user.changed() => {}
        }
    }
}

/// Waits for `answer` until `deadline` (leaving out the time spent signing in), the server's
/// exit with its stdout held open by a process it started (rmcp, reading that pipe, would wait
/// for ever), or this process's being asked to stop.
async fn wait_for<T>(
    group: Option<&ProcessGroup>,
    deadline: Instant,
    user: Option<&UserTime>,
    answer: impl Future<Output = T>,
) -> Waited<T> {
    let exited = async {
        let Some(group) = group else {
            // Over HTTP there is no process to watch: the deadline bounds the wait.
            return std::future::pending().await;
        };
        let how = group.leader_exit().await;
        // A server that exits just after answering: its answer may still be in the pipe. When
        // nothing else holds the pipe, rmcp sees its end well within this too.
        tokio::time::sleep(AFTER_EXIT).await;
        how
    };
    tokio::select! {
        biased;
        answered = answer => Waited::Answered(answered),
        () = expired(deadline, user) => Waited::TimedOut,
        how = exited => Waited::Exited(how),
        signal = stop_signal() => Waited::Stopped { signal, remote: group.is_none() },
    }
}

impl<A> Waited<Result<A, Failure>> {
    /// The answer, or the failure of `shown` not giving `what` (`initialize`, say) within
    /// `timeout` seconds.
    fn answer(self, shown: &str, what: &str, timeout: u64) -> Result<A, Failure> {
        match self {
            Waited::Answered(answered) => answered,
            Waited::TimedOut => Err(Failure::input(format!(
                "`{shown}` did not answer {what} within {timeout} s (--timeout)"
            ))),
            Waited::Exited(how) => Err(Failure::input(format!(
                "`{shown}` {how} before answering {what}, leaving a process it started \
                 holding its stdout open; that process was ended too"
            ))),
            Waited::Stopped { signal, remote } => Err(Failure::stopped(
                signal,
                &if remote {
                    format!("the session with `{shown}` was ended")
                } else {
                    format!("`{shown}` was shut down")
                },
            )),
        }
    }
}

impl Server {
    /// Starts the server (`-- COMMAND`) or connects to it (`--url`) and initialises an MCP
    /// session with it by `deadline`; progress lines go to stderr unless `progress` is false.
    /// Questions from the server are answered as `answer` says.
    pub async fn start(
        args: &ServerArgs,
        answer: Answer,
        deadline: Instant,
        progress: bool,
    ) -> Result<Server, Failure> {
        let client = Client::new(answer);
        match &args.url {
            Some(url) => Server::connect(args, client, url, deadline, progress).await,
            None => Server::spawn(args, client, deadline, progress).await,
        }
    }

    /// Starts `command` (program and arguments) in a process group of its own and initialises
    /// an MCP session with it by `deadline`.
    async fn spawn(
        args: &ServerArgs,
        client: Client,
        deadline: Instant,
        progress: bool,
    ) -> Result<Server, Failure> {
        let (command, stderr, timeout_secs) = (&args.command, args.server_stderr, args.timeout);
        let Some((program, arguments)) = command.split_first() else {
            return Err(Failure::input("no server command given after `--`"));
        };
        let shown = shown(command);
        let mut child = tokio::process::Command::new(program);
        // Killed if this process gives up on it (a timeout, an error) before shutting it down;
        // its own group, so that what it starts is ended with it (`ProcessGroup`).
        child.args(arguments).kill_on_drop(true).process_group(0);
        let stderr = match stderr {
            ServerStderr::Inherit => Stdio::inherit(),
            ServerStderr::Discard => Stdio::null(),
        };
        let (transport, _) = TokioChildProcess::builder(child)
            .stderr(stderr)
            .spawn()
            .map_err(|err| {
                Failure::input(format!(
                    "cannot start `{shown}`: {}",
                    crate::input::io_reason(&err)
                ))
            })?;
        let pid = transport.id();
        // Without a pid the child has already been reaped: there is no group left to end.
        let group = pid.and_then(ProcessGroup::led_by);
        if progress {
            output::stderr_line(&format!(
                "tooldef: started `{shown}`{}; initialising",
                pid.map(|pid| format!(" (pid {pid})")).unwrap_or_default()
            ));
        }
        let Some(group) = group else {
            return Err(Failure::input(format!(
                "`{shown}` did not start as an MCP server: it exited at once"
            )));
        };
        let initialised = async {
            client.serve(transport).await.map_err(|err| {
                Failure::input(format!("`{shown}` did not start as an MCP server: {err}"))
            })
        };
        let client = match wait_for(Some(&group), deadline, None, initialised)
            .await
            .answer(&shown, "`initialize`", timeout_secs)
        {
            Ok(client) => client,
            Err(failure) => {
                group.end().await;
                return Err(failure);
            }
        };
        Ok(Server::connected(
            client,
            Some(group),
            shown,
            args,
            None,
            progress,
        ))
    }

    /// Initialises an MCP session with the server at `url` over Streamable HTTP by `deadline`.
    async fn connect(
        args: &ServerArgs,
        client: Client,
        url: &str,
        deadline: Instant,
        progress: bool,
    ) -> Result<Server, Failure> {
        let mut remote =
            RemoteServer::new(url).map_err(|why| Failure::input(format!("--url: {why}")))?;
        for header in &args.headers {
            remote = remote
                .header(header)
                .map_err(|why| Failure::input(format!("--header: {why}")))?;
        }
        let token = args.bearer_token();
        if let Some(token) = &token {
            remote = remote
                .bearer_token(token.clone())
                .map_err(|why| Failure::input(format!("--bearer-token: {why}")))?;
        }
        let authorizer = crate::auth::authorizer(args, url).await?;
        let user_time = authorizer.as_ref().map(|a| a.user_time());
        if let Some(authorizer) = authorizer {
            remote = remote
                .oauth(authorizer)
                .map_err(|why| Failure::input(format!("--url: {why}")))?;
        }
        if progress {
            output::stderr_line(&format!("tooldef: connecting to {url}; initialising"));
        }
        let initialised = async {
            client
                .serve(remote.transport())
                .await
                .map_err(|err| Failure::input(not_started(url, &err, token.is_some())))
        };
        let client = wait_for(None, deadline, user_time.as_ref(), initialised)
            .await
            .answer(url, "`initialize`", args.timeout)?;
        Ok(Server::connected(
            client,
            None,
            url.to_owned(),
            args,
            user_time,
            progress,
        ))
    }

    /// The server once its session is initialised; says so on stderr (with `progress`).
    fn connected(
        client: RunningService<RoleClient, Client>,
        group: Option<ProcessGroup>,
        shown: String,
        args: &ServerArgs,
        user_time: Option<UserTime>,
        progress: bool,
    ) -> Server {
        let server = client
            .peer_info()
            .and_then(|info| info.server_info.clone())
            .map_or_else(
                || "the server".to_owned(),
                |server| format!("{} {}", server.name, server.version),
            );
        if progress {
            output::stderr_line(&format!(
                "tooldef: connected to {server}; listing its tools"
            ));
        }
        Server {
            client,
            group,
            shown,
            timeout_secs: args.timeout,
            limits: args.limits(),
            progress,
            user_time,
        }
    }

    /// The command as the user typed it, or the URL.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// All the server's tools (following pagination within `--max-pages`, `--max-tools` and
    /// `--max-list-mib`) by `deadline`, as a JSON array of the tools as the server sent them.
    pub async fn list_tools(&self, deadline: Instant) -> Result<Value, Failure> {
        let shown = &self.shown;
        let listing = async {
            let mut pages = Pages::new(self.limits);
            let mut cursor = None;
            loop {
                let page = pages.next_number();
                let result = self.list_page(cursor.take()).await.map_err(|err| {
                    Failure::input(format!(
                        "`{shown}` did not list its tools (page {page} of `tools/list`): {}",
                        request_failure(&err)
                    ))
                })?;
                match pages.add(result) {
                    Ok(Some(next)) => cursor = Some(next),
                    Ok(None) => return Ok(pages.finish()),
                    Err(reason) => {
                        return Err(Failure::input(format!(
                            "`{shown}` did not list its tools: {reason}"
                        )));
                    }
                }
            }
        };
        let (tools, pages) = wait_for(
            self.group.as_ref(),
            deadline,
            self.user_time.as_ref(),
            listing,
        )
        .await
        .answer(shown, "`tools/list`", self.timeout_secs)?;
        let count = tools.as_array().map_or(0, Vec::len);
        if self.progress {
            output::stderr_line(&format!(
                "tooldef: `{shown}` listed {count} tool{}{}",
                if count == 1 { "" } else { "s" },
                if pages > 1 {
                    format!(" on {pages} pages")
                } else {
                    String::new()
                }
            ));
        }
        Ok(tools)
    }

    /// One page of `tools/list`, as the raw JSON result. Sent as a custom request: rmcp's own
    /// `list_tools` reads the result into its `Tool`s, and one tool it cannot read fails the
    /// page without saying which or why; it also caches every page, so a server that pages for
    /// ever filled memory.
    async fn list_page(&self, cursor: Option<String>) -> Result<Value, rmcp::ServiceError> {
        let params = cursor.map(|cursor| json!({ "cursor": cursor }));
        let request = ClientRequest::CustomRequest(CustomRequest::new("tools/list", params));
        // rmcp reads every result into the first of its result types that fits, `CustomResult`
        // (the JSON as it came) last: a valid listing comes as a `ListToolsResult`, anything
        // else as itself, but `{}` (and `[]`) as an `EmptyResult`.
        Ok(match self.client.send_request(request).await? {
            ServerResult::CustomResult(CustomResult(value)) => value,
            ServerResult::EmptyResult(_) => Value::Object(Map::new()),
            // Serialising rmcp's own types does not fail; should it, the page reads as empty
            // and is reported as such.
            other => serde_json::to_value(other).unwrap_or_default(),
        })
    }

    /// Calls a tool, waiting `--timeout` seconds for the answer.
    pub async fn call_tool(
        &self,
        request: CallToolRequestParams,
    ) -> Result<CallToolResult, Failure> {
        let shown = &self.shown;
        let name = request.name.clone();
        let deadline = Instant::now() + Duration::from_secs(self.timeout_secs);
        let called = async {
            self.client.call_tool(request).await.map_err(|err| {
                Failure::input(format!(
                    "`{shown}` did not answer the call to `{name}`: {}",
                    request_failure(&err)
                ))
            })
        };
        wait_for(
            self.group.as_ref(),
            deadline,
            self.user_time.as_ref(),
            called,
        )
        .await
        .answer(shown, &format!("the call to `{name}`"), self.timeout_secs)
    }

    /// Shuts the server down (its stdin closed, then SIGTERM, then kill), then ends what is
    /// left of its process group; over HTTP, ends the session.
    pub async fn shutdown(self) {
        let Server {
            client,
            group,
            shown,
            ..
        } = self;
        match group {
            Some(group) => {
                if let Err(err) = client.cancel().await {
                    output::stderr_line(&format!("tooldef: shutting `{shown}` down failed: {err}"));
                }
                group.end().await;
            }
            // The server goes on; only the session ends, and a server that does not answer
            // the end of it does not hold this command.
            None => match tokio::time::timeout(HTTP_SHUTDOWN, client.cancel()).await {
                Ok(Ok(_)) => {}
                Ok(Err(err)) => {
                    output::stderr_line(&format!(
                        "tooldef: ending the session with `{shown}` failed: {err}"
                    ));
                }
                Err(_) => output::stderr_line(&format!(
                    "tooldef: `{shown}` did not end the session within {} s; leaving it",
                    HTTP_SHUTDOWN.as_secs()
                )),
            },
        }
    }
}

/// Why the session with `url` did not start, and what to do about it.
fn not_started(url: &str, error: &ClientInitializeError, token_given: bool) -> String {
    let Some(failure) = ConnectFailure::of_start(error) else {
        return format!("`{url}` did not start an MCP session: {error}");
    };
    match failure {
        ConnectFailure::Unreachable(why) => format!(
            "cannot connect to `{url}`: {why}: is the server running, at this address and port?"
        ),
        ConnectFailure::Unauthorized(_) if token_given => format!(
            "`{url}` refused the bearer token (HTTP 401): give the server's token with \
             --bearer-token TOKEN or {BEARER_TOKEN_ENV}"
        ),
        ConnectFailure::Unauthorized(challenge) => format!(
            "`{url}` needs authorisation (HTTP 401, `WWW-Authenticate: {challenge}`): give its \
             bearer token with --bearer-token TOKEN or {BEARER_TOKEN_ENV} (or another credential \
             with --header)"
        ),
        ConnectFailure::Forbidden(why) => format!("`{url}` refused the connection ({why})"),
        ConnectFailure::Authorization(why) => format!("`{url}` could not be authorized: {why}"),
        ConnectFailure::NoEndpoint(why) => {
            format!("`{url}` has no MCP endpoint at this path ({why}): check the path in --url")
        }
        ConnectFailure::NotMcp(why) => format!("`{url}` is not an MCP server: {why}"),
        other => format!("`{url}` did not start an MCP session: {other}"),
    }
}

/// Why a request in a session failed: the HTTP transport's reason when it has one.
fn request_failure(error: &ServiceError) -> String {
    ConnectFailure::of_request(error).map_or_else(|| error.to_string(), |why| why.to_string())
}
