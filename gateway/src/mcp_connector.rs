//! Anthropic's MCP connector on the Messages API (beta `mcp-client-2025-11-20`): a request's
//! `mcp_servers` and its `mcp_toolset` tools choose, per request, which of the gateway's servers
//! it gets (or which server it names by URL, within `allowed_server_urls`) and which of their
//! tools, as OpenAI's `mcp` tool does on Responses (`crate::mcp_tool`). Their calls run without
//! asking, as Anthropic runs them, and the client is shown each as an `mcp_tool_use` block and
//! its `mcp_tool_result`; the blocks a client sends back are translated into the `tool_use` and
//! `tool_result` blocks the upstream, which may be any model, takes.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};
use tooldef::calls::ToolCall;

use crate::catalog::Source;
use crate::error::ApiError;
use crate::injection::Injection;
use crate::mcp_tool::{Allowed, Approval, McpEntry, Remote};
use crate::servers::CallOutcome;

fn invalid(message: String) -> ApiError {
    ApiError::invalid(message, "invalid_mcp_toolset").param("tools")
}

/// Whether a tool of a request is an `mcp_toolset`.
fn is_toolset(tool: &Value) -> bool {
    tool.get("type").and_then(Value::as_str) == Some("mcp_toolset")
}

/// Takes `mcp_servers` and the `mcp_toolset` tools out of a Messages request (no upstream sees
/// them) and reads them: one entry per toolset, or per server that no toolset names (the
/// connector's first beta, where a server's `tool_configuration` chose its tools).
pub fn take_entries(request: &mut Map<String, Value>) -> Result<Vec<McpEntry>, ApiError> {
    let servers = match request.remove("mcp_servers") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(servers)) => servers,
        Some(_) => {
            return Err(invalid(
                "`mcp_servers` must be a list of servers.".to_owned(),
            ));
        }
    };
    let toolsets: Vec<Value> = match request.get_mut("tools") {
        Some(Value::Array(tools)) if tools.iter().any(is_toolset) => {
            let (toolsets, rest) = std::mem::take(tools).into_iter().partition(is_toolset);
            *tools = rest;
            toolsets
        }
        _ => Vec::new(),
    };
    let mut by_name = BTreeMap::new();
    for server in &servers {
        let name = server
            .get("name")
            .and_then(Value::as_str)
            .filter(|name| !name.is_empty())
            .ok_or_else(|| invalid("Each of `mcp_servers` needs a `name`.".to_owned()))?;
        if by_name.insert(name.to_owned(), server).is_some() {
            return Err(invalid(format!(
                "Two of `mcp_servers` are named `{name}`: give each server once."
            )));
        }
    }
    let mut entries = Vec::new();
    for toolset in &toolsets {
        let label = toolset
            .get("mcp_server_name")
            .and_then(Value::as_str)
            .filter(|name| !name.is_empty())
            .ok_or_else(|| invalid("An `mcp_toolset` needs an `mcp_server_name`.".to_owned()))?;
        if entries.iter().any(|entry: &McpEntry| entry.label == label) {
            return Err(invalid(format!(
                "Two `mcp_toolset`s name the server `{label}`: give each server once."
            )));
        }
        let remote = by_name
            .remove(label)
            .map(|server| remote(label, server))
            .transpose()?
            .flatten();
        entries.push(McpEntry {
            label: label.to_owned(),
            remote,
            allowed: Some(toolset_allowed(label, toolset)?),
            approval: Some(Approval::Never),
        });
    }
    for (label, server) in by_name {
        let allowed = match server.pointer("/tool_configuration/allowed_tools") {
            None | Some(Value::Null) => None,
            Some(Value::Array(names)) => Some(Allowed {
                names: Some(
                    names
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect(),
                ),
                except: Vec::new(),
                read_only: false,
            }),
            Some(_) => {
                return Err(invalid(format!(
                    "`tool_configuration.allowed_tools` of the MCP server `{label}` must be a list of tool names."
                )));
            }
        };
        if server.pointer("/tool_configuration/enabled") == Some(&Value::Bool(false)) {
            continue;
        }
        entries.push(McpEntry {
            remote: remote(&label, server)?,
            label,
            allowed,
            approval: Some(Approval::Never),
        });
    }
    Ok(entries)
}

/// The server an `mcp_servers` entry names by URL; `None` for one without a URL, which names one
/// of the gateway's own servers.
fn remote(label: &str, server: &Value) -> Result<Option<Remote>, ApiError> {
    match server.get("url") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(url)) => Ok(Some(Remote {
            url: url.clone(),
            headers: BTreeMap::new(),
            authorization: server
                .get("authorization_token")
                .and_then(Value::as_str)
                .map(str::to_owned),
        })),
        Some(_) => Err(invalid(format!(
            "`url` of the MCP server `{label}` must be a string."
        ))),
    }
}

/// Which tools a toolset lets through: all unless `default_config.enabled` is false, then those
/// its `configs` enable; never those its `configs` disable.
fn toolset_allowed(label: &str, toolset: &Value) -> Result<Allowed, ApiError> {
    let enabled_by_default = toolset
        .pointer("/default_config/enabled")
        .and_then(Value::as_bool)
        .unwrap_or(true);
    let configs = match toolset.get("configs") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(configs)) => configs.clone(),
        Some(_) => {
            return Err(invalid(format!(
                "`configs` of the `mcp_toolset` of `{label}` must be an object of tool names."
            )));
        }
    };
    let enabled = |config: &Value| config.get("enabled").and_then(Value::as_bool);
    let on: Vec<String> = configs
        .iter()
        .filter(|(_, config)| enabled(config) == Some(true))
        .map(|(name, _)| name.clone())
        .collect();
    let off: Vec<String> = configs
        .iter()
        .filter(|(_, config)| enabled(config) == Some(false))
        .map(|(name, _)| name.clone())
        .collect();
    Ok(Allowed {
        names: (!enabled_by_default).then_some(on),
        except: off,
        read_only: false,
    })
}

/// The `mcp_tool_use` block that shows a call the gateway ran, and its `mcp_tool_result`.
pub fn shown(call: &ToolCall, label: &str, tool: &str, outcome: &CallOutcome) -> [Value; 2] {
    let input = serde_json::from_str::<Value>(&call.arguments)
        .ok()
        .filter(Value::is_object)
        .unwrap_or_else(|| json!({}));
    [
        json!({"type": "mcp_tool_use", "id": call.id, "name": tool, "server_name": label, "input": input}),
        json!({"type": "mcp_tool_result", "tool_use_id": call.id, "is_error": outcome.is_error,
               "content": [{"type": "text", "text": outcome.text()}]}),
    ]
}

/// The messages of a conversation the client sends back with the connector's blocks, as the
/// upstream takes them: each assistant message's `mcp_tool_use` blocks become `tool_use` blocks
/// of the tool's injected name, and each `mcp_tool_result` a `tool_result` in a user message
/// right after (the assistant message is split there, as the model's turns were).
pub fn translate(
    messages: Vec<Value>,
    sources: &[Source],
    injection: &Injection,
    separator: &str,
) -> Vec<Value> {
    let mut out = Vec::with_capacity(messages.len());
    for message in messages {
        let is_assistant = message.get("role").and_then(Value::as_str) == Some("assistant");
        let blocks = message.get("content").and_then(Value::as_array);
        let has_mcp = blocks.is_some_and(|blocks| {
            blocks.iter().any(|block| {
                block
                    .get("type")
                    .and_then(Value::as_str)
                    .is_some_and(|kind| kind.starts_with("mcp_tool_"))
            })
        });
        if !(is_assistant && has_mcp) {
            out.push(message);
            continue;
        }
        let mut assistant = Vec::new();
        let mut results = Vec::new();
        for block in blocks.into_iter().flatten() {
            match block.get("type").and_then(Value::as_str) {
                Some("mcp_tool_use") => {
                    if !results.is_empty() {
                        flush(&mut out, &mut assistant, &mut results);
                    }
                    let label = block["server_name"].as_str().unwrap_or_default();
                    let tool = block["name"].as_str().unwrap_or_default();
                    let name = injection
                        .injected_name(sources, label, tool)
                        .unwrap_or_else(|| format!("{label}{separator}{tool}"));
                    assistant.push(json!({"type": "tool_use", "id": block["id"], "name": name,
                                          "input": block.get("input").cloned().unwrap_or_else(|| json!({}))}));
                }
                Some("mcp_tool_result") => {
                    let mut result = json!({"type": "tool_result", "tool_use_id": block["tool_use_id"],
                                            "content": block.get("content").cloned().unwrap_or_else(|| json!([]))});
                    if block.get("is_error") == Some(&Value::Bool(true)) {
                        result["is_error"] = Value::Bool(true);
                    }
                    results.push(result);
                }
                _ => {
                    if !results.is_empty() {
                        flush(&mut out, &mut assistant, &mut results);
                    }
                    assistant.push(block.clone());
                }
            }
        }
        flush(&mut out, &mut assistant, &mut results);
    }
    out
}

/// An assistant message of `assistant` and, after it, a user message of `results`.
fn flush(out: &mut Vec<Value>, assistant: &mut Vec<Value>, results: &mut Vec<Value>) {
    if !assistant.is_empty() {
        out.push(json!({"role": "assistant", "content": std::mem::take(assistant)}));
    }
    if !results.is_empty() {
        out.push(json!({"role": "user", "content": std::mem::take(results)}));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toolsets_and_servers_are_taken_out_and_read() {
        let mut request = json!({
            "model": "m",
            "mcp_servers": [
                {"type": "url", "url": "https://mcp.example.com/mcp", "name": "remote", "authorization_token": "t"},
                {"type": "url", "url": "https://other.example.com/mcp", "name": "old", "tool_configuration": {"allowed_tools": ["a"]}},
            ],
            "tools": [
                {"name": "lookup", "input_schema": {"type": "object"}},
                {"type": "mcp_toolset", "mcp_server_name": "remote", "configs": {"delete": {"enabled": false}}},
                {"type": "mcp_toolset", "mcp_server_name": "weather", "default_config": {"enabled": false}, "configs": {"get_weather": {"enabled": true}}},
            ],
        })
        .as_object()
        .unwrap()
        .clone();
        let entries = take_entries(&mut request).unwrap();
        assert_eq!(
            request["tools"],
            json!([{"name": "lookup", "input_schema": {"type": "object"}}])
        );
        assert!(!request.contains_key("mcp_servers"));
        assert_eq!(entries.len(), 3);
        let remote = &entries[0];
        assert_eq!(remote.label, "remote");
        assert_eq!(
            remote.remote.as_ref().unwrap().authorization.as_deref(),
            Some("t")
        );
        assert!(!remote.allowed.as_ref().unwrap().admits("delete", false));
        assert!(remote.allowed.as_ref().unwrap().admits("read", false));
        let weather = &entries[1];
        assert!(
            weather.remote.is_none(),
            "a toolset of the gateway's own server"
        );
        assert!(
            weather
                .allowed
                .as_ref()
                .unwrap()
                .admits("get_weather", false)
        );
        assert!(!weather.allowed.as_ref().unwrap().admits("convert", false));
        assert_eq!(entries[2].label, "old");
        assert!(!entries[2].allowed.as_ref().unwrap().admits("b", false));
        assert!(
            entries
                .iter()
                .all(|entry| entry.approval == Some(Approval::Never))
        );
    }

    #[test]
    fn a_toolset_without_a_server_name_is_refused() {
        let mut request = json!({"tools": [{"type": "mcp_toolset"}]})
            .as_object()
            .unwrap()
            .clone();
        let err = take_entries(&mut request).unwrap_err();
        assert!(err.message.contains("mcp_server_name"), "{}", err.message);
    }
}
