//! OpenAI Responses, `POST /v1/responses`: input items, `function_call` and
//! `function_call_output`; one response (or one stream: one `response.created`, one closing
//! event, one id) showing the model's messages and its calls to the client's own tools, and, for
//! a request whose `mcp` tools chose its servers, the `mcp_list_tools`, `mcp_call` and
//! `mcp_approval_request` items OpenAI shows for its hosted tool (`crate::mcp_items`).
//! `previous_response_id` continues from the conversation the model had (`reinsert.rs`);
//! `stream.rs` is the client's stream.

mod reinsert;
mod stream;

use serde_json::{Map, Value, json};
use tooldef::calls::{ToolCall, responses_function_output, responses_tool_calls};

use super::{AfterCalls, Api, ClientApi, Names, Prepare};
use crate::conversation::Budget;
use crate::discovery;
use crate::disposition::Disposition;
use crate::error::ApiError;
use crate::execute::{arguments_are_an_object, execute_within};
use crate::injection::Injection;
use crate::mcp_items::{self, Decision};
use crate::mcp_tool::{McpEntry, take_entries};
use crate::rounds::{End, Forced, Round};
use crate::servers::CallOutcome;
use crate::store::{Kept, Key};
use crate::translate::ir::Finish;

pub use stream::ResponsesStream;

/// A Responses request across its rounds.
pub struct Responses {
    /// For a request whose `mcp` tools chose its servers: what it shows of them.
    hosted: Option<Hosted>,
    /// The items the client is not shown: the gateway's calls and their outputs.
    hidden: Vec<Value>,
    /// The client's `tools`, as a response echoes them.
    shown_tools: Value,
    /// The items the client is shown, across the rounds.
    visible: Vec<Value>,
    /// The first upstream response's id: the one the client is shown.
    first_id: Option<String>,
    /// Whether the upstream keeps this request's responses (`store` is not `false`), so that a
    /// `previous_response_id` may name them: only then is what such a follow-up needs kept.
    continues: bool,
    /// The request's `max_output_tokens`: an upstream that says `completed` for a reply cut at
    /// it (llama.cpp's server does) is read as cut when the reply used them all.
    max_output_tokens: Option<u64>,
    /// Approval responses not decided (inject mode).
    undecided: Vec<Decision>,
}

/// What a request with `mcp` tools shows of them.
struct Hosted {
    /// The `server_label`s listed in the conversation so far.
    listed: Vec<String>,
}

/// `input` as a list of items (a string is one user message).
fn input_items(input: Option<Value>) -> Result<Vec<Value>, ApiError> {
    match input {
        Some(Value::Array(items)) => Ok(items),
        Some(Value::String(text)) => Ok(vec![json!({"role": "user", "content": text})]),
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(_) => Err(ApiError::invalid(
            "`input` must be a string or an array of items.",
            "invalid_input",
        )
        .param("input")),
    }
}

/// Whether an output item is a function call (or a provider's `tool_search_call`) of one of
/// `round`'s calls the gateway handles.
fn is_gateways_item(round: &Round, item: &Value) -> bool {
    matches!(
        item.get("type").and_then(Value::as_str),
        Some("function_call" | "tool_search_call")
    ) && item
        .get("call_id")
        .and_then(Value::as_str)
        .is_some_and(|id| round.is_gateways(id))
}

/// A reply's `output` items.
fn output(reply: &Value) -> &[Value] {
    reply
        .get("output")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice)
}

impl Responses {
    /// A response echoes the request's `tools`: the client is shown its own, as if it had asked
    /// the model directly (the injected ones are the gateway's business, and with 100 of them
    /// the echo is most of the answer).
    fn show_client_tools(&self, response: &mut Value) {
        if let Value::Object(response) = response {
            response.insert("tools".to_owned(), self.shown_tools.clone());
        }
    }

    /// What the client reads in `status`: the upstream's, or `incomplete` with the reason,
    /// when the reply was cut at its token limit or a bound of the gateway's cut the rounds.
    fn mark_incomplete(response: &mut Value, end: &End) {
        if let Some(bound) = end.bound {
            // The last round answered because a bound left it no other choice: the work the
            // model wanted to do is not done, as OpenAI says of a response cut short.
            response["status"] = json!("incomplete");
            response["incomplete_details"] = json!({"reason": bound.as_str()});
        } else if end.cut {
            response["status"] = json!("incomplete");
            response["incomplete_details"] = json!({"reason": "max_output_tokens"});
        }
    }

    /// Keeps, under the visible response's id, the upstream response the answer ended with, the
    /// outputs its last injected calls still need, and the servers the conversation listed.
    fn response_kept(&self, last_id: &str, outputs: Vec<Value>) -> Option<(Vec<String>, Kept)> {
        let first_id = self.first_id.as_deref()?;
        let listed = self
            .hosted
            .as_ref()
            .map(|hosted| hosted.listed.clone())
            .unwrap_or_default();
        Some((
            vec![Key::response(first_id)],
            Kept::Response {
                last_id: last_id.to_owned(),
                outputs,
                listed,
            },
        ))
    }

    /// Runs or refuses the calls that the client's approval responses decide, puts each one's
    /// output where its response was, and gives the `mcp_call` items of those that were
    /// approved.
    async fn decide(
        context: &mut Prepare<'_>,
        input: &mut [Value],
        decisions: &[Decision],
    ) -> Vec<Value> {
        let injection = context.injection;
        let runs = |decision: &&Decision| decision.approve && injection.chose(&decision.call.name);
        let calls: Vec<ToolCall> = decisions
            .iter()
            .filter(runs)
            .map(|decision| decision.call.clone())
            .collect();
        let inner = context.inner;
        let timeout = std::time::Duration::from_secs(inner.config.tool_timeout_secs);
        let mut outcomes =
            execute_within(context.budget, &inner.sources, injection, &calls, timeout)
                .await
                .into_iter();
        let mut shown = Vec::new();
        for decision in decisions {
            let outcome = if !decision.approve {
                decision.refusal()
            } else if runs(&decision) {
                outcomes.next().expect("an outcome for every call run")
            } else {
                CallOutcome::error(format!(
                    "Not run: `{}` of `{}` is not among this request's tools.",
                    decision.tool, decision.label
                ))
            };
            input[decision.at] =
                responses_function_output(&decision.call, &outcome.output, outcome.is_error);
            if decision.approve {
                shown.push(mcp_items::call_item(
                    &decision.call,
                    &decision.label,
                    &decision.tool,
                    Some(&outcome),
                    Some(&decision.request_id),
                ));
            }
        }
        shown
    }
}

impl ClientApi for Responses {
    const API: Api = Api::Responses;
    const CONVERSATION: &'static str = "input";

    type Stream = ResponsesStream;

    fn budget(
        config: &crate::config::Config,
        request: &mut Map<String, Value>,
    ) -> Result<Budget, ApiError> {
        Budget::of_request(config, request, true)
    }

    fn take_entries(request: &mut Map<String, Value>) -> Result<Vec<McpEntry>, ApiError> {
        take_entries(request)
    }

    fn store_keys(request: &Map<String, Value>) -> (Vec<String>, bool) {
        reinsert::store_keys(request)
    }

    /// The client's `tools` as a response echoes them: its `mcp` tools without the headers and
    /// the token they carry for their server.
    fn echoed_tools(request: &Map<String, Value>) -> Option<Value> {
        let mut tools = request.get("tools").cloned().unwrap_or_else(|| json!([]));
        if let Value::Array(tools) = &mut tools {
            for tool in tools
                .iter_mut()
                .filter(|tool| tool.get("type").and_then(Value::as_str) == Some("mcp"))
            {
                if let Value::Object(tool) = tool {
                    tool.remove("headers");
                    tool.remove("authorization");
                }
            }
        }
        Some(tools)
    }

    async fn prepare(mut context: Prepare<'_>) -> Result<Responses, ApiError> {
        let mut listed = reinsert::reinsert(context.request, context.kept)?;
        let inner = context.inner;
        if let Some(choice) = mcp_items::tool_choice(
            context.request.get("tool_choice"),
            &inner.sources,
            context.injection,
        )? {
            context.request.insert("tool_choice".to_owned(), choice);
        }
        let mut responses = Responses {
            hosted: None,
            hidden: Vec::new(),
            shown_tools: context.echoed_tools.take().unwrap_or_else(|| json!([])),
            visible: Vec::new(),
            first_id: None,
            continues: context.request.get("store") != Some(&Value::Bool(false)),
            max_output_tokens: context
                .request
                .get("max_output_tokens")
                .and_then(Value::as_u64),
            undecided: Vec::new(),
        };
        if context.entries.is_empty() {
            return Ok(responses);
        }
        let items = input_items(context.request.remove("input"))?;
        let translated = mcp_items::translate(
            items,
            &inner.sources,
            context.injection,
            &inner.store,
            &inner.config.separator,
        )
        .await?;
        listed.extend(translated.listed);
        let mut input = translated.input;
        if inner.executes() {
            responses.visible = mcp_items::list_tools(
                &inner.sources,
                context.injection,
                context.entries,
                &mut listed,
            );
            let shown = Responses::decide(&mut context, &mut input, &translated.decisions).await;
            responses.visible.extend(shown);
        } else {
            responses.undecided = translated.decisions;
        }
        context
            .request
            .insert("input".to_owned(), Value::Array(input));
        responses.hosted = Some(Hosted { listed });
        Ok(responses)
    }

    fn unrun(&mut self, request: &mut Map<String, Value>) {
        if let Some(Value::Array(input)) = request.get_mut("input") {
            for decision in &self.undecided {
                let outcome = CallOutcome::error(
                    "Not run: this gateway hands calls to its client (inject mode).".to_owned(),
                );
                input[decision.at] =
                    responses_function_output(&decision.call, &outcome.output, outcome.is_error);
            }
        }
    }

    fn conversation(request: &mut Map<String, Value>) -> Result<Vec<Value>, ApiError> {
        input_items(request.remove("input"))
    }

    fn forced(choice: &Value) -> Option<Forced> {
        match choice {
            Value::String(choice) if choice == "required" => Some(Forced::Any),
            Value::Object(_) => match choice.get("name").and_then(Value::as_str) {
                Some(name) => Some(Forced::Tool(name.to_owned())),
                None => Some(Forced::Any),
            },
            _ => None,
        }
    }

    fn tool_name(tool: &Value) -> Option<&str> {
        tool.get("name").and_then(Value::as_str)
    }

    fn read_reply(&self, reply: Value, injection: &Injection) -> Result<Round, String> {
        let mut calls = responses_tool_calls(&reply)
            .map_err(|err| format!("The upstream's function calls are unreadable: {err}"))?;
        if injection
            .discovery
            .as_ref()
            .is_some_and(|discovery| discovery.is_tool_search())
        {
            // The provider's client-executed searches: the gateway's to answer.
            calls.extend(discovery::tool_search_calls(output(&reply)));
        }
        let shows_approvals = self.hosted.is_some();
        let calls = calls
            .into_iter()
            .map(|call| {
                let disposition = injection.disposition(&call.name, shows_approvals);
                (call, disposition)
            })
            .collect::<Vec<_>>();
        let finish = self.finish_of(&reply, !calls.is_empty());
        Ok(Round {
            id: reply["id"].clone(),
            created: reply["created_at"].clone(),
            calls,
            finish,
            usage: reply.get("usage").cloned(),
            reply,
        })
    }

    fn absorb(&mut self, round: &Round) {
        if self.first_id.is_none() {
            self.first_id = round.id.as_str().map(str::to_owned);
        }
        self.visible.extend(
            output(&round.reply)
                .iter()
                .filter(|item| !is_gateways_item(round, item))
                .cloned(),
        );
    }

    /// Runs a round's injected calls and adds the round to the conversation; a hosted-MCP
    /// request's client is shown them, and the calls that wait for approval.
    fn after_calls(
        &mut self,
        round: &Round,
        ran: &[(ToolCall, CallOutcome)],
        added: &mut Vec<Value>,
        names: &Names<'_>,
    ) -> AfterCalls {
        let outputs: Vec<Value> = ran
            .iter()
            .map(|(call, outcome)| {
                if call.name == discovery::PROVIDER_SEARCH {
                    discovery::tool_search_output(call, outcome)
                } else {
                    responses_function_output(call, &outcome.output, outcome.is_error)
                }
            })
            .collect();
        let items: Vec<Value> = output(&round.reply).iter().map(sanitised).collect();
        added.extend(items.iter().cloned());
        added.extend(outputs.iter().cloned());
        let ask: Vec<&ToolCall> = round.of(Disposition::Ask).collect();
        let client: Vec<&ToolCall> = round.of(Disposition::Client).collect();
        let ends = !client.is_empty() || !ask.is_empty();
        let last_id = round.id.as_str().unwrap_or_default().to_owned();
        let mut keep = Vec::new();
        let mut shown = Vec::new();
        if self.hosted.is_some() {
            // Nothing is hidden: the client has every item, and sends them back or names this
            // response in `previous_response_id`, which needs the outputs of its last calls.
            shown = self.hosted_items(names, ran, &ask, &mut keep);
            if ends && self.continues {
                keep.extend(self.response_kept(&last_id, outputs));
            }
        } else if !ends {
            let calls = items
                .into_iter()
                .filter(|item| is_gateways_item(round, item));
            self.hidden.extend(calls);
            self.hidden.extend(outputs);
        } else {
            let calls = items
                .into_iter()
                .filter(|item| is_gateways_item(round, item))
                .collect();
            keep.push((
                client
                    .iter()
                    .map(|call| Key::responses_call(&call.id))
                    .collect(),
                Kept::ResponsesTurn {
                    earlier: std::mem::take(&mut self.hidden),
                    calls,
                    outputs: outputs.clone(),
                },
            ));
            if self.continues {
                keep.extend(self.response_kept(&last_id, outputs));
            }
        }
        self.visible.extend(shown.iter().cloned());
        AfterCalls { ends, keep, shown }
    }

    /// Keeps which upstream response an answer ended with, for `previous_response_id`, when it
    /// is not the visible one or the conversation listed servers' tools.
    fn at_end(&mut self, last: &Round) -> Vec<(Vec<String>, Kept)> {
        let listed = self
            .hosted
            .as_ref()
            .is_some_and(|hosted| !hosted.listed.is_empty());
        let last_id = last.id.as_str().unwrap_or_default();
        let first_id = self.first_id.as_deref().unwrap_or_default();
        if self.continues && (first_id != last_id || listed) {
            return self
                .response_kept(last_id, Vec::new())
                .into_iter()
                .collect();
        }
        Vec::new()
    }

    /// The response the client gets: the last one, under the first one's id, with every
    /// round's visible output and the usage of all.
    fn answer(&mut self, last: Round, end: &End) -> Value {
        let mut response = last.reply;
        self.show_client_tools(&mut response);
        response["id"] = end.id.clone();
        response["created_at"] = end.created.clone();
        response["output"] = Value::Array(self.visible.clone());
        if !end.usage.is_null() {
            response["usage"] = end.usage.clone();
        }
        Responses::mark_incomplete(&mut response, end);
        response
    }
}

impl Responses {
    /// How a response ended: cut at its token limit (`incomplete` for `max_output_tokens`, or
    /// `completed` with every token of it used, as llama.cpp's server says it), stopped by a
    /// filter, or done.
    fn finish_of(&self, response: &Value, calls: bool) -> Finish {
        let reason = response
            .pointer("/incomplete_details/reason")
            .and_then(Value::as_str);
        let used = response
            .pointer("/usage/output_tokens")
            .and_then(Value::as_u64);
        match (response.get("status").and_then(Value::as_str), reason) {
            (Some("incomplete"), Some("max_output_tokens")) => Finish::Length,
            (Some("incomplete"), Some("content_filter")) => Finish::ContentFilter,
            _ if self
                .max_output_tokens
                .zip(used)
                .is_some_and(|(max, used)| used >= max) =>
            {
                Finish::Length
            }
            _ if calls => Finish::ToolCalls,
            _ => Finish::Stop,
        }
    }

    /// The items a hosted-MCP request is shown of a round's calls: the `mcp_call`s of those that
    /// ran and the approval requests of those that wait (kept for an answer through
    /// `previous_response_id`).
    fn hosted_items(
        &self,
        names: &Names<'_>,
        ran: &[(ToolCall, CallOutcome)],
        ask: &[&ToolCall],
        keep: &mut Vec<(Vec<String>, Kept)>,
    ) -> Vec<Value> {
        let mut shown = Vec::with_capacity(ran.len() + ask.len());
        for (call, outcome) in ran {
            if let Some((label, tool)) = names.server_and_tool(&call.name) {
                shown.push(mcp_items::call_item(call, label, tool, Some(outcome), None));
            }
        }
        for call in ask {
            let (label, tool) = names
                .server_and_tool(&call.name)
                .unwrap_or(("", &call.name));
            shown.push(mcp_items::approval_request(call, label, tool));
            if self.continues {
                keep.push((
                    vec![Key::approval(&mcp_items::approval_id(call))],
                    Kept::Approval {
                        call: json!({"type": "function_call", "call_id": call.id, "name": call.name, "arguments": call.arguments}),
                        label: label.to_owned(),
                        tool: tool.to_owned(),
                    },
                ));
            }
        }
        shown
    }
}

/// An output item as it goes back upstream: a function call whose arguments are not a JSON
/// object with `{}` (it was not run).
fn sanitised(item: &Value) -> Value {
    let mut item = item.clone();
    if item.get("type").and_then(Value::as_str) == Some("function_call")
        && !item
            .get("arguments")
            .and_then(Value::as_str)
            .is_some_and(arguments_are_an_object)
    {
        item["arguments"] = json!("{}");
    }
    item
}
