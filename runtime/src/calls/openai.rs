//! OpenAI's two APIs: calls in Chat Completions messages and Responses output, whole or
//! streamed, and the items that answer them.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::{Value, json};

use super::{CallsError, ToolCall};
use crate::{Content, ToolOutput};

/// The tool calls of a Chat Completions assistant message (or of a whole completion, whose first
/// choice's message is taken). A message without calls has none.
pub fn chat_tool_calls(message: &Value) -> Result<Vec<ToolCall>, CallsError> {
    let message = message.pointer("/choices/0/message").unwrap_or(message);
    let Some(calls) = message.get("tool_calls") else {
        return Ok(Vec::new());
    };
    let calls = calls
        .as_array()
        .ok_or_else(|| CallsError("`tool_calls` is not an array".to_owned()))?;
    calls
        .iter()
        .enumerate()
        .filter(|(_, call)| {
            call.get("type")
                .and_then(Value::as_str)
                .is_none_or(|t| t == "function")
        })
        .map(|(i, call)| {
            let field = |pointer: &str| call.pointer(pointer).and_then(Value::as_str);
            Ok(ToolCall {
                id: field("/id")
                    .ok_or_else(|| CallsError(format!("tool call {i} has no `id`")))?
                    .to_owned(),
                name: field("/function/name")
                    .ok_or_else(|| CallsError(format!("tool call {i} has no `function.name`")))?
                    .to_owned(),
                arguments: field("/function/arguments").unwrap_or("{}").to_owned(),
            })
        })
        .collect()
}

/// The function calls of a Responses API reply: a whole response (`output`), or its `output`
/// array. Other output items (messages, reasoning) are skipped.
pub fn responses_tool_calls(response: &Value) -> Result<Vec<ToolCall>, CallsError> {
    let items = response.get("output").unwrap_or(response);
    let items = items.as_array().ok_or_else(|| {
        CallsError("expected a response with `output`, or its `output` array".to_owned())
    })?;
    items
        .iter()
        .filter(|item| item.get("type").and_then(Value::as_str) == Some("function_call"))
        .enumerate()
        .map(|(i, item)| {
            let field = |key: &str| item.get(key).and_then(Value::as_str);
            Ok(ToolCall {
                id: field("call_id")
                    .ok_or_else(|| CallsError(format!("function call {i} has no `call_id`")))?
                    .to_owned(),
                name: field("name")
                    .ok_or_else(|| CallsError(format!("function call {i} has no `name`")))?
                    .to_owned(),
                arguments: field("arguments").unwrap_or("{}").to_owned(),
            })
        })
        .collect()
}

/// The Chat Completions message that answers a call: `{"role": "tool", "tool_call_id", "content"}`.
pub fn chat_tool_message(call_id: &str, content: &str) -> Value {
    json!({"role": "tool", "tool_call_id": call_id, "content": content})
}

/// The Responses input item that answers a call: `{"type": "function_call_output", "call_id", "output"}`.
pub fn responses_output_item(call_id: &str, output: &str) -> Value {
    json!({"type": "function_call_output", "call_id": call_id, "output": output})
}

/// The image types the Responses API reads (its image input guide: PNG, JPEG, WebP,
/// non-animated GIF).
const RESPONSES_IMAGE_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/webp", "image/gif"];

/// The Responses input item that answers `call` with a tool's whole output. An output of text
/// (and things said in words) is the text, as [`responses_output_item`] gives it; one with an
/// image the API reads or an embedded PDF is a list of `input_text`, `input_image` (a `data:`
/// URL) and `input_file` (the PDF's data, named by its URI) parts, in the output's order, the
/// rest said in words, and the structured content as JSON text unless a text block already
/// holds it. `function_call_output.output` takes either form (the openai SDK's
/// `FunctionCallOutput.output`: a string, or a list of input text, image and file parts). A
/// failure is said by the text: the Responses API has no error flag.
pub fn responses_function_output(call: &ToolCall, output: &ToolOutput, _is_error: bool) -> Value {
    let readable = |block: &Content| match block {
        Content::Image { mime_type, .. } => {
            RESPONSES_IMAGE_TYPES.contains(&mime_type.trim().to_ascii_lowercase().as_str())
        }
        other => other
            .embedded_blob()
            .is_some_and(|blob| blob.mime_type.eq_ignore_ascii_case("application/pdf")),
    };
    if !output.content.iter().any(readable) {
        return responses_output_item(&call.id, &output.to_text());
    }
    let mut parts: Vec<Value> = output
        .content
        .iter()
        .map(|block| match (block, block.embedded_blob()) {
            (Content::Image { data, mime_type }, _) if readable(block) => json!({
                "type": "input_image",
                "image_url": format!("data:{};base64,{data}", mime_type.trim()),
            }),
            (_, Some(blob)) if readable(block) => {
                let mut file = json!({
                    "type": "input_file",
                    "file_data": format!("data:application/pdf;base64,{}", blob.data),
                });
                if let Some(name) = blob.uri.and_then(|uri| uri.rsplit('/').next()) {
                    file["filename"] = Value::from(name);
                }
                file
            }
            _ => json!({"type": "input_text", "text": block.to_text()}),
        })
        .collect();
    if let Some(structured) = &output.structured
        && !output
            .content
            .iter()
            .any(|block| output.repeats_structured(block))
    {
        parts.push(json!({"type": "input_text", "text": structured.to_string()}));
    }
    json!({"type": "function_call_output", "call_id": call.id, "output": parts})
}

#[derive(Debug, Default, Clone)]
struct Partial {
    id: Option<String>,
    name: Option<String>,
    arguments: String,
}

impl Partial {
    fn finish(self, what: &str) -> Result<ToolCall, CallsError> {
        Ok(ToolCall {
            id: self
                .id
                .ok_or_else(|| CallsError(format!("{what} ended without an id")))?,
            name: self
                .name
                .ok_or_else(|| CallsError(format!("{what} ended without a name")))?,
            arguments: if self.arguments.is_empty() {
                "{}".to_owned()
            } else {
                self.arguments
            },
        })
    }
}

/// Gathers the tool calls of a streamed Chat Completions reply from its chunks'
/// `choices[0].delta.tool_calls` fragments, matched by `index`: the first fragment of a call
/// carries its id and name, later ones pieces of its arguments.
#[derive(Debug, Default, Clone)]
pub struct ChatCallAccumulator {
    calls: BTreeMap<u64, Partial>,
}

impl ChatCallAccumulator {
    /// An empty accumulator.
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes one chunk (`chat.completion.chunk`); chunks without tool calls are fine.
    pub fn push(&mut self, chunk: &Value) -> Result<(), CallsError> {
        let Some(fragments) = chunk.pointer("/choices/0/delta/tool_calls") else {
            return Ok(());
        };
        let fragments = fragments
            .as_array()
            .ok_or_else(|| CallsError("`delta.tool_calls` is not an array".to_owned()))?;
        for fragment in fragments {
            let index = fragment
                .get("index")
                .and_then(Value::as_u64)
                .ok_or_else(|| CallsError("a tool call fragment has no `index`".to_owned()))?;
            let call = self.calls.entry(index).or_default();
            if let Some(id) = fragment.get("id").and_then(Value::as_str) {
                call.id = Some(id.to_owned());
            }
            if let Some(name) = fragment.pointer("/function/name").and_then(Value::as_str) {
                // Names arrive whole in practice; append in case a provider splits them.
                call.name.get_or_insert_with(String::new).push_str(name);
            }
            if let Some(piece) = fragment
                .pointer("/function/arguments")
                .and_then(Value::as_str)
            {
                call.arguments.push_str(piece);
            }
        }
        Ok(())
    }

    /// The complete calls, in index order.
    pub fn finish(self) -> Result<Vec<ToolCall>, CallsError> {
        self.calls
            .into_iter()
            .map(|(index, call)| call.finish(&format!("tool call {index}")))
            .collect()
    }
}

/// Gathers the function calls of a streamed Responses reply from its events:
/// `response.output_item.added` (a call's id and name), `response.function_call_arguments.delta`
/// (pieces of its arguments), and `response.output_item.done` or
/// `response.function_call_arguments.done` (the call is complete: [`push`](Self::push) yields it).
#[derive(Debug, Default, Clone)]
pub struct ResponsesCallAccumulator {
    pending: HashMap<String, Partial>,
    done: HashSet<String>,
}

impl ResponsesCallAccumulator {
    /// An empty accumulator.
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes one event; returns the call it completed, if any. Other events are ignored.
    pub fn push(&mut self, event: &Value) -> Result<Option<ToolCall>, CallsError> {
        let kind = event
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let item_id = |v: &Value| {
            v.get("item_id")
                .or_else(|| v.pointer("/item/id"))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        match kind {
            "response.output_item.added" | "response.output_item.done" => {
                let Some(item) = event.get("item") else {
                    return Ok(None);
                };
                if item.get("type").and_then(Value::as_str) != Some("function_call") {
                    return Ok(None);
                }
                let id =
                    item_id(event).ok_or_else(|| CallsError(format!("`{kind}` has no item id")))?;
                let call = self.pending.entry(id.clone()).or_default();
                if let Some(call_id) = item.get("call_id").and_then(Value::as_str) {
                    call.id = Some(call_id.to_owned());
                }
                if let Some(name) = item.get("name").and_then(Value::as_str) {
                    call.name = Some(name.to_owned());
                }
                if let Some(arguments) = item
                    .get("arguments")
                    .and_then(Value::as_str)
                    .filter(|a| !a.is_empty())
                {
                    call.arguments = arguments.to_owned();
                }
                if kind == "response.output_item.done" {
                    return self.complete(&id);
                }
                Ok(None)
            }
            "response.function_call_arguments.delta" => {
                let id = item_id(event)
                    .ok_or_else(|| CallsError("an arguments delta has no `item_id`".to_owned()))?;
                let delta = event
                    .get("delta")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                self.pending
                    .entry(id)
                    .or_default()
                    .arguments
                    .push_str(delta);
                Ok(None)
            }
            "response.function_call_arguments.done" => {
                let id = item_id(event)
                    .ok_or_else(|| CallsError("`arguments.done` has no `item_id`".to_owned()))?;
                let call = self.pending.entry(id.clone()).or_default();
                if let Some(arguments) = event.get("arguments").and_then(Value::as_str) {
                    call.arguments = arguments.to_owned();
                }
                // Complete only once the call's id and name are known (`output_item.done` follows).
                if call.id.is_some() && call.name.is_some() {
                    return self.complete(&id);
                }
                Ok(None)
            }
            _ => Ok(None),
        }
    }

    fn complete(&mut self, item_id: &str) -> Result<Option<ToolCall>, CallsError> {
        if self.done.contains(item_id) {
            return Ok(None);
        }
        let Some(call) = self.pending.remove(item_id) else {
            return Ok(None);
        };
        self.done.insert(item_id.to_owned());
        call.finish(&format!("function call `{item_id}`")).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Map;

    use super::*;

    #[test]
    fn responses_outputs_carry_images_and_pdfs_as_parts() {
        let call = ToolCall {
            id: "call_1".into(),
            name: "chart".into(),
            arguments: "{}".into(),
        };
        // Text alone, or with what the API cannot read, stays a string.
        let svg = ToolOutput::blocks([
            Content::Text("A chart.".into()),
            Content::Image {
                data: "PHN2Zz4=".into(),
                mime_type: "image/svg+xml".into(),
            },
        ]);
        assert_eq!(
            responses_function_output(&call, &svg, false),
            json!({"type": "function_call_output", "call_id": "call_1",
                "output": "A chart.\n\n[image: image/svg+xml]"})
        );
        let mut pdf = Map::new();
        pdf.insert("type".into(), json!("resource"));
        pdf.insert(
            "resource".into(),
            json!({"uri": "file:///r/q3.pdf", "mimeType": "application/pdf", "blob": "JVBE"}),
        );
        let mut output = ToolOutput::blocks([
            Content::Text("A chart.".into()),
            Content::Image {
                data: "iVBO".into(),
                mime_type: "image/png".into(),
            },
            Content::Resource(pdf),
        ]);
        output.structured = Some(json!({"points": 3}));
        assert_eq!(
            responses_function_output(&call, &output, false)["output"],
            json!([
                {"type": "input_text", "text": "A chart."},
                {"type": "input_image", "image_url": "data:image/png;base64,iVBO"},
                {"type": "input_file", "file_data": "data:application/pdf;base64,JVBE",
                    "filename": "q3.pdf"},
                {"type": "input_text", "text": "{\"points\":3}"}
            ])
        );
    }

    #[test]
    fn chat_calls_from_a_message_and_a_completion() {
        let message = json!({"role": "assistant", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "a", "arguments": "{\"x\":1}"}},
            {"id": "c2", "type": "function", "function": {"name": "b", "arguments": "{}"}}
        ]});
        let calls = chat_tool_calls(&message).unwrap();
        assert_eq!(calls.len(), 2);
        assert_eq!(
            calls[0],
            ToolCall {
                id: "c1".into(),
                name: "a".into(),
                arguments: "{\"x\":1}".into()
            }
        );
        let completion = json!({"choices": [{"message": message}]});
        assert_eq!(chat_tool_calls(&completion).unwrap(), calls);
        assert!(
            chat_tool_calls(&json!({"role": "assistant", "content": "hi"}))
                .unwrap()
                .is_empty()
        );
        assert!(
            chat_tool_calls(&json!({"tool_calls": [{"type": "function", "function": {}}]}))
                .is_err()
        );
    }

    #[test]
    fn responses_calls_skip_other_items() {
        let response = json!({"output": [
            {"type": "reasoning", "id": "r"},
            {"type": "function_call", "id": "fc1", "call_id": "call_1", "name": "a", "arguments": "{}"},
            {"type": "message", "content": []}
        ]});
        let calls = responses_tool_calls(&response).unwrap();
        assert_eq!(
            calls,
            vec![ToolCall {
                id: "call_1".into(),
                name: "a".into(),
                arguments: "{}".into()
            }]
        );
    }

    #[test]
    fn chat_stream_by_index() {
        let mut acc = ChatCallAccumulator::new();
        for chunk in [
            json!({"choices": [{"delta": {"role": "assistant"}}]}),
            json!({"choices": [{"delta": {"tool_calls": [{"index": 1, "id": "c2", "type": "function", "function": {"name": "b", "arguments": ""}}]}}]}),
            json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "id": "c1", "type": "function", "function": {"name": "a", "arguments": "{\"ci"}}]}}]}),
            json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": "ty\": \"Paris\"}"}}]}}]}),
            json!({"choices": [{"delta": {"tool_calls": [{"index": 1, "function": {"arguments": "{}"}}]}}]}),
            json!({"choices": [{"delta": {}, "finish_reason": "tool_calls"}]}),
        ] {
            acc.push(&chunk).unwrap();
        }
        let calls = acc.finish().unwrap();
        assert_eq!(calls[0].arguments, "{\"city\": \"Paris\"}");
        assert_eq!(calls[0].id, "c1");
        assert_eq!(calls[1].name, "b");
    }

    #[test]
    fn responses_stream_yields_completed_calls() {
        let mut acc = ResponsesCallAccumulator::new();
        let events = [
            json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "function_call", "id": "fc1", "call_id": "call_1", "name": "get_weather", "arguments": ""}}),
            json!({"type": "response.function_call_arguments.delta", "item_id": "fc1", "output_index": 0, "delta": "{\"city\":"}),
            json!({"type": "response.function_call_arguments.delta", "item_id": "fc1", "output_index": 0, "delta": "\"Paris\"}"}),
            json!({"type": "response.function_call_arguments.done", "item_id": "fc1", "output_index": 0, "arguments": "{\"city\":\"Paris\"}"}),
            json!({"type": "response.output_item.done", "output_index": 0, "item": {"type": "function_call", "id": "fc1", "call_id": "call_1", "name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}),
        ];
        let completed: Vec<ToolCall> = events.iter().filter_map(|e| acc.push(e).unwrap()).collect();
        assert_eq!(
            completed,
            vec![ToolCall {
                id: "call_1".into(),
                name: "get_weather".into(),
                arguments: "{\"city\":\"Paris\"}".into()
            }]
        );
    }
}
