//! OpenAI's hosted-MCP tool entry, `{"type": "mcp", "server_label", "allowed_tools",
//! "require_approval", …}`, read as a client's way to choose per request which of the gateway's
//! servers it gets and which of their tools, and which calls the gateway may run without asking.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::{Map, Value};

use crate::error::ApiError;

/// One `mcp` entry of a request's `tools`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpEntry {
    /// The server it names: one of the gateway's servers (or `ToolSet`s), by its name; or, with
    /// `remote`, the prefix of the tools of the server at that URL.
    pub label: String,
    /// `server_url` and what to send it, for a server the request reaches itself.
    pub remote: Option<Remote>,
    /// `allowed_tools`: which of its tools the model gets; all when absent.
    pub allowed: Option<Allowed>,
    /// `require_approval`; the server's own default when absent.
    pub approval: Option<Approval>,
}

/// A server a request names by URL: reached for that request only, within the configuration's
/// allowed origins, with the request's headers and token.
#[derive(Clone, PartialEq, Eq)]
pub struct Remote {
    /// `server_url`.
    pub url: String,
    /// `headers`.
    pub headers: BTreeMap<String, String>,
    /// `authorization`: a token sent as `Authorization: Bearer …`.
    pub authorization: Option<String>,
}

/// The headers' values and the token are secrets: never printed.
impl fmt::Debug for Remote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Remote")
            .field("url", &self.url)
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .field(
                "authorization",
                &self.authorization.as_ref().map(|_| "<redacted>"),
            )
            .finish()
    }
}

/// `allowed_tools`: a list of names, or `{"tool_names": […], "read_only": true}`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Allowed {
    /// These tools (by the server's own names); all when absent.
    pub names: Option<Vec<String>>,
    /// Not these (Anthropic's `mcp_toolset` configs that disable a tool).
    pub except: Vec<String>,
    /// Only tools whose annotations say `readOnlyHint: true`.
    pub read_only: bool,
}

impl Allowed {
    /// Whether a tool of the server (its own name, and whether it says it is read-only) is let
    /// through.
    pub fn admits(&self, name: &str, read_only: bool) -> bool {
        self.names
            .as_ref()
            .is_none_or(|names| names.iter().any(|n| n == name))
            && !self.except.iter().any(|n| n == name)
            && (!self.read_only || read_only)
    }
}

/// `require_approval`: whether a call may run before someone approves it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    /// Every call waits for approval.
    Always,
    /// No call does.
    Never,
    /// `{"always": {"tool_names": […]}, "never": {"tool_names": […]}}`: the named ones as said;
    /// any other tool waits, as OpenAI treats a tool the filter does not name.
    Filter {
        /// Tools whose calls wait.
        always: Vec<String>,
        /// Tools whose calls run.
        never: Vec<String>,
    },
}

impl Approval {
    /// Whether a call of `tool` (the server's own name) waits for approval.
    pub fn required(&self, tool: &str) -> bool {
        match self {
            Approval::Always => true,
            Approval::Never => false,
            Approval::Filter { always, never } => {
                always.iter().any(|n| n == tool) || !never.iter().any(|n| n == tool)
            }
        }
    }
}

/// Takes the `mcp` entries out of the request's `tools` (the upstream never sees them) and
/// reads them. `Err` names what is wrong in OpenAI's words for the field.
pub fn take_entries(request: &mut Map<String, Value>) -> Result<Vec<McpEntry>, ApiError> {
    let Some(Value::Array(tools)) = request.get_mut("tools") else {
        return Ok(Vec::new());
    };
    if !tools.iter().any(is_mcp) {
        return Ok(Vec::new());
    }
    let (entries, rest): (Vec<Value>, Vec<Value>) =
        std::mem::take(tools).into_iter().partition(is_mcp);
    *tools = rest;
    let entries = entries.iter().map(entry).collect::<Result<Vec<_>, _>>()?;
    for (i, a) in entries.iter().enumerate() {
        if entries[..i].iter().any(|b| b.label == a.label) {
            return Err(invalid(format!(
                "Two `mcp` tools name the server `{}`: give each server once.",
                a.label
            )));
        }
    }
    Ok(entries)
}

fn is_mcp(tool: &Value) -> bool {
    tool.get("type").and_then(Value::as_str) == Some("mcp")
}

fn invalid(message: String) -> ApiError {
    ApiError::invalid(message, "invalid_mcp_tool").param("tools")
}

fn entry(tool: &Value) -> Result<McpEntry, ApiError> {
    let label = match tool.get("server_label") {
        Some(Value::String(label)) if !label.is_empty() => label.clone(),
        _ => {
            return Err(invalid(
                "An `mcp` tool needs a `server_label`: the name of one of the gateway's MCP servers."
                    .to_owned(),
            ));
        }
    };
    let given = |key: &str| tool.get(key).filter(|v| !v.is_null());
    if given("connector_id").is_some() {
        return Err(invalid(format!(
            "The `mcp` tool `{label}` has `connector_id`: this gateway has no connectors; name one of its MCP servers with `server_label`, or give a `server_url`."
        )));
    }
    let remote = match given("server_url") {
        None => {
            for key in ["headers", "authorization"] {
                if given(key).is_some() {
                    return Err(invalid(format!(
                        "The `mcp` tool `{label}` has `{key}` without `server_url`: the gateway's own servers are reached with the headers and tokens of its configuration."
                    )));
                }
            }
            None
        }
        Some(Value::String(url)) => Some(Remote {
            url: url.clone(),
            headers: match given("headers") {
                None => BTreeMap::new(),
                Some(Value::Object(headers)) => headers
                    .iter()
                    .map(|(name, value)| match value {
                        Value::String(value) => Ok((name.clone(), value.clone())),
                        _ => Err(invalid(format!(
                            "The header `{name}` of the `mcp` tool `{label}` must be a string."
                        ))),
                    })
                    .collect::<Result<_, _>>()?,
                Some(_) => {
                    return Err(invalid(format!(
                        "`headers` of the `mcp` tool `{label}` must be an object of strings."
                    )));
                }
            },
            authorization: match given("authorization") {
                None => None,
                Some(Value::String(token)) => Some(token.clone()),
                Some(_) => {
                    return Err(invalid(format!(
                        "`authorization` of the `mcp` tool `{label}` must be a string (the token)."
                    )));
                }
            },
        }),
        Some(_) => {
            return Err(invalid(format!(
                "`server_url` of the `mcp` tool `{label}` must be a string."
            )));
        }
    };
    let allowed = match tool.get("allowed_tools") {
        None | Some(Value::Null) => None,
        Some(Value::Array(names)) => Some(Allowed {
            names: Some(names_of(names, &label, "allowed_tools")?),
            except: Vec::new(),
            read_only: false,
        }),
        Some(Value::Object(filter)) => Some(Allowed {
            names: match filter.get("tool_names") {
                None | Some(Value::Null) => None,
                Some(Value::Array(names)) => {
                    Some(names_of(names, &label, "allowed_tools.tool_names")?)
                }
                Some(_) => return Err(not_names(&label, "allowed_tools.tool_names")),
            },
            except: Vec::new(),
            read_only: match filter.get("read_only") {
                None | Some(Value::Null) => false,
                Some(Value::Bool(read_only)) => *read_only,
                Some(_) => {
                    return Err(invalid(format!(
                        "`allowed_tools.read_only` of the `mcp` tool `{label}` must be true or false."
                    )));
                }
            },
        }),
        Some(_) => {
            return Err(invalid(format!(
                "`allowed_tools` of the `mcp` tool `{label}` must be a list of tool names or {{\"tool_names\": […], \"read_only\": true}}."
            )));
        }
    };
    // Without `require_approval`, every call waits for approval, as OpenAI's hosted tool has it:
    // code written for OpenAI must not find the gateway running calls it meant to approve.
    let approval = match tool.get("require_approval") {
        None | Some(Value::Null) => Some(Approval::Always),
        Some(Value::String(word)) if word == "always" => Some(Approval::Always),
        Some(Value::String(word)) if word == "never" => Some(Approval::Never),
        Some(Value::Object(filter)) => {
            let list = |key: &str| -> Result<Vec<String>, ApiError> {
                match filter.get(key) {
                    None | Some(Value::Null) => Ok(Vec::new()),
                    Some(Value::Object(inner)) => match inner.get("tool_names") {
                        None | Some(Value::Null) => Ok(Vec::new()),
                        Some(Value::Array(names)) => {
                            names_of(names, &label, &format!("require_approval.{key}.tool_names"))
                        }
                        Some(_) => Err(not_names(
                            &label,
                            &format!("require_approval.{key}.tool_names"),
                        )),
                    },
                    Some(_) => Err(invalid(format!(
                        "`require_approval.{key}` of the `mcp` tool `{label}` must be {{\"tool_names\": […]}}."
                    ))),
                }
            };
            Some(Approval::Filter {
                always: list("always")?,
                never: list("never")?,
            })
        }
        Some(_) => {
            return Err(invalid(format!(
                "`require_approval` of the `mcp` tool `{label}` must be \"always\", \"never\" or {{\"always\": {{\"tool_names\": […]}}, \"never\": {{\"tool_names\": […]}}}}."
            )));
        }
    };
    Ok(McpEntry {
        label,
        remote,
        allowed,
        approval,
    })
}

fn names_of(names: &[Value], label: &str, field: &str) -> Result<Vec<String>, ApiError> {
    names
        .iter()
        .map(|name| {
            name.as_str()
                .map(str::to_owned)
                .ok_or_else(|| not_names(label, field))
        })
        .collect()
}

fn not_names(label: &str, field: &str) -> ApiError {
    invalid(format!(
        "`{field}` of the `mcp` tool `{label}` must be a list of tool names (strings)."
    ))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn take(tools: Value) -> Result<(Vec<McpEntry>, Value), String> {
        let mut request = json!({"model": "m", "tools": tools})
            .as_object()
            .unwrap()
            .clone();
        take_entries(&mut request)
            .map(|entries| (entries, request["tools"].clone()))
            .map_err(|err| err.message)
    }

    #[test]
    fn entries_are_taken_out_and_read() {
        let function = json!({"type": "function", "function": {"name": "lookup"}});
        let (entries, rest) = take(json!([
            {"type": "mcp", "server_label": "git", "allowed_tools": ["git_status"], "require_approval": "never"},
            function,
            {"type": "mcp", "server_label": "web", "allowed_tools": {"read_only": true},
             "require_approval": {"never": {"tool_names": ["echo"]}}},
        ]))
        .unwrap();
        assert_eq!(rest, json!([function]));
        assert_eq!(
            entries,
            vec![
                McpEntry {
                    label: "git".into(),
                    remote: None,
                    allowed: Some(Allowed {
                        names: Some(vec!["git_status".into()]),
                        except: Vec::new(),
                        read_only: false
                    }),
                    approval: Some(Approval::Never),
                },
                McpEntry {
                    label: "web".into(),
                    remote: None,
                    allowed: Some(Allowed {
                        names: None,
                        except: Vec::new(),
                        read_only: true
                    }),
                    approval: Some(Approval::Filter {
                        always: vec![],
                        never: vec!["echo".into()]
                    }),
                },
            ]
        );
        let (none, rest) = take(json!([function])).unwrap();
        assert!(none.is_empty());
        assert_eq!(rest, json!([function]));
    }

    #[test]
    fn a_server_by_url_keeps_its_secrets_out_of_debug_output() {
        let (entries, _) = take(
            json!([{"type": "mcp", "server_label": "r", "server_url": "http://h/mcp",
            "headers": {"X-Key": "k3y"}, "authorization": "t0ken"}]),
        )
        .unwrap();
        let remote = entries[0].remote.as_ref().unwrap();
        assert_eq!(remote.url, "http://h/mcp");
        assert_eq!(remote.headers["X-Key"], "k3y");
        assert_eq!(remote.authorization.as_deref(), Some("t0ken"));
        let printed = format!("{:?}", entries[0]);
        assert!(
            !printed.contains("k3y") && !printed.contains("t0ken"),
            "{printed}"
        );
    }

    #[test]
    fn filters_and_approvals_say_what_they_let_through() {
        let read_only = Allowed {
            names: None,
            except: Vec::new(),
            read_only: true,
        };
        assert!(read_only.admits("status", true));
        assert!(!read_only.admits("commit", false));
        let named = Allowed {
            names: Some(vec!["status".into()]),
            except: vec!["log".into()],
            read_only: false,
        };
        assert!(named.admits("status", false));
        assert!(!named.admits("log", true));
        let filter = Approval::Filter {
            always: vec!["commit".into()],
            never: vec!["status".into()],
        };
        assert!(filter.required("commit"));
        assert!(!filter.required("status"));
        assert!(
            filter.required("log"),
            "a tool the filter does not name waits, as with OpenAI"
        );
        assert!(Approval::Always.required("status"));
        assert!(!Approval::Never.required("commit"));
    }

    #[test]
    fn mistakes_are_named() {
        let refused = |tools: Value| take(tools).unwrap_err();
        assert!(refused(json!([{"type": "mcp"}])).contains("needs a `server_label`"));
        assert!(
            refused(json!([{"type": "mcp", "server_label": "x", "server_url": "http://h/mcp", "headers": {"A": 1}}]))
                .contains("The header `A` of the `mcp` tool `x` must be a string")
        );
        assert!(
            refused(json!([{"type": "mcp", "server_label": "x", "authorization": "t"}]))
                .contains("has `authorization` without `server_url`")
        );
        assert!(
            refused(json!([{"type": "mcp", "server_label": "x", "allowed_tools": [1]}]))
                .contains("`allowed_tools` of the `mcp` tool `x` must be a list of tool names")
        );
        assert!(
            refused(json!([{"type": "mcp", "server_label": "x", "require_approval": "sometimes"}]))
                .contains("must be \"always\", \"never\"")
        );
        assert!(
            refused(
                json!([{"type": "mcp", "server_label": "x"}, {"type": "mcp", "server_label": "x"}])
            )
            .contains("Two `mcp` tools name the server `x`")
        );
    }
}
