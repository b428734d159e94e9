//! Reading a Responses request's `input`: its items (messages, calls, their outputs,
//! reasoning) and their content parts.

use serde::Deserialize;
use serde_json::Value;

use crate::translate::common::{parse, push_result, push_text, push_user, read_detail};
use crate::translate::ir::{Call, Message, Part, Refusal, Role, ToolResult};

/// `input`: a string (one user message), or items.
pub(super) fn read_input(value: &Value) -> Result<Vec<Message>, Refusal> {
    let mut messages = Vec::new();
    match value {
        Value::String(text) => {
            let mut parts = Vec::new();
            push_text(&mut parts, text);
            messages.push(Message {
                role: Role::User,
                parts,
            });
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                read_item(item, &format!("input[{index}]"), &mut messages)?;
            }
        }
        _ => {
            return Err(Refusal::new(
                "input",
                "`input` is neither a string nor a list of items.",
            ));
        }
    }
    Ok(messages)
}

/// A message item (`type` may be absent).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MessageItem {
    #[serde(rename = "type")]
    _kind: Option<String>,
    role: String,
    content: Value,
    /// The id and status of an earlier reply's message: OpenAI's names for it, not content.
    #[serde(rename = "id")]
    _id: Option<String>,
    #[serde(rename = "status")]
    _status: Option<String>,
}

/// A call of an earlier reply.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FunctionCallItem {
    #[serde(rename = "type")]
    _kind: String,
    call_id: String,
    name: String,
    arguments: String,
    #[serde(rename = "id")]
    _id: Option<String>,
    #[serde(rename = "status")]
    _status: Option<String>,
}

/// A call's output.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FunctionCallOutputItem {
    #[serde(rename = "type")]
    _kind: String,
    call_id: String,
    output: Value,
    #[serde(rename = "id")]
    _id: Option<String>,
    #[serde(rename = "status")]
    _status: Option<String>,
}

/// The reasoning of an earlier reply.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReasoningItem {
    #[serde(rename = "type")]
    _kind: String,
    #[serde(default)]
    summary: Vec<ReasoningText>,
    #[serde(default)]
    content: Option<Vec<ReasoningText>>,
    encrypted_content: Option<String>,
    #[serde(rename = "id")]
    _id: Option<String>,
    #[serde(rename = "status")]
    _status: Option<String>,
}

/// A `summary_text` or a `reasoning_text`.
#[derive(Deserialize)]
pub(super) struct ReasoningText {
    pub(super) text: String,
}

/// The words of a reasoning item: its full text when it has one (`content`, which vLLM and
/// llama.cpp give), else its summaries, a blank line between them.
pub(super) fn reasoning_text(
    summary: &[ReasoningText],
    content: Option<&[ReasoningText]>,
) -> String {
    match content {
        Some(content) if content.iter().any(|text| !text.text.is_empty()) => {
            content.iter().map(|text| text.text.as_str()).collect()
        }
        _ => summary
            .iter()
            .map(|text| text.text.as_str())
            .collect::<Vec<_>>()
            .join("\n\n"),
    }
}

/// Adds one input item to the conversation: a message, a call (to the assistant's message
/// before it, as the items of one reply come one after the other), a call's output (a result in
/// a user message), or reasoning.
fn read_item(item: &Value, at: &str, messages: &mut Vec<Message>) -> Result<(), Refusal> {
    let kind = match item.get("type") {
        None | Some(Value::Null) => "message",
        Some(Value::String(kind)) => kind.as_str(),
        Some(_) => {
            return Err(Refusal::new(
                "input",
                format!("`{at}.type` is not a string."),
            ));
        }
    };
    match kind {
        "message" => {
            let message: MessageItem = parse("input", at, item)?;
            read_message(message, at, messages)?;
        }
        "function_call" => {
            let call: FunctionCallItem = parse("input", at, item)?;
            push_assistant(
                messages,
                Part::Call(Call {
                    id: call.call_id,
                    name: call.name,
                    arguments: call.arguments,
                }),
            );
        }
        "function_call_output" => {
            let output: FunctionCallOutputItem = parse("input", at, item)?;
            let content = read_output(&output.output, &format!("{at}.output"))?;
            push_result(
                messages,
                ToolResult {
                    call_id: output.call_id,
                    content,
                    is_error: false,
                },
            );
        }
        "reasoning" => {
            let reasoning: ReasoningItem = parse("input", at, item)?;
            let text = reasoning_text(&reasoning.summary, reasoning.content.as_deref());
            if text.is_empty() {
                if reasoning.encrypted_content.is_some() {
                    return Err(Refusal::new(
                        "input",
                        format!(
                            "`{at}` is reasoning OpenAI encrypted, which only OpenAI can read: \
                             an upstream that speaks another API cannot take it. Remove it, or \
                             point the gateway at an upstream that speaks the Responses API."
                        ),
                    ));
                }
                // Reasoning without words or content says nothing.
                return Ok(());
            }
            // The encrypted content beside words is OpenAI's copy of them, which only OpenAI
            // reads: the words are what another API can take.
            push_assistant(
                messages,
                Part::Reasoning {
                    text,
                    signature: None,
                },
            );
        }
        other => {
            return Err(Refusal::new(
                "input",
                format!(
                    "`{at}` is an item of type `{other}`, which only the Responses API has: an \
                     upstream that speaks another API cannot take it. Remove it, or point the \
                     gateway at an upstream that speaks the Responses API."
                ),
            ));
        }
    }
    Ok(())
}

/// Adds a part of the assistant's to its message: the items of one reply (reasoning, message,
/// calls) are one message.
fn push_assistant(messages: &mut Vec<Message>, part: Part) {
    match messages.last_mut() {
        Some(last) if last.role == Role::Assistant => last.parts.push(part),
        _ => messages.push(Message {
            role: Role::Assistant,
            parts: vec![part],
        }),
    }
}

fn read_message(
    message: MessageItem,
    at: &str,
    messages: &mut Vec<Message>,
) -> Result<(), Refusal> {
    let at = format!("{at}.content");
    match message.role.as_str() {
        "system" | "developer" => {
            let parts = read_content(&message.content, &at, Media::None)?;
            messages.push(Message {
                role: Role::System,
                parts,
            });
        }
        "user" => {
            let parts = read_content(&message.content, &at, Media::Input)?;
            push_user(messages, parts);
        }
        "assistant" => {
            for part in read_content(&message.content, &at, Media::None)? {
                push_assistant(messages, part);
            }
        }
        other => {
            return Err(Refusal::new(
                "input",
                format!(
                    "The role `{other}` of `{at}` is not one of `user`, `assistant`, `system`, \
                     `developer`."
                ),
            ));
        }
    }
    Ok(())
}

/// Which parts a content may hold beside text.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Media {
    /// Text only (system and assistant messages).
    None,
    /// Images and files too (user messages, call outputs).
    Input,
}

fn read_content(content: &Value, at: &str, media: Media) -> Result<Vec<Part>, Refusal> {
    let mut parts = Vec::new();
    match content {
        Value::String(text) => push_text(&mut parts, text),
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                if let Some(part) = read_part(item, &format!("{at}[{index}]"), media)? {
                    parts.push(part);
                }
            }
        }
        _ => {
            return Err(Refusal::new(
                "input",
                format!("`{at}` is neither a string nor a list of parts."),
            ));
        }
    }
    Ok(parts)
}

/// A call's `output`: a string, or parts.
fn read_output(output: &Value, at: &str) -> Result<Vec<Part>, Refusal> {
    read_content(output, at, Media::Input)
}

/// `input_text` and `output_text` (whose annotations and log probabilities are about the text,
/// not part of it).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TextPart {
    #[serde(rename = "type")]
    _kind: String,
    text: String,
    #[serde(rename = "annotations")]
    _annotations: Option<Value>,
    #[serde(rename = "logprobs")]
    _logprobs: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RefusalPart {
    #[serde(rename = "type")]
    _kind: String,
    refusal: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ImagePart {
    #[serde(rename = "type")]
    _kind: String,
    image_url: Option<String>,
    file_id: Option<String>,
    detail: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FilePart {
    #[serde(rename = "type")]
    _kind: String,
    file_data: Option<String>,
    filename: Option<String>,
    file_id: Option<String>,
    file_url: Option<String>,
}

fn read_part(item: &Value, at: &str, media: Media) -> Result<Option<Part>, Refusal> {
    let kind = item.get("type").and_then(Value::as_str).unwrap_or_default();
    let part = match (kind, media) {
        ("input_text" | "output_text", _) => {
            let part: TextPart = parse("input", at, item)?;
            if part.text.is_empty() {
                return Ok(None);
            }
            Part::Text { text: part.text }
        }
        ("refusal", _) => {
            let part: RefusalPart = parse("input", at, item)?;
            Part::Text { text: part.refusal }
        }
        ("input_image", Media::Input) => {
            let part: ImagePart = parse("input", at, item)?;
            match (part.image_url, part.file_id) {
                (Some(url), _) => Part::Image {
                    url,
                    detail: read_detail(part.detail),
                },
                (None, _) => return Err(uploaded(at, "image_url")),
            }
        }
        ("input_file", Media::Input) => {
            let part: FilePart = parse("input", at, item)?;
            match (part.file_data, part.file_id.or(part.file_url)) {
                (Some(data), _) => Part::File {
                    data,
                    filename: part.filename,
                },
                (None, _) => return Err(uploaded(at, "file_data")),
            }
        }
        ("input_audio", _) => {
            return Err(Refusal::new(
                "input",
                format!(
                    "`{at}` is audio, which the gateway cannot carry to an upstream that speaks \
                     another API: give a transcript as text."
                ),
            ));
        }
        (other, _) => {
            return Err(Refusal::new(
                "input",
                format!(
                    "`{at}` is a part of type `{other}`, which this message cannot hold here: \
                     user messages and call outputs hold `input_text`, `input_image` and \
                     `input_file`, the others text."
                ),
            ));
        }
    };
    Ok(Some(part))
}

/// A part that names a file kept by OpenAI (or a URL only OpenAI fetches for files).
fn uploaded(at: &str, instead: &str) -> Refusal {
    Refusal::new(
        "input",
        format!(
            "`{at}` names a file kept by OpenAI (`file_id`, `file_url`), which an upstream that \
             speaks another API cannot read: give its content as `{instead}`, or point the \
             gateway at an upstream that speaks the Responses API."
        ),
    )
}
