//! `tooldef`: convert MCP tool definitions for OpenAI, Anthropic and Gemini with the tooldef
//! library, lint them, or list and convert a running MCP server's tools.
//!
//! ```text
//! tooldef convert --to chat tools.json > chat-tools.json
//! tooldef lint --to chat,gemini tools.json
//! tooldef list --to anthropic -- npx -y @modelcontextprotocol/server-everything
//! ```
//!
//! Exit status: 0 on success, 1 for rejected tools (and lint failures), 2 for usage and input
//! errors. Errors are one line on stderr starting with `tooldef: `.

#![deny(missing_docs)]

mod args;
mod convert_cmd;
mod failure;
mod input;
mod lint;
mod list;
mod output;
mod summary;

use std::process::ExitCode;

use clap::Parser;

use crate::args::{Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Convert(args) => convert_cmd::run(&args),
        Command::Lint(args) => lint::run(&args),
        Command::List(args) => list::run(&args),
    };
    match result {
        Ok(code) => code,
        Err(failure) => failure.report(),
    }
}
