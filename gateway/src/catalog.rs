//! The tools a gateway injects, converted for each API it serves: every source's tools under
//! `PREFIX{separator}NAME`, converted in one batch (so that names stay distinct and within 64
//! characters after the target's sanitising), with the way back from each injected name to its
//! source and original name. Rebuilt only when a source's tools change.
//!
//! With `tool_grouping = "namespace"`, the Responses tools are converted per source instead, under
//! their own names, each in its source's namespace (OpenAI's `namespace` tool): a call names both,
//! and is routed by both (`Injected::by_namespace`). Their key in the gateway (the name the rest of
//! it routes, pins and counts by) is still `NAMESPACE{separator}NAME`.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use serde_json::Value;
use serde_json::value::RawValue;
use tooldef::convert::{ConvertOptions, Converted, convert};
use tooldef::{Target, ToolSet};

use crate::servers::Server;

/// Where injected tools come from.
pub enum Source {
    /// A configured MCP server.
    Mcp(Arc<Server>),
    /// Rust tools in the gateway's own process.
    Tools {
        /// Its name (the prefix of its tools unless `prefix` says otherwise).
        name: String,
        /// The prefix of its tools' names; none when empty.
        prefix: String,
        /// The tools.
        set: ToolSet,
        /// Their MCP definitions, listed once (a `ToolSet` never changes).
        listed: Arc<Vec<Value>>,
    },
}

impl Source {
    /// Its name, for logs.
    pub fn name(&self) -> &str {
        match self {
            Source::Mcp(server) => &server.name,
            Source::Tools { name, .. } => name,
        }
    }

    /// The prefix of its tools' names.
    pub(crate) fn prefix(&self) -> &str {
        match self {
            Source::Mcp(server) => server.config.prefix.as_deref().unwrap_or(&server.name),
            Source::Tools { prefix, .. } => prefix,
        }
    }

    pub(crate) fn tools(&self) -> Arc<Vec<Value>> {
        match self {
            Source::Mcp(server) => server.tools(),
            Source::Tools { listed, .. } => listed.clone(),
        }
    }
}

/// The way from an injected name back to the tool it stands for.
pub struct Route {
    /// The source's position.
    pub source: usize,
    /// The conversion: the tool's name at its source (`original_name`), and the way a model's
    /// arguments are restored to the source's shape.
    pub converted: Converted,
    /// Its annotations say `readOnlyHint: true`.
    pub read_only: bool,
    /// The Responses namespace it is in (`tool_grouping = "namespace"`), where it is called by
    /// its converted name (`converted.name()`).
    pub namespace: Option<String>,
}

/// A Responses `namespace` tool: one source's tools.
pub struct Namespace {
    /// Its name, the source's prefix (or name) made a valid tool name.
    pub name: String,
    /// What the model is told of it before it loads any of its tools.
    pub description: String,
}

/// The injected tools for one API.
pub struct Injected {
    /// The tools in the API's wire form, in source order.
    pub tools: Vec<Value>,
    /// The same, serialised once, to be written into every request as they are.
    pub raw: Vec<Box<RawValue>>,
    /// Their names, in the same order.
    pub names: Vec<String>,
    /// By injected name.
    pub routes: HashMap<String, Route>,
    /// The namespaces the tools are in (Responses with `tool_grouping = "namespace"`), none
    /// otherwise.
    pub namespaces: Vec<Namespace>,
    /// For each tool (in the same order), its namespace's position in `namespaces`.
    pub groups: Vec<Option<usize>>,
    /// Namespace → the name a call gives within it → injected name: the way a namespaced call
    /// is routed.
    pub by_namespace: HashMap<String, HashMap<String, String>>,
    /// `raw` with `"defer_loading": true` in each tool, written the first time a request defers
    /// a tool (`discovery = "provider"`), then shared by every request of the catalog.
    deferred: OnceLock<Vec<Box<RawValue>>>,
}

impl Injected {
    fn empty() -> Injected {
        Injected {
            tools: Vec::new(),
            raw: Vec::new(),
            names: Vec::new(),
            routes: HashMap::new(),
            namespaces: Vec::new(),
            groups: Vec::new(),
            by_namespace: HashMap::new(),
            deferred: OnceLock::new(),
        }
    }

    /// The tool at `at` serialised with `"defer_loading": true`, loaded only when the model's
    /// tool search finds it. Which tools a request defers is the request's (its pinned tools,
    /// a round forced onto one tool), so both forms are kept, the deferred one made once.
    pub fn deferred_raw(&self, at: usize) -> &RawValue {
        let deferred = self.deferred.get_or_init(|| {
            self.tools
                .iter()
                .zip(&self.raw)
                .map(|(tool, raw)| {
                    let mut tool = tool.clone();
                    if let Some(object) = tool.as_object_mut() {
                        object.insert("defer_loading".to_owned(), Value::Bool(true));
                    }
                    serde_json::value::to_raw_value(&tool).unwrap_or_else(|_| raw.clone())
                })
                .collect()
        });
        &deferred[at]
    }

    /// The tools as a request that sends them all writes them: each in its namespace, when
    /// they are in namespaces (`/v1/tools` shows this).
    pub fn listing(&self) -> Vec<Value> {
        if self.namespaces.is_empty() {
            return self.tools.clone();
        }
        let mut listing: Vec<Value> = Vec::new();
        let mut placed: Vec<Option<usize>> = vec![None; self.namespaces.len()];
        for (tool, group) in self.tools.iter().zip(&self.groups) {
            let Some(group) = *group else {
                listing.push(tool.clone());
                continue;
            };
            let at = *placed[group].get_or_insert_with(|| {
                let namespace = &self.namespaces[group];
                listing.push(serde_json::json!({
                    "type": "namespace",
                    "name": namespace.name,
                    "description": namespace.description,
                    "tools": [],
                }));
                listing.len() - 1
            });
            if let Some(members) = listing[at]["tools"].as_array_mut() {
                members.push(tool.clone());
            }
        }
        listing
    }

    /// The injected name a call of `name` in `namespace` stands for, if it is one of these.
    pub fn namespaced(&self, namespace: &str, name: &str) -> Option<&str> {
        self.by_namespace
            .get(namespace)?
            .get(name)
            .map(String::as_str)
    }

    /// The namespace and the name within it that an injected name is called by, when it is in
    /// a namespace.
    pub fn call_name(&self, injected: &str) -> Option<(&str, &str)> {
        let route = self.routes.get(injected)?;
        Some((route.namespace.as_deref()?, route.converted.name()))
    }
}

/// The injected tools for every API the gateway serves, as of one generation of the sources:
/// converted for a target the first time a request needs it.
pub struct Catalog {
    /// The sources' generation it was built from.
    pub generation: u64,
    batch: Batch,
    /// Each source's tools under their own names, when Responses tools go in namespaces.
    grouped: Option<Grouped>,
    chat: OnceLock<Injected>,
    responses: OnceLock<Injected>,
    anthropic: OnceLock<Injected>,
}

impl Catalog {
    /// Gathers every source's tools, to be converted per target; with `namespaces`, the
    /// Responses tools go in one namespace per source.
    pub fn build(
        sources: &[Source],
        separator: &str,
        generation: u64,
        namespaces: bool,
    ) -> Catalog {
        let mut batch = Batch::default();
        let mut grouped = Grouped {
            separator: separator.to_owned(),
            sources: Vec::new(),
        };
        for (index, source) in sources.iter().enumerate() {
            let tools = source.tools();
            batch.add(index, source.name(), source.prefix(), separator, &tools);
            if namespaces {
                let prefix = source.prefix();
                let namespace = if prefix.is_empty() {
                    source.name()
                } else {
                    prefix
                };
                grouped
                    .sources
                    .push((index, namespace_name(namespace), tools));
            }
        }
        Catalog {
            generation,
            batch,
            grouped: namespaces.then_some(grouped),
            chat: OnceLock::new(),
            responses: OnceLock::new(),
            anthropic: OnceLock::new(),
        }
    }

    /// The injected tools for `target` (Chat Completions, Responses or Anthropic; any other
    /// target is given Chat Completions' tools), converted on first use.
    pub fn for_target(&self, target: Target) -> &Injected {
        let (cell, target) = match target {
            Target::Responses => (&self.responses, Target::Responses),
            Target::Anthropic => (&self.anthropic, Target::Anthropic),
            _ => (&self.chat, Target::ChatCompletions),
        };
        cell.get_or_init(|| {
            let injected = match (&self.grouped, target) {
                (Some(grouped), Target::Responses) => grouped.convert(),
                _ => self.batch.convert(target),
            };
            tracing::info!(target = %target, tools = injected.tools.len(), "injected tools converted");
            injected
        })
    }
}

/// Tools of several sources under their injected names, to be converted in one batch.
pub(crate) struct Batch {
    /// An array: `tooldef::convert` takes a tool list as one value.
    tools: Value,
    origin: HashMap<String, Origin>,
}

impl Default for Batch {
    fn default() -> Batch {
        Batch {
            tools: Value::Array(Vec::new()),
            origin: HashMap::new(),
        }
    }
}

impl Batch {
    /// Adds the tools of source `index` (named `name`) as `PREFIX{separator}NAME`, leaving out
    /// a name another source already gave.
    pub(crate) fn add(
        &mut self,
        index: usize,
        name: &str,
        prefix: &str,
        separator: &str,
        tools: &[Value],
    ) {
        for tool in tools {
            let Some(original) = tool.get("name").and_then(Value::as_str) else {
                continue;
            };
            let injected = if prefix.is_empty() {
                original.to_owned()
            } else {
                format!("{prefix}{separator}{original}")
            };
            if self.origin.contains_key(&injected) {
                tracing::warn!(
                    source = name,
                    tool = original,
                    "left out: another source already gives a tool named `{injected}`"
                );
                continue;
            }
            let mut tool = tool.clone();
            tool["name"] = Value::String(injected.clone());
            let read_only = tool.pointer("/annotations/readOnlyHint") == Some(&Value::Bool(true));
            self.origin.insert(
                injected,
                Origin {
                    source: index,
                    original: original.to_owned(),
                    read_only,
                },
            );
            if let Value::Array(tools) = &mut self.tools {
                tools.push(tool);
            }
        }
    }

    /// The batch converted for `target`.
    pub(crate) fn convert(&self, target: Target) -> Injected {
        injected_for(&self.tools, &self.origin, target)
    }
}

/// Each source's tools under their own names, to be converted per source into its namespace.
struct Grouped {
    separator: String,
    /// Source position, namespace name, tools.
    sources: Vec<(usize, String, Arc<Vec<Value>>)>,
}

impl Grouped {
    /// The Responses tools, one batch per source (names are distinct within a namespace, and
    /// kept as the server gives them wherever they are valid), each in its namespace; sources
    /// that share a namespace share it, the first one's tool winning a name.
    fn convert(&self) -> Injected {
        let mut all = Injected::empty();
        for (source, namespace, tools) in &self.sources {
            let mut origin = HashMap::with_capacity(tools.len());
            for tool in tools.iter() {
                if let Some(name) = tool.get("name").and_then(Value::as_str) {
                    let read_only =
                        tool.pointer("/annotations/readOnlyHint") == Some(&Value::Bool(true));
                    origin.insert(
                        name.to_owned(),
                        Origin {
                            source: *source,
                            original: name.to_owned(),
                            read_only,
                        },
                    );
                }
            }
            let batch = Value::Array(tools.as_ref().clone());
            let converted = injected_for(&batch, &origin, Target::Responses);
            let group = match all.namespaces.iter().position(|n| &n.name == namespace) {
                Some(at) => at,
                None => {
                    all.namespaces.push(Namespace {
                        name: namespace.clone(),
                        description: String::new(),
                    });
                    all.namespaces.len() - 1
                }
            };
            let Injected {
                tools,
                raw,
                names,
                mut routes,
                ..
            } = converted;
            for ((tool, raw), name) in tools.into_iter().zip(raw).zip(names) {
                let key = format!("{namespace}{}{name}", self.separator);
                let Some(mut route) = routes.remove(&name) else {
                    continue;
                };
                if all.routes.contains_key(&key) {
                    tracing::warn!(
                        namespace = %namespace,
                        tool = %name,
                        "left out: another source already gives this tool in this namespace"
                    );
                    continue;
                }
                route.namespace = Some(namespace.clone());
                all.by_namespace
                    .entry(namespace.clone())
                    .or_default()
                    .insert(name, key.clone());
                all.tools.push(tool);
                all.raw.push(raw);
                all.names.push(key.clone());
                all.groups.push(Some(group));
                all.routes.insert(key, route);
            }
        }
        for (at, namespace) in all.namespaces.iter_mut().enumerate() {
            let members: Vec<&str> = all
                .names
                .iter()
                .zip(&all.groups)
                .filter(|(_, group)| **group == Some(at))
                .filter_map(|(key, _)| all.routes.get(key).map(|route| route.converted.name()))
                .collect();
            namespace.description = describe(&namespace.name, &members);
        }
        all
    }
}

/// What a namespace says of itself: whose tools, how many, and the first names (a namespace's
/// tools are unseen until loaded, so the names are what a search is written from).
fn describe(namespace: &str, members: &[&str]) -> String {
    const NAMED: usize = 12;
    let mut names = members
        .iter()
        .take(NAMED)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if members.len() > NAMED {
        names.push_str(&format!(" and {} more", members.len() - NAMED));
    }
    format!(
        "The tools of the `{namespace}` MCP server ({} tools): {names}.",
        members.len()
    )
}

/// A source's prefix made a namespace's name: the characters OpenAI takes in a tool's name
/// (`a-zA-Z0-9_-`, others made `_`), at most 64.
fn namespace_name(prefix: &str) -> String {
    let name: String = prefix
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if name.is_empty() {
        "tools".to_owned()
    } else {
        name
    }
}

/// Where an injected name comes from, before conversion.
struct Origin {
    source: usize,
    original: String,
    read_only: bool,
}

fn injected_for(batch: &Value, origin: &HashMap<String, Origin>, target: Target) -> Injected {
    let options = ConvertOptions {
        lenient: true,
        ..ConvertOptions::default()
    };
    let conversion = match convert(batch, target, &options) {
        Ok(conversion) => conversion,
        Err(err) => {
            // Lenient conversion of an array only fails on input that is not tools at all.
            tracing::error!("converting the injected tools for {target} failed: {err}");
            return Injected::empty();
        }
    };
    for rejected in &conversion.rejected {
        tracing::warn!("not injected for {target}: {rejected}");
    }
    let mut tools = Vec::with_capacity(conversion.tools.len());
    let mut raw = Vec::with_capacity(conversion.tools.len());
    let mut names = Vec::with_capacity(conversion.tools.len());
    let mut routes = HashMap::with_capacity(conversion.tools.len());
    for mut converted in conversion.tools {
        let Some(origin) = origin.get(&converted.original_name) else {
            continue;
        };
        // Converted under its prefixed name; called under the source's own.
        converted.original_name.clone_from(&origin.original);
        let tool = converted.to_json();
        match serde_json::value::to_raw_value(&tool) {
            Ok(serialised) => raw.push(serialised),
            Err(err) => {
                tracing::error!(tool = converted.name(), "cannot be serialised: {err}");
                continue;
            }
        }
        tools.push(tool);
        names.push(converted.name().to_owned());
        routes.insert(
            converted.name().to_owned(),
            Route {
                source: origin.source,
                converted,
                read_only: origin.read_only,
                namespace: None,
            },
        );
    }
    let groups = vec![None; names.len()];
    Injected {
        tools,
        raw,
        names,
        routes,
        groups,
        ..Injected::empty()
    }
}

/// A source of `tools` (each taking a string `q`) named and prefixed `name`, for tests.
#[cfg(test)]
pub(crate) fn test_source(name: &str, tools: &[&str]) -> Source {
    let tools = tools
        .iter()
        .map(|tool| {
            serde_json::json!({"name": tool, "description": format!("{tool}."),
                "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}})
        })
        .collect();
    Source::Tools {
        name: name.to_owned(),
        prefix: name.to_owned(),
        set: tooldef::ToolSet::builder()
            .build()
            .unwrap_or_else(|err| unreachable!("an empty set: {err}")),
        listed: Arc::new(tools),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn source(name: &str, tools: Value) -> Source {
        Source::Tools {
            name: name.to_owned(),
            prefix: name.to_owned(),
            set: ToolSet::builder().build().unwrap(),
            listed: Arc::new(tools.as_array().unwrap().clone()),
        }
    }

    fn tool(name: &str) -> Value {
        json!({"name": name, "description": "d", "inputSchema": {"type": "object", "properties": {
            "q": {"type": "string"}, "limit": {"type": "integer", "default": 5}}, "required": ["q"]}})
    }

    #[test]
    fn names_are_prefixed_distinct_within_64_and_routed_back() {
        let long = "a_tool_whose_name_is_long_enough_to_need_cutting_once_prefixed";
        let sources = [
            source("github", json!([tool("search.issues"), tool(long)])),
            source("github_search", json!([tool("issues")])),
            source("gitlab", json!([tool("search.issues")])),
        ];
        let catalog = Catalog::build(&sources, "_", 1, false);
        let names: Vec<&str> = catalog
            .for_target(Target::ChatCompletions)
            .tools
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap())
            .collect();
        assert_eq!(names.len(), 4, "{names:?}");
        // `github_search.issues` and `github_search_issues` sanitise alike: the second is told apart.
        assert_eq!(names[0], "github_search_issues");
        assert_ne!(names[2], names[0]);
        assert!(
            names
                .iter()
                .all(|n| n.len() <= 64 && Target::ChatCompletions.accepts_name(n))
        );
        let distinct: std::collections::HashSet<_> = names.iter().collect();
        assert_eq!(distinct.len(), names.len());
        for (name, (source, original)) in names.iter().zip([
            (0, "search.issues"),
            (0, long),
            (1, "issues"),
            (2, "search.issues"),
        ]) {
            let route = &catalog.for_target(Target::ChatCompletions).routes[*name];
            assert_eq!(
                (route.source, route.converted.original_name.as_str()),
                (source, original)
            );
        }
        // Strict where possible: the defaulted field is required and nullable, and restored.
        assert_eq!(
            catalog.for_target(Target::ChatCompletions).tools[0]["function"]["strict"],
            true
        );
        let mut arguments = json!({"q": "x", "limit": null});
        catalog.for_target(Target::ChatCompletions).routes[names[0]]
            .converted
            .restore_arguments(&mut arguments);
        assert_eq!(arguments, json!({"q": "x"}));
        assert_eq!(
            catalog.for_target(Target::Responses).tools[0]["name"],
            "github_search_issues"
        );
    }

    #[test]
    fn an_empty_prefix_keeps_the_name_and_a_second_source_of_it_is_left_out() {
        let mut first = source("", json!([tool("echo")]));
        if let Source::Tools { prefix, .. } = &mut first {
            prefix.clear();
        }
        let mut second = source("", json!([tool("echo")]));
        if let Source::Tools { prefix, .. } = &mut second {
            prefix.clear();
        }
        let catalog = Catalog::build(&[first, second], "__", 1, false);
        assert_eq!(catalog.for_target(Target::ChatCompletions).tools.len(), 1);
        assert_eq!(
            catalog.for_target(Target::ChatCompletions).routes["echo"].source,
            0
        );
    }
}
