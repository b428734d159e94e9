//! `tooldef list`: start an MCP server over stdio (or reach one over HTTP), list its tools,
//! convert and print them.

use std::process::ExitCode;
use std::time::Duration;

use serde_json::Value;

use crate::args::ListArgs;
use crate::convert_cmd;
use crate::failure::Failure;
use crate::server::{self, Server};

/// Runs `tooldef list`.
pub fn run(args: &ListArgs) -> Result<ExitCode, Failure> {
    let runtime = server::runtime()?;
    let tools = runtime.block_on(list_tools(args))?;
    // The runtime goes when this function returns; the child is already shut down.
    let label = format!("the tools of `{}`", args.server.shown());
    convert_cmd::emit(&tools, &label, &args.conversion)
}

/// Starts the server, lists all its tools and shuts it down; the tools as a JSON array.
async fn list_tools(args: &ListArgs) -> Result<Value, Failure> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(args.server.timeout);
    // A server asks nothing while it lists; should it, the terminal answers.
    let answer = crate::elicit::Answer::from_flag(None).map_err(crate::failure::Failure::input)?;
    let server = Server::start(&args.server, answer, deadline, true).await?;
    let listed = server.list_tools(deadline).await;
    // Shut the server down whatever the listing gave.
    server.shutdown().await;
    listed
}
