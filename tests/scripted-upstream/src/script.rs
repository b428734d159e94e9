//! The script a test writes into its last user message, as a line `SCRIPT: [turn, …]`, and what a
//! request plays from it.
//!
//! Every API reduces a request to a [`Situation`] (the last user message's text, how many assistant
//! turns follow it, the tool results and tool names placeholders may quote, whether tool calls are
//! forbidden); [`plan`] turns that into a [`Plan`], which the API modules render in their own wire
//! format. The APIs find the script alike: in the last user message that has text (for Messages, a
//! user message made only of `tool_result` blocks has none), and the assistant turns after it are
//! the script's progress.
//!
//! A turn (unknown keys are refused):
//!
//! ```text
//! {"content": "text with {tool_results}, {tool_errors} or {tools}",
//!  "calls": [{"name": "f", "arguments": {…} | "arguments_raw": "{\"a\": 1", "id": "call_1",
//!             "namespace": "ns"} | {"tool_search": true, "arguments": {…}, "id": "ts_1"}],
//!  "finish": "length",
//!  "error": {"status": 529, "body": {…}, "mid_stream": true},
//!  "delay_ms": 0, "stream_delay_ms": 0}
//! ```
//!
//! - `{tool_results}`: the texts of the tool results after the script's message, as a JSON array;
//!   `{tool_errors}`: whether each was an error (Messages' `is_error`; always `false` on the OpenAI
//!   APIs), as a JSON array; `{tools}`: the names of the request's function tools.
//! - `finish: "length"`: the turn is cut short by the token limit. Chat answers `finish_reason:
//!   "length"`, Responses `status: "incomplete"` (`incomplete_details.reason:
//!   "max_output_tokens"`), Messages `stop_reason: "max_tokens"`; the output tokens are the
//!   request's limit when it gives one. With `arguments_raw` a call carries those partial arguments.
//! - `namespace` and `tool_search` are Responses' (a namespaced `function_call`, a client-executed
//!   `tool_search_call`); the other APIs have neither and write the call as a plain one.
//!   Anthropic's client-side tool search is plain calls: one of the search tool, answered with
//!   `tool_reference` blocks (quoted by `{tool_results}` as the tools' names), then one of a found
//!   tool; a turn calling a deferred tool that no `tool_reference` has loaded is refused (400).
//! - `error`: the provider fails with this status and body (the API's own error shape when `body` is
//!   absent). With `mid_stream`, a streamed Messages request gets its 200 and the turn's content and
//!   calls, then an `error` event where the rest would be; the OpenAI APIs, whose streams have no
//!   documented mid-stream error, answer the status as usual.
//! - Past the script's end the reply is `done`; without a script, `ok`; with tool calls forbidden
//!   (`tool_choice` none), `tool_choice was none`.

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
/// The reply when the request forbids tool calls (OpenAI honours `tool_choice: "none"`, Anthropic
/// `tool_choice: {"type": "none"}`).
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
    /// How the turn ends when not naturally.
    #[serde(default)]
    pub finish: Option<Finish>,
}

/// A turn's end other than the model's own: only the token limit so far. Any other value is
/// refused, as unknown keys are.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Finish {
    Length,
}

/// A tool call the assistant makes.
#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ScriptedCall {
    /// The function called; absent for a `tool_search`.
    #[serde(default)]
    pub name: Option<String>,
    /// Responses: the namespace of the function called (`function_call.namespace`).
    #[serde(default)]
    pub namespace: Option<String>,
    /// Responses: a client-executed tool search (`tool_search_call`, its `arguments` the
    /// search's) instead of a function call.
    #[serde(default)]
    pub tool_search: bool,
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

/// An error reply: this status, with this body (the API's error shape when absent).
#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ScriptedError {
    pub status: u16,
    #[serde(default, deserialize_with = "present")]
    pub body: Option<Value>,
    /// On a streamed Messages request: fail after the turn's content and calls, as an `error`
    /// event of a stream already answered 200.
    #[serde(default)]
    pub mid_stream: bool,
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
    /// The tool results after the last user message, in order.
    pub tool_results: Vec<ToolResult>,
    /// The names of the request's function tools, in order.
    pub tools: Vec<String>,
    /// Whether the request forbids tool calls (`tool_choice` none).
    pub tool_choice_none: bool,
}

/// A tool result as placeholders quote it.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct ToolResult {
    pub text: String,
    /// Messages' `is_error`; the OpenAI APIs have no such flag.
    pub is_error: bool,
}

impl ToolResult {
    pub fn text(text: String) -> Self {
        Self {
            text,
            is_error: false,
        }
    }
}

/// The number of runs of `true`: the assistant turns in a conversation where each message or item
/// says whether it is the assistant's, consecutive ones making one turn (Responses' items of one
/// reply; Anthropic combines consecutive messages of one role into one turn).
pub fn runs(assistant: impl IntoIterator<Item = bool>) -> usize {
    let mut turns = 0;
    let mut in_run = false;
    for assistant in assistant {
        if assistant && !in_run {
            turns += 1;
        }
        in_run = assistant;
    }
    turns
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
    Error(Failure),
}

/// The provider failing.
#[derive(Debug, PartialEq)]
pub struct Failure {
    pub status: StatusCode,
    /// The script's body; `None` for the API's own error shape.
    pub body: Option<Value>,
    /// What a stream says before failing, when it fails mid-stream.
    pub mid_stream: Option<Reply>,
}

impl Failure {
    /// The body in OpenAI's error shape unless the script gave one.
    pub fn openai_body(&self) -> Value {
        self.body.clone().unwrap_or_else(|| {
            json!({"error": {
                "message": self.message(),
                "type": "scripted_error",
                "param": null,
                "code": null,
            }})
        })
    }

    /// The message of an error body the script did not give.
    pub fn message(&self) -> String {
        format!("Scripted error with status {}.", self.status.as_u16())
    }
}

/// The assistant's reply, in no API's format yet.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub content: Option<String>,
    pub calls: Vec<Call>,
    /// Cut short by the token limit (`finish: "length"`).
    pub cut: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub call_id: String,
    pub name: String,
    pub arguments: String,
    /// Responses: the function's namespace.
    pub namespace: Option<String>,
    /// Responses: a `tool_search_call` (execution `client`) rather than a function call.
    pub tool_search: bool,
}

impl Reply {
    fn text(text: &str) -> Self {
        Self {
            content: Some(text.to_owned()),
            calls: Vec::new(),
            cut: false,
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

    /// The output token count: the request's limit when the reply was cut by it, a plausible count
    /// of the reply's bytes otherwise.
    pub fn output_tokens(&self, limit: Option<u64>) -> u64 {
        match limit {
            Some(limit) if self.cut => limit,
            _ => tokens(self.output_bytes()),
        }
    }
}

/// The first of `keys` the request sets to a non-negative integer: its output token limit.
pub fn token_limit(request: &serde_json::Map<String, Value>, keys: &[&str]) -> Option<u64> {
    keys.iter()
        .find_map(|key| request.get(*key).and_then(Value::as_u64))
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

/// The turn the situation calls for; `new_call_id` names the calls the script leaves unnamed, in
/// the API's (or the imitated server's) shape. `Err` is a malformed script, reported to the client.
pub fn plan(situation: &Situation, new_call_id: fn() -> String) -> Result<Plan, String> {
    let script = match situation.last_user_text.as_deref() {
        Some(text) => find_script(text)?,
        None => None,
    };
    let Some(script) = script else {
        return Ok(Plan::text(NO_SCRIPT));
    };
    let Some(mut turn) = script.into_iter().nth(situation.turn) else {
        return Ok(Plan::text(if situation.tool_choice_none {
            TOOL_CHOICE_NONE
        } else {
            PAST_END
        }));
    };
    let delay = Duration::from_millis(turn.delay_ms);
    let stream_gap = Duration::from_millis(turn.stream_delay_ms);
    let error = turn.error.take();
    // An error turn stands for the provider failing, whatever the request asked for; its content
    // and calls only matter when it fails mid-stream.
    let outcome = match error {
        Some(error) => {
            let status = StatusCode::from_u16(error.status)
                .map_err(|_| format!("Invalid SCRIPT: {} is not an HTTP status", error.status))?;
            let mid_stream = if error.mid_stream {
                Some(reply(turn, situation, new_call_id)?)
            } else {
                None
            };
            Outcome::Error(Failure {
                status,
                body: error.body,
                mid_stream,
            })
        }
        None => Outcome::Reply(reply(turn, situation, new_call_id)?),
    };
    Ok(Plan {
        delay,
        stream_gap,
        outcome,
    })
}

fn reply(turn: Turn, situation: &Situation, new_call_id: fn() -> String) -> Result<Reply, String> {
    let cut = turn.finish == Some(Finish::Length);
    if situation.tool_choice_none {
        return Ok(Reply {
            cut,
            ..Reply::text(TOOL_CHOICE_NONE)
        });
    }
    let calls = turn
        .calls
        .into_iter()
        .map(|call| {
            let arguments = match (call.arguments, call.arguments_raw) {
                (Some(_), Some(_)) => {
                    return Err(format!(
                        "Invalid SCRIPT: the call of '{}' has both 'arguments' and 'arguments_raw'",
                        call.name.as_deref().unwrap_or("tool_search")
                    ));
                }
                (Some(value), None) => value.to_string(),
                (None, Some(raw)) => raw,
                (None, None) => "{}".to_owned(),
            };
            if call.tool_search == call.name.is_some() {
                return Err(
                    "Invalid SCRIPT: a call has a 'name', or is a 'tool_search', not both nor neither"
                        .to_owned(),
                );
            }
            Ok(Call {
                call_id: call.id.unwrap_or_else(new_call_id),
                name: call.name.unwrap_or_default(),
                arguments,
                namespace: call.namespace,
                tool_search: call.tool_search,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(Reply {
        content: turn.content.map(|content| fill(&content, situation)),
        calls,
        cut,
    })
}

/// Replaces `{tool_results}`, `{tool_errors}` and `{tools}` in one pass, so that a tool result that
/// happens to contain `{tools}` is quoted as it is; other braces are left alone.
fn fill(content: &str, situation: &Situation) -> String {
    const TOOL_RESULTS: &str = "{tool_results}";
    const TOOL_ERRORS: &str = "{tool_errors}";
    const TOOLS: &str = "{tools}";
    if ![TOOL_RESULTS, TOOL_ERRORS, TOOLS]
        .iter()
        .any(|placeholder| content.contains(placeholder))
    {
        return content.to_owned();
    }
    let mut out = String::with_capacity(content.len());
    let mut rest = content;
    while let Some(at) = rest.find('{') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        if let Some(after) = tail.strip_prefix(TOOL_RESULTS) {
            let texts: Vec<&str> = situation
                .tool_results
                .iter()
                .map(|result| result.text.as_str())
                .collect();
            out.push_str(&Value::from(texts).to_string());
            rest = after;
        } else if let Some(after) = tail.strip_prefix(TOOL_ERRORS) {
            let errors: Vec<bool> = situation
                .tool_results
                .iter()
                .map(|result| result.is_error)
                .collect();
            out.push_str(&Value::from(errors).to_string());
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

    fn plan_(situation: &Situation) -> Result<Plan, String> {
        plan(situation, crate::ids::call)
    }

    fn reply(plan: Plan) -> Reply {
        match plan.outcome {
            Outcome::Reply(reply) => reply,
            Outcome::Error(_) => panic!("expected a reply"),
        }
    }

    #[test]
    fn finds_the_script_line_among_others() {
        let text = "Please help.\n  SCRIPT: [{\"content\": \"hi\"}, {\"calls\": [{\"name\": \"a\"}]}]\nthanks";
        let script = find_script(text).unwrap().unwrap();
        assert_eq!(script.len(), 2);
        assert_eq!(script[0].content.as_deref(), Some("hi"));
        assert_eq!(script[1].calls[0].name.as_deref(), Some("a"));
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
        assert!(plan_(&both).is_err());
        assert!(plan_(&situation("SCRIPT: [{\"error\": {\"status\": 7}}]", 0)).is_err());
        let nameless = situation("SCRIPT: [{\"calls\": [{\"arguments\": {}}]}]", 0);
        assert!(plan_(&nameless).is_err());
        let search = situation(
            "SCRIPT: [{\"calls\": [{\"tool_search\": true, \"arguments\": {\"query\": \"pr\"}, \"id\": \"ts\"}, {\"name\": \"f\", \"namespace\": \"gh\"}]}]",
            0,
        );
        let calls = reply(plan_(&search).unwrap()).calls;
        assert!(calls[0].tool_search && calls[0].name.is_empty());
        assert_eq!(calls[0].arguments, r#"{"query":"pr"}"#);
        assert_eq!(calls[1].namespace.as_deref(), Some("gh"));
    }

    #[test]
    fn plays_the_turn_the_situation_calls_for() {
        let text = r#"SCRIPT: [{"calls": [{"name": "add", "arguments": {"a": 1, "b": [2]}, "id": "call_x"}, {"name": "raw", "arguments_raw": "{oops"}, {"name": "none"}]}, {"content": "sum {tool_results} of {tools} {marker}"}]"#;
        let first = reply(plan_(&situation(text, 0)).unwrap());
        assert_eq!(first.content, None);
        assert_eq!(
            first.calls[0],
            Call {
                call_id: "call_x".into(),
                name: "add".into(),
                arguments: r#"{"a":1,"b":[2]}"#.into(),
                namespace: None,
                tool_search: false,
            }
        );
        assert_eq!(first.calls[1].arguments, "{oops");
        assert_eq!(first.calls[2].arguments, "{}");
        assert!(first.calls[1].call_id.starts_with("call_"));

        let mut second = situation(text, 1);
        second.tool_results = vec![
            ToolResult::text("3".into()),
            ToolResult::text("say \"{tools}\"".into()),
        ];
        second.tools = vec!["add".into(), "raw".into()];
        assert_eq!(
            reply(plan_(&second).unwrap()).content.as_deref(),
            Some(r#"sum ["3","say \"{tools}\""] of ["add","raw"] {marker}"#)
        );
        assert_eq!(
            reply(plan_(&situation(text, 2)).unwrap())
                .content
                .as_deref(),
            Some(PAST_END)
        );
    }

    #[test]
    fn no_script_tool_choice_none_errors_and_delays() {
        assert_eq!(
            reply(plan_(&situation("hello", 0)).unwrap())
                .content
                .as_deref(),
            Some(NO_SCRIPT)
        );
        assert_eq!(
            reply(plan_(&Situation::default()).unwrap())
                .content
                .as_deref(),
            Some(NO_SCRIPT)
        );

        let mut none = situation(r#"SCRIPT: [{"content": "x", "calls": [{"name": "a"}]}]"#, 0);
        none.tool_choice_none = true;
        let played = reply(plan_(&none).unwrap());
        assert_eq!(played.content.as_deref(), Some(TOOL_CHOICE_NONE));
        assert!(played.calls.is_empty());

        let error = plan_(&situation(
            r#"SCRIPT: [{"error": {"status": 429, "body": {"error": {"message": "slow down"}}}, "delay_ms": 5}]"#,
            0,
        ))
        .unwrap();
        assert_eq!(error.delay, Duration::from_millis(5));
        assert_eq!(
            error.outcome,
            Outcome::Error(Failure {
                status: StatusCode::TOO_MANY_REQUESTS,
                body: Some(json!({"error": {"message": "slow down"}})),
                mid_stream: None,
            })
        );
        let Outcome::Error(bare) = plan_(&situation(r#"SCRIPT: [{"error": {"status": 500}}]"#, 0))
            .unwrap()
            .outcome
        else {
            panic!("expected an error");
        };
        assert_eq!(
            bare.openai_body()["error"]["message"],
            "Scripted error with status 500."
        );
    }

    #[test]
    fn a_turn_cut_short_and_an_error_mid_stream() {
        let cut = reply(
            plan_(&situation(
                r#"SCRIPT: [{"calls": [{"name": "f", "arguments_raw": "{\"a\": "}], "finish": "length"}]"#,
                0,
            ))
            .unwrap(),
        );
        assert!(cut.cut);
        assert_eq!(cut.calls[0].arguments, "{\"a\": ");
        assert_eq!(cut.output_tokens(Some(16)), 16);
        assert_eq!(cut.output_tokens(None), tokens(cut.output_bytes()));
        let whole = reply(plan_(&situation(r#"SCRIPT: [{"content": "hi"}]"#, 0)).unwrap());
        assert!(!whole.cut);
        assert_eq!(whole.output_tokens(Some(16)), 1);
        // Only "length" is a known way to end; anything else is a typo.
        let error = plan_(&situation(
            r#"SCRIPT: [{"content": "x", "finish": "stop"}]"#,
            0,
        ))
        .unwrap_err();
        assert!(error.contains("unknown variant `stop`"), "{error}");

        let failing = plan_(&situation(
            r#"SCRIPT: [{"content": "partial", "calls": [{"name": "f"}], "error": {"status": 529, "mid_stream": true}}]"#,
            0,
        ))
        .unwrap();
        let Outcome::Error(failure) = failing.outcome else {
            panic!("expected an error");
        };
        assert_eq!(failure.status.as_u16(), 529);
        assert_eq!(failure.body, None);
        let before = failure.mid_stream.unwrap();
        assert_eq!(before.content.as_deref(), Some("partial"));
        assert_eq!(before.calls[0].name, "f");
    }

    #[test]
    fn call_ids_come_from_the_api_and_tool_errors_are_quoted() {
        fn fixed() -> String {
            "id-1".into()
        }
        let mut played = situation(
            r#"SCRIPT: [{"content": "{tool_results} {tool_errors}", "calls": [{"name": "a"}, {"name": "b", "id": "mine"}]}]"#,
            0,
        );
        played.tool_results = vec![
            ToolResult::text("ok".into()),
            ToolResult {
                text: "boom".into(),
                is_error: true,
            },
        ];
        let Outcome::Reply(reply) = plan(&played, fixed).unwrap().outcome else {
            panic!("expected a reply");
        };
        assert_eq!(reply.calls[0].call_id, "id-1");
        assert_eq!(reply.calls[1].call_id, "mine");
        assert_eq!(
            reply.content.as_deref(),
            Some(r#"["ok","boom"] [false,true]"#)
        );
        assert_eq!(runs([false, true, true, false, true]), 2);
        assert_eq!(runs([]), 0);
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
