//! What the model replies: MCP's `CreateMessageResult`, read and checked.

use serde_json::{Map, Value, json};

use super::request::{SampleContent, SampleMessage, SampleToolUse};
use crate::Role;

/// The model's reply to a [`SampleRequest`](crate::SampleRequest).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SampleReply {
    /// The model that replied, as the client names it.
    pub model: String,
    /// Why the model stopped, when the client says.
    pub stop_reason: Option<SampleStopReason>,
    /// What it said, in order: text, images, audio, and calls of the tools it was offered.
    pub content: Vec<SampleContent>,
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SampleStopReason {
    /// It had said what it had to say.
    EndTurn,
    /// It reached one of the request's stop sequences.
    StopSequence,
    /// It reached the request's `max_tokens`.
    MaxTokens,
    /// It calls tools, and waits for their results.
    ToolUse,
    /// Another reason, as the client wrote it.
    Other(String),
}

impl SampleStopReason {
    /// As MCP writes it.
    pub fn as_str(&self) -> &str {
        match self {
            SampleStopReason::EndTurn => "endTurn",
            SampleStopReason::StopSequence => "stopSequence",
            SampleStopReason::MaxTokens => "maxTokens",
            SampleStopReason::ToolUse => "toolUse",
            SampleStopReason::Other(other) => other,
        }
    }

    fn from_mcp(reason: &str) -> SampleStopReason {
        match reason {
            "endTurn" => SampleStopReason::EndTurn,
            "stopSequence" => SampleStopReason::StopSequence,
            "maxTokens" => SampleStopReason::MaxTokens,
            "toolUse" => SampleStopReason::ToolUse,
            other => SampleStopReason::Other(other.to_owned()),
        }
    }
}

impl SampleReply {
    /// A reply of text alone, by `model` (for a [`SampleHandler`](crate::SampleHandler) of an
    /// application's own, or a test double).
    pub fn text_from(model: impl Into<String>, text: impl Into<String>) -> SampleReply {
        SampleReply {
            model: model.into(),
            stop_reason: Some(SampleStopReason::EndTurn),
            content: vec![SampleContent::Text(text.into())],
        }
    }

    /// The reply's text blocks, joined; `None` when it has none.
    pub fn text(&self) -> Option<String> {
        let texts: Vec<&str> = self
            .content
            .iter()
            .filter_map(|block| match block {
                SampleContent::Text(text) => Some(text.as_str()),
                _ => None,
            })
            .collect();
        (!texts.is_empty()).then(|| texts.concat())
    }

    /// The model's calls of the tools it was offered, in order.
    pub fn tool_uses(&self) -> impl Iterator<Item = &SampleToolUse> {
        self.content.iter().filter_map(|block| match block {
            SampleContent::ToolUse(tool_use) => Some(tool_use),
            _ => None,
        })
    }

    /// The reply as the assistant's message, to send back with the next request (after it,
    /// the results of its tool uses).
    pub fn into_message(self) -> SampleMessage {
        SampleMessage::new(Role::Assistant, self.content)
    }

    /// The reply as MCP writes it (a `CreateMessageResult`).
    pub fn to_mcp(&self) -> Value {
        let content = match self.content.as_slice() {
            [one] => one.to_mcp(),
            several => several.iter().map(SampleContent::to_mcp).collect(),
        };
        let mut reply = json!({ "role": "assistant", "content": content, "model": self.model });
        if let Some(reason) = &self.stop_reason {
            reply["stopReason"] = reason.as_str().into();
        }
        reply
    }

    /// A reply as MCP writes it, or what is wrong with it: it must be the assistant's, name its
    /// model, and hold text, images, audio or tool uses (a tool result is the user's).
    pub fn from_mcp(reply: &Value) -> Result<SampleReply, String> {
        let Some(reply) = reply.as_object() else {
            return Err(format!("{reply} is not an object"));
        };
        match reply.get("role").and_then(Value::as_str) {
            Some("assistant") => {}
            Some(other) => {
                return Err(format!("the reply is said by `{other}`, not the assistant"));
            }
            None => return Err("the reply has no `role`".into()),
        }
        let model = match reply.get("model") {
            Some(Value::String(model)) => model.clone(),
            _ => return Err("the reply does not name its `model`".into()),
        };
        let stop_reason = match reply.get("stopReason") {
            None | Some(Value::Null) => None,
            Some(Value::String(reason)) => Some(SampleStopReason::from_mcp(reason)),
            Some(other) => return Err(format!("the stop reason {other} is not a string")),
        };
        let blocks: Vec<&Value> = match reply.get("content") {
            Some(Value::Array(blocks)) => blocks.iter().collect(),
            Some(block @ Value::Object(_)) => vec![block],
            _ => return Err("the reply has no `content`".into()),
        };
        let content = blocks
            .into_iter()
            .map(block)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(SampleReply {
            model,
            stop_reason,
            content,
        })
    }

    /// Whether the reply is one the request allows: no tool result (the user's), and calls of
    /// the tools `offered` only.
    pub(super) fn check(&self, offered: &[String]) -> Result<(), String> {
        for block in &self.content {
            match block {
                SampleContent::ToolResult(_) => {
                    return Err("it holds a tool result, which is the user's to send".into());
                }
                SampleContent::ToolUse(SampleToolUse { name, .. }) if offered.is_empty() => {
                    return Err(format!(
                        "the model calls the tool `{name}`, and the request offered no tools"
                    ));
                }
                SampleContent::ToolUse(SampleToolUse { name, .. }) if !offered.contains(name) => {
                    return Err(format!(
                        "the model calls the tool `{name}`, which the request did not offer (it \
                         offered `{}`)",
                        offered.join("`, `")
                    ));
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// What the reply holds, in a few words (for messages).
    pub(super) fn describe_content(&self) -> String {
        match self.content.as_slice() {
            [] => "nothing".into(),
            blocks => blocks
                .iter()
                .map(SampleContent::describe)
                .collect::<Vec<_>>()
                .join(", "),
        }
    }
}

/// One block of a reply.
fn block(block: &Value) -> Result<SampleContent, String> {
    let text = |key: &str| -> Result<String, String> {
        block
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| format!("a content block without its `{key}`: {block}"))
    };
    match block.get("type").and_then(Value::as_str) {
        Some("text") => Ok(SampleContent::Text(text("text")?)),
        Some("image") => Ok(SampleContent::image(text("data")?, text("mimeType")?)),
        Some("audio") => Ok(SampleContent::audio(text("data")?, text("mimeType")?)),
        Some("tool_use") => {
            let input: Map<String, Value> = match block.get("input") {
                Some(Value::Object(input)) => input.clone(),
                _ => {
                    return Err(format!(
                        "a tool use whose `input` is not an object: {block}"
                    ));
                }
            };
            Ok(SampleContent::ToolUse(SampleToolUse::new(
                text("id")?,
                text("name")?,
                input,
            )))
        }
        Some("tool_result") => {
            Err("the reply holds a tool result, which is the user's to send".into())
        }
        Some(other) => Err(format!(
            "a content block of type `{other}`, which a sampling reply does not have"
        )),
        None => Err(format!("a content block without a `type`: {block}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_are_read_as_mcp_writes_them() {
        let reply = SampleReply::from_mcp(&json!({
            "role": "assistant",
            "content": {"type": "text", "text": "Paris"},
            "model": "test-model",
            "stopReason": "endTurn"
        }))
        .unwrap();
        assert_eq!(reply, SampleReply::text_from("test-model", "Paris"));
        assert_eq!(reply.text().as_deref(), Some("Paris"));

        let reply = SampleReply::from_mcp(&json!({
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me look."},
                {"type": "tool_use", "id": "t1", "name": "lookup", "input": {"word": "hi"}}
            ],
            "model": "m",
            "stopReason": "toolUse"
        }))
        .unwrap();
        assert_eq!(reply.stop_reason, Some(SampleStopReason::ToolUse));
        let uses: Vec<&SampleToolUse> = reply.tool_uses().collect();
        assert_eq!(uses.len(), 1);
        assert_eq!(uses[0].name, "lookup");
        assert_eq!(SampleReply::from_mcp(&reply.to_mcp()), Ok(reply.clone()));
        let message = reply.into_message();
        assert_eq!(message.role, Role::Assistant);
        assert_eq!(message.content.len(), 2);

        let other = SampleReply::from_mcp(&json!({
            "role": "assistant", "content": [], "model": "m", "stopReason": "refusal"
        }))
        .unwrap();
        assert_eq!(
            other.stop_reason,
            Some(SampleStopReason::Other("refusal".into()))
        );
        assert_eq!(other.text(), None);
    }

    #[test]
    fn replies_mcp_does_not_allow_are_refused_with_the_reason() {
        for (reply, said) in [
            (
                json!({"role": "user", "content": {"type": "text", "text": "x"}, "model": "m"}),
                "`user`",
            ),
            (
                json!({"role": "assistant", "content": {"type": "text", "text": "x"}}),
                "`model`",
            ),
            (json!({"role": "assistant", "model": "m"}), "no `content`"),
            (
                json!({"role": "assistant", "model": "m", "content": {"type": "resource_link", "uri": "x"}}),
                "`resource_link`",
            ),
            (
                json!({"role": "assistant", "model": "m", "content": {"type": "tool_result", "toolUseId": "t", "content": []}}),
                "the user's",
            ),
            (
                json!({"role": "assistant", "model": "m", "content": {"type": "tool_use", "id": "t", "name": "n", "input": 3}}),
                "not an object",
            ),
            (
                json!({"role": "assistant", "model": "m", "content": {"type": "text"}}),
                "`text`",
            ),
            (json!([]), "not an object"),
        ] {
            let why = SampleReply::from_mcp(&reply).unwrap_err();
            assert!(why.contains(said), "{reply}: {why}");
        }
    }
}
