//! The tools a gateway injects, converted for each API it serves: every source's tools under
//! `PREFIX{separator}NAME`, converted in one batch (so that names stay distinct and within 64
//! characters after the target's sanitising), with the way back from each injected name to its
//! source and original name. Rebuilt only when a source's tools change.

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
}

/// The injected tools for every API the gateway serves, as of one generation of the sources:
/// converted for a target the first time a request needs it.
pub struct Catalog {
    /// The sources' generation it was built from.
    pub generation: u64,
    batch: Batch,
    chat: OnceLock<Injected>,
    responses: OnceLock<Injected>,
    anthropic: OnceLock<Injected>,
}

impl Catalog {
    /// Gathers every source's tools, to be converted per target.
    pub fn build(sources: &[Source], separator: &str, generation: u64) -> Catalog {
        let mut batch = Batch::default();
        for (index, source) in sources.iter().enumerate() {
            batch.add(
                index,
                source.name(),
                source.prefix(),
                separator,
                &source.tools(),
            );
        }
        Catalog {
            generation,
            batch,
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
            let injected = self.batch.convert(target);
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
            return Injected {
                tools: Vec::new(),
                raw: Vec::new(),
                names: Vec::new(),
                routes: HashMap::new(),
            };
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
            },
        );
    }
    Injected {
        tools,
        raw,
        names,
        routes,
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
        let catalog = Catalog::build(&sources, "_", 1);
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
        let catalog = Catalog::build(&[first, second], "__", 1);
        assert_eq!(catalog.for_target(Target::ChatCompletions).tools.len(), 1);
        assert_eq!(
            catalog.for_target(Target::ChatCompletions).routes["echo"].source,
            0
        );
    }
}
