//! What a gateway is told: the upstream, the MCP servers, the mode and the limits. Read from
//! TOML (`tooldef gateway --config gateway.toml`) or built from flags; the same struct either way.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

mod oauth;

pub use oauth::{OAuthGrant, ServerOAuth};

/// Everything a gateway runs with.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Where to listen: localhost by default, so that nothing reaches the gateway (and, through
    /// it, the MCP servers' tools) unless the operator says so.
    #[serde(default = "default_listen")]
    pub listen: SocketAddr,
    /// The model server the gateway forwards to, with its version path, e.g.
    /// `https://api.openai.com/v1` or `http://localhost:8080/v1`. A file may leave it to the
    /// command line (`--upstream`).
    #[serde(default)]
    pub upstream: String,
    /// The APIs the upstream speaks (`chat`, `responses`, `messages`): a client of another is
    /// served by translating its requests and the replies. Found out when absent: the first
    /// request of each API asks the upstream whether it has the API's path (a 404 or 405 says
    /// no), and the answer is remembered.
    #[serde(default)]
    pub upstream_apis: Vec<crate::api::Api>,
    /// Execute injected calls here (the default), or hand every call to the client.
    #[serde(default)]
    pub mode: Mode,
    /// The most upstream requests one client request may take. The last allowed one is sent
    /// with `tool_choice: "none"`, so the model answers rather than leaving a call dangling.
    #[serde(default = "default_max_rounds")]
    pub max_rounds: u32,
    /// The most injected tool calls one client request may run, over all its rounds; no bound
    /// when absent. Once they are used up, the next round is the last (`tool_choice: "none"`),
    /// and calls beyond the bound in one turn are answered "not run" without running.
    #[serde(default)]
    pub max_tool_calls: Option<u32>,
    /// How long a tool call may take, in seconds, unless its server says otherwise.
    #[serde(default = "default_tool_timeout")]
    pub tool_timeout_secs: u64,
    /// Between a server's prefix and its tool's name.
    #[serde(default = "default_separator")]
    pub separator: String,
    /// The environment variable holding the key clients must present in `X-Tooldef-Key`. The
    /// key itself is never written in the configuration.
    #[serde(default)]
    pub key_env: Option<String>,
    /// The environment variable holding a key sent to the upstream as `Authorization: Bearer`
    /// when the client sends no `Authorization` of its own.
    #[serde(default)]
    pub upstream_key_env: Option<String>,
    /// How long results of injected calls are kept for a client's follow-up (replies that mix
    /// the client's calls with injected ones), in seconds.
    #[serde(default = "default_store_ttl")]
    pub store_ttl_secs: u64,
    /// Where that is kept: in this process's memory when absent (or `"memory"`), or in the Redis
    /// at a `redis://HOST:PORT/DB` URL (`rediss://` for TLS), which several gateway instances
    /// share so that a follow-up may reach any of them.
    #[serde(default)]
    pub store: Option<String>,
    /// The largest one kept entry may be, as JSON: a turn that would keep more is answered with
    /// an error rather than given to the client without its follow-up.
    #[serde(default = "default_store_max_entry_bytes")]
    pub store_max_entry_bytes: usize,
    /// The MCP servers, by name. The name is the prefix of their tools unless `prefix` says
    /// otherwise.
    #[serde(default)]
    pub servers: BTreeMap<String, ServerConfig>,
    /// The origins (`https://mcp.example.com`, `http://127.0.0.1:3001`) whose Streamable HTTP
    /// MCP servers a request may name itself, by an `mcp` tool's `server_url`; none by default,
    /// so that the gateway is no way into the operator's network.
    #[serde(default)]
    pub allowed_server_urls: Vec<String>,
    /// The most tools one upstream request may carry, the client's own included; the API's own
    /// limit (128 for OpenAI's) when absent, and never more than it. A request whose tools would
    /// be more gets the `pinned` tools and a search tool instead, and the tools the model finds
    /// with it in its next rounds.
    #[serde(default)]
    pub max_tools: Option<usize>,
    /// Tools a request always gets when there are too many to send them all: injected names
    /// (`github__create_issue`), or a server's name for all of its tools.
    #[serde(default)]
    pub pinned: Vec<String>,
    /// How a Responses upstream is given the servers' tools: under `SERVER__TOOL` names
    /// (`prefix`, the default, what every upstream takes) or in one `namespace` tool per server
    /// with the tools under their own names (OpenAI's own grouping). Chat Completions and
    /// Messages have no namespaces: they always get prefixes.
    #[serde(default)]
    pub tool_grouping: ToolGrouping,
    /// Who searches when there are more tools than a request carries: the gateway's own
    /// `tooldef_search_tools` function (`gateway`, the default, which works on every upstream),
    /// or the provider's mechanism (`provider`): on a Responses upstream serving a Responses
    /// client, the tools are sent deferred (`defer_loading`) beside a client-executed
    /// `tool_search` tool whose calls the gateway answers from its own index; on a Messages
    /// upstream (any client, however few the tools: Anthropic has no tool limit), the tools are
    /// sent deferred beside the gateway's search tool, loaded, whose calls are answered with
    /// `tool_reference` blocks that load the tools found (Anthropic's client-side tool search).
    /// Elsewhere the gateway's search is used.
    #[serde(default)]
    pub discovery: DiscoveryMode,
    /// Anthropic prompt caching of the tools: `cache_control` on the last tool a Messages
    /// upstream gets (after the injected ones), so that the tools are read from the cache in the
    /// next requests. `off` (the default), `5m` (Anthropic's default lifetime) or `1h`.
    #[serde(default)]
    pub anthropic_cache_tools: CacheTools,
    /// How long a stopping gateway (SIGTERM, Ctrl-C) lets the conversations in flight finish,
    /// in seconds; streams still running then end with an error event.
    #[serde(default = "default_shutdown_grace")]
    pub shutdown_grace_secs: u64,
    /// The OTLP/HTTP collector `tooldef gateway` exports its spans to (`http://HOST:4318`, as
    /// `OTEL_EXPORTER_OTLP_ENDPOINT`; spans go to its `/v1/traces`). A program embedding the
    /// gateway installs its own tracing subscriber, which may read this.
    #[serde(default)]
    pub otlp_endpoint: Option<String>,
    /// Tool calls' spans record their arguments and results: a debugging aid, off by default,
    /// since they may hold anything.
    #[serde(default)]
    pub trace_content: bool,
}

/// What the gateway does with the calls a model makes to injected tools.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Run them, append the results and ask the upstream again, so the client gets one answer.
    #[default]
    Execute,
    /// Inject the tools only; every call goes back to the client untouched.
    Inject,
}

impl std::str::FromStr for Mode {
    type Err = String;

    fn from_str(s: &str) -> Result<Mode, String> {
        match s {
            "execute" => Ok(Mode::Execute),
            "inject" => Ok(Mode::Inject),
            other => Err(format!(
                "unknown mode `{other}`: expected `execute` or `inject`"
            )),
        }
    }
}

/// How a Responses upstream is given the injected tools.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolGrouping {
    /// `SERVER__TOOL` function names, on every upstream.
    #[default]
    Prefix,
    /// One Responses `namespace` tool per server, its tools under their own names; prefixes on
    /// the APIs that have no namespaces.
    Namespace,
}

/// Who finds tools when a request has more than it may carry.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DiscoveryMode {
    /// The gateway's own search function, `tooldef_search_tools`, on every upstream.
    #[default]
    Gateway,
    /// The provider's deferred loading with a tool search the gateway answers: Responses'
    /// client-executed `tool_search` (Responses upstream and client), Anthropic's
    /// `tool_reference` blocks (Messages upstream); the gateway's search elsewhere.
    Provider,
}

/// Anthropic prompt caching of the tools a Messages upstream gets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub enum CacheTools {
    /// No `cache_control` is added.
    #[default]
    #[serde(rename = "off")]
    Off,
    /// `{"type": "ephemeral"}`: Anthropic's default lifetime, 5 minutes.
    #[serde(rename = "5m")]
    FiveMinutes,
    /// `{"type": "ephemeral", "ttl": "1h"}`.
    #[serde(rename = "1h")]
    OneHour,
}

impl CacheTools {
    /// The `cache_control` it puts on the last tool, if any.
    pub fn cache_control(self) -> Option<tooldef::targets::CacheControl> {
        use tooldef::targets::{CacheControl, CacheTtl};
        match self {
            CacheTools::Off => None,
            CacheTools::FiveMinutes => Some(CacheControl { ttl: None }),
            CacheTools::OneHour => Some(CacheControl {
                ttl: Some(CacheTtl::OneHour),
            }),
        }
    }
}

/// `FromStr` for a setting's words, as the command line's flags give them; an unknown word is
/// refused with the words there are.
macro_rules! from_words {
    ($type:ty, $what:literal, $($word:literal => $value:expr),+) => {
        impl std::str::FromStr for $type {
            type Err = String;

            fn from_str(s: &str) -> Result<$type, String> {
                match s {
                    $($word => Ok($value),)+
                    other => {
                        let words: Vec<String> = [$($word),+].iter().map(|w| format!("`{w}`")).collect();
                        Err(format!("unknown {} `{other}`: expected {}", $what, words.join(" or ")))
                    }
                }
            }
        }
    };
}

from_words!(ToolGrouping, "tool grouping", "prefix" => ToolGrouping::Prefix, "namespace" => ToolGrouping::Namespace);
from_words!(DiscoveryMode, "discovery", "gateway" => DiscoveryMode::Gateway, "provider" => DiscoveryMode::Provider);
from_words!(CacheTools, "tool caching", "off" => CacheTools::Off, "5m" => CacheTools::FiveMinutes, "1h" => CacheTools::OneHour);

/// A server's default for calls that a request's `mcp` tool does not settle.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RequireApproval {
    /// The gateway runs them.
    #[default]
    Never,
    /// They go back to the client as its own calls.
    Always,
}

/// One MCP server: a command the gateway starts (stdio) or a URL (Streamable HTTP).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerConfig {
    /// The program to start, for a stdio server.
    #[serde(default)]
    pub command: Option<String>,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Environment variables set for it (on top of the gateway's own). A value may take the
    /// gateway's own variables as `${VAR}` (`$$` is a `$`), so that no secret is written here.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Its working directory.
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    /// The MCP endpoint, for a Streamable HTTP server.
    #[serde(default)]
    pub url: Option<String>,
    /// The environment variable holding a bearer token for an HTTP server.
    #[serde(default)]
    pub bearer_token_env: Option<String>,
    /// OAuth for an HTTP server: the gateway obtains its tokens (the client_credentials grant)
    /// or is given them, and refreshes them; instead of `bearer_token_env`.
    #[serde(default)]
    pub oauth: Option<ServerOAuth>,
    /// Headers sent with every request to an HTTP server, by name; values take `${VAR}` as
    /// `env` does.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// The most calls to its tools running at once; a call waits for its turn within its time
    /// limit. No bound when absent.
    #[serde(default)]
    pub max_concurrent_calls: Option<u32>,
    /// Whether the gateway may run its tools' calls without asking (`never`, the default) or
    /// every call goes back to the client (`always`), unless a request's `mcp` tool says
    /// otherwise in its `require_approval`.
    #[serde(default)]
    pub require_approval: RequireApproval,
    /// Only these tools (by the server's own names); all when empty.
    #[serde(default)]
    pub allow: Vec<String>,
    /// Never these tools (by the server's own names).
    #[serde(default)]
    pub deny: Vec<String>,
    /// The prefix of its tools' names; the server's name when absent, none when empty.
    #[serde(default)]
    pub prefix: Option<String>,
    /// How long a call to its tools may take, in seconds; the gateway's `tool_timeout_secs`
    /// when absent.
    #[serde(default)]
    pub timeout_secs: Option<u64>,
}

impl ServerConfig {
    /// A server started as `command` (program, then arguments).
    pub fn stdio(program: impl Into<String>, args: impl IntoIterator<Item = String>) -> Self {
        ServerConfig {
            command: Some(program.into()),
            args: args.into_iter().collect(),
            ..ServerConfig::empty()
        }
    }

    /// A server reached over Streamable HTTP at `url`.
    pub fn http(url: impl Into<String>) -> Self {
        ServerConfig {
            url: Some(url.into()),
            ..ServerConfig::empty()
        }
    }

    fn empty() -> Self {
        ServerConfig {
            command: None,
            args: Vec::new(),
            env: BTreeMap::new(),
            cwd: None,
            url: None,
            bearer_token_env: None,
            oauth: None,
            headers: BTreeMap::new(),
            max_concurrent_calls: None,
            require_approval: RequireApproval::default(),
            allow: Vec::new(),
            deny: Vec::new(),
            prefix: None,
            timeout_secs: None,
        }
    }

    /// Its environment with every `${VAR}` replaced, or which variable is missing.
    pub fn expanded_env(&self) -> Result<BTreeMap<String, String>, String> {
        self.env
            .iter()
            .map(|(name, value)| Ok((name.clone(), expand(value, &format!("env.{name}"))?)))
            .collect()
    }

    /// Its headers as `Name: value` lines with every `${VAR}` replaced, or which variable is
    /// missing.
    pub fn expanded_headers(&self) -> Result<Vec<String>, String> {
        self.headers
            .iter()
            .map(|(name, value)| {
                Ok(format!(
                    "{name}: {}",
                    expand(value, &format!("headers.{name}"))?
                ))
            })
            .collect()
    }

    /// Whether a tool of this server (by its own name) is injected.
    pub fn admits(&self, tool: &str) -> bool {
        (self.allow.is_empty() || self.allow.iter().any(|a| a == tool))
            && !self.deny.iter().any(|d| d == tool)
    }
}

/// A configuration that cannot run, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The TOML is not a configuration.
    #[error("the configuration is not valid: {0}")]
    Toml(String),
    /// A server has neither or both of `command` and `url`.
    #[error(
        "server `{0}` needs exactly one of `command` (a stdio server) and `url` (a Streamable HTTP server)"
    )]
    Transport(String),
    /// Something else is out of range.
    #[error("{0}")]
    Invalid(String),
}

impl Config {
    /// A configuration with the defaults, forwarding to `upstream`.
    pub fn new(upstream: impl Into<String>) -> Config {
        Config {
            listen: default_listen(),
            upstream: upstream.into(),
            upstream_apis: Vec::new(),
            mode: Mode::default(),
            max_rounds: default_max_rounds(),
            max_tool_calls: None,
            tool_timeout_secs: default_tool_timeout(),
            separator: default_separator(),
            key_env: None,
            upstream_key_env: None,
            store_ttl_secs: default_store_ttl(),
            store: None,
            store_max_entry_bytes: default_store_max_entry_bytes(),
            servers: BTreeMap::new(),
            allowed_server_urls: Vec::new(),
            max_tools: None,
            pinned: Vec::new(),
            tool_grouping: ToolGrouping::default(),
            discovery: DiscoveryMode::default(),
            anthropic_cache_tools: CacheTools::default(),
            shutdown_grace_secs: default_shutdown_grace(),
            otlp_endpoint: None,
            trace_content: false,
        }
    }

    /// Reads a TOML configuration and checks it.
    pub fn from_toml(text: &str) -> Result<Config, ConfigError> {
        let config = Config::read_toml(text)?;
        config.check()?;
        Ok(config)
    }

    /// Reads a TOML configuration without checking it, for a caller that completes it first
    /// (the command line's flags over a file), then calls [`Config::check`].
    pub fn read_toml(text: &str) -> Result<Config, ConfigError> {
        toml::from_str(text).map_err(|e| ConfigError::Toml(e.to_string()))
    }

    /// Everything a run needs is there and in range.
    pub fn check(&self) -> Result<(), ConfigError> {
        if self.upstream.is_empty() {
            return Err(ConfigError::Invalid(
                "no upstream: name the model server in `upstream = \"http://…/v1\"`, or give `--upstream URL`".to_owned(),
            ));
        }
        if !(self.upstream.starts_with("http://") || self.upstream.starts_with("https://")) {
            return Err(ConfigError::Invalid(format!(
                "`upstream` must be an http:// or https:// URL, got `{}`",
                self.upstream
            )));
        }
        if self.max_rounds == 0 {
            return Err(ConfigError::Invalid(
                "`max_rounds` must be at least 1".to_owned(),
            ));
        }
        for origin in &self.allowed_server_urls {
            origin_of(origin).map_err(|why| {
                ConfigError::Invalid(format!("`allowed_server_urls`: `{origin}` {why}"))
            })?;
        }
        if self.max_tools.is_some_and(|tools| tools < 2) {
            return Err(ConfigError::Invalid(
                "`max_tools` must be at least 2: the search tool and one tool it finds".to_owned(),
            ));
        }
        if self.store_ttl_secs == 0 {
            return Err(ConfigError::Invalid(
                "`store_ttl_secs` must be at least 1".to_owned(),
            ));
        }
        if self.store_max_entry_bytes < 1024 {
            return Err(ConfigError::Invalid(format!(
                "`store_max_entry_bytes` must be at least 1024 (the default is {}), got {}",
                default_store_max_entry_bytes(),
                self.store_max_entry_bytes
            )));
        }
        crate::store::Store::check(self.store.as_deref()).map_err(ConfigError::Invalid)?;
        if self.max_tool_calls == Some(0) {
            return Err(ConfigError::Invalid(
                "`max_tool_calls` must be at least 1 (leave it out for no bound)".to_owned(),
            ));
        }
        for (name, server) in &self.servers {
            if server.command.is_some() == server.url.is_some() {
                return Err(ConfigError::Transport(name.clone()));
            }
            if name.is_empty() {
                return Err(ConfigError::Invalid(
                    "a server's name must not be empty".to_owned(),
                ));
            }
            let invalid = |why: String| ConfigError::Invalid(format!("server `{name}`: {why}"));
            if server.url.is_none() && !server.headers.is_empty() {
                return Err(invalid(
                    "`headers` are sent to HTTP servers (`url`); a stdio server takes `env`"
                        .to_owned(),
                ));
            }
            if let Some(oauth) = &server.oauth {
                if server.url.is_none() {
                    return Err(invalid(
                        "`oauth` is for HTTP servers (`url`); a stdio server takes `env`"
                            .to_owned(),
                    ));
                }
                if server.bearer_token_env.is_some()
                    || server
                        .headers
                        .keys()
                        .any(|name| name.eq_ignore_ascii_case("authorization"))
                {
                    return Err(invalid(
                        "`oauth` authorizes the requests itself: leave out `bearer_token_env` \
                         and an `Authorization` header"
                            .to_owned(),
                    ));
                }
                oauth.check().map_err(invalid)?;
            }
            if server.max_concurrent_calls == Some(0) {
                return Err(invalid(
                    "`max_concurrent_calls` must be at least 1 (leave it out for no bound)"
                        .to_owned(),
                ));
            }
            for (key, value) in &server.env {
                check_references(value, &format!("env.{key}")).map_err(invalid)?;
            }
            for (key, value) in &server.headers {
                check_references(value, &format!("headers.{key}")).map_err(invalid)?;
                // The name and a value without references are checked as they will be sent.
                let sample = if value.contains('$') {
                    "x"
                } else {
                    value.as_str()
                };
                crate::remote::parse_header(&format!("{key}: {sample}")).map_err(invalid)?;
            }
        }
        Ok(())
    }

    /// The per-call time limit of `server`.
    pub fn tool_timeout(&self, server: &ServerConfig) -> Duration {
        Duration::from_secs(server.timeout_secs.unwrap_or(self.tool_timeout_secs))
    }
}

/// The origin of an http(s) URL (`scheme://host:port`, the port always written), which is what
/// `allowed_server_urls` compares; `Err` says why there is none.
pub fn origin_of(url: &str) -> Result<String, String> {
    let parsed = reqwest::Url::parse(url).map_err(|err| format!("is not a URL ({err})"))?;
    match (
        parsed.scheme(),
        parsed.host_str(),
        parsed.port_or_known_default(),
    ) {
        (scheme @ ("http" | "https"), Some(host), Some(port)) => {
            Ok(format!("{scheme}://{host}:{port}"))
        }
        _ => Err("is not an http:// or https:// URL with a host".to_owned()),
    }
}

/// `value` with each `${VAR}` replaced by the gateway's environment variable `VAR` and each `$$`
/// by `$`; any other `$` stays. `Err` names the variable that is not set, and `place` (e.g.
/// `env.TOKEN`) where it was asked for.
pub fn expand(value: &str, place: &str) -> Result<String, String> {
    expand_with(value, place, |name| std::env::var(name).ok())
}

fn expand_with(
    value: &str,
    place: &str,
    var: impl Fn(&str) -> Option<String>,
) -> Result<String, String> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix('$') {
            out.push('$');
            rest = tail;
        } else if let Some(tail) = after.strip_prefix('{') {
            let (name, tail) = tail
                .split_once('}')
                .ok_or_else(|| format!("`{place}` has a `${{` without its `}}`"))?;
            if !is_variable_name(name) {
                return Err(format!(
                    "`{place}`: `${{{name}}}` is not an environment variable's name"
                ));
            }
            let found = var(name).ok_or_else(|| {
                format!("`{place}` takes the environment variable `{name}`, which is not set")
            })?;
            out.push_str(&found);
            rest = tail;
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    Ok(out)
}

fn is_variable_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether the references in `value` are well formed (whether the variables are set is known
/// only when the server starts, in the environment it starts in).
fn check_references(value: &str, place: &str) -> Result<(), String> {
    expand_with(value, place, |_| Some(String::new())).map(drop)
}

fn default_listen() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 8080))
}

fn default_max_rounds() -> u32 {
    10
}

fn default_tool_timeout() -> u64 {
    60
}

fn default_separator() -> String {
    "__".to_owned()
}

fn default_store_ttl() -> u64 {
    900
}

fn default_store_max_entry_bytes() -> usize {
    4 << 20
}

fn default_shutdown_grace() -> u64 {
    30
}

#[cfg(test)]
mod tests;
