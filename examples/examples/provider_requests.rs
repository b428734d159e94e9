//! The requests tooldef builds for Anthropic's Messages API, Gemini's `generateContent` (with
//! `parameters`, and with `parametersJsonSchema`) and OpenAI's Responses API, as JSON on stdout: the showcase's tools, a model turn with parallel calls read back with
//! `tooldef::calls`, and the turn that answers them (from the showcase's `ToolSet` through the
//! `Router`, plus outputs with every kind of content). `tests/python/provider_sdks.py` checks
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

fn tools(target: Target) -> Vec<Value> {
    showcase::toolset()
        .list(target)
        .unwrap_or_else(|err| unreachable!("the showcase renders for every target: {err}"))
        .to_vec()
}

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
    json!({
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "tools": tools(Target::Anthropic),
        "messages": [
            {"role": "user", "content": "Plan my trip to Paris."},
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

async fn responses(router: &Router) -> Value {
    let output: Vec<Value> = calls()
        .into_iter()
        .enumerate()
        .map(|(i, (name, arguments))| {
            json!({"type": "function_call", "id": format!("fc_0{i}"), "call_id": format!("call_0{i}"),
                "name": name, "arguments": arguments.to_string(), "status": "completed"})
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
    let mut input = vec![json!({"role": "user", "content": "Plan my trip to Paris."})];
    input.extend(output);
    input.extend(answers);
    json!({"model": "gpt-4.1", "input": input, "tools": tools(Target::Responses)})
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
