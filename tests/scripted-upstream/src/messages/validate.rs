//! The checks Anthropic makes that a gateway could fail: the request's required fields, the
//! `tools` list, the `tool_choice`, and the pairing of `tool_use` blocks with their `tool_result`
//! blocks. Errors are 400 `invalid_request_error`s in Anthropic's shape, worded as Anthropic words
//! them where its wording was found (the source is given with each rule); the schema errors follow
//! the `field.path: message` form of Anthropic's validator.

use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::error::AnthropicError;
use crate::validate::{MAX_TOOLS, role, valid_tool_name};

/// Which endpoint the request came to: `count_tokens` takes a request without `max_tokens`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endpoint {
    Create,
    CountTokens,
}

/// What the checks found that the reply needs.
#[derive(Debug, Default, PartialEq)]
pub struct Checked {
    /// The custom tools' names, in order (server tools, which have no `input_schema`, are not
    /// the gateway's).
    pub tools: Vec<String>,
    /// `tool_choice: {"type": "none"}`.
    pub tool_choice_none: bool,
    /// `max_tokens`, for `Endpoint::Create`.
    pub max_tokens: Option<u64>,
    /// The deferred tools (`defer_loading: true`) no `tool_reference` of the conversation has
    /// loaded: the model cannot call them.
    pub unloaded: Vec<String>,
}

fn invalid(message: impl Into<String>) -> AnthropicError {
    AnthropicError::invalid(message)
}

/// The validator's words for a value of the wrong type.
fn not_a(path: &str, what: &str) -> AnthropicError {
    invalid(format!("{path}: Input should be a valid {what}"))
}

fn required(path: &str) -> AnthropicError {
    invalid(format!("{path}: Field required"))
}

/// The body as a JSON object (the wording is ours: Anthropic's for a body that is no JSON was
/// not found).
pub fn request_object(body: &[u8]) -> Result<Map<String, Value>, AnthropicError> {
    match serde_json::from_slice(body) {
        Ok(Value::Object(request)) => Ok(request),
        Ok(_) => Err(invalid("Request body must be a JSON object.")),
        Err(error) => Err(invalid(format!(
            "There was an error parsing the body of your request: {error}"
        ))),
    }
}

/// Every check, in the order Anthropic's validator meets the fields.
pub fn check(request: &Map<String, Value>, endpoint: Endpoint) -> Result<Checked, AnthropicError> {
    match request.get("model") {
        Some(Value::String(_)) => {}
        None => return Err(required("model")),
        Some(_) => return Err(not_a("model", "string")),
    }
    let max_tokens = match endpoint {
        Endpoint::Create => Some(max_tokens(request.get("max_tokens"))?),
        Endpoint::CountTokens => None,
    };
    let messages = match request.get("messages") {
        Some(Value::Array(messages)) => messages.as_slice(),
        None => return Err(required("messages")),
        Some(_) => return Err(not_a("messages", "list")),
    };
    message_shapes(messages)?;
    let Tools {
        custom: tools,
        all: all_names,
        deferred,
    } = self::tools(request.get("tools"))?;
    let tool_choice_none = tool_choice(request.get("tool_choice"), &all_names)?;
    conversation(messages)?;
    let unloaded = references(messages, &deferred)?;
    Ok(Checked {
        tools,
        tool_choice_none,
        max_tokens,
        unloaded,
    })
}

/// `max_tokens` is required and an integer (anthropic-sdk-python, `MessageCreateParamsBase`:
/// `max_tokens: Required[int]`). It may be 0: "Set to `0` to populate the prompt cache without
/// generating a response" (the same docstring), so only a negative one is refused.
fn max_tokens(value: Option<&Value>) -> Result<u64, AnthropicError> {
    match value {
        None => Err(required("max_tokens")),
        Some(Value::Number(number)) if number.as_u64().is_some() => {
            Ok(number.as_u64().unwrap_or_default())
        }
        Some(Value::Number(number)) if number.as_i64().is_some() => Err(invalid(
            "max_tokens: Input should be greater than or equal to 0",
        )),
        Some(_) => Err(not_a("max_tokens", "integer")),
    }
}

/// Each message an object with a `user` or `assistant` role (there is no `system` role:
/// `MessageParam.role: Literal["user", "assistant"]`) and a `content` that is a string or a list of
/// block objects.
fn message_shapes(messages: &[Value]) -> Result<(), AnthropicError> {
    for (i, message) in messages.iter().enumerate() {
        if !message.is_object() {
            return Err(not_a(&format!("messages.{i}"), "dictionary"));
        }
        match role(message) {
            Some("user" | "assistant") => {}
            None if message.get("role").is_none() => {
                return Err(required(&format!("messages.{i}.role")));
            }
            _ => {
                return Err(invalid(format!(
                    "messages.{i}.role: Input should be 'user' or 'assistant'"
                )));
            }
        }
        match message.get("content") {
            Some(Value::String(_)) => {}
            Some(Value::Array(blocks)) => {
                if let Some(k) = blocks.iter().position(|block| !block.is_object()) {
                    return Err(not_a(&format!("messages.{i}.content.{k}"), "dictionary"));
                }
            }
            None => return Err(required(&format!("messages.{i}.content"))),
            Some(_) => return Err(not_a(&format!("messages.{i}.content"), "list")),
        }
    }
    Ok(())
}

/// The names a request's `tools` give.
struct Tools {
    /// The custom tools', in order (server tools, which have no `input_schema`, are not the
    /// gateway's).
    custom: Vec<String>,
    /// Every tool's.
    all: Vec<String>,
    /// The custom tools sent with `defer_loading: true`.
    deferred: Vec<String>,
}

/// Checks `tools` and returns the names it gives.
///
/// - A custom tool (`type` absent, null or `"custom"`: `ToolParam.type: Optional[Literal["custom"]]`)
///   has a `name` matching `^[a-zA-Z0-9_-]{1,64}$` (Anthropic's docs, "Tool" schema: "Must match
///   the regex ^[a-zA-Z0-9_-]{1,64}$"; the error as the API words it, e.g. "tools.28.custom.name:
///   String should match pattern '^[a-zA-Z0-9_-]{1,64}$'", cyanheads/atlas-mcp-server#14).
/// - Its `input_schema` is required and an object schema (`InputSchemaTyped.type:
///   Required[Literal["object"]]`).
/// - Names are unique, server tools' included ("tools: Tool names must be unique.",
///   anthropics/claude-code#10687).
/// - At most as many tools as OpenAI's APIs take ([`MAX_TOOLS`]): the gateway is held to one limit
///   whichever API it speaks (Anthropic's own limit is not documented where it was looked for).
///   Deferred tools (`defer_loading: true`, the SDK's `ToolParam.defer_loading`: "Only loaded
///   when returned via tool_reference from tool search") are not in the context: only the
///   loaded ones count, and at least one tool must stay loaded (the runtime's `AnthropicTool`
///   docs: "A request needs at least one tool that is not deferred"; the wording is ours).
fn tools(tools: Option<&Value>) -> Result<Tools, AnthropicError> {
    let tools = match tools {
        None | Some(Value::Null) => {
            return Ok(Tools {
                custom: Vec::new(),
                all: Vec::new(),
                deferred: Vec::new(),
            });
        }
        Some(Value::Array(tools)) => tools,
        Some(_) => return Err(not_a("tools", "list")),
    };
    let is_deferred = |tool: &Value| tool.get("defer_loading") == Some(&Value::Bool(true));
    let loaded = tools.iter().filter(|tool| !is_deferred(tool)).count();
    if loaded == tools.len() && tools.len() > MAX_TOOLS {
        return Err(invalid(format!(
            "tools: List should have at most {MAX_TOOLS} items after validation, not {}",
            tools.len()
        )));
    }
    if loaded > MAX_TOOLS {
        return Err(invalid(format!(
            "tools: {loaded} tools are loaded (not `defer_loading`), more than the {MAX_TOOLS} one request may carry."
        )));
    }
    if loaded == 0 && !tools.is_empty() {
        return Err(invalid(
            "tools: every tool has `defer_loading: true`; at least one tool must be loaded (a tool search to find the others by).",
        ));
    }
    let mut custom = Vec::new();
    let mut all = Vec::new();
    let mut deferred = Vec::new();
    for (i, tool) in tools.iter().enumerate() {
        if !tool.is_object() {
            return Err(not_a(&format!("tools.{i}"), "dictionary"));
        }
        match tool.get("type") {
            None | Some(Value::Null) => {}
            Some(Value::String(kind)) if kind == "custom" => {}
            // A server tool (`web_search_20250305`, `bash_20250124`, …): the API defines its
            // input; its name still counts among the names.
            Some(Value::String(_)) => {
                if let Some(name) = tool.get("name").and_then(Value::as_str) {
                    all.push(name.to_owned());
                }
                continue;
            }
            Some(_) => return Err(not_a(&format!("tools.{i}.type"), "string")),
        }
        let path = format!("tools.{i}.custom");
        let name = match tool.get("name") {
            Some(Value::String(name)) if valid_tool_name(name) => name,
            Some(Value::String(_)) => {
                return Err(invalid(format!(
                    "{path}.name: String should match pattern '^[a-zA-Z0-9_-]{{1,64}}$'"
                )));
            }
            None => return Err(required(&format!("{path}.name"))),
            Some(_) => return Err(not_a(&format!("{path}.name"), "string")),
        };
        match tool.get("input_schema") {
            Some(Value::Object(schema)) => match schema.get("type") {
                Some(Value::String(kind)) if kind == "object" => {}
                None => return Err(required(&format!("{path}.input_schema.type"))),
                Some(_) => {
                    return Err(invalid(format!(
                        "{path}.input_schema.type: Input should be 'object'"
                    )));
                }
            },
            None => return Err(required(&format!("{path}.input_schema"))),
            Some(_) => return Err(not_a(&format!("{path}.input_schema"), "dictionary")),
        }
        if is_deferred(tool) {
            deferred.push(name.clone());
        }
        custom.push(name.clone());
        all.push(name.clone());
    }
    let mut seen = HashSet::new();
    if !all.iter().all(|name| seen.insert(name.as_str())) {
        return Err(invalid("tools: Tool names must be unique."));
    }
    Ok(Tools {
        custom,
        all,
        deferred,
    })
}

/// Client-side tool search (the SDK's `ToolReferenceBlockParam`, "Tool reference block that can
/// be included in tool_result content"): a `tool_result` whose `content` holds `{"type":
/// "tool_reference", "tool_name"}` blocks loads those tools, each of which must be among the
/// request's tools with `defer_loading: true` (the SDK's `ToolReferenceUnresolvedError`: a
/// reference to "a tool … that is not defined"); a deferred tool the model calls (a `tool_use`
/// of the conversation) must have been loaded by a reference before it, or the model could not
/// have seen it. The wording is ours. Returns the deferred tools still unloaded at the end.
fn references(messages: &[Value], deferred: &[String]) -> Result<Vec<String>, AnthropicError> {
    let mut loaded: HashSet<&str> = HashSet::new();
    for (i, message) in messages.iter().enumerate() {
        for (k, block) in blocks(message).iter().enumerate() {
            match block_type(block) {
                "tool_result" => {
                    let Some(Value::Array(content)) = block.get("content") else {
                        continue;
                    };
                    for (j, part) in content.iter().enumerate() {
                        if block_type(part) != "tool_reference" {
                            continue;
                        }
                        let path = format!("messages.{i}.content.{k}.content.{j}");
                        let name = match part.get("tool_name") {
                            Some(Value::String(name)) => name.as_str(),
                            None => {
                                return Err(required(&format!("{path}.tool_reference.tool_name")));
                            }
                            Some(_) => {
                                return Err(not_a(
                                    &format!("{path}.tool_reference.tool_name"),
                                    "string",
                                ));
                            }
                        };
                        let Some(known) = deferred.iter().find(|tool| *tool == name) else {
                            return Err(invalid(format!(
                                "{path}: `tool_reference` to '{name}', which is not a tool with `defer_loading: true` in 'tools'."
                            )));
                        };
                        loaded.insert(known);
                    }
                }
                "tool_use" if role(message) == Some("assistant") => {
                    let name = block
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    if deferred.iter().any(|tool| tool == name) && !loaded.contains(name) {
                        return Err(invalid(format!(
                            "messages.{i}.content.{k}: the deferred tool '{name}' (`defer_loading: true`) is called before any `tool_reference` loaded it."
                        )));
                    }
                }
                _ => {}
            }
        }
    }
    Ok(deferred
        .iter()
        .filter(|name| !loaded.contains(name.as_str()))
        .cloned()
        .collect())
}

/// `tool_choice` is `{"type": "auto" | "any" | "tool" | "none"}` (`ToolChoiceParam`; `none` since
/// 2025-02-27, Anthropic's API release notes); `{"type": "tool", "name"}` must name a given tool
/// (the wording of that error is ours: Anthropic's was not found). Returns whether it is `none`.
fn tool_choice(choice: Option<&Value>, names: &[String]) -> Result<bool, AnthropicError> {
    let choice = match choice {
        None | Some(Value::Null) => return Ok(false),
        Some(Value::Object(choice)) => choice,
        Some(_) => return Err(not_a("tool_choice", "dictionary")),
    };
    match choice.get("type").and_then(Value::as_str) {
        Some("auto" | "any") => Ok(false),
        Some("none") => Ok(true),
        Some("tool") => match choice.get("name") {
            Some(Value::String(name)) if names.contains(name) => Ok(false),
            Some(Value::String(name)) => Err(invalid(format!(
                "tool_choice.tool.name: Tool '{name}' not found in 'tools'."
            ))),
            None => Err(required("tool_choice.tool.name")),
            Some(_) => Err(not_a("tool_choice.tool.name", "string")),
        },
        None if choice.get("type").is_none() => Err(invalid(
            "tool_choice: Unable to extract tag using discriminator 'type'",
        )),
        _ => Err(invalid(format!(
            "tool_choice: Input tag '{}' found using 'type' does not match any of the expected tags: 'auto', 'any', 'tool', 'none'",
            choice
                .get("type")
                .map(|kind| kind
                    .as_str()
                    .map_or_else(|| kind.to_string(), str::to_owned))
                .unwrap_or_default()
        ))),
    }
}

fn blocks(message: &Value) -> &[Value] {
    message
        .get("content")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn block_type(block: &Value) -> &str {
    block
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// The ids of a message's `tool_use` blocks.
fn tool_use_ids(message: &Value) -> Vec<&str> {
    blocks(message)
        .iter()
        .filter(|block| block_type(block) == "tool_use")
        .map(|block| block.get("id").and_then(Value::as_str).unwrap_or_default())
        .collect()
}

/// The rules between messages, checked message by message in order:
///
/// - At least one message ("messages: at least one message is required",
///   devoxx/DevoxxGenieIDEAPlugin#567).
/// - The first one the user's ('messages: first message must use the "user" role',
///   tonyljx/TextWordExplain#2).
/// - No empty content but in a final assistant message ("messages.11: all messages must have
///   non-empty content except for the optional final assistant message",
///   anthropics/claude-code#4416).
/// - Each `tool_use` of an assistant message is answered by a `tool_result` at the start of the
///   very next message: Anthropic's tool use docs ("Tool result blocks must immediately follow
///   their corresponding tool use blocks"; "the tool_result blocks must come FIRST in the content
///   array", text only after them), refused as "messages.33: `tool_use` ids were found without
///   `tool_result` blocks immediately after: toolu_… . Each `tool_use` block must have a
///   corresponding `tool_result` block in the next message." (anthropics/claude-code#5989). A
///   result after a text block is therefore not "immediately after".
/// - Each `tool_result` answers a `tool_use` of the message just before ("messages.12.content.0:
///   unexpected `tool_use_id` found in `tool_result` blocks: toolu_… . Each `tool_result` block
///   must have a corresponding `tool_use` block in the previous message.",
///   router-for-me/CLIProxyAPI#497).
fn conversation(messages: &[Value]) -> Result<(), AnthropicError> {
    let Some(first) = messages.first() else {
        return Err(invalid("messages: at least one message is required"));
    };
    if role(first) != Some("user") {
        return Err(invalid(
            "messages: first message must use the \"user\" role",
        ));
    }
    for (i, message) in messages.iter().enumerate() {
        let last = i + 1 == messages.len();
        let empty = match message.get("content") {
            Some(Value::String(text)) => text.is_empty(),
            _ => blocks(message).is_empty(),
        };
        if empty && !(last && role(message) == Some("assistant")) {
            return Err(invalid(format!(
                "messages.{i}: all messages must have non-empty content except for the optional final assistant message"
            )));
        }
        match role(message) {
            Some("assistant") => {
                let ids = tool_use_ids(message);
                if ids.is_empty() {
                    continue;
                }
                let answered: Vec<&str> = messages
                    .get(i + 1)
                    .filter(|next| role(next) == Some("user"))
                    .map(|next| {
                        blocks(next)
                            .iter()
                            .take_while(|block| block_type(block) == "tool_result")
                            .filter_map(|block| block.get("tool_use_id").and_then(Value::as_str))
                            .collect()
                    })
                    .unwrap_or_default();
                let missing: Vec<&str> = ids
                    .into_iter()
                    .filter(|id| !answered.contains(id))
                    .collect();
                if !missing.is_empty() {
                    return Err(invalid(format!(
                        "messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: {}. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
                        missing.join(", ")
                    )));
                }
            }
            _ => {
                let asked = match i.checked_sub(1).map(|previous| &messages[previous]) {
                    Some(previous) if role(previous) == Some("assistant") => tool_use_ids(previous),
                    _ => Vec::new(),
                };
                for (k, block) in blocks(message).iter().enumerate() {
                    if block_type(block) != "tool_result" {
                        continue;
                    }
                    let id = match block.get("tool_use_id") {
                        Some(Value::String(id)) => id.as_str(),
                        None => {
                            return Err(required(&format!(
                                "messages.{i}.content.{k}.tool_result.tool_use_id"
                            )));
                        }
                        Some(_) => {
                            return Err(not_a(
                                &format!("messages.{i}.content.{k}.tool_result.tool_use_id"),
                                "string",
                            ));
                        }
                    };
                    if !asked.contains(&id) {
                        return Err(invalid(format!(
                            "messages.{i}.content.{k}: unexpected `tool_use_id` found in `tool_result` blocks: {id}. Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
                        )));
                    }
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn checked(request: Value) -> Result<Checked, String> {
        check(request.as_object().unwrap(), Endpoint::Create).map_err(|error| {
            assert_eq!(error.status.as_u16(), 400);
            assert_eq!(error.kind, "invalid_request_error");
            error.message
        })
    }

    fn base(messages: Value) -> Value {
        json!({"model": "claude", "max_tokens": 64, "messages": messages})
    }

    fn user(text: &str) -> Value {
        json!({"role": "user", "content": text})
    }

    fn calls(ids: &[&str]) -> Value {
        let blocks: Vec<Value> = ids
            .iter()
            .map(|id| json!({"type": "tool_use", "id": id, "name": "f", "input": {}}))
            .collect();
        json!({"role": "assistant", "content": blocks})
    }

    fn results(ids: &[&str]) -> Value {
        let blocks: Vec<Value> = ids
            .iter()
            .map(|id| json!({"type": "tool_result", "tool_use_id": id, "content": "r"}))
            .collect();
        json!({"role": "user", "content": blocks})
    }

    fn tool(name: &str) -> Value {
        json!({"name": name, "input_schema": {"type": "object", "properties": {}}})
    }

    #[test]
    fn required_fields() {
        assert_eq!(
            checked(json!({"max_tokens": 1, "messages": [user("hi")]})).unwrap_err(),
            "model: Field required"
        );
        assert_eq!(
            checked(json!({"model": "m", "messages": [user("hi")]})).unwrap_err(),
            "max_tokens: Field required"
        );
        assert_eq!(
            checked(json!({"model": "m", "max_tokens": "8", "messages": [user("hi")]}))
                .unwrap_err(),
            "max_tokens: Input should be a valid integer"
        );
        assert_eq!(
            checked(json!({"model": "m", "max_tokens": -1, "messages": [user("hi")]})).unwrap_err(),
            "max_tokens: Input should be greater than or equal to 0"
        );
        assert_eq!(
            checked(json!({"model": "m", "max_tokens": 0, "messages": [user("hi")]}))
                .unwrap()
                .max_tokens,
            Some(0)
        );
        assert_eq!(
            checked(json!({"model": "m", "max_tokens": 8})).unwrap_err(),
            "messages: Field required"
        );
        // count_tokens takes no max_tokens.
        let counted = json!({"model": "m", "messages": [user("hi")]});
        assert_eq!(
            check(counted.as_object().unwrap(), Endpoint::CountTokens).unwrap(),
            Checked::default()
        );
        assert!(
            request_object(b"{")
                .unwrap_err()
                .message
                .contains("parsing the body")
        );
        assert!(request_object(b"[]").is_err());
    }

    #[test]
    fn message_rules() {
        assert_eq!(
            checked(base(json!([]))).unwrap_err(),
            "messages: at least one message is required"
        );
        assert_eq!(
            checked(base(json!([{"role": "assistant", "content": "hi"}]))).unwrap_err(),
            "messages: first message must use the \"user\" role"
        );
        assert_eq!(
            checked(base(json!([{"role": "system", "content": "hi"}]))).unwrap_err(),
            "messages.0.role: Input should be 'user' or 'assistant'"
        );
        assert_eq!(
            checked(base(json!([{"role": "user"}]))).unwrap_err(),
            "messages.0.content: Field required"
        );
        assert_eq!(
            checked(base(
                json!([user(""), {"role": "assistant", "content": "x"}])
            ))
            .unwrap_err(),
            "messages.0: all messages must have non-empty content except for the optional final assistant message"
        );
        // A final assistant message may be empty: it is a prefill.
        assert!(
            checked(base(
                json!([user("hi"), {"role": "assistant", "content": ""}])
            ))
            .is_ok()
        );
    }

    #[test]
    fn tool_uses_need_their_results_first_in_the_next_message() {
        assert!(
            checked(base(json!([
                user("hi"),
                calls(&["a", "b"]),
                results(&["b", "a"])
            ])))
            .is_ok()
        );
        let missing = checked(base(json!([
            user("hi"),
            calls(&["a", "b"]),
            results(&["a"])
        ])));
        assert_eq!(
            missing.unwrap_err(),
            "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: b. Each `tool_use` block must have a corresponding `tool_result` block in the next message."
        );
        // Ending on the calls, or answering with text, is the same mistake.
        assert!(
            checked(base(json!([user("hi"), calls(&["a"])])))
                .unwrap_err()
                .starts_with("messages.1: `tool_use` ids were found")
        );
        assert!(
            checked(base(json!([user("hi"), calls(&["a"]), user("well?")])))
                .unwrap_err()
                .starts_with("messages.1: `tool_use` ids were found")
        );
        // The results must come before any other block.
        let text_first = json!({"role": "user", "content": [
            {"type": "text", "text": "Here:"},
            {"type": "tool_result", "tool_use_id": "a", "content": "r"},
        ]});
        assert_eq!(
            checked(base(json!([user("hi"), calls(&["a"]), text_first]))).unwrap_err(),
            "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: a. Each `tool_use` block must have a corresponding `tool_result` block in the next message."
        );
        let text_after = json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "a", "content": "r"},
            {"type": "text", "text": "and go on"},
        ]});
        assert!(checked(base(json!([user("hi"), calls(&["a"]), text_after]))).is_ok());
    }

    #[test]
    fn a_result_must_answer_the_previous_message() {
        let unexpected = checked(base(json!([
            user("hi"),
            calls(&["a"]),
            results(&["a", "z"])
        ])));
        assert_eq!(
            unexpected.unwrap_err(),
            "messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: z. Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
        );
        let stray = checked(base(json!([results(&["a"])])));
        assert!(
            stray
                .unwrap_err()
                .starts_with("messages.0.content.0: unexpected `tool_use_id`")
        );
        // An old id answers nothing once another message came between.
        let late = checked(base(json!([
            user("hi"),
            calls(&["a"]),
            results(&["a"]),
            {"role": "assistant", "content": "ok"},
            results(&["a"]),
        ])));
        assert!(
            late.unwrap_err()
                .starts_with("messages.4.content.0: unexpected")
        );
        let no_id = json!({"role": "user", "content": [{"type": "tool_result", "content": "r"}]});
        assert_eq!(
            checked(base(json!([user("hi"), calls(&["a"]), no_id]))).unwrap_err(),
            "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: a. Each `tool_use` block must have a corresponding `tool_result` block in the next message."
        );
    }

    #[test]
    fn tool_rules() {
        let with_tools = |tools: Value| {
            let mut request = base(json!([user("hi")]));
            request["tools"] = tools;
            checked(request)
        };
        assert_eq!(
            with_tools(
                json!([tool("a"), {"type": "web_search_20250305", "name": "web_search"}, tool("b")])
            )
            .unwrap()
            .tools,
            ["a", "b"]
        );
        assert_eq!(
            with_tools(json!([tool("a"), tool("a.b")])).unwrap_err(),
            "tools.1.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'"
        );
        assert!(with_tools(json!([tool(&"x".repeat(64))])).is_ok());
        assert!(with_tools(json!([tool(&"x".repeat(65))])).is_err());
        assert_eq!(
            with_tools(json!([tool("a"), tool("a")])).unwrap_err(),
            "tools: Tool names must be unique."
        );
        assert_eq!(
            with_tools(
                json!([tool("web_search"), {"type": "web_search_20250305", "name": "web_search"}])
            )
            .unwrap_err(),
            "tools: Tool names must be unique."
        );
        assert_eq!(
            with_tools(json!([{"name": "a", "input_schema": {"type": "array"}}])).unwrap_err(),
            "tools.0.custom.input_schema.type: Input should be 'object'"
        );
        assert_eq!(
            with_tools(json!([{"name": "a"}])).unwrap_err(),
            "tools.0.custom.input_schema: Field required"
        );
        assert_eq!(
            with_tools(json!([{"name": "a", "input_schema": {}}])).unwrap_err(),
            "tools.0.custom.input_schema.type: Field required"
        );
        assert_eq!(
            with_tools(json!([{"type": "custom", "input_schema": {"type": "object"}}]))
                .unwrap_err(),
            "tools.0.custom.name: Field required"
        );
        let many = Value::Array((0..129).map(|i| tool(&format!("t{i}"))).collect());
        assert_eq!(
            with_tools(many).unwrap_err(),
            "tools: List should have at most 128 items after validation, not 129"
        );
        assert!(
            with_tools(Value::Array(
                (0..128).map(|i| tool(&format!("t{i}"))).collect()
            ))
            .is_ok()
        );
    }

    #[test]
    fn deferred_tools_are_loaded_by_tool_references_before_they_are_called() {
        let deferred = |name: &str| json!({"name": name, "input_schema": {"type": "object"}, "defer_loading": true});
        let tools = json!([
            deferred("gh__create_pr"),
            deferred("gh__merge_pr"),
            tool("search")
        ]);
        let search = json!({"role": "assistant", "content": [{"type": "tool_use", "id": "s1", "name": "search", "input": {}}]});
        let found = |names: &[&str]| {
            let references: Vec<Value> = names
                .iter()
                .map(|name| json!({"type": "tool_reference", "tool_name": name}))
                .collect();
            json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "s1", "content": references}]})
        };
        let call = |name: &str| json!({"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": name, "input": {}}]});
        let with = |messages: Value, tools: &Value| {
            let mut request = base(messages);
            request["tools"] = tools.clone();
            checked(request)
        };
        // Nothing loaded yet: both deferred tools are out of the model's reach.
        assert_eq!(
            with(json!([user("hi")]), &tools).unwrap().unloaded,
            ["gh__create_pr", "gh__merge_pr"]
        );
        let loaded = with(
            json!([user("hi"), search, found(&["gh__create_pr"])]),
            &tools,
        )
        .unwrap();
        assert_eq!(loaded.unloaded, ["gh__merge_pr"]);
        assert_eq!(loaded.tools, ["gh__create_pr", "gh__merge_pr", "search"]);
        assert!(
            with(
                json!([
                    user("hi"),
                    search,
                    found(&["gh__create_pr"]),
                    call("gh__create_pr"),
                    results(&["c1"])
                ]),
                &tools
            )
            .is_ok()
        );
        assert_eq!(
            with(
                json!([
                    user("hi"),
                    search,
                    found(&["gh__create_pr"]),
                    call("gh__merge_pr"),
                    results(&["c1"])
                ]),
                &tools
            )
            .unwrap_err(),
            "messages.3.content.0: the deferred tool 'gh__merge_pr' (`defer_loading: true`) is called before any `tool_reference` loaded it."
        );
        assert_eq!(
            with(json!([user("hi"), search, found(&["search"])]), &tools).unwrap_err(),
            "messages.2.content.0.content.0: `tool_reference` to 'search', which is not a tool with `defer_loading: true` in 'tools'."
        );
        assert!(
            with(json!([user("hi"), search, found(&["gh__nope"])]), &tools)
                .unwrap_err()
                .contains("'gh__nope', which is not a tool")
        );
        assert!(
            with(json!([user("hi")]), &json!([deferred("a"), deferred("b")]))
                .unwrap_err()
                .contains("at least one tool must be loaded")
        );
        // Only the loaded tools count against the limit.
        let mut many: Vec<Value> = (0..600).map(|i| deferred(&format!("t{i}"))).collect();
        many.push(tool("search"));
        assert!(with(json!([user("hi")]), &Value::Array(many)).is_ok());
        let mut loaded: Vec<Value> = (0..129).map(|i| tool(&format!("t{i}"))).collect();
        loaded.push(deferred("d"));
        assert!(
            with(json!([user("hi")]), &Value::Array(loaded))
                .unwrap_err()
                .contains("129 tools are loaded")
        );
    }

    #[test]
    fn tool_choice_rules() {
        let choosing = |choice: Value| {
            let mut request = base(json!([user("hi")]));
            request["tools"] = json!([tool("a")]);
            request["tool_choice"] = choice;
            checked(request)
        };
        assert!(choosing(json!({"type": "tool", "name": "a"})).is_ok());
        assert_eq!(
            choosing(json!({"type": "tool", "name": "b"})).unwrap_err(),
            "tool_choice.tool.name: Tool 'b' not found in 'tools'."
        );
        assert!(choosing(json!({"type": "any"})).is_ok());
        assert!(choosing(json!({"type": "none"})).unwrap().tool_choice_none);
        assert!(!choosing(json!({"type": "auto"})).unwrap().tool_choice_none);
        assert_eq!(
            choosing(json!({"type": "required"})).unwrap_err(),
            "tool_choice: Input tag 'required' found using 'type' does not match any of the expected tags: 'auto', 'any', 'tool', 'none'"
        );
        assert_eq!(
            choosing(json!("auto")).unwrap_err(),
            "tool_choice: Input should be a valid dictionary"
        );
    }
}
