//! A user's MCP server, written from the README alone: one tool with shared state, served over
//! stdio (no arguments) or Streamable HTTP (`--http 127.0.0.1:8000`, endpoint `/mcp`).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use schemars::JsonSchema;
use serde::Deserialize;
use tooldef::mcp::{HttpOptions, McpServer};
use tooldef::{Portable, State, ToolSet, tool};

/// How to count.
#[derive(Deserialize, JsonSchema, Portable)]
#[serde(rename_all = "snake_case")]
enum Step {
    /// One at a time.
    One,
    /// Ten at a time.
    Ten,
}

/// Add to the counter and say its new value.
#[tool]
fn increment(
    /// How much to add.
    step: Step,
    State(counter): State<Arc<AtomicU64>>,
) -> String {
    let by = match step {
        Step::One => 1,
        Step::Ten => 10,
    };
    format!("counter: {}", counter.fetch_add(by, Ordering::SeqCst) + by)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let tools = ToolSet::builder()
        .tool(Increment)
        .state(Arc::new(AtomicU64::new(0)))
        .build()?;
    let server = McpServer::new(tools).with_name("counter", "0.1.0");
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        None => server.serve_stdio().await?,
        Some("--http") => {
            let address = args.get(2).ok_or("--http needs an address, e.g. 127.0.0.1:8000")?;
            server.serve_http(address, HttpOptions::new()).await?;
        }
        Some(other) => return Err(format!("unknown argument {other}; try --http").into()),
    }
    Ok(())
}
