//! OpenAI's hosted-MCP output items, for a Responses request whose `mcp` tools chose its servers:
//! the client sees `mcp_list_tools`, `mcp_call` and `mcp_approval_request` items (and their
//! stream events) as OpenAI would show them, while the upstream, which may be any model, only
//! ever sees function calls and their outputs. The items the client sends back are translated
//! into those, and its `mcp_approval_response`s decide the calls that waited.
//!
//! An item's id carries the upstream's `call_id` (`mcp_CALLID`, `mcpr_CALLID`), so that a
//! conversation sent back whole (without `previous_response_id`) reads back with nothing kept.

use serde_json::{Value, json};
use tooldef::calls::ToolCall;

use crate::catalog::Source;
use crate::error::ApiError;
use crate::injection::Injection;
use crate::mcp_tool::McpEntry;
use crate::servers::CallOutcome;
use crate::store::{Kept, Key, Store};

const CALL_PREFIX: &str = "mcp_";
const APPROVAL_PREFIX: &str = "mcpr_";

/// The id of the `mcp_approval_request` item for a call.
pub fn approval_id(call: &ToolCall) -> String {
    format!("{APPROVAL_PREFIX}{}", call.id)
}

/// The call id an item's id carries, or the id itself for an item the gateway did not make.
fn call_id_of<'a>(item_id: &'a str, prefix: &str) -> &'a str {
    item_id.strip_prefix(prefix).unwrap_or(item_id)
}

/// `mcp_list_tools` items for the request's servers whose tools the conversation has not listed
/// yet (`listed` gains them): each server's tools as it lists them, those the request offers.
pub fn list_tools(
    sources: &[Source],
    injection: &Injection,
    entries: &[McpEntry],
    listed: &mut Vec<String>,
) -> Vec<Value> {
    let mut items = Vec::new();
    for entry in entries {
        if listed.contains(&entry.label) {
            continue;
        }
        let (tools, names): (std::sync::Arc<Vec<Value>>, Vec<&str>) = match injection
            .adhoc
            .iter()
            .find(|adhoc| adhoc.label == entry.label)
        {
            Some(adhoc) => (
                std::sync::Arc::new(adhoc.listed.clone()),
                adhoc
                    .injected
                    .routes
                    .values()
                    .map(|route| route.converted.original_name.as_str())
                    .collect(),
            ),
            None => {
                let Some(source) = sources.iter().find(|s| s.name() == entry.label) else {
                    continue;
                };
                let names = injection
                    .injected()
                    .routes
                    .iter()
                    .filter(|(name, route)| {
                        sources[route.source].name() == entry.label && injection.chose(name)
                    })
                    .map(|(_, route)| route.converted.original_name.as_str())
                    .collect();
                (source.tools(), names)
            }
        };
        let tools: Vec<Value> = tools
            .iter()
            .filter(|tool| {
                tool.get("name")
                    .and_then(Value::as_str)
                    .is_some_and(|name| names.contains(&name))
            })
            .map(|tool| {
                let mut shown = json!({
                    "name": tool["name"],
                    "input_schema": tool.get("inputSchema").cloned().unwrap_or_else(|| json!({"type": "object"})),
                });
                for (from, to) in [("description", "description"), ("annotations", "annotations")]
                {
                    if let Some(value) = tool.get(from).filter(|v| !v.is_null()) {
                        shown[to] = value.clone();
                    }
                }
                shown
            })
            .collect();
        items.push(json!({
            "id": format!("mcpl_{}", uuid::Uuid::new_v4().simple()),
            "type": "mcp_list_tools",
            "server_label": entry.label,
            "tools": tools,
        }));
        listed.push(entry.label.clone());
    }
    items
}

/// An `mcp_call` item: in progress without an outcome, completed or failed with one.
pub fn call_item(
    call: &ToolCall,
    label: &str,
    tool: &str,
    outcome: Option<&CallOutcome>,
    approval_request_id: Option<&str>,
) -> Value {
    let (status, output, error) = match outcome {
        None => ("in_progress", Value::Null, Value::Null),
        Some(outcome) if outcome.is_error => (
            "failed",
            Value::Null,
            // OpenAI's shape for a tool that ran and failed.
            json!({"type": "mcp_tool_execution_error", "content": [{"type": "text", "text": outcome.text()}]}),
        ),
        Some(outcome) => ("completed", json!(outcome.text()), Value::Null),
    };
    json!({
        "id": format!("{CALL_PREFIX}{}", call.id),
        "type": "mcp_call",
        "server_label": label,
        "name": tool,
        "arguments": call.arguments,
        "approval_request_id": approval_request_id,
        "output": output,
        "error": error,
        "status": status,
    })
}

/// An `mcp_approval_request` item for a call that waits.
pub fn approval_request(call: &ToolCall, label: &str, tool: &str) -> Value {
    json!({
        "id": approval_id(call),
        "type": "mcp_approval_request",
        "server_label": label,
        "name": tool,
        "arguments": call.arguments,
    })
}

fn item_event(kind: &str, item: &Value, index: usize) -> Value {
    json!({"type": kind, "output_index": index, "item": item})
}

fn progress_event(kind: &str, item: &Value, index: usize) -> Value {
    json!({"type": kind, "output_index": index, "item_id": item["id"]})
}

/// The events that show an `mcp_call` item starting (the call about to run).
pub fn call_started(item: &Value, index: usize) -> Vec<Value> {
    let mut started = item.clone();
    started["status"] = json!("in_progress");
    started["output"] = Value::Null;
    started["error"] = Value::Null;
    let arguments = &item["arguments"];
    vec![
        item_event("response.output_item.added", &started, index),
        json!({"type": "response.mcp_call_arguments.delta", "output_index": index, "item_id": item["id"], "delta": arguments}),
        json!({"type": "response.mcp_call_arguments.done", "output_index": index, "item_id": item["id"], "arguments": arguments}),
        progress_event("response.mcp_call.in_progress", item, index),
    ]
}

/// The events that show an `mcp_call` item ending, as its status says.
pub fn call_finished(item: &Value, index: usize) -> Vec<Value> {
    let kind = if item["status"] == "failed" {
        "response.mcp_call.failed"
    } else {
        "response.mcp_call.completed"
    };
    vec![
        progress_event(kind, item, index),
        item_event("response.output_item.done", item, index),
    ]
}

/// The events that show an item the gateway made, whole: an `mcp_list_tools` (listed), an
/// `mcp_call` (already run) or an `mcp_approval_request`.
pub fn shown(item: &Value, index: usize) -> Vec<Value> {
    match item["type"].as_str() {
        Some("mcp_list_tools") => {
            let mut listing = item.clone();
            listing["tools"] = json!([]);
            vec![
                item_event("response.output_item.added", &listing, index),
                progress_event("response.mcp_list_tools.in_progress", item, index),
                progress_event("response.mcp_list_tools.completed", item, index),
                item_event("response.output_item.done", item, index),
            ]
        }
        Some("mcp_call") => {
            let mut events = call_started(item, index);
            events.extend(call_finished(item, index));
            events
        }
        _ => vec![
            item_event("response.output_item.added", item, index),
            item_event("response.output_item.done", item, index),
        ],
    }
}

/// A `tool_choice` of OpenAI's `{"type": "mcp", "server_label", "name"}` form, as the upstream
/// takes it: the named tool as a function, or any tool (`"required"`) when it names none. `None`
/// for any other choice.
pub fn tool_choice(
    choice: Option<&Value>,
    sources: &[Source],
    injection: &Injection,
) -> Result<Option<Value>, ApiError> {
    let Some(choice) = choice.filter(|c| c.get("type").and_then(Value::as_str) == Some("mcp"))
    else {
        return Ok(None);
    };
    let label = choice
        .get("server_label")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let Some(tool) = choice.get("name").and_then(Value::as_str) else {
        return Ok(Some(json!("required")));
    };
    match injection.injected_name(sources, label, tool) {
        Some(name) if injection.offers(&name) => {
            Ok(Some(json!({"type": "function", "name": name})))
        }
        _ => Err(ApiError::invalid(
            format!(
                "`tool_choice` names the tool `{tool}` of the MCP server `{label}`, which this request does not offer: name a tool its `mcp` tools allow."
            ),
            "invalid_tool_choice",
        )
        .param("tool_choice")),
    }
}

/// A client's answer to an approval request, read with the call it decides.
pub struct Decision {
    /// The `mcp_approval_request`'s id.
    pub request_id: String,
    /// Whether the call may run.
    pub approve: bool,
    /// The client's reason, for a refusal.
    pub reason: Option<String>,
    /// The call, under its injected name.
    pub call: ToolCall,
    /// Its `server_label`.
    pub label: String,
    /// The tool's own name.
    pub tool: String,
    /// Where its `function_call_output` goes in the translated input.
    pub at: usize,
}

impl Decision {
    /// The output the model reads for a refused call.
    pub fn refusal(&self) -> CallOutcome {
        CallOutcome::error(match &self.reason {
            Some(reason) => format!("The user did not approve this call: {reason}"),
            None => "The user did not approve this call.".to_owned(),
        })
    }
}

/// A Responses input with the hosted-MCP items translated for the upstream.
pub struct Translated {
    /// The input: `function_call`s and `function_call_output`s instead of `mcp_*` items, with a
    /// `null` at each decision's place until its output is known.
    pub input: Vec<Value>,
    /// The `server_label`s whose tools the input already lists.
    pub listed: Vec<String>,
    /// The approval responses that decide a call now.
    pub decisions: Vec<Decision>,
}

/// Translates the hosted-MCP items of a Responses input: `mcp_list_tools` are dropped (the
/// upstream has the tools as functions), an `mcp_call` becomes its `function_call` and output,
/// an answered `mcp_approval_request` its `function_call` (an unanswered one is dropped), and an
/// `mcp_approval_response` the place of that call's output, to be filled once it is decided. An
/// approval response for a call already made (its `mcp_call` is in the input) is spent. An
/// approval response whose request is not in the input needs the store, which kept the call
/// (the request went out in a response the client names by `previous_response_id`): when the
/// store cannot be read, the request is answered 503.
pub async fn translate(
    input: Vec<Value>,
    sources: &[Source],
    injection: &Injection,
    store: &Store,
    separator: &str,
) -> Result<Translated, ApiError> {
    let kind = |item: &Value| item.get("type").and_then(Value::as_str).map(str::to_owned);
    let text = |item: &Value, key: &str| {
        item.get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let made: Vec<String> = input
        .iter()
        .filter(|item| kind(item).as_deref() == Some("mcp_call"))
        .filter_map(|item| item.get("approval_request_id").and_then(Value::as_str))
        .map(str::to_owned)
        .collect();
    let answered: Vec<String> = input
        .iter()
        .filter(|item| kind(item).as_deref() == Some("mcp_approval_response"))
        .map(|item| text(item, "approval_request_id"))
        .collect();
    let name_of = |label: &str, tool: &str| {
        injection
            .injected_name(sources, label, tool)
            .unwrap_or_else(|| format!("{label}{separator}{tool}"))
    };
    let mut translated = Translated {
        input: Vec::with_capacity(input.len()),
        listed: Vec::new(),
        decisions: Vec::new(),
    };
    for item in &input {
        match kind(item).as_deref() {
            Some("mcp_list_tools") => translated.listed.push(text(item, "server_label")),
            Some("mcp_call") => {
                let call_id = call_id_of(&text(item, "id"), CALL_PREFIX).to_owned();
                let output = match (item.get("output"), item.get("error")) {
                    (Some(Value::String(output)), _) => output.clone(),
                    (_, Some(error)) if !error.is_null() => error_text(error),
                    _ => String::new(),
                };
                translated.input.push(json!({
                    "type": "function_call",
                    "call_id": call_id,
                    "name": name_of(&text(item, "server_label"), &text(item, "name")),
                    "arguments": text(item, "arguments"),
                }));
                translated.input.push(json!({
                    "type": "function_call_output",
                    "call_id": call_id,
                    "output": output,
                }));
            }
            Some("mcp_approval_request") => {
                let id = text(item, "id");
                if answered.contains(&id) && !made.contains(&id) {
                    translated.input.push(json!({
                        "type": "function_call",
                        "call_id": call_id_of(&id, APPROVAL_PREFIX),
                        "name": name_of(&text(item, "server_label"), &text(item, "name")),
                        "arguments": text(item, "arguments"),
                    }));
                }
            }
            Some("mcp_approval_response") => {
                let request_id = text(item, "approval_request_id");
                if made.contains(&request_id) {
                    continue;
                }
                let sent = input.iter().find(|other| {
                    kind(other).as_deref() == Some("mcp_approval_request")
                        && other.get("id").and_then(Value::as_str) == Some(&request_id)
                });
                let (call, label, tool) = match sent {
                    Some(request) => {
                        let (label, tool) = (text(request, "server_label"), text(request, "name"));
                        let call = ToolCall {
                            id: call_id_of(&request_id, APPROVAL_PREFIX).to_owned(),
                            name: name_of(&label, &tool),
                            arguments: text(request, "arguments"),
                        };
                        (call, label, tool)
                    }
                    None => match store
                        .get(&Key::approval(&request_id))
                        .await
                        .map_err(|err| err.on_read())?
                        .as_deref()
                    {
                        Some(Kept::Approval { call, label, tool }) => (
                            ToolCall {
                                id: text(call, "call_id"),
                                name: text(call, "name"),
                                arguments: text(call, "arguments"),
                            },
                            label.clone(),
                            tool.clone(),
                        ),
                        _ => {
                            return Err(ApiError::invalid(
                                format!(
                                    "The `mcp_approval_response` answers `{request_id}`, which is not an approval request in this input nor one this gateway still keeps: send the `mcp_approval_request` item back with it, or answer within the store's time."
                                ),
                                "unknown_approval_request",
                            )
                            .param("input"));
                        }
                    },
                };
                translated.decisions.push(Decision {
                    request_id,
                    approve: item.get("approve") == Some(&Value::Bool(true)),
                    reason: item
                        .get("reason")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    call,
                    label,
                    tool,
                    at: translated.input.len(),
                });
                translated.input.push(Value::Null);
            }
            _ => translated.input.push(item.clone()),
        }
    }
    Ok(translated)
}

/// The words of an `mcp_call`'s error: a string, OpenAI's error object's message, or the text of
/// a tool's failed content.
fn error_text(error: &Value) -> String {
    if let Some(text) = error.as_str() {
        return text.to_owned();
    }
    if let Some(message) = error.get("message").and_then(Value::as_str) {
        return message.to_owned();
    }
    if let Some(content) = error.get("content").and_then(Value::as_array) {
        return content
            .iter()
            .filter_map(|block| block.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n");
    }
    error.to_string()
}
