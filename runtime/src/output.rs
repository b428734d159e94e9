//! What a tool call gives back: content for the model and, where the tool has an output schema,
//! structured content.

use serde::Serialize;
use serde_json::{Map, Value};

/// The result of a successful call, ready for any target.
///
/// A tool returns any `T: Serialize` (or `Result<T, E>`), and tooldef turns it into this; return
/// a `ToolOutput` yourself for text and several content blocks.
///
/// ```
/// use tooldef::{Content, ToolOutput, ToolSet, tool};
///
/// /// Draw the week's sales.
/// #[tool]
/// fn chart() -> ToolOutput {
///     ToolOutput::blocks([
///         Content::from("The week's sales."),
///         Content::Image { data: "iVBORw0KGgo=".into(), mime_type: "image/png".into() },
///     ])
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let tools = ToolSet::builder().tool(Chart).build()?;
/// let output = tools.call("chart", "{}").await?;
/// assert_eq!(output.content.len(), 2);
/// // In words, for an API whose tool results are text (OpenAI's):
/// assert_eq!(output.to_text(), "The week's sales.\n\n[image: image/png]");
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// What the model reads, in order.
    pub content: Vec<Content>,
    /// The JSON value, for a tool with an output schema (MCP `structuredContent`), as the tool
    /// returned it: any JSON value. The MCP server wraps a value that is not an object for
    /// clients before MCP 2026-07-28 ([`McpOutputRules`](crate::targets::McpOutputRules)).
    pub structured: Option<Value>,
}

/// One block of a tool's output.
///
/// ```
/// use serde_json::json;
/// use tooldef::Content;
///
/// let block = Content::from_mcp(&json!({"type": "text", "text": "hi"})).unwrap();
/// assert_eq!(block, Content::from("hi"));
/// assert_eq!(block.to_mcp(), json!({"type": "text", "text": "hi"}));
/// let image = Content::Image { data: "iVBORw0KGgo=".into(), mime_type: "image/png".into() };
/// assert_eq!(image.to_text(), "[image: image/png]");
/// ```
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
    /// Audio, base64-encoded.
    Audio {
        /// The base64 data.
        data: String,
        /// Its MIME type, e.g. `audio/wav`.
        mime_type: String,
    },
    /// A link to a resource (MCP `resource_link`), the block as the server sent it: `uri`,
    /// `name` and whatever else it carries.
    ResourceLink(Map<String, Value>),
    /// A resource embedded in the result (MCP `resource`), the block as the server sent it:
    /// `{"resource": {"uri", "text" | "blob", "mimeType"}}` and whatever else it carries.
    Resource(Map<String, Value>),
}

/// An embedded binary resource's data, as [`Content::embedded_blob`] gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EmbeddedBlob<'a> {
    /// Its MIME type, trimmed.
    pub mime_type: &'a str,
    /// Its base64 data.
    pub data: &'a str,
    /// Its URI, if it has one.
    pub uri: Option<&'a str>,
}

impl Content {
    /// An embedded resource that carries binary data (`resource.blob` with its `mimeType`), for
    /// an API that can read such a file itself (a PDF, an image); `None` for other blocks.
    pub fn embedded_blob(&self) -> Option<EmbeddedBlob<'_>> {
        let Content::Resource(block) = self else {
            return None;
        };
        let inner = block.get("resource")?;
        Some(EmbeddedBlob {
            mime_type: inner.get("mimeType")?.as_str()?.trim(),
            data: inner.get("blob")?.as_str()?,
            uri: inner.get("uri").and_then(Value::as_str),
        })
    }

    /// The block in words, for an API whose tool results are text: the text itself; for an
    /// embedded text resource, its text; for the rest, what it is and where.
    pub fn to_text(&self) -> String {
        let field = |block: &Map<String, Value>, pointer: &str| {
            Value::Object(block.clone())
                .pointer(pointer)
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        match self {
            Content::Text(text) => text.clone(),
            Content::Image { mime_type, .. } => format!("[image: {mime_type}]"),
            Content::Audio { mime_type, .. } => format!("[audio: {mime_type}]"),
            Content::ResourceLink(link) => match (field(link, "/name"), field(link, "/uri")) {
                (Some(name), Some(uri)) => format!("[resource link: {name} <{uri}>]"),
                (_, Some(uri)) => format!("[resource link: <{uri}>]"),
                _ => "[resource link]".to_owned(),
            },
            Content::Resource(resource) => match field(resource, "/resource/text") {
                Some(text) => text,
                None => match field(resource, "/resource/uri") {
                    Some(uri) => format!("[resource: <{uri}>]"),
                    None => "[resource]".to_owned(),
                },
            },
        }
    }

    /// An MCP content block (`{"type": "text", "text": …}`, `image`, `audio`, `resource_link`,
    /// `resource`); `None` for another type.
    pub fn from_mcp(block: &Value) -> Option<Content> {
        let text = |key: &str| block.get(key).and_then(Value::as_str).map(str::to_owned);
        Some(match block.get("type").and_then(Value::as_str)? {
            "text" => Content::Text(text("text")?),
            "image" => Content::Image {
                data: text("data")?,
                mime_type: text("mimeType")?,
            },
            "audio" => Content::Audio {
                data: text("data")?,
                mime_type: text("mimeType")?,
            },
            "resource_link" => Content::ResourceLink(block.as_object()?.clone()),
            "resource" => Content::Resource(block.as_object()?.clone()),
            _ => return None,
        })
    }
}

impl Content {
    /// The block as MCP writes it (`{"type": "text", "text": …}`, …).
    pub fn to_mcp(&self) -> Value {
        let tagged = |kind: &str, block: &Map<String, Value>| {
            let mut block = block.clone();
            block.insert("type".to_owned(), Value::from(kind));
            Value::Object(block)
        };
        match self {
            Content::Text(text) => serde_json::json!({ "type": "text", "text": text }),
            Content::Image { data, mime_type } => {
                serde_json::json!({ "type": "image", "data": data, "mimeType": mime_type })
            }
            Content::Audio { data, mime_type } => {
                serde_json::json!({ "type": "audio", "data": data, "mimeType": mime_type })
            }
            Content::ResourceLink(block) => tagged("resource_link", block),
            Content::Resource(block) => tagged("resource", block),
        }
    }
}

impl From<String> for Content {
    fn from(text: String) -> Content {
        Content::Text(text)
    }
}

impl From<&str> for Content {
    fn from(text: &str) -> Content {
        Content::Text(text.to_owned())
    }
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

    /// A JSON value as the model should see it: a string as its text (unquoted, whether or not
    /// it is also structured, as FastMCP does: a model reads text better than an escaped JSON
    /// string), anything else as JSON text; with `structured`, the value also becomes the
    /// structured content (MCP asks for both).
    pub fn json(value: Value, structured: bool) -> ToolOutput {
        let text = match &value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        ToolOutput {
            content: vec![Content::Text(text)],
            structured: structured.then_some(value),
        }
    }

    /// Whether `block` is the structured content written as text (as [`ToolOutput::json`]
    /// writes it: JSON text, or a string's own text; MCP asks a tool with structured content
    /// for the text too): a block that says nothing the structured content does not, for an
    /// API that carries one or the other.
    pub fn repeats_structured(&self, block: &Content) -> bool {
        match (block, &self.structured) {
            (Content::Text(text), Some(Value::String(structured))) if text == structured => true,
            (Content::Text(text), Some(structured)) => {
                serde_json::from_str::<Value>(text).is_ok_and(|parsed| parsed == *structured)
            }
            _ => false,
        }
    }

    /// All blocks in words, joined by blank lines: what a target without content blocks
    /// (OpenAI's `tool` message, Responses `function_call_output`) receives.
    pub fn to_text(&self) -> String {
        self.content
            .iter()
            .map(Content::to_text)
            .collect::<Vec<_>>()
            .join("\n\n")
    }

    /// An MCP `CallToolResult` (as JSON): its content blocks (a block of a type this version
    /// does not know is kept as text, as JSON, rather than dropped) and `structuredContent`.
    pub fn from_mcp_result(result: &Value) -> ToolOutput {
        let content = result
            .get("content")
            .and_then(Value::as_array)
            .map(|blocks| {
                blocks
                    .iter()
                    .map(|b| Content::from_mcp(b).unwrap_or_else(|| Content::Text(b.to_string())))
                    .collect()
            })
            .unwrap_or_default();
        ToolOutput {
            content,
            structured: result.get("structuredContent").cloned(),
        }
    }
}

/// What a tool function returned, before the tool's definition decides how it is shown.
///
/// ```
/// use tooldef::{IntoReturnValue, ReturnValue, ToolOutput};
///
/// let json = vec![1, 2].into_return_value();
/// assert_eq!(json, Ok(ReturnValue::Json(serde_json::json!([1, 2]))));
/// let output = ToolOutput::text("done");
/// assert_eq!(output.clone().into_return_value(), Ok(ReturnValue::Output(output)));
/// ```
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

// Not recommended, so that rustc reports this trait's message about the returned type, with
// the one other way to implement it (`ToolOutput`), rather than `Serialize`'s unmet bound and its
// list of every type that implements `Serialize`.
#[diagnostic::do_not_recommend]
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
