//! The command line, as clap derive types.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use tooldef::convert::{ConvertOptions, Strictness};
use tooldef::{ModelTarget, Target};

use crate::listing::Limits;

/// Convert MCP tool definitions for OpenAI, Anthropic and Gemini, lint them, list a server's, or
/// call one as a model would.
#[derive(Debug, Parser)]
#[command(
    name = "tooldef",
    version,
    about = "Convert MCP tool definitions for OpenAI, Anthropic and Gemini",
    long_about = "Convert MCP tool definitions for OpenAI (Chat Completions, Responses), Anthropic and \
Gemini, through the same schema rewrites as tooldef's Rust tools: what a target cannot carry is \
rewritten or moved into the descriptions, never dropped silently.

Exit status: 0 on success, 1 when a tool is rejected (convert, list), a target rejects a tool \
(lint) or the called tool answers with an error (call), 2 on a usage or input error.",
    after_long_help = "Examples:
  tooldef convert --to chat tools.json > chat-tools.json
  tooldef lint --to chat,gemini tools.json
  tooldef list --to anthropic -- npx -y @modelcontextprotocol/server-everything
  tooldef call --to chat --tool get-sum --arguments '{\"a\": 2, \"b\": 3}' -- npx -y @modelcontextprotocol/server-everything"
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
    /// Start an MCP server over stdio (or reach one with --url), list its tools and print them
    /// converted for one target.
    #[command(
        // Clap's own usage would show the command as optional (`[COMMAND]...`, without `--`),
        // since --url may stand in for it.
        override_usage = "tooldef list [OPTIONS] --to <TARGET> -- <COMMAND>...
       tooldef list [OPTIONS] --to <TARGET> --url <URL>",
        long_about = "Start an MCP server as a child process speaking MCP over stdio (or connect to \
a running one over Streamable HTTP with --url), list all its \
tools (following pagination, within --max-pages, --max-tools and --max-list-mib), convert them \
like `convert` and print them on stdout as a pretty JSON array. Progress and diagnostics go to \
stderr; the server's own stderr is inherited (shown on this command's stderr) unless \
--server-stderr discard is given.

A `tools/list` result that is not one (not an object, no `tools` array) fails the command, \
saying what it was and on which page. A listed tool that is not a valid MCP tool (no `name`, an \
`inputSchema` that is not an object) is rejected like a tool the target cannot take: named on \
stderr with the reason, and skipped with --lenient, else the command fails (exit status 1).

The server runs in a process group of its own. It is shut down at the end, whatever happened: \
its stdin is closed, then it is sent SIGTERM and finally killed if it does not exit; then what is \
left of its group (processes it started) is sent SIGTERM and, half a second later, SIGKILL. A \
server that exits while a process it started holds its stdout open fails the command at once \
instead of at --timeout. Ctrl-C (or SIGTERM) ends the server and its group too (exit status 130 \
or 143).

With --url URL instead of `-- COMMAND`, the server is one already running, reached over MCP's \
Streamable HTTP transport, with the headers of --header and the token of --bearer-token (or \
TOOLDEF_BEARER_TOKEN); only the session is ended at the end. The same limits hold, and a server \
that cannot be reached, refuses the connection or is not an MCP server fails the command at \
once (exit status 2).

A server that asks for OAuth (HTTP 401 with a `WWW-Authenticate` challenge, MCP's \
authorization) is signed in to when no --bearer-token is given: its metadata is discovered, \
tooldef registers itself (or uses --client-id, or --client-metadata-url), and your browser is \
sent to the sign-in page, which comes back to http://127.0.0.1:PORT/callback; see \
--oauth-grant and --auth-browser. The tokens are kept in $XDG_CONFIG_HOME/tooldef/oauth/ (else \
~/.config/tooldef/oauth/, mode 0600) and refreshed, so the next command needs no sign-in.",
        after_long_help = "Examples:
  tooldef list --to chat -- ./target/debug/examples/mcp_server
  tooldef list --to chat --url http://127.0.0.1:8000/mcp
  tooldef list --to chat --url https://mcp.example.com/mcp --scope files:read   # signs in through the browser
  TOOLDEF_BEARER_TOKEN=secret tooldef list --to anthropic --url https://mcp.example.com/mcp --header 'X-Team: travel'
  tooldef list --to gemini --server-stderr discard -- npx -y @modelcontextprotocol/server-everything
  tooldef list --to mcp --timeout 60 -- python3 server.py"
    )]
    List(ListArgs),
    /// Start an MCP server over stdio (or reach one with --url) and call one of its tools with the
    /// arguments a model sent.
    #[command(
        override_usage = "tooldef call [OPTIONS] --to <TARGET> --tool <NAME> -- <COMMAND>...
       tooldef call [OPTIONS] --to <TARGET> --tool <NAME> --url <URL>",
        long_about = "Start an MCP server as a child process speaking MCP over stdio (or connect to \
a running one over Streamable HTTP with --url, as `list` does), list and \
convert its tools for TARGET exactly as `list` does, then call one tool the way a proxy \
between that target's model and the server would: the tool is found by the name the model sees (or by its original MCP name), the arguments are \
taken as the JSON the model sent and restored to the shape the server's own schema asks for (a \
strict model's `null` for a field it left out is removed), and the tool is called under its \
original name. The arguments actually sent are shown on stderr (`tooldef: calling <tool> with \
<json>`); the whole `CallToolResult` is printed on stdout as pretty JSON: every content block \
(text, image, audio, resource link, embedded resource) as the server sent it, `structuredContent` \
and `isError`. The server is shut down at the end, with its process group, as `list` does. Only \
the called tool needs to be valid, and only its conversion is reported on stderr (what was \
rewritten, why it is not strict, warnings about it), before the arguments; --quiet leaves those \
and the progress lines out.

Exit status: 0 when the tool answered, 1 when it answered with `isError: true`, 2 on a usage or \
input error (an unknown tool, with the closest names; arguments that are not a JSON object; a \
server that failed to start, list or answer in time; one given by --url that cannot be reached, \
refuses the connection or is not an MCP server).

Questions the server asks during the call (MCP elicitation) are asked on the terminal, field by \
field, when stdin is one, or answered with --elicit; else declined. Over --url, a server that \
asks for OAuth is signed in to as for `list`.",
        after_long_help = "Examples:
  tooldef call --to chat --tool get-sum --arguments '{\"a\": 2, \"b\": 3}' -- npx -y @modelcontextprotocol/server-everything
  tooldef call --to mcp --tool delete_files --arguments '{\"folder\": \"logs\", \"count\": 2}' --elicit '{\"confirm\": true}' --url http://127.0.0.1:8000/mcp
  tooldef call --to chat --tool get_weather --arguments '{\"city\": \"Lisbon\", \"days\": null}' --url http://127.0.0.1:8000/mcp
  tooldef call --to chat --tool get-annotated-message --arguments '{\"messageType\": \"error\", \"includeImage\": null}' -- npx -y @modelcontextprotocol/server-everything
  echo '{\"repo_path\": \".\", \"max_count\": null, \"start_timestamp\": null, \"end_timestamp\": null}' | tooldef call --to responses --tool git_log --arguments - -- uvx mcp-server-git
  tooldef call --to mcp --tool get-tiny-image --server-stderr discard -- npx -y @modelcontextprotocol/server-everything | jq '.content[] | select(.type == \"image\") | .mimeType'"
    )]
    Call(CallArgs),
    /// Serve an OpenAI-compatible endpoint that gives any client the tools of MCP servers.
    #[command(
        long_about = "Serve an endpoint for clients of OpenAI's and Anthropic's APIs \
(`POST /v1/chat/completions`, `POST /v1/responses`, `POST /v1/messages`, streamed and not) that \
adds the tools of MCP servers to every request, converted for the upstream's API (strict where \
possible) and named `SERVER__TOOL`, and forwards it to the upstream. A client whose API the \
upstream does not speak (a Responses or Messages client of a server that speaks only Chat \
Completions) is served by translating both ways; the upstream's APIs are found out by asking, \
or given with --upstream-api. In execute mode (the default) the model's calls to those tools are run here and \
the upstream is asked again, up to --max-rounds requests, so the client gets one answer as if \
the model had answered directly; calls to the client's own tools go back to the client. In \
inject mode every call goes back to the client. Every other path is proxied unchanged; \
`GET /healthz` tells the servers' health, `GET /v1/tools?target=chat|responses|messages` the \
injected tools.

Servers come from --config (TOML; see the README's gateway section) and from --mcp (stdio: \
`NAME=PROGRAM ARG...`, split at spaces) and --mcp-url (Streamable HTTP: `NAME=URL`); flags \
override the file; an HTTP server that asks for OAuth is given tokens by the file's \
`[servers.NAME.oauth]` (the client_credentials grant, or tokens to refresh). Once every server \
has listed its tools (or failed to start: it is retried \
with backoff), a line `tooldef gateway: listening on http://ADDRESS` goes to stderr; logs follow \
on stderr (RUST_LOG-style filters in TOOLDEF_LOG). The client's `Authorization` header is sent \
to the upstream only and never logged.",
        after_long_help = "Examples:
  tooldef gateway --upstream https://api.openai.com/v1 --mcp 'everything=npx -y @modelcontextprotocol/server-everything'
  tooldef gateway --config gateway.toml
  tooldef gateway --config gateway.toml --store redis://127.0.0.1:6379/0   # one of several instances
  TOOLDEF_KEY=secret tooldef gateway --key-env TOOLDEF_KEY --listen 0.0.0.0:8080 --upstream http://localhost:11434/v1 --mcp-url 'docs=http://localhost:3001/mcp' --mode inject"
    )]
    Gateway(GatewayArgs),
}

/// The options of `gateway`.
#[derive(Debug, Args)]
pub struct GatewayArgs {
    /// A TOML configuration (upstream, servers, limits); flags override it.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Where to listen [default: 127.0.0.1:8080]. Port 0 picks a free port.
    #[arg(long, value_name = "ADDRESS")]
    pub listen: Option<std::net::SocketAddr>,
    /// The model server to forward to, with its version path, e.g. https://api.openai.com/v1
    /// or http://localhost:8080/v1. Completes a --config file that names none.
    #[arg(long, value_name = "URL")]
    pub upstream: Option<String>,
    /// An API the upstream speaks: `chat`, `responses` or `messages` (repeatable, or
    /// comma-separated) [default: found out by asking the upstream].
    #[arg(long = "upstream-api", value_name = "API", value_delimiter = ',')]
    pub upstream_api: Vec<String>,
    /// An MCP server over stdio: `NAME=PROGRAM ARG...` (split at spaces). Repeatable.
    #[arg(long = "mcp", value_name = "NAME=COMMAND")]
    pub mcp: Vec<String>,
    /// An MCP server over Streamable HTTP: `NAME=URL`. Repeatable.
    #[arg(long = "mcp-url", value_name = "NAME=URL")]
    pub mcp_url: Vec<String>,
    /// `execute` (run injected calls here; the default) or `inject` (return every call).
    #[arg(long, value_name = "MODE")]
    pub mode: Option<String>,
    /// The most upstream requests per client request [default: 10]; the last is sent with
    /// `tool_choice: "none"`.
    #[arg(long, value_name = "N")]
    pub max_rounds: Option<u32>,
    /// The most injected tool calls per client request [default: no bound]; once used up, the
    /// next round is the last. A request may lower either bound with
    /// `"tooldef": {"max_rounds": N, "max_tool_calls": N}`.
    #[arg(long, value_name = "N")]
    pub max_tool_calls: Option<u32>,
    /// The most tools one upstream request may carry [default: the API's limit, 128]; beyond
    /// it, a request gets the pinned tools and a search tool that finds the others.
    #[arg(long, value_name = "N")]
    pub max_tools: Option<usize>,
    /// A tool (`SERVER__TOOL`) or a server (`SERVER`) always offered when the tools are too many
    /// to send them all. Repeatable.
    #[arg(long = "pin", value_name = "TOOL|SERVER")]
    pub pinned: Vec<String>,
    /// How a Responses upstream gets the servers' tools: `prefix` (`SERVER__TOOL` functions;
    /// the default) or `namespace` (one `namespace` tool per server, OpenAI's grouping).
    #[arg(long, value_name = "prefix|namespace")]
    pub tool_grouping: Option<String>,
    /// Who searches beyond the tool budget: `gateway` (its `tooldef_search_tools` function; the
    /// default) or `provider` (deferred tools and a client-executed `tool_search` the gateway
    /// answers, for Responses clients of a Responses upstream; on a Messages upstream, always,
    /// deferred tools and the gateway's search answered with `tool_reference` blocks).
    #[arg(long, value_name = "gateway|provider")]
    pub discovery: Option<String>,
    /// Anthropic prompt caching of the tools a Messages upstream gets: `off` (the default), `5m`
    /// or `1h` (`cache_control` on the last tool).
    #[arg(long, value_name = "off|5m|1h")]
    pub anthropic_cache_tools: Option<String>,
    /// How long a stopping gateway (SIGTERM, Ctrl-C) lets conversations in flight finish, in
    /// seconds [default: 30]; streams still running then end with an error event.
    #[arg(long, value_name = "SECONDS")]
    pub shutdown_grace: Option<u64>,
    /// How long a tool call may take, in seconds [default: 60].
    #[arg(long, value_name = "SECONDS")]
    pub tool_timeout: Option<u64>,
    /// Between a server's name and its tool's name [default: __].
    #[arg(long, value_name = "TEXT")]
    pub separator: Option<String>,
    /// The environment variable holding the key clients must send in `X-Tooldef-Key`.
    #[arg(long, value_name = "VAR")]
    pub key_env: Option<String>,
    /// The environment variable holding the upstream key, sent when a client sends no `Authorization`.
    #[arg(long, value_name = "VAR")]
    pub upstream_key_env: Option<String>,
    /// Where the turns kept for a client's follow-up are kept: `memory` (the default: this
    /// process only) or a Redis URL (`redis://HOST:PORT/DB`, `rediss://` for TLS) that several
    /// gateway instances share, so that a follow-up may reach any of them. While Redis cannot be
    /// reached, requests that need it are answered 503 (`store_unavailable`).
    #[arg(long, value_name = "memory|URL")]
    pub store: Option<String>,
    /// Export the gateway's spans (each request, round and tool call) over OTLP/HTTP to the
    /// collector at URL (`http://localhost:4318`; spans go to its `/v1/traces`) [default:
    /// $OTEL_EXPORTER_OTLP_ENDPOINT, if set].
    #[arg(long, value_name = "URL")]
    pub otlp_endpoint: Option<String>,
    /// Record tool calls' arguments and results on their spans: for debugging only, since they
    /// may hold anything (off by default).
    #[arg(long)]
    pub trace_content: bool,
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
    /// The target to convert for (or give --model).
    #[arg(
        long,
        value_enum,
        value_name = "TARGET",
        required_unless_present = "model",
        long_help = "The target to convert for: `mcp` (an MCP server's tools/list), `chat` (OpenAI \
Chat Completions), `responses` (OpenAI Responses API), `anthropic` (Anthropic Messages API), \
`gemini` (Gemini function declarations with OpenAPI `parameters`, which the Live API needs) or \
`gemini-json` (Gemini function declarations with `parametersJsonSchema`: JSON Schema, so \
recursive types, maps and unions survive). Needed unless --model is given.

Example: --to gemini"
    )]
    pub to: Option<TargetArg>,
    /// The model the tools are for: chooses the target (unless --to is given) and its profile.
    #[arg(
        long,
        value_name = "MODEL",
        long_help = "The model the tools are for, by its id (`gpt-4.1`, `o3-mini`, \
`ft:gpt-4o-mini:acme::id`, `claude-sonnet-4-5`, `gemini-2.5-pro`, `meta-llama/Llama-3.3-70B-\
Instruct`…). It chooses the target, unless --to is given, and the profile: OpenAI reasoning and \
fine-tuned models get `pattern`, `format` and ranges in words (they refuse them); a model behind \
an OpenAI-compatible endpoint (any id not OpenAI's, Anthropic's or Google's) gets every \
constraint in words and no strict mode (such endpoints ignore both). See docs/TARGET_RULES.md, \
\"Profiles\".

Example: --model o3-mini"
    )]
    pub model: Option<String>,
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
    /// Mark every tool loaded only when the model searches for it (`defer_loading`).
    #[arg(
        long,
        long_help = "Mark every tool loaded only when the model searches for it: `defer_loading: \
true` for the targets that take it (responses, anthropic), which then need a tool-search tool in \
the request. An Anthropic list keeps its first tool loaded, since Anthropic refuses a request \
whose tools are all deferred. The other targets ignore it.

Example: tooldef convert --to responses --defer-loading tools.json"
    )]
    pub defer_loading: bool,
}

impl ConversionArgs {
    /// The library's options for these arguments.
    pub fn options(&self) -> ConvertOptions {
        ConvertOptions {
            strict: self.strict.into(),
            lenient: self.lenient,
            profile: self.model().map(|model| model.profile).unwrap_or_default(),
            defer_loading: self.defer_loading,
        }
    }

    /// The target: --to, or the one --model calls for.
    pub fn target(&self) -> Target {
        match (self.to, self.model()) {
            (Some(to), _) => to.into(),
            (None, Some(model)) => model.target,
            // clap requires one of them.
            (None, None) => Target::ChatCompletions,
        }
    }

    fn model(&self) -> Option<ModelTarget> {
        self.model.as_deref().map(Target::for_model)
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
    /// The targets to check, comma-separated (default: all six).
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        value_name = "TARGETS",
        long_help = "The targets to check, comma-separated: any of mcp, chat, responses, \
anthropic, gemini, gemini-json. Default: all six.

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
    /// The requested targets, in the order given, without repeats; all six when none is given.
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
    /// The server and how long to wait for it.
    #[command(flatten)]
    pub server: ServerArgs,
}

/// An MCP server to start over stdio or reach over HTTP, as `list` and `call` take it: exactly
/// one of `-- COMMAND` and `--url`.
#[derive(Debug, Args)]
#[command(group(
    clap::ArgGroup::new("server")
        .args(["command", "url"])
        .required(true)
        .multiple(false)
))]
pub struct ServerArgs {
    /// What to do with the server's stderr: inherit (the default) or discard.
    #[arg(
        long,
        value_enum,
        default_value_t = ServerStderr::Inherit,
        value_name = "MODE",
        conflicts_with = "url",
        long_help = "What to do with the server's stderr: `inherit` (the default) shows it on this \
command's stderr, mixed with tooldef's progress lines; `discard` throws it away. Only for a \
server started with `-- COMMAND`.

Example: --server-stderr discard"
    )]
    pub server_stderr: ServerStderr,
    /// Seconds to wait for the server to start and list its tools (`call`: and as long again for
    /// the call).
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 30,
        value_parser = clap::value_parser!(u64).range(1..),
        long_help = "Seconds to wait for the server to initialise and list all its tools before \
giving up (exit status 2); `call` then waits as long again for the server to answer the call. \
Default: 30.

Example: --timeout 120"
    )]
    pub timeout: u64,
    /// The most `tools/list` pages to follow.
    #[arg(
        long,
        value_name = "N",
        default_value_t = Limits::PAGES,
        value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..),
        long_help = "The most pages of `tools/list` to follow. A server still paging after them \
makes the command fail (exit status 2): one that pages for ever would otherwise be followed \
until --timeout, taking memory all along. A page that gives a cursor an earlier page gave fails \
it at once. Default: 1000.

Example: --max-pages 5000"
    )]
    pub max_pages: usize,
    /// The most tools to take from the server, all pages together.
    #[arg(
        long,
        value_name = "N",
        default_value_t = Limits::TOOLS,
        value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..),
        long_help = "The most tools to take from the server, all pages of `tools/list` together; \
a server listing more makes the command fail (exit status 2). Default: 10000.

Example: --max-tools 50000"
    )]
    pub max_tools: usize,
    /// The most MiB of `tools/list` results (as JSON) to take from the server.
    #[arg(
        long,
        value_name = "MIB",
        default_value_t = Limits::MIB,
        value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1 << 20),
        long_help = "The most mebibytes of `tools/list` results, as JSON, all pages together; a \
server listing more makes the command fail (exit status 2). Default: 64.

Example: --max-list-mib 256"
    )]
    pub max_list_mib: usize,
    /// The server's command and its arguments, after `--` (or give --url).
    #[arg(
        last = true,
        value_name = "COMMAND",
        long_help = "The server's command and its arguments, after `--`. It is run directly (not \
through a shell) and must speak MCP over stdio. Needed unless --url is given.

Example: -- npx -y @modelcontextprotocol/server-everything"
    )]
    pub command: Vec<String>,
    /// The Streamable HTTP endpoint of a running MCP server, instead of `-- COMMAND`.
    #[arg(
        long,
        value_name = "URL",
        long_help = "The Streamable HTTP endpoint of an MCP server that is already running, \
instead of starting one with `-- COMMAND`. A server that cannot be reached, refuses the \
connection (401, 403), has no MCP endpoint at this path (404) or is not an MCP server fails the \
command at once (exit status 2), saying which.

Example: --url http://127.0.0.1:8000/mcp"
    )]
    pub url: Option<String>,
    /// A header to send with every request to --url, as `Name: value`. Repeatable.
    #[arg(
        long = "header",
        value_name = "NAME: VALUE",
        requires = "url",
        conflicts_with = "command",
        value_parser = header_arg,
        long_help = "A header to send with every HTTP request to the server given by --url, as \
`Name: value`. Repeatable. The headers the MCP client sets itself (`Accept`, `Mcp-Session-Id`, \
`MCP-Protocol-Version`, `Last-Event-Id`) cannot be given; a bearer token goes in --bearer-token.

Example: --header 'X-Api-Key: abc123'"
    )]
    pub headers: Vec<String>,
    /// The bearer token to send to --url [default: $TOOLDEF_BEARER_TOKEN, if set].
    #[arg(
        long,
        value_name = "TOKEN",
        requires = "url",
        conflicts_with = "command",
        long_help = "The bearer token to send to the server given by --url, as \
`Authorization: Bearer TOKEN` with every request. Without it, the environment variable \
TOOLDEF_BEARER_TOKEN is used when set (which keeps the token out of the process list).

Example: --bearer-token \"$(cat ~/.config/mcp-token)\""
    )]
    pub bearer_token: Option<String>,
    /// How to obtain OAuth tokens for --url: authorization-code (the browser),
    /// client-credentials or enterprise.
    #[arg(
        long,
        value_enum,
        default_value_t = GrantArg::AuthorizationCode,
        value_name = "GRANT",
        requires = "url",
        long_help = "How to obtain OAuth tokens when the server given by --url asks for them \
(HTTP 401 with a `WWW-Authenticate` challenge, MCP's authorization): `authorization-code` (the \
default) signs you in through your browser, with a redirect to this machine \
(`http://127.0.0.1:PORT/callback`); `client-credentials` authorizes this client itself, with \
--client-id and --client-secret (or --client-key), as a service does; `enterprise` exchanges \
your identity provider's ID token (--idp-id-token) for one, as enterprise-managed authorization \
(SEP-990) has it, with --client-id (and --client-secret) registered with the server's \
authorization server. Tokens are kept in \
$XDG_CONFIG_HOME/tooldef/oauth/ (else ~/.config/tooldef/oauth/), readable by you alone, and \
refreshed when they expire. Not used with --bearer-token or an `Authorization` --header.

Example: --oauth-grant client-credentials --client-id svc --client-key key.pem --client-key-alg ES256"
    )]
    pub oauth_grant: GrantArg,
    /// An OAuth client id registered with the server's authorization server beforehand.
    #[arg(
        long,
        value_name = "ID",
        requires = "url",
        long_help = "An OAuth client id registered with the server's authorization server \
beforehand. Without it, tooldef uses --client-metadata-url where the server takes client ID \
metadata documents, else registers itself (RFC 7591 dynamic registration) and keeps that \
registration with the tokens.

Example: --client-id 7f2c1a"
    )]
    pub client_id: Option<String>,
    /// The secret of --client-id [default: $TOOLDEF_CLIENT_SECRET, if set].
    #[arg(
        long,
        value_name = "SECRET",
        requires = "client_id",
        long_help = "The secret of --client-id (a confidential client). Without it, the \
environment variable TOOLDEF_CLIENT_SECRET is used when set (which keeps the secret out of the \
process list).

Example: --client-secret \"$(cat ~/.config/mcp-client-secret)\""
    )]
    pub client_secret: Option<String>,
    /// A PEM private key --client-id signs its token requests with (private_key_jwt), for
    /// --oauth-grant client-credentials.
    #[arg(
        long,
        value_name = "FILE",
        requires_all = ["client_id", "client_key_alg"],
        conflicts_with = "client_secret",
        long_help = "A PEM private key that --client-id authenticates with at the token \
endpoint by signing an assertion (RFC 7523, `private_key_jwt`) instead of sending a secret; for \
--oauth-grant client-credentials. Give its algorithm with --client-key-alg.

Example: --client-key ~/.config/mcp/client-key.pem --client-key-alg ES256"
    )]
    pub client_key: Option<PathBuf>,
    /// The algorithm of --client-key: ES256, ES384, RS256, RS384 or RS512.
    #[arg(long, value_name = "ALG", requires = "client_key")]
    pub client_key_alg: Option<String>,
    /// The HTTPS URL of this client's metadata document (CIMD), used as its client id where
    /// the server takes them.
    #[arg(
        long,
        value_name = "URL",
        requires = "url",
        long_help = "The HTTPS URL of a client ID metadata document describing this client (its \
name and redirect URIs), which an authorization server that advertises \
`client_id_metadata_document_supported` takes as the client id instead of a registration.

Example: --client-metadata-url https://example.com/tooldef-client.json"
    )]
    pub client_metadata_url: Option<String>,
    /// An OAuth scope to ask for (repeatable) [default: the ones the server asks for].
    #[arg(
        long = "scope",
        value_name = "SCOPE",
        requires = "url",
        long_help = "An OAuth scope to ask for, repeatable. By default tooldef asks for the \
scope of the server's challenge, else the scopes its metadata lists (`scopes_supported`), else \
none; a server that later refuses a request for want of scope (HTTP 403, insufficient_scope) is \
asked again for more, at most twice per request.

Example: --scope files:read --scope files:write"
    )]
    pub scopes: Vec<String>,
    /// The command that opens the sign-in page, given its URL [default: $TOOLDEF_AUTH_BROWSER,
    /// else the system's opener].
    #[arg(
        long,
        value_name = "COMMAND",
        requires = "url",
        long_help = "The command that opens the sign-in page, split at spaces, with the page's \
URL added as its last argument. Without it, the environment variable TOOLDEF_AUTH_BROWSER is \
used when set, else the system's opener (`xdg-open`, `open`) when stderr is a terminal; the URL \
is always shown on stderr. With neither a terminal nor a command, a server that asks you to \
sign in fails the command at once (exit status 2), saying so.

Example: --auth-browser 'firefox --new-window'"
    )]
    pub auth_browser: Option<String>,
    /// The issuer of your identity provider, for --oauth-grant enterprise.
    #[arg(
        long,
        value_name = "URL",
        requires = "url",
        long_help = "The issuer of your organisation's identity provider, for --oauth-grant \
enterprise: its token endpoint is found by OpenID Connect discovery, and the ID token of \
--idp-id-token is exchanged there for an identity assertion (an ID-JAG) addressed to the \
server's authorization server.

Example: --idp-issuer https://login.example.com"
    )]
    pub idp_issuer: Option<String>,
    /// This client's id at the identity provider, for --oauth-grant enterprise.
    #[arg(long, value_name = "ID", requires = "idp_issuer")]
    pub idp_client_id: Option<String>,
    /// This client's secret at the identity provider [default: $TOOLDEF_IDP_CLIENT_SECRET].
    #[arg(long, value_name = "SECRET", requires = "idp_client_id")]
    pub idp_client_secret: Option<String>,
    /// Your ID token from the identity provider [default: $TOOLDEF_IDP_ID_TOKEN].
    #[arg(
        long,
        value_name = "TOKEN",
        requires = "idp_issuer",
        long_help = "Your ID token from the identity provider of --idp-issuer, for --oauth-grant \
enterprise. Without it, the environment variable TOOLDEF_IDP_ID_TOKEN is used when set (which \
keeps it out of the process list).

Example: --idp-id-token \"$(cat ~/.cache/idp/id_token)\""
    )]
    pub idp_id_token: Option<String>,
    /// Seconds to wait for the sign-in in the browser.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 300,
        value_parser = clap::value_parser!(u64).range(1..),
        requires = "url",
        long_help = "Seconds to wait for you to sign in in the browser, after which the command \
fails (exit status 2). The time spent signing in does not count against --timeout. Default: 300.

Example: --auth-timeout 600"
    )]
    pub auth_timeout: u64,
}

/// How OAuth tokens are obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GrantArg {
    /// Sign in through the browser (the authorization code grant, with PKCE).
    AuthorizationCode,
    /// The client authorizes itself (the client_credentials grant).
    ClientCredentials,
    /// Your identity provider's ID token, exchanged (enterprise-managed authorization).
    Enterprise,
}

/// The environment variable holding --client-secret when it is not given.
pub const CLIENT_SECRET_ENV: &str = "TOOLDEF_CLIENT_SECRET";

/// The environment variable holding --idp-client-secret when it is not given.
pub const IDP_CLIENT_SECRET_ENV: &str = "TOOLDEF_IDP_CLIENT_SECRET";

/// The environment variable holding --idp-id-token when it is not given.
pub const IDP_ID_TOKEN_ENV: &str = "TOOLDEF_IDP_ID_TOKEN";

/// The environment variable holding --auth-browser when it is not given.
pub const AUTH_BROWSER_ENV: &str = "TOOLDEF_AUTH_BROWSER";

/// `--header` checked as HTTP takes it, so that a bad one is a usage error.
fn header_arg(line: &str) -> Result<String, String> {
    tooldef_gateway::parse_header(line).map(|_| line.to_owned())
}

/// The environment variable holding the token for --url when --bearer-token is not given.
pub const BEARER_TOKEN_ENV: &str = "TOOLDEF_BEARER_TOKEN";

impl ServerArgs {
    /// The server for messages: its URL, or its command as typed.
    pub fn shown(&self) -> String {
        self.url.clone().unwrap_or_else(|| self.command.join(" "))
    }

    /// The bearer token for --url: --bearer-token, else $TOOLDEF_BEARER_TOKEN (when not empty).
    pub fn bearer_token(&self) -> Option<String> {
        self.bearer_token.clone().or_else(|| {
            std::env::var(BEARER_TOKEN_ENV)
                .ok()
                .filter(|token| !token.is_empty())
        })
    }

    /// The secret of --client-id: --client-secret, else $TOOLDEF_CLIENT_SECRET (when not empty
    /// and a client id is given).
    pub fn client_secret(&self) -> Option<String> {
        self.client_secret.clone().or_else(|| {
            self.client_id.as_ref()?;
            std::env::var(CLIENT_SECRET_ENV)
                .ok()
                .filter(|secret| !secret.is_empty())
        })
    }

    /// A secret given by `flag`, else by the environment variable `var` (when not empty).
    pub fn flag_or_env(flag: &Option<String>, var: &str) -> Option<String> {
        flag.clone()
            .or_else(|| std::env::var(var).ok().filter(|value| !value.is_empty()))
    }

    /// The command of --auth-browser, else $TOOLDEF_AUTH_BROWSER, as program and arguments.
    pub fn auth_browser(&self) -> Option<Vec<String>> {
        let command = self
            .auth_browser
            .clone()
            .or_else(|| std::env::var(AUTH_BROWSER_ENV).ok())?;
        let words: Vec<String> = command.split_whitespace().map(str::to_owned).collect();
        (!words.is_empty()).then_some(words)
    }

    /// How far `tools/list` is followed.
    pub fn limits(&self) -> Limits {
        Limits {
            pages: self.max_pages,
            tools: self.max_tools,
            bytes: self.max_list_mib.saturating_mul(1 << 20),
        }
    }
}

/// `tooldef call`.
#[derive(Debug, Args)]
pub struct CallArgs {
    /// The target whose model sends the call (or give --model).
    #[arg(
        long,
        value_enum,
        value_name = "TARGET",
        required_unless_present = "model",
        long_help = "The target whose model sends the call: `mcp`, `chat`, `responses`, \
`anthropic`, `gemini` or `gemini-json`. The server's tools are converted for it as `list --to \
TARGET` would, and the call is read as that target's model sends it: under the name it was given, \
with the arguments in the shape of the converted schema. Needed unless --model is given.

Example: --to chat"
    )]
    pub to: Option<TargetArg>,
    /// The model that sends the call: chooses the target (unless --to is given) and its profile.
    #[arg(
        long,
        value_name = "MODEL",
        long_help = "The model that sends the call, by its id, as for `list --model`: the tools \
are converted for its target and profile, and the call is read as that model sends it.

Example: --model o3-mini"
    )]
    pub model: Option<String>,
    /// Strict mode for the OpenAI targets: auto, on or off.
    #[arg(
        long,
        value_enum,
        default_value_t = StrictArg::Auto,
        value_name = "MODE",
        long_help = "Strict mode for the OpenAI targets (chat, responses), as for `list`: it \
decides the schema the model was shown, and so which `null`s are restored away. Tools that \
cannot be converted are listed on stderr; calling one of them is an error (exit status 2).

Example: --strict off"
    )]
    pub strict: StrictArg,
    /// The tool to call: the name the target's model sees, or its original MCP name.
    #[arg(
        long,
        value_name = "NAME",
        long_help = "The tool to call: the name the target's model sees (`fs_read_file` for an MCP \
tool `fs.read_file` converted for OpenAI), or its original MCP name. An unknown name is an error \
(exit status 2) that names the closest tools.

Example: --tool git_log"
    )]
    pub tool: String,
    /// The arguments as the model sent them: JSON text, `-` for stdin; empty means `{}`.
    #[arg(
        long,
        value_name = "JSON",
        allow_hyphen_values = true,
        long_help = "The arguments as the target's model sent them: the JSON text of an object \
(a Chat Completions `function.arguments`, say), `-` to read it from stdin; empty or not given \
means `{}`. Anything but a JSON object is an error (exit status 2).

Example: --arguments '{\"repo_path\": \".\", \"max_count\": null}'"
    )]
    pub arguments: Option<String>,
    /// How to answer the server's questions during the call: the answer's JSON, `decline` or
    /// `cancel` [default: asked on the terminal when stdin is one, else declined].
    #[arg(
        long,
        value_name = "JSON|decline|cancel",
        allow_hyphen_values = true,
        long_help = "How to answer the questions the server asks during the call (MCP \
elicitation): the JSON object of the answer, accepted, with the fields it leaves out given the \
defaults the server's form has (a field without a default that the form requires makes it a \
decline, said on stderr); `decline`; or `cancel`. The same answer goes to every question. \
Without it, each question is asked on the terminal, field by field, when stdin is one; else \
questions are declined, saying so on stderr.

Example: --elicit '{\"name\": \"Ada\", \"confirm\": true}'"
    )]
    pub elicit: Option<String>,
    /// Print only the call's result: no conversion report, progress or arguments on stderr.
    #[arg(
        long,
        long_help = "Print only the call's result (on stdout, as without --quiet): leave out of \
stderr what the called tool's conversion changed, the progress lines (the server started, \
connected, its tools listed) and the arguments sent. Failures are still said on stderr, one \
line, and so are the server's questions (MCP elicitation) and a sign-in's messages. The exit \
status is the same.

Example: --quiet"
    )]
    pub quiet: bool,
    /// The server and how long to wait for it.
    #[command(flatten)]
    pub server: ServerArgs,
}

impl CallArgs {
    /// How the server's tools are converted: as `list --to TARGET --strict MODE --lenient`
    /// would (a tool that cannot be converted only matters if it is the one called).
    pub fn conversion(&self) -> ConversionArgs {
        ConversionArgs {
            to: self.to,
            model: self.model.clone(),
            strict: self.strict,
            lenient: true,
            names: None,
            defer_loading: false,
        }
    }
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
    /// Gemini function declarations with `parameters` (OpenAPI subset; the Live API too).
    Gemini,
    /// Gemini function declarations with `parametersJsonSchema` (JSON Schema with `$ref`).
    GeminiJson,
}

impl From<TargetArg> for Target {
    fn from(target: TargetArg) -> Self {
        match target {
            TargetArg::Mcp => Target::Mcp,
            TargetArg::Chat => Target::ChatCompletions,
            TargetArg::Responses => Target::Responses,
            TargetArg::Anthropic => Target::Anthropic,
            TargetArg::Gemini => Target::Gemini,
            TargetArg::GeminiJson => Target::GeminiJsonSchema,
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
