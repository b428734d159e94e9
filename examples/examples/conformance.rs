//! The server the official MCP conformance suite (`@modelcontextprotocol/conformance`) runs its
//! server scenarios against, written with tooldef's API alone: `#[tool]`, `#[prompt]` and
//! `#[resource]` functions in one `ToolSet`, served by `McpServer` over Streamable HTTP with
//! `into_http_router` (its Host and Origin checks, which the suite's DNS-rebinding scenario
//! tries).
//!
//! ```text
//! cargo run -p tooldef-examples --features mcp --example conformance -- --http 127.0.0.1:3001
//! npx @modelcontextprotocol/conformance server --url http://127.0.0.1:3001/mcp
//! ```
//!
//! `bash tests/conformance/server.sh` does both, with the suite's version pinned.

use std::net::SocketAddr;

use clap::Parser;
use tooldef::ToolSet;
use tooldef::mcp::{HttpOptions, McpServer};
use tooldef_examples::{conformance, conformance_asking};

/// Serve the conformance suite's tools, prompts and resources over Streamable HTTP.
#[derive(Parser)]
struct Options {
    /// The address to listen on; the endpoint is `/mcp`. Port 0 picks a free port, printed on
    /// stderr.
    #[arg(long, default_value = "127.0.0.1:3001")]
    http: SocketAddr,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let options = Options::parse();
    let builder = conformance::register(ToolSet::builder());
    let set: ToolSet = conformance_asking::register(builder).build()?;
    let server = McpServer::new(set)
        .with_name("tooldef-conformance", env!("CARGO_PKG_VERSION"))
        .with_instructions("The MCP conformance suite's server, written with tooldef");
    let listener = tokio::net::TcpListener::bind(options.http).await?;
    eprintln!(
        "conformance: serving at http://{}/mcp",
        listener.local_addr()?
    );
    server.serve_http_on(listener, HttpOptions::new()).await?;
    Ok(())
}
