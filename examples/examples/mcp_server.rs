//! An MCP server over stdio serving the showcase's tools.
//!
//! ```text
//! cargo run --example mcp_server                 # the showcase tools
//! cargo run --example mcp_server -- --test-tools # plus `crash` (panics) and `sleep`, for tests
//! ```
//!
//! stdout carries the protocol; everything else goes to stderr.

use std::time::Duration;

use rmcp::ServiceExt;
use tooldef::mcp::McpServer;
use tooldef::{ToolSet, tool};
use tooldef_examples::showcase;

/// Crash on purpose, to show that a panicking tool does not take the server down.
#[tool(title = "Crash (test tool)")]
fn crash(
    /// What to say when crashing.
    message: String,
) -> String {
    panic!("{message}")
}

/// Sleep for a while, then answer; slower than its time limit of 1 second when asked to.
#[tool(title = "Sleep (test tool)", read_only)]
async fn sleep(
    /// How long to sleep, in milliseconds.
    #[schemars(range(max = 60000))]
    millis: u64,
) -> String {
    tokio::time::sleep(Duration::from_millis(millis)).await;
    format!("slept {millis} ms")
}

fn tools(test_tools: bool) -> ToolSet {
    let builder = showcase::toolset_builder();
    let builder = if test_tools {
        builder
            .tool(Crash)
            .tool_with_timeout(Sleep, Duration::from_secs(1))
    } else {
        builder
    };
    builder
        .build()
        .unwrap_or_else(|err| unreachable!("the names are distinct: {err}"))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let test_tools = match std::env::args().nth(1).as_deref() {
        None => false,
        Some("--test-tools") => true,
        Some(other) => {
            eprintln!("mcp_server: unknown argument `{other}`\nusage: mcp_server [--test-tools]");
            std::process::exit(2);
        }
    };
    let tools = tools(test_tools);
    eprintln!("mcp_server: serving {} tools over stdio", tools.len());
    let server = McpServer::new(tools)
        .with_name("tooldef-showcase", env!("CARGO_PKG_VERSION"))
        .with_instructions(
            "A travel assistant's tools: weather, currency, flights, hotels, reminders.",
        );
    let running = server.serve(tooldef::mcp::stdio()).await?;
    running.waiting().await?;
    eprintln!("mcp_server: the client went away; stopping");
    Ok(())
}
