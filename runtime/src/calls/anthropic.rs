//! Anthropic's Messages API: calls in `tool_use` blocks of replies, whole or streamed, and the
//! `tool_result` blocks (all of a turn's in one `user` message) that answer them.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::{CallsError, ToolCall};
use crate::describe_value::{received, shorten};
use crate::{Content, ToolOutput};

/// The image types the Messages API takes in an `image` block's base64 source; any other image is
/// described in words rather than sent and refused.
const IMAGE_TYPES: [&str; 4] = ["image/jpeg", "image/png", "image/gif", "image/webp"];

/// How much of a broken input is quoted back in an error.
const QUOTE_CHARS: usize = 80;

/// The calls of a Messages API reply (`{"type": "message", "content": [...]}`, or its `content`
/// array): its `tool_use` blocks, in order. Text, thinking and server tools' blocks
/// (`server_tool_use`, run by Anthropic) are skipped. Each call's `arguments` is its `input`
/// object as JSON text; a call without arguments has `{}`.
pub fn anthropic_tool_calls(message: &Value) -> Result<Vec<ToolCall>, CallsError> {
    let blocks = message.get("content").unwrap_or(message);
    let blocks = blocks.as_array().ok_or_else(|| {
        CallsError("expected a Messages reply with a `content` array, or that array".to_owned())
    })?;
    blocks
        .iter()
        .enumerate()
        .filter(|(_, block)| block.get("type").and_then(Value::as_str) == Some("tool_use"))
        .map(|(index, block)| tool_use_call(index, block))
        .collect()
}

/// The call of one complete `tool_use` block, the `index`-th of its reply.
fn tool_use_call(index: usize, block: &Value) -> Result<ToolCall, CallsError> {
    let field = |key: &str| {
        block
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| CallsError(format!("content block {index} (`tool_use`) has no `{key}`")))
    };
    let id = field("id")?;
    let name = field("name")?;
    let arguments = match block.get("input") {
        Some(input @ Value::Object(_)) => input.to_string(),
        // The API always sends `input`; a reply rebuilt without it meant no arguments.
        None => "{}".to_owned(),
        Some(other) => {
            return Err(CallsError(format!(
                "the input of content block {index} (tool call `{id}` to `{name}`) is {}, not an object",
                received(other)
            )));
        }
    };
    Ok(ToolCall {
        id,
        name,
        arguments,
    })
}

/// A `tool_use` block whose input is still arriving.
#[derive(Debug, Clone)]
struct OpenCall {
    id: String,
    name: String,
    /// A non-empty `input` in the start event (the API sends `{}` there, the input following as
    /// deltas); used when no delta comes.
    start_input: Option<Value>,
    /// The `partial_json` fragments so far.
    partial_json: String,
}

impl OpenCall {
    /// The call, once its block stopped: the fragments must make one JSON object.
    fn complete(self) -> Result<ToolCall, CallsError> {
        let input = if self.partial_json.trim().is_empty() {
            self.start_input
                .unwrap_or_else(|| Value::Object(Map::new()))
        } else {
            serde_json::from_str::<Value>(&self.partial_json).map_err(|error| {
                CallsError(format!(
                    "the input of tool call `{}` to `{}` is not valid JSON ({error}): {}",
                    self.id,
                    self.name,
                    shorten(&self.partial_json, QUOTE_CHARS)
                ))
            })?
        };
        if !input.is_object() {
            return Err(CallsError(format!(
                "the input of tool call `{}` to `{}` is {}, not an object",
                self.id,
                self.name,
                received(&input)
            )));
        }
        Ok(ToolCall {
            id: self.id,
            name: self.name,
            // Compact, as a whole reply's input is written: a call reads the same streamed or not.
            arguments: input.to_string(),
        })
    }
}

/// Gathers the calls of a streamed Messages reply from its server-sent events' `data` objects:
/// `content_block_start` of a `tool_use` block (the call's id and name), `content_block_delta`s
/// of type `input_json_delta` (pieces of its input, by block `index`), and `content_block_stop`
/// (the call is complete: [`push`](Self::push) returns it). Text, thinking and server tools'
/// blocks, `ping`, `message_delta` and the like are ignored; an `error` event is an error.
///
/// [`finish`](Self::finish) returns every call and checks that the stream ended whole: a stream
/// cut in the middle of a call gives an error rather than a call with half its arguments.
#[derive(Debug, Default, Clone)]
pub struct AnthropicCallAccumulator {
    open: BTreeMap<u64, OpenCall>,
    completed: Vec<ToolCall>,
    started: bool,
    stopped: bool,
    error: Option<CallsError>,
}

impl AnthropicCallAccumulator {
    /// An empty accumulator.
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes one event; returns the calls it completed: the call whose block it stopped, or the
    /// complete `tool_use` blocks a `message_start` already carries (as it can when a reply is
    /// resumed, e.g. a tool called from Anthropic's code execution), usually none.
    pub fn push(&mut self, event: &Value) -> Result<Vec<ToolCall>, CallsError> {
        let kind = event
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let index = || {
            event
                .get("index")
                .and_then(Value::as_u64)
                .ok_or_else(|| CallsError(format!("a `{kind}` event has no `index`")))
        };
        match kind {
            "message_start" => {
                self.started = true;
                let calls = match event.pointer("/message/content") {
                    Some(content) => anthropic_tool_calls(content)?,
                    None => Vec::new(),
                };
                self.completed.extend(calls.iter().cloned());
                Ok(calls)
            }
            "content_block_start" => {
                let Some(block) = event
                    .get("content_block")
                    .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
                else {
                    return Ok(Vec::new());
                };
                let index = index()?;
                let field = |key: &str| {
                    block
                        .get(key)
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                        .ok_or_else(|| {
                            CallsError(format!(
                                "the `tool_use` block {index} started without an `{key}`"
                            ))
                        })
                };
                let (id, name) = (field("id")?, field("name")?);
                let start_input = match block.get("input") {
                    Some(Value::Object(input)) if input.is_empty() => None,
                    None => None,
                    Some(input) => Some(input.clone()),
                };
                let call = OpenCall {
                    id,
                    name,
                    start_input,
                    partial_json: String::new(),
                };
                if let Some(previous) = self.open.insert(index, call) {
                    return Err(CallsError(format!(
                        "content block {index} started again while tool call `{}` in it was open",
                        previous.id
                    )));
                }
                Ok(Vec::new())
            }
            "content_block_delta" => {
                if event.pointer("/delta/type").and_then(Value::as_str) != Some("input_json_delta")
                {
                    return Ok(Vec::new());
                }
                // A server tool's input streams the same way; only open `tool_use` blocks count.
                if let Some(call) = self.open.get_mut(&index()?) {
                    let piece = event
                        .pointer("/delta/partial_json")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    call.partial_json.push_str(piece);
                }
                Ok(Vec::new())
            }
            "content_block_stop" => match self.open.remove(&index()?) {
                Some(call) => {
                    let call = call.complete()?;
                    self.completed.push(call.clone());
                    Ok(vec![call])
                }
                None => Ok(Vec::new()),
            },
            "message_stop" => {
                self.stopped = true;
                Ok(Vec::new())
            }
            "error" => {
                let field = |key: &str| {
                    event
                        .pointer(&format!("/error/{key}"))
                        .and_then(Value::as_str)
                };
                let error = CallsError(format!(
                    "the stream reported an error ({}): {}",
                    field("type").unwrap_or("error"),
                    field("message").unwrap_or("no message")
                ));
                self.error = Some(error.clone());
                Err(error)
            }
            _ => Ok(Vec::new()),
        }
    }

    /// Every call of the stream, in order, once the stream has ended whole. An error if it
    /// reported one, if a call was started but not stopped, or if the message started but its
    /// `message_stop` never came (calls after the cut would be missing).
    pub fn finish(self) -> Result<Vec<ToolCall>, CallsError> {
        if let Some(error) = self.error {
            return Err(error);
        }
        if let Some(call) = self.open.values().next() {
            return Err(CallsError(format!(
                "the stream ended in the middle of tool call `{}` to `{}`",
                call.id, call.name
            )));
        }
        if self.started && !self.stopped {
            return Err(CallsError(
                "the stream ended before `message_stop`: calls may be missing".to_owned(),
            ));
        }
        Ok(self.completed)
    }
}

/// The `tool_result` block that answers a call: `{"type": "tool_result", "tool_use_id",
/// "content": [...]}`, with `"is_error": true` when the call failed.
///
/// The content is carried block by block: text as `text` blocks; JPEG, PNG, GIF and WebP images
/// as `image` blocks (other images, which the API refuses, are named in text); embedded PDFs as
/// `document` blocks and embedded images as `image` blocks; audio, resource links and other
/// resources in words ([`Content::to_text`]; an embedded text resource is its text). Structured
/// content the text does not already carry is added as JSON text. Empty and blank text is left
/// out (the API refuses blank text blocks), and a result with nothing left has no `content`.
pub fn anthropic_tool_result(call: &ToolCall, output: &ToolOutput, is_error: bool) -> Value {
    let mut content: Vec<Value> = output.content.iter().filter_map(content_block).collect();
    if let Some(structured) = &output.structured
        && !output
            .content
            .iter()
            .any(|block| output.repeats_structured(block))
    {
        content.extend(text_block(structured.to_string()));
    }
    let mut result = json!({"type": "tool_result", "tool_use_id": call.id});
    if !content.is_empty() {
        result["content"] = Value::Array(content);
    }
    if is_error {
        result["is_error"] = Value::Bool(true);
    }
    result
}

/// The `user` message that answers a turn's calls: its `tool_result` blocks, in the order of the
/// calls. The API wants every result of a turn in this one message, first in its content: text
/// for the model goes after them.
pub fn anthropic_tool_results_message(results: Vec<Value>) -> Value {
    json!({"role": "user", "content": results})
}

/// One block of a tool's output in a `tool_result`'s content; `None` for blank text.
fn content_block(content: &Content) -> Option<Value> {
    match content {
        Content::Text(text) => text_block(text.clone()),
        Content::Image { data, mime_type } => {
            image_block(data, mime_type).or_else(|| text_block(not_shown(content)))
        }
        Content::Resource(_) => embedded_block(content).or_else(|| text_block(content.to_text())),
        Content::Audio { .. } | Content::ResourceLink(_) => text_block(content.to_text()),
    }
}

/// A `text` block, unless the text is blank: the API refuses those ("text content blocks must
/// contain non-whitespace text").
fn text_block(text: String) -> Option<Value> {
    (!text.trim().is_empty()).then(|| json!({"type": "text", "text": text}))
}

/// An `image` block, for a type the API takes.
fn image_block(data: &str, mime_type: &str) -> Option<Value> {
    let mime_type = mime_type.trim().to_ascii_lowercase();
    IMAGE_TYPES.contains(&mime_type.as_str()).then(|| {
        json!({"type": "image", "source": {"type": "base64", "media_type": mime_type, "data": data}})
    })
}

/// An image the API would refuse, in words.
fn not_shown(image: &Content) -> String {
    format!(
        "{} (not shown: the Messages API takes JPEG, PNG, GIF and WebP images)",
        image.to_text()
    )
}

/// An embedded binary resource the API can read itself: a PDF as a `document` block (titled by
/// its URI), an image as an `image` block. Text resources and other types are `None`.
fn embedded_block(resource: &Content) -> Option<Value> {
    let blob = resource.embedded_blob()?;
    if blob.mime_type.eq_ignore_ascii_case("application/pdf") {
        let mut document = json!({
            "type": "document",
            "source": {"type": "base64", "media_type": "application/pdf", "data": blob.data}
        });
        if let Some(uri) = blob.uri {
            document["title"] = Value::from(uri);
        }
        return Some(document);
    }
    image_block(blob.data, blob.mime_type)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
        }
    }

    #[test]
    fn calls_of_a_reply_skip_other_blocks() {
        let reply = json!({"type": "message", "role": "assistant", "content": [
            {"type": "thinking", "thinking": "Two cities.", "signature": "sig"},
            {"type": "redacted_thinking", "data": "abc"},
            {"type": "text", "text": "Checking both."},
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "x"}},
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris", "days": 3}},
            {"type": "tool_use", "id": "toolu_2", "name": "get_time", "input": {}}
        ], "stop_reason": "tool_use"});
        let calls = anthropic_tool_calls(&reply).unwrap();
        assert_eq!(
            calls,
            vec![
                call("toolu_1", "get_weather", r#"{"city":"Paris","days":3}"#),
                call("toolu_2", "get_time", "{}"),
            ]
        );
        assert_eq!(anthropic_tool_calls(&reply["content"]).unwrap(), calls);
        let text_only = json!({"type": "message", "content": [{"type": "text", "text": "Hi"}]});
        assert!(anthropic_tool_calls(&text_only).unwrap().is_empty());
    }

    #[test]
    fn malformed_tool_use_blocks_are_errors_naming_the_block() {
        let no_id = json!({"content": [
            {"type": "text", "text": "x"},
            {"type": "tool_use", "name": "a", "input": {}}
        ]});
        assert_eq!(
            anthropic_tool_calls(&no_id).unwrap_err().to_string(),
            "content block 1 (`tool_use`) has no `id`"
        );
        let no_name = json!({"content": [{"type": "tool_use", "id": "toolu_1", "input": {}}]});
        assert_eq!(
            anthropic_tool_calls(&no_name).unwrap_err().to_string(),
            "content block 0 (`tool_use`) has no `name`"
        );
        let string_input =
            json!([{"type": "tool_use", "id": "toolu_1", "name": "a", "input": "{\"x\":1}"}]);
        let error = anthropic_tool_calls(&string_input).unwrap_err().to_string();
        assert!(
            error.starts_with("the input of content block 0 (tool call `toolu_1` to `a`) is \"{")
        );
        assert!(error.ends_with("not an object"), "{error}");
        assert!(anthropic_tool_calls(&json!({"content": "hi"})).is_err());
    }

    fn stream(acc: &mut AnthropicCallAccumulator, events: &[Value]) -> Vec<ToolCall> {
        events
            .iter()
            .flat_map(|event| acc.push(event).unwrap())
            .collect()
    }

    fn start(index: u64, id: &str, name: &str) -> Value {
        json!({"type": "content_block_start", "index": index,
               "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}})
    }

    fn delta(index: u64, piece: &str) -> Value {
        json!({"type": "content_block_delta", "index": index,
               "delta": {"type": "input_json_delta", "partial_json": piece}})
    }

    fn stop(index: u64) -> Value {
        json!({"type": "content_block_stop", "index": index})
    }

    #[test]
    fn a_stream_yields_each_call_at_its_stop() {
        let mut acc = AnthropicCallAccumulator::new();
        let head = stream(
            &mut acc,
            &[
                json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": []}}),
                json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}),
                json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Paris."}}),
                json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "sig"}}),
                stop(0),
                start(1, "toolu_1", "get_weather"),
                json!({"type": "ping"}),
                delta(1, ""),
                delta(1, "{\"city\": \"Pa"),
                delta(1, "ris\"}"),
            ],
        );
        assert!(head.is_empty());
        assert_eq!(
            acc.push(&stop(1)).unwrap(),
            vec![call("toolu_1", "get_weather", r#"{"city":"Paris"}"#)]
        );
        let tail = stream(
            &mut acc,
            &[
                start(2, "toolu_2", "get_time"),
                stop(2),
                json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null}, "usage": {"output_tokens": 40}}),
                json!({"type": "message_stop"}),
            ],
        );
        assert_eq!(tail, vec![call("toolu_2", "get_time", "{}")]);
        assert_eq!(acc.finish().unwrap().len(), 2);
    }

    #[test]
    fn a_stream_cut_mid_call_is_an_error() {
        let mut acc = AnthropicCallAccumulator::new();
        stream(
            &mut acc,
            &[
                json!({"type": "message_start", "message": {"content": []}}),
                start(0, "toolu_1", "get_weather"),
                delta(0, "{\"city\": \"Pa"),
            ],
        );
        assert_eq!(
            acc.finish().unwrap_err().to_string(),
            "the stream ended in the middle of tool call `toolu_1` to `get_weather`"
        );
    }

    #[test]
    fn a_stream_cut_between_blocks_is_an_error() {
        let mut acc = AnthropicCallAccumulator::new();
        stream(
            &mut acc,
            &[
                json!({"type": "message_start", "message": {"content": []}}),
                start(0, "toolu_1", "a"),
                stop(0),
            ],
        );
        assert!(
            acc.finish()
                .unwrap_err()
                .to_string()
                .contains("`message_stop`")
        );
    }

    #[test]
    fn input_that_is_not_an_object_is_an_error_at_its_stop() {
        let mut acc = AnthropicCallAccumulator::new();
        stream(&mut acc, &[start(0, "toolu_1", "a"), delta(0, "{\"x\": ")]);
        let error = acc.push(&stop(0)).unwrap_err().to_string();
        assert!(
            error.starts_with("the input of tool call `toolu_1` to `a` is not valid JSON"),
            "{error}"
        );
        let mut acc = AnthropicCallAccumulator::new();
        stream(&mut acc, &[start(0, "toolu_1", "a"), delta(0, "[1]")]);
        assert_eq!(
            acc.push(&stop(0)).unwrap_err().to_string(),
            "the input of tool call `toolu_1` to `a` is an array of 1 item, not an object"
        );
    }

    #[test]
    fn an_error_event_is_an_error_now_and_at_the_end() {
        let mut acc = AnthropicCallAccumulator::new();
        let event = json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}});
        let expected = "the stream reported an error (overloaded_error): Overloaded";
        assert_eq!(acc.push(&event).unwrap_err().to_string(), expected);
        assert_eq!(acc.finish().unwrap_err().to_string(), expected);
    }

    #[test]
    fn calls_carried_whole_by_message_start_are_returned() {
        let mut acc = AnthropicCallAccumulator::new();
        let calls = acc
            .push(&json!({"type": "message_start", "message": {"content": [
                {"type": "tool_use", "id": "toolu_9", "name": "lookup", "input": {"id": "c1"}}
            ]}}))
            .unwrap();
        assert_eq!(calls, vec![call("toolu_9", "lookup", r#"{"id":"c1"}"#)]);
        acc.push(&json!({"type": "message_stop"})).unwrap();
        assert_eq!(acc.finish().unwrap(), calls);
    }

    #[test]
    fn a_start_event_carrying_the_input_needs_no_delta() {
        let mut acc = AnthropicCallAccumulator::new();
        let start = json!({"type": "content_block_start", "index": 0, "content_block":
            {"type": "tool_use", "id": "toolu_1", "name": "a", "input": {"x": 1}}});
        acc.push(&start).unwrap();
        assert_eq!(acc.push(&stop(0)).unwrap()[0].arguments, r#"{"x":1}"#);
    }

    #[test]
    fn results_carry_each_kind_of_content() {
        let call = call("toolu_1", "a", "{}");
        let output = ToolOutput::blocks([
            Content::Text("Sunny".into()),
            Content::Text("  ".into()),
            Content::Image {
                data: "iVBO".into(),
                mime_type: "image/png".into(),
            },
            Content::Image {
                data: "PHN2".into(),
                mime_type: "image/svg+xml".into(),
            },
            Content::Audio {
                data: "UklG".into(),
                mime_type: "audio/wav".into(),
            },
            Content::Resource(
                json!({"type": "resource", "resource": {"uri": "file:///r.pdf", "mimeType": "application/pdf", "blob": "JVBE"}})
                    .as_object()
                    .unwrap()
                    .clone(),
            ),
            Content::Resource(
                json!({"type": "resource", "resource": {"uri": "file:///notes.md", "mimeType": "text/markdown", "text": "# Notes"}})
                    .as_object()
                    .unwrap()
                    .clone(),
            ),
        ]);
        assert_eq!(
            anthropic_tool_result(&call, &output, false),
            json!({"type": "tool_result", "tool_use_id": "toolu_1", "content": [
                {"type": "text", "text": "Sunny"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}},
                {"type": "text", "text": "[image: image/svg+xml] (not shown: the Messages API takes JPEG, PNG, GIF and WebP images)"},
                {"type": "text", "text": "[audio: audio/wav]"},
                {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBE"}, "title": "file:///r.pdf"},
                {"type": "text", "text": "# Notes"}
            ]})
        );
    }

    #[test]
    fn structured_content_is_added_once() {
        let call = call("toolu_1", "a", "{}");
        let value = json!({"temperature": 21, "unit": "C"});
        // `ToolOutput::json` already writes the value as text.
        let both = ToolOutput::json(value.clone(), true);
        assert_eq!(
            anthropic_tool_result(&call, &both, false)["content"],
            json!([{"type": "text", "text": r#"{"temperature":21,"unit":"C"}"#}])
        );
        let only_structured = ToolOutput {
            content: vec![Content::Text("21 °C".into())],
            structured: Some(value),
        };
        assert_eq!(
            anthropic_tool_result(&call, &only_structured, false)["content"],
            json!([
                {"type": "text", "text": "21 °C"},
                {"type": "text", "text": r#"{"temperature":21,"unit":"C"}"#}
            ])
        );
    }

    #[test]
    fn errors_and_empty_results() {
        let call = call("toolu_1", "a", "{}");
        assert_eq!(
            anthropic_tool_result(&call, &ToolOutput::text("City not found"), true),
            json!({"type": "tool_result", "tool_use_id": "toolu_1",
                   "content": [{"type": "text", "text": "City not found"}], "is_error": true})
        );
        assert_eq!(
            anthropic_tool_result(&call, &ToolOutput::blocks([]), false),
            json!({"type": "tool_result", "tool_use_id": "toolu_1"})
        );
        assert_eq!(
            anthropic_tool_result(&call, &ToolOutput::text(""), false),
            json!({"type": "tool_result", "tool_use_id": "toolu_1"})
        );
    }

    #[test]
    fn one_user_message_answers_a_turn() {
        let results = vec![
            anthropic_tool_result(&call("toolu_1", "a", "{}"), &ToolOutput::text("1"), false),
            anthropic_tool_result(&call("toolu_2", "b", "{}"), &ToolOutput::text("2"), false),
        ];
        let message = anthropic_tool_results_message(results);
        assert_eq!(message["role"], "user");
        assert_eq!(message["content"][0]["tool_use_id"], "toolu_1");
        assert_eq!(message["content"][1]["tool_use_id"], "toolu_2");
    }
}
