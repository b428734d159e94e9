//! `tooldef`: convert MCP tool definitions for OpenAI, Anthropic and Gemini with the tooldef
//! library, lint them, list and convert a running MCP server's tools, or call one of them with
//! the arguments a model sent.
//!
//! ```text
//! tooldef convert --to chat tools.json > chat-tools.json
//! tooldef lint --to chat,gemini tools.json
//! tooldef list --to anthropic -- npx -y @modelcontextprotocol/server-everything
//! tooldef call --to chat --tool get-sum --arguments '{"a": 2, "b": 3}' -- npx -y @modelcontextprotocol/server-everything
//! tooldef gateway --upstream https://api.openai.com/v1 --mcp 'everything=npx -y @modelcontextprotocol/server-everything'
//! ```
//!
//! Exit status: 0 on success, 1 for rejected tools (and lint failures) and for a called tool's
//! error, 2 for usage and input errors. Errors are one line on stderr starting with `tooldef: `.

#![deny(missing_docs)]

mod args;
mod auth;
mod call;
mod convert_cmd;
mod elicit;
mod failure;
mod gateway;
mod group;
mod input;
mod lint;
mod list;
mod listing;
mod output;
mod server;
mod summary;
mod traces;

use std::process::ExitCode;

use clap::Parser;

use crate::args::{Cli, Command};

/// jemalloc, not glibc's malloc: the gateway's memory goes back down after a load. At 1,000
/// streamed conversations at once, six waves, glibc's kept 113–127 MiB after Chat's waves and
/// 129–154 MiB after Responses' (growing wave by wave, its arenas fragmented by each event's
/// strings); jemalloc keeps 114–122 and 132–136 MiB, flat (docs/BENCHMARKS.md, issue 35).
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Convert(args) => convert_cmd::run(&args),
        Command::Lint(args) => lint::run(&args),
        Command::List(args) => list::run(&args),
        Command::Call(args) => call::run(&args),
        Command::Gateway(args) => gateway::run(args),
    };
    match result {
        Ok(code) => code,
        Err(failure) => failure.report(),
    }
}
