//! Tools that ask the client's model (`tooldef::Sample`, MCP sampling), served by
//! `tooldef::mcp::McpServer` in process and answered by rmcp's client handler
//! (`ClientHandler::create_message`), once negotiating 2025-11-25 (`initialize`, a session: the
//! server sends `sampling/createMessage`) and once 2026-07-28 (`server/discover`: the call is
//! answered `input_required` and rmcp's client retries it with the model's reply).
//!
//! - a plain prompt, and the whole of a request (system prompt, preferences, temperature, stop
//!   sequences, context, image and audio) as the client receives it;
//! - a client without `sampling`: the tool hears so, and nothing is sent;
//! - tools for the model: refused without `sampling.tools`, and with it a loop of tool uses
//!   and results to the model's last word;
//! - the 2026-07-28 round as the client sees it, with a question and a sampling request in one
//!   call under their keys;
//! - inside a task: the request waits in `tasks/get`, the client answers it with
//!   `tasks/update`;
//! - a reply MCP does not allow (said by the user) is refused.

// Sampling is deprecated by MCP's SEP-2577 and rmcp's types with it; MCP 2025-11-25 and
// 2026-07-28 still have it.
#![allow(deprecated)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ClientConfig,
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ElicitationAction, ElicitationCapability, FormElicitationCapability, GetTaskParams,
    Implementation, InputRequest, ProtocolVersion, Role, SamplingCapability, SamplingMessage,
    SamplingMessageContentBlock, TaskPayload, UpdateTaskParams,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RequestContext, RunningService};
use rmcp::{ErrorData, RoleClient, ServiceExt};
use serde_json::{Value, json};
use tooldef::mcp::McpServer;
use tooldef::{
    Elicit, Elicitable, IncludeContext, ModelPreferences, Sample, SampleContent, SampleMessage,
    SampleRequest, SampleTool, SampleToolChoice, ToolSet, tool,
};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Version {
    V2025_11_25,
    V2026_07_28,
}

const VERSIONS: [Version; 2] = [Version::V2025_11_25, Version::V2026_07_28];

/// What the client declares of sampling.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Declares {
    Nothing,
    Sampling,
    SamplingWithToolsAndContext,
}

/// The client's model, as rmcp's client handler plays it: it keeps every request it gets and
/// replies to the last message. Offered tools and not yet given their results, it calls the
/// first with `{"word": "mcp"}`.
#[derive(Clone)]
struct Model {
    declares: Declares,
    /// Reply as the user (which MCP does not allow), to see the server refuse it.
    wrong_role: bool,
    requests: Arc<Mutex<Vec<Value>>>,
}

impl Model {
    fn declaring(declares: Declares) -> Model {
        Model {
            declares,
            wrong_role: false,
            requests: Arc::default(),
        }
    }

    fn requests(&self) -> Vec<Value> {
        self.requests.lock().unwrap().clone()
    }
}

impl rmcp::ClientHandler for Model {
    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let mut seen = serde_json::to_value(&params).unwrap();
        // rmcp's own bookkeeping of the request, not what the server asked.
        seen.as_object_mut().unwrap().remove("_meta");
        self.requests.lock().unwrap().push(seen);
        let last = params.messages.last().expect("a message");
        let answered_tools = last
            .content
            .iter()
            .any(|block| matches!(block, SamplingMessageContentBlock::ToolResult(_)));
        let tools = params.tools.unwrap_or_default();
        if let (Some(tool), false) = (tools.first(), answered_tools) {
            let input = json!({"word": "mcp"}).as_object().unwrap().clone();
            let message = SamplingMessage::assistant_tool_use("call-1", tool.name.clone(), input);
            return Ok(CreateMessageResult::new(message, "test-model".into())
                .with_stop_reason(CreateMessageResult::STOP_REASON_TOOL_USE));
        }
        let said: Vec<String> = last
            .content
            .iter()
            .map(|block| match block {
                SamplingMessageContentBlock::Text(text) => text.text.clone(),
                SamplingMessageContentBlock::ToolResult(result) => result
                    .content
                    .iter()
                    .filter_map(|c| c.as_text().map(|t| t.text.clone()))
                    .collect(),
                other => format!("[{}]", serde_json::to_value(other).unwrap()["type"]),
            })
            .collect();
        let role = if self.wrong_role {
            Role::User
        } else {
            Role::Assistant
        };
        let message = SamplingMessage::new(
            role,
            SamplingMessageContentBlock::text(format!("you said {}", said.join(" + "))),
        );
        Ok(CreateMessageResult::new(message, "test-model".into())
            .with_stop_reason(CreateMessageResult::STOP_REASON_END_TURN))
    }

    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(json!({"go": true})))
    }

    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::builder().enable_tasks().build();
        capabilities.elicitation =
            Some(ElicitationCapability::new().with_form(FormElicitationCapability::default()));
        let mut sampling = SamplingCapability::default();
        match self.declares {
            Declares::Nothing => {}
            Declares::Sampling => capabilities.sampling = Some(sampling),
            Declares::SamplingWithToolsAndContext => {
                sampling.tools = Some(Default::default());
                sampling.context = Some(Default::default());
                capabilities.sampling = Some(sampling);
            }
        }
        ClientConfig::new(capabilities, Implementation::new("sampling-test", "1.0.0"))
    }
}

/// Ask the client's model.
#[tool]
async fn ask_model(
    /// What to ask.
    prompt: String,
    sample: Sample,
) -> String {
    match sample.text(prompt, 100).await {
        Ok(text) => format!("LLM response: {text}"),
        Err(error) => format!("no: {error}"),
    }
}

/// Describe a recording and a picture, with every parameter sampling has.
#[tool]
async fn describe(sample: Sample) -> String {
    let request = SampleRequest::new(50)
        .system_prompt("Be brief.")
        .user(SampleContent::image_bytes(b"png", "image/png"))
        .user(SampleContent::audio_bytes(b"wav", "audio/wav"))
        .message(SampleMessage::new(
            tooldef::Role::User,
            ["What are these?".into(), "Two words.".into()],
        ))
        .model_preferences(
            ModelPreferences::new()
                .hint("claude")
                .hint("gpt")
                .cost(0.25)
                .speed(0.5)
                .intelligence(0.75),
        )
        .temperature(0.5)
        .stop_sequence("END")
        .include_context(IncludeContext::ThisServer);
    match sample.create(request).await {
        Ok(reply) => format!(
            "{} by {} ({:?})",
            reply.text().unwrap_or_default(),
            reply.model,
            reply.stop_reason
        ),
        Err(error) => format!("no: {error}"),
    }
}

/// Look a word up.
#[tool]
fn lookup(
    /// The word.
    word: String,
) -> String {
    format!("{word} is a protocol")
}

/// Ask the client's model with a tool it may use, running its calls until it answers.
#[tool]
async fn ask_with_tools(
    /// What to ask.
    prompt: String,
    sample: Sample,
) -> Result<String, String> {
    let tools = ToolSet::builder()
        .tool(Lookup)
        .build()
        .map_err(|e| e.to_string())?;
    let mut request = SampleRequest::new(100)
        .user(prompt)
        .tools(SampleTool::all_of(&tools).map_err(|e| e.to_string())?)
        .tool_choice(SampleToolChoice::Auto);
    for _ in 0..4 {
        let reply = sample.create(request.clone()).await?;
        let uses: Vec<_> = reply.tool_uses().cloned().collect();
        if uses.is_empty() {
            return Ok(reply.text().unwrap_or_default());
        }
        let mut results = Vec::new();
        for call in uses {
            results.push(call.run(&tools).await);
        }
        request = request
            .message(reply.into_message())
            .message(SampleMessage::tool_results(results));
    }
    Err("the model kept calling tools".into())
}

/// The question of [`confirm_then_ask`].
#[derive(serde::Deserialize, schemars::JsonSchema, Elicitable)]
struct Go {
    /// Go on?
    go: bool,
}

/// Ask the user, then the model.
#[tool]
async fn confirm_then_ask(elicit: Elicit, sample: Sample) -> Result<String, String> {
    let go: Go = elicit.ask("Go on?").await?;
    let text = sample.text(format!("go is {}", go.go), 10).await?;
    Ok(text)
}

/// Ask the client's model, as a task.
#[tool(task)]
async fn ask_in_a_task(
    /// What to ask.
    prompt: String,
    sample: Sample,
) -> String {
    match sample.text(prompt, 100).await {
        Ok(text) => format!("LLM response: {text}"),
        Err(error) => format!("no: {error}"),
    }
}

fn tools() -> ToolSet {
    ToolSet::builder()
        .tool(AskModel)
        .tool(Describe)
        .tool(AskWithTools)
        .tool(ConfirmThenAsk)
        .tool(AskInATask)
        .build()
        .unwrap()
}

/// The server, in process, and `model`'s client connected to it in `version`'s way.
async fn connect(version: Version, model: Model) -> RunningService<RoleClient, Model> {
    let (server_side, client_side) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = McpServer::new(tools()).serve(server_side).await {
            let _ = running.waiting().await;
        }
    });
    let lifecycle = match version {
        Version::V2025_11_25 => ClientLifecycleMode::Initialize,
        Version::V2026_07_28 => ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    };
    let client = model
        .serve_with_lifecycle(client_side, lifecycle)
        .await
        .expect("the client starts");
    let expected = match version {
        Version::V2025_11_25 => ProtocolVersion::V_2025_11_25,
        Version::V2026_07_28 => ProtocolVersion::V_2026_07_28,
    };
    assert_eq!(client.peer_info().unwrap().protocol_version, expected);
    client
}

fn call(name: &'static str, arguments: Value) -> CallToolRequestParams {
    let Value::Object(arguments) = arguments else {
        unreachable!("arguments are objects")
    };
    CallToolRequestParams::new(name).with_arguments(arguments)
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|t| t.text.clone()))
        .collect()
}

async fn said(
    client: &RunningService<RoleClient, Model>,
    request: CallToolRequestParams,
) -> String {
    let result = client.call_tool(request).await.expect("tools/call");
    assert_eq!(result.is_error, Some(false), "{result:?}");
    text(&result)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_reaches_the_clients_model_and_its_reply_the_tool() {
    for version in VERSIONS {
        let model = Model::declaring(Declares::Sampling);
        let client = connect(version, model.clone()).await;
        let answer = said(&client, call("ask_model", json!({"prompt": "Hi there"}))).await;
        assert_eq!(answer, "LLM response: you said Hi there", "{version:?}");
        assert_eq!(
            model.requests(),
            [json!({
                "messages": [{"role": "user", "content": {"type": "text", "text": "Hi there"}}],
                "maxTokens": 100
            })],
            "{version:?}"
        );
        client.cancel().await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_whole_request_reaches_the_client() {
    for version in VERSIONS {
        let model = Model::declaring(Declares::SamplingWithToolsAndContext);
        let client = connect(version, model.clone()).await;
        let answer = said(&client, call("describe", json!({}))).await;
        assert_eq!(
            answer, "you said What are these? + Two words. by test-model (Some(EndTurn))",
            "{version:?}"
        );
        assert_eq!(
            model.requests(),
            [json!({
                "messages": [
                    {"role": "user", "content": {"type": "image", "data": "cG5n", "mimeType": "image/png"}},
                    {"role": "user", "content": {"type": "audio", "data": "d2F2", "mimeType": "audio/wav"}},
                    {"role": "user", "content": [
                        {"type": "text", "text": "What are these?"},
                        {"type": "text", "text": "Two words."}
                    ]}
                ],
                "systemPrompt": "Be brief.",
                "modelPreferences": {
                    "hints": [{"name": "claude"}, {"name": "gpt"}],
                    "costPriority": 0.25,
                    "speedPriority": 0.5,
                    "intelligencePriority": 0.75
                },
                "includeContext": "thisServer",
                "temperature": 0.5,
                "maxTokens": 50,
                "stopSequences": ["END"]
            })],
            "{version:?}"
        );
        client.cancel().await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_without_sampling_or_a_feature_gets_no_request() {
    for version in VERSIONS {
        let model = Model::declaring(Declares::Nothing);
        let client = connect(version, model.clone()).await;
        let answer = said(&client, call("ask_model", json!({"prompt": "Hi"}))).await;
        assert_eq!(
            answer,
            "no: the client's model cannot be asked here: the client does not support sampling",
            "{version:?}"
        );
        client.cancel().await.unwrap();

        // Sampling, but neither tools nor context.
        let plain = Model::declaring(Declares::Sampling);
        let client = connect(version, plain.clone()).await;
        let answer = said(&client, call("describe", json!({}))).await;
        assert!(
            answer.contains("`sampling.context`"),
            "{version:?}: {answer}"
        );
        let result = client
            .call_tool(call("ask_with_tools", json!({"prompt": "What is mcp?"})))
            .await
            .unwrap();
        assert_eq!(result.is_error, Some(true));
        assert!(
            text(&result).contains("`sampling.tools`"),
            "{}",
            text(&result)
        );
        assert!(model.requests().is_empty() && plain.requests().is_empty());
        client.cancel().await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_uses_the_tools_it_is_offered() {
    for version in VERSIONS {
        let model = Model::declaring(Declares::SamplingWithToolsAndContext);
        let client = connect(version, model.clone()).await;
        let answer = said(
            &client,
            call("ask_with_tools", json!({"prompt": "What is mcp?"})),
        )
        .await;
        assert_eq!(answer, "you said mcp is a protocol", "{version:?}");
        let requests = model.requests();
        assert_eq!(requests.len(), 2, "{version:?}: {requests:?}");
        assert_eq!(requests[0]["tools"][0]["name"], "lookup");
        assert_eq!(
            requests[0]["tools"][0]["inputSchema"]["properties"]["word"]["type"],
            "string"
        );
        assert_eq!(requests[0]["toolChoice"], json!({"mode": "auto"}));
        assert_eq!(
            requests[0]["tools"][0]["outputSchema"]["properties"]["result"]["type"],
            "string"
        );
        let messages = &requests[1]["messages"];
        assert_eq!(
            messages[1],
            json!({"role": "assistant", "content": {
                "type": "tool_use", "id": "call-1", "name": "lookup", "input": {"word": "mcp"}
            }})
        );
        assert_eq!(
            messages[2],
            json!({"role": "user", "content": {
                "type": "tool_result",
                "toolUseId": "call-1",
                "content": [{"type": "text", "text": "mcp is a protocol"}],
                // A string, as every MCP version takes structured content: in an object.
                "structuredContent": {"result": "mcp is a protocol"}
            }})
        );
        client.cancel().await.unwrap();
    }
}

/// On 2026-07-28 the request is a result: `input_required` with `sampling/createMessage`
/// under its key; a question and a sampling request in one call come one round each, keyed in
/// the order the tool makes them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_2026_07_28_rounds_as_the_client_sees_them() {
    let model = Model::declaring(Declares::Sampling);
    let client = connect(Version::V2026_07_28, model.clone()).await;
    let request = call("confirm_then_ask", json!({}));
    let CallToolResponse::InputRequired(first) =
        client.call_tool_once(request.clone()).await.unwrap()
    else {
        panic!("the question first");
    };
    let requests = first.input_requests.unwrap();
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["elicit-1"]);
    let answer = serde_json::to_value(
        ElicitResult::new(ElicitationAction::Accept).with_content(json!({"go": true})),
    )
    .unwrap();
    let retry = request
        .clone()
        .with_request_state(first.request_state.unwrap())
        .with_input_responses([("elicit-1".to_owned(), answer)].into_iter().collect());
    let CallToolResponse::InputRequired(second) = client.call_tool_once(retry).await.unwrap()
    else {
        panic!("then the model");
    };
    let requests = second.input_requests.unwrap();
    let (key, sampling) = requests.iter().next().unwrap();
    assert_eq!(key, "sample-2");
    let InputRequest::CreateMessage(sampling) = sampling else {
        panic!("sampling/createMessage: {sampling:?}");
    };
    assert_eq!(
        serde_json::to_value(&sampling.params.messages).unwrap(),
        json!([{"role": "user", "content": {"type": "text", "text": "go is true"}}])
    );
    let reply = serde_json::to_value(CreateMessageResult::new(
        SamplingMessage::assistant_text("fine"),
        "m".into(),
    ))
    .unwrap();
    let retry = request
        .with_request_state(second.request_state.unwrap())
        .with_input_responses([("sample-2".to_owned(), reply)].into_iter().collect());
    let CallToolResponse::Complete(done) = client.call_tool_once(retry).await.unwrap() else {
        panic!("done");
    };
    assert_eq!(text(&done), "fine");
    // And driven by rmcp's client itself, through its handlers.
    let answer = said(&client, call("confirm_then_ask", json!({}))).await;
    assert_eq!(answer, "you said go is true");
    client.cancel().await.unwrap();
}

/// Inside a task, the sampling request waits in `tasks/get` (`input_required`) for the client's
/// `tasks/update`, on either protocol generation.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_samples_through_tasks_get_and_tasks_update() {
    for version in VERSIONS {
        let model = Model::declaring(Declares::Sampling);
        let client = connect(version, model.clone()).await;
        let CallToolResponse::Task(created) = client
            .call_tool_once(call("ask_in_a_task", json!({"prompt": "Hello task"})))
            .await
            .unwrap()
        else {
            panic!("a task");
        };
        let id = created.task.task_id.clone();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        let key = loop {
            let got = client
                .get_task(GetTaskParams::new(id.clone()))
                .await
                .unwrap();
            if let TaskPayload::InputRequired { input_requests } = &got.task.payload {
                let (key, request) = input_requests.iter().next().expect("a request");
                let InputRequest::CreateMessage(request) = request else {
                    panic!("sampling: {request:?}");
                };
                assert_eq!(request.params.max_tokens, 100);
                break key.clone();
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "no request: {got:?}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        assert_eq!(key, "sample-1");
        let reply = serde_json::to_value(CreateMessageResult::new(
            SamplingMessage::assistant_text("from the task"),
            "m".into(),
        ))
        .unwrap();
        client
            .update_task(UpdateTaskParams::new(
                id.clone(),
                [(key, reply)].into_iter().collect(),
            ))
            .await
            .expect("tasks/update");
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        let result = loop {
            let got = client
                .get_task(GetTaskParams::new(id.clone()))
                .await
                .unwrap();
            if let TaskPayload::Completed { result } = got.task.payload {
                break serde_json::from_value::<CallToolResult>(Value::Object(result)).unwrap();
            }
            assert!(tokio::time::Instant::now() < deadline, "not done: {got:?}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        assert_eq!(text(&result), "LLM response: from the task", "{version:?}");
        assert!(model.requests().is_empty(), "the handler was not asked");
        client.cancel().await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_said_by_the_user_is_refused() {
    for version in VERSIONS {
        let mut model = Model::declaring(Declares::Sampling);
        model.wrong_role = true;
        let client = connect(version, model.clone()).await;
        let answer = said(&client, call("ask_model", json!({"prompt": "Hi"}))).await;
        assert_eq!(
            answer,
            "no: the client's reply is not valid: the reply is said by `user`, not the assistant",
            "{version:?}"
        );
        client.cancel().await.unwrap();
    }
}
