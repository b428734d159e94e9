//! Reading a Chat request's `messages`: the fields each role may have, the calls, and the
//! parts of their content.

use serde::Deserialize;
use serde_json::Value;

use crate::translate::common::{
    null_as_default, parse, push_result, push_text, push_user, read_detail,
};
use crate::translate::ir::{Call, Message, Part, Refusal, Role, ToolResult};

/// A message of the request, as the API has them all (which fields a role may have is checked
/// when it is read).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChatMessage {
    role: String,
    #[serde(default)]
    content: Value,
    /// A participant's name: only a `tool` message's (the tool's) is taken, as it repeats what
    /// the call says.
    name: Option<String>,
    tool_calls: Option<Vec<ToolCall>>,
    tool_call_id: Option<String>,
    /// The reasoning of an earlier reply (llama.cpp, vLLM, DeepSeek).
    reasoning_content: Option<String>,
    /// The same, as vLLM and OpenRouter now name it.
    reasoning: Option<String>,
    /// An earlier reply's refusal, which is what the model said.
    refusal: Option<String>,
    /// Citations of an earlier reply's text (web search): where the text came from, derived
    /// from it and not read by the model.
    #[serde(rename = "annotations")]
    _annotations: Option<Value>,
    /// A reply's fields that a client echoing the whole reply message sends back empty.
    audio: Option<Value>,
    function_call: Option<Value>,
}

/// A call of an assistant message, in a request or a reply.
#[derive(Deserialize)]
pub(super) struct ToolCall {
    pub(super) id: String,
    #[serde(rename = "type")]
    kind: Option<String>,
    pub(super) function: FunctionCall,
}

#[derive(Deserialize)]
pub(super) struct FunctionCall {
    pub(super) name: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub(super) arguments: String,
}

pub(super) fn read_messages(value: &Value) -> Result<Vec<Message>, Refusal> {
    let items: Vec<Value> = parse("messages", "messages", value)?;
    let mut messages = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let at = format!("messages[{index}]");
        let message: ChatMessage = parse("messages", &at, item)?;
        read_message(message, &at, &mut messages)?;
    }
    Ok(messages)
}

/// Adds one Chat message to the conversation: a `tool` message is a result in a user message
/// (consecutive ones in one), and a user message right after results joins them.
fn read_message(
    message: ChatMessage,
    at: &str,
    messages: &mut Vec<Message>,
) -> Result<(), Refusal> {
    if message.audio.is_some() || message.function_call.is_some() {
        return Err(Refusal::new(
            "messages",
            format!(
                "`{at}` has `audio` or `function_call`, which only OpenAI's Chat Completions has: \
                 give the reply's text and `tool_calls` instead."
            ),
        ));
    }
    if message.name.is_some() && message.role != "tool" {
        return Err(Refusal::new(
            "messages",
            format!(
                "`{at}.name` names a participant, which only OpenAI's Chat Completions can say: \
                 remove it, or say the name in the message's text."
            ),
        ));
    }
    // Each field but `role` and `content` belongs to one role: on another it would be dropped.
    let misfits = [
        ("tool_calls", message.tool_calls.is_some(), "assistant"),
        (
            "reasoning_content",
            message.reasoning_content.is_some(),
            "assistant",
        ),
        ("reasoning", message.reasoning.is_some(), "assistant"),
        ("refusal", message.refusal.is_some(), "assistant"),
        ("tool_call_id", message.tool_call_id.is_some(), "tool"),
    ];
    for (field, present, role) in misfits {
        if present && message.role != role {
            return Err(Refusal::new(
                "messages",
                format!("`{at}.{field}` belongs to `{role}` messages, and this one is not one."),
            ));
        }
    }
    match message.role.as_str() {
        "system" | "developer" => {
            let parts = read_content(&message.content, &format!("{at}.content"), false)?;
            messages.push(Message {
                role: Role::System,
                parts,
            });
        }
        "user" => {
            let parts = read_content(&message.content, &format!("{at}.content"), true)?;
            push_user(messages, parts);
        }
        "assistant" => {
            let mut parts = Vec::new();
            // Chat says the reasoning apart from the text; it came first.
            if let Some(text) = message.reasoning_content.or(message.reasoning)
                && !text.is_empty()
            {
                parts.push(Part::Reasoning {
                    text,
                    signature: None,
                });
            }
            parts.extend(read_content(
                &message.content,
                &format!("{at}.content"),
                false,
            )?);
            if let Some(refusal) = message.refusal {
                push_text(&mut parts, &refusal);
            }
            for (index, call) in message.tool_calls.into_iter().flatten().enumerate() {
                parts.push(Part::Call(read_call(
                    call,
                    &format!("{at}.tool_calls[{index}]"),
                )?));
            }
            messages.push(Message {
                role: Role::Assistant,
                parts,
            });
        }
        "tool" => {
            let call_id = message.tool_call_id.ok_or_else(|| {
                Refusal::new(
                    "messages",
                    format!("`{at}` is a `tool` message without the `tool_call_id` it answers."),
                )
            })?;
            let content = read_content(&message.content, &format!("{at}.content"), false)?;
            push_result(
                messages,
                ToolResult {
                    call_id,
                    content,
                    is_error: false,
                },
            );
        }
        other => {
            return Err(Refusal::new(
                "messages",
                format!(
                    "`{at}.role` is `{other}`: a Chat message is `system`, `developer`, `user`, \
                     `assistant` or `tool`."
                ),
            ));
        }
    }
    Ok(())
}

fn read_call(call: ToolCall, at: &str) -> Result<Call, Refusal> {
    match call.kind.as_deref() {
        None | Some("function") => Ok(Call {
            id: call.id,
            name: call.function.name,
            arguments: call.function.arguments,
        }),
        Some(other) => Err(Refusal::new(
            "messages",
            format!("`{at}` is a `{other}` call: only `function` calls can be translated."),
        )),
    }
}

/// A message's `content`: a string, or parts. `media` says whether images and files may be in
/// it (user messages); the other roles' parts are text (or an assistant's refusal).
fn read_content(content: &Value, at: &str, media: bool) -> Result<Vec<Part>, Refusal> {
    let mut parts = Vec::new();
    match content {
        Value::Null => {}
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
                "messages",
                format!("`{at}` is neither a string nor a list of parts."),
            ));
        }
    }
    Ok(parts)
}

/// A text part.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TextPart {
    #[serde(rename = "type")]
    _kind: String,
    text: String,
    /// A prompt-caching hint some clients add for Anthropic models: it changes no answer.
    #[serde(rename = "cache_control")]
    _cache_control: Option<Value>,
}

/// An image part.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ImagePart {
    #[serde(rename = "type")]
    _kind: String,
    image_url: ImageUrl,
    #[serde(rename = "cache_control")]
    _cache_control: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ImageUrl {
    url: String,
    detail: Option<String>,
}

/// A file part.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FilePart {
    #[serde(rename = "type")]
    _kind: String,
    file: FileData,
    #[serde(rename = "cache_control")]
    _cache_control: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileData {
    file_data: Option<String>,
    file_id: Option<String>,
    filename: Option<String>,
}

/// A refusal part of an earlier reply.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RefusalPart {
    #[serde(rename = "type")]
    _kind: String,
    refusal: String,
}

fn read_part(item: &Value, at: &str, media: bool) -> Result<Option<Part>, Refusal> {
    let kind = item.get("type").and_then(Value::as_str).unwrap_or_default();
    let part = match kind {
        "text" => {
            let part: TextPart = parse("messages", at, item)?;
            if part.text.is_empty() {
                return Ok(None);
            }
            Part::Text { text: part.text }
        }
        "refusal" if !media => {
            let part: RefusalPart = parse("messages", at, item)?;
            Part::Text { text: part.refusal }
        }
        "image_url" if media => {
            let part: ImagePart = parse("messages", at, item)?;
            Part::Image {
                url: part.image_url.url,
                detail: read_detail(part.image_url.detail),
            }
        }
        "file" if media => {
            let part: FilePart = parse("messages", at, item)?;
            match (part.file.file_data, part.file.file_id) {
                (Some(data), _) => Part::File {
                    data,
                    filename: part.file.filename,
                },
                (None, _) => {
                    return Err(Refusal::new(
                        "messages",
                        format!(
                            "`{at}` names a file uploaded to OpenAI (`file_id`), which an \
                             upstream that speaks another API cannot read: give the file's \
                             content as `file_data`."
                        ),
                    ));
                }
            }
        }
        "input_audio" => {
            return Err(Refusal::new(
                "messages",
                format!(
                    "`{at}` is audio, which the gateway cannot carry to an upstream that speaks \
                     another API: give a transcript as text."
                ),
            ));
        }
        other => {
            return Err(Refusal::new(
                "messages",
                format!(
                    "`{at}` is a part of type `{other}`, which this message cannot hold here: \
                     user messages hold `text`, `image_url` and `file` parts, the others `text`."
                ),
            ));
        }
    };
    Ok(Some(part))
}
