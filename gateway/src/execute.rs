//! Running a round's calls to injected tools: all at once (a model that asks for several calls
//! in one turn means them as parallel calls), each within its source's time limit and the
//! request's bound on calls, each in its telemetry span; every call gets an outcome.

use std::time::{Duration, Instant};

use serde_json::Value;
use tooldef::CallContext;
use tooldef::calls::ToolCall;

use crate::catalog::{Route, Source};
use crate::conversation::Budget;
use crate::injection::Injection;
use crate::servers::CallOutcome;
use crate::telemetry;

/// How much of arguments that are not a JSON object is quoted back to the model.
const QUOTED: usize = 200;

/// Runs as many of `calls` as `budget` still allows (the first ones); each of the others gets an
/// outcome saying it was not run, so that every call has its result.
pub async fn execute_within(
    budget: &mut Budget,
    sources: &[Source],
    injection: &Injection,
    calls: &[ToolCall],
    tool_timeout: Duration,
) -> Vec<CallOutcome> {
    let allowed = budget.take(calls.len());
    let mut outcomes = execute(sources, injection, &calls[..allowed], tool_timeout).await;
    outcomes.extend((allowed..calls.len()).map(|_| CallOutcome::error(budget.not_run())));
    outcomes
}

/// Whether a call's arguments are a JSON object, as every tool takes them. A reply cut short,
/// or a model that wrote something else, leaves other text; such a call is never run, and its
/// arguments are never sent back to the upstream as they were (an upstream that parses its own
/// history, as llama.cpp's server does, refuses the whole next request).
pub fn arguments_are_an_object(arguments: &str) -> bool {
    matches!(
        serde_json::from_str::<Value>(arguments),
        Ok(Value::Object(_))
    )
}

/// The outcome of a call whose arguments are not a JSON object: what the model wrote, and how to
/// call again.
fn not_an_object(call: &ToolCall) -> CallOutcome {
    let mut quoted: String = call.arguments.chars().take(QUOTED).collect();
    if quoted.len() < call.arguments.len() {
        quoted.push('…');
    }
    CallOutcome::error(format!(
        "Not run: the arguments of this call to `{}` are not a JSON object (you wrote `{quoted}`). Call it again with its arguments as one JSON object.",
        call.name
    ))
}

/// Runs calls to injected tools, all at once, each within its source's time limit. The outcomes
/// are in the calls' order.
async fn execute(
    sources: &[Source],
    injection: &Injection,
    calls: &[ToolCall],
    tool_timeout: Duration,
) -> Vec<CallOutcome> {
    let runs = calls.iter().map(|call| async move {
        let started = Instant::now();
        if !arguments_are_an_object(&call.arguments) {
            return not_an_object(call);
        }
        if let Some(discovery) = injection
            .discovery
            .as_ref()
            .filter(|discovery| discovery.is_search(&call.name))
        {
            return discovery.answer(&call.arguments);
        }
        let tool = |route: &Route| route.converted.original_name.clone();
        if let Some((adhoc, route)) = injection.adhoc_route(&call.name) {
            // Its metrics' `server` is the origin, one of the configuration's: the label is the
            // client's to choose, and would give the metrics as many series as clients like.
            let run = adhoc.call(&route.converted, &call.arguments);
            let outcome = telemetry::tool_call(&adhoc.origin, &tool(route), call, run).await;
            log_call(&adhoc.label, route, call, started, &outcome);
            return outcome;
        }
        let Some(route) = injection.injected().routes.get(&call.name) else {
            return CallOutcome::error(format!("There is no tool named `{}`.", call.name));
        };
        let source = &sources[route.source];
        let run = async {
            match source {
                Source::Mcp(server) => server.call(&route.converted, &call.arguments).await,
                Source::Tools { set, .. } => {
                    let context = CallContext::new().with_call_id(call.id.clone());
                    let run = set.call_with(
                        &route.converted.original_name,
                        call.arguments.as_str(),
                        context,
                    );
                    match tokio::time::timeout(tool_timeout, run).await {
                        Ok(Ok(output)) => CallOutcome {
                            output,
                            is_error: false,
                        },
                        Ok(Err(err)) => CallOutcome::error(err.to_string()),
                        Err(_) => {
                            telemetry::timed_out();
                            CallOutcome::abandoned(&call.name, tool_timeout)
                        }
                    }
                }
            }
        };
        let outcome = telemetry::tool_call(source.name(), &tool(route), call, run).await;
        log_call(source.name(), route, call, started, &outcome);
        outcome
    });
    futures_util::future::join_all(runs).await
}

/// One line per call: where it went and how it ended, never its arguments.
fn log_call(source: &str, route: &Route, call: &ToolCall, started: Instant, outcome: &CallOutcome) {
    tracing::info!(
        source,
        tool = %route.converted.original_name,
        call_id = %call.id,
        millis = started.elapsed().as_millis() as u64,
        outcome = if outcome.is_error { "error" } else { "ok" },
        "tool call"
    );
}
