//! Gemini's `generateContent` and `streamGenerateContent` (the Gemini Developer API and Vertex
//! AI): function calls in a reply, whole or streamed, and the parts that answer them.
//!
//! Two things set Gemini apart from OpenAI's APIs. Its calls need not carry ids: where a call has
//! none, tooldef makes one up (`gemini-call-<index>`) so that the calls of one reply stay apart,
//! and leaves it out of the answer, which Gemini then matches to its call by name and order. And
//! thinking models (Gemini 2.5 and 3) sign their turns: a `functionCall` part may carry a
//! `thoughtSignature` that must come back, in the same part, when the model's turn is sent back
//! in the history (Gemini 3 refuses the request without it). So the model's turn is sent back as
//! it came: `candidates[0].content` of a whole reply, or what
//! [`GeminiCallAccumulator::finish`] rebuilt from a stream. A [`ToolCall`] alone cannot rebuild
//! it.

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use super::{CallsError, ToolCall};
use crate::{Content, ToolOutput};

/// How the id of a call that came without one begins; its index in the reply follows.
const MADE_UP_ID: &str = "gemini-call-";

fn made_up_id(index: usize) -> String {
    format!("{MADE_UP_ID}{index}")
}

/// Whether tooldef made the id up (Gemini sent none): such an id is not sent back.
fn is_made_up(id: &str) -> bool {
    id.strip_prefix(MADE_UP_ID)
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// The function calls of a Gemini reply, in order: a `generateContent` response (its first
/// candidate's `content.parts`), a `Content` (`{"role": "model", "parts": […]}`), or its `parts`
/// array. Other parts (text, thoughts, `executableCode` and the rest) are skipped.
///
/// A call's [`name`](ToolCall::name) is `functionCall.name`, its
/// [`arguments`](ToolCall::arguments) are `functionCall.args` as JSON text (`{}` when the model
/// sent none), and its [`id`](ToolCall::id) is `functionCall.id` where Gemini sent one (it does
/// in some APIs and versions, and then expects it back). Where it sent none, the id is made up,
/// `gemini-call-<index>` (the call's index among the reply's calls): it keeps the calls apart,
/// and [`gemini_function_response`] leaves it out, so Gemini matches each answer to its call by
/// name and order; answer every call, in the order of the calls.
///
/// The model's turn goes back into the history as it came (`candidates[0].content`, unchanged):
/// its parts carry the thought signatures that Gemini 2.5 and 3 require back
/// (<https://ai.google.dev/gemini-api/docs/thought-signatures>), which a `ToolCall` does not keep.
///
/// A response whose prompt was blocked (`promptFeedback.blockReason`), or whose call the model got
/// wrong (`finishReason` `MALFORMED_FUNCTION_CALL` or `UNEXPECTED_TOOL_CALL`), is an error that
/// says so: such a reply has no calls to answer.
///
/// ```
/// use serde_json::json;
/// use tooldef::calls::gemini_function_calls;
///
/// let response = json!({"candidates": [{"content": {"role": "model", "parts": [
///     {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}, "thoughtSignature": "c2ln"}
/// ]}, "finishReason": "STOP"}]});
/// let calls = gemini_function_calls(&response).unwrap();
/// assert_eq!(calls[0].name, "get_weather");
/// assert_eq!(calls[0].arguments, r#"{"city":"Paris"}"#);
/// assert_eq!(calls[0].id, "gemini-call-0");
/// ```
pub fn gemini_function_calls(response: &Value) -> Result<Vec<ToolCall>, CallsError> {
    reply_parts(response)?
        .iter()
        .filter_map(|part| part.get("functionCall"))
        .enumerate()
        .map(|(index, call)| whole_call(call, index))
        .collect()
}

/// The parts of a reply given in any of the shapes [`gemini_function_calls`] takes.
fn reply_parts(response: &Value) -> Result<&[Value], CallsError> {
    let not_array = |what: &str| CallsError(format!("`{what}` is not an array"));
    if let Some(parts) = response.as_array() {
        return Ok(parts);
    }
    if response.get("candidates").is_some() || response.get("promptFeedback").is_some() {
        check_reply(response)?;
        let first = response
            .get("candidates")
            .and_then(Value::as_array)
            .and_then(|candidates| candidates.first())
            .ok_or_else(|| CallsError("the response has no candidates".to_owned()))?;
        // A candidate without content (stopped for safety, say) asks for no calls.
        return match first.pointer("/content/parts") {
            None => Ok(&[]),
            Some(parts) => parts
                .as_array()
                .map(Vec::as_slice)
                .ok_or_else(|| not_array("content.parts")),
        };
    }
    match response.get("parts") {
        Some(parts) => parts
            .as_array()
            .map(Vec::as_slice)
            .ok_or_else(|| not_array("parts")),
        None => Err(CallsError(
            "expected a `generateContent` response (`candidates`), a `Content` (`parts`) or its \
             `parts` array"
                .to_owned(),
        )),
    }
}

/// A response (or a stream's chunk) that has no calls to answer because the request went wrong.
fn check_reply(response: &Value) -> Result<(), CallsError> {
    if let Some(reason) = response
        .pointer("/promptFeedback/blockReason")
        .and_then(Value::as_str)
    {
        return Err(CallsError(format!(
            "the prompt was blocked (`promptFeedback.blockReason` {reason}): the model did not reply"
        )));
    }
    let Some(candidate) = response.pointer("/candidates/0") else {
        return Ok(());
    };
    let what = match candidate.get("finishReason").and_then(Value::as_str) {
        Some("MALFORMED_FUNCTION_CALL") => {
            "the model wrote a function call Gemini could not read (`finishReason` \
             MALFORMED_FUNCTION_CALL)"
        }
        Some("UNEXPECTED_TOOL_CALL") => {
            "the model called a tool the request did not enable (`finishReason` \
             UNEXPECTED_TOOL_CALL)"
        }
        _ => return Ok(()),
    };
    Err(
        match candidate.get("finishMessage").and_then(Value::as_str) {
            Some(message) => CallsError(format!("{what}: {message}")),
            None => CallsError(what.to_owned()),
        },
    )
}

/// The `ToolCall` of a whole `functionCall`, the `index`th of its reply.
fn whole_call(call: &Value, index: usize) -> Result<ToolCall, CallsError> {
    let name = call
        .get("name")
        .and_then(Value::as_str)
        .filter(|name| !name.is_empty())
        .ok_or_else(|| CallsError(format!("function call {index} has no `name`")))?;
    if continues(call) || call.get("partialArgs").is_some() {
        return Err(CallsError(format!(
            "function call {index} (`{name}`) is the first piece of a call whose arguments are \
             streamed: read the stream with `GeminiCallAccumulator`"
        )));
    }
    let arguments = match call.get("args") {
        None | Some(Value::Null) => "{}".to_owned(),
        Some(args) => args.to_string(),
    };
    Ok(ToolCall {
        id: sent_id(call).unwrap_or_else(|| made_up_id(index)),
        name: name.to_owned(),
        arguments,
    })
}

fn sent_id(call: &Value) -> Option<String> {
    call.get("id")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
        .map(str::to_owned)
}

/// `willContinue: true`: more of this call (or of this argument) follows.
fn continues(value: &Value) -> bool {
    value.get("willContinue").and_then(Value::as_bool) == Some(true)
}

/// Gathers the function calls of a streamed Gemini reply (`streamGenerateContent`, each chunk a
/// `GenerateContentResponse`), and the model's turn to send back in the history.
///
/// On the Gemini Developer API a call arrives whole, in one `functionCall` part of some chunk
/// (text and thoughts in others). Vertex AI, with `toolConfig.functionCallingConfig.
/// streamFunctionCallArguments`, streams a call's arguments: a first part with the call's `name`
/// and `willContinue: true`, then parts with `partialArgs` (each a `jsonPath` and a
/// `stringValue`, `numberValue`, `boolValue` or `nullValue`; a string whose `willContinue` is
/// true goes on in the next piece for the same path), until a `functionCall` part without
/// `willContinue` ends the call (the field is documented for Vertex AI only, "not supported in
/// Gemini API": `FunctionCall.partialArgs` in the google-genai reference). Both are read here;
/// [`push`](Self::push) yields each call once it is complete, so a stream cut in the middle of a
/// call never gives a call with part of its arguments: [`finish`](Self::finish) says the call
/// was left incomplete.
///
/// Calls without an id get the same made-up ids as [`gemini_function_calls`] gives them.
#[derive(Debug, Default, Clone)]
pub struct GeminiCallAccumulator {
    /// The model's turn so far, each part as it came, a streamed call's pieces joined into one.
    parts: Vec<Value>,
    /// Calls completed so far: the index of the next one.
    calls: usize,
    /// The call whose arguments are still arriving.
    streaming: Option<StreamedCall>,
}

/// A call whose arguments are still arriving.
#[derive(Debug, Clone)]
struct StreamedCall {
    /// Its part in the model's turn.
    part: usize,
    name: String,
    id: Option<String>,
    args: Value,
    /// Whether it came in pieces (else its part stays exactly as it came).
    pieces: bool,
    /// The paths of string arguments still arriving.
    open: HashSet<String>,
}

impl GeminiCallAccumulator {
    /// An empty accumulator.
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes one chunk; returns the calls it completed, in order (chunks of text complete none).
    /// A chunk whose prompt was blocked, or whose candidate finished with
    /// `MALFORMED_FUNCTION_CALL` or `UNEXPECTED_TOOL_CALL`, is an error that says so.
    pub fn push(&mut self, chunk: &Value) -> Result<Vec<ToolCall>, CallsError> {
        check_reply(chunk)?;
        let Some(parts) = chunk.pointer("/candidates/0/content/parts") else {
            return Ok(Vec::new());
        };
        let parts = parts
            .as_array()
            .ok_or_else(|| CallsError("`content.parts` is not an array".to_owned()))?;
        let mut completed = Vec::new();
        for part in parts {
            match part.get("functionCall") {
                Some(call) => completed.extend(self.take_call(part, call)?),
                // An empty text part says nothing (and Vertex refuses one sent back), unless it
                // carries the turn's thought signature, as the last chunk of a stream may.
                None if is_empty_text(part) => {}
                None => self.parts.push(part.clone()),
            }
        }
        Ok(completed)
    }

    /// The model's turn, to send back in the history before the function responses:
    /// `{"role": "model", "parts": […]}`, every part as it came (thought signatures in place),
    /// a call streamed in pieces as one `functionCall` part with its whole `args`, and empty
    /// text parts without a signature left out. An error if the stream ended while a call's
    /// arguments were still arriving: that call was not made.
    pub fn finish(self) -> Result<Value, CallsError> {
        if let Some(call) = self.streaming {
            return Err(CallsError(format!(
                "the stream ended while the arguments of function call `{}` were still arriving: \
                 the call is incomplete",
                call.name
            )));
        }
        Ok(json!({"role": "model", "parts": self.parts}))
    }

    fn take_call(&mut self, part: &Value, call: &Value) -> Result<Option<ToolCall>, CallsError> {
        let name = call
            .get("name")
            .and_then(Value::as_str)
            .filter(|name| !name.is_empty());
        match (name, &mut self.streaming) {
            (Some(name), Some(open)) => Err(CallsError(format!(
                "function call `{name}` began while the arguments of `{}` were still arriving",
                open.name
            ))),
            (Some(name), None) => {
                let mut streamed = StreamedCall {
                    part: self.parts.len(),
                    name: name.to_owned(),
                    id: sent_id(call),
                    args: Value::Object(Map::new()),
                    pieces: continues(call) || call.get("partialArgs").is_some(),
                    open: HashSet::new(),
                };
                streamed.take(call)?;
                self.parts.push(part.clone());
                self.streaming = Some(streamed);
                self.complete_unless_continued(call)
            }
            (None, Some(streamed)) => {
                streamed.pieces = true;
                streamed.take(call)?;
                if streamed.id.is_none() {
                    streamed.id = sent_id(call);
                }
                // Keep a signature wherever in the call it came.
                if let (Some(signature), Some(Value::Object(stored))) = (
                    part.get("thoughtSignature"),
                    self.parts.get_mut(streamed.part),
                ) {
                    stored
                        .entry("thoughtSignature")
                        .or_insert_with(|| signature.clone());
                }
                self.complete_unless_continued(call)
            }
            (None, None) => {
                let has_args = call.get("partialArgs").is_some()
                    || call
                        .get("args")
                        .and_then(Value::as_object)
                        .is_some_and(|args| !args.is_empty());
                if has_args {
                    return Err(CallsError(
                        "arguments arrived for no function call: the stream's earlier chunks \
                         are missing"
                            .to_owned(),
                    ));
                }
                // The empty `functionCall` that ends a streamed call, once more: nothing to do.
                Ok(None)
            }
        }
    }

    fn complete_unless_continued(&mut self, call: &Value) -> Result<Option<ToolCall>, CallsError> {
        if continues(call) {
            return Ok(None);
        }
        let Some(streamed) = self.streaming.take() else {
            return Ok(None);
        };
        if let Some(path) = streamed.open.iter().next() {
            return Err(CallsError(format!(
                "function call `{}` ended while its argument `{path}` was still arriving",
                streamed.name
            )));
        }
        let id = streamed
            .id
            .clone()
            .unwrap_or_else(|| made_up_id(self.calls));
        self.calls += 1;
        if streamed.pieces
            && let Some(Value::Object(stored)) = self.parts.get_mut(streamed.part)
        {
            // The pieces, joined: what a whole reply would have held.
            let mut whole = Map::new();
            if let Some(id) = &streamed.id {
                whole.insert("id".to_owned(), Value::String(id.clone()));
            }
            whole.insert("name".to_owned(), Value::String(streamed.name.clone()));
            whole.insert("args".to_owned(), streamed.args.clone());
            stored.insert("functionCall".to_owned(), Value::Object(whole));
        }
        Ok(Some(ToolCall {
            id,
            name: streamed.name,
            arguments: streamed.args.to_string(),
        }))
    }
}

fn is_empty_text(part: &Value) -> bool {
    part.as_object()
        .is_some_and(|part| part.len() == 1 && part.get("text").and_then(Value::as_str) == Some(""))
}

impl StreamedCall {
    /// Takes one piece of the call: whole `args` and `partialArgs`.
    fn take(&mut self, call: &Value) -> Result<(), CallsError> {
        if let (Some(args), Value::Object(whole)) =
            (call.get("args").and_then(Value::as_object), &mut self.args)
        {
            whole.extend(args.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        let Some(pieces) = call.get("partialArgs") else {
            return Ok(());
        };
        let pieces = pieces.as_array().ok_or_else(|| {
            CallsError(format!("`partialArgs` of `{}` is not an array", self.name))
        })?;
        for piece in pieces {
            self.take_piece(piece)?;
        }
        Ok(())
    }

    fn take_piece(&mut self, piece: &Value) -> Result<(), CallsError> {
        let name = &self.name;
        let path = piece
            .get("jsonPath")
            .and_then(Value::as_str)
            .ok_or_else(|| {
                CallsError(format!("a partial argument of `{name}` has no `jsonPath`"))
            })?;
        let value = if let Some(text) = piece.get("stringValue").and_then(Value::as_str) {
            Value::String(text.to_owned())
        } else if let Some(number) = piece.get("numberValue").and_then(Value::as_f64) {
            number_value(number)
        } else if let Some(flag) = piece.get("boolValue").and_then(Value::as_bool) {
            Value::Bool(flag)
        } else if piece.get("nullValue").is_some() {
            Value::Null
        } else {
            return Err(CallsError(format!(
                "the partial argument `{path}` of `{name}` has no value"
            )));
        };
        let slot = slot_at(&mut self.args, path)
            .map_err(|problem| CallsError(format!("argument `{path}` of `{name}`: {problem}")))?;
        match (slot, value) {
            (Value::String(text), Value::String(more)) if self.open.contains(path) => {
                text.push_str(&more);
            }
            (slot, value) => *slot = value,
        }
        if continues(piece) {
            self.open.insert(path.to_owned());
        } else {
            self.open.remove(path);
        }
        Ok(())
    }
}

/// A `numberValue` (a double on the wire) as the model meant it: `3`, not `3.0`, for a whole
/// number that an `f64` holds exactly.
fn number_value(number: f64) -> Value {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    if number.fract() == 0.0 && number.abs() <= EXACT {
        // In range and whole, so the conversion is exact.
        return Value::from(number as i64);
    }
    serde_json::Number::from_f64(number).map_or(Value::Null, Value::Number)
}

/// One step of a JSON path.
enum Step {
    Key(String),
    Index(usize),
}

/// The steps of a JSON path (RFC 9535) as Gemini writes them: `$`, then `.name`, `[0]` or
/// `['name']` steps.
fn parse_path(path: &str) -> Result<Vec<Step>, String> {
    let bad = || format!("`{path}` is not a JSON path to one value");
    let mut rest = path.strip_prefix('$').ok_or_else(bad)?;
    let mut steps = Vec::new();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            if end == 0 {
                return Err(bad());
            }
            steps.push(Step::Key(after[..end].to_owned()));
            rest = &after[end..];
        } else if let Some(after) = rest.strip_prefix('[') {
            if let Some(quote @ ('\'' | '"')) = after.chars().next() {
                let mut key = String::new();
                let mut chars = after[1..].char_indices();
                let end = loop {
                    match chars.next().ok_or_else(bad)? {
                        (_, '\\') => key.push(chars.next().ok_or_else(bad)?.1),
                        (i, c) if c == quote => break i + 2,
                        (_, c) => key.push(c),
                    }
                };
                rest = after[end..].strip_prefix(']').ok_or_else(bad)?;
                steps.push(Step::Key(key));
            } else {
                let end = after.find(']').ok_or_else(bad)?;
                steps.push(Step::Index(after[..end].parse().map_err(|_| bad())?));
                rest = &after[end + 1..];
            }
        } else {
            return Err(bad());
        }
    }
    Ok(steps)
}

/// The value at `path` in `root`, made (as `null`, with the objects and arrays leading to it)
/// if it is not there yet.
fn slot_at<'a>(root: &'a mut Value, path: &str) -> Result<&'a mut Value, String> {
    let mut node = root;
    for step in parse_path(path)? {
        node = match step {
            Step::Key(key) => {
                if node.is_null() {
                    *node = Value::Object(Map::new());
                }
                match node {
                    Value::Object(object) => object.entry(key).or_insert(Value::Null),
                    _ => return Err(format!("`{key}` is a key into something not an object")),
                }
            }
            Step::Index(index) => {
                if node.is_null() {
                    *node = Value::Array(Vec::new());
                }
                match node {
                    Value::Array(items) => {
                        if items.len() <= index {
                            items.resize(index + 1, Value::Null);
                        }
                        &mut items[index]
                    }
                    _ => return Err(format!("[{index}] is an index into something not an array")),
                }
            }
        };
    }
    Ok(node)
}

/// The part that answers a call: `{"functionResponse": {"name", "id"?, "response", "parts"?}}`.
///
/// `response` is a JSON object, as Gemini requires (a protobuf `Struct`), in the keys the API
/// reference suggests (`FunctionResponse.response`: "e.g. `output`", and an `error` key "if the
/// function call failed"): structured content that is an object, as it is; other structured
/// content as `{"output": value}`; structured content beside blocks that say more than its JSON
/// (a resource link, a text of its own) as `{"output": value, "content": "<their words>"}`, so
/// that neither is dropped; text as `{"output": "<text>"}`; a failure as `{"error": "<text>"}`. Images go in `functionResponse.parts` as `inlineData`, where Gemini 3
/// reads them (multimodal function responses,
/// <https://ai.google.dev/gemini-api/docs/function-calling#multimodal>); they are not referred
/// to from `response` (a `{"$ref": …}` to a part's `displayName` is optional, and refused by some
/// models: googleapis/python-genai#2268, #2792), and an output of images alone has
/// `response: {}`. Audio, resource links and embedded resources are said in words
/// ([`Content::to_text`]). The call's `id` is sent back only where Gemini sent one, not where
/// tooldef made it up.
pub fn gemini_function_response(call: &ToolCall, output: &ToolOutput, is_error: bool) -> Value {
    let is_image = |block: &&Content| matches!(block, Content::Image { .. });
    let images: Vec<Value> = output
        .content
        .iter()
        .filter_map(|block| match block {
            Content::Image { data, mime_type } => {
                Some(json!({"inlineData": {"mimeType": mime_type, "data": data}}))
            }
            _ => None,
        })
        .collect();
    // A text block that is the structured content as JSON (what a `ToolSet` tool returns) says
    // nothing the structured content does not; any other block is said beside it.
    let words_of = |blocks: &mut dyn Iterator<Item = &Content>| {
        blocks
            .map(Content::to_text)
            .collect::<Vec<_>>()
            .join("\n\n")
    };
    let words = words_of(&mut output.content.iter().filter(|block| !is_image(block)));
    let others = words_of(
        &mut output
            .content
            .iter()
            .filter(|block| !is_image(block) && !output.repeats_structured(block)),
    );
    let response = match (&output.structured, is_error) {
        (_, true) => json!({"error": words}),
        (Some(value), false) if !others.is_empty() => json!({"output": value, "content": others}),
        (Some(Value::Object(object)), false) => Value::Object(object.clone()),
        (Some(value), false) => json!({"output": value}),
        (None, false) if words.is_empty() && !images.is_empty() => json!({}),
        (None, false) => json!({"output": words}),
    };
    let mut answer = Map::new();
    answer.insert("name".to_owned(), Value::String(call.name.clone()));
    if !call.id.is_empty() && !is_made_up(&call.id) {
        answer.insert("id".to_owned(), Value::String(call.id.clone()));
    }
    answer.insert("response".to_owned(), response);
    if !images.is_empty() {
        answer.insert("parts".to_owned(), Value::Array(images));
    }
    json!({"functionResponse": answer})
}

/// The one `Content` that answers a model's turn of calls: `{"role": "user", "parts": […]}`, the
/// [`gemini_function_response`] parts in the order of the calls. Every call of the turn is
/// answered in this one content (Gemini 3 checks that the responses match the calls); it follows
/// the model's turn in the history. The role is `user`, as the API reference has it (`Content.
/// role`: "Must be either 'user' or 'model'"); older documentation used `function`.
pub fn gemini_function_responses_content(parts: Vec<Value>) -> Value {
    json!({"role": "user", "parts": parts})
}

/// A request's Gemini `tools` (`Tool` objects: `{"functionDeclarations": […]}`, `googleSearch`,
/// `codeExecution` and the rest) and function declarations of another source (a `ToolSet`'s or
/// converted MCP tools' Gemini rendering) merged for one request: the declarations join the
/// first `Tool` that has `functionDeclarations` (or one of their own, after the caller's), the
/// caller's declarations win a name conflict, and each conflict is reported by name. The
/// counterpart of [`merge_tool_lists`](super::merge_tool_lists) for Gemini's grouped shape.
pub fn merge_gemini_tools(caller: &[Value], declarations: &[Value]) -> (Vec<Value>, Vec<String>) {
    let declared = |tool: &Value| -> Vec<String> {
        tool.get("functionDeclarations")
            .or_else(|| tool.get("function_declarations"))
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .filter_map(|d| d.get("name").and_then(Value::as_str).map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    let taken: HashSet<String> = caller.iter().flat_map(declared).collect();
    let mut conflicts = Vec::new();
    let mut added = Vec::new();
    for declaration in declarations {
        match declaration.get("name").and_then(Value::as_str) {
            Some(name) if taken.contains(name) => conflicts.push(name.to_owned()),
            _ => added.push(declaration.clone()),
        }
    }
    let mut merged = caller.to_vec();
    if added.is_empty() {
        return (merged, conflicts);
    }
    let group = merged.iter_mut().find_map(|tool| {
        let key = ["functionDeclarations", "function_declarations"]
            .into_iter()
            .find(|key| tool.get(key).is_some_and(Value::is_array))?;
        tool.get_mut(key).and_then(Value::as_array_mut)
    });
    match group {
        Some(list) => list.extend(added),
        None => merged.push(json!({"functionDeclarations": added})),
    }
    (merged, conflicts)
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

    fn chunk(parts: Value) -> Value {
        json!({"candidates": [{"content": {"role": "model", "parts": parts}}]})
    }

    #[test]
    fn merging_joins_the_callers_declarations_and_keeps_its_other_tools() {
        let caller = vec![
            json!({"googleSearch": {}}),
            json!({"functionDeclarations": [{"name": "search", "description": "Theirs."}]}),
        ];
        let ours = vec![
            json!({"name": "search", "description": "Ours."}),
            json!({"name": "fetch", "description": "Ours."}),
        ];
        let (merged, conflicts) = merge_gemini_tools(&caller, &ours);
        assert_eq!(conflicts, ["search"]);
        assert_eq!(merged[0], json!({"googleSearch": {}}));
        let names: Vec<&str> = merged[1]["functionDeclarations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["search", "fetch"]);
        assert_eq!(
            merged[1]["functionDeclarations"][0]["description"],
            "Theirs."
        );
        // A request without declarations of its own gets a `Tool` of ours after its tools.
        let (merged, conflicts) = merge_gemini_tools(&caller[..1], &ours);
        assert!(conflicts.is_empty());
        assert_eq!(merged.len(), 2);
        assert_eq!(
            merged[1]["functionDeclarations"].as_array().unwrap().len(),
            2
        );
    }

    #[test]
    fn structured_content_beside_other_blocks_keeps_both() {
        let mut output = ToolOutput::json(json!({"found": 2}), true);
        let mut link = Map::new();
        link.insert("type".into(), json!("resource_link"));
        link.insert("uri".into(), json!("file:///a.pdf"));
        link.insert("name".into(), json!("a.pdf"));
        output.content.push(Content::ResourceLink(link));
        let part = gemini_function_response(&call("c", "find", "{}"), &output, false);
        let response = &part["functionResponse"]["response"];
        assert_eq!(response["output"], json!({"found": 2}), "{part}");
        let words = response["content"].as_str().unwrap();
        assert!(
            words.contains("file:///a.pdf") && !words.contains("found"),
            "{words}"
        );
        // Alone, the structured content is the response, as it is.
        let plain = ToolOutput::json(json!({"found": 2}), true);
        let part = gemini_function_response(&call("c", "find", "{}"), &plain, false);
        assert_eq!(part["functionResponse"]["response"], json!({"found": 2}));
    }

    #[test]
    fn calls_from_a_response_a_content_and_parts() {
        let parts = json!([
            {"text": "Let me check.", "thought": true, "thoughtSignature": "c2ln"},
            {"text": "Checking both cities."},
            {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}},
            {"executableCode": {"language": "PYTHON", "code": "print(1)"}},
            {"functionCall": {"id": "fc_2", "name": "get_time"}}
        ]);
        let calls = gemini_function_calls(&parts).unwrap();
        assert_eq!(
            calls,
            vec![
                call("gemini-call-0", "get_weather", r#"{"city":"Paris"}"#),
                call("fc_2", "get_time", "{}"),
            ]
        );
        let content = json!({"role": "model", "parts": parts});
        assert_eq!(gemini_function_calls(&content).unwrap(), calls);
        let response = json!({"candidates": [{"content": content, "finishReason": "STOP"}]});
        assert_eq!(gemini_function_calls(&response).unwrap(), calls);
    }

    #[test]
    fn replies_without_calls_and_unreadable_ones() {
        let text = json!({"candidates": [{"content": {"parts": [{"text": "Hi"}]}}]});
        assert!(gemini_function_calls(&text).unwrap().is_empty());
        let stopped = json!({"candidates": [{"finishReason": "SAFETY"}]});
        assert!(gemini_function_calls(&stopped).unwrap().is_empty());
        let no_name = json!({"parts": [{"functionCall": {"args": {}}}]});
        let error = gemini_function_calls(&no_name).unwrap_err().to_string();
        assert!(error.contains("function call 0 has no `name`"), "{error}");
        let neither = gemini_function_calls(&json!({"text": "Hi"}))
            .unwrap_err()
            .to_string();
        assert!(
            neither.contains("expected a `generateContent` response"),
            "{neither}"
        );
        let fragment = json!([{"functionCall": {"name": "a", "willContinue": true}}]);
        let error = gemini_function_calls(&fragment).unwrap_err().to_string();
        assert!(error.contains("GeminiCallAccumulator"), "{error}");
    }

    #[test]
    fn blocked_prompts_and_malformed_calls_are_errors() {
        let blocked = json!({"promptFeedback": {"blockReason": "SAFETY"}});
        let error = gemini_function_calls(&blocked).unwrap_err().to_string();
        assert!(error.contains("the prompt was blocked"), "{error}");
        assert!(error.contains("SAFETY"), "{error}");
        let malformed = json!({"candidates": [{"finishReason": "MALFORMED_FUNCTION_CALL",
            "finishMessage": "Malformed function call: print(default_api.get_weather(city=))"}]});
        let error = gemini_function_calls(&malformed).unwrap_err().to_string();
        assert!(error.contains("MALFORMED_FUNCTION_CALL"), "{error}");
        assert!(error.contains("city=)"), "{error}");
        let unexpected = json!({"candidates": [{"finishReason": "UNEXPECTED_TOOL_CALL"}]});
        let mut acc = GeminiCallAccumulator::new();
        let error = acc.push(&unexpected).unwrap_err().to_string();
        assert!(error.contains("did not enable"), "{error}");
    }

    #[test]
    fn made_up_ids_are_recognised() {
        assert!(is_made_up("gemini-call-0"));
        assert!(is_made_up("gemini-call-12"));
        assert!(!is_made_up("gemini-call-"));
        assert!(!is_made_up("gemini-call-x"));
        assert!(!is_made_up("fc_1"));
    }

    #[test]
    fn stream_of_whole_calls() {
        let mut acc = GeminiCallAccumulator::new();
        let mut calls = Vec::new();
        for chunk in [
            chunk(json!([{"text": "I'll look", "thought": true}])),
            chunk(
                json!([{"functionCall": {"name": "a", "args": {"x": 1}}, "thoughtSignature": "c2ln"}]),
            ),
            chunk(json!([{"functionCall": {"name": "b"}}, {"text": ""}])),
            json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "", "thoughtSignature": "ZW5k"}]}, "finishReason": "STOP"}]}),
        ] {
            calls.extend(acc.push(&chunk).unwrap());
        }
        assert_eq!(
            calls,
            vec![
                call("gemini-call-0", "a", r#"{"x":1}"#),
                call("gemini-call-1", "b", "{}")
            ]
        );
        assert_eq!(
            acc.finish().unwrap(),
            json!({"role": "model", "parts": [
                {"text": "I'll look", "thought": true},
                {"functionCall": {"name": "a", "args": {"x": 1}}, "thoughtSignature": "c2ln"},
                {"functionCall": {"name": "b"}},
                {"text": "", "thoughtSignature": "ZW5k"}
            ]})
        );
    }

    #[test]
    fn stream_of_partial_arguments() {
        let mut acc = GeminiCallAccumulator::new();
        let pieces = [
            json!([{"functionCall": {"name": "cook", "willContinue": true}, "thoughtSignature": "c2ln"}]),
            json!([{"functionCall": {"partialArgs": [{"jsonPath": "$.recipe.items[0].name", "stringValue": "Lasa", "willContinue": true}], "willContinue": true}}]),
            json!([{"functionCall": {"partialArgs": [{"jsonPath": "$.recipe.items[0].name", "stringValue": "gna"}], "willContinue": true}}]),
            json!([{"functionCall": {"partialArgs": [{"jsonPath": "$.recipe.items[0].grams", "numberValue": 500}], "willContinue": true}}]),
            json!([{"functionCall": {"partialArgs": [{"jsonPath": "$['recipe']['vegan']", "boolValue": false}, {"jsonPath": "$.note", "nullValue": "NULL_VALUE"}], "willContinue": true}}]),
            json!([{"functionCall": {"willContinue": true}}]),
        ];
        for piece in pieces {
            assert!(acc.push(&chunk(piece)).unwrap().is_empty());
        }
        let done = acc.push(&chunk(json!([{"functionCall": {}}]))).unwrap();
        let arguments: Value = serde_json::from_str(&done[0].arguments).unwrap();
        assert_eq!(
            arguments,
            json!({"recipe": {"items": [{"name": "Lasagna", "grams": 500}], "vegan": false}, "note": null})
        );
        assert_eq!(done[0].id, "gemini-call-0");
        let turn = acc.finish().unwrap();
        assert_eq!(
            turn,
            json!({"role": "model", "parts": [
                {"functionCall": {"name": "cook", "args": arguments}, "thoughtSignature": "c2ln"}
            ]})
        );
    }

    #[test]
    fn a_stream_cut_mid_call_gives_no_call() {
        let mut acc = GeminiCallAccumulator::new();
        acc.push(&chunk(
            json!([{"functionCall": {"name": "write", "willContinue": true}}]),
        ))
        .unwrap();
        let half = chunk(
            json!([{"functionCall": {"partialArgs": [{"jsonPath": "$.text", "stringValue": "Dear", "willContinue": true}], "willContinue": true}}]),
        );
        assert!(acc.push(&half).unwrap().is_empty());
        let error = acc.finish().unwrap_err().to_string();
        assert!(error.contains("`write`"), "{error}");
        assert!(error.contains("still arriving"), "{error}");
    }

    #[test]
    fn a_call_ending_mid_string_or_overlapping_another_is_an_error() {
        let mut acc = GeminiCallAccumulator::new();
        acc.push(&chunk(
            json!([{"functionCall": {"name": "write", "willContinue": true}}]),
        ))
        .unwrap();
        let open = chunk(
            json!([{"functionCall": {"partialArgs": [{"jsonPath": "$.text", "stringValue": "Dear", "willContinue": true}]}}]),
        );
        let error = acc.push(&open).unwrap_err().to_string();
        assert!(error.contains("`$.text` was still arriving"), "{error}");

        let mut acc = GeminiCallAccumulator::new();
        acc.push(&chunk(
            json!([{"functionCall": {"name": "a", "willContinue": true}}]),
        ))
        .unwrap();
        let error = acc
            .push(&chunk(json!([{"functionCall": {"name": "b"}}])))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("`b` began while the arguments of `a`"),
            "{error}"
        );

        let mut acc = GeminiCallAccumulator::new();
        let orphan = chunk(
            json!([{"functionCall": {"partialArgs": [{"jsonPath": "$.x", "numberValue": 1}]}}]),
        );
        assert!(
            acc.push(&orphan)
                .unwrap_err()
                .to_string()
                .contains("no function call")
        );
    }

    #[test]
    fn json_paths() {
        let mut root = json!({});
        *slot_at(&mut root, "$.a[1]['b.c'].d").unwrap() = json!(1);
        assert_eq!(root, json!({"a": [null, {"b.c": {"d": 1}}]}));
        assert!(slot_at(&mut root, "$.a.b").is_err());
        assert!(slot_at(&mut root, "a.b").is_err());
        assert!(slot_at(&mut root, "$.a[x]").is_err());
        assert!(slot_at(&mut root, "$..a").is_err());
        assert_eq!(number_value(3.0), json!(3));
        assert_eq!(number_value(-0.5), json!(-0.5));
        assert_eq!(number_value(1e300), json!(1e300));
    }

    #[test]
    fn responses_are_objects() {
        let made_up = call("gemini-call-0", "get_weather", "{}");
        assert_eq!(
            gemini_function_response(&made_up, &ToolOutput::text("Sunny"), false),
            json!({"functionResponse": {"name": "get_weather", "response": {"output": "Sunny"}}})
        );
        let sent = call("fc_1", "get_weather", "{}");
        assert_eq!(
            gemini_function_response(&sent, &ToolOutput::text("no such city"), true),
            json!({"functionResponse": {"name": "get_weather", "id": "fc_1", "response": {"error": "no such city"}}})
        );
        let object = ToolOutput::json(json!({"temp": 21}), true);
        assert_eq!(
            gemini_function_response(&sent, &object, false)["functionResponse"]["response"],
            json!({"temp": 21})
        );
        let array = ToolOutput::json(json!([1, 2]), true);
        assert_eq!(
            gemini_function_response(&sent, &array, false)["functionResponse"]["response"],
            json!({"output": [1, 2]})
        );
    }

    #[test]
    fn images_go_in_parts_and_the_rest_in_words() {
        let output = ToolOutput::blocks([
            Content::Image {
                data: "iVBORw0KGgo=".into(),
                mime_type: "image/png".into(),
            },
            Content::Audio {
                data: "UklGRg==".into(),
                mime_type: "audio/wav".into(),
            },
        ]);
        let part = gemini_function_response(&call("gemini-call-0", "shot", "{}"), &output, false);
        assert_eq!(
            part,
            json!({"functionResponse": {
                "name": "shot",
                "response": {"output": "[audio: audio/wav]"},
                "parts": [{"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}]
            }})
        );
        let image_only = ToolOutput::blocks([Content::Image {
            data: "iVBORw0KGgo=".into(),
            mime_type: "image/png".into(),
        }]);
        let part =
            gemini_function_response(&call("gemini-call-0", "shot", "{}"), &image_only, false);
        assert_eq!(part["functionResponse"]["response"], json!({}));
    }

    #[test]
    fn one_content_answers_the_turn() {
        let a = gemini_function_response(
            &call("gemini-call-0", "a", "{}"),
            &ToolOutput::text("1"),
            false,
        );
        let b = gemini_function_response(
            &call("gemini-call-1", "b", "{}"),
            &ToolOutput::text("2"),
            false,
        );
        assert_eq!(
            gemini_function_responses_content(vec![a.clone(), b.clone()]),
            json!({"role": "user", "parts": [a, b]})
        );
    }
}
