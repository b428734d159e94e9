//! The reference MCP servers tooldef's end-to-end tests call, `server-everything` (npm) and
//! `mcp-server-git` (PyPI), installed on first use: each starts over stdio under rmcp's client
//! and lists its tools.

use std::time::Duration;

use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use tokio::process::Command;
use tooldef_tests::foreign::foreign_servers;

/// Starts the server `command` (program and arguments) as a child process and initialises an
/// rmcp client with it.
async fn start(command: &[String]) -> RunningService<RoleClient, ()> {
    let (program, args) = command.split_first().expect("a command");
    let mut child = Command::new(program);
    child.args(args);
    let transport =
        TokioChildProcess::new(child).unwrap_or_else(|err| panic!("starting {command:?}: {err}"));
    ().serve(transport)
        .await
        .unwrap_or_else(|err| panic!("initialising with {command:?}: {err}"))
}

/// Lists the tools of the server `command`, closes it, and returns their names.
async fn tool_names(command: &[String]) -> Vec<String> {
    let client = start(command).await;
    let tools = client
        .list_all_tools()
        .await
        .unwrap_or_else(|err| panic!("tools/list on {command:?}: {err}"));
    client.cancel().await.expect("the client closes");
    tools
        .into_iter()
        .map(|tool| tool.name.into_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_reference_servers_start_and_list_their_tools() {
    // Installing (the first time) is blocking work: off the runtime's threads.
    let servers = tokio::task::spawn_blocking(foreign_servers)
        .await
        .expect("installing the servers");
    let listed = async { tokio::join!(tool_names(&servers.everything), tool_names(&servers.git)) };
    let (everything, git) = tokio::time::timeout(Duration::from_secs(60), listed)
        .await
        .expect("both servers list their tools within 60 s");

    println!(
        "server-everything: {} tools: {everything:?}",
        everything.len()
    );
    println!("mcp-server-git: {} tools: {git:?}", git.len());
    assert!(
        everything.len() >= 10,
        "server-everything lists {everything:?}"
    );
    assert!(git.len() >= 10, "mcp-server-git lists {git:?}");
    assert!(git.iter().any(|name| name == "git_status"), "{git:?}");
}
