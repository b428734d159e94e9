//! `POST /v1/responses`: as Chat Completions (see the `chat` module), for the Responses API:
//! injected function calls run here round after round, and the client gets one response (or one
//! stream: one `response.created`, one `response.completed`, one id) showing the model's
//! messages and its calls to the client's own tools.

use std::collections::HashMap;
use std::sync::Arc;

use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures_util::StreamExt;
use serde_json::{Map, Value, json};
use tooldef::Target;
use tooldef::calls::{ToolCall, responses_function_output, responses_tool_calls};

use crate::body::Outgoing;
use crate::catalog::execute_within;
use crate::conversation::{Bound, Budget, STOPPED, add_usage, forces_a_call, request_object};
use crate::error::ApiError;
use crate::gateway::{Injection, Inner};
use crate::mcp_items::{self, Decision};
use crate::mcp_tool::take_entries;
use crate::servers::CallOutcome;
use crate::sse::{Gone, Writer, events};
use crate::store::{self, Kept, KeptStore, StoreError};
use crate::upstream::{informative_headers, passthrough, whole};

const PATH: &str = "/v1/responses";

/// Answers one Responses request.
pub async fn respond(inner: Arc<Inner>, headers: HeaderMap, body: Bytes) -> Response {
    match run(inner, headers, body).await {
        Ok(response) | Err(response) => response,
    }
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

async fn run(inner: Arc<Inner>, headers: HeaderMap, body: Bytes) -> Result<Response, Response> {
    let mut request = request_object(&body).map_err(IntoResponse::into_response)?;
    let mut budget = Budget::of_request(&inner.config, &mut request, true)
        .map_err(IntoResponse::into_response)?;
    let shown_tools = shown_tools(&request);
    // OpenAI's hosted-MCP entries choose this request's servers and tools; no upstream sees them,
    // and the client is shown the calls to them as OpenAI shows its own (see `mcp_items`).
    let entries = take_entries(&mut request).map_err(IntoResponse::into_response)?;
    let adhoc = inner
        .connect_remotes(&entries, Target::Responses)
        .await
        .map_err(IntoResponse::into_response)?;
    let Reinserted { mut listed, unread } = reinsert(&inner, &mut request)
        .await
        .map_err(IntoResponse::into_response)?;
    let injection = inner
        .inject(Target::Responses, &request, &entries, adhoc)
        .map_err(IntoResponse::into_response)?;
    let hosted = !entries.is_empty();
    if let Some(choice) =
        mcp_items::tool_choice(request.get("tool_choice"), &inner.sources, &injection)
            .map_err(IntoResponse::into_response)?
    {
        request.insert("tool_choice".to_owned(), choice);
    }
    let mut decisions = Vec::new();
    if hosted && request.contains_key("input") {
        let items = input_items(request.remove("input")).map_err(IntoResponse::into_response)?;
        let translated = mcp_items::translate(
            items,
            &inner.sources,
            &injection,
            &inner.store,
            &inner.config.separator,
        )
        .await
        .map_err(IntoResponse::into_response)?;
        listed.extend(translated.listed);
        decisions = translated.decisions;
        request.insert("input".to_owned(), Value::Array(translated.input));
    }
    let upstream_headers = inner.upstream.headers(&headers, true);
    let mut conflicts = injection.headers(&inner.sources);
    conflicts.extend(unread.map(|_| store::unread_header()));
    if !inner.executes() || (!injection.active && !hosted) {
        if let Some(Value::Array(input)) = request.get_mut("input") {
            for decision in &decisions {
                let outcome = CallOutcome::error(
                    "Not run: this gateway hands calls to its client (inject mode).".to_owned(),
                );
                input[decision.at] =
                    responses_function_output(&decision.call, &outcome.output, outcome.is_error);
            }
        }
        let answer = inner
            .upstream
            .post_json(
                PATH,
                &upstream_headers,
                &Outgoing {
                    request: &request,
                    conversation: None,
                    tool_choice: None,
                    injection: &injection,
                },
            )
            .await
            .map_err(IntoResponse::into_response)?;
        let mut response = passthrough(answer);
        response.headers_mut().extend(conflicts);
        return Ok(response);
    }
    let mut input = input_items(request.remove("input")).map_err(IntoResponse::into_response)?;
    let hosted = if hosted {
        let mut leading = mcp_items::list_tools(&inner.sources, &injection, &entries, &mut listed);
        leading.extend(decide(&inner, &injection, &mut budget, &mut input, &decisions).await);
        Some(Hosted { leading, listed })
    } else {
        None
    };
    let rounds = Rounds {
        inner,
        injection,
        headers: upstream_headers,
        forced: forces_a_call(request.get("tool_choice")),
        budget,
        request,
        input,
        added: Vec::new(),
        hidden: Vec::new(),
        hosted,
        shown_tools,
    };
    if rounds.request.get("stream") == Some(&Value::Bool(true)) {
        rounds.stream(conflicts).await
    } else {
        rounds.whole(conflicts).await
    }
}

/// The client's `tools` as a response echoes them: its `mcp` tools without the headers and the
/// token they carry for their server.
fn shown_tools(request: &Map<String, Value>) -> Value {
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
    tools
}

/// Runs or refuses the calls that the client's approval responses decide, puts each one's
/// output where its response was, and gives the `mcp_call` items of those that were approved.
async fn decide(
    inner: &Inner,
    injection: &Injection,
    budget: &mut Budget,
    input: &mut [Value],
    decisions: &[Decision],
) -> Vec<Value> {
    let runs = |decision: &&Decision| decision.approve && injection.chose(&decision.call.name);
    let calls: Vec<ToolCall> = decisions
        .iter()
        .filter(runs)
        .map(|decision| decision.call.clone())
        .collect();
    let timeout = std::time::Duration::from_secs(inner.config.tool_timeout_secs);
    let mut outcomes = execute_within(budget, &inner.sources, injection, &calls, timeout)
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

/// What [`reinsert`] found.
#[derive(Default)]
struct Reinserted {
    /// The `server_label`s whose tools the previous response's conversation listed.
    listed: Vec<String>,
    /// The store's error, when it could not be read and the request carried on without it.
    unread: Option<StoreError>,
}

/// Whether an input item is a message of `role`.
fn is_message(item: &Value, role: &str) -> bool {
    item.get("role").and_then(Value::as_str) == Some(role)
        && item
            .get("type")
            .and_then(Value::as_str)
            .is_none_or(|kind| kind == "message")
}

/// The call id of a `function_call` item.
fn function_call_id(item: &Value) -> Option<&str> {
    (item.get("type").and_then(Value::as_str) == Some("function_call"))
        .then(|| item.get("call_id").and_then(Value::as_str))
        .flatten()
}

/// Completes a follow-up into the conversation the model had: a `previous_response_id` the
/// client was shown stands for the last upstream response of its rounds (whose injected calls
/// get their outputs back), and the client's calls of a turn that mixed calls get the injected
/// calls and outputs of that turn put back before them.
///
/// The previous response and every `function_call`'s id are looked up in one read. When the
/// store cannot be read, a request with a `previous_response_id`, or with calls in the turn in
/// progress (see [`store::in_progress`]: the follow-up the store is for), is answered 503; one
/// whose calls are all of earlier turns carries on as the client wrote it, as it would once they
/// expired, and says so.
async fn reinsert(inner: &Inner, request: &mut Map<String, Value>) -> Result<Reinserted, ApiError> {
    let mut done = Reinserted::default();
    // Inject mode keeps nothing, so it has nothing to read.
    if !inner.executes() {
        return Ok(done);
    }
    let previous = request
        .get("previous_response_id")
        .and_then(Value::as_str)
        .map(|id| format!("resp:{id}"));
    let mut keys: Vec<String> = previous.iter().cloned().collect();
    let mut latest = false;
    if let Some(Value::Array(items)) = request.get("input") {
        let since = store::in_progress(
            items.iter().rposition(|item| is_message(item, "user")),
            items.iter().rposition(|item| is_message(item, "assistant")),
        );
        for (i, item) in items.iter().enumerate() {
            if let Some(id) = function_call_id(item) {
                keys.push(format!("call:{id}"));
                latest |= since.is_none_or(|since| i > since);
            }
        }
    }
    if keys.is_empty() {
        return Ok(done);
    }
    keys.sort_unstable();
    keys.dedup();
    let found = match inner.store.get_many(&keys).await {
        Ok(found) => found,
        Err(err) if latest || previous.is_some() => return Err(err.on_read()),
        Err(err) => {
            tracing::warn!(
                "{err}: the earlier turns of a conversation are sent as the client wrote them"
            );
            done.unread = Some(err);
            return Ok(done);
        }
    };
    let kept: HashMap<String, Arc<Kept>> = keys
        .into_iter()
        .zip(found)
        .filter_map(|(key, kept)| Some((key, kept?)))
        .collect();
    let mut items = None;
    if let Some(Kept::Response {
        last_id,
        outputs,
        listed,
    }) = previous.and_then(|key| kept.get(&key)).map(Arc::as_ref)
    {
        request.insert("previous_response_id".to_owned(), json!(last_id));
        let mut input = input_items(request.remove("input"))?;
        input.splice(0..0, outputs.iter().cloned());
        items = Some(input);
        done.listed.clone_from(listed);
    }
    let mut input = match items {
        Some(items) => items,
        None => match request.remove("input") {
            Some(Value::Array(items)) => items,
            other => {
                if let Some(other) = other {
                    request.insert("input".to_owned(), other);
                }
                return Ok(done);
            }
        },
    };
    let mut i = 0;
    while i < input.len() {
        let found = function_call_id(&input[i]).and_then(|id| kept.get(&format!("call:{id}")));
        if let Some(Kept::ResponsesTurn {
            earlier,
            calls,
            outputs,
        }) = found.map(Arc::as_ref)
        {
            let first_id = calls.first().and_then(|item| item.get("call_id"));
            let present = input.iter().any(|item| {
                item.get("type").and_then(Value::as_str) == Some("function_call")
                    && item.get("call_id") == first_id
            });
            if !present {
                // The turn's calls together, as the model made them, then their outputs.
                input.splice(i..i, earlier.iter().chain(calls).cloned());
                i += earlier.len() + calls.len();
                while input.get(i + 1).is_some_and(|item| {
                    item.get("type").and_then(Value::as_str) == Some("function_call")
                }) {
                    i += 1;
                }
                input.splice(i + 1..i + 1, outputs.iter().cloned());
                i += outputs.len();
            }
        }
        i += 1;
    }
    request.insert("input".to_owned(), Value::Array(input));
    Ok(done)
}

struct Rounds {
    inner: Arc<Inner>,
    injection: Injection,
    headers: HeaderMap,
    forced: bool,
    /// The request's bounds, and the calls run so far.
    budget: Budget,
    /// The request without its input.
    request: Map<String, Value>,
    /// The client's input.
    input: Vec<Value>,
    /// What the rounds so far added to the input: their output and the injected calls' outputs.
    added: Vec<Value>,
    /// The items the client is not shown: injected calls and their outputs.
    hidden: Vec<Value>,
    /// For a request whose `mcp` tools chose its servers: what it shows of them.
    hosted: Option<Hosted>,
    /// The client's `tools`, as a response echoes them.
    shown_tools: Value,
}

/// What a request with `mcp` tools shows of them.
struct Hosted {
    /// Shown before the first round's output: the `mcp_list_tools` of servers the conversation
    /// has not listed, and the `mcp_call`s that approval responses ran.
    leading: Vec<Value>,
    /// The `server_label`s listed in the conversation so far.
    listed: Vec<String>,
}

/// A round's calls, by who handles them.
struct Plan {
    /// Run here.
    run: Vec<ToolCall>,
    /// Shown as approval requests (hosted-MCP requests only).
    ask: Vec<ToolCall>,
    /// The client's.
    client: Vec<ToolCall>,
}

/// What a round's calls did.
struct Turn {
    /// Whether the response ends with this round: calls went to the client or wait for approval.
    ends: bool,
    /// The items the client is shown for them: `mcp_call`s and `mcp_approval_request`s.
    shown: Vec<Value>,
}

impl Rounds {
    fn body(&self, round: u32) -> Outgoing<'_> {
        let tool_choice = if self.budget.bound_at(round).is_some() {
            // The last round: the model must answer rather than leave a call dangling.
            Some("none")
        } else if round > 1 && self.forced {
            Some("auto")
        } else {
            None
        };
        Outgoing {
            request: &self.request,
            conversation: Some(("input", &self.input, &self.added)),
            tool_choice,
            injection: &self.injection,
        }
    }

    /// A response echoes the request's `tools`: the client is shown its own, as if it had
    /// asked the model directly (the injected ones are the gateway's business, and with 100 of
    /// them the echo is most of the answer).
    fn show_client_tools(&self, response: &mut Value) {
        if let Value::Object(response) = response {
            response.insert("tools".to_owned(), self.shown_tools.clone());
        }
    }

    /// Whether the gateway handles a call: it runs it, or (for hosted-MCP requests) asks the
    /// client's approval for it.
    fn handles(&self, name: &str) -> bool {
        self.injection.is_injected(name) || (self.hosted.is_some() && self.injection.asks(name))
    }

    /// Whether an upstream output item is a call the gateway handles, which the client is not
    /// shown as such.
    fn is_injected_item(&self, item: &Value) -> bool {
        item.get("type").and_then(Value::as_str) == Some("function_call")
            && item
                .get("name")
                .and_then(Value::as_str)
                .is_some_and(|name| self.handles(name))
    }

    fn plan(&self, calls: Vec<ToolCall>) -> Plan {
        let mut plan = Plan {
            run: Vec::new(),
            ask: Vec::new(),
            client: Vec::new(),
        };
        for call in calls {
            if self.injection.is_injected(&call.name) {
                plan.run.push(call);
            } else if self.hosted.is_some() && self.injection.asks(&call.name) {
                plan.ask.push(call);
            } else {
                plan.client.push(call);
            }
        }
        plan
    }

    /// The server label and tool name the client knows a call by; `None` for the gateway's own
    /// search tool, whose calls the client is not shown.
    fn server_and_tool<'a>(&'a self, call: &ToolCall) -> Option<(&'a str, &'a str)> {
        self.injection
            .server_and_tool(&self.inner.sources, &call.name)
    }

    /// The `mcp_call` items of the calls a round is about to run, in progress (for a stream).
    fn starting(&self, plan: &Plan) -> Vec<Value> {
        if self.hosted.is_none() {
            return Vec::new();
        }
        plan.run
            .iter()
            .filter_map(|call| {
                let (label, tool) = self.server_and_tool(call)?;
                Some(mcp_items::call_item(call, label, tool, None, None))
            })
            .collect()
    }

    /// Whether the upstream keeps this request's responses (OpenAI's `store`, true unless the
    /// request says `false`), so that a `previous_response_id` may name them: only then is what
    /// such a follow-up needs kept here.
    fn continues(&self) -> bool {
        self.request.get("store") != Some(&Value::Bool(false))
    }

    /// Runs a round's injected calls and adds the round to the conversation; a hosted-MCP
    /// request's client is shown them, and the calls that wait for approval. When the turn
    /// ends the response, what its follow-up needs is kept first: an error when it could not
    /// be, so that the client is not given a turn it could not follow up.
    async fn execute(
        &mut self,
        response_id: &str,
        first_id: &str,
        output: &[Value],
        plan: Plan,
    ) -> Result<Turn, StoreError> {
        let Plan { run, ask, client } = plan;
        let outcomes = execute_within(
            &mut self.budget,
            &self.inner.sources,
            &self.injection,
            &run,
            std::time::Duration::from_secs(self.inner.config.tool_timeout_secs),
        )
        .await;
        let outputs: Vec<Value> = run
            .iter()
            .zip(&outcomes)
            .map(|(call, outcome)| {
                responses_function_output(call, &outcome.output, outcome.is_error)
            })
            .collect();
        self.added.extend(output.iter().cloned());
        self.added.extend(outputs.iter().cloned());
        let ends = !client.is_empty() || !ask.is_empty();
        let continues = self.continues();
        if self.hosted.is_some() {
            // Nothing is hidden: the client has every item, and sends them back or names this
            // response in `previous_response_id`, which needs the outputs of its last calls.
            let mut shown = Vec::with_capacity(run.len() + ask.len());
            for (call, outcome) in run.iter().zip(&outcomes) {
                if let Some((label, tool)) = self.server_and_tool(call) {
                    shown.push(mcp_items::call_item(call, label, tool, Some(outcome), None));
                }
            }
            for call in &ask {
                let (label, tool) = self.server_and_tool(call).unwrap_or(("", &call.name));
                shown.push(mcp_items::approval_request(call, label, tool));
                if continues {
                    let kept = Kept::Approval {
                        call: json!({"type": "function_call", "call_id": call.id, "name": call.name, "arguments": call.arguments}),
                        label: label.to_owned(),
                        tool: tool.to_owned(),
                    };
                    self.inner
                        .store
                        .put(
                            vec![mcp_items::approval_key(&mcp_items::approval_id(call))],
                            kept,
                        )
                        .await?;
                }
            }
            if ends && continues {
                self.keep_response(first_id, response_id, outputs).await?;
            }
            return Ok(Turn { ends, shown });
        }
        let calls: Vec<Value> = output
            .iter()
            .filter(|item| self.is_injected_item(item))
            .cloned()
            .collect();
        if !ends {
            self.hidden.extend(calls);
            self.hidden.extend(outputs);
            return Ok(Turn {
                ends,
                shown: Vec::new(),
            });
        }
        self.inner
            .store
            .put(
                client
                    .iter()
                    .map(|call| format!("call:{}", call.id))
                    .collect(),
                Kept::ResponsesTurn {
                    earlier: std::mem::take(&mut self.hidden),
                    calls,
                    outputs: outputs.clone(),
                },
            )
            .await?;
        if continues {
            self.keep_response(first_id, response_id, outputs).await?;
        }
        Ok(Turn {
            ends,
            shown: Vec::new(),
        })
    }

    /// Keeps which upstream response an answer ended with, for `previous_response_id`, when it
    /// is not the visible one or the conversation listed servers' tools: an error when it
    /// could not be kept, so that the client is not given a response it could not continue.
    async fn remember(&self, first_id: &str, last_id: &str) -> Result<(), StoreError> {
        let listed = self
            .hosted
            .as_ref()
            .is_some_and(|hosted| !hosted.listed.is_empty());
        if self.continues() && (first_id != last_id || listed) {
            self.keep_response(first_id, last_id, Vec::new()).await?;
        }
        Ok(())
    }

    /// Keeps, under the visible response's id, the upstream response the answer ended with, the
    /// outputs its last injected calls still need, and the servers the conversation listed.
    async fn keep_response(
        &self,
        first_id: &str,
        last_id: &str,
        outputs: Vec<Value>,
    ) -> Result<(), StoreError> {
        let listed = self
            .hosted
            .as_ref()
            .map(|hosted| hosted.listed.clone())
            .unwrap_or_default();
        let kept = Kept::Response {
            last_id: last_id.to_owned(),
            outputs,
            listed,
        };
        self.inner
            .store
            .put(vec![format!("resp:{first_id}")], kept)
            .await
    }

    /// The response the client gets: the last one, under the first one's id, with every
    /// round's visible output and the usage of all.
    fn answer(
        &self,
        mut last: Value,
        first: &(Value, Value),
        visible: Vec<Value>,
        usage: Value,
        bound: Option<Bound>,
    ) -> Value {
        self.show_client_tools(&mut last);
        last["id"] = first.0.clone();
        last["created_at"] = first.1.clone();
        last["output"] = Value::Array(visible);
        if !usage.is_null() {
            last["usage"] = usage;
        }
        if let Some(bound) = bound {
            // The last round answered because a bound left it no other choice: the work the
            // model wanted to do is not done, as OpenAI says of a response cut short.
            last["status"] = json!("incomplete");
            last["incomplete_details"] = json!({"reason": bound.as_str()});
        }
        last
    }

    async fn whole(
        mut self,
        conflicts: Vec<(HeaderName, HeaderValue)>,
    ) -> Result<Response, Response> {
        let mut usage = Value::Null;
        let mut first: Option<(Value, Value)> = None;
        let mut visible = self
            .hosted
            .as_mut()
            .map(|hosted| std::mem::take(&mut hosted.leading))
            .unwrap_or_default();
        let mut round = 0;
        loop {
            round += 1;
            let answer = self
                .inner
                .upstream
                .post_json(PATH, &self.headers, &self.body(round))
                .await
                .map_err(IntoResponse::into_response)?;
            let status = answer.status();
            let answer_headers = answer.headers().clone();
            let bytes = answer.bytes().await.map_err(|err| {
                ApiError::upstream(format!("The upstream's answer broke off: {err}"))
                    .into_response()
            })?;
            if !status.is_success() {
                return Err(whole(status, &answer_headers, bytes));
            }
            let response: Value = serde_json::from_slice::<WithoutTools>(&bytes)
                .map(|lean| lean.0)
                .map_err(|err| {
                    ApiError::upstream(format!("The upstream's answer is not JSON: {err}"))
                        .into_response()
                })?;
            if let Some(more) = response.get("usage") {
                add_usage(&mut usage, more);
            }
            let first = first
                .get_or_insert_with(|| (response["id"].clone(), response["created_at"].clone()))
                .clone();
            let calls = responses_tool_calls(&response).map_err(|err| {
                ApiError::upstream(format!(
                    "The upstream's function calls are unreadable: {err}"
                ))
                .into_response()
            })?;
            let output: Vec<Value> = response
                .get("output")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            visible.extend(
                output
                    .iter()
                    .filter(|item| !self.is_injected_item(item))
                    .cloned(),
            );
            let any_injected = calls.iter().any(|call| self.handles(&call.name));
            let id = response["id"].as_str().unwrap_or_default().to_owned();
            let first_id = first.0.as_str().unwrap_or_default().to_owned();
            let last = self.budget.bound_at(round);
            if any_injected && last.is_none() {
                let plan = self.plan(calls);
                let turn = self
                    .execute(&id, &first_id, &output, plan)
                    .await
                    .map_err(|err| err.on_write().into_response())?;
                visible.extend(turn.shown);
                if !turn.ends {
                    continue;
                }
            } else {
                if any_injected {
                    tracing::warn!(
                        round,
                        "the model called tools in the last round; they were not run"
                    );
                }
                self.remember(&first_id, &id)
                    .await
                    .map_err(|err| err.on_write().into_response())?;
            }
            tracing::info!(rounds = round, "response");
            let answer = self.answer(response, &first, visible, usage, last);
            let mut response = (StatusCode::OK, axum::Json(answer)).into_response();
            let headers = response.headers_mut();
            headers.extend(informative_headers(&answer_headers));
            headers.extend(conflicts);
            headers.insert(
                HeaderName::from_static("x-tooldef-rounds"),
                HeaderValue::from(round),
            );
            return Ok(response);
        }
    }

    async fn stream(self, conflicts: Vec<(HeaderName, HeaderValue)>) -> Result<Response, Response> {
        let answer = self
            .inner
            .upstream
            .post_json(PATH, &self.headers, &self.body(1))
            .await
            .map_err(IntoResponse::into_response)?;
        if !answer.status().is_success() {
            return Err(passthrough(answer));
        }
        let informative = informative_headers(answer.headers());
        let (mut response, writer) = crate::sse::response();
        response.headers_mut().extend(informative);
        response.headers_mut().extend(conflicts);
        let inner = self.inner.clone();
        crate::telemetry::spawn(async move {
            let mut stream = ResponsesStream::default();
            let cut = tokio::select! {
                ran = stream.run(self, answer, &writer) => {
                    if let Err(Gone) = ran {
                        tracing::info!("the client went away during a streamed response");
                    }
                    false
                }
                () = inner.deadline() => true,
            };
            if cut {
                let _ = stream.fail(&writer, STOPPED.to_owned()).await;
            }
        });
        Ok(response)
    }
}

/// One streamed response as the client sees it, across the rounds.
#[derive(Default)]
struct ResponsesStream {
    sequence: u64,
    first: Option<(Value, Value)>,
    visible: Vec<Value>,
    usage: Value,
    /// Items shown before the first round's output, until they are.
    leading: Vec<Value>,
}

impl ResponsesStream {
    async fn send(&mut self, writer: &Writer, mut event: Value) -> Result<(), Gone> {
        event["sequence_number"] = json!(self.sequence);
        self.sequence += 1;
        let name = event["type"].as_str().unwrap_or("message").to_owned();
        writer.named(&name, &event).await
    }

    /// Shows items the gateway made, whole, after those shown so far.
    async fn show(&mut self, writer: &Writer, items: Vec<Value>) -> Result<(), Gone> {
        for item in items {
            for event in mcp_items::shown(&item, self.visible.len()) {
                self.send(writer, event).await?;
            }
            self.visible.push(item);
        }
        Ok(())
    }

    async fn fail(&mut self, writer: &Writer, message: String) -> Result<(), Gone> {
        tracing::warn!("{message}");
        self.send(
            writer,
            json!({"type": "error", "code": "upstream_error", "message": message, "param": null}),
        )
        .await
    }

    /// Ends the stream with the gateway's own error (the response is not completed).
    async fn refuse(&mut self, writer: &Writer, error: ApiError) -> Result<(), Gone> {
        tracing::warn!("{}", error.message);
        self.send(
            writer,
            json!({"type": "error", "code": error.code, "message": error.message, "param": null}),
        )
        .await
    }

    async fn run(
        &mut self,
        mut rounds: Rounds,
        first: reqwest::Response,
        writer: &Writer,
    ) -> Result<(), Gone> {
        let mut answer = first;
        let mut round = 1;
        if let Some(hosted) = &mut rounds.hosted {
            self.leading = std::mem::take(&mut hosted.leading);
        }
        loop {
            // Per upstream output index: the client's index, `None` for an injected call.
            let mut indexes: HashMap<u64, Option<usize>> = HashMap::new();
            let mut completed = None;
            let mut events = std::pin::pin!(events(answer));
            while let Some(event) = events.next().await {
                let event = match event {
                    Ok(event) => event,
                    Err(why) => return self.fail(writer, why).await,
                };
                let mut event: Value = match serde_json::from_str::<WithoutTools>(&event.data) {
                    Ok(event) => event.0,
                    Err(err) => {
                        return self
                            .fail(
                                writer,
                                format!("The upstream sent an unreadable event: {err}"),
                            )
                            .await;
                    }
                };
                let kind = event["type"].as_str().unwrap_or_default().to_owned();
                match kind.as_str() {
                    "response.created" | "response.in_progress" => {
                        if round == 1 {
                            if self.first.is_none() {
                                self.first = Some((
                                    event["response"]["id"].clone(),
                                    event["response"]["created_at"].clone(),
                                ));
                            }
                            rounds.show_client_tools(&mut event["response"]);
                            self.send(writer, event).await?;
                        }
                    }
                    "response.completed" => {
                        let leading = std::mem::take(&mut self.leading);
                        self.show(writer, leading).await?;
                        completed = Some(event["response"].take());
                        break;
                    }
                    "response.failed" | "response.incomplete" | "error" => {
                        if event.get("response").is_some() {
                            rounds.show_client_tools(&mut event["response"]);
                            if let Some((id, _)) = &self.first {
                                event["response"]["id"] = id.clone();
                            }
                        }
                        return self.send(writer, event).await;
                    }
                    _ => {
                        let leading = std::mem::take(&mut self.leading);
                        self.show(writer, leading).await?;
                        let Some(index) = event.get("output_index").and_then(Value::as_u64) else {
                            self.send(writer, event).await?;
                            continue;
                        };
                        let client_index = match indexes.get(&index) {
                            Some(known) => *known,
                            None => {
                                let injected = event
                                    .get("item")
                                    .is_some_and(|item| rounds.is_injected_item(item));
                                let client = (!injected).then(|| {
                                    self.visible.len()
                                        + indexes.values().filter(|v| v.is_some()).count()
                                });
                                indexes.insert(index, client);
                                client
                            }
                        };
                        if let Some(client_index) = client_index {
                            event["output_index"] = json!(client_index);
                            self.send(writer, event).await?;
                        }
                    }
                }
            }
            let Some(response) = completed else {
                return self
                    .fail(
                        writer,
                        "The upstream's stream ended before `response.completed`.".to_owned(),
                    )
                    .await;
            };
            if let Some(more) = response.get("usage").filter(|u| !u.is_null()) {
                add_usage(&mut self.usage, more);
            }
            if self.first.is_none() {
                self.first = Some((response["id"].clone(), response["created_at"].clone()));
            }
            let first = self.first.clone().unwrap_or_default();
            let output: Vec<Value> = response
                .get("output")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            self.visible.extend(
                output
                    .iter()
                    .filter(|item| !rounds.is_injected_item(item))
                    .cloned(),
            );
            let calls = match responses_tool_calls(&response) {
                Ok(calls) => calls,
                Err(err) => {
                    return self
                        .fail(
                            writer,
                            format!("The upstream's function calls are unreadable: {err}"),
                        )
                        .await;
                }
            };
            let id = response["id"].as_str().unwrap_or_default().to_owned();
            let first_id = first.0.as_str().unwrap_or_default().to_owned();
            let injected = calls
                .iter()
                .filter(|call| rounds.handles(&call.name))
                .count();
            let last = rounds.budget.bound_at(round);
            let end = if injected == 0 || last.is_some() {
                if let Err(err) = rounds.remember(&first_id, &id).await {
                    return self.refuse(writer, err.on_write()).await;
                }
                true
            } else {
                writer
                    .comment(&format!("tooldef: running {injected} tool call(s)"))
                    .await?;
                let plan = rounds.plan(calls);
                let starting = rounds.starting(&plan);
                let base = self.visible.len();
                for (k, item) in starting.iter().enumerate() {
                    for event in mcp_items::call_started(item, base + k) {
                        self.send(writer, event).await?;
                    }
                }
                let turn = match rounds.execute(&id, &first_id, &output, plan).await {
                    Ok(turn) => turn,
                    Err(err) => return self.refuse(writer, err.on_write()).await,
                };
                let mut shown = turn.shown.into_iter();
                for (k, item) in shown.by_ref().take(starting.len()).enumerate() {
                    for event in mcp_items::call_finished(&item, base + k) {
                        self.send(writer, event).await?;
                    }
                    self.visible.push(item);
                }
                self.show(writer, shown.collect()).await?;
                turn.ends
            };
            if end {
                let visible = std::mem::take(&mut self.visible);
                let usage = std::mem::take(&mut self.usage);
                let answer = rounds.answer(response, &first, visible, usage, last);
                tracing::info!(rounds = round, "streamed response");
                let kind = if last.is_some() {
                    "response.incomplete"
                } else {
                    "response.completed"
                };
                return self
                    .send(writer, json!({"type": kind, "response": answer}))
                    .await;
            }
            round += 1;
            answer = match rounds
                .inner
                .upstream
                .post_json(PATH, &rounds.headers, &rounds.body(round))
                .await
            {
                Ok(answer) if answer.status().is_success() => answer,
                Ok(answer) => {
                    let status = answer.status();
                    let body = answer.text().await.unwrap_or_default();
                    let message = serde_json::from_str::<Value>(&body)
                        .ok()
                        .and_then(|v| {
                            v.pointer("/error/message")
                                .and_then(Value::as_str)
                                .map(str::to_owned)
                        })
                        .unwrap_or(body);
                    return self
                        .fail(
                            writer,
                            format!("The upstream answered round {round} with {status}: {message}"),
                        )
                        .await;
                }
                Err(err) => return self.fail(writer, err.message).await,
            };
        }
    }
}

/// A response (or an event carrying one in `response`) read without its `tools`: the upstream
/// echoes the request's, injected ones included (115 KB for 100 tools), and the client is
/// shown its own instead, so reading them into values would be work thrown away.
struct WithoutTools(Value);

impl<'de> serde::Deserialize<'de> for WithoutTools {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = WithoutTools;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<WithoutTools, A::Error> {
                let mut object = Map::new();
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "tools" => {
                            map.next_value::<serde::de::IgnoredAny>()?;
                        }
                        "response" => {
                            let response = map.next_value::<WithoutTools>()?;
                            object.insert(key, response.0);
                        }
                        _ => {
                            let value = map.next_value::<Value>()?;
                            object.insert(key, value);
                        }
                    }
                }
                Ok(WithoutTools(Value::Object(object)))
            }
        }
        deserializer.deserialize_map(Visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn responses_are_read_without_their_tools() {
        let event = r#"{"type": "response.created", "sequence_number": 0, "response": {"id": "r", "tools": [{"type": "function", "name": "x"}], "output": []}}"#;
        let read = serde_json::from_str::<WithoutTools>(event).unwrap().0;
        assert_eq!(
            read,
            json!({"type": "response.created", "sequence_number": 0, "response": {"id": "r", "output": []}})
        );
        assert!(serde_json::from_str::<WithoutTools>("[1]").is_err());
    }
}
