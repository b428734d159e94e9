//! The tools of one request: the injected ones it gets (chosen by its hosted-MCP entries, less
//! those whose names the client's own tools take, those of servers that are down, and, beyond what
//! one request carries, all but the pinned and found ones), and what each injected name stands
//! for. Built once per request, before its first round.

use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::Arc;

use axum::http::{HeaderName, HeaderValue};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tooldef::Target;

use crate::adhoc::Adhoc;
use crate::api::Api;
use crate::catalog::{Catalog, Injected, Namespace, Route, Source};
use crate::config::DiscoveryMode;
use crate::config::RequireApproval;
use crate::discovery::{Candidate, Discovery, SEARCH_TOOL};
use crate::error::ApiError;
use crate::gateway::Inner;
use crate::mcp_tool::McpEntry;

/// The tools of one request: what was injected, and the client's tools that won a name.
pub(crate) struct Injection {
    pub catalog: Arc<Catalog>,
    pub target: Target,
    /// Whether any tools were injected (not for `tool_choice: "none"`, nor without tools).
    pub active: bool,
    /// Whether the gateway runs calls (execute mode); in inject mode every call is the
    /// client's.
    pub runs: bool,
    /// Injected names the client's own tools took.
    pub conflicts: Vec<String>,
    /// The injected tools this request gets when its `mcp` tools chose some; all otherwise.
    pub offered: Option<HashSet<String>>,
    /// Injected tools whose calls need approval: they go back to the client as its own calls.
    pub approval: HashSet<String>,
    /// The servers the request named by URL, connected for it.
    pub adhoc: Vec<Arc<Adhoc>>,
    /// When its tools are more than one request can carry: the pinned ones, and a search for
    /// the others.
    pub discovery: Option<Discovery>,
    /// The sources (by position) whose tools this request would get but which are down: their
    /// tools are not sent, and calls to them are answered "not running".
    pub down: Vec<usize>,
    /// The prompt-caching breakpoint put on the last injected tool (Anthropic upstreams with
    /// `anthropic_cache_tools`).
    pub cache: Option<tooldef::targets::CacheControl>,
}

impl Injection {
    /// The injected tools for the request's API.
    pub fn injected(&self) -> &Injected {
        self.catalog.for_target(self.target)
    }

    /// Whether an injected tool is sent with this request: not displaced by a client's tool,
    /// and chosen by its `mcp` tools if it has any (a server it named by URL, all of whose
    /// admitted tools it gets, included).
    pub fn offers(&self, name: &str) -> bool {
        self.active && !self.conflicts.iter().any(|c| c == name) && self.chose(name)
    }

    /// Whether an injected tool is among those the request's `mcp` tools chose (all of them when
    /// it has none), whether or not it is sent this time.
    pub fn chose(&self, name: &str) -> bool {
        self.offered
            .as_ref()
            .is_none_or(|offered| offered.contains(name))
            || self.adhoc_route(name).is_some()
    }

    /// Whether a round's request carries the injected tool `name`: offered, and, when there
    /// are too many to send, pinned or found.
    pub fn sends(&self, name: &str) -> bool {
        self.offers(name)
            && !self.is_down(name)
            && self
                .discovery
                .as_ref()
                .is_none_or(|discovery| discovery.sends(name))
    }

    /// The injected tools a round carries, in the upstream's API's form: the search tool first
    /// when there is one, then the injected tools this request sends (all of them, or `only`
    /// that one for a round forced to call it). Each is serialised once per catalog; what is
    /// written per request is only what differs per request: a deferred tool's
    /// `defer_loading`, and the `namespace` tools (`tool_grouping = "namespace"`) holding the
    /// tools sent, at the place of their first.
    pub fn wire_tools(&self, only: Option<&str>) -> Vec<Cow<'_, RawValue>> {
        if !self.active {
            return Vec::new();
        }
        enum Slot<'a> {
            Tool(Cow<'a, RawValue>),
            Group(usize),
        }
        let mut slots = Vec::new();
        let search = self
            .discovery
            .as_ref()
            .filter(|_| only.is_none_or(|only| only == SEARCH_TOOL))
            .map(|discovery| Slot::Tool(Cow::Borrowed(&*discovery.definition)));
        // Anthropic's search tool goes last: the last tool carries the prompt-caching
        // breakpoint (`anthropic_cache_tools`), which belongs on a loaded tool, and there it
        // caches every loaded tool before it. Elsewhere it goes first.
        let search_last = self
            .discovery
            .as_ref()
            .is_some_and(Discovery::loads_by_reference);
        let mut search = search;
        if !search_last {
            slots.extend(search.take());
        }
        let catalog = self.injected();
        let mut members: Vec<Vec<Cow<'_, RawValue>>> = vec![Vec::new(); catalog.namespaces.len()];
        let sources = std::iter::once((catalog, true))
            .chain(self.adhoc.iter().map(|adhoc| (&adhoc.injected, false)));
        for (injected, grouped) in sources {
            for (at, (name, raw)) in injected.names.iter().zip(&injected.raw).enumerate() {
                if only.is_some_and(|only| only != name) || !self.sends(name) {
                    continue;
                }
                // A round forced to call one tool carries it alone: loaded, since a request
                // needs one loaded tool (and a deferred one nothing could load).
                let raw: &RawValue = match &self.discovery {
                    Some(discovery) if only.is_none() && discovery.defers(name) => {
                        injected.deferred_raw(at)
                    }
                    _ => raw,
                };
                let raw = Cow::Borrowed(raw);
                match injected
                    .groups
                    .get(at)
                    .copied()
                    .flatten()
                    .filter(|_| grouped)
                {
                    Some(group) => {
                        if members[group].is_empty() {
                            slots.push(Slot::Group(group));
                        }
                        members[group].push(raw);
                    }
                    None => slots.push(Slot::Tool(raw)),
                }
            }
        }
        slots.extend(search);
        slots
            .into_iter()
            .map(|slot| match slot {
                Slot::Tool(raw) => raw,
                Slot::Group(group) => Cow::Owned(namespace_tool(
                    &catalog.namespaces[group],
                    &std::mem::take(&mut members[group]),
                )),
            })
            .collect()
    }

    /// Whether an injected tool's server is down.
    fn is_down(&self, name: &str) -> bool {
        !self.down.is_empty()
            && self
                .injected()
                .routes
                .get(name)
                .is_some_and(|route| self.down.contains(&route.source))
    }

    /// The headers that tell the client what became of its request's tools: which of its own
    /// took an injected tool's name (`x-tooldef-conflicts`), and which servers were left out
    /// because they are down (`x-tooldef-servers-down`).
    pub fn headers(&self, sources: &[Source]) -> Vec<(HeaderName, HeaderValue)> {
        let down: Vec<&str> = self.down.iter().map(|&i| sources[i].name()).collect();
        [
            (crate::headers::CONFLICTS, self.conflicts.join(", ")),
            (crate::headers::SERVERS_DOWN, down.join(", ")),
        ]
        .into_iter()
        .filter(|(_, value)| !value.is_empty())
        .filter_map(|(name, value)| crate::headers::text(name, &value))
        .collect()
    }

    /// For an injected tool, whether its calls need approval; `None` for any other name.
    pub(crate) fn needs_approval(&self, name: &str) -> Option<bool> {
        match self.adhoc_route(name) {
            Some((adhoc, _)) => Some(adhoc.approval.contains(name)),
            None if self.injected().routes.contains_key(name) => Some(self.approval.contains(name)),
            None => None,
        }
    }

    /// The server (its `server_label`: a configured source's name, or a request's own server's
    /// label) and the tool's own name that an injected name stands for.
    pub fn server_and_tool<'a>(
        &'a self,
        sources: &'a [Source],
        name: &str,
    ) -> Option<(&'a str, &'a str)> {
        if let Some((adhoc, route)) = self.adhoc_route(name) {
            return Some((&adhoc.label, &route.converted.original_name));
        }
        let route = self.injected().routes.get(name)?;
        Some((sources[route.source].name(), &route.converted.original_name))
    }

    /// The injected name of a server's tool, as [`Injection::server_and_tool`] reads it back.
    pub fn injected_name(&self, sources: &[Source], label: &str, tool: &str) -> Option<String> {
        let routes = std::iter::once(self.injected())
            .chain(self.adhoc.iter().map(|adhoc| &adhoc.injected))
            .flat_map(|injected| injected.routes.keys());
        routes
            .into_iter()
            .find(|name| self.server_and_tool(sources, name) == Some((label, tool)))
            .cloned()
    }

    /// The server named by URL that gives the injected tool `name`, and its route.
    pub fn adhoc_route(&self, name: &str) -> Option<(&Adhoc, &Route)> {
        self.adhoc.iter().find_map(|adhoc| {
            adhoc
                .injected
                .routes
                .get(name)
                .map(|route| (&**adhoc, route))
        })
    }
}

impl Inner {
    /// Connects the servers a request's `mcp` entries name by URL. Their labels become their
    /// tools' prefix, so a label must not be one of the gateway's own servers' names or prefixes.
    pub async fn connect_remotes(
        &self,
        entries: &[McpEntry],
        target: Target,
    ) -> Result<Vec<Arc<Adhoc>>, ApiError> {
        let mut connected = Vec::new();
        for entry in entries {
            let Some(remote) = &entry.remote else {
                continue;
            };
            if self
                .sources
                .iter()
                .any(|source| source.name() == entry.label || source.prefix() == entry.label)
            {
                return Err(ApiError::invalid(
                    format!(
                        "The `mcp` tool with `server_url` is labelled `{}`, which is the name of one of this gateway's own servers: give it another `server_label`.",
                        entry.label
                    ),
                    "invalid_mcp_tool",
                )
                .param("tools"));
            }
            connected.push(Arc::new(
                Adhoc::connect(&self.config, entry, remote, target).await?,
            ));
        }
        Ok(connected)
    }

    /// The injected tools a request's `mcp` entries choose (`None`: no entries, all of them), and
    /// those whose calls need approval: as the entry of its server says, or else as the server's
    /// configuration does.
    fn selection(
        &self,
        injected: &Injected,
        entries: &[McpEntry],
    ) -> (Option<HashSet<String>>, HashSet<String>) {
        // The common request: no entries, and no server that asks first. Nothing to walk.
        let asks = |source: &Source| match source {
            Source::Mcp(server) => server.config.require_approval == RequireApproval::Always,
            Source::Tools { .. } => false,
        };
        if entries.is_empty() && !self.sources.iter().any(asks) {
            return (None, HashSet::new());
        }
        let mut offered = HashSet::new();
        let mut approval = HashSet::new();
        for (name, route) in &injected.routes {
            let source = &self.sources[route.source];
            let original = route.converted.original_name.as_str();
            let entry = entries.iter().find(|entry| entry.label == source.name());
            if !entries.is_empty() {
                let chosen = entry.is_some_and(|entry| {
                    entry
                        .allowed
                        .as_ref()
                        .is_none_or(|allowed| allowed.admits(original, route.read_only))
                });
                if !chosen {
                    continue;
                }
                offered.insert(name.clone());
            }
            let required = match entry.and_then(|entry| entry.approval.as_ref()) {
                Some(approval) => approval.required(original),
                None => asks(source),
            };
            if required {
                approval.insert(name.clone());
            }
        }
        ((!entries.is_empty()).then_some(offered), approval)
    }

    /// Which injected tools a request gets (written after the client's own by
    /// [`Outgoing`](crate::body::Outgoing)): those of the servers its `mcp` tools name, as they
    /// filter them, or all when it has none; but not those whose names the client's tools take,
    /// and none when the request's `tool_choice` forbids calls (`forbidden`); refuses more tools
    /// than the API takes. `client` is the client's API: the provider's search is for a
    /// Responses client of a Responses upstream, whose conversation carries its items both ways.
    pub fn inject(
        &self,
        client_api: Api,
        target: Target,
        request: &Map<String, Value>,
        entries: &[McpEntry],
        adhoc: Vec<Arc<Adhoc>>,
        forbidden: bool,
    ) -> Result<Injection, ApiError> {
        let catalog = self.catalog();
        for entry in entries.iter().filter(|entry| entry.remote.is_none()) {
            if !self
                .sources
                .iter()
                .any(|source| source.name() == entry.label)
            {
                let labels: Vec<&str> = self.sources.iter().map(Source::name).collect();
                return Err(ApiError::invalid(
                    format!(
                        "This gateway has no MCP server labelled `{}`: its servers are {}.",
                        entry.label,
                        labels.join(", ")
                    ),
                    "unknown_mcp_server",
                )
                .param("tools"));
            }
        }
        let (offered, approval) = self.selection(catalog.for_target(target), entries);
        let mut injection = Injection {
            catalog: catalog.clone(),
            target,
            active: false,
            runs: self.executes(),
            conflicts: Vec::new(),
            offered,
            approval,
            adhoc,
            discovery: None,
            down: Vec::new(),
            cache: None,
        };
        if target == Target::Anthropic {
            injection.cache = self.config.anthropic_cache_tools.cache_control();
        }
        if forbidden {
            return Ok(injection);
        }
        let injected = catalog.for_target(target);
        injection.down = self
            .sources
            .iter()
            .enumerate()
            .filter(|(_, source)| matches!(source, Source::Mcp(server) if !server.is_running()))
            .filter(|(_, source)| {
                entries.is_empty() || entries.iter().any(|entry| entry.label == source.name())
            })
            .map(|(i, _)| i)
            .collect();
        // Walked only when a server is down: the common request has none.
        let left_out = if injection.down.is_empty() {
            0
        } else {
            injected
                .routes
                .iter()
                .filter(|(name, _)| injection.is_down(name) && injection.chose(name))
                .count()
        };
        let offered = injection
            .offered
            .as_ref()
            .map_or(injected.tools.len(), HashSet::len)
            + injection
                .adhoc
                .iter()
                .map(|adhoc| adhoc.injected.names.len())
                .sum::<usize>()
            - left_out;
        if offered == 0 {
            return Ok(injection);
        }
        let client: &[Value] = match request.get("tools") {
            None | Some(Value::Null) => &[],
            Some(Value::Array(tools)) => tools,
            Some(_) => {
                return Err(
                    ApiError::invalid("`tools` must be an array.", "invalid_tools").param("tools"),
                );
            }
        };
        // The client's tools take their names: a Chat tool's `function.name`, a Responses
        // tool's `name`.
        let conflicts: Vec<String> = client
            .iter()
            .filter_map(|tool| {
                tool.get("function")
                    .and_then(|f| f.get("name"))
                    .or_else(|| tool.get("name"))
                    .and_then(Value::as_str)
            })
            .filter(|name| {
                (injected.routes.contains_key(*name)
                    && injection
                        .offered
                        .as_ref()
                        .is_none_or(|offered| offered.contains(*name)))
                    || injection.adhoc_route(name).is_some()
            })
            .map(str::to_owned)
            .collect();
        let total = client.len() + offered - conflicts.len();
        if !conflicts.is_empty() {
            tracing::warn!(
                tools = %conflicts.join(", "),
                "the client's own tools take these names: the injected ones are left out"
            );
        }
        injection.active = true;
        injection.conflicts = conflicts;
        let limit = match (target.max_tools(), self.config.max_tools) {
            (Some(api), Some(configured)) => Some(api.min(configured)),
            (api, configured) => api.or(configured),
        };
        // The provider's deferred loading: Responses' for a Responses client only (its
        // conversation carries the `tool_search_call` items both ways); Anthropic's for any
        // client (its search is a tool call like the others, its references are put back into
        // a translated request) and however few the tools, since Anthropic has no tool limit and
        // deferral is what keeps them out of the context.
        let provider = self.config.discovery == DiscoveryMode::Provider
            && self.executes()
            && match target {
                Target::Responses => client_api == Api::Responses,
                Target::Anthropic => true,
                _ => false,
            };
        let over = limit.is_some_and(|limit| total > limit);
        if over || (provider && target == Target::Anthropic) {
            injection.discovery = self.discovery(&injection, client.len(), limit, provider)?;
        }
        Ok(injection)
    }

    /// The search for a request whose tools are more than `limit`: its pinned tools are sent,
    /// with the search tool, and as many found ones as there is room for; with the provider's
    /// search (`provider`), every tool is sent, the pinned ones loaded and the others deferred,
    /// and only the loaded ones count against `limit` (if there is one: Anthropic has none).
    /// `None` when there is nothing to search (every tool pinned).
    fn discovery(
        &self,
        injection: &Injection,
        client: usize,
        limit: Option<usize>,
        provider: bool,
    ) -> Result<Option<Discovery>, ApiError> {
        let catalog = injection.injected();
        let injected =
            std::iter::once(catalog).chain(injection.adhoc.iter().map(|adhoc| &adhoc.injected));
        let mut pinned = std::collections::HashSet::new();
        let mut candidates = Vec::new();
        for injected in injected {
            for (at, name) in injected.names.iter().enumerate() {
                if !injection.offers(name) || injection.is_down(name) {
                    continue;
                }
                let server = injection
                    .server_and_tool(&self.sources, name)
                    .map(|(server, _)| server);
                let pin = self
                    .config
                    .pinned
                    .iter()
                    .any(|pin| pin == name || Some(pin.as_str()) == server);
                if pin {
                    pinned.insert(name.clone());
                } else {
                    let grouped = std::ptr::eq(injected, catalog);
                    candidates.push(Candidate::of(injected, at, grouped));
                }
            }
        }
        if candidates.is_empty() {
            return Ok(None);
        }
        if provider && injection.target == Target::Responses && client + pinned.len() == 0 {
            // OpenAI's loaded functions are what the model starts from: one stays loaded.
            // (Anthropic's search tool is a loaded tool of its own.)
            pinned.insert(candidates.remove(0).name);
        }
        // The client's tools, the pinned ones, the search tool, and (with the gateway's search)
        // at least one found.
        let fixed = client + pinned.len() + 1;
        if let Some(limit) = limit.filter(|&limit| fixed + usize::from(!provider) > limit) {
            return Err(ApiError::invalid(
                format!(
                    "This request would carry {} tools ({client} of yours and {} injected by the \
                     gateway), more than the {limit} one request may carry; the gateway finds \
                     tools by search when there are too many, but your {client} and the {} it \
                     pins leave no room for the search. Send fewer tools, or pin fewer \
                     (`pinned` in the gateway's configuration).",
                    client + pinned.len() + candidates.len(),
                    pinned.len() + candidates.len(),
                    pinned.len(),
                ),
                "too_many_tools",
            )
            .param("tools"));
        }
        tracing::info!(
            pinned = pinned.len(),
            searchable = candidates.len(),
            limit,
            provider,
            "sending the pinned tools and a search for the others"
        );
        Ok(Some(Discovery::new(
            injection.target,
            provider,
            pinned,
            candidates,
            limit.map_or(usize::MAX, |limit| limit.saturating_sub(fixed)),
        )))
    }
}

/// A Responses `namespace` tool holding `members` (function tools, already serialised).
fn namespace_tool(namespace: &Namespace, members: &[Cow<'_, RawValue>]) -> Box<RawValue> {
    let mut written = format!(
        "{{\"type\":\"namespace\",\"name\":{},\"description\":{},\"tools\":[",
        Value::from(namespace.name.as_str()),
        Value::from(namespace.description.as_str())
    );
    for (k, member) in members.iter().enumerate() {
        if k > 0 {
            written.push(',');
        }
        written.push_str(member.get());
    }
    written.push_str("]}");
    RawValue::from_string(written).expect("a namespace of serialised tools is JSON")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::body::Outgoing;

    use crate::catalog::test_source as source;

    fn injection(catalog: Arc<Catalog>, target: Target) -> Injection {
        Injection {
            catalog,
            target,
            active: true,
            runs: true,
            conflicts: Vec::new(),
            offered: None,
            approval: HashSet::new(),
            adhoc: Vec::new(),
            discovery: None,
            down: Vec::new(),
            cache: None,
        }
    }

    fn written(tools: Vec<Cow<'_, RawValue>>) -> Vec<Value> {
        tools
            .iter()
            .map(|raw| serde_json::from_str(raw.get()).unwrap())
            .collect()
    }

    #[test]
    fn the_providers_search_sends_namespaces_deferred_but_the_pinned_and_a_client_search() {
        let sources = [
            source("github", &["create_issue", "merge_pull_request"]),
            source("example", &["get_time"]),
        ];
        let catalog = Arc::new(Catalog::build(&sources, "__", 1, true));
        let injected = catalog.for_target(Target::Responses);
        let candidates = (0..injected.names.len())
            .filter(|&at| !injected.names[at].starts_with("example"))
            .map(|at| Candidate::of(injected, at, true))
            .collect();
        let mut injection = injection(catalog.clone(), Target::Responses);
        injection.discovery = Some(Discovery::new(
            Target::Responses,
            true,
            HashSet::from(["example__get_time".to_owned()]),
            candidates,
            0,
        ));
        let tools = written(injection.wire_tools(None));
        assert_eq!(tools.len(), 3, "{tools:#?}");
        assert_eq!(
            (&tools[0]["type"], &tools[0]["execution"]),
            (&json!("tool_search"), &json!("client"))
        );
        assert_eq!(tools[1]["type"], "namespace");
        assert_eq!(tools[1]["name"], "github");
        let members = tools[1]["tools"].as_array().unwrap();
        assert_eq!(members.len(), 2);
        assert!(members.iter().all(|tool| tool["defer_loading"] == true));
        assert_eq!(members[1]["name"], "merge_pull_request");
        assert_eq!(tools[2]["name"], "example");
        assert!(
            tools[2]["tools"][0].get("defer_loading").is_none(),
            "the pinned tool is loaded"
        );
        // A round forced to one tool carries that tool alone, in its namespace.
        let only = written(injection.wire_tools(Some("github__merge_pull_request")));
        assert_eq!(only.len(), 1);
        assert_eq!(only[0]["tools"].as_array().unwrap().len(), 1);

        // The search answers with the tools it loads, in their namespace.
        let discovery = injection.discovery.as_ref().unwrap();
        assert!(discovery.is_search(crate::discovery::PROVIDER_SEARCH));
        assert!(!discovery.is_search(SEARCH_TOOL));
        let outcome = discovery.answer(r#"{"query": "merge a pull request"}"#);
        let call = tooldef::calls::ToolCall {
            id: "ts_1".to_owned(),
            name: crate::discovery::PROVIDER_SEARCH.to_owned(),
            arguments: String::new(),
        };
        let item = crate::discovery::tool_search_output(&call, &outcome);
        assert_eq!(item["type"], "tool_search_output");
        assert_eq!(item["call_id"], "ts_1");
        assert_eq!(item["tools"][0]["type"], "namespace");
        assert_eq!(item["tools"][0]["name"], "github");
        assert_eq!(
            item["tools"][0]["tools"][0]["name"], "merge_pull_request",
            "{item:#}"
        );
        assert!(item["tools"][0]["tools"][0].get("defer_loading").is_none());
        let none = discovery.answer(r#"{"q": 1}"#);
        assert!(none.is_error);
        assert_eq!(
            crate::discovery::tool_search_output(&call, &none)["tools"],
            json!([])
        );
    }

    #[test]
    fn the_last_tool_an_anthropic_upstream_gets_carries_the_cache_breakpoint() {
        let catalog = Arc::new(Catalog::build(
            &[source("github", &["create_issue", "get_me"])],
            "__",
            1,
            false,
        ));
        let request =
            json!({"tools": [{"name": "lookup_order", "input_schema": {"type": "object"}}]});
        let request = request.as_object().unwrap();
        let outgoing = |injection: &Injection| {
            serde_json::to_value(Outgoing {
                request,
                conversation: None,
                tool_choice: None,
                only: None,
                tool_name: |tool| tool.get("name").and_then(Value::as_str),
                injection,
            })
            .unwrap()
        };
        let mut cached = injection(catalog.clone(), Target::Anthropic);
        cached.cache = crate::config::CacheTools::OneHour.cache_control();
        let tools = outgoing(&cached)["tools"].as_array().unwrap().clone();
        assert_eq!(tools.len(), 3);
        assert_eq!(
            tools[2]["cache_control"],
            json!({"type": "ephemeral", "ttl": "1h"})
        );
        assert_eq!(tools[2]["name"], "github__get_me");
        assert!(
            tools[..2]
                .iter()
                .all(|tool| tool.get("cache_control").is_none())
        );
        let mut cached = injection(catalog.clone(), Target::Anthropic);
        cached.cache = crate::config::CacheTools::FiveMinutes.cache_control();
        assert_eq!(
            outgoing(&cached)["tools"][2]["cache_control"],
            json!({"type": "ephemeral"})
        );
        // Off by default: nothing is added.
        let plain = injection(catalog, Target::Anthropic);
        let tools = outgoing(&plain)["tools"].as_array().unwrap().clone();
        assert!(tools.iter().all(|tool| tool.get("cache_control").is_none()));
    }

    #[test]
    fn anthropics_search_sends_the_tools_deferred_and_itself_last_with_the_cache_breakpoint() {
        let sources = [
            source("github", &["create_issue", "get_me"]),
            source("example", &["get_time"]),
        ];
        let catalog = Arc::new(Catalog::build(&sources, "__", 1, false));
        let injected = catalog.for_target(Target::Anthropic);
        let candidates = (0..injected.names.len())
            .filter(|&at| injected.names[at].starts_with("github"))
            .map(|at| Candidate::of(injected, at, true))
            .collect();
        let mut injection = injection(catalog.clone(), Target::Anthropic);
        injection.cache = crate::config::CacheTools::FiveMinutes.cache_control();
        injection.discovery = Some(Discovery::new(
            Target::Anthropic,
            true,
            HashSet::from(["example__get_time".to_owned()]),
            candidates,
            usize::MAX,
        ));
        let request = json!({});
        let outgoing = |only| {
            serde_json::to_value(Outgoing {
                request: request.as_object().unwrap(),
                conversation: None,
                tool_choice: None,
                only,
                tool_name: |tool| tool.get("name").and_then(Value::as_str),
                injection: &injection,
            })
            .unwrap()
        };
        let tools = outgoing(None)["tools"].as_array().unwrap().clone();
        let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(
            names,
            [
                "github__create_issue",
                "github__get_me",
                "example__get_time",
                SEARCH_TOOL
            ]
        );
        assert!(tools[..2].iter().all(|tool| tool["defer_loading"] == true));
        assert!(tools[2].get("defer_loading").is_none(), "pinned: loaded");
        // The breakpoint on the last tool, the search tool: loaded, after every loaded tool.
        assert!(tools[3].get("defer_loading").is_none());
        assert_eq!(tools[3]["cache_control"], json!({"type": "ephemeral"}));
        assert!(
            tools[..3]
                .iter()
                .all(|tool| tool.get("cache_control").is_none())
        );
        assert_eq!(tools[3]["input_schema"]["type"], "object");
        // A round forced to call one deferred tool carries it alone, loaded.
        let forced = outgoing(Some("github__get_me"))["tools"].clone();
        assert_eq!(forced.as_array().unwrap().len(), 1);
        assert_eq!(forced[0]["name"], "github__get_me");
        assert!(forced[0].get("defer_loading").is_none(), "{forced}");
    }
}
