//! What a tool call gives back: content for the model and, where the tool has an output schema,
//! structured content.

use serde::Serialize;
use serde_json::Value;

/// The result of a successful call, ready for any target.
///
/// A tool returns any `T: Serialize` (or `Result<T, E>`), and tooldef turns it into this; return
/// a `ToolOutput` yourself for text and several content blocks.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// What the model reads, in order.
    pub content: Vec<Content>,
    /// The JSON value, for a tool with an output schema (MCP `structuredContent`).
    pub structured: Option<Value>,
}

/// One block of a tool's output.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Content {
    /// Text for the model.
    Text(String),
    /// An image, base64-encoded.
    Image {
        /// The base64 data.
        data: String,
        /// Its MIME type, e.g. `image/png`.
        mime_type: String,
    },
}

impl ToolOutput {
    /// One text block.
    pub fn text(text: impl Into<String>) -> ToolOutput {
        ToolOutput {
            content: vec![Content::Text(text.into())],
            structured: None,
        }
    }

    /// Several blocks.
    pub fn blocks(content: impl IntoIterator<Item = Content>) -> ToolOutput {
        ToolOutput {
            content: content.into_iter().collect(),
            structured: None,
        }
    }

    /// A JSON value as the model should see it: a string as its text, anything else as JSON text;
    /// with `structured`, the value also becomes the structured content (MCP asks for both).
    pub fn json(value: Value, structured: bool) -> ToolOutput {
        let text = match &value {
            Value::String(s) if !structured => s.clone(),
            other => other.to_string(),
        };
        ToolOutput {
            content: vec![Content::Text(text)],
            structured: structured.then_some(value),
        }
    }

    /// All text blocks joined by blank lines: what a target without content blocks (OpenAI's
    /// `tool` message, Responses `function_call_output`) receives.
    pub fn to_text(&self) -> String {
        self.content
            .iter()
            .map(|block| match block {
                Content::Text(text) => text.as_str(),
                Content::Image { .. } => "[image]",
            })
            .collect::<Vec<_>>()
            .join("\n\n")
    }
}

/// What a tool function returned, before the tool's definition decides how it is shown.
#[derive(Debug, Clone, PartialEq)]
pub enum ReturnValue {
    /// A JSON value (the function returned a `Serialize` type).
    Json(Value),
    /// Content the function built itself.
    Output(ToolOutput),
}

/// A value a tool function can return: anything `Serialize`, or a [`ToolOutput`].
#[diagnostic::on_unimplemented(
    message = "a tool cannot return `{Self}`: its value cannot be turned into a tool result",
    label = "does not implement `Serialize`",
    note = "return a type that implements `Serialize` (derive it), `tooldef::ToolOutput` for text and content blocks, or `Result<T, E>` of one with `E: Display`"
)]
pub trait IntoReturnValue {
    /// The value, or why it could not be serialised.
    fn into_return_value(self) -> Result<ReturnValue, String>;
}

impl<T: Serialize> IntoReturnValue for T {
    fn into_return_value(self) -> Result<ReturnValue, String> {
        serde_json::to_value(self)
            .map(ReturnValue::Json)
            .map_err(|err| format!("its result could not be serialised: {err}"))
    }
}

impl IntoReturnValue for ToolOutput {
    fn into_return_value(self) -> Result<ReturnValue, String> {
        Ok(ReturnValue::Output(self))
    }
}
