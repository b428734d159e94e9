//! The command line, as clap derive types.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use tooldef::Target;
use tooldef::convert::{ConvertOptions, Strictness};

/// Convert MCP tool definitions for OpenAI, Anthropic and Gemini, lint them, or list a server's.
#[derive(Debug, Parser)]
#[command(
    name = "tooldef",
    version,
    about = "Convert MCP tool definitions for OpenAI, Anthropic and Gemini",
    long_about = "Convert MCP tool definitions for OpenAI (Chat Completions, Responses), Anthropic and \
Gemini, through the same schema rewrites as tooldef's Rust tools: what a target cannot carry is \
rewritten or moved into the descriptions, never dropped silently.

Exit status: 0 on success, 1 when a tool is rejected (convert, list) or a target rejects a tool \
(lint), 2 on a usage or input error.",
    after_long_help = "Examples:
  tooldef convert --to chat tools.json > chat-tools.json
  tooldef lint --to chat,gemini tools.json
  tooldef list --to anthropic -- npx -y @modelcontextprotocol/server-everything"
)]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Convert MCP tools (from a file or stdin) for one target and print them as JSON.
    #[command(
        long_about = "Convert MCP tools for one target and print them on stdout as a pretty JSON \
array, and nothing else.

The input is a `tools/list` result (`{\"tools\": [...]}`), an array of tools, or one tool. What \
was rewritten, why a tool is not strict and which tools were renamed go to stderr, one line each, \
prefixed by the tool's name. A tool that cannot be converted makes the command fail (exit status \
1) unless --lenient is given.",
        after_long_help = "Examples:
  tooldef convert --to chat tools.json > chat-tools.json
  cat tools.json | tooldef convert --to gemini
  tooldef convert --to responses --strict on --lenient --names names.json tools.json"
    )]
    Convert(ConvertArgs),
    /// Report, for each tool and target, whether it is accepted as is, rewritten, not strict or rejected.
    #[command(
        long_about = "Report, for each tool and each target, one line: `accepted as is`, \
`rewritten: <what>`, `not strict: <why>` or `rejected: <why>`, grouped by tool, then a summary \
line with the counts.

Each line is read from the report the library makes while rendering the tool: keywords moved \
into descriptions, removed or added, keywords replaced by equivalents, optional properties made \
required, `$ref`s inlined, the tool renamed or its description shortened. Warnings about the \
batch follow the tools: names several tools share, more tools than a target takes in one \
request, tools without descriptions. Exit status 1 when a requested target rejects any tool, \
else 0.",
        after_long_help = "Examples:
  tooldef lint tools.json
  tooldef lint --to chat,responses --strict on tools.json
  curl -s https://example.invalid/tools.json | tooldef lint --to gemini"
    )]
    Lint(LintArgs),
    /// Start an MCP server over stdio, list its tools and print them converted for one target.
    #[command(
        long_about = "Start an MCP server as a child process speaking MCP over stdio, list all its \
tools (following pagination), convert them like `convert` and print them on stdout as a pretty \
JSON array. Progress and diagnostics go to stderr; the server's own stderr is inherited (shown on \
this command's stderr) unless --server-stderr discard is given. The server is shut down at the \
end: its stdin is closed, then it is sent SIGTERM and finally killed if it does not exit.",
        after_long_help = "Examples:
  tooldef list --to chat -- ./target/debug/examples/mcp_server
  tooldef list --to gemini --server-stderr discard -- npx -y @modelcontextprotocol/server-everything
  tooldef list --to mcp --timeout 60 -- python3 server.py"
    )]
    List(ListArgs),
}

/// The input of `convert` and `lint`.
#[derive(Debug, Args)]
pub struct InputArg {
    /// The MCP tools to read: a JSON file, or `-` (the default) for stdin.
    #[arg(
        value_name = "FILE",
        long_help = "The MCP tools to read: a JSON file holding a `tools/list` result \
(`{\"tools\": [...]}`), an array of tools or one tool; `-` or nothing reads stdin.

Example: tooldef lint github-mcp-server.tools.json"
    )]
    pub file: Option<PathBuf>,
}

/// How to convert: the options `convert` and `list` share.
#[derive(Debug, Args)]
pub struct ConversionArgs {
    /// The target to convert for.
    #[arg(
        long,
        value_enum,
        value_name = "TARGET",
        long_help = "The target to convert for: `mcp` (an MCP server's tools/list), `chat` (OpenAI \
Chat Completions), `responses` (OpenAI Responses API), `anthropic` (Anthropic Messages API) or \
`gemini` (Gemini function declarations).

Example: --to gemini"
    )]
    pub to: TargetArg,
    /// Strict mode for the OpenAI targets: auto, on or off.
    #[arg(
        long,
        value_enum,
        default_value_t = StrictArg::Auto,
        value_name = "MODE",
        long_help = "Strict mode for the OpenAI targets (chat, responses); the others ignore it. \
`auto`: strict where the schema allows it, otherwise `strict: false` with a diagnostic saying \
why. `on`: strict, or the tool is rejected with the reasons it cannot be. `off`: never strict.

Example: --strict on"
    )]
    pub strict: StrictArg,
    /// Skip the tools that cannot be converted (listed on stderr) instead of failing.
    #[arg(
        long,
        long_help = "Skip the tools that cannot be converted instead of failing: they are listed \
on stderr with the reasons, the others are printed, and the exit status is 0.

Example: tooldef convert --to gemini --lenient tools.json"
    )]
    pub lenient: bool,
    /// Write the map from target names to original MCP names to FILE, as JSON.
    #[arg(
        long,
        value_name = "FILE",
        long_help = "Write the map from the names the target sees to the original MCP names to \
FILE, as a JSON object (`{\"fs_read_file\": \"fs.read_file\"}`), to route the model's calls back \
to the MCP tools. Written only when the conversion succeeds.

Example: --names names.json"
    )]
    pub names: Option<PathBuf>,
}

impl ConversionArgs {
    /// The library's options for these arguments.
    pub fn options(&self) -> ConvertOptions {
        ConvertOptions {
            strict: self.strict.into(),
            lenient: self.lenient,
        }
    }
}

/// `tooldef convert`.
#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// How to convert.
    #[command(flatten)]
    pub conversion: ConversionArgs,
    /// What to convert.
    #[command(flatten)]
    pub input: InputArg,
}

/// `tooldef lint`.
#[derive(Debug, Args)]
pub struct LintArgs {
    /// The targets to check, comma-separated (default: all five).
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        value_name = "TARGETS",
        long_help = "The targets to check, comma-separated: any of mcp, chat, responses, \
anthropic, gemini. Default: all five.

Example: --to chat,gemini"
    )]
    pub to: Vec<TargetArg>,
    /// Strict mode for the OpenAI targets: auto, on or off.
    #[arg(
        long,
        value_enum,
        default_value_t = StrictArg::Auto,
        value_name = "MODE",
        long_help = "Strict mode for the OpenAI targets (chat, responses), as for `convert`. With \
`on`, a tool that cannot be strict is reported `rejected` (and the exit status is 1).

Example: --strict on"
    )]
    pub strict: StrictArg,
    /// Also list every change of each rendering, one per line, with where it was made.
    #[arg(
        long,
        short,
        long_help = "Below each verdict, list every change its rendering made, one per line, with \
the JSON Pointer of the node it was made at: which keyword was moved into the description and the \
sentence written, which optional property was made required and nullable, which `$ref` was \
inlined, why the tool is not strict.

Example: tooldef lint --verbose --to chat tools.json"
    )]
    pub verbose: bool,
    /// What to lint.
    #[command(flatten)]
    pub input: InputArg,
}

impl LintArgs {
    /// The requested targets, in the order given, without repeats; all five when none is given.
    pub fn targets(&self) -> Vec<Target> {
        if self.to.is_empty() {
            return Target::ALL.to_vec();
        }
        let mut targets = Vec::new();
        for target in self.to.iter().map(|&t| Target::from(t)) {
            if !targets.contains(&target) {
                targets.push(target);
            }
        }
        targets
    }
}

/// `tooldef list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// How to convert.
    #[command(flatten)]
    pub conversion: ConversionArgs,
    /// What to do with the server's stderr: inherit (the default) or discard.
    #[arg(
        long,
        value_enum,
        default_value_t = ServerStderr::Inherit,
        value_name = "MODE",
        long_help = "What to do with the server's stderr: `inherit` (the default) shows it on this \
command's stderr, mixed with tooldef's progress lines; `discard` throws it away.

Example: --server-stderr discard"
    )]
    pub server_stderr: ServerStderr,
    /// Seconds to wait for the server to start and list its tools.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 30,
        value_parser = clap::value_parser!(u64).range(1..),
        long_help = "Seconds to wait for the server to initialise and list all its tools before \
giving up (exit status 2). Default: 30.

Example: --timeout 120"
    )]
    pub timeout: u64,
    /// The server's command and its arguments, after `--`.
    #[arg(
        last = true,
        required = true,
        value_name = "COMMAND",
        long_help = "The server's command and its arguments, after `--`. It is run directly (not \
through a shell) and must speak MCP over stdio.

Example: -- npx -y @modelcontextprotocol/server-everything"
    )]
    pub command: Vec<String>,
}

/// A target, by its short name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TargetArg {
    /// An MCP server's `tools/list`.
    Mcp,
    /// OpenAI Chat Completions.
    Chat,
    /// The OpenAI Responses API.
    Responses,
    /// The Anthropic Messages API.
    Anthropic,
    /// Gemini function declarations.
    Gemini,
}

impl From<TargetArg> for Target {
    fn from(target: TargetArg) -> Self {
        match target {
            TargetArg::Mcp => Target::Mcp,
            TargetArg::Chat => Target::ChatCompletions,
            TargetArg::Responses => Target::Responses,
            TargetArg::Anthropic => Target::Anthropic,
            TargetArg::Gemini => Target::Gemini,
        }
    }
}

/// Strict mode for the OpenAI targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StrictArg {
    /// Strict where the schema allows it, otherwise not, with a diagnostic saying why.
    Auto,
    /// Strict, or the tool is rejected.
    On,
    /// Never strict.
    Off,
}

impl From<StrictArg> for Strictness {
    fn from(strict: StrictArg) -> Self {
        match strict {
            StrictArg::Auto => Strictness::Auto,
            StrictArg::On => Strictness::On,
            StrictArg::Off => Strictness::Off,
        }
    }
}

/// What to do with an MCP server's stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ServerStderr {
    /// Show it on this command's stderr.
    Inherit,
    /// Throw it away.
    Discard,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn target_names_are_the_library_short_names() {
        for target in TargetArg::value_variants() {
            let name = target
                .to_possible_value()
                .map(|v| v.get_name().to_owned())
                .unwrap_or_default();
            assert_eq!(Target::from(*target).short_name(), name);
            assert_eq!(name.parse::<Target>(), Ok(Target::from(*target)));
        }
    }
}
