//! An MCP server started as a child process and driven over stdio with rmcp's client: what
//! `tooldef list` and `tooldef call` share (start, list all tools, shut down).

use std::process::Stdio;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;
use tokio::time::Instant;

use crate::args::{ServerArgs, ServerStderr};
use crate::failure::Failure;
use crate::output;

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

/// A connected server. Dropping it kills the child; [`shutdown`](Self::shutdown) ends it
/// politely.
pub struct Server {
    client: RunningService<RoleClient, ()>,
    /// The command, for messages.
    shown: String,
    /// `--timeout`, for messages.
    timeout_secs: u64,
}

impl Server {
    /// Starts `command` (program and arguments) and initialises an MCP session with it by
    /// `deadline`; progress lines go to stderr.
    pub async fn start(args: &ServerArgs, deadline: Instant) -> Result<Server, Failure> {
        let (command, stderr, timeout_secs) = (&args.command, args.server_stderr, args.timeout);
        let Some((program, arguments)) = command.split_first() else {
            return Err(Failure::input("no server command given after `--`"));
        };
        let shown = shown(command);
        let mut child = tokio::process::Command::new(program);
        // Killed if this process gives up on it (a timeout, an error) before shutting it down.
        child.args(arguments).kill_on_drop(true);
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
        output::stderr_line(&format!(
            "tooldef: started `{shown}`{}; initialising",
            transport
                .id()
                .map(|pid| format!(" (pid {pid})"))
                .unwrap_or_default()
        ));
        let client = match tokio::time::timeout_at(deadline, ().serve(transport)).await {
            Ok(Ok(client)) => client,
            Ok(Err(err)) => {
                return Err(Failure::input(format!(
                    "`{shown}` did not start as an MCP server: {err}"
                )));
            }
            Err(_) => {
                return Err(Failure::input(format!(
                    "`{shown}` did not answer `initialize` within {timeout_secs} s (--timeout)"
                )));
            }
        };
        let server = client
            .peer_info()
            .and_then(|info| info.server_info.clone())
            .map_or_else(
                || "the server".to_owned(),
                |server| format!("{} {}", server.name, server.version),
            );
        output::stderr_line(&format!(
            "tooldef: connected to {server}; listing its tools"
        ));
        Ok(Server {
            client,
            shown,
            timeout_secs,
        })
    }

    /// The command, as the user typed it.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// All the server's tools (following pagination) by `deadline`, as a JSON array.
    pub async fn list_tools(&self, deadline: Instant) -> Result<Value, Failure> {
        let shown = &self.shown;
        let tools = match tokio::time::timeout_at(deadline, self.client.list_all_tools()).await {
            Ok(Ok(tools)) => tools,
            Ok(Err(err)) => {
                return Err(Failure::input(format!(
                    "`{shown}` did not list its tools: {err}"
                )));
            }
            Err(_) => {
                return Err(Failure::input(format!(
                    "`{shown}` did not list its tools within {} s (--timeout)",
                    self.timeout_secs
                )));
            }
        };
        output::stderr_line(&format!(
            "tooldef: `{shown}` listed {} tool{}",
            tools.len(),
            if tools.len() == 1 { "" } else { "s" }
        ));
        serde_json::to_value(&tools)
            .map_err(|err| Failure::input(format!("the tools of `{shown}` as JSON: {err}")))
    }

    /// Calls a tool, waiting `--timeout` seconds for the answer.
    pub async fn call_tool(
        &self,
        request: CallToolRequestParams,
    ) -> Result<CallToolResult, Failure> {
        let shown = &self.shown;
        let name = request.name.clone();
        let timeout = Duration::from_secs(self.timeout_secs);
        match tokio::time::timeout(timeout, self.client.call_tool(request)).await {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(err)) => Err(Failure::input(format!(
                "`{shown}` did not answer the call to `{name}`: {err}"
            ))),
            Err(_) => Err(Failure::input(format!(
                "`{shown}` did not answer the call to `{name}` within {} s (--timeout)",
                self.timeout_secs
            ))),
        }
    }

    /// Shuts the server down: closes its stdin, then SIGTERM, then kill.
    pub async fn shutdown(self) {
        if let Err(err) = self.client.cancel().await {
            output::stderr_line(&format!(
                "tooldef: shutting `{}` down failed: {err}",
                self.shown
            ));
        }
    }
}
