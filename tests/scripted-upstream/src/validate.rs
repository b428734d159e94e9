//! The checks OpenAI makes that a gateway could fail: the request's shape, the `tools` list, the
//! `tool_choice`, and the pairing of tool calls with their results in the conversation. Errors
//! are 400s in OpenAI's shape, worded as OpenAI words them.

use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::error::ApiError;

/// OpenAI's limit on the tools of one request (the Messages API is held to it too).
pub const MAX_TOOLS: usize = 128;

/// Which of OpenAI's APIs a check is made for: they spell some things differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenAi {
    Chat,
    Responses,
}

/// The body as a JSON object with a string `model`.
pub fn request_object(body: &[u8]) -> Result<Map<String, Value>, ApiError> {
    let value: Value = serde_json::from_slice(body).map_err(|_| {
        ApiError::invalid(
            "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)",
            None,
        )
    })?;
    let Value::Object(request) = value else {
        return Err(ApiError::invalid_type("body", "an object", &value));
    };
    match request.get("model") {
        Some(Value::String(_)) => Ok(request),
        None | Some(Value::Null) => Err(ApiError::invalid(
            "you must provide a model parameter",
            None,
        )),
        Some(other) => Err(ApiError::invalid_type("model", "a string", other)),
    }
}

/// Whether a tool name is one OpenAI (and Anthropic) accepts: `^[a-zA-Z0-9_-]{1,64}$`.
pub fn valid_tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Checks `tools` and returns the function tools' names in order, `None` when there is no
/// `tools`. Tools of other types (Responses' built-in tools, Chat's custom tools) are passed over.
pub fn tools(api: OpenAi, tools: Option<&Value>) -> Result<Option<Vec<String>>, ApiError> {
    let tools = match tools {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Array(tools)) => tools,
        Some(other) => return Err(ApiError::invalid_type("tools", "an array", other)),
    };
    if tools.len() > MAX_TOOLS {
        return Err(ApiError::invalid(
            format!(
                "Invalid 'tools': array too long. Expected an array with maximum length {MAX_TOOLS}, but got an array with length {} instead.",
                tools.len()
            ),
            Some("tools".into()),
        ));
    }
    // Chat Completions refuses an empty list (Responses takes one): a gateway that injects no
    // tools must leave `tools` out.
    if api == OpenAi::Chat && tools.is_empty() {
        return Err(ApiError::invalid(
            "Invalid 'tools': empty array. Expected an array with minimum length 1, but got an empty array instead.",
            Some("tools".into()),
        ));
    }
    if api == OpenAi::Responses {
        deferral(tools)?;
    }
    let mut names = Vec::with_capacity(tools.len());
    for (i, tool) in tools.iter().enumerate() {
        match tool.get("type") {
            Some(Value::String(kind)) if kind == "function" => {}
            Some(Value::String(kind)) if kind == "namespace" && api == OpenAi::Responses => {
                namespace(&format!("tools[{i}]"), tool)?;
                continue;
            }
            Some(Value::String(_)) => continue,
            None => return Err(ApiError::missing(&format!("tools[{i}].type"))),
            Some(other) => {
                return Err(ApiError::invalid_type(
                    &format!("tools[{i}].type"),
                    "a string",
                    other,
                ));
            }
        }
        let (param, name) = match api {
            OpenAi::Chat => (
                format!("tools[{i}].function.name"),
                tool.get("function")
                    .and_then(|function| function.get("name")),
            ),
            OpenAi::Responses => (format!("tools[{i}].name"), tool.get("name")),
        };
        match name {
            Some(Value::String(name)) if valid_tool_name(name) => names.push(name.clone()),
            Some(Value::String(_)) => {
                return Err(ApiError::invalid(
                    format!(
                        "Invalid '{param}': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]{{1,64}}$'."
                    ),
                    Some(param),
                ));
            }
            None | Some(Value::Null) => return Err(ApiError::missing(&param)),
            Some(other) => return Err(ApiError::invalid_type(&param, "a string", other)),
        }
    }
    Ok(Some(names))
}

/// Whether a function tool is deferred (`defer_loading: true`).
fn deferred(tool: &Value) -> bool {
    tool.get("defer_loading") == Some(&Value::Bool(true))
}

/// A Responses `namespace` tool (`namespace_tool_param.py`): a valid `name`, a `description`, and
/// `tools` of functions (or custom tools) with valid names, distinct within it.
fn namespace(param: &str, tool: &Value) -> Result<(), ApiError> {
    match tool.get("name") {
        Some(Value::String(name)) if valid_tool_name(name) => {}
        Some(Value::String(_)) => {
            return Err(ApiError::invalid(
                format!(
                    "Invalid '{param}.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]{{1,64}}$'."
                ),
                Some(format!("{param}.name")),
            ));
        }
        _ => return Err(ApiError::missing(&format!("{param}.name"))),
    }
    if !tool.get("description").is_some_and(Value::is_string) {
        return Err(ApiError::missing(&format!("{param}.description")));
    }
    let Some(Value::Array(members)) = tool.get("tools") else {
        return Err(ApiError::missing(&format!("{param}.tools")));
    };
    let mut seen = HashSet::new();
    for (k, member) in members.iter().enumerate() {
        let at = format!("{param}.tools[{k}]");
        match member.get("type").and_then(Value::as_str) {
            Some("function" | "custom") => {}
            _ => {
                return Err(ApiError::invalid(
                    format!(
                        "Invalid '{at}.type': a namespace holds `function` and `custom` tools."
                    ),
                    Some(format!("{at}.type")),
                ));
            }
        }
        let name = member
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if !valid_tool_name(name) {
            return Err(ApiError::invalid(
                format!(
                    "Invalid '{at}.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]{{1,64}}$'."
                ),
                Some(format!("{at}.name")),
            ));
        }
        if !seen.insert(name) {
            return Err(ApiError::invalid(
                format!(
                    "Invalid '{param}.tools': the name '{name}' is given twice in one namespace."
                ),
                Some(format!("{param}.tools")),
            ));
        }
    }
    Ok(())
}

/// Deferred loading (the tool search guide): deferred functions (top-level or in a namespace)
/// need a `tool_search` tool to be found by, and at least one function must stay loaded; the
/// loaded functions count against the tool limit (the deferred ones are what the search is for).
fn deferral(tools: &[Value]) -> Result<(), ApiError> {
    let functions = tools
        .iter()
        .flat_map(|tool| match tool.get("type").and_then(Value::as_str) {
            Some("namespace") => tool
                .get("tools")
                .and_then(Value::as_array)
                .map(|members| members.iter().collect::<Vec<_>>())
                .unwrap_or_default(),
            Some("function" | "custom") => vec![tool],
            _ => Vec::new(),
        });
    let (deferred, loaded): (Vec<&Value>, Vec<&Value>) = functions.partition(|tool| deferred(tool));
    if loaded.len() > MAX_TOOLS {
        return Err(ApiError::invalid(
            format!(
                "Invalid 'tools': {} functions are loaded (not `defer_loading`), more than the {MAX_TOOLS} one request may carry.",
                loaded.len()
            ),
            Some("tools".into()),
        ));
    }
    if deferred.is_empty() {
        return Ok(());
    }
    let search = tools
        .iter()
        .find(|tool| tool.get("type").and_then(Value::as_str) == Some("tool_search"));
    let Some(search) = search else {
        return Err(ApiError::invalid(
            "Invalid 'tools': tools with `defer_loading` need a `tool_search` tool to be loaded by.",
            Some("tools".into()),
        ));
    };
    if !matches!(
        search.get("execution").and_then(Value::as_str),
        None | Some("server" | "client")
    ) {
        return Err(ApiError::invalid(
            "Invalid 'tools': a `tool_search` tool's `execution` is `server` or `client`.",
            Some("tools".into()),
        ));
    }
    if loaded.is_empty() {
        return Err(ApiError::invalid(
            "Invalid 'tools': every function is deferred; at least one must have `defer_loading` false.",
            Some("tools".into()),
        ));
    }
    Ok(())
}

/// The names a `tool_search_output` loads: `NAMESPACE.NAME` for a namespace's, a function's own.
pub fn loaded_names(item: &Value) -> Vec<String> {
    let mut names = Vec::new();
    for tool in item
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
        match tool.get("type").and_then(Value::as_str) {
            Some("namespace") => {
                for member in tool
                    .get("tools")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let member = member
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    names.push(format!("{name}.{member}"));
                }
            }
            _ => names.push(name.to_owned()),
        }
    }
    names
}

/// Responses: every `function_call` of a function in a namespace (among the request's tools, or
/// loaded by a `tool_search_output` of the conversation) carries that `namespace`, as the API
/// returned it, and a `namespace` a call names holds the function (vercel/ai#15193: a call sent
/// back without its namespace is refused).
pub fn responses_namespaces(tools: Option<&Value>, items: &[Value]) -> Result<(), ApiError> {
    let mut top = HashSet::new();
    let mut namespaces: Vec<(String, HashSet<String>)> = Vec::new();
    let mut learn = |tool: &Value| {
        let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
        match tool.get("type").and_then(Value::as_str) {
            Some("namespace") => {
                let members = tool
                    .get("tools")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|m| m.get("name").and_then(Value::as_str).map(str::to_owned));
                namespaces.push((name.to_owned(), members.collect()));
            }
            Some("function" | "custom") => {
                top.insert(name.to_owned());
            }
            _ => {}
        }
    };
    for tool in tools.and_then(Value::as_array).into_iter().flatten() {
        learn(tool);
    }
    for item in items
        .iter()
        .filter(|item| item_type(item) == "tool_search_output")
    {
        for tool in item
            .get("tools")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            learn(tool);
        }
    }
    for (i, item) in items.iter().enumerate() {
        if item_type(item) != "function_call" {
            continue;
        }
        let name = item.get("name").and_then(Value::as_str).unwrap_or_default();
        match item.get("namespace").and_then(Value::as_str) {
            Some(namespace) => {
                let holds = namespaces
                    .iter()
                    .any(|(known, members)| known == namespace && members.contains(name));
                if !holds {
                    return Err(ApiError::invalid(
                        format!(
                            "Invalid 'input[{i}]': no namespace '{namespace}' with a function '{name}' among the tools."
                        ),
                        Some(format!("input[{i}].namespace")),
                    ));
                }
            }
            None if !top.contains(name) => {
                if let Some((namespace, _)) = namespaces
                    .iter()
                    .find(|(_, members)| members.contains(name))
                {
                    return Err(ApiError::invalid(
                        format!(
                            "Missing 'input[{i}].namespace': the function call of '{name}' is of the namespace '{namespace}' and must be sent back with it."
                        ),
                        Some(format!("input[{i}].namespace")),
                    ));
                }
            }
            None => {}
        }
    }
    Ok(())
}

/// Checks `tool_choice` (and, for Chat, `parallel_tool_calls`) against the tools.
pub fn tool_choice(
    api: OpenAi,
    request: &Map<String, Value>,
    names: Option<&[String]>,
) -> Result<(), ApiError> {
    let present = |key: &str| request.get(key).is_some_and(|value| !value.is_null());
    // Chat refuses both without tools: a gateway that strips the tools on its last round must
    // strip these with them.
    if api == OpenAi::Chat && names.is_none() {
        for key in ["tool_choice", "parallel_tool_calls"] {
            if present(key) {
                return Err(ApiError::invalid(
                    format!(
                        "Invalid value for '{key}': '{key}' is only allowed when 'tools' are specified."
                    ),
                    Some(key.into()),
                ));
            }
        }
        return Ok(());
    }
    let Some(Value::Object(choice)) = request.get("tool_choice") else {
        return Ok(());
    };
    if choice.get("type").and_then(Value::as_str) != Some("function") {
        return Ok(());
    }
    let named = match api {
        OpenAi::Chat => choice
            .get("function")
            .and_then(|function| function.get("name")),
        OpenAi::Responses => choice.get("name"),
    }
    .and_then(Value::as_str);
    let known =
        named.is_some_and(|named| names.unwrap_or_default().iter().any(|name| name == named));
    if known {
        Ok(())
    } else {
        Err(ApiError::invalid(
            format!(
                "Invalid value for 'tool_choice': 'tool_choice' must be one of the tools in 'tools', and '{}' is not.",
                named.unwrap_or_default()
            ),
            Some("tool_choice".into()),
        ))
    }
}

/// The role of a Chat message or a Responses item, if it has one.
pub fn role(message: &Value) -> Option<&str> {
    message.get("role").and_then(Value::as_str)
}

/// Chat: each assistant message with `tool_calls` must be followed, before the next message that
/// is not a tool message, by a tool message for each of its calls, and each tool message must
/// answer a call of the assistant message its run of tool messages follows.
pub fn chat_messages(messages: &[Value]) -> Result<(), ApiError> {
    // The assistant message whose results are being read: its index, its call ids, and which
    // of them have been answered.
    struct Open<'a> {
        index: usize,
        ids: Vec<&'a str>,
        answered: Vec<bool>,
    }
    fn close(open: Option<Open<'_>>) -> Result<(), ApiError> {
        let Some(open) = open else { return Ok(()) };
        let missing: Vec<&str> = open
            .ids
            .iter()
            .zip(&open.answered)
            .filter(|(_, answered)| !**answered)
            .map(|(id, _)| *id)
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        Err(ApiError::invalid(
            format!(
                "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: {}",
                missing.join(", ")
            ),
            Some(format!("messages.[{}].role", open.index)),
        ))
    }

    if messages.is_empty() {
        return Err(ApiError::invalid(
            "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
            Some("messages".into()),
        ));
    }
    let mut open: Option<Open<'_>> = None;
    for (i, message) in messages.iter().enumerate() {
        let Some(role) = role(message) else {
            return Err(ApiError::missing(&format!("messages.[{i}].role")));
        };
        if role == "tool" {
            let Some(id) = message.get("tool_call_id").and_then(Value::as_str) else {
                return Err(ApiError::invalid(
                    "Missing parameter 'tool_call_id': messages with role 'tool' must have a 'tool_call_id'.",
                    Some(format!("messages.[{i}].tool_call_id")),
                ));
            };
            let call = open.as_mut().and_then(|open| {
                open.ids
                    .iter()
                    .position(|call| *call == id)
                    .map(|at| (open, at))
            });
            let Some((open, at)) = call else {
                return Err(ApiError::invalid(
                    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
                    Some(format!("messages.[{i}].role")),
                ));
            };
            open.answered[at] = true;
            continue;
        }
        close(open.take())?;
        let calls = match message.get("tool_calls") {
            Some(Value::Array(calls)) if role == "assistant" && !calls.is_empty() => calls,
            _ => continue,
        };
        let ids: Vec<&str> = calls
            .iter()
            .map(|call| call.get("id").and_then(Value::as_str).unwrap_or_default())
            .collect();
        open = Some(Open {
            index: i,
            answered: vec![false; ids.len()],
            ids,
        });
    }
    close(open)
}

/// Whether a tool search item is one the client executes (the server's are the API's own).
fn is_client_search(item: &Value) -> bool {
    item.get("execution").and_then(Value::as_str) != Some("server")
}

/// The item's `type`, `"message"` when absent (an easy input message).
pub fn item_type(item: &Value) -> &str {
    item.get("type")
        .and_then(Value::as_str)
        .unwrap_or("message")
}

/// Responses: each `function_call_output` must answer a `function_call` earlier in the
/// conversation, and each `function_call` followed by anything but other function calls must
/// have its output somewhere after it. `items` is the stored predecessor's conversation and then
/// this request's input, which starts at `input_start`.
pub fn responses_items(items: &[Value], input_start: usize) -> Result<(), ApiError> {
    let call_id = |i: usize, item: &Value| -> Result<(), ApiError> {
        match item.get("call_id") {
            Some(Value::String(_)) => Ok(()),
            None | Some(Value::Null) => Err(ApiError::missing(&format!(
                "input[{}].call_id",
                i.saturating_sub(input_start)
            ))),
            Some(other) => Err(ApiError::invalid_type(
                &format!("input[{}].call_id", i.saturating_sub(input_start)),
                "a string",
                other,
            )),
        }
    };
    let mut calls = HashSet::new();
    let mut searches = HashSet::new();
    for (i, item) in items.iter().enumerate() {
        match item_type(item) {
            "tool_search_call" if is_client_search(item) => {
                call_id(i, item)?;
                searches.insert(item["call_id"].as_str().unwrap_or_default());
            }
            "tool_search_output" if is_client_search(item) => {
                call_id(i, item)?;
                let id = item["call_id"].as_str().unwrap_or_default();
                if !searches.contains(id) {
                    return Err(ApiError::invalid(
                        format!(
                            "No tool search call found for tool search output with call_id {id}."
                        ),
                        Some("input".into()),
                    ));
                }
            }
            "function_call" => {
                call_id(i, item)?;
                calls.insert(item["call_id"].as_str().unwrap_or_default());
            }
            "function_call_output" => {
                call_id(i, item)?;
                let id = item["call_id"].as_str().unwrap_or_default();
                if !calls.contains(id) {
                    return Err(ApiError::invalid(
                        format!("No tool call found for function call output with call_id {id}."),
                        Some("input".into()),
                    ));
                }
            }
            _ => {}
        }
    }
    // Backwards, knowing which outputs come later and whether anything but calls does; the last
    // unanswered call found is the earliest in the conversation.
    let mut outputs_after = HashSet::new();
    let mut continues = false;
    let mut unanswered = None;
    for item in items.iter().rev() {
        match item_type(item) {
            "function_call" => {
                let id = item["call_id"].as_str().unwrap_or_default();
                if continues && !outputs_after.contains(id) {
                    unanswered = Some(id);
                }
            }
            "tool_search_call" if is_client_search(item) => {
                let id = item["call_id"].as_str().unwrap_or_default();
                if continues && !outputs_after.contains(id) {
                    return Err(ApiError::invalid(
                        format!(
                            "No tool search output found for tool search call {id}: a client-executed search is answered with a `tool_search_output` item, and both are sent back."
                        ),
                        Some("input".into()),
                    ));
                }
            }
            "function_call_output" | "tool_search_output" => {
                outputs_after.insert(item["call_id"].as_str().unwrap_or_default());
                continues = true;
            }
            _ => continues = true,
        }
    }
    match unanswered {
        Some(id) => Err(ApiError::invalid(
            format!("No tool output found for function call {id}."),
            Some("input".into()),
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn message(error: Result<(), ApiError>) -> String {
        error.unwrap_err().message
    }

    fn function_tool(name: &str) -> Value {
        json!({"type": "function", "function": {"name": name, "parameters": {"type": "object"}}})
    }

    #[test]
    fn request_shape() {
        assert!(request_object(b"not json").is_err());
        assert!(request_object(b"[1]").is_err());
        assert_eq!(
            request_object(b"{}").unwrap_err().message,
            "you must provide a model parameter"
        );
        assert_eq!(
            request_object(br#"{"model": 3}"#)
                .unwrap_err()
                .param
                .as_deref(),
            Some("model")
        );
        assert!(request_object(br#"{"model": "m"}"#).is_ok());
    }

    #[test]
    fn tool_names_and_counts() {
        assert!(valid_tool_name("get_weather-2"));
        assert!(!valid_tool_name(""));
        assert!(!valid_tool_name("a.b"));
        assert!(!valid_tool_name(&"x".repeat(65)));
        assert!(valid_tool_name(&"x".repeat(64)));

        let many = Value::Array((0..129).map(|i| function_tool(&format!("t{i}"))).collect());
        let error = tools(OpenAi::Chat, Some(&many)).unwrap_err();
        assert_eq!(
            error.message,
            "Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length 129 instead."
        );
        assert_eq!(error.param.as_deref(), Some("tools"));

        let bad = json!([function_tool("ok"), function_tool("not ok")]);
        let error = tools(OpenAi::Chat, Some(&bad)).unwrap_err();
        assert!(
            error
                .message
                .starts_with("Invalid 'tools[1].function.name': string does not match pattern")
        );
        assert_eq!(error.param.as_deref(), Some("tools[1].function.name"));

        let responses = json!([{"type": "web_search"}, {"type": "function", "name": "a/b"}]);
        let error = tools(OpenAi::Responses, Some(&responses)).unwrap_err();
        assert_eq!(error.param.as_deref(), Some("tools[1].name"));
        let responses = json!([{"type": "web_search"}, {"type": "function", "name": "ab"}]);
        assert_eq!(
            tools(OpenAi::Responses, Some(&responses)).unwrap(),
            Some(vec!["ab".into()])
        );

        assert!(tools(OpenAi::Chat, Some(&json!([]))).is_err());
        assert_eq!(
            tools(OpenAi::Responses, Some(&json!([]))).unwrap(),
            Some(vec![])
        );
        assert_eq!(tools(OpenAi::Chat, None).unwrap(), None);
    }

    #[test]
    fn tool_choice_must_name_a_tool() {
        let names = vec!["a".to_owned()];
        let request = |choice: Value| json!({"tool_choice": choice}).as_object().unwrap().clone();
        let chat = request(json!({"type": "function", "function": {"name": "b"}}));
        assert!(
            message(tool_choice(OpenAi::Chat, &chat, Some(&names))).starts_with(
                "Invalid value for 'tool_choice': 'tool_choice' must be one of the tools in 'tools'"
            )
        );
        let chat = request(json!({"type": "function", "function": {"name": "a"}}));
        assert!(tool_choice(OpenAi::Chat, &chat, Some(&names)).is_ok());
        assert!(tool_choice(OpenAi::Chat, &request(json!("none")), Some(&names)).is_ok());
        assert!(tool_choice(OpenAi::Chat, &request(json!("none")), None).is_err());

        let responses = request(json!({"type": "function", "name": "b"}));
        assert!(tool_choice(OpenAi::Responses, &responses, Some(&names)).is_err());
        let responses = request(json!({"type": "function", "name": "a"}));
        assert!(tool_choice(OpenAi::Responses, &responses, Some(&names)).is_ok());
        assert!(tool_choice(OpenAi::Responses, &request(json!("auto")), None).is_ok());
    }

    fn assistant_calls(ids: &[&str]) -> Value {
        let calls: Vec<Value> = ids
            .iter()
            .map(|id| json!({"id": id, "type": "function", "function": {"name": "f", "arguments": "{}"}}))
            .collect();
        json!({"role": "assistant", "content": null, "tool_calls": calls})
    }

    fn tool(id: &str) -> Value {
        json!({"role": "tool", "tool_call_id": id, "content": "r"})
    }

    #[test]
    fn chat_tool_calls_need_their_results() {
        let user = json!({"role": "user", "content": "hi"});
        let ok = [
            user.clone(),
            assistant_calls(&["c1", "c2"]),
            tool("c2"),
            tool("c1"),
            json!({"role": "assistant", "content": "x"}),
        ];
        assert!(chat_messages(&ok).is_ok());

        let missing = [
            user.clone(),
            assistant_calls(&["c1", "c2", "c3"]),
            tool("c2"),
            user.clone(),
        ];
        let error = chat_messages(&missing).unwrap_err();
        assert_eq!(
            error.message,
            "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: c1, c3"
        );
        assert_eq!(error.param.as_deref(), Some("messages.[1].role"));
        // The conversation ending on the calls is the same mistake.
        assert!(chat_messages(&[user.clone(), assistant_calls(&["c1"])]).is_err());

        let stray = [user.clone(), tool("c1")];
        let error = chat_messages(&stray).unwrap_err();
        assert_eq!(
            error.message,
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."
        );
        assert_eq!(error.param.as_deref(), Some("messages.[1].role"));
        let wrong_id = [user.clone(), assistant_calls(&["c1"]), tool("c9")];
        assert!(
            chat_messages(&wrong_id)
                .unwrap_err()
                .message
                .contains("preceeding")
        );
        // A result after a later message answers nothing, even with an old id.
        let late = [
            user.clone(),
            assistant_calls(&["c1"]),
            tool("c1"),
            user.clone(),
            tool("c1"),
        ];
        assert_eq!(
            chat_messages(&late).unwrap_err().param.as_deref(),
            Some("messages.[4].role")
        );
        assert!(chat_messages(&[]).is_err());
    }

    fn call(id: &str) -> Value {
        json!({"type": "function_call", "call_id": id, "name": "f", "arguments": "{}"})
    }

    fn output(id: &str) -> Value {
        json!({"type": "function_call_output", "call_id": id, "output": "r"})
    }

    #[test]
    fn responses_calls_and_outputs_pair_up() {
        let user = json!({"role": "user", "content": "hi"});
        assert!(
            responses_items(
                &[user.clone(), call("a"), call("b"), output("b"), output("a")],
                0
            )
            .is_ok()
        );
        // Calls the conversation ends on are what the model just asked for.
        assert!(responses_items(&[user.clone(), call("a"), call("b")], 0).is_ok());

        let error = responses_items(&[user.clone(), output("a")], 0).unwrap_err();
        assert_eq!(
            error.message,
            "No tool call found for function call output with call_id a."
        );
        assert_eq!(error.param.as_deref(), Some("input"));

        let error = responses_items(
            &[
                user.clone(),
                call("a"),
                call("b"),
                output("b"),
                user.clone(),
            ],
            0,
        )
        .unwrap_err();
        assert_eq!(error.message, "No tool output found for function call a.");
        // Stored calls followed by a new user message and no outputs.
        assert!(responses_items(&[user.clone(), call("a"), user.clone()], 2).is_err());

        let error = responses_items(
            &[
                user.clone(),
                json!({"type": "function_call_output", "output": "r"}),
            ],
            1,
        )
        .unwrap_err();
        assert_eq!(error.param.as_deref(), Some("input[0].call_id"));
    }

    #[test]
    fn namespaces_deferral_and_tool_searches_are_checked() {
        let member = |name: &str, deferred: bool| json!({"type": "function", "name": name, "parameters": {}, "defer_loading": deferred});
        let namespace = json!({"type": "namespace", "name": "gh", "description": "GitHub.", "tools": [member("create_pr", true)]});
        let search = json!({"type": "tool_search", "execution": "client", "parameters": {}});
        let pinned = member("get_time", false);
        let listed = json!([search.clone(), namespace.clone(), pinned.clone()]);
        assert_eq!(
            tools(OpenAi::Responses, Some(&listed)).unwrap(),
            Some(vec!["get_time".to_owned()])
        );
        let all_deferred = json!([search, namespace.clone()]);
        assert!(
            message(tools(OpenAi::Responses, Some(&all_deferred)).map(drop))
                .contains("at least one must have `defer_loading` false")
        );
        let no_search = json!([namespace.clone(), pinned]);
        assert!(
            message(tools(OpenAi::Responses, Some(&no_search)).map(drop))
                .contains("need a `tool_search` tool")
        );
        let bad = json!([{"type": "namespace", "name": "g h", "description": "", "tools": []}]);
        assert!(tools(OpenAi::Responses, Some(&bad)).is_err());

        let searched = json!({"type": "tool_search_call", "call_id": "ts", "execution": "client", "arguments": {"query": "pr"}});
        let loaded = json!({"type": "tool_search_output", "call_id": "ts", "execution": "client", "tools": [namespace]});
        let call = |namespace: Option<&str>| {
            let mut item = json!({"type": "function_call", "call_id": "c", "name": "create_pr", "arguments": "{}"});
            if let Some(namespace) = namespace {
                item["namespace"] = json!(namespace);
            }
            item
        };
        let user = json!({"role": "user", "content": "go"});
        let done = json!({"type": "function_call_output", "call_id": "c", "output": "ok"});
        let items = [
            user.clone(),
            searched.clone(),
            loaded.clone(),
            call(Some("gh")),
            done.clone(),
        ];
        responses_items(&items, 0).unwrap();
        responses_namespaces(None, &items).unwrap();
        // Sent back without its namespace, or in another: refused.
        let items = [
            user.clone(),
            searched.clone(),
            loaded.clone(),
            call(None),
            done.clone(),
        ];
        assert!(
            message(responses_namespaces(None, &items)).contains("Missing 'input[3].namespace'")
        );
        let items = [
            user.clone(),
            searched.clone(),
            loaded,
            call(Some("gl")),
            done,
        ];
        assert!(message(responses_namespaces(None, &items)).contains("no namespace 'gl'"));
        // A client-executed search must have its output sent back.
        let items = [
            user.clone(),
            searched,
            json!({"role": "user", "content": "and?"}),
        ];
        assert!(message(responses_items(&items, 0)).contains("No tool search output"));
        let stray = [
            user,
            json!({"type": "tool_search_output", "call_id": "x", "tools": []}),
        ];
        assert!(message(responses_items(&stray, 0)).contains("No tool search call"));
    }
}
