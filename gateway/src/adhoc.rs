//! An MCP server a request names itself, by an `mcp` tool's `server_url`: reached only when its
//! origin is in the configuration's `allowed_server_urls`, connected for that request alone with
//! the request's headers and token (which go to that server only: never to the upstream, never
//! into a log), its tools converted under the entry's label, and closed when the request ends.

use std::collections::HashSet;
use std::time::Duration;

use rmcp::service::RunningService;
use rmcp::{Peer, RoleClient, ServiceExt};
use serde_json::Value;
use tooldef::Target;
use tooldef::convert::Converted;

use crate::catalog::{Batch, Injected};
use crate::config::{Config, origin_of};
use crate::error::ApiError;
use crate::mcp_tool::{McpEntry, Remote};
use crate::remote::{ConnectFailure, RemoteServer};
use crate::servers::{CallOutcome, call_peer};

/// How long a request's server may take to start a session and list its tools.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// A request's own MCP server, connected.
pub struct Adhoc {
    /// The entry's `server_label`: the prefix of its tools.
    pub label: String,
    /// Its origin, one of `allowed_server_urls`: what metrics call it.
    pub origin: String,
    /// Its tools as it listed them (those `allowed_tools` admits), for `mcp_list_tools`.
    pub listed: Vec<Value>,
    /// Its tools, converted for the request's API.
    pub injected: Injected,
    /// Injected names whose calls need approval (they go back to the client).
    pub approval: HashSet<String>,
    peer: Peer<RoleClient>,
    /// Kept so that the session lives as long as the request; dropping it closes it.
    _running: RunningService<RoleClient, ()>,
    timeout: Duration,
}

impl Adhoc {
    /// Connects to the server `entry` names by URL and lists its tools, within the allowed
    /// origins; a server that cannot be used is a 424, as OpenAI answers for its hosted tool.
    pub async fn connect(
        config: &Config,
        entry: &McpEntry,
        remote: &Remote,
        target: Target,
    ) -> Result<Adhoc, ApiError> {
        let invalid =
            |message: String| ApiError::invalid(message, "invalid_mcp_tool").param("tools");
        let origin = origin_of(&remote.url)
            .map_err(|why| invalid(format!("`server_url` `{}` {why}.", remote.url)))?;
        let allowed = config
            .allowed_server_urls
            .iter()
            .any(|allowed| origin_of(allowed).is_ok_and(|allowed| allowed == origin));
        if !allowed {
            return Err(ApiError {
                code: Some("server_url_not_allowed"),
                ..invalid(format!(
                    "The `mcp` tool `{}` names the server `{}`, whose origin `{origin}` is not one this gateway may reach: its operator lists those in `allowed_server_urls`. Name one of its own servers with `server_label` instead.",
                    entry.label, remote.url
                ))
            });
        }
        let mut server = RemoteServer::new(&remote.url).map_err(invalid)?;
        for (name, value) in &remote.headers {
            server = server
                .header(&format!("{name}: {value}"))
                .map_err(invalid)?;
        }
        if let Some(token) = &remote.authorization {
            server = server.bearer_token(token.clone()).map_err(invalid)?;
        }
        let failed = |why: String| {
            ApiError::dependency(format!(
                "The MCP server `{}` of the `mcp` tool `{}` could not be used: {why}.",
                remote.url, entry.label
            ))
        };
        let running = tokio::time::timeout(CONNECT_TIMEOUT, ().serve(server.transport()))
            .await
            .map_err(|_| failed("it did not answer `initialize` in time".to_owned()))?
            .map_err(|err| {
                failed(
                    ConnectFailure::of_start(&err)
                        .map_or_else(|| err.to_string(), |f| f.to_string()),
                )
            })?;
        let peer = running.peer().clone();
        let tools = tokio::time::timeout(CONNECT_TIMEOUT, peer.list_all_tools())
            .await
            .map_err(|_| failed("it did not list its tools in time".to_owned()))?
            .map_err(|err| failed(format!("listing its tools failed: {err}")))?;
        let tools: Vec<Value> = tools
            .into_iter()
            .filter_map(|tool| serde_json::to_value(tool).ok())
            .filter(|tool| {
                let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
                let read_only =
                    tool.pointer("/annotations/readOnlyHint") == Some(&Value::Bool(true));
                entry
                    .allowed
                    .as_ref()
                    .is_none_or(|allowed| allowed.admits(name, read_only))
            })
            .collect();
        let mut batch = Batch::default();
        // The routes' source index means nothing here: calls to these tools go through
        // `Adhoc::call`, which `catalog::execute` tries before the gateway's own sources.
        batch.add(0, &entry.label, &entry.label, &config.separator, &tools);
        let injected = batch.convert(target);
        let approval = injected
            .routes
            .iter()
            .filter(|(_, route)| {
                entry
                    .approval
                    .as_ref()
                    .is_some_and(|approval| approval.required(&route.converted.original_name))
            })
            .map(|(name, _)| name.clone())
            .collect();
        tracing::info!(
            label = %entry.label,
            origin = %origin,
            tools = injected.names.len(),
            "a request's own MCP server connected"
        );
        Ok(Adhoc {
            label: entry.label.clone(),
            origin,
            listed: tools,
            injected,
            approval,
            peer,
            _running: running,
            timeout: Duration::from_secs(config.tool_timeout_secs),
        })
    }

    /// Calls one of its tools within the gateway's time limit, as a configured server's are.
    pub async fn call(&self, converted: &Converted, arguments: &str) -> CallOutcome {
        call_peer(&self.peer, converted, arguments, self.timeout, None).await
    }
}
