//! Tool calls in model replies: found in Chat Completions messages, Responses output, Anthropic
//! Messages' `tool_use` blocks and Gemini's `functionCall` parts (whole or streamed), routed to a
//! [`ToolSet`], to a connected MCP server or back to the caller, and answered with the items each
//! API expects, in order. One module per API: `openai`, `anthropic`, `gemini`.
//!
//! ```
//! use serde_json::json;
//! use tooldef::calls::{Router, anthropic_tool_calls};
//! use tooldef::{ToolSet, tool};
//!
//! /// Add two numbers.
//! #[tool]
//! fn add(a: i64, b: i64) -> i64 {
//!     a + b
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // An Anthropic reply that calls our tool and one of the caller's own.
//! let reply = json!({"role": "assistant", "content": [
//!     {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 2, "b": 3}},
//!     {"type": "tool_use", "id": "toolu_2", "name": "search_web", "input": {"q": "rust"}}
//! ]});
//! let calls = anthropic_tool_calls(&reply)?;
//! let router = Router::new()
//!     .toolset(ToolSet::builder().tool(Add).build()?)
//!     .caller_tools(["search_web"]);
//! let (results, for_the_caller) = router.answer_anthropic(&calls).await;
//! assert_eq!(results[0]["type"], "tool_result");
//! assert_eq!(results[0]["tool_use_id"], "toolu_1");
//! assert_eq!(for_the_caller[0].name, "search_web"); // the caller runs it and answers
//! # Ok(())
//! # }
//! ```

mod anthropic;
mod gemini;
mod openai;

pub use anthropic::{
    AnthropicCallAccumulator, anthropic_tool_calls, anthropic_tool_result,
    anthropic_tool_results_message,
};
pub use gemini::{
    GeminiCallAccumulator, gemini_function_calls, gemini_function_response,
    gemini_function_responses_content, merge_gemini_tools,
};
pub use openai::{
    ChatCallAccumulator, ResponsesCallAccumulator, chat_tool_calls, chat_tool_message,
    responses_function_output, responses_output_item, responses_tool_calls,
};

use std::collections::HashSet;

use serde_json::Value;

use crate::{CallContext, ToolOutput, ToolSet};

/// One call a model asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    /// The call's id (`tool_calls[].id` in Chat Completions, `call_id` in Responses, the
    /// `tool_use` block's `id` for Anthropic, `functionCall.id` for Gemini, or `gemini-call-N`
    /// where Gemini gave none).
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
    #[cfg_attr(docsrs, doc(cfg(feature = "mcp")))]
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
        // OpenAI's tool messages are text, and say a failure in it.
        self.answer_all(calls, |call, output, _| {
            chat_tool_message(&call.id, &output.to_text())
        })
        .await
    }

    /// Answers every call, in order, as Responses `function_call_output` items (images and PDFs
    /// as input parts: [`responses_function_output`]); calls to the caller's own tools are
    /// returned for the caller to answer.
    pub async fn answer_responses(&self, calls: &[ToolCall]) -> (Vec<Value>, Vec<ToolCall>) {
        self.answer_all(calls, responses_function_output).await
    }

    /// Answers every call, in order, as Anthropic `tool_result` blocks (images as image blocks,
    /// failures with `is_error`); calls to the caller's own tools are returned for the caller to
    /// answer. Anthropic wants every result of a turn in one user message, first in it: put the
    /// caller's own results beside these and pass them all to
    /// [`anthropic_tool_results_message`], in the order of the calls.
    pub async fn answer_anthropic(&self, calls: &[ToolCall]) -> (Vec<Value>, Vec<ToolCall>) {
        self.answer_all(calls, anthropic_tool_result).await
    }

    /// Answers every call, in order, as Gemini `functionResponse` parts (`{"output": …}`, or
    /// `{"error": …}` for a failure; images in the response's `parts`); calls to the caller's own
    /// tools are returned for the caller to answer. The parts of a turn go in one content:
    /// [`gemini_function_responses_content`].
    pub async fn answer_gemini(&self, calls: &[ToolCall]) -> (Vec<Value>, Vec<ToolCall>) {
        self.answer_all(calls, gemini_function_response).await
    }

    /// Answers every call, in order, with `build(call, output, is_error)`; calls to the caller's
    /// own tools are returned for the caller to answer.
    async fn answer_all(
        &self,
        calls: &[ToolCall],
        build: impl Fn(&ToolCall, &ToolOutput, bool) -> Value,
    ) -> (Vec<Value>, Vec<ToolCall>) {
        let answers =
            futures_util::future::join_all(calls.iter().map(|call| self.answer(call))).await;
        let mut items = Vec::new();
        let mut for_caller = Vec::new();
        for (call, answer) in calls.iter().zip(answers) {
            match answer {
                Answer::Answered {
                    output, is_error, ..
                } => items.push(build(call, &output, is_error)),
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
#[cfg_attr(docsrs, doc(cfg(feature = "mcp")))]
pub async fn call_mcp(
    peer: &rmcp::Peer<rmcp::RoleClient>,
    converted: &crate::convert::Converted,
    arguments: &str,
) -> Answer {
    call_mcp_with_meta(peer, converted, arguments, serde_json::Map::new()).await
}

/// [`call_mcp`], with `meta` as the `tools/call` request's `_meta` (left out when empty): MCP's
/// request metadata, where a caller puts what travels with the request rather than with the
/// tool's arguments, such as the W3C trace context (`traceparent`, `tracestate`) that ties the
/// server's spans to the caller's trace.
#[cfg(feature = "mcp")]
#[cfg_attr(docsrs, doc(cfg(feature = "mcp")))]
pub async fn call_mcp_with_meta(
    peer: &rmcp::Peer<rmcp::RoleClient>,
    converted: &crate::convert::Converted,
    arguments: &str,
    meta: serde_json::Map<String, Value>,
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
    if !meta.is_empty() {
        request.meta = Some(meta.into());
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

/// The caller's tools and another list merged for one request (Chat Completions, Responses,
/// Anthropic: a flat list of tools with names): the caller's win a name conflict, and each
/// conflict is reported by name. Gemini groups its declarations: [`merge_gemini_tools`].
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
    use serde_json::json;

    use super::*;

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
