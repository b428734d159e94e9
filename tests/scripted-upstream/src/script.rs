//! The script a test writes into its last user message, as a line `SCRIPT: [turn, …]`, and what a
//! request plays from it.
//!
//! Both APIs reduce a request to a [`Situation`] (the last user message's text, how many assistant
//! turns follow it, the tool results and tool names placeholders may quote, whether
//! `tool_choice` is `"none"`); [`plan`] turns that into a [`Plan`], which the API modules render in
//! their own wire format.

use std::time::Duration;

use axum::http::StatusCode;
use serde::{Deserialize, Deserializer};
use serde_json::{Value, json};

/// What starts the script's line.
pub const SCRIPT_PREFIX: &str = "SCRIPT:";

/// The reply when the user message has no script: the benchmark's path.
pub const NO_SCRIPT: &str = "ok";
/// The reply when the conversation has more assistant turns than the script.
pub const PAST_END: &str = "done";
/// The reply when the request forbids tool calls (OpenAI honours `tool_choice: "none"`).
pub const TOOL_CHOICE_NONE: &str = "tool_choice was none";

/// One turn of a script: what the assistant answers at that point of the conversation.
///
/// Unknown keys are refused so that a typo in a test's script fails loudly instead of playing a
/// different turn.
#[derive(Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Turn {
    #[serde(default)]
    pub content: Option<String>,
    #[serde(default)]
    pub calls: Vec<ScriptedCall>,
    #[serde(default)]
    pub error: Option<ScriptedError>,
    /// Waited before answering at all.
    #[serde(default)]
    pub delay_ms: u64,
    /// Waited between the events of a streamed reply (an addition, for streaming tests).
    #[serde(default)]
    pub stream_delay_ms: u64,
}

/// A tool call the assistant makes.
#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ScriptedCall {
    pub name: String,
    /// Any JSON value, sent compactly serialised as the arguments string.
    #[serde(default, deserialize_with = "present")]
    pub arguments: Option<Value>,
    /// The arguments string exactly, for malformed or oddly formatted arguments.
    #[serde(default)]
    pub arguments_raw: Option<String>,
    /// The call id (Chat) or `call_id` (Responses); generated when absent.
    #[serde(default)]
    pub id: Option<String>,
}

/// An error reply: this status, with this body (OpenAI's error shape when absent).
#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ScriptedError {
    pub status: u16,
    #[serde(default, deserialize_with = "present")]
    pub body: Option<Value>,
}

/// Keeps an explicit `null` as `Some(Value::Null)`: `"arguments": null` means the string "null".
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

/// The first `SCRIPT:` line of a user message's text, parsed; `None` when there is none.
pub fn find_script(text: &str) -> Result<Option<Vec<Turn>>, String> {
    if !text.contains(SCRIPT_PREFIX) {
        return Ok(None);
    }
    for line in text.lines() {
        if let Some(rest) = line.trim_start().strip_prefix(SCRIPT_PREFIX) {
            return serde_json::from_str(rest.trim())
                .map(Some)
                .map_err(|error| format!("Invalid SCRIPT line ({error}): {}", rest.trim()));
        }
    }
    Ok(None)
}

/// The text of a message's `content`: the string itself, or the `text` of its parts of type
/// `part_type` (any part with a `text` when `None`), joined by `separator`.
pub fn content_text(content: &Value, part_type: Option<&str>, separator: &str) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => {
            let mut texts = parts.iter().filter_map(|part| {
                let wanted =
                    part_type.is_none_or(|t| part.get("type").and_then(Value::as_str) == Some(t));
                wanted
                    .then(|| part.get("text").and_then(Value::as_str))
                    .flatten()
            });
            let mut joined = texts.next().unwrap_or_default().to_owned();
            for text in texts {
                joined.push_str(separator);
                joined.push_str(text);
            }
            joined
        }
        _ => String::new(),
    }
}

/// What a request says, whichever API it came through.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Situation {
    /// The text of the last user message, if there is one.
    pub last_user_text: Option<String>,
    /// The number of assistant turns after the last user message: the index of the turn to play.
    pub turn: usize,
    /// The texts of the tool results after the last user message, in order.
    pub tool_results: Vec<String>,
    /// The names of the request's function tools, in order.
    pub tools: Vec<String>,
    /// Whether the request has `tool_choice: "none"`.
    pub tool_choice_none: bool,
}

/// What to answer, and when.
#[derive(Debug, PartialEq)]
pub struct Plan {
    pub delay: Duration,
    pub stream_gap: Duration,
    pub outcome: Outcome,
}

#[derive(Debug, PartialEq)]
pub enum Outcome {
    Reply(Reply),
    Error { status: StatusCode, body: Value },
}

/// The assistant's reply, in no API's format yet.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub content: Option<String>,
    pub calls: Vec<Call>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub call_id: String,
    pub name: String,
    pub arguments: String,
}

impl Reply {
    fn text(text: &str) -> Self {
        Self {
            content: Some(text.to_owned()),
            calls: Vec::new(),
        }
    }

    /// The bytes of the reply's text and calls, for a plausible token count.
    pub fn output_bytes(&self) -> usize {
        self.content.as_ref().map_or(0, String::len)
            + self
                .calls
                .iter()
                .map(|call| call.name.len() + call.arguments.len())
                .sum::<usize>()
    }
}

/// A plausible token count for that many bytes (about four bytes a token, at least one).
pub fn tokens(bytes: usize) -> u64 {
    (bytes / 4).max(1) as u64
}

impl Plan {
    fn text(text: &str) -> Self {
        Self {
            delay: Duration::ZERO,
            stream_gap: Duration::ZERO,
            outcome: Outcome::Reply(Reply::text(text)),
        }
    }
}

/// The turn the situation calls for. `Err` is a malformed script, reported to the client.
pub fn plan(situation: &Situation) -> Result<Plan, String> {
    let script = match situation.last_user_text.as_deref() {
        Some(text) => find_script(text)?,
        None => None,
    };
    let Some(script) = script else {
        return Ok(Plan::text(NO_SCRIPT));
    };
    let Some(turn) = script.into_iter().nth(situation.turn) else {
        return Ok(Plan::text(if situation.tool_choice_none {
            TOOL_CHOICE_NONE
        } else {
            PAST_END
        }));
    };
    let delay = Duration::from_millis(turn.delay_ms);
    let stream_gap = Duration::from_millis(turn.stream_delay_ms);
    // An error turn stands for the provider failing, whatever the request asked for.
    if let Some(error) = turn.error {
        let status = StatusCode::from_u16(error.status)
            .map_err(|_| format!("Invalid SCRIPT: {} is not an HTTP status", error.status))?;
        let body = error.body.unwrap_or_else(|| {
            json!({"error": {
                "message": format!("Scripted error with status {}.", error.status),
                "type": "scripted_error",
                "param": null,
                "code": null,
            }})
        });
        return Ok(Plan {
            delay,
            stream_gap,
            outcome: Outcome::Error { status, body },
        });
    }
    let reply = if situation.tool_choice_none {
        Reply::text(TOOL_CHOICE_NONE)
    } else {
        let calls = turn
            .calls
            .into_iter()
            .map(|call| {
                let arguments = match (call.arguments, call.arguments_raw) {
                    (Some(_), Some(_)) => {
                        return Err(format!(
                            "Invalid SCRIPT: the call of '{}' has both 'arguments' and 'arguments_raw'",
                            call.name
                        ));
                    }
                    (Some(value), None) => value.to_string(),
                    (None, Some(raw)) => raw,
                    (None, None) => "{}".to_owned(),
                };
                Ok(Call {
                    call_id: call.id.unwrap_or_else(crate::ids::call),
                    name: call.name,
                    arguments,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Reply {
            content: turn.content.map(|content| fill(&content, situation)),
            calls,
        }
    };
    Ok(Plan {
        delay,
        stream_gap,
        outcome: Outcome::Reply(reply),
    })
}

/// Replaces `{tool_results}` and `{tools}` in one pass, so that a tool result that happens to
/// contain `{tools}` is quoted as it is; other braces are left alone.
fn fill(content: &str, situation: &Situation) -> String {
    const TOOL_RESULTS: &str = "{tool_results}";
    const TOOLS: &str = "{tools}";
    if !content.contains(TOOL_RESULTS) && !content.contains(TOOLS) {
        return content.to_owned();
    }
    let mut out = String::with_capacity(content.len());
    let mut rest = content;
    while let Some(at) = rest.find('{') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        if let Some(after) = tail.strip_prefix(TOOL_RESULTS) {
            out.push_str(&Value::from(situation.tool_results.clone()).to_string());
            rest = after;
        } else if let Some(after) = tail.strip_prefix(TOOLS) {
            out.push_str(&Value::from(situation.tools.clone()).to_string());
            rest = after;
        } else {
            out.push('{');
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn situation(text: &str, turn: usize) -> Situation {
        Situation {
            last_user_text: Some(text.to_owned()),
            turn,
            ..Situation::default()
        }
    }

    fn reply(plan: Plan) -> Reply {
        match plan.outcome {
            Outcome::Reply(reply) => reply,
            Outcome::Error { .. } => panic!("expected a reply"),
        }
    }

    #[test]
    fn finds_the_script_line_among_others() {
        let text = "Please help.\n  SCRIPT: [{\"content\": \"hi\"}, {\"calls\": [{\"name\": \"a\"}]}]\nthanks";
        let script = find_script(text).unwrap().unwrap();
        assert_eq!(script.len(), 2);
        assert_eq!(script[0].content.as_deref(), Some("hi"));
        assert_eq!(script[1].calls[0].name, "a");
        assert_eq!(find_script("no script here").unwrap(), None);
    }

    #[test]
    fn malformed_scripts_and_unknown_keys_are_errors() {
        assert!(find_script("SCRIPT: [{").is_err());
        assert!(find_script("SCRIPT: [{\"contents\": \"x\"}]").is_err());
        let both = situation(
            "SCRIPT: [{\"calls\": [{\"name\": \"a\", \"arguments\": {}, \"arguments_raw\": \"{}\"}]}]",
            0,
        );
        assert!(plan(&both).is_err());
        assert!(plan(&situation("SCRIPT: [{\"error\": {\"status\": 7}}]", 0)).is_err());
    }

    #[test]
    fn plays_the_turn_the_situation_calls_for() {
        let text = r#"SCRIPT: [{"calls": [{"name": "add", "arguments": {"a": 1, "b": [2]}, "id": "call_x"}, {"name": "raw", "arguments_raw": "{oops"}, {"name": "none"}]}, {"content": "sum {tool_results} of {tools} {marker}"}]"#;
        let first = reply(plan(&situation(text, 0)).unwrap());
        assert_eq!(first.content, None);
        assert_eq!(
            first.calls[0],
            Call {
                call_id: "call_x".into(),
                name: "add".into(),
                arguments: r#"{"a":1,"b":[2]}"#.into()
            }
        );
        assert_eq!(first.calls[1].arguments, "{oops");
        assert_eq!(first.calls[2].arguments, "{}");
        assert!(first.calls[1].call_id.starts_with("call_"));

        let mut second = situation(text, 1);
        second.tool_results = vec!["3".into(), "say \"{tools}\"".into()];
        second.tools = vec!["add".into(), "raw".into()];
        assert_eq!(
            reply(plan(&second).unwrap()).content.as_deref(),
            Some(r#"sum ["3","say \"{tools}\""] of ["add","raw"] {marker}"#)
        );
        assert_eq!(
            reply(plan(&situation(text, 2)).unwrap()).content.as_deref(),
            Some(PAST_END)
        );
    }

    #[test]
    fn no_script_tool_choice_none_errors_and_delays() {
        assert_eq!(
            reply(plan(&situation("hello", 0)).unwrap())
                .content
                .as_deref(),
            Some(NO_SCRIPT)
        );
        assert_eq!(
            reply(plan(&Situation::default()).unwrap())
                .content
                .as_deref(),
            Some(NO_SCRIPT)
        );

        let mut none = situation(r#"SCRIPT: [{"content": "x", "calls": [{"name": "a"}]}]"#, 0);
        none.tool_choice_none = true;
        let played = reply(plan(&none).unwrap());
        assert_eq!(played.content.as_deref(), Some(TOOL_CHOICE_NONE));
        assert!(played.calls.is_empty());

        let error = plan(&situation(
            r#"SCRIPT: [{"error": {"status": 429, "body": {"error": {"message": "slow down"}}}, "delay_ms": 5}]"#,
            0,
        ))
        .unwrap();
        assert_eq!(error.delay, Duration::from_millis(5));
        assert_eq!(
            error.outcome,
            Outcome::Error {
                status: StatusCode::TOO_MANY_REQUESTS,
                body: json!({"error": {"message": "slow down"}})
            }
        );
    }

    #[test]
    fn content_text_reads_strings_and_parts() {
        let parts = json!([
            {"type": "text", "text": "a"},
            {"type": "image_url", "image_url": {"url": "x"}},
            {"type": "text", "text": "b"}
        ]);
        assert_eq!(content_text(&parts, Some("text"), "\n"), "a\nb");
        assert_eq!(content_text(&parts, None, ""), "ab");
        assert_eq!(content_text(&json!("plain"), Some("text"), "\n"), "plain");
        assert_eq!(content_text(&Value::Null, None, ""), "");
    }
}
