//! The requests tooldef builds for Anthropic's Messages API, Gemini's `generateContent` (with
//! `parameters`, and with `parametersJsonSchema`) and OpenAI's Responses API, as JSON on stdout: the showcase's tools, a model turn with parallel calls read back with
//! `tooldef::calls`, and the turn that answers them (from the showcase's `ToolSet` through the
//! `Router`, plus outputs with every kind of content), with the newest tool fields (deferred
//! tools and a tool search, Anthropic's cache breakpoint and examples, Responses namespaces and
//! output schemas, Gemini's result schemas). `tests/python/provider_sdks.py` checks
//! them against the official `anthropic`, `google-genai` and `openai` SDKs' request types.
//!
//! ```text
//! cargo run -p tooldef-examples --example provider_requests
//! ```

use serde_json::{Map, Value, json};
use tooldef::calls::{
    Router, ToolCall, anthropic_tool_calls, anthropic_tool_result, anthropic_tool_results_message,
    gemini_function_calls, gemini_function_response, gemini_function_responses_content,
    responses_function_output, responses_tool_calls,
};
use tooldef::targets::{CacheControl, CacheTtl};
use tooldef::{Content, Target, ToolOutput};
use tooldef_examples::showcase;

/// The calls a model makes in one turn: showcase tools (answered by the `ToolSet`), a bad call
/// (answered with an error), and calls whose outputs carry each kind of content (answered here).
fn calls() -> Vec<(&'static str, Value)> {
    vec![
        ("get_weather", json!({"city": "Paris", "days": 2})),
        (
            "convert_currency",
            json!({"amount": 12.5, "from": "EUR", "to": "USD"}),
        ),
        ("get_server_time", json!({})),
        ("get_weather", json!({"city": 7})),
        ("render_chart", json!({"series": [1, 2, 3]})),
        ("find_documents", json!({"query": "invoices"})),
    ]
}

/// The outputs of the calls the `ToolSet` does not have: an image with text, and resource links,
/// an embedded PDF and an embedded text resource with structured content.
fn other_output(name: &str) -> ToolOutput {
    const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==";
    let object = |value: Value| match value {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    match name {
        "render_chart" => ToolOutput::blocks([
            Content::Text("A chart of 3 points.".to_owned()),
            Content::Image {
                data: PNG.to_owned(),
                mime_type: "image/png".to_owned(),
            },
        ]),
        _ => {
            let mut output = ToolOutput::blocks([
                Content::ResourceLink(object(json!({"type": "resource_link",
                    "uri": "file:///invoices/2026-11.pdf", "name": "2026-11.pdf",
                    "mimeType": "application/pdf"}))),
                Content::Resource(object(json!({"type": "resource", "resource": {
                    "uri": "file:///invoices/2026-10.pdf", "mimeType": "application/pdf",
                    "blob": "JVBERi0xLjQKJcTl8uXrCg=="}}))),
                Content::Resource(object(json!({"type": "resource", "resource": {
                    "uri": "file:///invoices/README.txt", "mimeType": "text/plain",
                    "text": "Invoices by month."}}))),
            ]);
            output.structured = Some(json!({"found": 2}));
            output
        }
    }
}

/// Answers every call: the showcase's through the `Router`, the others with [`other_output`],
/// each with `build`, in the order of the calls.
async fn answer(
    calls: &[ToolCall],
    routed: Vec<Value>,
    build: impl Fn(&ToolCall, &ToolOutput, bool) -> Value,
) -> Vec<Value> {
    let mut routed = routed.into_iter();
    calls
        .iter()
        .map(|call| match call.name.as_str() {
            "render_chart" | "find_documents" => build(call, &other_output(&call.name), false),
            _ => routed.next().unwrap_or(Value::Null),
        })
        .collect()
}

/// The showcase's tools as `target` takes them: loaded only when the model searches for them
/// (Anthropic keeps the first loaded, as it requires), the Anthropic listing cached up to its
/// last tool.
fn tools(target: Target) -> Vec<Value> {
    showcase::toolset_builder()
        .defer_loading(true)
        .anthropic_cache(CacheControl {
            ttl: Some(CacheTtl::OneHour),
        })
        .build()
        .unwrap_or_else(|err| unreachable!("`toolset!` checked the showcase's names: {err}"))
        .list(target)
        .unwrap_or_else(|err| unreachable!("the showcase renders for every target: {err}"))
        .to_vec()
}

/// The namespace the Responses request groups the showcase's tools under.
const NAMESPACE: &str = "travel";

async fn anthropic(router: &Router) -> Value {
    let reply = json!({"id": "msg_01", "type": "message", "role": "assistant",
        "model": "claude-sonnet-4-5", "stop_reason": "tool_use",
        "content": std::iter::once(json!({"type": "text", "text": "I'll look these up."}))
            .chain(calls().into_iter().enumerate().map(|(i, (name, input))|
                json!({"type": "tool_use", "id": format!("toolu_0{i}"), "name": name, "input": input})))
            .collect::<Vec<Value>>()});
    let calls = anthropic_tool_calls(&reply).unwrap_or_default();
    let ours: Vec<ToolCall> = calls
        .iter()
        .filter(|c| !matches!(c.name.as_str(), "render_chart" | "find_documents"))
        .cloned()
        .collect();
    let (routed, _) = router.answer_anthropic(&ours).await;
    let results = answer(&calls, routed, anthropic_tool_result).await;
    // Deferred tools are found through a tool-search tool, here the caller's own: its result
    // names the tools to load with `tool_reference` blocks (Anthropic's client-side search).
    let search = json!({"name": "find_tools", "description": "Find the tools for a task.",
        "input_schema": {"type": "object", "properties": {"query": {"type": "string"}},
            "required": ["query"]}});
    let listed = tools(Target::Anthropic);
    let deferred = |name: &str| {
        listed
            .iter()
            .any(|tool| tool["name"] == name && tool["defer_loading"] == true)
    };
    let mut found: Vec<Value> = Vec::new();
    for call in ours.iter().filter(|call| deferred(&call.name)) {
        let reference = json!({"type": "tool_reference", "tool_name": call.name});
        if !found.contains(&reference) {
            found.push(reference);
        }
    }
    json!({
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "tools": std::iter::once(search).chain(listed).collect::<Vec<Value>>(),
        "messages": [
            {"role": "user", "content": "Plan my trip to Paris."},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_search",
                "name": "find_tools", "input": {"query": "weather, currency, time"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_search",
                "content": found}]},
            {"role": "assistant", "content": reply["content"]},
            anthropic_tool_results_message(results),
        ],
    })
}

/// A Gemini request whose declarations are rendered for `target`: [`Target::Gemini`]
/// (`parameters`) or [`Target::GeminiJsonSchema`] (`parametersJsonSchema`).
async fn gemini(router: &Router, target: Target) -> Value {
    let model_turn = json!({"role": "model", "parts": calls().into_iter().map(|(name, args)|
        json!({"functionCall": {"name": name, "args": args}})).collect::<Vec<Value>>()});
    let calls = gemini_function_calls(&model_turn).unwrap_or_default();
    let ours: Vec<ToolCall> = calls
        .iter()
        .filter(|c| !matches!(c.name.as_str(), "render_chart" | "find_documents"))
        .cloned()
        .collect();
    let (routed, _) = router.answer_gemini(&ours).await;
    let parts = answer(&calls, routed, gemini_function_response).await;
    json!({
        "contents": [
            {"role": "user", "parts": [{"text": "Plan my trip to Paris."}]},
            model_turn,
            gemini_function_responses_content(parts),
        ],
        "tools": [{"functionDeclarations": tools(target)}],
    })
}

/// A Responses turn with the showcase's tools deferred in a namespace: the model searches for
/// them (a client-executed `tool_search_call`, answered with a `tool_search_output` that loads
/// them), then calls them, each call naming its namespace, as it must be sent back.
async fn responses(router: &Router) -> Value {
    let functions = tools(Target::Responses);
    let namespace = |tools: Vec<Value>| {
        json!({"type": "namespace", "name": NAMESPACE,
            "description": "Trip planning: weather, currencies, flights, hotels, reminders.",
            "tools": tools})
    };
    let search = json!({"type": "tool_search_call", "id": "ts_01", "call_id": "call_ts",
        "execution": "client", "arguments": {"query": "weather and flights"}, "status": "completed"});
    let found = json!({"type": "tool_search_output", "call_id": "call_ts", "execution": "client",
        "status": "completed", "tools": [namespace(functions.clone())]});
    let output: Vec<Value> = calls()
        .into_iter()
        .enumerate()
        .map(|(i, (name, arguments))| {
            let mut call = json!({"type": "function_call", "id": format!("fc_0{i}"),
                "call_id": format!("call_0{i}"), "name": name, "arguments": arguments.to_string(),
                "status": "completed"});
            // The calls the showcase answers are of its tools, in the namespace; the others
            // stand for the caller's own tools, outside it.
            if showcase::toolset().definition(name).is_some() {
                call["namespace"] = json!(NAMESPACE);
            }
            call
        })
        .collect();
    let calls = responses_tool_calls(&json!({"output": output})).unwrap_or_default();
    let ours: Vec<ToolCall> = calls
        .iter()
        .filter(|c| !matches!(c.name.as_str(), "render_chart" | "find_documents"))
        .cloned()
        .collect();
    let (routed, _) = router.answer_responses(&ours).await;
    let answers = answer(&calls, routed, responses_function_output).await;
    let mut input = vec![
        json!({"role": "user", "content": "Plan my trip to Paris."}),
        search,
        found,
    ];
    input.extend(output);
    input.extend(answers);
    let client_search = json!({"type": "tool_search", "execution": "client",
        "description": "Find the tools for a task.",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}},
            "required": ["query"], "additionalProperties": false}});
    json!({"model": "gpt-4.1", "input": input, "tools": [client_search, namespace(functions)]})
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap_or_else(|err| panic!("a runtime: {err}"));
    let router = Router::new().toolset(showcase::toolset());
    let requests = runtime.block_on(async {
        json!({
            "anthropic": anthropic(&router).await,
            "gemini": gemini(&router, Target::Gemini).await,
            "gemini-json": gemini(&router, Target::GeminiJsonSchema).await,
            "responses": responses(&router).await,
        })
    });
    println!("{requests:#}");
}
