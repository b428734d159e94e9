//! The server side of the official MCP conformance suite (`@modelcontextprotocol/conformance`),
//! written with tooldef's API alone: the tools, prompts and resources its scenarios call by
//! name, each answering as the scenario's description asks. `cargo run --example conformance
//! -- --http 127.0.0.1:3001` serves them; `bash tests/conformance/server.sh` runs the suite
//! against it.

use std::time::Duration;

use tooldef::{ClientLog, Content, Progress, ResourceContents, ToolOutput, ToolSetBuilder, tool};

/// A 1×1 red PNG, base64-encoded.
pub const IMAGE_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg==";

/// A silent WAV, base64-encoded.
pub const AUDIO_WAV: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEARKwAAIhYAQACABAAZGF0YQAAAAA=";

/// The tools of this module, added to `builder`.
pub fn register(builder: ToolSetBuilder) -> ToolSetBuilder {
    builder
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
