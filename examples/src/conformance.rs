//! The server side of the official MCP conformance suite (`@modelcontextprotocol/conformance`),
//! written with tooldef's API alone: the tools, prompts and resources its scenarios call by
//! name, each answering as the scenario's description asks. `cargo run -p tooldef-examples --features mcp --example conformance
//! -- --http 127.0.0.1:3001` serves them; `bash tests/conformance/server.sh` runs the suite
//! against it.

use std::time::Duration;

use tooldef::{
    ClientLog, CompletionRequest, Content, Progress, PromptMessage, ResourceContents, ToolOutput,
    ToolSetBuilder, prompt, resource, tool,
};

/// A 1×1 red PNG, base64-encoded.
pub const IMAGE_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg==";

/// A silent WAV, base64-encoded.
pub const AUDIO_WAV: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEARKwAAIhYAQACABAAZGF0YQAAAAA=";

/// The tools, prompts and resources of this module, added to `builder`.
pub fn register(builder: ToolSetBuilder) -> ToolSetBuilder {
    builder
        .prompt(TestSimplePrompt)
        .prompt(TestPromptWithArguments)
        .prompt(TestPromptWithEmbeddedResource)
        .prompt(TestPromptWithImage)
        .resource(StaticText)
        .resource(StaticBinary)
        .resource(TemplateData)
        .resource(WatchedResource)
        .tool(TestSimpleText)
        .tool(TestImageContent)
        .tool(TestAudioContent)
        .tool(TestEmbeddedResource)
        .tool(TestMultipleContentTypes)
        .tool(TestToolWithLogging)
        .tool(TestErrorHandling)
        .tool(TestToolWithProgress)
        .tool(TestReconnection)
        .tool(crate::conformance_schema::json_schema_2020_12_tool())
}

fn image() -> Content {
    Content::Image {
        data: IMAGE_PNG.to_owned(),
        mime_type: "image/png".to_owned(),
    }
}

/// Returns simple text content.
#[tool]
pub fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Returns image content.
#[tool]
pub fn test_image_content() -> ToolOutput {
    ToolOutput::blocks([image()])
}

/// Returns audio content.
#[tool]
pub fn test_audio_content() -> ToolOutput {
    ToolOutput::blocks([Content::Audio {
        data: AUDIO_WAV.to_owned(),
        mime_type: "audio/wav".to_owned(),
    }])
}

/// Returns embedded resource content.
#[tool]
pub fn test_embedded_resource() -> ToolOutput {
    ToolOutput::blocks([Content::from(
        ResourceContents::text(
            "test://embedded-resource",
            "This is an embedded resource content.",
        )
        .with_mime_type("text/plain"),
    )])
}

/// Returns multiple content types.
#[tool]
pub fn test_multiple_content_types() -> ToolOutput {
    ToolOutput::blocks([
        Content::from("Multiple content types test:"),
        image(),
        Content::from(
            ResourceContents::text(
                "test://mixed-content-resource",
                r#"{"test":"data","value":123}"#,
            )
            .with_mime_type("application/json"),
        ),
    ])
}

/// Sends logging notifications during execution.
#[tool]
pub async fn test_tool_with_logging(log: ClientLog) -> &'static str {
    for message in [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
    ] {
        log.info(message).await;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    "Logging test completed"
}

/// Always returns an error.
#[tool]
pub fn test_error_handling() -> Result<String, String> {
    Err("This tool intentionally returns an error for testing".to_owned())
}

/// Reports progress notifications.
#[tool]
pub async fn test_tool_with_progress(progress: Progress) -> &'static str {
    for (done, message) in [(0.0, "Starting"), (50.0, "Halfway"), (100.0, "Complete")] {
        progress.report(done, Some(100.0), Some(message)).await;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    "Progress test completed"
}

/// Tests SSE reconnection behavior: answers after a moment, during which the server may close
/// the stream for the client to resume (SEP-1699).
#[tool]
pub async fn test_reconnection() -> &'static str {
    tokio::time::sleep(Duration::from_millis(100)).await;
    "Reconnection test completed"
}

/// A simple prompt with no arguments.
#[prompt]
pub fn test_simple_prompt() -> &'static str {
    "This is a simple prompt for testing."
}

/// A prompt with arguments.
#[prompt]
pub fn test_prompt_with_arguments(
    /// First test argument.
    #[arg(complete = suggest)]
    arg1: String,
    /// Second test argument.
    arg2: Option<String>,
) -> String {
    format!(
        "Prompt with arguments: arg1='{arg1}', arg2='{}'",
        arg2.unwrap_or_default()
    )
}

/// Values for `arg1` that start with what was typed.
fn suggest(request: &CompletionRequest) -> Vec<String> {
    ["paris", "park", "party", "test", "testing"]
        .into_iter()
        .filter(|value| value.starts_with(&request.value))
        .map(str::to_owned)
        .collect()
}

/// The ids of the template's data.
fn suggest_id(request: &CompletionRequest) -> Vec<String> {
    (1..=3)
        .map(|id| id.to_string())
        .filter(|id| id.starts_with(&request.value))
        .collect()
}

/// A prompt with an embedded resource.
#[prompt]
pub fn test_prompt_with_embedded_resource(
    /// URI of the resource to embed.
    #[arg(rename = "resourceUri")]
    resource_uri: String,
) -> Vec<PromptMessage> {
    vec![
        PromptMessage::user(
            ResourceContents::text(resource_uri, "Embedded resource content for testing.")
                .with_mime_type("text/plain"),
        ),
        PromptMessage::user("Please process the embedded resource above."),
    ]
}

/// A prompt with an image.
#[prompt]
pub fn test_prompt_with_image() -> Vec<PromptMessage> {
    vec![
        PromptMessage::user(image()),
        PromptMessage::user("Please analyze the image above."),
    ]
}

/// A static text resource for testing.
#[resource(
    uri = "test://static-text",
    name = "Static Text Resource",
    mime_type = "text/plain"
)]
pub fn static_text() -> &'static str {
    "This is the content of the static text resource."
}

/// A static binary resource (a PNG) for testing.
#[resource(
    uri = "test://static-binary",
    name = "Static Binary Resource",
    mime_type = "image/png"
)]
pub fn static_binary() -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD
        .decode(IMAGE_PNG)
        .unwrap_or_default()
}

/// A dynamic resource with parameter substitution.
#[resource(
    uri = "test://template/{id}/data",
    name = "Dynamic Resource",
    mime_type = "application/json"
)]
pub fn template_data(#[arg(complete = suggest_id)] id: String) -> String {
    serde_json::json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")})
        .to_string()
}

/// A resource clients subscribe to.
#[resource(
    uri = "test://watched-resource",
    name = "Watched Resource",
    mime_type = "text/plain"
)]
pub fn watched_resource() -> &'static str {
    "A resource whose updates subscribers hear of."
}
