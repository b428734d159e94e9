//! Reading a Messages request's `system` and `messages`: each content block, its
//! images, documents and tool results.

use serde::Deserialize;
use serde_json::Value;

use crate::translate::common::{data_url, is_empty, misplaced, parse, push_text};
use crate::translate::ir::{Call, Message, Part, Refusal, Role, ToolResult};

/// A text block (of `system`, a message, or a tool result).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TextBlock {
    #[serde(rename = "type")]
    _kind: String,
    text: String,
    citations: Option<Value>,
    #[serde(rename = "cache_control")]
    _cache_control: Option<Value>,
}

impl TextBlock {
    fn read(self, at: &str, param: &'static str) -> Result<Option<Part>, Refusal> {
        if self
            .citations
            .as_ref()
            .is_some_and(|citations| !is_empty(citations))
        {
            return Err(Refusal::new(
                param,
                format!(
                    "`{at}.citations` cites documents as only Anthropic can: an upstream that \
                     speaks another API cannot take citations. Remove them."
                ),
            ));
        }
        Ok((!self.text.is_empty()).then_some(Part::Text { text: self.text }))
    }
}

pub(super) fn read_system(value: &Value) -> Result<Vec<Part>, Refusal> {
    let mut parts = Vec::new();
    match value {
        Value::String(text) => push_text(&mut parts, text),
        _ => {
            let blocks: Vec<Value> = parse("system", "system", value)?;
            for (index, block) in blocks.iter().enumerate() {
                let at = format!("system[{index}]");
                let kind = block
                    .get("type")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                if kind != "text" {
                    return Err(Refusal::new(
                        "system",
                        format!("`{at}` is a `{kind}` block: the system prompt is text."),
                    ));
                }
                let block: TextBlock = parse("system", &at, block)?;
                parts.extend(block.read(&at, "system")?);
            }
        }
    }
    Ok(parts)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MessageParam {
    role: String,
    content: Value,
}

pub(super) fn read_messages(value: &Value) -> Result<Vec<Message>, Refusal> {
    let items: Vec<Value> = parse("messages", "messages", value)?;
    let mut messages = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let at = format!("messages[{index}]");
        let message: MessageParam = parse("messages", &at, item)?;
        let role = match message.role.as_str() {
            "user" => Role::User,
            "assistant" => Role::Assistant,
            other => {
                return Err(Refusal::new(
                    "messages",
                    format!(
                        "`{at}.role` is `{other}`: a message is the `user`'s or the `assistant`'s."
                    ),
                ));
            }
        };
        let at = format!("{at}.content");
        let mut parts = Vec::new();
        match &message.content {
            Value::String(text) => push_text(&mut parts, text),
            content => {
                let blocks: Vec<Value> = parse("messages", &at, content)?;
                for (index, block) in blocks.iter().enumerate() {
                    parts.extend(read_block(block, &format!("{at}[{index}]"), role)?);
                }
            }
        }
        messages.push(Message { role, parts });
    }
    Ok(messages)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ImageBlock {
    #[serde(rename = "type")]
    _kind: String,
    source: Value,
    #[serde(rename = "cache_control")]
    _cache_control: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DocumentBlock {
    #[serde(rename = "type")]
    _kind: String,
    source: Value,
    title: Option<String>,
    context: Option<String>,
    citations: Option<Value>,
    #[serde(rename = "cache_control")]
    _cache_control: Option<Value>,
}

/// A base64 source (of an image or a document).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Base64Source {
    #[serde(rename = "type")]
    _kind: String,
    media_type: String,
    data: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UrlSource {
    #[serde(rename = "type")]
    _kind: String,
    url: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolUseBlock {
    #[serde(rename = "type")]
    _kind: String,
    id: String,
    name: String,
    input: Value,
    #[serde(rename = "cache_control")]
    _cache_control: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolResultBlock {
    #[serde(rename = "type")]
    _kind: String,
    tool_use_id: String,
    content: Option<Value>,
    is_error: Option<bool>,
    #[serde(rename = "cache_control")]
    _cache_control: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ThinkingBlock {
    #[serde(rename = "type")]
    _kind: String,
    thinking: String,
    signature: Option<String>,
    #[serde(rename = "cache_control")]
    _cache_control: Option<Value>,
}

/// One content block of a message.
fn read_block(block: &Value, at: &str, role: Role) -> Result<Option<Part>, Refusal> {
    let kind = block
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let part = match kind {
        "text" => return parse::<TextBlock>("messages", at, block)?.read(at, "messages"),
        "image" => {
            let block: ImageBlock = parse("messages", at, block)?;
            read_image(&block.source, &format!("{at}.source"))?
        }
        "document" => {
            let block: DocumentBlock = parse("messages", at, block)?;
            read_document(block, at)?
        }
        "tool_use" => {
            let block: ToolUseBlock = parse("messages", at, block)?;
            Part::Call(Call {
                id: block.id,
                name: block.name,
                arguments: block.input.to_string(),
            })
        }
        "tool_result" => {
            let block: ToolResultBlock = parse("messages", at, block)?;
            let content = match &block.content {
                None => Vec::new(),
                Some(content) => read_result_content(content, &format!("{at}.content"))?,
            };
            Part::Result(ToolResult {
                call_id: block.tool_use_id,
                content,
                is_error: block.is_error.unwrap_or(false),
            })
        }
        "thinking" => {
            let block: ThinkingBlock = parse("messages", at, block)?;
            Part::Reasoning {
                text: block.thinking,
                signature: block.signature.filter(|signature| !signature.is_empty()),
            }
        }
        "redacted_thinking" => {
            return Err(Refusal::new(
                "messages",
                format!(
                    "`{at}` is thinking Anthropic encrypted, which only Anthropic can read: an \
                     upstream that speaks another API cannot take it. Remove it, or point the \
                     gateway at an upstream that speaks the Messages API."
                ),
            ));
        }
        other => {
            return Err(Refusal::new(
                "messages",
                format!(
                    "`{at}` is a `{other}` block, which only Anthropic's Messages API has: an \
                     upstream that speaks another API cannot take it. Remove it, or point the \
                     gateway at an upstream that speaks the Messages API."
                ),
            ));
        }
    };
    let fits = match (&part, role) {
        (Part::Call(_) | Part::Reasoning { .. }, Role::Assistant) => true,
        (Part::Call(_) | Part::Reasoning { .. }, _) => false,
        (Part::Result(_) | Part::Image { .. } | Part::File { .. }, Role::User) => true,
        (Part::Result(_) | Part::Image { .. } | Part::File { .. }, _) => false,
        (Part::Text { .. }, _) => true,
    };
    if fits {
        Ok(Some(part))
    } else {
        Err(misplaced("messages", role, &part))
    }
}

/// An image's source: base64 data (a `data:` URL here) or a URL.
fn read_image(source: &Value, at: &str) -> Result<Part, Refusal> {
    match source.get("type").and_then(Value::as_str) {
        Some("base64") => {
            let source: Base64Source = parse("messages", at, source)?;
            Ok(Part::Image {
                url: data_url(&source.media_type, &source.data),
                detail: None,
            })
        }
        Some("url") => {
            let source: UrlSource = parse("messages", at, source)?;
            Ok(Part::Image {
                url: source.url,
                detail: None,
            })
        }
        kind => Err(Refusal::new(
            "messages",
            format!(
                "`{at}` is an image source of type `{}`, which an upstream that speaks another \
                 API cannot read: give the image as `base64` data or a `url`.",
                kind.unwrap_or_default()
            ),
        )),
    }
}

/// A document: a PDF given as base64 data is a file; its title is its name.
fn read_document(block: DocumentBlock, at: &str) -> Result<Part, Refusal> {
    if block.context.is_some() || block.citations.is_some() {
        return Err(Refusal::new(
            "messages",
            format!(
                "`{at}` has `context` or `citations`, which only Anthropic's Messages API has: \
                 remove them, or say the context in a text block."
            ),
        ));
    }
    let at = format!("{at}.source");
    let base64 = block.source.get("type").and_then(Value::as_str) == Some("base64");
    let source = base64
        .then(|| parse::<Base64Source>("messages", &at, &block.source))
        .transpose()?
        .filter(|source| source.media_type == "application/pdf");
    match source {
        Some(source) => Ok(Part::File {
            data: data_url(&source.media_type, &source.data),
            filename: block.title,
        }),
        None => Err(Refusal::new(
            "messages",
            format!(
                "`{at}` is not a PDF given as base64 data, the one kind of document an upstream \
                 that speaks another API can take: give the text in a text block, or the PDF as \
                 `{{\"type\": \"base64\", \"media_type\": \"application/pdf\", \"data\": …}}`."
            ),
        )),
    }
}

/// A tool result's content: a string, or text, image and document blocks.
fn read_result_content(content: &Value, at: &str) -> Result<Vec<Part>, Refusal> {
    let mut parts = Vec::new();
    match content {
        Value::String(text) => push_text(&mut parts, text),
        _ => {
            let blocks: Vec<Value> = parse("messages", at, content)?;
            for (index, block) in blocks.iter().enumerate() {
                let at = format!("{at}[{index}]");
                match block.get("type").and_then(Value::as_str) {
                    Some("text" | "image" | "document") => {
                        parts.extend(read_block(block, &at, Role::User)?);
                    }
                    kind => {
                        return Err(Refusal::new(
                            "messages",
                            format!(
                                "`{at}` is a `{}` block: a tool result the gateway can carry \
                                 holds text, images and PDF documents.",
                                kind.unwrap_or_default()
                            ),
                        ));
                    }
                }
            }
        }
    }
    Ok(parts)
}
