//! `tooldef gateway` as a library: an OpenAI-compatible endpoint that brings the tools of any
//! MCP server (and of Rust [`ToolSet`](tooldef::ToolSet)s) to any client of the OpenAI API.
//!
//! A client points its `base_url` at the gateway. The gateway adds the tools of its MCP servers
//! to every Chat Completions and Responses request, converted for that API by tooldef (strict
//! where the schema allows, named `SERVER__TOOL`), and, in execute mode, runs the model's calls
//! to them and asks the upstream again, round after round, so that the client gets one answer
//! (or one stream) as if the model had answered directly. Calls to the client's own tools go
//! back to the client. Every other path is proxied unchanged.
//!
//! Each request, round and tool call is a `tracing` span; with a `tracing-opentelemetry` layer
//! in the program's subscriber they get OpenTelemetry ids, continue the client's `traceparent`
//! and hand their own to the upstream and, in `_meta`, to the MCP servers. The router's
//! `/metrics` renders the gateway's Prometheus metrics, kept in a recorder of its own (the
//! process's global `metrics` recorder is left to the program).
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use tooldef_gateway::{Config, Gateway, GatewayBuilder};
//!
//! let config = Config::from_toml(r#"
//!     upstream = "https://api.openai.com/v1"
//!     [servers.everything]
//!     command = "npx"
//!     args = ["-y", "@modelcontextprotocol/server-everything"]
//! "#)?;
//! let gateway = GatewayBuilder::from_config(config).start().await?;
//! let listener = tokio::net::TcpListener::bind(gateway.listen_address()).await?;
//! gateway.serve(listener).await?;
//! # Ok(()) }
//! ```

#![deny(missing_docs)]

mod adhoc;
mod api;
mod app;
mod body;
mod catalog;
mod config;
mod conversation;
mod discovery;
mod disposition;
mod error;
mod execute;
mod gateway;
mod headers;
mod injection;
mod mcp_connector;
mod mcp_items;
mod mcp_tool;
mod metrics;
mod namespacing;
pub mod oauth;
mod remote;
mod rounds;
mod search;
mod servers;
mod sse;
mod store;
mod telemetry;
mod tool_reference;
mod trace_context;
mod translate;
mod upstream;

pub use api::Api;
pub use config::{
    CacheTools, Config, ConfigError, DiscoveryMode, Mode, OAuthGrant, ServerConfig, ServerOAuth,
    ToolGrouping,
};
pub use gateway::{Gateway, GatewayBuilder, StartError};
pub use remote::{ConnectFailure, RemoteServer, parse_header};
pub use upstream::KEY_HEADER;
