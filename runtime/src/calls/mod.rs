//! Tool calls in model replies: found in Chat Completions messages and Responses output (whole or
//! streamed), routed to a [`ToolSet`], to a connected MCP server or back to the caller, and
//! answered with the items each API expects, in order.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::{Value, json};

use crate::{CallContext, ToolOutput, ToolSet};

/// One call a model asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    /// The call's id (`tool_calls[].id` in Chat Completions, `call_id` in Responses).
    pub id: String,
    /// The tool's name, as the model spelled it.
    pub name: String,
    /// The arguments as JSON text, as the model sent them.
    pub arguments: String,
}

/// Why a reply or a stream could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct CallsError(String);

/// The tool calls of a Chat Completions assistant message (or of a whole completion, whose first
/// choice's message is taken). A message without calls has none.
pub fn chat_tool_calls(message: &Value) -> Result<Vec<ToolCall>, CallsError> {
    let message = message.pointer("/choices/0/message").unwrap_or(message);
    let Some(calls) = message.get("tool_calls") else {
        return Ok(Vec::new());
    };
    let calls = calls
        .as_array()
        .ok_or_else(|| CallsError("`tool_calls` is not an array".to_owned()))?;
    calls
        .iter()
        .enumerate()
        .filter(|(_, call)| {
            call.get("type")
                .and_then(Value::as_str)
                .is_none_or(|t| t == "function")
        })
        .map(|(i, call)| {
            let field = |pointer: &str| call.pointer(pointer).and_then(Value::as_str);
            Ok(ToolCall {
                id: field("/id")
                    .ok_or_else(|| CallsError(format!("tool call {i} has no `id`")))?
                    .to_owned(),
                name: field("/function/name")
                    .ok_or_else(|| CallsError(format!("tool call {i} has no `function.name`")))?
                    .to_owned(),
                arguments: field("/function/arguments").unwrap_or("{}").to_owned(),
            })
        })
        .collect()
}

/// The function calls of a Responses API reply: a whole response (`output`), or its `output`
/// array. Other output items (messages, reasoning) are skipped.
pub fn responses_tool_calls(response: &Value) -> Result<Vec<ToolCall>, CallsError> {
    let items = response.get("output").unwrap_or(response);
    let items = items.as_array().ok_or_else(|| {
        CallsError("expected a response with `output`, or its `output` array".to_owned())
    })?;
    items
        .iter()
        .filter(|item| item.get("type").and_then(Value::as_str) == Some("function_call"))
        .enumerate()
        .map(|(i, item)| {
            let field = |key: &str| item.get(key).and_then(Value::as_str);
            Ok(ToolCall {
                id: field("call_id")
                    .ok_or_else(|| CallsError(format!("function call {i} has no `call_id`")))?
                    .to_owned(),
                name: field("name")
                    .ok_or_else(|| CallsError(format!("function call {i} has no `name`")))?
                    .to_owned(),
                arguments: field("arguments").unwrap_or("{}").to_owned(),
            })
        })
        .collect()
}

/// The Chat Completions message that answers a call: `{"role": "tool", "tool_call_id", "content"}`.
pub fn chat_tool_message(call_id: &str, content: &str) -> Value {
    json!({"role": "tool", "tool_call_id": call_id, "content": content})
}

/// The Responses input item that answers a call: `{"type": "function_call_output", "call_id", "output"}`.
pub fn responses_output_item(call_id: &str, output: &str) -> Value {
    json!({"type": "function_call_output", "call_id": call_id, "output": output})
}

#[derive(Debug, Default, Clone)]
struct Partial {
    id: Option<String>,
    name: Option<String>,
    arguments: String,
}

impl Partial {
    fn finish(self, what: &str) -> Result<ToolCall, CallsError> {
        Ok(ToolCall {
            id: self
                .id
                .ok_or_else(|| CallsError(format!("{what} ended without an id")))?,
            name: self
                .name
                .ok_or_else(|| CallsError(format!("{what} ended without a name")))?,
            arguments: if self.arguments.is_empty() {
                "{}".to_owned()
            } else {
                self.arguments
            },
        })
    }
}

/// Gathers the tool calls of a streamed Chat Completions reply from its chunks'
/// `choices[0].delta.tool_calls` fragments, matched by `index`: the first fragment of a call
/// carries its id and name, later ones pieces of its arguments.
#[derive(Debug, Default, Clone)]
pub struct ChatCallAccumulator {
    calls: BTreeMap<u64, Partial>,
}

impl ChatCallAccumulator {
    /// An empty accumulator.
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes one chunk (`chat.completion.chunk`); chunks without tool calls are fine.
    pub fn push(&mut self, chunk: &Value) -> Result<(), CallsError> {
        let Some(fragments) = chunk.pointer("/choices/0/delta/tool_calls") else {
            return Ok(());
        };
        let fragments = fragments
            .as_array()
            .ok_or_else(|| CallsError("`delta.tool_calls` is not an array".to_owned()))?;
        for fragment in fragments {
            let index = fragment
                .get("index")
                .and_then(Value::as_u64)
                .ok_or_else(|| CallsError("a tool call fragment has no `index`".to_owned()))?;
            let call = self.calls.entry(index).or_default();
            if let Some(id) = fragment.get("id").and_then(Value::as_str) {
                call.id = Some(id.to_owned());
            }
            if let Some(name) = fragment.pointer("/function/name").and_then(Value::as_str) {
                // Names arrive whole in practice; append in case a provider splits them.
                call.name.get_or_insert_with(String::new).push_str(name);
            }
            if let Some(piece) = fragment
                .pointer("/function/arguments")
                .and_then(Value::as_str)
            {
                call.arguments.push_str(piece);
            }
        }
        Ok(())
    }

    /// The complete calls, in index order.
    pub fn finish(self) -> Result<Vec<ToolCall>, CallsError> {
        self.calls
            .into_iter()
            .map(|(index, call)| call.finish(&format!("tool call {index}")))
            .collect()
    }
}

/// Gathers the function calls of a streamed Responses reply from its events:
/// `response.output_item.added` (a call's id and name), `response.function_call_arguments.delta`
/// (pieces of its arguments), and `response.output_item.done` or
/// `response.function_call_arguments.done` (the call is complete: [`push`](Self::push) yields it).
#[derive(Debug, Default, Clone)]
pub struct ResponsesCallAccumulator {
    pending: HashMap<String, Partial>,
    done: HashSet<String>,
}

impl ResponsesCallAccumulator {
    /// An empty accumulator.
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes one event; returns the call it completed, if any. Other events are ignored.
    pub fn push(&mut self, event: &Value) -> Result<Option<ToolCall>, CallsError> {
        let kind = event
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let item_id = |v: &Value| {
            v.get("item_id")
                .or_else(|| v.pointer("/item/id"))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        match kind {
            "response.output_item.added" | "response.output_item.done" => {
                let Some(item) = event.get("item") else {
                    return Ok(None);
                };
                if item.get("type").and_then(Value::as_str) != Some("function_call") {
                    return Ok(None);
                }
                let id =
                    item_id(event).ok_or_else(|| CallsError(format!("`{kind}` has no item id")))?;
                let call = self.pending.entry(id.clone()).or_default();
                if let Some(call_id) = item.get("call_id").and_then(Value::as_str) {
                    call.id = Some(call_id.to_owned());
                }
                if let Some(name) = item.get("name").and_then(Value::as_str) {
                    call.name = Some(name.to_owned());
                }
                if let Some(arguments) = item
                    .get("arguments")
                    .and_then(Value::as_str)
                    .filter(|a| !a.is_empty())
                {
                    call.arguments = arguments.to_owned();
                }
                if kind == "response.output_item.done" {
                    return self.complete(&id);
                }
                Ok(None)
            }
            "response.function_call_arguments.delta" => {
                let id = item_id(event)
                    .ok_or_else(|| CallsError("an arguments delta has no `item_id`".to_owned()))?;
                let delta = event
                    .get("delta")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                self.pending
                    .entry(id)
                    .or_default()
                    .arguments
                    .push_str(delta);
                Ok(None)
            }
            "response.function_call_arguments.done" => {
                let id = item_id(event)
                    .ok_or_else(|| CallsError("`arguments.done` has no `item_id`".to_owned()))?;
                let call = self.pending.entry(id.clone()).or_default();
                if let Some(arguments) = event.get("arguments").and_then(Value::as_str) {
                    call.arguments = arguments.to_owned();
                }
                // Complete only once the call's id and name are known (`output_item.done` follows).
                if call.id.is_some() && call.name.is_some() {
                    return self.complete(&id);
                }
                Ok(None)
            }
            _ => Ok(None),
        }
    }

    fn complete(&mut self, item_id: &str) -> Result<Option<ToolCall>, CallsError> {
        if self.done.contains(item_id) {
            return Ok(None);
        }
        let Some(call) = self.pending.remove(item_id) else {
            return Ok(None);
        };
        self.done.insert(item_id.to_owned());
        call.finish(&format!("function call `{item_id}`")).map(Some)
    }
}

/// Where a call went.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// Answered here.
    Answered {
        /// The result: every content block (images, audio, resource links and embedded
        /// resources as well as text) and, where the tool gave one, its structured content.
        output: ToolOutput,
        /// Whether the call failed (the output says why).
        is_error: bool,
        /// From an MCP server: its `CallToolResult` exactly as it came, blocks' `annotations`
        /// and `_meta` included, for a caller that passes results on to MCP clients.
        mcp_result: Option<Value>,
    },
    /// The caller's own tool: left for the caller to run.
    Caller,
}

impl Answer {
    fn error(text: String) -> Answer {
        Answer::Answered {
            output: ToolOutput::text(text),
            is_error: true,
            mcp_result: None,
        }
    }
}

/// Routes calls: to the caller's own tools (which win on a name conflict), to a [`ToolSet`],
/// or, with feature `mcp`, to a connected MCP server whose tools were converted for the model.
#[derive(Default)]
pub struct Router {
    caller: HashSet<String>,
    toolset: Option<ToolSet>,
    #[cfg(feature = "mcp")]
    mcp: Option<(rmcp::Peer<rmcp::RoleClient>, crate::convert::Conversion)>,
}

impl Router {
    /// A router with no tools.
    pub fn new() -> Router {
        Router::default()
    }

    /// Names of the caller's own tools: calls to them are handed back.
    #[must_use]
    pub fn caller_tools<I: IntoIterator<Item = S>, S: Into<String>>(mut self, names: I) -> Router {
        self.caller.extend(names.into_iter().map(Into::into));
        self
    }

    /// Calls to the set's tools are run here.
    #[must_use]
    pub fn toolset(mut self, tools: ToolSet) -> Router {
        self.toolset = Some(tools);
        self
    }

    /// Calls to a connected MCP server's tools, under the names `conversion` gave them (from
    /// [`convert`](crate::convert::convert) of the server's `tools/list`), are sent to the
    /// server under their own names, with their arguments restored to the server's own shape
    /// (a strict model's `null` for a field it left out is removed:
    /// [`Converted::restore_arguments`](crate::convert::Converted::restore_arguments)).
    #[cfg(feature = "mcp")]
    #[must_use]
    pub fn mcp_server(
        mut self,
        peer: rmcp::Peer<rmcp::RoleClient>,
        conversion: crate::convert::Conversion,
    ) -> Router {
        self.mcp = Some((peer, conversion));
        self
    }

    /// Answers one call.
    pub async fn answer(&self, call: &ToolCall) -> Answer {
        if self.caller.contains(&call.name) {
            return Answer::Caller;
        }
        if let Some(tools) = self
            .toolset
            .as_ref()
            .filter(|t| t.definition(&call.name).is_some())
        {
            let context = CallContext::new().with_call_id(call.id.clone());
            return match tools
                .call_with(&call.name, call.arguments.as_str(), context)
                .await
            {
                Ok(output) => Answer::Answered {
                    output,
                    is_error: false,
                    mcp_result: None,
                },
                Err(error) => Answer::error(error.to_string()),
            };
        }
        #[cfg(feature = "mcp")]
        if let Some((peer, conversion)) = &self.mcp {
            // The name the model was shown, or (a model that read it elsewhere) the original.
            let converted = conversion.get(&call.name).or_else(|| {
                conversion
                    .tools
                    .iter()
                    .find(|t| t.original_name == call.name)
            });
            if let Some(converted) = converted {
                return call_mcp(peer, converted, &call.arguments).await;
            }
        }
        let known = self.known_names();
        let suggestions: Vec<String> = crate::names::closest(&call.name, known.iter().copied())
            .into_iter()
            .map(str::to_owned)
            .collect();
        Answer::error(crate::error::unknown_tool_message(
            &call.name,
            &suggestions,
            known.len(),
        ))
    }

    /// Every name a call can reach: the caller's tools, the set's, the MCP server's.
    fn known_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.caller.iter().map(String::as_str).collect();
        if let Some(tools) = &self.toolset {
            for definition in tools.definitions() {
                names.push(definition.name());
            }
        }
        #[cfg(feature = "mcp")]
        if let Some((_, conversion)) = &self.mcp {
            names.extend(conversion.tools.iter().map(crate::convert::Converted::name));
        }
        names
    }

    /// Answers every call, in order, as Chat Completions `tool` messages; calls to the caller's
    /// own tools are returned for the caller to answer. The calls run concurrently, as a model
    /// that asks for several calls in one turn means them (OpenAI's parallel tool calls): a
    /// caller whose calls depend on each other's effects answers them one by one with
    /// [`answer`](Self::answer).
    pub async fn answer_chat(&self, calls: &[ToolCall]) -> (Vec<Value>, Vec<ToolCall>) {
        self.answer_all(calls, chat_tool_message).await
    }

    /// Answers every call, in order, as Responses `function_call_output` items; calls to the
    /// caller's own tools are returned for the caller to answer.
    pub async fn answer_responses(&self, calls: &[ToolCall]) -> (Vec<Value>, Vec<ToolCall>) {
        self.answer_all(calls, responses_output_item).await
    }

    async fn answer_all(
        &self,
        calls: &[ToolCall],
        item: fn(&str, &str) -> Value,
    ) -> (Vec<Value>, Vec<ToolCall>) {
        let answers =
            futures_util::future::join_all(calls.iter().map(|call| self.answer(call))).await;
        let mut items = Vec::new();
        let mut for_caller = Vec::new();
        for (call, answer) in calls.iter().zip(answers) {
            match answer {
                Answer::Answered { output, .. } => items.push(item(&call.id, &output.to_text())),
                Answer::Caller => for_caller.push(call.clone()),
            }
        }
        (items, for_caller)
    }
}

/// Calls a converted tool on its MCP server as a model asked: under its original name, with the
/// model's arguments (JSON text) restored to the server's own shape; the whole result comes back.
/// Arguments that are not a JSON object, and a server that cannot be reached, are answered as
/// errors the model can read. What [`Router`] does for each call to an MCP tool.
#[cfg(feature = "mcp")]
pub async fn call_mcp(
    peer: &rmcp::Peer<rmcp::RoleClient>,
    converted: &crate::convert::Converted,
    arguments: &str,
) -> Answer {
    let name = converted.name();
    let mut arguments = match arguments.trim() {
        "" => Value::Object(serde_json::Map::new()),
        text => match serde_json::from_str::<Value>(text) {
            Ok(value @ (Value::Object(_) | Value::Null)) => value,
            Ok(_) | Err(_) => {
                return Answer::error(format!(
                    "The arguments for `{name}` are not a JSON object. Call it again with an object."
                ));
            }
        },
    };
    converted.restore_arguments(&mut arguments);
    let mut request = rmcp::model::CallToolRequestParams::new(converted.original_name.clone());
    if let Value::Object(arguments) = arguments {
        request = request.with_arguments(arguments);
    }
    match peer.call_tool(request).await {
        Ok(result) => {
            let is_error = result.is_error == Some(true);
            match serde_json::to_value(&result) {
                Ok(json) => Answer::Answered {
                    output: ToolOutput::from_mcp_result(&json),
                    is_error,
                    mcp_result: Some(json),
                },
                Err(error) => Answer::error(format!("`{name}` answered, unreadably: {error}")),
            }
        }
        Err(error) => Answer::error(format!("`{name}` could not be called: {error}")),
    }
}

/// The caller's tools and another list merged for one request: the caller's win a name conflict,
/// and each conflict is reported by name.
pub fn merge_tool_lists(caller: &[Value], others: &[Value]) -> (Vec<Value>, Vec<String>) {
    let name_of = |tool: &Value| {
        tool.pointer("/function/name")
            .or_else(|| tool.get("name"))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let taken: HashSet<String> = caller.iter().filter_map(name_of).collect();
    let mut merged = caller.to_vec();
    let mut conflicts = Vec::new();
    for tool in others {
        match name_of(tool) {
            Some(name) if taken.contains(&name) => conflicts.push(name),
            _ => merged.push(tool.clone()),
        }
    }
    (merged, conflicts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chat_calls_from_a_message_and_a_completion() {
        let message = json!({"role": "assistant", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "a", "arguments": "{\"x\":1}"}},
            {"id": "c2", "type": "function", "function": {"name": "b", "arguments": "{}"}}
        ]});
        let calls = chat_tool_calls(&message).unwrap();
        assert_eq!(calls.len(), 2);
        assert_eq!(
            calls[0],
            ToolCall {
                id: "c1".into(),
                name: "a".into(),
                arguments: "{\"x\":1}".into()
            }
        );
        let completion = json!({"choices": [{"message": message}]});
        assert_eq!(chat_tool_calls(&completion).unwrap(), calls);
        assert!(
            chat_tool_calls(&json!({"role": "assistant", "content": "hi"}))
                .unwrap()
                .is_empty()
        );
        assert!(
            chat_tool_calls(&json!({"tool_calls": [{"type": "function", "function": {}}]}))
                .is_err()
        );
    }

    #[test]
    fn responses_calls_skip_other_items() {
        let response = json!({"output": [
            {"type": "reasoning", "id": "r"},
            {"type": "function_call", "id": "fc1", "call_id": "call_1", "name": "a", "arguments": "{}"},
            {"type": "message", "content": []}
        ]});
        let calls = responses_tool_calls(&response).unwrap();
        assert_eq!(
            calls,
            vec![ToolCall {
                id: "call_1".into(),
                name: "a".into(),
                arguments: "{}".into()
            }]
        );
    }

    #[test]
    fn chat_stream_by_index() {
        let mut acc = ChatCallAccumulator::new();
        for chunk in [
            json!({"choices": [{"delta": {"role": "assistant"}}]}),
            json!({"choices": [{"delta": {"tool_calls": [{"index": 1, "id": "c2", "type": "function", "function": {"name": "b", "arguments": ""}}]}}]}),
            json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "id": "c1", "type": "function", "function": {"name": "a", "arguments": "{\"ci"}}]}}]}),
            json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": "ty\": \"Paris\"}"}}]}}]}),
            json!({"choices": [{"delta": {"tool_calls": [{"index": 1, "function": {"arguments": "{}"}}]}}]}),
            json!({"choices": [{"delta": {}, "finish_reason": "tool_calls"}]}),
        ] {
            acc.push(&chunk).unwrap();
        }
        let calls = acc.finish().unwrap();
        assert_eq!(calls[0].arguments, "{\"city\": \"Paris\"}");
        assert_eq!(calls[0].id, "c1");
        assert_eq!(calls[1].name, "b");
    }

    #[test]
    fn responses_stream_yields_completed_calls() {
        let mut acc = ResponsesCallAccumulator::new();
        let events = [
            json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "function_call", "id": "fc1", "call_id": "call_1", "name": "get_weather", "arguments": ""}}),
            json!({"type": "response.function_call_arguments.delta", "item_id": "fc1", "output_index": 0, "delta": "{\"city\":"}),
            json!({"type": "response.function_call_arguments.delta", "item_id": "fc1", "output_index": 0, "delta": "\"Paris\"}"}),
            json!({"type": "response.function_call_arguments.done", "item_id": "fc1", "output_index": 0, "arguments": "{\"city\":\"Paris\"}"}),
            json!({"type": "response.output_item.done", "output_index": 0, "item": {"type": "function_call", "id": "fc1", "call_id": "call_1", "name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}),
        ];
        let completed: Vec<ToolCall> = events.iter().filter_map(|e| acc.push(e).unwrap()).collect();
        assert_eq!(
            completed,
            vec![ToolCall {
                id: "call_1".into(),
                name: "get_weather".into(),
                arguments: "{\"city\":\"Paris\"}".into()
            }]
        );
    }

    #[test]
    fn merging_prefers_the_callers_tools() {
        let caller = vec![json!({"type": "function", "function": {"name": "search"}})];
        let ours = vec![
            json!({"type": "function", "function": {"name": "search"}}),
            json!({"type": "function", "function": {"name": "fetch"}}),
        ];
        let (merged, conflicts) = merge_tool_lists(&caller, &ours);
        assert_eq!(merged.len(), 2);
        assert_eq!(conflicts, ["search"]);
    }
}
