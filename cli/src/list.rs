//! `tooldef list`: start an MCP server over stdio, list its tools, convert and print them.

use std::process::{ExitCode, Stdio};
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::transport::TokioChildProcess;
use serde_json::Value;

use crate::args::{ListArgs, ServerStderr};
use crate::convert_cmd;
use crate::failure::Failure;
use crate::output;

/// Runs `tooldef list`.
pub fn run(args: &ListArgs) -> Result<ExitCode, Failure> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|err| Failure::input(format!("cannot start the async runtime: {err}")))?;
    let tools = runtime.block_on(list_tools(args))?;
    // The runtime goes when this function returns; the child is already shut down.
    let label = format!("the tools of `{}`", shown(&args.command));
    convert_cmd::emit(&tools, &label, &args.conversion)
}

/// The command as the user typed it, for messages.
fn shown(command: &[String]) -> String {
    command.join(" ")
}

/// Starts the server, lists all its tools and shuts it down; the tools as a JSON array.
async fn list_tools(args: &ListArgs) -> Result<Value, Failure> {
    let Some((program, arguments)) = args.command.split_first() else {
        return Err(Failure::input("no server command given after `--`"));
    };
    let shown = shown(&args.command);
    let mut command = tokio::process::Command::new(program);
    // Killed if this process gives up on it (a timeout, an error) before shutting it down.
    command.args(arguments).kill_on_drop(true);
    let stderr = match args.server_stderr {
        ServerStderr::Inherit => Stdio::inherit(),
        ServerStderr::Discard => Stdio::null(),
    };
    let (transport, _) = TokioChildProcess::builder(command)
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

    let timeout = Duration::from_secs(args.timeout);
    let deadline = tokio::time::Instant::now() + timeout;
    let client = match tokio::time::timeout_at(deadline, ().serve(transport)).await {
        Ok(Ok(client)) => client,
        Ok(Err(err)) => {
            return Err(Failure::input(format!(
                "`{shown}` did not start as an MCP server: {err}"
            )));
        }
        Err(_) => {
            return Err(Failure::input(format!(
                "`{shown}` did not answer `initialize` within {} s (--timeout)",
                args.timeout
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
    let listed = tokio::time::timeout_at(deadline, client.list_all_tools()).await;
    // Shut the server down whatever the listing gave: close its stdin, then SIGTERM, then kill.
    if let Err(err) = client.cancel().await {
        output::stderr_line(&format!("tooldef: shutting `{shown}` down failed: {err}"));
    }
    let tools = match listed {
        Ok(Ok(tools)) => tools,
        Ok(Err(err)) => {
            return Err(Failure::input(format!(
                "`{shown}` did not list its tools: {err}"
            )));
        }
        Err(_) => {
            return Err(Failure::input(format!(
                "`{shown}` did not list its tools within {} s (--timeout)",
                args.timeout
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
