//! Anthropic's client-side tool search on a Messages upstream (`discovery = "provider"`): the
//! gateway's search tool is answered with a `tool_result` whose `content` is one
//! `{"type": "tool_reference", "tool_name": NAME}` block per tool found (the SDK's
//! `ToolReferenceBlockParam` in `ToolResultBlockParam.content`), which loads the deferred tool
//! `NAME` for the model. The model may call a deferred tool only once a reference to it is in the
//! conversation, so every search result that goes upstream must carry its references: a Messages
//! client's rounds write them (`result`); a client of another API keeps the search's answer as
//! text in its own API (the client never sees it, but the store keeps its turns), so the request
//! translated for the upstream gets them put back (`restore`) by running the search call again
//! from its arguments, whichever round or earlier request made it.

use serde_json::{Map, Value, json};
use tooldef::calls::{ToolCall, anthropic_tool_result};

use crate::discovery::{Discovery, SEARCH_TOOL};
use crate::servers::CallOutcome;

/// The `tool_reference` blocks loading the tools `names`.
pub fn blocks<'a>(names: impl IntoIterator<Item = &'a str>) -> Value {
    Value::Array(
        names
            .into_iter()
            .map(|name| json!({"type": "tool_reference", "tool_name": name}))
            .collect(),
    )
}

/// The `tool_result` answering a call of the search tool (`call`): the `tool_reference` blocks of
/// the tools it found (the outcome's structured content), or, when it found none or failed, its
/// text, from which the model searches again or answers.
pub fn result(call: &ToolCall, outcome: &CallOutcome) -> Value {
    match &outcome.output.structured {
        Some(Value::Array(references)) if !outcome.is_error && !references.is_empty() => json!({
            "type": "tool_result",
            "tool_use_id": call.id,
            "content": references,
        }),
        _ => anthropic_tool_result(call, &outcome.output, outcome.is_error),
    }
}

/// A Messages request (written for the upstream from a client of another API) with each
/// `tool_result` answering a call of the search tool that carries no `tool_reference` made to
/// carry those of the tools the call's query finds (and that the request sends deferred); a
/// result of an error, or of a query that finds none, is left as it is.
pub fn restore(request: &mut Map<String, Value>, discovery: &Discovery) {
    let Some(Value::Array(messages)) = request.get_mut("messages") else {
        return;
    };
    // Each search call's id and arguments, to run it again for its result.
    let mut searches: Vec<(String, Value)> = Vec::new();
    for message in messages.iter_mut() {
        let Some(Value::Array(content)) = message.get_mut("content") else {
            continue;
        };
        for block in content.iter_mut() {
            match block.get("type").and_then(Value::as_str) {
                Some("tool_use")
                    if block.get("name").and_then(Value::as_str) == Some(SEARCH_TOOL) =>
                {
                    if let Some(id) = block.get("id").and_then(Value::as_str) {
                        let input = block.get("input").cloned().unwrap_or(Value::Null);
                        searches.push((id.to_owned(), input));
                    }
                }
                Some("tool_result") => {
                    let search = block
                        .get("tool_use_id")
                        .and_then(Value::as_str)
                        .and_then(|id| searches.iter().find(|(search, _)| search == id));
                    let content = block.get("content").unwrap_or(&Value::Null);
                    let referenced = content.as_array().is_some_and(|blocks| {
                        blocks.iter().any(|b| {
                            b.get("type").and_then(Value::as_str) == Some("tool_reference")
                        })
                    });
                    let Some((_, arguments)) = search else {
                        continue;
                    };
                    if referenced || block.get("is_error") == Some(&Value::Bool(true)) {
                        continue;
                    }
                    let names = discovery.loaded_by(arguments);
                    if !names.is_empty() {
                        block["content"] = blocks(names.iter().map(String::as_str));
                    }
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use tooldef::Target;

    use super::*;
    use crate::discovery::Candidate;

    fn discovery() -> Discovery {
        let candidate = |name: &str, description: &str| Candidate {
            name: name.to_owned(),
            tool: json!({"name": name, "description": description, "input_schema": {"type": "object", "properties": {"title": {"type": "string"}}}}),
            namespace: None,
        };
        Discovery::new(
            Target::Anthropic,
            true,
            HashSet::from(["example__get_time".to_owned()]),
            vec![
                candidate("gh__create_pull_request", "Create a pull request."),
                candidate("gh__merge_pull_request", "Merge a pull request."),
                candidate("gh__get_file_contents", "Get the contents of a file."),
            ],
            0,
        )
    }

    fn call(id: &str) -> ToolCall {
        ToolCall {
            id: id.to_owned(),
            name: SEARCH_TOOL.to_owned(),
            arguments: r#"{"query": "create a pull request"}"#.to_owned(),
        }
    }

    #[test]
    fn the_search_is_answered_with_a_tool_reference_per_tool_found() {
        let discovery = discovery();
        assert!(discovery.loads_by_reference() && !discovery.is_tool_search());
        assert!(discovery.is_search(SEARCH_TOOL));
        assert!(discovery.defers("gh__merge_pull_request"));
        assert!(!discovery.defers("example__get_time"), "pinned: loaded");
        assert!(
            discovery.sends("gh__merge_pull_request"),
            "every tool is sent"
        );
        let definition: Value = serde_json::from_str(discovery.definition.get()).unwrap();
        assert_eq!(definition["name"], SEARCH_TOOL);
        assert_eq!(definition["input_schema"]["required"], json!(["query"]));
        assert!(definition.get("defer_loading").is_none() && definition.get("type").is_none());

        let outcome = discovery.answer(r#"{"query": "create a pull request"}"#);
        let result = result(&call("toolu_1"), &outcome);
        assert_eq!(result["type"], "tool_result");
        assert_eq!(result["tool_use_id"], "toolu_1");
        assert!(result.get("is_error").is_none());
        let content = result["content"].as_array().unwrap();
        assert_eq!(
            content[0],
            json!({"type": "tool_reference", "tool_name": "gh__create_pull_request"})
        );
        assert!(content.iter().all(
            |block| block["type"] == "tool_reference" && block.as_object().unwrap().len() == 2
        ));

        // Nothing found: the text says so, as an error, and loads nothing.
        let none = discovery.answer(r#"{"query": "weather forecast"}"#);
        let result = super::result(&call("toolu_2"), &none);
        assert_eq!(result["is_error"], true);
        assert!(!result.to_string().contains("tool_reference"), "{result}");
    }

    #[test]
    fn a_translated_request_gets_the_references_back_from_the_search_calls() {
        let discovery = discovery();
        let answer = discovery
            .answer(r#"{"query": "merge a pull request"}"#)
            .text();
        let mut request = json!({"messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "s1", "name": SEARCH_TOOL, "input": {"query": "merge"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "s1", "content": [{"type": "text", "text": answer}]}]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "lookup", "input": {}}]},
            // A client's own tool whose text looks like an answer: not a search, left alone.
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "- gh__get_file_contents: x"}]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "s2", "name": SEARCH_TOOL, "input": {"query": "weather"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "s2", "content": "No tool matches \"weather\".", "is_error": true}]},
        ]});
        let Value::Object(request) = &mut request else {
            unreachable!()
        };
        restore(request, &discovery);
        let messages = request["messages"].as_array().unwrap();
        let references = messages[2]["content"][0]["content"].as_array().unwrap();
        assert_eq!(
            references[0],
            json!({"type": "tool_reference", "tool_name": "gh__merge_pull_request"})
        );
        assert!(
            references
                .iter()
                .all(|block| block["type"] == "tool_reference")
        );
        assert_eq!(
            messages[4]["content"][0]["content"],
            "- gh__get_file_contents: x"
        );
        assert_eq!(messages[6]["content"][0]["is_error"], true);
        assert!(messages[6]["content"][0]["content"].is_string());
        // Written once: a second pass finds the references there and changes nothing.
        let before = request.clone();
        restore(request, &discovery);
        assert_eq!(*request, before);
        // A query that finds nothing, or no query, loads nothing.
        assert!(discovery.loaded_by(&json!({"query": "weather"})).is_empty());
        assert!(discovery.loaded_by(&json!({})).is_empty());
    }
}
