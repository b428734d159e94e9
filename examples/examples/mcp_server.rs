//! An MCP server serving the showcase's tools, over stdio (the default) or Streamable HTTP.
//!
//! ```text
//! cargo run -p tooldef-examples --features mcp --example mcp_server                           # stdio
//! cargo run -p tooldef-examples --features mcp --example mcp_server -- --test-tools             # plus `crash` (panics) and `sleep`, for tests
//! cargo run -p tooldef-examples --features mcp --example mcp_server -- --mcp-features           # plus tools that ask the user, run as tasks, carry icons
//! cargo run -p tooldef-examples --features mcp --example mcp_server -- --conformance-asking     # plus the conformance suite's sampling and elicitation tools
//! cargo run -p tooldef-examples --features mcp --example mcp_server -- --http 127.0.0.1:8000    # Streamable HTTP at http://127.0.0.1:8000/mcp
//! MCP_BEARER_TOKEN=secret cargo run -p tooldef-examples --features mcp --example mcp_server -- --http 127.0.0.1:0 --stateless
//! ```
//!
//! Over stdio, stdout carries the protocol. Over HTTP, the first line on stderr says where it
//! serves (`mcp_server: serving 9 tools over Streamable HTTP at http://127.0.0.1:43125/mcp`),
//! with the port actually bound, for scripts and tests to read. Logs go to stderr.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use tooldef::mcp::{HttpOptions, HttpOptionsError, McpServer};
use tooldef::{CancellationToken, ToolSet, tool};
use tooldef_examples::{conformance_asking, mcp_features, showcase};

/// Serve the showcase's tools over MCP: stdio by default, Streamable HTTP with --http.
#[derive(Debug, Parser)]
#[command(name = "mcp_server")]
struct Options {
    /// Also serve `crash` (panics) and `sleep` (times out past 1 s), for tests.
    #[arg(long)]
    test_tools: bool,
    /// Also serve the tools that show MCP 2026-07-28's features: `delete_files` asks the user
    /// to confirm (elicitation), `build_report` runs as a task, `regional_price` carries icons,
    /// `_meta` and an argument sent as an HTTP header.
    #[arg(long)]
    mcp_features: bool,
    /// Also serve the official MCP conformance suite's tools that ask the client:
    /// `test_sampling` (its model), `test_elicitation`, `test_elicitation_sep1034_defaults` and
    /// `test_elicitation_sep1330_enums` (its user).
    #[arg(long)]
    conformance_asking: bool,
    /// Serve MCP's Streamable HTTP transport on ADDR (e.g. 127.0.0.1:8000; port 0 picks a free
    /// one) instead of stdio.
    #[arg(long, value_name = "ADDR")]
    http: Option<SocketAddr>,
    /// The endpoint's path.
    #[arg(long, value_name = "PATH", default_value = "/mcp", requires = "http")]
    path: String,
    /// Accept requests from web pages of ORIGIN only (e.g. `http://localhost:3000`;
    /// `http://localhost:*` for any port). Repeatable.
    #[arg(long = "allowed-origin", value_name = "ORIGIN", requires = "http")]
    allowed_origins: Vec<String>,
    /// Also answer requests for HOST (`name` or `name:port`), beside localhost, 127.0.0.1 and
    /// ::1: the name or address clients reach this machine by. Repeatable.
    #[arg(long = "allowed-host", value_name = "HOST", requires = "http")]
    allowed_hosts: Vec<String>,
    /// Ask every request for `Authorization: Bearer TOKEN` [default: $MCP_BEARER_TOKEN, if set].
    #[arg(long, value_name = "TOKEN", requires = "http")]
    bearer_token: Option<String>,
    /// Serve without sessions: each request on its own (no `tools/list_changed` notifications).
    #[arg(long, requires = "http")]
    stateless: bool,
}

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

/// The tools served: the showcase's, and the test tools, the MCP features' and the
/// conformance suite's when asked for.
fn tools(options: &Options) -> ToolSet {
    let mut builder = showcase::toolset_builder();
    if options.mcp_features {
        builder = mcp_features::add_to(builder);
    }
    if options.conformance_asking {
        builder = conformance_asking::register(builder);
    }
    let builder = if options.test_tools {
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
async fn main() -> ExitCode {
    let options = Options::parse();
    let tools = tools(&options);
    let count = tools.len();
    let server = McpServer::new(tools)
        .with_name("tooldef-showcase", env!("CARGO_PKG_VERSION"))
        .with_instructions(
            "A travel assistant's tools: weather, currency, flights, hotels, reminders.",
        );
    let served = match options.http {
        None => serve_stdio(server, count).await,
        Some(address) => serve_http(server, count, address, &options).await,
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure { status, message }) => {
            eprintln!("mcp_server: {message}");
            ExitCode::from(status)
        }
    }
}

/// Why serving failed: a one-line message and the exit status (2 for options that cannot
/// work, as for unknown flags; 1 otherwise).
struct Failure {
    status: u8,
    message: String,
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Failure { status: 1, message }
    }
}

async fn serve_stdio(server: McpServer, count: usize) -> Result<(), Failure> {
    eprintln!("mcp_server: serving {count} tools over stdio");
    server.serve_stdio().await.map_err(|err| err.to_string())?;
    eprintln!("mcp_server: the client went away; stopping");
    Ok(())
}

async fn serve_http(
    server: McpServer,
    count: usize,
    address: SocketAddr,
    options: &Options,
) -> Result<(), Failure> {
    let shutdown = CancellationToken::new();
    let mut http = HttpOptions::new()
        .path(&options.path)
        .stateless(options.stateless)
        .shutdown_token(shutdown.clone());
    for host in &options.allowed_hosts {
        http = http.allow_host(host);
    }
    for origin in &options.allowed_origins {
        http = http.allow_origin(origin);
    }
    let token = options
        .bearer_token
        .clone()
        .or_else(|| std::env::var("MCP_BEARER_TOKEN").ok());
    if let Some(token) = token {
        http = http.bearer_token(token);
    }
    http.check().map_err(|err| {
        let flag = match &err {
            HttpOptionsError::Path { .. } => "--path",
            HttpOptionsError::Host { .. } => "--allowed-host",
            HttpOptionsError::Origin { .. } => "--allowed-origin",
            HttpOptionsError::BearerToken { .. } => "--bearer-token (or MCP_BEARER_TOKEN)",
            _ => "--http",
        };
        Failure {
            status: 2,
            message: format!("{flag}: {err}"),
        }
    })?;
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|err| format!("cannot listen on {address}: {err}"))?;
    let bound = listener
        .local_addr()
        .map_err(|err| format!("cannot tell the address bound: {err}"))?;
    eprintln!(
        "mcp_server: serving {count} tools over Streamable HTTP at http://{bound}{}{}",
        options.path,
        if options.stateless {
            " (stateless)"
        } else {
            ""
        }
    );
    if bound.ip().is_unspecified() {
        eprintln!(
            "mcp_server: listening on every interface; clients that reach it by another name \
             than localhost, 127.0.0.1 or ::1 need that name allowed (--allowed-host)"
        );
    }
    tokio::spawn(async move {
        stop_requested().await;
        // Ends open event streams and sessions too; without it they would hold the shutdown.
        shutdown.cancel();
    });
    server
        .serve_http_on(listener, http)
        .await
        .map_err(|err| format!("serving stopped: {err}"))?;
    eprintln!("mcp_server: stopped");
    Ok(())
}

/// Ctrl-C or SIGTERM.
async fn stop_requested() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut terminate =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(stream) => stream,
                Err(_) => {
                    let _ = interrupt.await;
                    return;
                }
            };
        tokio::select! {
            _ = interrupt => {}
            _ = terminate.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
    }
}
