//! More tools than a request can carry: the request gets the pinned tools and one search tool,
//! `tooldef_search_tools`; a model that calls it with what it needs is answered with the best
//! matches (ranked by [`crate::search`]), which its next rounds then carry, as many as there is
//! room for beside the client's tools and the pinned ones (the most recently found first).

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

use serde_json::value::RawValue;
use serde_json::{Value, json};
use tooldef::Target;

use crate::search::{ToolDoc, ToolIndex};
use crate::servers::CallOutcome;

/// The search tool's name.
pub const SEARCH_TOOL: &str = "tooldef_search_tools";

/// How many tools one search adds at most.
const PER_SEARCH: usize = 8;

/// A request's search over the tools it may use but is not sent all of.
pub struct Discovery {
    /// Sent in every round.
    pinned: HashSet<String>,
    /// The tools that can be found: injected name and wire definition (for its words).
    candidates: Vec<(String, Value)>,
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
    /// found tools in each round.
    pub fn new(
        target: Target,
        pinned: HashSet<String>,
        candidates: Vec<(String, Value)>,
        room: usize,
    ) -> Discovery {
        let description = format!(
            "Finds tools for a task. {} more tools are available than are listed here: describe \
             what you need to do (for example \"open a pull request\" or \"read a file\") and the \
             best matching tools are added to your tools for your next turn. Search again with \
             other words when none fits.",
            candidates.len()
        );
        let parameters = json!({
            "type": "object",
            "properties": {"query": {"type": "string", "description": "What you need a tool for, in a few words."}},
            "required": ["query"],
            "additionalProperties": false,
        });
        let definition = match target {
            Target::Responses => json!({
                "type": "function", "name": SEARCH_TOOL, "description": description,
                "parameters": parameters, "strict": true,
            }),
            _ => json!({
                "type": "function",
                "function": {"name": SEARCH_TOOL, "description": description, "parameters": parameters, "strict": true},
            }),
        };
        Discovery {
            pinned,
            candidates,
            index: OnceLock::new(),
            found: Mutex::new(Vec::new()),
            room,
            definition: serde_json::value::to_raw_value(&definition)
                .expect("a JSON value serialises"),
        }
    }

    fn found(&self) -> std::sync::MutexGuard<'_, Vec<String>> {
        self.found.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether a round sends the injected tool `name`: pinned, or among the latest found.
    pub fn sends(&self, name: &str) -> bool {
        if self.pinned.contains(name) {
            return true;
        }
        let found = self.found();
        found
            .iter()
            .rev()
            .take(self.room)
            .any(|found| found == name)
    }

    /// Answers a call of the search tool: the best matches of its query, which the next rounds
    /// carry.
    pub fn answer(&self, arguments: &str) -> CallOutcome {
        let query = serde_json::from_str::<Value>(arguments)
            .ok()
            .and_then(|arguments| arguments.get("query")?.as_str().map(str::to_owned));
        let Some(query) = query else {
            return CallOutcome::error(format!(
                "`{SEARCH_TOOL}` takes {{\"query\": \"what you need a tool for\"}}."
            ));
        };
        let index = self.index.get_or_init(|| {
            ToolIndex::new(
                self.candidates
                    .iter()
                    .map(|(_, tool)| ToolDoc::of_tool(tool)),
            )
        });
        let best = index.search(&query, PER_SEARCH.min(self.room));
        if best.is_empty() {
            return CallOutcome::error(format!(
                "No tool matches \"{query}\". Try other words: the action (create, list, search, \
                 get, update, delete) and what it acts on (issue, file, branch, pull request)."
            ));
        }
        let mut lines = vec!["These tools are added to your tools for your next turn:".to_owned()];
        let mut found = self.found();
        for position in best {
            let (name, tool) = &self.candidates[position];
            let doc = ToolDoc::of_tool(tool);
            lines.push(format!("- {name}: {}", first_sentence(&doc.description)));
            found.retain(|known| known != name);
            found.push(name.clone());
        }
        tracing::info!(found = lines.len() - 1, "tool search");
        CallOutcome {
            output: tooldef::ToolOutput::text(lines.join("\n")),
            is_error: false,
        }
    }
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

    fn tool(name: &str, description: &str) -> (String, Value) {
        (
            name.to_owned(),
            json!({"type": "function", "name": name, "description": description, "parameters": {"type": "object", "properties": {}}}),
        )
    }

    #[test]
    fn found_tools_are_sent_as_room_allows_the_latest_first() {
        let discovery = Discovery::new(
            Target::Responses,
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
        let chat = Discovery::new(Target::ChatCompletions, HashSet::new(), Vec::new(), 4);
        let chat: Value = serde_json::from_str(chat.definition.get()).unwrap();
        assert_eq!(chat["function"]["name"], SEARCH_TOOL);
        assert!(Target::ChatCompletions.accepts_name(SEARCH_TOOL));
        let responses = Discovery::new(Target::Responses, HashSet::new(), Vec::new(), 4);
        let responses: Value = serde_json::from_str(responses.definition.get()).unwrap();
        assert_eq!(responses["name"], SEARCH_TOOL);
        assert_eq!(responses["strict"], true);
    }
}
