//! More tools than a request can carry: the request gets the pinned tools and one search tool,
//! `tooldef_search_tools`; a model that calls it with what it needs is answered with the best
//! matches (ranked by [`crate::search`]), which its next rounds then carry, as many as there is
//! room for beside the client's tools and the pinned ones (the most recently found first).
//!
//! With `discovery = "provider"` (a Responses client of a Responses upstream), the provider's own
//! mechanism instead: every tool is sent, the pinned ones loaded and the others deferred
//! (`defer_loading`), beside a client-executed `tool_search` tool; the model's `tool_search_call`
//! is answered here, from the same index, with a `tool_search_output` item that loads the
//! matches (in their namespaces), and both items go back upstream in the next rounds, as the API
//! requires. The tools sent do not change between rounds, so the provider's prompt cache holds.
//!
//! On a Messages upstream (any client API, execute mode), `discovery = "provider"` is Anthropic's
//! client-side tool search: every tool is sent deferred but the pinned ones, beside the gateway's
//! own search tool (a custom tool, loaded, so a request always has one), whose `tool_result`
//! holds a `tool_reference` block per tool found, which loads that tool's definition for the
//! model (`crate::tool_reference`). Anthropic has no tool limit, so this holds however few tools
//! there are: deferral is what keeps them out of the context.

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

use serde_json::value::RawValue;
use serde_json::{Value, json};
use tooldef::Target;
use tooldef::calls::ToolCall;

use crate::search::{ToolDoc, ToolIndex};
use crate::servers::CallOutcome;

/// The search tool's name.
pub const SEARCH_TOOL: &str = "tooldef_search_tools";

/// The name a provider's `tool_search_call` goes by among a round's calls. No function can have
/// it (OpenAI's names are `[a-zA-Z0-9_-]`), so it never takes a tool's calls.
pub const PROVIDER_SEARCH: &str = "(tool_search)";

/// How many tools one search adds at most.
const PER_SEARCH: usize = 8;

/// A tool that can be found.
pub struct Candidate {
    /// Its injected name, which routes it.
    pub name: String,
    /// Its wire definition (for its words, and, with the provider's search, to load it).
    pub tool: Value,
    /// Its namespace's name and description, when it is in one.
    pub namespace: Option<(String, String)>,
}

impl Candidate {
    /// The tool at `at` of `injected`, in its namespace when it has one and `grouped` (a
    /// request's own ad-hoc servers are never grouped).
    pub fn of(injected: &crate::catalog::Injected, at: usize, grouped: bool) -> Candidate {
        let namespace = injected
            .groups
            .get(at)
            .copied()
            .flatten()
            .filter(|_| grouped)
            .map(|group| &injected.namespaces[group])
            .map(|namespace| (namespace.name.clone(), namespace.description.clone()));
        Candidate {
            name: injected.names[at].clone(),
            tool: injected.tools[at].clone(),
            namespace,
        }
    }

    /// How the search's answer names it: as the model calls it.
    fn shown(&self) -> String {
        match &self.namespace {
            Some((namespace, _)) => format!(
                "{} (in {namespace})",
                self.tool["name"].as_str().unwrap_or_default()
            ),
            None => self.name.clone(),
        }
    }
}

/// How the tools a search finds reach the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mechanism {
    /// The gateway's: the next rounds carry them.
    Gateway,
    /// Responses' deferred loading: a `tool_search_output` item loads them.
    ToolSearch,
    /// Anthropic's deferred loading: `tool_reference` blocks in the search's `tool_result` load
    /// them.
    ToolReferences,
}

/// A request's search over the tools it may use but is not sent all of.
pub struct Discovery {
    /// Whether the provider's deferred loading is used, and which.
    mechanism: Mechanism,
    /// Sent in every round (loaded, with the provider's search).
    pinned: HashSet<String>,
    /// The tools that can be found.
    candidates: Vec<Candidate>,
    /// Built at the first search: most requests never search.
    index: OnceLock<ToolIndex>,
    /// Found by the searches so far, the most recent last.
    found: Mutex<Vec<String>>,
    /// How many found tools a round may carry.
    room: usize,
    /// The search tool in the request's API, serialised once.
    pub definition: Box<RawValue>,
}

impl Discovery {
    /// A search over `candidates` for a request that carries `pinned` and has room for `room`
    /// found tools in each round; with `provider`, the provider's deferred loading, where every
    /// candidate is sent deferred: a client-executed `tool_search` (Responses), or the gateway's
    /// search tool answered with `tool_reference` blocks (Anthropic); the gateway's search on the
    /// other targets.
    pub fn new(
        target: Target,
        provider: bool,
        pinned: HashSet<String>,
        candidates: Vec<Candidate>,
        room: usize,
    ) -> Discovery {
        let parameters = json!({
            "type": "object",
            "properties": {"query": {"type": "string", "description": "What you need a tool for, in a few words."}},
            "required": ["query"],
            "additionalProperties": false,
        });
        let mechanism = match (provider, target) {
            (true, Target::Responses) => Mechanism::ToolSearch,
            (true, Target::Anthropic) => Mechanism::ToolReferences,
            _ => Mechanism::Gateway,
        };
        let definition = if mechanism == Mechanism::ToolSearch {
            json!({
                "type": "tool_search",
                "execution": "client",
                "description": format!(
                    "Finds and loads tools for a task among {} deferred ones: describe what you \
                     need to do (for example \"open a pull request\" or \"read a file\"). Search \
                     again with other words when none fits.",
                    candidates.len()
                ),
                "parameters": parameters,
            })
        } else if mechanism == Mechanism::ToolReferences {
            json!({
                "name": SEARCH_TOOL,
                "description": format!(
                    "Finds and loads tools for a task among {} deferred ones: describe what you \
                     need to do (for example \"open a pull request\" or \"read a file\") and the \
                     best matching tools are loaded for you to call. Search again with other \
                     words when none fits.",
                    candidates.len()
                ),
                "input_schema": parameters,
            })
        } else {
            let description = format!(
                "Finds tools for a task. {} more tools are available than are listed here: describe \
                 what you need to do (for example \"open a pull request\" or \"read a file\") and the \
                 best matching tools are added to your tools for your next turn. Search again with \
                 other words when none fits.",
                candidates.len()
            );
            match target {
                Target::Responses => json!({
                    "type": "function", "name": SEARCH_TOOL, "description": description,
                    "parameters": parameters, "strict": true,
                }),
                Target::Anthropic => json!({
                    "name": SEARCH_TOOL, "description": description, "input_schema": parameters,
                }),
                _ => json!({
                    "type": "function",
                    "function": {"name": SEARCH_TOOL, "description": description, "parameters": parameters, "strict": true},
                }),
            }
        };
        let provider = mechanism != Mechanism::Gateway;
        Discovery {
            mechanism,
            pinned,
            candidates,
            index: OnceLock::new(),
            found: Mutex::new(Vec::new()),
            room: if provider { PER_SEARCH } else { room },
            definition: serde_json::value::to_raw_value(&definition)
                .expect("a JSON value serialises"),
        }
    }

    /// Whether the provider's deferred loading is used (every tool is sent, most deferred).
    fn provider(&self) -> bool {
        self.mechanism != Mechanism::Gateway
    }

    /// Whether Responses' client-executed `tool_search` is used (a `tool_search_call` is the
    /// search's call).
    pub fn is_tool_search(&self) -> bool {
        self.mechanism == Mechanism::ToolSearch
    }

    /// Whether Anthropic's `tool_reference` blocks load the tools found (the search's
    /// `tool_result` holds them).
    pub fn loads_by_reference(&self) -> bool {
        self.mechanism == Mechanism::ToolReferences
    }

    /// Whether `name` is this search's call.
    pub fn is_search(&self, name: &str) -> bool {
        name == if self.is_tool_search() {
            PROVIDER_SEARCH
        } else {
            SEARCH_TOOL
        }
    }

    /// The tools a call of this search with `arguments` loads: those its query finds that are
    /// sent deferred. The search is run again from the call (the index is the catalog's, so it
    /// finds what it found), rather than read back from the answer's words: what a client of
    /// another API keeps of the answer is text, whose wording is the model's to read.
    pub fn loaded_by(&self, arguments: &Value) -> Vec<String> {
        let Some(query) = arguments.get("query").and_then(Value::as_str) else {
            return Vec::new();
        };
        self.matches(query)
            .into_iter()
            .map(|position| &self.candidates[position].name)
            .filter(|name| self.defers(name))
            .cloned()
            .collect()
    }

    /// The positions of the candidates that best match `query`, best first.
    fn matches(&self, query: &str) -> Vec<usize> {
        let index = self.index.get_or_init(|| {
            ToolIndex::new(self.candidates.iter().map(|candidate| {
                let mut doc = ToolDoc::of_tool(&candidate.tool);
                doc.name.clone_from(&candidate.name);
                doc
            }))
        });
        index.search(query, PER_SEARCH.min(self.room))
    }

    fn found(&self) -> std::sync::MutexGuard<'_, Vec<String>> {
        self.found.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether a round sends the injected tool `name`: pinned, or among the latest found; every
    /// tool with the provider's search (deferred unless pinned).
    pub fn sends(&self, name: &str) -> bool {
        if self.provider() || self.pinned.contains(name) {
            return true;
        }
        let found = self.found();
        found
            .iter()
            .rev()
            .take(self.room)
            .any(|found| found == name)
    }

    /// Whether the injected tool `name` is sent deferred: with the provider's search, unless
    /// pinned.
    pub fn defers(&self, name: &str) -> bool {
        self.provider() && !self.pinned.contains(name)
    }

    /// Answers a call of the search: the best matches of its query, which the next rounds
    /// carry (the gateway's search), or which its output loads (the provider's: the tools are
    /// the output's structured content, in their namespaces).
    pub fn answer(&self, arguments: &str) -> CallOutcome {
        let query = serde_json::from_str::<Value>(arguments)
            .ok()
            .and_then(|arguments| arguments.get("query")?.as_str().map(str::to_owned));
        let Some(query) = query else {
            let what = if self.is_tool_search() {
                "`tool_search`"
            } else {
                "`tooldef_search_tools`"
            };
            return self.loading(
                CallOutcome::error(format!(
                    "{what} takes {{\"query\": \"what you need a tool for\"}}."
                )),
                &[],
            );
        };
        let best = self.matches(&query);
        if best.is_empty() {
            return self.loading(
                CallOutcome::error(format!(
                    "No tool matches \"{query}\". Try other words: the action (create, list, search, \
                     get, update, delete) and what it acts on (issue, file, branch, pull request)."
                )),
                &[],
            );
        }
        let heading = if self.provider() {
            "These tools are loaded:"
        } else {
            "These tools are added to your tools for your next turn:"
        };
        let mut lines = vec![heading.to_owned()];
        let mut found = self.found();
        for &position in &best {
            let candidate = &self.candidates[position];
            let doc = ToolDoc::of_tool(&candidate.tool);
            lines.push(format!(
                "- {}: {}",
                candidate.shown(),
                first_sentence(&doc.description)
            ));
            found.retain(|known| known != &candidate.name);
            found.push(candidate.name.clone());
        }
        drop(found);
        tracing::info!(found = lines.len() - 1, "tool search");
        let outcome = CallOutcome {
            output: tooldef::ToolOutput::text(lines.join("\n")),
            is_error: false,
        };
        self.loading(outcome, &best)
    }

    /// With the provider's search, the outcome carries the tools it loads (the candidates at
    /// `positions`) as its structured content: Responses' tools, grouped in their namespaces;
    /// Anthropic's `tool_reference` blocks.
    fn loading(&self, mut outcome: CallOutcome, positions: &[usize]) -> CallOutcome {
        match self.mechanism {
            Mechanism::Gateway => return outcome,
            Mechanism::ToolReferences => {
                let names = positions
                    .iter()
                    .map(|&at| self.candidates[at].name.as_str());
                outcome.output.structured = Some(crate::tool_reference::blocks(names));
                return outcome;
            }
            Mechanism::ToolSearch => {}
        }
        let mut tools: Vec<Value> = Vec::new();
        for &position in positions {
            let candidate = &self.candidates[position];
            let Some((namespace, description)) = &candidate.namespace else {
                tools.push(candidate.tool.clone());
                continue;
            };
            let group = tools.iter_mut().find(|tool| {
                tool["type"] == "namespace" && tool["name"].as_str() == Some(namespace)
            });
            match group {
                Some(group) => {
                    if let Some(members) = group["tools"].as_array_mut() {
                        members.push(candidate.tool.clone());
                    }
                }
                None => tools.push(json!({
                    "type": "namespace",
                    "name": namespace,
                    "description": description,
                    "tools": [candidate.tool.clone()],
                })),
            }
        }
        outcome.output.structured = Some(Value::Array(tools));
        outcome
    }
}

/// The `tool_search_output` item that answers a provider's `tool_search_call` (`call`): the
/// tools the search loads (none when it failed; the model then searches again or answers).
pub fn tool_search_output(call: &ToolCall, outcome: &CallOutcome) -> Value {
    let tools = outcome
        .output
        .structured
        .clone()
        .filter(Value::is_array)
        .unwrap_or_else(|| json!([]));
    json!({
        "type": "tool_search_output",
        "call_id": call.id,
        "execution": "client",
        "status": "completed",
        "tools": tools,
    })
}

/// The provider's `tool_search_call` items of a Responses reply's `output`, as calls of
/// [`PROVIDER_SEARCH`] (their arguments serialised): the client-executed ones, which are the
/// gateway's to answer.
pub fn tool_search_calls(output: &[Value]) -> Vec<ToolCall> {
    output
        .iter()
        .filter(|item| item.get("type").and_then(Value::as_str) == Some("tool_search_call"))
        .filter(|item| item.get("execution").and_then(Value::as_str) != Some("server"))
        .filter_map(|item| {
            let id = item
                .get("call_id")
                .or_else(|| item.get("id"))
                .and_then(Value::as_str)?;
            let arguments = match item.get("arguments") {
                Some(Value::String(text)) => text.clone(),
                Some(other) => other.to_string(),
                None => "{}".to_owned(),
            };
            Some(ToolCall {
                id: id.to_owned(),
                name: PROVIDER_SEARCH.to_owned(),
                arguments,
            })
        })
        .collect()
}

/// A description's first sentence (its first line at most 200 characters), enough to choose by.
fn first_sentence(description: &str) -> String {
    let line = description.lines().next().unwrap_or_default().trim();
    let end = line.find(". ").map_or(line.len(), |at| at + 1).min(
        line.char_indices()
            .nth(200)
            .map_or(line.len(), |(at, _)| at),
    );
    line[..end].to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, description: &str) -> Candidate {
        Candidate {
            name: name.to_owned(),
            tool: json!({"type": "function", "name": name, "description": description, "parameters": {"type": "object", "properties": {}}}),
            namespace: None,
        }
    }

    #[test]
    fn found_tools_are_sent_as_room_allows_the_latest_first() {
        let discovery = Discovery::new(
            Target::Responses,
            false,
            HashSet::from(["gh__get_me".to_owned()]),
            vec![
                tool("gh__create_issue", "Create an issue. In a repository."),
                tool("gh__merge_pull_request", "Merge a pull request."),
                tool("gh__get_file_contents", "Get the contents of a file."),
            ],
            1,
        );
        assert!(discovery.sends("gh__get_me"));
        assert!(!discovery.sends("gh__create_issue"));
        let answer = discovery.answer(r#"{"query": "create an issue"}"#);
        assert!(!answer.is_error);
        assert_eq!(
            answer.text(),
            "These tools are added to your tools for your next turn:\n- gh__create_issue: Create an issue."
        );
        assert!(discovery.sends("gh__create_issue"));
        discovery.answer(r#"{"query": "merge"}"#);
        assert!(discovery.sends("gh__merge_pull_request"));
        assert!(
            !discovery.sends("gh__create_issue"),
            "room for one: the latest"
        );
        let none = discovery.answer(r#"{"query": "weather forecast"}"#);
        assert!(none.is_error && none.text().contains("No tool matches"));
        let bad = discovery.answer(r#"{"q": 1}"#);
        assert!(bad.is_error && bad.text().contains("takes {\"query\""));
    }

    #[test]
    fn the_definition_is_the_apis() {
        let chat = Discovery::new(
            Target::ChatCompletions,
            false,
            HashSet::new(),
            Vec::new(),
            4,
        );
        let chat: Value = serde_json::from_str(chat.definition.get()).unwrap();
        assert_eq!(chat["function"]["name"], SEARCH_TOOL);
        assert!(Target::ChatCompletions.accepts_name(SEARCH_TOOL));
        let responses = Discovery::new(Target::Responses, false, HashSet::new(), Vec::new(), 4);
        let responses: Value = serde_json::from_str(responses.definition.get()).unwrap();
        assert_eq!(responses["name"], SEARCH_TOOL);
        assert_eq!(responses["strict"], true);
    }
}
